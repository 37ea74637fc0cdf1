package pagepool

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// This file is the pool's only seam towards sk_buffs: marking a page with its
// pool, and page_pool_return_skb_page, which the skb free path calls for every
// head and frag of an skb with pp_recycle set.

// StoreMemInfo models page_pool_store_mem_info(page, pp) (v5.14): the driver
// records the pool in page->pp (skb_mark_for_recycle does it for the head,
// this for every frag). From v5.15 page->pp is set at allocation and this is a
// no-op.
func (p *Pool) StoreMemInfo(pg *mm.Page) {
	if p.era.SkbRecycle == sim.SkbRecycleMerged && !p.era.PPSetAtAlloc {
		pg.PP = p.ID
	}
}

// StoreXDPMemInfo is the rfc-v1 form: the xdp_mem_info (type, id) of the pool's
// registered memory model goes into page->private.
func (p *Pool) StoreXDPMemInfo(pg *mm.Page) {
	pg.Private = MemInfo(MemTypePagePool, p.memID)
}

// ReturnSkbPage models page_pool_return_skb_page(page[, napi_safe]): called by
// the skb free path for a page of an skb marked pp_recycle. It returns false
// when the page is not a page_pool page, and the caller then put_page()s it.
//
// Per era:
//   - rfc-v1: check page->signature, read the xdp_mem_info from page->private,
//     clear page->private and return through __xdp_return (RFC v1, 22 Mar
//     2021); a mem type that is not page_pool — a foreign page, or a page
//     returned a second time, whose private was cleared by the first return —
//     gets a one-time WARN and the page is put_page()d — its DMA mapping, if
//     any, is not unmapped, and a page the pool holds loses its reference;
//   - 5.14+: check (pp_magic & ~0x3) == PP_SIGNATURE, pool = page->pp; 5.14
//     clears page->pp ("Reset it on recycle");
//   - up to 6.3 the put never recycles directly (allow_direct = false); from 6.4
//     allow_direct = napi_safe && pool->p.napi && napi->list_owner == this CPU;
//     6.6 admits in_softirq() beside napi_safe; 6.9 adds pool->cpuid == this
//     CPU (2b0cfa6e4956); 6.10 passes false and lets the pool decide
//     (4a96a4e807c3, page_pool_napi_local);
//   - 7.1-rc1 identifies the page by PageNetpp(page) (db359fccf212).
//
// "This will *not* work for NIC using a split-page memory model. The page will
// be returned to the pool here regardless of the 'flipped' fragment being in
// use or not." — the kernel comment; the frag API (5.15) is the fix.
func (r *Registry) ReturnSkbPage(cpu int, pg *mm.Page, napiSafe bool) bool {
	m := r.M
	e := r.era
	m.Charge(cpu, sim.SymReturnSkbPage, 0)
	if pg.Place == sim.PlaceCompound { // compound_head(page)
		pg = r.A.Page(pg.Holder)
	}
	switch e.SkbRecycle {
	case sim.SkbRecycleNone:
		return false
	case sim.SkbRecycleRFC:
		return r.xdpReturn(cpu, pg)
	}
	sigOK := IsPP(e, pg) // 7.1-rc1: PageNetpp(page) (db359fccf212)
	if !sigOK && !m.Broken(sim.RuleSignatureCheck) {
		return false
	}
	pool := r.Lookup(pg.PP)
	if pool == nil {
		if sigOK && (pg.Place == sim.PlaceCache || pg.Place == sim.PlaceRing) {
			// 5.14 cleared page->pp when the page was recycled the first time:
			// a second return dereferences NULL (the kernel oopses). The model
			// reports it and leaves the page where it is.
			pg.ReportOnce(m, sim.KindDoubleRecycle, m.RuleFor(sim.KindDoubleRecycle),
				"page returned to its pool a second time while it sits in a pool's %s; page->pp was reset by the first return (the kernel would oops)", pg.Place)
			return true
		}
		if !sigOK {
			// Only reachable with the signature check removed: the kernel would
			// dereference a NULL/garbage page->pp here.
			pg.ReportOnce(m, sim.KindForeignPageInPool, sim.RuleSignatureCheck,
				"page that fails %s taken for a pool page; page->pp is NULL (the kernel would oops)", e.SignatureCheck())
		} else if m.Tracing() {
			// 5.14: the driver did not store the pool in page->pp
			// (skb_mark_for_recycle(skb, page, pp) / page_pool_store_mem_info).
			m.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymReturnSkbPage, Page: pg.PFN, Stat: sim.StatNone,
				Why: "page_pool page with page->pp == NULL: the driver never stored its pool (the kernel would oops); put_page instead"})
		}
		return false
	}
	if !e.PPSetAtAlloc {
		pg.PP = 0 // 5.14: "Driver set this to memory recycling info. Reset it on recycle."
	}
	allowDirect, ctx := false, false
	if e.NAPIDirect && !e.PoolNapiLocal {
		// v6.4 (8c48eea3adf3 "page_pool: allow caching from safely localized
		// NAPI"): only a free known to run in NAPI context (napi_safe)
		// may use the lockless cache, and only on the CPU that owns the
		// pool's NAPI. v6.6 ("page_pool: allow direct recycling of skbs in
		// softirq", Lobakin 2023) also admits any free in softirq there:
		// `if (napi_safe || in_softirq())` in napi_pp_put_page.
		ctx = napiSafe || (e.SoftirqDirect && m.CPUs[cpu].Softirq)
		napi := pool.P.NAPI
		allowDirect = ctx && napi != nil && (napi.ListOwner == cpu || m.Broken(sim.RuleNAPILocality))
		// v6.9 (2b0cfa6e4956, READ_ONCE from 56ef27e3abe6): `allow_direct
		// |= READ_ONCE(pp->cpuid) == cpuid` in the same block: a per-CPU
		// pool (the system page_pools) is local on its own CPU.
		if e.SystemPool && ctx && pool.cpuid == cpu {
			allowDirect = true
		}
	}
	// v6.10 (4a96a4e807c3): napi_pp_put_page passes allow_direct = false
	// and the napi_safe plumbing is gone (napiSafe is ignored); the pool
	// decides (page_pool_napi_local, in PutPage).
	if m.Tracing() {
		why := "page_pool page (signature matches): returned to its pool through the ptr_ring (skb frees never recycle directly before 6.4)"
		if e.NAPIDirect {
			why = "page_pool page: the free is not NAPI-safe on the CPU that owns the pool's NAPI, so it goes through the ptr_ring"
			if e.SoftirqDirect {
				why = "page_pool page: the free is neither NAPI-safe nor in softirq on the CPU that owns the pool's NAPI, so it goes through the ptr_ring"
			}
			switch {
			case allowDirect && e.SystemPool && pool.cpuid == cpu:
				why = fmt.Sprintf("page_pool page freed in softirq on cpu%d, the pool's cpuid (6.9: allow_direct |= pp->cpuid == cpuid): direct recycling into the alloc cache is allowed", cpu)
			case pool.P.NAPI == nil:
				why = "page_pool page: the pool has no NAPI (its driver does not set pp.napi, opt-in since 6.4: \"only if locking is tied to NAPI\"), so no skb free recycles directly: it goes through the ptr_ring"
			case allowDirect && pool.P.NAPI.ListOwner != cpu:
				why = fmt.Sprintf("page_pool page freed on cpu%d, %s: with napi-locality broken it recycles directly into the lockless alloc cache anyway (the kernel sends it through the ptr_ring)", cpu, napiOwner(pool.P.NAPI.ListOwner))
			case ctx && pool.P.NAPI.ListOwner != cpu:
				why = fmt.Sprintf("page_pool page freed on cpu%d, %s: only the CPU that runs the pool's NAPI may touch the lockless alloc cache, so it goes through the ptr_ring", cpu, napiOwner(pool.P.NAPI.ListOwner))
			case allowDirect && napiSafe:
				why = "page_pool page freed NAPI-safe on the CPU that owns the pool's NAPI: direct recycling into the alloc cache is allowed"
			case allowDirect:
				why = "page_pool page freed in softirq on the CPU that owns the pool's NAPI (v6.6: napi_safe || in_softirq()): direct recycling into the alloc cache is allowed"
			}
		}
		if e.PoolNapiLocal {
			why = "page_pool page: napi_pp_put_page calls page_pool_put_full_page(pp, page, false); the pool decides whether the free is local (page_pool_napi_local, 6.10)"
		}
		if e.PageType {
			why = "PageNetpp(page) holds (7.1-rc1: the PGTY_netpp page type, not the pp_magic signature, marks a pool page): " + why
		}
		m.Emit(sim.Event{CPU: cpu, Func: sim.SymReturnSkbPage, Pool: pool.ID, Page: pg.PFN, From: pg.Place, To: pg.Place, Stat: sim.StatNone, Why: why})
	}
	pool.PutFullPage(cpu, pg, allowDirect)
	return true
}

