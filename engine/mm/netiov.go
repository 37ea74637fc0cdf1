package mm

import (
	"fmt"

	"pplab/engine/sim"
)

// A net_iov (include/net/netmem.h, "net: support non paged skb frags",
// 9f6b619edf2e, v6.12) is a PAGE_SIZE chunk of device memory a memory
// provider hands to a page_pool instead of a struct page: a piece of a
// dma-buf bound to an RX queue (devmem TCP) or of an io_uring zero-copy RX
// area. It has no struct page, no _refcount, no CPU mapping; its DMA
// address is set once, when the binding is mapped. netmem_ref covers both
// kinds, so the pool and the skb code see a net_iov as a netmem and test
// netmem_is_net_iov() where the two differ.
//
// The model keeps net_iovs in the allocator's frame array (after the nodes'
// pages), so that every checker that walks the pages sees them, with
// Page.NetIov set: their PFN is the model's index, not a frame of memory;
// Nid is -1; Ref stays 1 ("The non-pp refcount of net_iov is always 1",
// netmem_ref_count in 8ab79ed50cf1's posting,
// <20240805212536.2172174-7-almasrymina@google.com>);
// FragCount is net_iov->pp_ref_count; Owner, PP and PPMagic are set by the
// pool (page_pool_set_pp_info) as for a page.

// IsNetIov models netmem_is_net_iov(netmem).
func (p *Page) IsNetIov() bool { return p.NetIov }

// Binding models a memory provider's memory: struct
// net_devmem_dmabuf_binding (net/core/devmem.c, 170aafe35cb9 "netdev:
// support binding dma-buf to netdevice", v6.12), whose chunk_pool is a
// genpool of the dma-buf's PAGE_SIZE chunks, or io_uring's struct
// io_zcrx_area (6.15), whose freelist plays the same role. Free chunks sit
// in PlaceGenpool, held by the binding.
type Binding struct {
	ID      int32
	IOUring bool // an io_uring zcrx area, not a dma-buf binding
	a       *Allocator
	first   int32   // PFN of its first net_iov
	n       int32   // its net_iovs
	free    []int32 `pp:"pfn"` // free chunks (gen_pool_alloc takes the last freed first, like the model's other free lists)

	Allocs, Frees int64 `pp:"counter"` // gen_pool_alloc / gen_pool_free (or freelist pops/pushes)
}

// netIovReserve is how many net_iov slots the allocator keeps room for
// after its pages (the dmabuf_pages knob), so that binding appends to the
// frame array without moving it: pointers to pages stay valid.
func netIovReserve(m *sim.Machine) int {
	if m.Era.MemProvider == sim.MPNone {
		return 0
	}
	return int(m.Knobs[sim.KnobDmabufPages])
}

// BindDmabuf models net_devmem_bind_dmabuf (170aafe35cb9): the dma-buf is
// attached and mapped for the device once (dma_buf_map_attachment), its
// scatterlist carved into PAGE_SIZE net_iovs whose DMA addresses are set
// here (page_pool_set_dma_addr_netmem), and every chunk goes into the
// binding's genpool. ioUring: io_zcrx_create_area instead (6.15), the same
// for the model: chunks mapped at registration, a freelist. Up to the
// dmabuf_pages knob's chunks in a machine, across its bindings.
func (a *Allocator) BindDmabuf(chunks int, ioUring bool) (*Binding, error) {
	if a.m.Era.MemProvider == sim.MPNone {
		return nil, fmt.Errorf("net_devmem_bind_dmabuf: no memory providers in era %s (memory providers are v6.12: 8ab79ed50cf1)", a.m.Era.Name)
	}
	if chunks <= 0 || len(a.pages)+chunks > cap(a.pages) {
		return nil, fmt.Errorf("net_devmem_bind_dmabuf: %d chunks do not fit the %d net_iovs the machine has room for (dmabuf_pages)", chunks, cap(a.pages)-len(a.pages))
	}
	a.Pages() // the net_iovs follow the frames: every frame written out first (ready)
	a.bindings++
	b := &Binding{ID: a.bindings, IOUring: ioUring, a: a, first: int32(len(a.pages)), n: int32(chunks), free: make([]int32, 0, chunks)}
	a.pages = a.pages[:len(a.pages)+chunks]
	base := netIovBase + uint64(b.ID)<<32     // the dma-buf's device address range, the model's choice
	for i := int32(chunks) - 1; i >= 0; i-- { // the lowest chunk is handed out first
		pfn := b.first + i
		p := &a.pages[pfn]
		*p = Page{PFN: pfn, Nid: -1, Ref: 1, NetIov: true, DMAAddr: base + uint64(i)<<PageShift, Place: sim.PlaceGenpool, Holder: b.ID, freeIdx: -1}
		b.free = append(b.free, pfn)
	}
	a.ready = int32(len(a.pages))
	a.m.AddChecker(b)
	return b, nil
}

