package pagepool

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Pool-level conditions reported once while they persist.
const (
	condInflight uint16 = 1 << iota
	condCacheRace
	condStalled
	condRing
)

// CheckInvariants re-checks the pool after an operation:
//
//   - every page in the alloc cache and the ptr_ring is recorded there, once;
//   - it is this pool's page (else foreign-page-in-pool), nobody else holds a
//     reference (page_ref_count == 1, else use-after-recycle), no fragment user
//     remains (pp_frag_count/pp_ref_count <= 1, else use-after-recycle), and it
//     is not a reserve page (else reserve-page-retained);
//   - inflight = hold - release equals the pages the pool answers for: those it
//     holds plus those out with drivers, skbs, sockets… (pages lost to the page
//     allocator without a release are an inflight-leak);
//   - the lockless alloc cache was touched by one CPU only (else cache-race);
//   - page_pool_alloc_pages did not return NULL with pages in the cache;
//   - a destroyed pool whose remaining pages can never come back is a
//     stalled-shutdown.
func (p *Pool) CheckInvariants(m *sim.Machine) {
	if p.freed {
		return
	}
	p.checkContainers(m)
	p.checkAccounting(m)
	p.checkPool(m)
}

// CheckTouched is the light check: the pool-level conditions, which stay
// recorded until checked (CPUs that touched the cache, a NULL allocation with
// pages cached). Each recycled page was checked when it entered the pool.
func (p *Pool) CheckTouched(m *sim.Machine) {
	if !p.freed {
		p.checkPool(m)
	}
}

func (p *Pool) checkPool(m *sim.Machine) {
	// cache-race: the lockless alloc cache must only be touched by its consumer.
	if p.touched&^(1<<uint(max(p.consumer, 0))) != 0 {
		if p.reported&condCacheRace == 0 {
			p.reported |= condCacheRace
			m.Report(sim.KindCacheRace, -1, m.RuleFor(sim.KindCacheRace),
				"pool %d's lockless alloc cache was touched by CPUs %#b, but it belongs to cpu%d's NAPI", p.ID, p.touched, p.consumer)
		}
	} else {
		p.reported &^= condCacheRace
	}
	p.touched = 0

	if p.nilWithCache > 0 {
		m.Report(sim.KindAllocFailureWithCache, -1, m.RuleFor(sim.KindAllocFailureWithCache),
			"page_pool_alloc_pages returned NULL while %d pages sat in the alloc cache", p.nilWithCache)
		p.nilWithCache = 0
	}
}

func (p *Pool) checkContainers(m *sim.Machine) {
	// A page present twice in the containers is a double recycle. Mark pages
	// seen through a scratch bit of Reported that no kind uses.
	const seenBit = 1 << 15
	dup := func(pg *mm.Page) bool {
		if pg.Reported&seenBit != 0 {
			pg.ReportOnce(m, sim.KindDoubleRecycle, m.RuleFor(sim.KindDoubleRecycle),
				"page sits in pool %d's cache/ring twice: it was recycled twice", p.ID)
			return true
		}
		pg.Reported |= seenBit
		return false
	}
	for i := 0; i < p.alloc.count; i++ {
		pg := p.alloc.cache[i]
		if pg == nil {
			m.Report(sim.KindPageInTwoPlaces, -1, sim.RuleNone, "pool %d: alloc cache slot %d below count %d is empty", p.ID, i, p.alloc.count)
			continue
		}
		if !dup(pg) {
			p.checkPage(m, pg, sim.PlaceCache)
		}
	}
	p.ring.forEach(func(pg *mm.Page) {
		if pg == nil {
			return
		}
		if !dup(pg) {
			p.checkPage(m, pg, sim.PlaceRing)
		}
	})
	for i := 0; i < p.alloc.count; i++ {
		if pg := p.alloc.cache[i]; pg != nil {
			pg.Reported &^= seenBit
		}
	}
	p.ring.forEach(func(pg *mm.Page) {
		if pg != nil {
			pg.Reported &^= seenBit
		}
	})
	// The ring's own bookkeeping: live entries are non-NULL, the producer slot
	// of a non-full ring is free.
	bad := false
	n := 0
	p.ring.forEach(func(pg *mm.Page) {
		n++
		if pg == nil {
			bad = true
		}
	})
	if bad || n != p.ring.live || p.ring.live > p.ring.size() {
		if p.reported&condRing == 0 {
			p.reported |= condRing
			m.Report(sim.KindPageInTwoPlaces, -1, sim.RuleNone, "pool %d: ptr_ring bookkeeping broken (live %d)", p.ID, p.ring.live)
		}
	}
}

