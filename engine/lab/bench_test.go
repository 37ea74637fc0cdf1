package lab

import (
	"testing"
)

// benchScenario measures the engine per simulated packet (one alloc+free pair
// for the pool scenarios) in batch mode, set-up excluded. The steady state
// must not allocate.
func benchScenario(b *testing.B, scenario string, set ...string) {
	l, err := New(Config{Scenario: scenario, Packets: int64(b.N) + 1, Set: set})
	if err != nil {
		b.Fatal(err)
	}
	for !l.run.measuring() { // pp_fill_ptr_ring
		l.stepOne()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for !l.Done() {
		l.RunN(1 << 20)
	}
	b.StopTimer()
	if n := l.m.Log.Total(); n != 0 {
		b.Fatalf("%d violations", n)
	}
	r := l.Results()
	b.ReportMetric(r.NsPerPacket, "sim-ns/pkt")
}

func BenchmarkPoolDirect(b *testing.B) { benchScenario(b, "pool-direct") }
func BenchmarkPoolRing(b *testing.B)   { benchScenario(b, "pool-ring") }
func BenchmarkPoolSlow(b *testing.B)   { benchScenario(b, "pool-slow") }

// BenchmarkDriverScenarios: every driver scenario on its default driver
// (destroy ends on its own and is left out).
func BenchmarkDriverScenarios(b *testing.B) {
	for _, sc := range Scenarios {
		if sc.NeedsDriver && sc.Name != "destroy" {
			b.Run(sc.Name, func(b *testing.B) { benchScenario(b, sc.Name) })
		}
	}
}

// TestDriverScenarios_SteadyStateAllocFree: past its warm-up, no driver
// scenario allocates on the Go heap per operation: a run eight times longer
// allocates no more (RunN's closing full check may allocate once per call).
func TestDriverScenarios_SteadyStateAllocFree(t *testing.T) {
	for _, sc := range Scenarios {
		if !sc.NeedsDriver || sc.Name == "destroy" {
			continue
		}
		l, err := New(Config{Scenario: sc.Name, Packets: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		for !l.run.measuring() {
			l.stepOne()
		}
		short := testing.AllocsPerRun(5, func() { l.RunN(1024) })
		long := testing.AllocsPerRun(5, func() { l.RunN(8 * 1024) })
		if long != short {
			t.Errorf("%s: %.1f allocations per 1024 operations, %.1f per 8192", sc.Name, short, long)
		}
	}
}

func BenchmarkCloneTap(b *testing.B)      { benchScenario(b, "clone-tap") }
func BenchmarkCoalesceMixed(b *testing.B) { benchScenario(b, "coalesce-mixed") }
func BenchmarkSplitPage(b *testing.B)     { benchScenario(b, "split-page") }
