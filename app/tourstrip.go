package app

import (
	"fmt"
	"slices"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/app/tour"
	"pplab/engine/lab"
)

// TourStrip is the tour figure's compact strip: the structure the
// sentence is about, a few slots of it around its subject page (or the
// skb's card), with the subject marked and named. On a phone and in the
// one-column layout the figure is a bottom sheet with no room for the
// machine; the strip is what it shows under the caption (the stylesheet
// hides it beside the full machine).
type TourStrip struct {
	ga.Compo
	V session.MachineView
	S tour.Subject
}

// stripSlots is how many slots of a ring or a cache the strip draws.
const stripSlots = 8

func (x *TourStrip) Render() (ui ga.UI) {
	defer guardRender(&ui, "TourStrip")
	c := cells{v: &x.V}
	title, body := c.strip(x.S)
	return ga.Div().ID("tour-strip").Class("tour-strip").DataSet("place", x.S.Place).OnClick(onTile).Body(
		ga.P().Class("strip-label meta").Text(title),
		body,
	)
}

// strip is the strip's structure name and its tiles for subject s.
func (c cells) strip(s tour.Subject) (string, ga.UI) {
	snap := &c.v.Snap
	if s.SKB != 0 && (s.PFN < 0 || tour.IsSKBPlace(s.Place)) {
		for _, k := range snap.SKBs {
			if k.ID == s.SKB {
				return "skb#" + fmt.Sprint(k.ID), ga.Div().Class("skb-cards").Body(c.skbCard(k))
			}
		}
	}
	row := func(cs []Cell) ga.UI { return &TileRow{Class: "ring-slots", Cells: cs} }
	switch s.Place {
	case "cache":
		for _, p := range snap.Pools {
			i := slices.Index(p.Cache, s.PFN)
			if i < 0 && s.PFN >= 0 {
				continue
			}
			if i < 0 {
				i = len(p.Cache) - 1
			}
			var cs []Cell
			lo, hi := around(i, len(p.Cache))
			for k := hi - 1; k >= lo; k-- { // the top (handed out next) first
				cs = append(cs, c.page(p.Cache[k], noteOf("alloc cache slot %d", k)))
			}
			if len(cs) == 0 {
				cs = append(cs, emptyCell(noteOf("alloc cache: empty")))
			}
			what := fmt.Sprintf("page_pool #%d's alloc cache: slots %d…%d of %d, the top first", p.ID, hi-1, lo, len(p.Cache))
			if above := len(p.Cache) - hi; above > 0 {
				what += fmt.Sprintf(" (%d more above: the top, slot %d, is handed out next)", above, len(p.Cache)-1)
			}
			return what, row(cs)
		}
	case "ring":
		for _, p := range snap.Pools {
			i := slices.IndexFunc(p.Ring, func(r lab.RingSlot) bool { return r.PFN == s.PFN && !r.Stale })
			if i < 0 && s.PFN >= 0 || len(p.Ring) == 0 {
				continue
			}
			if i < 0 {
				i = p.ConsumerHead
			}
			n := len(p.Ring)
			var cs []Cell
			lo, hi := aroundWrap(i, n)
			for k := lo; k < hi; k++ {
				cs = append(cs, c.ringSlot(p, ((k%n)+n)%n))
			}
			return fmt.Sprintf("page_pool #%d's ptr_ring: slots %s of %d", p.ID, slotsWords(lo, hi, n), n), row(cs)
		}
	case "nic-ring":
		if n := snap.NIC; n != nil && len(n.Descs) > 0 {
			size := len(n.Descs)
			i := slices.IndexFunc(n.Descs, func(d lab.DescView) bool { return (d.Posted || d.Reuse) && d.PFN == s.PFN })
			if i < 0 {
				i = n.Next
			}
			var cs []Cell
			lo, hi := aroundWrap(i, size)
			for k := lo; k < hi; k++ {
				j := ((k % size) + size) % size
				d := n.Descs[j]
				cell := emptyCell(noteOf("RX descriptor %d: no buffer posted", j))
				if d.Posted || d.Reuse {
					cell = c.page(d.PFN, noteOf("RX descriptor %d, bytes %d…%d", j, d.Off, d.Off+d.Size))
				}
				cs = append(cs, marked(cell, j, n.Next, "N", n.Fill, "F", "N: the NIC fills next · F: the driver refills next"))
			}
			return fmt.Sprintf("the NIC RX ring: descriptors %s of %d", slotsWords(lo, hi, size), size), row(cs)
		}
	case "frag":
		for _, p := range snap.Pools {
			if p.FragPFN == s.PFN {
				return fmt.Sprintf("page_pool #%d's frag page", p.ID), row([]Cell{c.page(s.PFN, noteOf("pool->frag_page"))})
			}
		}
	case "buddy":
		if s.PFN >= 0 {
			p := lab.PageView{PFN: s.PFN, Place: "buddy", Holder: lab.Holder{Kind: "buddy", ID: -1}}
			return "back in the page allocator", row([]Cell{tileCell(p, true, c.v.Selected == s.PFN, noteOf("just freed to the page allocator"))})
		}
	case "skb", "socket", "tx-ring":
		for _, k := range snap.SKBs {
			if tour.SKBPlace(k.Where) == s.Place || s.Place == "skb" {
				return "skb#" + fmt.Sprint(k.ID), ga.Div().Class("skb-cards").Body(c.skbCard(k))
			}
		}
	}
	if s.PFN >= 0 {
		return tour.PlaceWords(s.Place), row([]Cell{c.page(s.PFN, note{})})
	}
	return tour.PlaceWords(s.Place), ga.P().Class("meta").Text("nothing there")
}

// around is the slots [lo, hi) of an n-slot stack drawn around slot i.
func around(i, n int) (lo, hi int) {
	lo = max(0, i-stripSlots/2+1)
	hi = min(n, lo+stripSlots)
	lo = max(0, hi-stripSlots)
	return lo, hi
}

// aroundWrap is the slots [lo, hi) of an n-slot ring around slot i (lo
// may be negative: it wraps).
func aroundWrap(i, n int) (lo, hi int) {
	if n <= stripSlots {
		return 0, n
	}
	return i - stripSlots/2 + 1, i + stripSlots/2 + 1
}

// slotsWords says the slots [lo, hi) of an n-slot ring, lo possibly
// negative (wrapped): "13…15, 0…4".
func slotsWords(lo, hi, n int) string {
	a, b := ((lo%n)+n)%n, ((hi-1)%n+n)%n
	if a <= b {
		return fmt.Sprintf("%d…%d", a, b)
	}
	return fmt.Sprintf("%d…%d, 0…%d", a, n-1, b)
}
