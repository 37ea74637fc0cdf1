package drivers

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// XDPFrame is a received buffer on its way as an XDP frame (xdp_frame):
// the page, where the frame starts, its length, the buffer's size, and the
// pool the page returns to (xdpf->mem: the RX queue's xdp_mem_info; from
// 6.14 the page's own pp).
type XDPFrame struct {
	Page     *mm.Page
	Off, Len int
	Size     int
	Pool     *pagepool.Pool
}

// ReceiveXDP models the driver's XDP path for one frame whose program
// redirects it (XDP_REDIRECT, xdp_do_redirect) to the device to names:
// sync for the CPU, run the program; the buffer leaves the RX ring as an
// XDP frame in flight.
func (d *Driver) ReceiveXDP(length int, to string) (XDPFrame, bool) {
	m := d.S.M
	cpu := d.CPU()
	d.releaseRx()
	if d.posted == 0 {
		d.miss() // the NIC's drop: no CPU work
		return XDPFrame{}, false
	}
	m.Charge(cpu, sim.SymDrvRx, 0)
	m.Charge(cpu, sim.SymXDPRun, 0)
	d.polled++
	if length > d.Room() { // a frame XDP cannot hold in one buffer: dropped by the driver
		d.Dropped++
		return XDPFrame{}, false
	}
	// A driver that maps its own buffers unmaps a redirected one here
	// (mlx5e_xdp_handle: mlx5e_page_dma_unmap); with its own RX cache the
	// slot is not released (MLX5E_RQ_FLAG_XDP_XMIT: "do not return page to
	// cache"): the page comes back to the pool through xdp_return_frame.
	pg, off, size := d.take(length)
	pg.MoveTo(m, sim.PlaceXDPFrame, -1) // held by the frame (not an skb: no skb-level user)
	if m.Tracing() {
		d.ev(sim.SymXDPRedirect, pg, sim.PlaceNICRing, sim.PlaceXDPFrame, "XDP_REDIRECT: the frame is queued to "+to+" (xdp_do_redirect)")
	}
	if d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	return XDPFrame{Page: pg, Off: off, Len: length, Size: size, Pool: d.Pool}, true
}

// ReceiveXDPDrop models the driver's XDP path for a frame its program drops
// (XDP_DROP), the use page_pool was written for: sync for the CPU, run the
// program, and give the buffer back as the driver does (Spec.XDPDrop) —
// into the pool's alloc cache from NAPI context, or straight back on the
// NIC ring. It reports whether a frame was received (false: the NIC found
// no posted buffer, or the frame did not fit one).
func (d *Driver) ReceiveXDPDrop(length int) bool {
	m := d.S.M
	cpu := d.CPU()
	d.releaseRx()
	if d.posted == 0 {
		d.miss()
		return false
	}
	m.Charge(cpu, sim.SymDrvRx, 0)
	m.Charge(cpu, sim.SymXDPRun, 0)
	d.polled++
	if length > d.Room() {
		d.Dropped++
		return false
	}
	path := d.Spec.XDPDropIn(m.Era)
	if d.cache != nil {
		// mlx5e_xdp_handle returns true for XDP_DROP and
		// mlx5e_handle_rx_cqe goes to free_wqe: mlx5e_free_rx_wqe(rq, wi,
		// true), the page into the driver's cache, still mapped; the
		// refill takes it back from there (mlx5cache.go).
		pg, _, _ := d.takeBuffer(length, true)
		pg.MoveTo(m, sim.PlaceDriver, -1)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceDriver, fmt.Sprintf("XDP_DROP (%s): the RX slot is released (mlx5e_free_rx_wqe, recycle): the page goes to the driver's own cache", d.Spec.XDPDropFn))
		}
		d.pending = append(d.pending, pg)
		if d.Spec.RefillEach {
			d.refill(len(d.ring))
		}
		return true
	}
	pg, off, size := d.takeBuffer(length, path == XDPDropReuse)
	switch path {
	case XDPDropReuse:
		// bnxt_reuse_rx_data: the same buffer goes back at the producer
		// index, still mapped; the pool never sees it.
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("XDP_DROP: the driver gives the same buffer back to the NIC (%s), reposted without an allocation; the pool is not involved", d.Spec.XDPDropFn))
		}
		d.postBuffer(pg, off, size, true)
	case XDPDropPutDirect:
		pg.MoveTo(m, sim.PlaceDriver, -1)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceDriver, fmt.Sprintf("XDP_DROP (%s): page_pool_put_page(pool, page, sync_len, true): straight back into the alloc cache, synced for the device for the frame's length only", d.Spec.XDPDropFn))
		}
		d.Pool.PutPage(cpu, pg, length, true)
	case XDPDropAtRefill:
		pg.MoveTo(m, sim.PlaceDriver, -1)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceDriver, fmt.Sprintf("XDP_DROP (%s): the page's fragment is not taken back, so the WQE refill releases it (mlx5e_page_release_fragmented: a direct put into the alloc cache) and takes it out again; the model releases it here, at the drop, for the same counters per poll", d.Spec.XDPDropFn))
		}
		d.Pool.RecycleDirect(cpu, pg)
	case XDPDropRecycleDirect:
		pg.MoveTo(m, sim.PlaceDriver, -1)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceDriver, fmt.Sprintf("XDP_DROP (%s): page_pool_recycle_direct: the whole page straight back into the alloc cache", d.Spec.XDPDropFn))
		}
		d.Pool.RecycleDirect(cpu, pg)
	default:
		panic(fmt.Sprintf("drivers: %s has no XDP_DROP path (Spec.XDPDrop); the xdp-drop scenario must not offer it", d.Spec.Name))
	}
	if d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	return true
}

