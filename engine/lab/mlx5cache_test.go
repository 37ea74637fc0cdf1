package lab

import (
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// driverStats is a run's driver counters (the device totals) by counter.
func driverStats(t *testing.T, r Results) (st drivers.RxCacheStats, ok bool) {
	t.Helper()
	if len(r.DriverStats) == 0 {
		return st, false
	}
	for i := drivers.RxCacheStat(0); i < drivers.NumRxCacheStats; i++ {
		total, ring := r.DriverStats[i], r.DriverStats[int(drivers.NumRxCacheStats)+int(i)]
		if total.Name != i.EthtoolName(-1) || ring.Name != i.EthtoolName(0) || total.Value != ring.Value {
			t.Fatalf("driver counters %v: want rx_cache_* then rx0_cache_*, equal (one RX ring)", r.DriverStats)
		}
		st[i] = total.Value
	}
	return st, true
}

// mlx5 before 6.4 recycles through its own RX page cache; from 6.4 through
// the pool. drop: the skb is freed before the slot is released, so every
// refill after the ring's fill reuses the cache's head — the pool sees the
// 1024 pages of the fill only. tcp-stream: the socket holds the skbs, the
// head of the cache is busy and blocks the pages behind it, the cache fills
// up, and a page it refuses goes to page_pool_recycle_direct with the skb's
// reference still on it: released_refcnt — the head-of-queue blocking the
// 6.4 series cites for removing the cache. From 6.4 there is no driver
// cache and the skbs are marked: the pages come back through the pool's
// ring and, NAPI-locally, its alloc cache.
func TestMlx5eRxCache_DropAndTCPStreamCounters(t *testing.T) {
	for _, tc := range []struct {
		scenario, era string
		pool          sim.Stats
		cache         *drivers.RxCacheStats
	}{
		{"drop", "5.15", sim.Stats{sim.StatAllocFast: 1008, sim.StatAllocSlow: 16, sim.StatAllocEmpty: 16},
			&drivers.RxCacheStats{drivers.RxCacheReuse: 4992, drivers.RxCacheEmpty: 1024}},
		{"drop", "6.4", sim.Stats{sim.StatAllocFast: 5922, sim.StatAllocSlow: 16, sim.StatAllocEmpty: 16, sim.StatAllocRefill: 78, sim.StatRecycleRing: 5000}, nil},
		{"tcp-stream", "5.15", sim.Stats{sim.StatAllocFast: 2785, sim.StatAllocSlow: 45, sim.StatAllocEmpty: 45, sim.StatRecycleReleasedRefcnt: 1571},
			&drivers.RxCacheStats{drivers.RxCacheReuse: 3186, drivers.RxCacheFull: 1571, drivers.RxCacheEmpty: 1024, drivers.RxCacheBusy: 1806}},
		{"tcp-stream", "6.4", sim.Stats{sim.StatAllocFast: 5940, sim.StatAllocSlow: 21, sim.StatAllocEmpty: 21, sim.StatAllocRefill: 55, sim.StatRecycleCached: 1926, sim.StatRecycleRing: 2889}, nil},
	} {
		what := "mlx5 " + tc.scenario + " " + tc.era
		_, r := run(t, Config{Driver: "mlx5", Scenario: tc.scenario, Era: tc.era, Packets: 5000})
		exactStats(t, what, r.Stats, tc.pool)
		got, ok := driverStats(t, r)
		switch {
		case tc.cache == nil && ok:
			t.Errorf("%s: driver cache counters %v, want none (the cache is gone from 6.4)", what, r.DriverStats)
		case tc.cache != nil && got != *tc.cache:
			t.Errorf("%s: rx_cache_* %v, want %v", what, got, *tc.cache)
		}
		if r.Violations.Total() != 0 || r.Lost != 0 {
			t.Errorf("%s: %d violations, %d lost", what, r.Violations.Total(), r.Lost)
		}
	}
}

// From 6.4 mlx5's pool maps and syncs for the device (PP_FLAG_DMA_MAP |
// PP_FLAG_DMA_SYNC_DEV, max_len = PAGE_SIZE: 4a5c5e25008f); before it the
// pool has neither flag and the driver maps each page itself. Before 6.4
// an XDP_TX frame's completion offers its page to the driver's RX cache
// first (mlx5e_free_xdpsq_desc → mlx5e_page_release_dynamic(rq, page,
// true)): the pool sees nothing after the ring's fill.
func TestMlx5_PoolMapsAndSyncsFrom64(t *testing.T) {
	for _, era := range []string{"5.15", "6.1", "6.4", "6.8"} {
		l, r := run(t, Config{Driver: "mlx5", Scenario: "xdp-tx", Era: era, Packets: 5000})
		flags := l.drv.Pool.P.Flags
		maps, syncs := flags&pagepool.FlagDMAMap != 0, flags&pagepool.FlagDMASyncDev != 0
		after := era == "6.4" || era == "6.8"
		if maps != after || syncs != after || (after && l.drv.Pool.P.MaxLen != mm.PageSize) {
			t.Errorf("%s: pool flags %#x max_len %d: want DMA_MAP and DMA_SYNC_DEV with max_len PAGE_SIZE from 6.4, neither before", era, flags, l.drv.Pool.P.MaxLen)
		}
		recycled := r.Stats[sim.StatRecycleCached] + r.Stats[sim.StatRecycleRing]
		if got, ok := driverStats(t, r); !after && (!ok || got[drivers.RxCacheReuse] < 4900 || recycled != 0) {
			t.Errorf("%s: cache %v, pool recycles %d: want the XDP_TX pages back through the driver's cache", era, got, recycled)
		}
		if r.Violations.Total() != 0 {
			t.Errorf("%s: %d violations", era, r.Violations.Total())
		}
	}
}
