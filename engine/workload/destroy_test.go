package workload

import (
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// destroy: the socket keeps the newest 32 skbs and the reader frees the
// older ones with kfree_skb on cpu1 in process context; at the unload
// (after 256 packets here) page_pool_destroy defers the release while the
// socket holds 32 and the device is unbound; the reader frees one a
// second, the last after 90 s, and the pool goes away at the next retry:
// 224 + 32 frees, 91 s on the clock, in every era. What differs is the
// late pages' DMA: before 6.16 each is unmapped by the next retry on the
// unbound device, and before 6.10 also synced for the device when it is
// recycled into the ring (mvpp2 syncs; from 6.10 dma_dev_need_sync skips
// the call on its I/O-coherent device): 32 + 32, then 32
// dma-unmap-after-unbind, no rule broken (docs/eras-after-6.8.md §4.5);
// from 6.16 page_pool_scrub unmapped the 32
// at destroy and turned dma_sync off, so they come back with neither.
func TestDestroy_ReaderFreesTheHeldSkbsOnePerSecondThenThePoolGoes(t *testing.T) {
	for _, tc := range []struct {
		era          string
		afterUnbind  int64 // DMA calls on the unbound device
		scrubbed     bool  // page_pool_scrub unmapped the pages in flight
		unmapsAtLate int64 // unmaps after the unbind
	}{
		{"6.8", 64, false, 32},
		{"6.9", 64, false, 32},
		{"6.10", 32, false, 32},
		{"6.15", 32, false, 32},
		{"6.16", 0, true, 0},
		{"7.1", 0, true, 0},
	} {
		t.Run(tc.era, func(t *testing.T) {
			r := newTestRun(t, WDestroy, "mvpp2", tc.era)
			SetUnloadAt(r.w, 256)
			w := r.w.(*destroy)
			for w.phase == 0 {
				r.steps(1)
			}
			if r.n != 256 || len(w.held) != destroyHold {
				t.Fatalf("unloaded after %d packets holding %d skbs; want 256, %d", r.n, len(w.held), destroyHold)
			}
			pool, dma := r.e.Drv.Pool, &r.e.Drv.S.A.DMA
			if pool.Freed() {
				t.Fatal("the pool went away with skbs in flight")
			}
			if pool.Inflight() != destroyHold || !dma.Unbound {
				t.Fatalf("at unload: inflight %d, unbound %v; want %d, true", pool.Inflight(), dma.Unbound, destroyHold)
			}
			mapped := 0
			for _, pg := range r.e.Drv.S.A.Pages() {
				if pg.Owner == pool.ID && pg.Mapped {
					mapped++
				}
			}
			if want := map[bool]int{false: destroyHold, true: 0}[tc.scrubbed]; mapped != want || pool.DMAMapped() != 0 {
				t.Errorf("after destroy %d of the pool's pages in flight are still mapped, dma_mapped holds %d; want %d, 0", mapped, pool.DMAMapped(), want)
			}
			unmaps := dma.Unmaps
			r.wantFrees(map[free]int{kfree(1, process): 256 - destroyHold})
			for steps := 0; !w.Finished(); steps++ {
				if steps > 300 {
					t.Fatal("destroy did not finish")
				}
				r.steps(1)
			}
			r.wantFrees(map[free]int{kfree(1, process): 256})
			if !pool.Freed() || w.since != 91 {
				t.Errorf("pool freed %v after %d s; want freed after 91 s", pool.Freed(), w.since)
			}
			if s := r.e.M.NowPS() / sim.PSPerNS / 1_000_000_000; s != 91 {
				t.Errorf("the clock is at %d s, want 91", s)
			}
			r.wantRecycled(recycled{ring: 288, slow: 2})
			if dma.AfterUnbind != tc.afterUnbind || dma.Unmaps-unmaps != tc.unmapsAtLate {
				t.Errorf("after the unbind: %d DMA calls on the gone device, %d unmaps; want %d, %d", dma.AfterUnbind, dma.Unmaps-unmaps, tc.afterUnbind, tc.unmapsAtLate)
			}
			r.e.M.CheckInvariants()
			if got := r.e.M.Log.Counts[sim.KindDMAUnmapAfterUnbind]; int64(got) != tc.afterUnbind || r.e.M.Log.Total() != got {
				t.Errorf("violations %v; want %d dma-unmap-after-unbind and nothing else", r.e.M.Log.Counts, tc.afterUnbind)
			}
			for _, v := range r.e.M.Log.List {
				if v.Rule != sim.RuleNone {
					t.Errorf("%v: attributed to a rule, but none is broken (the era's own failure)", v)
				}
			}
		})
	}
}

// release_race: the reader's last free stops inside
// page_pool_recycle_in_ring after producing the pool's last page; the next
// release retry empties the ring and finds inflight 0. From 6.16 the
// release takes the producer lock and waits: the producer finishes first,
// the pool is freed after it, and the ring stat counts all 288 recycles.
// Before 6.16 (and with release-producer-barrier broken) the pool is freed
// under the producer, whose unlock and stat touch freed memory: one
// pool-use-after-free, and the last ring stat is lost (287).
func TestReleaseProducerBarrier_DestroyRacingRecycleInRing(t *testing.T) {
	for _, tc := range []struct {
		name, era string
		broken    bool
		uaf       int
		ring      uint64
	}{
		{"6.15 has no barrier", "6.15", false, 1, 287},
		{"6.16 waits for the producer", "6.16", false, 0, 288},
		{"6.16 with the barrier removed", "6.16", true, 1, 287},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WDestroy, "mvpp2", tc.era, simtest.Break(tc.broken, "release-producer-barrier", "release_race=1")...)
			SetUnloadAt(r.w, 256)
			w := r.w.(*destroy)
			for steps := 0; !w.Finished(); steps++ {
				if steps > 600 {
					t.Fatal("destroy did not finish")
				}
				r.steps(1)
			}
			if !r.e.Drv.Pool.Freed() || w.since != 91 || r.e.Drv.Pool.InRingProducer() {
				t.Errorf("freed %v after %d s, producer still inside %v; want freed after 91 s, none", r.e.Drv.Pool.Freed(), w.since, r.e.Drv.Pool.InRingProducer())
			}
			r.wantRecycled(recycled{ring: tc.ring, slow: 2})
			if got := r.e.M.Log.Counts[sim.KindPoolUseAfterFree]; got != tc.uaf {
				t.Errorf("%d pool-use-after-free, want %d", got, tc.uaf)
			}
			wantRule := sim.RuleNone
			if tc.broken {
				wantRule = sim.RuleReleaseProducerBarrier
			}
			for _, v := range r.e.M.Log.List {
				if v.Kind == sim.KindPoolUseAfterFree && v.Rule != wantRule {
					t.Errorf("%v: rule %v, want %v", v, v.Rule, wantRule)
				}
			}
		})
	}
}

