package pagepool

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Destroy models page_pool_destroy: drop a user reference; on the last one,
// unlink the NAPI (6.4+), free the frag page, and release what the pool holds.
// If pages are still in flight (in sockets, in the driver…), the pool lives on:
// page_pool_release_retry runs every second (DEFER_TIME) and warns every 60 s
// (DEFER_WARN_INTERVAL) until the last page comes back. The retry is work
// queued from the destroying CPU (schedule_delayed_work: the timer and the
// work run there), and it requeues itself from there: every retry runs on
// cpu.
func (p *Pool) Destroy(cpu int) {
	p.m.Charge(cpu, sim.SymPoolDestroy, 0)
	if p.destroyed {
		return
	}
	p.userCnt--
	if p.userCnt > 0 {
		return
	}
	p.destroyed = true
	p.disableDirectRecycling()
	p.freeFrag(cpu)
	if p.release(cpu) == 0 {
		return
	}
	now := p.m.NowPS()
	p.deferStartPS = now
	p.deferWarnPS = now + DeferWarnNS*sim.PSPerNS
	p.m.After(DeferTimeNS, releaseRetryTimer{p, cpu})
}

// disableDirectRecycling models page_pool_unlink_napi (v6.4), renamed
// page_pool_disable_direct_recycling by 56ef27e3abe6 ("page_pool: disable
// direct recycling based on pool->cpuid on destroy", v6.9), which first sets
// pool->cpuid = -1: the alloc cache is emptied only once at destroy, so no
// later free may recycle into it by the cpuid test either.
func (p *Pool) disableDirectRecycling() {
	if p.era.SystemPool {
		p.cpuid = -1 // WRITE_ONCE(pool->cpuid, -1)
	}
	if p.era.NAPIDirect {
		p.P.NAPI = nil // no more direct recycling from skb frees
	}
}

// UnregMemModel models xdp_rxq_info_unreg_mem_model: drops the user reference
// RegMemModel took (page_pool_destroy via the mem model's disconnect).
func (p *Pool) UnregMemModel(cpu int) { p.Destroy(cpu) }

// release models page_pool_release: scrub, compute inflight, free the pool when
// nothing is in flight. Returns inflight.
func (p *Pool) release(cpu int) int32 {
	p.m.Charge(cpu, sim.SymPoolRelease, 0)
	p.scrub(cpu)
	inflight := p.Inflight()
	if p.m.Tracing() {
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvPoolRelease, Func: sim.SymPoolRelease, Pool: p.ID, Page: -1,
			Inflight: inflight, Hold: p.holdCnt, Release: p.releaseCnt, DestroyCnt: p.destroyCnt, Stat: sim.StatNone})
	}
	if inflight < 0 && p.m.Tracing() {
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymPoolRelease, Pool: p.ID, Page: -1, Stat: sim.StatNone,
			Why: fmt.Sprintf("WARN: Negative(%d) inflight packet-pages", inflight)})
	}
	p.releaseBarrier(cpu) // 6.16: take and release the producer lock: no producer still in the ring (producer.go)
	if inflight == 0 {
		p.freed = true // page_pool_free: disconnect, ptr_ring_cleanup, kfree
	}
	return inflight
}

// scrub models page_pool_scrub: empty the alloc cache once (the first
// release), from 6.16 then turn dma_sync off and unmap every page still in
// dma_mapped (scrubDMA, once, on a pool that maps), then the ring. A ringed
// page with refcnt != 1 gets pr_crit.
func (p *Pool) scrub(cpu int) {
	first := p.destroyCnt == 0
	if first { // page_pool_empty_alloc_cache_once
		for pg := p.popCache(); pg != nil; pg = p.popCache() {
			p.returnPage(cpu, pg)
		}
	}
	p.destroyCnt++
	if first && p.era.DMATracking && p.P.Flags&FlagDMAMap != 0 { // if (!pool->destroy_cnt++ && pool->dma_map)
		p.scrubDMA(cpu)
	}
	// No more consumers should exist, but producers could still be in flight.
	for {
		pg := p.ring.consume()
		if pg == nil {
			break
		}
		if pg.Ref != 1 && p.m.Tracing() {
			p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymPoolRelease, Pool: p.ID, Page: pg.PFN, Stat: sim.StatNone,
				Why: fmt.Sprintf("pr_crit: page_pool refcnt %d violation", pg.Ref)})
		}
		p.returnPage(cpu, pg)
	}
}