// ReceiveXDPTx models the driver's XDP path for a frame its program sends
// back out of the same NIC (XDP_TX), in the NAPI poll: sync for the CPU,
// run the program, and queue the frame on the TX ring from the page it
// arrived in (Spec.XDPTx, Spec.XDPTxFn). The page is the pool's and already
// mapped, so the driver maps nothing: it syncs the frame's length for the
// device (dma_sync_single_for_device in mvpp2_xdp_submit_frame,
// mvneta_xdp_submit_frame, mlx5e_xmit_xdp_buff and bnxt_rx_xdp;
// cpdma_chan_submit_si for cpsw's cpdma_chan_submit_mapped) and writes a TX
// descriptor (the driver's transmit cost, SymDrvXmit: the model has no
// separate XDP submit cost, and folds xdp_convert_buff_to_frame into it).
// The returned frame is on the TX ring until CompleteXDPTx. bnxt's buffer
// (XDPTxReuse) goes back on the RX ring at once, held there until the
// frame's completion rings the RX doorbell. It reports whether a frame was
// sent (false: the NIC found no posted buffer, or the frame did not fit
// one). The TX ring itself never fills here: each poll completes what the
// last one sent, at most a budget's worth.
func (d *Driver) ReceiveXDPTx(length int) (XDPFrame, bool) {
	m := d.S.M
	cpu := d.CPU()
	if d.posted == 0 {
		d.miss()
		return XDPFrame{}, false
	}
	m.Charge(cpu, sim.SymDrvRx, 0)
	m.Charge(cpu, sim.SymXDPRun, 0)
	d.polled++
	if length > d.Room() {
		d.Dropped++
		return XDPFrame{}, false
	}
	path := d.Spec.XDPTx
	if path == XDPTxNone {
		panic(fmt.Sprintf("drivers: %s has no XDP_TX path (Spec.XDPTx); the xdp-tx scenario must not offer it", d.Spec.Name))
	}
	// The frame goes out from the page it arrived in: a driver that maps
	// its own buffers keeps the mapping for the send (mlx5 before 6.4, whose
	// completion offers the page to its RX cache still mapped).
	pg, off, size := d.takeBuffer(length, path == XDPTxReuse || d.cache != nil)
	m.Charge(cpu, sim.SymDrvXmit, 0)
	if pg.Mapped {
		d.S.A.DMA.SyncForDevice(cpu, pg, off, length, d.Pool.P.DMADir)
	}
	d.Transmitted++
	if path == XDPTxReuse {
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("XDP_TX (%s): the frame is queued on the TX ring from its RX buffer, synced for the device for its %d bytes; bnxt_reuse_rx_data puts the same buffer back on the RX ring at once, without an allocation, but the NIC may use it only after the RX doorbell, which the frame's TX completion writes; the pool is not involved", d.Spec.XDPTxFn, length))
		}
		d.holdBuffer(pg, off, size)
	} else {
		pg.MoveTo(m, sim.PlaceXDPFrame, -1) // on the TX ring as an xdp_frame (no skb-level user)
		if m.Tracing() {
			d.ev(sim.SymXDPRun, pg, sim.PlaceNICRing, sim.PlaceXDPFrame, fmt.Sprintf("XDP_TX (%s): the frame goes out on the same NIC from the page it arrived in, already mapped by the pool: synced for the device for its %d bytes, no DMA mapping; the page waits on the TX ring for the completion", d.Spec.XDPTxFn, length))
		}
	}
	if d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	return XDPFrame{Page: pg, Off: off, Len: length, Size: size, Pool: d.Pool}, true
}

