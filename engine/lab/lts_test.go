package lab

import (
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// The two LTS eras sit between the steps the model had: 6.1 has the 5.19
// deferred free (the reader hands each skb back to the NAPI CPU) but no
// direct recycling from the skb free path, so every page still crosses the
// ptr_ring — on the NAPI CPU now; 6.6 has 6.4's NAPI-local recycling and
// v6.6's `napi_safe || in_softirq()`, so on bnxt (pp.napi) the frag_list
// pages freed in the same softirq are cached too (here every page: bnxt's
// page mode keeps the NAPI the busier side, so it never completes), and it
// equals 6.8 in
// every counter this scenario shows (what 6.8 adds — pp_ref_count for every
// page, BIAS_MAX, the coalesce rule — does not change a page-per-buffer
// driver's TCP receive).
func TestLTSEras_61DefersWithoutDirectRecycling66RecyclesInSoftirq(t *testing.T) {
	x61 := tcpStream(t, "bnxt", "6.1", 20_000)
	if x61.l.stack.Deferred == 0 {
		t.Errorf("6.1: no skb_attempt_defer_free (the deferred free is 5.19)")
	}
	exactStats(t, "bnxt tcp-stream 6.1", x61.r.Stats, sim.Stats{sim.StatAllocFast: 20190, sim.StatAllocSlow: 11, sim.StatAllocEmpty: 11, sim.StatAllocRefill: 310, sim.StatRecycleRing: 19935})

	// Page mode in all three (hw_gro=0: the path 6.1 has), so the core is
	// what differs.
	x66 := tcpStream(t, "bnxt", "6.6", 20_000, "hw_gro=0")
	x68 := tcpStream(t, "bnxt", "6.8", 20_000, "hw_gro=0")
	exactStats(t, "bnxt tcp-stream 6.6", x66.r.Stats, sim.Stats{sim.StatAllocFast: 20500, sim.StatAllocSlow: 11, sim.StatAllocEmpty: 11, sim.StatRecycleCached: 19861, sim.StatRecycleCacheFull: 29, sim.StatRecycleRing: 29})
	if x66.r.Stats != x68.r.Stats {
		t.Errorf("bnxt tcp-stream: 6.6 %v, 6.8 %v: want equal", x66.r.Stats, x68.r.Stats)
	}

	// 5.15 has neither: no defer list, every page through the ring from the
	// reader's CPU.
	x515 := tcpStream(t, "bnxt", "5.15", 20_000)
	if x515.l.stack.Deferred != 0 || x515.st(sim.StatRecycleCached) != 0 {
		t.Errorf("5.15: deferred %d, cached %d: want neither", x515.l.stack.Deferred, x515.st(sim.StatRecycleCached))
	}
}

// The era fields of 6.1 and 6.6 each follow a release: what 6.1 lacks and
// 6.6 has is NAPI-direct recycling, the in-softirq rule and the removal of
// page_pool_release_page; what 6.6 lacks and 6.8 has is pp_ref_count for
// every page, the end of PP_FLAG_PAGE_FRAG, the halved BIAS_MAX and the
// coalesce rule that takes pp refs from clones.
func TestLTSEras_FieldsFollowTheirRelease(t *testing.T) {
	era := func(n string) *sim.Era {
		e, err := sim.EraByName(n)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e61, e66, e68 := era("6.1"), era("6.6"), era("6.8")
	if e61.NAPIDirect || e61.SoftirqDirect || e61.NoReleasePageAPI || !e61.DeferFree || !e61.Stats || e61.GROPPRecycleCheck || e61.Coalesce != sim.Coalesce2022 {
		t.Errorf("6.1: %+v", *e61)
	}
	if !e66.NAPIDirect || !e66.SoftirqDirect || !e66.NoReleasePageAPI || e66.PPRefCount || !e66.FragFlag || e66.BiasMax != e61.BiasMax || e66.Coalesce != sim.Coalesce2023 {
		t.Errorf("6.6: %+v", *e66)
	}
	if !e68.PPRefCount || e68.FragFlag || e68.BiasMax >= e66.BiasMax || e68.Coalesce != sim.CoalescePlainPPRefs {
		t.Errorf("6.8: %+v", *e68)
	}
	// The kernel's names for the pool's release of a page: page_pool_release_page
	// up to 6.4, page_pool_return_page (which unmaps inline) in 6.6,
	// __page_pool_release_page_dma in 6.8; the skb free path's function moved
	// to skbuff.c as napi_pp_put_page in 6.6.
	for _, c := range []struct {
		era      *sim.Era
		rel, ret string
	}{{e61, "page_pool_release_page", "page_pool_return_skb_page"}, {e66, "page_pool_return_page", "napi_pp_put_page"}, {e68, "__page_pool_release_page_dma", "napi_pp_put_page"}} {
		if got := sim.SymReleasePage.NameIn(c.era); got != c.rel {
			t.Errorf("%s: release %s, want %s", c.era.Name, got, c.rel)
		}
		if got := sim.SymReturnSkbPage.NameIn(c.era); got != c.ret {
			t.Errorf("%s: skb return %s, want %s", c.era.Name, got, c.ret)
		}
	}
	// bnxt lets its pool map from 6.6 (578fcfd26e2a).
	bnxt, _ := drivers.SpecByName("bnxt")
	if bnxt.PoolMaps(e61) || !bnxt.PoolMaps(e66) {
		t.Errorf("bnxt pool maps: 6.1 %v, 6.6 %v; want false, true", bnxt.PoolMaps(e61), bnxt.PoolMaps(e66))
	}
}
