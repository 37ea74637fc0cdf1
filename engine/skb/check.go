package skb

import (
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// CheckTouched is the light check, run after every operation: only zombie data
// (released while skbs still point at it) needs looking at between full
// checks; the pool's and the allocator's light checks catch a page recycled
// or freed while skbs or NIC descriptors still use it (page Users).
func (s *Stack) CheckTouched(m *sim.Machine) {
	for _, d := range s.live {
		if d.released {
			s.checkData(m, d)
		}
	}
}

// CheckInvariants checks the skb layer:
//   - no page referenced by live skb data or by an outside holder (NIC RX ring)
//     sits in a pool's cache or ring (use-after-recycle) or in the page
//     allocator (refcount-underflow), and each such page's refcount is >= 1;
//   - each page's Users equals the references live data and holders make;
//   - dataref of shared data matches the live skbs that point at it.
//
// It reads the pages written out (mm.Allocator.Ready): a page past them
// has never left the page allocator, and no skb or holder uses it.
func (s *Stack) CheckInvariants(m *sim.Machine) {
	pages := s.A.Ready()
	n := len(pages)
	if cap(s.want) < n {
		s.want = make([]int32, n, max(n, min(2*cap(s.want), s.A.NumPages())))
	}
	s.want = s.want[:n]
	want := s.want
	clear(want)
	s.ranges.reset(n, s.A.NumPages())
	for _, d := range s.live {
		s.checkData(m, d)
		if d.released {
			continue
		}
		if d.HeadPage != nil {
			s.ranges.add(d.HeadPage.PFN, d.ID, d.HeadOff, d.HeadSize)
		}
		for i := 0; i < d.NrFrags; i++ {
			f := &d.Frags[i]
			s.ranges.add(f.Page.PFN, d.ID, f.Off, f.Size)
		}
		if d.users <= 0 {
			m.Report(sim.KindInflightLeak, -1, sim.RuleNone, "skb data #%d has no skb left but was never released: its pages leak", d.ID)
		}
		if d.users > 1 && d.Dataref&SkbDatarefMask != d.users {
			m.Report(sim.KindRefcountUnderflow, -1, m.RuleFor(sim.KindRefcountUnderflow),
				"skb data #%d: dataref %d but %d skbs share it", d.ID, d.Dataref&SkbDatarefMask, d.users)
		}
		if d.HeadPage != nil {
			want[d.HeadPage.PFN]++
		}
		for i := 0; i < d.NrFrags; i++ {
			want[d.Frags[i].Page.PFN]++
		}
	}
	for _, h := range s.holders {
		h.HeldPages(s)
	}
	if users, ok := s.A.ScannedUsers(); ok {
		// The allocator's scan in this check read every page's Users (by
		// PFN, the page's index): only a page that differs is read again.
		for i, w := range want {
			if users[i] != w {
				pg := &pages[i]
				pg.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone, "page has %d recorded users but %d live references", pg.Users, want[pg.PFN])
			}
		}
		return
	}
	for i := range pages {
		pg := &pages[i]
		if pg.Users != want[pg.PFN] {
			pg.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone, "page has %d recorded users but %d live references", pg.Users, want[pg.PFN])
		}
	}
}

// HeldPage is the checker's visit of a page an outside holder uses (a
// PageVisitor): it counts the use and checks the page and the posted bytes.
func (s *Stack) HeldPage(pg *mm.Page, off, size int, what string) {
	s.want[pg.PFN]++
	s.checkPage(s.M, pg, what)
	s.checkPosted(s.M, pg, off, size)
}

// checkPosted: a buffer posted for the NIC to write must not overlap data a
// live skb still holds — the device would overwrite it. (A page may sit in an
// skb and on the ring at once: two halves of a split page.)
func (s *Stack) checkPosted(m *sim.Machine, pg *mm.Page, off, size int) {
	for i := s.ranges.first(pg.PFN); i >= 0; i = s.ranges.r[i].next {
		r := &s.ranges.r[i]
		if r.off < off+size && off < r.off+r.size {
			pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
				"bytes %d..%d are posted for the NIC to write while skb data #%d still holds them", off, off+size, r.data)
			return
		}
	}
}

// pageRanges indexes, per page, the byte ranges live skb data holds (in the
// order of the live list), for checkPosted: one lookup per posted
// descriptor instead of a scan of every live buffer. Built by each full
// check; an epoch per page avoids clearing it.
type pageRanges struct {
	head, tail []int32  // per PFN: first and last range (valid when stamp matches)
	stamp      []uint32 // per PFN: the epoch head/tail belong to
	epoch      uint32
	r          []heldRange
}

type heldRange struct {
	data      int32
	off, size int
	next      int32
}

// reset starts a check of the first pages pages (of at most all: the
// arrays grow by doubling as the run writes pages out).
func (p *pageRanges) reset(pages, all int) {
	if len(p.head) < pages {
		n := max(pages, min(2*len(p.head), all))
		p.head, p.tail, p.stamp = make([]int32, n), make([]int32, n), make([]uint32, n)
		p.epoch = 0
	}
	p.epoch++
	if p.epoch == 0 { // wrapped: stale stamps could match
		clear(p.stamp)
		p.epoch = 1
	}
	p.r = p.r[:0]
}

func (p *pageRanges) add(pfn, data int32, off, size int) {
	i := int32(len(p.r))
	p.r = append(p.r, heldRange{data: data, off: off, size: size, next: -1})
	if p.stamp[pfn] != p.epoch {
		p.stamp[pfn], p.head[pfn], p.tail[pfn] = p.epoch, i, i
		return
	}
	p.r[p.tail[pfn]].next = i
	p.tail[pfn] = i
}

func (p *pageRanges) first(pfn int32) int32 {
	if int(pfn) >= len(p.stamp) || p.stamp[pfn] != p.epoch {
		return -1
	}
	return p.head[pfn]
}

func (s *Stack) checkData(m *sim.Machine, d *Data) {
	if d.HeadPage != nil {
		s.checkPage(m, d.HeadPage, "an skb head")
	}
	for i := 0; i < d.NrFrags; i++ {
		s.checkPage(m, d.Frags[i].Page, "an skb frag")
	}
}

// checkPage: a page something still uses must not be back in a pool or free.
func (s *Stack) checkPage(m *sim.Machine, pg *mm.Page, what string) {
	switch pg.Place {
	case sim.PlaceCache, sim.PlaceRing:
		pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
			"recycled into a page_pool %s while %s still uses it", pg.Place, what)
	case sim.PlaceBuddy:
		pg.ReportOnce(m, sim.KindRefcountUnderflow, m.RuleFor(sim.KindRefcountUnderflow),
			"freed to the page allocator while %s still uses it", what)
	}
	if pg.Ref <= 0 && pg.Place != sim.PlaceBuddy {
		pg.ReportOnce(m, sim.KindRefcountUnderflow, m.RuleFor(sim.KindRefcountUnderflow),
			"refcount %d while %s still uses it", pg.Ref, what)
	}
}
