// Package mm models the memory-management pieces page_pool sits on: struct page,
// the page allocator (per-node free lists, single and bulk allocation, failure
// injection, pfmemalloc pages), the DMA API (map, unmap, sync; coherent or not;
// optional IOMMU) and a slab allocator for skb heads.
//
// Ownership rule: every page is in exactly one sim.Place. Code that moves a page
// calls Page.MoveTo; the invariant checker (Allocator.CheckInvariants) verifies
// that the places recorded on pages agree with the containers that hold them.
package mm

import (
	"fmt"

	"pplab/engine/sim"
)

const (
	PageShift = 12
	PageSize  = 1 << PageShift

	// PPSignature is PP_SIGNATURE = 0x40 + POISON_POINTER_DELTA (x86-64:
	// 0xdead000000000000), include/linux/poison.h. It is OR-ed into pp_magic.
	PPSignature uint64 = 0xdead000000000040
	// RFCSignature is the value of the first series' page->signature word
	// (PP_SIGNATURE in "[PATCH net-next 2/6] mm: add a signature in struct
	// page", 22 Mar 2021, <20210322170301.26017-3-mcroce@linux.microsoft.com>).
	RFCSignature uint64 = 0x20210303
	// PPMagicMask keeps the signature bits: bit 0 (compound head) and bit 1
	// (pfmemalloc, page_is_pfmemalloc reads lru.next & BIT(1)) are not part of it.
	PPMagicMask = ^uint64(0x3)
	// pfmemallocBit is BIT(1) of lru.next, which pp_magic aliases.
	pfmemallocBit = uint64(1) << 1
	// PGTYNetpp is PGTY_netpp, the page type of a page_pool page
	// (db359fccf212 "mm: introduce a new page type for page pool in page
	// type", v7.1-rc1; reverted in 7.1-rc6 by 54cf41c969da): the top byte
	// of page->page_type (include/linux/page-flags.h).
	PGTYNetpp uint8 = 0xf9
	// PPDMAIndexShift is PP_DMA_INDEX_SHIFT = 1 + __fls(PP_SIGNATURE -
	// POISON_POINTER_DELTA) = 1 + __fls(0x40) = 7: from 6.16 the pool keeps
	// the page's id in its dma_mapped xarray in the pp_magic bits above the
	// signature (ee62ce7a1d90 "page_pool: Track DMA-mapped pages and unmap
	// them when destroying the pool"; docs/eras-after-6.8.md §4.2).
	PPDMAIndexShift = 7
	// ppDMAIndexMaskMax is the widest PP_DMA_INDEX_MASK, GENMASK(38, 7): 32
	// index bits, a 64-bit kernel's (MIN(32, __ffs(POISON_POINTER_DELTA) -
	// 7)); a 32-bit platform's ids are narrower (pagepool.DMAIndexBits) and
	// fit in it. PP_SIGNATURE has no bit there, so the masked signature test
	// may ignore these bits in every era: before 6.16 they are always 0.
	ppDMAIndexMaskMax = (uint64(1)<<32 - 1) << PPDMAIndexShift
)

// Page models struct page: the fields the kernel reads to decide a page's fate,
// plus the model's own bookkeeping (Place, Owner) that the invariant checker
// uses as ground truth.
type Page struct {
	// The fields are laid out by size (80 bytes, not 96 with padding: the
	// page array of a default machine, 16384 frames, is touched 64 pages
	// fewer at start-up and scanned by every full check).
	PFN   int32 `pp:"frame"`
	Nid   int8
	Order uint8 // order of the compound page this is the head of (0 for a plain page)

	// Kernel-visible state.
	// PageType is the PGTY_* of page->page_type (0: no type, the kernel's
	// UINT_MAX); only PGTYNetpp is modelled (7.1-rc1).
	PageType  uint8
	NetIov    bool   // a net_iov, not a struct page (netmem_is_net_iov; netiov.go)
	Ref       int32  // _refcount
	PP        int32  // page->pp: id of the owning pool, 0 = NULL
	PPMagic   uint64 // pp_magic, aliases lru.next: signature OR-ed in, low bits kept
	Private   uint64 // page->private (rfc-v1 stores an xdp_mem_info here)
	Signature uint64 // rfc-v1's page->signature word (0x20210303); a separate word in the model
	DMAAddr   uint64 `pp:"frame"` // page->dma_addr
	FragCount int64  // pp_frag_count (5.15) / pp_ref_count (6.8)

	// Model state (ground truth, not visible to the modelled kernel code).
	Place    sim.Place
	Mapped   bool   // a DMA mapping is live
	Reported uint16 // violation kinds already reported for this page in its current place
	Holder   int32  `pp:"counter"` // who holds it in that place (pool id for cache/ring, head PFN for a compound tail)
	Owner    int32  // the pool that counted it in hold and has not released it; 0 = none
	Recycles uint32 `pp:"counter,frame"` // times a pool recycled it (cache or ring) since it left the page allocator
	Users    int32  // live users that read or write its data: skb heads/frags, NIC RX descriptors

	freeIdx int32 `pp:"frame"` // index in its node's free list while in the buddy allocator
}

