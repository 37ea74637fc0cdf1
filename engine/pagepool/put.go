package pagepool

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Cross-CPU and process-context extras on the ring producer lock, in cycles.
const (
	// bhCycles: spin_lock_bh/unlock_bh instead of spin_lock when the put runs
	// outside softirq. Joe Damato's stats cover letter (14 Feb 2022,
	// <1644868949-24506-1-git-send-email-jdamato@fastly.com>): ptr_ring pair
	// 72 cycles no-softirq vs 39 in a tasklet on the same Xeon Gold 6140.
	bhCycles = 33
	// bounceCycles: the producer lock's cache line last written by another CPU
	// (one cross-core transfer). An order-of-magnitude default, NOT calibrated;
	// the same letter's 4-CPU contention figure (bench_page_pool_cross_cpu,
	// ~3,400 cycles/page) is the extreme.
	bounceCycles = 100
)

// PutPage models page_pool_put_page(pool, page, dma_sync_size, allow_direct):
// the caller gives up its use of the page. If the page can be recycled it goes
// into the alloc cache (allow_direct, softirq, room) or the ptr_ring; if the
// ring is full it is released to the page allocator (ring_full).
//
// From 6.10 the last user's put is page_pool_put_unrefed_page, which asks
// page_pool_napi_local whenever the caller passed allow_direct = false
// (4a96a4e807c3): driver puts and xdp_return_frame may recycle directly too.
func (p *Pool) PutPage(cpu int, pg *mm.Page, dmaSyncSize int, allowDirect bool) {
	p.m.Charge(cpu, sim.SymPutPage, 0)
	if !p.lastUser(cpu, pg) {
		return
	}
	p.putUnrefedPage(cpu, pg, dmaSyncSize, allowDirect)
}

// putUnrefedPage models page_pool_put_unrefed_page /
// page_pool_put_unrefed_netmem: the put of a page whose last pp reference
// the caller already dropped (PutPage after its frag/ref test; io_uring's
// io_zcrx_return_niov of another pool's niov).
func (p *Pool) putUnrefedPage(cpu int, pg *mm.Page, dmaSyncSize int, allowDirect bool) {
	local := false
	if !allowDirect && p.era.PoolNapiLocal {
		allowDirect = p.napiLocal(cpu)
		local = allowDirect
	}
	pg = p.putPage(cpu, pg, dmaSyncSize, allowDirect, local)
	if pg != nil && !p.recycleInRing(cpu, pg) {
		// "Cache full, fall back to free pages" (the kernel's words: the
		// ptr_ring cache is full).
		p.stat(sim.StatRecycleRingFull)
		p.ev(cpu, sim.SymPutPage, pg, pg.Place, sim.PlaceBuddy, sim.StatRecycleRingFull, 0,
			"the ptr_ring is full: the page is released to the page allocator")
		p.returnPage(cpu, pg)
	}
}

// PutFullPage models page_pool_put_full_page: dma_sync_size = -1 (max_len).
func (p *Pool) PutFullPage(cpu int, pg *mm.Page, allowDirect bool) {
	p.PutPage(cpu, pg, -1, allowDirect)
}

// RecycleDirect models page_pool_recycle_direct: put_full_page with
// allow_direct = true. Only from the pool's NAPI context (XDP_DROP, errors).
func (p *Pool) RecycleDirect(cpu int, pg *mm.Page) { p.PutPage(cpu, pg, -1, true) }

// lastUser is the frag/ref count test that precedes the recycling decision:
// with the frag API (5.15: PP_FLAG_PAGE_FRAG pools) or pp_ref_count (6.7+:
// every pool) only the last user of a page goes on; the others just drop their
// share. Breaking frag-count skips the test: every user recycles the page.
func (p *Pool) lastUser(cpu int, pg *mm.Page) bool {
	e := p.era
	if !(e.PPRefCount || (e.FragAPI && p.P.Flags&FlagPageFrag != 0)) {
		return true
	}
	if pg.FragCount == 1 {
		// The sole user: defragPage would return 0 and leave the count at
		// 1, and a broken frag-count decides nothing (no other user).
		return true
	}
	if p.m.Rules.Broken(sim.RuleFragCount) {
		if pg.FragCount > 1 {
			p.m.Decide(sim.RuleFragCount) // other users remain: the count would have kept the page
		}
		return true
	}
	if p.defragPage(pg, 1) != 0 {
		p.m.Decide(sim.RuleFragCount)
		p.ev(cpu, sim.SymPutPage, pg, pg.Place, pg.Place, sim.StatNone, 0,
			"not the last user of this page's fragments: only the frag/ref count drops")
		return false
	}
	return true
}

