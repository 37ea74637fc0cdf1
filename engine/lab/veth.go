package lab

import (
	"fmt"
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// VethTransfer is the model's run of what `make live` records on a real
// kernel (live/capture.sh): a veth pair with an XDP program on the
// receiving peer, a bulk TCP transfer of MiB mebibytes into it, then the
// pair deleted. The sender and the peer's NAPI run on cpu1 (veth_xmit
// schedules the peer's NAPI where it runs), the reader on cpu0.
//
// Each GSO skb the sender hands veth_xmit (45 segments of a 1448-byte
// MSS: 65160 bytes of payload behind 66 bytes of headers, its payload in
// the sender's page frags) is copied into the peer's pool by
// skb_pp_cow_data (drivers.VethRQ) and queued on the socket. The reader
// wakes when the queue's truesize reaches Rcvbuf and reads it all, each
// skb freed by skb_attempt_defer_free: onto cpu1's defer list, which
// cpu1's next net_rx_action flushes (before each NAPI poll, or at once
// when the list reaches half of skb_defer_max and its IPI raises
// NET_RX_SOFTIRQ there: napi_consume_skb, the pages to the ptr_ring —
// veth's pool has no pp.napi), or, when the list is full, freed on cpu0
// (into the ptr_ring too); a page that finds the ring full is released to
// the page allocator. At the end
// cpu1's softirq runs once more (the teardown's), and the namespace's
// deletion destroys the pool: page_pool_destroy releases what its cache
// and ring hold and waits (page_pool_release_retry, each second) for any
// page still out.
//
// What it is not: TCP. There is no window growth, no ACK clock, no
// concurrency between the reader and the NAPI — the reader's batch
// (Rcvbuf) stands for all of it, so the model predicts the shape of a
// capture (holds in bulk refills, releases when the ring overflows, the
// destroy's releases), not its numbers.
type VethTransfer struct {
	Era    string
	MiB    int
	Rcvbuf int // bytes of truesize the reader lets queue before it reads; 0: the rcvbuf knob's default
}

// VethDefaultRcvbuf is the reader's default batch: the model's rcvbuf
// knob at its default (sk_rcvbuf as TCP autotuning grows it, tcp_rmem[2]
// = 6 MB), the tcp-stream scenario's window too.
var VethDefaultRcvbuf = int(sim.KnobRcvbuf.Spec().Default)

// VethResult is a veth transfer's outcome.
type VethResult struct {
	SKBs                int64
	Holds, Releases     uint32
	MaxInflight         int32
	Inflight            int32 // after the destroy's retries
	ReleasedBeforeClose uint32
	Stats               sim.Stats
}

// RunVethTransfer runs t, sending every event to tracer (nil: none).
func RunVethTransfer(t VethTransfer, tracer func(sim.Event)) (VethResult, error) {
	var res VethResult
	era, err := sim.EraByName(t.Era)
	if err != nil {
		return res, err
	}
	if t.MiB < 1 || t.MiB > 1024 {
		return res, fmt.Errorf("veth transfer: %d MiB: want 1 to 1024", t.MiB)
	}
	rcvbuf := t.Rcvbuf
	if rcvbuf == 0 {
		rcvbuf = VethDefaultRcvbuf
	}
	if rcvbuf < 65536 || rcvbuf > 1<<28 {
		return res, fmt.Errorf("veth transfer: rcvbuf %d: want 65536 to %d bytes", rcvbuf, 1<<28)
	}
	knobs := sim.DefaultKnobsIn(era)
	knobs[sim.KnobCPUs] = 2
	m := sim.NewMachine(sim.Config{Era: era, Knobs: knobs, Seed: 1})
	m.SetTracer(tracer)
	a := mm.NewAllocator(m)
	reg := pagepool.NewRegistry(a)
	st := skb.NewStack(reg)
	const napiCPU, readerCPU = 1, 0
	rq, err := drivers.NewVethRQ(st, reg, napiCPU)
	if err != nil {
		return res, err
	}
	pool := rq.Pool
	const payload, headers = 45 * 1448, 66
	total := t.MiB << 20
	var queue []*skb.SKB
	rmem := 0
	read := func() {
		m.CPUs[readerCPU].Softirq = false // tcp_recvmsg
		for _, sk := range queue {
			if st.SkbAttemptDeferFree(readerCPU, sk) == skb.DeferKicked {
				m.CPUs[napiCPU].Softirq = true // the IPI's NET_RX_SOFTIRQ
				st.SkbDeferFreeFlush(napiCPU)
			}
		}
		queue, rmem = queue[:0], 0
	}
	for sent := 0; sent < total; {
		n := min(payload, total-sent)
		m.CPUs[napiCPU].Softirq = false // tcp_sendmsg
		orig, err := vethSenderSKB(st, napiCPU, headers, n)
		if err != nil {
			return res, err
		}
		m.CPUs[napiCPU].Softirq = true // net_rx_action: the defer list first, then veth_poll
		st.SkbDeferFreeFlush(napiCPU)
		nskb, err := rq.XDPRcvSkb(orig)
		if err != nil {
			return res, err
		}
		res.SKBs++
		st.Queue(nskb, skb.InSocket)
		queue = append(queue, nskb)
		rmem += nskb.Truesize
		sent += n
		if in := pool.Inflight(); in > res.MaxInflight {
			res.MaxInflight = in
		}
		if rmem >= rcvbuf || sent >= total {
			read()
		}
	}
	m.CPUs[napiCPU].Softirq = true
	st.SkbDeferFreeFlush(napiCPU) // the teardown's net_rx_action on cpu1
	res.ReleasedBeforeClose = pool.Release()
	m.CPUs[napiCPU].Softirq = false
	pool.Destroy(napiCPU) // ip netns del: veth_napi_del_range → page_pool_destroy
	m.AdvanceNS(3 * 1e9)  // three page_pool_release_retry periods
	res.Holds, res.Releases, res.Inflight = pool.Hold(), pool.Release(), pool.Inflight()
	res.Stats = pool.Stats()
	return res, nil
}

// vethSenderSKB is the skb tcp_sendmsg builds: the headers in a kmalloc'ed
// head, the payload in page frags from the page allocator (the socket's
// page_frag, order-3 pages in the kernel, order-0 here).
func vethSenderSKB(st *skb.Stack, cpu, headers, n int) (*skb.SKB, error) {
	sk, err := st.AllocSKB(cpu, headers, false)
	if err != nil {
		return nil, err
	}
	for n > 0 {
		pg := st.A.AllocPagesNode(cpu, -1, 0)
		if pg == nil {
			st.KfreeSKB(cpu, sk)
			return nil, fmt.Errorf("veth transfer: the sender's page_frag: out of memory")
		}
		c := min(n, mm.PageSize)
		if err := st.AddRxFrag(cpu, sk, pg, 0, c, mm.PageSize); err != nil {
			return nil, err
		}
		n -= c
	}
	return sk, nil
}

// VethTransferTrace runs t and returns its page_pool tracepoints as the
// tracefs trace file prints them (the text a capture of the same transfer
// is compared with).
func VethTransferTrace(t VethTransfer) (string, VethResult, error) {
	var b strings.Builder
	b.WriteString(sim.TraceFileHeader)
	res, err := RunVethTransfer(t, func(e sim.Event) {
		if e.IsTracepoint() {
			b.WriteString(e.TraceLine())
			b.WriteByte('\n')
		}
	})
	return b.String(), res, err
}
