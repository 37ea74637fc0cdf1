// Package pagepool models net/core/page_pool.c: the per-RX-queue page cache
// that recycles DMA-mapped pages.
//
// Structure follows the kernel: a lockless 128-slot LIFO alloc cache used only
// by the pool's consumer (NAPI), a ptr_ring that any CPU may produce into under
// the producer lock, a slow path into the page allocator (one page before
// v5.13, bulk of 64 after), and one recycling decision (putPage, modelling
// __page_pool_put_page). Behaviour switches by era (sim.Era).
//
// Caller contract, as in the kernel: allocation and direct recycling must not
// run concurrently with each other — they belong to the NAPI context of the
// pool's RX queue. The model checks this (cache-race) instead of assuming it.
package pagepool

import (
	"errors"
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Constants from include/net/page_pool.h / page_pool/types.h.
const (
	AllocCacheSize   = 128 // PP_ALLOC_CACHE_SIZE
	AllocCacheRefill = 64  // PP_ALLOC_CACHE_REFILL
	DefaultRingSize  = 1024
	MaxRingSize      = 32768 // above this page_pool_init returns -E2BIG (up to v6.17)
	// MaxRingSizeClamp: from v6.18 page_pool_init clamps pool_size to
	// 16384 instead ("page_pool: Clamp pool size to max 16K pages",
	// <20250926131605.2276734-2-dtatulea@nvidia.com>), with the literal
	// min(pool->p.pool_size, 16384); the PAGE_POOL_MAX_RING_SIZE macro of
	// later trees is not that patch's (its commit is not pinned), so the
	// narration never names it.
	MaxRingSizeClamp = 16384
	DeferTimeNS      = 1_000_000_000
	DeferWarnNS      = 60 * 1_000_000_000
	NumaNoNode       = -1
)

// Flags are page_pool_params.flags.
type Flags uint32

const (
	FlagDMAMap     Flags = 1 << 0 // PP_FLAG_DMA_MAP
	FlagDMASyncDev Flags = 1 << 1 // PP_FLAG_DMA_SYNC_DEV
	FlagPageFrag   Flags = 1 << 2 // PP_FLAG_PAGE_FRAG (v5.15–v6.6)
	// FlagSystemPool is PP_FLAG_SYSTEM_POOL (f853fa5c54e7, v6.9): BIT(2),
	// the bit PP_FLAG_PAGE_FRAG had until v6.7 (system.go).
	FlagSystemPool Flags = 1 << 2
)

// Errors page_pool_create returns (as ERR_PTR).
var (
	ErrInval = errors.New("-EINVAL")
	ErrE2Big = errors.New("-E2BIG")
	ErrNoMem = errors.New("-ENOMEM")
)

// NAPI models the bits of struct napi_struct the pool reads: the CPU it runs on
// and list_owner, which ____napi_schedule sets to that CPU and
// napi_complete_done resets to -1 (8c48eea3adf3, v6.4).
type NAPI struct {
	CPU       int
	ListOwner int
}

// NewNAPI returns a NAPI instance bound to cpu, not scheduled.
func NewNAPI(cpu int) *NAPI { return &NAPI{CPU: cpu, ListOwner: -1} }

// Schedule models ____napi_schedule on the NAPI's CPU.
func (n *NAPI) Schedule() { n.ListOwner = n.CPU }

// Complete models napi_complete_done.
func (n *NAPI) Complete() { n.ListOwner = -1 }

// Params is struct page_pool_params.
type Params struct {
	Flags    Flags
	Order    uint8
	PoolSize int // ptr_ring size; 0 = 1024
	Nid      int // NUMA_NO_NODE (-1) = the allocating CPU's node
	DMADir   mm.DMADir
	MaxLen   int // bytes synced for the device at most
	Offset   int // where the device starts writing
	NAPI     *NAPI
	// Netdev: pp_params.netdev is set (v6.8, opt-in like napi): the pool
	// is listed on the NIC for netlink (Era.PoolNetlink) and its stalled
	// shutdown is not warned about.
	Netdev bool
	// Queue is slow.netdev + slow.queue_idx: the RX queue whose memory
	// provider a PP_FLAG_ALLOW_UNREADABLE_NETMEM pool uses (provider.go).
	Queue *RxQueue
}

// Pool is struct page_pool.
type Pool struct {
	ID  int32
	P   Params
	reg *Registry
	a   *mm.Allocator
	m   *sim.Machine
	era *sim.Era // m.Era, fixed for the run: one load less per era test on the per-packet paths
	rt  bool     // a PREEMPT_RT kernel whose page_pool_napi_local says never (Era.NapiLocalRT and the preempt_rt knob)

	alloc struct {
		count int
		cache [AllocCacheSize]*mm.Page
		// from is how each cached page got there (the narration of the
		// fast path says which page it pops); not kernel state.
		from [AllocCacheSize]cacheFrom
	}
	ring ptrRing

	holdCnt    uint32 `pp:"counter"` // pages_state_hold_cnt
	releaseCnt uint32 `pp:"counter"` // pages_state_release_cnt
	userCnt    int
	destroyCnt uint64

	fragUsers  int64
	fragPage   *mm.Page
	fragOffset int

	deferStartPS, deferWarnPS int64
	destroyed, freed          bool

	stats sim.Stats `pp:"counter"`
	// allocNull counts page_pool_alloc_pages calls that returned NULL (the
	// allocator failed): page_pool keeps no such counter, the drivers do
	// (mlx5's rx_buff_alloc_err, mvneta's refill_errors).
	allocNull int64 `pp:"counter"`

	bulk         [256]*mm.Page // scratch array for alloc_pages_bulk (the kernel fills the cache array itself)
	consumer     int           // the CPU allowed to touch the alloc cache (NAPI CPU, or first allocating CPU)
	touched      uint64        // CPUs that touched the alloc cache since the last check
	nilWithCache int           // pages cached when page_pool_alloc_pages last returned NULL (0: none since the last check)
	lastProd     int           // CPU of the last ring producer (cacheline bounce cost)
	bulkRefill   bool          // the slow path uses alloc_pages_bulk (the era's, or the bulk_refill knob)
	ringWhy      string        `pp:"observer"` // why the last recyclable page went to the ring (narration: set only while traced)
	reported     uint16        // pool-level violation kinds reported while the condition persists
	memID        int32         // xdp_mem_info id when registered (0 = not)
	// cpuid is pool->cpuid (v6.9, 2b0cfa6e4956): the CPU a
	// page_pool_create_percpu pool belongs to, -1 for page_pool_create;
	// system: a PP_FLAG_SYSTEM_POOL pool (f853fa5c54e7 tests the flag;
	// the pool->system field of later kernels, 6.12.y's page_pool_init,
	// commit not pinned): its recycle stats are the registry's shared ones
	// (system.go).
	cpuid    int
	system   bool
	dma      dmaMapped    // pool->dma_mapped (6.16, dmatrack.go)
	producer ringProducer // a ring producer paused in its critical section (producer.go)
	mp       *Provider    // pool->mp_priv / mp_ops: its memory provider (nil: pages; provider.go)

	// Warnings counts "stalled pool shutdown" warnings printed.
	Warnings int
	// UserID is pool->user.id (v6.8, page_pool_list: xa_alloc_cyclic from
	// 1 in creation order, every pool): the id netlink and the stalled
	// shutdown warning name. From 6.9 the system pools, created at boot by
	// net_dev_init, hold 1..ncpu (system.go).
	UserID uint32
}

// Registry holds the machine's pools: it resolves page->pp and, for the rfc-v1
// era, xdp_mem_info ids (xdp_rxq_info_reg_mem_model).
type Registry struct {
	A      *mm.Allocator
	M      *sim.Machine
	era    *sim.Era // M.Era, fixed for the run
	pools  []*Pool
	users  uint32 // pools other than the system pools created so far (UserID)
	memIDs []memModel
	warned bool // WARN_ON_ONCE in the rfc-v1 __xdp_return path

	// sys are the per-CPU system page_pools (v6.9), created on first use
	// (system.go); sysRecycle is pp_system_recycle_stats, the one set of
	// recycle counters they all count into (summed over its per-CPU slots).
	sys        []*Pool
	sysRecycle sim.Stats `pp:"counter"`
}

type memModel struct {
	typ  uint16
	pool *Pool
}

// xdp_mem_type values.
const (
	MemTypePageShared uint16 = 0
	MemTypePageOrder0 uint16 = 1
	MemTypePagePool   uint16 = 2
)

// NewRegistry returns an empty pool registry over an allocator.
func NewRegistry(a *mm.Allocator) *Registry {
	m := a.Machine()
	return &Registry{A: a, M: m, era: m.Era}
}

// Pools returns the pools created so far.
func (r *Registry) Pools() []*Pool { return r.pools }

// Lookup resolves a pool id (page->pp); nil for 0 or an unknown id.
func (r *Registry) Lookup(id int32) *Pool {
	if id <= 0 || int(id) > len(r.pools) {
		return nil
	}
	return r.pools[id-1]
}

// Create models page_pool_create / page_pool_init: it validates the params as
// the kernel does and returns the pool, or the kernel's error. From v6.9 it
// is page_pool_create_percpu(params, -1) (2b0cfa6e4956).
func (r *Registry) Create(cpu int, p Params) (*Pool, error) {
	r.M.Charge(cpu, sim.SymPoolCreate, 0)
	return r.initPool(cpu, p, -1)
}

// initPool models page_pool_init (with page_pool_create_percpu's cpuid,
// v6.9; -1 for page_pool_create).
func (r *Registry) initPool(cpu int, p Params, cpuid int) (*Pool, error) {
	m := r.M
	all := FlagDMAMap | FlagDMASyncDev
	if m.Era.FragFlag {
		all |= FlagPageFrag
	}
	if m.Era.SystemPool {
		all |= FlagSystemPool // PP_FLAG_ALL (f853fa5c54e7)
	}
	if m.Era.MemProvider != sim.MPNone {
		all |= FlagAllowUnreadable
	}
	if p.Flags&^all != 0 {
		return nil, fmt.Errorf("page_pool_create: %w: flags %#x not supported in era %s (PP_FLAG_ALL = %#x)", ErrInval, uint32(p.Flags), m.Era.Name, uint32(all))
	}
	ringQsize := r.ringQsize(cpu, p.PoolSize)
	if p.PoolSize < 0 || ringQsize > MaxRingSize {
		return nil, fmt.Errorf("page_pool_create: %w: pool_size %d > %d (sanity limit on pinned memory)", ErrE2Big, p.PoolSize, MaxRingSize)
	}
	if p.Flags&FlagDMAMap != 0 && p.DMADir != mm.DMAFromDevice && p.DMADir != mm.DMABidirectional {
		return nil, fmt.Errorf("page_pool_create: %w: dma_dir %s (want DMA_FROM_DEVICE or DMA_BIDIRECTIONAL)", ErrInval, p.DMADir)
	}
	if p.Flags&FlagDMASyncDev != 0 {
		if p.Flags&FlagDMAMap == 0 {
			return nil, fmt.Errorf("page_pool_create: %w: PP_FLAG_DMA_SYNC_DEV needs PP_FLAG_DMA_MAP", ErrInval)
		}
		if p.MaxLen == 0 {
			return nil, fmt.Errorf("page_pool_create: %w: PP_FLAG_DMA_SYNC_DEV needs max_len", ErrInval)
		}
	}
	if p.Nid < NumaNoNode || p.Nid >= r.A.Nodes() {
		return nil, fmt.Errorf("page_pool_create: nid %d is not a node of this machine (-1..%d)", p.Nid, r.A.Nodes()-1)
	}
	pool := &Pool{ID: int32(len(r.pools) + 1), P: p, reg: r, a: r.A, m: m, era: m.Era, userCnt: 1, consumer: -1, lastProd: -1, bulkRefill: m.Era.BulkAlloc, cpuid: cpuid,
		rt: m.Era.NapiLocalRT && m.Knobs[sim.KnobPreemptRT] == 1}
	if k := m.Knobs[sim.KnobBulkRefill]; k >= 0 {
		pool.bulkRefill = k == 1
	}
	if p.NAPI != nil {
		pool.consumer = p.NAPI.CPU
	}
	if cpuid >= 0 {
		pool.consumer = cpuid // the per-CPU pool's lockless cache is its CPU's
	}
	pool.system = p.Flags&FlagSystemPool != 0 && m.Era.SystemPool
	if pool.system {
		pool.UserID = uint32(cpuid) + 1
	} else {
		r.users++
		pool.UserID = uint32(SystemPoolIDs(m.Era, len(m.CPUs))) + r.users
	}
	if err := r.initProvider(cpu, pool); err != nil {
		return nil, err
	}
	pool.ring.init(ringQsize, m.Platform.CacheLine, m.Platform.PtrBytes)
	pool.dma.init(m, p, ringQsize)
	r.pools = append(r.pools, pool)
	m.AddChecker(pool)
	return pool, nil
}

// RegMemModel models xdp_rxq_info_reg_mem_model(MEM_TYPE_PAGE_POOL, pool): it
// gives the pool an xdp_mem_info id and takes a user reference on the pool
// (page_pool_use_xdp_mem), so page_pool_destroy only runs on the last unreg.
func (r *Registry) RegMemModel(pool *Pool) int32 {
	r.memIDs = append(r.memIDs, memModel{typ: MemTypePagePool, pool: pool})
	pool.memID = int32(len(r.memIDs))
	pool.userCnt++
	return pool.memID
}

// RegMemModelType registers a non-page_pool memory model (e.g.
// MEM_TYPE_PAGE_SHARED) and returns its id.
func (r *Registry) RegMemModelType(typ uint16) int32 {
	r.memIDs = append(r.memIDs, memModel{typ: typ})
	return int32(len(r.memIDs))
}

// MemInfo is the xdp_mem_info (u16 type, u16 id) packed as the rfc-v1 series
// stored it in page->private.
func MemInfo(typ uint16, id int32) uint64 { return uint64(typ)<<16 | uint64(uint16(id)) }

// Allocator returns the page allocator behind the pool.
func (p *Pool) Allocator() *mm.Allocator { return p.a }

// softirq reports in_softirq() on cpu.
func (p *Pool) softirq(cpu int) bool { return p.m.CPUs[cpu].Softirq }

// touch records an alloc-cache access by cpu (for the cache-race check).
func (p *Pool) touch(cpu int) {
	if p.consumer < 0 {
		p.consumer = cpu
	}
	p.touched |= 1 << uint(cpu)
}

// recycled places pg in the alloc cache or the ptr_ring as a recycled page and
// runs the checker's per-page test on it right there: a failure that lasts
// one operation (recycled, then handed out again) is still caught, at O(1).
func (p *Pool) recycled(pg *mm.Page, where sim.Place) {
	if pg.Place == sim.PlaceCache || pg.Place == sim.PlaceRing {
		pg.ReportOnce(p.m, sim.KindDoubleRecycle, p.m.RuleFor(sim.KindDoubleRecycle),
			"recycled into pool %d's %s while it already sat in a pool's %s", p.ID, where, pg.Place)
	}
	pg.MoveTo(p.m, where, p.ID)
	pg.Recycles++
	p.checkPage(p.m, pg, where)
}

// stat increments a counter (alloc_stat_inc / recycle_stat_inc). A system
// pool's recycle counters are the shared pp_system_recycle_stats
// (f853fa5c54e7): recycle_stat_inc writes pool->recycle_stats, which points
// there for every system pool.
func (p *Pool) stat(s sim.Stat) {
	if p.system && s >= sim.StatRecycleCached {
		p.reg.sysRecycle[s]++
		return
	}
	p.stats[s]++
}

// statAdd is recycle_stat_add / alloc_stat_add: n at once.
func (p *Pool) statAdd(s sim.Stat, n uint64) {
	if p.system && s >= sim.StatRecycleCached {
		p.reg.sysRecycle[s] += n
		return
	}
	p.stats[s] += n
}

// ev emits an event if someone listens.
func (p *Pool) ev(cpu int, fn sim.Sym, pg *mm.Page, from, to sim.Place, st sim.Stat, cost int64, why string) {
	if p.m.Tracing() { // the guard inlines
		p.evSlow(cpu, fn, pg, from, to, st, cost, why)
	}
}

func (p *Pool) evSlow(cpu int, fn sim.Sym, pg *mm.Page, from, to sim.Place, st sim.Stat, cost int64, why string) {
	pfn := int32(-1)
	if pg != nil {
		pfn = pg.PFN
	}
	p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvCall, Func: fn, Pool: p.ID, Page: pfn, From: from, To: to, Stat: st, CostPS: cost, Why: why})
}

