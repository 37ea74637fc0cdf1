package lab

import (
	"fmt"
	"testing"

	"pplab/engine/sim"
)

// benchScenario measures the engine per simulated packet (one alloc+free pair
// for the pool scenarios) in batch mode, set-up excluded. The steady state
// must not allocate.
// benchScenario measures the simulation per operation: fast_forward=0
// (BenchmarkFastForward measures what skipping adds).
func benchScenario(b *testing.B, scenario string, set ...string) {
	l, err := New(Config{Scenario: scenario, Packets: int64(b.N) + 1, Knobs: sim.MustOverrides(append([]string{"fast_forward=0"}, set...)...)})
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
		// fast_forward=0: its samples allocate (a walk per 16384+
		// operations, a skip adds whole cycles); the operations must not.
		l, err := New(Config{Scenario: sc.Name, Packets: 1 << 40, Knobs: sim.MustOverrides("fast_forward=0")})
		if err != nil {
			t.Fatal(err)
		}
		for !l.run.measuring() {
			l.stepOne()
		}
		short := testing.AllocsPerRun(5, func() { l.RunN(1024) })
		long := testing.AllocsPerRun(5, func() { l.RunN(8 * 1024) })
		if long != 0 || short != 0 {
			t.Errorf("%s: %.1f allocations per 1024 operations, %.1f per 8192: want none", sc.Name, short, long)
		}
	}
}

func BenchmarkCloneTap(b *testing.B)      { benchScenario(b, "clone-tap") }
func BenchmarkCoalesceMixed(b *testing.B) { benchScenario(b, "coalesce-mixed") }
func BenchmarkSplitPage(b *testing.B)     { benchScenario(b, "split-page") }

// BenchmarkSeek: seeks to points spread over the first 10^6 operations of a
// drop run at the kernel's sizes, in a scrubbing order (the keyframes exist:
// the run was played to 10^6 first). Budget: < 50 ms per seek native.
func BenchmarkSeek(b *testing.B) {
	l, err := New(Config{Scenario: "drop", Packets: 2_000_000})
	if err != nil {
		b.Fatal(err)
	}
	l.EnableSeek()
	l.Seek(1_000_000)
	targets := []uint64{999_999, 10, 500_000, 250_123, 750_777, 1_000_000, 123_456, 876_543}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Seek(targets[i%len(targets)])
	}
}

// BenchmarkSeekCold: the first seek to op 10^6 of a new run (no keyframes
// yet: a straight batch replay that takes them on the way).
func BenchmarkSeekCold(b *testing.B) {
	for i := 0; i < b.N; i++ {
		l, err := New(Config{Scenario: "drop", Packets: 2_000_000})
		if err != nil {
			b.Fatal(err)
		}
		l.EnableSeek()
		l.Seek(1_000_000)
	}
}

// BenchmarkSeekRuleBroken: the playground's clone-tap preset with
// last-dataref broken, where every path checks fully after each
// operation (checkEach): a link's first seek to op 137, 10^4 and 10^5 on a
// new run, and seeks spread over the first 10^5 operations once the run
// has been there (scrubbing: a replay from the nearest keyframe).
func BenchmarkSeekRuleBroken(b *testing.B) {
	cfg := Config{Scenario: "clone-tap", Knobs: teaching("clone-tap"), Break: []string{"last-dataref"}, Packets: 1 << 20}
	for _, n := range []uint64{137, 10_000, 100_000} {
		b.Run(fmt.Sprintf("cold-%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				l, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				l.EnableSeek()
				l.Record(true)
				l.Seek(n)
			}
		})
	}
	b.Run("scrub-100000", func(b *testing.B) {
		l, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		l.EnableSeek()
		l.Record(true)
		l.Seek(100_000)
		targets := []uint64{99_999, 10, 50_000, 25_123, 75_777, 100_000, 12_345, 87_654}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			l.Seek(targets[i%len(targets)])
		}
	})
}

// BenchmarkSnapshot: one snapshot of the playground's teaching-size drop run.
func BenchmarkSnapshot(b *testing.B) {
	l := benchLab(b, Config{Scenario: "drop", Packets: 100_000, Knobs: teaching("drop")}, 5000)
	for i := 0; i < b.N; i++ {
		_ = l.Snapshot()
	}
}

// BenchmarkStepRecord: one recorded step (full check, events, moves) of the
// teaching-size drop run, as the playground steps.
func BenchmarkStepRecord(b *testing.B) {
	l, err := New(Config{Scenario: "drop", Packets: 1 << 40, Knobs: teaching("drop")})
	if err != nil {
		b.Fatal(err)
	}
	l.Record(true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Step()
	}
}

// BenchmarkClone: one keyframe (a deep copy of a drop run at the kernel's
// sizes).
func BenchmarkClone(b *testing.B) {
	l := benchLab(b, Config{Scenario: "drop", Packets: 1_000_000}, 10_000)
	for i := 0; i < b.N; i++ {
		_ = l.clone()
	}
}

// benchLab is a run of cfg after ops operations, the timer reset.
func benchLab(b *testing.B, cfg Config, ops int64) *Lab {
	b.Helper()
	l, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	l.RunN(ops)
	b.ReportAllocs()
	b.ResetTimer()
	return l
}

// BenchmarkFastForward: wall time per simulated packet of a 10^7-packet
// run of every driver scenario on its default driver, with the steady-state
// fast-forward on and off (run with -benchtime=1x; the packet count is
// fixed, b.N repeats the run).
func BenchmarkFastForward(b *testing.B) {
	const packets = 10_000_000
	for _, sc := range Scenarios {
		if !sc.NeedsDriver || sc.Name == "destroy" {
			continue
		}
		for _, ff := range []string{"on", "off"} {
			b.Run(sc.Name+"/"+ff, func(b *testing.B) {
				set := []string{"fast_forward=1"}
				if ff == "off" {
					set = []string{"fast_forward=0"}
				}
				var l *Lab
				for b.Loop() {
					var err error
					if l, err = New(Config{Scenario: sc.Name, Packets: packets, Knobs: sim.MustOverrides(set...)}); err != nil {
						b.Fatal(err)
					}
					l.Run()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/packets, "wall-ns/pkt")
				st := l.FFStats()
				skipped, period := st.Skipped, st.Period
				b.ReportMetric(float64(skipped)/float64(l.Ops()), "skipped-share")
				b.ReportMetric(float64(period), "period-ops")
			})
		}
	}
}

// BenchmarkMarkers: a batch run of drop (fast-forward off, so every
// operation runs) with the markers a UI enables and without: what looking
// for markers after each operation costs.
func BenchmarkMarkers(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			l, err := New(Config{Scenario: "drop", Packets: 1 << 40, Knobs: sim.MustOverrides("fast_forward=0")})
			if err != nil {
				b.Fatal(err)
			}
			if on {
				l.EnableMarkers()
			}
			l.RunN(10_000)
			b.ReportAllocs()
			b.ResetTimer()
			l.RunN(int64(b.N))
		})
	}
}
