package workload

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// xdpRedirect: the driver's XDP program redirects every frame into a veth;
// the veth's NAPI runs XDP_PASS, which builds an skb from the frame. The
// veth NAPI runs on the redirecting CPU: veth_xdp_xmit → __veth_xdp_flush
// napi_schedule()s the peer's NAPI on the CPU that runs it, so the NIC's RX,
// the redirect, the veth poll, __xdp_build_skb_from_frame and the free all
// load one CPU (the veth_cpu knob moves the veth NAPI, as RPS or threaded
// NAPI would). Before 6.4 __xdp_build_skb_from_frame releases the page
// from its pool (xdp_release_frame → page_pool_release_page), so pages never
// come back and the pool lives on its slow path; from 6.4 ("xdp: recycle
// Page Pool backed skbs built from XDP frames", 9c94bbf9a87b, merged for
// v6.4) the skb is marked for recycling and its pages return through the
// ring from the veth's CPU. This is redirect_to=0; redirect_to=1 redirects
// to a second port of the same driver instead (xdp_redirect_port.go).
type xdpRedirect struct {
	frame drivers.XDPFrame // the frame in flight to the veth (op 1)
	op    int
}

func (w *xdpRedirect) Next() string {
	return [...]string{"NIC receive → XDP program: XDP_REDIRECT to the veth", "veth NAPI: XDP_PASS → __xdp_build_skb_from_frame → stack → kfree_skb"}[w.op]
}

func (w *xdpRedirect) Step(e *Env) bool {
	d := e.Drv
	m := e.M
	if w.op == 0 {
		d.Poll(e.Frame)
		cpu := e.inSoftirq(d.CPU())
		m.Begin(cpu, sim.SymXDPRun)
		f, ok := d.ReceiveXDP(e.Frame, "the veth")
		if !ok {
			e.Lost++
			return true
		}
		m.Charge(cpu, sim.SymXDPRedirect, 0)
		w.frame, w.op = f, 1
		return false
	}
	app := d.CPU()
	if v := int(m.Knobs[sim.KnobVethCPU]); v >= 0 {
		app = v
	}
	e.inSoftirq(app) // the veth's NAPI poll
	f := w.frame
	w.frame, w.op = drivers.XDPFrame{}, 0
	m.Begin(app, sim.SymVethXDPRcv)
	m.Charge(app, sim.SymVethXDPRcv, 0)
	cost := m.Charge(app, sim.SymXDPConvert, 0)
	pg := f.Page
	mark := m.Era.XDPFrameSkbRecycle
	if m.Tracing() {
		why := "builds an skb around the frame's buffer (build_skb_around) for XDP_PASS; before 6.4 it releases the page from its pool first (xdp_release_frame): the skb's free puts it back in the page allocator"
		if mark {
			why = "builds an skb around the frame's buffer (build_skb_around) for XDP_PASS and, for a page_pool frame, marks it for recycling (skb_mark_for_recycle, 9c94bbf9a87b, v6.4): the skb's free returns the page to its pool"
		}
		m.Emit(sim.Event{CPU: app, Func: sim.SymXDPConvert, Page: pg.PFN, CostPS: cost, Stat: sim.StatNone, Why: why})
	}
	if !mark {
		if err := d.Pool.ReleasePage(app, pg); err != nil { // xdp_release_frame → page_pool_release_page
			e.settle(nil, err)
			return true
		}
	}
	sk, err := e.S.BuildSKB(app, pg, f.Off, f.Size, f.Len, true)
	if !e.settle(sk, err) {
		return true
	}
	if mark {
		if err := e.S.MarkForRecycle(app, sk, pg, d.Pool); err != nil {
			e.settle(nil, err)
			return true
		}
	}
	m.Begin(app, sim.SymNetifReceive)
	e.stackRx(app)
	m.Begin(app, sim.SymKfreeSKB)
	e.S.KfreeSKB(app, sk)
	return true
}
