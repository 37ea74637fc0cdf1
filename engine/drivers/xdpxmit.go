package drivers

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// XDPTarget is the transmit side of a second port of the driver, the
// device an XDP program on the driver's queue redirects its frames to
// (bpf_redirect(ifindex): XDP_REDIRECT to a port, not to a veth): another
// port of the same driver on a device of its own — a dual-port ConnectX's
// or NetXtreme's other PCI function, mvneta's other NETA controller, a port
// of the MacchiatoBIN's other CP110 for mvpp2 (the ports of one CP110 share
// its platform device). It has its own DMA device and the one TX ring its
// ndo_xdp_xmit picks for the redirecting CPU (mvpp2: txq thread + ntxqs/2;
// mvneta: txqs[cpu % txq_number]; mlx5: the XDP SQ of channel
// smp_processor_id(); bnxt: tx_ring[smp_processor_id() % tx_nr_rings_xdp]);
// its RX side is idle, so the model has none.
//
// xdp_do_redirect queues each frame on the redirecting CPU's devmap bulk
// queue (bq_enqueue: DEV_MAP_BULK_SIZE = 16 frames, sent when full);
// xdp_do_flush at the end of the driver's poll sends the rest (__dev_flush
// → bq_xmit_all → ndo_xdp_xmit, which maps each frame for transmit on the
// port's device); the port's TX completion, in its own NAPI, unmaps each
// frame and returns the page to the pool it came from the driver's way
// (Spec.XDPNdo).
type XDPTarget struct {
	Spec *Spec
	DMA  *mm.DMA // the port's own device (its ndo_xdp_xmit maps there, its completion unmaps)
	m    *sim.Machine

	bq  [XDPBulkQueueSize]XDPFrame // the redirecting CPU's struct xdp_dev_bulk_queue for this port
	nbq int
	tx  []XDPFrame // on the TX ring, oldest first (cap: the ring's size)

	Sent, Completed int64 `pp:"counter"`
	// Dropped: frames ndo_xdp_xmit did not take (no free TX descriptor, a
	// mapping error), returned by bq_xmit_all (xdp_return_frame_rx_napi).
	Dropped int64 `pp:"counter"`
}

// NewXDPTarget returns the second port of d's driver as a redirect target.
// Its TX ring is sized like forward's: the driver's RX ring, never below two
// NAPI budgets (mvpp2's TX rings hold 1024, mvneta's 532, bnxt's 511).
func NewXDPTarget(d *Driver) *XDPTarget {
	if d.Spec.XDPNdo == XDPNdoNone {
		panic(fmt.Sprintf("drivers: %s has no ndo_xdp_xmit in the model (Spec.XDPNdo)", d.Spec.Name))
	}
	return &XDPTarget{Spec: d.Spec, DMA: d.S.A.DMA.Device(), m: d.S.M, tx: make([]XDPFrame, 0, max(d.RingSize(), 2*Budget))}
}

// Queued is the number of frames on the port's TX ring.
func (t *XDPTarget) Queued() int { return len(t.tx) }

// Pending is the number of frames in the devmap bulk queue, not yet sent.
func (t *XDPTarget) Pending() int { return t.nbq }

// Enqueue models bq_enqueue (kernel/bpf/devmap.c, reached from
// xdp_do_redirect → dev_xdp_enqueue): a full bulk queue is sent first
// (bq_xmit_all(bq, 0)), then the frame joins it. It returns the frames that
// sending dropped.
func (t *XDPTarget) Enqueue(cpu int, f XDPFrame) int {
	dropped := 0
	if t.nbq == len(t.bq) {
		dropped = t.bqXmitAll(cpu)
	}
	t.bq[t.nbq] = f
	t.nbq++
	return dropped
}

// Flush models xdp_do_flush at the end of the redirecting driver's poll:
// __dev_flush → bq_xmit_all(bq, XDP_XMIT_FLUSH) of the bulk queue. It
// returns the frames dropped.
func (t *XDPTarget) Flush(cpu int) int {
	if t.nbq == 0 {
		return 0
	}
	return t.bqXmitAll(cpu)
}

// bqXmitAll models bq_xmit_all: the port's ndo_xdp_xmit takes what it can
// of the bulk queue; the frames it did not take are the caller's to free,
// and it returns them with xdp_return_frame_rx_napi (__xdp_return with
// napi_direct: the redirecting driver's NAPI, so the alloc cache). It
// returns how many it dropped.
func (t *XDPTarget) bqXmitAll(cpu int) int {
	frames := t.bq[:t.nbq]
	sent := t.xdpXmit(cpu, frames)
	for _, f := range frames[sent:] {
		t.m.Begin(cpu, sim.SymXDPReturn)
		t.m.Charge(cpu, sim.SymXDPReturn, 0)
		if t.m.Tracing() {
			t.ev(cpu, sim.SymXDPReturn, f, "bq_xmit_all: the port's ndo_xdp_xmit did not take the frame (no free TX descriptor, or a mapping error): xdp_return_frame_rx_napi gives the page back from the redirecting NAPI (napi_direct = true)")
		}
		f.Pool.PutFullPage(cpu, f.Page, true)
	}
	dropped := len(frames) - sent
	t.Dropped += int64(dropped)
	clear(frames)
	t.nbq = 0
	return dropped
}

