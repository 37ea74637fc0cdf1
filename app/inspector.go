package app

import (
	"fmt"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// Inspector shows every field of the selected page and its moves in the
// recent steps.
type Inspector struct {
	ga.Compo
	V session.InspectorView
}

func (c *Inspector) Render() (ui ga.UI) {
	defer guardRender(&ui, "Inspector")
	v := c.V
	if !v.Has {
		return ga.Section().ID("inspector").Class("panel inspector").Aria("label", "page inspector").Body(
			ga.H2().Text("Page inspector"),
			ga.P().Class("meta").Text("Select a page tile (click it, or Tab to its figure, move to it with the arrow keys and press Enter) to see its fields."))
	}
	p := v.Page
	rows := [][2]string{}
	switch {
	case v.Free:
		rows = append(rows, [2]string{"place", "buddy (free in the page allocator)"})
	case p.NetIov:
		// struct net_iov: no struct page, no _refcount, no NUMA node, no
		// pfmemalloc; its DMA address is its binding's, set once at bind.
		rows = append(rows,
			[2]string{"place", p.Place},
			[2]string{"holder", holderText(p.Holder)},
			[2]string{"pp_ref_count", fmt.Sprint(p.FragCount)},
			[2]string{"pp_magic", fmt.Sprintf("%#x", p.Magic)},
			markRow(p.Signature, v.SignatureCheck, v.PageType),
			[2]string{"net_iov->pp", poolName(p.PP)},
			[2]string{"counted in flight by", poolName(p.Owner)},
			[2]string{"binding (owner)", fmt.Sprintf("%s #%d", p.BindingKind, p.Binding)},
			[2]string{"dma_addr", fmt.Sprintf("%#x (the binding's %#x + %d × PAGE_SIZE)", p.DMAAddr, p.BindingDMA, (p.DMAAddr-p.BindingDMA)/4096)},
			[2]string{"users (skbs, the application)", fmt.Sprint(p.Users)},
			[2]string{"recycled", fmt.Sprintf("%d times", p.Recycles)},
		)
	default:
		rows = append(rows,
			[2]string{"place", p.Place},
			[2]string{"holder", holderText(p.Holder)},
			[2]string{"NUMA node", fmt.Sprint(p.Node)},
			[2]string{"_refcount", fmt.Sprint(p.Ref)},
			[2]string{"pp_frag_count / pp_ref_count", fragOrZero(p.FragCount)},
			[2]string{"pp_magic", fmt.Sprintf("%#x", p.Magic)},
			markRow(p.Signature, v.SignatureCheck, v.PageType),
			[2]string{"page->pp", poolName(p.PP)},
			[2]string{"counted in flight by", poolName(p.Owner)},
			[2]string{"DMA mapped", fmt.Sprintf("%s (dma_addr %#x)", yesNo(p.Mapped), p.DMAAddr)},
			[2]string{"pfmemalloc", yesNo(p.Pfmemalloc)},
			[2]string{"users (skbs, descriptors)", fmt.Sprint(p.Users)},
			[2]string{"recycled", fmt.Sprintf("%d times", p.Recycles)},
		)
		if p.Order > 0 {
			rows = append(rows, [2]string{"order", fmt.Sprint(p.Order)})
		}
	}
	var trs []ga.UI
	for _, r := range rows {
		trs = append(trs, ga.Tr().Body(ga.Th().Scope("row").Text(r[0]), ga.Td().Text(r[1])))
	}
	var moves []ga.UI
	for _, m := range v.Moves {
		moves = append(moves, ga.Li().Text(fmt.Sprintf("op %d (%s): %s → %s", m.Op+1, m.Label, m.From, m.To)))
	}
	title, id := "Page ", fmt.Sprintf("pfn %#x", v.PFN)
	if p.NetIov && !v.Free {
		title, id = "net_iov ", fmt.Sprintf("#%d", v.PFN) // the model's index: a net_iov has no frame number
	}
	return ga.Section().ID("inspector").Class("panel inspector").Aria("label", "page inspector").Body(
		ga.H2().Body(ga.Text(title), ga.Code().ID("inspected-pfn").Text(id),
			ga.Button().Class("link").Aria("label", "close the inspector").Text("×").OnClick(onCloseInspector)),
		ga.Table().Class("fields").Body(ga.TBody().Body(trs...)),
		ga.H3().Text("moves in the recent steps"),
		ga.If(len(moves) == 0, func() ga.UI { return ga.P().Class("meta").Text("none recorded") }),
		ga.Ul().Class("plain").Body(moves...),
	)
}

// markRow is the row of the page's page_pool mark: whether the page carries
// it, and the test the era's kernel uses for it. The mark is a signature in
// pp_magic (page->signature in the RFC), or in 7.1-rc1 a page type
// (PGTY_netpp, db359fccf212): that row is labelled "page type".
func markRow(has bool, check string, pageType bool) [2]string {
	if pageType {
		return [2]string{"page type", yesNo(has) + " (PGTY_netpp) — the era's test: " + check}
	}
	if check == "" {
		return [2]string{"signature", yesNo(has) + " (this era's pages carry no page_pool mark: nothing tests for one)"}
	}
	return [2]string{"signature", yesNo(has) + " — the era's test: " + check}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func poolName(id int32) string {
	if id == 0 {
		return "none"
	}
	return fmt.Sprintf("pool #%d", id)
}

func fragOrZero(c int64) string {
	if s := lab.FragText(c); s != "" {
		return s
	}
	return "0"
}
