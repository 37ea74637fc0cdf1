package lab

import (
	"sync/atomic"
	"testing"

	"pplab/engine/sim"
)

// TestFastForward_EveryEra: every driver scenario on its default driver in
// every era it runs in, at 10^6 packets: results, series and snapshot with
// the fast-forward on equal those without it. The runs are independent
// Labs, run in parallel (one per GOMAXPROCS). cmd/ppsim's
// TestFastForward_GoldenCorpus compares ppsim's output on and off for every
// configuration of the golden corpus as well (every driver, knob and rule
// row), at 10^5 packets and a sample at 10^6.
func TestFastForward_EveryEra(t *testing.T) {
	if testing.Short() {
		t.Skip("about 210 runs of 10^6 packets")
	}
	var skipped atomic.Int64
	t.Run("runs", func(t *testing.T) {
		for _, sc := range Scenarios {
			if !sc.NeedsDriver || sc.Name == "destroy" {
				continue
			}
			for _, era := range sim.EraNames() {
				cfg := Config{Scenario: sc.Name, Era: era, Packets: 1_000_000}
				if cfg.Validate() != nil {
					continue
				}
				t.Run(sc.Name+"/"+era, func(t *testing.T) {
					t.Parallel()
					on, off := ffRun(t, cfg, true), ffRun(t, cfg, false)
					if n := on.FFStats().Skips; n > 0 {
						skipped.Add(1)
					}
					ffSame(t, on, off)
				})
			}
		}
	})
	if skipped.Load() == 0 {
		t.Fatal("no run skipped a cycle")
	}
	t.Logf("%d runs skipped cycles", skipped.Load())
}
