package app

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/sim"
)

// The what-if page (/whatif/): paste a perf top listing and
// its rate, pick a change, see what the model predicts — session.WhatIf,
// the same perf.Predict as `ppsim predict`. The form lives in the
// browser's local storage (every keystroke), so a paste survives a reload
// and a visit to another page; the URL holds it only when short.

// WhatIfPath is the what-if page's path (a directory: the static site's
// whatif/index.html).
const WhatIfPath = "/whatif/"

// whatIfKey is the local-storage key of the form.
const whatIfKey = "pplab.whatif"

// whatIfDebounce: a prediction follows typing after this pause.
const whatIfDebounce = 450 * time.Millisecond

// changeDocs say what each change is (the engine's eras decide the rest).
var changeDocs = map[string]string{
	"skb-recycle": "skb recycling (5.14): a freed skb's pages go back to their pool instead of the page allocator",
	"bulk":        "bulk refill (5.13): the pool's slow path takes its pages from the page allocator in one __alloc_pages_bulk call",
	"napi-direct": "NAPI-local recycling (6.4, 6.6): an skb freed in its pool's NAPI context recycles into the lockless alloc cache, not the ptr_ring",
	"pp-napi":     "the driver gives its pool a NAPI (page_pool_params.napi, 6.4 on): the same kernel, for a driver that does not set it (mvpp2, mvneta, cpsw, hns3)",
}

// changeDoc says what a change is; an era move names its era.
func changeDoc(c string) string {
	if e, ok := strings.CutPrefix(c, "era:"); ok {
		return "a move of the listing's kernel to era " + e + ": the model runs your driver in the listing's era and in " + e + ", each with its own defaults — every change between them is in it, a slowdown included where the later kernel does more per packet"
	}
	return changeDocs[c]
}

// WhatIfPage is the page's one stateful component: the form (session.
// WhatIfInput) and the view session.WhatIf made of it.
type WhatIfPage struct {
	ga.Compo

	ctx     ga.Context
	in      session.WhatIfInput
	view    session.WhatIfView
	mounted bool
	gen     int     // the last edit, for the debounce
	crash   string  // a panic in the engine, shown; the page keeps running
	ms      float64 // the last prediction's wall time
	early   earlyForm
}

// OnInit also reads what the user typed into the prerendered page before
// the wasm was up (earlyform.go): the mounted page keeps it.
func (p *WhatIfPage) OnInit() {
	p.in = session.WhatIfDefault()
	p.compute()
	p.early = readEarlyForm(whatIfFieldIDs()...)
}

func (p *WhatIfPage) OnMount(ctx ga.Context) {
	p.ctx, p.mounted = ctx, true
	early := p.early
	p.early = earlyForm{}
	p.guard("opening the page", func() { p.load(ctx, early.vals) })
	early.refocus(ctx)
}

// OnNav: go-app keeps the component across a navigation to the same page
// (a link with another query): read the URL again.
func (p *WhatIfPage) OnNav(ctx ga.Context) {
	if p.mounted {
		p.guard("navigation", func() { p.load(ctx, nil) })
	}
}

// load takes the form from the URL (a link to a state), else from the
// storage, else the default example; a paste of one's own the URL's form
// would replace is kept as the one to restore. What the user typed into
// the prerendered page before it was up (typed, by control id: OnMount)
// goes over it, and is stored at once.
func (p *WhatIfPage) load(ctx ga.Context, typed map[string]string) {
	var stored session.WhatIfInput
	_ = ctx.LocalStorage().Get(whatIfKey, &stored)
	if in, ok := session.WhatIfFromQuery(ctx.Page().URL().Query()); ok {
		if in.Text != stored.Text && strings.TrimSpace(stored.Text) != "" && session.WhatIf(session.WhatIfInput{Text: stored.Text}).Example == "" {
			in.Previous = stored.Text
		} else {
			in.Previous = stored.Previous
		}
		p.in = in
	} else if stored.Text != "" || stored.Previous != "" {
		p.in = stored
	}
	// A hand-made link with the fields but no listing (…/whatif/?rate=100
	// &unit=kpps&change=bulk) applies them to the stored (or default)
	// listing: they were dropped.
	if q := ctx.Page().URL().Query(); q.Get("profile") == "" && q.Get("text") == "" {
		for k, set := range map[string]func(string){"rate": func(v string) { p.in.Rate = v }, "unit": func(v string) { p.in.Unit = v }, "change": func(v string) { p.in.Change = v }, "platform": func(v string) { p.in.Platform = v }} {
			if q.Has(k) {
				set(q.Get(k))
			}
		}
	}
	if len(typed) > 0 {
		p.in = keepTyped(p.in, typed)
	}
	p.compute()
	p.settle(ctx, true)
}