// CompleteXDPTx models the TX completion of XDP_TX frames, in the NAPI poll
// that runs the RX ring (mvpp2_txq_done, mvneta_txq_done, cpsw_tx_handler
// from the TX channel's poll, mlx5e_poll_xdpsq_cq, bnxt_tx_int_xdp): each
// frame's page goes back as the driver does (Spec.XDPTx, Spec.XDPTxDoneFn).
// No unmap: the mapping is the pool's.
func (d *Driver) CompleteXDPTx(frames []XDPFrame) {
	m := d.S.M
	cpu := d.CPU()
	var bq [XDPBulkQueueSize]*mm.Page // struct xdp_frame_bulk
	nb, doorbell := 0, 0
	for _, f := range frames {
		pg := f.Page
		m.Begin(cpu, sim.SymDrvTxClean)
		m.Charge(cpu, sim.SymDrvTxClean, 0)
		switch d.Spec.XDPTx {
		case XDPTxReturnBulk:
			if nb == len(bq) { // xdp_return_frame_bulk: bq->count == XDP_BULK_QUEUE_SIZE
				d.flushFrameBulk(bq[:nb])
				nb = 0
			}
			if m.Tracing() {
				d.ev(sim.SymDrvTxClean, pg, sim.PlaceXDPFrame, sim.PlaceXDPFrame, fmt.Sprintf("TX completion (%s): the sent frame joins the xdp_frame_bulk (%d of %d); xdp_flush_frame_bulk hands the batch to %s", d.Spec.XDPTxDoneFn, nb+1, len(bq), xdpFlushWhy(m.Era)))
			}
			bq[nb] = pg
			nb++
		case XDPTxReturnNAPI, XDPTxReturnFrame:
			direct := d.Spec.XDPTx == XDPTxReturnNAPI
			m.Begin(cpu, sim.SymXDPReturn)
			m.Charge(cpu, sim.SymXDPReturn, 0)
			if m.Tracing() {
				why := xdpReturnFrameWhy(m.Era)
				if direct {
					why = "napi_direct = true: page_pool_put_full_page(pool, page, true), so the page may go straight into the alloc cache (the driver returns its own XDP_TX frames from its NAPI poll)"
				}
				d.ev(sim.SymXDPReturn, pg, sim.PlaceXDPFrame, sim.PlaceXDPFrame, fmt.Sprintf("TX completion (%s) → __xdp_return: %s", d.Spec.XDPTxDoneFn, why))
			}
			d.Pool.PutFullPage(cpu, pg, direct)
		case XDPTxRecycleDirect:
			if d.cache != nil {
				// Before 6.4: mlx5e_free_xdpsq_desc →
				// mlx5e_page_release_dynamic(rq, page, true): the
				// driver's RX cache first, page_pool_recycle_direct
				// when it refuses the page (mlx5cache.go).
				if m.Tracing() {
					d.ev(sim.SymPutPage, pg, sim.PlaceXDPFrame, sim.PlaceXDPFrame, fmt.Sprintf("TX completion (%s): mlx5e_page_release_dynamic(rq, page, true) offers the page to the driver's own RX cache first", d.Spec.XDPTxDoneFn))
				}
				d.releaseDynamic(cpu, pg, true)
				continue
			}
			m.Begin(cpu, sim.SymPutPage)
			if m.Tracing() {
				d.ev(sim.SymPutPage, pg, sim.PlaceXDPFrame, sim.PlaceXDPFrame, fmt.Sprintf("TX completion (%s): page_pool_recycle_direct, allowed because the XDP send queue's completion runs in the RQ's NAPI poll", d.Spec.XDPTxDoneFn))
			}
			d.Pool.RecycleDirect(cpu, pg)
		case XDPTxReuse:
			doorbell++
		default:
			panic(fmt.Sprintf("drivers: %s has no XDP_TX path (Spec.XDPTx)", d.Spec.Name))
		}
	}
	if nb > 0 {
		d.flushFrameBulk(bq[:nb]) // xdp_flush_frame_bulk at the end of the completion
	}
	if doorbell > 0 {
		d.RxDoorbell(doorbell)
	}
}

