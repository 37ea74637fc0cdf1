package pagepool

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// AllocPages models page_pool_alloc_pages(pool, gfp): the fast path from the
// alloc cache (refilled from the ptr_ring when empty), else the slow path into
// the page allocator. The page comes back with refcount 1, held by the caller
// (PlaceDriver). nil when the allocator fails.
//
// Caller must guarantee non-concurrent access: it runs in the pool's NAPI
// context (or process context with NAPI disabled).
func (p *Pool) AllocPages(cpu int) *mm.Page {
	cost := p.m.Charge(cpu, sim.SymAllocPages, 0)
	pg := p.getCached(cpu, cost)
	if pg == nil && p.mp != nil {
		pg = p.mpAllocNetmems(cpu) // pool->mp_ops->alloc_netmems (provider.go)
	} else if pg == nil {
		pg = p.allocPagesSlow(cpu)
	}
	if pg == nil {
		p.allocNull++
		if p.alloc.count > 0 {
			p.nilWithCache = p.alloc.count // judged now: later recycles may refill the cache legitimately
		}
	}
	return pg
}

// AllocFailures is how many page_pool_alloc_pages calls (page_pool_alloc_frag's
// included) returned NULL: what a driver counts as an RX buffer allocation
// error (mlx5's rx_buff_alloc_err, mvneta's refill_errors).
func (p *Pool) AllocFailures() int64 { return p.allocNull }

// getCached models __page_pool_get_cached.
func (p *Pool) getCached(cpu int, cost int64) *mm.Page {
	p.touch(cpu)
	var from cacheFrom
	if p.alloc.count > 0 {
		from = p.alloc.from[p.alloc.count-1]
	}
	if pg := p.popCache(); pg != nil {
		p.stat(sim.StatAllocFast)
		p.ev(cpu, sim.SymAllocPages, pg, sim.PlaceCache, sim.PlaceDriver, sim.StatAllocFast, cost, fastPathWhy[from])
		return pg
	}
	return p.refillAllocCache(cpu)
}

// refillAllocCache models page_pool_refill_alloc_cache (noinline): move up to
// emptyCheckCycles: __ptr_ring_empty, one load and a compare (any platform).
const emptyCheckCycles = 2

// PP_ALLOC_CACHE_REFILL pages from the ptr_ring into the empty alloc cache.
// It stops at the first page from the wrong NUMA node and releases it
// ("waive"); pages on the right node are kept for the cache.
func (p *Pool) refillAllocCache(cpu int) *mm.Page {
	if p.ring.empty() { // lockless quick check: "avoid locks when ring is empty"
		cost := p.m.ChargeExtra(cpu, sim.SymRefillAllocCache, emptyCheckCycles)
		p.stat(sim.StatAllocEmpty)
		p.ev(cpu, sim.SymRefillAllocCache, nil, sim.PlaceNone, sim.PlaceNone, sim.StatAllocEmpty, cost,
			"the alloc cache and the ptr_ring are both empty: a slow-path allocation is forced")
		return nil
	}
	prefNid := p.P.Nid
	if prefNid == NumaNoNode {
		prefNid = p.m.NodeOf(cpu) // numa_mem_id(): softirq pins the CPU, so the node is stable
	}
	if p.era.RefillConsumerLock {
		p.m.Charge(cpu, sim.SymConsumerLock, 0)
	}
	moved := 0
	var pg *mm.Page
	for {
		pg = p.ring.consume()
		if pg == nil {
			break
		}
		moved++
		if pg.IsNetIov() || int(pg.Nid) == prefNid { // netmem_is_pref_nid: a net_iov is on every node (8ab79ed50cf1)
			p.alloc.cache[p.alloc.count] = pg
			p.alloc.from[p.alloc.count] = cacheFromRing
			p.alloc.count++
			pg.MoveTo(p.m, sim.PlaceCache, p.ID)
		} else {
			// NUMA mismatch: release this one page and stop; the next refill
			// resumes, and the slow path allocates on the right node.
			p.stat(sim.StatAllocWaive)
			p.ev(cpu, sim.SymRefillAllocCache, pg, sim.PlaceRing, sim.PlaceBuddy, sim.StatAllocWaive, 0,
				"page from the ptr_ring is on the wrong NUMA node: released to the page allocator, refill stops")
			p.returnPage(cpu, pg)
			pg = nil
			break
		}
		if p.alloc.count >= AllocCacheRefill {
			break
		}
	}
	cost := p.m.Charge(cpu, sim.SymRefillAllocCache, moved)
	if pg = p.popCache(); pg != nil {
		p.stat(sim.StatAllocRefill)
		p.ev(cpu, sim.SymRefillAllocCache, pg, sim.PlaceRing, sim.PlaceDriver, sim.StatAllocRefill, cost,
			"alloc cache empty: moved a batch of up to 64 pages from the ptr_ring into it and took the last one")
	}
	return pg
}

