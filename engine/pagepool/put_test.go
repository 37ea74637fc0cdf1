package pagepool

import (
	"fmt"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

func TestCacheFull_SendsPageToRing(t *testing.T) {
	tests := []struct {
		name                        string
		alloc, recycle              int
		wantCached, wantFull, wRing uint64
		wantCount                   int // pages in the cache after the recycles
	}{
		// 200 allocs = 4 bulks of 64: 56 pages stay in the cache.
		{"room for all", 200, 50, 50, 0, 0, 106},
		{"exactly full", 200, 72, 72, 0, 0, 128},
		{"one over", 200, 73, 72, 1, 1, 128},
		{"all over", 200, 200, 72, 128, 128, 128},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "6.8", Params{})
			pages := e.alloc(tc.alloc)
			e.direct(pages[:tc.recycle]...)
			e.wantStats(map[sim.Stat]uint64{sim.StatRecycleCached: tc.wantCached, sim.StatRecycleCacheFull: tc.wantFull, sim.StatRecycleRing: tc.wRing})
			if e.p.CacheCount() != tc.wantCount || e.p.RingCount() != int(tc.wRing) {
				t.Fatalf("cache %d ring %d, want %d and %d", e.p.CacheCount(), e.p.RingCount(), tc.wantCount, tc.wRing)
			}
			e.clean()
		})
	}
}

func TestRingFull_ReleasesPage(t *testing.T) {
	t.Run("single put counts every page", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{PoolSize: 64})
		pages := e.alloc(100)
		e.toRing(pages...)
		e.wantStats(map[sim.Stat]uint64{sim.StatRecycleRing: 64, sim.StatRecycleRingFull: 36})
		if e.p.Release() != 36 {
			t.Errorf("release = %d, want 36", e.p.Release())
		}
		for _, pg := range pages[64:] {
			if pg.Place != sim.PlaceBuddy {
				t.Fatalf("page that did not fit the ring is in %s, want the page allocator", pg.Place)
			}
		}
		e.clean()
	})
	t.Run("bulk put counts once per call", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{PoolSize: 64})
		pages := e.alloc(100)
		e.m.Begin(0, sim.SymPutPageBulk)
		e.p.PutPageBulk(0, append([]*mm.Page(nil), pages...))
		e.wantStats(map[sim.Stat]uint64{sim.StatRecycleRing: 64, sim.StatRecycleRingFull: 1, sim.StatRecycleCached: 0})
		if e.p.Release() != 36 || e.p.RingCount() != 64 {
			t.Errorf("release %d ring %d, want 36 and 64", e.p.Release(), e.p.RingCount())
		}
		e.clean()
	})
	t.Run("bulk put never recycles directly", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{})
		pages := e.alloc(10)
		e.m.Begin(0, sim.SymPutPageBulk)
		e.p.PutPageBulk(0, pages)
		e.wantStats(map[sim.Stat]uint64{sim.StatRecycleRing: 10, sim.StatRecycleCached: 0})
		e.clean()
	})
}

func TestReleasedRefcnt_ExtraRefOrPfmemalloc(t *testing.T) {
	t.Run("refcnt > 1", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{Flags: FlagDMAMap})
		pg := e.alloc(1)[0]
		e.a.GetPage(0, pg) // the driver keeps a reference (the old split-page trick)
		e.direct(pg)
		e.wantStats(map[sim.Stat]uint64{sim.StatRecycleReleasedRefcnt: 1, sim.StatRecycleCached: 0, sim.StatRecycleRing: 0})
		if pg.Ref != 1 || pg.Mapped || pg.Owner != 0 || pg.HasPPSignature() || pg.Place != sim.PlaceDriver {
			t.Fatalf("released page %v: want unmapped, unmarked, still held by the other user", pg)
		}
		if e.p.Inflight() != 63 {
			t.Errorf("inflight %d, want 63 (the released page no longer counts)", e.p.Inflight())
		}
		e.a.PutPage(0, pg) // the other user lets go: back to the page allocator
		if pg.Place != sim.PlaceBuddy {
			t.Errorf("page in %s after the last put_page", pg.Place)
		}
		e.clean()
	})
	t.Run("pfmemalloc", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{}, "pfmemalloc_ppm=1000000")
		pg := e.alloc(1)[0]
		if !pg.Pfmemalloc() || !pg.HasPPSignature() {
			t.Fatalf("page %v: want a pfmemalloc page that still carries the (OR-ed) signature", pg)
		}
		e.direct(pg)
		e.toRing(e.alloc(1)[0])
		e.wantStats(map[sim.Stat]uint64{sim.StatRecycleReleasedRefcnt: 2, sim.StatRecycleCached: 0, sim.StatRecycleRing: 0})
		if pg.Place != sim.PlaceBuddy {
			t.Errorf("pfmemalloc page in %s, want back in the page allocator", pg.Place)
		}
		e.clean()
	})
}

