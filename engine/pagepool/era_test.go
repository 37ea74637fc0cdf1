package pagepool

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// TestEra_SlowPath: 5.12 allocates one page per slow-path call with
// alloc_pages_node, and so does rfc-v1 (the first recycling series, on its
// v5.12-rc base); 5.13 and later bulk-allocate 64. The bulk_refill knob
// switches the refill in any era.
func TestEra_SlowPathSingleBefore5_13(t *testing.T) {
	for _, tc := range []struct {
		era          string
		knob         string
		wantCache    int
		wantBulk     int64
		wantAllocsPP int64
	}{
		{"5.12", "", 0, 0, 1},
		{"5.13", "", 63, 1, 64},
		{"rfc-v1", "", 0, 0, 1},
		{"5.14", "", 63, 1, 64},
		{"6.8", "", 63, 1, 64},
		{"rfc-v1", "bulk_refill=1", 63, 1, 64},
		{"5.12", "bulk_refill=1", 63, 1, 64},
		{"6.8", "bulk_refill=0", 0, 0, 1},
	} {
		t.Run(tc.era+" "+tc.knob, func(t *testing.T) {
			var opts []string
			if tc.knob != "" {
				opts = append(opts, tc.knob)
			}
			e := newEnv(t, tc.era, Params{}, opts...)
			e.alloc(1)
			if e.p.CacheCount() != tc.wantCache || e.a.BulkCalls != tc.wantBulk || e.a.Allocs != tc.wantAllocsPP {
				t.Errorf("cache %d bulk calls %d page allocs %d; want %d %d %d", e.p.CacheCount(), e.a.BulkCalls, e.a.Allocs, tc.wantCache, tc.wantBulk, tc.wantAllocsPP)
			}
			e.clean()
		})
	}
}

// TestEra_PageMarks: what the pool writes into struct page, per era.
func TestEra_PageMarks(t *testing.T) {
	for _, tc := range []struct {
		era       string
		magic     bool // pp_magic carries PP_SIGNATURE
		rfcSig    bool // page->signature (rfc-v1)
		ppAtAlloc bool // page->pp set by the pool
		refCount  int64
	}{
		{"5.12", false, false, false, 0},
		{"5.13", false, false, false, 0},
		{"rfc-v1", false, true, false, 0},
		{"5.14", true, false, false, 0},
		{"5.15", true, false, true, 0},
		{"6.4", true, false, true, 0},
		{"6.8", true, false, true, 1},
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{})
			pg := e.alloc(1)[0]
			if pg.HasPPSignature() != tc.magic || (pg.Signature == mm.RFCSignature) != tc.rfcSig || (pg.PP == e.p.ID) != tc.ppAtAlloc || pg.FragCount != tc.refCount {
				t.Fatalf("page %v: want magic %v rfc signature %v pp %v pp_ref_count %d", pg, tc.magic, tc.rfcSig, tc.ppAtAlloc, tc.refCount)
			}
			// Leaving the pool clears the marks.
			e.a.GetPage(0, pg)
			e.direct(pg)
			if pg.HasPPSignature() || pg.Signature != 0 || (tc.ppAtAlloc && pg.PP != 0) {
				t.Errorf("released page keeps pool marks: %v", pg)
			}
			e.a.PutPage(0, pg)
			e.clean()
		})
	}
}

func TestEra_SignatureKeepsPfmemallocBit(t *testing.T) {
	// pp_magic aliases lru.next, whose bit 1 is the pfmemalloc bit: the
	// signature is OR-ed in and tested under ~0x3 (5.14 with the rc6 fix on).
	e := newEnv(t, "5.14", Params{}, "pfmemalloc_ppm=1000000")
	pg := e.alloc(1)[0]
	if pg.PPMagic != mm.PPSignature|2 || !pg.Pfmemalloc() || !pg.HasPPSignature() {
		t.Fatalf("pp_magic %#x: want PP_SIGNATURE|pfmemalloc", pg.PPMagic)
	}
	e.p.StoreMemInfo(pg)
	e.m.Begin(0, sim.SymReturnSkbPage)
	if !e.r.ReturnSkbPage(0, pg, false) {
		t.Fatal("masked signature test rejected a pfmemalloc pool page")
	}
	e.wantStats(map[sim.Stat]uint64{sim.StatRecycleReleasedRefcnt: 1})
	e.clean()
}

