// Package series is a run's throughput and recycle mix over time: windows
// of packets closed from the sums a run keeps (time, each CPU's busy time,
// the page_pool stats, the pools' releases, the packets lost), bounded in
// number by merging pairs as the run grows. It knows nothing of the run:
// the Lab reads the sums (its seriesVals) and closes the windows, and the
// fast-forward closes those inside skipped cycles from a recorded cycle's
// sums.
package series

import "pplab/engine/sim"

// Point is one window of a run: the rate in it and where the pages freed
// in it went. The rate is the window's delivered packets (lost ones not
// counted) over the busiest CPU's busy time in the window (the whole run's
// rate is the same formula over the measured part), capped by the link.
type Point struct {
	Packets int64   // packets completed at the window's end
	TimeNS  int64   // the machine's time at the window's end
	Kpps    float64 // the window's rate
	Mix     Mix     // the recycle paths taken in the window

	Delivered int64 // the window's delivered packets
	BusyPS    int64 // the busiest CPU's busy time in the window (for merging)
}

// Mix counts where pages went in a window. Cached, Ring and Released are
// disjoint (a recycled page lands in the cache or the ring; a released one
// leaves its pool for the page allocator); CacheFull is the part of Ring that
// wanted the cache, RingFull and ReleasedRefcnt are parts of Released.
type Mix struct {
	Cached, Ring, Released              uint64
	CacheFull, RingFull, ReleasedRefcnt uint64
}

func (a Mix) plus(b Mix) Mix {
	return Mix{a.Cached + b.Cached, a.Ring + b.Ring, a.Released + b.Released,
		a.CacheFull + b.CacheFull, a.RingFull + b.RingFull, a.ReleasedRefcnt + b.ReleasedRefcnt}
}

// Max bounds the points kept: when a new point would exceed it, pairs of
// points merge and the window doubles, so a run of any length keeps at
// most Max points covering all of it.
const Max = 256

// FirstWindow is the first window: one NAPI budget of packets.
const FirstWindow = 64

// Series is the windows so far. The zero Series is empty; the first Close
// only opens a window.
type Series struct {
	window  int64
	next    int64 // packets at which the current window ends
	points  []Point
	busy0   []int64 // per-CPU busy time at the window's start
	stats0  sim.Stats
	rel0    uint64
	packet0 int64
	lost0   int64
}

// Next is the packet count at which the current window ends.
func (s *Series) Next() int64 { return s.next }

// Window is the current window's length in packets.
func (s *Series) Window() int64 { return s.window }

// Points is a copy of the closed windows, oldest first.
func (s *Series) Points() []Point { return append([]Point(nil), s.points...) }

// Close closes the window that ends at packets and opens the next, from
// the run's sums there, in this order: the machine's time, each of ncpu
// CPUs' busy time, the stats, the pools' releases (a u32 sum), the packets
// lost. rate is the run's rate formula (packets over the busiest CPU's
// busy time, capped by the link). It allocates only on the first call.
func (s *Series) Close(packets int64, ncpu int, v []int64, rate func(packets, busyPS int64) float64) {
	nowPS, busyNow, rel, lost := v[0], v[1:1+ncpu], uint64(v[len(v)-2]), v[len(v)-1]
	var st sim.Stats
	for i := range st {
		st[i] = uint64(v[1+ncpu+i])
	}
	if s.points == nil {
		s.window = FirstWindow
		s.busy0 = make([]int64, ncpu)
		s.points = make([]Point, 0, Max+1)
	} else {
		var busy int64
		for c := range busyNow {
			busy = max(busy, busyNow[c]-s.busy0[c])
		}
		p := Point{Packets: packets, TimeNS: nowPS / sim.PSPerNS, Delivered: packets - s.packet0 - (lost - s.lost0), BusyPS: busy,
			Mix: Mix{Cached: st[sim.StatRecycleCached] - s.stats0[sim.StatRecycleCached],
				Ring:           st[sim.StatRecycleRing] - s.stats0[sim.StatRecycleRing],
				Released:       rel - s.rel0,
				CacheFull:      st[sim.StatRecycleCacheFull] - s.stats0[sim.StatRecycleCacheFull],
				RingFull:       st[sim.StatRecycleRingFull] - s.stats0[sim.StatRecycleRingFull],
				ReleasedRefcnt: st[sim.StatRecycleReleasedRefcnt] - s.stats0[sim.StatRecycleReleasedRefcnt]}}
		p.Kpps = rate(p.Delivered, p.BusyPS)
		s.points = append(s.points, p)
		if len(s.points) > Max {
			s.merge(rate)
		}
	}
	copy(s.busy0, busyNow)
	s.stats0, s.rel0, s.packet0, s.lost0 = st, rel, packets, lost
	s.next = packets + s.window
}

// merge halves the points: each pair becomes one window twice as long.
func (s *Series) merge(rate func(packets, busyPS int64) float64) {
	n := len(s.points) / 2
	for i := 0; i < n; i++ {
		a, b := s.points[2*i], s.points[2*i+1]
		p := b
		// The merged window's busiest-CPU time is taken as the sum of each
		// half's: exact when one CPU bounds both halves (the usual case), an
		// upper bound otherwise.
		p.Delivered, p.BusyPS = a.Delivered+b.Delivered, a.BusyPS+b.BusyPS
		p.Mix = a.Mix.plus(b.Mix)
		p.Kpps = rate(p.Delivered, p.BusyPS)
		s.points[i] = p
	}
	if len(s.points)%2 == 1 {
		s.points[n] = s.points[len(s.points)-1]
		n++
	}
	s.points = s.points[:n]
	s.window *= 2
}