// Pfmemalloc reports page_is_pfmemalloc(): the page came from emergency reserves.
func (p *Page) Pfmemalloc() bool { return p.PPMagic&pfmemallocBit != 0 }

// HasPPSignature reports (pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE: the
// low two bits masked (~0x3UL, 0fa32ca438b4) and, from 6.16, the DMA index
// bits too (PP_MAGIC_MASK = ~(PP_DMA_INDEX_MASK | 0x3), ee62ce7a1d90); no
// page carries index bits before 6.16, so one test serves every era.
func (p *Page) HasPPSignature() bool { return p.PPMagic&PPMagicMask&^ppDMAIndexMaskMax == PPSignature }

// DMAIndex models netmem_get_dma_index: the page's id in its pool's
// dma_mapped xarray, read from pp_magic's PP_DMA_INDEX_MASK bits (0: none).
func (p *Page) DMAIndex() uint32 { return uint32(p.PPMagic & ppDMAIndexMaskMax >> PPDMAIndexShift) }

// SetDMAIndex models netmem_set_dma_index: id into pp_magic's
// PP_DMA_INDEX_MASK bits, the signature and the low bits kept.
func (p *Page) SetDMAIndex(id uint32) {
	p.PPMagic = p.PPMagic&^ppDMAIndexMaskMax | uint64(id)<<PPDMAIndexShift
}

// PageNetpp reports PageNetpp(page): the page carries the page_pool page
// type (7.1-rc1).
func (p *Page) PageNetpp() bool { return p.PageType == PGTYNetpp }

// MoveTo records that the page now sits in place, held by holder. Moving
// clears the set of violations already reported for the page. Every move of
// every page passes here: it is where m records moves (step mode).
func (p *Page) MoveTo(m *sim.Machine, place sim.Place, holder int32) {
	m.Moved(p.PFN, p.Place, p.Holder, place, holder)
	p.Place = place
	p.Holder = holder
	p.Reported = 0
}

// ReportOnce reports a violation about this page unless the same kind was
// already reported while the page sat where it is.
func (p *Page) ReportOnce(m *sim.Machine, k sim.Kind, rule sim.Rule, format string, args ...any) {
	if p.Reported&(1<<k) != 0 {
		return
	}
	p.Reported |= 1 << k
	m.Report(k, p.PFN, rule, format, args...)
}

func (p *Page) String() string {
	return fmt.Sprintf("pfn=0x%x nid=%d ref=%d place=%s magic=%#x pp=%d frag=%d mapped=%v", p.PFN, p.Nid, p.Ref, p.Place, p.PPMagic, p.PP, p.FragCount, p.Mapped)
}

// DMARel is the page's DMA address relative to its frame: 0 for a page
// mapped without an IOMMU (DMA.MapPage: PFN << PageShift) and for one not
// mapped (unmapping clears the address); an IOMMU address is not relative
// to anything and stays as it is, so two frames' roles compare equal only
// when their addresses do.
func (p *Page) DMARel() uint64 {
	if p.Mapped {
		return p.DMAAddr - uint64(p.PFN)<<PageShift
	}
	return p.DMAAddr
}

// AssumeRole makes the frame p play role r — a copy, taken before the move,
// of the page that played it — for the lab's fast-forward, which renames
// page frames when a cycle moves roles between them. What stays with a
// frame is mm's rule, the fields tagged pp:"frame": its PFN, its index in
// the free list, its Recycles (plus recycles, what the roles it played on
// the way added), and its DMA address, which r holds relative to its own
// frame (DMARel). Every other field is r's, Holder given by the caller (a
// counter the renaming advances). Caller's contract: every frame a renaming
// touches assumes one role, from copies taken before the first AssumeRole.
func (p *Page) AssumeRole(r *Page, holder int32, recycles uint32) {
	pfn, idx, rec := p.PFN, p.freeIdx, p.Recycles
	*p = *r
	p.PFN, p.freeIdx = pfn, idx
	p.Recycles = rec + recycles
	p.DMAAddr = r.DMARel()
	if r.Mapped {
		p.DMAAddr += uint64(pfn) << PageShift
	}
	p.Holder = holder
}
