package app

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The comparison page (/compare/): two kernels side by side, at the
// moment they diverge. Everything it shows is the session's CompareState
// (plain Go, tested natively); this component wires the controls, the
// step bar, the keys, the address bar and the copy button to it, and runs
// the comparison in slices between frames.

// ComparePath is the page's path (a directory: a static host serves
// compare/index.html).
const ComparePath = "/compare/"

// ComparePage is the comparison page's one stateful component.
type ComparePage struct {
	ga.Compo

	ctx       ga.Context
	mounted   bool // ctx is the mounted page's
	s         *session.CompareState
	view      session.CompareView
	err       string // a panic before the state existed
	copied    string // what the copy button did last
	written   string // the query last written to the address bar
	builtFrom string
	queued    bool
	keydown   ga.Func
	text      string // the netdev text of the view (with the page's link)
	textLink  string
}

func (p *ComparePage) OnMount(ctx ga.Context) {
	p.ctx, p.mounted = ctx, true
	p.act("start-up", func() {
		p.builtFrom = ctx.Page().URL().RawQuery
		p.s = session.NewCompare(ctx.Page().URL().Query(), now)
	})
	ctx.Handle(actDismiss, func(ctx ga.Context, a ga.Action) {
		p.act("dismiss", func() {
			if i, ok := a.Value.(int); ok {
				p.s.Dismiss(i)
			}
		})
	})
	p.listenKeys(ctx)
}

// OnNav: a link to another state of the page (an example) builds the
// state again, unless it is the one the page wrote.
func (p *ComparePage) OnNav(ctx ga.Context) {
	if p.s == nil {
		return
	}
	q := ctx.Page().URL().RawQuery
	if q == p.builtFrom || q == p.written {
		return
	}
	p.act("navigation", func() {
		p.builtFrom = q
		p.s = session.NewCompare(ctx.Page().URL().Query(), now)
	})
}

func (p *ComparePage) OnDismount() {
	p.mounted = false
	if p.keydown != nil {
		ga.Window().Get("document").Call("removeEventListener", "keydown", p.keydown)
		p.keydown.Release()
		p.keydown = nil
	}
}

// act runs fn guarded: a panic is shown on the page, which keeps running;
// then the view is taken, the address bar follows and the comparison's
// next slice is queued.
func (p *ComparePage) act(what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if p.s == nil {
				p.err = fmt.Sprintf("%s failed: %v", what, r)
				ga.Logf("pplab: compare: %s", p.err)
				return
			}
			ga.Logf("%s", p.s.Recover(what, r))
			p.sync()
		}
	}()
	fn()
	p.sync()
}

func (p *ComparePage) sync() {
	if p.s == nil {
		return
	}
	if p.s.Changed() {
		p.view = p.s.View()
		p.writeURL()
	}
	link := p.link()
	if p.textLink != link || p.text == "" {
		p.text, p.textLink = p.s.Text(link), link
	}
	p.publish()
	p.queueSlice()
	if p.mounted {
		p.ctx.Defer(func(ga.Context) { reconcileCompare() })
	}
}

// compareSliceEveryMS, compareSliceMS: the comparison runs in slices of
// compareSliceMS, one every compareSliceEveryMS, the page drawn between.
const (
	compareSliceEveryMS = 1
	comparePageSliceMS  = 24
)

func (p *ComparePage) queueSlice() {
	if p.queued || p.s == nil || !p.s.Running() || !p.mounted {
		return
	}
	p.queued = true
	p.ctx.After(compareSliceEveryMS*time.Millisecond, func(ctx ga.Context) {
		p.queued = false
		p.act("the comparison", func() { p.s.Slice(comparePageSliceMS) })
	})
}

// linkURL is the page's own URL with the state's query: its origin and
// path (a sub-path included) as the browser has them.
func (p *ComparePage) linkURL() url.URL {
	if !p.mounted || p.ctx.Page() == nil {
		return url.URL{Path: ComparePath, RawQuery: p.view.Link}
	}
	u := *p.ctx.Page().URL()
	u.RawQuery, u.Fragment = p.view.Link, ""
	return u
}

func (p *ComparePage) link() string {
	u := p.linkURL()
	return u.String()
}

func (p *ComparePage) writeURL() {
	if !p.mounted || p.ctx.Page() == nil || p.view.Link == p.written {
		return
	}
	u := p.linkURL()
	p.written = u.RawQuery
	p.ctx.Page().ReplaceURL(&u)
}

// publish exposes the page's state (window.__pplab) for the tests.
func (p *ComparePage) publish() {
	v := &p.view
	st := map[string]any{"mounted": p.s != nil, "page": "compare", "error": p.err, "running": v.Running, "phase": v.Phase,
		"compared": v.Compared, "limit": v.Limit, "packet": v.Packet, "op": v.Op, "fromStart": v.FromStart,
		"link": p.link(), "text": p.text, "cli": v.CLI, "build": v.BuildID, "copied": p.copied}
	div := 0
	if v.Div != nil {
		div = int(v.Div.Packet)
	}
	st["div"] = div
	var sides []any
	for _, s := range v.Sides {
		sides = append(sides, map[string]any{"op": s.Op, "packets": s.Packets, "era": s.Era, "driver": s.Driver, "atDecision": s.AtDecision, "winOp": s.WinOp, "winLen": s.WinLen})
	}
	st["sides"] = sides
	ga.Window().Set("__pplab", st)
}

