// Package drivers models NIC drivers' paths on top of page_pool and the skb
// layer: a Driver (one RX queue and its TX queue) configured by a Spec per
// kernel driver. The paths stand apart: the queue and its ring (driver.go),
// RX buffers and receive (rx.go), the NAPI poll and its CPU (napi.go), TX
// mappings (tx.go), the XDP path (xdp.go). The traffic and the application
// that drive a driver are engine/workload's.
package drivers

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// BufferMode is how the driver carves RX buffers out of pages.
type BufferMode uint8

const (
	// PagePerFrame: one page per RX descriptor.
	PagePerFrame BufferMode = iota
	// HalfPageFlip: the old split-page trick (ixgbe/i40e style): each page
	// feeds two descriptors (offset 0 and PAGE_SIZE/2). The NIC holds no page
	// reference; the driver takes one (get_page) only when the second half
	// goes up the stack while the first is still there.
	HalfPageFlip
	// FragAPI: each descriptor gets a half-page fragment from
	// page_pool_alloc_frag (v5.15 hns3 style): pp_frag_count counts them.
	FragAPI
	// HeadFrags: each descriptor gets a fragment of Spec.HeadRingBuf bytes
	// from page_pool_alloc_frag, a frame over the copybreak is built over
	// it and the slot gets a new one, one under it is copied and the buffer
	// reused (bnxt's normal RX path without an aggregation ring from 6.13,
	// 7ed816be35ab: Spec.HeadRing).
	HeadFrags
)

func (b BufferMode) String() string {
	return [...]string{"page-per-frame", "half-page-flip", "frag-api", "head-frags"}[b]
}

// frags reports whether the mode's buffers are page_pool fragments
// (page_pool_alloc_frag): a buffer given back is one fragment's share.
func (b BufferMode) frags() bool { return b == FragAPI || b == HeadFrags }

type desc struct {
	pg     *mm.Page
	off    int
	size   int
	posted bool
	// reuse: the frame was copied out and the driver keeps the buffer for
	// this descriptor's next refill (hns3 desc_cb->reuse_flag).
	reuse bool
	// held: the driver put a buffer back on this descriptor (bnxt's XDP_TX:
	// bnxt_reuse_rx_data), but the NIC may not fill it before the RX
	// doorbell, which the frame's TX completion writes (RxDoorbell).
	held bool
}

// Driver is one RX queue of a NIC driver (and its TX queue): an RX
// descriptor ring the NIC DMAs frames into, refilled from the queue's
// page_pool in NAPI context, frames handed to the stack as skbs built over
// the buffer and, per era, marked for recycling or released from the pool.
//
// Caller's contract: like NAPI, a Driver is driven by one goroutine; RX runs
// on NAPI.CPU.
type Driver struct {
	Spec *Spec
	S    *skb.Stack
	Pool *pagepool.Pool
	NAPI *pagepool.NAPI
	Mode BufferMode

	mark bool // skb_mark_for_recycle (else page_pool_release_page), fixed per era
	agg  bool // the normal RX path with a page_pool-fed aggregation ring (Spec.AggMode); the ring is that ring
	tpa  tpaState
	// heads is the RX ring's head buffers on the path with an aggregation
	// ring from HeadPoolFrom (7ed816be35ab): each a page_pool fragment of
	// Spec.HeadBuf bytes, filled at open; headNext the slot the next frame
	// (or TPA aggregation) takes. nil when the heads are not pool memory.
	heads    []headSlot
	headNext int
	// spares is the TPA contexts' spare head buffers (tpa_info->data,
	// Spec.MaxTPA of them, filled at open from HeadPoolFrom; at ring sizes
	// below MaxTPA, the teaching sizes, one per RX descriptor, so that the
	// small machine is not mostly spares). The one flow's aggregations
	// all use context 0 (a P5 chip's agg_id maps to the lowest free
	// index, bnxt_alloc_agg_idx), so the others sit on the driver the
	// whole run, as in the kernel.
	spares  []headSlot
	selfMap bool // the driver maps and unmaps each RX buffer (its pool has no PP_FLAG_DMA_MAP)

	// cache is the driver's own RX page cache (Spec.RxCacheUntil; nil in
	// eras without it, and for split pages); pending are the pages of the
	// frames received whose RX slot the driver has not released yet
	// (mlx5cache.go).
	cache   *rxCache
	pending []*mm.Page

	// headPg is the head page of the frame being received whose release
	// or mark waits for the RX refill (Spec.RefillEach: mvpp2_rx refills
	// between build_skb and page_pool_release_page / skb_mark_for_recycle);
	// nil between operations.
	headPg *mm.Page

	ring       []desc
	next, fill int // next descriptor the NIC fills, next one to refill
	posted     int
	// held: descriptors refilled but not yet given to the NIC (desc.held),
	// the ones right after the posted ones: the ring runs next… posted,
	// then held, then empty up to next again.
	held   int
	polled int // frames in the current NAPI poll

	// The RX buffer's geometry, fixed at New (the buffer mode, the pool's
	// order and the platform's skb_shared_info do not change): BufSize,
	// Room, and whether a frame that fits Room needs one descriptor
	// (plain: neither an aggregation ring nor header split). Read per
	// frame, computed once.
	bufSize, room int
	plain         bool

	Received, Dropped, Transmitted int64 `pp:"counter"`
	// Missed: frames the NIC dropped because too few RX descriptors were
	// posted (part of Dropped): rtnl_link_stats64.rx_missed_errors, which
	// mlx5 fills from its rx_out_of_buffer counter.
	Missed      int64 `pp:"counter"`
	Completions int64 `pp:"counter"` // napi_complete_done calls (polls that ended short)
}

