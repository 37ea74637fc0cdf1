package app

import (
	"fmt"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
)

// Cell is one slot the machine draws: a page tile, an empty slot or a
// stale ptr_ring slot, with the marks of the ring positions that point at
// it (P/C on a ptr_ring, N/F on a NIC ring).
type Cell struct {
	Kind      cellKind
	PFN       int32
	Class     string // the tile's classes (place, changed, selected, pfmemalloc)
	Label     string // what a screen reader says and the tooltip shows
	Ref, Frag string // the badges: refcount, frag count
	Mark      string
	MarkTitle string
}

type cellKind uint8

const (
	cellEmpty cellKind = iota
	cellTile
	cellStale
)

// TileRow draws a row of cells. It is a component of its own so that
// go-app re-renders (and diffs) only the rows whose cells changed: a step
// moves a few pages, and the others' rows are skipped whole.
type TileRow struct {
	ga.Compo
	Class string
	Cells []Cell
}

func (c *TileRow) Render() (ui ga.UI) {
	defer guardRender(&ui, "TileRow")
	kids := make([]ga.UI, len(c.Cells))
	for i := range c.Cells {
		kids[i] = renderCell(&c.Cells[i])
	}
	return ga.Div().Class(c.Class).Body(kids...)
}

func renderCell(c *Cell) ga.UI {
	var el ga.UI
	switch c.Kind {
	case cellTile:
		kids := []ga.UI{ga.Span().Class("ref").Text(c.Ref)}
		if c.Frag != "" {
			kids = append(kids, ga.Span().Class("frag").Text(c.Frag))
		}
		el = ga.Button().Class(c.Class).Title(c.Label).Aria("label", c.Label).DataSet("pfn", c.PFN).OnClick(onTile).Body(kids...)
	case cellStale:
		el = ga.Span().Class("slot stale").Title(c.Label)
	default:
		el = ga.Span().Class("slot").Title(c.Label).Aria("hidden", "true")
	}
	if c.Mark == "" {
		return el
	}
	return ga.Span().Class("ring-cell").Body(el, ga.Span().Class("mark").Title(c.MarkTitle).Text(c.Mark))
}

// tileCell is page p as a tile.
func tileCell(p lab.PageView, changed, selected bool, note string) Cell {
	cls := "tile place-" + p.Place
	if changed {
		cls += " changed"
	}
	if selected {
		cls += " selected"
	}
	if p.Pfmemalloc {
		cls += " pfmemalloc"
	}
	label := fmt.Sprintf("page pfn %#x: %s (%s %d), refcount %d", p.PFN, p.Place, p.Holder.Kind, p.Holder.ID, p.Ref)
	fc := lab.FragText(p.FragCount)
	if fc != "" {
		label += ", frag count " + fc
	}
	if note != "" {
		label += ", " + note
	}
	if changed {
		label += " — moved in the last step"
	}
	c := Cell{Kind: cellTile, PFN: p.PFN, Class: cls, Label: label, Ref: strconv.Itoa(int(p.Ref))}
	if fc != "" && p.FragCount != 1 {
		c.Frag = fc
	}
	return c
}

// emptyCell is a slot with no page.
func emptyCell(what string) Cell { return Cell{Kind: cellEmpty, PFN: -1, Label: what} }

// staleCell is a ptr_ring slot that still points at a consumed page (lazy
// zeroing): not ring contents.
func staleCell(pfn int32) Cell {
	return Cell{Kind: cellStale, PFN: pfn, Label: fmt.Sprintf("stale slot: still points at pfn %#x, consumed, not yet zeroed (ptr_ring zeroes in batches)", pfn)}
}