// defragPage models page_pool_defrag_page / page_pool_unref_page (and v5.15's
// page_pool_atomic_sub_frag_count_return): subtract nr users and return what
// remains. When exactly nr remain it returns 0 without an atomic RMW; from
// v6.7 it then resets the count to 1, the value every page at rest carries.
func (p *Pool) defragPage(pg *mm.Page, nr int64) int64 {
	if pg.FragCount == nr {
		if p.era.PPRefCount {
			pg.FragCount = 1
		}
		return 0
	}
	pg.FragCount -= nr
	ret := pg.FragCount
	if ret < 0 {
		// WARN_ON(ret < 0): more puts than users.
		pg.ReportOnce(p.m, sim.KindRefcountUnderflow, p.m.RuleFor(sim.KindRefcountUnderflow),
			"pp_frag_count/pp_ref_count went negative (%d): a fragment was put more often than handed out", ret)
		if p.m.Tracing() {
			p.m.Emit(sim.Event{CPU: p.m.CurrentOp().CPU, Kind: sim.EvWarn, Func: sim.SymPutPage, Pool: p.ID, Page: pg.PFN, Stat: sim.StatNone,
				Why: "WARN_ON(ret < 0) in page_pool_defrag_page"})
		}
	}
	if ret == 0 && p.era.PPRefCount {
		pg.FragCount = 1
	}
	return ret
}

// canBeRecycled models __page_pool_page_can_be_recycled (a helper since
// v6.3; the same test stood inline in __page_pool_put_page and
// page_pool_drain_frag before): the pool holds the sole reference
// (page_ref_count == 1) and the page is not from the emergency reserves
// (pfmemalloc). The one recycling predicate: every path that may keep a page
// asks it, so a broken rule changes them all alike.
//
// From 6.12 the test is netmem_is_net_iov(netmem) || (…): a net_iov is
// always recyclable, with no refcount or pfmemalloc test. Read in the
// posting of 8ab79ed50cf1 "page_pool: devmem support" (v18 06/14,
// <20240805212536.2172174-7-almasrymina@google.com>), which adds the
// clause (docs/eras-after-6.8.md §11 had it unpinned).
func (p *Pool) canBeRecycled(pg *mm.Page) bool {
	if pg.IsNetIov() {
		return true
	}
	refOK := pg.Ref == 1 || p.m.Broken(sim.RuleRefcntCheck)
	reserveOK := !pg.Pfmemalloc() || p.m.Broken(sim.RulePfmemallocCheck)
	return refOK && reserveOK
}

// putPage models __page_pool_put_page: the one place that decides a page's
// fate. It returns the page when it should go to the ptr_ring, nil when it was
// recycled into the cache or released.
//
// A page that cannot be recycled (canBeRecycled) is given up: DMA unmap,
// accounting release (released_refcnt), and put_page of the pool's reference.
//
// local: allowDirect is page_pool_napi_local's answer, not the caller's
// (the narration says which decided).
func (p *Pool) putPage(cpu int, pg *mm.Page, dmaSyncSize int, allowDirect, local bool) *mm.Page {
	if p.canBeRecycled(pg) {
		// Read barrier done in page_ref_count / READ_ONCE.
		if p.P.Flags&FlagDMASyncDev != 0 {
			p.syncForDevice(cpu, pg, dmaSyncSize)
		}
		// 6.10 (4a96a4e807c3) drops the in_softirq() test here: a caller
		// passing allow_direct = true vouches for its context, and
		// page_pool_napi_local tests softirq for the others.
		if allowDirect && (p.era.PoolNapiLocal || p.softirq(cpu)) && p.recycleInCache(cpu, pg, local) {
			return nil
		}
		if p.m.Tracing() { // the narration of recycleInRing's event: no stores untraced
			p.ringWhy = p.ringWhyFor(cpu, allowDirect)
		}
		return pg
	}
	// Fallback/non-XDP mode: API user has elevated refcnt (or the page is a
	// reserve page) — it is not recyclable. Unmap and let put_page free it.
	return p.notRecyclable(cpu, pg)
}

