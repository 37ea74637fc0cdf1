package workload

import "testing"

// forward's TX completion frees each transmitted skb in softirq on the CPU
// whose NAPI runs it (tx_cpu; the RX NAPI's by default): napi_consume_skb
// where the driver uses it (lunar), dev_kfree_skb_any otherwise (mvpp2:
// a plain kfree_skb, not NAPI-safe). Completion runs at the start of each
// poll for the last poll's skbs, so after 1000 packets (15 polls of 64 and
// 40) the 40 of the last poll are still on the TX ring: 960 freed. A tap
// (tap_every=4) adds its clones, freed by the tap reader on cpu1 in process
// context; skb_cow gives the forwarded original a private head.
func TestForward_TXCompletionFreesInNAPIContext(t *testing.T) {
	tests := []struct {
		name, driver, era string
		opts              []string
		frees             map[free]int
		want              recycled
	}{
		{"lunar-5.14-napi-consume-skb", "lunar", "5.14", nil,
			map[free]int{napiConsume(0): 960}, recycled{ring: 960, slow: 1}},
		{"lunar-6.8-napi-consume-skb", "lunar", "6.8", nil,
			map[free]int{napiConsume(0): 960}, recycled{ring: 960, slow: 1}},
		{"mvpp2-dev-kfree-skb-any", "mvpp2", "6.8", nil,
			map[free]int{devKfree(0, softirq): 960}, recycled{ring: 960, slow: 2}},
		{"tx-completion-on-cpu1", "lunar", "6.8", []string{"tx_cpu=1"},
			map[free]int{napiConsume(1): 960}, recycled{ring: 960, slow: 1}},
		{"tap-clones-freed-by-the-reader", "mvpp2", "6.8", []string{"tap_every=4"},
			map[free]int{devKfree(0, softirq): 960, kfree(1, process): 249}, recycled{ring: 967, slow: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WForward, tc.driver, tc.era, tc.opts...).packets(1000)
			r.wantFrees(tc.frees)
			r.wantRecycled(tc.want)
			if w := r.w.(*forward); len(w.tx) != 40 || r.e.Drv.Transmitted != 1000 {
				t.Errorf("%d on the TX ring, %d transmitted; want 40, 1000", len(w.tx), r.e.Drv.Transmitted)
			}
			r.clean()
		})
	}
}
