package app

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/sim"
)

// Playground is the page's one stateful component. It holds the Session
// (the run and everything derived from it), hands it the page's events as
// actions on the UI goroutine, keeps the address bar in step with it, and
// renders its View: Render is a pure function of the View the last action
// returned. All its state is unexported (go-app: state, not props).
type Playground struct {
	ga.Compo

	ctx  ga.Context
	s    *session.Session
	view session.View

	raf, keydown, postFn   ga.Func
	keypress               ga.Func // swallows the character of a Space the keydown handler used
	swallowSpace           bool
	stageRAF, stageTimeout ga.Func // drawRest's: the next frame, then a task of its own
	stagePending           bool    // a stage is asked for and its frame (or fallback timer) has not come
	frameQueued            bool
	urlQueued              bool    // a trailing write is scheduled
	cmpQueued              bool    // the comparison's next slice is scheduled (queueCompare)
	posQueued              bool    // the next slice of the way to a kept position is scheduled
	idleAt                 float64 // when the panels single steps leave stale catch up
	builtFrom, written     string  // the URL query the session was built from, and the last one written (nav.go)
	perf                   perfStats
	rest                   int        // how many of the restStages below the first screen are drawn (drawRest)
	intro                  introPlace // the reader's place in the loading page's intro (OnInit; introplace.go)
	introStop              func()     // ends watchIntro
}

// perfStats are the page's own measurements (window.__pplab).
type perfStats struct {
	frames        int
	lastFrameMS   float64 // the last frame's engine slice + view refresh
	maxFrameMS    float64
	engineMS      float64 // the last frame's engine slice
	renderMS      float64 // the last frame's go-app render (the update cycle after the frame)
	lightRenderMS float64 // the same for the last frame that did not refresh the charts
	stepMS        float64 // the last single step: session, view and render
	stepSessionMS float64 // the session's part of it (the engine step)
	viewMS        float64 // the last View the session built
	intervalMS    float64 // between the last two animation frames
	sumInterval   float64
	intervals     int
	drawn         int     // frames that redrew the view while playing
	drewAt        float64 // the timestamp of the frame that last redrew the view (light), until the next frame
	playPackets   int64   // packets simulated while playing
	playMS        float64 // wall time spent playing
	lastTS        float64
	mountMS       float64 // when OnMount began (performance.now: from the navigation's start)
	sessionMS     float64 // when the session (its first run) had been built
	firstKeyMS    float64 // when the first key reached the page's listener
	firstActMS    float64 // when the first single step's action began
	firstRenderMS float64
	firstStepMS   float64 // when the first single step had rendered (performance.now: from the navigation's start)
	fullMS        float64 // when drawRest's last stage had rendered (the same clock)
}

// urlEveryMS throttles history.replaceState (browsers refuse more than a
// few hundred calls in a short time, and each costs a URL parse).
const urlEveryMS = 250

