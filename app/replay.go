package app

import (
	"fmt"
	"html"
	"runtime"
	"strconv"
	"strings"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// The trace replay page (/replay/): open, paste or pick a page_pool
// tracepoint capture and step through it. Everything it shows is the
// session's ReplayState (plain Go, tested natively); this component wires
// the file input, the text box, the examples, the step control and the
// keys to it. A replay has no URL state, and the capture never leaves the
// browser.

// ReplayPath is the page's path (a directory: a static host serves
// replay/index.html).
const ReplayPath = "/replay/"

// ReplayPage is the replay page's one stateful component.
type ReplayPage struct {
	ga.Compo

	s     *session.ReplayState
	view  session.ReplayView
	err   string // a panic caught (the page keeps running)
	busy  string // what is being read ("" when idle)
	loads int    // captures loaded: the chart's shape changes with each

	keydown          ga.Func
	loadMS, stepMS   float64
	parseMS          float64 // the replay's load alone (parse, replay, first view)
	heapMB, sysMB    float64 // the Go heap and the memory the runtime holds after the load
	maxStepMS        float64
	steps, stepStart int
	t0               float64
}

func (p *ReplayPage) OnMount(ctx ga.Context) {
	p.act(ctx, "start-up", func() { p.s = session.NewReplayState() })
	p.listenKeys(ctx)
	p.publish()
}

func (p *ReplayPage) OnDismount() {
	if p.keydown != nil {
		ga.Window().Get("document").Call("removeEventListener", "keydown", p.keydown)
		p.keydown.Release()
		p.keydown = nil
	}
}

// act runs fn guarded: a panic is shown on the page, which keeps running.
func (p *ReplayPage) act(ctx ga.Context, what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			p.err = fmt.Sprintf("%s failed: %v", what, r)
			p.busy = ""
			ga.Logf("pplab: replay: %s", p.err)
		}
	}()
	fn()
	if p.s != nil && p.s.Changed() {
		p.view = p.s.View()
	}
}

// guard, deferred in a handler, shows a panic on the page instead of
// letting it end the app.
func (p *ReplayPage) guard(what string) {
	if r := recover(); r != nil {
		p.err = fmt.Sprintf("%s failed: %v", what, r)
		p.busy = ""
		ga.Logf("pplab: replay: %s", p.err)
	}
}

// dropBefore is the input size above which the replay before is let go
// before the new input is read.
const dropBefore = 16 << 20

// load replays text, after a frame that shows what is being read (a
// capture of 10^6 lines takes seconds).
func (p *ReplayPage) load(ctx ga.Context, source, text string) {
	p.busy = fmt.Sprintf("Reading %s (%s)…", source, sizeText(len(text)))
	if len(text) > dropBefore {
		// A large capture: the one replayed before goes now, and its
		// memory with it, before this one is read (a capture of 10^6
		// lines holds some 400 MB, and the wasm's memory only grows). A
		// smaller one is read beside it: refused, it leaves the replay
		// before in place.
		p.s = session.NewReplayState()
		p.view = p.s.View()
		runtime.GC()
	}
	p.publish()
	ctx.After(20*time.Millisecond, func(ctx ga.Context) {
		t0 := now()
		p.act(ctx, "reading "+source, func() {
			p.s.Load(source, text)
			p.loads++
		})
		p.parseMS = now() - t0
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		p.heapMB, p.sysMB = float64(ms.HeapAlloc)/(1<<20), float64(ms.Sys)/(1<<20)
		p.busy = ""
		p.loadMS = now() - t0
		p.publish()
		ctx.Defer(func(ga.Context) {
			p.loadMS = now() - t0 // with the render
			p.publish()
		})
	})
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// seek runs a step action and measures it (with its render).
func (p *ReplayPage) seek(ctx ga.Context, what string, fn func()) {
	if p.s == nil || !p.s.Loaded() {
		return
	}
	t0 := now()
	p.act(ctx, what, fn)
	p.steps++
	ctx.Defer(func(ga.Context) {
		p.stepMS = now() - t0
		p.maxStepMS = max(p.maxStepMS, p.stepMS)
		p.publish()
	})
}

// listenKeys: → and ← step, Home and End go to the first and the last
// step, unless a form control has the focus (the slider has its own
// arrows, the text box its cursor).
func (p *ReplayPage) listenKeys(ctx ga.Context) {
	p.keydown = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		e := args[0]
		if modified(e) || inFormControl(e, false) {
			return nil
		}
		target := e.Get("target")
		if target.Get("isContentEditable").Truthy() || p.s == nil || !p.s.Loaded() {
			return nil
		}
		var fn func()
		n := 1
		if e.Get("shiftKey").Bool() {
			n = 10
		}
		switch e.Get("key").String() {
		case "ArrowRight":
			fn = func() { p.s.Step(n) }
		case "ArrowLeft":
			fn = func() { p.s.Step(-n) }
		case "Home":
			fn = func() { p.s.Seek(0) }
		case "End":
			fn = func() { p.s.Seek(p.s.Events()) }
		default:
			return nil
		}
		e.Call("preventDefault")
		ctx.Dispatch(func(ctx ga.Context) { p.seek(ctx, "a step", fn) })
		return nil
	})
	ga.Window().Get("document").Call("addEventListener", "keydown", p.keydown)
}