// xdpReturn is the rfc-v1 return path: page->signature, then __xdp_return with
// the xdp_mem_info found in page->private.
func (r *Registry) xdpReturn(cpu int, pg *mm.Page) bool {
	m := r.M
	if pg.Signature != mm.RFCSignature && !m.Broken(sim.RuleSignatureCheck) {
		return false
	}
	m.Charge(cpu, sim.SymXDPReturn, 0) // includes the rhashtable lookup of the mem id
	typ, id := uint16(pg.Private>>16), int32(uint16(pg.Private))
	var mm_ *memModel
	if id >= 1 && int(id) <= len(r.memIDs) {
		mm_ = &r.memIDs[id-1]
	}
	if mm_ == nil || typ != MemTypePagePool || mm_.typ != MemTypePagePool || mm_.pool == nil {
		if !r.warned {
			r.warned = true
			if m.Tracing() {
				m.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymXDPReturn, Page: pg.PFN, Stat: sim.StatNone,
					Why: "WARN_ON_ONCE: skb marked for recycling but its memory type is not page_pool; freeing it normally"})
			}
		}
		if mm_ == nil && m.Broken(sim.RuleSignatureCheck) {
			pg.ReportOnce(m, sim.KindForeignPageInPool, sim.RuleSignatureCheck,
				"page without the rfc-v1 signature taken for a pool page; its xdp_mem_info id %d resolves to nothing", id)
		}
		r.A.PutPage(cpu, pg) // freed normally; a live DMA mapping is not unmapped
		return true
	}
	// "clear page private" (RFC v1): the page's xdp_mem_info is gone once
	// it returns, so a second return of the same page reads type 0 and
	// takes the WARN path above — put_page of a page the pool now holds —
	// instead of a second recycle.
	pg.Private = 0
	if m.Tracing() {
		m.Emit(sim.Event{CPU: cpu, Kind: sim.EvCall, Func: sim.SymXDPReturn, Pool: mm_.pool.ID, Page: pg.PFN, Stat: sim.StatNone,
			Why: fmt.Sprintf("page->private holds an xdp_mem_info (type MEM_TYPE_PAGE_POOL, id %d): the mem-id rhashtable gives its pool; page->private is cleared and the page put with page_pool_put_full_page(allow_direct false)", id)})
	}
	mm_.pool.PutFullPage(cpu, pg, false)
	return true
}

// napiOwner says where the pool's NAPI runs (napi->list_owner), for the
// narration of a free on another CPU: -1 while it is not scheduled.
func napiOwner(owner int) string {
	if owner < 0 {
		return "while the pool's NAPI is not scheduled on any CPU (napi->list_owner is -1)"
	}
	return fmt.Sprintf("not on cpu%d, which runs the pool's NAPI (napi->list_owner)", owner)
}
