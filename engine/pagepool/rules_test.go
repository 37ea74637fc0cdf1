package pagepool

import (
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// Each breakable rule of this layer: the shortest sequence that shows the
// failure when the rule is broken (the exact violation kind), and the same
// sequence with the rule intact (zero violations).
func TestBrokenRules(t *testing.T) {
	tests := []struct {
		rule string
		era  string
		kind sim.Kind
		run  func(t *testing.T, broken bool)
	}{
		{"signature-check", "5.14", sim.KindForeignPageInPool, func(t *testing.T, broken bool) {
			// A plain page (not from the pool) in an skb marked for recycling;
			// 5.14's skb_mark_for_recycle(skb, page, pp) stored the pool in it.
			e := newEnv(t, "5.14", Params{}, brk(broken, "signature-check")...)
			pg := e.a.AllocPagesNode(0, -1, 0)
			e.p.StoreMemInfo(pg)
			e.m.Begin(0, sim.SymReturnSkbPage)
			if !e.r.ReturnSkbPage(0, pg, false) {
				e.a.PutPage(0, pg) // the skb free path falls back to put_page
			}
			verdict(t, e, broken, sim.KindForeignPageInPool)
		}},
		{"signature-check", "rfc-v1", sim.KindForeignPageInPool, func(t *testing.T, broken bool) {
			e := newEnv(t, "rfc-v1", Params{}, brk(broken, "signature-check")...)
			id := e.r.RegMemModel(e.p)
			pg := e.a.AllocPagesNode(0, -1, 0)
			pg.Private = MemInfo(MemTypePagePool, id)
			e.m.Begin(0, sim.SymReturnSkbPage)
			if !e.r.ReturnSkbPage(0, pg, false) {
				e.a.PutPage(0, pg)
			}
			verdict(t, e, broken, sim.KindForeignPageInPool)
		}},
		{"signature-check", "6.8", sim.KindForeignPageInPool, func(t *testing.T, broken bool) {
			e := newEnv(t, "6.8", Params{}, brk(broken, "signature-check")...)
			pg := e.a.AllocPagesNode(0, -1, 0) // a slab/page_frag page: page->pp is not a pool
			e.m.Begin(0, sim.SymReturnSkbPage)
			if !e.r.ReturnSkbPage(0, pg, false) {
				e.a.PutPage(0, pg)
			}
			verdict(t, e, broken, sim.KindForeignPageInPool)
		}},
		{"refcnt-check", "6.8", sim.KindUseAfterRecycle, func(t *testing.T, broken bool) {
			e := newEnv(t, "6.8", Params{}, brk(broken, "refcnt-check")...)
			pg := e.alloc(1)[0]
			e.a.GetPage(0, pg) // someone else keeps a reference
			e.toRing(pg)
			e.check()
			e.a.PutPage(0, pg)
			verdict(t, e, broken, sim.KindUseAfterRecycle)
		}},
		{"pfmemalloc-check", "6.8", sim.KindReservePageRetained, func(t *testing.T, broken bool) {
			e := newEnv(t, "6.8", Params{}, append(brk(broken, "pfmemalloc-check"), "pfmemalloc_ppm=1000000")...)
			e.direct(e.alloc(1)...)
			verdict(t, e, broken, sim.KindReservePageRetained)
		}},
		{"napi-locality", "6.4", sim.KindCacheRace, func(t *testing.T, broken bool) {
			napi := NewNAPI(0)
			e := newEnv(t, "6.4", Params{NAPI: napi}, brk(broken, "napi-locality")...)
			pg := e.alloc(1)[0]
			napi.Schedule()
			// Freed on cpu1, in softirq, napi_safe (e.g. TX completion of another
			// device's NAPI): not this pool's NAPI CPU.
			e.m.Begin(1, sim.SymReturnSkbPage)
			e.r.ReturnSkbPage(1, pg, true)
			verdict(t, e, broken, sim.KindCacheRace)
		}},
		{"bulk-map-error", "6.8", sim.KindAllocFailureWithCache, func(t *testing.T, broken bool) {
			e := newEnv(t, "6.8", Params{Flags: FlagDMAMap}, brk(broken, "bulk-map-error")...)
			e.a.DMA.InjectMapFailureFor(0) // the first page of the first bulk (PFN 0) fails to map
			e.m.Begin(0, sim.SymAllocPages)
			pg := e.p.AllocPages(0)
			if (pg == nil) != broken {
				t.Fatalf("alloc returned %v with the rule broken=%v", pg, broken)
			}
			if !broken && e.p.CacheCount() != 62 {
				t.Fatalf("cache %d after one failed mapping, want 62", e.p.CacheCount())
			}
			verdict(t, e, broken, sim.KindAllocFailureWithCache)
		}},
		{"bulk-dma-unmap", "6.8", sim.KindDMALeak, func(t *testing.T, broken bool) {
			// Ask the bulk allocator for more than the cache holds (bulk=192).
			e := newEnv(t, "6.8", Params{Flags: FlagDMAMap}, append(brk(broken, "bulk-dma-unmap"), "bulk=192")...)
			e.alloc(1)
			if broken && e.a.DMA.Maps-e.a.DMA.Unmaps != 128+64 {
				t.Fatalf("live mappings %d, want 192 (64 leaked)", e.a.DMA.Maps-e.a.DMA.Unmaps)
			}
			verdict(t, e, broken, sim.KindDMALeak)
		}},
		{"frag-count", "5.15", sim.KindUseAfterRecycle, func(t *testing.T, broken bool) {
			e := fragEnv(t, "5.15", brk(broken, "frag-count")...)
			a, _ := e.frag(2048)
			b, _ := e.frag(2048) // the other half of the same page, still in use
			if a != b {
				t.Fatal("frags on different pages")
			}
			e.toRing(a)
			verdict(t, e, broken, sim.KindUseAfterRecycle)
		}},
		{"frag-count", "6.8", sim.KindUseAfterRecycle, func(t *testing.T, broken bool) {
			e := fragEnv(t, "6.8", brk(broken, "frag-count")...)
			a, _ := e.frag(2048)
			e.frag(2048)
			e.frag(2048) // drain: the first page now counts its 2 users
			e.toRing(a)
			verdict(t, e, broken, sim.KindUseAfterRecycle)
		}},
	}
	for _, tc := range tests {
		for _, broken := range []bool{false, true} {
			name := tc.rule + "/" + tc.era + "/intact"
			if broken {
				name = tc.rule + "/" + tc.era + "/broken"
			}
			t.Run(name, func(t *testing.T) { tc.run(t, broken) })
		}
	}
}

func brk(broken bool, rule string) []string { return simtest.Break(broken, rule) }

// verdict: broken -> a violation of exactly kind was recorded first, attributed
// to a rule; intact -> none at all.
func verdict(t *testing.T, e *env, broken bool, kind sim.Kind) {
	t.Helper()
	simtest.Verdict(t, e.m, broken, kind)
	if broken && e.m.Log.List[0].Kind != kind {
		t.Errorf("first violation is %s, want %s: %v", e.m.Log.List[0].Kind, kind, e.m.Log.List)
	}
}