// releaseRetry models page_pool_release_retry, the deferred work, on the
// CPU page_pool_destroy queued it from.
func (p *Pool) releaseRetry(cpu int) {
	p.m.Begin(cpu, sim.SymReleaseRetry)
	p.m.Charge(cpu, sim.SymReleaseRetry, 0)
	inflight := p.release(cpu)
	if inflight == 0 || (inflight < 0 && p.era.RetryStopsNegative) {
		return
	}
	// Periodic warning; from 6.8 only for a pool the user cannot see in
	// netlink ("net: page_pool: mute the periodic warning for visible page
	// pools": `!netdev || netdev == NET_PTR_POISON`; a pool whose netdev
	// unregistered is on lo, still visible), with its id.
	now := p.m.NowPS()
	visible := p.era.PoolNetlink && p.P.Netdev
	if now >= p.deferWarnPS && !visible {
		sec := (now - p.deferStartPS) / (1_000_000_000 * sim.PSPerNS)
		p.Warnings++
		if p.m.Tracing() {
			msg := fmt.Sprintf("page_pool_release_retry() stalled pool shutdown %d inflight %d sec", inflight, sec)
			if p.era.PoolNetlink {
				msg = fmt.Sprintf("page_pool_release_retry() stalled pool shutdown: id %d, %d inflight %d sec", p.UserID, inflight, sec)
			}
			p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymReleaseRetry, Pool: p.ID, Page: -1, Stat: sim.StatNone, Why: msg})
		}
		p.deferWarnPS = now + DeferWarnNS*sim.PSPerNS
	}
	// Still not ready to be disconnected, retry later.
	p.m.After(DeferTimeNS, releaseRetryTimer{p, cpu})
}

// UpdateNid models page_pool_update_nid: set the preferred node and flush the
// alloc cache (refill would now waive those pages anyway). The ring is not
// flushed: its pages are waived one refill at a time. Runs in NAPI context.
func (p *Pool) UpdateNid(cpu int, nid int) {
	p.m.Charge(cpu, sim.SymUpdateNid, 0)
	if p.m.Tracing() {
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvUpdateNid, Func: sim.SymUpdateNid, Pool: p.ID, Page: -1, Nid: int32(p.P.Nid), NewNid: int32(nid), Stat: sim.StatNone})
	}
	p.P.Nid = nid
	// Flush pool alloc cache, as refill will check NUMA node.
	for pg := p.popCache(); pg != nil; pg = p.popCache() {
		p.returnPage(cpu, pg)
	}
}

// NidChanged models page_pool_nid_changed: update only when the node differs.
func (p *Pool) NidChanged(cpu int, newNid int) {
	if p.P.Nid != newNid {
		p.UpdateNid(cpu, newNid)
	}
}

// isContainer reports whether pg sits in this pool's alloc cache or ptr_ring.
func (p *Pool) isContainer(pg *mm.Page) bool {
	return (pg.Place == sim.PlaceCache || pg.Place == sim.PlaceRing) && pg.Holder == p.ID
}

// releaseRetryTimer is the pool's release_dw delayed work
// (page_pool_release_retry) queued on cpu, as a value the machine can hold.
type releaseRetryTimer struct {
	p   *Pool
	cpu int
}

func (t releaseRetryTimer) Fire() { t.p.releaseRetry(t.cpu) }