func (p *Playground) Render() (ui ga.UI) {
	defer guardRender(&ui, "Playground")
	head := ga.Header().Class("top").Body(
		ga.A().Class("skip").Href("#machine").Text("skip to the machine").OnClick(onSkip),
		ga.H1().Body(ga.Text("pplab"), ga.Span().Class("tag").Text(" — page_pool recycling, step by step")),
		ga.P().Class("lede").Text("A model of the Linux kernel's page_pool and sk_buff recycling rules. Every page is a tile; step through each alloc, mark, free and recycle, with the kernel function that does it. Numbers come from the simulated run's cost model."),
		ga.Div().Class("copy").Body(
			ga.Button().ID("btn-copy").Text("copy link").Title("copy a link to this exact state").OnClick(onCopy),
			ga.Button().ID("btn-embed").Text("copy embed snippet").Title("copy the <iframe> HTML that embeds this state's figure in a docs page").OnClick(onCopyEmbed),
		),
		ga.P().Class("lede").Body(ga.A().ID("tour-link").Href(sitePath("/tour/")).Text("New here? Take the guided tour: eight short chapters beside this figure →")),
		ga.A().ID("link-rules").Class("rules-link").Href(sitePath(RulesPath)).Text("the rules you can break"),
		ga.A().ID("link-whatif").Class("rules-link").Href(sitePath(WhatIfPath)).Text("what-if on your perf top"),
		ga.A().ID("link-diagnose").Class("rules-link").Href(sitePath(DiagnosePath)).Text("diagnose your counters"),
		ga.A().ID("link-replay").Class("rules-link").Href(sitePath(ReplayPath)).Text("replay a page_pool trace"),
	)
	if p.s == nil {
		return ga.Main().ID("playground").Class("playground loading").Body(head,
			ga.P().ID("loading").Text("Loading the engine (WebAssembly)…"), &SiteIntro{})
	}
	v := &p.view
	if v.Embed.On {
		return p.renderEmbed()
	}
	c := &v.Charts
	lazy := v.Timeline.Playing // Chart.Lazy
	var cmpOpts []ga.UI
	for _, o := range c.Choices {
		cmpOpts = append(cmpOpts, optionSelected(ga.Option().Value(o.Value), o.Value == c.Compare).Text(o.Label))
	}
	return ga.Main().ID("playground").Class("playground").DataSet("mounted", "1").Body(
		head,
		&IntroFold{Open: p.intro.open}, // what the loading page said, kept (introplace.go)
		&Banner{Items: v.Banner},
		&Controls{V: v.Controls},
		ga.Div().Class("columns").Body(
			ga.Div().Class("col-main").Body(
				&Timeline{V: v.Timeline},
				&Machine{V: v.Machine},
				ga.If(p.rest >= 2, func() ga.UI {
					return &TextTables{ID: "machine-table", Which: session.TableMachine, Summary: "the machine as a table (places and counts)", Tables: v.MachineTables}
				}),
			),
			ga.Div().Class("col-side").Body(
				&RulePanel{V: v.Show},
				&Narration{V: v.Narration},
				&Inspector{V: v.Inspector},
				ga.If(p.rest >= 1, func() ga.UI {
					return ga.Div().Class("col-rest").Body(
						&StatsPanel{V: v.Stats},
						&YNLPanel{V: v.YNL}, // ynlpanel.go
						&Violations{V: v.Violations},
						&Trace{Lines: v.Trace, Open: v.TraceOpen},
						&ExportPanel{CLI: v.CLI}, // export.go
					)
				}),
			),
		),
		ga.If(p.rest >= 2, func() ga.UI { return p.renderCharts(v, cmpOpts, lazy) }),
		&LiveRegion{Text: v.Live},
		ga.Footer().Class("foot").Body(ga.P().Text("Keyboard: → step · ← step back · Shift+→ packet · Space play/pause · R reset · E run to the end · ] next marker · [ previous marker · Esc leaves a field so that the keys step again · in the machine, Tab goes from figure to figure and the arrow keys (Home, End) from page to page. Kernel links open elixir.bootlin.com at the era's release."),
			buildLine()),
	)
}

// renderCharts is the charts' section: the comparison's choice and progress,
// the three charts and their data as tables.
func (p *Playground) renderCharts(v *session.View, cmpOpts []ga.UI, lazy bool) ga.UI {
	c := &v.Charts
	return ga.Section().ID("charts").Class("panel charts").Aria("label", "charts").Body(
		ga.Div().Class("field").Body(
			ga.Label().For("f-compare").Text("compare with"),
			ga.Select().ID("f-compare").Body(cmpOpts...).OnChange(onCompare),
			ga.If(c.Err != "", func() ga.UI { return ga.P().Class("field-error").ID("err-compare").Role("alert").Text(c.Err) }),
			ga.If(c.CmpProgress != "", func() ga.UI { return ga.P().ID("cmp-progress").Class("meta").Text(c.CmpProgress) }),
			ga.If(c.SideBySide != "", func() ga.UI {
				return ga.P().Class("meta").Body(ga.A().ID("cmp-side-by-side").Href(ComparePath + "?" + c.SideBySide).Text("side by side: both runs packet by packet, and the first packet the two eras treat differently →"))
			}),
		),
		ga.Div().Class("chart-grid").Body(
			&Chart{ID: "chart-throughput", Wait: true, Lazy: lazy, Label: "throughput over simulated time", Option: c.Throughput, Shape: c.CmpName, File: c.File + "-throughput", Empty: cmp.Or(c.Held, "The throughput appears after the first measured window.")},
			&Chart{ID: "chart-mix", Wait: true, Lazy: lazy, Label: "recycle-path mix per window", Option: c.Mix, Shape: "mix", File: c.File + "-mix", Empty: cmp.Or(c.Held, "The recycle mix appears after the first measured window.")},
			&Chart{ID: "chart-profile", Wait: true, Lazy: lazy, Label: "perf-top cost breakdown", Option: c.Profile, Shape: c.CmpName, File: c.File + "-profile", Empty: cmp.Or(c.Held, "The cost breakdown appears after the first measured window (before it, the run has only spent its set-up).")},
		),
		&TextTables{ID: "chart-tables", Which: session.TableCharts, Summary: "the charts' data as tables", Tables: v.ChartTables},
	)
}

// act runs one user action on the session, guarded: a panic becomes a
// banner entry naming the state, and the page keeps running. Then the view
// is taken and the address bar follows.
func (p *Playground) act(what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if p.s == nil {
				ga.Logf("pplab: panic in %s before the session existed: %v", what, r)
				return
			}
			ga.Logf("%s", p.s.Recover(what, r))
			p.sync()
		}
	}()
	fn()
	p.sync()
}

