package drivers

import (
	"testing"

	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
	"pplab/engine/skb"
)

// cacheStats is d's rx_cache_* counters, failing when the driver has no cache.
func cacheStats(t *testing.T, d *Driver) RxCacheStats {
	t.Helper()
	st, _, ok := d.RxCache()
	if !ok {
		t.Fatal("the driver has no RX page cache in this era")
	}
	return st
}

// receive64 receives one 64-byte frame in NAPI context.
func receive64(t *testing.T, d *Driver) *skb.SKB {
	t.Helper()
	d.S.M.CPUs[d.CPU()].Softirq = true
	d.S.M.Begin(d.CPU(), sim.SymDrvRx)
	sk, err := d.Receive(64, hdrEth)
	if err != nil || sk == nil {
		t.Fatalf("receive: %v", err)
	}
	return sk
}

func free(d *Driver, sk *skb.SKB) {
	d.S.M.Begin(d.CPU(), sim.SymKfreeSKB)
	d.S.KfreeSKB(d.CPU(), sk)
}

func poolAllocs(d *Driver) uint64 {
	var st sim.Stats
	d.Pool.GetStats(&st)
	return st[sim.StatAllocFast] + st[sim.StatAllocSlow] + st[sim.StatAllocRefill]
}

// mlx5e_skb_from_cqe_linear takes a page reference for the skb
// (page_ref_inc) and leaves the skb unmarked; mlx5e_free_rx_wqe puts the
// page into the driver's cache; once the skb's put_page brought the count
// back to 1, mlx5e_rx_cache_get reuses it: no pool allocation, still mapped
// by the driver, synced for the device.
func TestMlx5eRxCache_ReusesAPageWhoseRefcountFellToOne(t *testing.T) {
	d := newDriver(t, "mlx5", "5.15")
	m := d.S.M
	if d.Pool.P.Flags&pagepool.FlagDMAMap != 0 { // PP_FLAG_DMA_MAP
		t.Fatal("before 6.4 mlx5's pool must not map (pp_params.flags = 0): the driver maps with dma_map_page")
	}
	if got := cacheStats(t, d); got != (RxCacheStats{RxCacheEmpty: 8}) {
		t.Fatalf("after the ring fill: %v, want rx_cache_empty 8 (one per descriptor)", got)
	}
	allocs := poolAllocs(d)
	sk := receive64(t, d)
	pg := sk.D.HeadPage
	if pg.Ref != 2 || sk.PPRecycle || !pg.Mapped || pg.Owner != d.Pool.ID {
		t.Fatalf("after the skb build: %v pp_recycle %v; want refcount 2 (page_ref_inc), not marked, mapped, still the pool's", pg, sk.PPRecycle)
	}
	free(d, sk)
	if pg.Ref != 1 {
		t.Fatalf("after kfree_skb: refcount %d, want 1 (the driver's)", pg.Ref)
	}
	syncs, inflight := d.S.A.DMA.SyncDevCalls, d.Pool.Inflight()
	m.Begin(0, sim.SymAllocPages)
	d.Refill()
	if got := cacheStats(t, d); got != (RxCacheStats{RxCacheEmpty: 8, RxCacheReuse: 1}) {
		t.Errorf("after the refill: %v, want rx_cache_reuse 1, rx_cache_empty 8", got)
	}
	if poolAllocs(d) != allocs || pg.Place != sim.PlaceNICRing || !pg.Mapped || pg.Ref != 1 {
		t.Errorf("pool allocations %d → %d, page %v: want the same page reposted, mapped, without the pool", allocs, poolAllocs(d), pg)
	}
	if d.S.A.DMA.SyncDevCalls != syncs+1 {
		t.Errorf("%d device syncs, want 1 (dma_sync_single_for_device of PAGE_SIZE)", d.S.A.DMA.SyncDevCalls-syncs)
	}
	if d.Pool.Inflight() != inflight {
		t.Errorf("inflight %d → %d: a page the driver's cache reuses stays the pool's", inflight, d.Pool.Inflight())
	}
	d.Unload()
	simtest.Clean(t, m)
}