// publish exposes the page's state (window.__pplab) for the tests.
func (p *ReplayPage) publish() {
	v := &p.view
	st := map[string]any{"mounted": true, "page": "replay", "loaded": v.Loaded, "at": v.At, "events": v.Events,
		"msg": v.Msg, "busy": p.busy, "error": p.err, "loadMS": p.loadMS, "parseMS": p.parseMS, "heapMB": p.heapMB, "sysMB": p.sysMB, "stepMS": p.stepMS, "maxStepMS": p.maxStepMS,
		"steps": p.steps, "loads": p.loads}
	ga.Window().Set("__pplab", st)
}

func (p *ReplayPage) onExample(ctx ga.Context, e ga.Event) {
	defer p.guard("an example")
	name := dataset(ctx.JSSrc(), "example")
	text, ok := session.ReplayExampleText(name)
	if !ok || p.s == nil {
		return
	}
	label := name
	for _, x := range session.ReplayExamples() {
		if x.Name == name {
			label = x.Label
		}
	}
	p.load(ctx, "the example "+name+" ("+label+")", text)
}

func (p *ReplayPage) onPasteGo(ctx ga.Context, e ga.Event) {
	defer p.guard("the replay button")
	e.PreventDefault()
	if p.s == nil {
		return
	}
	text := ""
	if el := ga.Window().GetElementByID("replay-text"); el.Truthy() {
		text = el.Get("value").String()
	}
	p.load(ctx, "the pasted text", emptyBigPaste(text))
}

// emptyBigPaste empties the text box when it holds more than a few MB
// (the replay keeps its own copy: the browser's would double a capture of
// 10^6 lines), and returns text.
func emptyBigPaste(text string) string {
	if len(text) > bigPaste {
		setValue("replay-text", "")
		setPlaceholder("replay-text", fmt.Sprintf("(the pasted text, %s, was replayed and taken out of this box to save memory)", sizeText(len(text))))
	}
	return text
}

// bigPaste: a paste longer than this leaves the text box.
const bigPaste = 4 << 20

func setPlaceholder(id, v string) {
	if el := ga.Window().GetElementByID(id); el.Truthy() {
		el.Set("placeholder", v)
	}
}

// onPasteInput: a paste (or a drop) into the text box replays at once.
func (p *ReplayPage) onPasteInput(ctx ga.Context, e ga.Event) {
	defer p.guard("a paste")
	t := e.Get("inputType")
	if p.s == nil || !t.Truthy() || (t.String() != "insertFromPaste" && t.String() != "insertFromDrop") {
		ctx.PreventUpdate()
		return
	}
	p.load(ctx, "the pasted text", emptyBigPaste(ctx.JSSrc().Get("value").String()))
}

