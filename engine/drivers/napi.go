package drivers

import (
	"fmt"

	"pplab/engine/sim"
)

// Poll is called before each frame of length bytes. A NAPI poll ends when
// it has used its budget (NAPI_POLL_WEIGHT frames), or when the next frame
// finds too few posted descriptors: the NIC cannot complete it, so the poll
// finds the completion queue empty and ends short — the driver refills at
// the end of its poll and, with work_done < budget, calls
// napi_complete_done; the next frame's IRQ schedules a new poll, and the
// frame lands in the refilled ring. Drivers that refill at the end of their
// poll refill the ring here; at the start of the next poll mlx5 checks the
// pool's NUMA node. It reports whether a new poll began.
//
// The kernel's polls stop at an empty completion queue, not at the budget
// alone: mlx5e_napi_poll (en_txrx.c) runs mlx5e_poll_rx_cq(cq, budget),
// which processes only the CQEs the NIC wrote, then mlx5e_post_rx_wqes,
// then napi_complete_done(napi, work_done) when work_done < budget;
// mvneta_poll → mvneta_rx_swbm processes min(budget, the descriptors the
// NIC filled: mvneta_rxq_busy_desc_num_get), refills with
// mvneta_rx_refill_queue, and mvneta_poll calls napi_complete_done when
// rx_done < budget (drivers/net/ethernet/mellanox/mlx5/core/en_txrx.c as of
// torvalds/linux 0eaed89c18ae; drivers/net/ethernet/marvell/mvneta.c, the
// same structure in every modelled era). A frame that
// arrives while no descriptor is posted is dropped by the NIC and never
// reaches a poll: it counts in Missed (rx_missed_errors), not towards the
// budget.
func (d *Driver) Poll(length int) bool {
	short := false // EndsShort(length), its test written out: the common frame costs no call
	if d.polled > 0 && d.polled < Budget {
		if short = d.posted < d.Need(length); !short {
			return false
		}
	}
	if short {
		// napi_complete_done(work_done < budget) after the refill below,
		// then the next frame's IRQ: napi_schedule on the same CPU.
		d.Completions++
		d.NAPI.Complete()
		d.NAPI.Schedule()
		if d.S.M.Tracing() {
			d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("the poll ends short after %d frames (budget %d): %d of %d descriptors posted, too few for the next frame — the driver refills and calls napi_complete_done; the next frame's IRQ schedules a new poll", d.polled, Budget, d.posted, len(d.ring)))
		}
	}
	d.polled = 0
	d.NidChanged()
	d.refillRing()
	return true
}

// refillRing is the poll's refill of every empty descriptor, as its own
// operation step (named after the pool's allocation); nothing when the ring
// is full.
func (d *Driver) refillRing() {
	if d.posted+d.held < len(d.ring) {
		d.S.M.Begin(d.CPU(), sim.SymAllocPages)
		d.Refill()
	}
}

// EndPoll models the end of the NAPI poll in progress, when the next frame
// of length bytes starts a new one (AtPollBoundary), for a workload that
// runs something between the two polls on this CPU — another device's NAPI
// poll, such as a redirect target's TX completion — that must see this NAPI
// as the kernel leaves it: the driver's refill at the end of its poll; then,
// if the poll ends short (EndsShort), napi_complete_done (list_owner = -1:
// the NAPI is off the poll list until the next frame's IRQ, Schedule). A
// poll that used its budget stays on the list (net_rx_action repolls it),
// list_owner unchanged. Poll then starts the new poll.
func (d *Driver) EndPoll(length int) {
	short := d.EndsShort(length)
	if d.posted+d.held < len(d.ring) {
		d.S.M.Begin(d.CPU(), sim.SymAllocPages)
		d.Refill()
	}
	if short {
		d.Completions++
		d.NAPI.Complete()
		if d.S.M.Tracing() {
			d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("the poll ends short after %d frames (budget %d): too few descriptors were posted for the next frame — the driver refills and calls napi_complete_done (list_owner = -1); the next frame's IRQ schedules a new poll", d.polled, Budget))
		}
	}
	d.polled = 0
}

// EndsShort reports whether the poll in progress ends before its budget
// because the next frame of length bytes finds too few posted descriptors:
// the completion queue is empty (see Poll). A workload with its own poll
// end (GRO flush, napi_complete_done) asks before it receives.
func (d *Driver) EndsShort(length int) bool {
	return d.polled > 0 && d.polled < Budget && d.posted < d.Need(length)
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

// AtPollBoundary reports whether the next frame, of length bytes, starts a
// NAPI poll (the previous poll used its budget or ends short, or none ran
// yet): where TX completion runs.
func (d *Driver) AtPollBoundary(length int) bool {
	return d.polled == 0 || d.polled >= Budget || d.EndsShort(length)
}

// MoveNAPI moves the queue's NAPI to cpu (an IRQ affinity change): NAPI runs
// there from the next frame, which starts a new poll; the pool's lockless
// cache changes hands (page_pool_nid_changed follows at the next poll when
// the driver checks the node).
func (d *Driver) MoveNAPI(cpu int) {
	d.releaseRx() // the last poll on the old CPU released its slots
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
//
// The poll refills its ring before it completes (mlx5e_post_rx_wqes,
// bnxt's and mvpp2's per-frame refill, mvneta's at the poll's end: all
// inside the poll, before napi_complete_done), so the next IRQ's
// net_rx_action flushes its defer list onto a posted ring.
func (d *Driver) CompleteDone() {
	d.refillRing()
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
//
// bnxt from 6.13 on its path with an aggregation ring fills its RX ring's
// head buffers too, each a page_pool fragment (Driver.heads), after the
// aggregation ring, and then its TPA contexts' spare heads
// (Driver.spares).
func (d *Driver) Open() int {
	if d.posted >= len(d.ring) {
		return 0
	}
	d.S.M.Begin(d.CPU(), sim.SymAllocPages)
	n := d.Refill()
	if d.heads != nil {
		d.fillHeads()
	}
	return n
}
