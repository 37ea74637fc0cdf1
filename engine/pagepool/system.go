package pagepool

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// The eras after 6.8 in the pool: per-CPU pools and the system page_pools
// (6.9), locality decided in the pool (6.10), the ring clamp (6.18), the
// page type (7.1-rc1). docs/eras-after-6.8.md has the sources.

// SystemPoolSize is SYSTEM_PERCPU_PAGE_POOL_SIZE, ((1 << 20) / PAGE_SIZE):
// 256 with 4 KB pages. It is the ptr_ring's capacity (pool_size), not a
// preallocation: the pool allocates on demand like any pool.
const SystemPoolSize = (1 << 20) / mm.PageSize

// CreatePercpu models page_pool_create_percpu(params, cpuid) (2b0cfa6e4956
// "net: add generic percpu page_pool allocator", v6.9): page_pool_create
// with pool->cpuid = cpuid, the CPU whose frees in softirq may recycle
// straight into the pool's alloc cache. Before 6.9 the function does not
// exist: a caller asking for it there misuses the API (a panic).
func (r *Registry) CreatePercpu(cpu int, p Params, cpuid int) (*Pool, error) {
	if !r.era.SystemPool {
		panic(fmt.Sprintf("pagepool: page_pool_create_percpu does not exist in era %s (v6.9, 2b0cfa6e4956)", r.era.Name))
	}
	if cpuid < 0 || cpuid >= len(r.M.CPUs) {
		panic(fmt.Sprintf("pagepool: page_pool_create_percpu: cpuid %d is not a CPU of this machine (0..%d)", cpuid, len(r.M.CPUs)-1))
	}
	r.M.Charge(cpu, sim.SymPoolCreatePercpu, 0)
	return r.initPool(cpu, p, cpuid)
}

// SystemPool returns this_cpu_read(system_page_pool) for cpu, or nil in an
// era without system pools (before 6.9).
//
// net_dev_init creates one per possible CPU at boot (net_page_pool_create,
// 2b0cfa6e4956 with f853fa5c54e7's PP_FLAG_SYSTEM_POOL): pool_size 256, no
// DMA flags, no dev, napi or netdev, nid NUMA_NO_NODE; from 6.10 the CPU's
// node (cpu_to_mem(cpuid), 341ee1a584c8 "net: pin system percpu page_pools
// to the corresponding NUMA nodes", which the era's PoolNapiLocal carries).
// The model creates all of them, in CPU order, when one is first asked for,
// so that the pools of a run that never uses them keep their ids (in the
// kernel they are created before any driver's pool). Boot costs are not the
// run's: nothing is charged.
func (r *Registry) SystemPool(cpu int) *Pool {
	if !r.era.SystemPool {
		return nil
	}
	if r.sys == nil {
		r.createSystemPools()
	}
	return r.sys[cpu]
}

// SystemPools are the system pools created so far (nil: none yet, or an
// era without them), in CPU order.
func (r *Registry) SystemPools() []*Pool { return r.sys }

// SystemRecycleStats is pp_system_recycle_stats summed over its per-CPU
// slots: the recycle counters of all system pools together (f853fa5c54e7).
func (r *Registry) SystemRecycleStats() sim.Stats { return r.sysRecycle }

// createSystemPools models net_dev_init's loop of net_page_pool_create(cpu).
func (r *Registry) createSystemPools() {
	m := r.M
	r.sys = make([]*Pool, len(m.CPUs))
	for c := range m.CPUs {
		nid := NumaNoNode
		if m.Era.PoolNapiLocal { // the same release as 341ee1a584c8, not the same commit
			nid = m.NodeOf(c) // cpu_to_mem(cpuid), 341ee1a584c8 (v6.10)
		}
		pool, err := r.initPool(c, Params{Flags: FlagSystemPool, PoolSize: SystemPoolSize, Nid: nid}, c)
		if err != nil {
			panic(fmt.Sprintf("pagepool: net_page_pool_create(%d): %v", c, err)) // constant params: cannot fail
		}
		r.sys[c] = pool
	}
}

// SumStats adds page_pool_get_stats of every pool into out, counting the
// shared system recycle stats once (GetStats of each system pool would add
// them once per pool): the totals of all the run's pools.
func (r *Registry) SumStats(out *sim.Stats) {
	for _, p := range r.pools {
		if p.system {
			out.Add(&p.stats)
			continue
		}
		p.GetStats(out)
	}
	if r.sys != nil {
		out.Add(&r.sysRecycle)
	}
}

// CPUID is pool->cpuid: the CPU of a per-CPU pool, -1 otherwise (and after
// page_pool_destroy cleared it).
func (p *Pool) CPUID() int { return p.cpuid }

// System reports a system page_pool (PP_FLAG_SYSTEM_POOL, f853fa5c54e7).
func (p *Pool) System() bool { return p.system }

// ringQsize is page_pool_init's ring size: pool_size, or 1024 when it is 0;
// from 6.18 `ring_qsize = min(pool->p.pool_size, 16384)` ("page_pool: Clamp
// pool size to max 16K pages", <20250926131605.2276734-2-dtatulea@nvidia.com>),
// where before a pool_size above 32768 was refused with -E2BIG (the caller's
// test) and 16385..32768 were taken as they are.
func (r *Registry) ringQsize(cpu int, poolSize int) int {
	if poolSize == 0 {
		return DefaultRingSize
	}
	if !r.era.RingClamp || poolSize <= MaxRingSizeClamp {
		return poolSize
	}
	if r.M.Tracing() {
		r.M.Emit(sim.Event{CPU: cpu, Func: sim.SymPoolCreate, Page: -1, Stat: sim.StatNone,
			Why: fmt.Sprintf("page_pool_init: pool_size %d is clamped to %d ring entries (min(pool_size, 16384), 6.18; before, a ring above 32768 was refused with -E2BIG)", poolSize, MaxRingSizeClamp)})
	}
	return MaxRingSizeClamp
}

