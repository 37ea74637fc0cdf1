package lab

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// RingStats are the page_pool counters of each of the driver's RX rings, in
// ring order (the model's drivers have one RX queue: ring 0 is its pool);
// nil in a pool scenario. The device totals (Results.Stats) also count any
// other pool of the run (the veth peer's in xdp-redirect).
func (l *Lab) RingStats() []sim.Stats {
	if l.drv == nil || l.drv.Pool == nil {
		return nil
	}
	var st sim.Stats
	l.drv.Pool.GetStats(&st)
	return []sim.Stats{st}
}

// DriverStats are the driver's own counters that are not page_pool's: the
// RX page cache's of a driver that keeps one in this era (mlx5 before 6.4:
// en_stats.c's rx_cache_reuse, rx_cache_full, rx_cache_empty,
// rx_cache_busy, rx_cache_waive, then the ring's rx0_cache_*); nil
// otherwise.
func (l *Lab) DriverStats() []DriverStat {
	if l.drv == nil {
		return nil
	}
	st, _, ok := l.drv.RxCache()
	if !ok {
		return nil
	}
	out := make([]DriverStat, 0, 2*drivers.NumRxCacheStats)
	for _, ring := range []int{-1, 0} { // the device total, then the one RX ring
		for i := drivers.RxCacheStat(0); i < drivers.NumRxCacheStats; i++ {
			out = append(out, DriverStat{Name: i.EthtoolName(ring), Value: st[i]})
		}
	}
	return out
}
