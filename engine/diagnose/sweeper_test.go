package diagnose

import (
	"testing"
)

// TestSweeper_IsSweepInSlices: a sweep made in slices of 64 operations
// (more says stop at every ask) makes Sweep's runs, in Sweep's order, with
// the same counters, and installs them: Sweep then returns them.
func TestSweeper_IsSweepInSlices(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sweep twice (≈4 s)")
	}
	want := Sweep()
	w := &Sweeper{cfgs: sweepConfigs()}
	slices := 0
	for !w.Work(func() bool { return false }) {
		slices++
		if d, n := w.Progress(); d > n {
			t.Fatalf("progress %d of %d", d, n)
		}
	}
	if len(w.own) != len(want) {
		t.Fatalf("%d runs in slices, Sweep %d", len(w.own), len(want))
	}
	for i := range want {
		if w.own[i].Config.Values().Encode() != want[i].Config.Values().Encode() || w.own[i].Stats != want[i].Stats {
			t.Fatalf("run %d: in slices %s %v, Sweep %s %v", i, w.own[i].Config.Values().Encode(), w.own[i].Stats, want[i].Config.Values().Encode(), want[i].Stats)
		}
	}
	t.Logf("%d runs in %d slices", len(want), slices)
	if !installed || len(Sweep()) != len(want) || !NewSweeper().Done() {
		t.Error("the sweep in slices was not installed")
	}
}
