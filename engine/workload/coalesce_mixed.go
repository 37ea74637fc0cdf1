package workload

import (
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// coalesceMixed: skbs from the page_pool driver and from loopback (page_frag
// heads) meet in one receive queue, two of each in turn: skb_try_coalesce
// into the tail; the reader drains the queue on the application CPU.
type coalesceMixed struct {
	n     int64
	queue []*skb.SKB
	in    *skb.SKB
	op    int
}

// mixedSizes: loopback 600 then 3000 (copied into the tailroom), page_pool 1400
// then 3000 (its head is stolen); each change of kind is a refusal from 5.14.
var mixedSizes = [...]int{600, 3000, 1400, 3000}

// mixedBatch is how many skbs the reader lets queue up before draining: not a
// multiple of len(mixedSizes), so batches start alternately with a loopback
// and a page_pool skb. With coalesce-pp-guard broken the first kind moves
// page_pool pages into a slab-backed skb (put_page: the pool loses them), the
// second hands loopback pages to page_pool_return_skb_page, where only the
// signature check keeps them out of the pool.
const mixedBatch = 6

// mixedPhase is a common multiple of the periods n is read with (the sizes,
// the 4-packet source pattern, mixedBatch): n counts modulo it, so the
// workload's state repeats exactly (the lab's fast-forward finds the cycle)
// and every test on n is unchanged.
const mixedPhase = int64(len(mixedSizes)) * mixedBatch

func (w *coalesceMixed) Next() string {
	return [...]string{"receive (page_pool driver or loopback)", "skb_try_coalesce into the queue tail", "reader drains the receive queue"}[w.op]
}

func (w *coalesceMixed) Step(e *Env) bool {
	app := e.inProcess(e.App) // the reader and the loopback sender (sendmsg)
	switch w.op {
	case 0:
		size := mixedSizes[w.n%int64(len(mixedSizes))]
		var sk *skb.SKB
		if w.n%4 >= 2 {
			sk = e.rx(min(size, e.Drv.Room()), HdrTCP)
		} else {
			e.M.Begin(app, sim.SymAllocSKB)
			s, err := e.S.AllocPageFragSKB(app, size) // -ENOBUFS for the sender on failure
			if e.settle(s, err) {
				sk = s
			}
		}
		if sk == nil {
			w.n = (w.n + 1) % mixedPhase
			return true
		}
		w.in, w.op = sk, 1
		return false
	case 1:
		w.queue = queueCoalesce(e, app, w.queue, w.in)
		w.in = nil
		w.n = (w.n + 1) % mixedPhase
		w.op = 0
		if w.n%mixedBatch == 0 {
			w.op = 2
			return false
		}
		return true
	}
	// The reader is tcp_recvmsg: tcp_eat_recv_skb frees each skb with
	// skb_attempt_defer_free from 5.19 (the driver's skbs go back to the
	// NAPI CPU's defer list, the loopback ones were allocated here and are
	// freed here), with __kfree_skb before it.
	kicked := false
	for _, sk := range w.queue {
		if e.M.Era.DeferFree {
			e.M.Begin(app, sim.SymDeferFree)
			kicked = e.S.SkbAttemptDeferFree(app, sk) == skb.DeferKicked || kicked
			continue
		}
		e.M.Begin(app, sim.SymKfreeSKB)
		e.S.KfreeSKB(app, sk)
	}
	if kicked {
		// The IPI raised NET_RX_SOFTIRQ on the NAPI CPU: its net_rx_action
		// flushes the defer list there (the tcp-stream kick, without an
		// idle NAPI to wait for).
		cpu := e.inSoftirq(e.Drv.CPU())
		e.M.Begin(cpu, sim.SymDeferFlush)
		e.S.SkbDeferFreeFlush(cpu)
	}
	w.queue = w.queue[:0]
	w.op = 0
	return false
}
