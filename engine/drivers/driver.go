// Package drivers models NIC drivers' RX/TX paths on top of page_pool and the
// skb layer (Driver, configured by a Spec per kernel driver) and the
// workloads that drive them (workload.go).
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
)

func (b BufferMode) String() string {
	return [...]string{"page-per-frame", "half-page-flip", "frag-api"}[b]
}

type desc struct {
	pg     *mm.Page
	off    int
	size   int
	posted bool
	// reuse: the frame was copied out and the driver keeps the buffer for
	// this descriptor's next refill (hns3 desc_cb->reuse_flag).
	reuse bool
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

	ring       []desc
	next, fill int // next descriptor the NIC fills, next one to refill
	posted     int
	polled     int // frames in the current NAPI poll

	Received, Dropped, Transmitted int64
}

// New creates the driver's page_pool (with the parameters its Spec takes from
// the kernel driver, as overridden by the knobs) and an RX ring of
// Spec.RxDescs descriptors (rx knob overrides are the caller's).
func New(st *skb.Stack, reg *pagepool.Registry, spec *Spec, mode BufferMode, napi *pagepool.NAPI, rxDescs int) (*Driver, error) {
	m := st.M
	e := m.Era
	if rxDescs < 2 || rxDescs%2 != 0 {
		return nil, fmt.Errorf("%s: RX ring size %d: want an even number >= 2", spec.Name, rxDescs)
	}
	if mode == FragAPI && !e.FragAPI {
		return nil, fmt.Errorf("%s: the frag API needs era 5.15 or later (era %s)", spec.Name, e.Name)
	}
	k := &m.Knobs
	p := pagepool.Params{Flags: pagepool.FlagDMAMap, Order: uint8(k[sim.KnobOrder]), PoolSize: rxDescs,
		Nid: int(k[sim.KnobNid]), DMADir: mm.DMAFromDevice, MaxLen: spec.MaxLen, Offset: spec.Offset, NAPI: napi}
	if mode != PagePerFrame && p.MaxLen < mm.PageSize {
		p.MaxLen = mm.PageSize // a split page is synced whole (only the last frag's put syncs)
	}
	if spec.NidChanged && p.Nid < 0 {
		p.Nid = m.NodeOf(napi.CPU) // mlx5: pp_params.nid = cpu_to_node(c->cpu)
	}
	if v := k[sim.KnobPoolSize]; v != 0 {
		p.PoolSize = int(v)
	}
	if v := k[sim.KnobMaxLen]; v != 0 {
		p.MaxLen = int(v)
	}
	if v := k[sim.KnobOffset]; v != 0 {
		p.Offset = int(v)
	}
	sync := spec.SyncDev
	if v := k[sim.KnobDMASyncDev]; v >= 0 {
		sync = v == 1
	}
	if sync {
		p.Flags |= pagepool.FlagDMASyncDev
	}
	if mode == FragAPI && e.FragFlag {
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
	d := &Driver{Spec: spec, S: st, Pool: pool, NAPI: napi, Mode: mode, ring: make([]desc, rxDescs), mark: spec.Marks(e)}
	st.AddHolder(d)
	return d, nil
}

// MarkWheneverPossible makes the driver mark skbs for recycling in every
// era that can recycle them: the split-page scenario shows what happens when
// a split-page driver does so before the frag API.
func (d *Driver) MarkWheneverPossible() {
	d.mark = d.S.M.Era.SkbRecycle != sim.SkbRecycleNone
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
		}
	}
}

// Posted is the number of descriptors the NIC may fill.
func (d *Driver) Posted() int { return d.posted }

// RingSize is the RX descriptor count.
func (d *Driver) RingSize() int { return len(d.ring) }

// ev emits an event; callers that format the explanation check Tracing first.
func (d *Driver) ev(fn sim.Sym, pg *mm.Page, from, to sim.Place, why string) {
	m := d.S.M
	if m.Tracing() {
		pfn := int32(-1)
		if pg != nil {
			pfn = pg.PFN
		}
		m.Emit(sim.Event{CPU: d.CPU(), Func: fn, Pool: d.Pool.ID, Page: pfn, From: from, To: to, Stat: sim.StatNone, Why: why})
	}
}

// BufSize is the size of one RX buffer.
func (d *Driver) BufSize() int {
	if d.Mode == PagePerFrame {
		return mm.PageSize << d.Pool.P.Order
	}
	return mm.PageSize / 2
}

// Room is the most frame bytes one RX buffer holds (headroom and the
// skb_shared_info tail taken off).
func (d *Driver) Room() int { return d.BufSize() - skb.ShinfoSize - skb.NetSkbPad }

func (d *Driver) post(pg *mm.Page, off, size int) {
	dd := &d.ring[d.fill]
	*dd = desc{pg: pg, off: off, size: size, posted: true}
	from := pg.Place
	pg.MoveTo(d.S.M, sim.PlaceNICRing, int32(d.fill))
	pg.Users++
	d.fill = (d.fill + 1) % len(d.ring)
	d.posted++
	if d.S.M.Tracing() {
		d.ev(sim.SymAllocPages, pg, from, sim.PlaceNICRing, fmt.Sprintf("RX refill: buffer at offset %d posted on the NIC ring (%s)", off, d.Mode))
	}
}