// onFile: a file chosen; one over session.ReplayMaxBytes is refused
// before it is read.
func (p *ReplayPage) onFile(ctx ga.Context, e ga.Event) {
	defer p.guard("opening a file")
	files := ctx.JSSrc().Get("files")
	if p.s == nil || !files.Truthy() || files.Length() == 0 {
		return
	}
	f := files.Index(0)
	ctx.JSSrc().Set("value", "") // the same file chosen again is read again
	name := f.Get("name").String()
	size := f.Get("size").Int()
	source := "the file " + name
	if size > session.ReplayMaxBytes {
		p.act(ctx, "opening "+name, func() {
			p.s.Refuse(source, fmt.Sprintf("Too large: %s is %s, over the page's %d MB (it reads at most 1 000 000 lines; ppsim replay FILE reads 10 000 000).", name, sizeText(size), session.ReplayMaxBytes>>20))
		})
		p.publish()
		return
	}
	p.busy = fmt.Sprintf("Reading %s (%s)…", source, sizeText(size))
	p.publish()
	var ok, fail ga.Func
	release := func() { ok.Release(); fail.Release() }
	ok = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		release()
		text := args[0].String()
		ctx.Dispatch(func(ctx ga.Context) { p.load(ctx, source, text) })
		return nil
	})
	fail = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		release()
		msg := "the browser could not read it"
		if len(args) > 0 && args[0].Truthy() {
			msg = args[0].Call("toString").String()
		}
		ctx.Dispatch(func(ctx ga.Context) {
			p.busy = ""
			p.act(ctx, "opening "+name, func() { p.s.Refuse(source, "Not readable: "+msg+".") })
			p.publish()
		})
		return nil
	})
	f.Call("text").Call("then", ok, fail)
}

func (p *ReplayPage) onSlider(ctx ga.Context, e ga.Event) {
	defer p.guard("the slider")
	n, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
	if err != nil {
		return
	}
	p.seek(ctx, "the slider", func() { p.s.Seek(n) })
}

func (p *ReplayPage) onFirst(ctx ga.Context, e ga.Event) {
	p.seek(ctx, "the first step", func() { p.s.Seek(0) })
}
func (p *ReplayPage) onBack(ctx ga.Context, e ga.Event) {
	p.seek(ctx, "a step back", func() { p.s.Step(-1) })
}
func (p *ReplayPage) onNext(ctx ga.Context, e ga.Event) {
	p.seek(ctx, "a step", func() { p.s.Step(1) })
}
func (p *ReplayPage) onLast(ctx ga.Context, e ga.Event) {
	p.seek(ctx, "the last step", func() { p.s.Seek(p.s.Events()) })
}

// onFinding: a finding's button steps to its line (data-line).
func (p *ReplayPage) onFinding(ctx ga.Context, e ga.Event) {
	defer p.guard("a finding's step")
	n, err := strconv.Atoi(dataset(ctx.JSSrc(), "line"))
	if err != nil {
		return
	}
	p.seek(ctx, "a finding's step", func() { p.s.StepToLine(n) })
	ctx.Defer(func(ga.Context) {
		if el := ga.Window().GetElementByID("replay-step"); el.Truthy() {
			el.Call("scrollIntoView", map[string]any{"block": "nearest"})
		}
	})
}