// listenKeys: → one operation of the packets' windows, Shift+→ a packet;
// ← and Shift+← back; Home and End the first and last packet; d the
// divergence — unless a form control has the focus.
func (p *ComparePage) listenKeys(ctx ga.Context) {
	p.keydown = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		e := args[0]
		if modified(e) || inFormControl(e, false) || p.s == nil {
			return nil
		}
		if e.Get("target").Get("isContentEditable").Truthy() {
			return nil
		}
		shift := e.Get("shiftKey").Bool()
		var fn func()
		switch e.Get("key").String() {
		case "ArrowRight":
			fn = func() { p.s.StepOp(1) }
			if shift {
				fn = func() { p.s.StepPacket(1) }
			}
		case "ArrowLeft":
			fn = func() { p.s.StepOp(-1) }
			if shift {
				fn = func() { p.s.StepPacket(-1) }
			}
		case "Home":
			fn = func() { p.s.GoToPacket(0) }
		case "End":
			fn = func() { p.s.GoToPacket(p.s.Limit()) }
		case "d", "D":
			fn = func() { p.s.GoToDivergence() }
		default:
			return nil
		}
		e.Call("preventDefault")
		ctx.Dispatch(func(ctx ga.Context) { p.act("a key", fn) })
		return nil
	})
	ga.Window().Get("document").Call("addEventListener", "keydown", p.keydown)
}

// Handlers: each reads what it acts on from its element (data-side,
// data-field, data-rule), never from a closure (app/handlers.go).

func (p *ComparePage) onField(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	v := el.Get("value").String()
	if v == defaultOption {
		v = ""
	}
	p.edit(dataset(el, "side"), dataset(el, "field"), v)
}

func (p *ComparePage) onCheck(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	v := "0"
	if el.Get("checked").Bool() {
		v = "1"
	}
	p.edit(dataset(el, "side"), dataset(el, "field"), v)
}

func (p *ComparePage) onRule(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	p.edit(dataset(el, "side"), "break", dataset(el, "rule"))
}

func (p *ComparePage) edit(side, field, value string) {
	p.act("an edit", func() {
		if side == "b" {
			p.s.SetB(field, value)
		} else {
			p.s.SetA(field, value)
		}
	})
}

func (p *ComparePage) onSlider(ctx ga.Context, e ga.Event) {
	n, err := strconv.ParseInt(ctx.JSSrc().Get("value").String(), 10, 64)
	if err != nil {
		return
	}
	p.act("the slider", func() { p.s.GoToPacket(n) })
}

func (p *ComparePage) onStep(ctx ga.Context, e ga.Event) {
	what := dataset(ctx.JSSrc(), "step")
	p.act("a step", func() {
		switch what {
		case "first":
			p.s.GoToPacket(0)
		case "packet-back":
			p.s.StepPacket(-1)
		case "op-back":
			p.s.StepOp(-1)
		case "op":
			p.s.StepOp(1)
		case "packet":
			p.s.StepPacket(1)
		case "last":
			p.s.GoToPacket(p.s.Limit())
		case "div":
			p.s.GoToDivergence()
		}
	})
}

// onCopy copies the netdev text and says whether the clipboard took it
// (it may refuse: an unfocused page, a permission); the text is also in
// the box below it to select by hand.
func (p *ComparePage) onCopy(ctx ga.Context, e ga.Event) {
	p.act("the copy", func() {
		if p.text == "" {
			p.copied = "The text is ready once the comparison and both runs have finished."
			return
		}
		clip := ga.Window().Get("navigator").Get("clipboard")
		if !clip.Truthy() {
			p.copied = "This page has no clipboard access (it needs https or localhost): select the text in the box below."
			return
		}
		p.copied = "Copying…"
		lines := strings.Count(p.text, "\n")
		var ok, fail ga.Func
		done := func(msg string) {
			ok.Release()
			fail.Release()
			ctx.Dispatch(func(ga.Context) { p.act("the copy", func() { p.copied = msg }) })
		}
		ok = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
			done(fmt.Sprintf("Copied (%d lines).", lines))
			return nil
		})
		fail = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
			why := "refused"
			if len(args) > 0 && args[0].Truthy() {
				why = args[0].Call("toString").String()
			}
			done("The clipboard did not take it (" + why + "): select the text in the box below.")
			return nil
		})
		clip.Call("writeText", p.text).Call("then", ok, fail)
	})
}

// reconcileCompare puts each control back to the value the state has
// (data-cv): an edit refused changes nothing in the view, so go-app
// leaves the control showing the refused value.
func reconcileCompare() {
	doc := ga.Window().Get("document")
	if !doc.Truthy() {
		return
	}
	els := doc.Call("querySelectorAll", "#cmp-controls [data-cv]")
	for i := 0; i < els.Length(); i++ {
		el := els.Index(i)
		want := el.Get("dataset").Get("cv").String()
		if el.Get("type").String() == "checkbox" {
			if on := want == "1"; el.Get("checked").Bool() != on {
				el.Set("checked", on)
			}
			continue
		}
		if el.Get("value").String() != want {
			el.Set("value", want)
		}
	}
}