// ringWhyFor says why a recyclable page goes to the ptr_ring (putPage's
// narration for recycleInRing's event).
func (p *Pool) ringWhyFor(cpu int, allowDirect bool) string {
	switch {
	case !allowDirect && p.era.PoolNapiLocal:
		return "recyclable, but not NAPI-local (page_pool_napi_local: not in softirq on the pool's cpuid or its NAPI's CPU): into the ptr_ring under the producer spinlock"
	case !allowDirect:
		return "recyclable, but the caller may not touch the lockless alloc cache (allow_direct=false): into the ptr_ring under the producer spinlock"
	case !p.softirq(cpu):
		return "recyclable, but not in softirq, so not the alloc cache: into the ptr_ring under spin_lock_bh"
	}
	return "recyclable, the alloc cache is full: into the ptr_ring under the producer spinlock"
}

// notRecyclable is putPage's release of a page canBeRecycled refuses.
func (p *Pool) notRecyclable(cpu int, pg *mm.Page) *mm.Page {
	from := pg.Place
	p.stat(sim.StatRecycleReleasedRefcnt)
	why := "page_ref_count != 1: someone else holds the page, so the pool unmaps it, stops accounting for it and drops its reference"
	if pg.Pfmemalloc() {
		why = "pfmemalloc page (emergency reserve): never recycled, released to the page allocator"
	}
	p.ev(cpu, sim.SymPutPage, pg, from, sim.PlaceDriver, sim.StatRecycleReleasedRefcnt, 0, why)
	p.releasePage(cpu, pg)
	p.a.PutPage(cpu, pg)
	return nil
}

// recycleInCache models page_pool_recycle_in_cache: only when the cache has
// room; cache_full otherwise (the caller then tries the ring). local: the
// pool's page_pool_napi_local allowed it (6.10+), not the caller.
func (p *Pool) recycleInCache(cpu int, pg *mm.Page, local bool) bool {
	if p.alloc.count == AllocCacheSize {
		p.stat(sim.StatRecycleCacheFull)
		p.ev(cpu, sim.SymRecycleInCache, pg, pg.Place, pg.Place, sim.StatRecycleCacheFull, 0,
			"alloc cache full (128 pages): the page goes to the ptr_ring instead")
		return false
	}
	cost := p.m.Charge(cpu, sim.SymRecycleInCache, 0)
	p.touch(cpu)
	from := pg.Place
	// Caller MUST have verified that the page is recyclable (refcnt == 1).
	p.alloc.cache[p.alloc.count] = pg
	p.alloc.from[p.alloc.count] = cacheFromRecycle
	p.alloc.count++
	p.recycled(pg, sim.PlaceCache)
	p.stat(sim.StatRecycleCached)
	why := "direct recycling (allow_direct): the caller runs in the pool's own context, the driver's NAPI poll that allocates from it, so the page goes straight onto the lockless alloc cache"
	switch {
	case p.cpuid == cpu:
		why = "direct recycling (allow_direct): the free runs in softirq on the per-CPU pool's own CPU (pool->cpuid), the only CPU that allocates from it, so the page goes straight onto the lockless alloc cache"
	case local:
		why = "direct recycling: the caller passed allow_direct = false, and page_pool_napi_local (4a96a4e807c3, 6.10) found this CPU in softirq running the pool's NAPI, the context that allocates from it, so the page goes straight onto the lockless alloc cache"
	case !p.softirq(cpu):
		// Only 6.10+ gets here outside softirq (putPage).
		why = "direct recycling (allow_direct) in process context: from 6.10 __page_pool_put_page no longer tests in_softirq() (4a96a4e807c3), the caller that passes allow_direct = true vouches for its context; a caller that cannot race the pool's consumer (as this benchmark's) may, so the page goes onto the lockless alloc cache where 6.9 sent it to the ptr_ring"
	}
	p.ev(cpu, sim.SymRecycleInCache, pg, from, sim.PlaceCache, sim.StatRecycleCached, cost, why)
	return true
}