// allocPagesSlow models __page_pool_alloc_pages_slow (noinline).
//
// Two broken rules bring back the bulk refill patch as posted in March 2021
// ("[PATCH 7/7] net: page_pool: use alloc_pages_bulk in refill code path",
// <20210312154331.32229-8-mgorman@techsingularity.net>) and the bugs
// Alexander Duyck's review of it found
// (<CAKgT0UebK=mMwDV+UH8CqBRt0E0Koc7EB42kwgf0hYHDT_2OfQ@mail.gmail.com>):
//   - bulk-map-error: the first page is taken off the list before mapping; if
//     mapping it fails the function returns NULL although it has put the other
//     pages into the cache;
//   - bulk-dma-unmap: the list is not bounded by the cache; when the cache is
//     full, the already-mapped page is put_page'd without being unmapped.
func (p *Pool) allocPagesSlow(cpu int) *mm.Page {
	p.m.Charge(cpu, sim.SymAllocPagesSlow, 0)
	if p.P.Order > 0 {
		return p.allocPageOrder(cpu)
	}
	if !p.bulkRefill {
		return p.allocPageSingle(cpu)
	}
	// Unnecessary as the alloc cache is empty, but guarantees zero count.
	if pg := p.popCache(); pg != nil {
		return pg
	}
	want := int(p.m.Knobs[sim.KnobBulk])
	if room := AllocCacheSize - p.alloc.count; want > room && !p.m.Broken(sim.RuleBulkDMAUnmap) {
		want = room // alloc_pages_bulk_array fills the cache array itself: it cannot overflow it
	}
	nid := p.P.Nid
	if !p.era.BulkNid {
		nid = NumaNoNode // alloc_pages_bulk_array: the local node, whatever the pool prefers
	}
	nr := p.a.AllocPagesBulk(cpu, nid, p.bulk[:want])
	if nr == 0 {
		return nil
	}
	var first *mm.Page
	start := 0
	if p.m.Rules.Broken(sim.RuleBulkMapError) { // decides only when a mapping fails (below)
		first, start = p.bulk[0], 1 // v1: the first page is taken off the list before mapping
		p.bulk[0] = nil
	}
	for i := start; i < nr; i++ {
		pg := p.bulk[i]
		p.bulk[i] = nil
		if !p.mapNew(cpu, pg) {
			p.m.Decide(sim.RuleBulkMapError) // the fixed code goes on; v1 could return NULL here
			continue
		}
		if p.alloc.count >= AllocCacheSize { // only reachable with bulk-dma-unmap broken (v1's unbounded list)
			p.ev(cpu, sim.SymAllocPagesSlow, pg, sim.PlaceDriver, sim.PlaceBuddy, sim.StatNone, 0,
				"v1 bulk refill: alloc cache full, the page is put_page'd while still DMA-mapped")
			p.a.PutPage(cpu, pg)
			continue
		}
		p.setPPInfo(cpu, pg)
		p.alloc.cache[p.alloc.count] = pg
		p.alloc.from[p.alloc.count] = cacheFromAlloc
		p.alloc.count++
		pg.MoveTo(p.m, sim.PlaceCache, p.ID)
		p.hold(cpu, pg)
	}
	if first != nil { // v1: map the first page last
		if !p.mapNew(cpu, first) {
			p.ev(cpu, sim.SymAllocPagesSlow, nil, sim.PlaceNone, sim.PlaceNone, sim.StatNone, 0,
				"v1 bulk refill: mapping the first page failed and the function returns NULL, although the cache holds pages")
			return nil
		}
		p.setPPInfo(cpu, first)
		p.hold(cpu, first)
	} else if first = p.popCache(); first == nil {
		return nil
	}
	p.stat(sim.StatAllocSlow) // once per bulk call, not per page
	p.ev(cpu, sim.SymAllocPagesSlow, first, sim.PlaceBuddy, sim.PlaceDriver, sim.StatAllocSlow, 0,
		"ring empty: bulk-allocated pages from the page allocator into the alloc cache (one 'slow' per call) and took one")
	return first
}