// xdpXmit models the port's ndo_xdp_xmit (Spec.XDPNdoFn) for frames: each
// frame gets a TX descriptor and a streaming mapping on the port's device
// (dma_map_single(dev, xdpf->data, xdpf->len, DMA_TO_DEVICE): the page is
// another device's pool's, so it is mapped again for this one, and on a
// non-coherent platform the CPU cleans the frame's bytes). It stops at a
// full TX ring or a mapping error and returns how many it sent.
func (t *XDPTarget) xdpXmit(cpu int, frames []XDPFrame) int {
	m := t.m
	m.Begin(cpu, sim.SymDrvXmit)
	for i, f := range frames {
		if len(t.tx) == cap(t.tx) {
			return i
		}
		m.Charge(cpu, sim.SymDrvXmit, 0)
		if !t.DMA.MapTX(cpu, f.Page, f.Len) {
			return i
		}
		t.tx = append(t.tx, f)
		t.Sent++
		if m.Tracing() {
			t.ev(cpu, sim.SymDrvXmit, f, fmt.Sprintf("%s: the redirected frame (%d bytes) is mapped for transmit on the second port's device (dma_map_single, DMA_TO_DEVICE) and waits on its TX ring (%d frames) for the completion; the page is still the first port's pool's", t.Spec.XDPNdoFn, f.Len, len(t.tx)))
		}
	}
	return len(frames)
}

// Complete models the port's TX completion of up to n of its oldest frames,
// in its NAPI on cpu (mvpp2_txq_done, mvneta_txq_done, mlx5e_poll_xdpsq_cq,
// bnxt_tx_int_xdp; Spec.XDPNdoDoneFn): each frame is unmapped from the
// port's device (dma_unmap_single) and its page goes back to its pool the
// driver's way (Spec.XDPNdo): in bulk (xdp_return_frame_bulk, flushed every
// XDP_BULK_QUEUE_SIZE frames, when the pool changes and at the end by
// xdp_flush_frame_bulk → page_pool_put_page_bulk) or a frame at a time
// (xdp_return_frame → page_pool_put_full_page(pool, page, false)). Neither
// passes allow_direct; from 6.10 the pool asks page_pool_napi_local. It
// returns how many it completed.
func (t *XDPTarget) Complete(cpu int, n int) int {
	m := t.m
	n = min(n, len(t.tx))
	var bq [XDPBulkQueueSize]*mm.Page // struct xdp_frame_bulk
	var bqPool *pagepool.Pool
	nb := 0
	for _, f := range t.tx[:n] {
		pg := f.Page
		m.Begin(cpu, sim.SymDrvTxClean)
		m.Charge(cpu, sim.SymDrvTxClean, 0)
		t.DMA.UnmapTX(cpu, pg)
		switch t.Spec.XDPNdo {
		case XDPNdoReturnBulk:
			if nb == len(bq) || (nb > 0 && f.Pool != bqPool) { // bq->count == XDP_BULK_QUEUE_SIZE, or another pool
				xdpFlushFrameBulk(m, cpu, bqPool, bq[:nb])
				nb = 0
			}
			if m.Tracing() {
				t.ev(cpu, sim.SymDrvTxClean, f, fmt.Sprintf("TX completion (%s): the sent frame is unmapped from the second port's device and joins the xdp_frame_bulk (%d of %d); xdp_flush_frame_bulk hands the batch to %s", t.Spec.XDPNdoDoneFn, nb+1, len(bq), xdpFlushWhy(m.Era)))
			}
			bq[nb], bqPool = pg, f.Pool
			nb++
		case XDPNdoReturnFrame:
			m.Begin(cpu, sim.SymXDPReturn)
			m.Charge(cpu, sim.SymXDPReturn, 0)
			if m.Tracing() {
				t.ev(cpu, sim.SymXDPReturn, f, fmt.Sprintf("TX completion (%s): the sent frame is unmapped from the second port's device → __xdp_return: %s", t.Spec.XDPNdoDoneFn, xdpReturnFrameWhy(m.Era)))
			}
			f.Pool.PutFullPage(cpu, pg, false)
		default:
			panic(fmt.Sprintf("drivers: %s has no ndo_xdp_xmit in the model (Spec.XDPNdo)", t.Spec.Name))
		}
	}
	if nb > 0 {
		xdpFlushFrameBulk(m, cpu, bqPool, bq[:nb]) // xdp_flush_frame_bulk at the end of the completion
	}
	k := copy(t.tx, t.tx[n:])
	clear(t.tx[k:])
	t.tx = t.tx[:k]
	t.Completed += int64(n)
	return n
}

// ev emits a narration event about frame f (callers check Tracing).
func (t *XDPTarget) ev(cpu int, fn sim.Sym, f XDPFrame, why string) {
	t.m.Emit(sim.Event{CPU: cpu, Func: fn, Pool: f.Pool.ID, Page: f.Page.PFN, From: sim.PlaceXDPFrame, To: sim.PlaceXDPFrame, Stat: sim.StatNone, Why: why})
}
