package pagepool

import (
	"testing"

	"pplab/engine/sim"
)

// PP_DMA_INDEX_BITS per platform (docs/eras-after-6.8.md §4.2): 32 on every
// 64-bit platform (POISON_POINTER_DELTA's lowest set bit is 48), from
// PAGE_OFFSET on 32-bit: 23 with ARM's 3G/1G split, 24 on MIPS32; a 32-bit
// kernel whose PAGE_OFFSET is too small or unaligned gets 0 (no tracking).
func TestDMAIndexBits_PerPlatform(t *testing.T) {
	for _, tc := range []struct {
		plat *sim.Platform
		want uint
	}{
		{&sim.Macchiatobin, 32}, {&sim.Espressobin, 32}, {&sim.X86Server, 32}, {&sim.Arm64Server, 32}, {&sim.BenchX86, 32},
		{&sim.TICpsw, 23}, {&sim.LunarMIPS, 24},
		{&sim.Platform{Name: "32-bit, PAGE_OFFSET not constant", PtrBytes: 4}, 0},
		{&sim.Platform{Name: "32-bit, PAGE_OFFSET below 1 << 15", PtrBytes: 4, PageOffset: 0x4000}, 0},
		{&sim.Platform{Name: "32-bit, PAGE_OFFSET 0x12340000", PtrBytes: 4, PageOffset: 0x12340000}, 11},
	} {
		if got := DMAIndexBits(tc.plat); got != tc.want {
			t.Errorf("%s: PP_DMA_INDEX_BITS %d, want %d", tc.plat.Name, got, tc.want)
		}
	}
}

// page_pool_register_dma_index: from 6.16 each page the pool maps gets the
// lowest free id of dma_mapped (from 1), kept in pp_magic above the
// signature, which still matches; a release empties the slot and clears
// the id, and the next mapping reuses it. 6.15 keeps no index.
func TestRegisterDMAIndex_LowestFreeIdInPPMagic(t *testing.T) {
	for _, tc := range []struct {
		era     string
		tracked bool
	}{{"6.15", false}, {"6.16", true}} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{Flags: FlagDMAMap, PoolSize: 64}, "bulk_refill=0")
			pages := e.alloc(3)
			for i, pg := range pages {
				want := uint32(0)
				if tc.tracked {
					want = uint32(i + 1)
				}
				if pg.DMAIndex() != want || !pg.HasPPSignature() || !pg.Mapped {
					t.Errorf("page %d: id %d signature %v mapped %v; want id %d, signature, mapped (pp_magic %#x)", i, pg.DMAIndex(), pg.HasPPSignature(), pg.Mapped, want, pg.PPMagic)
				}
			}
			if want := map[bool]int{false: 0, true: 3}[tc.tracked]; e.p.DMAMapped() != want || e.p.DMATracked() != tc.tracked {
				t.Fatalf("dma_mapped holds %d, tracked %v; want %d, %v", e.p.DMAMapped(), e.p.DMATracked(), want, tc.tracked)
			}
			e.a.GetPage(0, pages[1]) // an extra reference: the put releases the page
			e.toRing(pages[1])
			e.a.PutPage(0, pages[1])
			if pages[1].DMAIndex() != 0 || pages[1].Mapped {
				t.Errorf("released page keeps id %d, mapped %v", pages[1].DMAIndex(), pages[1].Mapped)
			}
			pg := e.alloc(1)[0]
			if want := map[bool]uint32{false: 0, true: 2}[tc.tracked]; pg.DMAIndex() != want {
				t.Errorf("next mapping got id %d, want %d (the lowest free)", pg.DMAIndex(), want)
			}
			if e.a.DMA.Maps != 4 || e.a.DMA.Unmaps != 1 {
				t.Errorf("maps %d unmaps %d, want 4, 1", e.a.DMA.Maps, e.a.DMA.Unmaps)
			}
			e.toRing(pages[0], pages[2], pg)
			e.clean()
		})
	}
}

