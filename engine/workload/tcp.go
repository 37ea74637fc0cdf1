package workload

import (
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// tcpStream: TCP receive: GRO, tcp_v4_rcv, skb_try_coalesce into the socket
// receive queue's tail, the application reads (copies and frees) the data on
// its own CPU every readBatch skbs. From 6.4 the reader's frees are deferred
// to the NAPI CPU (skb_attempt_defer_free) and flushed there in NAPI context.
type tcpStream struct {
	sk       *skb.SKB
	op       int
	queue    []*skb.SKB
	deferred []*skb.SKB
	tap      tapper
}

const readBatch = 8

func (w *tcpStream) Next() string {
	return [...]string{"NIC receive → build_skb (RX poll)", "GRO, tcp_v4_rcv: skb_try_coalesce into the receive queue", "tcp_recvmsg: the application copies and frees the queue"}[w.op]
}

func (w *tcpStream) Step(e *Env) bool {
	cpu := e.Drv.CPU()
	if w.op != 2 {
		e.inSoftirq(cpu)
	}
	switch w.op {
	case 0:
		sk := e.rx(e.Frame, HdrTCP, &w.deferred)
		if sk == nil {
			return true
		}
		w.sk, w.op = sk, 1
		return false
	case 1:
		e.M.Begin(cpu, sim.SymTCPRcv)
		e.stackRx(cpu)
		e.M.Charge(cpu, sim.SymIPRcv, 0)
		w.tap.see(e, cpu, w.sk)
		e.M.Charge(cpu, sim.SymTCPRcv, 0)
		e.S.Pull(w.sk, HdrTCP) // eth_type_trans, ip_rcv and tcp_data_queue have pulled their headers
		w.queue = queueCoalesce(e, cpu, w.queue, w.sk)
		w.sk = nil
		w.op = 0
		if len(w.queue) >= readBatch {
			w.op = 2
			return false
		}
		return true
	}
	app := e.inProcess(e.App) // tcp_recvmsg
	for _, sk := range w.queue {
		e.M.Begin(app, sim.SymTCPRecvmsg)
		e.M.Charge(app, sim.SymTCPRecvmsg, 0)
		e.M.Charge(app, sim.SymCopyToUser, sk.Len)
		if e.M.Era.DeferFree && app != cpu {
			e.M.Charge(app, sim.SymDeferFree, 0)
			e.S.Queue(sk, skb.InDeferList)
			w.deferred = append(w.deferred, sk)
			continue
		}
		e.M.Begin(app, sim.SymKfreeSKB)
		e.S.KfreeSKB(app, sk) // __kfree_skb in tcp_eat_recv_skb
	}
	w.queue = w.queue[:0]
	w.tap.read(e)
	w.op = 0
	return false
}

// queueCoalesce models tcp_queue_rcv → tcp_try_coalesce: skb_try_coalesce
// into the queue's tail, kfree_skb_partial of what is left; else queue it.
func queueCoalesce(e *Env, cpu int, q []*skb.SKB, sk *skb.SKB) []*skb.SKB {
	if n := len(q); n > 0 {
		e.M.Begin(cpu, sim.SymSkbTryCoalesce)
		res, err := e.S.SkbTryCoalesce(cpu, q[n-1], sk)
		if err != nil {
			if e.Err == nil {
				e.Err = err
			}
			return q
		}
		if res.OK {
			e.S.KfreeSkbPartial(cpu, sk, res.HeadStolen)
			return q
		}
	}
	e.S.Queue(sk, skb.InSocket)
	return append(q, sk)
}
