package lab

import "pplab/engine/lab/internal/series"

// SeriesPoint is one window of a run (package series): its rate over the
// delivered packets and the busiest CPU's busy time, capped by the link,
// and where the pages freed in it went.
type SeriesPoint = series.Point

// Mix counts where pages went in a window (series.Mix).
type Mix = series.Mix

// sample closes the current window (called when packets reach its end)
// and opens the next; the first call (from New) only opens one.
func (l *Lab) sample() {
	l.seriesBuf = l.seriesVals(l.seriesBuf[:0])
	l.closeWindow(l.packets, l.seriesBuf)
}

// closeWindow closes the window that ends at packets with the sums
// seriesVals reads (the fast-forward closes the windows inside the cycles
// it skips from the sums of a recorded cycle).
func (l *Lab) closeWindow(packets int64, v []int64) {
	l.series.Close(packets, len(l.m.CPUs), v, func(p, busy int64) float64 { k, _ := l.kpps(p, busy); return k })
}

// seriesVals appends what a window's close reads, in this order: the
// machine's time, each CPU's busy time, the stats, the pools' releases, the
// packets lost.
func (l *Lab) seriesVals(dst []int64) []int64 {
	dst = append(dst, l.m.NowPS())
	for c := range l.m.CPUs {
		dst = append(dst, l.m.CPUs[c].BusyPS())
	}
	for _, v := range l.stats() {
		dst = append(dst, int64(v))
	}
	return append(dst, int64(l.releases()), l.lost)
}

// kpps is the rate of packets over busyPS of the busiest CPU, capped by the
// link (and whether the link capped it): the run's rate (Results) and each
// window's (Series) are this one formula.
func (l *Lab) kpps(packets, busyPS int64) (float64, bool) {
	if packets <= 0 || busyPS <= 0 {
		return 0, false
	}
	k := float64(packets) / (float64(busyPS) / 1e12) / 1e3
	if link := l.linkKpps(); link > 0 && k > link {
		return link, true
	}
	return k, false
}

// releases is pages_state_release_cnt summed over the pools.
func (l *Lab) releases() uint64 {
	var n uint64
	for _, p := range l.reg.Pools() {
		n += uint64(p.Release())
	}
	return n
}

// Series returns the run's throughput and recycle mix over time: at most
// 256 windows covering the whole run so far, oldest first, and the current
// window length in packets.
func (l *Lab) Series() (points []SeriesPoint, window int64) {
	return l.series.Points(), l.series.Window()
}
