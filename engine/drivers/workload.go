package drivers

import (
	"errors"
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// Env is what a workload runs on: the machine, one driver queue and the skb
// layer. The NAPI runs on Drv.CPU(); the application (socket reader, tap
// reader, veth peer) on App.
type Env struct {
	M   *sim.Machine
	A   *mm.Allocator
	Reg *pagepool.Registry
	S   *skb.Stack
	Drv *Driver
	App int

	// Frame is the size of the frames the workload receives: the frame knob,
	// or DefaultFrame. Set by NewWorkload.
	Frame int

	Lost int64 // frames lost: no RX buffer posted, or no memory for an skb
	Err  error // a step that could not go on (the run stops)
}

// Workload advances one scenario by one operation.
type Workload interface {
	// Step runs one operation; it reports whether it completed a packet.
	Step(e *Env) bool
	// Next names the next operation (the UI's step narration).
	Next() string
}

// Ender is a workload that ends on its own (destroy): the packet count of a
// run does not end it, Finished does.
type Ender interface {
	Finished() bool
}

// Workload names (product.md §2.5).
const (
	WDrop          = "drop"
	WTCPStream     = "tcp-stream"
	WForward       = "forward"
	WXDPRedirect   = "xdp-redirect"
	WSplitPage     = "split-page"
	WCloneTap      = "clone-tap"
	WCoalesceMixed = "coalesce-mixed"
	WDestroy       = "destroy"
	WNumaMigrate   = "numa-migrate"
	WPfmemalloc    = "pfmemalloc"
)

// Frame sizes on the wire (without FCS): a 64-byte test frame, a full TCP
// segment (MSS 1448 + 20 bytes of IPv4 + 32 of TCP with timestamps + 14), a
// full iperf UDP datagram (1470 + 8 + 20 + 14).
const (
	FrameSmall  = 64
	FrameTCP    = 1514
	FrameUDP    = 1512
	FrameMedium = 1000 // split-page, clone-tap, destroy: a frame well inside half a page
	PayloadTCP  = 1448
	PayloadUDP  = 1470
	// Header bytes eth_get_headlen finds (what a header-splitting driver
	// copies) and the protocols pull: Ethernet; + IPv4 + UDP; + IPv4 + TCP
	// with timestamps.
	HdrEth = 14
	HdrUDP = 42
	HdrTCP = 66
)

// WarmPackets is the warm-up of a run on d: the steady state starts once
// every RX buffer has cycled twice (rate and profile count from then on).
func WarmPackets(d *Driver) int64 { return int64(2*d.RingSize() + Budget) }

// DefaultFrame is the frame size a workload receives unless the frame knob
// says otherwise (coalesce-mixed mixes its own sizes).
func DefaultFrame(workload string) int {
	switch workload {
	case WTCPStream:
		return FrameTCP
	case WForward:
		return FrameUDP
	case WDrop, WXDPRedirect, WNumaMigrate, WPfmemalloc:
		return FrameSmall
	}
	return FrameMedium
}

// settle sorts out a receive: an error stops the run, nil is a lost frame.
func (e *Env) settle(sk *skb.SKB, err error) bool {
	if errors.Is(err, skb.ErrNoMem) {
		e.Lost++
		return false
	}
	if err != nil {
		if e.Err == nil {
			e.Err = err
		}
		return false
	}
	if sk == nil {
		e.Lost++
	}
	return sk != nil
}

// rx runs the NAPI side of one frame of length bytes (hdr of them headers):
// poll bookkeeping, then the driver's receive. deferred (may be nil) are skbs whose free was deferred to this
// CPU (skb_attempt_defer_free): net_rx_action flushes them first.
func (e *Env) rx(length, hdr int, deferred *[]*skb.SKB) *skb.SKB {
	d := e.Drv
	if d.Poll() && deferred != nil && len(*deferred) > 0 {
		e.flushDeferred(deferred)
	}
	e.M.Begin(d.CPU(), sim.SymDrvRx)
	sk, err := d.Receive(length, hdr)
	if !e.settle(sk, err) {
		return nil
	}
	return sk
}

// flushDeferred models skb_defer_free_flush in net_rx_action: from 6.4 each
// skb is freed with napi_consume_skb(skb, 1): NAPI context on the pool's CPU.
func (e *Env) flushDeferred(list *[]*skb.SKB) {
	cpu := e.Drv.CPU()
	for _, sk := range *list {
		e.M.Begin(cpu, sim.SymNapiConsumeSKB)
		e.S.NapiConsumeSKB(cpu, sk, 1)
	}
	*list = (*list)[:0]
}

// stackRx charges the receive path up to the protocol: eth_type_trans, GRO,
// __netif_receive_skb_core and the calibrated rest of the stack.
func (e *Env) stackRx(cpu int) {
	m := e.M
	m.Charge(cpu, sim.SymEthTypeTrans, 0)
	m.Charge(cpu, sim.SymGroReceive, 0)
	m.Charge(cpu, sim.SymNetifReceive, 0)
	m.Charge(cpu, sim.SymStackRest, 0)
}

// NewWorkload returns the named workload on env (the driver must run it).
func NewWorkload(name string, e *Env) (Workload, error) {
	e.Frame = DefaultFrame(name)
	if v := e.M.Knobs[sim.KnobFrame]; v > 0 {
		e.Frame = int(v)
	}
	switch name {
	case WDrop, WPfmemalloc:
		return &drop{}, nil
	case WNumaMigrate:
		if e.M.Knobs[sim.KnobNumaNodes] < 2 || len(e.M.CPUs) < 2 {
			return nil, fmt.Errorf("numa-migrate needs numa_nodes >= 2 and cpus >= 2")
		}
		return &drop{migrateAt: -1}, nil
	case WTCPStream:
		return &tcpStream{tap: tapper{every: e.M.Knobs[sim.KnobTapEvery]}}, nil
	case WForward:
		return newForward(e), nil
	case WXDPRedirect:
		return &xdpRedirect{}, nil
	case WSplitPage:
		return &splitPage{}, nil
	case WCloneTap:
		every := e.M.Knobs[sim.KnobTapEvery]
		if every == 0 {
			every = 4
		}
		return &cloneTap{tap: tapper{every: every}}, nil
	case WCoalesceMixed:
		return &coalesceMixed{}, nil
	case WDestroy:
		return &destroy{}, nil
	}
	return nil, fmt.Errorf("unknown workload %q", name)
}

// drop: 64-byte frames with an invalid ethertype: RX, build_skb,
// eth_type_trans, dropped early in __netif_receive_skb_core, kfree_skb in
// NAPI context. numa-migrate is drop traffic whose NAPI moves to a CPU on
// another node half-way; pfmemalloc is drop traffic with reserve pages.
type drop struct {
	n         int64
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
		sk := e.rx(e.Frame, HdrEth, nil)
		if sk == nil {
			w.n++
			return true
		}
		w.sk = sk
		return false
	}
	cpu := e.Drv.CPU()
	e.M.Begin(cpu, sim.SymNetifReceive)
	e.stackRx(cpu)
	e.M.Begin(cpu, sim.SymKfreeSKB)
	e.S.KfreeSKB(cpu, w.sk)
	w.sk = nil
	w.n++
	return true
}