// recycleInRing models page_pool_recycle_in_ring: produce under the
// producer lock (spin_lock in softirq, spin_lock_bh otherwise).
func (p *Pool) recycleInRing(cpu int, pg *mm.Page) bool {
	cost := p.lockProducer(cpu)
	cost += p.m.Charge(cpu, sim.SymPtrRingProduce, 0)
	from := pg.Place
	if !p.ring.produce(pg) {
		return false
	}
	p.recycled(pg, sim.PlaceRing)
	if p.stopAfterProduce(cpu, pg, 1, false, false) { // producer.go: the UAF window of 271683bb2cf3
		p.ev(cpu, sim.SymRecycleInRing, pg, from, sim.PlaceRing, sim.StatNone, cost,
			p.ringWhy+"; this CPU stops right after __ptr_ring_produce, still holding the producer lock, its ring stat not yet counted")
		return true
	}
	p.stat(sim.StatRecycleRing)
	p.ev(cpu, sim.SymRecycleInRing, pg, from, sim.PlaceRing, sim.StatRecycleRing, cost, p.ringWhy)
	return true
}

// lockProducer charges the producer lock, its _bh variant outside softirq, and
// a cache-line transfer when another CPU produced last.
func (p *Pool) lockProducer(cpu int) int64 {
	cost := p.m.Charge(cpu, sim.SymProducerLock, 0)
	if !p.softirq(cpu) {
		cost += p.m.ChargeExtra(cpu, sim.SymProducerLock, bhCycles)
	}
	if p.lastProd >= 0 && p.lastProd != cpu {
		cost += p.m.ChargeExtra(cpu, sim.SymProducerLock, bounceCycles)
	}
	p.lastProd = cpu
	return cost
}

// PutPageBulk models page_pool_put_page_bulk(pool, data, count) (XDP
// TX completion: xdp_return_frame_bulk → xdp_flush_frame_bulk): every page
// goes through the recycling decision without direct recycling; the
// survivors are produced into the ring under ONE lock. At the first failure
// ring_full is counted once and the rest are released outside the lock.
// data is reused as scratch, as the kernel does.
//
// From 6.10 (39806b96c89a "page_pool: try direct bulk recycling") the call
// asks page_pool_napi_local once and, when local, offers each page to the
// alloc cache first; only what the cache refuses goes to the ring. From
// 6.14 the call is page_pool_put_netmem_bulk and the produce loop
// page_pool_recycle_ring_bulk (fcc680a647ba), whose ring stat follows the
// unlock (Era.BulkStatAfterUnlock).
func (p *Pool) PutPageBulk(cpu int, data []*mm.Page) {
	p.m.Charge(cpu, sim.SymPutPageBulk, len(data))
	allowDirect := p.era.PoolNapiLocal && p.napiLocal(cpu)
	bulkLen := 0
	for _, pg := range data {
		// It is not the last user for the page frag case.
		if !p.lastUser(cpu, pg) {
			continue
		}
		if pg = p.putPage(cpu, pg, -1, allowDirect, allowDirect); pg != nil {
			data[bulkLen] = pg // approved for bulk recycling in ptr_ring cache
			bulkLen++
		}
	}
	if bulkLen == 0 {
		return
	}
	p.lockProducer(cpu)
	i := 0
	for ; i < bulkLen; i++ {
		from := data[i].Place
		if !p.ring.produce(data[i]) {
			p.stat(sim.StatRecycleRingFull) // once per call
			p.ev(cpu, sim.SymPutPageBulk, data[i], from, from, sim.StatRecycleRingFull, 0,
				"ptr_ring full during a bulk put: counted once for the call; the rest are released after the lock")
			break
		}
		p.m.Charge(cpu, sim.SymPtrRingProduce, 0)
		p.recycled(data[i], sim.PlaceRing)
		p.ev(cpu, sim.SymPutPageBulk, data[i], from, sim.PlaceRing, sim.StatRecycleRing, 0,
			"bulk put: produced into the ptr_ring under a single producer lock (ring += i after the loop)")
	}
	// Up to 6.13 recycle_stat_add(pool, ring, i) comes before
	// page_pool_producer_unlock, inside the lock; from 6.14
	// (page_pool_recycle_ring_bulk) after it, outside. A producer stopped
	// here (producer.go; only when every page went into the ring, so no
	// leftover keeps the pool alive) is inside the lock before 6.14 — the
	// window 271683bb2cf3's barrier closes in 6.16, as for
	// page_pool_recycle_in_ring — and outside it from 6.14: the race
	// bdea4980182e fixes in 7.3, after every era.
	unlocked := p.era.BulkStatAfterUnlock
	if i > 0 && i == bulkLen && p.stopAfterProduce(cpu, data[i-1], i, true, unlocked) {
		if p.m.Tracing() {
			why := "this CPU stops right after its last __ptr_ring_produce, still holding the producer lock: recycle_stat_add(pool, ring, i) and page_pool_producer_unlock are still to come (page_pool_put_page_bulk counts its ring stat inside the lock before 6.14)"
			if unlocked {
				why = "this CPU stops after page_pool_producer_unlock, before recycle_stat_add(pool, ring, i): out of the lock, but its ring stat is still to be written into the pool (page_pool_recycle_ring_bulk, 6.14 on)"
			}
			p.evSlow(cpu, sim.SymPutPageBulk, data[i-1], sim.PlaceRing, sim.PlaceRing, sim.StatNone, 0, why)
		}
	} else {
		p.statAdd(sim.StatRecycleRing, uint64(i))
	}
	// ptr_ring cache full, free the remaining pages outside the producer lock
	// since put_page() with refcnt == 1 can be an expensive operation.
	for ; i < bulkLen; i++ {
		p.returnPage(cpu, data[i])
	}
}

