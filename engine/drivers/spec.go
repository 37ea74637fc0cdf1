package drivers

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Spec is what a driver model takes from its kernel driver: platform, RX
// buffer model, descriptor ring, page_pool parameters, the functions a
// profile shows, and the era from which it marks skbs for recycling.
type Spec struct {
	Name     string
	Platform string // sim platform name
	Doc      string
	// Buffer is how RX buffers are carved out of pages; SplitBuffer is the
	// mode for the split-page scenario (drivers that split pages).
	Buffer BufferMode
	// RxDescs is the RX descriptor count; the pool's ring (pool_size) is sized
	// from it, as drivers do.
	RxDescs int
	// MaxLen is page_pool_params.max_len (bytes synced for the device); Offset
	// is where the NIC writes (the headroom the driver reserves).
	MaxLen, Offset int
	SyncDev        bool // PP_FLAG_DMA_SYNC_DEV
	// SubmitSync is how many bytes the driver itself syncs for the device
	// each time it posts a buffer, when its pool does not (cpsw:
	// cpdma_chan_submit_si's dma_sync_single_for_device of a pre-mapped
	// buffer with the submitted length); 0: none.
	SubmitSync int
	// RefillEach: the driver replaces each consumed buffer at once (mvpp2_rx,
	// bnxt); otherwise it refills the ring at the end of the NAPI poll.
	RefillEach bool
	// NapiBuildSkb: napi_build_skb (struct from the NAPI skb cache) instead of
	// build_skb (kmem_cache_alloc).
	NapiBuildSkb bool
	// TxNapiConsume: TX completion frees with napi_consume_skb (a NAPI-safe
	// free: the struct goes to the NAPI skb cache and, from 6.4, pool pages
	// may recycle NAPI-locally); otherwise with dev_kfree_skb_any, which in
	// the NAPI poll (softirq, interrupts on) is a plain kfree_skb:
	// napi_safe = false, the struct back to its kmem_cache (Stack.DevKfreeSkbAny).
	TxNapiConsume bool
	// TxNapiConsumeFrom is the first era from which a driver that freed
	// with dev_kfree_skb_any frees with napi_consume_skb ("" = never; see
	// TxConsumes).
	TxNapiConsumeFrom string `rule:"TX completion frees with napi_consume_skb"`
	// XDPDropRefillFrom is the first era in which a driver whose XDP_DROP
	// reuses the buffer (XDPDropReuse) releases it to the pool at the
	// refill instead (XDPDropAtRefill; "" = never).
	XDPDropRefillFrom string `rule:"XDP_DROP puts the page back to the pool"`
	// PPNapiFrom is the first era in which the driver sets
	// page_pool_params.napi ("" = never). The field is opt-in (8c48eea3adf3,
	// v6.4, whose page_pool.rst hunk says `pp_params.napi = napi; /* only if
	// locking is tied to NAPI */`), and napi_pp_put_page allows a direct
	// recycle of an skb's page only when pp->p.napi is set and its
	// list_owner is this CPU: a pool without it sends every skb page through
	// the ptr_ring, whatever the era.
	PPNapiFrom string `rule:"the pool is linked to the NAPI (pp.napi)"`
	// NetdevFrom is the first era in which the driver sets
	// page_pool_params.netdev ("" = never): the field is v6.8 (page_pool
	// introspection) and opt-in; 7cc9e6d77f85 "eth: link netdev to
	// page_pools in drivers" (v6.8) set it in bnxt and mlx5 (and mana,
	// netsec), none of the other model drivers sets it. Only a pool linked
	// to its netdev is listed by netlink, and its stalled shutdown is not
	// warned about (sim.Era.PoolNetlink).
	NetdevFrom string `rule:"the pool is linked to the netdev (pp.netdev)"`
	// RecycleFrom is the first era in which the model's driver calls
	// skb_mark_for_recycle; before it, the driver calls page_pool_release_page
	// when it builds an skb.
	RecycleFrom string `rule:"the driver marks its skbs for recycling"`
	// HeadSplit: the driver copies small frames, and the headers of larger
	// ones, into a linear skb of this many bytes (napi_alloc_skb) and adds
	// the buffers as page_pool frags (hns3: HNS3_RX_HEAD_SIZE 256; bnxt's
	// page mode: BNXT_RX_COPY_THRESH 256 and bnxt_rx_page_skb); 0: the
	// driver builds the skb around the buffer (build_skb).
	HeadSplit int
	// HeadSplitFirst is the frame bytes the first buffer of a multi-buffer
	// frame holds on the HeadSplit path (0: the whole buffer). bnxt's page
	// mode: rx_buf_use_size = PAGE_SIZE - XDP_PACKET_HEADROOM (256) -
	// SKB_DATA_ALIGN(shinfo) (320) = 3520, the rest of a jumbo frame in
	// aggregation pages (6.12.118 bnxt_set_ring_params, bnxt.c:4606-4609;
	// the model placed 4096 there).
	HeadSplitFirst int
	// ReuseAlways: a copied frame's buffer goes back on the ring whatever
	// its page (bnxt_copy_skb + bnxt_reuse_rx_data: no dev_page_is_reusable
	// test), synced for the device for the copied length; otherwise only a
	// local, non-pfmemalloc page is reused (hns3_nic_reuse_page).
	ReuseAlways bool
	// XDPPass: an XDP program runs on every received frame and passes it
	// (bnxt's page mode, set when a program is attached: bnxt_rx_xdp runs
	// before the skb is built); the frame pays bpf_prog_run_xdp.
	XDPPass bool
	// TPA: the NIC aggregates a TCP flow's segments itself (hardware GRO:
	// bnxt's TPA) when the driver runs its normal RX path with an
	// aggregation ring (the hw_gro knob): the headers land in a small head
	// buffer, the payload in aggregation-ring buffers, as many segments to
	// a buffer and per aggregate as Driver.tpaLimits computes from the MSS.
	TPA bool
	// AggFrom is the first era in which the driver's normal RX path takes
	// its aggregation-ring buffers from page_pool (bnxt: 86b05508f775,
	// v6.6); before it only its page mode uses the pool. AggFactor is the
	// aggregation ring's size in RX descriptors (rx_agg_ring_size =
	// rx_ring_size × agg_factor), AggHead the head buffer's size in that
	// mode (rx_buf_use_size = rx_copy_thresh: frames up to it are copied).
	AggFrom            string `rule:"payload from a page_pool-fed aggregation ring"`
	AggFactor, AggHead int
	// AggMaxRxDescs is the most RX descriptors with the aggregation ring
	// on: bnxt_set_ring_params cuts a larger ring to
	// BNXT_MAX_RX_DESC_CNT_JUM_ENA (RX_DESC_CNT × MAX_RX_PAGES_AGG_ENA − 1
	// = 256 × 8 − 1, read in 6.12.118 and 7.3.4).
	AggMaxRxDescs int
	// HeadPoolFrom is the first era in which the head buffers of that
	// path are fragments of the pool (bnxt: "eth: bnxt: use page pool
	// for head frags", 7ed816be35ab, v6.13: __bnxt_alloc_rx_frag takes
	// page_pool_alloc_frag(rxr->head_pool, ...), the same pool on a 4 KB
	// page; the skb is napi_build_skb over it and marked), HeadPoolBuf a
	// head fragment's size there in that era (rx_buf_size with TPA:
	// SKB_DATA_ALIGN(rx_copy_thresh 256) + NET_SKB_PAD 64 + the shared
	// info's 320 = 640, six to a page, read in bnxt_set_ring_params of
	// Debian's 6.12.118, which carries 7ed816be35ab as fc12ae86adb6), and
	// HeadPoolBufWide the size from HeadPoolBufWideFrom (1024, four to a
	// page, "eth: bnxt: update header sizing defaults",
	// <20250119020518.1962249-8-kuba@kernel.org>, net-next January 2025, so
	// v6.14: the model's 6.15; read in 7.3.4). Before HeadPoolFrom they are
	// napi_alloc_frag'd (page_frag) buffers.
	HeadPoolFrom        string `rule:"RX heads are page_pool fragments"`
	HeadPoolBuf         int
	HeadPoolBufWide     int
	HeadPoolBufWideFrom string `rule:"head fragments are 1024 bytes, four to a page"`
	// HDSThreshWide is the header-data split threshold from
	// HeadPoolBufWideFrom on the path with an aggregation ring: a frame of
	// up to it lands whole in its head buffer, a larger one is split, its
	// headers in the head buffer and the rest in aggregation buffers
	// (bnxt_hwrm_vnic_set_hds). It was rx_copy_thresh (AggHead, 256) until
	// 99d028c63457 "eth: bnxt: update header sizing defaults" (Kicinski,
	// <20250119020518.1962249-8-kuba@kernel.org>, net-next Jan 2025, so
	// v6.14: the model's 6.15) raised it "to fit 4 buffers in a 4k page",
	// 640 bytes ("300-400B RPC requests are fairly common ... bnxt ends up
	// splitting those"); read in 7.3.4 (bnxt_init_ring_params: hds_thresh
	// = max(BNXT_MIN_RX_HDR_BUF, SZ_1K - NET_SKB_PAD - shinfo)). The model
	// places a split frame's first AggHead bytes in the head buffer, where
	// the chip places its headers: the same buffers for TCP and UDP.
	HDSThreshWide int
	// MaxTPA is bp->max_tpa, the TPA contexts (struct bnxt_tpa_info) of an
	// RX ring: from HeadPoolFrom each holds a spare head buffer, a pool
	// fragment allocated at open (bnxt_alloc_one_tpa_info_data:
	// __bnxt_alloc_rx_frag per context), which TPA_START swaps onto the
	// ring slot of the aggregation's first segment and bnxt_tpa_end
	// replaces with a new fragment when it builds over the old. On a P5
	// chip (the model's 100G part) bnxt_alloc_tpa_info sets it to
	// max_t(max_tpa_v2, MAX_TPA_P5) (read in 6.12.118, which carries
	// 7ed816be35ab), min_t(max_tpa_v2, MAX_TPA_P5) from a later release
	// with older firmware's low value raised to MAX_TPA_P5 and the count
	// rounded up to a power of two (read in 7.3.4): 256 either way here.
	MaxTPA int
	// HeadRingBuf and HeadRingRoom are rx_buf_size and rx_buf_use_size on
	// the same normal path without an aggregation ring (hardware GRO off,
	// no XDP program, MTU 1500: no BNXT_FLAG_TPA, so no agg_factor):
	// SKB_DATA_ALIGN(1500 + ETH_HLEN + NET_IP_ALIGN + 8) = 1536 bytes of
	// frame, plus ALIGN(max(NET_SKB_PAD, XDP_PACKET_HEADROOM), 8) = 256
	// and the shared info's 320: 2112, one to a 4 KB page (read in
	// 6.12.118's bnxt_set_ring_params). From HeadPoolFrom every RX buffer
	// there is such a fragment of the pool (Spec.HeadRing, BufferMode
	// HeadFrags).
	HeadRingBuf, HeadRingRoom int
	// CopybreakZeroFrom is the first era in which that path copies no
	// frame (rx_copybreak 0: "rx-copybreak disabled by default", read in
	// 7.3's bnxt_init_ring_params; the commit is not pinned); before it
	// a head of up to AggHead bytes is copied into a new skb and its
	// buffer reused (bnxt_copy_skb, bnxt_reuse_rx_data).
	CopybreakZeroFrom string `rule:"no frame is copied (rx_copybreak 0)"`
	// PoolDMAFrom is the first era in which the driver lets its pool map
	// the pages (PP_FLAG_DMA_MAP); before it the driver maps each RX buffer
	// when it posts it and unmaps it when the frame arrives, so every
	// recycled page is mapped again ("" = the pool maps in every era).
	PoolDMAFrom string `rule:"the pool maps and syncs the pages"`
	// RxCacheUntil is the first era in which the driver no longer keeps
	// its own RX page cache in front of its pool ("" = it never has one):
	// before it, a released RX buffer goes into the driver's cache and the
	// refill takes the cache's oldest page back once its refcount fell to 1
	// (mlx5e_rx_cache_put / mlx5e_rx_cache_get, mlx5cache.go); the driver
	// takes a page reference of its own for each skb it builds instead of
	// marking it (RecycleFrom) or releasing the page from the pool, and it
	// maps its pages itself (PoolDMAFrom).
	RxCacheUntil string `rule:"the driver keeps its own RX page cache"`
	// GRO: the driver hands skbs to napi_gro_receive (most drivers);
	// otherwise netif_receive_skb (cpsw_rx_handler), and GRO never sees them.
	GRO bool
	// NidChanged: the NAPI poll calls page_pool_nid_changed (mlx5).
	NidChanged bool
	// XDP: the driver runs XDP programs with XDP_REDIRECT support.
	XDP bool
	// XDPDrop is what the driver does with a buffer its XDP program drops
	// (XDP_DROP), for the drivers with XDP.
	XDPDrop XDPDropPath
	// XDPDropFn is the driver function that gives a dropped buffer back
	// (what the narration names).
	XDPDropFn string
	// XDPTx is how the driver sends a frame its XDP program bounces
	// (XDP_TX) and how its TX completion gives the page back, for the
	// drivers with XDP; XDPTxFn names the driver's XDP_TX submit and
	// XDPTxDoneFn its TX completion's return of the frame (what the
	// narration names).
	XDPTx                XDPTxPath
	XDPTxFn, XDPTxDoneFn string
	// XDPNdo is how the driver's ndo_xdp_xmit sends a frame another
	// port's XDP program redirected to it, and how its TX completion gives
	// the page back (the xdp-redirect scenario's second port, redirect_to=1;
	// destroy's held=1); XDPNdoFn names its ndo_xdp_xmit, XDPNdoDoneFn its
	// completion's return of the frame (what the narration names).
	XDPNdo                 XDPNdoPath
	XDPNdoFn, XDPNdoDoneFn string
	// Names: the symbols its profile shows for the driver's functions.
	Names map[sim.Sym]string
	// OutOfTree: the driver is not in the kernel tree (its function names
	// link nowhere).
	OutOfTree bool
	// Ethtool is which page_pool counter names its `ethtool -S` shows.
	Ethtool EthtoolNames
	// Scenarios it runs (ppsim list shows them).
	Scenarios []string
	// QueueMgmtFrom is the first era in which the driver has
	// netdev_queue_mgmt_ops, so a queue can be restarted onto a memory
	// provider ("" = never); UnreadableFrom the first in which it creates
	// its payload pool with PP_FLAG_ALLOW_UNREADABLE_NETMEM for a bound
	// queue ("" = never), UnreadableWhy why it does not before (or ever);
	// DevmemUnmodelled, when set, is why the model's driver refuses a
	// binding the kernel's would take (BindRxQueue, devmem.go).
	QueueMgmtFrom                   string `rule:"the driver binds a queue to a memory provider"`
	UnreadableFrom                  string `rule:"the pool hands out unreadable net_iovs"`
	UnreadableWhy, DevmemUnmodelled string
	// Commits are the driver commits of its era-name fields (the field's
	// name: the commit that brought the behaviour), where pinned: a
	// comparison of two eras names them (EraFeatures).
	Commits map[string]string
}