// migrate moves the NAPI to the first CPU on another NUMA node (an IRQ
// affinity change); the application moves to the old CPU.
func (w *drop) migrate(e *Env) {
	d := e.Drv
	old := d.CPU()
	for c := range e.M.CPUs {
		if e.M.NodeOf(c) != e.M.NodeOf(old) {
			d.NAPI.CPU = c
			d.NAPI.Schedule()
			d.Pool.NAPIMoved(c)
			e.App = old
			d.polled = 0 // the next frame starts a poll on the new CPU
			w.moved = true
			if e.M.Tracing() {
				e.M.Emit(sim.Event{CPU: c, Func: sim.SymUpdateNid, Pool: d.Pool.ID, Page: -1, Stat: sim.StatNone,
					Why: fmt.Sprintf("IRQ affinity change: the NAPI moves from cpu%d (node %d) to cpu%d (node %d)", old, e.M.NodeOf(old), c, e.M.NodeOf(c))})
			}
			return
		}
	}
}

// tapper is an AF_PACKET tap (packet_rcv): it clones every Nth packet; its
// reader frees each clone some packets later on the application CPU.
type tapper struct {
	every  int64
	n      int64
	clones [tapDelay]*skb.SKB
}

const tapDelay = 16

// see clones sk if this packet is tapped (cpu: the NAPI CPU).
func (t *tapper) see(e *Env, cpu int, sk *skb.SKB) {
	if t.every <= 0 {
		return
	}
	slot := t.n % tapDelay
	t.n++
	if (t.n-1)%t.every != 0 {
		return
	}
	if old := t.clones[slot]; old != nil { // the reader is behind: free the oldest now
		e.M.Begin(e.App, sim.SymKfreeSKB)
		e.S.KfreeSKB(e.App, old)
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
		e.M.Begin(e.App, sim.SymKfreeSKB)
		e.S.KfreeSKB(e.App, cl)
		t.clones[old] = nil
	}
}

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
	app := e.App
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

