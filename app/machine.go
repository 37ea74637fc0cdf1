package app

import (
	"fmt"
	"slices"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
)

// Machine draws the simulated machine: the page allocator, each pool's
// alloc cache (a stack) and ptr_ring (a ring), the NIC RX ring, the live
// skbs grouped by where they are, and pages held elsewhere. Every page is a
// tile; pages the last step moved are highlighted.
type Machine struct {
	ga.Compo
	Snap     lab.Snapshot
	Changed  []int32 // PFNs the last step moved
	Selected int32   // the inspected page, -1 if none
}

// placeLegend names the places in the order the legend shows them.
var placeLegend = []struct{ place, text string }{
	{"cache", "pool alloc cache"}, {"ring", "pool ptr_ring"}, {"nic-ring", "NIC RX descriptor"},
	{"skb", "in an skb (stack)"}, {"socket", "socket / tap queue"}, {"tx-ring", "TX ring"},
	{"xdp-frame", "XDP frame"}, {"driver", "held by the caller"}, {"slab", "slab page"},
}

func (c *Machine) Render() (ui ga.UI) {
	defer guardRender(&ui, "Machine")
	pages := pageIndex(c.Snap.Pages)
	t := func(pfn int32, note string) ga.UI {
		p, ok := pages[pfn]
		if !ok {
			return emptySlot(fmt.Sprintf("pfn %#x is free", pfn))
		}
		return tile(p, slices.Contains(c.Changed, pfn), pfn == c.Selected, note)
	}
	var sections []ga.UI
	sections = append(sections, c.allocator())
	for _, p := range c.Snap.Pools {
		sections = append(sections, c.pool(p, t))
	}
	if c.Snap.NIC != nil {
		sections = append(sections, c.nic(c.Snap.NIC, t))
	}
	sections = append(sections, c.skbs(t), c.elsewhere(t))
	legend := ga.Ul().Class("legend").Aria("label", "tile colours").Body(ga.Range(placeLegend).Slice(func(i int) ga.UI {
		return ga.Li().Body(ga.Span().Class("swatch place-"+placeLegend[i].place).Aria("hidden", "true"), ga.Text(placeLegend[i].text))
	}), ga.Li().Body(ga.Span().Class("swatch changed-swatch").Aria("hidden", "true"), ga.Text("moved in the last step")))
	return ga.Section().ID("machine").Class("panel machine").Aria("label", "the machine").Body(
		ga.H2().Text("The machine"),
		legend,
		ga.Div().Class("machine-body").Body(sections...),
	)
}

func (c *Machine) allocator() ga.UI {
	var rows []ga.UI
	for n, free := range c.Snap.FreePerNode {
		rows = append(rows, ga.Li().Body(ga.Text(fmt.Sprintf("node %d: ", n)), ga.Strong().Class("free-count").DataSet("node", n).Text(fmt.Sprint(free)), ga.Text(" free pages")))
	}
	return ga.Div().Class("box allocator").Body(
		ga.H3().Text("page allocator"),
		ga.Ul().Class("plain").Body(rows...),
	)
}

func (c *Machine) pool(p lab.PoolView, t func(int32, string) ga.UI) ga.UI {
	// The alloc cache: a LIFO of 128 slots, drawn bottom-up so the top of
	// the stack (the next page page_pool_alloc_pages hands out) is on top.
	const cacheSlots, perRow = 128, 16
	var rows []ga.UI
	for r := cacheSlots/perRow - 1; r >= 0; r-- {
		var cells []ga.UI
		for i := r * perRow; i < (r+1)*perRow; i++ {
			if i < len(p.Cache) {
				note := fmt.Sprintf("alloc cache slot %d", i)
				if i == len(p.Cache)-1 {
					note += " (top: handed out next)"
				}
				cells = append(cells, t(p.Cache[i], note))
			} else {
				cells = append(cells, emptySlot(fmt.Sprintf("alloc cache slot %d: empty", i)))
			}
		}
		rows = append(rows, ga.Div().Class("row").Body(cells...))
	}
	ring := c.ring(p, t)
	napi := "no NAPI linked"
	if p.NAPICPU >= 0 {
		napi = fmt.Sprintf("NAPI on cpu%d", p.NAPICPU)
	}
	state := ""
	switch {
	case p.Freed:
		state = " — destroyed and freed"
	case p.Destroyed:
		state = " — destroyed, waiting for in-flight pages"
	}
	return ga.Div().Class("box pool").DataSet("pool", p.ID).Body(
		ga.H3().Text(fmt.Sprintf("page_pool #%d%s", p.ID, state)),
		ga.P().Class("meta").Text(fmt.Sprintf("inflight %d = hold %d − release %d · %s · nid %d", p.Inflight, p.Hold, p.Release, napi, p.Nid)),
		ga.Div().Class("pool-parts").Body(
			ga.Figure().Class("cache").Body(
				ga.FigCaption().Body(ga.Text("alloc cache (LIFO stack): "), ga.Strong().ID(fmt.Sprintf("cache-count-%d", p.ID)).Text(fmt.Sprint(len(p.Cache))), ga.Text(" / 128")),
				ga.Div().Class("stack").Body(rows...),
			),
			ring,
		),
	)
}