// XDPDropPath is a driver's XDP_DROP: the canonical page_pool use, the
// page straight back where the next refill finds it.
type XDPDropPath uint8

const (
	XDPDropNone XDPDropPath = iota // the driver has no XDP
	// XDPDropPutDirect: page_pool_put_page(pool, page, sync_len, true):
	// into the alloc cache, synced for the device for the frame's length
	// only (mvpp2_run_xdp, mvneta_run_xdp → mvneta_xdp_put_buff).
	XDPDropPutDirect
	// XDPDropRecycleDirect: page_pool_recycle_direct(pool, page), a full
	// page's put with allow_direct (cpsw_run_xdp).
	XDPDropRecycleDirect
	// XDPDropReuse: the driver gives the buffer back to the NIC at once,
	// without the pool: bnxt_rx_xdp → bnxt_reuse_rx_data; mlx5e_xdp_handle
	// keeps the page on its RQ before Spec.XDPDropRefillFrom (modelled as
	// the same reuse; the RQ's frag accounting is not).
	XDPDropReuse
	// XDPDropAtRefill: the driver leaves the dropped page's fragment
	// count where it was and the WQE refill releases it to the pool's
	// alloc cache and takes it out again (mlx5 from 6.6, read in 7.3:
	// mlx5e_free_rx_wqes → mlx5e_page_release_fragmented →
	// page_pool_put_unrefed_netmem(pp, netmem, -1, true), then
	// mlx5e_page_alloc_fragmented; docs/era-7.3.md part 2 §k). The model
	// releases it at the drop, a full page's direct put as
	// page_pool_recycle_direct's: the same counters per poll.
	XDPDropAtRefill
)

