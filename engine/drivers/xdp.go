package drivers

import (
	"fmt"

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
	d.releaseRx()
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
	// A driver that maps its own buffers unmaps a redirected one here
	// (mlx5e_xdp_handle: mlx5e_page_dma_unmap); with its own RX cache the
	// slot is not released (MLX5E_RQ_FLAG_XDP_XMIT: "do not return page to
	// cache"): the page comes back to the pool through xdp_return_frame.
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

// ReceiveXDPDrop models the driver's XDP path for a frame its program drops
// (XDP_DROP), the use page_pool was written for: sync for the CPU, run the
// program, and give the buffer back as the driver does (Spec.XDPDrop) —
// into the pool's alloc cache from NAPI context, or straight back on the
// NIC ring. It reports whether a frame was received (false: the NIC found
// no posted buffer, or the frame did not fit one).
func (d *Driver) ReceiveXDPDrop(length int) bool {
	m := d.S.M
	cpu := d.CPU()
	d.releaseRx()
	if d.posted == 0 {
		d.miss()
		return false
	}
	m.Charge(cpu, sim.SymDrvRx, 0)
	m.Charge(cpu, sim.SymXDPRun, 0)
	d.polled++
	if length > d.Room() {
		d.Dropped++
		return false
	}
	path := d.Spec.XDPDrop
	if d.cache != nil {
		// mlx5e_xdp_handle returns true for XDP_DROP and
		// mlx5e_handle_rx_cqe goes to free_wqe: mlx5e_free_rx_wqe(rq, wi,
		// true), the page into the driver's cache, still mapped; the
		// refill takes it back from there (mlx5cache.go).
		pg, _, _ := d.takeBuffer(length, true)
		pg.MoveTo(m, sim.PlaceDriver, -1)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceDriver, fmt.Sprintf("XDP_DROP (%s): the RX slot is released (mlx5e_free_rx_wqe, recycle): the page goes to the driver's own cache", d.Spec.XDPDropFn))
		}
		d.pending = append(d.pending, pg)
		if d.Spec.RefillEach {
			d.refill(len(d.ring))
		}
		return true
	}
	pg, off, size := d.takeBuffer(length, path == XDPDropReuse)
	switch path {
	case XDPDropReuse:
		// bnxt_reuse_rx_data: the same buffer goes back at the producer
		// index, still mapped; the pool never sees it.
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("XDP_DROP: the driver gives the same buffer back to the NIC (%s), reposted without an allocation; the pool is not involved", d.Spec.XDPDropFn))
		}
		d.postBuffer(pg, off, size, true)
	case XDPDropPutDirect:
		pg.MoveTo(m, sim.PlaceDriver, -1)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceDriver, fmt.Sprintf("XDP_DROP (%s): page_pool_put_page(pool, page, sync_len, true): straight back into the alloc cache, synced for the device for the frame's length only", d.Spec.XDPDropFn))
		}
		d.Pool.PutPage(cpu, pg, length, true)
	case XDPDropRecycleDirect:
		pg.MoveTo(m, sim.PlaceDriver, -1)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceDriver, fmt.Sprintf("XDP_DROP (%s): page_pool_recycle_direct: the whole page straight back into the alloc cache", d.Spec.XDPDropFn))
		}
		d.Pool.RecycleDirect(cpu, pg)
	default:
		panic(fmt.Sprintf("drivers: %s has no XDP_DROP path (Spec.XDPDrop); the xdp-drop scenario must not offer it", d.Spec.Name))
	}
	if d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	return true
}
