package series

import (
	"testing"

	"pplab/engine/sim"
)

// vals builds the sums Close reads for one CPU.
func vals(nowPS, busyPS int64, cached uint64, rel, lost int64) []int64 {
	v := []int64{nowPS, busyPS}
	var st sim.Stats
	st[sim.StatRecycleCached] = cached
	for _, x := range st {
		v = append(v, int64(x))
	}
	return append(v, rel, lost)
}

func rate(p, busy int64) float64 {
	if busy == 0 {
		return 0
	}
	return float64(p) / float64(busy)
}

// TestSeries_WindowsMergeAndKeepTheirSums: the windows stay at most Max,
// cover every packet closed, count the delivered ones (lost ones not) and
// the mix; merging doubles the window.
func TestSeries_WindowsMergeAndKeepTheirSums(t *testing.T) {
	var s Series
	s.Close(0, 1, vals(0, 0, 0, 0, 0), rate)
	if s.Next() != FirstWindow || len(s.Points()) != 0 {
		t.Fatalf("after the opening close: next %d, %d points", s.Next(), len(s.Points()))
	}
	var lost int64
	for i := 0; i < 3*Max; i++ {
		p := s.Next()
		lost += 1
		s.Close(p, 1, vals(p*1000, p*900, uint64(p), 0, lost), rate)
	}
	pts := s.Points()
	if len(pts) > Max || s.Window() <= FirstWindow {
		t.Fatalf("%d points, window %d: want at most %d and merged", len(pts), s.Window(), Max)
	}
	var delivered int64
	var cached uint64
	for _, p := range pts {
		delivered += p.Delivered
		cached += p.Mix.Cached
	}
	last := pts[len(pts)-1].Packets
	if delivered != last-lost || cached != uint64(last) {
		t.Errorf("windows hold %d delivered and %d cached, want %d and %d", delivered, cached, last-lost, last)
	}
}