// scrubRun: a syncing pool hands out 64 pages (one bulk), 4 stay in flight
// (in skbs) while the other 60 go back to the alloc cache; the pool is
// destroyed, the device unbound, and the 4 come back through the ptr_ring
// (process context, allow_direct=false) and leave it at the next release
// retry.
func scrubRun(t *testing.T, era string, opts ...string) (*env, [4]int64) {
	t.Helper()
	e := newEnv(t, era, Params{Flags: FlagDMAMap | FlagDMASyncDev, MaxLen: 2048}, opts...)
	pages := e.alloc(64)
	e.direct(pages[4:]...)
	e.m.Begin(0, sim.SymPoolDestroy)
	e.p.Destroy(0)
	e.m.Begin(0, sim.SymDeviceUnbind)
	e.a.DMA.Unbind(0)
	atDestroy := [4]int64{e.a.DMA.Maps, e.a.DMA.Unmaps, int64(e.p.Inflight()), int64(e.p.DMAMapped())}
	e.m.CPUs[1].Softirq = false
	for _, pg := range pages[:4] {
		e.m.Begin(1, sim.SymPutPage)
		e.p.PutPage(1, pg, -1, false)
	}
	e.m.AdvanceNS(DeferTimeNS) // page_pool_release_retry
	e.check()
	return e, atDestroy
}

// page_pool_scrub (6.16, ee62ce7a1d90): at destroy the 60 cached pages are
// returned (unmapped) and the 4 in flight are unmapped through dma_mapped
// while the device is still bound, staying counted in flight; dma_sync goes
// off, so their late put does not sync, and their late return from the ring
// skips the unmap. 6.15 unmaps only the cache at destroy; the late put syncs
// for the gone device and the retry unmaps on it: 4 + 4
// dma-unmap-after-unbind, no rule broken. On an I/O-coherent device from
// 6.10 no sync is called at all (dma_dev_need_sync), so 6.15 makes only the
// 4 unmaps on it; 6.9 still calls the no-op sync, and names the device.
func TestPagePoolScrub_UnmapsInflightPagesAtDestroy(t *testing.T) {
	for _, tc := range []struct {
		name, era                            string
		coherent                             string
		unmapsAtDestroy, mappedAtDestroy     int64
		syncDev, afterUnbind, unmapsAfterAll int64
	}{
		// syncs: 64 at mapping, 60 at the direct recycles, and (before 6.16) the 4 late puts
		{"6.15 non-coherent", "6.15", "coherent=0", 60, 0, 64 + 60 + 4, 8, 64},
		{"6.16 non-coherent", "6.16", "coherent=0", 64, 0, 64 + 60, 0, 64},
		{"6.9 coherent", "6.9", "coherent=1", 60, 0, 64 + 60 + 4, 8, 64},
		{"6.15 coherent", "6.15", "coherent=1", 60, 0, 0, 4, 64},
		{"6.16 coherent", "6.16", "coherent=1", 64, 0, 0, 0, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, at := scrubRun(t, tc.era, "cpus=2", tc.coherent)
			if at != [4]int64{64, tc.unmapsAtDestroy, 4, tc.mappedAtDestroy} {
				t.Errorf("at destroy: maps, unmaps, inflight, dma_mapped = %v; want [64 %d 4 %d]", at, tc.unmapsAtDestroy, tc.mappedAtDestroy)
			}
			d := &e.a.DMA
			if d.SyncDevCalls != tc.syncDev || d.AfterUnbind != tc.afterUnbind || d.Unmaps != tc.unmapsAfterAll || d.Maps != 64 {
				t.Errorf("sync_for_device %d, calls on the unbound device %d, maps %d unmaps %d; want %d, %d, 64, %d",
					d.SyncDevCalls, d.AfterUnbind, d.Maps, d.Unmaps, tc.syncDev, tc.afterUnbind, tc.unmapsAfterAll)
			}
			if !e.p.Freed() || e.p.Inflight() != 0 {
				t.Errorf("freed %v inflight %d; want freed, 0", e.p.Freed(), e.p.Inflight())
			}
			if got := e.m.Log.Counts[sim.KindDMAUnmapAfterUnbind]; int64(got) != tc.afterUnbind || e.m.Log.Total() != got {
				t.Errorf("violations %v; want %d dma-unmap-after-unbind only", e.m.Log.Counts, tc.afterUnbind)
			}
			for _, v := range e.m.Log.List {
				if v.Rule != sim.RuleNone {
					t.Errorf("%v: attributed to a rule; none is broken", v)
				}
			}
		})
	}
}

