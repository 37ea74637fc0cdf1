package app

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
)

// SkbCard draws one live sk_buff: its id, length and flags, its head page
// and its frag pages. It is a component so that go-app skips a card whose
// skb and pages did not change (an RX step adds one card to a group of a
// dozen; the others are not redrawn), and it is drawn as a TileRow is
// (morph.go). Cards are matched by position, so a queue that loses its
// first skb redraws the cards after it.
type SkbCard struct {
	ga.Compo
	SKB   lab.SKBView
	Head  Cell   // the head page's tile (unset when stolen or kmalloc'ed)
	Frags []Cell // one per frag, in order
}

func (k *SkbCard) Render() (ui ga.UI) {
	defer guardRender(&ui, "SkbCard")
	if ga.IsClient {
		return ga.Div().Class("skb") // its children: OnMount, OnUpdate
	}
	return ga.Raw(k.html())
}

func (k *SkbCard) OnMount(ga.Context)  { morphRow(k.JSValue(), k.html()) }
func (k *SkbCard) OnUpdate(ga.Context) { morphRow(k.JSValue(), k.html()) }

// html is the card's markup (drawn as a TileRow is: tile.go).
func (k *SkbCard) html() string {
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
	var b strings.Builder
	b.Grow(256 + 200*len(k.Frags))
	b.WriteString(`<div class="skb" data-skb="`)
	b.WriteString(strconv.Itoa(int(s.ID)))
	b.WriteString(`"><div class="skb-title">skb#`)
	b.WriteString(strconv.Itoa(int(s.ID)))
	b.WriteString(`</div><div class="meta">`)
	b.WriteString(html.EscapeString(flags))
	b.WriteString(`</div><div class="skb-pages"><span class="lbl">head</span>`)
	switch {
	case s.HeadPFN < 0:
		b.WriteString(`<span class="meta">head stolen</span>`)
	case s.SlabHead:
		attr(&b, "<span", "class", "slab-head")
		attr(&b, "", "title", fmt.Sprintf("a kmalloc'ed head in slab page pfn %#x: never a page_pool page", s.HeadPFN))
		b.WriteString(`>kmalloc head</span>`)
	default:
		writeCell(&b, &k.Head)
	}
	if len(k.Frags) > 0 {
		b.WriteString(`<span class="lbl">frags</span><span class="skb-frags">`)
		for i := range k.Frags {
			writeCell(&b, &k.Frags[i])
		}
		b.WriteString(`</span>`)
	}
	b.WriteString(`</div></div>`)
	return b.String()
}