func (c *Machine) ring(p lab.PoolView, t func(int32, string) ga.UI) ga.UI {
	n := len(p.Ring)
	caption := ga.FigCaption().Body(
		ga.Text("ptr_ring: "), ga.Strong().ID(fmt.Sprintf("ring-count-%d", p.ID)).Text(fmt.Sprint(p.RingCount)),
		ga.Text(fmt.Sprintf(" / %d queued · producer %d, consumer %d · zeroed in batches of %d", n, p.Producer, p.ConsumerHead, p.RingBatch)))
	// A kernel-size ring (1024 slots) is drawn around its live part.
	lo, hi := 0, n
	if n > 256 {
		lo = p.ConsumerHead - 16
		hi = p.ConsumerHead + max(p.RingCount, 0) + 16
		if p.RingCount == 0 && p.Producer != p.ConsumerHead {
			hi = lo + 48
		}
		hi = min(hi, lo+256)
	}
	var cells []ga.UI
	for k := lo; k < hi; k++ {
		i := ((k % n) + n) % n
		s := p.Ring[i]
		var cell ga.UI
		switch {
		case s.PFN >= 0 && !s.Stale:
			cell = t(s.PFN, fmt.Sprintf("ptr_ring slot %d", i))
		case s.PFN >= 0:
			cell = staleSlot(s.PFN)
		default:
			cell = emptySlot(fmt.Sprintf("ptr_ring slot %d: free", i))
		}
		cells = append(cells, ringCell(cell, i, p.Producer, "P", p.ConsumerHead, "C", "P: the producer writes here next · C: consumer_head, the next page refill takes"))
	}
	note := ""
	if lo != 0 || hi != n {
		note = fmt.Sprintf("slots %d…%d of %d shown (around the consumer)", ((lo%n)+n)%n, ((hi-1)%n+n)%n, n)
	}
	return ga.Figure().Class("ring").Body(caption, ga.Div().Class("ring-slots").Body(cells...), ga.If(note != "", func() ga.UI { return ga.P().Class("meta").Text(note) }))
}

func (c *Machine) nic(n *lab.NICView, t func(int32, string) ga.UI) ga.UI {
	var cells []ga.UI
	for i, d := range n.Descs {
		var cell ga.UI
		switch {
		case d.Posted || d.Reuse:
			note := fmt.Sprintf("RX descriptor %d, bytes %d…%d", i, d.Off, d.Off+d.Size)
			if d.Reuse {
				note += ", kept for reuse"
			}
			cell = t(d.PFN, note)
		default:
			cell = emptySlot(fmt.Sprintf("RX descriptor %d: no buffer posted", i))
		}
		cells = append(cells, ringCell(cell, i, n.Next, "N", n.Fill, "F", "N: the NIC fills next · F: the driver refills next"))
	}
	return ga.Div().Class("box nic").Body(
		ga.H3().Text(fmt.Sprintf("NIC RX ring (%s, %d descriptors)", n.Driver, len(n.Descs))),
		ga.P().Class("meta").Body(ga.Strong().ID("nic-posted").Text(fmt.Sprint(n.Posted)), ga.Text(fmt.Sprintf(" posted · NAPI on cpu%d · N = next the NIC fills, F = next the driver refills", n.CPU))),
		ga.Div().Class("ring-slots").Body(cells...),
	)
}

// ringCell is one slot of a ring with the marks of the two positions that
// point at it (a ring's producer and consumer, a NIC ring's next and fill).
func ringCell(cell ga.UI, i, a int, markA string, b int, markB, title string) ga.UI {
	mark := ""
	if i == a {
		mark += markA
	}
	if i == b {
		mark += markB
	}
	return ga.Span().Class("ring-cell").Body(cell, ga.If(mark != "", func() ga.UI {
		return ga.Span().Class("mark").Title(title).Text(mark)
	}))
}

