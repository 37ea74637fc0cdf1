package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// The counter diagnosis page (/diagnose/): paste ethtool -S,
// ynl or ynltool output and read what it shows. Everything it says is the
// session's Diagnosis (plain Go, tested natively); this component wires
// the text box, the interval and the examples to it, keeps the pasted
// text in the browser's storage (a reload or a trip to the playground and
// back loses nothing), and runs the nearest-run search in slices between
// frames: the first search runs the model for a few seconds, and the
// browser has one thread for it and the typing.

// DiagnosePath is the page's path (a directory: a static host serves
// diagnose/index.html).
const DiagnosePath = "/diagnose/"

// Actions of the diagnosis page.
const (
	actDiagText     = "pp-diag-text"     // value string: the text box's text
	actDiagPaste    = "pp-diag-paste"    // value string: the text box's text after a paste or a drop
	actDiagInterval = "pp-diag-interval" // value string: the interval field
	actDiagExample  = "pp-diag-example"  // value string: an example's name
)

// What the page does when the answer to a user's question arrives
// (DiagnosePage.ask): nothing (typing, a page opened with its stored
// text), bring the answer's heading into view (a paste: the focus stays
// in the text box), or bring it into view and move the focus to it (the
// diagnose button, Enter in the interval field, an example).
const (
	askNone = iota
	askScroll
	askFocus
)

// The browser storage keys of the text and the interval.
const (
	diagStoreText     = "pplab.diagnose.text"
	diagStoreInterval = "pplab.diagnose.interval"
)

// Timing: the text is diagnosed once typing pauses this long; each slice
// of the search runs about this long (one frame's worth, the typing
// waits for no more); progress is drawn at most this often.
const (
	diagDebounceMS = 250
	diagSliceMS    = 16
	diagProgressMS = 150
)

// DiagnosePage is the diagnosis page's one stateful component.
type DiagnosePage struct {
	ga.Compo

	d    *session.Diagnosis
	view session.DiagnoseView
	err  string

	seq                  int    // the last input's number: a debounce fires only for the last
	applied              int    // the inputs diagnosed so far (window.__pplab.applied)
	answers              int    // the answers asked for that arrived (window.__pplab.answers)
	pendText, pendIv     string // the inputs as last typed
	working              bool   // a slice of the search is scheduled
	yield                ga.Func
	port                 ga.Value // posts the next slice (work)
	slowSlices           []string
	gone                 bool // dismounted
	lastDrawn            float64
	maxSliceMS, searchMS float64
	searchStart          float64

	// The model's runs come from the file the site was built with
	// (diagnose.SweepFileName) while it loads; the page sweeps itself only
	// when the fetch fails (fetching: the fetch is pending; sweepFrom:
	// "file" or "model", once known; fetchMS: the fetch and decoding).
	fetching  bool
	sweepFrom string
	fetchMS   float64

	ask   int       // askScroll, askFocus: the answer to come was asked for (arrived)
	early earlyForm // what was typed into the prerendered page (OnInit)
}

// OnInit reads what the user typed into the prerendered page before the
// wasm was up (earlyform.go): the mounted page keeps it.
func (p *DiagnosePage) OnInit() {
	p.early = readEarlyForm("diag-text", "diag-interval")
}

// diagFetchWaitMS bounds the wait for the sweep file before the page
// sweeps itself.
const diagFetchWaitMS = 8000

func (p *DiagnosePage) OnMount(ctx ga.Context) {
	early := p.early
	p.early = earlyForm{}
	p.act(ctx, "start-up", func() {
		text, iv := storageGet(diagStoreText), storageGet(diagStoreInterval)
		// What was typed before the page was up goes over what was
		// stored, and is stored at once.
		if t, ok := early.typed("diag-text"); ok {
			text = t
			storageSet(diagStoreText, text)
		}
		if t, ok := early.typed("diag-interval"); ok {
			iv = t
			storageSet(diagStoreInterval, iv)
		}
		p.pendText, p.pendIv = text, iv
		setValue("diag-text", text)
		setValue("diag-interval", iv)
		p.searchStart = now()
		p.d = session.NewDiagnosis(text, iv, now)
		if p.d.Warm() { // the model's runs are loaded (or made) while the user pastes
			p.fetchSweep(ctx)
		}
		p.view = p.d.View()
	})
	early.refocus(ctx)
	ctx.Handle(actDiagText, func(ctx ga.Context, a ga.Action) {
		if s, ok := a.Value.(string); ok {
			p.pendText = s
			p.ask = askNone // typing: the page stays where it is
			p.debounce(ctx)
		}
		ctx.PreventUpdate()
	})
	ctx.Handle(actDiagPaste, func(ctx ga.Context, a ga.Action) {
		if s, ok := a.Value.(string); ok {
			p.pendText = s
			p.ask = askScroll // a paste is a question asked: its answer comes into view
			p.debounce(ctx)
		}
		ctx.PreventUpdate()
	})
	ctx.Handle(actDiagInterval, func(ctx ga.Context, a ga.Action) {
		if s, ok := a.Value.(string); ok {
			p.pendIv = s
			p.debounce(ctx)
		}
		ctx.PreventUpdate()
	})
	ctx.Handle(actDiagExample, func(ctx ga.Context, a ga.Action) {
		name, _ := a.Value.(string)
		p.act(ctx, "example "+name, func() {
			text, iv, ok := session.Example(name)
			if !ok {
				return
			}
			setValue("diag-text", text)
			setValue("diag-interval", iv)
			p.askNow(text, iv)
		})
		p.work(ctx)
		p.arrived(ctx)
	})
	p.work(ctx)
	p.publish()
}

