package app

import (
	"fmt"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
)

// SkbCard draws one live sk_buff: its id, length and flags, its head page
// and its frag pages. It is a component so that go-app skips a card whose
// skb and pages did not change (an RX step adds one card to a group of a
// dozen; the others are not redrawn). Cards are matched by position, so a
// queue that loses its first skb redraws the cards after it.
type SkbCard struct {
	ga.Compo
	SKB   lab.SKBView
	Head  Cell   // the head page's tile (unset when stolen or kmalloc'ed)
	Frags []Cell // one per frag, in order
}

func (k *SkbCard) Render() (ui ga.UI) {
	defer guardRender(&ui, "SkbCard")
	s := &k.SKB
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
		head = renderCell(&k.Head)
	}
	frags := make([]ga.UI, len(k.Frags))
	for i := range k.Frags {
		frags[i] = renderCell(&k.Frags[i])
	}
	return ga.Div().Class("skb").DataSet("skb", s.ID).Body(
		ga.Div().Class("skb-title").Text(fmt.Sprintf("skb#%d", s.ID)),
		ga.Div().Class("meta").Text(flags),
		ga.Div().Class("skb-pages").Body(ga.Span().Class("lbl").Text("head"), head,
			ga.If(len(frags) > 0, func() ga.UI { return ga.Span().Class("lbl").Text("frags") }),
			ga.If(len(frags) > 0, func() ga.UI { return ga.Span().Class("skb-frags").Body(frags...) })),
	)
}