// sync takes the session's view (when it changed) and writes the URL.
func (p *Playground) sync() {
	if p.s == nil {
		return
	}
	if !p.s.Changed() {
		return // a play frame that only ran the engine: nothing shown changed
	}
	t0 := now()
	p.view = p.s.View()
	p.perf.viewMS = now() - t0
	p.writeURL(false)
	p.publish()
	p.queueCompare()
	p.queuePosition()
	if p.s.Embedded() {
		playing := p.s.Playing()
		p.ctx.Defer(func(ga.Context) { embedHeight.setPlaying(playing) })
	}
}

// queuePosition runs the way to a kept position (a config change far into
// a run) in slices of a frame, its progress drawn between them.
func (p *Playground) queuePosition() {
	if p.posQueued || p.s == nil || !p.s.PositionPending() {
		return
	}
	p.posQueued = true
	p.ctx.After(time.Millisecond, func(ctx ga.Context) {
		p.posQueued = false
		p.act("position", func() { p.s.PositionSlice(maxSliceMS) })
	})
}

// maxSliceMS: a slice of a long way within one frame.
const maxSliceMS = 12

// compareEveryMS: the comparison's slices run this often while the page
// is otherwise idle, compareSliceMS each.
const (
	compareEveryMS = 10
	compareSliceMS = 6
)

// queueCompare schedules the comparison's next slice: it runs only while
// the page is idle — not playing, no step in the last idleAfterMS — so it
// never delays a step (a key waits at most one slice).
func (p *Playground) queueCompare() {
	if p.cmpQueued || p.s == nil || !p.s.CompareRunning() {
		return
	}
	p.cmpQueued = true
	p.ctx.After(compareEveryMS*time.Millisecond, func(ctx ga.Context) {
		p.cmpQueued = false
		if p.s.Playing() || now() < p.idleAt {
			ctx.PreventUpdate()
			p.queueCompare()
			return
		}
		changed := false
		p.act("comparison", func() { p.s.CompareSlice(compareSliceMS); changed = p.s.Changed() })
		if !changed {
			ctx.PreventUpdate() // nothing shown changed: no render
		}
		p.queueCompare()
	})
}

// handle registers an action handler that runs guarded.
func (p *Playground) handle(ctx ga.Context, name string, fn func(a ga.Action)) {
	ctx.Handle(name, func(ctx ga.Context, a ga.Action) {
		p.act(name, func() { fn(a) })
	})
}

// OnInit reads where the reader is in the loading page's intro: go-app
// calls it while the prerendered document is still in place (its first
// render replaces it). The mounted page keeps the intro open or folded by
// it, once (introplace.go).
func (p *Playground) OnInit() {
	p.intro = readIntroPlace()
}

