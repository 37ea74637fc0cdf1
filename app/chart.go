package app

import (
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Chart is one ECharts chart: it calls echarts.init on its element when
// mounted (with ECharts' dark theme when the page is dark), setOption
// whenever its Option (JSON, built with go-echarts) changes, and dispose
// when dismounted. ECharts owns the element's children; go-app never
// renders into it. An empty Option shows Empty instead of a chart.
type Chart struct {
	ga.Compo
	ID     string
	Label  string // what the chart shows, for screen readers
	Option string // the ECharts option as JSON
	Empty  string // shown while Option is ""
	// Shape names the option's layout (its series); while it stays the same
	// an update merges the new data into the chart (cheap, and the user's
	// zoom stays), when it changes the option replaces the old one.
	Shape string
	// File is the saved image's name (without ".png"); "" for no save
	// button.
	File string
	// Lazy: while the page plays, a chart off screen is not redrawn (a
	// setOption costs tens of milliseconds, every second of max-speed
	// play); it draws its latest option when it comes into view or when
	// play stops.
	Lazy bool
	// Wait: the page loads ECharts itself (the playground, once the user
	// pauses: waitECharts) and the chart starts at its first update after
	// ECharts has run, instead of loading it when mounted.
	Wait bool

	inst    ga.Value // the echarts instance (browser only)
	set     string   // the option last handed to ECharts
	shape   string   // the shape of that option
	seen    ga.Value // the IntersectionObserver that says whether the chart is on screen
	onSeen  ga.Func
	visible bool
}

func (c *Chart) Render() (ui ga.UI) {
	defer guardRender(&ui, "Chart")
	btn := func(act, text string) ga.UI {
		return ga.Button().Class("link chart-btn").DataSet("chart", c.ID).DataSet("act", act).DataSet("file", c.File).Text(text).OnClick(onChartButton)
	}
	return ga.Figure().Class("chart").Body(
		divHidden(ga.Div().ID(c.ID).Class("chart-canvas").Role("img").Aria("label", c.Label), c.Option == ""),
		ga.If(c.Option == "", func() ga.UI { return ga.P().ID(c.ID + "-empty").Class("chart-empty meta").Text(c.Empty) }),
		ga.If(c.Option != "", func() ga.UI {
			return ga.Div().Class("chart-tools").Role("group").Aria("label", c.Label+": zoom and save").Body(
				btn("zoom-in", "zoom in"), btn("zoom-out", "zoom out"), btn("zoom-reset", "reset zoom"),
				ga.If(c.File != "", func() ga.UI { return btn("save", "save PNG") }),
			)
		}),
	)
}

func (c *Chart) OnMount(ctx ga.Context) {
	if c.Wait {
		c.start(ctx)
		return
	}
	c.mount(ctx)
}

// echartsWait bounds how long a chart waits for echarts.min.js (tries of
// 50 ms).
const echartsWait = 600

// mount initialises the chart once echarts is there: the page does not
// load echarts.min.js as a script of its own (it is 0.3 MB of brotli the
// first render does not need: wasm/server.go), the first chart to mount
// adds it to the head and every chart retries until it has run.
func (c *Chart) mount(ctx ga.Context) {
	awaitECharts(ctx, 0, c.start, func(ga.Context) {
		ga.Logf("pplab: echarts.min.js did not load in %d s; chart %s stays empty", echartsWait/20, c.ID)
	})
}

// awaitECharts calls ready once echarts.min.js has run, adding it to the
// page first (loadECharts) and looking again every 50 ms; after
// echartsWait tries it calls gaveUp instead.
func awaitECharts(ctx ga.Context, tries int, ready, gaveUp func(ga.Context)) {
	switch {
	case ga.Window().Get("echarts").Truthy():
		ready(ctx)
	case tries >= echartsWait:
		gaveUp(ctx)
	default:
		loadECharts()
		ctx.After(50*time.Millisecond, func(ctx ga.Context) { awaitECharts(ctx, tries+1, ready, gaveUp) })
	}
}

// start initialises the chart if ECharts has run (a Wait chart: at its
// mount and at each update until then).
func (c *Chart) start(ctx ga.Context) {
	if !c.Mounted() || c.inst != nil && c.inst.Truthy() {
		return
	}
	echarts := ga.Window().Get("echarts")
	if !echarts.Truthy() {
		return
	}
	var theme any
	if mq := ga.Window().Call("matchMedia", "(prefers-color-scheme: dark)"); mq.Truthy() && mq.Get("matches").Bool() {
		theme = "dark"
	}
	el := ga.Window().GetElementByID(c.ID)
	c.inst = echarts.Call("init", el, theme, map[string]any{"renderer": "canvas"})
	c.watch(ctx, el)
	c.draw()
}

// watch keeps c.visible: whether the chart is on screen (or near it), for
// Lazy.
func (c *Chart) watch(ctx ga.Context, el ga.Value) {
	io := ga.Window().Get("IntersectionObserver")
	if !io.Truthy() {
		c.visible = true
		return
	}
	c.onSeen = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		entries := args[0]
		if n := entries.Length(); n > 0 {
			visible := entries.Index(n - 1).Get("isIntersecting").Bool()
			ctx.Dispatch(func(ga.Context) {
				c.visible = visible
				c.draw()
			})
		}
		return nil
	})
	c.seen = io.New(c.onSeen, map[string]any{"rootMargin": "200px"})
	c.seen.Call("observe", el)
}