// XDPDropIn is the driver's XDP_DROP path in era e.
func (s *Spec) XDPDropIn(e *sim.Era) XDPDropPath {
	if s.XDPDrop == XDPDropReuse && since(s.XDPDropRefillFrom, e) {
		return XDPDropAtRefill
	}
	return s.XDPDrop
}

// XDPTxPath is a driver's XDP_TX: the frame goes out on the same NIC from
// the page it arrived in (already mapped by the pool, so the driver only
// syncs the frame's length for the device: dma_sync_single_for_device),
// and the TX completion, in the same NAPI poll, gives the page back one of
// these ways. Every driver with XDP in the model had XDP_TX in every era
// the model has (mlx5 from v4.9, bnxt v4.11, mvneta v5.5, cpsw v5.8, mvpp2
// v5.9: 07dd0a7aae7f "mvpp2: add basic XDP support").
type XDPTxPath uint8

const (
	XDPTxNone XDPTxPath = iota // the driver has no XDP
	// XDPTxReturnBulk: xdp_return_frame_bulk, flushed every
	// XDP_BULK_QUEUE_SIZE (16) frames and at the end of the completion by
	// xdp_flush_frame_bulk → page_pool_put_page_bulk, which puts every page
	// (dma_sync_size -1: max_len synced again) into the ptr_ring under one
	// producer lock: with allow_direct = false before 6.10; from 6.10
	// (39806b96c89a) it asks page_pool_napi_local once, which is false for
	// mvpp2's pool (no pp.napi, cpuid -1), so its pages still go to the
	// ring (mvpp2: mvpp2_xdp_xmit_back → mvpp2_xdp_submit_frame,
	// MVPP2_TYPE_XDP_TX; mvpp2_txq_bufs_free; bulking from v5.11, "net:
	// mvpp2: add xdp tx return bulking support").
	XDPTxReturnBulk
	// XDPTxReturnNAPI: xdp_return_frame_rx_napi → __xdp_return(...,
	// napi_direct = true) → page_pool_put_full_page(pool, page, true): into
	// the alloc cache, max_len synced (mvneta: mvneta_xdp_xmit_back →
	// mvneta_xdp_submit_frame, MVNETA_TYPE_XDP_TX; mvneta_txq_done calls
	// mvneta_txq_bufs_free(..., napi = true), which returns an XDP_TX frame
	// this way and only XDP_NDO frames in bulk: 632bb64f126a "net: mvneta:
	// try to use in-irq pp cache in mvneta_txq_bufs_free", v5.10).
	XDPTxReturnNAPI
	// XDPTxReturnFrame: xdp_return_frame → __xdp_return(..., napi_direct =
	// false) → page_pool_put_full_page(pool, page, false): into the
	// ptr_ring, one frame at a time — from 6.10 page_pool_put_unrefed_page
	// asks page_pool_napi_local (4a96a4e807c3), false for cpsw's pool (no
	// pp.napi), so still the ring (cpsw: cpsw_run_xdp → cpsw_xdp_tx_frame
	// → cpdma_chan_submit_mapped with the page's DMA address, synced by
	// cpdma_chan_submit_si; cpsw_tx_handler).
	XDPTxReturnFrame
	// XDPTxRecycleDirect: page_pool_recycle_direct at TX completion, which
	// runs in the RQ's NAPI (mlx5: mlx5e_xdp_handle → mlx5e_xmit_xdp_buff,
	// MLX5E_XDP_XMIT_MODE_PAGE; mlx5e_poll_xdpsq_cq → mlx5e_free_xdpsq_desc,
	// from 6.4. Before 6.4 mlx5e_free_xdpsq_desc called
	// mlx5e_page_release_dynamic(rq, page, recycle = true), which first
	// offered the page to the driver's own RX page cache (mlx5e_rx_cache_put)
	// and recycled it directly into the pool only when that was full; the
	// model has no such cache, so in every era the page goes to the alloc
	// cache directly).
	XDPTxRecycleDirect
	// XDPTxReuse: the buffer never leaves the RX ring's ownership: bnxt_rx_xdp
	// queues the frame (__bnxt_xmit_xdp, recording rx_prod) and puts the same
	// buffer back at once (bnxt_reuse_rx_data), but the RX doorbell that
	// lets the NIC use it again is written by the TX completion
	// (bnxt_tx_int_xdp: bnxt_db_write of tx_buf->rx_prod); the pool is not
	// involved. (A multi-buffer frame's frags go back with
	// page_pool_recycle_direct there; the model's XDP frames fit one buffer.)
	XDPTxReuse
)

