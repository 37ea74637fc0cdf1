package workload

import (
	"fmt"

	"pplab/engine/sim"
	"pplab/engine/skb"
)

// tcpStream is TCP receive of one bulk flow: the NAPI CPU receives each
// segment, GRO aggregates them (skb_gro_receive), the aggregate goes up the
// stack (tcp_v4_rcv → tcp_queue_rcv → tcp_try_coalesce) into the socket's
// receive queue, and the application on its own CPU reads the queue skb by
// skb (tcp_recvmsg) and frees each one as it is consumed (tcp_eat_recv_skb):
// from 5.19 with skb_attempt_defer_free, which hands it back to the NAPI CPU
// to be freed in net_rx_action.
//
// The two CPUs run concurrently: each step runs whichever side's next
// operation starts earlier on the machine's clocks, so a reader faster than
// the NIC finds every skb soon after it is queued, and a slower one lets the
// queue grow. The sender fills the window the receive queue leaves: frames
// arrive while sk_rmem_alloc < sk_rcvbuf (the rcvbuf knob; no RTT, nothing in
// flight beyond it). When the window is closed the NAPI's poll finds no
// frame and completes (napi_complete_done: GRO flushed, list_owner = -1); the
// next frame, once the reader has made room, arrives with an IRQ that
// schedules it again. A poll also ends short when the RX ring has no
// descriptor left for the next frame (a ring smaller than the budget): GRO
// is flushed, napi_complete_done, and the next frame finds the ring the
// driver refilled. With one CPU the reader runs between polls.
type tcpStream struct {
	next      tcpOp
	gro       skb.GRO
	useGRO    bool
	tpa       bool           // the NIC aggregates (hardware GRO: Driver.TPA)
	frame     *skb.SKB       // received by the driver, not yet through GRO
	up        fifo[*skb.SKB] // left GRO, awaiting tcp_v4_rcv, oldest first
	queue     fifo[queued]   // the socket's receive queue
	read      *skb.SKB       // copied to user, not yet eaten (tcp_eat_recv_skb is the reader's next operation)
	rmem      int            // sk_rmem_alloc: the truesize the receive queue holds
	openAt    int64          `pp:"time"` // when the reader last reopened a closed window (ps)
	kickAt    int64          `pp:"time"` // when the reader's IPI kicked the NAPI CPU (ps)
	ending    bool           // the poll found no frame: GRO flushed, napi_complete_done next
	idle      bool           // the NAPI completed and waits for an IRQ
	closed    bool           // the window has closed at least once (the reader is the slower side)
	frames    int64          `pp:"counter"` // frames received
	rcvbuf    int
	readNS    int64
	deferFree bool // the era frees with skb_attempt_defer_free (5.19)
	tap       tapper
}

// queued is an skb in the receive queue and when it became readable (the
// NAPI CPU's clock, ps).
type queued struct {
	sk *skb.SKB
	at int64 `pp:"time"`
}

type tcpOp uint8

const (
	tcpRx       tcpOp = iota // the driver receives a frame
	tcpGRO                   // eth_type_trans, napi_gro_receive
	tcpDeliver               // tcp_v4_rcv of what GRO let go
	tcpPollEnd               // no frame: the poll ends short, GRO is flushed
	tcpComplete              // napi_complete_done, then net_rx_action's last defer flush
	tcpKick                  // the reader's IPI: net_rx_action on an idle NAPI CPU (defer flush only)
	tcpRead                  // tcp_recvmsg copies one skb to user space
	tcpEat                   // tcp_eat_recv_skb: the copied skb leaves the queue and is freed
)

func newTCPStream(e *Env) *tcpStream {
	return &tcpStream{useGRO: e.M.Knobs[sim.KnobGRO] != 0 && e.Drv.Spec.GRO, tpa: e.Drv.TPA(), rcvbuf: int(e.M.Knobs[sim.KnobRcvbuf]),
		readNS: e.M.Knobs[sim.KnobReadNS], tap: tapper{every: e.M.Knobs[sim.KnobTapEvery]}, deferFree: e.M.Era.DeferFree}
}

