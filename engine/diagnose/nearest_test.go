package diagnose

import (
	"testing"

	"pplab/engine/sim"
)

// TestScaled_NeverGivesBackMorePagesThanItAllocated: a page handed out
// comes back at most once, so a run's returns (recycle_cached + ring +
// ring_full + released_refcnt) never exceed its allocations, and the runs
// a paste is compared with, scaled to its length, must not either: the
// pages a run's window gives back beyond those it handed out (a destroy's
// late returns) come back once, not once per window. Scaled repeated them:
// destroy on bnxt at a ynltool paste's 1.8 G allocations recycled 152.96 %
// of them. Every run of the sweep, at lengths from the warm-up to 10^10.
func TestScaled_NeverGivesBackMorePagesThanItAllocated(t *testing.T) {
	bad := 0
	for _, c := range Sweep() {
		for _, v := range []sim.Stats{c.Warm, c.Stats} {
			if returnsOf(v) > allocsOf(v) {
				t.Fatalf("%+v: the run itself gives back %d pages of %d allocated", c.Config, returnsOf(v), allocsOf(v))
			}
		}
		for _, n := range []float64{float64(allocsOf(c.Warm)), float64(allocsOf(c.Stats)) * 1.5, 1e5, 1e7, 1.8e9, 1e10} {
			v := c.Scaled(n)
			// Each of the counters is rounded on its own: 4 returns and 4
			// allocations, half a page each.
			if r, a := returnsOf(v), allocsOf(v); r > a+4 {
				if bad++; bad <= 10 {
					t.Errorf("%s on %s, era %s, at %.3g allocations: %d returns of %d allocated (%.2f %%)", c.Config.Scenario, c.Config.Driver, c.Config.Era, n, r, a, 100*float64(r)/float64(a))
				}
			}
		}
	}
	if bad > 10 {
		t.Errorf("and %d more", bad-10)
	}
}

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
