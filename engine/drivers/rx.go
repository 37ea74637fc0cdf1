package drivers

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// Room is the most frame bytes one RX buffer holds (headroom and the
// skb_shared_info tail taken off; computed at New).
func (d *Driver) Room() int { return d.room }

func (d *Driver) post(pg *mm.Page, off, size int) { d.postBuffer(pg, off, size, false) }

// postBuffer is post; again: the buffer is one the driver just took back
// from the NIC (an XDP_DROP reuse), not a fresh allocation, so the refill's
// event (named after the pool's alloc) is not emitted: the caller said it.
func (d *Driver) postBuffer(pg *mm.Page, off, size int, again bool) {
	dd := &d.ring[d.fill]
	*dd = desc{pg: pg, off: off, size: size, posted: true}
	from := pg.Place
	pg.MoveTo(d.S.M, sim.PlaceNICRing, int32(d.fill))
	pg.Users++
	if d.fill++; d.fill == len(d.ring) { // no IDIV per buffer
		d.fill = 0
	}
	if d.held > 0 {
		// Behind buffers that wait for the RX doorbell (bnxt's XDP_TX): the
		// NIC sees this one with the same doorbell (RxDoorbell).
		dd.posted, dd.held = false, true
		d.held++
	} else {
		d.posted++
	}
	if d.S.M.Tracing() && !again {
		d.ev(sim.SymAllocPages, pg, from, sim.PlaceNICRing, fmt.Sprintf("RX refill: buffer at offset %d posted on the NIC ring (%s)", off, d.Mode))
	}
	d.submitSync(pg, off, size)
}

// submitSync is the device sync a driver does itself when it posts a
// buffer its pool does not sync (Spec.SubmitSync; cpsw's
// cpdma_chan_submit_si). A pool that syncs (PP_FLAG_DMA_SYNC_DEV, or the
// dma_sync_dev knob) leaves nothing to do here.
func (d *Driver) submitSync(pg *mm.Page, off, size int) {
	n := d.Spec.SubmitSync
	if n == 0 || d.Pool.P.Flags&pagepool.FlagDMASyncDev != 0 || d.selfMap {
		return
	}
	d.S.A.DMA.SyncForDevice(d.CPU(), pg, off, min(n, size), d.Pool.P.DMADir)
}

// repost gives the NIC back the buffer a descriptor kept (reuse): the
// driver's reference becomes the NIC's.
func (d *Driver) repost(dd *desc) {
	dd.reuse, dd.posted = false, true
	if d.fill++; d.fill == len(d.ring) { // no IDIV per buffer
		d.fill = 0
	}
	d.posted++
	if d.S.M.Tracing() {
		d.ev(sim.SymDrvRx, dd.pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("RX refill: the buffer at offset %d is reused as-is (its frame was copied out)", dd.off))
	}
}

// Refill posts buffers on every empty descriptor (the driver's RX refill in
// NAPI context). Returns the buffers posted; stops early if the pool fails.
func (d *Driver) Refill() int { return d.refill(len(d.ring)) }

func (d *Driver) refill(upTo int) int {
	d.releaseRx()
	n := 0
	half := mm.PageSize / 2
	cpu := d.CPU()
	for d.posted+d.held < upTo {
		if dd := &d.ring[d.fill]; dd.reuse { // hns3_reuse_buffer: no allocation
			d.repost(dd)
			n++
			continue
		}
		switch d.Mode {
		case PagePerFrame:
			if d.cache != nil { // mlx5e_page_alloc_pool: the driver's cache first
				if pg := d.cacheGet(cpu); pg != nil {
					d.postBuffer(pg, 0, mm.PageSize<<d.Pool.P.Order, true)
					n++
					continue
				}
			}
			pg := d.Pool.AllocPages(cpu)
			if pg == nil {
				return n
			}
			if d.selfMap && !d.mapBuffer(pg) {
				return n
			}
			d.post(pg, 0, mm.PageSize<<d.Pool.P.Order)
			n++
		case HalfPageFlip:
			if len(d.ring)-d.posted < 2 {
				return n
			}
			pg := d.Pool.AllocPages(cpu)
			if pg == nil {
				return n
			}
			d.post(pg, 0, half)
			d.post(pg, half, half)
			n += 2
		case FragAPI:
			pg, off := d.Pool.AllocFrag(cpu, half)
			if pg == nil {
				return n
			}
			d.post(pg, off, half)
			n++
		case HeadFrags: // __bnxt_alloc_rx_frag: page_pool_alloc_frag(head_pool, &offset, rx_buf_size)
			pg, off := d.Pool.AllocFrag(cpu, d.bufSize)
			if pg == nil {
				return n
			}
			d.post(pg, off, d.bufSize)
			n++
		}
	}
	return n
}

