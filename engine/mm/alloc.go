package mm

import (
	"fmt"

	"pplab/engine/sim"
)

type node struct {
	first int32   // first PFN of the node
	n     int32   // pages in the node
	free  []int32 `pp:"pfn"` // free list (a stack: the most recently freed page is handed out first, like the PCP lists)

	listed []uint64 `pp:"scratch"` // checker scratch: the free-list entries CheckInvariants' scan found consistent (a bit each)
}

// Allocator models the page allocator (buddy + per-CPU lists) as per-node free
// lists of order-0 frames. A high-order allocation takes a naturally aligned
// block of free frames (the head carries the order, the tails are marked
// PlaceCompound). It also owns the DMA model.
type Allocator struct {
	m     *sim.Machine
	pages []Page
	nodes []node
	DMA   DMA

	// ready is how many frames at the start of pages are written out. A
	// frame past it has never left the page allocator since NewAllocator:
	// it is the pristine free frame NewAllocator describes (pristine), and
	// its memory is the zeroed memory the array was made with, never
	// touched. A run that uses a thousand of a node's 16 384 frames thus
	// never faults in the rest of the array (at kernel sizes most of a
	// short run's start-up was those page faults), and the full check
	// reads only the frames written out (Ready). Every access by PFN goes
	// through page or Page, which write frames out up to the one asked
	// for; Pages writes out all of them. It is only the model's memory
	// layout: the run is the same whatever its value (scratch).
	ready int32 `pp:"scratch"`

	// leaked counts, per pool id, pages the pool still counted in flight that
	// were put_page'd into the allocator and handed out again: the pool can never
	// get them back (an inflight leak).
	leaked map[int32]int64

	slabIDs  int32 // slab caches created (their holder ids)
	bindings int32 // memory-provider bindings created (their ids; netiov.go)

	todo    []int32 `pp:"scratch"` // checker scratch: the pages CheckInvariants' page walk reports on
	scanBuf []int32 `pp:"scratch"` // checker scratch: room for todo and the owned pages, one entry per page each

	// What the scan of a full check read for the checks after it in the
	// same pass (sim.Machine.CheckPass): ScannedUsers, ScannedOwned.
	scanPass  uint64       `pp:"scratch"`
	scanUsers []int32      `pp:"scratch"` // each page's Users, by index
	scanOwned []OwnedPages `pp:"scratch"` // by pool id

	// Counters.
	Allocs, Frees, BulkCalls, Failures, PfmemallocAllocs int64 `pp:"counter"`
}

// NewAllocator builds the allocator with the machine's NUMA nodes and
// node_pages pages per node, all free.
func NewAllocator(m *sim.Machine) *Allocator {
	nodes := int(m.Knobs[sim.KnobNumaNodes])
	per := int32(m.Knobs[sim.KnobNodePages])
	a := &Allocator{m: m, pages: make([]Page, int32(nodes)*per, int(int32(nodes)*per)+netIovReserve(m)), nodes: make([]node, nodes)}
	a.DMA = DMA{m: m, Coherent: m.Coherent(), SkipSync: m.Era.DMASkipSync && m.Coherent(), IOMMU: m.Knobs[sim.KnobIOMMU] != 0, FailPPM: m.Knobs[sim.KnobDMAMapFailPPM]}
	for n := range a.nodes {
		nd := &a.nodes[n]
		nd.first, nd.n = int32(n)*per, per
		nd.free = make([]int32, per)
		// In reverse so the lowest PFN is handed out first: entry i names
		// frame first+per-1-i (pristine's freeIdx).
		for i := range per {
			nd.free[i] = nd.first + per - 1 - i
		}
	}
	m.AddChecker(a)
	return a
}

// ev emits an event if someone listens (the guard inlines).
func (a *Allocator) ev(cpu int, fn sim.Sym, p *Page, n int, from, to sim.Place, cost int64, why string) {
	if a.m.Tracing() {
		a.evSlow(cpu, fn, p, n, from, to, cost, why)
	}
}

func (a *Allocator) evSlow(cpu int, fn sim.Sym, p *Page, n int, from, to sim.Place, cost int64, why string) {
	pfn := int32(-1)
	if p != nil {
		pfn = p.PFN
	}
	a.m.Emit(sim.Event{CPU: cpu, Func: fn, Page: pfn, N: int32(n), From: from, To: to, CostPS: cost, Stat: sim.StatNone, Why: why})
}

