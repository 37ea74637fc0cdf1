package workload

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// xdpTx: the driver's XDP program sends every frame back out of the same
// NIC (XDP_TX), in its NAPI poll: no skb, no DMA mapping (the page is the
// pool's and already mapped: the driver syncs the frame's length for the
// device), the page on the TX ring as an XDP frame until the TX
// completion, which runs at the start of the next poll of the same NAPI
// and returns at most a budget's worth of frames, the driver's way
// (drivers.Spec.XDPTx): mvpp2 in bulk into the ptr_ring
// (xdp_return_frame_bulk → xdp_flush_frame_bulk → page_pool_put_page_bulk,
// allow_direct false), mvneta into the alloc cache
// (xdp_return_frame_rx_napi), cpsw frame by frame into the ptr_ring
// (xdp_return_frame), mlx5 into the alloc cache (page_pool_recycle_direct),
// and bnxt not to the pool at all: the buffer went back on the RX ring at
// XDP_TX (bnxt_reuse_rx_data) and the completion's RX doorbell gives it to
// the NIC. The completion of a poll's frames runs at the start of the
// next poll, after the last one's RX refill (the kernel's order:
// mvneta_poll and mlx5e_napi_poll do their TX work before RX, whose refill
// ends the poll), so a driver that refills at the end of its poll keeps a
// poll's worth more pages in flight. One operation per frame; the
// completion is part of the first frame's operation of each poll, as
// forward's is.
type xdpTx struct {
	tx []drivers.XDPFrame // on the TX ring awaiting completion, oldest first
}

func newXDPTx() *xdpTx { return &xdpTx{tx: make([]drivers.XDPFrame, 0, drivers.Budget)} }

func (w *xdpTx) Next() string {
	return "TX completion (at a poll start) and NIC receive → XDP program: XDP_TX"
}

func (w *xdpTx) Step(e *Env) bool {
	d := e.Drv
	cpu := e.inSoftirq(d.CPU())
	if d.Poll(e.Frame) && len(w.tx) > 0 {
		// A new NAPI poll (the last one's refill done) completes the frames
		// the last one sent before it receives, as mvneta_poll and
		// mlx5e_napi_poll do their TX work first (a poll sends at most a
		// budget's worth, so none waits longer).
		n := min(len(w.tx), drivers.Budget)
		d.CompleteXDPTx(w.tx[:n])
		k := copy(w.tx, w.tx[n:])
		clear(w.tx[k:])
		w.tx = w.tx[:k]
	}
	e.M.Begin(cpu, sim.SymXDPRun)
	f, ok := d.ReceiveXDPTx(e.Frame)
	if !ok {
		e.Lost++
		return true
	}
	w.tx = append(w.tx, f)
	return true
}
