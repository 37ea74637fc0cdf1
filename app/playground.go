package app

import (
	"fmt"
	"runtime/debug"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// Playground is the page's one stateful component: it holds the run (a
// *lab.Lab), steps, plays and seeks it, keeps the URL in step with it, and
// renders lab values through pure components. All its state is unexported
// (go-app: state, not props) and changes only on the UI goroutine.
type Playground struct {
	ga.Compo

	ctx  ga.Context
	list lab.ListJSON

	lab    *lab.Lab
	cfg    lab.Config // the config the run was built from
	want   lab.Config // the config the controls show; errs say why it does not build
	preset string     // "teaching" or "kernel"
	errs   map[string]string
	banner []bannerItem

	snap     lab.Snapshot
	rec      lab.StepRecord
	hasRec   bool
	recent   []lab.StepRecord // the last recorded steps (the inspector's moves)
	trace    []string
	selected int32
	maxOp    uint64

	playing      bool
	speed        int
	carry        float64 // operations owed at a slow speed
	lastFrame    float64 // performance.now() of the last frame
	lastHeavy    float64 // when series, results and charts were last refreshed
	lastURL      float64
	seekTo       int64 // a pending scrubber target (-1: none), done at the next frame
	frameQueued  bool
	lastView     float64 // when the view was last redrawn while playing
	raf, keydown ga.Func
	postFn       ga.Func

	cmpMode            string // "" (off), "era:NAME"
	cmp                *lab.Lab
	cmpErr             string
	results, cmpResult lab.Results
	series, cmpSeries  []lab.SeriesPoint

	perf perfStats // measured in the page, for the e2e test and the closing figures

	// Derived views cached between renders (a render per animation frame
	// must not rebuild what did not change).
	opts     chartOpts
	ctl      Controls
	ctlKey   string
	heavySeq int // counts heavy refreshes: the charts' inputs changed
}

// chartOpts are the charts' options and what they were built from.
type chartOpts struct {
	key, slowKey             string
	throughput, mix, profile string
}

// lastPackets is where a series ends (0 when empty).
func lastPackets(s []lab.SeriesPoint) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].Packets
}

// controls are the Controls' props, rebuilt when the wanted config or its
// errors change.
func (p *Playground) controls() *Controls {
	key := fmt.Sprintf("%s|%v|%s", p.want.Values().Encode(), p.errs, p.preset)
	if key != p.ctlKey {
		p.ctlKey = key
		p.ctl = Controls{Scenario: p.want.Scenario, Driver: p.want.Driver, Era: p.wantEra(), Seed: fmt.Sprint(p.want.Seed), Preset: p.preset,
			Scenarios: p.scenarioOptions(), Drivers: p.driverOptions(), Eras: p.eraOptions(), Knobs: p.knobRows(), Rules: p.ruleRows(),
			Errs: p.errs, ScenarioDoc: p.scenarioDoc()}
	}
	c := p.ctl
	return &c
}

// perfStats are the page's own measurements (window.__pplab).
type perfStats struct {
	frames        int
	lastFrameMS   float64 // the last frame's engine slice + view refresh
	maxFrameMS    float64
	engineMS      float64 // the last frame's engine slice
	renderMS      float64 // the last frame's go-app render (the update cycle after the frame)
	lightRenderMS float64 // the same for the last frame that did not redraw the charts
	stepMS        float64 // the last single step: engine, refresh and render
	intervalMS    float64 // between the last two animation frames (engine + refresh + go-app render + the browser)
	sumInterval   float64
	intervals     int
	playPackets   int64   // packets simulated while playing
	playMS        float64 // wall time spent playing
	firstRenderMS float64
}

const (
	traceLines   = 200 // the trace panel keeps this many lines
	recentSteps  = 32  // steps whose moves the inspector can show
	heavyEveryMS = 500 // while playing, charts and results refresh this often
)

// DefaultConfig is what the playground runs without a URL: drop traffic on
// the scenario's default driver, at teaching sizes.
func DefaultConfig() lab.Config {
	return lab.Config{Scenario: "drop", Set: lab.TeachingSet("drop")}
}