func TestSyncForDevice_LengthIsMinDmaSyncSizeMaxLen(t *testing.T) {
	tests := []struct {
		maxLen, offset, syncSize, want int
	}{
		{1668, 0, -1, 1668}, // lunar: max_len near the frame size
		{1668, 0, 64, 64},
		{4096, 0, 9000, 4096},
		{4096, 256, -1, 4096},
		{2048, 128, 1500, 1500},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("max_len=%d offset=%d dma_sync_size=%d", tc.maxLen, tc.offset, tc.syncSize), func(t *testing.T) {
			e := newEnv(t, "6.8", Params{Flags: FlagDMAMap | FlagDMASyncDev, MaxLen: tc.maxLen, Offset: tc.offset})
			// Mapping syncs max_len once for every new page.
			if e.a.DMA.LastSyncDevLen != 0 {
				t.Fatal("sync before any allocation")
			}
			pg := e.alloc(1)[0]
			if e.a.DMA.LastSyncDevLen != tc.maxLen {
				t.Errorf("sync at map = %d, want max_len %d", e.a.DMA.LastSyncDevLen, tc.maxLen)
			}
			calls := e.a.DMA.SyncDevCalls
			e.m.Begin(0, sim.SymPutPage)
			e.p.PutPage(0, pg, tc.syncSize, true)
			if e.a.DMA.SyncDevCalls != calls+1 {
				t.Fatalf("recycling synced %d times, want once", e.a.DMA.SyncDevCalls-calls)
			}
			if e.a.DMA.LastSyncDevLen != tc.want || e.a.DMA.LastSyncOff != tc.offset {
				t.Errorf("sync len %d off %d, want %d at %d", e.a.DMA.LastSyncDevLen, e.a.DMA.LastSyncOff, tc.want, tc.offset)
			}
			e.clean()
		})
	}
}

func TestSyncForDevice_NotOnReleasedPages(t *testing.T) {
	e := newEnv(t, "6.8", Params{Flags: FlagDMAMap | FlagDMASyncDev, MaxLen: 4096})
	pg := e.alloc(1)[0]
	e.a.GetPage(0, pg)
	calls := e.a.DMA.SyncDevCalls
	e.direct(pg)
	if e.a.DMA.SyncDevCalls != calls {
		t.Errorf("a page that is not recycled was synced for the device")
	}
	e.a.PutPage(0, pg)
	e.clean()
}

func TestInflight_IncludesCacheAndRing(t *testing.T) {
	e := newEnv(t, "6.8", Params{})
	want := func(cache, ring, out int) {
		t.Helper()
		if e.p.CacheCount() != cache || e.p.RingCount() != ring || int(e.p.Inflight()) != cache+ring+out {
			t.Fatalf("cache %d ring %d inflight %d, want %d %d and inflight %d", e.p.CacheCount(), e.p.RingCount(), e.p.Inflight(), cache, ring, cache+ring+out)
		}
	}
	pages := e.alloc(10)
	want(54, 0, 10)
	e.toRing(pages[:4]...)
	want(54, 4, 6)
	e.direct(pages[4:8]...)
	want(58, 4, 2)
	e.m.Begin(0, sim.SymUpdateNid)
	e.p.UpdateNid(0, 0)
	want(0, 4, 2)
	e.clean()
}