// Machine returns the machine the allocator belongs to.
func (a *Allocator) Machine() *sim.Machine { return a.m }

// NumPages is the number of page frames in the machine.
func (a *Allocator) NumPages() int { return len(a.pages) }

// Page returns the page with the given PFN.
func (a *Allocator) Page(pfn int32) *Page { return a.page(pfn) }

// page is &a.pages[pfn], the frame written out first if it was not yet
// (ready). The check inlines; the write-out does not.
func (a *Allocator) page(pfn int32) *Page {
	if pfn >= a.ready {
		a.writeOut(pfn + 1)
	}
	return &a.pages[pfn]
}

// Pages returns every page frame (for renderers, copies and walks of the
// whole run; do not append), every frame written out first. A checker
// reads Ready instead.
func (a *Allocator) Pages() []Page {
	a.writeOut(int32(len(a.pages)))
	return a.pages
}

// Ready returns the frames written out so far, a prefix of Pages: every
// frame past it is pristine (a free frame of the page allocator that
// never left it, its free-list entry where NewAllocator put it), which no
// check has anything to say about. For the full checks, which would
// otherwise read (and, on the first read, fault in) the whole array.
func (a *Allocator) Ready() []Page { return a.pages[:a.ready] }

// writeOutChunk is how many frames writeOut writes at least (a few pages
// of memory): a run hands frames out in PFN order, one at a time.
const writeOutChunk = 256

// writeOut writes frames out up to (not including) PFN end, rounded up to
// writeOutChunk within the nodes' frames. A net_iov is written by the
// binding that makes it (BindDmabuf writes every frame out first).
func (a *Allocator) writeOut(end int32) {
	if end <= a.ready {
		return
	}
	frames := int32(0)
	if len(a.nodes) > 0 {
		frames = int32(len(a.nodes)) * a.nodes[0].n
	}
	end = min(max(end, a.ready+writeOutChunk), frames)
	for pfn := a.ready; pfn < end; pfn++ {
		a.pristine(pfn)
	}
	a.ready = max(a.ready, end)
}

// pristine writes frame pfn as NewAllocator leaves it: free in the page
// allocator, on its node's free list at the entry that names it.
func (a *Allocator) pristine(pfn int32) {
	per := a.nodes[0].n
	n := pfn / per
	a.pages[pfn] = Page{PFN: pfn, Nid: int8(n), Holder: -1, Place: sim.PlaceBuddy, freeIdx: per - 1 - (pfn - n*per)}
}

// Nodes is the number of NUMA nodes.
func (a *Allocator) Nodes() int { return len(a.nodes) }

// FreePages is the number of free frames on node nid.
func (a *Allocator) FreePages(nid int) int { return len(a.nodes[nid].free) }

// LeakedFor is how many pages pool id lost to the allocator (inflight leaks).
func (a *Allocator) LeakedFor(pool int32) int64 { return a.leaked[pool] }

func (a *Allocator) nidFor(cpu, nid int) int {
	if nid < 0 || nid >= len(a.nodes) {
		return a.m.NodeOf(cpu) // NUMA_NO_NODE: numa_mem_id()
	}
	return nid
}

// takeFree removes the frame at index i of node nd's free list.
func (a *Allocator) takeFree(nd *node, i int32) *Page {
	last := int32(len(nd.free) - 1)
	pfn := nd.free[i]
	if i != last {
		moved := nd.free[last]
		nd.free[i] = moved
		a.page(moved).freeIdx = i
	}
	nd.free = nd.free[:last]
	p := a.page(pfn)
	p.freeIdx = -1
	return p
}

// prepNewPage models prep_new_page: a fresh reference and clean page_pool
// fields. The pfmemalloc bit is set when the page came from reserves.
func (a *Allocator) prepNewPage(p *Page, order uint8) {
	if p.Owner != 0 { // a pool page that was put_page'd without release: lost for good
		if a.leaked == nil {
			a.leaked = map[int32]int64{}
		}
		a.leaked[p.Owner]++
		p.Owner = 0
	}
	if p.Mapped { // its mapping was never unmapped: lost for good
		a.DMA.Leaked++
		p.Mapped = false
	}
	p.Ref, p.PPMagic, p.PP, p.Private, p.Signature, p.DMAAddr, p.FragCount, p.Order, p.Recycles, p.Users = 1, 0, 0, 0, 0, 0, 0, order, 0, 0
	p.PageType = 0 // 7.1-rc1's free path resets page_type (page->page_type = UINT_MAX)
	if a.m.Rand.Chance(a.m.Knobs[sim.KnobPfmemallocPPM]) {
		p.PPMagic |= pfmemallocBit
		a.PfmemallocAllocs++
	}
	p.MoveTo(a.m, sim.PlaceDriver, -1)
	a.Allocs++
}