func (c *Chart) OnUpdate(ctx ga.Context) {
	// After the render: the element is shown (not hidden) by then, and
	// ECharts takes its size at init and at the first option's resize (a
	// chart started on the hidden element drew 100 px wide).
	ctx.Defer(func(ctx ga.Context) {
		if c.Wait {
			c.start(ctx)
		}
		c.draw()
	})
}

func (c *Chart) OnDismount() {
	if c.seen != nil && c.seen.Truthy() {
		c.seen.Call("disconnect")
		c.onSeen.Release()
	}
	c.seen, c.onSeen, c.visible = nil, nil, false
	if c.inst != nil && c.inst.Truthy() {
		c.inst.Call("dispose")
	}
	c.inst = nil
}

func (c *Chart) OnResize(ctx ga.Context) {
	if c.inst != nil && c.inst.Truthy() {
		c.inst.Call("resize")
	}
}

// draw hands the option to ECharts, replacing the series but keeping what
// the user did (zoom), and only when it changed (and, Lazy, when the chart
// is on screen; its first option always: a chart is never blank).
func (c *Chart) draw() {
	if c.inst == nil || !c.inst.Truthy() || c.Option == c.set || c.Option == "" || c.Lazy && !c.visible && c.set != "" {
		return
	}
	start := now()
	opt := ga.Window().Get("JSON").Call("parse", c.Option)
	narrowChart(opt, c.inst.Call("getWidth").Int())
	c.inst.Call("setOption", opt, map[string]any{"notMerge": c.Shape != c.shape})
	if c.set == "" {
		c.inst.Call("resize") // it was hidden until now
	}
	c.set, c.shape = c.Option, c.Shape
	ga.Window().Set("__pplabChartMS", now()-start)
}

