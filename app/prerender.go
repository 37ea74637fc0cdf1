package app

import (
	"fmt"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/tour"
	"pplab/engine/sim"
)

// SiteIntro is what the playground's page says before the engine runs: go-app
// prerenders it into the static index.html (and the live server's page), so
// a reader on a slow link, a search engine or a browser without WebAssembly
// has what pplab is and the way into the tour — every chapter with its link
// and its one-sentence lede — while app.wasm downloads. The mounted
// playground keeps it, folded or not (IntroFold).
type SiteIntro struct {
	ga.Compo
}

func (x *SiteIntro) Render() (ui ga.UI) {
	defer guardRender(&ui, "SiteIntro")
	var items []ga.UI
	for _, c := range tour.Chapters() {
		items = append(items, ga.Li().Body(
			ga.A().Href(sitePath(c.Path())).Text(c.Title),
			ga.Text(" — "+c.Lede),
		))
	}
	return ga.Section().ID("intro").Class("intro").Aria("label", "about pplab").Body(
		ga.P().Text("pplab runs a Go model of the kernel's page_pool — the pool's alloc cache and ptr_ring, its slow path, the skb recycling decision, the frag API, destroy and NUMA handling, per kernel era from "+sim.Eras[0].Name+" to "+sim.Eras[len(sim.Eras)-1].Name+" — in the browser as WebAssembly. Pick a driver, a scenario and an era, break a rule, and step through what the kernel does with every page; the counters carry the drivers' own ethtool -S names."),
		ga.Nav().ID("intro-tour").Aria("label", "the guided tour").Body(
			ga.H2().Body(ga.A().Href(sitePath(tour.IndexPath)).Text("The guided tour")),
			ga.Ol().Body(items...),
		),
		ga.P().Body(ga.A().Href(sitePath(RulesPath)).Text("Every rule you can break"), ga.Text(": what it prevents, the kernel function whose test it is, and what breaking it shows.")),
	)
}

// IntroFold is SiteIntro in the mounted playground, right under the header
// where the loading page had it: the text a reader was reading while
// app.wasm downloaded stays in the page when the engine mounts. Open when
// the reader was in the intro then (introplace.go: the window scrolled
// down to it, the focus or a selection in it), and the reader's place is
// kept; else folded to its summary line, and the playground's controls
// come right after the header. The one #intro of the page (the loading
// page's is gone by then).
type IntroFold struct {
	ga.Compo
	Open bool
}

func (x *IntroFold) Render() (ui ga.UI) {
	defer guardRender(&ui, "IntroFold")
	return detailsOpen(ga.Details().ID("intro-more").Class("intro-more"), x.Open).Body(
		ga.Summary().Body(ga.Text(introSummaryLead), ga.Span().Class("intro-count").Text(introSummaryCount())),
		&SiteIntro{},
	)
}

// introSummary is IntroFold's summary line: its lead, and the count of
// chapters (a span that does not break: on a phone the line wraps before
// it, not inside it).
func introSummary() string { return introSummaryLead + introSummaryCount() }

const introSummaryLead = "About pplab and the guided tour "

func introSummaryCount() string { return fmt.Sprintf("(%d chapters)", len(tour.Chapters())) }
