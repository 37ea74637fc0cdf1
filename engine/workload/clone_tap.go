package workload

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// cloneTap: an AF_PACKET tap clones every 4th packet (tap_every): the
// original is consumed in NAPI context, the clone freed by the tap reader on
// the application CPU 8 packets later.
type cloneTap struct {
	sk  *skb.SKB
	tap tapper
}

func (w *cloneTap) Next() string {
	if w.sk == nil {
		return "NIC receive → build_skb"
	}
	return "packet_rcv (skb_clone), napi_consume_skb of the original, the tap reader frees an old clone"
}

func (w *cloneTap) Step(e *Env) bool {
	if w.sk == nil {
		w.sk = e.rx(e.Frame, HdrUDP)
		return w.sk == nil
	}
	cpu := e.inSoftirq(e.Drv.CPU())
	e.stackRx(cpu)
	w.tap.see(e, cpu, w.sk)
	e.M.Begin(cpu, sim.SymNapiConsumeSKB)
	e.S.NapiConsumeSKB(cpu, w.sk, drivers.Budget)
	w.sk = nil
	w.tap.read(e)
	return true
}
