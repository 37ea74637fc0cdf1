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
	if n := l.M.Log.Total(); n != 0 {
		b.Fatalf("%d violations", n)
	}
	r := l.Results()
	b.ReportMetric(r.NsPerPacket, "sim-ns/pkt")
}

func BenchmarkPoolDirect(b *testing.B) { benchScenario(b, "pool-direct") }
func BenchmarkPoolRing(b *testing.B)   { benchScenario(b, "pool-ring") }
func BenchmarkPoolSlow(b *testing.B)   { benchScenario(b, "pool-slow") }

func BenchmarkCloneTap(b *testing.B)      { benchScenario(b, "clone-tap") }
func BenchmarkCoalesceMixed(b *testing.B) { benchScenario(b, "coalesce-mixed") }
func BenchmarkSplitPage(b *testing.B)     { benchScenario(b, "split-page") }
