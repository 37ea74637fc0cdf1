package workload

import (
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// destroy: traffic into a socket whose reader stops; the driver is unloaded
// while the socket still holds held skbs (page_pool_destroy: deferred
// release, a retry every second, a warning every 60 s) and the device is
// unbound; the reader frees them one per second, the last one after 90 s;
// then the pool goes away. Before 6.16 each late page's unmap (at the next
// retry, from the ring) names the unbound device: dma-unmap-after-unbind;
// from 6.16 page_pool_scrub unmapped it at destroy (ee62ce7a1d90). With
// release_race the last free stops inside page_pool_recycle_in_ring while
// the retry that frees the pool runs (271683bb2cf3).
type destroy struct {
	n        int64
	held     []*skb.SKB
	phase    int // 0 traffic, 1 unloaded: freeing, 2 done
	unloadAt int64
	since    int64 // seconds since unload
	racing   bool  // release_race: the last free stopped inside page_pool_recycle_in_ring
}

// destroyHold is how many skbs the socket holds at unload.
const destroyHold = 32

func (w *destroy) Finished() bool { return w.phase == 2 }
func (w *destroy) Next() string {
	return [...]string{"NIC receive → the socket queues the skb (nobody reads)", "one second passes; the reader frees one held skb", ""}[w.phase]
}

// Unload is reached after the packets the run asks for (or 4 rings' worth).
func (w *destroy) Step(e *Env) bool {
	d := e.Drv
	switch w.phase {
	case 0:
		if w.unloadAt == 0 {
			w.unloadAt = int64(4 * d.RingSize())
		}
		sk := e.rx(e.Frame, HdrUDP)
		w.n++
		if sk != nil {
			e.stackRx(d.CPU())
			if len(w.held) == destroyHold { // the reader keeps the newest ones
				e.M.Begin(e.inProcess(e.App), sim.SymKfreeSKB)
				e.S.KfreeSKB(e.App, w.held[0])
				w.held = append(w.held[:0], w.held[1:]...)
			}
			e.S.Queue(sk, skb.InSocket)
			w.held = append(w.held, sk)
		}
		if w.n >= w.unloadAt {
			// ndo_stop runs in process context (rtnl, after napi_disable)
			// in every era: the puts of the posted buffers take the
			// producer lock's _bh form (this costs every era's unload a
			// little, counters unchanged), and from 6.10
			// page_pool_napi_local's in_softirq() test answers "not local".
			e.inProcess(d.CPU())
			d.Unload()
			w.phase = 1
		}
		return true
	case 1:
		e.M.AdvanceNS(1_000_000_000) // page_pool_release_retry runs on cpu0
		w.since++
		if w.racing {
			// The reader's CPU leaves page_pool_recycle_in_ring after the
			// release retry ran on cpu0 (producer.go).
			w.racing = false
			e.M.Begin(e.inProcess(e.App), sim.SymRecycleInRing)
			d.Pool.ResumeRecycleInRing()
		}
		if len(w.held) > 1 || (len(w.held) == 1 && w.since >= 90) {
			if len(w.held) == 1 && e.M.Knobs[sim.KnobReleaseRace] != 0 {
				// release_race: the last page's put stops right after
				// __ptr_ring_produce, so the next release retry meets a
				// producer inside page_pool_recycle_in_ring (271683bb2cf3).
				d.Pool.PreemptRecycleInRing()
				w.racing = true
			}
			e.M.Begin(e.inProcess(e.App), sim.SymKfreeSKB)
			e.S.KfreeSKB(e.App, w.held[0])
			w.held = w.held[1:]
		}
		if len(w.held) == 0 && !w.racing && (d.Pool.Freed() || w.since > 200) {
			w.phase = 2
		}
	}
	return false
}
