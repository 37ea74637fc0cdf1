package app

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
)

// Cell is one slot the machine draws: a page tile, an empty slot or a
// stale ptr_ring slot, with the marks of the ring positions that point at
// it (P/C on a ptr_ring, N/F on a NIC ring). A Cell holds the values the
// tile shows, not its text: the label and classes are formatted when the
// tile is drawn, so a row whose cells did not change (go-app compares the
// props and skips the row) costs no formatting at all.
type Cell struct {
	Kind      cellKind
	PFN       int32
	Face      pageFace // a tile's page, as the tile shows it
	Changed   bool     // moved in the last step
	Selected  bool
	Note      note // where the slot is, in words ("alloc cache slot 3")
	Mark      string
	MarkTitle string
}

// pageFace is what a tile shows of its page.
type pageFace struct {
	Place      string
	Holder     lab.Holder
	Ref        int32
	FragCount  int64
	Pfmemalloc bool
}

// note is a slot's description as a format and its integer arguments,
// formatted only when drawn.
type note struct {
	Fmt  string
	Args [4]int
	N    uint8 // arguments used
}

func noteOf(format string, args ...int) note {
	if len(args) > 4 {
		panic(fmt.Sprintf("noteOf(%q): %d arguments, at most 4", format, len(args)))
	}
	n := note{Fmt: format, N: uint8(len(args))}
	copy(n.Args[:], args)
	return n
}

func (n note) String() string {
	if n.N == 0 {
		return n.Fmt
	}
	args := make([]any, n.N)
	for i := range args {
		args[i] = n.Args[i]
	}
	return fmt.Sprintf(n.Fmt, args...)
}

type cellKind uint8

const (
	cellEmpty cellKind = iota
	cellTile
	cellStale
)

// TileRow draws a row of cells. It is a component of its own so that
// go-app re-renders only the rows whose cells changed (a step moves a few
// pages, and the others' rows are skipped whole); in the browser its
// tiles are drawn by morphRow (morph.go says why), and a server-side
// render writes the same markup.
type TileRow struct {
	ga.Compo
	Class string
	Cells []Cell
}

func (c *TileRow) Render() (ui ga.UI) {
	defer guardRender(&ui, "TileRow")
	if ga.IsClient {
		return ga.Div().Class(c.Class) // its children: OnMount, OnUpdate
	}
	return ga.Raw(c.html())
}

func (c *TileRow) OnMount(ga.Context)  { morphRow(c.JSValue(), c.html()) }
func (c *TileRow) OnUpdate(ga.Context) { morphRow(c.JSValue(), c.html()) }

// html is the row's markup.
func (c *TileRow) html() string {
	var b strings.Builder
	b.Grow(64 + 200*len(c.Cells))
	b.WriteString(`<div class="`)
	b.WriteString(html.EscapeString(c.Class))
	b.WriteString(`">`)
	for i := range c.Cells {
		writeCell(&b, &c.Cells[i])
	}
	b.WriteString(`</div>`)
	return b.String()
}

// writeCell writes cell c's markup: a tile is a button (tabindex -1: its
// figure is the tab stop, the arrow keys move between its tiles, a11y.go;
// clicks: onTile, on the machine's body), an empty or stale slot a span.
func writeCell(b *strings.Builder, c *Cell) {
	if c.Mark != "" {
		b.WriteString(`<span class="ring-cell">`)
	}
	switch c.Kind {
	case cellTile:
		label, cls, fc := c.tileText()
		// The label is the tooltip too: tileTitle sets title from it
		// when the pointer is over the tile (a second copy of each label
		// in every redraw cost a fifth of it).
		attr(b, "<button", "class", cls)
		b.WriteString(` tabindex="-1"`)
		attr(b, "", "aria-label", label)
		b.WriteString(` data-pfn="`)
		b.WriteString(strconv.Itoa(int(c.PFN)))
		b.WriteString(`">`)
		b.WriteString(strconv.Itoa(int(c.Face.Ref)))
		if fc != "" && c.Face.FragCount != 1 {
			b.WriteString(`<span class="frag">`)
			b.WriteString(html.EscapeString(fc))
			b.WriteString(`</span>`)
		}
		b.WriteString(`</button>`)
	case cellStale:
		attr(b, "<span", "class", "slot stale")
		attr(b, "", "title", fmt.Sprintf("stale slot: still points at pfn %#x, consumed, not yet zeroed (ptr_ring zeroes in batches)", c.PFN))
		b.WriteString(`></span>`)
	default:
		attr(b, "<span", "class", "slot")
		attr(b, "", "title", c.Note.String())
		b.WriteString(` aria-hidden="true"></span>`)
	}
	if c.Mark != "" {
		attr(b, "<span", "class", "mark")
		attr(b, "", "title", c.MarkTitle)
		b.WriteString(`>`)
		b.WriteString(html.EscapeString(c.Mark))
		b.WriteString(`</span></span>`)
	}
}

// attr writes prefix and then the attribute name="value", escaped.
func attr(b *strings.Builder, prefix, name, value string) {
	b.WriteString(prefix)
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteString(`="`)
	b.WriteString(html.EscapeString(value))
	b.WriteByte('"')
}

// tileText is a tile's label (what a screen reader says and the tooltip
// shows), its classes and its frag-count text.
func (c *Cell) tileText() (label, cls, fc string) {
	f := &c.Face
	cls = "tile place-" + f.Place
	if c.Changed {
		cls += " changed"
	}
	if c.Selected {
		cls += " selected"
	}
	if f.Pfmemalloc {
		cls += " pfmemalloc"
	}
	label = fmt.Sprintf("page pfn %#x: %s (%s), refcount %d", c.PFN, f.Place, holderText(f.Holder), f.Ref)
	fc = lab.FragText(f.FragCount)
	if fc != "" {
		label += ", frag count " + fc
	}
	if c.Note.Fmt != "" {
		label += ", " + c.Note.String()
	}
	if c.Changed {
		label += " — moved in the last step"
	}
	return label, cls, fc
}

// holderText is who holds a page, in words: the holder's kind and its id
// ("skb 12", "pool 1"), the kind alone when it has none (a page the
// driver or the caller holds, or the page allocator's).
func holderText(h lab.Holder) string {
	if h.ID < 0 {
		return h.Kind
	}
	return fmt.Sprintf("%s %d", h.Kind, h.ID)
}

// tileCell is page p as a tile.
func tileCell(p lab.PageView, changed, selected bool, n note) Cell {
	return Cell{Kind: cellTile, PFN: p.PFN, Changed: changed, Selected: selected, Note: n,
		Face: pageFace{Place: p.Place, Holder: p.Holder, Ref: p.Ref, FragCount: p.FragCount, Pfmemalloc: p.Pfmemalloc}}
}

// emptyCell is a slot with no page.
func emptyCell(what note) Cell { return Cell{Kind: cellEmpty, PFN: -1, Note: what} }

// staleCell is a ptr_ring slot that still points at a consumed page (lazy
// zeroing): not ring contents.
func staleCell(pfn int32) Cell { return Cell{Kind: cellStale, PFN: pfn} }