func TestPtrRing_LazyZeroing(t *testing.T) {
	a := mm.NewAllocator(sim.NewMachine(sim.Config{Knobs: sim.DefaultKnobs()}))
	pages := make([]*mm.Page, 64)
	for i := range pages {
		pages[i] = a.Page(int32(i))
	}
	tests := []struct {
		name                string
		size                int
		wantBatch           int
		consume, wantFailAt int // after filling: consume this many; produce then fails after wantFailAt pages
	}{
		{"batch 16: 15 consumed slots still look occupied", 32, 16, 15, 0},
		{"batch 16: the 16th consume frees the batch", 32, 16, 16, 16},
		{"batch 16: 20 consumed, 16 free", 32, 16, 20, 16},
		{"small ring: batch 1", 16, 1, 5, 5},
		{"batch > size/2 degrades to 1", 31, 1, 3, 3},
		{"end of the array zeroes the tail", 40, 16, 40, 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ptrRing
			r.init(tc.size, 64, 8)
			if r.batch != tc.wantBatch {
				t.Fatalf("batch %d, want %d", r.batch, tc.wantBatch)
			}
			for i := 0; i < tc.size; i++ {
				if !r.produce(pages[i]) {
					t.Fatalf("produce %d into an empty ring failed", i)
				}
			}
			if r.produce(pages[0]) {
				t.Fatal("produce into a full ring succeeded")
			}
			for i := 0; i < tc.consume; i++ {
				if got := r.consume(); got != pages[i] {
					t.Fatalf("consume %d = %v, want FIFO order", i, got)
				}
			}
			n := 0
			for r.produce(pages[n%64]) {
				n++
			}
			if n != tc.wantFailAt {
				t.Errorf("after %d consumes the producer found %d free slots, want %d (stale %d)", tc.consume, n, tc.wantFailAt, r.stale())
			}
		})
	}
}

func TestDestroy_DrainsRetriesWarnsAndFinishes(t *testing.T) {
	e := newEnv(t, "6.8", Params{Flags: FlagDMAMap})
	var trace []string
	e.m.SetTracer(func(ev sim.Event) {
		if ev.Kind == sim.EvPoolRelease || ev.Kind == sim.EvWarn {
			trace = append(trace, ev.TraceLine())
		}
	})
	pages := e.alloc(20)
	e.toRing(pages[:10]...)
	e.direct(pages[10:17]...)
	held := pages[17:] // 3 pages out (say, in socket queues)
	e.m.Begin(1, sim.SymPoolDestroy)
	e.p.Destroy(1)
	if e.p.CacheCount() != 0 || e.p.RingCount() != 0 || e.p.Inflight() != 3 || e.p.Freed() {
		t.Fatalf("after destroy: cache %d ring %d inflight %d freed %v, want 0 0 3 false", e.p.CacheCount(), e.p.RingCount(), e.p.Inflight(), e.p.Freed())
	}
	if d := e.m.NextTimerNS() - e.m.NowPS()/sim.PSPerNS; e.m.PendingTimers() != 1 || d > DeferTimeNS || d < DeferTimeNS-1000 {
		t.Fatalf("retry timers %d next in %d ns, want one in 1 s (DEFER_TIME)", e.m.PendingTimers(), d)
	}
	e.clean()
	e.m.AdvanceNS(59 * 1e9) // 59 retries, no warning yet
	if e.p.Warnings != 0 {
		t.Fatalf("warned after 59 s")
	}
	e.m.AdvanceNS(1e9 + 1e7) // 60 s (+ the retries' own run time): first warning
	if e.p.Warnings != 1 {
		t.Fatalf("warnings after 60 s = %d, want 1", e.p.Warnings)
	}
	e.m.AdvanceNS(60 * 1e9)
	if e.p.Warnings != 2 {
		t.Fatalf("warnings after 120 s = %d, want 2 (every 60 s)", e.p.Warnings)
	}
	e.clean() // pages held by sockets can still come back: not a stall
	// Returns after destroy go to the ring; the next retry drains them.
	e.toRing(held[0], held[1])
	if e.p.RingCount() != 2 {
		t.Fatalf("ring %d after returns, want 2", e.p.RingCount())
	}
	e.m.AdvanceNS(1e9)
	if e.p.RingCount() != 0 || e.p.Inflight() != 1 || e.p.Freed() {
		t.Fatalf("after a retry: ring %d inflight %d freed %v", e.p.RingCount(), e.p.Inflight(), e.p.Freed())
	}
	e.toRing(held[2])
	e.m.AdvanceNS(1e9)
	if !e.p.Freed() || e.p.Inflight() != 0 || e.m.PendingTimers() != 0 {
		t.Fatalf("pool not freed after its last page came back (inflight %d, timers %d)", e.p.Inflight(), e.m.PendingTimers())
	}
	e.clean()
	want := "page_pool_release_retry: page_pool_release_retry() stalled pool shutdown: id 1, 3 inflight 60 sec" // 6.8's form, with pool->user.id
	found := false
	for _, l := range trace {
		if containsStr(l, want) {
			found = true
		}
	}
	if !found {
		t.Errorf("no %q line in trace:\n%v", want, trace)
	}
	if !containsStr(trace[0], "page_pool_release: page_pool="+sim.HashPtr(sim.PoolPtr(1))+" inflight=3 hold=64 release=61 cnt=1") {
		t.Errorf("first page_pool_release tracepoint = %q", trace[0])
	}
}