func (p *ReplayPage) Render() (ui ga.UI) {
	defer guardRender(&ui, "ReplayPage")
	v := &p.view
	body := []ga.UI{
		ga.Header().Class("top").Body(
			ga.A().Class("skip").Href("#replay-input").Text("skip to the capture"),
			ga.H1().Body(ga.A().Class("home").Href(sitePath("/")).Text("pplab"), ga.Span().Class("tag").Text(" — replay a page_pool trace")),
			ga.P().Class("lede").Text("Open, paste or pick a capture of the page_pool tracepoints and step through it: which pool owns which page after each event, each pool's hold and release counters, inflight over time, a destroy that waits for its pages, and pages freed while a pool still owned them."),
			ga.Nav().Class("diag-nav").Aria("label", "pplab").Body(
				ga.A().ID("replay-to-playground").Href(sitePath("/")).Text("the playground"), ga.Text(" · "),
				ga.A().Href(sitePath(RulesPath)).Text("the rules"), ga.Text(" · "),
				ga.A().Href(sitePath(DiagnosePath)).Text("diagnose your counters"), ga.Text(" · "),
				ga.A().Href(sitePath("/tour/")).Text("the tour")),
		),
		ga.If(p.err != "", func() ga.UI {
			return ga.P().ID("replay-fault").Class("field-error").Role("alert").Text("Something went wrong (the page keeps running): " + p.err)
		}),
		p.renderInput(v),
	}
	if v.Loaded {
		body = append(body,
			p.renderStep(v),
			ga.Div().Class("rp-cols").Body(
				ga.Div().Class("rp-pools").Body(replayPools(v)...),
				ga.Section().ID("replay-chart-panel").Class("panel").Aria("label", "inflight over time").Body(
					ga.H2().Text("Inflight over time"),
					&Chart{ID: "replay-chart", Label: "each pool's inflight pages after each event, with the step shown marked", Option: v.Chart,
						Empty: "No events.", Shape: strconv.Itoa(p.loads), File: "pplab-replay-inflight"},
				),
			),
			p.renderFindings(v),
			replaySummary(v),
			replayUnknown(v),
		)
	}
	body = append(body, replayLimits(), ga.Footer().Class("foot").Body(
		ga.P().Body(ga.Text("The same replay on the command line: "), ga.Code().Text("ppsim replay FILE [--json]"), ga.Text(" (it prints the same summary as this page)."))))
	return ga.Main().ID("replay-page").Class("replay-page").Body(body...)
}

func (p *ReplayPage) renderInput(v *session.ReplayView) ga.UI {
	var recorded, synthetic []ga.UI
	for _, e := range session.ReplayExamples() {
		b := ga.Button().ID("replay-example-"+e.Name).Class("link").DataSet("example", e.Name).OnClick(p.onExample)
		if e.Synthetic {
			synthetic = append(synthetic, ga.Li().Body(b.Title(e.Label).Text(e.Short)))
			continue
		}
		recorded = append(recorded, ga.Li().Body(b.Text(e.Label)))
	}
	examples := []ga.UI{ga.P().Class("meta").Text("or pick an example:"), ga.Ul().Class("plain").Body(recorded...)}
	if len(synthetic) > 0 {
		examples = append(examples, ga.P().Class("meta rp-synth-h").Text("synthetic — the model's destroy run printed in an era's format, by a tool:"),
			ga.Ul().Class("plain rp-synth").Body(synthetic...))
	}
	var status []ga.UI
	switch {
	case p.busy != "":
		status = append(status, ga.P().ID("replay-busy").Class("meta").Role("status").Text(p.busy))
	case v.Msg != "":
		kept := ""
		if v.Loaded {
			kept = " The replay of " + v.Source + " stays below."
		}
		status = append(status, ga.Div().ID("replay-msg").Class("diag-error").Role("alert").Body(
			ga.P().Body(ga.Strong().Text(cap1(v.MsgFrom)+": "), ga.Text(v.Msg+kept))))
	}
	if v.Loaded && p.busy == "" {
		status = append(status, ga.P().ID("replay-source").Class("meta").Role("status").Text(fmt.Sprintf("Replaying %s: %s, %s, %s.", v.Source, session.Plural(v.Lines, "line"), session.Plural(v.Events, "event"), session.Plural(len(v.Pools), "pool"))))
	}
	return ga.Section().ID("replay-input").Class("panel rp-input").Aria("label", "the capture").Body(
		ga.H2().Text("The capture"),
		ga.Div().Class("rp-input-grid").Body(
			ga.Div().Body(
				ga.Div().Class("rp-open").Body(
					ga.Label().For("replay-file").Text("Open a file: "),
					ga.Input().ID("replay-file").Type("file").OnChange(p.onFile),
				),
				ga.Div().Class("diag-examples").Body(examples...),
			),
			ga.Form().ID("replay-form").OnSubmit(p.onPasteGo).Body(
				ga.Label().For("replay-text").Text("or paste it (a paste replays at once):"),
				ga.Textarea().ID("replay-text").Class("diag-text rp-text").Rows(4).Spellcheck(false).Attr("autocapitalize", "off").
					Placeholder("e.g. the output of cat /sys/kernel/tracing/trace, trace-cmd report or perf script").OnInput(p.onPasteInput),
				ga.Button().ID("replay-go").Type("submit").Class("primary").Text("replay"),
			),
		),
		ga.Div().Body(status...),
		ga.P().Class("meta").Text("The capture stays in this browser: it is never sent anywhere, and the page's address does not hold it."),
	)
}