// netIovBase: binding n's device addresses start at netIovBase + n<<32.
const netIovBase = 0x8_0000_0000

// NetIovBinding is the binding net_iov p belongs to (its ID) and the
// binding's base DMA address, read off the net_iov's own dma_addr (each
// binding's chunks are mapped at netIovBase + ID<<32 up); ok is false for
// a page that is not a net_iov.
func NetIovBinding(p *Page) (id int32, base uint64, ok bool) {
	if !p.NetIov || p.DMAAddr < netIovBase {
		return 0, 0, false
	}
	id = int32((p.DMAAddr - netIovBase) >> 32)
	return id, netIovBase + uint64(id)<<32, true
}

// Size is the binding's chunk count; FreeCount the chunks in its genpool
// (gen_pool_avail / PAGE_SIZE).
func (b *Binding) Size() int      { return int(b.n) }
func (b *Binding) FreeCount() int { return len(b.free) }

// Owns reports whether p is one of the binding's net_iovs
// (net_iov_owner(niov)->binding == b).
func (b *Binding) Owns(p *Page) bool { return p.NetIov && p.PFN >= b.first && p.PFN < b.first+b.n }

// AllocChunk models gen_pool_alloc_owner(binding->chunk_pool, PAGE_SIZE)
// in net_devmem_alloc_dmabuf (28c5c74eeaa0 "netdev: devmem allocator",
// v6.12), or taking a niov off the io_uring area's freelist: one net_iov,
// nil when the binding is exhausted. It comes back in PlaceDriver.
func (b *Binding) AllocChunk() *Page {
	if len(b.free) == 0 {
		return nil
	}
	pfn := b.free[len(b.free)-1]
	b.free = b.free[:len(b.free)-1]
	p := &b.a.pages[pfn]
	p.MoveTo(b.a.m, sim.PlaceDriver, -1)
	b.Allocs++
	return p
}

// FreeChunk models gen_pool_free (net_devmem_free_dmabuf), or pushing a niov
// back on the io_uring area's freelist. The caller has cleared the pool's
// marks; a chunk that is not the binding's is the caller's bug, one free
// already (a rule broken upstream) is reported and left alone.
func (b *Binding) FreeChunk(p *Page) {
	if !b.Owns(p) {
		panic(fmt.Sprintf("mm: FreeChunk of a net_iov binding %d does not own: %s", b.ID, p))
	}
	if p.Place == sim.PlaceGenpool { // only with a rule broken: a second release of the same net_iov
		p.ReportOnce(b.a.m, sim.KindDoubleRecycle, b.a.m.RuleFor(sim.KindDoubleRecycle),
			"net_iov freed into binding %d's genpool while it is already there (gen_pool_free of a free chunk)", b.ID)
		return
	}
	p.MoveTo(b.a.m, sim.PlaceGenpool, b.ID)
	p.FragCount = 0
	b.free = append(b.free, p.PFN)
	b.Frees++
}

// CheckTouched: the genpool is checked by the full check only.
func (b *Binding) CheckTouched(m *sim.Machine) {}

// CheckInvariants: the genpool holds exactly the binding's chunks marked
// free, once each, and a free chunk belongs to no pool (its pp info
// cleared by page_pool_clear_pp_info before gen_pool_free).
func (b *Binding) CheckInvariants(m *sim.Machine) {
	inFree := 0
	for i := b.first; i < b.first+b.n; i++ {
		if b.a.pages[i].Place == sim.PlaceGenpool {
			inFree++
		}
	}
	if inFree != len(b.free) {
		m.Report(sim.KindPageInTwoPlaces, -1, sim.RuleNone, "binding %d: %d net_iovs marked free but %d in its genpool", b.ID, inFree, len(b.free))
	}
	for _, pfn := range b.free {
		p := &b.a.pages[pfn]
		if p.Place != sim.PlaceGenpool {
			p.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone, "in binding %d's genpool but recorded as %s", b.ID, p.Place)
		}
		if p.Owner != 0 {
			p.ReportOnce(m, sim.KindInflightLeak, m.RuleFor(sim.KindInflightLeak),
				"net_iov back in binding %d's genpool while pool %d still counts it in flight", b.ID, p.Owner)
		}
	}
}