// Receive models the NIC filling the next posted descriptors with a frame of
// length bytes and the driver's NAPI poll turning it into an skb: DMA sync
// for the CPU, build_skb/napi_build_skb over the first buffer, further
// buffers added as frags (multi-buffer frames), and per era either
// skb_mark_for_recycle (with page_pool_store_mem_info per frag) or
// page_pool_release_page. nil, nil when no buffer is posted (the NIC drops
// the frame). hdr is what eth_get_headlen would find: the header bytes a
// header-splitting driver (Spec.HeadSplit) copies into its linear skb.
func (d *Driver) Receive(length, hdr int) (*skb.SKB, error) {
	m := d.S.M
	cpu := d.CPU()
	d.releaseRx()
	if d.posted < d.Need(length) {
		d.miss() // the NIC's drop: no CPU work
		return nil, nil
	}
	m.Charge(cpu, sim.SymDrvRx, 0)
	d.polled++
	if d.Spec.XDPPass && !d.agg && d.Mode != HeadFrags { // page mode: bnxt_rx_xdp → bpf_prog_run_xdp, XDP_PASS
		m.Charge(cpu, sim.SymXDPRun, 0)
	}
	var sk *skb.SKB
	var err error
	if d.agg {
		sk, err = d.receiveAgg(length)
	} else if d.Mode == HeadFrags {
		sk, err = d.receiveHeadFrag(length, hdr)
	} else if d.Spec.HeadSplit > 0 {
		sk, err = d.receiveHeadSplit(length, hdr)
	} else {
		sk, err = d.receiveBuild(length)
	}
	if err == nil && d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	if pg := d.headPg; pg != nil {
		d.headPg = nil
		if err == nil {
			err = d.finishHead(sk, pg)
		}
	}
	return sk, err
}

// Need is the RX descriptors a frame of length bytes fills: one, or more
// for a multi-buffer frame (and for a header-splitting driver, one per
// buffer of frame data).
func (d *Driver) Need(length int) int {
	if d.plain && length <= d.room { // every frame of drop, forward, xdp-*: no division (inlines)
		return 1
	}
	return d.needMore(length)
}

func (d *Driver) needMore(length int) int {
	switch room := d.Room(); {
	case d.agg:
		return d.needAgg(length)
	case d.Spec.HeadSplit > 0 && d.Mode != HeadFrags: // no build_skb: a buffer is all frame data
		if first := d.Spec.HeadSplitFirst; first > 0 && length > first {
			return 1 + (length-first+d.BufSize()-1)/d.BufSize()
		}
		return max(1, (length+d.BufSize()-1)/d.BufSize())
	case length > room:
		return 1 + (length-room+d.BufSize()-1)/d.BufSize()
	}
	return 1
}

// miss is the NIC dropping a frame for want of posted RX descriptors: the
// frame never reaches the driver's poll (it is not a completion and does not
// count towards the budget). The device counts it: mlx5's rx_out_of_buffer
// (reported as rtnl_link_stats64.rx_missed_errors by mlx5e_get_stats),
// mvneta's hardware discard counter; here Missed.
func (d *Driver) miss() {
	d.Dropped++
	d.Missed++
	if d.S.M.Tracing() {
		d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("no RX buffer posted (%d of %d descriptors): the NIC drops the frame (rx_missed_errors++)", d.posted, len(d.ring)))
	}
}