func (p *ComparePage) Render() (ui ga.UI) {
	defer guardRender(&ui, "ComparePage")
	v := &p.view
	if p.s != nil && v.Embed {
		return p.renderEmbed(v)
	}
	body := []ga.UI{
		ga.Header().Class("top").Body(
			ga.A().Class("skip").Href("#cmp-step").Text("skip to the step bar").OnClick(onCompareSkip),
			ga.H1().Body(ga.A().Class("home").Href(sitePath("/")).Text("pplab"), ga.Span().Class("tag").Text(" — two kernels side by side")),
			ga.P().Class("lede").Text("The same workload under two kernels (or two drivers, knob sets, broken rules), aligned by packet: the first packet whose pages the two runs treat differently, each side's decision there with its kernel source, and the change that decides it with its commit."),
			ga.Nav().Class("diag-nav").Aria("label", "pplab").Body(
				ga.A().ID("compare-to-playground").Href(sitePath("/")).Text("the playground"), ga.Text(" · "),
				ga.A().Href(sitePath(RulesPath)).Text("the rules"), ga.Text(" · "),
				ga.A().Href(sitePath(DiagnosePath)).Text("diagnose your counters"), ga.Text(" · "),
				ga.A().Href(sitePath(ReplayPath)).Text("replay a trace"), ga.Text(" · "),
				ga.A().Href(sitePath("/tour/")).Text("the tour")),
		),
		ga.If(p.err != "", func() ga.UI {
			return ga.P().ID("cmp-fault").Class("field-error").Role("alert").Text("Something went wrong (the page keeps running): " + p.err)
		}),
		compareExamples(),
	}
	if p.s == nil {
		body = append(body, ga.P().ID("cmp-loading").Class("meta").Text("The comparison starts once the page's engine has loaded."))
		return ga.Main().ID("compare-page").Class("compare-page").Body(body...)
	}
	body = append(body,
		&Banner{Items: v.Banner},
		figureKeysNote(),
		p.renderControls(v),
		p.renderStatus(v),
		p.renderStep(v),
		p.renderDivergence(v),
		ga.Div().ID("cmp-sides").Class("cmp-sides").Body(p.renderSide(v, 0), p.renderSide(v, 1)),
		p.renderNetdev(v),
	)
	return ga.Main().ID("compare-page").Class("compare-page").Body(body...)
}

func compareExamples() ga.UI {
	var items []ga.UI
	for i, x := range session.CompareExamples() {
		items = append(items, ga.Li().Body(ga.A().ID(fmt.Sprintf("cmp-example-%d", i+1)).Href(sitePath(ComparePath)+"?"+x.Query).Text(x.Label)))
	}
	return ga.Section().ID("cmp-examples").Class("panel").Aria("label", "examples").Body(
		ga.H2().Text("Examples"),
		ga.Ul().Class("plain").Body(items...),
	)
}

func (p *ComparePage) renderControls(v *session.CompareView) ga.UI {
	return ga.Section().ID("cmp-controls").Class("panel cmp-controls").Aria("label", "the two runs").Body(
		ga.Div().Class("cmp-ctl-cols").Body(
			p.sideForm(v, "a", "A", &v.A),
			p.sideForm(v, "b", "B", &v.B),
		),
	)
}