// OnDismount stops the search (its sweep resumes where it was when the
// page comes back: the sweep is the process's).
func (p *DiagnosePage) OnDismount() {
	p.gone = true
}

// act runs fn guarded: a panic is shown on the page (with what caused
// it), and the page keeps running.
func (p *DiagnosePage) act(ctx ga.Context, what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			p.err = fmt.Sprintf("%s failed: %v", what, r)
			ga.Logf("pplab: diagnose: %s", p.err)
		}
	}()
	fn()
	if p.d != nil && p.d.Changed() {
		p.view = p.d.View()
	}
}

// debounce diagnoses the inputs once typing pauses.
func (p *DiagnosePage) debounce(ctx ga.Context) {
	p.seq++
	seq := p.seq
	ctx.After(diagDebounceMS*time.Millisecond, func(ctx ga.Context) {
		if seq != p.seq || p.d == nil {
			ctx.PreventUpdate()
			return
		}
		p.act(ctx, "diagnosis", p.apply)
		p.work(ctx)
		p.arrived(ctx)
		p.publish()
	})
}

// onSubmit: the diagnose button, or Enter in the interval field: the
// inputs as they are, diagnosed now (no debounce), and the answer brought
// into view with the focus on its heading once it is there.
func (p *DiagnosePage) onSubmit(ctx ga.Context, e ga.Event) {
	e.PreventDefault()
	if p.d == nil {
		return
	}
	text, iv := p.pendText, p.pendIv
	if el := ga.Window().GetElementByID("diag-text"); el.Truthy() {
		text = el.Get("value").String()
	}
	if el := ga.Window().GetElementByID("diag-interval"); el.Truthy() {
		iv = el.Get("value").String()
	}
	p.act(ctx, "diagnosis", func() { p.askNow(text, iv) })
	p.work(ctx)
	p.arrived(ctx)
	p.publish()
}

// arrived brings the answer into view when the answer to the inputs
// asked about is drawn (the format, the evidence, the ratios at once; the
// nearest runs, when the model's runs are still loading, follow in the
// same place under a progress bar): its heading scrolled to the top of
// the window unless it is in the window's upper half already (beside the
// text box on a wide screen), and, for askFocus, the focus on it (a
// keyboard or screen reader user lands on the answer). Nothing for the
// text stored when the page opened: no one asked.
func (p *DiagnosePage) arrived(ctx ga.Context) {
	if p.ask == askNone || p.d == nil {
		return
	}
	focus := p.ask == askFocus
	p.ask = askNone
	p.answers++
	ctx.Defer(func(ga.Context) { showAnswer("diag-answer-h", focus) })
}

// showAnswer scrolls the heading id to the top of the window unless it is
// in its upper half already, and with focus moves the focus to it
// (without scrolling again). (window.scrollTo, not scrollIntoView: on a
// phone the stylesheet's scroll-padding-top keeps 150 px free for the
// playground's sticky timeline, which this page does not have.)
func showAnswer(id string, focus bool) {
	w := ga.Window()
	el := w.GetElementByID(id)
	if !el.Truthy() {
		return
	}
	r := el.Call("getBoundingClientRect")
	if top := r.Get("top").Float(); top < 0 || top > w.Get("innerHeight").Float()/2 {
		w.Call("scrollTo", 0, max(0, w.Get("scrollY").Float()+top-8))
	}
	if focus {
		el.Call("focus", map[string]any{"preventScroll": true})
	}
}

// askNow diagnoses text and interval at once, as a user's request (an
// example, the diagnose button): stored, any pending debounce dropped
// (it is for older inputs), the answer brought into view with the focus.
func (p *DiagnosePage) askNow(text, iv string) {
	p.pendText, p.pendIv = text, iv
	storageSet(diagStoreText, text)
	storageSet(diagStoreInterval, iv)
	p.seq++
	p.ask = askFocus
	p.apply()
}

// apply hands the inputs as typed to the diagnosis.
func (p *DiagnosePage) apply() {
	if p.d == nil {
		return
	}
	if p.pendIv != p.d.Interval() {
		p.d.SetInterval(p.pendIv)
		p.applied++
	}
	if p.pendText != p.d.Text() {
		p.d.SetText(p.pendText)
		p.applied++
	}
	if p.d.Computing() {
		p.searchStart = now()
	}
}