// On a non-coherent device the scrub waits an expedited grace period
// (synchronize_net) before it unmaps: time on the destroying CPU, no work.
func TestPagePoolScrub_SynchronizeNetOnlyWhenTheDeviceSyncs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []string
		waitNS int64
	}{
		{"coherent", []string{"coherent=1"}, 0},
		{"non-coherent", []string{"coherent=0"}, SynchronizeNetNS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "6.16", Params{Flags: FlagDMAMap | FlagDMASyncDev, MaxLen: 2048}, tc.opts...)
			pages := e.alloc(1)
			busy, now := e.m.CPUs[0].BusyPS(), e.m.CPUs[0].NowPS()
			e.m.Begin(0, sim.SymPoolDestroy)
			e.p.Destroy(0)
			idle := (e.m.CPUs[0].NowPS() - now) - (e.m.CPUs[0].BusyPS() - busy)
			if idle != tc.waitNS*sim.PSPerNS || e.m.SpentPS(0, sim.SymSynchronizeNet) != 0 {
				t.Errorf("destroy idled %d ps (synchronize_net charged %d ps); want %d ps idle, 0 charged", idle, e.m.SpentPS(0, sim.SymSynchronizeNet), tc.waitNS*sim.PSPerNS)
			}
			e.toRing(pages...)
		})
	}
}

// dma-mapped-cmpxchg: broken, the unmap skips the slot test, so the late
// return unmaps the page page_pool_scrub already unmapped, on the unbound
// device; intact, the scrub's empty slot makes it skip the unmap.
func TestUnmapNetmemDMA_OnlyTheSlotWinnerUnmaps(t *testing.T) {
	for _, broken := range []bool{false, true} {
		e, _ := scrubRun(t, "6.16", brk(broken, "dma-mapped-cmpxchg")...)
		verdict(t, e, broken, sim.KindDMAUnmapAfterUnbind)
		if want := map[bool]int64{false: 64, true: 64 + 4}[broken]; e.a.DMA.Unmaps != want {
			t.Errorf("broken %v: %d unmaps, want %d", broken, e.a.DMA.Unmaps, want)
		}
		if broken && e.m.Log.Counts[sim.KindDMAUnmapAfterUnbind] != 4 {
			t.Errorf("broken: %d dma-unmap-after-unbind, want 4", e.m.Log.Counts[sim.KindDMAUnmapAfterUnbind])
		}
	}
}

// The release's producer-lock barrier (271683bb2cf3, 6.16): a CPU stopped
// inside page_pool_recycle_in_ring after producing a destroyed pool's last
// page. The release retry empties the ring and finds inflight 0; with the
// barrier it waits for the producer, whose stat counts, and frees the pool
// after; without it (6.15, or the rule broken) the producer finishes in the
// freed pool. page_pool_put_page_bulk's stat after the unlock is not
// covered by the barrier (bdea4980182e, 7.3): a use-after-free in every
// era, no rule broken.
func TestReleaseProducerBarrier_WaitsForTheRingProducer(t *testing.T) {
	for _, tc := range []struct {
		name, era string
		broken    bool
		bulk      bool
		uaf       bool
	}{
		{"6.15 recycle_in_ring", "6.15", false, false, true},
		{"6.16 recycle_in_ring", "6.16", false, false, false},
		{"6.16 recycle_in_ring, barrier broken", "6.16", true, false, true},
		{"6.16 bulk", "6.16", false, true, true},
		{"7.1 bulk", "7.1", false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{Flags: FlagDMAMap}, append(brk(tc.broken, "release-producer-barrier"), "cpus=2")...)
			pages := e.alloc(1)
			e.m.Begin(0, sim.SymPoolDestroy)
			e.p.Destroy(0) // 63 cached pages returned; one in flight
			e.p.PreemptRecycleInRing()
			e.m.Begin(1, sim.SymPutPage)
			if tc.bulk {
				e.p.PutPageBulk(1, pages)
			} else {
				e.p.PutPage(1, pages[0], -1, false)
			}
			if !e.p.InRingProducer() || e.p.RingCount() != 1 {
				t.Fatalf("producer inside %v, ring %d; want inside, 1", e.p.InRingProducer(), e.p.RingCount())
			}
			e.m.AdvanceNS(DeferTimeNS) // page_pool_release_retry on cpu0
			if !e.p.Freed() {
				t.Fatal("the retry did not free the pool")
			}
			e.m.Begin(1, sim.SymRecycleInRing)
			e.p.ResumeRecycleInRing()
			got := e.m.Log.Counts[sim.KindPoolUseAfterFree]
			if (got == 1) != tc.uaf || e.m.Log.Total() != got {
				t.Fatalf("violations %v; want pool-use-after-free %v", e.m.Log.List, tc.uaf)
			}
			if want := map[bool]uint64{false: 1, true: 0}[tc.uaf]; e.stat(sim.StatRecycleRing) != want {
				t.Errorf("ring stat %d, want %d", e.stat(sim.StatRecycleRing), want)
			}
			if tc.uaf {
				want := sim.RuleNone
				if tc.broken {
					want = sim.RuleReleaseProducerBarrier
				}
				if r := e.m.Log.List[0].Rule; r != want {
					t.Errorf("rule %v, want %v", r, want)
				}
			}
		})
	}
}

