package drivers

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// The driver's own RX page cache: a second recycler in front of the pool,
// kept by mlx5 before 6.4 (Spec.RxCacheUntil). The model follows
// drivers/net/ethernet/mellanox/mlx5/core/en_rx.c of v5.12–v6.3
// (mlx5e_rx_cache_put, mlx5e_rx_cache_get, mlx5e_page_alloc_pool,
// mlx5e_page_release_dynamic, mlx5e_page_dma_unmap,
// mlx5e_skb_from_cqe_linear, mlx5e_handle_rx_cqe), en.h (MLX5E_CACHE_SIZE,
// struct mlx5e_page_cache), en_stats.c (rx_cache_*) and en_main.c
// (mlx5e_alloc_rq: pp_params.flags = 0; mlx5e_free_rq drains the cache);
// the cache was removed by "net/mlx5e: RX, Remove internal page_cache"
// (<20230328205623.142075-6-saeed@kernel.org>, v6.4), in the series that
// let the pool map the pages (4a5c5e25008f) and marked skbs for recycling
// (6f5742846053).
//
//   - Refill (mlx5e_page_alloc_pool): mlx5e_rx_cache_get looks at the
//     cache's head only — empty: rx_cache_empty; the head page's
//     page_ref_count != 1 (an skb still holds it): rx_cache_busy, and the
//     head blocks the pages behind it; otherwise the page leaves the cache
//     (rx_cache_reuse), still mapped, synced for the device for PAGE_SIZE.
//     When the cache gives nothing, page_pool_dev_alloc_pages and the
//     driver's own dma_map_page (the pool has no PP_FLAG_DMA_MAP).
//   - Receive (mlx5e_skb_from_cqe_linear): sync for the CPU, build the skb
//     over the page, page_ref_inc: the skb holds a reference of its own and
//     the driver keeps the pool's. The skb is not marked: its free is a
//     put_page, which brings the count back to 1.
//   - Release of the RX slot (mlx5e_free_rx_wqe(rq, wi, true) after
//     napi_gro_receive returned, and after an XDP_DROP):
//     mlx5e_page_release_dynamic(recycle = true) → mlx5e_rx_cache_put: full
//     (tail + 1 == head): rx_cache_full; a page that is not
//     dev_page_is_reusable (another node than numa_mem_id(), or pfmemalloc):
//     rx_cache_waive; else into the tail. A refused page is unmapped
//     (mlx5e_page_dma_unmap) and given to page_pool_recycle_direct, which
//     keeps it only if the skb is gone (refcount 1) and releases it
//     otherwise (released_refcnt).
//   - Teardown (mlx5e_free_rx_descs, then mlx5e_free_rq): the posted
//     buffers and then every cached page go through
//     mlx5e_page_release_dynamic(rq, page, false): unmap,
//     page_pool_release_page, put_page — before page_pool_destroy.
//
// The model releases a frame's RX slot when the driver next runs on the
// NAPI's CPU (the next receive, refill, NAPI move or unload): that is after
// the stack's part of the frame, as mlx5e_handle_rx_cqe's free_wqe comes
// after napi_gro_receive (in drop the skb is already freed, in tcp-stream
// it sits in the socket). Between an skb's free and that release the
// page's recorded place is still the skb's (the model records the last
// holder to move a page; the driver's RX slot still points at it).
//
// A cached page is not a user of its data (Page.Users): it is not posted
// for the NIC to write. The refill reuses it only at page_ref_count 1, and
// a page posted while an skb still held its bytes would be caught by the
// checker as a posted buffer over live skb data.

// RxCacheSize is MLX5E_CACHE_SIZE: 4 * roundup_pow_of_two(MLX5E_CACHE_UNIT),
// the unit being max(MLX5_MPWRQ_PAGES_PER_WQE, NAPI_POLL_WEIGHT) = 64 with
// 4 KiB pages. A ring of head and tail indexes: head == tail is empty,
// tail + 1 == head full, so it holds RxCacheSize - 1 pages.
const RxCacheSize = 256