// work schedules the search's next slice while it has one. A slice runs
// in its own task, posted through a MessageChannel (a timer would be
// clamped to 4 ms once nested, a third of each slice), so the browser
// handles the keys typed and paints between slices; progress goes
// straight into its two elements, and the page renders again only when
// the search ends.
func (p *DiagnosePage) work(ctx ga.Context) {
	if p.working || p.fetching || p.d == nil || !(p.d.Computing() || p.d.Warming()) {
		return
	}
	p.working = true
	if p.yield == nil {
		p.yield = ga.FuncOf(func(ga.Value, []ga.Value) any {
			ctx.Dispatch(p.slice)
			return nil
		})
		ch := ga.Window().Get("MessageChannel").New()
		ch.Get("port1").Set("onmessage", p.yield)
		p.port = ch.Get("port2")
	}
	p.port.Call("postMessage", 0)
}

func (p *DiagnosePage) slice(ctx ga.Context) {
	p.working = false
	if p.gone {
		ctx.PreventUpdate()
		return // the page was left: the sweep waits (in the process) for its return
	}
	cycles, _ := heapState()
	t0 := now()
	more := false
	p.act(ctx, "nearest-run search", func() { more = p.d.Work(diagSliceMS) })
	t1 := now()
	p.noteSlice(t1-t0, cycles)
	if more && p.err == "" {
		p.work(ctx)
		if t1-p.lastDrawn >= diagProgressMS {
			p.lastDrawn = t1
			p.progress()
		}
		ctx.PreventUpdate()
		return
	}
	p.searchMS = t1 - p.searchStart
	p.publish()
}

// fetchSweep fetches the model's runs the site was built with and
// installs them (session.LoadSweep); if the fetch fails, the file is
// refused, or it takes over diagFetchWaitMS, the page makes the runs
// itself in slices (work).
func (p *DiagnosePage) fetchSweep(ctx ga.Context) {
	p.fetching = true
	p.d.SetFetching(true)
	t0 := now()
	var ok, fail, text ga.Func
	done := func(body string, err string) {
		ctx.Dispatch(func(ctx ga.Context) {
			if !p.fetching {
				return // the wait ran out first: the page sweeps itself
			}
			p.fetching = false
			p.d.SetFetching(false)
			if err == "" {
				if e := session.LoadSweep([]byte(body)); e != nil {
					err = e.Error()
				}
			}
			p.fetchMS = now() - t0
			if err != "" {
				p.sweepFrom = "model"
				ga.Logf("pplab: diagnose: %s: %s; the page makes the model's runs itself", session.SweepURL, err)
			} else {
				p.sweepFrom = "file"
			}
			searching := p.d.Computing()
			p.act(ctx, "the model's runs", func() { p.d.Work(diagSliceMS) })
			if searching && !p.d.Computing() {
				p.searchMS = now() - p.searchStart
			}
			p.work(ctx)
			p.publish()
		})
	}
	release := func() {
		ok.Release()
		fail.Release()
		if text.Truthy() {
			text.Release()
		}
	}
	text = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		release()
		done(args[0].String(), "")
		return nil
	})
	ok = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		res := args[0]
		if !res.Get("ok").Bool() {
			release()
			done("", "HTTP "+res.Get("status").String())
			return nil
		}
		res.Call("text").Call("then", text, fail)
		return nil
	})
	fail = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		release()
		msg := "the fetch failed"
		if len(args) > 0 && args[0].Truthy() {
			msg = args[0].Call("toString").String()
		}
		done("", msg)
		return nil
	})
	ga.Window().Call("fetch", ga.Getenv("GOAPP_STATIC_RESOURCES_URL")+"/"+session.SweepURL).Call("then", ok, fail)
	ctx.After(diagFetchWaitMS*time.Millisecond, func(ctx ga.Context) {
		if p.fetching {
			p.fetching, p.sweepFrom = false, "model"
			p.d.SetFetching(false)
			ga.Logf("pplab: diagnose: %s did not come in %d ms; the page makes the model's runs itself", session.SweepURL, diagFetchWaitMS)
			p.work(ctx)
		}
		ctx.PreventUpdate()
	})
}

// noteSlice keeps the slices' longest durations (window.__pplab.slowSlices:
// the typing waited that long), marking those a garbage collection ran in.
func (p *DiagnosePage) noteSlice(ms float64, cyclesBefore uint64) {
	p.maxSliceMS = max(p.maxSliceMS, ms)
	cycles, _ := heapState()
	if ms > 2*diagSliceMS {
		s := fmt.Sprintf("%.0f", ms)
		if cycles > cyclesBefore {
			s += " gc"
		}
		p.slowSlices = append(p.slowSlices, s)
		if len(p.slowSlices) > 40 {
			p.slowSlices = p.slowSlices[1:]
		}
	}
}

// progress writes the search's progress into its elements (no render).
func (p *DiagnosePage) progress() {
	v := p.d.View()
	p.view = v
	doc := ga.Window().Get("document")
	if el := doc.Call("getElementById", "diag-progress"); el.Truthy() {
		el.Set("value", v.Done)
		el.Set("max", max(v.Total, 1))
	}
	// The text node's value, not the element's textContent: go-app holds
	// that node and updates it when it renders (a new node would be left
	// showing the progress after the search).
	if el := doc.Call("getElementById", "diag-computing"); el.Truthy() {
		if t := el.Get("firstChild"); t.Truthy() {
			t.Set("nodeValue", computingText(&v))
		}
	}
	p.publish()
}

