package workload

import (
	"fmt"

	"pplab/engine/sim"
	"pplab/engine/skb"
)

// drop: 64-byte frames with an invalid ethertype: RX, build_skb,
// eth_type_trans, dropped early in __netif_receive_skb_core, kfree_skb in
// NAPI context. numa-migrate is drop traffic whose NAPI moves to a CPU on
// another node half-way; pfmemalloc is drop traffic with reserve pages.
type drop struct {
	n         int64 `pp:"counter"`
	sk        *skb.SKB
	migrateAt int64 // numa-migrate: packet at which the NAPI moves (-1: half-way, set on first step)
	moved     bool
}

func (w *drop) Next() string {
	if w.sk == nil {
		return "NIC receive → build_skb (RX poll)"
	}
	return "eth_type_trans, __netif_receive_skb_core: unknown ethertype → kfree_skb"
}

func (w *drop) Step(e *Env) bool {
	if w.sk == nil {
		if w.migrateAt < 0 {
			w.migrateAt = WarmPackets(e.Drv) + 4*int64(e.Drv.RingSize())
		}
		if w.migrateAt > 0 && !w.moved && w.n == w.migrateAt {
			w.migrate(e)
		}
		sk := e.rx(e.Frame, HdrEth)
		if sk == nil {
			w.n++
			return true
		}
		w.sk = sk
		return false
	}
	cpu := e.inSoftirq(e.Drv.CPU())
	e.M.Begin(cpu, sim.SymNetifReceive)
	e.stackRx(cpu)
	e.M.Begin(cpu, sim.SymKfreeSKB)
	e.S.KfreeSKB(cpu, w.sk)
	w.sk = nil
	w.n++
	return true
}

// ChangesIn: the NAPI moves when the packet that finds n == migrateAt
// starts (the first step sets migrateAt); n counts completed packets, so
// the packet in flight may already be that one's predecessor.
func (w *drop) ChangesIn() int64 {
	switch {
	case w.migrateAt < 0:
		return 0 // not set yet
	case w.migrateAt > 0 && !w.moved:
		return max(0, w.migrateAt-w.n)
	}
	return -1
}

// migrate moves the NAPI to the first CPU on another NUMA node (an IRQ
// affinity change); the application moves to the old CPU.
func (w *drop) migrate(e *Env) {
	d := e.Drv
	old := d.CPU()
	for c := range e.M.CPUs {
		if e.M.NodeOf(c) != e.M.NodeOf(old) {
			d.MoveNAPI(c)
			e.App = old
			w.moved = true
			if e.M.Tracing() {
				e.M.Emit(sim.Event{CPU: c, Func: sim.SymUpdateNid, Pool: d.Pool.ID, Page: -1, Stat: sim.StatNone,
					Why: fmt.Sprintf("IRQ affinity change: the NAPI moves from cpu%d (node %d) to cpu%d (node %d)", old, e.M.NodeOf(old), c, e.M.NodeOf(c))})
			}
			return
		}
	}
}
