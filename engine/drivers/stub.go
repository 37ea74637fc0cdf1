// Package drivers models NIC drivers' RX/TX paths on top of page_pool and the
// skb layer. Stub is the generic driver that stands in until the real driver
// models (mvpp2, mvneta, cpsw, lunar, mlx5, bnxt, hns3) land.
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
	// FragAPI: each descriptor gets a fragment from page_pool_alloc_frag
	// (v5.15 hns3 style): pp_frag_count counts the halves.
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
}

// Stub is a generic NIC driver: an RX descriptor ring the NIC DMAs frames
// into, refilled from a page_pool, handing frames to the stack as skbs built
// over the buffer (napi_build_skb) and marked for recycling per era.
type Stub struct {
	S    *skb.Stack
	Pool *pagepool.Pool
	NAPI *pagepool.NAPI
	CPU  int
	Mode BufferMode

	ring       []desc
	next, fill int // next descriptor the NIC fills, next one to refill
	posted     int

	Received, Dropped int64
}

// NewStub builds a driver with ringSize RX descriptors on pool, its NAPI on
// napi.CPU. The pool must support the mode (FragAPI needs the frag API).
func NewStub(st *skb.Stack, pool *pagepool.Pool, napi *pagepool.NAPI, ringSize int, mode BufferMode) (*Stub, error) {
	if ringSize < 2 || ringSize%2 != 0 {
		return nil, fmt.Errorf("driver stub: RX ring size %d: want an even number >= 2", ringSize)
	}
	e := st.M.Era
	if mode == FragAPI && !e.FragAPI {
		return nil, fmt.Errorf("driver stub: the frag API needs era 5.15 or later (era %s)", e.Name)
	}
	d := &Stub{S: st, Pool: pool, NAPI: napi, CPU: napi.CPU, Mode: mode, ring: make([]desc, ringSize)}
	st.AddHolder(d)
	return d, nil
}

// HeldPages reports the buffers posted on the RX ring (the NIC will write them).
func (d *Stub) HeldPages(fn func(pg *mm.Page, off, size int, what string)) {
	for i := range d.ring {
		if dd := &d.ring[i]; dd.posted {
			fn(dd.pg, dd.off, dd.size, "a posted NIC RX descriptor")
		}
	}
}

// Posted is the number of descriptors the NIC may fill.
func (d *Stub) Posted() int { return d.posted }

// ev emits an event; callers that format the explanation check Tracing first.
func (d *Stub) ev(fn sim.Sym, pg *mm.Page, from, to sim.Place, why string) {
	m := d.S.M
	if m.Tracing() {
		pfn := int32(-1)
		if pg != nil {
			pfn = pg.PFN
		}
		m.Emit(sim.Event{CPU: d.CPU, Func: fn, Pool: d.Pool.ID, Page: pfn, From: from, To: to, Stat: sim.StatNone, Why: why})
	}
}

func (d *Stub) post(pg *mm.Page, off, size int) {
	dd := &d.ring[d.fill]
	*dd = desc{pg: pg, off: off, size: size, posted: true}
	from := pg.Place
	pg.MoveTo(sim.PlaceNICRing, int32(d.fill))
	pg.Users++
	d.fill = (d.fill + 1) % len(d.ring)
	d.posted++
	if d.S.M.Tracing() {
		d.ev(sim.SymAllocPages, pg, from, sim.PlaceNICRing, fmt.Sprintf("RX refill: buffer at offset %d posted on the NIC ring (%s)", off, d.Mode))
	}
}

// Refill posts buffers on every empty descriptor (the driver's RX refill in
// NAPI context). Returns the buffers posted; stops early if the pool fails.
func (d *Stub) Refill() int {
	n := 0
	half := mm.PageSize / 2
	for d.posted < len(d.ring) {
		switch d.Mode {
		case PagePerFrame:
			pg := d.Pool.AllocPages(d.CPU)
			if pg == nil {
				return n
			}
			d.post(pg, 0, mm.PageSize)
			n++
		case HalfPageFlip:
			if len(d.ring)-d.posted < 2 {
				return n
			}
			pg := d.Pool.AllocPages(d.CPU)
			if pg == nil {
				return n
			}
			d.post(pg, 0, half)
			d.post(pg, half, half)
			n += 2
		case FragAPI:
			pg, off := d.Pool.AllocFrag(d.CPU, half)
			if pg == nil {
				return n
			}
			d.post(pg, off, half)
			n++
		}
	}
	return n
}

// Receive models the NIC filling the next posted descriptor with a frame of
// length bytes and the driver's NAPI poll turning it into an skb: DMA sync
// for the CPU, napi_build_skb over the buffer, and the era's recycling mark
// (before 5.14: page_pool_release_page, as drivers did). nil, nil when no
// buffer is posted (the NIC drops the frame).
func (d *Stub) Receive(length int) (*skb.SKB, error) {
	dd := &d.ring[d.next]
	if !dd.posted {
		d.Dropped++
		return nil, nil
	}
	pg := dd.pg
	m := d.S.M
	if pg.Place == sim.PlaceCache || pg.Place == sim.PlaceRing || pg.Place == sim.PlaceBuddy {
		// The buffer was recycled (or freed) under the NIC's feet: the DMA
		// lands in a page someone else may already own.
		pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
			"the NIC DMAs a frame into a buffer whose page sits in %s: it was recycled while posted", pg.Place)
	}
	if m.Tracing() {
		d.ev(sim.SymSyncForCPU, pg, sim.PlaceNICRing, sim.PlaceNICRing, fmt.Sprintf("the NIC wrote a %d-byte frame at offset %d", length, dd.off))
	}
	if pg.Mapped {
		d.S.A.DMA.SyncForCPU(d.CPU, pg, dd.off, length, mm.DMAFromDevice)
	}
	dd.posted = false
	d.posted--
	d.next = (d.next + 1) % len(d.ring)
	pg.Users--
	d.Received++

	e := m.Era
	if d.Mode == HalfPageFlip && d.otherHalfInStack(pg) {
		// Both halves are up the stack: each skb must own a page reference.
		d.S.A.GetPage(d.CPU, pg)
	}
	if e.SkbRecycle == sim.SkbRecycleNone {
		d.Pool.ReleasePage(d.CPU, pg) // pre-recycling drivers
	}
	sk, err := d.S.BuildSKB(d.CPU, pg, dd.off, dd.size, length, true)
	if err != nil {
		return nil, err
	}
	if e.SkbRecycle != sim.SkbRecycleNone {
		if err := d.S.MarkForRecycle(d.CPU, sk, pg, d.Pool); err != nil {
			return nil, err
		}
	}
	return sk, nil
}

// otherHalfInStack: the page's other half left the ring and is (still) in an
// skb — the page has a user that is not a posted descriptor.
func (d *Stub) otherHalfInStack(pg *mm.Page) bool {
	postedHalves := int32(0)
	for i := range d.ring {
		if d.ring[i].posted && d.ring[i].pg == pg {
			postedHalves++
		}
	}
	return pg.Users-postedHalves > 0
}
