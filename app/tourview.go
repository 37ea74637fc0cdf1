package app

import (
	"fmt"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/tour"
)

// The tour's components besides Tour: pure functions of their props (the
// chapters themselves are app/tour's data).

// TourNav is the tour's header: the way back to the playground and the
// chapter list.
type TourNav struct {
	ga.Compo
	Current string // the chapter shown ("" for the index)
	Prefix  string // the site's sub-path
}

func (n *TourNav) Render() (ui ga.UI) {
	defer guardRender(&ui, "TourNav")
	var items []ga.UI
	for i, c := range tour.Chapters() {
		a := ga.A().Href(n.Prefix + c.Path()).Title(c.Title).OnClick(onTourLink).Text(fmt.Sprintf("%d. %s", i+1, shortTitle(c.Title)))
		if c.Slug == n.Current {
			a = a.Aria("current", "page").Class("current")
		}
		items = append(items, ga.Li().Body(a))
	}
	return ga.Header().Class("tour-top").Body(
		ga.A().Class("skip").Href("#tour-title").Text("skip to the chapter"),
		ga.P().Class("tour-brand").Body(
			ga.A().ID("tour-home").Href(n.Prefix+"/").Text("pplab"),
			ga.Text(" · "),
			ga.A().ID("tour-index-link").Href(n.Prefix+tour.IndexPath).OnClick(onTourLink).Text("the guided tour"),
		),
		ga.Nav().Aria("label", "chapters").Body(ga.Ol().Class("tour-chapters").Body(items...)),
	)
}

// shortTitle is a chapter title up to its colon (the chapter list's label).
func shortTitle(t string) string {
	for i, r := range t {
		if r == ':' {
			return t[:i]
		}
	}
	return t
}

// TourIndex is the tour's first page: what it is and the chapters.
type TourIndex struct {
	ga.Compo
	Prefix string
}

func (x *TourIndex) Render() (ui ga.UI) {
	defer guardRender(&ui, "TourIndex")
	var items []ga.UI
	for _, c := range tour.Chapters() {
		items = append(items, ga.Li().Body(
			ga.A().Href(x.Prefix+c.Path()).OnClick(onTourLink).Text(c.Title),
			ga.P().Class("meta").Text(c.Lede),
		))
	}
	first := tour.Chapters()[0]
	return ga.Article().Class("tour-prose tour-index").Body(
		ga.H1().ID("tour-title").TabIndex(-1).Text("The guided tour of page_pool"),
		ga.P().Text("Eight short chapters on how the Linux kernel recycles network buffers, from the pool's two stores to the drivers that use them. Each sentence with a link sets the figure beside it — the playground's machine, running the engine's model of the kernel of that era — to the state it talks about; step it with the buttons or → and ←, or open the same state in the full playground."),
		ga.P().Body(ga.A().ID("tour-start").Class("tour-start").Href(x.Prefix+first.Path()).OnClick(onTourLink).Text("Start with chapter 1: "+first.Title+" →")),
		ga.Ol().Class("tour-toc").Body(items...),
	)
}

// TourProse is one chapter's text: its paragraphs with their links, the
// measurements it quotes, and the way to the previous and next chapters.
type TourProse struct {
	ga.Compo
	Slug   string
	Index  int
	Active string // the preset the figure is at ("" for none)
	Prefix string
	// Present is the paragraph presenter mode shows (-1: not presenting,
	// every paragraph shows).
	Present int
}

func (p *TourProse) Render() (ui ga.UI) {
	defer guardRender(&ui, "TourProse")
	c, _, ok := tour.BySlug(p.Slug)
	if !ok {
		return ga.Article().Class("tour-prose")
	}
	body := []ga.UI{
		ga.P().Class("meta tour-count").Text(fmt.Sprintf("Chapter %d of %d", p.Index+1, len(tour.Chapters()))),
		ga.H1().ID("tour-title").TabIndex(-1).Text(c.Title),
	}
	printed := map[string]bool{}
	for i, para := range c.Paras {
		in := tour.MustParse(para, c.Era)
		el := ga.P()
		if i == p.Present {
			el = el.Class("para-current")
		}
		body = append(body, el.Body(p.inlines(c, in)...))
		body = append(body, p.printFigs(c, in, printed)...)
	}
	if len(c.Numbers) > 0 {
		body = append(body, numbersTable(c))
	}
	body = append(body, p.pager())
	return ga.Article().Class("tour-prose").Aria("labelledby", "tour-title").Body(body...)
}

// printFigs are the static pictures of the presets paragraph in links
// (each once in the chapter: printed notes those already shown), drawn at
// the site's build (app/tourprint): the printed page shows them in place of
// the live figure, the screen never (web/app.css's print rules). The
// pictures load with the page (no lazy loading: a print must find them).
func (p *TourProse) printFigs(c tour.Chapter, in []tour.Inline, printed map[string]bool) []ga.UI {
	var out []ga.UI
	for _, x := range in {
		pr, ok := c.Preset(x.Preset)
		if x.Kind != tour.KindPreset || !ok || printed[pr.ID] {
			continue
		}
		printed[pr.ID] = true
		out = append(out, ga.Figure().Class("print-fig").DataSet("preset", pr.ID).Body(
			ga.Img().Src(p.Prefix+c.FigPath(pr)).Alt(pr.Caption),
			ga.FigCaption().Text(pr.Caption),
		))
	}
	return out
}