// cacheFrom is how a page got onto the alloc cache.
type cacheFrom uint8

const (
	cacheFromAlloc   cacheFrom = iota // the slow path's bulk allocation
	cacheFromRecycle                  // a direct recycle (page_pool_recycle_in_cache)
	cacheFromRing                     // a refill from the ptr_ring
	cacheFromUser                     // a memory provider placed it (net_mp_netmem_place_in_cache)
)

// Stats returns a copy of the pool's own counters. A system pool (v6.9) has
// no recycle counters of its own (they are the registry's shared
// SystemRecycleStats): its recycle counters read 0 here.
func (p *Pool) Stats() sim.Stats { return p.stats }

// GetStats models page_pool_get_stats: it ADDS the pool's counters into out.
// For a system pool (f853fa5c54e7) the recycle counters it adds are the
// shared pp_system_recycle_stats summed over every CPU's slot: those of all
// system pools together, whichever one is asked.
func (p *Pool) GetStats(out *sim.Stats) bool {
	if out == nil {
		return false
	}
	out.Add(&p.stats)
	if p.system {
		out.Add(&p.reg.sysRecycle)
	}
	return true
}

// Inflight models page_pool_inflight: hold - release in serial-number
// arithmetic. Pages in the alloc cache and the ptr_ring count as in flight.
func (p *Pool) Inflight() int32 { return int32(p.holdCnt - p.releaseCnt) }