// guard runs a handler's work: a panic (in the engine, or here) is shown
// with the form that caused it, and the page keeps running.
func (p *WhatIfPage) guard(what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			p.crash = fmt.Sprintf("%s failed: %v (rate %q, unit %s, change %s, platform %q, %d bytes of listing; your listing is kept)", what, r, p.in.Rate, p.in.Unit, p.in.Change, p.in.Platform, len(p.in.Text))
			ga.Logf("pplab: what-if panic in %s: %v\n%s", what, r, firstLines(string(debug.Stack()), 12))
		}
	}()
	fn()
}

// compute runs the prediction, guarded: a panic is shown with the form that
// caused it, and the page keeps running.
func (p *WhatIfPage) compute() {
	defer func() {
		if r := recover(); r != nil {
			p.crash = fmt.Sprintf("the prediction failed: %v (rate %q, unit %s, change %s, platform %q, %d bytes of listing)", r, p.in.Rate, p.in.Unit, p.in.Change, p.in.Platform, len(p.in.Text))
			p.view = session.WhatIfView{Input: p.in, Examples: session.WhatIfExamples(), Changes: p.view.Changes, Units: session.WhatIfUnits}
			ga.Logf("pplab: what-if panic: %v\n%s", r, firstLines(string(debug.Stack()), 12))
		}
	}()
	start := now()
	p.crash = ""
	p.view = session.WhatIf(p.in)
	p.ms = now() - start
}

// settle after a change: store the form, put the state in the address bar,
// publish it for tests; setText also writes the text box (an example, a
// restore, a load: never while the user types in it).
func (p *WhatIfPage) settle(ctx ga.Context, setText bool) {
	_ = ctx.LocalStorage().Set(whatIfKey, p.in)
	if setText {
		text := p.in.Text
		// p.ctx, the component's: a handler's context is its element's, and
		// go-app drops a deferred call whose element the update removed
		// (the "put it back" button does go).
		p.ctx.Defer(func(ga.Context) {
			if el := ga.Window().GetElementByID("wi-text"); el.Truthy() {
				el.Set("value", text)
			}
		})
	}
	if pg := ctx.Page(); pg != nil && pg.URL() != nil {
		u := *pg.URL()
		u.RawQuery, u.Fragment = p.view.Query, ""
		if u.String() != pg.URL().String() {
			pg.ReplaceURL(&u)
		}
	}
	p.publish()
}

func (p *WhatIfPage) publish() {
	v := &p.view
	st := map[string]any{"mounted": true, "page": "whatif", "json": v.JSON, "example": v.Example, "ms": p.ms, "crash": p.crash,
		"text": p.in.Text, "rate": p.in.Rate, "unit": p.in.Unit, "change": p.in.Change, "platform": p.in.Platform, "previous": p.in.Previous != ""}
	if v.Err != nil {
		st["err"], st["errLine"], st["errField"] = v.Err.Msg, v.Err.Line, v.Err.Field
	}
	ga.Window().Set("__pplab", st)
}

// edit applies one change of the form: now (a select, the button) or after
// the debounce (typing).
func (p *WhatIfPage) edit(ctx ga.Context, fn func(), debounce bool) {
	p.guard("the edit", func() { p.editNow(ctx, fn, debounce) })
}

func (p *WhatIfPage) editNow(ctx ga.Context, fn func(), debounce bool) {
	fn()
	_ = ctx.LocalStorage().Set(whatIfKey, p.in) // the text is kept at once
	p.gen++
	if !debounce {
		p.compute()
		p.settle(ctx, false)
		return
	}
	g := p.gen
	ctx.After(whatIfDebounce, func(ctx ga.Context) {
		if g != p.gen {
			ctx.PreventUpdate()
			return
		}
		p.guard("the prediction", func() {
			p.compute()
			p.settle(ctx, false)
		})
	})
}