func (p *Playground) OnMount(ctx ga.Context) {
	p.ctx = ctx
	p.perf.mountMS = now()
	p.act("start-up", func() {
		p.builtFrom = ctx.Page().URL().RawQuery
		p.s = session.New(ctx.Page().URL().Query(), now)
		p.s.SetPageURL(pageURL())
		p.s.HoldCharts("The charts appear once ECharts (echarts.min.js) has loaded: when the page is left alone for a moment.")
	})
	p.perf.sessionMS = now()
	p.idleAt = now() + idleAfterMS // the charts load once the page has been left alone that long
	p.waitECharts(ctx)
	p.handle(ctx, actSet, func(a ga.Action) {
		f := a.Value.(setField)
		p.s.Set(f.Field, f.Value)
		if p.s.Playing() {
			p.queueFrame()
		}
		// A refused edit leaves the view as it was, so the render changes
		// nothing in the DOM: the control the user changed would go on
		// showing the refused value. Put every control back to the config
		// in use once the render is done.
		ctx.Defer(func(ga.Context) { reconcileControls(p.view.Controls) })
	})
	p.handle(ctx, actStep, func(a ga.Action) { p.step(p.s.Step) })
	p.handle(ctx, actBack, func(a ga.Action) { p.step(p.s.Back) })
	p.handle(ctx, actPacket, func(a ga.Action) { p.step(p.s.Packet) })
	p.handle(ctx, actPlay, func(a ga.Action) { p.togglePlay() })
	p.handle(ctx, actSpeed, func(a ga.Action) { p.s.SetSpeed(a.Value.(int)) })
	p.handle(ctx, actReset, func(a ga.Action) { p.step(p.s.Reset) })
	p.handle(ctx, actSeek, func(a ga.Action) { n := a.Value.(uint64); p.step(func() { p.s.Seek(n) }) })
	p.handle(ctx, actSelect, func(a ga.Action) {
		pfn := a.Value.(int32)
		p.s.Select(pfn)
		if pfn >= 0 {
			bringIntoView(ctx, "#inspector")
		}
	})
	p.handle(ctx, actToEnd, func(a ga.Action) {
		p.s.RunToEnd(now())
		if p.s.Playing() {
			p.perf.lastTS = 0
			p.queueFrame()
		}
	})
	p.handle(ctx, actGoTo, func(a ga.Action) { g := a.Value.(goTo); p.step(func() { p.s.GoTo(g.Unit, g.Value) }) })
	p.handle(ctx, actJump, func(a ga.Action) { j := a.Value.(jump); p.s.Jump(j.Op, j.PFN) })
	p.handle(ctx, actCompare, func(a ga.Action) { p.s.Compare(a.Value.(string)) })
	p.handle(ctx, actCopy, func(a ga.Action) { p.copyLink() })
	p.handle(ctx, actDismiss, func(a ga.Action) { p.s.Dismiss(a.Value.(int)) })
	p.handle(ctx, actTrace, func(a ga.Action) { p.s.OpenTrace(a.Value.(bool)) })
	p.handle(ctx, actFold, func(a ga.Action) { f := a.Value.(foldState); p.s.Fold(f.Name, f.Open) })
	p.handle(ctx, actShowJump, func(a ga.Action) { p.step(p.s.ShowJump); bringIntoView(ctx, "#show-panel") })
	p.handle(ctx, actShowClose, func(a ga.Action) { p.s.Show("") })
	p.handleMarkers(ctx) // markers.go
	p.handleExport(ctx)  // export.go
	p.listenKeys(ctx)
	if !p.s.Embedded() {
		p.intro.keep(ctx) // (before takeEarlyKeys: the focus in the intro first)
		ctx.Defer(func(ga.Context) { p.introStop = watchIntro() })
	}
	p.takeEarlyKeys()
	p.mountA11y(ctx)
	// window.__pplabAction(name, value) posts an action as a component
	// would (for the console and the e2e tests: a value of the wrong type
	// must end in the banner, not in a dead page).
	p.postFn = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		if len(args) == 2 {
			ctx.NewActionWithValue(args[0].String(), args[1])
		}
		return nil
	})
	ga.Window().Set("__pplabAction", p.postFn)
	exposeHeapState()
	p.perf.firstRenderMS = now()
	p.publish()
	p.drawRest(ctx)
	if p.view.Show.Rule != "" {
		bringIntoViewOnOpen(ctx, "#show-panel") // a "show me" link: its explanation, not the top of the page
	}
}

// waitECharts loads ECharts once the user pauses (no step for
// idleAfterMS: running echarts.min.js and the charts' first options take
// a task of a few hundred milliseconds that a step would wait behind) and
// then, at the next pause, lets the session build the charts' options:
// until then they are held (HoldCharts), and the first view, before the
// first step is possible, builds no options nothing could draw yet. The
// charts start at their next update (Chart.Wait).
func (p *Playground) waitECharts(ctx ga.Context) {
	p.whenIdle(ctx, func(ctx ga.Context) {
		awaitECharts(ctx, 0,
			func(ctx ga.Context) { p.whenIdle(ctx, func(ga.Context) { p.act("charts", p.s.ReleaseCharts) }) },
			func(ga.Context) {
				p.act("charts", func() {
					p.s.HoldCharts(fmt.Sprintf("ECharts (echarts.min.js) did not load in %d s: the charts' data is in the tables below.", echartsWait/20))
				})
			})
	})
}

// whenIdle runs fn once no step has come for idleAfterMS (p.idleAt).
func (p *Playground) whenIdle(ctx ga.Context, fn func(ga.Context)) {
	if t := now(); t < p.idleAt {
		ctx.After(time.Duration((p.idleAt-t)*float64(time.Millisecond)), func(ctx ga.Context) { p.whenIdle(ctx, fn) })
		return
	}
	fn(ctx)
}

// drawRest draws the panels below the first screen once the browser has
// painted the first screen, in restStages tasks: the side panels (the
// counters, the ynl view, the violations, the trace, the export), then the
// machine's table and the charts. The step is possible as soon as the
// controls, the timeline, the machine and the narration are there; the
// first render, its layout and the code the browser compiles as it first
// runs are the page's cold start, and a key pressed meanwhile waits for
// one stage at most, not for the whole page.
//
// Each stage starts from a task of its own (after the next frame, a
// setTimeout): a key pressed while the first screen was drawn is in the
// browser's queue by then and is handled first. With the stages chained
// by ctx.After(0) the Go scheduler ran them without returning to the
// browser, and a key held from the navigation got its first step only
// after the whole page had been drawn and laid out (a trace: the first
// key reached the listener 250–400 ms after the first screen).
func (p *Playground) drawRest(ctx ga.Context) {
	var raf, timeout ga.Func
	timeout = ga.FuncOf(func(ga.Value, []ga.Value) any {
		ctx.Dispatch(func(ctx ga.Context) { p.nextStage(ctx) })
		return nil
	})
	raf = ga.FuncOf(func(ga.Value, []ga.Value) any {
		if !p.stagePending {
			return nil // the frame and the fallback timer both fired
		}
		p.stagePending = false
		ga.Window().Call("setTimeout", timeout, 0)
		return nil
	})
	p.stageRAF, p.stageTimeout = raf, timeout
	p.askStage()
}

