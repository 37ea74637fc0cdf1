package lab

import (
	"slices"
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// destroy's known failures (Scenario.KnownFailure) are exactly what the
// runs show, for every driver, era, held and release_race setting, with no
// rule broken: dma-unmap-after-unbind where the pages come back to a pool
// that maps them — skbs where the driver marks them, redirected XDP frames
// (held=1, the drivers with a second port) in every era — and the era does
// not track DMA (before 6.16); pool-use-after-free with release_race=1
// where the last put's producer window is not covered: no producer barrier
// (before 6.16), or a bulk put whose ring stat follows the unlock (held=1's
// xdp_return_frame_bulk from 6.15, page_pool_recycle_ring_bulk); nothing
// else anywhere.
func TestDestroy_KnownFailureIsWhatEveryRunShows(t *testing.T) {
	sc, _ := ScenarioByName("destroy")
	shown := map[string]int{}
	for _, d := range sc.Drivers {
		spec, _ := drivers.SpecByName(d)
		for _, e := range sim.Eras {
			if e.Order < spec.MinEra() {
				continue
			}
			for _, held := range []string{"held=0", "held=1"} {
				if held == "held=1" && spec.XDPNdo == drivers.XDPNdoNone {
					continue
				}
				for _, race := range []string{"release_race=0", "release_race=1"} {
					name := d + "/" + e.Name + "/" + held + "/" + race
					cfg := Config{Driver: d, Scenario: "destroy", Era: e.Name, Packets: 600, Knobs: sim.MustOverrides(held, race)}
					l, r := run(t, cfg)
					if l.Err() != nil {
						t.Fatalf("%s: %v", name, l.Err())
					}
					var got []sim.Kind
					for k := sim.Kind(0); k < sim.NumKinds; k++ {
						if r.Violations.Counts[k] > 0 {
							got = append(got, k)
							shown[held+"/"+k.String()]++
						}
					}
					if want := l.KnownFailure(); !slices.Equal(got, want) {
						t.Errorf("%s: shows %v, known %v: %v", name, got, want, first(r.Violations.List))
					}
				}
			}
		}
	}
	for _, k := range []string{"held=0/dma-unmap-after-unbind", "held=0/pool-use-after-free", "held=1/dma-unmap-after-unbind", "held=1/pool-use-after-free"} {
		if shown[k] == 0 {
			t.Errorf("the matrix never showed %s: %v", k, shown)
		}
	}
}

// held=1's known failure in the eras the bulk race is the kernel's own
// (docs/eras-after-6.8.md §7.2): pool-use-after-free with release_race=1
// for a driver whose second port returns frames in bulk (mvpp2) in every
// era — no barrier before 6.16, and from 6.16 a barrier that does not wait
// for page_pool_recycle_ring_bulk's stat after the unlock, up to 7.1;
// bdea4980182e counts it inside the lock, so 7.3 has no race) — and for
// bnxt (xdp_return_frame: page_pool_recycle_in_ring) only before 6.16.
func TestDestroy_HeldXDPKnownFailurePerEra(t *testing.T) {
	uaf := func(d, era string) bool {
		ks := Config{Driver: d, Scenario: "destroy", Era: era, Knobs: sim.MustOverrides("held=1", "release_race=1")}.KnownFailure()
		return slices.Contains(ks, sim.KindPoolUseAfterFree)
	}
	for _, tc := range []struct {
		driver, era string
		want        bool
	}{
		{"mvpp2", "6.12", true}, {"mvpp2", "6.15", true}, {"mvpp2", "6.16", true}, {"mvpp2", "6.18", true}, {"mvpp2", "7.1-rc1", true}, {"mvpp2", "7.1", true}, {"mvpp2", "7.3", false},
		{"bnxt", "6.15", true}, {"bnxt", "6.16", false}, {"bnxt", "7.1", false}, {"bnxt", "7.3", false},
	} {
		if got := uaf(tc.driver, tc.era); got != tc.want {
			t.Errorf("%s %s held=1 release_race=1: pool-use-after-free known %v, want %v", tc.driver, tc.era, got, tc.want)
		}
	}
}

// The dma_mapped xarray does not allocate per operation: in 6.16 a pool
// that maps and releases a page on every packet (pool-slow: each put
// releases, each alloc maps a fresh page and xa_allocs its id) and a
// driver scenario run allocation-free past their warm-up, ids reused.
func TestDMATracking_SteadyStateAllocFree(t *testing.T) {
	for _, sc := range []string{"pool-slow", "drop", "tcp-stream"} {
		l, err := New(Config{Scenario: sc, Era: "6.16", Packets: 1 << 40, Knobs: sim.MustOverrides("fast_forward=0", "dma_map=1")})
		if err != nil {
			t.Fatal(err)
		}
		for !l.run.measuring() {
			l.stepOne()
		}
		l.RunN(4096)
		short := testing.AllocsPerRun(5, func() { l.RunN(1024) })
		long := testing.AllocsPerRun(5, func() { l.RunN(8 * 1024) })
		if long != 0 || short != 0 || !l.pool.DMATracked() {
			t.Errorf("%s: %.1f allocations per 1024 operations, %.1f per 8192 (tracked %v): want none", sc, short, long, l.pool.DMATracked())
		}
	}
}

// The per-packet path allocates nothing in any era: a driver scenario of
// each kind past its warm-up, with the narration off (a Why string built
// for nobody is an allocation per put: page_pool_napi_local's once was).
func TestSteadyState_NoAllocationsInAnyEra(t *testing.T) {
	for _, row := range []struct{ sc, set string }{{"tcp-stream", ""}, {"xdp-tx", ""}, {"xdp-redirect", "redirect_to=1"}, {"generic-xdp", ""}, {"generic-xdp", "xdp_frags=0"}, {"devmem-rx", ""}} {
		sc := row.sc
		s, err := ScenarioByName(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range sim.Eras {
			cfg := Config{Scenario: sc, Era: e.Name, Packets: 1 << 40, Knobs: sim.MustOverrides("fast_forward=0")}
			if row.set != "" {
				cfg.Knobs = sim.MustOverrides("fast_forward=0", row.set)
			}
			if cfg.Validate() != nil || (len(s.Eras) > 0 && !slices.Contains(s.Eras, e.Name)) {
				continue
			}
			l, err := New(cfg)
			if err != nil {
				t.Fatalf("%s/%s: %v", sc, e.Name, err)
			}
			for !l.run.measuring() {
				l.stepOne()
			}
			l.RunN(4096)
			if n := testing.AllocsPerRun(3, func() { l.RunN(1024) }); n != 0 {
				t.Errorf("%s %s/%s: %.1f allocations per 1024 operations", sc, row.set, e.Name, n)
			}
		}
	}
}

// TestRecycleRingBulk_UseAfterFreeFixedIn7_3 (bdea4980182e "net:
// page_pool: fix use-after-free in page_pool_recycle_ring_bulk()"): the
// held XDP frames' last bulk put stopped in its window while the release
// retry frees the pool writes its ring stat into the freed pool in 7.1
// (after the unlock) and not in 7.3 (inside the lock, which the 6.16
// barrier waits for): the run itself, not only its known-failure list.
func TestRecycleRingBulk_UseAfterFreeFixedIn7_3(t *testing.T) {
	for _, tc := range []struct {
		era string
		uaf bool
	}{{"7.1", true}, {"7.3", false}} {
		l := mustNew(t, Config{Driver: "mvpp2", Scenario: "destroy", Era: tc.era, Packets: 2000, Knobs: sim.MustOverrides("held=1", "release_race=1")})
		l.Run()
		if got := l.m.Log.Counts[sim.KindPoolUseAfterFree] > 0; got != tc.uaf {
			t.Errorf("%s: pool-use-after-free %v (violations %v), want %v", tc.era, got, l.m.Log.Counts, tc.uaf)
		}
	}
}