// mlx5e_rx_cache_get looks at the head only: a head page an skb still holds
// (page_ref_count 2) is busy, and the refill falls back to the pool; once
// the skb is gone, the next refill reuses it from the head.
func TestMlx5eRxCache_BusyWhenTheStackStillHoldsThePage(t *testing.T) {
	d := newDriver(t, "mlx5", "5.14")
	m := d.S.M
	held := receive64(t, d)
	allocs := poolAllocs(d)
	m.Begin(0, sim.SymAllocPages)
	d.Refill()
	if got := cacheStats(t, d); got != (RxCacheStats{RxCacheEmpty: 8, RxCacheBusy: 1}) {
		t.Errorf("with the skb held: %v, want rx_cache_busy 1", got)
	}
	if poolAllocs(d) != allocs+1 || held.D.HeadPage.Place != sim.PlaceDriverCache {
		t.Errorf("%d pool allocations, held page in %s: want one from the pool, the held page in the driver's cache", poolAllocs(d)-allocs, held.D.HeadPage.Place)
	}
	free(d, held)
	sk := receive64(t, d)
	second := sk.D.HeadPage
	free(d, sk)
	m.Begin(0, sim.SymAllocPages)
	d.Refill()
	if got := cacheStats(t, d); got != (RxCacheStats{RxCacheEmpty: 8, RxCacheBusy: 1, RxCacheReuse: 1}) {
		t.Errorf("after the skb's free: %v, want rx_cache_reuse 1", got)
	}
	if _, pages, _ := d.RxCache(); len(pages) != 1 || pages[0] != second || second.Place != sim.PlaceDriverCache {
		t.Errorf("cache holds %d pages, want the second frame's page left behind the reused head", len(pages))
	}
	d.Unload()
	simtest.Clean(t, m)
}

// A cache whose head is blocked fills up: 255 pages (256 slots, one kept
// empty); the next put is rx_cache_full, and the page goes to
// page_pool_recycle_direct, which releases it while the skb holds it.
func TestMlx5eRxCache_FullThenRecycleDirectReleases(t *testing.T) {
	d := newDriver(t, "mlx5", "5.15")
	m := d.S.M
	var held []*skb.SKB
	for i := 0; i < RxCacheSize; i++ {
		held = append(held, receive64(t, d))
		m.Begin(0, sim.SymAllocPages)
		d.Refill()
	}
	if got := cacheStats(t, d); got != (RxCacheStats{RxCacheEmpty: 8, RxCacheBusy: RxCacheSize, RxCacheFull: 1}) {
		t.Errorf("%v, want rx_cache_busy 256 (every refill met the blocked head), rx_cache_full 1 (255 pages fit)", got)
	}
	// The 256th refill's put came first: that page was refused and
	// released; its own get then saw the blocked head (busy 256 in all).
	var st sim.Stats
	d.Pool.GetStats(&st)
	last := held[len(held)-1].D.HeadPage
	if st[sim.StatRecycleReleasedRefcnt] != 1 || last.Owner != 0 || last.Mapped {
		t.Errorf("released_refcnt %d, refused page %v: want it unmapped by the driver and released by the pool", st[sim.StatRecycleReleasedRefcnt], last)
	}
	for _, sk := range held {
		free(d, sk)
	}
	if last.Place != sim.PlaceBuddy {
		t.Errorf("the released page is in %s after its skb's free, want the page allocator", last.Place)
	}
	d.Unload()
	simtest.Clean(t, m)
}