func computingText(v *session.DiagnoseView) string {
	if v.Fetching {
		return "Loading the model's runs a paste is compared with (" + session.SweepURL + ", made when this site was built)…"
	}
	if v.Warming {
		return fmt.Sprintf("Meanwhile the model makes the runs a paste is compared with: %d of %d (every scenario × driver × era with stats, once).", v.Done, v.Total)
	}
	return fmt.Sprintf("Running the model to compare: %d of %d runs (every scenario × driver × era with stats; the first search only — later ones are instant).", v.Done, v.Total)
}

// publish exposes the page's state (window.__pplab) for the tests.
func (p *DiagnosePage) publish() {
	v := &p.view
	st := map[string]any{"mounted": true, "page": "diagnose", "computing": v.Computing, "done": v.Done, "total": v.Total,
		"nearestMS": v.NearestMS, "sweepMS": v.SweepMS, "sweepFrom": p.sweepFrom, "fetchMS": p.fetchMS, "fetching": p.fetching, "slices": v.Slices, "maxSliceMS": p.maxSliceMS, "searchMS": p.searchMS, "slowSlices": strings.Join(p.slowSlices, ","), "format": v.Format, "error": p.err, "applied": p.applied, "answers": p.answers}
	if v.Err != nil {
		st["errLine"] = v.Err.Line
	}
	ga.Window().Set("__pplab", st)
}

func (p *DiagnosePage) Render() (ui ga.UI) {
	defer guardRender(&ui, "DiagnosePage")
	v := &p.view
	if p.d == nil {
		// Not mounted: the page prerendered into the site's HTML, shown
		// until app.wasm is up. Nothing is diagnosed yet: the empty answer.
		v = &session.DiagnoseView{Empty: true}
	}
	var examples []ga.UI
	for _, e := range session.DiagnoseExamples {
		examples = append(examples, ga.Li().Body(ga.Button().ID("example-"+e.Name).Class("link").DataSet("example", e.Name).OnClick(onDiagExample).Text(e.Label)))
	}
	input := ga.Section().ID("diag-input").Class("panel diag-input").Aria("label", "your counters").Body(
		ga.H2().Body(ga.Label().For("diag-text").Text("Your counters")),
		ga.P().ID("diag-text-help").Class("meta").Text("Paste the output of ethtool -S (any driver; the rx_pp_* lines, mlx5's per-ring rx<N>_pp_*; mail-quoted is fine), a table with one column per run, ynl --family netdev --dump page-pool-stats-get or page-pool-get (Python or --output-json), or ynltool page-pool stats. Two snapshots give rates. It stays in this browser, never sent anywhere."),
		ga.Form().ID("diag-form").OnSubmit(p.onSubmit).Body(
			ga.Textarea().ID("diag-text").Class("diag-text").Rows(16).Spellcheck(false).Attr("autocapitalize", "off").
				Aria("describedby", "diag-text-help").Aria("invalid", v.Err != nil).
				// One line: go-app writes an attribute with strconv.Quote,
				// so a newline in it reads "\n" in the prerendered page.
				Placeholder("e.g. the whole output of ethtool -S eth0").OnInput(onDiagText),
			ga.If(v.Err != nil, func() ga.UI { return diagError(v.Err) }),
			ga.Div().Class("field diag-interval").Body(
				ga.Label().For("diag-interval").Text("seconds between the two snapshots (optional; a `sleep N` line says it too)"),
				ga.Input().ID("diag-interval").Type("text").Attr("inputmode", "decimal").Placeholder("e.g. 10").OnInput(onDiagInterval),
				ga.If(v.IntervalErr != "", func() ga.UI {
					return ga.P().ID("diag-interval-err").Class("field-error").Role("alert").Text(v.IntervalErr)
				}),
			),
			ga.Button().ID("diag-go").Type("submit").Class("primary").Text("diagnose"),
			ga.Span().Class("meta diag-go-help").Text(" (the answer also follows as you type)"),
		),
		ga.Div().Class("diag-examples").Body(
			ga.P().Class("meta").Text("Or try the model's own output (a simulated run, made when you click):"),
			ga.Ul().Class("plain").Body(examples...),
		),
	)
	body := []ga.UI{
		ga.Header().Class("top").Body(
			ga.A().Class("skip").Href("#diag-text").Text("skip to the text box"),
			ga.H1().Body(ga.A().Class("home").Href(sitePath("/")).Text("pplab"), ga.Span().Class("tag").Text(" — what your page_pool counters say")),
			ga.P().Class("lede").Text("Paste your counters: the answer first — the format read, what it says of the machine, the model runs that could have printed it (the nearest counter shape among them, each a link into the playground) and what to look at next; then the ratios, the rates between two snapshots, every line as it was read, and what each counter counts."),
			ga.Nav().Class("diag-nav").Aria("label", "pplab").Body(
				ga.A().ID("diag-to-playground").Href(sitePath("/")).Text("the playground"), ga.Text(" · "),
				ga.A().Href(sitePath(RulesPath)).Text("the rules"), ga.Text(" · "),
				ga.A().Href(sitePath("/tour/")).Text("the tour")),
		),
		ga.If(p.err != "", func() ga.UI {
			return ga.P().ID("diag-fault").Class("field-error").Role("alert").Text("Something went wrong (the page keeps running): " + p.err)
		}),
		ga.Div().Class("diag-cols").Body(input, diagAnswer(v)),
	}
	if v.Err == nil && !v.Empty {
		for i, r := range v.Runs {
			if len(r.Ratios) > 0 || r.Absent != "" {
				body = append(body, diagRun(i, r, len(v.Runs) > 1))
			}
		}
		if len(v.Rates) > 0 {
			body = append(body, diagRates(v.Rates))
		}
		if len(v.Notes) > 0 {
			var notes []ga.UI
			for _, n := range v.Notes {
				notes = append(notes, ga.Li().Text(n))
			}
			body = append(body, ga.Section().ID("diag-notes").Class("panel").Aria("label", "notes").Body(ga.H2().Text("Notes"), ga.Ul().Body(notes...)))
		}
		body = append(body, diagRead(v), diagCounters(v))
	}
	body = append(body, ga.Footer().Class("foot").Body(
		ga.P().Text("The nearest runs: "+distanceText(v)),
		ga.P().Body(ga.Text("The same diagnosis on the command line: "), ga.Code().Text("ppsim diagnose --file counters.txt [--interval SECONDS] [--json]"), ga.Text(".")),
	))
	return ga.Main().ID("diagnose-page").Class("diagnose-page").Body(body...)
}