// repost gives the NIC back the buffer a descriptor kept (reuse): the
// driver's reference becomes the NIC's.
func (d *Driver) repost(dd *desc) {
	dd.reuse, dd.posted = false, true
	d.fill = (d.fill + 1) % len(d.ring)
	d.posted++
	if d.S.M.Tracing() {
		d.ev(sim.SymDrvRx, dd.pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("RX refill: the buffer at offset %d is reused as-is (its frame was copied out)", dd.off))
	}
}

// Refill posts buffers on every empty descriptor (the driver's RX refill in
// NAPI context). Returns the buffers posted; stops early if the pool fails.
func (d *Driver) Refill() int { return d.refill(len(d.ring)) }

func (d *Driver) refill(upTo int) int {
	n := 0
	half := mm.PageSize / 2
	cpu := d.CPU()
	for d.posted < upTo {
		if dd := &d.ring[d.fill]; dd.reuse { // hns3_reuse_buffer: no allocation
			d.repost(dd)
			n++
			continue
		}
		switch d.Mode {
		case PagePerFrame:
			pg := d.Pool.AllocPages(cpu)
			if pg == nil {
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
		}
	}
	return n
}

// Poll is called before each frame. At a poll boundary (every Budget frames:
// NAPI_POLL_WEIGHT) the previous poll ends — drivers that refill at the end
// of their poll refill the ring here — and the next begins (mlx5 checks the
// pool's NUMA node). It reports whether a new poll began.
func (d *Driver) Poll() bool {
	if d.polled > 0 && d.polled < Budget {
		return false
	}
	d.polled = 0
	d.NidChanged()
	if d.posted < len(d.ring) {
		d.S.M.Begin(d.CPU(), sim.SymAllocPages)
		d.Refill()
	}
	return true
}

// NidChanged models the mlx5 poll's check: if the pool's nid is not this
// CPU's node, page_pool_nid_changed (update_nid). It reports whether it ran.
func (d *Driver) NidChanged() bool {
	if !d.Spec.NidChanged {
		return false
	}
	if node := d.S.M.NodeOf(d.CPU()); d.Pool.P.Nid != node && d.Pool.P.Nid >= 0 {
		d.S.M.Begin(d.CPU(), sim.SymUpdateNid)
		d.Pool.NidChanged(d.CPU(), node)
		return true
	}
	return false
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
	m.Charge(cpu, sim.SymDrvRx, 0)
	d.polled++
	need := 1
	switch room := d.Room(); {
	case d.Spec.HeadSplit > 0: // no build_skb: a buffer is all frame data
		need = max(1, (length+d.BufSize()-1)/d.BufSize())
	case length > room:
		need = 1 + (length-room+d.BufSize()-1)/d.BufSize()
	}
	if d.posted < need {
		d.Dropped++
		if m.Tracing() {
			d.ev(sim.SymDrvRx, nil, sim.PlaceNone, sim.PlaceNone, "no RX buffer posted: the NIC drops the frame")
		}
		return nil, nil
	}
	var sk *skb.SKB
	var err error
	if d.Spec.HeadSplit > 0 {
		sk, err = d.receiveHeadSplit(length, hdr)
	} else {
		sk, err = d.receiveBuild(length)
	}
	if err == nil && d.Spec.RefillEach {
		d.refill(len(d.ring))
	}
	return sk, err
}

// receiveBuild: build_skb/napi_build_skb over the first buffer, the next
// buffers of a multi-buffer frame as frags.
func (d *Driver) receiveBuild(length int) (*skb.SKB, error) {
	cpu := d.CPU()
	headLen := min(length, d.Room())
	pg, off, size := d.take(headLen)
	if !d.mark {
		if err := d.Pool.ReleasePage(cpu, pg); err != nil {
			return nil, err
		}
	}
	sk, err := d.S.BuildSKB(cpu, pg, off, size, headLen, d.Spec.NapiBuildSkb)
	if err != nil {
		return nil, err
	}
	if d.mark {
		if err := d.S.MarkForRecycle(cpu, sk, pg, d.Pool); err != nil {
			return nil, err
		}
	}
	for rest := length - headLen; rest > 0; {
		n := min(rest, d.BufSize())
		fpg, foff, fsize := d.take(n)
		if err := d.addRxBuffer(sk, fpg, foff, n, fsize); err != nil {
			return nil, err
		}
		rest -= n
	}
	return sk, nil
}

// addRxBuffer adds size bytes at off of a received buffer to sk as a frag
// (skb_add_rx_frag): the page is marked with its pool
// (page_pool_store_mem_info) when the driver marks skbs, released from the
// pool (page_pool_release_page) when it does not.
func (d *Driver) addRxBuffer(sk *skb.SKB, pg *mm.Page, off, size, truesize int) error {
	cpu := d.CPU()
	if d.mark {
		d.S.StoreMemInfo(pg, d.Pool)
	} else if err := d.Pool.ReleasePage(cpu, pg); err != nil {
		return err
	}
	return d.S.AddRxFrag(cpu, sk, pg, off, size, truesize)
}

// receiveHeadSplit models hns3_alloc_skb and hns3_add_frag (hns3_enet.c):
// the driver allocates a small linear skb, napi_alloc_skb(HNS3_RX_HEAD_SIZE).
//   - A frame that fits is copied into it, and the RX buffer is reused as-is
//     for the descriptor's next refill when dev_page_is_reusable (local node,
//     not pfmemalloc); otherwise page_pool_put_full_page returns it. The pool
//     never sees the reused buffers.
//   - A larger frame: the skb is marked for recycling, the headers
//     (eth_get_headlen) are copied into the head and the rest of each buffer
//     is added as a page_pool frag (skb_add_rx_frag). Once the protocols have
//     pulled their headers such an skb has no linear data: page_pool memory
//     only in frags, the shape whose coalescing the 2022 fix [M4] is about.
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
		pg, _, _ := d.take(length)
		if pg.Nid == int8(m.NodeOf(cpu)) && !pg.Pfmemalloc() { // dev_page_is_reusable
			d.keepForReuse()
		} else {
			m.Begin(cpu, sim.SymPutPage)
			d.putBuffer(pg)
		}
		return sk, nil
	}
	if d.mark {
		if err := d.S.MarkForRecycle(cpu, sk, nil, nil); err != nil {
			return nil, err
		}
	}
	for off := 0; off < length; off += d.BufSize() {
		n := min(length-off, d.BufSize())
		pg, boff, bsize := d.take(n)
		skip := 0
		if off == 0 {
			skip = pull // the headers were copied into the linear part
		}
		if err := d.addRxBuffer(sk, pg, boff+skip, n-skip, bsize); err != nil {
			return nil, err
		}
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
func (d *Driver) putBuffer(pg *mm.Page) {
	if d.Mode == FragAPI {
		d.Pool.PutPage(d.CPU(), pg, -1, false)
	} else {
		d.Pool.PutFullPage(d.CPU(), pg, false)
	}
}

// take consumes the next posted descriptor holding n bytes of the frame.
func (d *Driver) take(n int) (*mm.Page, int, int) {
	m := d.S.M
	cpu := d.CPU()
	dd := &d.ring[d.next]
	pg := dd.pg
	if pg.Place == sim.PlaceCache || pg.Place == sim.PlaceRing || pg.Place == sim.PlaceBuddy {
		// The buffer was recycled (or freed) under the NIC's feet: the DMA
		// lands in a page someone else may already own.
		pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
			"the NIC DMAs a frame into a buffer whose page sits in %s: it was recycled while posted", pg.Place)
	}
	if m.Tracing() {
		d.ev(sim.SymSyncForCPU, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("the NIC wrote %d bytes at offset %d", n, dd.off))
	}
	if pg.Mapped {
		d.S.A.DMA.SyncForCPU(cpu, pg, dd.off, n, mm.DMAFromDevice)
	}
	dd.posted = false
	d.posted--
	d.next = (d.next + 1) % len(d.ring)
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

// Unload models the driver's teardown of the queue (ndo_stop): the posted RX
// buffers go back to the pool (page_pool_put_full_page in NAPI-disabled
// context), then xdp_rxq_info_unreg → page_pool_destroy. Pages still held
// by skbs keep the pool alive (deferred release).
func (d *Driver) Unload() {
	cpu := d.CPU()
	m := d.S.M
	for i := range d.ring {
		dd := &d.ring[i]
		if !dd.posted && !dd.reuse {
			continue
		}
		if dd.posted {
			d.posted--
		}
		dd.posted, dd.reuse = false, false
		pg := dd.pg
		pg.Users--
		if d.Mode == HalfPageFlip && pg.Users > 0 {
			continue // the other half (posted or in an skb) still owns the page's one reference
		}
		m.Begin(cpu, sim.SymPutPage)
		d.putBuffer(pg)
	}
	d.NAPI.Complete()
	m.Begin(cpu, sim.SymPoolDestroy)
	d.Pool.Destroy(cpu)
}

// Descs calls fn on every RX descriptor in ring order: its buffer (nil if it
// never had one), the buffer's offset and size, whether it is posted for the
// NIC and whether the driver keeps its buffer for reuse.
func (d *Driver) Descs(fn func(i int, pg *mm.Page, off, size int, posted, reuse bool)) {
	for i := range d.ring {
		dd := &d.ring[i]
		fn(i, dd.pg, dd.off, dd.size, dd.posted, dd.reuse)
	}
}

// RingIndexes are the next descriptor the NIC fills and the next one the
// driver refills.
func (d *Driver) RingIndexes() (next, fill int) { return d.next, d.fill }