// receiveBuild: build_skb/napi_build_skb over the first buffer, the next
// buffers of a multi-buffer frame as frags.
func (d *Driver) receiveBuild(length int) (*skb.SKB, error) {
	cpu := d.CPU()
	headLen := min(length, d.Room())
	cached := d.cache != nil
	pg, off, size := d.takeBuffer(headLen, cached) // a cache driver's mapping outlives the frame
	sk, err := d.S.BuildSKB(cpu, pg, off, size, headLen, d.Spec.NapiBuildSkb)
	if err != nil {
		if cached {
			d.pending = append(d.pending, pg) // the slot is released all the same
		}
		return nil, err
	}
	if cached {
		// mlx5e_skb_from_cqe_linear: "queue up for recycling/reuse",
		// page_ref_inc: the skb's reference; the driver keeps the pool's
		// and releases the RX slot into its cache (releaseRx).
		d.S.A.GetPage(cpu, pg)
		d.pending = append(d.pending, pg)
	}
	if d.mark || !cached { // (a cache driver's page is the cache's, never released)
		if d.Spec.RefillEach {
			d.headPg = pg // after the refill (Receive)
		} else if err := d.finishHead(sk, pg); err != nil {
			return nil, err
		}
	}
	for rest := length - headLen; rest > 0; {
		n := min(rest, d.BufSize())
		fpg, foff, fsize := d.takeBuffer(n, cached)
		if err := d.addRxBuffer(sk, fpg, foff, n, fsize); err != nil {
			return nil, err
		}
		rest -= n
	}
	return sk, nil
}

// finishHead hands the head page of a built skb over to the stack: marked
// for recycling (skb_mark_for_recycle) in the eras whose driver marks skbs,
// released from the pool (page_pool_release_page) before that. Both come
// after build_skb, as in mvneta_swbm_build_skb and cpsw_rx_handler, and
// for a driver that refills each buffer at once after the refill too
// (v5.12 and v5.14 mvpp2_rx: build_skb, mvpp2_rx_refill, then
// page_pool_release_page / skb_mark_for_recycle).
func (d *Driver) finishHead(sk *skb.SKB, pg *mm.Page) error {
	if d.mark {
		return d.S.MarkForRecycle(d.CPU(), sk, pg, d.Pool)
	}
	return d.Pool.ReleasePage(d.CPU(), pg)
}

// addRxBuffer adds size bytes at off of a received buffer to sk as a frag
// (skb_add_rx_frag): the page is marked with its pool
// (page_pool_store_mem_info) when the driver marks skbs, released from the
// pool (page_pool_release_page) when it does not.
func (d *Driver) addRxBuffer(sk *skb.SKB, pg *mm.Page, off, size, truesize int) error {
	cpu := d.CPU()
	switch {
	case d.mark:
		d.S.StoreMemInfo(cpu, sk, pg, d.Pool)
	case d.cache != nil:
		// mlx5e_add_skb_frag: page_ref_inc, skb_add_rx_frag; the slot is
		// released into the driver's cache.
		d.S.A.GetPage(cpu, pg)
		d.pending = append(d.pending, pg)
	default:
		if err := d.Pool.ReleasePage(cpu, pg); err != nil {
			return err
		}
	}
	return d.S.AddRxFrag(cpu, sk, pg, off, size, truesize)
}

// receiveHeadFrag is bnxt_rx_pkt on the normal RX path without an
// aggregation ring from 6.13 (7ed816be35ab; read in Debian's 6.12.118,
// which carries it as fc12ae86adb6): a frame of at most the copybreak is
// copied into a new skb and its buffer reused (bnxt_copy_skb,
// bnxt_reuse_rx_data: receiveHeadSplit's copy, the pool untouched); a
// larger one is built over its head fragment (bnxt_rx_skb: the slot gets a
// new fragment, bnxt_alloc_rx_data, then napi_build_skb over rx_buf_size,
// dma_sync_single_for_cpu, skb_mark_for_recycle).
func (d *Driver) receiveHeadFrag(length, hdr int) (*skb.SKB, error) {
	if length <= d.Spec.Copybreak(d.S.M.Era) {
		sk, err := d.receiveHeadSplit(length, hdr)
		if err == nil && d.mark { // bnxt_deliver_skb marks every skb (its copy holds no pool page)
			err = d.S.MarkForRecycle(d.CPU(), sk, nil, nil)
		}
		return sk, err
	}
	sk, err := d.receiveBuild(length)
	if err == nil && d.S.M.Tracing() {
		d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, fmt.Sprintf("a %d-byte frame, over the copybreak (%d): the skb is built over its %d-byte head buffer, a page_pool fragment (bnxt_rx_skb: napi_build_skb, dma_sync_single_for_cpu, skb_mark_for_recycle), and the slot gets a new fragment (__bnxt_alloc_rx_frag)", length, d.Spec.Copybreak(d.S.M.Era), d.bufSize))
	}
	return sk, err
}

