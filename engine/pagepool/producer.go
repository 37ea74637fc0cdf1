package pagepool

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// This file models the windows two use-after-free fixes close, a destroyed
// pool freed under a CPU still producing into its ring
// (docs/eras-after-6.8.md §7):
//
//   - page_pool_recycle_in_ring (271683bb2cf3 "page_pool: Fix
//     use-after-free in page_pool_recycle_in_ring", Dong Chenchen,
//     <20250527114152.3119109-1-dongchenchen2@huawei.com>, v6.16,
//     CVE-2025-38129; §7.1): CPU A has produced the pool's last page into
//     the ring and not yet dropped the producer lock (nor counted its
//     stat); CPU B in page_pool_release empties the ring, finds inflight 0
//     and frees the pool; A then unlocks and counts in freed memory. The
//     fix makes page_pool_release take and drop the producer lock first.
//   - the bulk put (§7.2): page_pool_put_page_bulk up to 6.13 counts its
//     ring stat inside the lock, so a CPU stopped after its last produce
//     is in the same window as above; from 6.14 the produce loop is
//     page_pool_recycle_ring_bulk (fcc680a647ba), whose recycle_stat_add
//     follows page_pool_producer_unlock: a CPU stopped between the two is
//     out of the lock, the 6.16 barrier does not wait for it, and its stat
//     lands in freed memory until bdea4980182e (the 7.3 era: the stat
//     before the unlock again).
//
// The model runs one operation at a time, so the window is explicit: a
// caller arms it (PreemptRecycleInRing), the next ring produce on the pool
// stops right after __ptr_ring_produce (a bulk put: its last one; after the
// unlock from 6.14) and ResumeRecycleInRing runs the rest of that CPU's
// section as a later operation. Whatever runs in between (the release
// retry) meets a producer inside the lock, or just out of it.

// ringProducer is a producer stopped inside its critical section, or (a
// bulk put from 6.14) between its unlock and its ring stat.
type ringProducer struct {
	armed    bool     // the next produce stops after __ptr_ring_produce
	active   bool     // a producer is stopped: produced, its ring stat not yet counted
	bulk     bool     // a bulk put (page_pool_put_page_bulk / page_pool_recycle_ring_bulk), not page_pool_recycle_in_ring
	unlocked bool     // stopped after page_pool_producer_unlock (the bulk put from 6.14), not inside the lock
	cpu      int      // its CPU
	pg       *mm.Page // the page it produced (the last of a bulk)
	n        int      // pages it produced, whose ring stat is still to count
}

// PreemptRecycleInRing arms the window: the next page produced into this
// pool's ring (page_pool_recycle_in_ring, or the last page of a
// page_pool_put_page_bulk) stops after __ptr_ring_produce until
// ResumeRecycleInRing — the CPU is interrupted in its critical section (an
// IRQ, a preemption on PREEMPT_RT, a long stall) while others run.
func (p *Pool) PreemptRecycleInRing() {
	if p.producer.armed || p.producer.active {
		panic("pagepool: PreemptRecycleInRing while a producer window is already armed or open")
	}
	p.producer.armed = true
}

// InRingProducer reports whether a producer is stopped in the window.
func (p *Pool) InRingProducer() bool { return p.producer.active }

// RingProducerUnlocked reports whether the stopped producer already dropped
// the producer lock (a bulk put from 6.14: only its ring stat is left).
func (p *Pool) RingProducerUnlocked() bool { return p.producer.active && p.producer.unlocked }

// stopAfterProduce opens the window if it is armed: the producer on cpu has
// produced pg (n pages; bulk: a bulk put's last) and stops before the rest
// of its section — inside the producer lock, or (unlocked) after it.
func (p *Pool) stopAfterProduce(cpu int, pg *mm.Page, n int, bulk, unlocked bool) bool {
	if !p.producer.armed {
		return false
	}
	p.producer = ringProducer{active: true, bulk: bulk, unlocked: unlocked, cpu: cpu, pg: pg, n: n}
	return true
}

