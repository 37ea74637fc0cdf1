package session

import (
	"encoding/json"
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"pplab/engine/lab"
)

// Chart options are built with go-echarts and handed to the vendored ECharts
// as JSON. They hold only what the lab measured: the series the run reports
// (lab.Series) and its profile (lab.Results).

// Okabe–Ito: a palette colour-blind readers can tell apart.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#56B4E9", "#D55E00", "#CC79A7", "#F0E442", "#000000"}

// chartTools: zoom by dragging, on every chart. Saving an image and the
// zoom for the keyboard are HTML buttons under each chart (app/chart.go):
// ECharts' own toolbox buttons are drawn on the canvas (no focus, no key),
// and its save names the file by a fixed string at the screen's pixel
// ratio; the buttons name it as the other exports and draw it at 2×.
func chartTools() charts.GlobalOpts {
	return charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "2%", Feature: &opts.ToolBoxFeature{
		// go-echarts serialises an unset icon as null, and ECharts draws no
		// button for a null icon: give both their paths (ECharts' own).
		DataZoom: &opts.ToolBoxFeatureDataZoom{Show: opts.Bool(true), Title: map[string]string{"zoom": "zoom", "back": "reset zoom"},
			Icon: map[string]string{"zoom": zoomIcon, "back": backIcon}},
	}})
}

// ECharts' built-in toolbox icons for zoom and reset (echarts/src/component/
// toolbox/feature/DataZoom.ts).
const (
	zoomIcon = "path://M0,13.5h26.9 M13.5,26.9V0 M32.1,13.5H58V58H13.5 V32.1"
	backIcon = "path://M22,1.4L9.9,13.5l12.3,12.3 M10.3,13.5H54.9v44.6 H10.3v-26"
)

// frame is what every chart has: title, colours, legend, tooltip, grid,
// axes, inside zoom on the data axis, the toolbox; no animation (the data is
// live).
func frame(title, subtitle string, colors opts.Colors, grid opts.Grid, x opts.XAxis, y opts.YAxis, zoom opts.DataZoom) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: subtitle, TitleStyle: &opts.TextStyle{FontSize: 14}}),
		charts.WithAnimation(false),
		charts.WithColorsOpts(colors),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "48"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithGridOpts(grid),
		charts.WithXAxisOpts(x),
		charts.WithYAxisOpts(y),
		charts.WithDataZoomOpts(zoom),
		chartTools(),
	}
}

// optionJSON renders a chart's option for echarts.setOption. The inside
// zoom reacts to the wheel only with Ctrl held (zoomOnMouseWheel: 'ctrl',
// which go-echarts' DataZoom has no field for), so the wheel scrolls the page.
func optionJSON(c interface{ JSON() map[string]any }) string {
	m := c.JSON()
	if zs, ok := m["dataZoom"].([]opts.DataZoom); ok {
		out := make([]map[string]any, 0, len(zs))
		for _, z := range zs {
			b, _ := json.Marshal(z)
			var zm map[string]any
			_ = json.Unmarshal(b, &zm)
			if z.Type == "inside" {
				zm["zoomOnMouseWheel"], zm["moveOnMouseWheel"] = "ctrl", false
			}
			out = append(out, zm)
		}
		m["dataZoom"] = out
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "{}" // a go-echarts option is plain data; this cannot happen
	}
	return string(b)
}

// throughputOption plots the run's rate over simulated time, and the
// comparison run's on the same axes.
func throughputOption(main []lab.SeriesPoint, mainName string, cmp []lab.SeriesPoint, cmpName string) string {
	line := charts.NewLine()
	line.SetGlobalOptions(frame("throughput over simulated time", "each point: one window of packets, rate = packets / busiest CPU's time", palette,
		opts.Grid{Top: "90", Left: "60", Right: "30", Bottom: "60"},
		opts.XAxis{Type: "value", Name: "simulated µs", NameLocation: "middle", NameGap: 28}, opts.YAxis{Type: "value", Name: "kpps"},
		opts.DataZoom{Type: "inside", XAxisIndex: []int{0}})...)
	// A short run has few windows: draw their points, or one point is invisible.
	symbols := charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(len(main) < 24)})
	line.AddSeries(mainName, points(main), symbols)
	if cmpName != "" {
		line.AddSeries(cmpName, points(cmp), symbols, charts.WithLineStyleOpts(opts.LineStyle{Type: "dashed"}))
	}
	line.Validate()
	return optionJSON(line)
}

func points(s []lab.SeriesPoint) []opts.LineData {
	out := make([]opts.LineData, 0, len(s))
	for _, p := range s {
		out = append(out, opts.LineData{Value: []any{float64(p.TimeNS) / 1000, round1(p.Kpps)}})
	}
	return out
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }

