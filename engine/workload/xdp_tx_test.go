package workload

import (
	"testing"

	"pplab/engine/drivers"
)

// xdp-tx sends every frame back from its page, no skb: nothing goes
// through the skb layer. A poll's frames are completed at the start of the
// next poll, the driver's way: mvpp2 in bulk into the ptr_ring, mvneta and
// mlx5 into the alloc cache, cpsw frame by frame into the ptr_ring, bnxt
// not to the pool (the buffer went back on the RX ring at XDP_TX). After
// 1000 frames (15 polls of 64 and 40) the last 40 still wait: 960 back.
func TestXDPTx_CompletionAtTheNextPollTheDriversWay(t *testing.T) {
	tests := []struct {
		name, driver string
		want         recycled
	}{
		{"mvpp2-bulk-ptr-ring", "mvpp2", recycled{ring: 960, slow: 2}},
		{"mvneta-alloc-cache", "mvneta", recycled{cached: 960, slow: 2}},
		{"cpsw-ptr-ring", "cpsw", recycled{ring: 960, slow: 2}},
		{"mlx5-alloc-cache", "mlx5", recycled{cached: 960, slow: 2}},
		{"bnxt-not-to-the-pool", "bnxt", recycled{slow: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WXDPTx, tc.driver, "6.8").packets(1000)
			r.wantFrees(nil)
			r.wantRecycled(tc.want)
			if n := len(r.w.(*xdpTx).tx); n != 40 {
				t.Errorf("%d frames on the TX ring, want 40", n)
			}
			r.clean()
		})
	}
}

// The first poll's 64 frames stay on the TX ring until the 65th frame's
// poll starts, which completes all of them before it receives.
func TestXDPTx_AFrameWaitsForTheNextPoll(t *testing.T) {
	r := newTestRun(t, WXDPTx, "mvneta", "6.8").packets(drivers.Budget)
	w := r.w.(*xdpTx)
	if n := len(w.tx); n != drivers.Budget {
		t.Fatalf("after one poll: %d frames on the TX ring, want %d", n, drivers.Budget)
	}
	r.wantRecycled(recycled{slow: 1})
	r.packets(1)
	if n := len(w.tx); n != 1 {
		t.Errorf("after the next poll's first frame: %d on the TX ring, want 1", n)
	}
	r.wantRecycled(recycled{cached: drivers.Budget, slow: 2})
	r.clean()
}
