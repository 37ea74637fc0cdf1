package drivers

import (
	"fmt"
	"math/bits"

	"pplab/engine/mm"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// This file is bnxt's normal RX path with an aggregation ring, as 6.6 wrote
// it ("bnxt_en: Use the unified RX page pool buffers for XDP and non-XDP",
// 86b05508f775, and "Let the page pool manage the DMA mapping",
// 578fcfd26e2a): no XDP program, GRO_HW on (the hw_gro knob), so the RX ring's
// head buffers hold rx_copy_thresh bytes and are napi_alloc_frag'd by
// bnxt_alloc_rx_data — not page_pool pages until 6.13, which takes them from
// the pool (aggHeadSKB) — and what a frame carries beyond them lands in the
// aggregation ring's buffers, which the pool feeds. The
// ring the model keeps (Driver.ring) is that aggregation ring. The head ring
// is kept buffer by buffer from 6.13 only (Driver.heads: pool fragments,
// filled at open, a slot per frame or TPA aggregation); before, each
// frame's head is a page_frag buffer of its own, allocated where the
// driver replaces the consumed one.
//
// With TPA (hardware GRO) the NIC aggregates a TCP flow itself: it starts an
// aggregation with the first segment (its first rx_copy_thresh bytes in the
// head buffer, TPA_START), places every further segment's payload in the
// aggregation buffers, as many segments to a buffer as fit, and closes it
// after as many segments as the driver told the chip (tpaLimits: TPA_END;
// the model also closes it when the
// NAPI poll ends, where the chip's aggregation timer would). The CPU sees one
// completion per aggregate: bnxt_tpa_end builds one skb from the head buffer
// and adds the buffers as frags (bnxt_rx_agg_pages_skb), bnxt_deliver_skb
// marks it for recycling and hands it to napi_gro_receive, where it is too big
// to merge with the next one (skb_gro_receive's 64 KB limit) and, with no
// frag_list, every page it holds is freed with its skb.

// headSlot is one head buffer of the RX ring (Driver.heads).
type headSlot struct {
	pg  *mm.Page
	off int
}

// fillHeads posts a page_pool fragment on every empty head slot
// (bnxt_alloc_rx_data per slot at open: __bnxt_alloc_rx_frag), then gives
// every TPA context without one its spare (bnxt_alloc_one_tpa_info_data:
// __bnxt_alloc_rx_frag per context), which the driver holds. It stops
// where the pool fails.
func (d *Driver) fillHeads() {
	cpu := d.CPU()
	size := d.Spec.HeadBuf(d.S.M.Era)
	for _, f := range [...]struct {
		slots []headSlot
		place sim.Place
		says  string
	}{{d.heads, sim.PlaceNICRing, postedHead}, {d.spares, sim.PlaceDriver, "TPA context %d's spare head buffer: a %d-byte page_pool fragment at offset %d (bnxt_alloc_one_tpa_info_data → __bnxt_alloc_rx_frag)"}} {
		for i := range f.slots {
			if f.slots[i].pg != nil {
				continue
			}
			pg, off := d.Pool.AllocFrag(cpu, size)
			if pg == nil {
				return
			}
			d.holdFrag(&f.slots[i], pg, off, f.place)
			if d.S.M.Tracing() {
				d.ev(sim.SymAllocPages, pg, sim.PlaceNone, f.place, fmt.Sprintf(f.says, i, size, off))
			}
		}
	}
}

// holdFrag puts fragment (pg, off) in slot s, held at place: on the NIC's
// ring (a head slot) or by the driver (a TPA context's spare).
func (d *Driver) holdFrag(s *headSlot, pg *mm.Page, off int, place sim.Place) {
	*s = headSlot{pg: pg, off: off}
	pg.MoveTo(d.S.M, place, -1)
	pg.Users++
}

// postHead puts a new head fragment on slot i: the NIC holds it.
func (d *Driver) postHead(i int, pg *mm.Page, off int) {
	d.holdFrag(&d.heads[i], pg, off, sim.PlaceNICRing)
	if d.S.M.Tracing() {
		d.ev(sim.SymAllocPages, pg, sim.PlaceNone, sim.PlaceNICRing, fmt.Sprintf(postedHead, i, d.Spec.HeadBuf(d.S.M.Era), off))
	}
}

// postedHead narrates a head fragment posted on slot %d (fillHeads,
// postHead).
const postedHead = "RX head buffer %d: a %d-byte page_pool fragment at offset %d (__bnxt_alloc_rx_frag: page_pool_alloc_frag from the head pool)"

// swapSpare is TPA_START's exchange for context 0 (the one flow's):
// the head slot i takes the context's spare, and the context the buffer
// the first segment was written to (bnxt_tpa_start: prod_rx_buf->data =
// tpa_info->data; tpa_info->data = cons_rx_buf->data). It returns the
// frame's buffer, now the context's.
func (d *Driver) swapSpare(i int) headSlot {
	frame, spare := d.heads[i], d.spares[0]
	d.heads[i], d.spares[0] = spare, frame
	spare.pg.MoveTo(d.S.M, sim.PlaceNICRing, -1)
	frame.pg.MoveTo(d.S.M, sim.PlaceDriver, -1)
	return frame
}

// takeHead is the head slot the frame fills: its fragment, and the slot's
// next (the ring moves on whether the head is copied or built over).
func (d *Driver) takeHead() (*headSlot, int) {
	i := d.headNext
	if d.headNext++; d.headNext == len(d.heads) {
		d.headNext = 0
	}
	return &d.heads[i], i
}

// tpaBuf is an aggregation buffer the NIC is filling for the aggregation in
// progress.
type tpaBuf struct {
	pg        *mm.Page
	off, size int // the buffer
	used      int // bytes placed
	segs      int // segments placed
}

// tpaState is struct bnxt_tpa_info for the one flow: the first segment's
// head bytes, the buffers filled so far, the segment count.
type tpaState struct {
	segs int
	head int // bytes in the head buffer
	len  int // frame bytes aggregated (skb->len once built)
	bufs []tpaBuf
}

// Agg reports whether the driver runs its normal RX path with a
// page_pool-fed aggregation ring (fixed when it is created).
func (d *Driver) Agg() bool { return d.agg }

// AggMode resolves the hw_gro knob for a driver scenario: whether the driver
// runs its normal RX path with hardware GRO and the page_pool-fed
// aggregation ring (true) or its XDP page mode (false). xdp: the scenario
// attaches an XDP program (page mode whatever the knob says). The error names
// the knob and what is accepted.
func (s *Spec) AggMode(e *sim.Era, k *sim.Knobs, xdp bool) (bool, error) {
	v := k[sim.KnobHWGRO]
	switch {
	case !s.TPA:
		if v != -1 {
			return false, fmt.Errorf("%s has no second RX path in the model (hardware GRO over an aggregation ring is bnxt's): accepted -1", s.Name)
		}
		return false, nil
	case xdp:
		if v == 1 {
			return false, fmt.Errorf("an XDP program puts %s in page mode, which turns GRO_HW off (netdev_update_features): accepted -1 or 0 here", s.Name)
		}
		return false, nil
	case k[sim.KnobGRO] == 0:
		// ethtool -K gro off clears GRO_HW too (bnxt_fix_features); without
		// TPA at MTU 1500 bnxt has no aggregation ring, and its RX buffers
		// are not page_pool pages before 6.13 (page mode is the pool's only
		// path there) and pool fragments from it (HeadRing).
		if v == 1 {
			return false, fmt.Errorf("gro=0 turns GRO_HW off too (bnxt_fix_features: no NETIF_F_GRO, no NETIF_F_GRO_HW): accepted -1 or 0 with gro=0")
		}
		return false, nil
	case v < 0:
		return since(s.AggFrom, e), nil
	case v == 1 && !e.NAPIDirect:
		return false, fmt.Errorf("%s's aggregation ring takes page_pool buffers from %s (86b05508f775); hw_gro=1 runs that RX path there and later, and in 6.4 as the core whose NAPI-local recycling was measured with it, not in era %s: accepted -1 or 0 here", s.Name, s.AggFrom, e.Name)
	}
	return v == 1, nil
}

// HeadPool reports whether the normal path's head buffers are fragments
// of the pool in era e (Spec.HeadPoolFrom).
func (s *Spec) HeadPool(e *sim.Era) bool { return since(s.HeadPoolFrom, e) }

// HeadBuf is a head fragment's size in era e on the path with an
// aggregation ring (Spec.HeadPoolBuf, HeadPoolBufWide).
func (s *Spec) HeadBuf(e *sim.Era) int {
	if since(s.HeadPoolBufWideFrom, e) {
		return s.HeadPoolBufWide
	}
	return s.HeadPoolBuf
}

// HeadRing reports whether the driver runs its normal RX path without an
// aggregation ring over a head ring of page_pool fragments (BufferMode
// HeadFrags) for knobs k: the driver has one (Spec.HeadRingBuf), from
// HeadPoolFrom, with hardware GRO off (hw_gro=0, or gro=0) and no XDP
// program. Before HeadPoolFrom that path's buffers are page_frag memory
// the pool never sees, and the model runs page mode instead (AggMode).
func (s *Spec) HeadRing(e *sim.Era, k *sim.Knobs, xdp bool) bool {
	if s.HeadRingBuf == 0 || xdp || !s.HeadPool(e) {
		return false
	}
	agg, err := s.AggMode(e, k, xdp)
	return err == nil && !agg
}

// HDSThresh is the header-data split threshold in era e on the path with
// an aggregation ring: AggHead (rx_copy_thresh), HDSThreshWide from
// HeadPoolBufWideFrom.
func (s *Spec) HDSThresh(e *sim.Era) int {
	if s.HDSThreshWide > 0 && since(s.HeadPoolBufWideFrom, e) {
		return s.HDSThreshWide
	}
	return s.AggHead
}

// headBytes is the bytes of a frame of length bytes its head buffer
// takes: all of it up to the header-data split threshold, else the split
// frame's first AggHead (standing for its headers).
func (d *Driver) headBytes(length int) int {
	if length <= d.Spec.HDSThresh(d.S.M.Era) {
		return length
	}
	return min(length, d.Spec.AggHead)
}

// Copybreak is the head bytes up to which the normal path copies a frame
// into a new skb (bnxt_copy_skb) in era e: AggHead (rx_copy_thresh, then
// rx_copybreak's default), 0 from CopybreakZeroFrom.
func (s *Spec) Copybreak(e *sim.Era) int {
	if since(s.CopybreakZeroFrom, e) {
		return 0
	}
	return s.AggHead
}

// aggHeadSKB is the skb of a frame whose first head bytes sit in its head
// buffer (the rest, if any, in aggregation buffers the caller adds). A
// head of at most the copybreak (rx_copy_thresh, 256, until 7.3's 0) is
// copied into a new skb (bnxt_copy_skb: napi_alloc_skb, a sync for the
// CPU, memcpy) and its buffer reused in place (bnxt_reuse_rx_data), in
// every era: the head buffer's bytes are what bnxt_rx_pkt and
// bnxt_tpa_end compare (6.12.118 bnxt.c:2194 and :1850), so a split
// frame's 256-byte head is copied. A larger head (from 6.15, whose
// header-data split keeps frames of up to 640 bytes whole):
//   - before the heads come from the pool (Spec.HeadPool): napi_build_skb
//     over the head buffer, a napi_alloc_frag'd one — a page_frag page,
//     not a pool page (no era has both: a reading of the pre-6.13 path
//     kept for the model's own consistency);
//   - from then (7ed816be35ab, v6.13): built over its head
//     fragment (bnxt_rx_skb / bnxt_tpa_end: napi_build_skb,
//     dma_sync_single_for_cpu of rx_buf_use_size, skb_mark_for_recycle)
//     and the slot refilled with a new fragment (__bnxt_alloc_rx_frag:
//     page_pool_alloc_frag of rx_buf_size). The head ring is kept
//     buffer by buffer (Driver.heads, filled at open). A TPA aggregation
//     (tpa: bnxt_tpa_end) takes the slot of its first segment, whose
//     buffer TPA_START swapped into the TPA context for the context's
//     spare (swapSpare): a copied head leaves the buffer there as the
//     next spare, and one built over gets the context a new fragment
//     (tpa_info->data = new_data).
//
// The skb is marked for recycling, as bnxt_deliver_skb marks every skb
// from 6.6 (its frags are pool pages).
func (d *Driver) aggHeadSKB(head int, tpa bool) (*skb.SKB, error) {
	m := d.S.M
	cpu := d.CPU()
	n := head // the caller's headBytes
	spare := tpa && len(d.spares) > 0 && d.spares[0].pg != nil
	if head <= d.Spec.Copybreak(m.Era) {
		// bnxt_rx_pkt and bnxt_tpa_end compare the head buffer's bytes
		// (the completion's len, aggregation buffers not counted) with
		// the copybreak in every era: before 6.13 too.
		if d.heads != nil {
			// copied: the fragment stays on its slot (bnxt_reuse_rx_data),
			// or in the TPA context as its spare
			if _, i := d.takeHead(); spare {
				d.swapSpare(i)
			}
		}
		return d.copyHead(head)
	}
	var sk *skb.SKB
	var pg *mm.Page // the head's pool page (nil: a page_frag page)
	var err error
	if !d.Spec.HeadPool(m.Era) {
		sk, err = d.S.AllocPageFragSKB(cpu, n)
	} else {
		var off int
		if d.heads != nil {
			// bnxt_rx_skb / bnxt_tpa_end: the slot gets a new fragment
			// (bnxt_alloc_rx_data) before the skb is built over the old.
			slot, i := d.takeHead()
			npg, noff := d.Pool.AllocFrag(cpu, d.Spec.HeadBuf(m.Era))
			if npg == nil {
				if spare {
					d.swapSpare(i) // bnxt_tpa_end: the buffer stays in the context (the skb is dropped)
				}
				return nil, fmt.Errorf("__bnxt_alloc_rx_frag: page_pool_alloc_frag: %w", skb.ErrNoMem) // the old fragment stays (bnxt_reuse_rx_data)
			}
			if spare {
				// TPA_START gave the slot the context's spare; the
				// context gets the new fragment, and its hold on the
				// frame's buffer becomes the skb's.
				frame := d.swapSpare(i)
				pg, off = frame.pg, frame.off
				pg.Users--
				d.holdFrag(&d.spares[0], npg, noff, sim.PlaceDriver)
			} else {
				pg, off = slot.pg, slot.off
				pg.Users-- // the NIC's hold becomes the skb's
				d.postHead(i, npg, noff)
			}
		} else if pg, off = d.Pool.AllocFrag(cpu, d.Spec.HeadBuf(m.Era)); pg == nil {
			return nil, fmt.Errorf("__bnxt_alloc_rx_frag: page_pool_alloc_frag: %w", skb.ErrNoMem)
		}
		if pg.Mapped {
			d.S.A.DMA.SyncForCPU(cpu, pg, off, n, mm.DMAFromDevice)
		}
		sk, err = d.S.NapiBuildSKB(cpu, pg, off, d.Spec.HeadBuf(m.Era), n)
		if err == nil && m.Tracing() {
			if spare {
				d.ev(sim.SymDrvRx, pg, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("a %d-byte head, over the copybreak (%d): the skb is built over the buffer TPA_START took from the ring, a %d-byte page_pool fragment (bnxt_tpa_end: napi_build_skb, dma_sync_single_for_cpu); the ring slot has the TPA context's old spare, and the context a new fragment (__bnxt_alloc_rx_frag)", head, d.Spec.Copybreak(m.Era), d.Spec.HeadBuf(m.Era)))
			} else {
				d.ev(sim.SymDrvRx, pg, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("a %d-byte head, over the copybreak (%d): the skb is built over its head buffer, a %d-byte page_pool fragment (bnxt_rx_skb: napi_build_skb, dma_sync_single_for_cpu), and the slot gets a new fragment (__bnxt_alloc_rx_frag)", head, d.Spec.Copybreak(m.Era), d.Spec.HeadBuf(m.Era)))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if d.mark {
		if err := d.S.MarkForRecycle(cpu, sk, pg, d.Pool); err != nil {
			return nil, err
		}
	}
	return sk, nil
}

// copyHead models bnxt_copy_skb for a head of n bytes within the
// copybreak: napi_alloc_skb(n) and a memcpy; the head buffer stays on the
// ring (bnxt_reuse_rx_data), a napi_alloc_frag'd buffer before 6.13 and a
// pool fragment from then, so the pool is not touched. The skb is marked
// as bnxt_deliver_skb marks every skb from 6.6 (a copy holds no pool page,
// but its frags may).
func (d *Driver) copyHead(n int) (*skb.SKB, error) {
	m := d.S.M
	cpu := d.CPU()
	sk, err := d.S.NapiAllocSKB(cpu, n)
	if err == nil {
		err = d.S.Put(sk, n)
	}
	if err != nil {
		return nil, err
	}
	m.Charge(cpu, sim.SymMemcpy, n)
	if m.Tracing() {
		if d.Spec.HeadPool(m.Era) {
			d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("a %d-byte head, within the copybreak (%d): copied into a new skb (bnxt_copy_skb); its head buffer, a %d-byte page_pool fragment since 6.13, stays on the ring (bnxt_reuse_rx_data): the pool is not touched", n, d.Spec.Copybreak(m.Era), d.Spec.HeadBuf(m.Era)))
		} else {
			d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("a %d-byte head fits the %d-byte head buffer: copied into a new skb (bnxt_copy_skb), the head buffer reused; no page_pool page", n, d.Spec.AggHead))
		}
	}
	if d.mark {
		if err := d.S.MarkForRecycle(cpu, sk, nil, nil); err != nil {
			return nil, err
		}
	}
	return sk, nil
}

// receiveAgg is bnxt_rx_pkt on the normal path for a frame the NIC did not
// aggregate: a frame within the copybreak is copied (bnxt_copy_skb; the
// head buffer is reused); a larger one is built over its head buffer —
// the whole frame up to the header-data split threshold (HDSThresh: 256,
// 640 from 6.15), else its first bytes — with the rest in aggregation
// buffers as frags (bnxt_rx_agg_pages_skb).
func (d *Driver) receiveAgg(length int) (*skb.SKB, error) {
	if length <= d.Spec.Copybreak(d.S.M.Era) {
		return d.copyHead(length)
	}
	head := d.headBytes(length)
	sk, err := d.aggHeadSKB(head, false)
	if err != nil {
		return nil, err
	}
	for rest := length - head; rest > 0; {
		n := min(rest, d.BufSize())
		pg, off, size := d.take(n)
		if err := d.addRxBuffer(sk, pg, off, n, size); err != nil {
			return nil, err
		}
		rest -= n
	}
	return sk, nil
}

// needAgg is the aggregation buffers a frame of length bytes takes.
func (d *Driver) needAgg(length int) int {
	head := d.headBytes(length)
	if length <= head {
		return 0
	}
	return (length - head + d.BufSize() - 1) / d.BufSize()
}

// TPA reports whether the NIC aggregates TCP segments (hardware GRO) in
// this run: the normal RX path with TPA.
func (d *Driver) TPA() bool { return d.agg && d.Spec.TPA }

// TPAAdd models the NIC's TPA for one TCP segment of length bytes (hdr of
// them headers, which the chip strips from every segment but the first): the
// segment joins the aggregation in progress, or starts one. No CPU work: the
// chip places the bytes. ok is false when it finds no aggregation buffer
// posted (the segment is dropped); full reports that the aggregation has
// the segments tpaLimits allows and closes (TPA_END): the NAPI's TPAEnd builds
// its skb next.
func (d *Driver) TPAAdd(length, hdr int) (full, ok bool) {
	t := &d.tpa
	bytes := length - hdr // the payload the chip places
	if t.segs == 0 {
		bytes = length - d.headBytes(length) // TPA_START: the head buffer takes the first bytes
	}
	last := len(t.bufs) - 1
	perBuf, maxSegs := d.tpaLimits(length - hdr)
	needBuf := bytes > 0 && (last < 0 || t.bufs[last].segs >= perBuf || t.bufs[last].used+bytes > t.bufs[last].size)
	if needBuf && d.posted == 0 {
		d.miss()
		return false, false
	}
	if t.segs == 0 {
		t.head, t.len = d.headBytes(length), length
	} else {
		t.len += bytes
	}
	t.segs++
	if needBuf {
		pg, off, size := d.takeDesc(bytes, false, false) // synced for the CPU at TPA_END
		pg.Users++                                       // held by the aggregation until bnxt_tpa_end
		pg.MoveTo(d.S.M, sim.PlaceDriver, -1)
		t.bufs = append(t.bufs, tpaBuf{pg: pg, off: off, size: size})
		last++
	}
	if bytes > 0 {
		t.bufs[last].used += bytes
		t.bufs[last].segs++
	}
	if d.S.M.Tracing() {
		d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("TPA: the NIC adds segment %d to the flow's aggregation (%d bytes, %d aggregation buffers); the CPU does nothing until TPA_END", t.segs, t.len, len(t.bufs)))
	}
	return t.segs >= maxSegs, true
}

// TPAEnd models bnxt_tpa_end for the aggregation in progress (nil when none):
// the CPU's one completion for the aggregate — the skb built over the head
// buffer, each aggregation buffer added as a frag (bnxt_rx_agg_pages_skb),
// marked for recycling. Caller: the NAPI poll (at TPA_END, or where the
// poll ends and the chip's aggregation timer would close it).
func (d *Driver) TPAEnd() (*skb.SKB, error) {
	t := &d.tpa
	if t.segs == 0 {
		return nil, nil
	}
	m := d.S.M
	cpu := d.CPU()
	m.Charge(cpu, sim.SymDrvRx, 0)
	d.polled++
	if d.Spec.RefillEach {
		d.refill(len(d.ring)) // __bnxt_rx_agg_pages: bnxt_alloc_rx_page per consumed buffer
	}
	sk, err := d.aggHeadSKB(t.head, true)
	for i := range t.bufs {
		b := &t.bufs[i]
		b.pg.Users-- // the aggregation's hold becomes the frag's
		if b.pg.Mapped {
			d.S.A.DMA.SyncForCPU(cpu, b.pg, b.off, b.used, mm.DMAFromDevice)
		}
		if err == nil {
			err = d.addRxBuffer(sk, b.pg, b.off, b.used, b.size)
			continue
		}
		// No skb (bnxt_tpa_end's allocation failed): the buffers go back
		// (bnxt_reuse_rx_agg_bufs; here to the pool, which reposts them).
		m.Begin(cpu, sim.SymPutPage)
		d.putBuffer(b.pg)
	}
	if m.Tracing() && err == nil {
		head := "the head buffer (not a page_pool page)"
		switch {
		case d.Spec.HeadPool(m.Era) && t.head <= d.Spec.Copybreak(m.Era):
			head = "the head copied (bnxt_copy_skb; the head fragment stays in tpa_info)"
		case d.Spec.HeadPool(m.Era):
			head = "the head buffer (a page_pool fragment; tpa_info gets a new one)"
		}
		d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("TPA_END: bnxt_tpa_end builds one skb of %d segments (%d bytes): %s and %d aggregation buffers as frags, marked for recycling", t.segs, sk.Len, head, len(t.bufs)))
	}
	for i := range t.bufs {
		t.bufs[i] = tpaBuf{}
	}
	t.bufs, t.segs, t.head, t.len = t.bufs[:0], 0, 0, 0
	return sk, err
}