func (p *TourProse) inlines(c tour.Chapter, in []tour.Inline) []ga.UI {
	out := make([]ga.UI, 0, len(in))
	for _, x := range in {
		switch x.Kind {
		case tour.KindPreset:
			pr, _ := c.Preset(x.Preset)
			a := ga.A().Class("preset").Href(p.Prefix+c.Link(pr)).DataSet("preset", x.Preset).Title("set the figure: " + pr.Caption).OnClick(onTourLink).Body(codeSpans(x.Text)...)
			if x.Preset == p.Active {
				a = a.Class("active").Aria("current", "step")
			}
			out = append(out, a)
		case tour.KindLink:
			out = append(out, ga.A().Href(x.Href).Target("_blank").Rel("noopener").Text(x.Text))
		case tour.KindIdent:
			code := ga.Code().Text(x.Ident)
			if u := tour.IdentURL(x.Era, x.Ident); u != "" {
				out = append(out, ga.A().Class("ident").Href(u).Target("_blank").Rel("noopener").Title(tour.IdentTitle(x.Era, x.Ident)).Body(code))
			} else {
				out = append(out, code)
			}
		case tour.KindCode:
			out = append(out, ga.Code().Text(x.Text))
		default:
			out = append(out, ga.Text(x.Text))
		}
	}
	return out
}

func numbersTable(c tour.Chapter) ga.UI {
	rows := []ga.UI{ga.Tr().Body(ga.Th().Scope("col").Text("what"), ga.Th().Scope("col").Text("measured"), ga.Th().Scope("col").Text("model"), ga.Th().Scope("col").Text("source"))}
	for _, n := range c.Numbers {
		m := n.Measured
		if m == "" {
			m = "—"
		}
		rows = append(rows, ga.Tr().Body(ga.Td().Text(n.What), ga.Td().Class("num").Text(m), ga.Td().Class("num").Text(n.Model), ga.Td().Class("src").Text(n.Source)))
	}
	return ga.Figure().Class("tour-numbers").Body(
		ga.Div().Class("table-scroll").Body(ga.Table().Class("stats-table").Body(ga.TBody().Body(rows...))),
		ga.FigCaption().Class("meta").Text(c.NumbersNote),
	)
}

func (p *TourProse) pager() ga.UI {
	var prev, next ga.UI
	if c, ok := tour.Prev(p.Index); ok {
		prev = ga.A().ID("tour-prev").Rel("prev").Href(p.Prefix + c.Path()).OnClick(onTourLink).Text("← " + shortTitle(c.Title))
	} else {
		prev = ga.A().ID("tour-prev").Rel("prev").Href(p.Prefix + tour.IndexPath).OnClick(onTourLink).Text("← all chapters")
	}
	if c, ok := tour.Next(p.Index); ok {
		next = ga.A().ID("tour-next").Rel("next").Href(p.Prefix + c.Path()).OnClick(onTourLink).Text(shortTitle(c.Title) + " →")
	} else {
		next = ga.A().ID("tour-end").Href(p.Prefix + "/").Text("The end: the full playground →")
	}
	return ga.Nav().Class("tour-pager").Aria("label", "previous and next chapter").Body(prev, next)
}

// TourCaption is the figure's head: what the state shows, the stepping
// buttons, and the link that opens the same state in the playground.
type TourCaption struct {
	ga.Compo
	Caption string
	Subject string // the page or structure the sentence is about, in words ("" for none)
	// Presenting: presenter mode is on (its button leaves it).
	Presenting bool
	Op         uint64
	Done       bool
	Try        string // the playground's URL of this state
}

func (f *TourCaption) Render() (ui ga.UI) {
	defer guardRender(&ui, "TourCaption")
	btn := func(id, text, key, act string) ga.UI {
		return ga.Button().ID(id).DataSet("act", act).Title(text+" ("+key+")").Aria("keyshortcuts", key).Text(text).OnClick(onButton)
	}
	return ga.Div().Class("tour-caption panel").Body(
		ga.P().ID("tour-caption").Body(ga.Strong().Text("The figure: "), ga.Text(f.Caption)),
		ga.If(f.Subject != "", func() ga.UI {
			return ga.P().ID("tour-look").Class("tour-look").Body(ga.Strong().Text("Look at: "), ga.Span().ID("tour-subject").Text(f.Subject))
		}),
		ga.Div().Class("buttons").Body(
			btn("tour-back", "◀ back", "ArrowLeft", actBack),
			btn("tour-step", "step ▶", "ArrowRight", actStep),
			btn("tour-packet", "packet ▶▶", "Shift+ArrowRight", actPacket),
			btn("tour-reset", "reset", "R", actReset),
			ga.Button().ID("tour-present").Title("presenter mode: full screen, one paragraph at a time; PageDown and PageUp go through the chapter's links (P)").Aria("keyshortcuts", "P").Aria("pressed", f.Presenting).Text(map[bool]string{false: "present", true: "leave presenting"}[f.Presenting]).OnClick(onPresent),
			ga.Span().Class("meta").Body(ga.Text("op "), ga.Strong().ID("tour-op").Text(fmt.Sprint(f.Op))),
			ga.A().ID("tour-try").Class("tour-try").Href(f.Try).Text("try it in the playground →"),
		),
	)
}

// codeSpans is a link's words with its `code` spans as code (the markup's
// backticks inside a link's text).
func codeSpans(text string) []ga.UI {
	var out []ga.UI
	for i, part := range strings.Split(text, "`") {
		switch {
		case part == "":
		case i%2 == 1:
			out = append(out, ga.Code().Text(part))
		default:
			out = append(out, ga.Text(part))
		}
	}
	return out
}