// flushFrameBulk is xdp_flush_frame_bulk of the driver's own pool's pages
// on its NAPI CPU.
func (d *Driver) flushFrameBulk(pages []*mm.Page) { xdpFlushFrameBulk(d.S.M, d.CPU(), d.Pool, pages) }

// xdpFlushFrameBulk models xdp_flush_frame_bulk: page_pool_put_page_bulk
// (page_pool_put_netmem_bulk from 6.14) of the queued frames' pages, all of
// pool. Before 6.10 every page goes to the ptr_ring (allow_direct =
// false); from 6.10 (39806b96c89a) page_pool_napi_local decides once for
// the batch.
func xdpFlushFrameBulk(m *sim.Machine, cpu int, pool *pagepool.Pool, pages []*mm.Page) {
	m.Begin(cpu, sim.SymPutPageBulk)
	pool.PutPageBulk(cpu, pages)
	clear(pages)
}

// xdpReturnFrameWhy narrates xdp_return_frame's put in era e (tracing only).
func xdpReturnFrameWhy(e *sim.Era) string {
	if e.PoolNapiLocal {
		return "napi_direct = false: page_pool_put_full_page(pool, page, false); from 6.10 page_pool_put_unrefed_page asks page_pool_napi_local (4a96a4e807c3), which lets the page into the alloc cache only in softirq on the CPU whose poll list holds the pool's NAPI (pp.napi) or on a per-CPU pool's own CPU, the ptr_ring otherwise (a pool without pp.napi: always the ring)"
	}
	return "napi_direct = false: page_pool_put_full_page(pool, page, false), so the page goes to the ptr_ring (xdp_return_frame may run outside the pool's NAPI: a redirected frame's pool is another driver's)"
}

// xdpFlushWhy names where xdp_flush_frame_bulk's batch goes in era e
// (tracing only).
func xdpFlushWhy(e *sim.Era) string {
	if e.PoolNapiLocal {
		return "page_pool_put_page_bulk (page_pool_put_netmem_bulk from 6.14), which asks page_pool_napi_local once for the batch (39806b96c89a, 6.10): the alloc cache when the completion runs in softirq on the CPU whose poll list holds the pool's NAPI (pp.napi), the ptr_ring otherwise (a pool without pp.napi: always the ring)"
	}
	return "page_pool_put_page_bulk"
}

// holdBuffer puts a buffer back on the next free RX descriptor without
// giving it to the NIC (desc.held): bnxt_reuse_rx_data at XDP_TX, before the
// RX doorbell.
func (d *Driver) holdBuffer(pg *mm.Page, off, size int) {
	dd := &d.ring[d.fill]
	*dd = desc{pg: pg, off: off, size: size, held: true}
	pg.MoveTo(d.S.M, sim.PlaceNICRing, int32(d.fill))
	pg.Users++
	if d.fill++; d.fill == len(d.ring) {
		d.fill = 0
	}
	d.held++
}

// RxDoorbell gives the NIC the n oldest held descriptors (bnxt_tx_int_xdp:
// bnxt_db_write(bp, &rxr->rx_db, tx_buf->rx_prod) once the XDP_TX frames
// that held them were sent): they follow the posted ones.
func (d *Driver) RxDoorbell(n int) {
	n = min(n, d.held)
	for i := 0; i < n; i++ {
		j := d.next + d.posted
		if j >= len(d.ring) {
			j -= len(d.ring)
		}
		dd := &d.ring[j]
		dd.held, dd.posted = false, true
		d.held--
		d.posted++
		if d.S.M.Tracing() {
			d.ev(sim.SymDrvTxClean, dd.pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("TX completion (%s): the frame was sent, so the RX doorbell (bnxt_db_write with the rx_prod recorded at XDP_TX) gives the NIC back the buffer bnxt_reuse_rx_data put on descriptor %d", d.Spec.XDPTxDoneFn, j))
		}
	}
}
