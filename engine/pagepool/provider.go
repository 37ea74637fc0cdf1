package pagepool

import (
	"errors"
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// FlagAllowUnreadable is PP_FLAG_ALLOW_UNREADABLE_NETMEM, BIT(3)
// (8ab79ed50cf1 "page_pool: devmem support", v6.12): the driver can take
// net_iovs it cannot read from this pool, so the pool may take its memory
// from the provider bound to its RX queue (Params.Queue: slow.netdev and
// slow.queue_idx). "This flag should not be set for header page_pools."
const FlagAllowUnreadable Flags = 1 << 3

// ErrNotSupp is -EOPNOTSUPP.
var ErrNotSupp = errors.New("-EOPNOTSUPP")

// RxQueue models the bits of struct netdev_rx_queue a pool reads at init:
// its index and mp_params, the memory provider bound to it (nil: none).
type RxQueue struct {
	Index int `pp:"index"` // queue_idx
	MP    *Provider
}

// Provider is a memory provider bound to an RX queue: in 6.12 the dma-buf
// binding in rxq->mp_params.mp_priv (0f9214046893 "memory-provider: dmabuf
// devmem memory provider"), from 6.15 mp_priv with its memory_provider_ops
// (57afb4830157 "net: page_pool: create hooks for custom memory
// providers"): dmabuf_devmem_ops or io_uring's io_uring_pp_zc_ops.
type Provider struct {
	B *mm.Binding
	// refill is io_uring's refill queue (struct io_uring rq ring): the
	// net_iovs the user gave back (io_zcrx_rqe), oldest first, until the
	// pool's next alloc_netmems drains them.
	refill []*mm.Page
	rqHead int
	// Leaked counts net_iovs mp_dmabuf_devmem_release_page refused back
	// (pp_ref_count not 1): gone from the binding for good.
	Leaked int64 `pp:"counter"`
}

// IOUring reports whether the provider is io_uring zero-copy RX.
func (mp *Provider) IOUring() bool { return mp.B.IOUring }

// RefillQueued is how many net_iovs wait in the io_uring refill queue.
func (mp *Provider) RefillQueued() int { return len(mp.refill) - mp.rqHead }

// Provider returns the pool's memory provider (pool->mp_priv / mp_ops), nil
// for a pool of pages.
func (p *Pool) Provider() *Provider { return p.mp }

// initProvider models the memory-provider part of page_pool_init: a pool
// created with PP_FLAG_ALLOW_UNREADABLE_NETMEM takes the provider of its
// queue (pool->mp_priv = rxq->mp_params.mp_priv; from 6.15 also mp_ops);
// a flagged pool on a queue without a provider is an ordinary page pool.
// The flags a provider accepts changed:
//   - 6.12, mp_dmabuf_devmem_init (8ab79ed50cf1): the pool must map
//     (PP_FLAG_DMA_MAP, else -EOPNOTSUPP) and must NOT sync for the device
//     (-EOPNOTSUPP), order 0 (-E2BIG);
//   - from b400f4b87430 "page_pool: Set `dma_sync` to false for devmem
//     memory provider" (v6.14) the core requires both DMA_MAP and
//     DMA_SYNC_DEV of a provider pool (-EOPNOTSUPP), and the provider's
//     init turns dma_sync (and dma_sync_for_cpu, 7dba339faae9) off itself;
//     the devmem and io_uring inits still want order 0 ([DEVMEM],
//     io_uring/zcrx.c io_pp_zc_init).
//
// Provider pools never sync for the device: in 6.12 because they may not
// ask, from 6.14 because the provider clears the flag.
func (r *Registry) initProvider(cpu int, pool *Pool) error {
	m := r.M
	q := pool.P.Queue
	if pool.P.Flags&FlagAllowUnreadable == 0 || q == nil || q.MP == nil {
		return nil
	}
	mp := q.MP
	f := pool.P.Flags
	switch m.Era.MemProvider {
	case sim.MPDevmem:
		if mp.IOUring() {
			panic(fmt.Sprintf("pagepool: an io_uring provider on queue %d in era %s (no io_uring zero-copy RX before 6.15; the bind must refuse it)", q.Index, m.Era.Name))
		}
		switch {
		case f&FlagDMAMap == 0:
			return fmt.Errorf("page_pool_create: mp_dmabuf_devmem_init: %w: a devmem pool must map (PP_FLAG_DMA_MAP)", ErrNotSupp)
		case f&FlagDMASyncDev != 0:
			return fmt.Errorf("page_pool_create: mp_dmabuf_devmem_init: %w: a devmem pool may not sync for the device (PP_FLAG_DMA_SYNC_DEV; 6.12, 8ab79ed50cf1)", ErrNotSupp)
		case pool.P.Order != 0:
			return fmt.Errorf("page_pool_create: mp_dmabuf_devmem_init: %w: order %d (net_iovs are PAGE_SIZE)", ErrE2Big, pool.P.Order)
		}
	case sim.MPOps:
		if f&FlagDMAMap == 0 || f&FlagDMASyncDev == 0 {
			return fmt.Errorf("page_pool_init: %w: a memory-provider pool must set PP_FLAG_DMA_MAP and PP_FLAG_DMA_SYNC_DEV (b400f4b87430, v6.14)", ErrNotSupp)
		}
		if mp.IOUring() {
			// io_pp_zc_init (6.15): the area was mapped for the device
			// at registration; it refuses what it cannot serve and leaves
			// pool->dma_sync on: io_uring syncs each niov for the device
			// itself when it refills (io_zcrx_sync_for_device), and the
			// pool syncs one it recycles through a put.
			if pool.P.Order != 0 {
				return fmt.Errorf("page_pool_init: io_pp_zc_init: %w: order %d (niovs are PAGE_SIZE)", ErrNotSupp, pool.P.Order)
			}
			break
		}
		if pool.P.Order != 0 {
			return fmt.Errorf("page_pool_init: mp_dmabuf_devmem_init: %w: order %d (net_iovs are PAGE_SIZE)", ErrE2Big, pool.P.Order)
		}
		pool.dma.syncOff = true // mp_dmabuf_devmem_init: pool->dma_sync = false (and dma_sync_for_cpu); p.flags keeps PP_FLAG_DMA_SYNC_DEV
	default:
		panic(fmt.Sprintf("pagepool: a memory provider on queue %d in era %s, which has none", q.Index, m.Era.Name))
	}
	pool.mp = mp
	if m.Tracing() {
		why := "page_pool_init: PP_FLAG_ALLOW_UNREADABLE_NETMEM on a queue bound to a dma-buf: the pool takes its memory from the binding (pool->mp_priv); it maps nothing and syncs nothing (the binding was mapped once, at bind time)"
		if m.Era.MemProvider == sim.MPOps {
			why = "page_pool_init: PP_FLAG_ALLOW_UNREADABLE_NETMEM on a bound queue: pool->mp_ops = the queue's provider, whose init turns dma_sync off (the binding was mapped once, at bind time)"
			if mp.IOUring() {
				why = "page_pool_init: PP_FLAG_ALLOW_UNREADABLE_NETMEM on a queue bound to an io_uring zcrx area: pool->mp_ops = io_uring_pp_zc_ops; dma_sync stays on (io_uring syncs each niov for the device when it refills the cache)"
			}
		}
		m.Emit(sim.Event{CPU: cpu, Func: sim.SymPoolCreate, Pool: pool.ID, Page: -1, Stat: sim.StatNone, Why: why})
	}
	return nil
}

// mpAllocNetmems models pool->mp_ops->alloc_netmems (6.12: the direct call
// of mp_dmabuf_devmem_alloc_netmems when pool->mp_priv is set), which
// page_pool_alloc_netmems calls instead of the slow path when the alloc
// cache and the ring are empty. No alloc_stat_inc(pool, slow): a provider
// pool never counts the slow path.
func (p *Pool) mpAllocNetmems(cpu int) *mm.Page {
	if p.mp.IOUring() {
		return p.zcAllocNetmems(cpu, p.m.Charge(cpu, sim.SymZcAllocNetmems, 0))
	}
	cost := p.m.Charge(cpu, sim.SymMPAllocNetmems, 0)
	// mp_dmabuf_devmem_alloc_netmems (0f9214046893): ONE chunk from the
	// binding's genpool per call, no bulk.
	pg := p.mp.B.AllocChunk()
	if pg == nil {
		p.ev(cpu, sim.SymMPAllocNetmems, nil, sim.PlaceGenpool, sim.PlaceNone, sim.StatNone, cost,
			"mp_dmabuf_devmem_alloc_netmems: the dma-buf binding's genpool is empty: no net_iov (the driver's refill fails)")
		return nil
	}
	p.setPPInfo(cpu, pg)
	p.hold(cpu, pg)
	p.ev(cpu, sim.SymMPAllocNetmems, pg, sim.PlaceGenpool, sim.PlaceDriver, sim.StatNone, cost,
		"mp_dmabuf_devmem_alloc_netmems: one PAGE_SIZE net_iov from the dma-buf binding's genpool (gen_pool_alloc), its DMA address set at bind time; page_pool_set_pp_info, hold++ — no bulk and no 'slow' stat")
	return pg
}

// zcAllocNetmems models io_pp_zc_alloc_netmems (io_uring/zcrx.c, 6.15):
// drain the user's refill queue into the alloc cache (io_zcrx_ring_refill),
// else take up to PP_ALLOC_CACHE_REFILL niovs from the area's freelist
// (io_zcrx_refill_slow), then return pp->alloc.cache[--pp->alloc.count].
func (p *Pool) zcAllocNetmems(cpu int, cost int64) *mm.Page {
	if p.zcrxRingRefill(cpu) == 0 {
		n := 0
		for ; n < AllocCacheRefill && p.alloc.count < AllocCacheSize; n++ {
			pg := p.mp.B.AllocChunk()
			if pg == nil {
				break
			}
			p.setPPInfo(cpu, pg) // net_mp_niov_set_page_pool: set_pp_info, hold++
			p.hold(cpu, pg)
			p.zcrxSyncForDevice(cpu, pg)
			p.placeInCache(pg)
		}
		if n > 0 && p.m.Tracing() {
			p.ev(cpu, sim.SymZcAllocNetmems, nil, sim.PlaceGenpool, sim.PlaceCache, sim.StatNone, cost,
				fmt.Sprintf("io_zcrx_refill_slow: the refill queue was empty: %d niovs from the io_uring area's freelist into the alloc cache (net_mp_niov_set_page_pool: hold++ each, no 'slow' stat)", n))
		}
	}
	pg := p.popCache()
	if pg == nil {
		p.ev(cpu, sim.SymZcAllocNetmems, nil, sim.PlaceNone, sim.PlaceNone, sim.StatNone, cost,
			"io_pp_zc_alloc_netmems: the refill queue and the area's freelist are empty: no niov")
	}
	return pg
}

// zcrxRingRefill models io_zcrx_ring_refill: for each rqe the user posted,
// drop the user's reference (io_zcrx_put_niov_uref) and the pool
// reference it stood for (page_pool_unref_netmem(netmem, 1)); a niov whose
// last reference that was, and that is this pool's, goes straight into the
// alloc cache (net_mp_netmem_place_in_cache: no recycle stat); one of
// another pool goes back to the area (io_zcrx_return_niov). Returns the
// niovs placed.
func (p *Pool) zcrxRingRefill(cpu int) int {
	mp := p.mp
	n := 0
	// entries = min(io_zcrx_rqring_entries(ifq), PP_ALLOC_CACHE_REFILL -
	// pp->alloc.count): an rqe whose niov keeps a reference still counts.
	entries := min(len(mp.refill)-mp.rqHead, AllocCacheRefill-p.alloc.count)
	for ; entries > 0; entries-- {
		pg := mp.refill[mp.rqHead]
		mp.refill[mp.rqHead] = nil
		mp.rqHead++
		if p.defragPage(pg, 1) != 0 {
			continue // another reference remains (an skb still holds the frag)
		}
		if pg.PP != p.ID {
			// io_zcrx_return_niov: a niov of another pool goes back to it
			// (page_pool_put_unrefed_netmem(niov->pp, netmem, -1, false));
			// one with no pool to the area's freelist.
			if pool := p.reg.Lookup(pg.PP); pool != nil {
				pool.putUnrefedPage(cpu, pg, -1, false)
			} else {
				mp.B.FreeChunk(pg) // io_zcrx_return_niov_freelist
			}
			continue
		}
		p.zcrxSyncForDevice(cpu, pg)
		p.alloc.cache[p.alloc.count] = pg // net_mp_netmem_place_in_cache
		p.alloc.from[p.alloc.count] = cacheFromUser
		p.alloc.count++
		p.recycled(pg, sim.PlaceCache)
		n++
	}
	if mp.rqHead == len(mp.refill) {
		mp.refill, mp.rqHead = mp.refill[:0], 0
	}
	if n > 0 {
		cost := p.m.Charge(cpu, sim.SymZcrxRefill, n)
		if !p.m.Tracing() {
			return n
		}
		p.ev(cpu, sim.SymZcrxRefill, nil, sim.PlaceUser, sim.PlaceCache, sim.StatNone, cost,
			fmt.Sprintf("io_zcrx_ring_refill: %d niovs the user gave back on the refill queue go straight into the alloc cache (net_mp_netmem_place_in_cache: no ptr_ring, no recycle stat)", n))
	}
	return n
}

// zcrxSyncForDevice models io_zcrx_sync_for_device (io_uring/zcrx.c,
// "io_uring/zcrx: dma-map area for the device",
// <20250215000947.789731-6-dw@davidwei.uk>, v6.15): a niov going back into
// the cache is synced for the device, PAGE_SIZE from pool->p.offset —
// nothing on a device whose DMA needs no sync (dma_dev_need_sync: the mm
// model's SkipSync).
func (p *Pool) zcrxSyncForDevice(cpu int, pg *mm.Page) {
	p.a.DMA.SyncForDevice(cpu, pg, p.P.Offset, mm.PageSize, p.P.DMADir)
}

// placeInCache puts a net_iov on top of the alloc cache
// (net_mp_netmem_place_in_cache: pool->alloc.cache[pool->alloc.count++]).
func (p *Pool) placeInCache(pg *mm.Page) {
	p.alloc.cache[p.alloc.count] = pg
	p.alloc.from[p.alloc.count] = cacheFromUser
	p.alloc.count++
	pg.MoveTo(p.m, sim.PlaceCache, p.ID)
}

// ZcrxReturn models the user posting a niov on io_uring's refill queue (an
// io_zcrx_rqe with the niov's offset in the area): the pool takes it back
// at its next alloc_netmems; if an skb still holds it then (a deferred
// free), the refill only drops the user's reference and the skb's free
// recycles it the ordinary way.
func (mp *Provider) ZcrxReturn(pg *mm.Page) {
	if !mp.IOUring() || !mp.B.Owns(pg) {
		panic(fmt.Sprintf("pagepool: ZcrxReturn of a niov that is not the io_uring area's: %s", pg))
	}
	mp.refill = append(mp.refill, pg) // still the user's (PlaceUser) until the kernel consumes the rqe
}

// mpReleaseNetmem models page_pool_return_netmem for a provider pool: put =
// pool->mp_ops->release_netmem(pool, netmem) (6.12: the direct call of
// mp_dmabuf_devmem_release_page): WARN unless pp_ref_count is 1,
// page_pool_clear_pp_info, gen_pool_free back into the binding (io_uring:
// io_pp_zc_release_netmem, back on the area's freelist), and false — "We
// don't want the page pool put_page()ing our net_iovs" — while
// pages_state_release_cnt still counts it.
func (p *Pool) mpReleaseNetmem(cpu int, pg *mm.Page) {
	sym := sim.SymMPReleaseNetmem
	if p.mp.IOUring() {
		sym = sim.SymZcReleaseNetmem
	}
	cost := p.m.Charge(cpu, sym, 0)
	from := pg.Place
	p.releaseCnt++ // page_pool_return_netmem counts it whatever the provider did
	if pg.FragCount != 1 && !p.mp.IOUring() {
		// mp_dmabuf_devmem_release_page: `if (WARN_ON_ONCE(refcount != 1))
		// return false;` before page_pool_clear_pp_info and gen_pool_free:
		// the net_iov never goes back to the binding (io_uring's release
		// has no such test). Reachable only with a rule broken.
		if p.m.Tracing() {
			p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymMPReleaseNetmem, Pool: p.ID, Page: pg.PFN, Stat: sim.StatNone,
				Why: fmt.Sprintf("WARN_ON_ONCE: mp_dmabuf_devmem_release_page of a net_iov whose pp_ref_count is %d, not 1: it is left as it is, never freed back into the binding", pg.FragCount)})
		}
		p.mp.Leaked++
		if pg.Owner == p.ID {
			pg.Owner = 0
		}
		pg.MoveTo(p.m, sim.PlaceDriver, -1)
		k := sim.KindInflightLeak
		pg.ReportOnce(p.m, k, p.m.RuleFor(k), "mp_dmabuf_devmem_release_page refused a net_iov with pp_ref_count %d: it never goes back to binding %d", pg.FragCount, p.mp.B.ID)
		return
	}
	p.clearPPInfo(pg)
	if pg.Owner == p.ID {
		pg.Owner = 0
	}
	p.mp.B.FreeChunk(pg)
	if p.m.Tracing() {
		why := "mp_dmabuf_devmem_release_page: the net_iov goes back to the binding's genpool (gen_pool_free); release_cnt++, no dma unmap, no put_page"
		if p.mp.IOUring() {
			why = "io_pp_zc_release_netmem: the niov goes back on the io_uring area's freelist; release_cnt++, no dma unmap, no put_page"
		}
		p.ev(cpu, sym, pg, from, sim.PlaceGenpool, sim.StatNone, cost, why)
		p.m.Emit(sim.Event{CPU: cpu, Kind: sim.EvStateRelease, Func: sim.SymReturnPage, Pool: p.ID, Page: pg.PFN, NetIov: pg.NetIov, Release: p.releaseCnt, Stat: sim.StatNone}) // traced in page_pool_return_page after the provider's release
	}
}

// RefNetmem models page_pool_ref_netmem (atomic_long_inc(pp_ref_count)):
// one more user of a pool netmem, e.g. the token tcp_recvmsg_dmabuf hands
// to user space for a frag.
func RefNetmem(pg *mm.Page) { pg.FragCount++ }