// ReleasePage models page_pool_release_page, the driver API: the page leaves
// the pool for good but stays with the caller. Drivers called it when they
// built an skb before skb recycling (5.12, 5.13). The API was removed in v6.6
// (net-next, July 2023): in eras without it this is an error.
func (p *Pool) ReleasePage(cpu int, pg *mm.Page) error {
	if p.era.NoReleasePageAPI {
		return fmt.Errorf("page_pool_release_page: no such function in era %s (removed in v6.6; drivers mark skbs for recycling)", p.era.Name)
	}
	p.releasePage(cpu, pg)
	return nil
}

// releasePage is the pool's release of a page (page_pool_release_page before
// v6.6, the first half of page_pool_return_page after): DMA unmap, clear the
// pool's marks, count the release (trace_page_pool_state_release).
func (p *Pool) releasePage(cpu int, pg *mm.Page) {
	p.m.Charge(cpu, sim.SymReleasePage, 0)
	// DMA unmap (dma_unmap_page_attrs with DMA_ATTR_SKIP_CPU_SYNC); from
	// 6.16 only by the winner of the page's dma_mapped slot.
	p.unmapNetmemDMA(cpu, pg)
	pg.SetDMAIndex(0) // netmem_set_dma_index(netmem, 0) (6.16; no index before)
	p.clearPPInfo(pg)
	// This may be the last page returned, releasing the pool, so it is not
	// safe to reference pool afterwards.
	p.releaseCnt++
	if pg.Owner == p.ID {
		pg.Owner = 0
	}
	if p.m.Tracing() {
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvStateRelease, Func: p.releaseTraceFunc(), Pool: p.ID, Page: pg.PFN, NetIov: pg.NetIov, Release: p.releaseCnt, Stat: sim.StatNone})
	}
}

// releaseTraceFunc is the function trace_page_pool_state_release fires in:
// page_pool_release_page while that function exists (up to v6.5); from
// v6.6, where the release is an inline helper (__page_pool_release_page_dma),
// page_pool_return_page, named page_pool_return_netmem from v6.17.
func (p *Pool) releaseTraceFunc() sim.Sym {
	if p.era.NoReleasePageAPI {
		return sim.SymReturnPage
	}
	return sim.SymReleasePage
}

// returnPage models page_pool_return_page: release and drop the pool's
// reference, so the page goes back to the page allocator.
func (p *Pool) returnPage(cpu int, pg *mm.Page) {
	p.m.Charge(cpu, sim.SymReturnPage, 0)
	if p.mp != nil { // a provider pool holds net_iovs only: mp_ops->release_netmem, no put_page
		p.mpReleaseNetmem(cpu, pg)
		return
	}
	p.releasePage(cpu, pg)
	pg.MoveTo(p.m, sim.PlaceDriver, -1) // out of the pool's containers before put_page
	p.a.PutPage(cpu, pg)
}