func distanceText(v *session.DiagnoseView) string {
	if v.Distance != "" {
		return v.Distance + "."
	}
	return "the Hellinger distance between counter shapes (each counter's share of their sum), over every scenario × driver × era of the model with page_pool stats."
}

func diagError(e *session.DiagnoseErr) ga.UI {
	where := ga.Text("The whole input: ")
	if e.Line > 0 {
		where = ga.Span().Body(ga.Strong().ID("diag-error-line").DataSet("line", e.Line).Text(fmt.Sprintf("Line %d", e.Line)), ga.Text(": "), ga.Code().Class("diag-bad-text").Text(e.Text), ga.Text(" — "))
	}
	return ga.Div().ID("diag-error").Class("diag-error").Role("alert").Body(
		ga.P().Body(where, ga.Text(e.Msg)),
		ga.If(e.WhatIf, func() ga.UI {
			return ga.P().Body(whatIfLink(e.WhatIfLink).ID("diag-to-whatif").Text("open "+session.WhatIfName), ga.Text(" to predict what a change buys with this listing."))
		}),
		ga.Details().Body(ga.Summary().Text("what the page reads"), ga.P().Class("meta").Text(e.Accepted)),
		ga.P().Class("meta").Text("Your text is kept as it is: fix the line and the diagnosis follows."),
	)
}

// whatIfLink is a link to the what-if page that hands it the listing h:
// in the URL when short, and in the what-if page's stored form (its
// storage key, whatIfKey) written as the link is followed, which is how a
// long listing goes over (the what-if page reads its URL, then its stored
// form). Without h, the what-if page as it is.
func whatIfLink(h *session.WhatIfHandOff) ga.HTMLA {
	a := ga.A().Href(sitePath(WhatIfPath))
	if h == nil || strings.TrimSpace(h.Listing) == "" {
		return a
	}
	if h.Query != "" {
		a = a.Href(sitePath(WhatIfPath) + "?" + h.Query)
	}
	return a.OnClick(func(ga.Context, ga.Event) {
		storageSet(whatIfKey, h.Stored(storageGet(whatIfKey)))
	})
}

// diagAnswer is the answer, beside the text box: the format read, what
// the paste says of its source, and per run the best candidates (each
// with its playground link) and what to look at next.
func diagAnswer(v *session.DiagnoseView) ga.UI {
	sec := ga.Section().ID("diag-answer").Class("panel diag-answer").Aria("label", "the answer")
	switch {
	case v.Empty:
		return sec.Body(answerHeading(), ga.P().ID("diag-empty").Class("meta").Text("Nothing yet: paste your counters, or try an example."),
			ga.If(v.Warming, func() ga.UI {
				return ga.Div().Class("diag-warm").Body(
					ga.P().ID("diag-computing").Class("meta").Role("status").Text(computingText(v)),
					ga.Progress().ID("diag-progress").Value(v.Done).Max(max(v.Total, 1)).Aria("label", "model runs made"))
			}))
	case v.Err != nil:
		return sec.Body(answerHeading(), ga.P().ID("diag-answer-err").Class("meta").Text("Nothing: the input has an error (its message is with the text box, in “Your counters”)."))
	}
	var source []ga.UI
	for _, c := range v.Constraints {
		source = append(source, ga.Li().Class("diag-constraint").DataSet("rule", c.Rule).DataSet("dropped", c.Dropped).Body(
			ga.Strong().Text(c.Rule+": "), ga.Text(c.Evidence), ga.Span().Class("meta").Text(" — "+c.How+" "+c.Keeps)))
	}
	out := []ga.UI{
		answerHeading(),
		ga.P().Body(ga.Strong().ID("diag-format").Text(v.Format), ga.Span().ID("diag-variant").Text(" ("+v.Variant+")"),
			ga.Span().Class("meta").Text(fmt.Sprintf(" — %d lines, %d read as page_pool counters, %d not understood; %d snapshot(s).", len(v.Lines)+v.LinesCut, v.CountersRead, len(v.Grey)+v.GreyCut, v.Snapshots))),
	}
	if v.Underflow != "" {
		out = append(out, ga.P().ID("diag-underflow").Class("diag-error").Role("status").Body(ga.Strong().Text("Not a count: "), ga.Text(v.Underflow)))
	}
	for _, a := range v.Aside {
		// A perf top listing pasted with the counters: set aside, never
		// evidence; the what-if page reads it.
		out = append(out, ga.P().Class("diag-aside").DataSet("from", a.From).DataSet("to", a.To).Body(
			ga.Text(a.Before), whatIfLink(a.WhatIf).Text(session.WhatIfName), ga.Text(a.After)))
	}
	if len(source) > 0 {
		out = append(out, ga.Div().Body(ga.H3().Text("What the paste says of the machine"), ga.Ul().ID("diag-source").Class("plain diag-source").Body(source...)))
	}
	if v.NonePossible != "" {
		out = append(out, ga.P().ID("diag-none-possible").Class("diag-error").Role("status").Body(ga.Strong().Text("None possible: "), ga.Text(v.NonePossible)))
	}
	for i, r := range v.Runs {
		if len(v.Runs) > 1 {
			label := r.Label
			if r.Device == "" {
				label = cap1(label) // a device's name is as the paste writes it (eth0)
			}
			out = append(out, ga.H3().Class("diag-run-label").Text(label))
		}
		if !r.NoShape {
			out = append(out, diagNearest(v, i, r))
		}
		out = append(out, diagNext(i, r))
	}
	return sec.Body(out...)
}

