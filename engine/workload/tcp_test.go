package workload

import "testing"

// tcp-stream's reader on cpu1 frees each skb it has read in process
// context: before 5.19 with __kfree_skb there (a plain free: the pages go
// to the ptr_ring), from 5.19 with skb_attempt_defer_free onto the NAPI
// CPU's defer list, which net_rx_action on cpu0 flushes (softirq) with
// napi_consume_skb — NAPI-safe from 6.4, so a driver whose pool has a NAPI
// (mlx5) recycles into the alloc cache. GRO's aggregates carry their
// later segments on a frag_list, freed with kfree_skb (napi_safe = false)
// by whoever frees the aggregate: two per aggregate here. 1000 segments on
// a 64-descriptor ring, the default 6 MB window (it never closes).
func TestTCPStream_ReaderFreesWithSkbAttemptDeferFreeFrom519(t *testing.T) {
	tests := []struct {
		name, driver, era string
		opts              []string
		frees             map[free]int
		want              recycled
	}{
		{"5.15-kfree-skb-on-the-reader-cpu", "mvpp2", "5.15", nil,
			map[free]int{kfree(1, process): 48}, recycled{ring: 576, slow: 8}},
		{"6.1-deferred-flushed-on-napi-cpu-ptr-ring", "mvpp2", "6.1", nil,
			map[free]int{deferFree(1, process): 21, deferFlush(0): 14, napiConsume(0): 20, kfree(0, softirq): 40}, recycled{ring: 669, slow: 7}},
		{"mlx5-6.4-flush-napi-safe-alloc-cache", "mlx5", "6.4", nil,
			map[free]int{deferFree(1, process): 21, deferFlush(0): 14, napiConsume(0): 20, kfree(0, softirq): 40}, recycled{cached: 360, ring: 470, slow: 5}},
		{"mlx5-6.8-softirq-frees-alloc-cache", "mlx5", "6.8", nil,
			map[free]int{deferFree(1, process): 20, deferFlush(0): 14, napiConsume(0): 19, kfree(0, softirq): 38}, recycled{cached: 825, ring: 30, slow: 5}},
		// One CPU: the skb was allocated on the reader's own CPU, so
		// skb_attempt_defer_free frees it there and then (__kfree_skb).
		{"one-cpu-frees-locally", "mlx5", "6.8", []string{"cpus=1"},
			map[free]int{deferFree(0, process): 21, kfree(0, process): 63}, recycled{ring: 720, slow: 5}},
		// GRO off: every segment is queued and read on its own, no frag_list.
		{"gro-off-every-segment", "mlx5", "6.8", []string{"gro=0"},
			map[free]int{deferFree(1, process): 998, deferFlush(0): 15, napiConsume(0): 959}, recycled{cached: 959, slow: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WTCPStream, tc.driver, tc.era, tc.opts...).packets(1000)
			r.wantFrees(tc.frees)
			r.wantRecycled(tc.want)
			r.clean()
		})
	}
}

// A reader slower than the NIC (2 µs per segment) fills a 64 KB window:
// it closes, the poll ends short and the NAPI completes, and the run counts
// as settled from then on.
func TestTCPStream_SlowReaderClosesTheWindow(t *testing.T) {
	r := newTestRun(t, WTCPStream, "mlx5", "6.8", "read_ns=2000", "rcvbuf=65536")
	w := r.w.(*tcpStream)
	if w.Settled() {
		t.Fatal("settled before any packet")
	}
	r.packets(1000)
	if !w.closed || !w.Settled() {
		t.Errorf("closed %v, settled %v: want the window closed", w.closed, w.Settled())
	}
	r.wantFrees(map[free]int{deferFree(1, process): 42, deferFlush(0): 41, napiConsume(0): 41, kfree(0, softirq): 42})
	r.wantRecycled(recycled{cached: 945, ring: 20, slow: 2})
	r.clean()
}