func (w *tcpStream) Next() string {
	switch w.next {
	case tcpRx:
		if w.idle {
			return "NIC receive: the IRQ schedules the idle NAPI (list_owner = this CPU), net_rx_action flushes the defer list and polls"
		}
		if w.tpa {
			return "NIC receive: the NIC adds the segment to its TPA aggregation (hardware GRO); at the 33rd, TPA_END: bnxt_tpa_end builds the skb"
		}
		return "NIC receive → build_skb (RX poll)"
	case tcpGRO:
		return "eth_type_trans, napi_gro_receive: skb_gro_receive merges the segment into the flow's aggregate"
	case tcpDeliver:
		return "tcp_v4_rcv: tcp_try_coalesce into the receive queue, or queue the skb"
	case tcpPollEnd:
		return "the poll finds no frame (the window is closed, or no RX descriptor is left posted) and ends short; napi_complete_done flushes GRO"
	case tcpComplete:
		return "napi_complete_done (list_owner = -1), then net_rx_action's last skb_defer_free_flush"
	case tcpKick:
		return "the reader's IPI: net_rx_action runs on the idle NAPI CPU and flushes its defer list"
	}
	if w.next == tcpEat {
		if w.deferFree {
			return "tcp_eat_recv_skb: sock_rfree, then skb_attempt_defer_free hands the skb back to the CPU that built it; the window update lets the sender go on"
		}
		return "tcp_eat_recv_skb: sock_rfree and __kfree_skb; the window update lets the sender go on"
	}
	return "tcp_recvmsg: the application copies one skb to user space"
}

func (w *tcpStream) Step(e *Env) bool {
	done := w.step(e)
	w.next = w.choose(e)
	return done
}

func (w *tcpStream) step(e *Env) bool {
	cpu, app := e.Drv.CPU(), e.App
	switch w.next {
	case tcpRx:
		if w.idle {
			e.M.IdleUntil(cpu, w.openAt) // waiting for the sender's next segment
			w.idle = false
		}
		if w.tpa {
			return w.rxTPA(e)
		}
		sk := e.rx(e.Frame, HdrTCP)
		if sk == nil {
			return true // lost
		}
		w.frame = sk
		w.frames++
		return false
	case tcpGRO:
		e.inSoftirq(cpu)
		sk := w.frame
		w.frame = nil
		e.M.Begin(cpu, sim.SymGroReceive)
		e.M.Charge(cpu, sim.SymEthTypeTrans, 0)
		e.S.Pull(sk, HdrEth)
		if e.Drv.Spec.GRO { // napi_gro_receive; gro off still runs dev_gro_receive's early exit
			e.M.Charge(cpu, sim.SymGroReceive, 0)
		}
		e.M.Charge(cpu, sim.SymStackRest, 0)
		if !w.useGRO {
			w.up.Push(sk)
			return true
		}
		flushed, err := e.S.NapiGroReceive(cpu, &w.gro, sk, HdrTCP-HdrEth)
		if err != nil {
			if e.Err == nil {
				e.Err = err
			}
			return true
		}
		if flushed != nil {
			w.up.Push(flushed)
		}
		return true
	case tcpDeliver:
		e.inSoftirq(cpu)
		w.deliver(e, cpu, w.up.Pop())
		return false
	case tcpPollEnd:
		if e.Drv.TPASegs() > 0 {
			// The poll finds no new segment: the aggregation the chip holds
			// closes (its timer, in the kernel) and TPA_END comes first.
			w.frame = e.tpaEnd()
			return false
		}
		e.inSoftirq(cpu)
		e.M.Begin(cpu, sim.SymGroReceive)
		if p := w.gro.Flush(); p != nil { // napi_gro_flush in napi_complete_done
			w.up.Push(p)
		}
		w.ending = true
		return false
	case tcpComplete:
		e.inSoftirq(cpu)
		e.M.Begin(cpu, sim.SymNapiComplete) // the operation (napi_complete_done has no cost of its own)
		e.Drv.CompleteDone()
		e.S.SkbDeferFreeFlush(cpu) // net_rx_action: the poll list is empty (a no-op before the deferred free, 5.19)
		w.ending, w.idle = false, true
		return false
	case tcpKick:
		e.M.IdleUntil(cpu, w.kickAt)
		e.inSoftirq(cpu)
		e.S.SkbDeferFreeFlush(cpu) // net_rx_action with nothing to poll
		return false
	}
	if w.next == tcpEat {
		w.eat(e, e.inProcess(app))
		return false
	}
	w.copy(e, e.inProcess(app))
	return false
}