// answerHeading is the answer's heading: the focus lands on it when an
// answer asked for arrives (DiagnosePage.arrived), so it takes the focus
// from a script, not from Tab.
func answerHeading() ga.UI {
	return ga.H2().ID("diag-answer-h").TabIndex(-1).Text("The answer")
}

// diagNext is what to look at next for one run.
func diagNext(i int, r session.DiagRun) ga.UI {
	var next []ga.UI
	for _, a := range r.Next {
		var look []ga.UI
		for _, l := range a.Look {
			look = append(look, ga.Li().Text(l))
		}
		next = append(next, ga.Li().Class("diag-advice").Body(
			ga.P().Body(ga.Strong().Text(a.Signal)),
			ga.P().Text(a.Means),
			ga.Ol().Body(look...),
		))
	}
	if len(next) == 0 {
		return ga.Text("")
	}
	return ga.Div().ID(fmt.Sprintf("diag-next-%d", i)).Body(ga.H3().Text("What to look at next"), ga.Ul().Class("plain diag-next").Body(next...))
}

// diagRead is what the parser made of the paste: its provenance, every
// line with its number (the ones not understood grey, never dropped), the
// pools netlink listed.
func diagRead(v *session.DiagnoseView) ga.UI {
	sec := ga.Section().ID("diag-read").Class("panel diag-read").Aria("label", "what was read")
	var lines []ga.UI
	for _, l := range v.Lines {
		li := ga.Li().Class("diag-line use-"+l.Use).DataSet("use", l.Use).DataSet("n", l.N).Body(
			ga.Span().Class("ln").Aria("hidden", true).Text(strconv.Itoa(l.N)),
			ga.Code().Text(l.Text+" "),
		)
		if l.Why != "" {
			li = li.Title(l.Why)
		}
		lines = append(lines, li)
	}
	var grey []ga.UI
	for _, l := range v.Grey {
		grey = append(grey, ga.Li().Body(ga.Text(fmt.Sprintf("line %d: ", l.N)), ga.Code().Text(l.Text), ga.Span().Class("meta").Text(" — "+l.Why)))
	}
	var pools []ga.UI
	for _, s := range v.Pools {
		pools = append(pools, ga.Li().Text(s))
	}
	return sec.Body(
		ga.H2().Text("What was read"),
		ga.P().ID("diag-provenance").Class("meta").Text(v.Provenance),
		ga.P().Class("meta diag-legend").Body(
			ga.Span().Class("key use-counter").Text("a page_pool counter read"),
			ga.Span().Class("key use-kept").Text("understood, not a page_pool counter"),
			ga.Span().Class("key use-header").Text("a header, command or blank"),
			ga.Span().Class("key use-grey").Text("not understood (kept, not used; hover for why)"),
			ga.If(len(v.Aside) > 0, func() ga.UI { return ga.Span().Class("key use-aside").Text("set aside (a perf top listing)") })),
		ga.Ol().ID("diag-lines").Class("diag-lines plain").Aria("label", "the paste, line by line").Body(lines...),
		ga.If(v.LinesCut > 0, func() ga.UI {
			return ga.P().Class("meta").Text(fmt.Sprintf("The %d lines after line %d are not listed here (the lines not understood are, below).", v.LinesCut, session.DiagnoseListed))
		}),
		ga.If(len(grey) > 0, func() ga.UI {
			return ga.Div().ID("diag-grey").Body(ga.H3().Text("Not understood (kept, not used)"), ga.Ul().Class("plain diag-grey").Body(grey...),
				ga.If(v.GreyCut > 0, func() ga.UI { return ga.P().Class("meta").Text(fmt.Sprintf("… and %d more.", v.GreyCut)) }))
		}),
		ga.If(len(pools) > 0, func() ga.UI {
			return ga.Div().ID("diag-pools").Body(ga.H3().Text("Pools (page-pool-get)"), ga.Ul().Class("plain").Body(pools...))
		}),
	)
}

