package diagnose

import (
	"testing"

	"pplab/engine/sim"
)

// TestWhy_AMatchIsWithinTheTolerance: a candidate's "why" says it matches
// a ratio only within WhyTolerance: recycling 99.95 % did "match" runs at
// 152.96 % (the scale was clamped at 100 %) and at 93.14 % (on the square
// root scale 0.05 spans 10 points near 100 %).
func TestWhy_AMatchIsWithinTheTolerance(t *testing.T) {
	paste := Counters{FastHasRefill: true}
	paste.set(sim.StatAllocFast, 10000)
	paste.set(sim.StatAllocSlow, 0)
	paste.set(sim.StatRecycleRing, 9995)
	paste.set(sim.StatRecycleCached, 0)
	run := &Run{c: paste, Ratios: ratios(paste, false)}
	if v, ok := ratio(run.Ratios, "recycling %"); !ok || v != 99.95 {
		t.Fatalf("the paste's recycling %% is %v", v)
	}
	for ring, match := range map[uint64]bool{15296: false, 10000: true, 9999: true, 9980: false, 9623: false, 9314: false} {
		var c Counts
		c.PP[sim.StatAllocFast], c.PP[sim.StatRecycleRing] = 10000, ring
		w := why(run, c, false)
		got := len(w.Matches) == 1 && w.Differs == nil
		if got != match || (!match && (w.Differs == nil || w.Differs.Name != "recycling %")) {
			t.Errorf("recycling 99.95 %% against %.2f %%: %s (want a match: %v)", float64(ring)/100, w, match)
		}
	}
}