// askStage asks for the next stage after the next frame — or after 250 ms
// if no frame comes (a page the browser does not paint, a background tab,
// runs no animation frames: the page stayed without its charts until
// shown, and a loaded test browser sometimes never drew them).
func (p *Playground) askStage() {
	p.stagePending = true
	ga.Window().Call("requestAnimationFrame", p.stageRAF)
	ga.Window().Call("setTimeout", p.stageRAF, 250)
}

// restStages: drawRest's stages.
const restStages = 2

// nextStage draws the next stage; once it has rendered, the one after it
// is asked for as drawRest asked for the first.
func (p *Playground) nextStage(ctx ga.Context) {
	p.rest++
	ctx.Defer(func(ga.Context) { // once the stage has rendered
		if p.rest == restStages {
			p.perf.fullMS = now()
			// stageRAF and stageTimeout are kept (two functions a page):
			// the last stage's fallback timer may still call stageRAF,
			// and a released function called from JS is an error.
		}
		p.publish()
		if p.rest < restStages {
			p.askStage()
		}
	})
}

// idleAfterMS: once the user pauses stepping this long, the panels a step
// leaves stale (rate, series, charts, the comparison) catch up.
const idleAfterMS = 300

// step runs a single-step action and measures it up to the render.
func (p *Playground) step(fn func()) {
	start := now()
	if p.perf.firstActMS == 0 {
		p.perf.firstActMS = start
	}
	fn()
	p.perf.stepSessionMS = now() - start
	p.ctx.Defer(func(ga.Context) {
		p.perf.stepMS = now() - start
		if p.perf.firstStepMS == 0 {
			p.perf.firstStepMS = now()
		}
		p.publish()
		if p.rest == restStages {
			// (not before the page is whole: the first metrics read is a
			// cold start of its own, and the heap is small until then)
			collectAfterPaintIfDue()
		}
	})
	p.idleAt = start + idleAfterMS
	p.ctx.After(idleAfterMS*time.Millisecond, func(ctx ga.Context) {
		if now() < p.idleAt {
			ctx.PreventUpdate() // another step came: its own timer catches up
			return
		}
		p.act("idle", func() {
			if !p.s.Idle() {
				ctx.PreventUpdate()
			}
		})
		// Collect while the user reads, after the catch-up renders, so
		// that the next steps start with an empty heap (gcpace.go).
		ctx.Defer(func(ga.Context) { runtime.GC() })
	})
}

func (p *Playground) togglePlay() {
	p.s.TogglePlay(now())
	if p.s.Playing() {
		p.perf.lastTS = 0
		p.queueFrame()
	}
}

// OnAppUpdate: a new version was deployed (the service worker fetched it).
// The URL holds the whole state, so a reload loses nothing.
func (p *Playground) OnAppUpdate(ctx ga.Context) {
	if ctx.AppUpdateAvailable() && p.s != nil {
		p.s.Notify("notice", "A new version of pplab is ready: reload the page to use it (the link keeps your state).")
		p.sync()
	}
}

func (p *Playground) OnDismount() {
	if p.introStop != nil {
		p.introStop()
		p.introStop = nil
	}
	if p.keydown != nil {
		ga.Window().Get("document").Call("removeEventListener", "keydown", p.keydown)
		p.keydown.Release()
		p.keydown = nil
	}
	if p.keypress != nil {
		ga.Window().Get("document").Call("removeEventListener", "keypress", p.keypress)
		p.keypress.Release()
		p.keypress = nil
	}
}

// listenKeys: → step, ← back, Shift+→ packet, Space play/pause, R reset, E run to end,
// ] and [ the next and previous marker.
// None fires while a form control (input, select, textarea, or a button
// for Space) has focus: there the keys are the control's (Space toggles a
// focused checkbox, arrows change a number). Escape leaves the control, so
// the keys step again.
func (p *Playground) listenKeys(ctx ga.Context) {
	p.keydown = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		e := args[0]
		if modified(e) || inFormControl(e, true) {
			return nil
		}
		key := e.Get("key").String()
		target := e.Get("target")
		if target.Get("isContentEditable").Truthy() {
			return nil
		}
		tag := strings.ToLower(target.Get("tagName").String())
		name, stepFn, act := p.keyAction(key, e.Get("shiftKey").Bool(), tag)
		if stepFn == nil && act == nil {
			return nil
		}
		if stepFn != nil {
			act = func() { p.step(stepFn) }
		}
		e.Call("preventDefault")
		p.swallowSpace = key == " "
		if p.perf.firstKeyMS == 0 {
			p.perf.firstKeyMS = now()
		}
		ctx.Dispatch(func(ctx ga.Context) { p.act(name, act) })
		return nil
	})
	ga.Window().Get("document").Call("addEventListener", "keydown", p.keydown)
	// Space scrolls the page from its character event (Blink's default
	// handler of keypress), which a keydown's preventDefault suppresses
	// for a keyboard but not for a character sent on its own (CDP's
	// Input.dispatchKeyEvent "char", which assistive and automation tools
	// send): a trial saw each Space toggle play and scroll 700 px.
	p.keypress = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		if e := args[0]; p.swallowSpace && e.Get("key").String() == " " {
			e.Call("preventDefault")
		}
		p.swallowSpace = false
		return nil
	})
	ga.Window().Get("document").Call("addEventListener", "keypress", p.keypress)
}

