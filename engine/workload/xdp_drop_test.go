package workload

import (
	"testing"

	"pplab/engine/sim"
)

// xdp-drop builds no skb: nothing is freed through the skb layer. The page
// goes back the driver's way: into the alloc cache (mvpp2's
// page_pool_put_page(..., true), cpsw's page_pool_recycle_direct), or not
// to the pool at all (bnxt_reuse_rx_data; mlx5 keeps it on its RQ before
// 6.6): only the ring's first fill allocates. mlx5 from 6.6 releases it
// into the alloc cache at the refill.
func TestXDPDrop_NoSkbThePageBackTheDriversWay(t *testing.T) {
	tests := []struct {
		name, driver, era string
		want              recycled
		fast              uint64
	}{
		{"mvpp2-alloc-cache", "mvpp2", "6.8", recycled{cached: 1000, slow: 1}, 1063},
		{"cpsw-recycle-direct", "cpsw", "6.8", recycled{cached: 1000, slow: 1}, 1023},
		{"bnxt-reuse-rx-data", "bnxt", "6.8", recycled{slow: 1}, 63},
		{"mlx5-6.1-kept-on-the-rq", "mlx5", "6.1", recycled{slow: 1}, 63},
		{"mlx5-6.4-kept-on-the-rq", "mlx5", "6.4", recycled{slow: 1}, 63},
		{"mlx5-6.8-through-the-cache", "mlx5", "6.8", recycled{cached: 1000, slow: 1}, 1023},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WXDPDrop, tc.driver, tc.era).packets(1000)
			r.wantFrees(nil)
			r.wantRecycled(tc.want)
			if got := r.stats()[sim.StatAllocFast]; got != tc.fast {
				t.Errorf("alloc_fast = %d, want %d", got, tc.fast)
			}
			r.clean()
		})
	}
}
