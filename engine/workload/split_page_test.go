package workload

import (
	"testing"

	"pplab/engine/sim"
)

// split-page's socket reader frees every skb with kfree_skb on cpu1, in
// process context, a free outside the NAPI: its page goes back through the
// ptr_ring when the last of its halves is freed. Before 5.15 the half-page flip with marked skbs is the
// split-page caveat: freeing one half recycles the page under the NIC,
// which the checker reports (the era's known failure).
func TestSplitPage_ReaderKfreeSkbInProcessContext(t *testing.T) {
	tests := []struct {
		name, driver, era string
		want              recycled
		violations        map[sim.Kind]int
	}{
		{"mlx5-5.15-frag-api", "mlx5", "5.15", recycled{ring: 473, slow: 1}, nil},
		{"mlx5-6.8-frag-api", "mlx5", "6.8", recycled{ring: 473, slow: 1}, nil},
		{"hns3-6.8-frag-api", "hns3", "6.8", recycled{ring: 473, slow: 1}, nil},
		{"mlx5-5.14-half-page-flip-caveat", "mlx5", "5.14", recycled{ring: 448, slow: 1},
			map[sim.Kind]int{sim.KindUseAfterRecycle: 448, sim.KindRefcountUnderflow: 552}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WSplitPage, tc.driver, tc.era).packets(1000)
			r.wantFrees(map[free]int{kfree(1, process): 1000})
			r.wantRecycled(tc.want)
			if tc.violations == nil {
				r.clean()
				return
			}
			for k := range sim.NumKinds {
				if got := r.e.M.Log.Counts[k]; got != tc.violations[k] {
					t.Errorf("%s: %d violations, want %d", k, got, tc.violations[k])
				}
			}
		})
	}
}
