package workload

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// xdpRedirectPort: xdp-redirect with redirect_to=1. The driver's XDP
// program redirects every frame to a second port of the same driver on a
// device of its own (drivers.XDPTarget): xdp_do_redirect queues it on the
// redirecting CPU's devmap bulk queue (sent every 16 frames); at the end of
// the poll xdp_do_flush sends the rest through the port's ndo_xdp_xmit,
// which maps each frame for transmit on its device; the driver refills;
// then the port's NAPI — on tx_cpu, the redirecting CPU by default (the TX
// queue ndo_xdp_xmit picks is this CPU's, and its interrupt is normally
// affine to it) — completes the frames the poll sent: unmaps them and
// returns the pages to the driver's pool the driver's way (mvpp2, mvneta,
// mlx5: xdp_return_frame_bulk → page_pool_put_page_bulk; bnxt:
// xdp_return_frame → page_pool_put_full_page(pool, page, false)).
//
// Before 6.10 those puts go to the ptr_ring. From 6.10
// (4a96a4e807c3, 39806b96c89a) page_pool_napi_local decides: in softirq on
// the CPU whose poll list holds the pool's NAPI (pp.napi->list_owner), the
// page goes into the alloc cache. That is mlx5's and bnxt's pool when the
// completion runs on the redirecting CPU while the driver's NAPI is
// scheduled — a poll that used its budget stays on the poll list
// (net_rx_action repolls it) while the port's NAPI runs; a poll that ended
// short has called napi_complete_done (list_owner = -1) before it, so those
// completions are not local; never mvpp2's or mvneta's pool (no pp.napi),
// and never with tx_cpu on another CPU. One operation per frame; the flush,
// the refill and the completion are part of the first frame's operation of
// each poll, as forward's completion is.
type xdpRedirectPort struct {
	port *drivers.XDPTarget
}

func newXDPRedirectPort(e *Env) *xdpRedirectPort {
	return &xdpRedirectPort{port: drivers.NewXDPTarget(e.Drv)}
}

func (w *xdpRedirectPort) Next() string {
	return "(at a poll end: xdp_do_flush → the second port's ndo_xdp_xmit, then its TX completion) NIC receive → XDP program: XDP_REDIRECT to the second port"
}

func (w *xdpRedirectPort) Step(e *Env) bool {
	d := e.Drv
	m := e.M
	cpu := e.inSoftirq(d.CPU())
	if d.AtPollBoundary(e.Frame) {
		w.betweenPolls(e, cpu, 0)
	}
	d.Poll(e.Frame)
	m.Begin(cpu, sim.SymXDPRun)
	f, ok := d.ReceiveXDP(e.Frame, "the second port's devmap bulk queue")
	if !ok {
		e.Lost++
		return true
	}
	m.Charge(cpu, sim.SymXDPRedirect, 0)
	e.Lost += int64(w.port.Enqueue(cpu, f))
	return true
}

// betweenPolls runs what happens on the redirecting CPU between two polls
// of the driver's NAPI: the end of the last poll (xdp_do_flush, the
// driver's refill, napi_complete_done if it ended short), then the second
// port's NAPI completing its frames on tx_cpu — all but the newest keep (a
// stalled port's standing queue), at most a budget's worth — then, if the
// driver's NAPI completed, the next frame's IRQ scheduling it again.
func (w *xdpRedirectPort) betweenPolls(e *Env, cpu, keep int) {
	d := e.Drv
	e.Lost += int64(w.port.Flush(cpu))
	d.EndPoll(e.Frame)
	w.port.Complete(e.inSoftirq(e.txCPU()), min(drivers.Budget, max(0, w.port.Queued()-keep)))
	e.inSoftirq(cpu)
	if !d.Scheduled() {
		d.Schedule() // the next frame's IRQ: napi_schedule
	}
}