// allocOne takes one order-0 frame, preferring node nid and falling back to the
// other nodes (the zonelist). nil when memory is exhausted.
func (a *Allocator) allocOne(nid int) *Page {
	for i := 0; i < len(a.nodes); i++ {
		nd := &a.nodes[(nid+i)%len(a.nodes)]
		if len(nd.free) > 0 {
			return a.takeFree(nd, int32(len(nd.free)-1))
		}
	}
	return nil
}

// allocBlock takes a naturally aligned block of 1<<order free frames.
func (a *Allocator) allocBlock(nid int, order uint8) *Page {
	size := int32(1) << order
	for i := 0; i < len(a.nodes); i++ {
		nd := &a.nodes[(nid+i)%len(a.nodes)]
		for start := nd.first; start+size <= nd.first+nd.n; start += size {
			a.writeOut(start + size)
			ok := true
			for j := int32(0); j < size; j++ {
				if a.pages[start+j].Place != sim.PlaceBuddy {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			for j := size - 1; j >= 0; j-- {
				a.takeFree(nd, a.pages[start+j].freeIdx)
			}
			for j := int32(1); j < size; j++ {
				t := &a.pages[start+j]
				t.Ref = 0
				t.MoveTo(a.m, sim.PlaceCompound, start)
			}
			return &a.pages[start]
		}
	}
	return nil
}

// AllocPagesNode models alloc_pages_node(nid, gfp, order): one page (a compound
// page when order > 0) with refcount 1, or nil on failure. nid < 0 means the
// calling CPU's node.
func (a *Allocator) AllocPagesNode(cpu, nid int, order uint8) *Page {
	cost := a.m.Charge(cpu, sim.SymAllocPagesNode, 1<<order)
	if a.m.Rand.Chance(a.m.Knobs[sim.KnobAllocFailPPM]) {
		a.Failures++
		a.ev(cpu, sim.SymAllocPagesNode, nil, 0, sim.PlaceNone, sim.PlaceNone, cost, "allocation failed (injected failure)")
		return nil
	}
	nid = a.nidFor(cpu, nid)
	var p *Page
	if order == 0 {
		p = a.allocOne(nid)
	} else {
		p = a.allocBlock(nid, order)
	}
	if p == nil {
		a.Failures++
		a.ev(cpu, sim.SymAllocPagesNode, nil, 0, sim.PlaceNone, sim.PlaceNone, cost, "allocation failed: no free memory on any node")
		return nil
	}
	a.prepNewPage(p, order)
	a.ev(cpu, sim.SymAllocPagesNode, p, 1, sim.PlaceBuddy, sim.PlaceDriver, cost, "one page (or compound page) from the page allocator, refcount 1")
	return p
}

// AllocPagesBulk models alloc_pages_bulk_array(_node): up to len(out) order-0
// pages into out; it may return fewer (an injected failure or empty node ends
// the bulk). Returns how many it placed.
func (a *Allocator) AllocPagesBulk(cpu, nid int, out []*Page) int {
	nid = a.nidFor(cpu, nid)
	a.BulkCalls++
	n := 0
	for n < len(out) {
		if a.m.Rand.Chance(a.m.Knobs[sim.KnobAllocFailPPM]) {
			a.Failures++
			break
		}
		p := a.allocOne(nid)
		if p == nil {
			a.Failures++
			break
		}
		a.prepNewPage(p, 0)
		out[n] = p
		n++
	}
	cost := a.m.Charge(cpu, sim.SymAllocPagesBulk, n)
	a.ev(cpu, sim.SymAllocPagesBulk, nil, n, sim.PlaceBuddy, sim.PlaceDriver, cost, "bulk allocation: many pages per call amortise the allocator's per-call cost")
	return n
}

// GetPage models get_page(): take a reference.
func (a *Allocator) GetPage(cpu int, p *Page) {
	cost := a.m.Charge(cpu, sim.SymGetPage, 0)
	p.Ref++
	a.ev(cpu, sim.SymGetPage, p, 0, p.Place, p.Place, cost, "takes a page reference: page_ref_count > 1 means the pool may no longer recycle it")
}

// PutPage models put_page(): drop a reference; the last one frees the page (and
// its compound tails) to the allocator. Dropping a reference on a page whose
// count is already zero is a refcount underflow; it is reported and the page is
// left alone.
func (a *Allocator) PutPage(cpu int, p *Page) {
	if p.NetIov { // only with a rule broken: a net_iov that left its pool reaches the skb's put_page
		p.ReportOnce(a.m, sim.KindRefcountUnderflow, a.m.RuleFor(sim.KindRefcountUnderflow),
			"put_page of a net_iov: it has no struct page and no refcount (only its provider's release_netmem frees it)")
		return
	}
	if p.Ref <= 0 {
		p.Ref--
		p.ReportOnce(a.m, sim.KindRefcountUnderflow, a.m.RuleFor(sim.KindRefcountUnderflow),
			"put_page on a page whose refcount was already %d", p.Ref+1)
		return
	}
	p.Ref--
	if p.Ref > 0 {
		cost := a.m.Charge(cpu, sim.SymPutPageRef, 0)
		a.ev(cpu, sim.SymPutPageRef, p, 0, p.Place, p.Place, cost, "drops a page reference; others remain")
		return
	}
	a.freePages(cpu, p)
}

func (a *Allocator) freePages(cpu int, p *Page) {
	cost := a.m.Charge(cpu, sim.SymFreePage, 1<<p.Order)
	a.ev(cpu, sim.SymFreePage, p, 1<<p.Order, p.Place, sim.PlaceBuddy, cost, "last reference dropped: the page goes back to the page allocator")
	nd := &a.nodes[p.Nid]
	for j := int32(0); j < int32(1)<<p.Order; j++ {
		f := &a.pages[p.PFN+j]
		f.MoveTo(a.m, sim.PlaceBuddy, -1)
		f.freeIdx = int32(len(nd.free))
		nd.free = append(nd.free, f.PFN)
		a.checkFree(a.m, f) // the checker's per-page test, where the page lands
	}
	a.Frees++
}

// CheckTouched: nothing to do between full checks — a page reaching the free
// lists is checked as it lands (checkFree in freePages).
func (a *Allocator) CheckTouched(m *sim.Machine) {}

// checkFree: a page must not reach the free lists DMA-mapped, still counted in
// flight by a pool, or still used by an skb or a NIC descriptor.
func (a *Allocator) checkFree(m *sim.Machine, p *Page) {
	if p.Users > 0 {
		p.ReportOnce(m, sim.KindRefcountUnderflow, m.RuleFor(sim.KindRefcountUnderflow),
			"page freed to the page allocator while %d users (skbs, NIC descriptors) still reference it", p.Users)
	}
	if p.Mapped {
		p.ReportOnce(m, sim.KindDMALeak, m.RuleFor(sim.KindDMALeak),
			"page freed to the page allocator with its DMA mapping (dma=%#x) still live", p.DMAAddr)
	}
	if p.Owner != 0 {
		p.ReportOnce(m, sim.KindInflightLeak, m.RuleFor(sim.KindInflightLeak),
			"page of pool %d went back to the page allocator without page_pool_release_page: the pool counts it in flight forever", p.Owner)
	}
}

// CheckInvariants checks the allocator's side of conservation: every frame is in
// exactly one place; free lists hold exactly the frames marked free; no
// refcount is negative; no free page keeps a DMA mapping or is still counted in
// flight by a pool.
//
// It is the full check's main cost (step mode runs it after every
// operation), so it reads the page array once, in order (scan), and looks
// again only at what it reports on: the free lists are walked entry by
// entry, then the pages, as always, but an entry the scan found consistent
// is not looked up (a random read of the page array) and only the pages the
// scan noted are visited. The reports and their order are those of the two
// full walks.
func (a *Allocator) CheckInvariants(m *sim.Machine) {
	inFree := 0
	for n := range a.nodes {
		inFree += len(a.nodes[n].free)
	}
	marked, matched := a.scan()
	if matched == inFree {
		// Every free-list entry names a free page whose freeIdx is the
		// entry's index (a page matches one entry at most, an entry one
		// page): the walk below would report nothing.
		a.checkPages(m, marked, inFree)
		return
	}
	// Some entry does not name its page: the walk below looks entries up
	// from the lists, which name frames of any PFN, and markListed reads
	// every frame. (Rare: a broken free list.) Write every frame out and
	// scan again, so that the walk and its counts see the whole array.
	if int(a.ready) < len(a.pages) {
		a.Pages()
		marked, _ = a.scan()
	}
	for n := range a.nodes {
		nd := &a.nodes[n]
		words := (len(nd.free) + 63) / 64
		if cap(nd.listed) < words {
			nd.listed = make([]uint64, words)
		}
		nd.listed = nd.listed[:words]
		clear(nd.listed)
	}
	a.markListed()
	for n := range a.nodes {
		nd := &a.nodes[n]
		for w, bits := range nd.listed {
			if bits == ^uint64(0) {
				continue // 64 entries that name free pages whose freeIdx is their index
			}
			for i := w * 64; i < min(w*64+64, len(nd.free)); i++ {
				if bits&(1<<(uint(i)%64)) != 0 { // unsigned: a shift and a mask, no sign fix-up
					continue // names a free page whose freeIdx is i
				}
				p := &a.pages[nd.free[i]]
				if p.Place != sim.PlaceBuddy || p.freeIdx != int32(i) {
					p.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone,
						"on node %d's free list but recorded as %s", n, p.Place)
				}
			}
		}
	}
	a.checkPages(m, marked, inFree)
}

// checkPages is CheckInvariants' page walk over the pages the scan noted
// (todo), then the count of free pages against the free lists.
func (a *Allocator) checkPages(m *sim.Machine, marked, inFree int) {
	for _, pfn := range a.todo {
		p := &a.pages[pfn]
		switch {
		case p.Ref < 0:
			p.ReportOnce(m, sim.KindRefcountUnderflow, m.RuleFor(sim.KindRefcountUnderflow), "refcount is %d", p.Ref)
		case p.Place == sim.PlaceBuddy:
			a.checkFree(m, p)
		case p.Place == sim.PlaceCompound:
			h := &a.pages[p.Holder]
			p.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone, "compound tail of pfn 0x%x, which no longer covers it", h.PFN)
		}
	}
	if marked != inFree {
		m.Report(sim.KindPageInTwoPlaces, -1, sim.RuleNone, "%d frames marked free but %d on the free lists", marked, inFree)
	}
}