func (p *ReplayPage) renderStep(v *session.ReplayView) ga.UI {
	var ctxLines []ga.UI
	for _, l := range v.Context {
		cls := "rp-line"
		if !l.Event {
			cls += " rp-grey"
		}
		if l.Cur {
			cls += " rp-cur"
		}
		ctxLines = append(ctxLines, ga.Li().Class(cls).Body(
			ga.Span().Class("ln").Text(strconv.Itoa(l.N)),
			ga.Code().Text(strings.TrimLeft(l.Text, " \t")+" ")))
	}
	var cur ga.UI = ga.P().ID("replay-line").Class("meta").Text("Before the first event: nothing held yet. Step forward (→).")
	if v.Cur.N > 0 {
		cur = ga.Ol().ID("replay-line").Class("plain rp-lines").Aria("label", "the current line and the lines around it").Body(ctxLines...)
	}
	return ga.Section().ID("replay-step").Class("panel rp-step").Aria("label", "step through the events").Body(
		ga.H2().Text("Step through the events"),
		ga.Div().Class("rp-controls").Role("group").Aria("label", "step").Body(
			buttonDisabled(ga.Button().ID("replay-first").Aria("label", "first step (Home)").Title("first step (Home)"), v.At == 0).OnClick(p.onFirst).Text("« first"),
			buttonDisabled(ga.Button().ID("replay-back").Aria("label", "step back (←)").Title("step back (←)"), v.At == 0).OnClick(p.onBack).Text("◀ back"),
			buttonDisabled(ga.Button().ID("replay-next").Aria("label", "step forward (→)").Title("step forward (→)"), v.At == v.Events).OnClick(p.onNext).Text("step ▶"),
			buttonDisabled(ga.Button().ID("replay-last").Aria("label", "last step (End)").Title("last step (End)"), v.At == v.Events).OnClick(p.onLast).Text("last »"),
			ga.Input().ID("replay-slider").Class("rp-slider").Type("range").Min(0).Max(v.Events).Step(1).Value(v.At).
				Aria("label", "step").Aria("valuetext", v.Now).OnInput(p.onSlider),
		),
		ga.P().ID("replay-now").Class("rp-now").Aria("live", "polite").Text(v.Now),
		cur,
		ga.P().Class("meta").Text("Keys: → and ← step (with Shift, ten), Home and End go to the first and the last step. Grey lines are not page_pool events."),
	)
}