// forward: NAT forwarding: RX, header rewrite (skb_cow: a cloned skb gets a
// private head first), TX with a DMA mapping of the frame, TX completion in
// NAPI context frees the skb (napi_consume_skb, or dev_kfree_skb_any for
// drivers that do not use it). TX completion runs at each poll on tx_cpu.
type forward struct {
	sk  *skb.SKB
	tx  []*skb.SKB // TX ring awaiting completion, oldest first
	cap int
	tap tapper
}

func newForward(e *Env) *forward {
	return &forward{cap: e.Drv.RingSize(), tap: tapper{every: e.M.Knobs[sim.KnobTapEvery]}}
}

func (w *forward) Next() string {
	if w.sk == nil {
		return "TX completion (at a poll start) and NIC receive → build_skb"
	}
	return "ip_forward + NAT, skb_cow, __dev_queue_xmit → ndo_start_xmit (DMA map)"
}

func (w *forward) txCPU(e *Env) int {
	if c := int(e.M.Knobs[sim.KnobTxCPU]); c > 0 && c < len(e.M.CPUs) {
		return c
	}
	return e.Drv.CPU()
}

// complete models the TX completion poll: unmap and free up to Budget
// transmitted skbs.
func (w *forward) complete(e *Env) {
	cpu := w.txCPU(e)
	n := min(len(w.tx), Budget)
	for _, sk := range w.tx[:n] {
		e.M.Begin(cpu, sim.SymDrvTxClean)
		e.M.Charge(cpu, sim.SymDrvTxClean, 0)
		unmapTX(e, cpu, sk)
		if e.Drv.Spec.TxNapiConsume {
			e.S.NapiConsumeSKB(cpu, sk, Budget)
		} else {
			e.S.KfreeSKB(cpu, sk) // dev_kfree_skb_any outside hard IRQ: consume_skb
		}
	}
	w.tx = append(w.tx[:0], w.tx[n:]...)
}

func (w *forward) Step(e *Env) bool {
	d := e.Drv
	cpu := d.CPU()
	if w.sk == nil {
		if d.polled == 0 || d.polled >= Budget {
			w.complete(e)
		}
		sk := e.rx(e.Frame, HdrUDP, nil)
		if sk == nil {
			return true
		}
		w.sk = sk
		return false
	}
	sk := w.sk
	w.sk = nil
	e.M.Begin(cpu, sim.SymIPForward)
	e.stackRx(cpu)
	e.M.Charge(cpu, sim.SymIPRcv, 0)
	w.tap.see(e, cpu, sk)
	e.M.Charge(cpu, sim.SymIPForward, 0)
	if skb.SkbCloned(sk) { // skb_cow: the tap holds a clone; rewrite a private head
		e.M.Begin(cpu, sim.SymPskbExpandHead)
		if err := e.S.PskbExpandHead(cpu, sk, 0); err != nil {
			if e.Err == nil {
				e.Err = err
			}
			return true
		}
	}
	w.tap.read(e)
	e.M.Charge(cpu, sim.SymDevQueueXmit, 0)
	e.M.Begin(cpu, sim.SymDrvXmit)
	e.M.Charge(cpu, sim.SymDrvXmit, 0)
	if len(w.tx) >= w.cap || !mapTX(e, cpu, sk) {
		e.Lost++ // TX ring full or mapping error: dropped
		e.S.KfreeSKB(cpu, sk)
		return true
	}
	d.Transmitted++
	e.S.Queue(sk, skb.InTXRing)
	w.tx = append(w.tx, sk)
	return true
}

// mapTX models the driver's ndo_start_xmit mappings: dma_map_single of the
// linear data and skb_frag_dma_map of each frag. On a mapping error the
// mappings made are undone and the frame is dropped (false).
func mapTX(e *Env, cpu int, sk *skb.SKB) bool {
	dma := &e.A.DMA
	d := sk.D
	if !dma.MapTX(cpu, d.HeadPage, sk.Headlen()) { // HeadPage is nil for a kmalloc'ed head
		return false
	}
	for i := 0; i < d.NrFrags; i++ {
		f := &d.Frags[i]
		if !dma.MapTX(cpu, f.Page, f.Size) {
			dma.UnmapTX(cpu, d.HeadPage)
			for j := 0; j < i; j++ {
				dma.UnmapTX(cpu, d.Frags[j].Page)
			}
			return false
		}
	}
	return true
}

