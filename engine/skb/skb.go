// Package skb models the sk_buff rules of net/core/skbuff.c that decide whether
// a page inside an skb returns to its page_pool: building an skb over a pool
// page, marking it for recycling, clones sharing one data buffer, the free
// paths, coalescing, shifting and expanding heads — each per era.
//
// Ownership rules, as in the kernel:
//   - An skb's data (the head buffer with its skb_shared_info) is shared by the
//     skb and its clones; shinfo->dataref counts them. Only the skb that drops
//     the last dataref releases the frags and the head.
//   - A frag (or a head_frag head) owns one reference of its page: a page
//     reference (get_page), or for page_pool pages the pool's own reference
//     (refcount 1) and, with the frag API, one pp_frag_count/pp_ref_count unit.
//   - skb->pp_recycle says the skb's pages may go back to a page_pool; the page
//     itself (pp_magic, page->pp) says which.
package skb

import (
	"errors"
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// ErrNoMem is an allocation failure (the caller drops the packet).
var ErrNoMem = errors.New("out of memory")

// Sizes (include/linux/skbuff.h). The skb_shared_info follows the
// platform (ShinfoSize); SkbStructSize and NetSkbPad are x86-64's on every
// platform (a 32-bit sk_buff is smaller, and NET_SKB_PAD = max(32,
// L1_CACHE_BYTES) is 32 with lunar-mips's 32-byte lines: not modelled).
const (
	MaxSkbFrags     = 17 // MAX_SKB_FRAGS
	SkbDatarefShift = 16 // SKB_DATAREF_SHIFT
	SkbDatarefMask  = (1 << SkbDatarefShift) - 1
	SkbStructSize   = 256  // SKB_DATA_ALIGN(sizeof(struct sk_buff)) on x86-64
	NetSkbPad       = 64   // NET_SKB_PAD
	KmallocHeadSize = 2048 // the smallest kmalloc head __alloc_skb uses here (kmalloc-2k)
	MaxHeadSize     = mm.PageSize

	NapiSkbCacheSize = 64 // NAPI_SKB_CACHE_SIZE (v5.15)
	NapiSkbCacheBulk = 16 // NAPI_SKB_CACHE_BULK
	NapiSkbCacheHalf = 32 // NAPI_SKB_CACHE_HALF
)

// SkbTruesize is SKB_TRUESIZE(x) on the stack's platform.
func (s *Stack) SkbTruesize(x int) int { return x + SkbStructSize + s.shinfo }

// ShinfoSize is SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on platform
// p: what every head (build_skb's frag_size, a kmalloc'ed head) gives to the
// shared info at its end.
//
// The struct, as include/linux/skbuff.h lays it out from v5.18 (d16697cb6261
// "net: skbuff: add size metadata to skb_shared_info for xdp", Lorenzo
// Bianconi, v22 <c4072b0b416ec256c66b919e876031e18a4baed8.1642439548.git.lorenzo@kernel.org>,
// bpf-next Jan 2022, adds xdp_frags_size after dataref): four u8 (flags,
// meta_len, nr_frags, tx_flags), gso_size and gso_segs (u16), the frag_list
// pointer, the hwtstamps union (a ktime_t, s64: 8-aligned on x86-64 and on
// the 32-bit ABIs of the model's platforms, ARM EABI and MIPS o32; 6.8 puts
// xsk_meta, a pointer, beside it), gso_type, tskey, dataref, xdp_frags_size
// (u32 each), the destructor_arg pointer and MAX_SKB_FRAGS skb_frag_t of a
// pointer (struct page *, a netmem_ref in later releases) and two u32. That is 320
// bytes with 8-byte pointers and 248 with 4-byte ones; without
// xdp_frags_size (5.12–5.15) the 4 bytes go to padding, 320 and 248 again
// (shinfoSizeof; the tests compute both layouts). SKB_DATA_ALIGN rounds up
// to SMP_CACHE_BYTES, L1_CACHE_BYTES (the platform's CacheLine: 64 on
// x86-64, arm64 and the Cortex-A15, 32 on the MIPS 1004K): 320 on the
// 64-bit platforms, 256 on ti-cpsw and lunar-mips.
func ShinfoSize(p *sim.Platform) int {
	return alignUp(shinfoSizeof(p.PtrBytes, true), p.CacheLine)
}

// shinfoSizeof is sizeof(struct skb_shared_info) with ptr-byte pointers,
// with or without xdp_frags_size (v5.18), by C's alignment rules.
func shinfoSizeof(ptr int, xdpFragsSize bool) int {
	off := 4 + 2 + 2              // flags, meta_len, nr_frags, tx_flags; gso_size, gso_segs
	off = alignUp(off, ptr) + ptr // frag_list
	off = alignUp(off, 8) + 8     // hwtstamps (ktime_t) / xsk_meta
	off += 4 + 4 + 4              // gso_type, tskey, dataref
	if xdpFragsSize {
		off += 4 // xdp_frags_size
	}
	off = alignUp(off, ptr) + ptr                   // destructor_arg
	off = alignUp(off, ptr) + MaxSkbFrags*(ptr+4+4) // frags[]: {page or netmem, len, offset}
	return alignUp(off, 8)                          // the struct aligns as its ktime_t
}

func alignUp(n, a int) int { return (n + a - 1) / a * a }

// Shinfo is ShinfoSize on the stack's platform.
func (s *Stack) Shinfo() int { return s.shinfo }

// skbDataAlign is SKB_DATA_ALIGN: up to SMP_CACHE_BYTES (the platform's
// cache line).
func (s *Stack) skbDataAlign(n int) int { return alignUp(n, s.M.Platform.CacheLine) }

// Frag is skb_frag_t: a piece of a page.
type Frag struct {
	Page      *mm.Page
	Off, Size int
}

// Data is an skb's data buffer: the head (a page fragment when head_frag, else a
// kmalloc'ed buffer) with the skb_shared_info at its end. Clones share it.
type Data struct {
	ID       int32      `pp:"counter"`
	HeadPage *mm.Page   // head_frag heads: the page holding the head
	HeadOff  int        // offset of the head in HeadPage
	HeadObj  mm.SlabObj // kmalloc'ed heads
	HeadSize int        // size of the head buffer including the shinfo (skb_end_offset + shinfo)

	NrFrags  int
	Frags    [MaxSkbFrags]Frag `pp:"upto=NrFrags"`
	FragList []*SKB            // shinfo->frag_list: skbs GRO chained here (skb_gro_receive's merge); freed with the data, coalescing refuses it
	Zerocopy bool              // SKBFL_ZEROCOPY_ENABLE (coalescing refuses it)
	Dataref  int32             // atomic_t dataref

	users    int32 // model: live skb structs pointing here
	released bool  // model: frags and head released (the data is gone)
	liveIdx  int32 `pp:"index"` // model: its slot in Stack.live
}

// SKB is struct sk_buff: the fields the recycling decision reads.
type SKB struct {
	ID         int32 `pp:"counter"`
	D          *Data
	HeadFrag   bool // head_frag: the head is a page fragment (build_skb)
	Len        int  // skb->len: linear + paged bytes
	DataLen    int  // skb->data_len: paged bytes
	Headroom   int
	Truesize   int
	Cloned     bool
	Nohdr      bool
	PPRecycle  bool // pp_recycle:1
	Pfmemalloc bool
	Unreadable bool  // skb->unreadable: a frag is a net_iov (65249feb6b3d, v6.12; unreadable.go)
	FragListOf int32 `pp:"counter"` // model: the skb whose frag_list holds this one (0: none)
	AllocCPU   int   // skb->alloc_cpu (v5.19): the CPU that allocated the struct; skb_attempt_defer_free sends the free there
	Where      Where // model: where the skb is (its pages' place follows it)
	live       bool
	liveIdx    int32 `pp:"index"` // index in Stack.skbs while live
}

// Where says where an skb is. The place its data's pages show follows it
// (Stack.Queue): being processed (sim.PlaceSKB), a socket receive queue or
// a tap's (sim.PlaceSocket), a TX ring awaiting completion (sim.PlaceTXRing).
type Where uint8

const (
	InStack     Where = iota // being processed: driver, GRO, protocol layers
	InSocket                 // a socket receive queue
	InTXRing                 // a TX ring awaiting completion
	InTap                    // an AF_PACKET tap's receive queue (packet_rcv queues a clone)
	InDeferList              // a per-CPU defer list (skb_attempt_defer_free), awaiting its free
	NumWheres
)

var whereNames = [NumWheres]string{"stack", "socket", "tx-ring", "tap", "defer-list"}

func (w Where) String() string {
	if w >= NumWheres {
		return "?"
	}
	return whereNames[w]
}

// place is the page place of data held by an skb that is at w.
func (w Where) place() sim.Place {
	switch w {
	case InSocket, InTap:
		return sim.PlaceSocket
	case InTXRing:
		return sim.PlaceTXRing
	}
	return sim.PlaceSKB
}

// Queue records that sk is now at w (enqueued on a socket, a TX ring, a
// tap, a defer list): the pages of its data show that place, held by sk.
// Clones share data: the pages show where the skb queued last is.
func (s *Stack) Queue(sk *SKB, w Where) {
	sk.Where = w
	to := w.place()
	d := sk.D
	if pg := d.HeadPage; pg != nil && (pg.Place != to || pg.Holder != sk.ID) {
		pg.MoveTo(s.M, to, sk.ID)
	}
	for i := 0; i < d.NrFrags; i++ {
		if pg := d.Frags[i].Page; pg.Place != to || pg.Holder != sk.ID {
			pg.MoveTo(s.M, to, sk.ID)
		}
	}
	for _, m := range d.FragList { // the chained skbs go where their head skb goes
		s.Queue(m, w)
	}
}

// SKBs calls fn on every live skb (renderers; do not free from fn).
func (s *Stack) SKBs(fn func(*SKB)) {
	for _, sk := range s.skbs {
		fn(sk)
	}
}

// Headlen is skb_headlen(): the linear bytes.
func (s *SKB) Headlen() int { return s.Len - s.DataLen }

// Tailroom is skb_tailroom(sk): room after the linear data in the head.
func (s *Stack) Tailroom(sk *SKB) int {
	if sk.DataLen != 0 { // skb_is_nonlinear: no tailroom
		return 0
	}
	return sk.D.HeadSize - s.shinfo - sk.Headroom - sk.Headlen()
}

// Live reports whether the skb has not been freed.
func (s *SKB) Live() bool { return s.live }

func (s *SKB) String() string {
	return fmt.Sprintf("skb#%d len=%d data_len=%d frags=%d cloned=%v dataref=%d pp_recycle=%v head_frag=%v", s.ID, s.Len, s.DataLen, s.D.NrFrags, s.Cloned, s.D.Dataref, s.PPRecycle, s.HeadFrag)
}

// PageVisitor receives the pieces of pages a PageHolder uses. It is an
// interface, not a func, so that the checker's visit allocates nothing and a
// run's state stays copyable (no closures in it).
type PageVisitor interface {
	HeldPage(pg *mm.Page, off, size int, what string)
}

// PageHolder is something outside the skb layer that uses pieces of pages the
// invariant checker must see as in use: a NIC RX ring (the device will write
// [off, off+size) of pg), a socket queue…
type PageHolder interface {
	HeldPages(v PageVisitor)
}

// Stack is the sk_buff layer of one machine.
type Stack struct {
	M   *sim.Machine
	A   *mm.Allocator
	Reg *pagepool.Registry

	era *sim.Era // M.Era, fixed for the run: one load less per era test on the per-packet paths

	kmalloc [2]*mm.SlabCache // kmalloc-2k and kmalloc-4k: linear heads
	napi    []int            // per-CPU NAPI skb cache fill (struct sk_buff, not data pages)
	defers  []deferList      // per-CPU softnet_data defer lists (skb_attempt_defer_free)
	lists   [][]*SKB         // spare frag_list arrays (GRO allocates nothing in the steady state)
	shinfo  int              // ShinfoSize of the machine's platform

	live    []*Data
	skbs    []*SKB // live skb structs
	skbQ    quarantine[SKB]
	dataQ   quarantine[Data]
	nextID  int32 `pp:"counter"`
	holders []PageHolder
	want    []int32    `pp:"scratch"` // checker scratch: expected Users per PFN
	ranges  pageRanges `pp:"scratch"` // checker scratch: byte ranges live data holds, per page

	// Counters.
	Built, Freed, Clones, Coalesced, CoalesceRefused, Expanded, Shifted, Deferred, Kicks int64 `pp:"counter"`
}

// NewStack builds the skb layer over a page allocator and a pool registry.
func NewStack(reg *pagepool.Registry) *Stack {
	s := &Stack{M: reg.M, A: reg.A, Reg: reg, era: reg.M.Era, napi: make([]int, len(reg.M.CPUs)), defers: make([]deferList, len(reg.M.CPUs)), shinfo: ShinfoSize(reg.M.Platform)}
	for i, size := range []int{KmallocHeadSize, MaxHeadSize} {
		kc, err := mm.NewSlabCache(reg.A, fmt.Sprintf("kmalloc-%dk", size/1024), size)
		if err != nil {
			panic(err) // constant sizes: cannot fail
		}
		s.kmalloc[i] = kc
		s.M.AddChecker(kc)
	}
	s.M.AddChecker(s)
	return s
}

// AddHolder registers an outside holder of page references for the checker.
func (s *Stack) AddHolder(h PageHolder) { s.holders = append(s.holders, h) }

// Live is the number of live data buffers.
func (s *Stack) Live() int { return len(s.live) }

// quarantine recycles model objects only after many others were freed, so a
// stale pointer to a freed skb still reads as freed (like KASAN's quarantine).
type quarantine[T any] struct {
	q    []*T `pp:"inert"`
	head int  `pp:"inert"`
	size int
}

const quarantineLen = 64

func (q *quarantine[T]) put(x *T) {
	if q.size == len(q.q) { // full, or not made yet: one test per put
		q.grow()
	}
	q.q[(q.head+q.size)&(len(q.q)-1)] = x // len is a power of two: no division, no wrap test
	q.size++
}

// grow makes room: the quarantine holds the run's peak of freed objects.
// Its length is a power of two (256, then doubled), which put and get
// wrap by.
func (q *quarantine[T]) grow() {
	if q.q == nil {
		q.q = make([]*T, 256)
		return
	}
	n := make([]*T, 2*len(q.q))
	for i := 0; i < q.size; i++ {
		n[i] = q.q[(q.head+i)%len(q.q)]
	}
	q.q, q.head = n, 0
}

func (q *quarantine[T]) get() *T {
	if q.size <= quarantineLen {
		return new(T)
	}
	x := q.q[q.head]
	q.q[q.head] = nil
	q.head = (q.head + 1) & (len(q.q) - 1)
	q.size--
	return x
}

func (s *Stack) ev(cpu int, fn sim.Sym, sk *SKB, pg *mm.Page, from, to sim.Place, cost int64, why string) {
	if s.M.Tracing() { // the guard inlines
		s.evSlow(cpu, fn, sk, pg, from, to, cost, why)
	}
}

func (s *Stack) evSlow(cpu int, fn sim.Sym, sk *SKB, pg *mm.Page, from, to sim.Place, cost int64, why string) {
	pfn := int32(-1)
	if pg != nil {
		pfn = pg.PFN
	}
	var id int32
	if sk != nil {
		id = sk.ID
	}
	s.M.Emit(sim.Event{CPU: cpu, Func: fn, Page: pfn, SKB: id, From: from, To: to, CostPS: cost, Stat: sim.StatNone, Why: why})
}

// newSKB takes a struct sk_buff: from the per-CPU NAPI cache when napi
// (napi_skb_cache_get, refilled 16 at a time with kmem_cache_alloc_bulk), else
// kmem_cache_alloc.
func (s *Stack) newSKB(cpu int, napi bool) *SKB {
	if napi {
		n := 0
		if s.napi[cpu] == 0 {
			n = NapiSkbCacheBulk
			s.napi[cpu] = NapiSkbCacheBulk
		}
		s.napi[cpu]--
		s.M.Charge(cpu, sim.SymNapiSkbCacheGet, n)
	} else {
		s.M.Charge(cpu, sim.SymSlabAlloc, 0)
	}
	sk := s.skbQ.get()
	s.nextID++
	*sk = SKB{ID: s.nextID, live: true, AllocCPU: cpu, liveIdx: int32(len(s.skbs))}
	s.skbs = append(s.skbs, sk)
	return sk
}

func (s *Stack) newData() *Data {
	d := s.dataQ.get()
	// Every field but Frags is reset (a new field must be added here):
	// clearing the 17 frag slots cost 400 bytes of stores per packet, and
	// no code reads a slot at or past NrFrags.
	d.ID = s.nextID
	d.HeadPage, d.HeadOff, d.HeadObj, d.HeadSize = nil, 0, mm.SlabObj{}, 0
	d.NrFrags, d.FragList, d.Zerocopy = 0, nil, false
	d.Dataref = 1
	d.users = 1
	d.released = false
	d.liveIdx = int32(len(s.live))
	s.live = append(s.live, d)
	return d
}

// releaseData marks d gone (its frags and head were released or handed on).
// If skbs still point at it (only with last-dataref broken) it stays on the
// live list as a zombie, so the checker sees what they still reference.
func (s *Stack) releaseData(d *Data) {
	d.released = true
	if d.users > 0 || d.liveIdx < 0 {
		return
	}
	last := s.live[len(s.live)-1]
	s.live[d.liveIdx] = last
	last.liveIdx = d.liveIdx
	s.live = s.live[:len(s.live)-1]
	d.liveIdx = -1
	s.dataQ.put(d)
}

// BuildSKB models build_skb / napi_build_skb(data, frag_size): an skb whose
// head is a fragment of pg (head_frag = 1) holding len bytes after a
// NET_SKB_PAD headroom; the caller's page reference moves to the skb.
func (s *Stack) BuildSKB(cpu int, pg *mm.Page, off, fragSize, length int, napi bool) (*SKB, error) {
	return s.buildSKB(cpu, pg, off, fragSize, length, napi, sim.SymBuildSKB)
}

// NapiBuildSKB is BuildSKB from the NAPI skb cache, for a caller that
// calls napi_build_skb by name (bnxt_rx_skb, bnxt_tpa_end): its event and
// profile symbol are napi_build_skb's.
func (s *Stack) NapiBuildSKB(cpu int, pg *mm.Page, off, fragSize, length int) (*SKB, error) {
	return s.buildSKB(cpu, pg, off, fragSize, length, true, sim.SymNapiBuildSKB)
}

// buildSKB is BuildSKB with the function its narration names (fn):
// SymNapiBuildSKB where the kernel's caller is napi_build_skb by name.
func (s *Stack) buildSKB(cpu int, pg *mm.Page, off, fragSize, length int, napi bool, fn sim.Sym) (*SKB, error) {
	if room := fragSize - s.shinfo - NetSkbPad; length > room || length < 0 {
		return nil, fmt.Errorf("build_skb: frame of %d bytes does not fit a %d-byte fragment (room %d)", length, fragSize, room)
	}
	cost := s.M.Charge(cpu, sim.SymBuildSKB, 0)
	sk := s.newSKB(cpu, napi)
	d := s.newData()
	d.HeadPage, d.HeadOff, d.HeadSize = pg, off, fragSize
	sk.D, sk.HeadFrag, sk.Len, sk.Headroom = d, true, length, NetSkbPad
	sk.Truesize = s.SkbTruesize(fragSize - s.shinfo)
	sk.Pfmemalloc = pg.Pfmemalloc()
	from := pg.Place
	pg.MoveTo(s.M, sim.PlaceSKB, sk.ID)
	pg.Users++
	s.Built++
	s.ev(cpu, fn, sk, pg, from, sim.PlaceSKB, cost,
		"builds an skb around the buffer: the head is a fragment of this page (head_frag); it copies nothing")
	return sk, nil
}

// AllocSKB models __alloc_skb / napi_alloc_skb(len) with len bytes put: a
// kmalloc'ed head (head_frag = 0) with room for length bytes. Such a head can
// never be recycled into a page_pool.
func (s *Stack) AllocSKB(cpu int, length int, napi bool) (*SKB, error) {
	sk, err := s.allocSKB(cpu, length, napi)
	if err == nil {
		sk.Len = length
	}
	return sk, err
}

// NapiAllocSKB models napi_alloc_skb(napi, room) as a driver calls it before
// copying a frame in: an empty skb (len 0) whose kmalloc'ed head has room
// bytes of tailroom; the driver then __skb_put()s what it copies (Put).
func (s *Stack) NapiAllocSKB(cpu int, room int) (*SKB, error) {
	return s.allocSKB(cpu, room, true)
}

func (s *Stack) allocSKB(cpu int, room int, napi bool) (*SKB, error) {
	if room < 0 {
		return nil, fmt.Errorf("__alloc_skb: negative length %d", room)
	}
	cost := s.M.Charge(cpu, sim.SymAllocSKB, 0)
	obj, size, err := s.kmallocHead(cpu, NetSkbPad+room)
	if err != nil {
		return nil, fmt.Errorf("__alloc_skb: %w", err)
	}
	sk := s.newSKB(cpu, napi)
	d := s.newData()
	d.HeadObj, d.HeadSize = obj, size
	sk.D, sk.Headroom = d, NetSkbPad
	sk.Truesize = s.SkbTruesize(size - s.shinfo)
	s.Built++
	s.ev(cpu, sim.SymAllocSKB, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
		"allocates an skb with a kmalloc'ed head: slab memory, never a page_pool page")
	return sk, nil
}

// Put models __skb_put(skb, n): the linear data grows by n bytes the caller
// copied in. The skb must be linear and n must fit its tailroom.
func (s *Stack) Put(sk *SKB, n int) error {
	if n < 0 || n > s.Tailroom(sk) {
		return fmt.Errorf("__skb_put: %d bytes do not fit skb#%d's tailroom of %d (skb_over_panic)", n, sk.ID, s.Tailroom(sk))
	}
	sk.Len += n
	return nil
}

// kmallocHead allocates a linear head for need bytes (headroom + data) plus the
// shinfo from the smallest kmalloc cache that fits.
func (s *Stack) kmallocHead(cpu, need int) (mm.SlabObj, int, error) {
	for _, c := range s.kmalloc {
		if need+s.shinfo <= c.ObjSize {
			obj, ok := c.Alloc(cpu)
			if !ok {
				return mm.SlabObj{}, 0, ErrNoMem
			}
			return obj, c.ObjSize, nil
		}
	}
	return mm.SlabObj{}, 0, fmt.Errorf("%d bytes do not fit the largest head (%d bytes with the shinfo)", need, MaxHeadSize)
}

// kfreeHead frees a kmalloc'ed head into the cache it came from.
func (s *Stack) kfreeHead(cpu int, d *Data) {
	for _, c := range s.kmalloc {
		if c.ObjSize == d.HeadSize {
			c.Free(cpu, d.HeadObj)
			return
		}
	}
}

// KmallocInUse is the number of live kmalloc'ed heads.
func (s *Stack) KmallocInUse() int64 { return s.kmalloc[0].InUse() + s.kmalloc[1].InUse() }

// AllocPageFragSKB is an skb whose head is a fragment of a plain page from the
// page_frag allocator (netdev_alloc_skb / a socket's page_frag, e.g. loopback):
// head_frag = 1, but the page is not a page_pool page. One page per head here
// (the real page_frag carves a large page with a refcount bias).
func (s *Stack) AllocPageFragSKB(cpu int, length int) (*SKB, error) {
	pg := s.A.AllocPagesNode(cpu, -1, 0)
	if pg == nil {
		return nil, fmt.Errorf("page_frag_alloc: %w", ErrNoMem)
	}
	return s.BuildSKB(cpu, pg, 0, mm.PageSize, length, false)
}

// MarkForRecycle models skb_mark_for_recycle per era:
//   - rfc-v1: skb->pp_recycle = 1 and the pool's xdp_mem_info in page->private;
//   - 5.14: skb_mark_for_recycle(skb, page, pp): also page->pp = pp;
//   - 5.15+: skb_mark_for_recycle(skb): only the bit (page->pp is set at alloc).
//
// 5.12 and 5.13 have no skb recycling; it returns an error there.
func (s *Stack) MarkForRecycle(cpu int, sk *SKB, pg *mm.Page, pool *pagepool.Pool) error {
	e := s.era
	if e.SkbRecycle == sim.SkbRecycleNone {
		return fmt.Errorf("skb_mark_for_recycle: no skb recycling in era %s (drivers call page_pool_release_page)", e.Name)
	}
	cost := s.M.Charge(cpu, sim.SymMarkForRecycle, 0)
	sk.PPRecycle = true
	why := "sets skb->pp_recycle: when freed, the skb offers its pages back to their page_pool"
	if e.SkbRecycle == sim.SkbRecycleRFC {
		why = "sets skb->pp_recycle and puts the pool's xdp_mem_info (type MEM_TYPE_PAGE_POOL, its id) in page->private: when freed, the skb offers its pages back through __xdp_return, which looks the id up"
	}
	s.ev(cpu, sim.SymMarkForRecycle, sk, pg, sim.PlaceNone, sim.PlaceNone, cost, why)
	if pg != nil && pool != nil {
		s.storeMemInfo(cpu, sk, pg, pool)
	}
	return nil
}

// StoreMemInfo models page_pool_store_mem_info(frag_page, pp) (5.14; rfc-v1:
// the xdp_mem_info in page->private), which marks a frag page with its pool.
func (s *Stack) StoreMemInfo(cpu int, sk *SKB, pg *mm.Page, pool *pagepool.Pool) {
	s.storeMemInfo(cpu, sk, pg, pool)
}

func (s *Stack) storeMemInfo(cpu int, sk *SKB, pg *mm.Page, pool *pagepool.Pool) {
	switch s.era.SkbRecycle {
	case sim.SkbRecycleRFC:
		pool.StoreXDPMemInfo(pg)
	case sim.SkbRecycleMerged:
		pool.StoreMemInfo(pg)
		if !s.era.PPSetAtAlloc {
			s.ev(cpu, sim.SymStoreMemInfo, sk, pg, sim.PlaceNone, sim.PlaceNone, 0,
				"page->pp = the page's pool: the skb's free finds the pool there (page_pool_return_skb_page) and clears it on recycle; from 5.15 the pool sets page->pp when it allocates the page")
		}
	}
}

// AddRxFrag models skb_add_rx_frag(skb, i, page, off, size, truesize): append
// a page piece; the caller's reference on the page moves to the skb.
func (s *Stack) AddRxFrag(cpu int, sk *SKB, pg *mm.Page, off, size, truesize int) error {
	d := sk.D
	if d.NrFrags >= MaxSkbFrags {
		return fmt.Errorf("skb_add_rx_frag: skb#%d already has MAX_SKB_FRAGS (%d) frags", sk.ID, MaxSkbFrags)
	}
	cost := s.M.Charge(cpu, sim.SymAddRxFrag, 0)
	d.Frags[d.NrFrags] = Frag{Page: pg, Off: off, Size: size}
	d.NrFrags++
	sk.Len += size
	sk.DataLen += size
	sk.Truesize += truesize
	if pg.IsNetIov() {
		sk.Unreadable = true // __skb_fill_netmem_desc: netmem_is_net_iov (65249feb6b3d)
	} else if pg.Pfmemalloc() {
		sk.Pfmemalloc = true
	}
	from := pg.Place
	pg.MoveTo(s.M, sim.PlaceSKB, sk.ID)
	pg.Users++
	s.ev(cpu, sim.SymAddRxFrag, sk, pg, from, sim.PlaceSKB, cost, "appends a page fragment to the skb")
	return nil
}

// Pull models __skb_pull(skb, len): the protocol layers consume their headers
// (eth_type_trans, ip_rcv, tcp_data_queue), moving skb->data forward. Only
// linear bytes can be pulled; n is clamped to skb_headlen (the model's
// stand-in for a pskb_may_pull that would have dropped a runt). Returns the
// bytes pulled. No page changes owner.
func (s *Stack) Pull(sk *SKB, n int) int {
	n = max(0, min(n, sk.Headlen()))
	sk.Len -= n
	sk.Headroom += n
	return n
}