func (p *Playground) Render() (ui ga.UI) {
	defer guardRender(&ui, "Playground")
	head := ga.Header().Class("top").Body(
		ga.H1().Body(ga.Text("pplab"), ga.Span().Class("tag").Text(" — page_pool recycling, step by step")),
		ga.P().Class("lede").Text("A model of the Linux kernel's page_pool and sk_buff recycling rules. Every page is a tile; step through each alloc, mark, free and recycle, with the kernel function that does it. Numbers come from the simulated run's cost model."),
		ga.Button().ID("btn-copy").Class("copy").Text("copy link").Title("copy a link to this exact state").
			OnClick(func(ctx ga.Context, e ga.Event) { ctx.NewAction(actCopy) }),
	)
	if p.lab == nil {
		return ga.Main().ID("playground").Class("playground loading").Body(head,
			ga.P().ID("loading").Text("Loading the engine (WebAssembly)…"))
	}
	s := &p.snap
	era := s.Era
	return ga.Main().ID("playground").Class("playground").DataSet("mounted", "1").Body(
		head,
		&Banner{Items: p.banner},
		p.controls(),
		ga.Div().Class("columns").Body(
			ga.Div().Class("col-main").Body(
				&Timeline{Op: s.Op, Max: p.maxOp, Playing: p.playing, Speed: p.speed, Done: s.Done},
				&Machine{Snap: p.snap, Changed: p.changed(), Selected: p.selected},
			),
			ga.Div().Class("col-side").Body(
				&Narration{Rec: p.rec, Has: p.hasRec, Era: era, Next: s.Next, Done: s.Done, Err: p.runErr(), Op: s.Op},
				&Inspector{Page: p.selectedPage(), Has: p.selected >= 0, Free: p.selectedFree(), PFN: p.selected, Moves: p.selectedMoves()},
				&StatsPanel{Stats: s.Stats, Before: p.statsBefore(), Inflight: s.Inflight, Packets: s.Packets, Op: s.Op, Rate: p.rateText(), Note: p.statsNote()},
				&Violations{Counts: s.Violations, List: s.ViolationList, Total: total(s.Violations)},
				&Trace{Lines: p.trace},
			),
		),
		p.charts(),
		ga.Footer().Class("foot").Body(ga.P().Text("Keyboard: → step · ← step back · Shift+→ packet · Space play/pause · R reset. Kernel links open elixir.bootlin.com at the era's release.")),
	)
}

// charts: throughput with the comparison run, the recycle mix, the profile.
func (p *Playground) charts() ga.UI {
	cmpName := ""
	if p.cmp != nil {
		cmpName = p.cmpLabel()
	}
	var cmpOpts []ga.UI
	cmpOpts = append(cmpOpts, ga.Option().Value("").Selected(p.cmpMode == "").Text("no comparison"))
	for _, e := range p.eraOptions() {
		if e.Why != "" || e.Value == p.cfgEra() {
			continue
		}
		v := "era:" + e.Value
		cmpOpts = append(cmpOpts, ga.Option().Value(v).Selected(p.cmpMode == v).Text("the same run in era "+e.Value+recyclingNote(e.Value)))
	}
	// The charts redraw when their data does (a series window closes every
	// 64 packets or more); while playing the mix and profile charts redraw
	// at every third data refresh only (a chart draw costs a frame or more).
	data := fmt.Sprintf("%d/%d/%s/%d", len(p.series), lastPackets(p.series), p.cmpMode, lastPackets(p.cmpSeries))
	if data != p.opts.key {
		p.opts.key = data
		p.opts.throughput = throughputOption(p.series, p.mainLabel(), p.cmpSeries, cmpName)
	}
	slow := data
	if p.playing {
		slow = fmt.Sprintf("%d/%s", p.heavySeq-p.heavySeq%3, p.cmpMode)
	}
	if slow != p.opts.slowKey {
		p.opts.slowKey = slow
		p.opts.mix = mixOption(p.series)
		p.opts.profile = profileOption(p.results.Profile, p.mainLabel(), p.cmpResult.Profile, cmpName)
	}
	return ga.Section().ID("charts").Class("panel charts").Aria("label", "charts").Body(
		ga.Div().Class("field").Body(
			ga.Label().For("f-compare").Text("compare with"),
			ga.Select().ID("f-compare").Body(cmpOpts...).OnChange(func(ctx ga.Context, e ga.Event) {
				ctx.NewActionWithValue(actCompare, ctx.JSSrc().Get("value").String())
			}),
			ga.If(p.cmpErr != "", func() ga.UI { return ga.P().Class("field-error").Role("alert").Text(p.cmpErr) }),
		),
		ga.Div().Class("chart-grid").Body(
			&Chart{ID: "chart-throughput", Label: "throughput over simulated time", Option: p.opts.throughput, Shape: cmpName},
			&Chart{ID: "chart-mix", Label: "recycle-path mix per window", Option: p.opts.mix, Shape: "mix"},
			&Chart{ID: "chart-profile", Label: "perf-top cost breakdown", Option: p.opts.profile, Shape: cmpName},
		),
	)
}

