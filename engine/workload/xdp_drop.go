package workload

import "pplab/engine/sim"

// xdpDrop: the driver's XDP program drops every frame (XDP_DROP), in its
// NAPI poll: the fastest recycle there is and the one page_pool was written
// for — no skb, no stack, the buffer straight back where the next refill
// takes it. The driver decides where (drivers.Spec.XDPDrop): mvpp2 and
// mvneta put the page into the alloc cache synced for the frame's length
// (page_pool_put_page(pool, page, sync_len, true)), cpsw recycles the whole
// page directly (page_pool_recycle_direct), bnxt and mlx5 give the buffer
// back to the NIC without the pool (bnxt_reuse_rx_data; mlx5e_xdp_handle
// keeps the page on the RQ). One operation per frame.
type xdpDrop struct{}

func (w *xdpDrop) Next() string { return "NIC receive → XDP program: XDP_DROP" }

func (w *xdpDrop) Step(e *Env) bool {
	d := e.Drv
	d.Poll(e.Frame)
	cpu := e.inSoftirq(d.CPU())
	e.M.Begin(cpu, sim.SymXDPRun)
	if !d.ReceiveXDPDrop(e.Frame) {
		e.Lost++
	}
	return true
}