// fastPathWhy narrates the fast path by how the page it pops got onto
// the cache: the top is the last page put there, which is a recycled one
// only when a recycle put it there.
var fastPathWhy = [...]string{
	cacheFromRecycle: "fast path: the alloc cache is not empty, so it pops its most recently recycled page (LIFO, no lock, no atomic)",
	cacheFromRing:    "fast path: the alloc cache is not empty, so it pops its top page, one an earlier refill moved there from the ptr_ring (LIFO, no lock, no atomic)",
	cacheFromAlloc:   "fast path: the alloc cache is not empty, so it pops its top page, one the slow path's bulk allocation left there (LIFO, no lock, no atomic)",
	cacheFromUser:    "fast path: the alloc cache is not empty, so it pops its top net_iov, one the memory provider placed there (LIFO, no lock, no atomic)",
}

// popCache takes the top of the alloc cache for the caller (nil if empty).
func (p *Pool) popCache() *mm.Page {
	if p.alloc.count == 0 {
		return nil
	}
	p.alloc.count--
	pg := p.alloc.cache[p.alloc.count]
	p.alloc.cache[p.alloc.count] = nil
	pg.MoveTo(p.m, sim.PlaceDriver, -1)
	return pg
}

// mapNew DMA-maps a page fresh from the allocator when the pool maps; on a
// mapping error the page goes back with put_page and mapNew reports false.
func (p *Pool) mapNew(cpu int, pg *mm.Page) bool {
	if p.P.Flags&FlagDMAMap != 0 && !p.dmaMap(cpu, pg) {
		p.a.PutPage(cpu, pg)
		return false
	}
	return true
}

// allocPageSingle is the slow path before v5.13: one alloc_pages_node() per
// call ("TODO: bulk alloc" in the kernel comment of the time).
func (p *Pool) allocPageSingle(cpu int) *mm.Page {
	pg := p.a.AllocPagesNode(cpu, p.P.Nid, 0)
	if pg == nil || !p.mapNew(cpu, pg) {
		return nil
	}
	p.setPPInfo(cpu, pg)
	p.hold(cpu, pg)
	p.stat(sim.StatAllocSlow)
	p.ev(cpu, sim.SymAllocPagesSlow, pg, sim.PlaceBuddy, sim.PlaceDriver, sim.StatAllocSlow, 0,
		"ring empty: one page from alloc_pages_node() (no bulk allocator before 5.13)")
	return pg
}

// allocPageOrder models __page_pool_alloc_page_order: high-order pools never
// use the bulk path; one compound page per call.
func (p *Pool) allocPageOrder(cpu int) *mm.Page {
	p.m.Charge(cpu, sim.SymAllocPageOrder, 0)
	pg := p.a.AllocPagesNode(cpu, p.P.Nid, p.P.Order)
	if pg == nil || !p.mapNew(cpu, pg) {
		return nil
	}
	p.setPPInfo(cpu, pg)
	p.stat(sim.StatAllocSlowHighOrder)
	p.hold(cpu, pg)
	p.ev(cpu, sim.SymAllocPageOrder, pg, sim.PlaceBuddy, sim.PlaceDriver, sim.StatAllocSlowHighOrder, 0,
		"high-order pool: one compound page from alloc_pages_node(), no bulk")
	return pg
}