// dev_page_is_reusable: a page of another node than the releasing CPU's is
// waived (rx_cache_waive) and goes back through page_pool_recycle_direct —
// into the pool's alloc cache, its skb being gone.
func TestMlx5eRxCache_WaivesARemotePage(t *testing.T) {
	d := newDriver(t, "mlx5", "5.15", "numa_nodes=2")
	m := d.S.M
	sk := receive64(t, d)
	free(d, sk)
	other := -1
	for c := range m.CPUs {
		if m.NodeOf(c) != m.NodeOf(0) {
			other = c
		}
	}
	if other < 0 {
		t.Fatal("no CPU on another node")
	}
	// The slot is released on the NAPI's CPU before it moves: to see the
	// waive, release it from the other node.
	d.NAPI.CPU = other
	m.CPUs[other].Softirq = true
	m.Begin(other, sim.SymAllocPages)
	d.Refill()
	var st sim.Stats
	d.Pool.GetStats(&st)
	if got := cacheStats(t, d); got[RxCacheWaive] != 1 || st[sim.StatRecycleCached] != 1 {
		t.Errorf("%v, recycle_cached %d: want rx_cache_waive 1 and the page recycled into the pool's cache", got, st[sim.StatRecycleCached])
	}
	d.NAPI.CPU = 0
	d.Unload()
	simtest.Clean(t, m)
}

// mlx5e_free_rx_descs and mlx5e_free_rq: the posted buffers and the
// cache's pages leave the pool (mlx5e_page_release_dynamic(…, false))
// before page_pool_destroy, so nothing is left in flight even while a
// socket still holds an skb; its page goes to the page allocator when it
// is freed.
func TestMlx5eRxCache_TeardownDrainsTheCacheBeforeDestroy(t *testing.T) {
	d := newDriver(t, "mlx5", "5.15")
	m := d.S.M
	held := receive64(t, d)
	sk := receive64(t, d)
	free(d, sk)
	m.Begin(0, sim.SymAllocPages)
	d.Refill()
	if _, pages, _ := d.RxCache(); len(pages) != 2 {
		t.Fatalf("cache holds %d pages, want 2", len(pages))
	}
	d.Unload()
	if d.Pool.Inflight() != 0 || !d.Pool.Freed() {
		t.Errorf("after unload: inflight %d, freed %v; want every page released before page_pool_destroy", d.Pool.Inflight(), d.Pool.Freed())
	}
	if _, pages, _ := d.RxCache(); len(pages) != 0 {
		t.Errorf("%d pages left in the driver's cache", len(pages))
	}
	pg := held.D.HeadPage
	free(d, held)
	if pg.Place != sim.PlaceBuddy || pg.Mapped {
		t.Errorf("held page after its free: %v, want it unmapped in the page allocator", pg)
	}
	simtest.Clean(t, m)
}

// From 6.4 the cache is gone ("net/mlx5e: RX, Remove internal page_cache"):
// the pool maps its pages (4a5c5e25008f) and skbs are marked for recycling
// (6f5742846053). The comparison is by era order: every era before 6.4
// keeps it.
func TestMlx5eRxCache_GoneFrom64(t *testing.T) {
	for _, era := range sim.Eras {
		d := newDriver(t, "mlx5", era.Name)
		_, _, has := d.RxCache()
		six4, _ := sim.EraByName("6.4")
		if want := era.Order < six4.Order; has != want {
			t.Errorf("era %s: driver cache %v, want %v", era.Name, has, want)
		}
		sk := receive64(t, d)
		if has == sk.PPRecycle || has == (d.Pool.P.Flags&pagepool.FlagDMAMap != 0) || has != d.Spec.HasRxCache(&era) {
			t.Errorf("era %s: cache %v, pp_recycle %v, pool flags %#x: the cache goes with an unmarked skb and a pool that does not map", era.Name, has, sk.PPRecycle, d.Pool.P.Flags)
		}
		free(d, sk)
		d.Unload()
		simtest.Clean(t, d.S.M)
	}
	for _, s := range Specs {
		if s.Name != "mlx5" && s.RxCacheUntil != "" {
			t.Errorf("%s has a driver cache; only mlx5's is modelled", s.Name)
		}
	}
}