// unmapTX undoes mapTX at TX completion.
func unmapTX(e *Env, cpu int, sk *skb.SKB) {
	d := sk.D
	e.A.DMA.UnmapTX(cpu, d.HeadPage)
	for i := 0; i < d.NrFrags; i++ {
		e.A.DMA.UnmapTX(cpu, d.Frags[i].Page)
	}
}

// xdpRedirect: the driver's XDP program redirects every frame into a veth;
// the veth's NAPI (on the application CPU) runs XDP_PASS, which builds an skb
// from the frame. Before 6.8 __xdp_build_skb_from_frame releases the page
// from its pool (xdp_release_frame → page_pool_release_page), so pages never
// come back and the pool lives on its slow path; from 6.8 (page_pool_release
// _page is gone) the skb is marked for recycling and pages return through the
// ring from the veth's CPU.
type xdpRedirect struct {
	frame xdpFrame // the frame in flight to the veth (op 1)
	op    int
}

type xdpFrame struct {
	pg       *mm.Page
	off, len int
	size     int
}

func (w *xdpRedirect) Next() string {
	return [...]string{"NIC receive → XDP program: XDP_REDIRECT to the veth", "veth NAPI: XDP_PASS → __xdp_build_skb_from_frame → stack → kfree_skb"}[w.op]
}

func (w *xdpRedirect) Step(e *Env) bool {
	d := e.Drv
	m := e.M
	if w.op == 0 {
		d.Poll()
		cpu := d.CPU()
		m.Begin(cpu, sim.SymXDPRun)
		f, ok := d.ReceiveXDP(e.Frame)
		if !ok {
			e.Lost++
			return true
		}
		m.Charge(cpu, sim.SymXDPRedirect, 0)
		w.frame, w.op = f, 1
		return false
	}
	app := e.App
	f := w.frame
	w.frame, w.op = xdpFrame{}, 0
	m.Begin(app, sim.SymVethXDPRcv)
	m.Charge(app, sim.SymVethXDPRcv, 0)
	m.Charge(app, sim.SymXDPConvert, 0)
	pg := f.pg
	mark := m.Era.NoReleasePageAPI
	if !mark {
		if err := d.Pool.ReleasePage(app, pg); err != nil { // xdp_release_frame → page_pool_release_page
			e.settle(nil, err)
			return true
		}
	}
	sk, err := e.S.BuildSKB(app, pg, f.off, f.size, f.len, true)
	if !e.settle(sk, err) {
		return true
	}
	if mark {
		if err := e.S.MarkForRecycle(app, sk, pg, d.Pool); err != nil {
			e.settle(nil, err)
			return true
		}
	}
	m.Begin(app, sim.SymNetifReceive)
	e.stackRx(app)
	m.Begin(app, sim.SymKfreeSKB)
	e.S.KfreeSKB(app, sk)
	return true
}

// ReceiveXDP models the driver's XDP path for one frame: sync for the CPU,
// run the program; the buffer leaves the RX ring as an XDP frame in flight.
func (d *Driver) ReceiveXDP(length int) (xdpFrame, bool) {
	m := d.S.M
	cpu := d.CPU()
	m.Charge(cpu, sim.SymDrvRx, 0)
	m.Charge(cpu, sim.SymXDPRun, 0)
	d.polled++
	if d.posted == 0 || length > d.Room() {
		d.Dropped++
		return xdpFrame{}, false
	}
	pg, off, size := d.take(length)
	pg.MoveTo(m, sim.PlaceXDPFrame, -1) // held by the frame (not an skb: no skb-level user)
	if m.Tracing() {
		d.ev(sim.SymXDPRedirect, pg, sim.PlaceNICRing, sim.PlaceXDPFrame, "XDP_REDIRECT: the frame is queued to the veth (xdp_do_redirect)")
	}
	if d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	return xdpFrame{pg: pg, off: off, len: length, size: size}, true
}

// splitPage: each page feeds two RX buffers: half-page flip before 5.15 (the
// split-page caveat once the skbs are marked: freeing one half recycles the
// page under the NIC), page_pool_alloc_frag from 5.15. Each skb is freed on
// the application CPU.
type splitPage struct {
	sk *skb.SKB
}