// rxTPA is a segment the NIC aggregates itself (hardware GRO, bnxt's TPA):
// the CPU sees nothing until the aggregation closes, then one completion
// whose skb goes through GRO as any other (too big to merge with the next).
func (w *tcpStream) rxTPA(e *Env) bool {
	e.M.Begin(e.Drv.CPU(), sim.SymDrvRx) // the NIC's operation, shown on its queue's CPU (it charges nothing)
	full, ok := e.Drv.TPAAdd(e.Frame, HdrTCP)
	if !ok {
		e.Lost++
		return true
	}
	w.frames++
	if !full {
		return true
	}
	if w.frame = e.tpaEnd(); w.frame == nil {
		return true
	}
	return false
}

// Settled reports whether the run is past filling the receive window: it
// has closed once (a reader slower than the NIC holds it full from then
// on), or twenty windows' worth of frames went by without it closing.
func (w *tcpStream) Settled() bool { return w.closed || w.frames >= w.SettleBound() }

// SettleBound: twenty windows of full-size frames.
func (w *tcpStream) SettleBound() int64 { return 20 * int64(w.rcvbuf/FrameTCP) }

// deliver is tcp_v4_rcv → tcp_rcv_established → tcp_queue_rcv for one skb
// GRO let go (or one segment with GRO off): the socket's receive queue
// grows by its truesize.
func (w *tcpStream) deliver(e *Env, cpu int, sk *skb.SKB) {
	e.M.Begin(cpu, sim.SymTCPRcv)
	e.M.Charge(cpu, sim.SymNetifReceive, 0)
	e.M.Charge(cpu, sim.SymIPRcv, 0)
	w.tap.see(e, cpu, sk)
	e.M.Charge(cpu, sim.SymTCPRcv, 0)
	e.S.Pull(sk, HdrTCP-HdrEth) // ip_rcv and tcp_data_queue pull their headers
	if w.queue.Len() > 0 {
		tail := w.queue.Last().sk
		before := tail.Truesize
		if coalesced(e, cpu, tail, sk) {
			w.rmem += tail.Truesize - before
			return
		}
	}
	e.S.Queue(sk, skb.InSocket)
	w.queue.Push(queued{sk, e.M.CPUs[cpu].NowPS()})
	w.rmem += sk.Truesize
}

// copy is tcp_recvmsg on the application's CPU: it waits for the queue's
// first skb, copies it to user space and does the application's own work.
// The skb stays in the queue until tcp_eat_recv_skb (eat), the reader's next
// operation: the model runs an operation whole at its start time, so the
// free at the end of the copy is an operation of its own, at the time it
// happens — the NAPI CPU's operations before that time run first and do not
// see it on their defer list.
func (w *tcpStream) copy(e *Env, app int) {
	q := w.queue.Pop()
	sk := q.sk
	e.M.IdleUntil(app, q.at) // waiting for data
	e.M.Begin(app, sim.SymTCPRecvmsg)
	e.M.Charge(app, sim.SymTCPRecvmsg, sk.Len) // per call, and its datagram iteration per byte
	e.M.Charge(app, sim.SymCopyToUser, sk.Len)
	if w.readNS > 0 {
		segs := (sk.Len + PayloadTCP - 1) / PayloadTCP
		e.M.ChargeNS(app, sim.SymAppWork, w.readNS*int64(segs))
	}
	w.read = sk
}