// page_pool_release_retry's periodic warning: before 6.8 for every pool,
// in the old form; from 6.8 ("net: page_pool: mute the periodic warning for
// visible page pools") only for a pool netlink cannot show (no
// pp_params.netdev), with its id — a netdev-linked pool stalls silently
// (ynl shows it, detach-time set).
func TestPageReleaseRetry_WarnsOnlyForPoolsNetlinkCannotShow(t *testing.T) {
	for _, tc := range []struct {
		era    string
		netdev bool
		want   string // "" = no warning
	}{
		{"6.6", false, "stalled pool shutdown 1 inflight 60 sec"},
		{"6.6", true, "stalled pool shutdown 1 inflight 60 sec"},
		{"6.8", false, "stalled pool shutdown: id 1, 1 inflight 60 sec"},
		{"6.8", true, ""},
		{"7.1", true, ""},
	} {
		t.Run(fmt.Sprintf("%s netdev=%v", tc.era, tc.netdev), func(t *testing.T) {
			e := newEnv(t, tc.era, Params{Netdev: tc.netdev})
			var warns []string
			e.m.SetTracer(func(ev sim.Event) {
				if ev.Kind == sim.EvWarn {
					warns = append(warns, ev.TraceLine())
				}
			})
			pages := e.alloc(2)
			e.direct(pages[0])
			e.m.Begin(0, sim.SymPoolDestroy)
			e.p.Destroy(0)
			e.m.AdvanceNS(61 * 1e9)
			switch {
			case tc.want == "" && (len(warns) != 0 || e.p.Warnings != 0):
				t.Errorf("warned: %q", warns)
			case tc.want != "" && (len(warns) != 1 || !containsStr(warns[0], tc.want)):
				t.Errorf("warnings %q, want one with %q", warns, tc.want)
			}
			e.toRing(pages[1])
			e.m.AdvanceNS(1e9)
			if !e.p.Freed() {
				t.Error("not freed after the last page came back")
			}
		})
	}
}

func TestDestroy_NoPagesOutFreesAtOnce(t *testing.T) {
	e := newEnv(t, "6.8", Params{})
	e.toRing(e.alloc(5)...)
	e.m.Begin(0, sim.SymPoolDestroy)
	e.p.Destroy(0)
	if !e.p.Freed() || e.m.PendingTimers() != 0 {
		t.Fatalf("freed %v timers %d, want freed at once", e.p.Freed(), e.m.PendingTimers())
	}
	e.clean()
}