// whereOrder is how skb groups are shown.
var whereOrder = []struct{ where, title string }{
	{"stack", "being processed (driver, GRO, protocols)"}, {"socket", "socket receive queue"},
	{"tx-ring", "TX ring, awaiting completion"}, {"tap", "AF_PACKET tap queue (clones)"}, {"defer-list", "defer list (skb_attempt_defer_free)"},
}

func (c *Machine) skbs(t func(int32, string) ga.UI) ga.UI {
	var groups []ga.UI
	for _, w := range whereOrder {
		var cards []ga.UI
		for _, s := range c.Snap.SKBs {
			if s.Where != w.where {
				continue
			}
			cards = append(cards, skbCard(s, t))
		}
		if len(cards) == 0 {
			continue
		}
		groups = append(groups, ga.Div().Class("skb-group").DataSet("where", w.where).Body(
			ga.H4().Text(fmt.Sprintf("%s (%d)", w.title, len(cards))), ga.Div().Class("skb-cards").Body(cards...)))
	}
	if len(groups) == 0 {
		groups = append(groups, ga.P().Class("meta").Text("no live skb"))
	}
	return ga.Div().Class("box skbs").Body(ga.H3().Text(fmt.Sprintf("sk_buffs (%d live)", len(c.Snap.SKBs))), ga.Div().Body(groups...))
}

func skbCard(s lab.SKBView, t func(int32, string) ga.UI) ga.UI {
	flags := fmt.Sprintf("len %d", s.Len)
	if s.PPRecycle {
		flags += " · pp_recycle"
	}
	if s.Cloned {
		flags += fmt.Sprintf(" · cloned, dataref %d", s.Dataref)
	}
	if len(s.FragList) > 0 {
		ids := make([]string, len(s.FragList))
		for i, id := range s.FragList {
			ids[i] = fmt.Sprintf("#%d", id)
		}
		flags += " · frag_list " + strings.Join(ids, " ")
	}
	if s.InList != 0 {
		flags += fmt.Sprintf(" · on skb#%d's frag_list (GRO)", s.InList)
	}
	var head ga.UI
	switch {
	case s.HeadPFN < 0:
		head = ga.Span().Class("meta").Text("head stolen")
	case s.SlabHead:
		head = ga.Span().Class("slab-head").Title(fmt.Sprintf("a kmalloc'ed head in slab page pfn %#x: never a page_pool page", s.HeadPFN)).Text("kmalloc head")
	default:
		head = t(s.HeadPFN, fmt.Sprintf("head of skb#%d", s.ID))
	}
	var frags []ga.UI
	for i, f := range s.Frags {
		frags = append(frags, t(f.PFN, fmt.Sprintf("frag %d of skb#%d, bytes %d…%d", i, s.ID, f.Off, f.Off+f.Size)))
	}
	return ga.Div().Class("skb").DataSet("skb", s.ID).Body(
		ga.Div().Class("skb-title").Text(fmt.Sprintf("skb#%d", s.ID)),
		ga.Div().Class("meta").Text(flags),
		ga.Div().Class("skb-pages").Body(ga.Span().Class("lbl").Text("head"), head,
			ga.If(len(frags) > 0, func() ga.UI { return ga.Span().Class("lbl").Text("frags") }), ga.Span().Body(frags...)),
	)
}

// elsewhere: pages held by the caller (between a pool alloc and its free),
// in XDP frames, and the slab's pages.
func (c *Machine) elsewhere(t func(int32, string) ga.UI) ga.UI {
	var held, slab []ga.UI
	for _, p := range c.Snap.Pages {
		switch p.Place {
		case "driver", "xdp-frame":
			held = append(held, t(p.PFN, ""))
		case "slab":
			slab = append(slab, t(p.PFN, "a slab page (kmalloc'ed skb heads)"))
		}
	}
	return ga.Div().Class("box elsewhere").Body(
		ga.H3().Text("elsewhere"),
		ga.P().Class("meta").Text(fmt.Sprintf("held by the caller or in an XDP frame: %d · slab pages: %d", len(held), len(slab))),
		ga.Div().Class("ring-slots").Body(held...),
		ga.Div().Class("ring-slots").Body(slab...),
	)
}