// XDPNdoPath is how a driver's TX completion returns a frame its
// ndo_xdp_xmit sent for another port's XDP_REDIRECT: ndo_xdp_xmit mapped
// the frame for transmit on its own device (dma_map_single, DMA_TO_DEVICE:
// the page is the other port's pool's), the completion unmaps it
// (dma_unmap_single) and gives the page back to its pool (xdpf->mem) one of
// these ways. Neither passes allow_direct: before 6.10 the page goes to the
// pool's ptr_ring; from 6.10 page_pool_napi_local lets it into the alloc
// cache when the completion runs in softirq on the CPU whose poll list
// holds the pool's NAPI (pp.napi->list_owner: bnxt and mlx5 from 6.4), and
// never for a pool without pp.napi (mvpp2, mvneta).
type XDPNdoPath uint8

const (
	XDPNdoNone XDPNdoPath = iota // no ndo_xdp_xmit in the model
	// XDPNdoReturnBulk: xdp_return_frame_bulk, flushed every
	// XDP_BULK_QUEUE_SIZE frames and at the end of the completion by
	// xdp_flush_frame_bulk → page_pool_put_page_bulk (page_pool_put_netmem_bulk
	// from 6.14), whose locality test (39806b96c89a, 6.10) runs once per
	// flush. mvpp2: mvpp2_xdp_xmit → mvpp2_xdp_submit_frame(dma_map =
	// true), MVPP2_TYPE_XDP_NDO; mvpp2_txq_bufs_free unmaps every buffer
	// but an XDP_TX one and returns XDP_TX and XDP_NDO frames in bulk.
	// mvneta: mvneta_xdp_xmit → mvneta_xdp_submit_frame(dma_map = true),
	// MVNETA_TYPE_XDP_NDO; mvneta_txq_bufs_free unmaps XDP_NDO and skb
	// buffers and returns an XDP_NDO frame in bulk even from its NAPI (only
	// XDP_TX goes through xdp_return_frame_rx_napi). mlx5: mlx5e_xdp_xmit
	// maps on the XDP SQ of this CPU's channel; mlx5e_poll_xdpsq_cq →
	// mlx5e_free_xdpsq_desc, MLX5E_XDP_XMIT_MODE_FRAME ("XDP_TX from the
	// XSK RQ and XDP_REDIRECT"): dma_unmap_single, xdp_return_frame_bulk
	// (torvalds/linux and Kingxukai/linux @0291023e7330 and @9b44fff655e2
	// read).
	XDPNdoReturnBulk
	// XDPNdoReturnFrame: xdp_return_frame → __xdp_return(napi_direct =
	// false) → page_pool_put_full_page(pool, page, false), a frame at a
	// time. bnxt: bnxt_xdp_xmit → __bnxt_xmit_xdp_redirect on the XDP TX
	// ring smp_processor_id() % tx_nr_rings_xdp (the target needs an XDP
	// program of its own for those rings); bnxt_tx_int_xdp, XDP_REDIRECT
	// action: dma_unmap_single, xdp_return_frame.
	XDPNdoReturnFrame
)

// XDPBulkQueueSize is XDP_BULK_QUEUE_SIZE, the frames an xdp_frame_bulk
// holds before xdp_return_frame_bulk flushes it.
const XDPBulkQueueSize = 16

// Budget is the NAPI poll budget (NAPI_POLL_WEIGHT).
const Budget = 64