func (p *Pool) checkAccounting(m *sim.Machine) {
	var answered, canReturn, stuck, lost int64
	if t, ok := p.a.ScannedOwned(p.ID); ok {
		// The allocator's scan in this full check counted the pool's pages
		// (walkOwned's counts, without reading the page array again).
		answered, canReturn, lost = t.Cache+t.Ring+t.Other, t.Ring+t.Other, t.Lost
		if p.destroyed && p.destroyCnt > 0 {
			stuck = t.Cache
		}
	} else {
		answered, canReturn, stuck, lost = p.walkOwned()
	}
	lost += p.a.LeakedFor(p.ID)
	inflight := int64(p.Inflight())
	if inflight != answered+lost {
		if p.reported&condInflight == 0 {
			p.reported |= condInflight
			kind := sim.KindInflightLeak
			if inflight < answered+lost {
				kind = sim.KindForeignPageInPool // the pool released pages it never held
			}
			m.Report(kind, -1, m.RuleFor(kind),
				"pool %d: inflight (hold %d - release %d = %d) differs from the %d pages it answers for (+%d lost)",
				p.ID, p.holdCnt, p.releaseCnt, inflight, answered, lost)
		}
	} else {
		p.reported &^= condInflight
	}
	if p.destroyed && inflight > 0 && canReturn == 0 {
		if p.reported&condStalled == 0 {
			p.reported |= condStalled
			m.Report(sim.KindStalledShutdown, -1, m.RuleFor(sim.KindStalledShutdown),
				"pool %d is destroyed with %d pages in flight that can never come back (%d lost, %d stuck in the alloc cache)", p.ID, inflight, lost, stuck)
		}
	}
}

// walkOwned counts the pages the pool owns (Page.Owner) in the page
// array (the pages written out: mm.Allocator.Ready): the ones it answers for, the ones the next release retry can get
// back, the ones stuck in its alloc cache after destroy, the ones lost to
// the page allocator.
func (p *Pool) walkOwned() (answered, canReturn, stuck, lost int64) {
	pages := p.a.Ready() // a page past them never left the page allocator: no pool owns it
	for i := range pages {
		pg := &pages[i]
		if pg.Owner != p.ID {
			continue
		}
		switch {
		case pg.Place == sim.PlaceBuddy:
			lost++ // freed without a release; the allocator's checker names it (inflight-leak)
		case p.isContainer(pg):
			answered++
			if pg.Place == sim.PlaceRing {
				canReturn++ // the next release retry drains the ring
			} else if p.destroyed && p.destroyCnt > 0 {
				stuck++ // the cache is emptied only once: a page recycled into it after destroy never leaves
			}
		default:
			answered++
			canReturn++
		}
	}
	return answered, canReturn, stuck, lost
}

// checkPage checks one page the pool holds in where.
func (p *Pool) checkPage(m *sim.Machine, pg *mm.Page, where sim.Place) {
	if pg.Place != where || pg.Holder != p.ID {
		if pg.Place == sim.PlaceCache || pg.Place == sim.PlaceRing {
			pg.ReportOnce(m, sim.KindDoubleRecycle, m.RuleFor(sim.KindDoubleRecycle),
				"page is in pool %d's %s and also recorded in %s", p.ID, where, pg.Place)
		} else {
			pg.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone,
				"page is in pool %d's %s but recorded as %s", p.ID, where, pg.Place)
		}
		return
	}
	if pg.Owner != p.ID {
		pg.ReportOnce(m, sim.KindForeignPageInPool, m.RuleFor(sim.KindForeignPageInPool),
			"pool %d's %s holds a page it never allocated (owner %d)", p.ID, where, pg.Owner)
	}
	if pg.Users > 0 {
		pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
			"recycled into pool %d's %s while %d users (skbs, NIC descriptors) still reference it: the NIC will overwrite live data", p.ID, where, pg.Users)
	}
	if pg.Ref != 1 {
		pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
			"recycled into pool %d's %s with page_ref_count %d: someone still uses it and the NIC will overwrite it", p.ID, where, pg.Ref)
	}
	if pg.FragCount > 1 {
		if pg == p.fragPage {
			pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
				"recycled into pool %d's %s while it is still the frag page: %d fragments are out and more will be carved from it", p.ID, where, p.fragUsers)
		} else {
			pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
				"recycled into pool %d's %s while %d other fragment users still hold it", p.ID, where, pg.FragCount-1)
		}
	}
	if pg.Pfmemalloc() && pg.Recycles > 0 { // fresh reserve pages from the allocator may wait in the cache; recycled ones may not
		pg.ReportOnce(m, sim.KindReservePageRetained, m.RuleFor(sim.KindReservePageRetained),
			"pool %d's %s keeps a pfmemalloc (emergency reserve) page", p.ID, where)
	}
}