// napiLocal models page_pool_napi_local (4a96a4e807c3 "page_pool: check for
// PP direct cache locality later", v6.10): a put may use the lockless alloc
// cache when it runs in softirq on the pool's CPU (pool->cpuid) or on the
// CPU that owns the pool's NAPI (napi->list_owner). Breaking napi-locality
// lets the list_owner test pass on any CPU. On PREEMPT_RT (the preempt_rt
// knob) from 6.16 it is never local (Era.NapiLocalRT, 32471b2f481d).
func (p *Pool) napiLocal(cpu int) bool {
	cost := p.m.Charge(cpu, sim.SymNapiLocal, 0)
	if p.rt {
		if p.m.Tracing() {
			p.evSlow(cpu, sim.SymNapiLocal, nil, sim.PlaceNone, sim.PlaceNone, sim.StatNone, cost,
				"page_pool_napi_local: a PREEMPT_RT kernel (6.16, 32471b2f481d): never local, the softirq could be preempted by the pool's consumer")
		}
		return false
	}
	napi := p.P.NAPI
	soft := p.softirq(cpu)
	local := soft && (p.cpuid == cpu || (napi != nil && (napi.ListOwner == cpu || p.m.Broken(sim.RuleNAPILocality))))
	if p.m.Tracing() { // the narration only: the per-packet path builds no string
		p.evSlow(cpu, sim.SymNapiLocal, nil, sim.PlaceNone, sim.PlaceNone, sim.StatNone, cost, p.napiLocalWhy(cpu, soft, local))
	}
	return local
}

// napiLocalWhy narrates page_pool_napi_local's answer.
func (p *Pool) napiLocalWhy(cpu int, soft, local bool) string {
	napi := p.P.NAPI
	switch {
	case !soft:
		return "page_pool_napi_local: not in softirq, so not local"
	case p.cpuid == cpu:
		return fmt.Sprintf("page_pool_napi_local: in softirq on cpu%d, the pool's cpuid: local, the page may go to the alloc cache", cpu)
	case napi == nil:
		return "page_pool_napi_local: the pool has no cpuid on this CPU and no NAPI (pp.napi), so not local"
	case napi.ListOwner == cpu:
		return fmt.Sprintf("page_pool_napi_local: in softirq on cpu%d, which runs the pool's NAPI (napi->list_owner): local, the page may go to the alloc cache", cpu)
	case local:
		return fmt.Sprintf("page_pool_napi_local on cpu%d, %s: with napi-locality broken it answers local anyway (the kernel sends the page through the ptr_ring)", cpu, napiOwner(napi.ListOwner))
	}
	return fmt.Sprintf("page_pool_napi_local on cpu%d, %s: not local", cpu, napiOwner(napi.ListOwner))
}

// Alloc models page_pool_alloc(pool, &offset, &size, gfp), behind
// page_pool_dev_alloc and page_pool_dev_alloc_va (include/net/page_pool/
// helpers.h, v6.7+): a request of more than half the pool's page gets a
// whole page (page_pool_alloc_pages, truesize = the page); a smaller one a
// fragment (page_pool_alloc_frag), and when no other fragment of the same
// size would fit after it, the rest of the page is added to its truesize
// ("to avoid truesize underestimate problem") and the frag page is done.
// It returns the page, the offset and the truesize; nil when the allocation
// failed.
func (p *Pool) Alloc(cpu int, size int) (pg *mm.Page, off, truesize int) {
	maxSize := mm.PageSize << p.P.Order
	if size <= 0 {
		panic(fmt.Sprintf("pagepool: page_pool_alloc of %d bytes", size))
	}
	if size<<1 > maxSize {
		pg = p.AllocPages(cpu)
		if pg == nil {
			return nil, 0, 0
		}
		return pg, 0, maxSize
	}
	pg, off = p.AllocFrag(cpu, size)
	if pg == nil {
		return nil, 0, 0
	}
	truesize = size
	if p.fragOffset+size > maxSize {
		truesize = maxSize - off
		p.fragOffset = maxSize
	}
	return pg, off, truesize
}

// IsPP models the era's test that a page belongs to a page_pool
// (page_pool_page_is_pp / netmem_is_pp, used by napi_pp_put_page and
// skb_pp_frag_ref): (pp_magic & ~0x3) == PP_SIGNATURE from 5.14-rc6
// (0fa32ca438b4), the plain comparison before; in 7.1-rc1 PageNetpp(page)
// (db359fccf212, v4 <20260224051347.19621-1-byungchul@sk.com>, which stops
// writing the signature into pp_magic; reverted in 7.1-rc6, 54cf41c969da).
func IsPP(e *sim.Era, pg *mm.Page) bool {
	switch {
	case e.PageType:
		return pg.PageNetpp()
	case e.MaskedSignature:
		return pg.HasPPSignature()
	}
	return pg.PPMagic == mm.PPSignature
}

// SystemPoolIDs is how many page-pool ids the era's kernel hands out before
// any driver's pool: one system pool per possible CPU from 6.9
// (Era.SystemPool: net_dev_init creates them at boot, each through
// page_pool_list), none before.
func SystemPoolIDs(e *sim.Era, cpus int) int {
	if e.SystemPool {
		return cpus
	}
	return 0
}