// Specs are the seven driver models. Parameters follow the
// drivers' page_pool_params; where a value is the model's choice the comment
// says so.
var Specs = []*Spec{
	{Name: "mvpp2", Platform: "macchiatobin", Buffer: PagePerFrame, RxDescs: 1024,
		Doc: "Marvell PPv2 (Armada 8040, MacchiatoBIN): one page per frame, RX refilled per frame (mvpp2_rx_refill), TX completion with dev_kfree_skb_any, no pp.napi; the first skb-recycling user (rfc-v1)",
		// mvpp2_create_page_pool: PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		// max_len = the buffer's data size, offset = MVPP2_SKB_HEADROOM; no
		// pp.napi in any release. mvpp2_txq_bufs_free: dev_kfree_skb_any.
		MaxLen: 2048, Offset: 64, SyncDev: true, RefillEach: true, RecycleFrom: "rfc-v1", XDP: true, XDPDrop: XDPDropPutDirect, XDPDropFn: "mvpp2_run_xdp", GRO: true,
		XDPTx: XDPTxReturnBulk, XDPTxFn: "mvpp2_xdp_xmit_back → mvpp2_xdp_submit_frame", XDPTxDoneFn: "mvpp2_txq_bufs_free → xdp_return_frame_bulk",
		XDPNdo: XDPNdoReturnBulk, XDPNdoFn: "mvpp2_xdp_xmit → mvpp2_xdp_submit_frame(dma_map = true)", XDPNdoDoneFn: "mvpp2_txq_done → mvpp2_txq_bufs_free → xdp_return_frame_bulk",
		Names:     map[sim.Sym]string{sim.SymDrvRx: "mvpp2_rx", sim.SymDrvXmit: "mvpp2_tx", sim.SymDrvTxClean: "mvpp2_txq_done"},
		Scenarios: []string{"drop", "tcp-stream", "forward", "xdp-redirect", "xdp-drop", "xdp-tx", "clone-tap", "coalesce-mixed", "destroy", "pfmemalloc"}},
	{Name: "mvneta", Platform: "espressobin", Buffer: PagePerFrame, RxDescs: 512,
		Doc: "Marvell NETA (Armada 3720, EspressoBIN): a page per buffer, multi-buffer frames add the next buffers as frags (page_pool_store_mem_info per frag), refill at the end of the poll, TX completion with dev_kfree_skb_any, no pp.napi; non-coherent DMA: dcache invalidation dominates",
		// mvneta_create_page_pool: PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		// max_len = MVNETA_MAX_RX_BUF_SIZE (PAGE_SIZE - headroom - shinfo),
		// offset = pp->rx_offset_correction + XDP headroom; no pp.napi.
		// mvneta_txq_bufs_free frees skbs with dev_kfree_skb_any (XDP
		// frames with xdp_return_frame_bulk).
		MaxLen: mm.PageSize - 256 - 320, Offset: 256, SyncDev: true, RecycleFrom: "rfc-v1", XDP: true, XDPDrop: XDPDropPutDirect, XDPDropFn: "mvneta_run_xdp", GRO: true,
		XDPTx: XDPTxReturnNAPI, XDPTxFn: "mvneta_xdp_xmit_back → mvneta_xdp_submit_frame", XDPTxDoneFn: "mvneta_txq_bufs_free → xdp_return_frame_rx_napi",
		XDPNdo: XDPNdoReturnBulk, XDPNdoFn: "mvneta_xdp_xmit → mvneta_xdp_submit_frame(dma_map = true)", XDPNdoDoneFn: "mvneta_txq_done → mvneta_txq_bufs_free → xdp_return_frame_bulk",
		Ethtool:   EthtoolGeneric,
		Names:     map[sim.Sym]string{sim.SymDrvRx: "mvneta_rx_swbm", sim.SymDrvXmit: "mvneta_tx", sim.SymDrvTxClean: "mvneta_txq_done"},
		Scenarios: []string{"drop", "tcp-stream", "forward", "xdp-redirect", "xdp-drop", "xdp-tx", "clone-tap", "coalesce-mixed", "destroy", "pfmemalloc"}},
	{Name: "cpsw", Platform: "ti-cpsw", Buffer: PagePerFrame, RxDescs: 256,
		Doc: "TI CPSW switch (ARMv7 SoC): one page per frame through the CPDMA channel (spinlock-heavy), build_skb, netif_receive_skb (no GRO), TX completion with dev_kfree_skb_any, no pp.napi, non-coherent DMA; the pool only maps (PP_FLAG_DMA_MAP), and the CPDMA submit syncs each buffer for the device",
		// cpsw_create_page_pool (cpsw_priv.c): pp_params = {}, flags =
		// PP_FLAG_DMA_MAP only, DMA_BIDIRECTIONAL, no max_len, no offset, no
		// pp.napi. cpsw_fill_rx_channels posts page_pool_get_dma_addr(page) +
		// CPSW_HEADROOM_NA with cpdma_chan_idle_submit_mapped(...,
		// cpsw->rx_packet_max), and cpdma_chan_submit_si (davinci_cpdma.c)
		// syncs a pre-mapped buffer for the device with that length:
		// rx_packet_max defaults to CPSW_MAX_PACKET_SIZE, VLAN_ETH_FRAME_LEN +
		// ETH_FCS_LEN = 1522. cpsw_tx_handler frees skbs with
		// dev_kfree_skb_any.
		MaxLen: 0, Offset: 0, SubmitSync: 1522, RecycleFrom: "5.14", XDP: true, XDPDrop: XDPDropRecycleDirect, XDPDropFn: "cpsw_run_xdp",
		XDPTx: XDPTxReturnFrame, XDPTxFn: "cpsw_run_xdp → cpsw_xdp_tx_frame", XDPTxDoneFn: "cpsw_tx_handler → xdp_return_frame",
		Names:     map[sim.Sym]string{sim.SymDrvRx: "cpsw_rx_handler", sim.SymDrvXmit: "cpsw_ndo_start_xmit", sim.SymDrvTxClean: "cpsw_tx_handler"},
		Scenarios: []string{"drop", "tcp-stream", "forward", "xdp-drop", "xdp-tx", "clone-tap", "coalesce-mixed", "destroy", "pfmemalloc"}},
	{Name: "lunar", Platform: "lunar-mips", Buffer: PagePerFrame, RxDescs: 256,
		Doc:    "a work-in-progress 1G SoC NIC driver (32-bit MIPS; netif_receive_skb, no GRO — the model's choice): the pool maps and syncs for the device with max_len ≈ 1668 (MTU 1500 + headers), NAT forwarding maps each frame again for TX; TX completion with napi_consume_skb, and no pp.napi (its RX and TX completion share one NAPI, but as an out-of-tree driver it follows the in-tree SoC drivers it was written from, mvpp2 and mvneta, which never set it)",
		MaxLen: 1668, Offset: 64, SyncDev: true, RecycleFrom: "5.14", TxNapiConsume: true, OutOfTree: true,
		Names:     map[sim.Sym]string{sim.SymDrvRx: "lunar_rx_poll_page_pool", sim.SymDrvXmit: "lunar_start_xmit", sim.SymDrvTxClean: "lunar_tx_complete"},
		Scenarios: []string{"drop", "tcp-stream", "forward", "clone-tap", "coalesce-mixed", "destroy", "pfmemalloc", "generic-xdp", "devmem-rx"},
		// Out of tree, the model's choice: queue management ops and a
		// header-split payload pool with PP_FLAG_ALLOW_UNREADABLE_NETMEM
		// from 6.12, so devmem-rx runs in every era with providers; and,
		// as a driver with the queue API must (page_pool_check_memory_provider
		// looks for the queue's pool among the netdev's), its pools linked to
		// the netdev from 6.8, as bnxt's and mlx5's.
		QueueMgmtFrom: "6.12", UnreadableFrom: "6.12", NetdevFrom: "6.8"},
	{Name: "mlx5", Platform: "x86-server", Buffer: PagePerFrame, RxDescs: 1024,
		Doc: "Mellanox ConnectX (100G, x86-64): a page per packet with XDP (legacy RQ); XDP_REDIRECT to a veth; page_pool_nid_changed in the NAPI poll; before 6.4 its own RX page cache in front of the pool (mlx5e_rx_cache: 256 slots, a page reused once its refcount fell back to 1; rx_cache_reuse/full/empty/busy/waive), pages mapped by the driver and skbs not marked (page_ref_inc per skb); from 6.4 skb recycling through the pool, which maps the pages, and pp.napi; the split-page scenario is the model's construction, not mlx5's code",
		// mlx5e_alloc_rq: before 6.4 pp_params.flags = 0 (the driver maps
		// each page with dma_map_page in mlx5e_page_alloc_pool and syncs it
		// itself); from 6.4 PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV
		// (4a5c5e25008f "net/mlx5e: RX, Enable dma map and sync from
		// page_pool allocator", which also sets max_len = PAGE_SIZE);
		// pp_params.napi = rq->cq.napi from 6.4 (a880f814739c "net/mlx5e:
		// RX, Hook NAPIs to page pools"). TX completion: mlx5e_poll_tx_cq →
		// mlx5e_consume_skb → napi_consume_skb.
		MaxLen: mm.PageSize, Offset: 0, SyncDev: true, NapiBuildSkb: true, TxNapiConsume: true, PPNapiFrom: "6.4", NetdevFrom: "6.8", XDP: true, XDPDrop: XDPDropReuse, XDPDropFn: "mlx5e_xdp_handle", NidChanged: true, GRO: true,
		XDPTx: XDPTxRecycleDirect, XDPTxFn: "mlx5e_xdp_handle → mlx5e_xmit_xdp_buff", XDPTxDoneFn: "mlx5e_free_xdpsq_desc",
		XDPNdo: XDPNdoReturnBulk, XDPNdoFn: "mlx5e_xdp_xmit", XDPNdoDoneFn: "mlx5e_poll_xdpsq_cq → mlx5e_free_xdpsq_desc → xdp_return_frame_bulk",
		Ethtool: EthtoolMLX5,
		// The 6.4 series (Dragos Tatulea, net-next March 2023) removed the
		// driver's RX page cache ("net/mlx5e: RX, Remove internal
		// page_cache"), let the pool map the pages (4a5c5e25008f) and
		// marked skbs for recycling ("net/mlx5e: RX, Enable skb page
		// recycling through the page_pool", 6f5742846053). Before it the
		// driver recycled through mlx5e_rx_cache (mlx5cache.go) and never
		// marked an skb: its skb pages came back through the cache, or left
		// the pool when the cache refused them.
		RecycleFrom: "6.4", PoolDMAFrom: "6.4", RxCacheUntil: "6.4",
		Commits: map[string]string{"PPNapiFrom": "a880f814739c", "PoolDMAFrom": "4a5c5e25008f", "RecycleFrom": "6f5742846053"},
		// XDP_DROP: read in 7.3's en_rx.c (docs/era-7.3.md part 2 §k), the
		// dropped page's fragment goes back at the WQE refill, through the
		// pool's alloc cache. The frag_page counting it rests on is in
		// 6.6.y: a netdev report on 6.6.12 (Jan 2024,
		// <CAA85sZtZ9cL4g-SFSS-pTL11JocoOc4BAU7b4uj26MNckp41wQ@mail.gmail.com>)
		// shows mlx5e_post_rx_mpwqes → mlx5e_free_rx_mpwqe →
		// mlx5e_page_release_fragmented, and its older form puts the page
		// with page_pool_put_defragged_page(pool, page, -1, true), a 6.6
		// name. The commit is not pinned: 6.4 keeps the reuse in place.
		XDPDropRefillFrom: "6.6",
		Names:             map[sim.Sym]string{sim.SymDrvRx: "mlx5e_poll_rx_cq", sim.SymDrvXmit: "mlx5e_xmit", sim.SymDrvTxClean: "mlx5e_poll_tx_cq"},
		Scenarios:         []string{"drop", "tcp-stream", "forward", "xdp-redirect", "xdp-drop", "xdp-tx", "split-page", "clone-tap", "numa-migrate", "destroy", "pfmemalloc"},
		// mlx5's queue API and unreadable pools are v6.17 (the first
		// modelled era after it is 6.18): b2588ea40ec9 "net/mlx5e:
		// Implement queue mgmt ops and single channel swap" and
		// db3010bb5a01 "net/mlx5e: Add support for UNREADABLE netmem page
		// pools" (merged in 8152c4028cb8, series posted 16 Jun 2025), which
		// sets PP_FLAG_ALLOW_UNREADABLE_NETMEM only on SHAMPO RQs
		// (`if (test_bit(MLX5E_RQ_STATE_SHAMPO, &rq->state))`): HW-GRO with
		// header-data split, which the model's mlx5 (the legacy RQ) does
		// not implement. Before it the bind fails for want of the queue API.
		QueueMgmtFrom: "6.18", UnreadableFrom: "6.18",
		DevmemUnmodelled: "devmem needs mlx5's SHAMPO RQ (hardware GRO with header-data split: ethtool -K rx-gro-hw on and -G tcp-data-split on), the only RQ db3010bb5a01 creates with PP_FLAG_ALLOW_UNREADABLE_NETMEM (v6.17); the model's mlx5 runs the legacy RQ (a page per packet)"},
	{Name: "bnxt", Platform: "x86-server", Buffer: PagePerFrame, RxDescs: 511, // BNXT_DEFAULT_RX_RING_SIZE
		Doc: "Broadcom NetXtreme (x86-64). Before 6.6 (and with hw_gro=0 before 6.13) in XDP page mode, the only mode whose RX buffers come from page_pool then: a page per buffer, each consumed buffer replaced at once; an XDP program (XDP_PASS) runs on every frame; frames up to 256 bytes are copied and the buffer reused (bnxt_copy_skb, bnxt_reuse_rx_data), larger ones get napi_alloc_skb, a copy of their headers and the page as frags[0] (bnxt_rx_page_skb); hardware GRO off; marks skbs from 5.19. From 6.6 the normal path with hardware GRO (TPA, on by default): 256-byte head buffers that are not pool pages, payload in a page_pool-fed aggregation ring (4 × the RX ring), 33 segments per aggregate, 2 to a 4 KB buffer, every skb marked. From 6.13 the head buffers are pool fragments (640 bytes, six to a page; 1024, four to a page, from 6.15), but a head of up to 256 bytes is copied and its buffer reused, so the pool is not touched per frame; 7.3 copies nothing (rx_copybreak 0) and builds every skb over a head fragment. From 6.13 with hardware GRO off (hw_gro=0 or gro=0) and no XDP program, the normal path without an aggregation ring: every RX buffer a 2112-byte pool fragment (one to a page), a frame over the copybreak built over it (bnxt_rx_skb), one under it copied and its buffer reused. TX completion with dev_kfree_skb_any, napi_consume_skb from 6.19 (362a161b2582); pp.napi from 6.4, so NAPI-local direct recycling",
		// bnxt_alloc_rx_page_pool: PP_FLAG_DMA_MAP from 6.6 (below); pp.napi
		// = &bnapi->napi from 6.4 (294e39e0d034 "bnxt: hook NAPIs to page
		// pools", the patch that made the field). bnxt_tx_int frees skbs
		// with dev_kfree_skb_any (dev_consume_skb_any in later releases:
		// the same free, counted as consumed) until "eth: bnxt: make use of
		// napi_consume_skb()" (362a161b2582, v6.19; docs/kernel-review-
		// 6.13-7.3.md §3.2) passes the poll's budget to napi_consume_skb:
		// TxNapiConsumeFrom is that era.
		//
		// Page mode (bnxt_set_rx_skb_mode(bp, true), set by bnxt_xdp_set
		// when a program is attached, at MTU <= BNXT_MAX_PAGE_MODE_MTU):
		// bnxt_rx_pkt runs bnxt_rx_xdp on every frame, then copies a frame
		// of at most rx_copy_thresh (BNXT_RX_COPY_THRESH, 256) with
		// bnxt_copy_skb and gives the buffer back with bnxt_reuse_rx_data;
		// a larger one goes to bp->rx_skb_func = bnxt_rx_page_skb, which
		// refills the slot (bnxt_alloc_rx_data), unmaps the page, allocates
		// napi_alloc_skb(payload = eth_get_headlen), adds the page as
		// frags[0] and copies the headers into the head. Page mode clears
		// BNXT_FLAG_AGG_RINGS and netdev_update_features turns GRO_HW and
		// LRO off. Outside page mode the RX buffers before 6.6 are not
		// page_pool pages (kmalloc'd data and plain agg pages); from 6.6
		// the pool feeds the aggregation ring too ("bnxt_en: Use the
		// unified RX page pool buffers for XDP and non-XDP", 86b05508f775):
		// the model's bnxt runs that path from 6.6 (agg.go, below) and
		// page mode before it, and in its XDP scenarios.
		// 578fcfd26e2a "bnxt_en: Let the page pool manage the DMA mapping"
		// (v6.6, with PoolDMAFrom): pp.flags = PP_FLAG_DMA_MAP |
		// PP_FLAG_DMA_SYNC_DEV, pp.max_len = PAGE_SIZE, pp.offset unset
		// (0); DeviceSyncIn keeps the sync off before it.
		MaxLen: mm.PageSize, Offset: 0, SyncDev: true, RefillEach: true, NapiBuildSkb: true, HeadSplit: 256, HeadSplitFirst: mm.PageSize - 256 - 320, ReuseAlways: true, XDPPass: true,
		// The normal RX path from 6.6 (hw_gro=1, GRO_HW on by default:
		// bnxt_init_one adds NETIF_F_GRO_HW to dev->features when
		// BNXT_SUPPORTS_TPA): BNXT_FLAG_AGG_RINGS with TPA, so the head
		// buffers hold rx_copy_thresh (256) bytes (bnxt_set_ring_params)
		// and are napi_alloc_frag'd, not pool pages; the aggregation ring
		// (rx_agg_ring_size = rx_ring_size × agg_factor, agg_factor =
		// min(4, 65536 / BNXT_RX_PAGE_SIZE) = 4) is fed by the pool
		// (86b05508f775: pool_size = rx_agg_ring_size), and
		// bnxt_deliver_skb marks every skb. TPA: bnxt_hwrm_vnic_set_tpa
		// lets the chip place BNXT_RX_PAGE_SIZE / mss segments per 4 KB
		// buffer (2 of 1448 bytes) and aggregate ilog2((MAX_SKB_FRAGS -
		// 1) × that) in powers of two after the first: 33 per aggregate
		// at 1448 (Driver.tpaLimits; the pre-P5 chips' computation; a P5+
		// chip is asked for MAX_TPA_SEGS_P5 = 0x3f, and there the driver's
		// own ceiling is MAX_SKB_FRAGS aggregation buffers, bnxt_tpa_agg's
		// BUG_ON: the same 17 buffers, so the computation stands for both);
		// bnxt_tpa_end builds the skb from the head buffer and adds the
		// buffers as frags (bnxt_rx_agg_pages_skb).
		TPA: true, AggFrom: "6.6", AggFactor: 4, AggHead: 256, AggMaxRxDescs: 2047,
		// Heads from the pool from 6.13 (7ed816be35ab): the RX ring's
		// head buffers are pool fragments, filled at open (Driver.heads,
		// agg.go), a built head's slot refilled. With the copybreak at 256 (6.13 to at
		// least 7.1, not re-read per release) a head of up to 256 bytes
		// is copied and the pool is not touched per frame; 7.3 copies
		// none, and every head is a pool fragment.
		HeadPoolFrom: "6.13", HeadPoolBuf: 640, HeadPoolBufWide: 1024, HeadPoolBufWideFrom: "6.15", CopybreakZeroFrom: "7.3",
		// TPA contexts, each with a spare head fragment from 6.13; the
		// header-data split threshold from 6.15 (v6.14).
		MaxTPA: 256, HDSThreshWide: 640,
		HeadRingBuf: 2112, HeadRingRoom: 1536,
		PPNapiFrom: "6.4", NetdevFrom: "6.8", XDP: true, XDPDrop: XDPDropReuse, XDPDropFn: "bnxt_reuse_rx_data", GRO: true,
		XDPTx: XDPTxReuse, XDPTxFn: "bnxt_rx_xdp → __bnxt_xmit_xdp", XDPTxDoneFn: "bnxt_tx_int_xdp",
		XDPNdo: XDPNdoReturnFrame, XDPNdoFn: "bnxt_xdp_xmit → __bnxt_xmit_xdp_redirect", XDPNdoDoneFn: "bnxt_tx_int_xdp → xdp_return_frame",
		// bnxt_rx_page_skb called page_pool_release_page until "bnxt:
		// adding bnxt_xdp_build_skb to build skb from multibuffer
		// xdp_buff" (Gospodarek, net-next March 2022,
		// <1647759473-2414-10-git-send-email-michael.chan@broadcom.com>,
		// v5.19) replaced it with skb_mark_for_recycle; 6.1 is the model's
		// first era after it.
		RecycleFrom: "6.1",
		// "bnxt_en: Let the page pool manage the DMA mapping" (Aug 2023,
		// v6.6): before it bnxt_alloc_rx_page dma_map_page_attrs each page
		// and bnxt_rx_page_skb / bnxt_rx_skb unmapped it (578fcfd26e2a,
		// merged for v6.6).
		PoolDMAFrom:       "6.6",
		TxNapiConsumeFrom: "6.19",
		// 362a161b2582 "eth: bnxt: make use of napi_consume_skb()" (v6.19),
		// 7ed816be35ab "eth: bnxt: use page pool for head frags" (v6.13),
		// 578fcfd26e2a "bnxt_en: Let the page pool manage the DMA mapping"
		// (v6.6), 294e39e0d034 "bnxt: hook NAPIs to page pools" (v6.4):
		// each read beside its subject in a patchwork-bot reply, a Fixes:
		// line or the release's netdev pull.
		Commits:   map[string]string{"TxNapiConsumeFrom": "362a161b2582", "HeadPoolFrom": "7ed816be35ab", "PoolDMAFrom": "578fcfd26e2a", "PPNapiFrom": "294e39e0d034"},
		Names:     map[sim.Sym]string{sim.SymDrvRx: "bnxt_rx_pkt", sim.SymDrvXmit: "bnxt_start_xmit", sim.SymDrvTxClean: "bnxt_tx_int"},
		Scenarios: []string{"drop", "tcp-stream", "forward", "xdp-redirect", "xdp-drop", "xdp-tx", "clone-tap", "coalesce-mixed", "destroy", "pfmemalloc"},
		// bnxt_queue_mgmt_ops (David Wei, 2024; release not pinned, before
		// 6.12); rx devmem with its separate head pool: Taehee Yoo,
		// <20250408043545.2179381-1-ap420073@gmail.com>, net-next April
		// 2025, so 6.16 (applied commit id not verified).
		QueueMgmtFrom: "6.12", UnreadableFrom: "6.16",
		UnreadableWhy:    "bnxt's rx devmem (its agg ring as netmem, a separate head pool: <20250408043545.2179381-1-ap420073@gmail.com>) is 6.16 (applied commit id not verified)",
		DevmemUnmodelled: "the model's bnxt does not implement its 6.16 devmem RX path (the aggregation ring's net_iovs and the separate head pool, rxr->need_head_pool)"},
	{Name: "hns3", Platform: "arm64-server", Buffer: FragAPI, RxDescs: 1024,
		Doc: "HiSilicon HNS3 (Kunpeng arm64 server): the first PP_FLAG_PAGE_FRAG user — 2 KiB buffers from page_pool_alloc_frag; frames up to 256 bytes are copied into a small skb and the buffer reused in place, larger ones get their headers copied and the buffers added as page_pool frags of a marked skb (hns3_alloc_skb)",
		// hns3_alloc_page_pool: PP_FLAG_DMA_MAP | PP_FLAG_PAGE_FRAG |
		// PP_FLAG_DMA_SYNC_DEV, max_len = PAGE_SIZE << order, offset 0.
		// hns3_alloc_skb: napi_alloc_skb(HNS3_RX_HEAD_SIZE), copy or
		// eth_get_headlen + hns3_nic_reuse_page (torvalds/linux hns3_enet.c).
		// No pp.napi. TX completion: hns3_clean_tx_ring → hns3_nic_reclaim_desc
		// → hns3_free_buffer → napi_consume_skb(cb->priv, budget) ("net:
		// hns3: use napi_consume_skb() when cleaning tx desc", 2019).
		MaxLen: mm.PageSize, Offset: 0, SyncDev: true, HeadSplit: 256, TxNapiConsume: true, RecycleFrom: "5.15", GRO: true,
		Names:     map[sim.Sym]string{sim.SymDrvRx: "hns3_clean_rx_ring", sim.SymDrvXmit: "hns3_nic_net_xmit", sim.SymDrvTxClean: "hns3_clean_tx_ring"},
		Scenarios: []string{"drop", "tcp-stream", "forward", "split-page", "clone-tap", "destroy", "pfmemalloc", "generic-xdp"}},
}

