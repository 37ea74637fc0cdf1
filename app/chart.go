package app

import (
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

	inst  ga.Value // the echarts instance (browser only)
	set   string   // the option last handed to ECharts
	shape string   // the shape of that option
}

func (c *Chart) Render() (ui ga.UI) {
	defer guardRender(&ui, "Chart")
	return ga.Figure().Class("chart").Body(
		ga.Div().ID(c.ID).Class("chart-canvas").Role("img").Aria("label", c.Label).Hidden(c.Option == ""),
		ga.If(c.Option == "", func() ga.UI { return ga.P().ID(c.ID + "-empty").Class("chart-empty meta").Text(c.Empty) }),
	)
}

func (c *Chart) OnMount(ctx ga.Context) {
	echarts := ga.Window().Get("echarts")
	if !echarts.Truthy() { // echarts.min.js is a blocking script: this is a broken page
		ga.Logf("pplab: echarts is not loaded; chart %s stays empty", c.ID)
		return
	}
	var theme any
	if mq := ga.Window().Call("matchMedia", "(prefers-color-scheme: dark)"); mq.Truthy() && mq.Get("matches").Bool() {
		theme = "dark"
	}
	c.inst = echarts.Call("init", ga.Window().GetElementByID(c.ID), theme, map[string]any{"renderer": "canvas"})
	c.draw()
}

func (c *Chart) OnUpdate(ctx ga.Context) { ctx.Defer(func(ga.Context) { c.draw() }) }

func (c *Chart) OnDismount() {
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
// the user did (zoom), and only when it changed.
func (c *Chart) draw() {
	if c.inst == nil || !c.inst.Truthy() || c.Option == c.set || c.Option == "" {
		return
	}
	start := now()
	opt := ga.Window().Get("JSON").Call("parse", c.Option)
	c.inst.Call("setOption", opt, map[string]any{"notMerge": c.Shape != c.shape})
	if c.set == "" {
		c.inst.Call("resize") // it was hidden until now
	}
	c.set, c.shape = c.Option, c.Shape
	ga.Window().Set("__pplabChartMS", now()-start)
}