func TestReturnSkbPage_ByEra(t *testing.T) {
	for _, tc := range []struct {
		era        string
		store      bool // the driver stored the pool (5.14 skb_mark_for_recycle / page_pool_store_mem_info; rfc-v1 mem info)
		wantReturn bool
		wantRing   uint64
	}{
		{"5.12", true, false, 0}, // no skb recycling: the caller put_page()s
		{"5.13", true, false, 0},
		{"rfc-v1", true, true, 1},
		{"5.14", true, true, 1},
		{"5.14", false, false, 0}, // page->pp NULL: not returned (the kernel would oops)
		{"5.15", false, true, 1},  // page->pp set at allocation
		{"6.8", false, true, 1},
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{})
			e.r.RegMemModel(e.p)
			pg := e.alloc(1)[0]
			if tc.store {
				e.p.StoreMemInfo(pg)
				if tc.era == "rfc-v1" {
					e.p.StoreXDPMemInfo(pg)
				}
			}
			e.m.Begin(0, sim.SymReturnSkbPage)
			got := e.r.ReturnSkbPage(0, pg, false)
			if got != tc.wantReturn {
				t.Fatalf("page_pool_return_skb_page = %v, want %v", got, tc.wantReturn)
			}
			if !got {
				if pg.Place != sim.PlaceDriver {
					t.Fatalf("not-returned page moved to %s", pg.Place)
				}
				if tc.era == "5.12" || tc.era == "5.13" {
					// The pre-recycling driver had released it when building the skb.
					e.p.ReleasePage(0, pg)
				} else {
					e.p.ReleasePage(0, pg) // what a careful caller would have to do
				}
				e.a.PutPage(0, pg)
			}
			e.wantStats(map[sim.Stat]uint64{sim.StatRecycleRing: tc.wantRing, sim.StatRecycleCached: 0})
			if tc.era == "5.14" && got && pg.PP != 0 {
				t.Errorf("5.14 keeps page->pp after recycling (it is reset on recycle)")
			}
			if tc.era == "5.15" && pg.PP != e.p.ID {
				t.Errorf("5.15 cleared page->pp on recycling (it lives as long as the pool owns the page)")
			}
			e.clean()
		})
	}
}

func TestReturnSkbPage_RFCWarnsOnNonPoolMemType(t *testing.T) {
	e := newEnv(t, "rfc-v1", Params{Flags: FlagDMAMap})
	shared := e.r.RegMemModelType(MemTypePageShared)
	pg := e.alloc(1)[0]
	pg.Private = MemInfo(MemTypePageShared, shared) // a driver registered the wrong memory model
	var warns int
	e.m.SetTracer(func(ev sim.Event) {
		if ev.Kind == sim.EvWarn {
			warns++
		}
	})
	e.m.Begin(0, sim.SymReturnSkbPage)
	if !e.r.ReturnSkbPage(0, pg, false) {
		t.Fatal("__xdp_return path did not consume the page")
	}
	if warns != 1 || pg.Place != sim.PlaceBuddy {
		t.Fatalf("warns %d place %s: want one WARN and the page freed normally", warns, pg.Place)
	}
	e.check()
	// "freed normally, and its DMA mapping is not unmapped": the pool never
	// hears of the page again.
	if e.m.Log.Counts[sim.KindDMALeak] != 1 || e.m.Log.Counts[sim.KindInflightLeak] != 1 {
		t.Fatalf("want one dma-leak and one inflight-leak, got %v", e.m.Log.List)
	}
}

func TestReturnSkbPage_NAPIDirectFrom6_4(t *testing.T) {
	for _, tc := range []struct {
		name       string
		era        string
		cpu        int
		napiSafe   bool
		scheduled  bool
		wantCached uint64
	}{
		{"5.15 always ring", "5.15", 0, true, true, 0},
		{"6.4 own CPU, NAPI scheduled", "6.4", 0, true, true, 1},
		{"6.4 not napi_safe", "6.4", 0, false, true, 0},
		{"6.4 NAPI not scheduled", "6.4", 0, true, false, 0},
		{"6.4 other CPU", "6.4", 1, true, true, 0},
		{"6.8 own CPU", "6.8", 0, true, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			napi := NewNAPI(0)
			e := newEnv(t, tc.era, Params{NAPI: napi})
			pg := e.alloc(1)[0]
			if tc.scheduled {
				napi.Schedule()
			}
			e.m.Begin(tc.cpu, sim.SymReturnSkbPage)
			e.r.ReturnSkbPage(tc.cpu, pg, tc.napiSafe)
			e.wantStats(map[sim.Stat]uint64{sim.StatRecycleCached: tc.wantCached, sim.StatRecycleRing: 1 - tc.wantCached})
			e.clean()
		})
	}
}