func (p *WhatIfPage) onText(ctx ga.Context, e ga.Event) {
	val := ctx.JSSrc().Get("value").String()
	p.edit(ctx, func() { p.in.Text = val }, true)
}

func (p *WhatIfPage) onRate(ctx ga.Context, e ga.Event) {
	val := ctx.JSSrc().Get("value").String()
	p.edit(ctx, func() { p.in.Rate = val }, true)
}

// onSelect: the unit, change and platform selects (data-field names which).
func (p *WhatIfPage) onSelect(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	field, val := dataset(el, "field"), el.Get("value").String()
	p.edit(ctx, func() {
		switch field {
		case "unit":
			p.in.Unit = val
		case "change":
			p.in.Change = val
		case "platform":
			p.in.Platform = val
		}
	}, false)
}

// onSubmit: the predict button, or Enter in the rate field.
func (p *WhatIfPage) onSubmit(ctx ga.Context, e ga.Event) {
	e.PreventDefault()
	if el := ga.Window().GetElementByID("wi-text"); el.Truthy() {
		p.in.Text = el.Get("value").String()
	}
	if el := ga.Window().GetElementByID("wi-rate"); el.Truthy() {
		p.in.Rate = el.Get("value").String()
	}
	p.edit(ctx, func() {}, false)
	// The prediction asked for comes into view (scrolled down the form,
	// its heading was above the window); the focus stays in the form.
	ctx.Defer(func(ga.Context) { showAnswer("wi-result-h", false) })
}

// onExample: an example's button (data-name) fills the form.
func (p *WhatIfPage) onExample(ctx ga.Context, e ga.Event) {
	name := dataset(ctx.JSSrc(), "name")
	p.guard("the example "+name, func() {
		in, err := session.WhatIfLoadExample(name, p.in)
		if err != nil {
			return
		}
		p.gen++
		p.in = in
		p.compute()
		p.settle(ctx, true)
	})
}

func (p *WhatIfPage) onRestore(ctx ga.Context, e ga.Event) {
	p.guard("putting your listing back", func() {
		p.gen++
		p.in = session.WhatIfRestore(p.in)
		p.compute()
		p.settle(ctx, true)
		p.ctx.Defer(func(ga.Context) { ga.Window().GetElementByID("wi-text").Call("focus") })
	})
}

