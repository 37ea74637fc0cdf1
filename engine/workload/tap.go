package workload

import (
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// tapper is an AF_PACKET tap (packet_rcv): it clones every Nth packet; its
// reader frees each clone some packets later on the application CPU.
type tapper struct {
	every  int64
	n      int64 // packets seen, modulo tapDelay·every: only its residues are read, so the state repeats (the lab's fast-forward)
	clones [tapDelay]*skb.SKB
}

const tapDelay = 16

// see clones sk if this packet is tapped (cpu: the NAPI CPU).
func (t *tapper) see(e *Env, cpu int, sk *skb.SKB) {
	if t.every <= 0 {
		return
	}
	slot := t.n % tapDelay
	tapped := t.n%t.every == 0
	if t.n++; t.n == tapDelay*t.every {
		t.n = 0
	}
	if !tapped {
		return
	}
	if old := t.clones[slot]; old != nil { // the reader is behind: free the oldest now
		e.M.Begin(e.inProcess(e.App), sim.SymKfreeSKB)
		e.S.KfreeSKB(e.App, old)
		e.inSoftirq(cpu) // back in the NAPI poll that runs see
	}
	e.M.Begin(cpu, sim.SymSkbClone)
	cl, err := e.S.SkbClone(cpu, sk)
	if err != nil {
		if e.Err == nil {
			e.Err = err
		}
		return
	}
	e.S.Queue(cl, skb.InTap)
	t.clones[slot] = cl
}

// read: the tap reader frees the clone taken tapDelay/2 packets ago.
func (t *tapper) read(e *Env) {
	if t.every <= 0 {
		return
	}
	old := (t.n + tapDelay/2) % tapDelay
	if cl := t.clones[old]; cl != nil {
		e.M.Begin(e.inProcess(e.App), sim.SymKfreeSKB) // the tap's reader (recvmsg)
		e.S.KfreeSKB(e.App, cl)
		t.clones[old] = nil
	}
}
