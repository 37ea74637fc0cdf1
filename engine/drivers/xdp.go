package drivers

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// XDPFrame is a received buffer on its way as an XDP frame (xdp_frame):
// the page, where the frame starts, its length and the buffer's size.
type XDPFrame struct {
	Page     *mm.Page
	Off, Len int
	Size     int
}

// ReceiveXDP models the driver's XDP path for one frame: sync for the CPU,
// run the program; the buffer leaves the RX ring as an XDP frame in flight.
func (d *Driver) ReceiveXDP(length int) (XDPFrame, bool) {
	m := d.S.M
	cpu := d.CPU()
	if d.posted == 0 {
		d.miss() // the NIC's drop: no CPU work
		return XDPFrame{}, false
	}
	m.Charge(cpu, sim.SymDrvRx, 0)
	m.Charge(cpu, sim.SymXDPRun, 0)
	d.polled++
	if length > d.Room() { // a frame XDP cannot hold in one buffer: dropped by the driver
		d.Dropped++
		return XDPFrame{}, false
	}
	pg, off, size := d.take(length)
	pg.MoveTo(m, sim.PlaceXDPFrame, -1) // held by the frame (not an skb: no skb-level user)
	if m.Tracing() {
		d.ev(sim.SymXDPRedirect, pg, sim.PlaceNICRing, sim.PlaceXDPFrame, "XDP_REDIRECT: the frame is queued to the veth (xdp_do_redirect)")
	}
	if d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	return XDPFrame{Page: pg, Off: off, Len: length, Size: size}, true
}