// keyAction is what a key does (its target's tag: a button's Space is the
// button's): a single-step action (stepFn, run by step) or another (act);
// neither for a key the page does not take.
func (p *Playground) keyAction(key string, shift bool, tag string) (name string, stepFn, act func()) {
	name = "key " + key
	switch key {
	case "ArrowRight":
		if shift {
			return name, p.s.Packet, nil
		}
		return name, p.s.Step, nil
	case "ArrowLeft":
		return name, p.s.Back, nil
	case " ":
		if tag == "button" || tag == "summary" || tag == "a" {
			return name, nil, nil // Space on a focused button presses it
		}
		return name, nil, p.togglePlay
	case "r", "R":
		return name, p.s.Reset, nil
	case "e", "E":
		return name, nil, func() {
			p.s.RunToEnd(now())
			if p.s.Playing() {
				p.perf.lastTS = 0
				p.queueFrame()
			}
		}
	case "]", "[": // markers.go
		return name, nil, func() { p.markerKey(key) }
	}
	return name, nil, nil
}

// EarlyKeysJS is a script for the page's <head> (wasm/loader.go) that
// records the playground's keys pressed before the engine is up: on a cold
// load the prerendered page shows the controls ~2 s before app.wasm has
// started. window.__pplabEarlyKeys holds them until the playground takes
// them (takeEarlyKeys) and sets it to null: at most 64 arrow keys in a row
// (a key held from the navigation repeats ~30 times a second) and every
// other key, up to 256 in all, so a deliberate R or E after a held arrow is kept. It
// records on the playground's page only (root: its path, the site's
// prefix included; the tour and the tools have no use for them), for 30 s
// at most (a page whose wasm failed keeps its keys), and only
// listenKeys's keys with its exceptions (a form control's, a modified key,
// a button's Space), whose default it stops as listenKeys does: the
// keydown's (the arrows and Space would scroll the page) and a recorded
// Space's character event (Blink scrolls from it when it comes on its own,
// as assistive tools and CDP send it; listenKeys's swallowSpace). It also
// keeps the id of the element that has the focus
// (window.__pplabEarlyFocus; "" for an element without one, such as the
// intro's links, whose focus introplace.go gives back): the mounted page
// replaces the prerendered one, and takeEarlyKeys gives the focus back.
func EarlyKeysJS(root string) string {
	r, _ := json.Marshal(root)
	return `<script>(function(){
var p=location.pathname,r=` + string(r) + `;if(p!==r&&p!==r+"index.html")return;
var q=window.__pplabEarlyKeys=[],t0=Date.now(),arrows=0,sw=false;
var on=function(){return window.__pplabEarlyKeys===q&&Date.now()-t0<30000;};
document.addEventListener("focusin",function(e){if(on()&&e.target)window.__pplabEarlyFocus=e.target.id||"";});
document.addEventListener("keydown",function(e){
 sw=false;
 if(!on()||e.ctrlKey||e.metaKey||e.altKey)return;
 var t=e.target,g=t&&t.tagName?t.tagName.toLowerCase():"";
 if(g==="input"||g==="select"||g==="textarea"||(t&&t.isContentEditable))return;
 if("ArrowRight ArrowLeft r R e E ] [".split(" ").indexOf(e.key)<0&&!(e.key===" "&&g!=="button"&&g!=="summary"&&g!=="a"))return;
 e.preventDefault();sw=e.key===" ";
 var arrow=e.key==="ArrowRight"||e.key==="ArrowLeft";
 if(!arrow)arrows=0;
 if(q.length<256&&(!arrow||arrows<64)){q.push({key:e.key,shift:e.shiftKey,tag:g});if(arrow)arrows++;}
});
document.addEventListener("keypress",function(e){if(sw&&e.key===" ")e.preventDefault();sw=false;});
})();</script>`
}

