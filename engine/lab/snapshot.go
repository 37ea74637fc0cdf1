package lab

import (
	"slices"
	"sort"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// A Snapshot is the state of a run as plain values: what a UI renders. It
// holds no engine pointer; two snapshots of the same state are equal
// (reflect.DeepEqual), which is how the tests check that seeking and
// stepping agree.
type Snapshot struct {
	Op      uint64 // operations run
	Packets int64  // packets completed
	Done    bool
	Next    string // what the next operation will do ("" when done)
	TimeNS  int64  // the machine's time (the furthest CPU clock)
	BusyNS  []int64

	Era, Scenario, Driver string

	FreePerNode []int      // free page frames per NUMA node
	Pages       []PageView // every page that is not free, by PFN
	Pools       []PoolView
	NIC         *NICView // the driver's RX ring (nil without a driver)
	// RxCache is the driver's own RX page cache (nil when the driver keeps
	// none in this era: mlx5e_rx_cache before 6.4).
	RxCache *RxCacheView
	SKBs    []SKBView

	Stats sim.Stats // the 11 counters, summed over the pools
	// SystemRecycle is pp_system_recycle_stats: the recycle counters of
	// all system page_pools together (6.9; zero without them).
	SystemRecycle sim.Stats
	// RingStats are the driver's RX rings' own counters (Lab.RingStats; nil
	// without a driver): mlx5 names them rx<N>_pp_* (EthtoolName with ring N).
	RingStats []sim.Stats
	// DriverStats are the driver's own counters, not page_pool's
	// (Lab.DriverStats: mlx5e's rx_cache_* before 6.4); nil without them.
	DriverStats []DriverStat
	Inflight    int32
	// Lost, RxMissed and AllocFailures are Results' counters so far: packets
	// not delivered; frames the NIC dropped for want of a posted RX buffer
	// (rx_missed_errors); page_pool_alloc_pages NULL returns
	// (rx_buff_alloc_err / refill_errors).
	Lost, RxMissed, AllocFailures int64
	Violations                    [sim.NumKinds]int
	// ViolationList is the detailed log (the first sim.MaxViolationsKept).
	ViolationList []ViolationView
}

// Page is the view of page pfn (Pages is sorted by PFN); ok is false for a
// frame that is free (or not in the machine).
func (s *Snapshot) Page(pfn int32) (PageView, bool) {
	i, ok := slices.BinarySearchFunc(s.Pages, pfn, func(p PageView, pfn int32) int { return int(p.PFN) - int(pfn) })
	if !ok {
		return PageView{PFN: pfn}, false
	}
	return s.Pages[i], true
}

// Holder says who holds a page where it is.
type Holder struct {
	Kind string // "pool", "rx-desc", "skb", "slab", "page" (compound head), "caller", "xdp-frame", "driver-cache"
	ID   int32  // pool id, descriptor index, skb id, slab cache number, head PFN, driver cache slot; -1 if none
}

// PageView is a page's fields: the kernel's (refcount, pp_magic, pp, DMA,
// frag count) and the model's (place, holder, users, recycles).
type PageView struct {
	PFN        int32
	Node       int
	Place      string
	Holder     Holder
	Ref        int32
	FragCount  int64 // pp_frag_count / pp_ref_count
	Mapped     bool
	DMAAddr    uint64
	Pfmemalloc bool
	Magic      uint64 // pp_magic
	Signature  bool   // pp_magic carries PP_SIGNATURE (or the rfc-v1 signature word is set)
	PP         int32  // page->pp: owning pool id, 0 = NULL
	Owner      int32  // the pool that counts it in flight, 0 = none
	Recycles   uint32
	Users      int32 // live users: skb heads/frags, NIC descriptors
	Order      uint8
	NetIov     bool // a net_iov of a memory provider, not a struct page (its PFN is the model's index)
	// A net_iov's binding: its ID, what it is ("dma-buf binding", "io_uring
	// zcrx area") and its base DMA address (the net_iov's dma_addr is that
	// plus its index × PAGE_SIZE).
	Binding     int32
	BindingKind string
	BindingDMA  uint64
}

// PoolView is one page_pool: its alloc cache (a stack, bottom first), its
// ptr_ring slot by slot, its counters.
type PoolView struct {
	ID                                   int32
	Cache                                []int32 // PFNs, cache[0] first; the top is the last
	Ring                                 []RingSlot
	Producer, ConsumerHead, ConsumerTail int
	RingBatch                            int
	RingCount                            int
	Hold, Release                        uint32
	Inflight                             int32
	Stats                                sim.Stats
	Nid                                  int
	NAPICPU                              int // -1: no NAPI linked
	Destroyed, Freed                     bool
	// CPUID is pool->cpuid (6.9: a per-CPU pool's CPU, -1 otherwise);
	// System marks a system page_pool, whose Stats hold only its alloc
	// counters: its recycle counters are SystemRecycle, shared by all of
	// them (f853fa5c54e7). The kernel shows a system pool in neither
	// ethtool -S nor netlink.
	CPUID  int
	System bool
	// UserID is the pool's id as netlink and the kernel's warnings name it
	// (pool->user.id), Netdev whether it is linked to the NIC
	// (pp_params.netdev: netlink lists it).
	UserID uint32
	Netdev bool
	// Provider is the memory provider of a pool on a bound RX queue (6.12+):
	// "" for a pool of pages, else "dmabuf" or "io_uring"; Queue its RX
	// queue, BindingID the dma-buf binding's (or io_uring area's) id,
	// ProviderFree the net_iovs still in the binding (its genpool or
	// freelist), RefillQueued those waiting in io_uring's refill queue.
	Provider                   string
	Queue, BindingID           int
	ProviderFree, RefillQueued int
	// FragPFN is pool->frag_page, the page the frag API (5.15) hands the
	// next fragment of: the pool holds it between allocations, in no cache
	// or ring (-1: none).
	FragPFN int32
}

// RingSlot is one ptr_ring slot: PFN -1 when zeroed (free); Stale when it
// holds a consumed page the lazy batched zeroing has not cleared yet.
type RingSlot struct {
	PFN   int32
	Stale bool
}

// NICView is the driver's RX descriptor ring.
type NICView struct {
	Driver     string
	Descs      []DescView
	Next, Fill int // the next descriptor the NIC fills, the next one the driver refills
	Posted     int
	CPU        int  // the NAPI's CPU
	Agg        bool // the ring is bnxt's aggregation ring (its normal RX path from 6.6), not the RX ring
}

// RxCacheView is the driver's RX page cache (struct mlx5e_page_cache): a
// ring of RxCacheSize slots, pages from Head (the next the refill tries)
// to Tail (where the next release goes).
type RxCacheView struct {
	Head, Tail int
	Size       int     // slots (one stays empty: it holds Size-1 pages)
	Pages      []int32 // PFNs from head to tail
}

// DescView is one RX descriptor.
type DescView struct {
	PFN    int32 // -1 when the descriptor holds no buffer
	Off    int
	Size   int
	Posted bool
	Reuse  bool // the driver keeps the buffer for this descriptor's next refill
}

// SKBView is one live sk_buff and the data it points at.
type SKBView struct {
	ID        int32
	Where     string // stack, socket, tx-ring, tap, defer-list
	DataID    int32  // clones share one data buffer
	Cloned    bool
	Dataref   int32
	PPRecycle bool
	HeadFrag  bool  // the head is a page fragment
	HeadPFN   int32 // the head's page (a slab page for a kmalloc'ed head); -1 if stolen
	HeadOff   int
	SlabHead  bool
	Frags     []FragView
	Len       int
	DataLen   int
	FragList  []int32 // shinfo->frag_list: the skbs GRO chained on this one
	InList    int32   // the skb whose frag_list holds this one (0: none)
}

// FragView is one skb_frag_t.
type FragView struct {
	PFN       int32
	Off, Size int
}

// ViolationView is a violation as values.
type ViolationView struct {
	Op     uint64 // Snapshot.Op from which the log lists it: Seek(Op) shows it
	Seq    uint64
	Kind   string
	Func   string
	CPU    int
	PFN    int32
	Rule   string // "" when no breakable rule would have prevented it
	Detail string
}

func violationView(v sim.Violation) ViolationView {
	vv := ViolationView{Op: v.At, Seq: v.Seq, Kind: v.Kind.String(), Func: v.Op.Name(), CPU: v.CPU, PFN: v.Page, Detail: v.Detail}
	if v.Rule != sim.RuleNone {
		vv.Rule = v.Rule.String()
	}
	return vv
}

// holderOf types a page's holder by where it is.
func holderOf(pg *mm.Page) Holder { return holderAt(pg.Place, pg.Holder) }

// holderAt types a holder id recorded with a place.
func holderAt(p sim.Place, id int32) Holder {
	switch p {
	case sim.PlaceCache, sim.PlaceRing:
		return Holder{"pool", id}
	case sim.PlaceNICRing:
		return Holder{"rx-desc", id}
	case sim.PlaceSKB, sim.PlaceSocket, sim.PlaceTXRing:
		return Holder{"skb", id}
	case sim.PlaceSlab:
		return Holder{"slab", id - mm.SlabHolderBase}
	case sim.PlaceCompound:
		return Holder{"page", id}
	case sim.PlaceXDPFrame:
		return Holder{"xdp-frame", -1}
	case sim.PlaceDriverCache:
		return Holder{"driver-cache", id}
	case sim.PlaceBuddy:
		return Holder{"buddy", -1}
	case sim.PlaceGenpool, sim.PlaceUser:
		return Holder{"binding", id}
	}
	return Holder{"caller", -1}
}

// Snapshot returns the run's state as values. It allocates (a UI renders it
// once per frame, not per packet).
func (l *Lab) Snapshot() Snapshot {
	m := l.m
	s := Snapshot{Op: l.ops, Packets: l.packets, Done: l.done, Next: l.Next(), TimeNS: m.NowPS() / sim.PSPerNS,
		Era: m.Era.Name, Scenario: l.scenario.Name, Driver: l.cfg.Driver,
		Lost: l.lost, RxMissed: l.rxMissed(), AllocFailures: l.allocFailures()}
	for c := range m.CPUs {
		s.BusyNS = append(s.BusyNS, m.CPUs[c].BusyPS()/sim.PSPerNS)
	}
	for n := 0; n < l.a.Nodes(); n++ {
		s.FreePerNode = append(s.FreePerNode, l.a.FreePages(n))
	}
	pages := l.a.Pages()
	free := 0
	for n := range s.FreePerNode {
		free += s.FreePerNode[n]
	}
	s.Pages = make([]PageView, 0, max(len(pages)-free, 0)) // the frames not in the buddy allocator
	for i := range pages {
		pg := &pages[i]
		if pg.Place == sim.PlaceBuddy {
			continue
		}
		s.Pages = append(s.Pages, PageView{PFN: pg.PFN, Node: int(pg.Nid), Place: pg.Place.String(), Holder: holderOf(pg),
			Ref: pg.Ref, FragCount: pg.FragCount, Mapped: pg.Mapped, DMAAddr: pg.DMAAddr, Pfmemalloc: pg.Pfmemalloc(),
			Magic: pg.PPMagic, Signature: pg.HasPPSignature() || pg.Signature != 0 || pg.PageNetpp(), PP: pg.PP, Owner: pg.Owner,
			Recycles: pg.Recycles, Users: pg.Users, Order: pg.Order, NetIov: pg.NetIov})
		if id, base, ok := mm.NetIovBinding(pg); ok {
			v := &s.Pages[len(s.Pages)-1]
			v.Binding, v.BindingDMA, v.BindingKind = id, base, "dma-buf binding"
			if l.m.Knobs[sim.KnobProvider] == 1 {
				v.BindingKind = "io_uring zcrx area"
			}
		}
	}
	for _, p := range l.reg.Pools() {
		pv := PoolView{ID: p.ID, RingBatch: p.RingBatch(), RingCount: p.RingCount(), Hold: p.Hold(), Release: p.Release(),
			Inflight: p.Inflight(), Stats: p.Stats(), Nid: p.P.Nid, NAPICPU: -1, Destroyed: p.Destroyed(), Freed: p.Freed(), CPUID: p.CPUID(), System: p.System()}
		if p.P.NAPI != nil {
			pv.NAPICPU = p.P.NAPI.CPU
		}
		pv.UserID, pv.Netdev = p.UserID, p.P.Netdev
		pv.FragPFN = -1
		if fp := p.FragPage(); fp != nil {
			pv.FragPFN = fp.PFN
		}
		if mp := p.Provider(); mp != nil {
			pv.Provider, pv.Queue, pv.BindingID = "dmabuf", p.P.Queue.Index, int(mp.B.ID)
			if mp.IOUring() {
				pv.Provider = "io_uring"
			}
			pv.ProviderFree, pv.RefillQueued = mp.B.FreeCount(), mp.RefillQueued()
		}
		pv.Cache = make([]int32, p.CacheCount())
		for i := range pv.Cache {
			pv.Cache[i] = p.CachePage(i).PFN
		}
		pv.Ring = make([]RingSlot, p.RingSize())
		p.RingSlots(func(i int, pg *mm.Page, queued bool) {
			pv.Ring[i] = RingSlot{PFN: -1}
			if pg != nil {
				pv.Ring[i] = RingSlot{PFN: pg.PFN, Stale: !queued}
			}
		})
		pv.Producer, pv.ConsumerHead, pv.ConsumerTail = p.RingIndexes()
		s.Stats.Add(&pv.Stats)
		s.Inflight += pv.Inflight
		s.Pools = append(s.Pools, pv)
	}
	if l.reg.SystemPools() != nil {
		s.SystemRecycle = l.reg.SystemRecycleStats()
		s.Stats.Add(&s.SystemRecycle)
	}
	s.RingStats = l.RingStats()
	s.DriverStats = l.DriverStats()
	if d := l.drv; d != nil {
		nv := &NICView{Driver: d.Spec.Name, Posted: d.Posted(), CPU: d.CPU(), Agg: d.Agg()}
		nv.Next, nv.Fill = d.RingIndexes()
		d.Descs(func(i int, pg *mm.Page, off, size int, posted, reuse bool) {
			dv := DescView{PFN: -1, Off: off, Size: size, Posted: posted, Reuse: reuse}
			if pg != nil && (posted || reuse) {
				dv.PFN = pg.PFN
			}
			nv.Descs = append(nv.Descs, dv)
		})
		s.NIC = nv
		if _, pages, ok := d.RxCache(); ok {
			cv := &RxCacheView{Size: drivers.RxCacheSize, Pages: make([]int32, len(pages))}
			cv.Head, cv.Tail = d.RxCacheIndexes()
			for i, pg := range pages {
				cv.Pages[i] = pg.PFN
			}
			s.RxCache = cv
		}
	}
	if st := l.stack; st != nil {
		st.SKBs(func(sk *skb.SKB) { s.SKBs = append(s.SKBs, skbView(sk)) })
		sortSKBs(s.SKBs)
	}
	s.Violations = m.Log.Counts
	for _, v := range m.Log.List {
		s.ViolationList = append(s.ViolationList, violationView(v))
	}
	return s
}

func skbView(sk *skb.SKB) SKBView {
	d := sk.D
	v := SKBView{ID: sk.ID, Where: sk.Where.String(), DataID: d.ID, Cloned: sk.Cloned, Dataref: d.Dataref & skb.SkbDatarefMask,
		PPRecycle: sk.PPRecycle, HeadFrag: sk.HeadFrag, HeadPFN: -1, HeadOff: d.HeadOff, Len: sk.Len, DataLen: sk.DataLen}
	switch {
	case d.HeadPage != nil:
		v.HeadPFN = d.HeadPage.PFN
	case d.HeadObj.Valid():
		v.HeadPFN, v.SlabHead = d.HeadObj.Page.PFN, true
		v.HeadOff = int(d.HeadObj.Idx) * d.HeadSize
	}
	for i := 0; i < d.NrFrags; i++ {
		f := &d.Frags[i]
		v.Frags = append(v.Frags, FragView{PFN: f.Page.PFN, Off: f.Off, Size: f.Size})
	}
	for _, m := range d.FragList {
		v.FragList = append(v.FragList, m.ID)
	}
	v.InList = sk.FragListOf
	return v
}

// sortSKBs orders skbs by id (the live list's order depends on frees).
func sortSKBs(v []SKBView) { sort.Slice(v, func(i, j int) bool { return v[i].ID < v[j].ID }) }
