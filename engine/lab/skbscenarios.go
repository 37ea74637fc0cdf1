package lab

import (
	"errors"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// The skb-level scenarios run a generic driver stub (drivers.Stub) on cpu0
// (NAPI) and the socket reader on cpu1. The pool DMA-maps its pages, as
// drivers' pools do; dma_sync_dev, max_len and pool_size come from the knobs.

const (
	stubRing   = 128 // RX descriptors
	tapEvery   = 4   // clone-tap: every 4th packet is also seen by the tap
	tapDelay   = 16  // clone-tap: the tap reader frees a clone 16 packets later
	queueBatch = 8   // coalesce-mixed: the reader drains the queue every 8 skbs
)

func init() {
	Scenarios = append(Scenarios,
		&Scenario{Name: "split-page", Doc: "the driver splits each page into two RX buffers: half-page flip before 5.15 (the split-page caveat: freeing one half recycles the page under the NIC), page_pool_alloc_frag from 5.15",
			Eras: []string{"rfc-v1", "5.14", "5.15", "6.4", "6.8"}, KnownFailure: map[string]sim.Kind{"rfc-v1": sim.KindUseAfterRecycle, "5.14": sim.KindUseAfterRecycle},
			newRun: newSplitPage},
		&Scenario{Name: "clone-tap", Doc: "an AF_PACKET tap (packet_rcv) clones every 4th packet: the original is consumed in NAPI context, the clone freed 16 packets later by the tap reader on cpu1",
			newRun: newCloneTap},
		&Scenario{Name: "coalesce-mixed", Doc: "skbs from a page_pool driver and from loopback (page_frag heads) meet in one receive queue, two of each in turn: skb_try_coalesce into the tail, the reader drains the queue on cpu1",
			newRun: newCoalesceMixed},
	)
}

// stubEnv is the machine side of an skb scenario.
type stubEnv struct {
	st  *skb.Stack
	drv *drivers.Stub
}

func newStubEnv(l *Lab, mode drivers.BufferMode) (*stubEnv, error) {
	k := &l.M.Knobs
	napi := pagepool.NewNAPI(0)
	p := pagepool.Params{Flags: pagepool.FlagDMAMap, Order: uint8(k[sim.KnobOrder]), PoolSize: int(k[sim.KnobPoolSize]),
		Nid: int(k[sim.KnobNid]), DMADir: mm.DMAFromDevice, MaxLen: int(k[sim.KnobMaxLen]), Offset: int(k[sim.KnobOffset]), NAPI: napi}
	if k[sim.KnobDMASyncDev] != 0 {
		p.Flags |= pagepool.FlagDMASyncDev
	}
	if mode == drivers.FragAPI && l.M.Era.FragFlag {
		p.Flags |= pagepool.FlagPageFrag
	}
	pool, err := l.Reg.Create(0, p)
	if err != nil {
		return nil, err
	}
	if l.M.Era.SkbRecycle == sim.SkbRecycleRFC {
		l.Reg.RegMemModel(pool)
	}
	l.Pool = pool
	napi.Schedule()
	st := skb.NewStack(l.Reg)
	drv, err := drivers.NewStub(st, pool, napi, stubRing, mode)
	if err != nil {
		return nil, err
	}
	l.Skb = st
	return &stubEnv{st: st, drv: drv}, nil
}

// rx runs the NAPI poll's part for one frame: refill when half the ring is
// empty, then receive. nil skb = the NIC had no buffer (a drop).
func (s *stubEnv) rx(l *Lab, length int) (*skb.SKB, error) {
	if s.drv.Posted() <= stubRing/2 {
		l.M.Begin(0, sim.SymAllocPages)
		s.drv.Refill()
	}
	l.M.Begin(0, sim.SymBuildSKB)
	return s.drv.Receive(length)
}

// arrived settles a new skb: an error stops the run, nil (no buffer, no
// memory) is a lost packet. It reports whether there is an skb to go on with.
func arrived(l *Lab, sk *skb.SKB, err error) bool {
	if errors.Is(err, skb.ErrNoMem) {
		l.allocFailures++
		return false
	}
	if err != nil {
		l.fail(err)
		return false
	}
	return sk != nil
}

// splitPage: receive one half, free it on the reader CPU; next packet.
type splitPage struct {
	*stubEnv
	sk *skb.SKB
}

func newSplitPage(l *Lab) (runner, error) {
	mode := drivers.HalfPageFlip
	if l.M.Era.FragAPI {
		mode = drivers.FragAPI
	}
	env, err := newStubEnv(l, mode)
	if err != nil {
		return nil, err
	}
	return &splitPage{stubEnv: env}, nil
}

func (r *splitPage) measuring() bool { return true }
func (r *splitPage) next() string {
	if r.sk == nil {
		return "NIC receive + napi_build_skb + skb_mark_for_recycle"
	}
	return "kfree_skb (socket reader)"
}

func (r *splitPage) step(l *Lab) bool {
	if r.sk == nil {
		sk, err := r.rx(l, 1000)
		if !arrived(l, sk, err) {
			return true // dropped: no buffer
		}
		r.sk = sk
		return false
	}
	l.M.Begin(1, sim.SymKfreeSKB)
	r.st.KfreeSKB(1, r.sk)
	r.sk = nil
	return true
}

// cloneTap: receive; every tapEvery-th packet the tap clones it; the original
// is consumed in NAPI context; clones are freed tapDelay packets later.
type cloneTap struct {
	*stubEnv
	n      int64
	sk     *skb.SKB
	op     int
	clones [tapDelay]*skb.SKB
}

func newCloneTap(l *Lab) (runner, error) {
	env, err := newStubEnv(l, drivers.PagePerFrame)
	if err != nil {
		return nil, err
	}
	return &cloneTap{stubEnv: env}, nil
}

func (r *cloneTap) measuring() bool { return true }
func (r *cloneTap) next() string {
	return [...]string{"NIC receive + napi_build_skb", "packet_rcv: skb_clone", "napi_consume_skb (stack consumed the original)", "kfree_skb (tap reader frees an old clone)"}[r.op]
}

func (r *cloneTap) step(l *Lab) bool {
	slot := int(r.n % tapDelay)
	switch r.op {
	case 0:
		sk, err := r.rx(l, 1000)
		if !arrived(l, sk, err) {
			r.n++
			return true
		}
		r.sk = sk
		r.op = 1
		if r.n%tapEvery != 0 {
			r.op = 2
		}
		return false
	case 1:
		l.M.Begin(0, sim.SymSkbClone)
		cl, err := r.st.SkbClone(0, r.sk)
		if err != nil {
			l.fail(err)
		}
		r.clones[slot] = cl // the slot's old clone was freed in op 3 of an earlier packet
		r.op = 2
		return false
	case 2:
		l.M.Begin(0, sim.SymNapiConsumeSKB)
		r.st.NapiConsumeSKB(0, r.sk, 64)
		r.sk = nil
		r.op = 3
		return false
	}
	// op 3: the tap reader frees the clone taken tapDelay/2 packets ago, if any.
	old := (slot + tapDelay/2) % tapDelay
	if cl := r.clones[old]; cl != nil {
		l.M.Begin(1, sim.SymKfreeSKB)
		r.st.KfreeSKB(1, cl)
		r.clones[old] = nil
	}
	r.op = 0
	r.n++
	return true
}

// coalesceMixed: two loopback skbs, then two page_pool skbs, arrive in turn; it is coalesced into the receive queue's tail or queued;
// the reader drains the queue every queueBatch skbs.
type coalesceMixed struct {
	*stubEnv
	n     int64
	queue []*skb.SKB
	in    *skb.SKB
	op    int
}

func newCoalesceMixed(l *Lab) (runner, error) {
	env, err := newStubEnv(l, drivers.PagePerFrame)
	if err != nil {
		return nil, err
	}
	return &coalesceMixed{stubEnv: env, queue: make([]*skb.SKB, 0, queueBatch)}, nil
}

func (r *coalesceMixed) measuring() bool { return true }
func (r *coalesceMixed) next() string {
	return [...]string{"receive (page_pool driver or loopback)", "skb_try_coalesce into the queue tail", "reader drains the receive queue"}[r.op]
}

// mixedSizes: loopback 600 then 3000 (copied into the tailroom), page_pool 1400
// then 3000 (its head is stolen); each change of kind is a refusal from 5.14.
// A batch starts with loopback, so a broken coalesce-pp-guard moves page_pool
// pages into a slab-backed skb.
var mixedSizes = [...]int{600, 3000, 1400, 3000}

func (r *coalesceMixed) step(l *Lab) bool {
	switch r.op {
	case 0:
		size := mixedSizes[r.n%int64(len(mixedSizes))]
		var sk *skb.SKB
		var err error
		if r.n%4 >= 2 {
			sk, err = r.rx(l, min(size, mm.PageSize-skb.ShinfoSize-skb.NetSkbPad))
		} else {
			l.M.Begin(1, sim.SymAllocSKB)
			sk, err = r.st.AllocPageFragSKB(1, size) // -ENOBUFS for the sender on failure
		}
		if !arrived(l, sk, err) {
			r.n++
			return true
		}
		r.in, r.op = sk, 1
		return false
	case 1:
		l.M.Begin(1, sim.SymSkbTryCoalesce)
		if n := len(r.queue); n > 0 {
			res, err := r.st.SkbTryCoalesce(1, r.queue[n-1], r.in)
			if err != nil {
				l.fail(err)
			}
			if res.OK {
				r.st.KfreeSkbPartial(1, r.in, res.HeadStolen)
				r.in = nil
			}
		}
		if r.in != nil {
			r.queue = append(r.queue, r.in)
			r.in = nil
		}
		r.n++
		r.op = 0
		if r.n%queueBatch == 0 {
			r.op = 2
			return false
		}
		return true
	}
	for _, sk := range r.queue {
		l.M.Begin(1, sim.SymKfreeSKB)
		r.st.KfreeSKB(1, sk)
	}
	r.queue = r.queue[:0]
	r.op = 0
	return true
}