// diagCounters is every counter the paste gives: its values, what it
// counts, where page_pool.c counts it, per era.
func diagCounters(v *session.DiagnoseView) ga.UI {
	var cards []ga.UI
	multi := len(v.Labels) > 1
	for _, c := range v.Counters {
		var vals []ga.UI
		for i, val := range c.Values {
			if val == "" {
				val = "—"
			}
			if multi {
				vals = append(vals, ga.Li().Body(ga.Span().Class("meta").Text(v.Labels[i]+": "), ga.Strong().Class("diag-value").Text(val)))
			} else {
				vals = append(vals, ga.Li().Body(ga.Strong().Class("diag-value").Text(val)))
			}
		}
		var notes []ga.UI
		for _, n := range c.EraNotes {
			notes = append(notes, ga.Li().Text(n))
		}
		cards = append(cards, ga.Article().Class("diag-counter").DataSet("counter", c.Name).Aria("labelledby", "dc-"+c.Name).Body(
			ga.H3().ID("dc-"+c.Name).Body(ga.Code().Text(c.Name)),
			ga.Ul().Class("plain diag-values").Body(vals...),
			ga.P().Class("meta").Body(ga.Text("ethtool "), ga.Code().Text(c.Ethtool), ga.Text(" · netlink "), ga.Code().Text(c.Netlink)),
			ga.P().Body(ga.Strong().Text("Counts: "), ga.Text(c.Meaning+".")),
			ga.P().Body(ga.Strong().Text("Where: "), ga.Text(c.Where+".")),
			ga.P().Class("meta").Text("Since "+c.Since+". Model eras with it: "+c.Eras+"."),
			ga.If(len(notes) > 0, func() ga.UI { return ga.Ul().Class("meta diag-era-notes").Body(notes...) }),
		))
	}
	return ga.Section().ID("diag-counters").Class("panel").Aria("label", "the counters").Body(
		ga.Details().ID("diag-glossary").Body(
			ga.Summary().Body(ga.H2().Class("inline").Text(fmt.Sprintf("What each counter counts (%d)", len(v.Counters)))),
			ga.If(len(cards) == 0, func() ga.UI {
				return ga.P().Class("meta").Text("No page_pool counter in the paste (page-pool-get carries none).")
			}),
			ga.Div().Class("diag-counter-grid").Body(cards...),
		),
	)
}

// diagRun is one run's ratios (and the counters it lacks).
func diagRun(i int, r session.DiagRun, label bool) ga.UI {
	var ratios []ga.UI
	for _, ra := range r.Ratios {
		ratios = append(ratios, ga.Li().Class("diag-ratio").DataSet("ratio", ra.Name).Body(
			ga.P().Body(ga.Strong().Text(ra.Name+": "), ga.Span().Class("diag-ratio-value").Text(ra.Value)),
			ga.P().Class("meta").Body(ga.Code().Text("= "+ra.Formula)),
			ga.P().Class("meta").Text(ra.Meaning),
		))
	}
	title := "Ratios"
	if label {
		title += " — " + r.Label
	}
	return ga.Section().ID(fmt.Sprintf("diag-run-%d", i)).Class("panel diag-run").Aria("labelledby", fmt.Sprintf("diag-run-h-%d", i)).Body(
		ga.H2().ID(fmt.Sprintf("diag-run-h-%d", i)).Text(title),
		ga.If(r.Absent != "", func() ga.UI { return ga.P().Class("meta").Text("Absent: " + r.Absent) }),
		ga.If(len(ratios) > 0, func() ga.UI { return ga.Ul().Class("plain diag-ratios").Body(ratios...) }),
	)
}

