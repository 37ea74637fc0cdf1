package workload

import (
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// genericXDP: drop traffic (frames with an unknown ethertype, of a full
// TCP segment's 1514 bytes unless the frame knob says otherwise: a copy
// that needs more than half a page, so each gets a whole system-pool page;
// frame=1000 shows two copies sharing a frag page, which
// page_pool_drain_frag then reuses in place) on a driver without native XDP, with
// an XDP program attached in generic (skb) mode that passes every frame
// (XDP_PASS): RX, build_skb or the driver's header split, then in
// __netif_receive_skb_core do_xdp_generic → netif_receive_generic_xdp. The
// skbs of hns3 (a 256-byte kmalloc'ed head with 64 bytes of headroom, the
// payload in page_pool frags) and lunar (build_skb with 64 bytes of
// headroom) are all short of XDP_PACKET_HEADROOM, so every one is
// prepared: from 6.9, for a frags-aware program (the xdp_frags knob), copied
// into this CPU's system page_pool (skb_pp_cow_data) and the original
// consumed; before 6.9, or for a frags-unaware program, pskb_expand_head +
// skb_linearize. After the program the frame is dropped as in drop: kfree_skb
// in the NAPI poll, on the CPU whose system pool the copy came from, so from
// 6.9 the copy's page recycles into that pool's alloc cache
// (pp->cpuid == cpuid).
type genericXDP struct {
	n     int64 `pp:"counter"`
	sk    *skb.SKB
	frags bool
}

func (w *genericXDP) Next() string {
	if w.sk == nil {
		return "NIC receive → the driver builds the skb (RX poll)"
	}
	return "__netif_receive_skb_core → do_xdp_generic (XDP_PASS), then unknown ethertype → kfree_skb"
}

func (w *genericXDP) Step(e *Env) bool {
	if w.sk == nil {
		w.sk = e.rx(e.Frame, HdrEth)
		if w.sk == nil {
			w.n++
			return true
		}
		return false
	}
	cpu := e.inSoftirq(e.Drv.CPU())
	sk := w.sk
	w.sk = nil
	w.n++
	e.M.Begin(cpu, sim.SymGenericXDP)
	sk, _ = e.S.NetifReceiveGenericXDP(cpu, sk, w.frags)
	if sk == nil {
		e.Lost++ // do_drop: the preparation failed
		return true
	}
	e.M.Begin(cpu, sim.SymNetifReceive)
	e.stackRx(cpu)
	e.M.Begin(cpu, sim.SymKfreeSKB)
	e.S.KfreeSKB(cpu, sk)
	return true
}