// hold counts a page the pool took from the page allocator
// (pages_state_hold_cnt++, trace_page_pool_state_hold).
func (p *Pool) hold(cpu int, pg *mm.Page) {
	p.holdCnt++
	pg.Owner = p.ID
	if p.m.Tracing() {
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvStateHold, Func: sim.SymAllocPagesSlow, Pool: p.ID, Page: pg.PFN, NetIov: pg.NetIov, Hold: p.holdCnt, Stat: sim.StatNone})
	}
}

// dmaMap models page_pool_dma_map: map the whole (compound) page once, for as
// long as it stays in the pool, and sync max_len for the device when the pool
// syncs. false on a mapping error.
func (p *Pool) dmaMap(cpu int, pg *mm.Page) bool {
	p.m.Charge(cpu, sim.SymPoolDMAMap, 0)
	if _, ok := p.a.DMA.MapPage(cpu, pg, mm.PageSize<<p.P.Order, p.P.DMADir); !ok {
		return false
	}
	if !p.registerDMAIndex(cpu, pg) {
		p.a.DMA.UnmapPage(cpu, pg, mm.PageSize<<p.P.Order, p.P.DMADir)
		return false
	}
	if p.P.Flags&FlagDMASyncDev != 0 {
		p.syncForDevice(cpu, pg, p.P.MaxLen)
	}
	return true
}

// syncForDevice models page_pool_dma_sync_for_device: sync
// min(dma_sync_size, max_len) bytes from offset. dmaSyncSize < 0 is the
// kernel's (unsigned)-1: the whole max_len. From 6.16 it re-checks
// pool->dma_sync (under rcu_read_lock, "to sync with page_pool_scrub()",
// ee62ce7a1d90): after the scrub turned it off nothing is synced.
func (p *Pool) syncForDevice(cpu int, pg *mm.Page, dmaSyncSize int) {
	if p.dma.syncOff {
		return
	}
	n := p.P.MaxLen
	if dmaSyncSize >= 0 && dmaSyncSize < n {
		n = dmaSyncSize
	}
	p.a.DMA.SyncForDevice(cpu, pg, p.P.Offset, n, p.P.DMADir)
}

// setPPInfo marks a page as the pool's, per era: page_pool_set_pp_info in
// v5.15+ (page->pp and pp_magic; v6.7+ also pp_ref_count = 1); in 5.14 only the
// signature (page->pp is set by skb_mark_for_recycle); in rfc-v1 the
// page->signature word; nothing before.
func (p *Pool) setPPInfo(cpu int, pg *mm.Page) {
	e := p.era
	switch {
	case e.SkbRecycle == sim.SkbRecycleRFC:
		pg.Signature = mm.RFCSignature
	case e.SkbRecycle == sim.SkbRecycleMerged:
		if e.PageType {
			// 7.1-rc1 (db359fccf212): __SetPageNetpp(page); the
			// signature is no longer written (netmem_or_pp_magic is gone).
			pg.PageType = mm.PGTYNetpp
		} else {
			pg.PPMagic |= mm.PPSignature // OR-ed in: bit 1 (pfmemalloc) survives
		}
		if e.PPSetAtAlloc {
			pg.PP = p.ID
		}
		if e.PPRefCount {
			pg.FragCount = 1
		}
	}
	p.m.Charge(cpu, sim.SymSetPPInfo, 0)
}

// clearPPInfo undoes setPPInfo when the page leaves the pool
// (page_pool_clear_pp_info; 5.14: pp_magic = 0).
func (p *Pool) clearPPInfo(pg *mm.Page) {
	switch e := p.era; e.SkbRecycle {
	case sim.SkbRecycleRFC:
		pg.Signature = 0
	case sim.SkbRecycleMerged:
		if e.PageType {
			pg.PageType = 0 // __ClearPageNetpp (7.1-rc1, db359fccf212)
		} else {
			pg.PPMagic = 0
		}
		if e.PPSetAtAlloc {
			pg.PP = 0
		}
	}
}