// recyclingNote says which comparison eras have no skb recycling.
func recyclingNote(era string) string {
	if e, err := sim.EraByName(era); err == nil && e.SkbRecycle == sim.SkbRecycleNone {
		return " (no skb recycling)"
	}
	return ""
}

func meanOr0(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func total(c [sim.NumKinds]int) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// guard runs fn and turns a panic into a banner entry naming the state
// (the config's link and the operation) instead of a dead app.
func (p *Playground) guard(what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			p.playing = false
			state := "no run"
			if p.lab != nil {
				state = fmt.Sprintf("op %d of %s", p.lab.Ops(), p.cfg.Values().Encode())
			}
			p.banner = append(p.banner, bannerItem{"error", fmt.Sprintf("internal error in %s (%v) at %s — the page keeps running; please report it with this link", what, r, state)})
			ga.Logf("pplab: panic in %s: %v\n%s", what, r, firstLines(string(debug.Stack()), 16))
		}
	}()
	fn()
}

// handle registers an action handler that runs guarded.
func (p *Playground) handle(ctx ga.Context, name string, fn func(ctx ga.Context, a ga.Action)) {
	ctx.Handle(name, func(ctx ga.Context, a ga.Action) {
		p.guard(name, func() { fn(ctx, a) })
	})
}

func (p *Playground) OnMount(ctx ga.Context) {
	p.ctx = ctx
	p.selected, p.seekTo, p.speed = -1, -1, 2
	p.guard("start-up", func() {
		p.list = lab.List()
		p.start(ctx)
	})
	p.handle(ctx, actSet, func(ctx ga.Context, a ga.Action) { p.onSet(a.Value.(setField)) })
	p.handle(ctx, actStep, func(ctx ga.Context, a ga.Action) { p.pause(); p.stepOp() })
	p.handle(ctx, actBack, func(ctx ga.Context, a ga.Action) { p.pause(); p.stepBack() })
	p.handle(ctx, actPacket, func(ctx ga.Context, a ga.Action) { p.pause(); p.stepPacket() })
	p.handle(ctx, actPlay, func(ctx ga.Context, a ga.Action) { p.togglePlay() })
	p.handle(ctx, actSpeed, func(ctx ga.Context, a ga.Action) { p.setSpeed(a.Value.(int)) })
	p.handle(ctx, actReset, func(ctx ga.Context, a ga.Action) { p.pause(); p.seek(0) })
	p.handle(ctx, actSeek, func(ctx ga.Context, a ga.Action) { p.pause(); p.seekTo = int64(a.Value.(uint64)); p.queueFrame() })
	p.handle(ctx, actSelect, func(ctx ga.Context, a ga.Action) { p.selected = a.Value.(int32) })
	p.handle(ctx, actJump, func(ctx ga.Context, a ga.Action) { p.pause(); p.jumpTo(a.Value.(jump)) })
	p.handle(ctx, actCompare, func(ctx ga.Context, a ga.Action) { p.setCompare(a.Value.(string)) })
	p.handle(ctx, actCopy, func(ctx ga.Context, a ga.Action) { p.copyLink() })
	p.handle(ctx, actDismiss, func(ctx ga.Context, a ga.Action) {
		if i := a.Value.(int); i >= 0 && i < len(p.banner) {
			p.banner = append(p.banner[:i:i], p.banner[i+1:]...)
		}
	})
	p.listenKeys(ctx)
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
	p.perf.firstRenderMS = now()
	p.publish()
}