func replayPools(v *session.ReplayView) []ga.UI {
	var out []ga.UI
	for _, pl := range v.Pools {
		id := fmt.Sprintf("replay-pool-%d", pl.Index)
		created := fmt.Sprintf("First seen on line %d, created before the capture began.", pl.FirstLine)
		if pl.FromCreation {
			created = fmt.Sprintf("First seen on line %d: the capture has it from its creation (hold=1).", pl.FirstLine)
		}
		rel := strconv.FormatUint(uint64(pl.Release), 10)
		if !pl.ReleaseSeen {
			rel += " (none seen yet: taken as 0)"
		}
		var destroy ga.UI = ga.Text("")
		if pl.Destroy != "" {
			cls := "rp-destroy"
			if pl.Waiting {
				cls += " rp-waiting"
			}
			destroy = ga.P().ID(id+"-destroy").Class(cls).DataSet("waiting", strconv.FormatBool(pl.Waiting)).Role("status").Text(pl.Destroy)
		}
		more := ""
		if pl.More > 0 {
			more = fmt.Sprintf(" The first %d by pfn are drawn: %d more not drawn (%d of them owned now).", len(pl.Tiles), pl.More, pl.MoreOwned)
		}
		cls := "panel rp-pool"
		if pl.Touched {
			cls += " rp-touched"
		}
		out = append(out, ga.Section().ID(id).Class(cls).DataSet("owned", pl.Owned).DataSet("inflight", pl.Inflight).Aria("labelledby", id+"-h").Body(
			ga.H2().ID(id+"-h").Body(ga.Text(fmt.Sprintf("Pool #%d ", pl.Index)), ga.Code().Class("rp-ptr").Text(pl.Ptr)),
			ga.P().Class("meta").Text(created),
			ga.Dl().Class("rp-counters").Body(
				ga.Dt().Text("hold="), ga.Dd().ID(id+"-hold").Text(strconv.FormatUint(uint64(pl.Hold), 10)),
				ga.Dt().Text("release="), ga.Dd().ID(id+"-release").Text(rel),
				ga.Dt().Text("inflight now / max in the capture"), ga.Dd().ID(id+"-inflight").Text(fmt.Sprintf("%d / %d", pl.Inflight, pl.Max)),
				ga.Dt().Text("pages owned now"), ga.Dd().ID(id+"-owned").Text(strconv.Itoa(pl.Owned)),
				ga.Dt().Text("holds / releases in the capture"), ga.Dd().Text(fmt.Sprintf("%d / %d", pl.Holds, pl.Releases)),
			),
			destroy,
			ga.P().Class("meta rp-pages-text").Text(fmt.Sprintf("The %s it holds or releases in the capture, by pfn; at this step %d owned (held before the capture included), %d held and given up, %d not held yet.%s",
				session.Plural(pl.Pages, "page"), pl.Owned, pl.Seen-pl.Owned, pl.Pages-pl.Seen, more)),
			&ReplayTiles{Tiles: pl.Tiles},
		))
	}
	if len(out) > 0 {
		out = append(out, ga.P().Class("meta diag-legend rp-legend").Body(
			ga.Span().Class("key").Body(ga.Span().Class("rp-tile rp-owned"), ga.Text(" owned by the pool")),
			ga.Span().Class("key").Body(ga.Span().Class("rp-tile rp-released"), ga.Text(" released (held earlier)")),
			ga.Span().Class("key").Body(ga.Span().Class("rp-tile rp-never"), ga.Text(" not held yet")),
			ga.Span().Class("key").Body(ga.Span().Class("rp-tile rp-other"), ga.Text(" owned by another pool")),
			ga.Span().Class("key").Body(ga.Span().Class("rp-tile rp-owned changed"), ga.Text(" the current event's page")),
		))
	}
	return out
}

// renderFindings lists the findings, each a button to its step (one
// handler for all: it reads the line from the button's data-line).
func (p *ReplayPage) renderFindings(v *session.ReplayView) ga.UI {
	var items []ga.UI
	for _, f := range v.Findings {
		items = append(items, ga.Li().Class("rp-finding").DataSet("kind", f.Kind).Body(
			ga.Button().Class("link").DataSet("line", f.Line).OnClick(p.onFinding).Text(fmt.Sprintf("line %d: %s", f.Line, f.Kind)),
			ga.Span().Class("meta").Text(" — "+f.Text)))
	}
	sec := ga.Section().ID("replay-findings").Class("panel").Aria("label", "findings")
	if len(items) == 0 {
		return sec.Body(ga.H2().Text("Findings"), ga.P().Class("meta").Text("None: no page freed while owned, no events lost, no destroy left waiting."))
	}
	return sec.Body(ga.H2().Text(fmt.Sprintf("Findings (%d)", len(items))),
		ga.P().Class("meta").Text("Each steps to its line."),
		ga.Ul().Class("plain").Body(items...))
}