// Hold and Release are the raw counters.
func (p *Pool) Hold() uint32    { return p.holdCnt }
func (p *Pool) Release() uint32 { return p.releaseCnt }

// CacheCount is alloc.count.
func (p *Pool) CacheCount() int { return p.alloc.count }

// CachePage returns alloc.cache[i] (i < CacheCount; the top is CacheCount-1).
func (p *Pool) CachePage(i int) *mm.Page { return p.alloc.cache[i] }

// RingCount is the number of pages queued in the ptr_ring.
func (p *Pool) RingCount() int { return p.ring.live }

// RingSize is the ptr_ring size.
func (p *Pool) RingSize() int { return p.ring.size() }

// RingStale is the number of consumed ring slots not yet zeroed.
func (p *Pool) RingStale() int { return p.ring.stale() }

// RingBatch is the ptr_ring's lazy-zeroing batch.
func (p *Pool) RingBatch() int { return p.ring.batch }

// RingPages calls fn on every queued page, oldest first.
func (p *Pool) RingPages(fn func(*mm.Page)) { p.ring.forEach(fn) }

// Destroyed reports whether page_pool_destroy ran; Freed whether the pool
// finally went away (inflight reached 0).
func (p *Pool) Destroyed() bool { return p.destroyed }
func (p *Pool) Freed() bool     { return p.freed }

// NAPIMoved records that the pool's NAPI now runs on cpu (an IRQ affinity
// change). NAPI runs are serialized (NAPI_STATE_SCHED), so the lockless
// alloc cache changes hands safely; what the old CPU did is checked first.
func (p *Pool) NAPIMoved(cpu int) {
	p.checkPool(p.m)
	p.consumer = cpu
	p.touched = 0
}

// RingSlots calls fn on every ptr_ring slot in array order with the page the
// slot holds (nil: zeroed, free) and whether it is queued; a slot that holds
// a page but is not queued is stale (consumed, not yet lazily zeroed).
func (p *Pool) RingSlots(fn func(i int, pg *mm.Page, queued bool)) { p.ring.slots(fn) }

// RingIndexes are the ptr_ring's producer, consumer_head and consumer_tail.
func (p *Pool) RingIndexes() (producer, consumerHead, consumerTail int) {
	return p.ring.producer, p.ring.consumerHead, p.ring.consumerTail
}