// New creates the driver's page_pool (with the parameters its Spec takes from
// the kernel driver, as overridden by the knobs) and an RX ring of
// Spec.RxDescs descriptors (rx knob overrides are the caller's). agg: the
// driver runs its normal RX path with a page_pool-fed aggregation ring
// (Spec.AggMode): the ring the model keeps is the aggregation ring,
// rxDescs × Spec.AggFactor buffers, and the pool is sized for it.
func New(st *skb.Stack, reg *pagepool.Registry, spec *Spec, mode BufferMode, napi *pagepool.NAPI, rxDescs int, agg bool) (*Driver, error) {
	headSlots := rxDescs // the RX ring (its head buffers); the model's ring is the aggregation ring below
	if agg {
		if !spec.TPA || mode != PagePerFrame {
			return nil, fmt.Errorf("%s: no aggregation-ring RX path in the model (buffer mode %s)", spec.Name, mode)
		}
		rxDescs *= spec.AggFactor // rx_agg_ring_size; pp.pool_size = rx_agg_ring_size (86b05508f775)
	}
	m := st.M
	e := m.Era
	if mode == HeadFrags && (spec.HeadRingBuf == 0 || !since(spec.HeadPoolFrom, e)) {
		return nil, fmt.Errorf("%s: no head ring of page_pool fragments in era %s (buffer mode %s)", spec.Name, e.Name, mode)
	}
	if rxDescs < 2 || (mode != PagePerFrame && mode != HeadFrags && rxDescs%2 != 0) {
		return nil, fmt.Errorf("%s: RX ring size %d: want an even number >= 2 (the %s buffers come two to a page)", spec.Name, rxDescs, mode)
	}
	if mode.frags() && !e.FragAPI {
		return nil, fmt.Errorf("%s: the frag API needs era 5.15 or later (era %s)", spec.Name, e.Name)
	}
	k := &m.Knobs
	sync, offset, maxLen := spec.DeviceSyncIn(e, mode, k)
	selfMap := !spec.PoolMaps(e)
	useCache := spec.HasRxCache(e)
	if useCache && mode != PagePerFrame {
		// Split pages (the split-page scenario) are the model's
		// construction, not the cache driver's code: before 6.4 mlx5 split
		// its pages with page_ref_inc per fragment behind its cache and
		// never marked skbs. The construction runs without the driver's
		// cache, on a pool that maps (see the scenario's doc).
		useCache, selfMap = false, false
	}
	if selfMap && mode != PagePerFrame {
		return nil, fmt.Errorf("%s: a driver that maps its own RX buffers (before era %s) is modelled with a page per frame only (buffer mode %s)", spec.Name, spec.PoolDMAFrom, mode)
	}
	p := pagepool.Params{Flags: pagepool.FlagDMAMap, Order: uint8(k[sim.KnobOrder]), PoolSize: rxDescs,
		Nid: int(k[sim.KnobNid]), DMADir: mm.DMAFromDevice, MaxLen: maxLen, Offset: offset}
	if v := k[sim.KnobPPNapi]; v == 1 || v == -1 && spec.LinksNAPI(e) {
		p.NAPI = napi // pp_params.napi: opt-in (Spec.PPNapiFrom; pp_napi overrides)
	}
	p.Netdev = spec.LinksNetdev(e) // pp_params.netdev: opt-in (Spec.NetdevFrom)
	if spec.NidChanged && p.Nid < 0 {
		p.Nid = m.NodeOf(napi.CPU) // mlx5: pp_params.nid = cpu_to_node(c->cpu)
	}
	if v := k[sim.KnobPoolSize]; v != 0 {
		p.PoolSize = int(v)
	}
	if selfMap {
		p.Flags &^= pagepool.FlagDMAMap
	}
	if sync {
		p.Flags |= pagepool.FlagDMASyncDev
	}
	if mode.frags() && e.FragFlag {
		p.Flags |= pagepool.FlagPageFrag
	}
	pool, err := reg.Create(napi.CPU, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if e.SkbRecycle == sim.SkbRecycleRFC {
		reg.RegMemModel(pool) // xdp_rxq_info_reg_mem_model(MEM_TYPE_PAGE_POOL)
	}
	napi.Schedule()
	d := &Driver{Spec: spec, S: st, Pool: pool, NAPI: napi, Mode: mode, ring: make([]desc, rxDescs), mark: spec.Marks(e), selfMap: selfMap, agg: agg}
	d.bufSize = mm.PageSize / 2
	if mode == PagePerFrame {
		d.bufSize = mm.PageSize << pool.P.Order
	}
	d.room = d.bufSize - st.Shinfo() - skb.NetSkbPad
	d.plain = !agg && spec.HeadSplit == 0
	if mode == HeadFrags {
		d.bufSize, d.room, d.plain = spec.HeadRingBuf, spec.HeadRingRoom, true
	}
	if agg {
		d.tpa.bufs = make([]tpaBuf, 0, skb.MaxSkbFrags)
		if spec.HeadPool(e) {
			d.heads = make([]headSlot, headSlots)
			d.spares = make([]headSlot, min(spec.MaxTPA, headSlots))
		}
	}
	if useCache {
		d.cache = &rxCache{}
		d.pending = make([]*mm.Page, 0, 4)
	}
	st.AddHolder(d)
	return d, nil
}

// DeviceSync is how the driver's pool syncs RX buffers for the device:
// PP_FLAG_DMA_SYNC_DEV, page_pool_params.offset and max_len, from the
// kernel driver's values and the knobs over them. A split page is synced
// whole (only the last fragment's put syncs it).
func (s *Spec) DeviceSync(mode BufferMode, k *sim.Knobs) (sync bool, offset, maxLen int) {
	sync, offset, maxLen = s.SyncDev, s.Offset, s.MaxLen
	if mode != PagePerFrame && maxLen < mm.PageSize {
		maxLen = mm.PageSize
	}
	if v := k[sim.KnobMaxLen]; v != 0 {
		maxLen = int(v)
	}
	if v := k[sim.KnobOffset]; v != 0 {
		offset = int(v)
	}
	if v := k[sim.KnobDMASyncDev]; v >= 0 {
		sync = v == 1
	}
	if sync && maxLen == 0 {
		maxLen = mm.PageSize - offset // the flag forced on a driver that sets no max_len: the page past the offset
	}
	return sync, offset, maxLen
}

// DeviceSyncIn is DeviceSync in era e: a driver whose pool does not map in
// e (PoolDMAFrom) does not ask it to sync either (PP_FLAG_DMA_SYNC_DEV
// needs PP_FLAG_DMA_MAP: mlx5 before 6.4 sets neither), unless the
// dma_sync_dev knob says otherwise (which the lab refuses there).
func (s *Spec) DeviceSyncIn(e *sim.Era, mode BufferMode, k *sim.Knobs) (sync bool, offset, maxLen int) {
	sync, offset, maxLen = s.DeviceSync(mode, k)
	if !s.PoolMaps(e) && k[sim.KnobDMASyncDev] < 0 {
		sync = false
	}
	return sync, offset, maxLen
}

// MarkWheneverPossible makes the driver mark skbs for recycling in every
// era that can recycle them: the split-page scenario shows what happens when
// a split-page driver does so before the frag API.
func (d *Driver) MarkWheneverPossible() {
	d.mark = d.S.M.Era.SkbRecycle != sim.SkbRecycleNone
	if d.mark && d.cache != nil {
		panic("drivers: MarkWheneverPossible on a driver with its own RX page cache (the split-page construction runs without it)")
	}
}

// CPU is the CPU the driver's NAPI runs on.
func (d *Driver) CPU() int { return d.NAPI.CPU }

// HeldPages reports the buffers posted on the RX ring (the NIC will write
// them) and the buffers kept for reuse on a descriptor.
func (d *Driver) HeldPages(v skb.PageVisitor) {
	for i := range d.ring {
		switch dd := &d.ring[i]; {
		case dd.posted:
			v.HeldPage(dd.pg, dd.off, dd.size, "a posted NIC RX descriptor")
		case dd.reuse:
			v.HeldPage(dd.pg, dd.off, dd.size, "an RX buffer the driver keeps for reuse")
		case dd.held:
			v.HeldPage(dd.pg, dd.off, dd.size, "an RX buffer put back after XDP_TX, waiting for the RX doorbell")
		}
	}
	for i := range d.tpa.bufs {
		b := &d.tpa.bufs[i]
		v.HeldPage(b.pg, b.off, b.size, "an aggregation buffer the NIC fills for the TPA aggregation in progress")
	}
	for k, hs := range [...][]headSlot{d.heads, d.spares} {
		for i := range hs {
			if h := &hs[i]; h.pg != nil {
				v.HeldPage(h.pg, h.off, d.Spec.HeadBuf(d.S.M.Era), heldWhat[k])
			}
		}
	}
}

// heldWhat names the held head fragments: [0] a head slot's, [1] a TPA
// context's spare (constant strings: the checker's visit allocates
// nothing).
var heldWhat = [2]string{"a posted RX head buffer (a page_pool fragment)", "a TPA context's spare head buffer (tpa_info->data, a page_pool fragment)"}

// Posted is the number of descriptors the NIC may fill.
func (d *Driver) Posted() int { return d.posted }

// RingSize is the RX descriptor count.
func (d *Driver) RingSize() int { return len(d.ring) }

// ev emits an event; callers that format the explanation check Tracing
// first. The guard inlines: untraced runs pay a load and a branch.
func (d *Driver) ev(fn sim.Sym, pg *mm.Page, from, to sim.Place, why string) {
	if d.S.M.Tracing() {
		d.evSlow(fn, pg, from, to, why)
	}
}

func (d *Driver) evSlow(fn sim.Sym, pg *mm.Page, from, to sim.Place, why string) {
	pfn := int32(-1)
	if pg != nil {
		pfn = pg.PFN
	}
	d.S.M.Emit(sim.Event{CPU: d.CPU(), Func: fn, Pool: d.Pool.ID, Page: pfn, From: from, To: to, Stat: sim.StatNone, Why: why})
}

// BufSize is the size of one RX buffer: a page of the pool's order per
// frame, half a page for a split page (computed at New).
func (d *Driver) BufSize() int { return d.bufSize }

// Unload models the driver's teardown of the queue (ndo_stop) and its
// remove: the posted RX buffers go back to the pool
// (page_pool_put_full_page in NAPI-disabled context), then
// xdp_rxq_info_unreg → page_pool_destroy, then the device is unbound
// (device_release_driver). Pages still held by skbs keep the pool alive
// (deferred release), not the device.
func (d *Driver) Unload() { d.UnloadOn(d.CPU()) }

// UnloadOn is Unload run from process context on cpu (an unbind written
// from a shell there): ndo_stop's puts, page_pool_destroy — whose release
// work is queued there — and the unbind run on cpu; the RX slots the last
// poll still held are released first, by that poll, on the NAPI's CPU.
func (d *Driver) UnloadOn(cpu int) {
	m := d.S.M
	d.releaseRx()
	for i := range d.tpa.bufs { // an aggregation in progress: its buffers go back with the ring's
		b := &d.tpa.bufs[i]
		b.pg.Users--
		m.Begin(cpu, sim.SymPutPage)
		d.putBufferOn(cpu, b.pg)
		d.tpa.bufs[i] = tpaBuf{}
	}
	d.tpa.bufs, d.tpa.segs = d.tpa.bufs[:0], 0
	// The head ring's fragments and the TPA contexts' spares
	// (bnxt_free_rx_skbs, bnxt_free_one_tpa_info_data: page_pool_free_va).
	for _, hs := range [...][]headSlot{d.heads, d.spares} {
		for i := range hs {
			h := &hs[i]
			if h.pg == nil {
				continue
			}
			h.pg.Users--
			m.Begin(cpu, sim.SymPutPage)
			d.Pool.PutPage(cpu, h.pg, -1, false)
			*h = headSlot{}
		}
	}
	for i := range d.ring {
		dd := &d.ring[i]
		if !dd.posted && !dd.reuse && !dd.held {
			continue
		}
		if dd.posted {
			d.posted--
		}
		if dd.held {
			d.held--
		}
		dd.posted, dd.reuse, dd.held = false, false, false
		pg := dd.pg
		if d.cache != nil {
			// mlx5e_free_rx_descs → mlx5e_dealloc_rx_wqe →
			// mlx5e_free_rx_wqe(rq, wi, false): the page leaves the pool.
			pg.Users--
			d.releaseDynamic(cpu, pg, false)
			continue
		}
		if d.selfMap && pg.Mapped {
			d.S.A.DMA.UnmapPage(cpu, pg, d.BufSize(), mm.DMAFromDevice)
		}
		pg.Users--
		if d.Mode == HalfPageFlip && pg.Users > 0 {
			continue // the other half (posted or in an skb) still owns the page's one reference
		}
		m.Begin(cpu, sim.SymPutPage)
		d.putBufferOn(cpu, pg)
	}
	if d.cache != nil {
		d.drainRxCache(cpu) // mlx5e_free_rq, before page_pool_destroy
	}
	d.NAPI.Complete()
	if m.Era.SkbRecycle == sim.SkbRecycleRFC {
		// The queue's xdp_rxq_info_unreg → xdp_rxq_info_unreg_mem_model
		// calls page_pool_destroy for the mem model's user reference
		// (RegMemModel's page_pool_use_xdp_mem); the driver's own
		// page_pool_destroy below is the last one.
		m.Begin(cpu, sim.SymPoolDestroy)
		d.Pool.UnregMemModel(cpu)
	}
	m.Begin(cpu, sim.SymPoolDestroy)
	d.Pool.Destroy(cpu)
	// The driver's remove is done: the device is unbound. Every DMA API
	// call the driver makes itself (its RX and TX unmaps) came before; a
	// page still in flight that its pool unmaps later uses a gone device
	// (mm.DMA.Unbind), unless the pool scrubbed its mappings (6.16).
	m.Begin(cpu, sim.SymDeviceUnbind)
	d.S.A.DMA.Unbind(cpu)
}

// Descs calls fn on every RX descriptor in ring order: its buffer (nil if it
// never had one), the buffer's offset and size, whether it is posted for the
// NIC and whether the driver keeps its buffer for reuse (a buffer put back
// that waits for the RX doorbell is kept for reuse too).
func (d *Driver) Descs(fn func(i int, pg *mm.Page, off, size int, posted, reuse bool)) {
	for i := range d.ring {
		dd := &d.ring[i]
		fn(i, dd.pg, dd.off, dd.size, dd.posted, dd.reuse || dd.held)
	}
}

// RingIndexes are the next descriptor the NIC fills and the next one the
// driver refills.
func (d *Driver) RingIndexes() (next, fill int) { return d.next, d.fill }