// onGoLine selects the line the error names in the text box.
func onGoLine(ctx ga.Context, e ga.Event) {
	n, err := strconv.Atoi(dataset(ctx.JSSrc(), "line"))
	ta := ga.Window().GetElementByID("wi-text")
	if err != nil || n < 1 || !ta.Truthy() {
		return
	}
	text := ta.Get("value").String()
	lines := strings.Split(text, "\n")
	if n > len(lines) {
		return
	}
	// selection offsets count UTF-16 code units
	start := 0
	for _, l := range lines[:n-1] {
		start += utf16Len(l) + 1
	}
	end := start + utf16Len(lines[n-1])
	ta.Call("focus")
	ta.Call("setSelectionRange", start, end)
	if lh := ta.Get("scrollHeight").Float() / float64(len(lines)); lh > 0 {
		ta.Set("scrollTop", lh*float64(n-3))
	}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

func (p *WhatIfPage) Render() (ui ga.UI) {
	defer guardRender(&ui, "WhatIfPage")
	return ga.Main().ID("whatif-page").Class("whatif-page").Body(
		ga.Header().Class("top").Body(
			ga.A().Class("skip").Href("#wi-form").Text("skip to the form"),
			ga.H1().Body(ga.A().Class("home").Href(sitePath("/")).Text("pplab"), ga.Span().Class("tag").Text(" — what would this change buy me?")),
			ga.P().Class("lede").Text("Paste a perf top listing of your receive path and the rate you measured with it, pick a change, and the model predicts the rate and the profile after it: it maps your symbols to the functions it models, runs your driver's model before and after the change on your platform, and scales each listed symbol by what the change does to it. The same prediction as ppsim predict."),
			ga.Nav().Class("wi-nav").Aria("label", "pages").Body(
				ga.A().Href(sitePath("/")).Text("playground"), ga.Text(" · "),
				ga.A().Href(sitePath("/tour/")).Text("guided tour"), ga.Text(" · "),
				ga.A().Href(sitePath(RulesPath)).Text("the rules you can break")),
		),
		ga.If(p.crash != "", func() ga.UI {
			return ga.P().ID("wi-crash").Class("field-error").Role("alert").Text(p.crash)
		}),
		ga.Div().Class("wi-cols").Body(
			p.renderForm(),
			p.renderResult(),
		),
		ga.Footer().Class("foot").Body(ga.P().Text("Your listing is kept in this browser's local storage (nothing is sent anywhere: the model runs in this page); the address bar holds it only when it is short. Keyboard: Tab through the form; Enter in the rate field predicts.")),
	)
}

func (p *WhatIfPage) fieldErr(field string) ga.UI {
	e := p.view.Err
	if e == nil || e.Field != field || field == "text" {
		return nil
	}
	return ga.P().ID("wi-err-" + field).Class("field-error").Role("alert").Text(e.Msg)
}

func (p *WhatIfPage) renderForm() ga.UI {
	v := &p.view
	var exs []ga.UI
	for _, ex := range v.Examples {
		label := ex.Name
		what := fmt.Sprintf("%s on %s, %s, %s %s", ex.Driver, ex.Platform, firstClause(ex.Test), ex.Rate, ex.Unit)
		exs = append(exs, ga.Li().Body(
			ga.Button().ID("wi-ex-"+ex.Name).Class("wi-ex").Type("button").DataSet("name", ex.Name).
				Aria("pressed", strconv.FormatBool(v.Example == ex.Name)).Title(what+"; recycling: "+ex.Recycling).
				OnClick(p.onExample).Body(ga.Code().Text(label), ga.Span().Class("meta").Text(" "+what)),
		))
	}
	opt := func(vals []string, cur string, label func(string) string) []ga.UI {
		var out []ga.UI
		for _, s := range vals {
			out = append(out, optionSelected(ga.Option().Value(s), s == cur).Text(label(s)))
		}
		return out
	}
	same := func(s string) string { return s }
	e := v.Err
	textErr := e != nil && e.Field == "text"
	return ga.Section().ID("wi-form").Class("panel wi-form").Aria("labelledby", "wi-form-h").Body(
		ga.H2().ID("wi-form-h").Text("Your measurement"),
		ga.Details().Class("wi-examples").Open(true).Body(
			ga.Summary().Text("examples: the measured profiles pplab ships (one click fills the form)"),
			ga.Ul().Class("plain wi-ex-list").Body(exs...),
		),
		ga.Form().ID("wi-f").OnSubmit(p.onSubmit).Body(
			ga.Div().Class("field wi-text-field").Body(
				ga.Label().For("wi-text").Text("perf top listing (Overhead, Shared Object, Symbol; # header lines with driver:, platform:, test:, rate: are read too)"),
				ga.Textarea().ID("wi-text").Class("wi-text").Rows(14).Spellcheck(false).Attr("wrap", "off").
					Attr("autocomplete", "off").Attr("autocapitalize", "off").
					Aria("invalid", strconv.FormatBool(textErr)).Aria("describedby", "wi-text-status").
					Placeholder("e.g. the whole output of perf top:  30.67%  [kernel]  [k] page_pool_release_page …").
					OnInput(p.onText),
				p.textStatus(),
			),
			ga.If(p.in.Previous != "", func() ga.UI {
				n := strings.Count(strings.TrimRight(p.in.Previous, "\n"), "\n") + 1
				return ga.P().Class("wi-prev").Body(
					ga.Text(fmt.Sprintf("Your own listing (%d lines) is kept. ", n)),
					ga.Button().ID("wi-restore").Type("button").Class("link").OnClick(p.onRestore).Text("put it back"))
			}),
			ga.Div().Class("wi-row").Body(
				ga.Div().Class("field").Body(
					ga.Label().For("wi-rate").Text("measured rate"),
					ga.Input().ID("wi-rate").Type("text").Attr("inputmode", "decimal").Value(p.in.Rate).Size(9).
						Aria("invalid", strconv.FormatBool(e != nil && e.Field == "rate")).OnInput(p.onRate),
					p.fieldErr("rate"),
				),
				ga.Div().Class("field").Body(
					ga.Label().For("wi-unit").Text("unit"),
					ga.Select().ID("wi-unit").DataSet("field", "unit").OnChange(p.onSelect).Body(opt(v.Units, p.in.Unit, same)...),
					p.fieldErr("unit"),
				),
				ga.Div().Class("field").Body(
					ga.Label().For("wi-platform").Text("platform"),
					ga.Select().ID("wi-platform").DataSet("field", "platform").OnChange(p.onSelect).Body(opt(v.Platforms, p.in.Platform, func(s string) string {
						if s == "" {
							return "the listing's (its driver's)"
						}
						return s
					})...),
					p.fieldErr("platform"),
				),
			),
			ga.Div().Class("field wi-change").Body(
				ga.Label().For("wi-change").Text("change"),
				ga.Select().ID("wi-change").DataSet("field", "change").Aria("describedby", "wi-change-doc").OnChange(p.onSelect).Body(opt(v.Changes, p.in.Change, func(c string) string {
					label := session.ChangeLabel(c)
					if m := v.ChangeMarks[c]; m != "" {
						return label + " (" + m + ")"
					}
					return label
				})...),
				ga.P().ID("wi-change-doc").Class("meta").Text(changeDoc(p.in.Change)),
				p.fieldErr("change"),
			),
			ga.Button().ID("wi-predict").Type("submit").Class("primary").Text("predict"),
		),
	)
}

// textStatus is the line under the text box: what was read, or where
// reading stopped and what was expected there.
func (p *WhatIfPage) textStatus() ga.UI {
	v := &p.view
	if e := v.Err; e != nil && e.Field == "text" {
		return ga.Div().ID("wi-text-status").Class("wi-status bad").Role("alert").Body(
			ga.If(e.Line > 0, func() ga.UI {
				return ga.Button().ID("wi-goline").Type("button").Class("link").DataSet("line", e.Line).OnClick(onGoLine).
					Title("select the line in the text box").Text(fmt.Sprintf("line %d", e.Line))
			}),
			ga.P().ID("wi-err-text").Class("field-error").Text(strings.TrimPrefix(e.Msg, fmt.Sprintf("line %d: ", e.Line))),
			ga.If(e.LineText != "", func() ga.UI { return ga.Pre().Class("wi-badline").Text(e.LineText) }),
		)
	}
	status := fmt.Sprintf("read %d symbols, %.2f%% of the CPU time listed", v.Lines, v.Listed)
	if v.Example != "" {
		status += " — the shipped profile " + v.Example
	}
	return ga.Div().ID("wi-text-status").Class("wi-status").Body(
		ga.P().Class("meta").Text(status),
		ga.If(len(v.Header) > 0, func() ga.UI { return ga.P().Class("meta").Text("header: " + strings.Join(v.Header, " · ")) }),
	)
}

func firstClause(s string) string {
	if i := strings.Index(s, " ("); i > 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ","); i > 0 {
		s = s[:i]
	}
	return s
}