// destroy with held=1: the pages in flight at the unload are XDP frames
// the driver redirected to a second port whose stalled TX keeps 32 of them
// (each poll's completion leaves the newest 32). The unload runs from
// process context on cpu1, so the pool's release work runs there; the
// driver's device is unbound, the port's is not. The port then completes
// one frame a second on cpu0 (its NAPI), the last after 90 s: an unmap
// from its own device and a put into the destroyed pool (a one-frame
// page_pool_put_page_bulk for mvpp2, xdp_return_frame for bnxt), and the
// next retry on cpu1 returns the page. Before 6.16 that return unmaps it
// on the unbound device — and before 6.10 a pool that syncs (mvpp2, and
// bnxt from 6.6) has synced it for that device at the put:
// dma-unmap-after-unbind, no rule broken, as for skbs; from 6.16 page_pool_scrub unmapped the 32 at
// destroy.
func TestDestroyXDP_StalledPortReturnsOneFramePerSecondThenThePoolGoes(t *testing.T) {
	for _, tc := range []struct {
		name, driver, era string
		afterUnbind       int64 // DMA calls on the unbound device
		unmapsAtLate      int64 // unmaps on the driver's device after the unbind
	}{
		{"mvpp2-6.9-sync-and-unmap-on-the-gone-device", "mvpp2", "6.9", 64, 32},
		{"mvpp2-6.10-unmap-on-the-gone-device", "mvpp2", "6.10", 32, 32},
		{"mvpp2-6.16-scrubbed-at-destroy", "mvpp2", "6.16", 0, 0},
		{"bnxt-6.9-sync-and-unmap-on-the-gone-device", "bnxt", "6.9", 64, 32}, // bnxt syncs from 6.6 (578fcfd26e2a)
		{"bnxt-7.1-scrubbed-at-destroy", "bnxt", "7.1", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WDestroy, tc.driver, tc.era, "held=1")
			releases := map[int]int{}
			r.e.M.SetTracer(func(ev sim.Event) {
				r.trace(ev)
				if ev.Kind == sim.EvPoolRelease {
					releases[ev.CPU]++
				}
			})
			SetUnloadAt(r.w, 256)
			w := r.w.(*destroyXDP)
			for w.phase == 0 {
				r.steps(1)
			}
			port, pool, dma := w.redir.port, r.e.Drv.Pool, &r.e.Drv.S.A.DMA
			if r.n != 256 || port.Queued() != destroyHold || port.Pending() != 0 || pool.Inflight() != destroyHold || port.DMA.TxMapped != destroyHold {
				t.Fatalf("unloaded after %d packets: %d frames on the port's TX ring, %d in the bulk queue, inflight %d, %d mapped on the port; want 256, %d, 0, %d, %d", r.n, port.Queued(), port.Pending(), pool.Inflight(), port.DMA.TxMapped, destroyHold, destroyHold, destroyHold)
			}
			if !dma.Unbound || port.DMA.Unbound || pool.Freed() {
				t.Fatalf("at unload: driver's device unbound %v, port's %v, pool freed %v; want true, false, false", dma.Unbound, port.DMA.Unbound, pool.Freed())
			}
			unmaps := dma.Unmaps
			for steps := 0; !w.Finished(); steps++ {
				if steps > 300 {
					t.Fatal("destroy did not finish")
				}
				r.steps(1)
			}
			r.wantFrees(nil)
			if !pool.Freed() || w.since != 91 || port.Queued() != 0 || port.DMA.TxMapped != 0 {
				t.Errorf("pool freed %v after %d s, %d frames left, %d mapped on the port; want freed after 91 s, 0, 0", pool.Freed(), w.since, port.Queued(), port.DMA.TxMapped)
			}
			if releases[0] != 0 || releases[1] != 92 {
				t.Errorf("page_pool_release ran %v times per CPU; want 92 on cpu1 (destroy and 91 retries), none on cpu0", releases)
			}
			if dma.AfterUnbind != tc.afterUnbind || dma.Unmaps-unmaps != tc.unmapsAtLate || port.DMA.AfterUnbind != 0 {
				t.Errorf("after the unbind: %d DMA calls on the gone device, %d unmaps, %d on the port's; want %d, %d, 0", dma.AfterUnbind, dma.Unmaps-unmaps, port.DMA.AfterUnbind, tc.afterUnbind, tc.unmapsAtLate)
			}
			r.e.M.CheckInvariants()
			if got := r.e.M.Log.Counts[sim.KindDMAUnmapAfterUnbind]; int64(got) != tc.afterUnbind || r.e.M.Log.Total() != got {
				t.Errorf("violations %v; want %d dma-unmap-after-unbind and nothing else", r.e.M.Log.Counts, tc.afterUnbind)
			}
			for _, v := range r.e.M.Log.List {
				if v.Rule != sim.RuleNone {
					t.Errorf("%v: attributed to a rule, but none is broken (the era's own failure)", v)
				}
			}
		})
	}
}