// takeEarlyKeys does what the keys pressed while the page loaded ask
// (EarlyKeysJS), in order, before the first screen of the session is
// drawn: a run of steps is one step action (one view, one render), so a
// key held from the navigation shows its steps with the first screen
// instead of being lost to the loading.
func (p *Playground) takeEarlyKeys() {
	w := ga.Window()
	q := w.Get("__pplabEarlyKeys")
	w.Set("__pplabEarlyKeys", nil)
	if f := w.Get("__pplabEarlyFocus"); f.Truthy() {
		// The focus a Tab gave an element of the prerendered page: back on
		// the mounted page's element of that id, once it is drawn.
		id := f.String()
		p.ctx.Defer(func(ga.Context) {
			doc := ga.Window().Get("document")
			if el := doc.Call("getElementById", id); el.Truthy() && doc.Get("activeElement").Equal(doc.Get("body")) {
				el.Call("focus")
			}
		})
	}
	if !q.Truthy() || q.Length() == 0 {
		return
	}
	if p.perf.firstKeyMS == 0 {
		p.perf.firstKeyMS = now()
	}
	var steps []func()
	flush := func() {
		if len(steps) > 0 {
			run := steps
			p.act("keys pressed while the page loaded", func() {
				p.step(func() {
					for _, f := range run {
						f()
					}
				})
			})
			steps = nil
		}
	}
	for i := range q.Length() {
		k := q.Index(i)
		name, stepFn, act := p.keyAction(k.Get("key").String(), k.Get("shift").Bool(), k.Get("tag").String())
		switch {
		case stepFn != nil:
			steps = append(steps, stepFn)
		case act != nil:
			flush()
			p.act(name+" (pressed while the page loaded)", act)
		}
	}
	flush()
}

// queueFrame asks for an animation frame (once).
func (p *Playground) queueFrame() {
	if p.frameQueued {
		return
	}
	p.frameQueued = true
	if p.raf == nil {
		p.raf = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
			ts := args[0].Float()
			p.ctx.Dispatch(func(ctx ga.Context) {
				p.frameQueued = false
				p.frame(ctx, ts)
			})
			return nil
		})
	}
	ga.Window().Call("requestAnimationFrame", p.raf)
}

// frame runs one animation frame of play: the session runs the engine;
// the page renders only when the view changed (at most once per frame).
func (p *Playground) frame(ctx ga.Context, ts float64) {
	if p.s == nil || !p.s.Playing() {
		return
	}
	start := now()
	var r session.FrameResult
	p.act("play", func() { r = p.s.Frame(ts) })
	if p.perf.lastTS > 0 && ts > p.perf.lastTS {
		p.perf.intervalMS = ts - p.perf.lastTS
		p.perf.sumInterval += p.perf.intervalMS
		p.perf.intervals++
		p.perf.playMS += p.perf.intervalMS
	}
	p.perf.lastTS = ts
	if p.perf.drewAt > 0 && ts > p.perf.drewAt {
		p.s.DrawCost(ts - p.perf.drewAt) // the last frame redrew: its cost, style, layout and paint included
	}
	p.perf.drewAt = 0
	p.perf.playPackets += r.Ran
	p.perf.engineMS = r.Engine
	p.perf.frames++
	if r.Again {
		p.queueFrame()
	} else if p.s.Lab().Done() {
		bringIntoView(ctx, "#run-complete") // play reached the end: say so where it is seen
	}
	if !r.Draw {
		ctx.PreventUpdate()
		p.perf.lastFrameMS = now() - start
		return
	}
	p.perf.drawn++
	p.perf.lastFrameMS = now() - start
	p.perf.maxFrameMS = max(p.perf.maxFrameMS, p.perf.lastFrameMS)
	p.publish() // with this frame's counts (act published before they were added)
	rendered := now()
	heavy := r.Heavy
	if !heavy {
		p.perf.drewAt = ts
	}
	ctx.Defer(func(ga.Context) {
		p.perf.renderMS = now() - rendered
		if !heavy {
			p.perf.lightRenderMS = p.perf.renderMS
		}
	})
}

// writeURL puts the state in the address bar (history.replaceState) at
// most every urlEveryMS, and never inside the action that changed it: a
// change queues one trailing write (force: write now). replaceState costs
// Chromium a few milliseconds (it serialises the entry and tells the
// browser process), which landed in one step of every few; the address
// bar may lag by up to urlEveryMS (while playing, its op until play
// stops), and the copy-link button and window.__pplab.url always give the
// current state.
func (p *Playground) writeURL(force bool) {
	if p.s == nil || p.ctx.Page() == nil {
		return
	}
	if !force {
		if !p.urlQueued {
			p.urlQueued = true
			p.ctx.After(urlEveryMS*time.Millisecond, func(ctx ga.Context) {
				p.urlQueued = false
				ctx.PreventUpdate()
				if p.s.Playing() && sameBesidesStep(p.written, p.view.Link) {
					// Not for play's progress alone: a replaceState (2–3
					// ms) in a redrawing frame made it miss its vsync,
					// four times a second. Play's stop (a pause, a step,
					// the run's end) syncs the view, which writes it; a
					// change of the configuration is written at once.
					return
				}
				p.writeURL(true)
			})
		}
		return
	}
	u := p.linkURL()
	p.written = u.RawQuery
	p.ctx.Page().ReplaceURL(&u)
}

