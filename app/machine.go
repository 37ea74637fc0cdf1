package app

import (
	"fmt"
	"slices"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// Machine draws the simulated machine: the page allocator, each pool's
// alloc cache (a stack) and ptr_ring (a ring), the NIC RX ring, the live
// skbs grouped by where they are, and pages held elsewhere. Every page is a
// tile; pages the last step moved are highlighted. Tiles are drawn in rows
// (TileRow), each a component go-app skips when its cells did not change.
type Machine struct {
	ga.Compo
	V session.MachineView
	// ID is the drawing's element id ("" : "machine", the playground's);
	// a page with two machines (the comparison) names each, and the
	// counts' ids inside it take it as their prefix.
	ID string
}

// machineID is m's element id and the prefix of the ids inside it ("" for
// the playground's one machine).
func (m *Machine) machineID() (id, prefix string) {
	if m.ID == "" {
		return "machine", ""
	}
	return m.ID, m.ID + "-"
}

// placeLegend names the places in the order the legend shows them (the
// text tables use the same words: session.PlaceLegend).
var placeLegend = session.PlaceLegend

// drawnSlots bounds the slots drawn of one ring: a kernel-size ring of
// 1024 or more is drawn around its live part (the consumer, the refill
// point), and the note under it says which slots are shown. 128 rather than
// 256: a redraw while playing updates every tile whose page moved on, and
// 256-slot windows held max-speed tcp-stream at ~0.5 M packets/s and 51
// frames/s (128: ~0.8 M and 55).
const drawnSlots = 128

// cells makes the cells of one machine view.
type cells struct {
	v      *session.MachineView
	prefix string // of the ids inside the drawing (Machine.ID)
}

func (c cells) page(pfn int32, n note) Cell {
	p, ok := c.v.Snap.Page(pfn)
	if !ok {
		return emptyCell(noteOf("pfn %#x is free", int(pfn)))
	}
	return tileCell(p, slices.Contains(c.v.Changed, pfn), pfn == c.v.Selected, n)
}

func (m *Machine) Render() (ui ga.UI) {
	defer guardRender(&ui, "Machine")
	id, prefix := m.machineID()
	c := cells{v: &m.V, prefix: prefix}
	s := &m.V.Snap
	var sections []ga.UI
	sections = append(sections, allocatorBox(s), freedBox(&m.V))
	for _, p := range s.Pools {
		sections = append(sections, c.pool(p))
	}
	if s.NIC != nil {
		sections = append(sections, c.nic(s.NIC))
	}
	sections = append(sections, c.skbs(), c.elsewhere())
	// tabindex -1: the skip link lands the focus here (a11y.go).
	return ga.Section().ID(id).Class("panel machine").TabIndex(-1).Aria("label", "the machine").Body(
		ga.H2().Text("The machine"),
		&MachineKey{Prefix: prefix},
		ga.Div().Class("machine-body").OnClick(onTile).Body(sections...),
	)
}

// OnUpdate gives the focus back to a tile whose row the update replaced
// (figureKeys.restore) and brings the selected tile into view after a
// jump to a violation.
func (m *Machine) OnUpdate(ctx ga.Context) {
	ctx.Defer(func(ga.Context) { figureNav.restore() })
	if !m.V.Scroll || m.V.Selected < 0 {
		return
	}
	pfn := m.V.Selected
	id, _ := m.machineID()
	ctx.Defer(func(ga.Context) {
		el := ga.Window().Get("document").Call("querySelector", fmt.Sprintf("#%s .tile[data-pfn=\"%d\"]", id, pfn))
		if el.Truthy() {
			el.Call("scrollIntoView", map[string]any{"block": "center", "inline": "nearest"})
		}
	})
}

func allocatorBox(s *lab.Snapshot) ga.UI {
	var rows []ga.UI
	for n, free := range s.FreePerNode {
		rows = append(rows, ga.Li().Body(ga.Text(fmt.Sprintf("node %d: ", n)), ga.Strong().Class("free-count").DataSet("node", n).Text(fmt.Sprint(free)), ga.Text(" free pages")))
	}
	return ga.Div().Class("box allocator").Body(
		ga.H3().Text("page allocator"),
		ga.Ul().Class("plain").Body(rows...),
	)
}

func (c cells) pool(p lab.PoolView) ga.UI {
	// The alloc cache: a LIFO of 128 slots, drawn bottom-up so the top of
	// the stack (the next page page_pool_alloc_pages hands out) is on top.
	const cacheSlots, perRow = 128, 16
	var rows []ga.UI
	for r := cacheSlots/perRow - 1; r >= 0; r-- {
		row := make([]Cell, 0, perRow)
		for i := r * perRow; i < (r+1)*perRow; i++ {
			switch {
			case i == len(p.Cache)-1:
				row = append(row, c.page(p.Cache[i], noteOf("alloc cache slot %d (top: handed out next)", i)))
			case i < len(p.Cache):
				row = append(row, c.page(p.Cache[i], noteOf("alloc cache slot %d", i)))
			default:
				row = append(row, emptyCell(noteOf("alloc cache slot %d: empty", i)))
			}
		}
		rows = append(rows, &TileRow{Class: "row", Cells: row})
	}
	// pp.napi is opt-in (6.4): a pool without it never takes an skb's page
	// into its alloc cache.
	napi := "no NAPI linked to the pool (pp.napi): skb frees recycle through the ptr_ring"
	if p.NAPICPU >= 0 {
		napi = fmt.Sprintf("pp.napi: the NAPI on cpu%d", p.NAPICPU)
	}
	title := fmt.Sprintf("page_pool #%d", p.ID)
	if p.System {
		// 6.9's per-CPU system pool (page_pool_create_percpu): no NAPI,
		// but pool->cpuid makes a softirq free on its CPU direct.
		title = fmt.Sprintf("page_pool #%d: cpu%d's system page_pool", p.ID, p.CPUID)
		napi = fmt.Sprintf("no pp.napi, but pool->cpuid %d: an skb free in softirq on cpu%d recycles into the alloc cache; ethtool -S and netlink do not show this pool, and its recycle counters are shared by every CPU's system pool", p.CPUID, p.CPUID)
	}
	if p.Provider != "" {
		// 6.12+: the pool of a bound RX queue takes net_iovs from its
		// memory provider, not pages from the page allocator.
		src := fmt.Sprintf("dma-buf binding %d", p.BindingID)
		back := "the user gives tokens back with SO_DEVMEM_DONTNEED"
		if p.Provider == "io_uring" {
			src = fmt.Sprintf("io_uring zero-copy RX area %d", p.BindingID)
			back = fmt.Sprintf("the user gives buffers back through the refill queue (%d waiting)", p.RefillQueued)
		}
		title = fmt.Sprintf("page_pool #%d: RX queue %d's memory-provider pool (net_iovs of the %s)", p.ID, p.Queue, src)
		napi += fmt.Sprintf(" · %d net_iovs free in the %s; %s", p.ProviderFree, src, back)
	}
	if p.Netdev {
		napi += fmt.Sprintf(" · netlink id %d", p.UserID)
	}
	state := ""
	switch {
	case p.Freed:
		state = " — destroyed and freed"
	case p.Destroyed:
		state = " — destroyed, waiting for in-flight pages"
	}
	return ga.Div().Class("box pool").DataSet("pool", p.ID).Body(
		ga.H3().Text(title+state),
		ga.P().Class("meta").Body(
			gloss("inflight", glossInflight), ga.Text(fmt.Sprintf(" %d = hold %d − release %d · %s · ", p.Inflight, p.Hold, p.Release, napi)),
			gloss(fmt.Sprintf("nid %d", p.Nid), glossNid)),
		ga.Div().Class("pool-parts").Body(
			figureAttrs(ga.Figure().Class("cache"), fmt.Sprintf("cache-%d", p.ID), fmt.Sprintf("alloc cache of page_pool #%d", p.ID)).Body(
				ga.FigCaption().Body(ga.Text("alloc cache (LIFO stack): "), ga.Strong().ID(fmt.Sprintf("%scache-count-%d", c.prefix, p.ID)).Text(fmt.Sprint(len(p.Cache))), ga.Text(" / 128")),
				ga.Div().Class("stack").Body(rows...),
			),
			c.ring(p),
			c.fragPage(p),
		),
	)
}

// fragPage draws pool->frag_page (5.15's frag API): the page the next
// fragment comes from, held by the pool between allocations in no cache or
// ring — the split pages' and the system pools' page stays here while its
// fragments are out.
func (c cells) fragPage(p lab.PoolView) ga.UI {
	if p.FragPFN < 0 {
		return ga.Text("")
	}
	return figureAttrs(ga.Figure().Class("frag-page"), fmt.Sprintf("frag-%d", p.ID), fmt.Sprintf("frag page of page_pool #%d", p.ID)).Body(
		ga.FigCaption().Text("pool->frag_page"),
		&TileRow{Class: "ring-slots", Cells: []Cell{c.page(p.FragPFN, noteOf("page_pool #%d's frag page (pool->frag_page): the next fragment comes from it", int(p.ID)))}},
	)
}

// window is the part of an n-slot ring drawn around position at: all of a
// small ring, drawnSlots of a large one (lo may be negative: it wraps). The
// window starts on a block of windowAlign slots, so that it moves seldom:
// each slot keeps its cell from one step to the next, and the page redraws
// only the cells that changed.
func window(n, at, live int) (lo, hi int) {
	if n <= drawnSlots {
		return 0, n
	}
	lo = at/windowAlign*windowAlign - windowAlign
	hi = min(at+max(live, 0)+16, lo+drawnSlots)
	hi = min((hi+windowAlign-1)/windowAlign*windowAlign, lo+drawnSlots)
	if hi-lo < 2*windowAlign {
		hi = lo + 2*windowAlign
	}
	return lo, hi
}

// windowAlign is the block a drawn window of a large ring starts on.
const windowAlign = 32

func (c cells) ring(p lab.PoolView) ga.UI {
	n := len(p.Ring)
	caption := ga.FigCaption().Body(
		ga.Text("ptr_ring: "), ga.Strong().ID(fmt.Sprintf("%sring-count-%d", c.prefix, p.ID)).Text(fmt.Sprint(p.RingCount)),
		ga.Text(fmt.Sprintf(" / %d queued · producer %d, consumer %d · zeroed in batches of %d", n, p.Producer, p.ConsumerHead, p.RingBatch)))
	lo, hi := window(n, p.ConsumerHead, p.RingCount)
	row := make([]Cell, 0, hi-lo)
	for k := lo; k < hi; k++ {
		row = append(row, c.ringSlot(p, ((k%n)+n)%n))
	}
	return figureAttrs(ga.Figure().Class("ring"), fmt.Sprintf("ring-%d", p.ID), fmt.Sprintf("ptr_ring of page_pool #%d", p.ID)).
		Body(caption, &TileRow{Class: "ring-slots", Cells: row}, shownNote(lo, hi, n, "consumer"))
}

// ringSlot is slot i of pool p's ptr_ring, with its P/C marks.
func (c cells) ringSlot(p lab.PoolView, i int) Cell {
	s := p.Ring[i]
	var cell Cell
	switch {
	case s.PFN >= 0 && !s.Stale:
		cell = c.page(s.PFN, noteOf("ptr_ring slot %d", i))
	case s.PFN >= 0:
		cell = staleCell(s.PFN)
	default:
		cell = emptyCell(noteOf("ptr_ring slot %d: free", i))
	}
	return marked(cell, i, p.Producer, "P", p.ConsumerHead, "C", "P: the producer writes here next · C: consumer_head, the next page refill takes")
}

// shownNote says which slots of a windowed ring are drawn.
func shownNote(lo, hi, n int, around string) ga.UI {
	if lo == 0 && hi == n {
		return ga.Text("")
	}
	return ga.P().Class("meta").Text(fmt.Sprintf("slots %d…%d of %d shown (around the %s)", ((lo%n)+n)%n, ((hi-1)%n+n)%n, n, around))
}

func (c cells) nic(n *lab.NICView) ga.UI {
	size := len(n.Descs)
	// The window starts before the next descriptor the driver refills and
	// runs to the next the NIC fills (the posted part ahead of it).
	lo, hi := window(size, n.Fill, (n.Next-n.Fill+size)%size)
	desc := "RX descriptor"
	if n.Agg {
		desc = "aggregation buffer"
	}
	row := make([]Cell, 0, hi-lo)
	for k := lo; k < hi; k++ {
		i := ((k % size) + size) % size
		d := n.Descs[i]
		var cell Cell
		if d.Posted || d.Reuse {
			if d.Reuse {
				cell = c.page(d.PFN, noteOf(desc+" %d, bytes %d…%d, kept for reuse", i, d.Off, d.Off+d.Size))
			} else {
				cell = c.page(d.PFN, noteOf(desc+" %d, bytes %d…%d", i, d.Off, d.Off+d.Size))
			}
		} else {
			cell = emptyCell(noteOf(desc+" %d: no buffer posted", i))
		}
		row = append(row, marked(cell, i, n.Next, "N", n.Fill, "F", "N: the NIC fills next · F: the driver refills next"))
	}
	heading := fmt.Sprintf("NIC RX ring (%s, %d descriptors)", n.Driver, size)
	if n.Agg {
		heading = fmt.Sprintf("NIC aggregation ring (%s, %d buffers; the RX ring's head buffers are not drawn)", n.Driver, size)
	}
	return ga.Div().Class("box nic").Body(
		ga.H3().Text(heading),
		ga.P().Class("meta").Body(ga.Strong().ID(c.prefix+"nic-posted").Text(fmt.Sprint(n.Posted)), ga.Text(fmt.Sprintf(" posted · NAPI on cpu%d · ", n.CPU)),
			gloss("N = next the NIC fills, F = next the driver refills", glossMarks)),
		figureAttrs(ga.Div().Class("nic-slots"), "nic", "NIC RX ring").Body(&TileRow{Class: "ring-slots", Cells: row}),
		shownNote(lo, hi, size, "refill point"),
	)
}

// marked adds the marks of the two positions that point at slot i.
func marked(c Cell, i, a int, markA string, b int, markB, title string) Cell {
	if i == a {
		c.Mark += markA
	}
	if i == b {
		c.Mark += markB
	}
	if c.Mark != "" {
		c.MarkTitle = title
	}
	return c
}

// whereOrder is how skb groups are shown (session.SKBGroups: the text
// tables use the same words).
var whereOrder = session.SKBGroups

// skbsDrawn bounds the skb cards drawn per group: a kernel-size receive
// window queues a hundred skbs and over a thousand frag pages, more than a
// person reads and more than the page can redraw while playing (at
// teaching sizes 12 cards a group were two thirds of the machine's tiles
// and of a max-speed redraw's cost; the group's "… and N more" line counts
// the rest).
const skbsDrawn = 6

func (c cells) skbs() ga.UI {
	var groups []ga.UI
	for _, w := range whereOrder {
		var cards []ga.UI
		n, pages := 0, 0
		for _, s := range c.v.Snap.SKBs {
			if s.Where != w.Where {
				continue
			}
			n++
			if len(cards) < skbsDrawn {
				cards = append(cards, c.skbCard(s))
			} else {
				pages += len(s.Frags) + 1
			}
		}
		if n == 0 {
			continue
		}
		if n > len(cards) {
			cards = append(cards, ga.P().Class("meta more-skbs").Text(fmt.Sprintf("… and %d more skbs here (about %d page references), not drawn", n-len(cards), pages)))
		}
		groups = append(groups, ga.Div().Class("skb-group").DataSet("where", w.Where).Body(
			ga.H4().Text(fmt.Sprintf("%s (%d)", w.Text, n)), ga.Div().Class("skb-cards").Body(cards...)))
	}
	if len(groups) == 0 {
		groups = append(groups, ga.P().Class("meta").Text("no live skb"))
	}
	return figureAttrs(ga.Div().Class("box skbs"), "skbs", "sk_buffs").Body(ga.H3().Text(fmt.Sprintf("sk_buffs (%d live)", len(c.v.Snap.SKBs))), ga.Div().Body(groups...))
}

func (c cells) skbCard(s lab.SKBView) ga.UI {
	card := &SkbCard{SKB: s, Frags: make([]Cell, len(s.Frags))}
	if s.HeadPFN >= 0 && !s.SlabHead {
		card.Head = c.page(s.HeadPFN, noteOf("head of skb#%d", int(s.ID)))
	}
	for i, f := range s.Frags {
		card.Frags[i] = c.page(f.PFN, noteOf("frag %d of skb#%d, bytes %d…%d", i, int(s.ID), f.Off, f.Off+f.Size))
	}
	return card
}

// elsewhere: pages held by the caller (between a pool alloc and its free),
// in XDP frames, and the slab's pages.
func (c cells) elsewhere() ga.UI {
	var held, slab, payload, user []Cell
	for _, p := range c.v.Snap.Pages {
		switch {
		case p.Place == "driver" || p.Place == "xdp-frame":
			held = append(held, c.page(p.PFN, note{}))
		case p.Place == "driver-cache":
			held = append(held, c.page(p.PFN, noteOf("in the driver's own RX page cache (mlx5e_rx_cache)")))
		case p.Place == "slab":
			slab = append(slab, c.page(p.PFN, noteOf("a slab page (kmalloc'ed skb heads)")))
		case p.Place == "nic-ring" && p.NetIov:
			// The bound queue's payload descriptors (devmem-rx): the
			// NIC ring figure draws the header descriptors.
			payload = append(payload, c.page(p.PFN, noteOf("a net_iov posted on the bound queue's payload descriptors")))
		case p.Place == "user":
			user = append(user, c.page(p.PFN, noteOf("a net_iov the application holds as a dma-buf token")))
		}
	}
	meta := fmt.Sprintf("held by the caller or in an XDP frame: %d · slab pages: %d", len(held), len(slab))
	if len(payload)+len(user) > 0 {
		meta += fmt.Sprintf(" · net_iovs posted for payload: %d · held by the application as dma-buf tokens: %d", len(payload), len(user))
	}
	return figureAttrs(ga.Div().Class("box elsewhere"), "elsewhere", "pages elsewhere").Body(
		ga.H3().Text("elsewhere"),
		ga.P().Class("meta").Text(meta),
		&TileRow{Class: "ring-slots", Cells: held},
		&TileRow{Class: "ring-slots", Cells: slab},
		&TileRow{Class: "ring-slots", Cells: payload},
		&TileRow{Class: "ring-slots", Cells: user},
	)
}