// held=1 and release_race=1: the last frame's put into the destroyed pool
// stops right after its last __ptr_ring_produce while the release retry on
// cpu1 empties the ring, finds inflight 0 and frees the pool. mvpp2's
// one-frame page_pool_put_page_bulk stops inside the producer lock up to
// 6.13 (its recycle_stat_add precedes the unlock) and after the unlock from
// 6.14 (page_pool_recycle_ring_bulk): no barrier before 6.16, and from
// 6.16 one that waits only for a producer inside the lock — a
// use-after-free in every era (bdea4980182e, 7.3), the last ring stat
// lost. bnxt's xdp_return_frame stops inside page_pool_recycle_in_ring,
// which 6.16's barrier waits for (271683bb2cf3). No rule is broken.
func TestDestroyXDP_ReleaseRaceOnTheLastPut(t *testing.T) {
	for _, tc := range []struct {
		name, driver, era string
		unlocked          bool // the stopped put had dropped the producer lock
		uaf               int
	}{
		{"mvpp2-6.12-bulk-inside-the-lock-no-barrier", "mvpp2", "6.12", false, 1},
		{"mvpp2-6.15-bulk-after-the-unlock-no-barrier", "mvpp2", "6.15", true, 1},
		{"mvpp2-6.16-bulk-after-the-unlock-the-barrier-does-not-wait", "mvpp2", "6.16", true, 1},
		{"mvpp2-7.1-bulk-after-the-unlock-the-barrier-does-not-wait", "mvpp2", "7.1", true, 1},
		{"bnxt-6.15-recycle-in-ring-no-barrier", "bnxt", "6.15", false, 1},
		{"bnxt-6.16-recycle-in-ring-the-barrier-waits", "bnxt", "6.16", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WDestroy, tc.driver, tc.era, "held=1", "release_race=1")
			SetUnloadAt(r.w, 256)
			w := r.w.(*destroyXDP)
			pool := r.e.Drv.Pool
			stopped := false
			for steps := 0; !w.Finished(); steps++ {
				if steps > 600 {
					t.Fatal("destroy did not finish")
				}
				r.steps(1)
				if w.racing && !stopped {
					stopped = true
					if !pool.InRingProducer() || pool.RingProducerUnlocked() != tc.unlocked {
						t.Fatalf("the last put: stopped %v, after the unlock %v; want stopped, %v", pool.InRingProducer(), pool.RingProducerUnlocked(), tc.unlocked)
					}
				}
			}
			if !stopped || !pool.Freed() || w.since != 91 || pool.InRingProducer() {
				t.Errorf("stopped %v, freed %v after %d s, producer still stopped %v; want stopped, freed after 91 s, none", stopped, pool.Freed(), w.since, pool.InRingProducer())
			}
			if got := r.e.M.Log.Counts[sim.KindPoolUseAfterFree]; got != tc.uaf {
				t.Errorf("%d pool-use-after-free, want %d", got, tc.uaf)
			}
			for _, v := range r.e.M.Log.List {
				if v.Rule != sim.RuleNone {
					t.Errorf("%v: attributed to a rule, but none is broken (the kernel's own race)", v)
				}
			}
		})
	}
}