func replaySummary(v *session.ReplayView) ga.UI {
	extra := ""
	if v.HeldBefore > 0 {
		extra = fmt.Sprintf(" %d releases are of pages held before the capture began.", v.HeldBefore)
	}
	return ga.Section().ID("replay-summary-panel").Class("panel").Aria("label", "summary").Body(
		ga.H2().Text("Summary"),
		ga.P().Class("meta").Text("Of the whole capture, as ppsim replay prints it (the counters at its end)."+extra),
		ga.Pre().ID("replay-summary").Class("rp-summary").Text(v.Summary),
	)
}

func replayUnknown(v *session.ReplayView) ga.UI {
	if v.UnknownN == 0 {
		return ga.P().ID("replay-unknown").Class("meta").Text(fmt.Sprintf("Every line was read: %d events, %d header or comment lines.", v.Events, v.Headers))
	}
	var items []ga.UI
	for _, u := range v.Unknown {
		items = append(items, ga.Li().Class("rp-line rp-grey").Body(ga.Span().Class("ln").Text(strconv.Itoa(u.Line)), ga.Code().Text(u.Text+" ")))
	}
	more := ""
	if v.UnknownN > len(v.Unknown) {
		more = fmt.Sprintf(" The first %d are listed.", len(v.Unknown))
	}
	return ga.Details().ID("replay-unknown").Class("panel").Body(
		ga.Summary().Text(fmt.Sprintf("%d lines not understood (kept, not used: never fatal)", v.UnknownN)),
		ga.P().Class("meta").Text("Lines that are not a page_pool (or mm_page_free) event with its fields: other tracepoints, a cut line, a message."+more),
		ga.Ol().Class("plain rp-lines").Body(items...),
	)
}

func replayLimits() ga.UI {
	return ga.Section().ID("replay-limits").Class("panel").Aria("label", "what a replay shows").Body(
		ga.H2().Text("What a replay shows, and what it cannot"),
		ga.Ul().Body(
			ga.Li().Text("Pool ownership only: a page enters a pool (page_pool_state_hold) and leaves it for good (page_pool_state_release). Where an owned page is — the alloc cache, the ptr_ring, a NIC ring, an skb — the tracepoints do not carry, so recycling is invisible here: a page is owned or not, never placed. The playground's machine view places pages because it models them."),
			ga.Li().Text("A destroyed pool waits while its page_pool_release events print inflight > 0 (the kernel checks again every second and warns after 60 s)."),
			ga.Li().Text("A replay has no URL state: a link to this page opens it empty. The capture never leaves the browser."),
			ga.Li().Text(session.ReplayAccepted),
		),
	)
}

// ReplayTiles draws a pool's pages: one element of markup for all of
// them, brought up to date by morphRow (morph.go) — a step changes a
// tile or two of up to session.ReplayTiles.
type ReplayTiles struct {
	ga.Compo
	Tiles []session.ReplayTile
}

func (c *ReplayTiles) Render() (ui ga.UI) {
	defer guardRender(&ui, "ReplayTiles")
	if ga.IsClient {
		return ga.Div().Class("rp-tiles")
	}
	return ga.Raw(c.html())
}

func (c *ReplayTiles) OnMount(ga.Context)  { morphRow(c.JSValue(), c.html()) }
func (c *ReplayTiles) OnUpdate(ga.Context) { morphRow(c.JSValue(), c.html()) }

func (c *ReplayTiles) html() string {
	var b strings.Builder
	b.Grow(32 + 80*len(c.Tiles))
	b.WriteString(`<div class="rp-tiles" aria-hidden="true">`)
	for _, t := range c.Tiles {
		b.WriteString(`<span class="rp-tile rp-`)
		b.WriteString(t.State)
		if t.Changed {
			b.WriteString(` changed`)
		}
		b.WriteString(`" title="`)
		b.WriteString(html.EscapeString(tileTitle(t)))
		b.WriteString(`"></span>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

func tileTitle(t session.ReplayTile) string {
	s := "pfn 0x" + strconv.FormatUint(t.PFN, 16) + ": "
	switch t.State {
	case session.TileOwned:
		s += "owned"
	case session.TileReleased:
		s += "released"
	case session.TileOther:
		s += "owned by another pool"
	default:
		s += "not held yet"
	}
	if t.Changed {
		s += " (the current event's page)"
	}
	return s
}