// SpecByName resolves a driver name.
func SpecByName(name string) (*Spec, error) {
	return sim.ByName("driver", "driver", Specs, specName, name)
}

// Names lists the driver names.
func Names() []string { return sim.Names(Specs, specName) }

func specName(s *Spec) string { return s.Name }

// Runs reports whether the driver runs scenario sc.
func (s *Spec) Runs(sc string) bool {
	for _, x := range s.Scenarios {
		if x == sc {
			return true
		}
	}
	return false
}

// MinEra is the oldest era the driver model exists in: the frag API driver
// (hns3) needs the first era with the frag API (5.15).
func (s *Spec) MinEra() int {
	if s.Buffer == FragAPI {
		return fragAPIFrom.Order
	}
	return 0
}

// fragAPIFrom is the first era with page_pool_alloc_frag (Era.FragAPI).
var fragAPIFrom = sim.FirstEra(func(e *sim.Era) bool { return e.FragAPI })

// Marks reports whether the driver marks skbs for recycling in era e.
func (s *Spec) Marks(e *sim.Era) bool {
	if e.SkbRecycle == sim.SkbRecycleNone {
		return false
	}
	if e.NoReleasePageAPI {
		return true // page_pool_release_page is gone: every user marks
	}
	return since(s.RecycleFrom, e)
}

