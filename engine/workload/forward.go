package workload

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// forward: NAT forwarding: RX, header rewrite (skb_cow: a cloned skb gets a
// private head first), TX with a DMA mapping of the frame, TX completion in
// NAPI context frees the skb (napi_consume_skb, or dev_kfree_skb_any for
// drivers that do not use it). TX completion runs at each poll on tx_cpu.
type forward struct {
	sk  *skb.SKB
	tx  []*skb.SKB // TX ring awaiting completion, oldest first
	cap int
	tap tapper
}

// newForward sizes the TX ring like the RX ring, but never below two NAPI
// budgets: completions run once per poll and free up to a budget's worth,
// and a NIC's TX ring is its own and large (mvpp2 MVPP2_MAX_TXD_DFLT 1024,
// bnxt 511, mvneta 532), so a teaching-size RX ring (rx_descs=16) must not
// turn the run into one that drops three packets in four at the TX ring.
func newForward(e *Env) *forward {
	return &forward{cap: max(e.Drv.RingSize(), 2*drivers.Budget), tap: tapper{every: e.M.Knobs[sim.KnobTapEvery]}}
}

func (w *forward) Next() string {
	if w.sk == nil {
		return "TX completion (at a poll start) and NIC receive → build_skb"
	}
	return "ip_forward + NAT, skb_cow, __dev_queue_xmit → ndo_start_xmit (DMA map)"
}

func (w *forward) txCPU(e *Env) int { return e.txCPU() }

// complete models the TX completion poll: unmap and free up to drivers.Budget
// transmitted skbs.
func (w *forward) complete(e *Env) {
	cpu := e.inSoftirq(w.txCPU(e)) // TX completion: a NAPI poll
	n := min(len(w.tx), drivers.Budget)
	for _, sk := range w.tx[:n] {
		e.M.Begin(cpu, sim.SymDrvTxClean)
		e.M.Charge(cpu, sim.SymDrvTxClean, 0)
		e.Drv.UnmapTX(cpu, sk)
		if e.Drv.Spec.TxConsumes(e.M.Era) {
			e.S.NapiConsumeSKB(cpu, sk, drivers.Budget)
		} else {
			e.S.DevKfreeSkbAny(cpu, sk)
		}
	}
	w.tx = append(w.tx[:0], w.tx[n:]...)
}

func (w *forward) Step(e *Env) bool {
	d := e.Drv
	cpu := e.inSoftirq(d.CPU())
	if w.sk == nil {
		if d.AtPollBoundary(e.Frame) {
			w.complete(e)
		}
		sk := e.rx(e.Frame, HdrUDP)
		if sk == nil {
			return true
		}
		w.sk = sk
		return false
	}
	sk := w.sk
	w.sk = nil
	e.M.Begin(cpu, sim.SymIPForward)
	e.stackRx(cpu)
	e.M.Charge(cpu, sim.SymIPRcv, 0)
	w.tap.see(e, cpu, sk)
	e.M.Charge(cpu, sim.SymIPForward, 0)
	if skb.SkbCloned(sk) { // skb_cow: the tap holds a clone; rewrite a private head
		e.M.Begin(cpu, sim.SymPskbExpandHead)
		if err := e.S.PskbExpandHead(cpu, sk, 0); err != nil {
			if e.Err == nil {
				e.Err = err
			}
			return true
		}
	}
	w.tap.read(e)
	e.M.Charge(cpu, sim.SymDevQueueXmit, 0)
	e.M.Begin(cpu, sim.SymDrvXmit)
	e.M.Charge(cpu, sim.SymDrvXmit, 0)
	if len(w.tx) >= w.cap || !e.Drv.MapTX(cpu, sk) {
		e.Lost++ // TX ring full or mapping error: dropped
		e.S.KfreeSKB(cpu, sk)
		return true
	}
	d.Transmitted++
	e.S.Queue(sk, skb.InTXRing)
	w.tx = append(w.tx, sk)
	return true
}
