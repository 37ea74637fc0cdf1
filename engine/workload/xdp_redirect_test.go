package workload

import "testing"

// xdp-redirect's veth NAPI builds an skb from each redirected frame and
// frees it with kfree_skb in softirq on the veth's CPU (the redirecting
// CPU, or veth_cpu). Before 6.4 __xdp_build_skb_from_frame released the
// page from its pool (no recycling: the pool lives on its slow path); from
// 6.4 the skb is marked and the page returns to the ptr_ring; from 6.6 to
// the alloc cache when the veth runs on the pool's NAPI CPU.
func TestXDPRedirect_VethKfreeSkbRecyclesFrom64(t *testing.T) {
	tests := []struct {
		name, era string
		opts      []string
		frees     map[free]int
		want      recycled
	}{
		{"6.1-page-released-slow-path", "6.1", nil, map[free]int{kfree(0, softirq): 1000}, recycled{slow: 16}},
		{"6.4-marked-ptr-ring", "6.4", nil, map[free]int{kfree(0, softirq): 1000}, recycled{ring: 1000, slow: 1}},
		{"6.8-napi-cpu-alloc-cache", "6.8", nil, map[free]int{kfree(0, softirq): 1000}, recycled{cached: 1000, slow: 1}},
		{"6.8-veth-on-cpu1-ptr-ring", "6.8", []string{"veth_cpu=1"}, map[free]int{kfree(1, softirq): 1000}, recycled{ring: 1000, slow: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WXDPRedirect, "mlx5", tc.era, tc.opts...).packets(1000)
			r.wantFrees(tc.frees)
			r.wantRecycled(tc.want)
			r.clean()
		})
	}
}