// TxConsumes reports whether the driver's TX completion frees skbs with
// napi_consume_skb in era e (TxNapiConsume, or from TxNapiConsumeFrom);
// otherwise with dev_kfree_skb_any.
func (s *Spec) TxConsumes(e *sim.Era) bool { return s.TxNapiConsume || since(s.TxNapiConsumeFrom, e) }

// LinksNAPI reports whether the driver sets page_pool_params.napi in era e
// (PPNapiFrom; the field exists from 6.4).
func (s *Spec) LinksNAPI(e *sim.Era) bool { return since(s.PPNapiFrom, e) }

// LinksNetdev reports whether the driver sets pp_params.netdev in era e
// (NetdevFrom).
func (s *Spec) LinksNetdev(e *sim.Era) bool { return since(s.NetdevFrom, e) }

// PoolMaps reports whether the driver's pool maps its pages (PP_FLAG_DMA_MAP)
// in era e; otherwise the driver maps and unmaps each RX buffer itself.
func (s *Spec) PoolMaps(e *sim.Era) bool { return s.PoolDMAFrom == "" || since(s.PoolDMAFrom, e) }

// HasRxCache reports whether the driver keeps its own RX page cache in era
// e (eras before RxCacheUntil, compared by order through since).
func (s *Spec) HasRxCache(e *sim.Era) bool { return s.RxCacheUntil != "" && !since(s.RxCacheUntil, e) }

// since reports whether era e is the era named from or a later one (""
// names none). A spec's era names are checked by TestSpecs_EraNamesResolve.
func since(from string, e *sim.Era) bool {
	if from == "" {
		return false
	}
	f, err := sim.EraByName(from)
	return err == nil && e.Order >= f.Order
}

// ProfileName is the symbol a profile of era e shows for s when this driver
// runs on platform p.
func (s *Spec) ProfileName(p *sim.Platform, e *sim.Era, sym sim.Sym) string {
	if n, ok := s.Names[sym]; ok {
		return n
	}
	return p.ProfileNameIn(sym, e)
}