// ResumeRecycleInRing runs the rest of the stopped producer's section on its
// CPU: page_pool_recycle_in_ring's page_pool_producer_unlock and
// recycle_stat_inc(pool, ring) (6.16 counts the stat inside the lock,
// before the unlock; before, after it); page_pool_put_page_bulk's
// recycle_stat_add(pool, ring, i) and unlock (up to 6.13); or, for
// page_pool_recycle_ring_bulk from 6.14, the recycle_stat_add after the
// unlock. A producer the release's barrier already waited for has nothing
// left to do. If the pool was freed meanwhile, what is left touches freed
// memory: pool-use-after-free.
func (p *Pool) ResumeRecycleInRing() {
	if !p.producer.active {
		p.producer.armed = false // the window never opened (the put did not reach the ring) or the barrier closed it
		return
	}
	pr := p.producer
	p.producer = ringProducer{}
	if p.freed {
		k := sim.KindPoolUseAfterFree
		what, fn := "spin_unlock(&pool->ring.producer_lock) and recycle_stat_inc(pool, ring)", sim.SymRecycleInRing
		why := "the producer leaves its critical section, but page_pool_release freed the pool while it was inside: the unlock and the ring stat write into freed memory (the use-after-free 271683bb2cf3 fixed in 6.16 for page_pool_recycle_in_ring)"
		switch {
		case pr.unlocked:
			what, fn = "recycle_stat_add(pool, ring, i) after page_pool_producer_unlock (page_pool_recycle_ring_bulk from 6.14 to 7.2; bdea4980182e, 7.3, counts it before the unlock)", sim.SymPutPageBulk
			why = "the bulk producer, already out of the producer lock, counts its ring stat, but page_pool_release freed the pool meanwhile: the stat writes into freed memory; 6.16's barrier only waits for a producer that still holds the lock (bdea4980182e fixes page_pool_recycle_ring_bulk in 7.3)"
		case pr.bulk:
			what, fn = "recycle_stat_add(pool, ring, i) and page_pool_producer_unlock (page_pool_put_page_bulk counts inside the lock before 6.14)", sim.SymPutPageBulk
			why = "the bulk producer leaves its critical section, but page_pool_release freed the pool while it was inside: its ring stat and the unlock write into freed memory (a barrier on the producer lock, 271683bb2cf3 in 6.16, would have waited for it)"
		}
		pfn := int32(-1)
		if pr.pg != nil {
			pfn = pr.pg.PFN
		}
		p.m.Report(k, pfn, p.m.RuleFor(k), "cpu%d finishes producing into pool %d's ptr_ring: %s write into the pool page_pool_release already freed", pr.cpu, p.ID, what)
		if p.m.Tracing() {
			p.m.Emit(sim.Event{CPU: pr.cpu, Kind: sim.EvCall, Func: fn, Pool: p.ID, Page: pfn, Stat: sim.StatNone, Why: why})
		}
		return
	}
	p.finishProduce(pr)
}

// finishProduce is the producer's unlock and ring stat (a bulk put from
// 6.14: the stat alone, its unlock came first).
func (p *Pool) finishProduce(pr ringProducer) {
	p.statAdd(sim.StatRecycleRing, uint64(pr.n))
	if p.m.Tracing() {
		pfn := int32(-1)
		if pr.pg != nil {
			pfn = pr.pg.PFN
		}
		fn, why := sim.SymRecycleInRing, "the producer counts its ring stat and drops the producer lock: the pool is still alive"
		switch {
		case pr.unlocked:
			fn, why = sim.SymPutPageBulk, "the bulk producer, out of the lock since its unlock, counts its ring stat: the pool is still alive"
		case pr.bulk:
			fn = sim.SymPutPageBulk
		}
		p.m.Emit(sim.Event{CPU: pr.cpu, Kind: sim.EvCall, Func: fn, Pool: p.ID, Page: pfn, Stat: sim.StatRecycleRing, Why: why})
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
// its unlock (from 6.14) is not waited for in any era (the race
// bdea4980182e fixes in 7.3, §7.2); one stopped inside the lock (up to 6.13:
// a stable kernel that carries the barrier back) is.
func (p *Pool) releaseBarrier(cpu int) {
	if !p.era.ReleaseProducerBarrier {
		return
	}
	inside := p.producer.active && !p.producer.unlocked
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
		where := "page_pool_recycle_in_ring"
		if pr.bulk {
			where = "page_pool_put_page_bulk"
		}
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvCall, Func: sim.SymPoolRelease, Pool: p.ID, Page: -1, CostPS: cost, Stat: sim.StatNone,
			Why: "page_pool_release takes the ring's producer lock before freeing the pool: it spins until the CPU still inside " + where + " has counted its stat and unlocked (271683bb2cf3, 6.16)"})
	}
	p.finishProduce(pr)
}
