package session

import (
	"reflect"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The timeline's markers: the engine's, placed on the scrubber, each a
// jump to its operation narrated; next/previous walk them in order; a
// step back keeps the ones ahead.
func TestSession_Markers(t *testing.T) {
	for _, tc := range []struct {
		name, q string
		ops     uint64
		kind    string
	}{
		{"pool-slow: a slow-path allocation at the first op", "v=1&scenario=pool-slow&pool_size=128", 600, "slow"},
		{"drop: ring_full", "v=1&scenario=drop&rx_descs=16&pool_size=32", 2000, "ring_full"},
		{"destroy: retries", "v=1&scenario=destroy&rx_descs=16&pool_size=32", 200, "retry"},
		{"clone-tap last-dataref: a violation", "v=1&scenario=clone-tap&rx_descs=16&pool_size=32&break=last-dataref", 3000, "violation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(query(t, tc.q+shortPages()), nil)
			s.Seek(tc.ops)
			v := verify(t, s, "seek")
			ms := v.Timeline.Markers
			var mk *MarkerView
			for i := range ms {
				if ms[i].Kind == tc.kind {
					mk = &ms[i]
					break
				}
				if ms[i].Pct < 0 || ms[i].Pct > 100 || ms[i].Op == 0 || ms[i].Op > v.Timeline.Max {
					t.Errorf("marker %+v outside the scrubber 0..%d", ms[i], v.Timeline.Max)
				}
			}
			if mk == nil {
				t.Fatalf("no %s marker in %+v", tc.kind, ms)
			}
			if tc.kind == "slow" && ms[0].Op != 1 {
				t.Errorf("first marker at scrubber op %d, want 1 (the first operation)", ms[0].Op)
			}
			s.GoMarker(mk.Op, mk.PFN)
			v = verify(t, s, "go to the marker")
			if !v.Narration.Has || v.Narration.Rec.Op.Index+1 != mk.Op {
				t.Fatalf("at marker op %d the narration has %v op %d", mk.Op, v.Narration.Has, v.Narration.Rec.Op.Index+1)
			}
			rec := v.Narration.Rec
			switch tc.kind {
			case "slow":
				if rec.Stats[sim.StatAllocSlow] == rec.StatsBefore[sim.StatAllocSlow] && rec.Stats[sim.StatAllocSlowHighOrder] == rec.StatsBefore[sim.StatAllocSlowHighOrder] {
					t.Errorf("the marked op's counters show no slow-path allocation")
				}
			case "violation":
				if len(rec.Violations) == 0 || v.Machine.Selected != mk.PFN || !v.Machine.Scroll {
					t.Errorf("a violation marker: violations %v, selected %d (want %d, scrolled)", rec.Violations, v.Machine.Selected, mk.PFN)
				}
			}
			here := 0
			for _, m := range v.Timeline.Markers {
				if m.Here {
					here++
				}
			}
			if here == 0 {
				t.Error("no marker says it is the operation shown")
			}
			// A step back to the start keeps the markers (the furthest op is what counts).
			s.Reset()
			if got := verify(t, s, "reset").Timeline.Markers; len(got) != len(ms) {
				t.Errorf("after reset %d markers, before %d", len(got), len(ms))
			}
			// next/previous visit every marker's op in order, then stop.
			var seen []uint64
			for s.NextMarker() {
				seen = append(seen, s.Lab().Ops())
				if len(seen) > len(ms) {
					t.Fatal("next marker does not stop")
				}
			}
			var want []uint64
			for _, m := range ms {
				if len(want) == 0 || want[len(want)-1] != m.Op {
					want = append(want, m.Op)
				}
			}
			if !reflect.DeepEqual(seen, want) {
				t.Errorf("next marker visits %v, want %v", seen, want)
			}
			if n := len(s.View().Banner); n == 0 {
				t.Error("a next with no marker ahead says nothing")
			}
			s.NextMarker()
			if n := len(s.View().Banner); n > 1+len(ms) {
				t.Errorf("pressing next again grows the banner: %d entries", n)
			}
			var back []uint64
			for s.PrevMarker() {
				back = append(back, s.Lab().Ops())
				if len(back) > len(ms) {
					t.Fatal("previous marker does not stop")
				}
			}
			if len(back) != len(want)-1 || (len(back) > 0 && back[len(back)-1] != want[0]) {
				t.Errorf("previous marker visits %v from %d, want %v backwards", back, want[len(want)-1], want[:len(want)-1])
			}
		})
	}
}

// Markers are bounded and a function of the config and the furthest op:
// a session seeking around and one stepping straight there agree.
func TestSession_MarkersDeterministic(t *testing.T) {
	q := "v=1&scenario=tcp-stream&rx_descs=16&pool_size=32" + shortPages()
	a := New(query(t, q), nil)
	a.Seek(5000)
	a.Seek(10)
	a.Back()
	a.Seek(4000)
	a.Seek(5000)
	b := New(query(t, q), nil)
	for b.Lab().Ops() < 5000 {
		b.Step()
	}
	if !reflect.DeepEqual(a.Lab().Markers(), b.Lab().Markers()) {
		t.Fatalf("seeking: %v\nstepping: %v", a.Lab().Markers(), b.Lab().Markers())
	}
	n := map[string]int{}
	for _, m := range a.View().Timeline.Markers {
		if n[m.Kind]++; n[m.Kind] > lab.MarkersPerKind {
			t.Errorf("more than %d %s markers", lab.MarkersPerKind, m.Kind)
		}
	}
}