// scan is CheckInvariants' one pass over the page array, in PFN order. It
// counts the pages marked free; counts the free-list entries that name a
// free page whose freeIdx is the entry's index (looked up from the page's
// side, on its node's list; when some entry is not so named, markListed
// finds which, and they are looked up from the list); and lists in todo,
// in PFN order, the pages the page walk reports on: a negative refcount, a
// free page checkFree names, a compound tail its head no longer covers.
//
// It reads the slices' headers once and stays out of line, and its loop
// calls nothing (todo and the owned pages are written into buffers of one
// entry per page, which cannot overflow: a call would make the loop save
// its registers at every page): it is the full check's hottest loop.
//
// It reads the frames written out (Ready); each pristine frame past them is
// a free page its list's entry names, marked and matched without a read.
//
//go:noinline
func (a *Allocator) scan() (marked, matched int) {
	pages, nodes := a.Ready(), a.nodes
	if cap(a.scanUsers) < len(pages) || len(a.scanBuf) < 2*len(a.pages) {
		a.scanUsers = make([]int32, len(pages), len(a.pages))
		a.scanBuf = make([]int32, 2*len(a.pages))
	}
	a.scanUsers = a.scanUsers[:len(pages)]
	users := a.scanUsers
	todo, own := a.scanBuf[:len(pages)], a.scanBuf[len(a.pages):]
	nt, no := 0, 0
	for i := range pages {
		p := &pages[i]
		users[i] = p.Users
		if p.Owner > 0 {
			own[no] = int32(i)
			no++
		}
		switch {
		case p.Ref < 0:
			todo[nt] = int32(i)
			nt++
		case p.Place == sim.PlaceBuddy:
			marked++
			if p.Users > 0 || p.Mapped || p.Owner != 0 {
				todo[nt] = int32(i)
				nt++
			}
			if uint(int(p.Nid)) < uint(len(nodes)) { // 0 <= nid < nodes
				nd := &nodes[p.Nid]
				if x := uint(int(p.freeIdx)); x < uint(len(nd.free)) && int(nd.free[x]) == i { // 0 <= freeIdx < len
					matched++
				}
			}
		case p.Place == sim.PlaceCompound:
			h := &pages[p.Holder]
			if h.Place == sim.PlaceBuddy || p.PFN-h.PFN >= int32(1)<<h.Order {
				todo[nt] = int32(i)
				nt++
			}
		}
	}
	if pristine := len(a.pages) - len(pages); pristine > 0 { // only before a binding: it writes every frame out
		marked += pristine
		matched += pristine
	}
	a.todo = todo[:nt]
	clear(a.scanOwned)
	for _, i := range own[:no] {
		a.owned(&pages[i])
	}
	a.scanPass = a.m.CheckPass()
	return marked, matched
}