func TestDestroy_WaitsForMemModelUser(t *testing.T) {
	e := newEnv(t, "6.8", Params{})
	e.r.RegMemModel(e.p)
	e.m.Begin(0, sim.SymPoolDestroy)
	e.p.Destroy(0)
	if e.p.Destroyed() {
		t.Fatal("destroyed while the XDP memory model still holds a user reference")
	}
	e.p.UnregMemModel(0)
	if !e.p.Freed() {
		t.Fatal("not freed after the last user")
	}
}

func TestDestroy_LostPageStallsShutdown(t *testing.T) {
	e := newEnv(t, "6.8", Params{})
	pg := e.alloc(1)[0]
	e.m.Begin(0, sim.SymPoolDestroy)
	e.p.Destroy(0)
	e.a.PutPage(0, pg) // put_page'd by someone who did not know it was a pool page
	e.check()
	if e.m.Log.Counts[sim.KindInflightLeak] == 0 || e.m.Log.Counts[sim.KindStalledShutdown] == 0 {
		t.Fatalf("want inflight-leak and stalled-shutdown, got %v", e.m.Log.List)
	}
}

func TestUpdateNid_FlushesCacheOnly(t *testing.T) {
	e := newEnv(t, "6.8", Params{Nid: 0}, "numa_nodes=2")
	pages := e.alloc(10)
	e.toRing(pages[:6]...)
	e.direct(pages[6:]...)
	var lines []string
	e.m.SetTracer(func(ev sim.Event) {
		if ev.Kind == sim.EvUpdateNid {
			lines = append(lines, ev.TraceLine())
		}
	})
	cache, ring, rel := e.p.CacheCount(), e.p.RingCount(), e.p.Release()
	e.m.Begin(0, sim.SymUpdateNid)
	e.p.UpdateNid(0, 1)
	if e.p.CacheCount() != 0 || e.p.RingCount() != ring || e.p.Release() != rel+uint32(cache) || e.p.P.Nid != 1 {
		t.Fatalf("cache %d ring %d release +%d nid %d; want 0, %d, +%d, 1", e.p.CacheCount(), e.p.RingCount(), e.p.Release()-rel, e.p.P.Nid, ring, cache)
	}
	if len(lines) != 1 || !containsStr(lines[0], "page_pool_update_nid: page_pool="+sim.HashPtr(sim.PoolPtr(1))+" pool_nid=0 new_nid=1") {
		t.Errorf("tracepoint lines %q", lines)
	}
	// page_pool_nid_changed does nothing when the node is the same.
	e.p.NidChanged(0, 1)
	if len(lines) != 1 {
		t.Errorf("nid_changed with the same node updated again")
	}
	// The ringed pages are now remote: the next refill waives the first.
	e.alloc(1)
	e.wantStats(map[sim.Stat]uint64{sim.StatAllocWaive: 1})
	e.clean()
}

func containsStr(s, sub string) bool { return len(sub) == 0 || indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// A negative inflight (a driver released more pages than the pool held)
// can never come back to 0: from 6.15 page_pool_release_retry stops there
// (43130d02baa1); before, it rescheduled itself every second for ever.
func TestPageReleaseRetry_StopsOnNegativeInflightFrom615(t *testing.T) {
	for _, tc := range []struct {
		era   string
		stops bool
	}{{"6.12", false}, {"6.15", true}} {
		e := newEnv(t, tc.era, Params{})
		pages := e.alloc(2)
		e.direct(pages[0])
		e.m.Begin(0, sim.SymPoolDestroy)
		e.p.Destroy(0)
		e.p.releaseCnt += 3 // the driver bug: three releases the pool never held
		e.m.AdvanceNS(5 * 1e9)
		if got := e.m.PendingTimers() == 0; got != tc.stops {
			t.Errorf("%s: inflight %d, retries stopped %v, want %v", tc.era, e.p.Inflight(), got, tc.stops)
		}
	}
}
