package workload

import (
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// destroy: traffic into a socket whose reader stops; the driver is unloaded
// while the socket still holds held skbs (page_pool_destroy: deferred
// release, a retry every second, a warning every 60 s); the reader frees
// them one per second, the last one after 90 s; then the pool goes away.
type destroy struct {
	n        int64
	held     []*skb.SKB
	phase    int // 0 traffic, 1 unloaded: freeing, 2 done
	unloadAt int64
	since    int64 // seconds since unload
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
			// ndo_stop runs in process context (rtnl, after napi_disable):
			// from 6.10 page_pool_napi_local asks in_softirq() of the
			// driver's allow_direct = false puts of its posted buffers.
			e.inProcess(d.CPU())
			d.Unload()
			w.phase = 1
		}
		return true
	case 1:
		e.M.AdvanceNS(1_000_000_000)
		w.since++
		if len(w.held) > 1 || (len(w.held) == 1 && w.since >= 90) {
			e.M.Begin(e.inProcess(e.App), sim.SymKfreeSKB)
			e.S.KfreeSKB(e.App, w.held[0])
			w.held = w.held[1:]
		}
		if len(w.held) == 0 && (d.Pool.Freed() || w.since > 200) {
			w.phase = 2
		}
	}
	return false
}