func (p *ComparePage) sideForm(v *session.CompareView, side, label string, c *session.CompareControls) ga.UI {
	idp := "c" + side + "-"
	sel := func(field, text, value string, opts []lab.Choice) ga.UI {
		return p.field(idp+field, text, c.Errs[field], ga.Select().ID(idp+field).DataSet("side", side).DataSet("field", field).DataSet("cv", optionValue(value)).Body(choiceOptions(opts, value)...).OnChange(p.onField))
	}
	var rows []ga.UI
	rows = append(rows, ga.H2().Text(fmt.Sprintf("%s: %s", label, v.Titles[map[string]int{"a": 0, "b": 1}[side]])))
	if side == "a" {
		rows = append(rows, ga.Div().Class("control-row").Body(
			sel("scenario", "scenario", c.Scenario, c.Scenarios),
			sel("driver", "driver", c.Driver, c.Drivers),
			sel("era", "kernel era", c.Era, c.Eras),
			sel("preset", "sizes", c.Preset, c.Presets),
			p.field(idp+"packets", "packets", c.Errs["packets"], ga.Input().Type("number").ID(idp+"packets").DataSet("side", side).DataSet("field", "packets").DataSet("cv", c.Packets).Min(1).Max(lab.MaxPackets).Value(c.Packets).OnChange(p.onField)),
		))
	} else {
		rows = append(rows,
			ga.P().Class("meta").Text("B is A with these edits (ppsim compare's --with-era, --with-driver, --with-set, --with-break): its scenario, sizes, packets and seed are A's, and it breaks every rule A breaks."),
			ga.Div().Class("control-row").Body(
				sel("era", "kernel era", c.Era, c.Eras),
				sel("driver", "driver", c.Driver, c.Drivers),
			))
	}
	var first, rest []ga.UI
	nEdit, nEra := 0, 0
	for _, k := range c.Knobs {
		switch {
		case k.Edited:
			nEdit++
		case k.Differs:
			nEra++
		}
		if k.Matters || k.Differs {
			first = append(first, p.knob(side, idp, k, c.Errs[k.Name]))
		} else {
			rest = append(rest, p.knob(side, idp, k, c.Errs[k.Name]))
		}
	}
	knobSummary := fmt.Sprintf("knobs (%d that matter for this scenario)", len(first))
	if side == "b" {
		knobSummary = fmt.Sprintf("knobs (%d set by B's edits", nEdit)
		if nEra > 0 {
			knobSummary += fmt.Sprintf("; %d at another value by B's era's default", nEra)
		}
		knobSummary += ")"
	}
	var rules []ga.UI
	var broken []string
	for _, r := range c.Rules {
		if r.Broken {
			broken = append(broken, r.Name)
		}
		note := " — prevents " + r.Prevents
		if r.Locked {
			note = " — broken on A's side, so on B's too"
		}
		rules = append(rules, ga.Li().Body(ga.Label().Body(
			ga.Input().Type("checkbox").ID(idp+"r-"+r.Name).DataSet("side", side).DataSet("rule", r.Name).DataSet("cv", boolCV(r.Broken)).Checked(r.Broken).OnChange(p.onRule),
			ga.Code().Text(r.Name), ga.Span().Class("meta").Text(note))))
	}
	ruleSummary := "break a rule"
	if len(broken) > 0 {
		ruleSummary += " — broken: " + strings.Join(broken, ", ")
	}
	if side == "b" {
		ruleSummary = "break a rule besides A's"
		var as, adds []string
		for _, r := range c.Rules {
			switch {
			case r.Locked:
				as = append(as, r.Name)
			case r.Broken:
				adds = append(adds, r.Name)
			}
		}
		var parts []string
		if len(as) > 0 {
			parts = append(parts, "A's: "+strings.Join(as, ", "))
		}
		if len(adds) > 0 {
			parts = append(parts, "B adds: "+strings.Join(adds, ", "))
		}
		if len(parts) > 0 {
			ruleSummary += " — " + strings.Join(parts, "; ")
		}
	}
	rows = append(rows,
		ga.Details().Class("knobs").Body(ga.Summary().Text(knobSummary),
			ga.Div().Class("knob-grid").Body(first...),
			ga.Details().Class("other-knobs").Body(ga.Summary().Text(fmt.Sprintf("all other knobs (%d)", len(rest))), ga.Div().Class("knob-grid").Body(rest...))),
		ga.Details().Class("rules").Body(ga.Summary().Text(ruleSummary), ga.Ul().Class("plain").Body(rules...),
			ga.If(c.Errs["break"] != "", func() ga.UI {
				return ga.P().ID(idp + "err-break").Class("field-error").Role("alert").Text(c.Errs["break"])
			})),
		ga.P().Class("meta cmp-config").Body(ga.Text("as ppsim run's flags: "), ga.Code().ID(idp+"config").Text(c.Config)),
	)
	return ga.Div().ID("cmp-form-"+side).Class("cmp-form cmp-side-"+side).Role("group").Aria("label", "run "+label).Body(rows...)
}

