package sim

// Stat is one of the 11 page_pool counters (struct page_pool_alloc_stats and
// page_pool_recycle_stats: include/net/page_pool.h, page_pool/types.h from
// v6.6; added by 8610037e8106 and ad6fa1e1ab1b, v5.18), in the kernel's order.
type Stat uint8

const (
	StatAllocFast Stat = iota
	StatAllocSlow
	StatAllocSlowHighOrder
	StatAllocEmpty
	StatAllocRefill
	StatAllocWaive
	StatRecycleCached
	StatRecycleCacheFull
	StatRecycleRing
	StatRecycleRingFull
	StatRecycleReleasedRefcnt
	NumStats
	StatNone Stat = 255
)

var statNames = [NumStats]string{
	"alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_empty", "alloc_refill", "alloc_waive",
	"recycle_cached", "recycle_cache_full", "recycle_ring", "recycle_ring_full", "recycle_released_refcnt",
}

// ethtool strings (pp_stats[] in net/core/page_pool.c), same order.
var statEthtool = [NumStats]string{
	"rx_pp_alloc_fast", "rx_pp_alloc_slow", "rx_pp_alloc_slow_ho", "rx_pp_alloc_empty", "rx_pp_alloc_refill",
	"rx_pp_alloc_waive", "rx_pp_recycle_cached", "rx_pp_recycle_cache_full", "rx_pp_recycle_ring",
	"rx_pp_recycle_ring_full", "rx_pp_recycle_released_ref",
}

// String is the counter's name in `ppsim run --json`'s "stats" object.
func (s Stat) String() string {
	if s >= NumStats {
		return "none"
	}
	return statNames[s]
}

// Ethtool is the counter's `ethtool -S` name.
func (s Stat) Ethtool() string { return statEthtool[s] }

// Stats is a set of the 11 counters.
type Stats [NumStats]uint64

// Add adds o into s (page_pool_get_stats adds, it does not assign).
func (s *Stats) Add(o *Stats) {
	for i := range s {
		s[i] += o[i]
	}
}