func (p *WhatIfPage) renderResult() ga.UI {
	v := &p.view
	pr := v.Pred
	if pr == nil {
		msg := "No prediction: fix what the form says, and the prediction appears here."
		if e := v.Err; e != nil {
			where := map[string]string{"text": "the listing", "rate": "the rate", "unit": "the unit", "change": "the change", "platform": "the platform"}[e.Field]
			if e.Field == "text" && e.Line > 0 {
				where = fmt.Sprintf("the listing's line %d", e.Line)
			}
			if where == "" {
				where = "the form"
			}
			msg = "No prediction, because of " + where + ": " + strings.TrimPrefix(e.Msg, fmt.Sprintf("line %d: ", e.Line)) + " (see the form)."
		}
		return ga.Section().ID("wi-result").Class("panel wi-result").Aria("labelledby", "wi-result-h").Aria("live", "polite").Body(
			ga.H2().ID("wi-result-h").Text("Prediction"),
			ga.P().ID("wi-none").Class("meta").Text(msg),
		)
	}
	var notes []ga.UI
	for _, n := range pr.Notes {
		notes = append(notes, ga.Li().Text(n))
	}
	var rows []ga.UI
	for _, r := range v.Rows {
		meas, scale := "—", "—"
		if r.HasMeasured {
			meas = fmt.Sprintf("%.2f%%", r.Measured)
		}
		if r.HasMeasured && r.Measured > 0 {
			scale = fmt.Sprintf("×%.2f", r.Scale)
		}
		name := ga.Code().Text(r.Symbol)
		rows = append(rows, ga.Tr().Body(ga.Th().Scope("row").Body(name), ga.Td().Text(meas), ga.Td().Text(fmt.Sprintf("%.2f%%", r.Predicted)), ga.Td().Text(scale)))
	}
	speed := fmt.Sprintf("×%.3f", pr.Speedup)
	return ga.Section().ID("wi-result").Class("panel wi-result").Aria("labelledby", "wi-result-h").Body(
		ga.H2().ID("wi-result-h").Text("Prediction after "+session.ChangeLabel(p.in.Change)),
		ga.P().ID("wi-rates").Class("wi-rates").Aria("live", "polite").Body(
			ga.Span().Class("wi-before").Body(ga.Span().Class("meta").Text("measured "), ga.Strong().ID("wi-before").Text(rateText(pr.Before.Value)+" "+pr.Before.Unit)),
			ga.Span().Class("wi-arrow").Aria("hidden", "true").Text(" → "),
			ga.Span().Class("wi-after").Body(ga.Span().Class("meta").Text("predicted "), ga.Strong().ID("wi-predicted").Text(rateText(pr.Predicted.Value)+" "+pr.Predicted.Unit)),
			ga.Span().ID("wi-speedup").Class("wi-speedup").Text(" ("+speed+")"),
		),
		ga.If(pr.LinkBound, func() ga.UI {
			return ga.P().ID("wi-link").Class("meta").Text("link bound: the CPU could do more; the link caps the rate.")
		}),
		ga.Table().ID("wi-inferred").Class("fields wi-inferred").Body(
			ga.Caption().Class("meta").Text("what the engine inferred from the listing"),
			ga.TBody().Body(
				ga.Tr().Body(ga.Th().Scope("row").Text("driver"), ga.Td().ID("wi-driver").Body(ga.Code().Text(pr.Driver))),
				ga.Tr().Body(ga.Th().Scope("row").Text("platform"), ga.Td().ID("wi-plat").Body(ga.Code().Text(pr.Platform))),
				ga.Tr().Body(ga.Th().Scope("row").Text("workload"), ga.Td().ID("wi-workload").Body(ga.Code().Text(pr.Workload))),
				ga.Tr().Body(ga.Th().Scope("row").Text("era"), ga.Td().ID("wi-eras").Text(pr.EraBefore+" → "+pr.EraAfter)),
			),
		),
		ga.H3().Text("Notes and assumptions"),
		ga.If(len(notes) == 0, func() ga.UI {
			return ga.P().ID("wi-notes").Class("meta").Text("none: the listing, the rate and the change fit the model without assumptions beyond its own.")
		}),
		ga.If(len(notes) > 0, func() ga.UI { return ga.Ul().ID("wi-notes").Class("wi-notes").Body(notes...) }),
		&Chart{ID: "wi-chart", Label: "measured and predicted profile: share of CPU time per symbol, before and after the change", Option: v.Chart, Shape: "whatif", File: "pplab-whatif-" + pr.Driver + "-" + p.in.Change, Empty: "no profile to draw"},
		ga.Div().Class("wi-table-wrap").Body(
			ga.Table().ID("wi-table").Class("wi-table").Body(
				ga.Caption().Class("meta").Text("every symbol: its share of the CPU time measured and predicted; time is the symbol's time per packet after the change over its time before"),
				ga.THead().Body(ga.Tr().Body(ga.Th().Scope("col").Text("symbol"), ga.Th().Scope("col").Text("measured"), ga.Th().Scope("col").Text("predicted"), ga.Th().Scope("col").Text("time"))),
				ga.TBody().Body(rows...),
			),
		),
		ga.P().Class("meta").Text(sim.RestProfile+": what the listing does not show (below perf's cut-off), less the model's functions it does not list; a symbol the model does not know stays as measured."),
		ga.Details().ID("wi-cli").Class("wi-cli").Body(
			ga.Summary().Text("the same on the command line (ppsim predict --json)"),
			ga.If(v.Example == "", func() ga.UI {
				return ga.P().Class("meta").Text("Save your listing as listing.txt, then:")
			}),
			ga.Pre().ID("wi-cmd").Class("wi-pre").Text(v.Command),
			ga.Pre().ID("wi-json").Class("wi-pre").Text(v.JSON),
		),
	)
}

// rateText prints a rate as the CLI's text output does.
func rateText(v float64) string {
	if v >= 10 || v == 0 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