// receiveHeadSplit models hns3_alloc_skb and hns3_add_frag (hns3_enet.c),
// and bnxt's page mode (bnxt_copy_skb, bnxt_rx_page_skb in bnxt.c): the
// driver allocates a small linear skb, napi_alloc_skb(HNS3_RX_HEAD_SIZE;
// bnxt: the frame's length, or its headers' — the model charges one
// napi_alloc_skb either way).
//   - A frame that fits is copied into it, and the RX buffer is reused as-is
//     for the descriptor's next refill: hns3 when dev_page_is_reusable (local
//     node, not pfmemalloc), otherwise page_pool_put_full_page returns it;
//     bnxt always (Spec.ReuseAlways: bnxt_reuse_rx_data, after a sync for
//     the device of the copied bytes), still mapped when the driver maps
//     its own buffers. The pool never sees the reused buffers.
//   - A larger frame: the skb is marked for recycling, the headers
//     (eth_get_headlen) are copied into the head and the rest of each buffer
//     is added as a page_pool frag (skb_add_rx_frag). Once the protocols have
//     pulled their headers such an skb has no linear data: page_pool memory
//     only in frags, the shape whose coalescing the 2022 fix (1effe8ca4e34)
//     is about.
func (d *Driver) receiveHeadSplit(length, hdr int) (*skb.SKB, error) {
	m := d.S.M
	cpu := d.CPU()
	hs := d.Spec.HeadSplit
	pull := length
	if length > hs {
		pull = max(0, min(hdr, hs, length))
	}
	sk, err := d.S.NapiAllocSKB(cpu, hs)
	if err != nil {
		return nil, err // the frame stays on the ring for the next poll
	}
	if err := d.S.Put(sk, pull); err != nil {
		return nil, err
	}
	m.Charge(cpu, sim.SymMemcpy, pull)
	if length <= hs {
		next := d.ring[d.next].pg
		reuse := d.Spec.ReuseAlways || (next.Nid == int8(m.NodeOf(cpu)) && !next.Pfmemalloc()) // dev_page_is_reusable
		pg, off, _ := d.takeBuffer(length, reuse)
		if !reuse {
			m.Begin(cpu, sim.SymPutPage)
			d.putBuffer(pg)
			return sk, nil
		}
		if d.Spec.ReuseAlways && pg.Mapped {
			d.S.A.DMA.SyncForDevice(cpu, pg, off, length, mm.DMAFromDevice) // bnxt_copy_skb
		}
		if m.Tracing() && d.Spec.ReuseAlways {
			d.ev(sim.SymDrvRx, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("a %d-byte frame (at most rx_copy_thresh, %d) is copied into a new skb (bnxt_copy_skb) and the buffer goes back to the NIC as it is (bnxt_reuse_rx_data): the pool is not involved", length, hs))
		}
		d.keepForReuse()
		return sk, nil
	}
	if d.mark {
		if err := d.S.MarkForRecycle(cpu, sk, nil, nil); err != nil {
			return nil, err
		}
	}
	for off := 0; off < length; {
		n := min(length-off, d.BufSize())
		if off == 0 && d.Spec.HeadSplitFirst > 0 {
			n = min(n, d.Spec.HeadSplitFirst)
		}
		pg, boff, bsize := d.take(n)
		skip := 0
		if off == 0 {
			skip = pull // the headers were copied into the linear part
		}
		if err := d.addRxBuffer(sk, pg, boff+skip, n-skip, bsize); err != nil {
			return nil, err
		}
		off += n
	}
	return sk, nil
}

// keepForReuse keeps the buffer of the descriptor just taken for its next
// refill (hns3 desc_cb->reuse_flag): the NIC's reference becomes the
// driver's.
func (d *Driver) keepForReuse() {
	dd := &d.ring[(d.next+len(d.ring)-1)%len(d.ring)]
	dd.reuse = true
	dd.pg.Users++
}

