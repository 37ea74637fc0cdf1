package lab

import "pplab/engine/sim"

// SeriesPoint is one window of a run: the rate in it and where the pages
// freed in it went. The rate is the window's delivered packets (lost ones
// not counted) over the busiest CPU's
// busy time in the window (the whole run's rate is the same formula over the
// measured part), capped by the link.
type SeriesPoint struct {
	Packets int64   // packets completed at the window's end
	TimeNS  int64   // the machine's time at the window's end
	Kpps    float64 // the window's rate
	Mix     Mix     // the recycle paths taken in the window

	dp, busyPS int64 // the window's delivered packets and the busiest CPU's busy time (for merging)
}

// Mix counts where pages went in a window. Cached, Ring and Released are
// disjoint (a recycled page lands in the cache or the ring; a released one
// leaves its pool for the page allocator); CacheFull is the part of Ring that
// wanted the cache, RingFull and ReleasedRefcnt are parts of Released.
type Mix struct {
	Cached, Ring, Released              uint64
	CacheFull, RingFull, ReleasedRefcnt uint64
}

// seriesMax bounds the points kept: when a new point would exceed it, pairs
// of points merge and the window doubles, so a run of any length keeps at
// most seriesMax points covering all of it.
const seriesMax = 256

// seriesWindow is the first window: one NAPI budget of packets.
const seriesWindow = 64

type series struct {
	window  int64
	next    int64 // packets at which the current window ends
	points  []SeriesPoint
	busy0   []int64 // per-CPU busy time at the window's start
	vals    []int64 // scratch (seriesVals)
	stats0  sim.Stats
	rel0    uint64
	packet0 int64
	lost0   int64
}

// sample closes the current window (called when packets reach next) and
// opens the next; the first call (from New) only opens one. It allocates
// only on the first call.
func (s *series) sample(l *Lab) {
	s.vals = l.seriesVals(s.vals[:0])
	s.sampleAt(l, l.packets, s.vals)
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

// sampleAt is sample with the values seriesVals reads given, at the close
// of the window that ends at packets (the fast-forward closes the windows
// inside the cycles it skips from the values of a recorded cycle).
func (s *series) sampleAt(l *Lab, packets int64, v []int64) {
	n := len(l.m.CPUs)
	nowPS, busyNow, rel, lost := v[0], v[1:1+n], uint64(v[len(v)-2]), v[len(v)-1]
	var st sim.Stats
	for i := range st {
		st[i] = uint64(v[1+n+i])
	}
	m := l.m
	if s.points == nil {
		s.window = seriesWindow
		s.busy0 = make([]int64, n)
		s.points = make([]SeriesPoint, 0, seriesMax+1)
	} else {
		var busy int64
		for c := range m.CPUs {
			busy = max(busy, busyNow[c]-s.busy0[c])
		}
		p := SeriesPoint{Packets: packets, TimeNS: nowPS / sim.PSPerNS, dp: packets - s.packet0 - (lost - s.lost0), busyPS: busy,
			Mix: Mix{Cached: st[sim.StatRecycleCached] - s.stats0[sim.StatRecycleCached],
				Ring:           st[sim.StatRecycleRing] - s.stats0[sim.StatRecycleRing],
				Released:       rel - s.rel0,
				CacheFull:      st[sim.StatRecycleCacheFull] - s.stats0[sim.StatRecycleCacheFull],
				RingFull:       st[sim.StatRecycleRingFull] - s.stats0[sim.StatRecycleRingFull],
				ReleasedRefcnt: st[sim.StatRecycleReleasedRefcnt] - s.stats0[sim.StatRecycleReleasedRefcnt]}}
		p.Kpps, _ = l.kpps(p.dp, p.busyPS)
		s.points = append(s.points, p)
		if len(s.points) > seriesMax {
			s.merge(l)
		}
	}
	copy(s.busy0, busyNow)
	s.stats0, s.rel0, s.packet0, s.lost0 = st, rel, packets, lost
	s.next = packets + s.window
}

// merge halves the points: each pair becomes one window twice as long.
func (s *series) merge(l *Lab) {
	n := len(s.points) / 2
	for i := 0; i < n; i++ {
		a, b := s.points[2*i], s.points[2*i+1]
		p := b
		// The merged window's busiest-CPU time is taken as the sum of each
		// half's: exact when one CPU bounds both halves (the usual case), an
		// upper bound otherwise.
		p.dp, p.busyPS = a.dp+b.dp, a.busyPS+b.busyPS
		p.Mix = Mix{a.Mix.Cached + b.Mix.Cached, a.Mix.Ring + b.Mix.Ring, a.Mix.Released + b.Mix.Released,
			a.Mix.CacheFull + b.Mix.CacheFull, a.Mix.RingFull + b.Mix.RingFull, a.Mix.ReleasedRefcnt + b.Mix.ReleasedRefcnt}
		p.Kpps, _ = l.kpps(p.dp, p.busyPS)
		s.points[i] = p
	}
	if len(s.points)%2 == 1 {
		s.points[n] = s.points[len(s.points)-1]
		n++
	}
	s.points = s.points[:n]
	s.window *= 2
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
	return append([]SeriesPoint(nil), l.series.points...), l.series.window
}