func diagNearest(v *session.DiagnoseView, i int, r session.DiagRun) ga.UI {
	id := fmt.Sprintf("diag-nearest-%d", i)
	if v.Computing {
		return ga.Div().ID(id).Class("diag-nearest").Aria("busy", true).Body(
			ga.H3().Text("Best candidates"),
			ga.P().ID("diag-computing").Role("status").Text(computingText(v)),
			ga.Progress().ID("diag-progress").Value(v.Done).Max(max(v.Total, 1)).Aria("label", "model runs made"),
		)
	}
	var matches []ga.UI
	for _, m := range r.Nearest {
		var runs []ga.UI
		for _, mr := range m.Runs {
			drv := mr.Driver
			if drv == "" {
				drv = "no driver"
			}
			label := fmt.Sprintf("%s on %s", mr.Scenario, drv)
			runs = append(runs, ga.Li().Body(
				ga.Strong().Text(label), ga.Span().Class("meta").Text("era "+mr.Eras),
				ga.A().Class("btn open-playground").DataSet("scenario", mr.Scenario).Href(sitePath(mr.URL)).
					Aria("label", "open "+label+" (era "+lastEra(mr.Eras)+") in the playground").Text("open in the playground"),
			))
		}
		tie := ""
		if len(m.Runs) > 1 {
			tie = fmt.Sprintf(" — a tie: %d runs of this shape", len(m.Runs))
		}
		if m.Preferred {
			tie += " — what the paste's other evidence points to"
		}
		matches = append(matches, ga.Li().Class("diag-match").DataSet("distance", m.Distance).Body(
			ga.P().Body(ga.Text("distance "), ga.Strong().Text(m.Distance), ga.Span().Class("meta").Text(tie)),
			ga.Ul().Class("plain diag-match-runs").Body(runs...),
			ga.If(m.Why != "", func() ga.UI {
				return ga.P().Class("meta diag-why").Body(ga.Strong().Text("why: "), ga.Text(m.Why))
			}),
		))
	}
	took := ""
	if v.NearestMS > 0 {
		took = fmt.Sprintf(" (found in %.0f ms)", v.NearestMS)
	}
	return ga.Div().ID(id).Class("diag-nearest").Body(
		ga.H3().Text("Best candidates"+took),
		ga.P().Class("meta").Text("Of the model's runs that could have printed this, those whose counters have the nearest shape (0: the same); each scenario × driver once, at its nearest eras; runs of one shape are listed together, every one. The link opens the newest era's run."),
		ga.If(len(r.Nearest) > 0 && r.Nearest[0].Why != "", func() ga.UI {
			return ga.P().ID(fmt.Sprintf("diag-why-tolerance-%d", i)).Class("meta").Text("In each “why”, " + v.WhyTolerance + ".")
		}),
		ga.Ol().Class("plain diag-matches").Body(matches...),
	)
}

func lastEra(eras string) string {
	for i := len(eras) - 1; i >= 0; i-- {
		if eras[i] == ' ' {
			return eras[i+1:]
		}
	}
	return eras
}

func cap1(s string) string {
	if s == "" {
		return s
	}
	if c := s[0]; c >= 'a' && c <= 'z' {
		return string(c-'a'+'A') + s[1:]
	}
	return s
}

func diagRates(rates []session.DiagRates) ga.UI {
	var tables []ga.UI
	for _, r := range rates {
		var rows []ga.UI
		for _, x := range r.Rows {
			rows = append(rows, ga.Tr().Body(ga.Th().Scope("row").Body(ga.Code().Text(x[0])), ga.Td().Text(x[1]), ga.Td().Class("diag-rate").Text(x[2])))
		}
		tables = append(tables, ga.Table().Class("stats-table diag-rates").Body(
			ga.Caption().Text(r.Title),
			ga.THead().Body(ga.Tr().Body(ga.Th().Scope("col").Text("counter"), ga.Th().Scope("col").Text("increase"), ga.Th().Scope("col").Text("per second"))),
			ga.TBody().Body(rows...),
		))
	}
	return ga.Section().ID("diag-rates").Class("panel").Aria("label", "rates").Body(append([]ga.UI{ga.H2().Text("Rates")}, tables...)...)
}

// onDiagText: the text box changed; it is stored at once (nothing typed
// is lost to a reload) and diagnosed once typing pauses.
func onDiagText(ctx ga.Context, e ga.Event) {
	s := ctx.JSSrc().Get("value").String()
	storageSet(diagStoreText, s)
	// A paste (or a drop) is a question asked: its answer comes into view
	// once it is there (DiagnosePage.arrived); typing leaves the page where
	// it is.
	if t := e.Get("inputType"); t.Truthy() && (t.String() == "insertFromPaste" || t.String() == "insertFromDrop") {
		ctx.NewActionWithValue(actDiagPaste, s)
		return
	}
	ctx.NewActionWithValue(actDiagText, s)
}

func onDiagInterval(ctx ga.Context, e ga.Event) {
	s := ctx.JSSrc().Get("value").String()
	storageSet(diagStoreInterval, s)
	ctx.NewActionWithValue(actDiagInterval, s)
}

func onDiagExample(ctx ga.Context, e ga.Event) {
	ctx.NewActionWithValue(actDiagExample, dataset(ctx.JSSrc(), "example"))
}

// setValue sets a form control's value (the text box and the interval
// are not rendered with their value: a render must never overwrite what
// is being typed).
func setValue(id, v string) {
	if el := ga.Window().GetElementByID(id); el.Truthy() {
		el.Set("value", v)
	}
}

// storageGet and storageSet read and write localStorage; a browser that
// refuses it (privacy settings, a full quota) keeps the page working
// without it.
func storageGet(key string) (v string) {
	defer func() {
		if r := recover(); r != nil {
			v = ""
		}
	}()
	ls := ga.Window().Get("localStorage")
	if !ls.Truthy() {
		return ""
	}
	x := ls.Call("getItem", key)
	if !x.Truthy() {
		return ""
	}
	return x.String()
}

func storageSet(key, v string) {
	defer func() {
		if r := recover(); r != nil {
			ga.Logf("pplab: the text could not be stored: %v", r)
		}
	}()
	if ls := ga.Window().Get("localStorage"); ls.Truthy() {
		ls.Call("setItem", key, v)
	}
}