// RxCacheStat is one of the driver cache's counters (struct mlx5e_rq_stats:
// cache_reuse, cache_full, cache_empty, cache_busy, cache_waive). They are
// the driver's counters, not page_pool's.
type RxCacheStat uint8

const (
	RxCacheReuse RxCacheStat = iota // a page reused from the cache's head
	RxCacheFull                     // a put found the cache full
	RxCacheEmpty                    // a get found the cache empty
	RxCacheBusy                     // a get found the head page still referenced
	RxCacheWaive                    // a put refused a remote or pfmemalloc page
	NumRxCacheStats
)

// rxCacheNames are the counters' names in en_stats.c: sw_stats_desc's
// rx_cache_* (summed over the channels) and rq_stats_desc's per-ring
// rx%d_cache_* (MLX5E_DECLARE_RX_STAT), in RxCacheStat order.
var rxCacheNames = [NumRxCacheStats]string{"cache_reuse", "cache_full", "cache_empty", "cache_busy", "cache_waive"}

// RxCacheStats are the driver cache's counters.
type RxCacheStats [NumRxCacheStats]int64

// EthtoolName is the `ethtool -S` name of the counter: the device total
// (rx_cache_reuse) for ring < 0, the RX ring's own (rx0_cache_reuse)
// otherwise.
func (s RxCacheStat) EthtoolName(ring int) string {
	if ring >= 0 {
		return fmt.Sprintf("rx%d_%s", ring, rxCacheNames[s])
	}
	return "rx_" + rxCacheNames[s]
}

// rxCache is struct mlx5e_page_cache with its counters.
type rxCache struct {
	head, tail int
	pages      [RxCacheSize]*mm.Page
	stats      RxCacheStats `pp:"counter"`
}

func (c *rxCache) count() int { return (c.tail - c.head) & (RxCacheSize - 1) }

// RxCache reports whether the driver runs its own RX page cache (in this
// era), its counters, and the pages in it from head to tail.
func (d *Driver) RxCache() (st RxCacheStats, pages []*mm.Page, ok bool) {
	c := d.cache
	if c == nil {
		return st, nil, false
	}
	for i := c.head; i != c.tail; i = (i + 1) & (RxCacheSize - 1) {
		pages = append(pages, c.pages[i])
	}
	return c.stats, pages, true
}

// RxCacheIndexes are the cache's head and tail slots (both 0 without a cache).
func (d *Driver) RxCacheIndexes() (head, tail int) {
	if d.cache == nil {
		return 0, 0
	}
	return d.cache.head, d.cache.tail
}

// cacheGet models mlx5e_rx_cache_get: the head page if it is free to reuse
// (page_ref_count == 1), synced for the device; nil when the cache is empty
// or its head is still referenced (counted as such).
func (d *Driver) cacheGet(cpu int) *mm.Page {
	c := d.cache
	if c.head == c.tail {
		c.stats[RxCacheEmpty]++
		return nil
	}
	pg := c.pages[c.head]
	if pg.Ref != 1 {
		c.stats[RxCacheBusy]++
		if d.S.M.Tracing() {
			d.ev(sim.SymDrvRx, pg, sim.PlaceDriverCache, sim.PlaceDriverCache, fmt.Sprintf("mlx5e_rx_cache_get: the cache's head page has page_ref_count %d (an skb still holds it): rx_cache_busy, the refill allocates from the pool", pg.Ref))
		}
		return nil
	}
	c.pages[c.head] = nil
	c.head = (c.head + 1) & (RxCacheSize - 1)
	c.stats[RxCacheReuse]++
	pg.MoveTo(d.S.M, sim.PlaceDriver, -1)
	if d.S.M.Tracing() {
		d.ev(sim.SymDrvRx, pg, sim.PlaceDriverCache, sim.PlaceDriver, "mlx5e_rx_cache_get: the head page's refcount fell back to 1: reused without the pool (rx_cache_reuse), still mapped; dma_sync_single_for_device of PAGE_SIZE")
	}
	d.S.A.DMA.SyncForDevice(cpu, pg, 0, mm.PageSize, mm.DMAFromDevice)
	return pg
}