// eat is tcp_eat_recv_skb for the skb just copied: sock_rfree (the receive
// queue shrinks by its truesize), then from 5.19 skb_attempt_defer_free,
// before it __kfree_skb; then the window update (tcp_cleanup_rbuf) that
// lets the sender go on if the window was closed.
func (w *tcpStream) eat(e *Env, app int) {
	sk := w.read
	w.read = nil
	closed := w.rmem >= w.rcvbuf
	w.rmem -= sk.Truesize
	if e.M.Era.DeferFree {
		e.M.Begin(app, sim.SymDeferFree)
		if e.S.SkbAttemptDeferFree(app, sk) == skb.DeferKicked {
			w.kickAt = e.M.CPUs[app].NowPS()
		}
	} else {
		e.M.Begin(app, sim.SymKfreeSKB)
		e.S.KfreeSKB(app, sk) // __kfree_skb in tcp_recvmsg (sk_eat_skb)
	}
	if closed && w.rmem < w.rcvbuf {
		w.openAt = e.M.CPUs[app].NowPS() // the window update lets the sender go on
	}
	w.tap.read(e)
}

// choose picks the next operation: the NAPI side's or the reader's,
// whichever starts earlier (the NAPI on a tie, unless its poll would end for
// want of a frame the reader is about to make room for).
func (w *tcpStream) choose(e *Env) tcpOp {
	cpu, app := e.Drv.CPU(), e.App
	napiT, appT := e.M.CPUs[cpu].NowPS(), e.M.CPUs[app].NowPS()
	open := w.rmem < w.rcvbuf
	nOp, nAt, nOK := tcpRx, napiT, true
	switch {
	case w.frame != nil:
		nOp = tcpGRO
	case w.up.Len() > 0:
		nOp = tcpDeliver
	case w.ending:
		nOp = tcpComplete
	case w.idle && open:
		nAt = max(napiT, w.openAt)
	case w.idle && e.S.KickPending(cpu):
		nOp, nAt = tcpKick, max(napiT, w.kickAt)
	case w.idle:
		nOK = false
	case !open:
		nOp = tcpPollEnd
		w.closed = true
	case e.Drv.EndsShort(e.Frame): // the RX ring ran dry: the CQ is empty
		nOp = tcpPollEnd
	}
	rOp, rOK := tcpRead, w.queue.Len() > 0
	var rAt int64
	switch {
	case w.read != nil: // the copy is done: tcp_eat_recv_skb at its end
		rOp, rOK, rAt = tcpEat, true, appT
		if app == cpu {
			rAt = 0 // one CPU: right after the copy
		}
	case rOK:
		rAt = max(appT, w.queue.At(0).at)
		if app == cpu { // one CPU: the reader runs between polls
			rOK = nOp == tcpRx && (w.idle || e.Drv.AtPollBoundary(e.Frame)) || nOp == tcpPollEnd || !nOK
			rAt = 0
		}
	}
	switch {
	case rOK && !nOK:
		return rOp
	case rOK && (rAt < nAt || rAt == nAt && nOp == tcpPollEnd):
		return rOp
	case nOK:
		return nOp
	}
	if e.Err == nil {
		e.Err = fmt.Errorf("tcp-stream: nothing can run (window closed with an empty receive queue: rmem %d, rcvbuf %d)", w.rmem, w.rcvbuf)
	}
	return tcpRx
}

// coalesced models tcp_try_coalesce(to, from) in tcp_queue_rcv:
// skb_try_coalesce into the receive queue's tail and kfree_skb_partial of
// what is left of from. False: from must be queued itself.
func coalesced(e *Env, cpu int, to, from *skb.SKB) bool {
	e.M.Begin(cpu, sim.SymSkbTryCoalesce)
	res, err := e.S.SkbTryCoalesce(cpu, to, from)
	if err != nil {
		if e.Err == nil {
			e.Err = err
		}
		return true // the run stops; from stays where it is
	}
	if res.OK {
		e.S.KfreeSkbPartial(cpu, from, res.HeadStolen)
	}
	return res.OK
}

// queueCoalesce is tcp_queue_rcv for a receive queue held as a slice.
func queueCoalesce(e *Env, cpu int, q []*skb.SKB, sk *skb.SKB) []*skb.SKB {
	if n := len(q); n > 0 && coalesced(e, cpu, q[n-1], sk) {
		return q
	}
	e.S.Queue(sk, skb.InSocket)
	return append(q, sk)
}
