package lab

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// EthtoolName is the `ethtool -S` name the driver's kernel code gives
// page_pool counter s: ring < 0 names the device total, ring >= 0 that RX
// ring's own counter, which only mlx5 has (rx<N>_pp_*: "" for the other
// drivers). A pool scenario (driver "") and a driver whose ethtool code shows
// no page_pool counters get the generic helper's names (EthtoolNote says
// so). The JSON `stats` keys are not these: they stay the CLI contract's.
func EthtoolName(driver string, s sim.Stat, ring int) string {
	sp, err := drivers.SpecByName(driver)
	if err != nil {
		if ring >= 0 {
			return ""
		}
		return s.Ethtool()
	}
	name, _, perRing := sp.EthtoolName(s, ring)
	if ring >= 0 && !perRing {
		return ""
	}
	return name
}

// EthtoolNote says, for a driver whose `ethtool -S` shows no page_pool
// counters, that the names are the generic helper's ("" otherwise).
func EthtoolNote(driver string) string {
	sp, err := drivers.SpecByName(driver)
	if err != nil {
		return ""
	}
	if _, exposed, _ := sp.EthtoolName(0, -1); !exposed {
		return driver + "'s ethtool -S shows no page_pool counters; the names are the generic helper's (page_pool_ethtool_stats_get_strings)"
	}
	return ""
}

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

// DriverStat is one of a driver's own counters, by its `ethtool -S` name.
type DriverStat struct {
	Name  string
	Value int64
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

// DriverStatsNote says whose counters DriverStats are: the cache model is
// mlx5e's (engine/drivers/mlx5cache.go).
func DriverStatsNote(driver string) string {
	return "mlx5e_rx_cache, " + driver + "'s own RX page cache in front of the pool (en_stats.c's rx_cache_*): the driver's counters, not page_pool's"
}