// sameBesidesStep reports whether two link queries differ at most in the
// op they open at (step).
func sameBesidesStep(a, b string) bool {
	qa, errA := url.ParseQuery(a)
	qb, errB := url.ParseQuery(b)
	if errA != nil || errB != nil {
		return false
	}
	qa.Del("step")
	qb.Del("step")
	return qa.Encode() == qb.Encode()
}

// linkURL is the page's URL with the state the view shows (View.Link).
func (p *Playground) linkURL() url.URL {
	u := *p.ctx.Page().URL()
	u.RawQuery, u.Fragment = p.view.Link, ""
	return u
}

// link is the URL of the current state.
func (p *Playground) link() string {
	u := p.linkURL()
	return u.String()
}

// copyLink copies the state's link to the clipboard (and says so).
func (p *Playground) copyLink() {
	link := p.link()
	clip := ga.Window().Get("navigator").Get("clipboard")
	if clip.Truthy() {
		clip.Call("writeText", link)
	}
	p.s.Notify("notice", "link to this state: "+link)
}

// now is performance.now() in milliseconds (0 natively). The performance
// object is looked up once: max-speed play asks the time every 64
// operations, and each lookup made a new js.Value (a reference with a
// finalizer), which cost 6 % of play.
func now() float64 {
	if !perfLooked {
		perfLooked = true
		if p := ga.Window().Get("performance"); p.Truthy() {
			perfObj, perfOK = p, true
		}
	}
	if !perfOK {
		return 0
	}
	return perfObj.Call("now").Float()
}

// goStartMS is when the Go program began (its package variables
// initialised: app.wasm fetched, compiled and started), on the clock of
// now(); the cold start's phases are published in window.__pplab.
var goStartMS = now()

var (
	perfObj            ga.Value
	perfOK, perfLooked bool
)

// publish exposes the page's state for tests and for people poking at the
// console: window.__pplab.
func (p *Playground) publish() {
	if p.s == nil {
		return
	}
	pps, fps := 0.0, 0.0
	if p.perf.playMS > 0 {
		pps = float64(p.perf.playPackets) / p.perf.playMS * 1000
		fps = float64(p.perf.drawn) / p.perf.playMS * 1000
	}
	l := p.s.Lab()
	u := p.linkURL()
	drawCost, viewEvery := p.s.Redraws()
	ga.Window().Set("__pplab", map[string]any{
		"mounted": true, "full": p.rest == restStages, "chartsHeld": p.view.Charts.Held != "", "op": float64(l.Ops()), "packets": float64(l.Packets()), "done": l.Done(), "playing": p.s.Playing(),
		"frames": p.perf.frames, "drawn": p.perf.drawn, "lastFrameMS": p.perf.lastFrameMS, "maxFrameMS": p.perf.maxFrameMS,
		"engineMS": p.perf.engineMS, "renderMS": p.perf.renderMS, "stepMS": p.perf.stepMS, "stepSessionMS": p.perf.stepSessionMS, "viewMS": p.perf.viewMS, "lightRenderMS": p.perf.lightRenderMS, "drawCostMS": drawCost, "viewEveryMS": viewEvery, "chartMS": ga.Window().Get("__pplabChartMS"), "intervalMS": p.perf.intervalMS, "meanIntervalMS": meanOr0(p.perf.sumInterval, p.perf.intervals),
		"playPacketsPerSec": pps, "drawnPerSec": fps, "goStartMS": goStartMS, "mountMS": p.perf.mountMS, "sessionMS": p.perf.sessionMS, "firstKeyMS": p.perf.firstKeyMS, "firstActMS": p.perf.firstActMS, "firstRenderMS": p.perf.firstRenderMS, "firstStepMS": p.perf.firstStepMS, "fullMS": p.perf.fullMS, "seriesPoints": p.view.Charts.Points,
		"violations": p.view.Violations.Total, "url": u.String(),
		// What the counters and violations panels show (the property
		// walk compares them with an independent run).
		"stats": statsJS(p.view.Stats.Stats), "violationCounts": countsJS(p.view.Violations.Counts),
	})
}

func meanOr0(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func statsJS(st sim.Stats) []any {
	out := make([]any, len(st))
	for i, v := range st {
		out[i] = float64(v)
	}
	return out
}

func countsJS(c [sim.NumKinds]int) []any {
	out := make([]any, len(c))
	for i, v := range c {
		out[i] = float64(v)
	}
	return out
}