// markListed marks each free-list entry that names a free page whose
// freeIdx is the entry's index (the entries scan counted), for the walk of
// the free lists when some entry is not so named.
func (a *Allocator) markListed() {
	a.Pages() // CheckInvariants wrote every frame out already
	for i := range a.pages {
		p := &a.pages[i]
		if p.Place != sim.PlaceBuddy || p.Ref < 0 || p.Nid < 0 || int(p.Nid) >= len(a.nodes) {
			continue
		}
		nd := &a.nodes[p.Nid]
		if x := uint(int(p.freeIdx)); x < uint(len(nd.free)) && int(nd.free[x]) == i {
			nd.listed[x/64] |= 1 << (x % 64)
		}
	}
}

// OwnedPages counts the pages a pool owns (Page.Owner: counted in flight,
// not released) by where they are: in the page allocator (Lost), in the
// pool's own alloc cache or ptr_ring (Cache, Ring: held there by that
// pool), anywhere else (Other).
type OwnedPages struct{ Lost, Cache, Ring, Other int64 }

// owned counts p (Owner > 0) in its pool's OwnedPages.
func (a *Allocator) owned(p *Page) {
	o := p.Owner
	if int(o) >= len(a.scanOwned) {
		a.scanOwned = append(a.scanOwned, make([]OwnedPages, int(o)+1-len(a.scanOwned))...)
	}
	t := &a.scanOwned[o]
	switch {
	case p.Place == sim.PlaceBuddy:
		t.Lost++
	case p.Place == sim.PlaceCache && p.Holder == o:
		t.Cache++
	case p.Place == sim.PlaceRing && p.Holder == o:
		t.Ring++
	default:
		t.Other++
	}
}

