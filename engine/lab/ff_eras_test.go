package lab

import (
	"testing"

	"pplab/engine/sim"
)

// TestFastForward_EveryEra: every driver scenario on its default driver in
// every era it runs in, at 2·10^6 packets: results, series and snapshot
// with the fast-forward on equal those without it.
func TestFastForward_EveryEra(t *testing.T) {
	if testing.Short() {
		t.Skip("about 70 runs of 2·10^6 packets")
	}
	skipped := 0
	for _, sc := range Scenarios {
		if !sc.NeedsDriver || sc.Name == "destroy" {
			continue
		}
		for _, era := range sim.EraNames() {
			cfg := Config{Scenario: sc.Name, Era: era, Packets: 2_000_000}
			if cfg.Validate() != nil {
				continue
			}
			t.Run(sc.Name+"/"+era, func(t *testing.T) {
				on, off := ffRun(t, cfg, true), ffRun(t, cfg, false)
				if n := on.FFStats().Skips; n > 0 {
					skipped++
				}
				ffSame(t, on, off)
			})
		}
	}
	if skipped == 0 {
		t.Fatal("no run skipped a cycle")
	}
	t.Logf("%d runs skipped cycles", skipped)
}