// tpaLimits is what bnxt_hwrm_vnic_set_tpa tells the chip for segments of
// mss payload bytes (at most one aggregation buffer: TPAMaxMSS): n =
// BNXT_RX_PAGE_SIZE / mss segments to a buffer, and an aggregate of
// ilog2((MAX_SKB_FRAGS - 1) × n) in powers of two after the first: 33
// segments at 1448 bytes, 17 from 2049, so an aggregate fills at most
// MAX_SKB_FRAGS buffers.
func (d *Driver) tpaLimits(mss int) (perBuf, maxSegs int) {
	perBuf = max(1, d.BufSize()/max(mss, 1))
	return perBuf, 1 + 1<<(bits.Len(uint((skb.MaxSkbFrags-1)*perBuf))-1)
}

// TPAMaxFrame is the largest TCP frame (hdr bytes of headers) the model's
// TPA places: a segment payload of one aggregation buffer
// (BNXT_RX_PAGE_SIZE, a 4 KB page). A larger one (a jumbo MTU) spans
// several buffers per segment, and bnxt_hwrm_vnic_set_tpa's other branch
// sizes the aggregate from that; the model does not.
func (s *Spec) TPAMaxFrame(hdr int) int { return mm.PageSize + hdr }

// HeadRingMaxFrame is the largest frame (without its FCS, as the frame
// knob counts) the head ring's buffers hold (BufferMode HeadFrags:
// rx_buf_use_size at the 1500-byte MTU is SKB_DATA_ALIGN(mtu + ETH_HLEN +
// NET_IP_ALIGN + 8), "8 for CRC and VLAN": the MTU's frame with a VLAN
// tag, 1518 bytes).
func (s *Spec) HeadRingMaxFrame() int { return 1500 + 14 + 4 }

// TPASegs is the segments of the aggregation in progress.
func (d *Driver) TPASegs() int { return d.tpa.segs }