func (w *splitPage) Next() string {
	if w.sk == nil {
		return "NIC receive into a half page → napi_build_skb + skb_mark_for_recycle"
	}
	return "kfree_skb (socket reader)"
}

func (w *splitPage) Step(e *Env) bool {
	if w.sk == nil {
		if w.sk = e.rx(e.Frame, HdrUDP, nil); w.sk != nil {
			e.stackRx(e.Drv.CPU())
		}
		return w.sk == nil // no buffer: the frame is lost
	}
	e.M.Begin(e.App, sim.SymKfreeSKB)
	e.S.KfreeSKB(e.App, w.sk)
	w.sk = nil
	return true
}

// cloneTap: an AF_PACKET tap clones every 4th packet (tap_every): the
// original is consumed in NAPI context, the clone freed by the tap reader on
// the application CPU 8 packets later.
type cloneTap struct {
	sk  *skb.SKB
	tap tapper
}

func (w *cloneTap) Next() string {
	if w.sk == nil {
		return "NIC receive → build_skb"
	}
	return "packet_rcv (skb_clone), napi_consume_skb of the original, the tap reader frees an old clone"
}

func (w *cloneTap) Step(e *Env) bool {
	if w.sk == nil {
		w.sk = e.rx(e.Frame, HdrUDP, nil)
		return w.sk == nil
	}
	cpu := e.Drv.CPU()
	e.stackRx(cpu)
	w.tap.see(e, cpu, w.sk)
	e.M.Begin(cpu, sim.SymNapiConsumeSKB)
	e.S.NapiConsumeSKB(cpu, w.sk, Budget)
	w.sk = nil
	w.tap.read(e)
	return true
}

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

func (w *coalesceMixed) Next() string {
	return [...]string{"receive (page_pool driver or loopback)", "skb_try_coalesce into the queue tail", "reader drains the receive queue"}[w.op]
}

func (w *coalesceMixed) Step(e *Env) bool {
	app := e.App
	switch w.op {
	case 0:
		size := mixedSizes[w.n%int64(len(mixedSizes))]
		var sk *skb.SKB
		if w.n%4 >= 2 {
			sk = e.rx(min(size, e.Drv.Room()), HdrTCP, nil)
		} else {
			e.M.Begin(app, sim.SymAllocSKB)
			s, err := e.S.AllocPageFragSKB(app, size) // -ENOBUFS for the sender on failure
			if e.settle(s, err) {
				sk = s
			}
		}
		if sk == nil {
			w.n++
			return true
		}
		w.in, w.op = sk, 1
		return false
	case 1:
		w.queue = queueCoalesce(e, app, w.queue, w.in)
		w.in = nil
		w.n++
		w.op = 0
		if w.n%mixedBatch == 0 {
			w.op = 2
			return false
		}
		return true
	}
	for _, sk := range w.queue {
		e.M.Begin(app, sim.SymKfreeSKB)
		e.S.KfreeSKB(app, sk)
	}
	w.queue = w.queue[:0]
	w.op = 0
	return false
}

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
		sk := e.rx(e.Frame, HdrUDP, nil)
		w.n++
		if sk != nil {
			e.stackRx(d.CPU())
			if len(w.held) == destroyHold { // the reader keeps the newest ones
				e.M.Begin(e.App, sim.SymKfreeSKB)
				e.S.KfreeSKB(e.App, w.held[0])
				w.held = append(w.held[:0], w.held[1:]...)
			}
			e.S.Queue(sk, skb.InSocket)
			w.held = append(w.held, sk)
		}
		if w.n >= w.unloadAt {
			d.Unload()
			w.phase = 1
		}
		return true
	case 1:
		e.M.AdvanceNS(1_000_000_000)
		w.since++
		if len(w.held) > 1 || (len(w.held) == 1 && w.since >= 90) {
			e.M.Begin(e.App, sim.SymKfreeSKB)
			e.S.KfreeSKB(e.App, w.held[0])
			w.held = w.held[1:]
		}
		if len(w.held) == 0 && (d.Pool.Freed() || w.since > 200) {
			w.phase = 2
		}
	}
	return false
}

// SetUnloadAt sets after how many packets destroy unloads the driver.
func SetUnloadAt(w Workload, n int64) {
	if d, ok := w.(*destroy); ok {
		d.unloadAt = n
	}
}
