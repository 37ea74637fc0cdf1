package workload

import (
	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// destroyXDP: destroy with held=1. The pages in flight at the unload are
// not skbs in a socket but XDP frames the driver's program redirected to a
// second port of the same driver (xdp-redirect's redirect_to=1 target, on a
// device of its own), whose transmit is stalled by its link partner's flow
// control: a standing queue of 32 frames waits on its TX ring (each poll's
// completion leaves the newest 32). The driver is unloaded from process
// context on cpu1 — an unbind written from a shell there — so
// page_pool_destroy queues the pool's release work on cpu1; the driver's
// device is unbound, the second port's is not. After the unload the port
// completes one frame a second, the last after 90 s (the skb variant's
// pacing), in its NAPI on tx_cpu: each an unmap from its own device and a
// put into the destroyed pool the driver's way — a one-frame
// xdp_return_frame_bulk → page_pool_put_page_bulk (page_pool_recycle_ring_bulk
// from 6.14) for mvpp2, mvneta and mlx5, xdp_return_frame for bnxt — into
// the ptr_ring (the pool's NAPI was unlinked at destroy: nothing is local),
// whence the next release retry returns it. Before 6.16 that return unmaps
// the page on the unbound device (dma-unmap-after-unbind, as for skbs).
//
// With release_race=1 the last completion's put stops right after its
// last __ptr_ring_produce — a bulk put up to 6.13 and a single put still
// inside the producer lock, a bulk put from 6.14 after the unlock, before
// recycle_stat_add — while the retry on cpu1 empties the ring, finds
// inflight 0 and frees the pool: a use-after-free of the kernel's own in
// every era for a bulk put (no barrier before 6.16; from 6.16 the barrier
// waits only for a producer inside the lock: bdea4980182e, 7.3), and before
// 6.16 for xdp_return_frame's page_pool_recycle_in_ring (271683bb2cf3).
type destroyXDP struct {
	redir    xdpRedirectPort
	n        int64
	phase    int // 0 traffic, 1 unloaded: the port completes one frame a second, 2 done
	unloadAt int64
	since    int64 // seconds since unload
	racing   bool  // release_race: the last completion's put stopped in its producer window
}

func newDestroyXDP(e *Env) *destroyXDP {
	return &destroyXDP{redir: xdpRedirectPort{port: drivers.NewXDPTarget(e.Drv)}}
}

func (w *destroyXDP) Finished() bool { return w.phase == 2 }
func (w *destroyXDP) Next() string {
	return [...]string{"NIC receive → XDP program: XDP_REDIRECT to the second port, whose stalled TX ring keeps the newest 32 frames", "one second passes; the second port's TX completion returns one frame", ""}[w.phase]
}

// Step: unload after the packets the run asks for (or 4 rings' worth).
func (w *destroyXDP) Step(e *Env) bool {
	d := e.Drv
	port := w.redir.port
	switch w.phase {
	case 0:
		if w.unloadAt == 0 {
			w.unloadAt = int64(4 * d.RingSize())
		}
		cpu := e.inSoftirq(d.CPU())
		if d.AtPollBoundary(e.Frame) {
			w.redir.betweenPolls(e, cpu, destroyHold)
		}
		d.Poll(e.Frame)
		e.M.Begin(cpu, sim.SymXDPRun)
		if f, ok := d.ReceiveXDP(e.Frame, "the second port's devmap bulk queue"); ok {
			e.M.Charge(cpu, sim.SymXDPRedirect, 0)
			e.Lost += int64(port.Enqueue(cpu, f))
		} else {
			e.Lost++
		}
		w.n++
		if w.n >= w.unloadAt {
			// The driver's last poll ends (napi_disable waits for it):
			// xdp_do_flush sends the bulk queue, and the port's
			// completion leaves its standing queue. Then ndo_stop, the
			// pool's destroy and the unbind, in process context on cpu1.
			e.Lost += int64(port.Flush(cpu))
			port.Complete(e.inSoftirq(e.txCPU()), port.Queued()-destroyHold)
			app := e.inProcess(e.App)
			d.UnloadOn(app)
			w.phase = 1
		}
		return true
	case 1:
		e.M.AdvanceNS(1_000_000_000) // page_pool_release_retry runs on cpu1, where page_pool_destroy queued it
		w.since++
		tx := e.inSoftirq(e.txCPU()) // the port's NAPI
		if w.racing {
			// The port's CPU leaves the put's producer window after the
			// release retry ran on cpu1 (producer.go).
			w.racing = false
			sym := sim.SymRecycleInRing
			if d.Spec.XDPNdo == drivers.XDPNdoReturnBulk {
				sym = sim.SymPutPageBulk
			}
			e.M.Begin(tx, sym)
			d.Pool.ResumeRecycleInRing()
		}
		if q := port.Queued(); q > 1 || (q == 1 && w.since >= 90) {
			if q == 1 && e.M.Knobs[sim.KnobReleaseRace] != 0 {
				// release_race: the last frame's put stops right after its
				// __ptr_ring_produce, so the next release retry meets a
				// producer in its window.
				d.Pool.PreemptRecycleInRing()
				w.racing = true
			}
			port.Complete(tx, 1)
		}
		if port.Queued() == 0 && !w.racing && (d.Pool.Freed() || w.since > 200) {
			w.phase = 2
		}
	}
	return false
}