func boolCV(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (p *ComparePage) field(id, label, err string, control ga.UI) ga.UI {
	return ga.Div().Class("field").Body(
		ga.Label().For(id).Text(label),
		control,
		ga.If(err != "", func() ga.UI {
			return ga.P().Class("field-error").ID(id + "-err").Role("alert").Text(err)
		}),
	)
}

func (p *ComparePage) knob(side, idp string, k session.CompareKnob, err string) ga.UI {
	id := idp + "k-" + k.Name
	var input ga.UI
	switch words := knobWords[k.Name]; {
	case words != nil:
		var opts []ga.UI
		for i, w := range words {
			val := strconv.FormatInt(k.Min+int64(i), 10)
			opts = append(opts, optionSelected(ga.Option().Value(val), k.Value == val).Text(w))
		}
		input = ga.Select().ID(id).DataSet("side", side).DataSet("field", k.Name).DataSet("cv", k.Value).Title(k.Doc).Body(opts...).OnChange(p.onField)
	case k.Min == 0 && k.Max == 1:
		input = ga.Input().Type("checkbox").ID(id).DataSet("side", side).DataSet("field", k.Name).DataSet("cv", k.Value).Checked(k.Value == "1").Title(k.Doc).OnChange(p.onCheck)
	default:
		input = ga.Input().Type("number").ID(id).DataSet("side", side).DataSet("field", k.Name).DataSet("cv", k.Value).Min(k.Min).Max(k.Max).Value(k.Value).Title(k.Doc).OnChange(p.onField)
	}
	cls := "field knob"
	mark := ""
	switch {
	case k.Edited:
		cls += " cmp-differs"
		mark = " ≠ A (--with-set)"
	case k.Differs:
		cls += " cmp-differs"
		mark = " ≠ A (the era's default)"
	}
	return ga.Div().Class(cls).Body(
		ga.Label().For(id).Title(k.Doc).Body(ga.Code().Text(k.Name), ga.Span().Class("meta").Text(mark)),
		input,
		ga.If(err != "", func() ga.UI { return ga.P().Class("field-error").ID(id + "-err").Role("alert").Text(err) }),
	)
}

func (p *ComparePage) renderStatus(v *session.CompareView) ga.UI {
	var body []ga.UI
	switch {
	case v.FromStart != "":
		text := "The runs differ from the start: " + v.FromStart
		if !strings.Contains(strings.ToLower(v.FromStart), "no divergence is looked for") {
			text += "; no divergence is looked for"
		}
		body = append(body, ga.P().ID("cmp-fromstart").Text(text+". Scrub both side by side."))
	case v.Phase == "compare":
		body = append(body, ga.P().ID("cmp-progress").Body(
			ga.Text(fmt.Sprintf("Comparing packet by packet: %d of %d packets compared… ", v.Compared, v.Limit)),
			ga.Progress().Max(max(v.Limit, 1)).Value(v.Compared).Aria("label", "packets compared")))
		if brokenAny(v.B.Rules) {
			slow := []ga.UI{ga.Text(fmt.Sprintf("A run with a rule broken is checked fully after every operation (so that each violation lands in its packet's window), which takes a while in the browser at %s packets. Both runs can be scrubbed meanwhile", withCommas(v.Limit)))}
			if v.Limit > compareFewPackets {
				q, _ := url.ParseQuery(v.Link)
				q.Set("packets", strconv.Itoa(compareFewPackets))
				q.Del(session.ComparePacketKey)
				q.Del(session.CompareOpKey)
				slow = append(slow, ga.Text("; fewer packets compare faster: "),
					ga.A().ID("cmp-fewer").Href(sitePath(ComparePath)+"?"+q.Encode()).Text(fmt.Sprintf("compare %s packets", withCommas(compareFewPackets))))
			}
			body = append(body, ga.P().ID("cmp-slow").Class("meta").Body(append(slow, ga.Text("."))...))
		}
	case v.Phase == "explain":
		body = append(body, ga.P().ID("cmp-progress").Text(fmt.Sprintf("Packet %d diverges: finding the change that decides it (one run per change)…", v.Div.Packet)))
	case v.Div == nil && v.NoDiv != "":
		body = append(body, ga.P().ID("cmp-nodiv").Text(v.NoDiv))
	}
	if v.Phase == "results" {
		body = append(body, ga.P().ID("cmp-results-busy").Class("meta").Text("Running both runs to their end, in batch as ppsim run does, for the text's counters…"))
	}
	return ga.Section().ID("cmp-status").Class("panel cmp-status").Role("status").Aria("label", "the comparison").Body(body...)
}

func (p *ComparePage) renderStep(v *session.CompareView) ga.UI {
	var marker, markerLabel ga.UI = ga.Text(""), ga.Text("")
	track := "cmp-track"
	if d := v.Div; d != nil && v.Limit > 0 {
		frac := min(float64(d.Packet-1)/float64(v.Limit), 1)
		label := fmt.Sprintf("divergence: packet %d", d.Packet)
		short := fmt.Sprintf("▲ divergence: packet %d", d.Packet)
		if d.AfterLast {
			label = fmt.Sprintf("divergence: after the last packet (%d)", d.Packet-1)
			short = "▲ divergence: after the last packet"
		}
		// Where the thumb's centre is at that packet (the thumb spans
		// cmpThumbPX at either end): at packet 65 of 10^6 the marker was
		// under the thumb's left edge; the label below says it in words.
		left := fmt.Sprintf("calc(%dpx + (100%% - %dpx) * %.6f)", cmpThumbPX/2, cmpThumbPX, frac)
		marker = ga.Span().ID("cmp-marker").Class("cmp-marker").DataSet("packet", d.Packet).Style("left", left).Title(label).Aria("hidden", "true")
		lcls := "cmp-marker-label"
		switch {
		case frac < 0.15:
			lcls += " start"
		case frac > 0.85:
			lcls += " end"
		}
		markerLabel = ga.Span().ID("cmp-marker-label").Class(lcls).Style("left", left).Aria("hidden", "true").Text(short)
		track += " has-marker"
	}
	hasDiv := v.Div != nil
	divText := "go to the divergence (d)"
	if hasDiv {
		divText = fmt.Sprintf("go to just before the divergent packet %d (d)", v.Div.Packet)
	}
	return ga.Section().ID("cmp-step").Class("panel cmp-step").TabIndex(-1).Aria("label", "step both runs").Body(
		ga.H2().Text("Both runs, packet by packet"),
		ga.Div().Class("rp-controls cmp-controls-row").Role("group").Aria("label", "step").Body(
			buttonDisabled(ga.Button().ID("cmp-first").DataSet("step", "first").Title("first packet (Home)"), v.Packet == 0 && v.Op == 0).OnClick(p.onStep).Text("« first"),
			buttonDisabled(ga.Button().ID("cmp-packet-back").DataSet("step", "packet-back").Title("a packet back (Shift+←)"), v.Packet == 0).OnClick(p.onStep).Text("◀◀ packet"),
			buttonDisabled(ga.Button().ID("cmp-op-back").DataSet("step", "op-back").Title("an operation back (←)"), v.Packet == 0 && v.Op == 0).OnClick(p.onStep).Text("◀ op"),
			buttonDisabled(ga.Button().ID("cmp-op").DataSet("step", "op").Title("the next operation of each side (→)"), v.Packet >= v.Limit && v.Op >= v.WindowLen).OnClick(p.onStep).Text("op ▶"),
			buttonDisabled(ga.Button().ID("cmp-packet").DataSet("step", "packet").Title("a packet forward (Shift+→)"), v.Packet >= v.Limit).OnClick(p.onStep).Text("packet ▶▶"),
			buttonDisabled(ga.Button().ID("cmp-last").DataSet("step", "last").Title("the last packet (End)"), v.Packet >= v.Limit).OnClick(p.onStep).Text("last »"),
			buttonDisabled(ga.Button().ID("cmp-goto-div").Class("primary").DataSet("step", "div"), !hasDiv).OnClick(p.onStep).Text(divText),
		),
		ga.Div().Class(track).Body(
			ga.Input().ID("cmp-slider").Class("rp-slider cmp-slider").Type("range").Min(0).Max(v.Limit).Step(1).Value(v.Packet).
				Aria("label", "packets received on both sides").Aria("valuetext", v.Now).OnInput(p.onSlider),
			marker, markerLabel,
		),
		ga.P().ID("cmp-now").Class("rp-now").Aria("live", "polite").Text(v.Now),
		ga.P().Class("meta").Text("Keys: → the next operation of each side's packet (a side whose packet takes fewer waits at its end), Shift+→ the next packet; ← and Shift+← back; Home and End the first and the last packet; d the divergence."),
	)
}

// commitURL links a commit to its kernel.org page.
func commitURL(hash string) string { return "https://git.kernel.org/linus/" + hash }

func (p *ComparePage) renderDivergence(v *session.CompareView) ga.UI {
	d := v.Div
	if d == nil {
		return ga.Div().ID("cmp-div").Class("cmp-div-none")
	}
	title := fmt.Sprintf("First divergence: packet %d", d.Packet)
	if d.AfterLast {
		title = fmt.Sprintf("First divergence: after the last packet (%d), in what the runs do then", d.Packet-1)
	}
	var sides []ga.UI
	for i, name := range v.Names {
		sides = append(sides, ga.Li().ID(fmt.Sprintf("cmp-dec-%c", 'a'+i)).Body(ga.Strong().Text(name+": "), decisionUI(d.First[i], fmt.Sprintf("cmp-dec-%c-func", 'a'+i))))
	}
	var changes []ga.UI
	for _, ch := range d.Changes {
		commit := ga.UI(ga.Text(ch.Kind))
		switch {
		case ch.Commit != "":
			commit = ga.A().Class("cmp-commit").Href(commitURL(ch.Commit)).Target("_blank").Rel("noopener").Body(ga.Code().Text(ch.Commit))
		case ch.Kind == "era" || ch.Kind == "driver":
			commit = ga.Text("commit not pinned")
		}
		cls := "cmp-change"
		decides := "does not decide it alone"
		if ch.Decides {
			cls += " cmp-decides"
			decides = "decides it"
		}
		changes = append(changes, ga.Tr().Class(cls).DataSet("name", ch.Name).Body(
			ga.Td().DataSet("label", "decides").Text(ch.Rule), ga.Td().DataSet("label", "field").Body(ga.Code().Text(ch.Name)),
			ga.Td().DataSet("label", "A → B").Text(ch.A+" → "+ch.B), ga.Td().DataSet("label", "commit").Body(commit), ga.Td().DataSet("label", "alone").Text(decides)))
	}
	var explained ga.UI = ga.Text("")
	if !d.Explained {
		explained = ga.P().ID("cmp-unexplained").Class("meta").Text("No one change alone decides this packet: the changes together do.")
	}
	var table ga.UI = ga.P().Class("meta").Text("The changes are being found…")
	if len(changes) > 0 {
		table = ga.Div().Class("table-scroll").Body(ga.Table().ID("cmp-changes").Class("cmp-changes").Body(
			ga.Caption().Text("How the two sides differ, the change that decides the packet first"),
			ga.THead().Body(ga.Tr().Body(ga.Th().Text("what it decides"), ga.Th().Text("field"), ga.Th().Text("A → B"), ga.Th().Text("commit"), ga.Th().Text("alone"))),
			ga.TBody().Body(changes...)))
	} else if v.Phase == "" || v.Phase == "results" {
		table = ga.P().Class("meta").Text("The sides differ in no change the model tags.")
	}
	return ga.Section().ID("cmp-div").Class("panel cmp-div").Aria("label", "the divergence").Body(
		ga.H2().ID("cmp-div-title").Text(title),
		ga.P().Class("meta").Text("Each side's first decision in the packet's operations that differs from the other's (where a page went, a violation), its function linked to its source in that side's release:"),
		ga.Ul().Class("plain cmp-decisions").Body(sides...),
		table,
		explained,
	)
}

// decisionUI says one decision, its function linked to its source.
func decisionUI(d *lab.Decision, id string) ga.UI {
	if d == nil {
		return ga.Span().ID(id).Text("no further decision in the packet")
	}
	var fn ga.UI = ga.Code().ID(id).Text(d.Func)
	if d.Source != "" {
		fn = ga.A().ID(id).Href(d.Source).Target("_blank").Rel("noopener").Title("the definition in this side's release").Body(ga.Code().Text(d.Func))
	}
	return ga.Span().Body(fn, ga.Text(": "), ga.Strong().Class("cmp-stat").Text(d.What()), ga.Text(" ("+d.Where()+") — "+d.Why))
}

func (p *ComparePage) renderSide(v *session.CompareView, i int) ga.UI {
	s := &v.Sides[i]
	sid := fmt.Sprintf("cmp-side-%c", 'a'+i)
	label := string(rune('A' + i))
	var narr []ga.UI
	if s.AtDecision && s.Decision != nil {
		what := s.Decision.Stat
		if s.Decision.Violation != "" {
			what = "violation " + s.Decision.Violation
		}
		narr = append(narr, ga.P().ID(sid+"-decision").Class("cmp-decision").Role("note").Text(fmt.Sprintf("This operation holds %s's first decision that differs from the other side's: %s by %s (pfn %d).", v.Names[i], what, s.Decision.Func, s.Decision.PFN)))
	}
	switch {
	case len(s.Window) > 0:
		narr = append(narr, ga.P().Text(fmt.Sprintf("Packet %d's %s on this side, each with its events:", v.Packet, session.Plural(len(s.Window), "operation"))))
		var ops []ga.UI
		for _, r := range s.Window {
			var evs []ga.UI
			for _, e := range r.Events {
				evs = append(evs, eventItem(e, s.Era, s.Driver))
			}
			cls := "cmp-winop"
			var mark ga.UI = ga.Text("")
			if s.Decision != nil && s.Decision.Op == r.Op.Index {
				cls += " cmp-at-decision"
				mark = ga.Strong().Class("cmp-decision-mark").Text(fmt.Sprintf(" — the first decision that differs from the other side's: %s (%s)", s.Decision.What(), s.Decision.Where()))
			}
			ops = append(ops, ga.Li().Class(cls).Body(
				ga.Text(fmt.Sprintf("op %d on cpu%d: ", r.Op.Index+1, r.Op.CPU)), sourceLink(lab.Source(s.Era, s.Driver, r.Op.Func), ""), ga.Text(" — "+r.Op.Label), mark,
				ga.If(len(evs) > 0, func() ga.UI { return ga.Ul().Class("plain events cmp-events").Body(evs...) })))
		}
		narr = append(narr, ga.Ol().ID(sid+"-window").Class("plain cmp-window").TabIndex(0).Aria("label", fmt.Sprintf("packet %d's operations", v.Packet)).Body(ops...))
	case s.Has:
		var evs []ga.UI
		for _, e := range s.Rec.Events {
			evs = append(evs, eventItem(e, s.Era, s.Driver))
		}
		narr = append(narr, ga.P().Body(ga.Text(fmt.Sprintf("op %d on cpu%d: ", s.Op, s.Rec.Op.CPU)), sourceLink(lab.Source(s.Era, s.Driver, s.Rec.Op.Func), ""), ga.Text(" — "+s.Rec.Op.Label)))
		if len(evs) > 0 {
			narr = append(narr, ga.Ul().Class("plain events cmp-events").TabIndex(0).Aria("label", session.Plural(len(evs), "event")+" of the operation").Body(evs...))
		}
	case s.Op == 0:
		narr = append(narr, ga.P().Class("meta").Text("Before the first operation."))
	default:
		narr = append(narr, ga.P().Class("meta").Text(fmt.Sprintf("At op %d.", s.Op)))
	}
	var rows []ga.UI
	for st := sim.Stat(0); st < sim.NumStats; st++ {
		cls := ""
		if s.Differs[st] {
			cls = "cmp-differs"
		}
		rows = append(rows, ga.Tr().Class(cls).Body(ga.Th().Scope("row").Body(ga.Code().Text(lab.EthtoolName(s.Driver, st, -1))), ga.Td().Text(strconv.FormatInt(int64(s.Stats[st]), 10))))
	}
	cls := "cmp-side"
	if s.AtDecision {
		cls += " cmp-at-decision"
	}
	return ga.Section().ID(sid).Class(cls).DataSet("op", s.Op).DataSet("packets", s.Packets).Aria("label", "run "+label+": "+v.Titles[i]).Body(
		ga.H2().Text(fmt.Sprintf("%s: %s", label, v.Titles[i])),
		ga.P().ID(sid+"-where").Class("meta").Body(
			ga.Strong().ID(sid+"-packets").Text(strconv.FormatInt(v.Packet, 10)),
			ga.Text(strings.TrimPrefix(s.Where, strconv.FormatInt(v.Packet, 10)))),
		ga.Div().ID(sid+"-narration").Class("panel cmp-narration").Body(narr...),
		ga.Details().Class("cmp-counters").Body(
			ga.Summary().Text("the pool's counters (ethtool -S), those that differ from the other side's marked"),
			ga.Table().Class("cmp-stats").Body(ga.TBody().Body(rows...))),
		&Machine{ID: fmt.Sprintf("machine-%c", 'a'+i), V: s.Machine},
	)
}

func (p *ComparePage) renderNetdev(v *session.CompareView) ga.UI {
	text := p.text
	if text == "" {
		text = "(the text is ready once the comparison and both runs have finished)"
	}
	return ga.Section().ID("cmp-netdev").Class("panel").Aria("label", "for netdev").Body(
		ga.H2().Text("For a netdev mail"),
		ga.P().Body(
			ga.Button().ID("cmp-copy").Class("primary").OnClick(p.onCopy).Text("Copy for netdev"),
			ga.Span().ID("cmp-copied").Class("meta").Role("status").Text(" "+p.copied)),
		ga.Pre().ID("cmp-text").Class("cmp-text").TabIndex(0).Aria("label", "the comparison as plain text, at most 72 columns").Text(text),
		ga.P().Body(ga.Text("The same comparison on the command line: "), ga.Code().ID("cmp-cli").Text(v.CLI)),
		ga.P().Class("meta").Body(ga.Text("Model build "), ga.Code().ID("cmp-build").Text(v.BuildID), ga.Text(" (ppsim version prints the same).")),
	)
}

// renderEmbed is the figure alone: the step bar with the divergence
// marker and the two machines, with a link to the full page.
func (p *ComparePage) renderEmbed(v *session.CompareView) ga.UI {
	q, _ := url.ParseQuery(v.Link)
	q.Del(session.EmbedKey)
	return ga.Main().ID("compare-page").Class("compare-page embed").Body(
		&Banner{Items: v.Banner},
		figureKeysNote(),
		p.renderDivSummary(v),
		p.renderStep(v),
		ga.Div().ID("cmp-sides").Class("cmp-sides").Body(p.renderSide(v, 0), p.renderSide(v, 1)),
		ga.P().Class("meta").Body(ga.A().ID("cmp-open-full").Href(sitePath(ComparePath)+"?"+q.Encode()).Target("_blank").Rel("noopener").Text("open in pplab")),
	)
}

// cmpThumbPX is the slider thumb's width, about (the marker's inset).
const cmpThumbPX = 16

// compareFewPackets is the packets the slow-comparison note offers.
const compareFewPackets = 20000

// withCommas is n with thousands separators (1,000,000).
func withCommas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// onCompareSkip: the skip link lands the focus on the step bar (the
// fragment alone only scrolls), as the playground's does on the machine.
func onCompareSkip(ctx ga.Context, e ga.Event) {
	if m := ga.Window().GetElementByID("cmp-step"); m.Truthy() {
		m.Call("focus")
	}
}

// renderDivSummary is the embed's one line on the divergence: the packet,
// each side's decision, the deciding change's commit.
func (p *ComparePage) renderDivSummary(v *session.CompareView) ga.UI {
	d := v.Div
	switch {
	case v.FromStart != "":
		return ga.P().ID("cmp-div-line").Class("cmp-div-line").Text("The runs differ from the start: " + v.FromStart + ".")
	case d == nil && v.NoDiv != "":
		return ga.P().ID("cmp-div-line").Class("cmp-div-line").Text(fmt.Sprintf("No divergence in %s packets.", withCommas(v.Compared)))
	case d == nil:
		return ga.P().ID("cmp-div-line").Class("cmp-div-line meta").Text("Comparing…")
	}
	body := []ga.UI{ga.Strong().Text(fmt.Sprintf("Divergence at packet %d: ", d.Packet))}
	if d.AfterLast {
		body[0] = ga.Strong().Text("Divergence after the last packet: ")
	}
	for i, name := range v.Names {
		what := "no further decision"
		if dec := d.First[i]; dec != nil {
			what = dec.What() + " (" + dec.Func + ")"
		}
		sep := "; "
		if i == len(v.Names)-1 {
			sep = ""
		}
		body = append(body, ga.Text(name+": "+what+sep))
	}
	for _, ch := range d.Changes {
		if !ch.Decides {
			continue
		}
		body = append(body, ga.Text(" — decided by "), ga.Code().Text(ch.Name))
		if ch.Commit != "" {
			body = append(body, ga.Text(", "), ga.A().Class("cmp-commit").Href(commitURL(ch.Commit)).Target("_blank").Rel("noopener").Body(ga.Code().Text(ch.Commit)))
		}
		break
	}
	return ga.P().ID("cmp-div-line").Class("cmp-div-line").Body(append(body, ga.Text("."))...)
}

// brokenAny reports whether a side breaks a rule.
func brokenAny(rules []session.CompareRule) bool {
	for _, r := range rules {
		if r.Broken {
			return true
		}
	}
	return false
}

// figureKeysNote is the machines' figures' description (figureAttrs'
// aria-describedby) on this page, which has no arrow keys inside them.
func figureKeysNote() ga.UI {
	return ga.P().ID(figureKeysID).Class("visually-hidden").Text("A part of a machine: each tile's title says its page's place and counts; Tab goes on to the next part.")
}
