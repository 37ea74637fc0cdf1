package workload

import (
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// splitPage: each page feeds two RX buffers: half-page flip before 5.15 (the
// split-page caveat once the skbs are marked: freeing one half recycles the
// page under the NIC), page_pool_alloc_frag from 5.15. Each skb is freed on
// the application CPU.
type splitPage struct {
	sk *skb.SKB
}

func (w *splitPage) Next() string {
	if w.sk == nil {
		return "NIC receive into a half page → the driver builds an skb over it (build_skb, or a header copy and skb_add_rx_frag: the driver's way)"
	}
	return "kfree_skb (socket reader)"
}

func (w *splitPage) Step(e *Env) bool {
	if w.sk == nil {
		if w.sk = e.rx(e.Frame, HdrUDP); w.sk != nil {
			e.stackRx(e.Drv.CPU())
		}
		return w.sk == nil // no buffer: the frame is lost
	}
	e.M.Begin(e.inProcess(e.App), sim.SymKfreeSKB) // the socket reader
	e.S.KfreeSKB(e.App, w.sk)
	w.sk = nil
	return true
}