// Where the bulk put counts its ring stat: page_pool_put_page_bulk does
// recycle_stat_add(pool, ring, i) before page_pool_producer_unlock, inside
// the lock (5.18 to 6.13); page_pool_recycle_ring_bulk (fcc680a647ba,
// v6.14) after it. A bulk put stopped after producing a destroyed pool's
// last page is therefore inside the lock up to 6.12 — the release's
// producer-lock barrier waits for it where a kernel has one (6.12.y carries
// 271683bb2cf3 back; the 6.12 era follows the release, which has none) —
// and outside it from 6.15, where the 6.16 barrier does not wait: a
// use-after-free until bdea4980182e (7.3).
func TestBulkRingStat_InsideTheLockBefore614(t *testing.T) {
	for _, tc := range []struct {
		name, era string
		barrier   bool // give the era 6.16's release barrier (a stable backport)
		unlocked  bool // the stopped producer already dropped the lock
		uaf       bool
	}{
		{"6.12 inside the lock, no barrier", "6.12", false, false, true},
		{"6.12 inside the lock, the barrier backported waits", "6.12", true, false, false},
		{"6.15 after the unlock, no barrier", "6.15", false, true, true},
		{"6.16 after the unlock, the barrier does not wait", "6.16", false, true, true},
		{"7.1 after the unlock, the barrier does not wait", "7.1", false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			named, err := sim.EraByName(tc.era)
			if err != nil {
				t.Fatal(err)
			}
			era := *named
			if tc.barrier {
				era.ReleaseProducerBarrier = true
			}
			e := newEnvEra(t, &era, Params{Flags: FlagDMAMap}, "cpus=2")
			pages := e.alloc(2)
			e.m.Begin(0, sim.SymPoolDestroy)
			e.p.Destroy(0) // two in flight
			e.p.PreemptRecycleInRing()
			e.m.Begin(1, sim.SymPutPageBulk)
			e.p.PutPageBulk(1, pages)
			if !e.p.InRingProducer() || e.p.RingCount() != 2 || e.p.RingProducerUnlocked() != tc.unlocked {
				t.Fatalf("producer stopped %v, ring %d, unlocked %v; want stopped, 2, %v", e.p.InRingProducer(), e.p.RingCount(), e.p.RingProducerUnlocked(), tc.unlocked)
			}
			if e.stat(sim.StatRecycleRing) != 0 {
				t.Fatalf("ring stat %d before the producer resumed, want 0", e.stat(sim.StatRecycleRing))
			}
			e.m.AdvanceNS(DeferTimeNS) // page_pool_release_retry on cpu0
			if !e.p.Freed() {
				t.Fatal("the retry did not free the pool")
			}
			e.m.Begin(1, sim.SymPutPageBulk)
			e.p.ResumeRecycleInRing()
			got := e.m.Log.Counts[sim.KindPoolUseAfterFree]
			if (got == 1) != tc.uaf || e.m.Log.Total() != got {
				t.Fatalf("violations %v; want pool-use-after-free %v", e.m.Log.List, tc.uaf)
			}
			if want := map[bool]uint64{false: 2, true: 0}[tc.uaf]; e.stat(sim.StatRecycleRing) != want {
				t.Errorf("ring stat %d, want %d", e.stat(sim.StatRecycleRing), want)
			}
			for _, v := range e.m.Log.List {
				if v.Rule != sim.RuleNone {
					t.Errorf("%v: attributed to a rule, but none is broken (the kernel's own race)", v)
				}
			}
		})
	}
}