// narrowChart fits an option to a chart narrower than narrowChartPX (a
// phone): the title is cut before the toolbox's buttons (it ran into the
// zoom icons), the subtitle wraps (it was clipped on both sides: "ch
// point: … busiest CPU's ti"), and the legend and the plot move down to
// leave it three lines.
func narrowChart(opt ga.Value, width int) {
	if width <= 0 || width >= narrowChartPX {
		return
	}
	var titles []ga.Value
	eachObject(opt.Get("title"), func(t ga.Value) { titles = append(titles, t) })
	if len(titles) == 0 {
		return
	}
	title := titles[0]
	ts := title.Get("textStyle")
	if ts.Type() != ga.TypeObject {
		ts = ga.Window().Get("Object").New()
		title.Set("textStyle", ts)
	}
	ts.Set("width", width-180) // centred: it ends before the toolbox's buttons

	ts.Set("overflow", "truncate")
	sub := title.Get("subtextStyle")
	if sub.Type() != ga.TypeObject {
		sub = ga.Window().Get("Object").New()
		title.Set("subtextStyle", sub)
	}
	sub.Set("width", width-24)
	sub.Set("overflow", "break")
	sub.Set("lineHeight", 14)
	// three lines of subtitle below the title, then the legend, then the
	// plot
	eachObject(opt.Get("legend"), func(lg ga.Value) { lg.Set("top", 70) })
	eachObject(opt.Get("grid"), func(g ga.Value) { g.Set("top", 132) }) // a legend of five wraps to two lines
}

// eachObject calls f with v, or with each element of v when it is an
// array (go-echarts writes some components as arrays, some as objects).
func eachObject(v ga.Value, f func(ga.Value)) {
	if v.Type() != ga.TypeObject {
		return
	}
	if ga.Window().Get("Array").Call("isArray", v).Bool() {
		for i := range v.Length() {
			if e := v.Index(i); e.Type() == ga.TypeObject {
				f(e)
			}
		}
		return
	}
	f(v)
}

// narrowChartPX: a chart narrower than this is laid out for a phone.
const narrowChartPX = 560

// loadECharts adds echarts.min.js to the page's head once (at the site's
// prefix: go-app's GOAPP_STATIC_RESOURCES_URL).
func loadECharts() {
	doc := ga.Window().Get("document")
	if doc.Call("querySelector", "script[data-echarts]").Truthy() {
		return
	}
	s := doc.Call("createElement", "script")
	s.Call("setAttribute", "src", ga.Getenv("GOAPP_STATIC_RESOURCES_URL")+"/echarts.min.js")
	s.Call("setAttribute", "data-echarts", "1")
	doc.Get("head").Call("appendChild", s)
}

// onChartButton: a chart's zoom or save button (data-chart: the chart's
// element, data-act: what to do, data-file: the image's name). The zoom
// acts on the chart's first dataZoom (its data axis), as the mouse does.
func onChartButton(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	id, act := dataset(el, "chart"), dataset(el, "act")
	echarts := ga.Window().Get("echarts")
	if !echarts.Truthy() {
		return
	}
	inst := echarts.Call("getInstanceByDom", ga.Window().GetElementByID(id))
	if !inst.Truthy() {
		return
	}
	if act == "save" {
		url := inst.Call("getDataURL", map[string]any{"type": "png", "pixelRatio": 2, "backgroundColor": chartBackground()})
		a := ga.Window().Get("document").Call("createElement", "a")
		a.Set("href", url)
		a.Set("download", dataset(el, "file")+".png")
		a.Call("click")
		return
	}
	start, end := 0.0, 100.0
	if dz := inst.Call("getOption").Get("dataZoom"); dz.Truthy() && dz.Length() > 0 {
		if s := dz.Index(0).Get("start"); s.Truthy() {
			start = s.Float()
		}
		if v := dz.Index(0).Get("end"); v.Truthy() {
			end = v.Float()
		}
	}
	mid, half := (start+end)/2, (end-start)/2
	switch act {
	case "zoom-in":
		half = max(half/2, 1)
	case "zoom-out":
		half = min(half*2, 50)
	default:
		mid, half = 50, 50
	}
	mid = min(max(mid, half), 100-half)
	inst.Call("dispatchAction", map[string]any{"type": "dataZoom", "dataZoomIndex": 0, "start": mid - half, "end": mid + half})
}

// chartBackground is the page's background colour (a saved image is not
// transparent).
func chartBackground() string {
	bg := ga.Window().Call("getComputedStyle", ga.Window().Get("document").Get("body")).Get("backgroundColor").String()
	if bg == "" || bg == "rgba(0, 0, 0, 0)" {
		return "#ffffff"
	}
	return bg
}