// cachePut models mlx5e_rx_cache_put: into the tail, unless the cache is
// full or the page is not dev_page_is_reusable (another node than the
// CPU's, or pfmemalloc).
func (d *Driver) cachePut(cpu int, pg *mm.Page) bool {
	c := d.cache
	m := d.S.M
	next := (c.tail + 1) & (RxCacheSize - 1)
	if next == c.head {
		c.stats[RxCacheFull]++
		if m.Tracing() {
			d.ev(sim.SymDrvRx, pg, pg.Place, pg.Place, fmt.Sprintf("mlx5e_rx_cache_put: the cache is full (%d pages): rx_cache_full", RxCacheSize-1))
		}
		return false
	}
	if int(pg.Nid) != m.NodeOf(cpu) || pg.Pfmemalloc() { // !dev_page_is_reusable
		c.stats[RxCacheWaive]++
		if m.Tracing() {
			d.ev(sim.SymDrvRx, pg, pg.Place, pg.Place, fmt.Sprintf("mlx5e_rx_cache_put: not dev_page_is_reusable (node %d, this CPU's node %d, pfmemalloc %v): rx_cache_waive", pg.Nid, m.NodeOf(cpu), pg.Pfmemalloc()))
		}
		return false
	}
	from := pg.Place
	c.pages[c.tail] = pg
	pg.MoveTo(m, sim.PlaceDriverCache, int32(c.tail))
	c.tail = next
	if m.Tracing() {
		d.ev(sim.SymDrvRx, pg, from, sim.PlaceDriverCache, fmt.Sprintf("mlx5e_rx_cache_put: the released RX buffer goes into the driver's cache (%d pages), still mapped, refcount %d", c.count(), pg.Ref))
	}
	return true
}

// releaseDynamic models mlx5e_page_release_dynamic(rq, page, recycle):
// recycle tries the driver's cache first, then unmaps and gives the page to
// page_pool_recycle_direct; without recycle (teardown) it unmaps,
// page_pool_release_page and put_page.
func (d *Driver) releaseDynamic(cpu int, pg *mm.Page, recycle bool) {
	if recycle && d.cachePut(cpu, pg) {
		return
	}
	if pg.Mapped { // mlx5e_page_dma_unmap
		d.S.A.DMA.UnmapPage(cpu, pg, mm.PageSize<<pg.Order, mm.DMAFromDevice)
	}
	if recycle {
		d.S.M.Begin(cpu, sim.SymPutPage)
		d.Pool.RecycleDirect(cpu, pg)
		return
	}
	d.S.M.Begin(cpu, sim.SymReleasePage)
	if pg.Place == sim.PlaceDriverCache || pg.Place == sim.PlaceNICRing {
		pg.MoveTo(d.S.M, sim.PlaceDriver, -1) // out of the driver's containers before put_page
	}
	if err := d.Pool.ReleasePage(cpu, pg); err != nil {
		panic(fmt.Sprintf("drivers: %v (a driver cache exists only in eras with page_pool_release_page)", err))
	}
	d.S.A.PutPage(cpu, pg)
}

// releaseRx releases the RX slots of the frames received since the driver
// last ran (mlx5e_free_rx_wqe(rq, wi, true)): see the file comment for when.
func (d *Driver) releaseRx() {
	if len(d.pending) != 0 { // the test inlines: a driver without the cache pays a load
		d.releasePending()
	}
}

func (d *Driver) releasePending() {
	cpu := d.CPU()
	for i, pg := range d.pending {
		d.releaseDynamic(cpu, pg, true)
		d.pending[i] = nil
	}
	d.pending = d.pending[:0]
}

// drainRxCache models the loop of mlx5e_free_rq before page_pool_destroy:
// every cached page, head to tail, through mlx5e_page_release_dynamic(rq,
// page, false).
func (d *Driver) drainRxCache(cpu int) {
	c := d.cache
	for ; c.head != c.tail; c.head = (c.head + 1) & (RxCacheSize - 1) {
		pg := c.pages[c.head]
		c.pages[c.head] = nil
		d.releaseDynamic(cpu, pg, false)
	}
}
