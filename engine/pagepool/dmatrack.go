package pagepool

import (
	"fmt"
	"math/bits"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// This file is the 6.16 DMA tracking (ee62ce7a1d90 "page_pool: Track
// DMA-mapped pages and unmap them when destroying the pool", Toke
// Høiland-Jørgensen, <20250409-page-pool-track-dma-v9-0-6a9ef2e0cba8@redhat.com>,
// net-next 15 Apr 2025, first release v6.16; docs/eras-after-6.8.md §4):
// every page the pool maps gets an id in the pool's dma_mapped xarray, kept
// in pp_magic's PP_DMA_INDEX_MASK bits; an unmap xa_cmpxchg's the slot and
// only the winner unmaps; page_pool_scrub unmaps every still-mapped page at
// destroy, so a page returned after the driver unbound skips the unmap.

// poisonPointerDelta is a 64-bit kernel's POISON_POINTER_DELTA
// (CONFIG_ILLEGAL_POINTER_VALUE, 0xdead000000000000 on x86-64 and arm64).
const poisonPointerDelta uint64 = 0xdead000000000000

// DMAIndexBits is PP_DMA_INDEX_BITS on platform pl (docs/eras-after-6.8.md
// §4.2, include/net/page_pool/types.h from ee62ce7a1d90, later
// include/linux/mm.h):
//   - 64-bit (POISON_POINTER_DELTA > 0): MIN(32, __ffs(delta) - 7) = 32;
//   - 32-bit, as fixed by "page_pool: Fix PP_MAGIC_MASK to avoid crashing on
//     some 32-bit arches" (<20250930114331.675412-1-toke@redhat.com>, net,
//     Fixes ee62ce7a1d90): MIN(32, __ffs(PAGE_OFFSET) - 7) when PAGE_OFFSET is
//     at least and aligned to 1 << (7 + 8), else 0: 23 on ARMv7 3G/1G
//     (0xC0000000), 24 on MIPS32 (0x80000000). Before that fix 32-bit had
//     MIN(32, BITS_PER_LONG - 7 - 2) = 23 everywhere; the model takes the
//     fixed form in every era (the width changes no id the model hands out).
//
// 0 turns the tracking off: page_pool_register_dma_index does nothing and
// the unmap is unconditional, the pre-6.16 behaviour.
func DMAIndexBits(pl *sim.Platform) uint {
	const shift = mm.PPDMAIndexShift
	if pl.PtrBytes == 8 {
		return min(32, uint(bits.TrailingZeros64(poisonPointerDelta))-shift)
	}
	po := pl.PageOffset
	if po >= 1<<(shift+8) && po&(1<<(shift+8)-1) == 0 {
		return min(32, uint(bits.TrailingZeros64(po))-shift)
	}
	return 0
}

// dmaMapped models pool->dma_mapped, an xarray allocated with
// XA_FLAGS_ALLOC1 (ids from 1) and PP_DMA_INDEX_LIMIT (1 .. 2^bits - 1).
// slots[id] holds the page (index 0 unused); the slice is sized at pool
// creation for what the pool can hold at once (ring + alloc cache) and grows
// only when more pages are mapped at once than ever before, never per
// packet: ids are reused lowest first, as xa_alloc does.
type dmaMapped struct {
	on       bool       // tracking: era DMATracking, a mapping pool, PP_DMA_INDEX_BITS > 0
	bits     uint       // PP_DMA_INDEX_BITS
	slots    []*mm.Page // slots[id]
	free     int        `pp:"index"` // every id below it is in use
	entries  int
	syncOff  bool // pool->dma_sync is false although p.flags asks for it: page_pool_scrub (6.16) or a memory provider (6.14) cleared it
	scrubbed bool // page_pool_scrub unmapped the pages still in flight
}

// init models xa_init_flags(&pool->dma_mapped, XA_FLAGS_ALLOC1) in
// page_pool_init.
func (x *dmaMapped) init(m *sim.Machine, p Params, ringSize int) {
	x.bits = DMAIndexBits(m.Platform)
	x.on = m.Era.DMATracking && p.Flags&FlagDMAMap != 0 && x.bits > 0
	if x.on {
		x.slots = make([]*mm.Page, 1, 1+ringSize+AllocCacheSize+AllocCacheRefill)
		x.free = 1
	}
}

// alloc models xa_alloc(&pool->dma_mapped, &id, page, PP_DMA_INDEX_LIMIT,
// gfp): the lowest free id, or false when every id up to the limit is used
// (-EBUSY).
func (x *dmaMapped) alloc(pg *mm.Page) (uint32, bool) {
	limit := 1<<x.bits - 1
	for i := x.free; i <= limit; i++ {
		if i == len(x.slots) {
			x.slots = append(x.slots, nil)
		}
		if x.slots[i] == nil {
			x.slots[i] = pg
			x.free = i + 1
			x.entries++
			return uint32(i), true
		}
	}
	return 0, false
}

// cmpxchg models xa_cmpxchg(&pool->dma_mapped, id, page, NULL, 0): it
// empties the slot if it holds pg and returns what the slot held.
func (x *dmaMapped) cmpxchg(id uint32, pg *mm.Page) *mm.Page {
	if int(id) >= len(x.slots) {
		return nil
	}
	old := x.slots[id]
	if old == pg {
		x.slots[id] = nil
		x.entries--
		x.free = min(x.free, int(id))
	}
	return old
}

// DMAMapped is the number of pages in the pool's dma_mapped xarray (0 when
// the era or the platform does not track).
func (p *Pool) DMAMapped() int { return p.dma.entries }

// DMATracked reports whether the pool tracks its mappings (6.16+, a mapping
// pool, PP_DMA_INDEX_BITS > 0 on the platform).
func (p *Pool) DMATracked() bool { return p.dma.on }

// registerDMAIndex models the DMA index registration of ee62ce7a1d90 in
// page_pool_dma_map, after the mapping: xa_alloc (xa_alloc_bh outside
// softirq) the page into pool->dma_mapped with PP_DMA_INDEX_LIMIT and
// store the id in pp_magic (netmem_set_dma_index); on an error other than
// -ENOMEM a WARN_ONCE "couldn't track DMA mapping, please report to
// netdev@". false when the xarray refuses; the caller then unmaps the page.
// In 6.16 the code stands inline in page_pool_dma_map; the helper
// page_pool_register_dma_index is the split of "page_pool: Fix
// PP_MAGIC_MASK to avoid crashing on some 32-bit arches" (net, Sep 2025,
// <20250926113841.376461-1-toke@redhat.com>, its diff read), so 6.18's.
func (p *Pool) registerDMAIndex(cpu int, pg *mm.Page) bool {
	if !p.dma.on {
		return true // if (!PP_DMA_INDEX_BITS) return 0; before 6.16 there is no index
	}
	cost := p.m.Charge(cpu, sim.SymDMAIndexAlloc, 0)
	id, ok := p.dma.alloc(pg)
	if !ok {
		p.ev(cpu, sim.SymDMAIndexAlloc, pg, pg.Place, pg.Place, sim.StatNone, cost,
			"xa_alloc found no free id below PP_DMA_INDEX_LIMIT: the page is unmapped and not used")
		return false
	}
	pg.SetDMAIndex(id)
	if p.m.Tracing() {
		p.ev(cpu, sim.SymDMAIndexAlloc, pg, pg.Place, pg.Place, sim.StatNone, cost,
			fmt.Sprintf("records the mapped page in pool->dma_mapped (id %d, kept in pp_magic's PP_DMA_INDEX_MASK bits) so that page_pool_scrub can unmap it at destroy even while it is out in an skb", id))
	}
	return true
}

// unmapNetmemDMA models the unmap of __page_pool_release_page_dma (the
// name in 6.16; __page_pool_release_netmem_dma after Byungchul Park's
// rename, 4ad125ae380b, posted 9 Jun 2025
// <20250609043225.77229-4-byungchul@sk.com>, v6.17; the cmpxchg later
// moved into page_pool_release_dma_index
// and, in the newest tree, __page_pool_unmap_netmem_dma): a pool that maps
// unmaps the page
// with DMA_ATTR_SKIP_CPU_SYNC. From 6.16 it first xa_cmpxchg's the page's
// dma_mapped slot to NULL and unmaps only if it won the slot: after
// page_pool_scrub emptied the slot at destroy, the late return of a page
// skips the unmap on a device that may be gone (ee62ce7a1d90). The
// dma-mapped-cmpxchg rule broken skips the slot test: the page is unmapped
// again, on the unbound device if the driver is gone.
func (p *Pool) unmapNetmemDMA(cpu int, pg *mm.Page) {
	if p.P.Flags&FlagDMAMap == 0 {
		return // if (!pool->dma_map) return
	}
	if !p.dma.on {
		if pg.Mapped { // the model's guard: a page the pool never mapped (mlx5 before 6.4 maps its own)
			if p.a.DMA.Unbound {
				p.ev(cpu, sim.SymReleasePage, pg, pg.Place, pg.Place, sim.StatNone, 0,
					"a page that came back after the driver unbound: the pool keeps no record of its mappings, so it unmaps the page now, through a device whose driver is gone (what ee62ce7a1d90 fixed in 6.16, reported as an IOMMU crash after an hns3 VF was removed: page_pool_scrub unmaps every page still mapped at destroy, while the device is bound)")
			}
			p.a.DMA.UnmapPage(cpu, pg, mm.PageSize<<pg.Order, p.P.DMADir)
		}
		return
	}
	cost := p.m.Charge(cpu, sim.SymDMAIndexRelease, 0)
	id := pg.DMAIndex()
	switch {
	case id == 0 && !p.dma.scrubbed:
		return // never registered (the xa_alloc failed, or mapped before the pool tracked)
	case id == 0 && !p.m.Broken(sim.RuleDMAMappedCmpxchg):
		// if (!id) return: the scrub's unmap cleared the page's index.
		p.ev(cpu, sim.SymDMAIndexRelease, pg, pg.Place, pg.Place, sim.StatNone, cost,
			"the page's DMA index is 0: page_pool_scrub unmapped it, and cleared its index, when the pool was destroyed, so no dma_unmap (the device may be gone)")
		return
	case id == 0:
		p.ev(cpu, sim.SymDMAIndexRelease, pg, pg.Place, pg.Place, sim.StatNone, cost,
			"dma-mapped-cmpxchg broken: the index and slot test is skipped and the page, which page_pool_scrub already unmapped, is unmapped again")
	case p.dma.cmpxchg(id, pg) != pg:
		return // another path won the slot and unmaps
	}
	p.a.DMA.UnmapPage(cpu, pg, mm.PageSize<<pg.Order, p.P.DMADir)
	// The winner clears the page's DMA address and index (ee62ce7a1d90's
	// __page_pool_release_page_dma: netmem_set_dma_index(netmem, 0); in
	// 6.18 page_pool_release_dma_index). A later form
	// (__page_pool_unmap_netmem_dma, "no page ref, dma-unmap only", commit
	// not pinned) leaves a scrubbed page's index and relies on the empty
	// slot; the outcome, no second unmap, is the same.
	pg.SetDMAIndex(0)
}

// scrubDMA is the DMA half of page_pool_scrub (ee62ce7a1d90), run once, on
// the first page_pool_release of a pool that maps:
//
//	if (pool->dma_sync) {
//		pool->dma_sync = false;
//		if (dma_dev_need_sync(pool->p.dev) && !xa_empty(&pool->dma_mapped))
//			synchronize_net();
//	}
//	xa_for_each(&pool->dma_mapped, id, ptr)
//		__page_pool_unmap_netmem_dma(pool, page_to_netmem(ptr));
//
// synchronize_net lets every CPU that may be inside
// page_pool_dma_sync_for_device (which re-checks dma_sync under
// rcu_read_lock) leave it; it costs the destroying CPU time, not work (an
// expedited grace period: page_pool_destroy runs under RTNL). Pages still in
// flight are unmapped here and stay counted in inflight; when they come
// back their slot is empty and the unmap is skipped.
func (p *Pool) scrubDMA(cpu int) {
	cost := p.m.Charge(cpu, sim.SymPoolScrub, 0)
	if p.P.Flags&FlagDMASyncDev != 0 && !p.dma.syncOff {
		p.dma.syncOff = true
		// dma_dev_need_sync: false for an I/O-coherent device without bounce buffering.
		if !p.a.DMA.Coherent && p.dma.entries > 0 {
			c := p.m.Charge(cpu, sim.SymSynchronizeNet, 0)
			p.m.Idle(cpu, SynchronizeNetNS)
			p.ev(cpu, sim.SymSynchronizeNet, nil, sim.PlaceNone, sim.PlaceNone, sim.StatNone, c,
				"dma_sync is now off; synchronize_net() waits a grace period so no CPU is still inside page_pool_dma_sync_for_device before the pages are unmapped")
		}
	}
	n := p.dma.entries
	p.dma.scrubbed = true
	for id := 1; id < len(p.dma.slots); id++ {
		if pg := p.dma.slots[id]; pg != nil {
			p.unmapNetmemDMA(cpu, pg) // "No page ref, dma-unmap only."
		}
	}
	if p.m.Tracing() {
		p.ev(cpu, sim.SymPoolScrub, nil, sim.PlaceNone, sim.PlaceNone, sim.StatNone, cost,
			fmt.Sprintf("page_pool_scrub unmaps the %d pages still in pool->dma_mapped (those out in skbs included; they stay counted in flight) while the device is still bound: a page returned later skips the unmap (6.16, ee62ce7a1d90)", n))
	}
}

// SynchronizeNetNS is the grace period synchronize_net waits for in
// page_pool_scrub: synchronize_rcu_expedited, since page_pool_destroy runs
// under RTNL. An order-of-magnitude default (tens of microseconds), NOT
// measured.
const SynchronizeNetNS = 50_000

// DMASync is pool->dma_sync: the pool syncs pages for the device
// (PP_FLAG_DMA_SYNC_DEV) and neither page_pool_scrub nor a memory provider
// turned it off.
func (p *Pool) DMASync() bool { return p.P.Flags&FlagDMASyncDev != 0 && !p.dma.syncOff }
