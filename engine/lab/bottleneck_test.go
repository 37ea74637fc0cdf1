package lab

import (
	"testing"

	"pplab/engine/sim"
)

// TestScenarios_BottleneckCPU: for every driver scenario, the CPU whose
// busy time sets the rate is the one the kernel would saturate; the row
// names say why.
func TestScenarios_BottleneckCPU(t *testing.T) {
	for _, tc := range []struct {
		name, scenario string
		set            []string
		cpu            int
	}{
		{"drop: RX poll and the early drop run in the NAPI's softirq", "drop", nil, 0},
		{"pfmemalloc: the NAPI drops reserve pages in its softirq", "pfmemalloc", nil, 0},
		{"tcp-stream with hardware GRO (bnxt's TPA, 6.8's default): one completion per 33 segments, the reader's copy to user dominates", "tcp-stream", nil, 1},
		{"tcp-stream with GRO on bnxt's page mode: an XDP program, napi_alloc_skb and a header copy per segment load the NAPI more than the reader's copy to user", "tcp-stream", []string{"hw_gro=0"}, 0},
		{"tcp-stream without GRO: tcp_v4_rcv per segment on the NAPI CPU outweighs the copy", "tcp-stream", []string{"gro=0"}, 0},
		{"tcp-stream with a slow application: the reader", "tcp-stream", []string{"gro=0", "read_ns=2000"}, 1},
		{"tcp-stream on one CPU: softirq and reader share it", "tcp-stream", []string{"cpus=1"}, 0},
		{"forward: RX, NAT, xmit and TX completion all in the RX softirq", "forward", nil, 0},
		{"forward with TX completion elsewhere (XPS): RX, NAT and xmit still on the RX CPU", "forward", []string{"tx_cpu=1"}, 0},
		{"xdp-redirect: the veth's NAPI runs where the frame was redirected", "xdp-redirect", nil, 0},
		{"xdp-redirect with the veth NAPI moved (RPS / threaded NAPI): the skb side", "xdp-redirect", []string{"veth_cpu=1"}, 1},
		{"split-page: one NAPI receives, drops and recycles", "split-page", nil, 0},
		{"clone-tap: the NAPI receives and clones; the tap's reader only frees", "clone-tap", nil, 0},
		{"coalesce-mixed: the loopback sender's CPU — loopback_xmit and netif_rx process its segments where they are sent", "coalesce-mixed", nil, 1},
		{"numa-migrate: the IRQ moves the NAPI to cpu1 for most of the run", "numa-migrate", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := run(t, Config{Scenario: tc.scenario, Era: "6.8", Packets: 60_000, Knobs: sim.MustOverrides(tc.set...)})
			if r.Bottleneck != tc.cpu {
				t.Errorf("bottleneck cpu%d, want cpu%d", r.Bottleneck, tc.cpu)
			}
		})
	}
}