// mixOption shows where freed pages went, window by window: cached, ring
// and released stack (they are disjoint); cache_full (part of ring) and
// ring_full (part of released) stand beside them.
func mixOption(s []lab.SeriesPoint) string {
	bar := charts.NewBar()
	bar.SetGlobalOptions(frame("recycle-path mix", "pages per window: cached + ring + released stack; cache_full ⊂ ring, ring_full ⊂ released",
		opts.Colors{palette[2], palette[3], palette[4], palette[1], palette[5]}, opts.Grid{Top: "90", Left: "60", Right: "30", Bottom: "60"},
		opts.XAxis{Type: "category", Name: "packets", NameLocation: "middle", NameGap: 28}, opts.YAxis{Type: "value", Name: "pages"},
		opts.DataZoom{Type: "inside", XAxisIndex: []int{0}})...)
	s = mergeWindows(s, mixBars)
	x := make([]string, 0, len(s))
	var cached, ring, released, cacheFull, ringFull []opts.BarData
	for _, p := range s {
		x = append(x, fmt.Sprint(p.Packets))
		cached = append(cached, opts.BarData{Value: p.Mix.Cached})
		ring = append(ring, opts.BarData{Value: p.Mix.Ring})
		released = append(released, opts.BarData{Value: p.Mix.Released})
		cacheFull = append(cacheFull, opts.BarData{Value: p.Mix.CacheFull})
		ringFull = append(ringFull, opts.BarData{Value: p.Mix.RingFull})
	}
	bar.SetXAxis(x)
	stack := charts.WithBarChartOpts(opts.BarChart{Stack: "freed"})
	bar.AddSeries("cached", cached, stack)
	bar.AddSeries("ring", ring, stack)
	bar.AddSeries("released", released, stack)
	bar.AddSeries("cache_full", cacheFull)
	bar.AddSeries("ring_full", ringFull)
	bar.Validate()
	return optionJSON(bar)
}

// mixBars bounds the mix chart's bars per series (a canvas of 256×5 bars
// costs tens of milliseconds to draw, every refresh).
const mixBars = 64

// mergeWindows sums adjacent windows so that at most n remain (each keeps
// the packets at its end).
func mergeWindows(s []lab.SeriesPoint, n int) []lab.SeriesPoint {
	if len(s) <= n {
		return s
	}
	k := (len(s) + n - 1) / n
	out := make([]lab.SeriesPoint, 0, n)
	for i := 0; i < len(s); i += k {
		m := s[i]
		for _, p := range s[i+1 : min(i+k, len(s))] {
			m.Packets, m.TimeNS = p.Packets, p.TimeNS
			m.Mix.Cached += p.Mix.Cached
			m.Mix.Ring += p.Mix.Ring
			m.Mix.Released += p.Mix.Released
			m.Mix.CacheFull += p.Mix.CacheFull
			m.Mix.RingFull += p.Mix.RingFull
			m.Mix.ReleasedRefcnt += p.Mix.ReleasedRefcnt
		}
		out = append(out, m)
	}
	return out
}

// profileOption is the perf-top style cost breakdown of the run (and of the
// comparison run): each symbol's share of simulated CPU time.
func profileOption(main []lab.ProfileEntry, mainName string, cmp []lab.ProfileEntry, cmpName string) string {
	const top = 12
	var names []string
	seen := map[string]bool{}
	for _, e := range main {
		if len(names) == top {
			break
		}
		names, seen[e.Symbol] = append(names, e.Symbol), true
	}
	for _, e := range cmp {
		if len(names) == top+4 {
			break
		}
		if !seen[e.Symbol] {
			names, seen[e.Symbol] = append(names, e.Symbol), true
		}
	}
	// Largest share at the top: category axes draw bottom-up.
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	share := func(p []lab.ProfileEntry) []opts.BarData {
		by := map[string]float64{}
		for _, e := range p {
			by[e.Symbol] = e.Pct
		}
		out := make([]opts.BarData, len(names))
		for i, n := range names {
			out[i] = opts.BarData{Value: by[n]}
		}
		return out
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(frame("cost breakdown (perf top)", "share of simulated CPU time per symbol", palette,
		opts.Grid{Top: "80", Left: "210", Right: "30", Bottom: "40"}, opts.XAxis{Type: "value", Name: "%"}, opts.YAxis{Type: "category"},
		opts.DataZoom{Type: "inside", YAxisIndex: []int{0}})...)
	bar.SetXAxis(names)
	bar.AddSeries(mainName, share(main))
	if cmpName != "" {
		bar.AddSeries(cmpName, share(cmp))
	}
	bar.XYReversal()
	bar.Validate()
	return optionJSON(bar)
}