// scanned reports whether the allocator's scan ran in the full check in
// progress.
func (a *Allocator) scanned() bool {
	return a.scanPass != 0 && a.scanPass == a.m.CheckPass() && len(a.scanUsers) == int(a.ready)
}

// ScannedUsers is each written-out page's Users by PFN (a page's PFN is its
// index in the page array: NewAllocator's frames, then the net_iovs; the
// frames past it are pristine and have none: Ready) as the full
// check in progress read them in the allocator's scan (it runs first: the
// allocator is the machine's first checker), so that a later checker
// compares them without reading the page array again; ok is false outside
// a full check or before the scan.
func (a *Allocator) ScannedUsers() (users []int32, ok bool) {
	if !a.scanned() {
		return nil, false
	}
	return a.scanUsers, true
}

// ScannedOwned is pool's OwnedPages as the full check in progress counted
// them in the allocator's scan (ok false as for ScannedUsers).
func (a *Allocator) ScannedOwned(pool int32) (t OwnedPages, ok bool) {
	if !a.scanned() {
		return t, false
	}
	if pool > 0 && int(pool) < len(a.scanOwned) {
		t = a.scanOwned[pool]
	}
	return t, true
}

// String summarises the allocator.
func (a *Allocator) String() string {
	s := fmt.Sprintf("allocator: %d frames,", len(a.pages))
	for n := range a.nodes {
		s += fmt.Sprintf(" node%d free=%d", n, len(a.nodes[n].free))
	}
	return s
}
