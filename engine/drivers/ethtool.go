package drivers

import (
	"fmt"

	"pplab/engine/sim"
)

// EthtoolNames says which names a driver's `ethtool -S` gives the 11
// page_pool counters (real kernels expose them from v5.18/v5.19 on, with
// CONFIG_PAGE_POOL_STATS; the model counts them in every era).
type EthtoolNames uint8

const (
	// EthtoolNone: the driver's ethtool code shows no page_pool counters:
	// mvpp2_ethtool_get_strings (mvpp2_main.c, read in the stored sources
	// and the 2024 ethtool_puts conversion) lists its MIB, port, per-queue
	// and XDP counters only; cpsw, bnxt and hns3 are not known to call the
	// helper (not checked line by line); lunar is out of tree. The model
	// then uses the generic helper's names.
	EthtoolNone EthtoolNames = iota
	// EthtoolGeneric: the driver appends the generic helper's strings,
	// page_pool_ethtool_stats_get_strings (net/core/page_pool.c, pp_stats[];
	// f3c5264f452a "net: page_pool: introduce ethtool stats", v5.19):
	// mvneta_ethtool_get_strings since Lorenzo Bianconi's 2022 patch. One set
	// per device, summed over its pools.
	EthtoolGeneric
	// EthtoolMLX5: mlx5 declares its own counters in en_stats.c
	// (sw_stats_desc: rx_pp_*, summed over the channels; rq_stats_desc:
	// MLX5E_DECLARE_RX_STAT → "rx%d_pp_*" per RX ring), named after the
	// struct page_pool_stats fields: rx_pp_alloc_slow_high_order where the
	// helper says rx_pp_alloc_slow_ho.
	EthtoolMLX5
)

// mlx5PP are the suffixes of mlx5's counter_desc entries (en_stats.c,
// MLX5E_DECLARE_STAT(struct mlx5e_sw_stats, rx_pp_<suffix>) and
// MLX5E_DECLARE_RX_STAT(struct mlx5e_rq_stats, pp_<suffix>)), in sim.Stat
// order.
var mlx5PP = [sim.NumStats]string{
	"alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_empty", "alloc_refill", "alloc_waive",
	"recycle_cached", "recycle_cache_full", "recycle_ring", "recycle_ring_full", "recycle_released_ref",
}

// EthtoolName is the `ethtool -S` name of counter st for the driver: the
// device total for ring < 0, the RX ring's own counter for ring >= 0 (only
// mlx5 has per-ring page_pool counters: perRing is false for the others, and
// the name is the device total's). exposed is false when the driver's ethtool
// code shows no page_pool counters (the name is then the generic helper's).
func (s *Spec) EthtoolName(st sim.Stat, ring int) (name string, exposed, perRing bool) {
	if st >= sim.NumStats {
		panic(fmt.Sprintf("EthtoolName: counter %d out of range", st))
	}
	switch s.Ethtool {
	case EthtoolMLX5:
		if ring >= 0 {
			return fmt.Sprintf("rx%d_pp_%s", ring, mlx5PP[st]), true, true
		}
		return "rx_pp_" + mlx5PP[st], true, false
	case EthtoolGeneric:
		return st.Ethtool(), true, false
	}
	return st.Ethtool(), false, false
}
