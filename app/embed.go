package app

import (
	"fmt"
	"math"
	"net/url"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// Embed mode (?embed=1, session/embed.go): the page is only the figure —
// the step controls, the narration line and the machine at the state, its
// text equivalent — with an "open in pplab" link to the same state in the
// full playground. It reports its height to the parent window (a
// ResizeObserver on the page: on load and whenever it changes) as
// {type: "pplab:height", height: N}.

// renderEmbed is the Playground's render in embed mode.
func (p *Playground) renderEmbed() ga.UI {
	v := &p.view
	full := p.stateURL(v.Embed.Full)
	return ga.Main().ID("playground").Class("playground embed").DataSet("mounted", "1").Body(
		ga.Header().Class("embed-top").Body(
			ga.Span().Class("embed-title").Body(ga.Strong().Text("pplab"), ga.Text(" "), ga.Span().Class("meta").Text(embedCaption(v))),
			ga.A().ID("open-full").Class("open-full").Href(full).Target("_blank").Rel("noopener").
				Title("the full playground at this state: controls, counters, charts, trace").Text("open in pplab ↗"),
		),
		&Banner{Items: v.Banner},
		&Timeline{V: v.Timeline},
		&NarrationLine{V: v.Narration},
		&LiveRegion{Text: v.Live},
		&Machine{V: v.Machine},
		&TextTables{ID: "machine-table", Which: session.TableMachine, Summary: "the machine as a table (places and counts)", Tables: v.MachineTables},
	)
}

// embedCaption says what the embed shows (the config; the op is beside
// the scrubber).
func embedCaption(v *session.View) string {
	c := &v.Controls
	s := c.Scenario
	if d := v.Narration.Driver; d != "" {
		s += " on " + d
	}
	return s + ", kernel " + v.Narration.Era
}

// NarrationLine is the narration's first line: the operation shown, its
// kernel function (linked into the era's source) and what it did; what
// comes next.
type NarrationLine struct {
	ga.Compo
	V session.NarrationView
}

func (n *NarrationLine) Render() (ui ga.UI) {
	defer guardRender(&ui, "NarrationLine")
	c := &n.V
	next := c.Next
	if c.Done {
		next = "the run is complete"
		if c.Err != "" {
			next = "the run stopped: " + c.Err
		}
	}
	var line ga.UI
	if !c.Has {
		line = ga.P().ID("narration-text").Text(idleText(c.Op, true))
	} else {
		r := c.Rec
		extra := ""
		if n := len(r.Violations); n > 0 {
			extra = fmt.Sprintf(" · %d violation(s) found", n)
		}
		line = ga.P().ID("narration-text").Body(
			ga.Text(fmt.Sprintf("op %d on cpu%d: ", r.Op.Index+1, r.Op.CPU)),
			sourceLink(lab.Source(c.Era, c.Driver, r.Op.Func), "narration-fn"),
			ga.Text(" — "+r.Op.Label),
			ga.If(extra != "", func() ga.UI { return ga.Strong().Class("violation").Text(extra) }),
		)
	}
	return ga.Section().ID("narration").Class("panel narration narration-line").Aria("label", "what happened").Body(
		line,
		ga.P().Class("next").Body(ga.Strong().Text("next: "), ga.Span().ID("next-op").Text(next)),
	)
}

// stateURL is the page's URL with query q (a link to a state).
func (p *Playground) stateURL(q string) string {
	if p.ctx.Page() == nil {
		return "?" + q
	}
	u := *p.ctx.Page().URL()
	u.RawQuery, u.Fragment = q, ""
	return u.String()
}

// copyEmbed copies the <iframe> snippet of the state and shows it.
func (p *Playground) copyEmbed() {
	page := p.stateURL("")
	if u, err := url.Parse(page); err == nil {
		u.RawQuery = ""
		page = u.String()
	}
	snippet := session.EmbedSnippet(page, p.view.Embed)
	if clip := ga.Window().Get("navigator").Get("clipboard"); clip.Truthy() {
		clip.Call("writeText", snippet)
	}
	p.s.Notify("notice", "embed snippet for this state (copied; the script sizes the iframe from its "+session.HeightMessage+" messages): "+snippet)
}

// heightReporter posts the embed's height to the parent window.
type heightReporter struct {
	observe ga.Func
	last    int
	// playing: while the embed plays its height only grows (a narration
	// line that wraps or not made it jitter 1306↔1338 px and the host page
	// jump); at a pause it follows the content again.
	playing bool
}

// setPlaying tells the reporter whether the embed plays; at a pause it
// reports the height the content has.
func (h *heightReporter) setPlaying(on bool) {
	was := h.playing
	h.playing = on
	if was && !on && h.observe != nil {
		h.report()
	}
}

var embedHeight heightReporter

// mountEmbed starts the height reports when the page is an embed in a
// frame.
func (p *Playground) mountEmbed(ctx ga.Context) {
	if p.s == nil || !p.s.Embedded() || embedHeight.observe != nil {
		return
	}
	w := ga.Window()
	if parent := w.Get("parent"); !parent.Truthy() || parent.Equal(w) {
		return // opened on its own: nobody to tell
	}
	embedHeight.observe = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		defer recoverListener("embed height")
		embedHeight.report()
		return nil
	})
	ro := w.Get("ResizeObserver")
	if !ro.Truthy() {
		w.Call("addEventListener", "resize", embedHeight.observe)
		ctx.Defer(func(ga.Context) { embedHeight.report() })
		return
	}
	obs := ro.New(embedHeight.observe)
	// The page's main element (its height is the content's; the body's
	// would follow the frame the host sized).
	ctx.Defer(func(ga.Context) {
		if el := w.GetElementByID("playground"); el.Truthy() {
			obs.Call("observe", el)
		}
		obs.Call("observe", w.Get("document").Get("documentElement"))
	})
}

// report posts the height when it changed.
func (h *heightReporter) report() {
	w := ga.Window()
	el := w.GetElementByID("playground")
	if !el.Truthy() {
		return
	}
	r := el.Call("getBoundingClientRect")
	n := int(math.Ceil(r.Get("bottom").Float() + w.Get("scrollY").Float()))
	if n == h.last || n <= 0 || h.playing && n < h.last {
		return
	}
	h.last = n
	w.Get("parent").Call("postMessage", map[string]any{"type": session.HeightMessage, "height": n}, "*")
}

// onCopyEmbed: the copy-embed-snippet button.
func onCopyEmbed(ctx ga.Context, e ga.Event) { ctx.NewAction(actCopyEmbed) }
