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

// CheckInvariants checks the skb layer (product.md §2.4):
//   - no page referenced by live skb data or by an outside holder (NIC RX ring)
//     sits in a pool's cache or ring (use-after-recycle) or in the page
//     allocator (refcount-underflow), and each such page's refcount is >= 1;
//   - each page's Users equals the references live data and holders make;
//   - dataref of shared data matches the live skbs that point at it.
func (s *Stack) CheckInvariants(m *sim.Machine) {
	if len(s.want) != s.A.NumPages() {
		s.want = make([]int32, s.A.NumPages())
	}
	want := s.want
	clear(want)
	for _, d := range s.live {
		s.checkData(m, d)
		if d.released {
			continue
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
	pages := s.A.Pages()
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
	overlaps := func(o, n int) bool { return o < off+size && off < o+n }
	for _, d := range s.live {
		if d.released {
			continue
		}
		hit := d.HeadPage == pg && overlaps(d.HeadOff, d.HeadSize)
		for i := 0; i < d.NrFrags && !hit; i++ {
			f := &d.Frags[i]
			hit = f.Page == pg && overlaps(f.Off, f.Size)
		}
		if hit {
			pg.ReportOnce(m, sim.KindUseAfterRecycle, m.RuleFor(sim.KindUseAfterRecycle),
				"bytes %d..%d are posted for the NIC to write while skb data #%d still holds them", off, off+size, d.ID)
			return
		}
	}
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
