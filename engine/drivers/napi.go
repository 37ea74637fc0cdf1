package drivers

import (
	"pplab/engine/sim"
)

// Poll is called before each frame. At a poll boundary (every Budget frames:
// NAPI_POLL_WEIGHT) the previous poll ends — drivers that refill at the end
// of their poll refill the ring here — and the next begins (mlx5 checks the
// pool's NUMA node). It reports whether a new poll began.
func (d *Driver) Poll() bool {
	if d.polled > 0 && d.polled < Budget {
		return false
	}
	d.polled = 0
	d.NidChanged()
	if d.posted < len(d.ring) {
		d.S.M.Begin(d.CPU(), sim.SymAllocPages)
		d.Refill()
	}
	return true
}

// NidChanged models the mlx5 poll's check: if the pool's nid is not this
// CPU's node, page_pool_nid_changed (update_nid). It reports whether it ran.
func (d *Driver) NidChanged() bool {
	if !d.Spec.NidChanged {
		return false
	}
	if node := d.S.M.NodeOf(d.CPU()); d.Pool.P.Nid != node && d.Pool.P.Nid >= 0 {
		d.S.M.Begin(d.CPU(), sim.SymUpdateNid)
		d.Pool.NidChanged(d.CPU(), node)
		return true
	}
	return false
}

// AtPollBoundary reports whether the next frame starts a NAPI poll (the
// previous poll used its budget, or none ran yet): where TX completion runs.
func (d *Driver) AtPollBoundary() bool { return d.polled == 0 || d.polled >= Budget }

// MoveNAPI moves the queue's NAPI to cpu (an IRQ affinity change): NAPI runs
// there from the next frame, which starts a new poll; the pool's lockless
// cache changes hands (page_pool_nid_changed follows at the next poll when
// the driver checks the node).
func (d *Driver) MoveNAPI(cpu int) {
	d.NAPI.CPU = cpu
	d.NAPI.Schedule()
	d.Pool.NAPIMoved(cpu)
	d.polled = 0
}

// CompleteDone models napi_complete_done(napi, work_done) after a poll that
// found fewer frames than its budget: the NAPI leaves the poll list and
// list_owner is reset to -1 (8c48eea3adf3, v6.4: from here until the next
// IRQ schedules it, no free on this CPU is NAPI-local). The next frame
// starts a new poll. The caller flushes GRO first (napi_gro_flush, in
// napi_complete_done before list_owner is cleared).
func (d *Driver) CompleteDone() {
	d.NAPI.Complete()
	d.polled = 0
	d.Completions++
}

// Scheduled reports whether the NAPI is on its CPU's poll list
// (list_owner == its CPU): polling, not completed.
func (d *Driver) Scheduled() bool { return d.NAPI.ListOwner == d.NAPI.CPU }

// Schedule models the RX IRQ's napi_schedule → ____napi_schedule on the
// NAPI's CPU: list_owner = that CPU; net_rx_action will poll it.
func (d *Driver) Schedule() { d.NAPI.Schedule() }

// Open fills the RX ring as the driver's ndo_open does before the first
// frame arrives (mvpp2_open → mvpp2_rxq_init → mvpp2_rx_refill per
// descriptor; mvneta_open → mvneta_rxq_fill; mlx5e_open_channels →
// mlx5e_alloc_rx_wqes; bnxt_open → bnxt_alloc_rx_data per slot): one
// page_pool_alloc_pages per buffer on the queue's CPU, the first one the
// slow path. It reports the buffers posted. Calling it on a filled ring
// posts nothing.
func (d *Driver) Open() int {
	if d.posted >= len(d.ring) {
		return 0
	}
	d.S.M.Begin(d.CPU(), sim.SymAllocPages)
	return d.Refill()
}