// OnAppUpdate: a new version was deployed (the service worker fetched it).
// The URL holds the whole state, so a reload loses nothing.
func (p *Playground) OnAppUpdate(ctx ga.Context) {
	if ctx.AppUpdateAvailable() {
		p.banner = append(p.banner, bannerItem{"notice", "A new version of pplab is ready: reload the page to use it (the link keeps your state)."})
	}
}

func (p *Playground) OnDismount() {
	p.playing = false
	if p.keydown != nil {
		ga.Window().Get("document").Call("removeEventListener", "keydown", p.keydown)
		p.keydown.Release()
		p.keydown = nil
	}
}

// listenKeys: → step, ← back, Shift+→ packet, Space play/pause, R reset —
// unless the user is typing in a field.
func (p *Playground) listenKeys(ctx ga.Context) {
	p.keydown = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		e := args[0]
		if e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool() || e.Get("altKey").Bool() {
			return nil
		}
		switch strings.ToLower(e.Get("target").Get("tagName").String()) {
		case "input", "select", "textarea":
			return nil
		}
		key := e.Get("key").String()
		var act func()
		switch key {
		case "ArrowRight":
			if e.Get("shiftKey").Bool() {
				act = func() { p.pause(); p.stepPacket() }
			} else {
				act = func() { p.pause(); p.stepOp() }
			}
		case "ArrowLeft":
			act = func() { p.pause(); p.stepBack() }
		case " ":
			if strings.ToLower(e.Get("target").Get("tagName").String()) == "button" {
				return nil // Space on a focused button presses it
			}
			act = p.togglePlay
		case "r", "R":
			act = func() { p.pause(); p.seek(0) }
		default:
			return nil
		}
		e.Call("preventDefault")
		ctx.Dispatch(func(ctx ga.Context) { p.guard("key "+key, act) })
		return nil
	})
	ga.Window().Get("document").Call("addEventListener", "keydown", p.keydown)
}

// now is performance.now() in milliseconds (0 natively).
func now() float64 {
	perf := ga.Window().Get("performance")
	if !perf.Truthy() {
		return 0
	}
	return perf.Call("now").Float()
}

// publish exposes the page's state for tests and for people poking at the
// console: window.__pplab.
func (p *Playground) publish() {
	if p.lab == nil {
		return
	}
	pps := 0.0
	if p.perf.playMS > 0 {
		pps = float64(p.perf.playPackets) / p.perf.playMS * 1000
	}
	ga.Window().Set("__pplab", map[string]any{
		"mounted": true, "op": float64(p.snap.Op), "packets": float64(p.snap.Packets), "done": p.snap.Done, "playing": p.playing,
		"frames": p.perf.frames, "lastFrameMS": p.perf.lastFrameMS, "maxFrameMS": p.perf.maxFrameMS,
		"engineMS": p.perf.engineMS, "renderMS": p.perf.renderMS, "stepMS": p.perf.stepMS, "lightRenderMS": p.perf.lightRenderMS, "chartMS": ga.Window().Get("__pplabChartMS"), "intervalMS": p.perf.intervalMS, "meanIntervalMS": meanOr0(p.perf.sumInterval, p.perf.intervals),
		"playPacketsPerSec": pps, "firstRenderMS": p.perf.firstRenderMS, "seriesPoints": len(p.series),
		"violations": total(p.snap.Violations), "url": p.link(),
	})
}