func TestEra_DestroyUnlinksNAPIFrom6_4(t *testing.T) {
	napi := NewNAPI(0)
	e := newEnv(t, "6.4", Params{NAPI: napi})
	pg := e.alloc(1)[0]
	napi.Schedule()
	e.m.Begin(0, sim.SymPoolDestroy)
	e.p.Destroy(0)
	e.m.Begin(0, sim.SymReturnSkbPage)
	e.r.ReturnSkbPage(0, pg, true)
	// After page_pool_unlink_napi the page must not land in the (already
	// scrubbed) cache, where it would never be freed.
	e.wantStats(map[sim.Stat]uint64{sim.StatRecycleCached: 0, sim.StatRecycleRing: 1})
	e.m.AdvanceNS(DeferTimeNS)
	if !e.p.Freed() {
		t.Fatal("pool not freed after its last page came back")
	}
	e.clean()
}

func TestEra_RefillConsumerLockBefore5_17(t *testing.T) {
	for _, tc := range []struct {
		era  string
		want bool
	}{{"5.12", true}, {"5.15", true}, {"6.4", false}, {"6.8", false}} {
		e := newEnv(t, tc.era, Params{})
		e.toRing(e.alloc(64)...)
		e.alloc(1) // refill
		if got := e.m.SpentPS(0, sim.SymConsumerLock) > 0; got != tc.want {
			t.Errorf("%s: consumer lock taken = %v, want %v", tc.era, got, tc.want)
		}
	}
}

func TestEra_BiasMax(t *testing.T) {
	for _, tc := range []struct {
		era  string
		want int64
	}{{"5.15", 1<<63 - 1}, {"6.4", 1<<63 - 1}, {"6.8", (1<<63 - 1) >> 1}} {
		flags := FlagPageFrag
		if tc.era == "6.8" {
			flags = 0
		}
		e := newEnv(t, tc.era, Params{Flags: flags})
		pg, _ := e.p.AllocFrag(0, 1024)
		if pg == nil || pg.FragCount != tc.want {
			t.Errorf("%s: frag page count %v, want BIAS_MAX %d", tc.era, pg, tc.want)
		}
	}
}

func TestEra_ReleasePageAPIRemovedBy6_8(t *testing.T) {
	for _, tc := range []struct {
		era  string
		want bool
	}{{"5.12", true}, {"6.4", true}, {"6.8", false}} {
		e := newEnv(t, tc.era, Params{})
		pg := e.alloc(1)[0]
		err := e.p.ReleasePage(0, pg)
		if (err == nil) != tc.want {
			t.Errorf("%s: page_pool_release_page: %v, want available=%v", tc.era, err, tc.want)
		}
		if err == nil {
			e.a.PutPage(0, pg)
		} else {
			e.direct(pg)
		}
		e.clean()
	}
}

// Before v6.0 the bulk refill ignores pool->p.nid (alloc_pages_bulk_array
// takes the local node): a pool that prefers a remote node gets local
// pages, and every refill from its ring waives them back to the page
// allocator. From alloc_pages_bulk_array_node (v6.0) the pages come from
// the preferred node and are kept.
func TestBulkNid_RefillWaivesLocalPagesBefore6_0(t *testing.T) {
	for _, tc := range []struct {
		era       string
		node      int8 // where the bulk allocation put the pages
		waive     uint64
		refill    uint64
		ringAfter int
	}{
		{"5.15", 0, 1, 0, 63}, // the first page consumed is waived: the refill returns NULL, the slow path runs again
		{"6.4", 1, 0, 1, 0},
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{Nid: 1}, "numa_nodes=2", "cpus=2")
			pages := e.alloc(64) // one bulk on cpu0 (node 0)
			for _, pg := range pages {
				if pg.Nid != tc.node {
					t.Fatalf("bulk page on node %d, want %d", pg.Nid, tc.node)
				}
			}
			e.toRing(pages...)
			e.alloc(1) // the cache is empty: refill from the ring
			if w, r := e.stat(sim.StatAllocWaive), e.stat(sim.StatAllocRefill); w != tc.waive || r != tc.refill || e.p.RingCount() != tc.ringAfter {
				t.Errorf("waive %d refill %d ring %d, want %d %d %d", w, r, e.p.RingCount(), tc.waive, tc.refill, tc.ringAfter)
			}
		})
	}
}