// putBuffer returns an RX buffer the driver no longer needs to the pool:
// page_pool_put_full_page (for a frag-API buffer, one fragment's share).
func (d *Driver) putBuffer(pg *mm.Page) { d.putBufferOn(d.CPU(), pg) }

// putBufferOn is putBuffer on cpu (the queue's teardown, from the CPU that
// runs it).
func (d *Driver) putBufferOn(cpu int, pg *mm.Page) {
	if d.Mode.frags() {
		d.Pool.PutPage(cpu, pg, -1, false)
	} else {
		d.Pool.PutFullPage(cpu, pg, false)
	}
}

// mapBuffer is the driver's own dma_map_page_attrs of a page it is about
// to post (a pool without PP_FLAG_DMA_MAP); on failure the page goes back
// to the pool and the refill stops.
func (d *Driver) mapBuffer(pg *mm.Page) bool {
	cpu := d.CPU()
	if _, ok := d.S.A.DMA.MapPage(cpu, pg, d.BufSize(), mm.DMAFromDevice); ok {
		return true
	}
	d.S.M.Begin(cpu, sim.SymPutPage)
	d.Pool.PutFullPage(cpu, pg, true)
	return false
}

// take consumes the next posted descriptor holding n bytes of the frame.
func (d *Driver) take(n int) (*mm.Page, int, int) { return d.takeBuffer(n, false) }

// takeBuffer is take; keepMap: a buffer the driver maps itself stays mapped
// and is only synced for the CPU (an XDP verdict that gives it back to the
// NIC: bnxt_rx_xdp syncs, and unmaps only what leaves the ring).
func (d *Driver) takeBuffer(n int, keepMap bool) (*mm.Page, int, int) {
	return d.takeDesc(n, keepMap, true)
}

// takeDesc is takeBuffer; sync: the driver syncs the bytes for the CPU now
// (false: the NIC consumed the descriptor and the CPU syncs later, at a TPA
// aggregation's end).
func (d *Driver) takeDesc(n int, keepMap, sync bool) (*mm.Page, int, int) {
	m := d.S.M
	cpu := d.CPU()
	dd := &d.ring[d.next]
	pg := dd.pg
	if pl := pg.Place; pl == sim.PlaceCache || pl == sim.PlaceRing || pl == sim.PlaceBuddy {
		// The buffer was recycled (or freed) under the NIC's feet: the DMA
		// lands in a page someone else may already own.
		pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
			"the NIC DMAs a frame into a buffer whose page sits in %s: it was recycled while posted", pg.Place)
	}
	if m.Tracing() {
		if sync {
			d.ev(sim.SymSyncForCPU, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("the NIC wrote %d byte%s at offset %d", n, plural(n), dd.off))
		} else {
			d.ev(sim.SymDrvRx, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("the NIC wrote %d byte%s at offset %d of an aggregation buffer (the CPU syncs it at TPA_END)", n, plural(n), dd.off))
		}
	}
	switch {
	case d.selfMap && pg.Mapped && !keepMap: // the driver's own mapping: unmapped now (it syncs for the CPU)
		d.S.A.DMA.UnmapPage(cpu, pg, d.BufSize(), mm.DMAFromDevice)
	case pg.Mapped && sync:
		d.S.A.DMA.SyncForCPU(cpu, pg, dd.off, n, mm.DMAFromDevice)
	}
	dd.posted = false
	d.posted--
	if d.next++; d.next == len(d.ring) {
		d.next = 0
	}
	pg.Users--
	d.Received++
	if d.Mode == HalfPageFlip && d.otherHalfInStack(pg) {
		// Both halves are up the stack: each skb must own a page reference.
		d.S.A.GetPage(cpu, pg)
	}
	return pg, dd.off, dd.size
}

// otherHalfInStack: the page's other half left the ring and is (still) in an
// skb — the page has a user that is not a posted descriptor.
func (d *Driver) otherHalfInStack(pg *mm.Page) bool {
	postedHalves := int32(0)
	for i := range d.ring {
		if d.ring[i].posted && d.ring[i].pg == pg {
			postedHalves++
		}
	}
	return pg.Users-postedHalves > 0
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
