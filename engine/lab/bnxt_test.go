package lab

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// bnxt's page mode (an XDP program attached): bnxt_rx_pkt runs the program
// on every frame, copies a frame of at most rx_copy_thresh (256) into a new
// skb and gives its buffer straight back to the NIC (bnxt_copy_skb,
// bnxt_reuse_rx_data): a 64-byte drop run never touches the pool after the
// ring's first fill.
func TestBnxtPageMode_CopiesSmallFramesAndReusesTheBuffer(t *testing.T) {
	const n = 5000
	for _, era := range []string{"5.14", "6.4", "6.8"} {
		l, r := run(t, Config{Driver: "bnxt", Scenario: "drop", Era: era, Packets: n, Knobs: sim.MustOverrides("hw_gro=0")})
		st := r.Stats
		if allocs := st[sim.StatAllocFast] + st[sim.StatAllocSlow] + st[sim.StatAllocRefill]; allocs != 511 || st[sim.StatRecycleCached]+st[sim.StatRecycleRing]+st[sim.StatRecycleReleasedRefcnt] != 0 {
			t.Errorf("%s: %v: want the ring's 511 allocations and nothing recycled", era, st)
		}
		ns := l.SymbolNS()
		if ns["bpf_prog_run_xdp"] == 0 || ns["memcpy"] == 0 || r.Violations.Total() != 0 {
			t.Errorf("%s: XDP %.1f ns, memcpy %.1f ns per packet, %d violations: want the program and the copy on every frame", era, ns["bpf_prog_run_xdp"], ns["memcpy"], r.Violations.Total())
		}
	}
}

// A full-size frame takes bnxt_rx_page_skb: napi_alloc_skb, the headers
// copied into the head and the page as frags[0]. Until 5.19 the page is
// released from the pool (page_pool_release_page), so every buffer is a
// fresh allocation; from 5.19 ("bnxt: adding bnxt_xdp_build_skb…") the
// skb is marked and the pages come back.
func TestBnxtPageMode_MarksItsSkbsFrom519(t *testing.T) {
	const n = 20000
	x515 := tcpStream(t, "bnxt", "5.15", n)
	x61 := tcpStream(t, "bnxt", "6.1", n)
	if x515.st(sim.StatRecycleRing) != 0 || x515.st(sim.StatAllocSlow) < n/64 {
		t.Errorf("5.15: ring %d slow %d: want no recycling, a bulk refill per 64 pages", x515.st(sim.StatRecycleRing), x515.st(sim.StatAllocSlow))
	}
	if x61.st(sim.StatRecycleRing) < n*99/100 || x61.st(sim.StatAllocSlow) > 16 {
		t.Errorf("6.1: ring %d slow %d: want every page back", x61.st(sim.StatRecycleRing), x61.st(sim.StatAllocSlow))
	}
	// The skb's linear part is napi_alloc_skb's, and the program runs per
	// segment.
	if ns := x61.l.SymbolNS(); ns["__alloc_skb"] == 0 || ns["bpf_prog_run_xdp"] == 0 {
		t.Errorf("6.1: __alloc_skb %.1f ns, bpf_prog_run_xdp %.1f ns per packet: want both", ns["__alloc_skb"], ns["bpf_prog_run_xdp"])
	}
}

// The srso knob on an x86 platform: the pool's loops cost what an EPYC
// 9684X measured (sim.SRSO), so mlx5's drop (a pool page per packet,
// recycled) runs faster booted with spec_rstack_overflow=ibpb than under
// the default mitigation; on another platform the knob is refused, naming
// the platforms it takes.
func TestSRSO_IBPBBootIsFasterThanTheDefaultMitigation(t *testing.T) {
	rate := func(set ...string) float64 {
		t.Helper()
		_, r := run(t, Config{Driver: "mlx5", Scenario: "drop", Era: "6.12", Packets: 20_000, Knobs: sim.MustOverrides(set...)})
		return r.Rate.Value
	}
	plain, def, ibpb := rate(), rate("srso=1"), rate("srso=2")
	if !(def < ibpb) || plain == def {
		t.Errorf("kpps: platform %.0f, srso=1 %.0f, srso=2 %.0f; want the default mitigation slower than ibpb", plain, def, ibpb)
	}
	_, err := New(Config{Driver: "mvpp2", Scenario: "drop", Knobs: sim.MustOverrides("srso=1")})
	if err == nil || !strings.Contains(err.Error(), "srso") || !strings.Contains(err.Error(), "x86-server") {
		t.Errorf("srso=1 on mvpp2's platform: %v; want refused, naming the knob and the x86 platforms", err)
	}
}
