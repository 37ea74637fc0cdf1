package workload

import "testing"

// coalesce-mixed's reader on cpu1 drains the receive queue in process
// context: before 5.19 with kfree_skb there; from 5.19 with
// skb_attempt_defer_free, which frees the loopback skbs (allocated on cpu1)
// on the spot with __kfree_skb and queues the driver's on cpu0's defer
// list, flushed there by net_rx_action (softirq, napi_consume_skb) when the
// IPI kicks it. Of the 1000 skbs, 403 were coalesced into the queue's tail
// (kfree_skb_partial, not counted here) and 597 queued and read.
func TestCoalesceMixed_ReaderDrainsWithSkbAttemptDeferFreeFrom519(t *testing.T) {
	tests := []struct {
		name, era string
		frees     map[free]int
		want      recycled
		pending   int // on cpu0's defer list at the end
	}{
		{"5.15-kfree-skb-on-the-reader-cpu", "5.15",
			map[free]int{kfree(1, process): 597}, recycled{ring: 582, slow: 2}, 0},
		{"6.1-loopback-freed-here-driver-deferred", "6.1",
			map[free]int{deferFree(1, process): 597, kfree(1, process): 299, deferFlush(0): 9, napiConsume(0): 288}, recycled{ring: 528, slow: 3}, 597 - 299 - 288},
		{"6.8-loopback-freed-here-driver-deferred", "6.8",
			map[free]int{deferFree(1, process): 597, kfree(1, process): 299, deferFlush(0): 9, napiConsume(0): 288}, recycled{ring: 528, slow: 3}, 597 - 299 - 288},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WCoalesceMixed, "mvpp2", tc.era)
			for r.n < 1000 {
				r.steps(1)
			}
			r.wantFrees(tc.frees)
			r.wantRecycled(tc.want)
			if pending := r.e.S.DeferCount(0); pending != tc.pending {
				t.Errorf("%d skbs left on cpu0's defer list, want %d", pending, tc.pending)
			}
			r.clean()
		})
	}
}
