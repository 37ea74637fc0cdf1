package workload

import (
	"slices"
	"testing"
)

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

// redirect_to=1: the frames go to a second port of the same driver, whose
// TX completion — at each poll's end, after the driver's refill, in the
// port's NAPI on tx_cpu — unmaps them and gives the pages back the
// driver's way, with no allow_direct: xdp_return_frame_bulk →
// page_pool_put_page_bulk (mvpp2, mvneta, mlx5) or xdp_return_frame
// (bnxt). Before 6.10 every page goes to the ptr_ring. From 6.10
// page_pool_napi_local sends mlx5's and bnxt's pages into the alloc cache:
// the completion runs in softirq on cpu0, whose poll list holds their
// pool's NAPI (a 64-frame poll stays scheduled); mvpp2's and mvneta's pools
// have no pp.napi. With tx_cpu=1 nothing is local; with a 16-descriptor
// ring the polls of a driver that refills at their end (mlx5) end short
// and napi_complete_done clears list_owner before the port's completion
// runs, while bnxt, which refills per frame, keeps polling full budgets.
// After 1000 frames (15 polls of 64 and 40) the port has sent 992 (the
// 40th poll's first 32 in two bulk-queue sends; 8 wait in the queue) and
// completed the 960 of the finished polls.
func TestXDPRedirect_SecondPortPageNapiLocalFrom610(t *testing.T) {
	tests := []struct {
		name, driver, era string
		opts              []string
		want              recycled
	}{
		{"mvpp2-6.9-bulk-ptr-ring", "mvpp2", "6.9", nil, recycled{ring: 960, slow: 2}},
		{"mvpp2-6.10-bulk-no-pp-napi-ptr-ring", "mvpp2", "6.10", nil, recycled{ring: 960, slow: 2}},
		{"mvneta-6.9-bulk-ptr-ring", "mvneta", "6.9", nil, recycled{ring: 960, slow: 2}},
		{"mvneta-6.10-bulk-no-pp-napi-ptr-ring", "mvneta", "6.10", nil, recycled{ring: 960, slow: 2}},
		{"mlx5-6.9-bulk-ptr-ring", "mlx5", "6.9", nil, recycled{ring: 960, slow: 2}},
		{"mlx5-6.10-bulk-napi-local-alloc-cache", "mlx5", "6.10", nil, recycled{cached: 960, slow: 2}},
		{"mlx5-6.10-tx-cpu1-not-local-ptr-ring", "mlx5", "6.10", []string{"tx_cpu=1"}, recycled{ring: 960, slow: 2}},
		{"mlx5-6.10-short-polls-napi-completed-ptr-ring", "mlx5", "6.10", []string{"rx_descs=16"}, recycled{ring: 960, slow: 1}},
		{"bnxt-6.9-frame-ptr-ring", "bnxt", "6.9", nil, recycled{ring: 960, slow: 2}},
		{"bnxt-6.10-frame-napi-local-alloc-cache", "bnxt", "6.10", nil, recycled{cached: 960, slow: 2}},
		{"bnxt-6.10-tx-cpu1-not-local-ptr-ring", "bnxt", "6.10", []string{"tx_cpu=1"}, recycled{ring: 960, slow: 2}},
		{"bnxt-7.1-frame-napi-local-alloc-cache", "bnxt", "7.1", nil, recycled{cached: 960, slow: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WXDPRedirect, tc.driver, tc.era, append([]string{"redirect_to=1"}, tc.opts...)...).packets(1000)
			r.wantFrees(nil) // no skb anywhere
			r.wantRecycled(tc.want)
			port := r.w.(*xdpRedirectPort).port
			sent, completed := int64(992), int64(960)
			if slices.Contains(tc.opts, "rx_descs=16") {
				completed = 992 // polls of 16: the last one's frames were completed at its end
			}
			if port.Sent != sent || port.Completed != completed || port.Pending() != 8 || port.Dropped != 0 || r.e.Lost != 0 {
				t.Errorf("port sent %d, completed %d, %d in the bulk queue, dropped %d, lost %d; want %d, %d, 8, 0, 0", port.Sent, port.Completed, port.Pending(), port.Dropped, r.e.Lost, sent, completed)
			}
			if mapped := int64(port.Queued()); port.DMA.TxMapped != mapped || r.e.A.DMA.TxMapped != 0 {
				t.Errorf("%d mapped on the port's device, %d on the driver's; want the %d on its TX ring, 0", port.DMA.TxMapped, r.e.A.DMA.TxMapped, mapped)
			}
			r.clean()
		})
	}
}

// redirect_to=0 (the default) is the veth: the same workload as before the
// knob existed.
func TestXDPRedirect_RedirectToZeroIsTheVeth(t *testing.T) {
	for _, opts := range [][]string{nil, {"redirect_to=0"}} {
		r := newTestRun(t, WXDPRedirect, "mlx5", "6.10", opts...)
		if _, ok := r.w.(*xdpRedirect); !ok {
			t.Errorf("%v: workload %T, want the veth's", opts, r.w)
		}
	}
}
