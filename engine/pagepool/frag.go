package pagepool

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// FragmentPage models page_pool_fragment_page: set pp_frag_count /
// pp_ref_count to nr.
func (p *Pool) FragmentPage(pg *mm.Page, nr int64) { pg.FragCount = nr }

// AllocFrag models page_pool_alloc_frag(pool, &offset, size, gfp): carve size
// bytes out of the pool's current frag page, starting a new page when it does
// not fit. The frag page carries BIAS_MAX in pp_frag_count while the allocator
// hands out fragments; when it moves on, the unused bias is drained, so the
// count then equals the users still holding fragments and only the last one's
// put recycles the page.
//
// Stats: every fragment counts alloc_fast up to 6.12 (0f6deac3a079, v5.19);
// from 6.13 only pages count (Era.FragStatPerPage, ef04d290c013).
//
// Returns the page and the fragment's offset, or nil (also when the era or the
// pool's flags have no frag support: a WARN in the kernel).
func (p *Pool) AllocFrag(cpu int, size int) (*mm.Page, int) {
	cost := p.m.Charge(cpu, sim.SymAllocFrag, 0)
	e := p.era
	maxSize := mm.PageSize << p.P.Order
	if !e.FragAPI || (e.FragFlag && p.P.Flags&FlagPageFrag == 0) || size > maxSize || size <= 0 {
		if p.m.Tracing() {
			p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymAllocFrag, Pool: p.ID, Page: -1, Stat: sim.StatNone,
				Why: "WARN_ON: no PP_FLAG_PAGE_FRAG on this pool (or no frag API in this era), or size > PAGE_SIZE << order"})
		}
		return nil, 0
	}
	if a := dmaAlign(p.m); a > 1 {
		size = (size + a - 1) &^ (a - 1)
	}
	offset := p.fragOffset
	pg := p.fragPage
	if pg != nil && offset+size > maxSize {
		pg = p.drainFrag(cpu, pg)
		if pg != nil {
			if e.FragStatPerPage {
				// ef04d290c013: the page came back, as a recycle into the
				// cache would, and is taken again (two stats, two events:
				// each event carries the one stat it counts).
				p.stat(sim.StatRecycleCached)
				p.ev(cpu, sim.SymAllocFrag, pg, pg.Place, pg.Place, sim.StatRecycleCached, 0,
					"frag page full and every fragment already returned: counted as a recycle into the cache (6.13)")
			}
			p.stat(sim.StatAllocFast)
			p.ev(cpu, sim.SymAllocFrag, pg, pg.Place, pg.Place, sim.StatAllocFast, cost,
				"frag page full and every fragment already returned: reuse the same page from offset 0")
			return p.fragReset(pg, size), 0
		}
	}
	if pg == nil {
		pg = p.AllocPages(cpu)
		if pg == nil {
			p.fragPage = nil
			return nil, 0
		}
		p.fragPage = pg
		p.ev(cpu, sim.SymAllocFrag, pg, pg.Place, pg.Place, sim.StatNone, cost,
			"new frag page: pp_frag_count = BIAS_MAX, first fragment at offset 0")
		return p.fragReset(pg, size), 0
	}
	p.fragUsers++
	p.fragOffset = offset + size
	if e.FragStatPerPage {
		p.ev(cpu, sim.SymAllocFrag, pg, pg.Place, pg.Place, sim.StatNone, cost,
			"next fragment of the current frag page (frag_users++); not counted: the stats count pages (6.13)")
		return pg, offset
	}
	p.stat(sim.StatAllocFast)
	p.ev(cpu, sim.SymAllocFrag, pg, pg.Place, pg.Place, sim.StatAllocFast, cost,
		"next fragment of the current frag page (frag_users++)")
	return pg, offset
}

func (p *Pool) fragReset(pg *mm.Page, size int) *mm.Page {
	p.fragUsers = 1
	p.fragOffset = size
	p.FragmentPage(pg, p.era.BiasMax)
	return pg
}

// dmaAlign is dma_get_cache_alignment(): ARCH_DMA_MINALIGN where the
// architecture defines it, whatever the device's coherence (128 on arm64
// and non-coherent MIPS, the L1 line on ARM32), 1 where it does not (x86);
// sim.Platform.DMAMinAlign says where each value comes from.
func dmaAlign(m *sim.Machine) int {
	if a := m.Platform.DMAMinAlign; a > 0 {
		return a
	}
	return 1
}

// drainFrag models page_pool_drain_frag: subtract the unused bias. If users
// remain the page is left to them (their last put recycles it) and nil is
// returned; if none remain and the page is recyclable, it is synced and
// reused; otherwise it is released.
func (p *Pool) drainFrag(cpu int, pg *mm.Page) *mm.Page {
	p.m.Charge(cpu, sim.SymDrainFrag, 0)
	drainCount := p.era.BiasMax - p.fragUsers
	// Some user is still using the page frag.
	if p.defragPage(pg, drainCount) != 0 {
		return nil
	}
	if p.canBeRecycled(pg) {
		if p.P.Flags&FlagDMASyncDev != 0 {
			p.syncForDevice(cpu, pg, -1)
		}
		return pg
	}
	p.returnPage(cpu, pg)
	return nil
}

// freeFrag models page_pool_free_frag (from page_pool_destroy): drain the
// current frag page; release it if no fragment is still in use.
func (p *Pool) freeFrag(cpu int) {
	drainCount := p.era.BiasMax - p.fragUsers
	pg := p.fragPage
	p.fragPage = nil
	if pg == nil || p.defragPage(pg, drainCount) != 0 {
		return
	}
	p.returnPage(cpu, pg)
}

// FragPage is the pool's current frag page (nil if none).
func (p *Pool) FragPage() *mm.Page { return p.fragPage }
