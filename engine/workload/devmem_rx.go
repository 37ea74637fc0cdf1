package workload

import (
	"fmt"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// WDevmemRx is the devmem-rx workload.
const WDevmemRx = "devmem-rx"

// Devmem TCP's user API constants.
const (
	// DontneedBatch: sock_devmem_dontneed puts the tokens' netmems back in
	// batches of 16 (the netmems[16] array of the SO_DEVMEM_DONTNEED patch).
	DontneedBatch = 16
	// MaxDontneedFrags is MAX_DONTNEED_FRAGS (1024): the most tokens one
	// setsockopt(SO_DEVMEM_DONTNEED) gives back.
	MaxDontneedFrags = 1024
	// devmemReturnEvery: the model's reader gives its tokens back after
	// this many segments (one setsockopt per 64 reads; the model's choice,
	// as ncdevmem's loop is the user's).
	devmemReturnEvery = 64
)

// devmemRx: one TCP flow received into an RX queue bound to a memory
// provider, with header split: the headers land in a host page of the
// driver's header pool, the payload in a net_iov of the bound queue's
// payload pool. The reader, on the application CPU in process context,
// receives each skb without a copy — recvmsg(MSG_SOCK_DEVMEM)
// (tcp_recvmsg_dmabuf) hands out one dma-buf token per frag — or, with
// provider=1 (io_uring zero-copy RX, 6.15), one CQE per frag; every 64
// segments it gives them back: setsockopt(SO_DEVMEM_DONTNEED) puts each
// net_iov back through napi_pp_put_page (process context: the ptr_ring),
// io_uring posts them on its refill queue, which the payload pool drains
// straight into its alloc cache. With tap_every an AF_PACKET tap (a
// TPACKET ring) captures every Nth skb: the headers only, as the frags
// are unreadable.
type devmemRx struct {
	dm     *drivers.Devmem
	mp     *pagepool.Provider
	sk     *skb.SKB   // received, waiting for the reader
	tokens []*mm.Page // net_iovs the user holds (sk_user_frags / CQEs), in the order handed out
	n      int64      `pp:"counter"`
	every  int64      // tap_every
	bound  bool       // the payload ring is filled (the queue restarted onto the provider)

	Tokens, Returned, Captured int64 `pp:"counter"` // tokens handed out, given back; tap captures
}

// newDevmemRx binds the driver's queue 0 to a fresh dma-buf binding (or
// io_uring area) of dmabuf_pages chunks; the error is the binding's
// refusal.
func newDevmemRx(e *Env) (*devmemRx, error) {
	ioUring := e.M.Knobs[sim.KnobProvider] == 1
	if err := e.Drv.Spec.BindRxQueue(e.M.Era, ioUring); err != nil {
		return nil, err
	}
	b, err := e.A.BindDmabuf(int(e.M.Knobs[sim.KnobDmabufPages]), ioUring)
	if err != nil {
		return nil, err
	}
	mp := &pagepool.Provider{B: b}
	dm, err := e.Drv.BindDevmem(mp, 0)
	if err != nil {
		return nil, err
	}
	return &devmemRx{dm: dm, mp: mp, tokens: make([]*mm.Page, 0, MaxDontneedFrags), every: e.M.Knobs[sim.KnobTapEvery]}, nil
}

// Devmem returns the workload's bound queue (tests and the lab's view).
func Devmem(w Workload) *drivers.Devmem {
	if d, ok := w.(*devmemRx); ok {
		return d.dm
	}
	return nil
}

func (w *devmemRx) Next() string {
	switch {
	case !w.bound:
		return "netdev_rx_queue_restart: ndo_queue_start posts the bound queue's payload ring (net_iovs from the provider)"
	case w.sk == nil:
		return "NIC receive with header split: headers into a host page, payload into a net_iov (RX poll)"
	}
	return "the reader receives the skb without a copy (tokens), frees it, and gives tokens back every 64 segments"
}

func (w *devmemRx) Step(e *Env) bool {
	if !w.bound {
		w.bound = true
		cpu := e.inProcess(e.Drv.CPU()) // the bind is a netlink request: process context, NAPI off
		e.M.Begin(cpu, sim.SymAllocPages)
		w.dm.Refill()
		return false
	}
	if w.sk == nil {
		w.rx(e)
		if w.sk == nil {
			w.n++
			return true
		}
		return false
	}
	w.read(e)
	w.n++
	return true
}

// rx: the NAPI side of one segment: the driver builds the skb around the
// headers, the payload net_iov joins as an unreadable frag, and
// tcp_v4_rcv queues it (the tap sees it first).
func (w *devmemRx) rx(e *Env) {
	sk := e.rx(HdrTCP, HdrTCP)
	if sk == nil {
		return
	}
	cpu := e.Drv.CPU()
	ok, err := w.dm.AddPayload(sk, e.Frame-HdrTCP)
	if err != nil || !ok {
		if err != nil && e.Err == nil {
			e.Err = err
		}
		e.Lost++
		e.M.Begin(cpu, sim.SymKfreeSKB)
		e.S.KfreeSKB(cpu, sk)
		return
	}
	e.stackRx(cpu)
	e.M.Begin(cpu, sim.SymTCPRcv)
	e.M.Charge(cpu, sim.SymIPRcv, 0)
	w.tap(e, cpu, sk)
	e.M.Charge(cpu, sim.SymTCPRcv, 0)
	e.S.Pull(sk, HdrTCP-HdrEth) // ip_rcv and tcp_data_queue pull their headers
	e.S.Queue(sk, skb.InSocket)
	w.sk = sk
}

// tap models tpacket_rcv for every tap_every-th skb: snaplen (headers only
// for an unreadable skb), then skb_copy_bits of snaplen bytes into the
// TPACKET ring frame.
func (w *devmemRx) tap(e *Env, cpu int, sk *skb.SKB) {
	if w.every <= 0 || w.n%w.every != 0 {
		return
	}
	snap := e.S.PacketSnaplen(sk)
	e.M.Begin(cpu, sim.SymSkbCopyBits)
	if _, err := e.S.SkbCopyBits(cpu, sk, 0, snap); err != nil && e.Err == nil {
		e.Err = err
	}
	w.Captured++
}

// read: the reader's side of one skb, in process context on the
// application CPU.
func (w *devmemRx) read(e *Env) {
	app := e.inProcess(e.App)
	sk := w.sk
	w.sk = nil
	w.recvmsgDmabuf(e, app, sk)
	e.M.Begin(app, sim.SymKfreeSKB)
	if e.M.Era.DeferFree {
		e.S.SkbAttemptDeferFree(app, sk) // tcp_eat_recv_skb
	} else {
		e.S.KfreeSKB(app, sk)
	}
	for _, pg := range w.tokens { // a net_iov no skb holds any more is the user's alone
		if pg.Users == 0 && pg.Place != sim.PlaceUser {
			pg.MoveTo(e.M, sim.PlaceUser, w.mp.B.ID)
		}
	}
	if int64(len(w.tokens)) >= devmemReturnEvery {
		if w.mp.IOUring() {
			w.zcrxRefill(e, app)
		} else {
			w.devmemDontneed(e, app)
		}
	}
}

// recvmsgDmabuf models tcp_recvmsg_dmabuf (8f0b3cc9a4c1 "tcp: RX path for
// devmem TCP", v6.12), reached by recvmsg(MSG_SOCK_DEVMEM): the linear
// bytes left are copied as usual; each net_iov frag becomes an
// SCM_DEVMEM_DMABUF cmsg with a token, for which the kernel takes one pp
// reference on the net_iov (atomic_long_inc of pp_ref_count) and records
// it in sk->sk_user_frags. No payload byte is copied. With io_uring
// (io_zcrx_recv_skb → io_zcrx_recv_frag, 6.15) each frag becomes a CQE
// with the same extra reference (page_pool_ref_netmem, plus the niov's
// user_refs); the model charges both as tcp_recvmsg_dmabuf.
func (w *devmemRx) recvmsgDmabuf(e *Env, app int, sk *skb.SKB) {
	e.M.Begin(app, sim.SymDevmemRecvmsg)
	cost := e.M.Charge(app, sim.SymDevmemRecvmsg, sk.D.NrFrags)
	if n := sk.Headlen(); n > 0 {
		e.M.Charge(app, sim.SymCopyToUser, n)
	}
	for i := 0; i < sk.D.NrFrags; i++ {
		pg := sk.D.Frags[i].Page
		if !pg.IsNetIov() {
			panic(fmt.Sprintf("workload: devmem-rx skb#%d has a readable frag %d (%s): the payload pool gave a page", sk.ID, i, pg))
		}
		pagepool.RefNetmem(pg)
		w.tokens = append(w.tokens, pg)
		w.Tokens++
	}
	if e.M.Tracing() {
		why := fmt.Sprintf("recvmsg(MSG_SOCK_DEVMEM): %d SCM_DEVMEM_DMABUF token(s), one per frag: each takes a pp reference on its net_iov (sk_user_frags); the payload is never copied", sk.D.NrFrags)
		if w.mp.IOUring() {
			why = fmt.Sprintf("io_zcrx_recv_skb: %d CQE(s), one per frag: each takes a user reference and a pp reference on its niov; the payload is never copied", sk.D.NrFrags)
		}
		e.M.Emit(sim.Event{CPU: app, Func: sim.SymDevmemRecvmsg, SKB: sk.ID, Page: -1, CostPS: cost, Stat: sim.StatNone, Why: why})
	}
}

// devmemDontneed models setsockopt(SO_DEVMEM_DONTNEED) →
// sock_devmem_dontneed (v6.12): at most MAX_DONTNEED_FRAGS tokens, each
// __xa_erase'd from sk_user_frags and its net_iov put with
// napi_pp_put_page, DontneedBatch at a time. Process context: the pool's
// NAPI is not local (page_pool_napi_local false), so a net_iov whose last
// reference this was goes into the ptr_ring (recycle_stat ring), never the
// alloc cache.
func (w *devmemRx) devmemDontneed(e *Env, app int) {
	n := min(len(w.tokens), MaxDontneedFrags)
	for start := 0; start < n; start += DontneedBatch {
		end := min(start+DontneedBatch, n)
		e.M.Begin(app, sim.SymDevmemDontneed)
		cost := e.M.Charge(app, sim.SymDevmemDontneed, end-start)
		if e.M.Tracing() {
			e.M.Emit(sim.Event{CPU: app, Func: sim.SymDevmemDontneed, Page: -1, CostPS: cost, Stat: sim.StatNone, N: int32(end - start),
				Why: fmt.Sprintf("SO_DEVMEM_DONTNEED: %d tokens erased from sk_user_frags, their net_iovs put with napi_pp_put_page in process context: not NAPI-local, so into the ptr_ring", end-start)})
		}
		for _, pg := range w.tokens[start:end] {
			if !e.Reg.ReturnSkbPage(app, pg, false) && e.M.Tracing() { // WARN_ON_ONCE(!napi_pp_put_page(netmems[k]))
				// Only reachable with a rule broken (the net_iov left its
				// pool while the user held its token; the checker reported
				// that where it happened).
				e.M.Emit(sim.Event{CPU: app, Kind: sim.EvWarn, Func: sim.SymDevmemDontneed, Page: pg.PFN, Stat: sim.StatNone,
					Why: "WARN_ON_ONCE(!napi_pp_put_page(netmems[k])): the token's net_iov is no longer a page_pool netmem"})
			}
		}
	}
	w.drop(n)
}

// zcrxRefill models the io_uring user posting its niovs on the refill
// queue (one io_uring_zcrx_rqe each); the pool takes them back at its next
// alloc_netmems (io_zcrx_ring_refill), into the alloc cache.
func (w *devmemRx) zcrxRefill(e *Env, app int) {
	for _, pg := range w.tokens {
		w.mp.ZcrxReturn(pg)
	}
	w.drop(len(w.tokens))
}

// drop forgets the first n tokens (given back).
func (w *devmemRx) drop(n int) {
	w.Returned += int64(n)
	rest := copy(w.tokens, w.tokens[n:])
	clear(w.tokens[rest:])
	w.tokens = w.tokens[:rest]
}
