package pagepool

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// This file models the window the 2025 use-after-free fix closes
// (271683bb2cf3 "page_pool: Fix use-after-free in page_pool_recycle_in_ring",
// Dong Chenchen, <20250527114152.3119109-1-dongchenchen2@huawei.com>, v6.16,
// CVE-2025-38129; docs/eras-after-6.8.md §7.1): CPU A in
// page_pool_recycle_in_ring has produced a destroyed pool's last page into
// the ring and not yet dropped the producer lock (nor counted its stat);
// CPU B in page_pool_release empties the ring, finds inflight 0 and frees
// the pool; A then unlocks and counts in freed memory.
//
// The model runs one operation at a time, so the window is explicit: a
// caller arms it (PreemptRecycleInRing), the next ring produce on the pool
// stops right after __ptr_ring_produce, and ResumeRecycleInRing runs the
// rest of that CPU's critical section as a later operation. Whatever runs in
// between (the release retry) meets a producer inside the lock.

// ringProducer is a producer stopped inside its critical section.
type ringProducer struct {
	armed  bool     // the next produce stops after __ptr_ring_produce
	active bool     // a producer is inside: produced, not yet unlocked
	bulk   bool     // page_pool_recycle_ring_bulk: stopped after the unlock, before recycle_stat_add
	cpu    int      // its CPU
	pg     *mm.Page // the page it produced (the last of a bulk)
	n      int      // pages it produced, whose ring stat is still to count
}

// PreemptRecycleInRing arms the window: the next page produced into this
// pool's ring (page_pool_recycle_in_ring, or page_pool_put_page_bulk) stops
// after __ptr_ring_produce until ResumeRecycleInRing — the CPU is
// interrupted inside its critical section (an IRQ, a preemption on
// PREEMPT_RT, a long stall) while others run.
func (p *Pool) PreemptRecycleInRing() {
	if p.producer.armed || p.producer.active {
		panic("pagepool: PreemptRecycleInRing while a producer window is already armed or open")
	}
	p.producer.armed = true
}

// InRingProducer reports whether a producer is stopped in the window.
func (p *Pool) InRingProducer() bool { return p.producer.active }

// stopAfterProduce opens the window if it is armed: the producer on cpu has
// produced pg (n pages) and stops before the rest of its critical section.
func (p *Pool) stopAfterProduce(cpu int, pg *mm.Page, n int, bulk bool) bool {
	if !p.producer.armed {
		return false
	}
	p.producer = ringProducer{active: true, bulk: bulk, cpu: cpu, pg: pg, n: n}
	return true
}

// ResumeRecycleInRing runs the rest of the stopped producer's critical
// section on its CPU: page_pool_producer_unlock and recycle_stat_inc(pool,
// ring) (6.16 counts the stat inside the lock, before the unlock; before,
// after it) — or, for a bulk put, the recycle_stat_add after the unlock. A
// producer the release's barrier already waited for has nothing left to do.
// If the pool was freed meanwhile, both touch freed memory:
// pool-use-after-free.
func (p *Pool) ResumeRecycleInRing() {
	if !p.producer.active {
		p.producer.armed = false // the window never opened (the put did not reach the ring) or the barrier closed it
		return
	}
	pr := p.producer
	p.producer = ringProducer{}
	if p.freed {
		k := sim.KindPoolUseAfterFree
		what := "spin_unlock(&pool->ring.producer_lock) and recycle_stat_inc(pool, ring)"
		if pr.bulk {
			what = "recycle_stat_add(pool, ring, i) after page_pool_producer_unlock (page_pool_recycle_ring_bulk; unfixed until bdea4980182e, 7.3)"
		}
		pfn := int32(-1)
		if pr.pg != nil {
			pfn = pr.pg.PFN
		}
		p.m.Report(k, pfn, p.m.RuleFor(k), "cpu%d finishes producing into pool %d's ptr_ring: %s write into the pool page_pool_release already freed", pr.cpu, p.ID, what)
		if p.m.Tracing() {
			p.m.Emit(sim.Event{CPU: pr.cpu, Kind: sim.EvCall, Func: sim.SymRecycleInRing, Pool: p.ID, Page: pfn, Stat: sim.StatNone,
				Why: "the producer leaves its critical section, but page_pool_release freed the pool while it was inside: the unlock and the ring stat write into freed memory (the use-after-free 271683bb2cf3 fixed in 6.16 for page_pool_recycle_in_ring)"})
		}
		return
	}
	p.finishProduce(pr)
}

// finishProduce is the producer's unlock and ring stat.
func (p *Pool) finishProduce(pr ringProducer) {
	p.statAdd(sim.StatRecycleRing, uint64(pr.n))
	if p.m.Tracing() {
		pfn := int32(-1)
		if pr.pg != nil {
			pfn = pr.pg.PFN
		}
		p.m.Emit(sim.Event{CPU: pr.cpu, Kind: sim.EvCall, Func: sim.SymRecycleInRing, Pool: p.ID, Page: pfn, Stat: sim.StatRecycleRing,
			Why: "the producer counts its ring stat and drops the producer lock: the pool is still alive"})
	}
}

// releaseBarrier models the producer-lock barrier 271683bb2cf3 added to
// page_pool_release before it frees the pool:
//
//	/* Acquire producer lock to make sure producers have exited. */
//	in_softirq = page_pool_producer_lock(pool);
//	page_pool_producer_unlock(pool, in_softirq);
//
// A producer inside the lock makes the release wait for it: the model runs
// the producer's unlock and stat first. Before 6.16 there is no barrier;
// release-producer-barrier broken removes it. A bulk producer stopped after
// its unlock is not waited for in any era (the race bdea4980182e fixes in
// 7.3, §7.2).
func (p *Pool) releaseBarrier(cpu int) {
	if !p.m.Era.ReleaseProducerBarrier {
		return
	}
	inside := p.producer.active && !p.producer.bulk
	if p.m.Rules.Broken(sim.RuleReleaseProducerBarrier) {
		if inside {
			p.m.Decide(sim.RuleReleaseProducerBarrier) // the barrier would have waited for it
		}
		return
	}
	cost := p.lockProducer(cpu)
	if !inside {
		return
	}
	pr := p.producer
	p.producer = ringProducer{}
	if p.m.Tracing() {
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvCall, Func: sim.SymPoolRelease, Pool: p.ID, Page: -1, CostPS: cost, Stat: sim.StatNone,
			Why: "page_pool_release takes the ring's producer lock before freeing the pool: it spins until the CPU still inside page_pool_recycle_in_ring has counted its stat and unlocked (271683bb2cf3, 6.16)"})
	}
	p.finishProduce(pr)
}
