package diagnose

import (
	"strings"

	"pplab/engine/sim"
)

// CounterInfo says what a counter counts and where the kernel counts it.
type CounterInfo struct {
	Name    string `json:"name"`    // ppsim's name (the struct field)
	Ethtool string `json:"ethtool"` // the generic helper's ethtool string
	Netlink string `json:"netlink"` // the page-pool-stats attribute
	// Meaning is the kernel-doc of the field (struct page_pool_alloc_stats,
	// struct page_pool_recycle_stats in include/net/page_pool/types.h).
	Meaning string `json:"meaning"`
	// Where is the function of net/core/page_pool.c that increments it
	// (alloc_stat_inc / recycle_stat_inc / recycle_stat_add), as of v6.8.
	Where string `json:"where"`
	// Since: the release that added the counter; Eras are the model's eras
	// whose kernel has it (sim.Era.Stats); EraNotes say how an era counts it
	// differently.
	Since    string   `json:"since"`
	Eras     []string `json:"eras"`
	EraNotes []string `json:"era_notes,omitempty"`
}

// counterDocs: the meaning is the kernel-doc of the stats structs
// (8610037e8106 "page_pool: Add allocation stats", ad6fa1e1ab1b
// "page_pool: Add recycle stats", v5.18); where is read in v6.8's
// net/core/page_pool.c.
var counterDocs = [sim.NumStats]struct{ meaning, where string }{
	sim.StatAllocFast: {"successful fast path allocations: a page taken from the alloc cache",
		"__page_pool_get_cached, when pool->alloc.count > 0 (alloc_stat_inc(pool, fast)); also page_pool_alloc_frag for each further fragment of the current frag page and for a drained frag page it reuses"},
	sim.StatAllocSlow: {"slow path order-0 allocations",
		"__page_pool_alloc_pages_slow, once per successful refill from the page allocator — one per bulk call of up to 64 pages (alloc_pages_bulk), not one per page"},
	sim.StatAllocSlowHighOrder: {"slow path high order allocations",
		"__page_pool_alloc_page_order, once per page of order > 0"},
	sim.StatAllocEmpty: {"failed refills due to an empty ptr ring, forcing a slow path allocation",
		"page_pool_refill_alloc_cache, when __ptr_ring_empty(&pool->ring)"},
	sim.StatAllocRefill: {"allocations which triggered a refill of the cache",
		"page_pool_refill_alloc_cache, when it moved at least one page from the ptr_ring into the cache (up to PP_ALLOC_CACHE_REFILL, 64)"},
	sim.StatAllocWaive: {"pages obtained from the ptr ring that cannot be added to the cache due to a NUMA mismatch",
		"page_pool_refill_alloc_cache, when a ring page's node is not the pool's (the page is released, the refill stops)"},
	sim.StatRecycleCached: {"recycling placed page in the cache",
		"page_pool_recycle_in_cache, on a direct recycle (allow_direct: XDP in the NAPI poll, from 6.4 an skb freed in the pool's NAPI context)"},
	sim.StatRecycleCacheFull: {"cache was full",
		"page_pool_recycle_in_cache, when the 128-slot alloc cache is full (the page then goes to the ptr_ring)"},
	sim.StatRecycleRing: {"recycling placed page in the ptr ring",
		"page_pool_recycle_in_ring on success; page_pool_put_page_bulk adds the pages it produced (recycle_stat_add)"},
	sim.StatRecycleRingFull: {"page was released from page-pool because PTR ring was full",
		"page_pool_put_page (page_pool_put_defragged_page) when page_pool_recycle_in_ring fails; page_pool_put_page_bulk once per call, not per page"},
	sim.StatRecycleReleasedRefcnt: {"page released because of elevated refcnt",
		"__page_pool_put_page, when the page is not recyclable: page_ref_count != 1 (someone else holds a reference) or a pfmemalloc page; the pool unmaps it and lets it go"},
}

// Counter describes counter s.
func Counter(s sim.Stat) CounterInfo {
	ci := CounterInfo{Name: s.String(), Ethtool: s.Ethtool(), Netlink: ynlKey(s), Meaning: counterDocs[s].meaning, Where: counterDocs[s].where,
		Since: "5.18 (CONFIG_PAGE_POOL_STATS, default off; ethtool -S through the driver from 5.19, netlink page-pool-stats-get from 6.8)"}
	var without []string
	for _, e := range sim.Eras {
		if e.Stats {
			ci.Eras = append(ci.Eras, e.Name)
		} else {
			without = append(without, e.Name)
		}
	}
	ci.EraNotes = append(ci.EraNotes, "eras "+strings.Join(without, ", ")+": the kernel has no page_pool stats; the model counts what a stats-enabled pool would")
	switch s {
	case sim.StatAllocFast:
		per, pages := fragStatEras()
		ci.EraNotes = append(ci.EraNotes, "with the frag API (5.15 on) up to 6.12 (eras "+per+"): a frag pool (hns3, split-page, the system pools' copies) counts fast per fragment, so alloc_fast exceeds the pages handed out (0f6deac3a079, v5.19)",
			"from 6.13 (eras "+pages+"): only pages count: a further fragment of the current frag page counts nothing, and a drained frag page reused from offset 0 counts alloc_fast and recycle_cached (ef04d290c013)")
	case sim.StatAllocSlow:
		ci.EraNotes = append(ci.EraNotes, "every era with stats refills in bulk (be5dba25b4b2, v5.13): pages from the page allocator ≈ up to 64 × alloc_slow")
	case sim.StatRecycleCached:
		ci.EraNotes = append(ci.EraNotes, "6.1: only XDP and the driver's own direct recycles (skb frees always take the ring); from 6.4 skb frees in the pool's NAPI context too, for drivers that set pp.napi (8c48eea3adf3)")
	case sim.StatRecycleReleasedRefcnt:
		ci.EraNotes = append(ci.EraNotes, "6.1: drivers that still call page_pool_release_page let pages go without counting them here (it is not a put)")
	}
	return ci
}

// fragStatEras lists the eras with the frag API whose stats count each
// fragment, and those that count pages (sim.Era.FragStatPerPage).
func fragStatEras() (perFrag, perPage string) {
	var a, b []string
	for _, e := range sim.Eras {
		switch {
		case !e.FragAPI:
		case e.FragStatPerPage:
			b = append(b, e.Name)
		default:
			a = append(a, e.Name)
		}
	}
	return strings.Join(a, ", "), strings.Join(b, ", ")
}

func ynlKey(s sim.Stat) string {
	if s == sim.StatRecycleReleasedRefcnt {
		return "recycle-released-refcnt"
	}
	return strings.ReplaceAll(s.String(), "_", "-")
}
