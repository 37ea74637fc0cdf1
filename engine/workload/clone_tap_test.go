package workload

import "testing"

// clone-tap consumes every original with napi_consume_skb on the NAPI CPU
// (softirq); the tap reader frees every 4th packet's clone with kfree_skb
// on cpu1 in process context. The data of an untapped packet dies with its
// original (NAPI-safe: from 6.6 into the alloc cache on a pool with a
// NAPI); a tapped packet's data dies with the clone, outside the NAPI, so
// through the ptr_ring (with a tap on every packet, all of it). After
// 1000 packets the reader has not reached the clones of the last 7
// packets yet (1 of 250 clones, or 7 of 1000).
func TestCloneTap_OriginalNapiConsumedCloneKfreedByTheTapReader(t *testing.T) {
	tests := []struct {
		name, driver, era string
		opts              []string
		frees             map[free]int
		want              recycled
	}{
		{"bnxt-6.8-tapped-data-to-the-ptr-ring", "bnxt", "6.8", nil,
			map[free]int{napiConsume(0): 1000, kfree(1, process): 249}, recycled{cached: 750, ring: 249, slow: 5}},
		{"mvpp2-5.14-all-to-the-ptr-ring", "mvpp2", "5.14", nil,
			map[free]int{napiConsume(0): 1000, kfree(1, process): 249}, recycled{ring: 986, slow: 2}},
		{"bnxt-6.8-tap-every-packet", "bnxt", "6.8", []string{"tap_every=1"},
			map[free]int{napiConsume(0): 1000, kfree(1, process): 993}, recycled{ring: 993, slow: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WCloneTap, tc.driver, tc.era, tc.opts...).packets(1000)
			r.wantFrees(tc.frees)
			r.wantRecycled(tc.want)
			r.clean()
		})
	}
}
