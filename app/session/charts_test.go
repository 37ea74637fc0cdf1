package session

import (
	"encoding/json"
	"testing"

	"pplab/engine/lab"
)

func run(t *testing.T, cfg lab.Config, ops int64) *lab.Lab {
	t.Helper()
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.RunN(ops)
	return l
}

// teaching is cfg at the playground's teaching sizes (lab.Preset).
func teaching(t testing.TB, cfg lab.Config) lab.Config {
	t.Helper()
	cfg, err := cfg.With("preset", lab.PresetTeaching)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The chart options are what ECharts takes: valid JSON holding the run's
// series point for point, and the profile's shares.
func TestChartOptions_HoldTheRunsValues(t *testing.T) {
	l := run(t, teaching(t, lab.Config{Scenario: "drop", Packets: 40_000}), -1)
	pts, _ := l.Series()
	var opt struct {
		Series []struct {
			Name string `json:"name"`
			Data []struct {
				Value []float64 `json:"value"`
			} `json:"data"`
		} `json:"series"`
		Toolbox struct {
			Feature map[string]any `json:"feature"`
		} `json:"toolbox"`
		Animation bool `json:"animation"`
	}
	if err := json.Unmarshal([]byte(throughputOption(pts, "era 6.8", pts[:10], "era 5.12")), &opt); err != nil {
		t.Fatal(err)
	}
	if len(opt.Series) != 2 || len(opt.Series[0].Data) != len(pts) || len(opt.Series[1].Data) != 10 {
		t.Fatalf("series %d, points %d (want %d)", len(opt.Series), len(opt.Series[0].Data), len(pts))
	}
	last := opt.Series[0].Data[len(pts)-1].Value
	if want := pts[len(pts)-1]; last[0] != float64(want.TimeNS)/1000 || last[1] != round1(want.Kpps) {
		t.Errorf("last point %v, want %v µs %.1f kpps", last, float64(want.TimeNS)/1000, want.Kpps)
	}
	if opt.Toolbox.Feature["dataZoom"] == nil || opt.Animation {
		t.Errorf("toolbox %v animation %v: want zoom, no animation (saving is the page's button)", opt.Toolbox.Feature, opt.Animation)
	}

	var prof struct {
		Series []struct {
			Data []struct {
				Value float64 `json:"value"`
			} `json:"data"`
		} `json:"series"`
		YAxis []struct {
			Data []string `json:"data"`
		} `json:"yAxis"`
	}
	res := l.Results()
	if err := json.Unmarshal([]byte(profileOption(res.Profile, "a", nil, "")), &prof); err != nil {
		t.Fatal(err)
	}
	names := prof.YAxis[0].Data
	top := names[len(names)-1] // drawn bottom-up: the largest share last
	if top != res.Profile[0].Symbol || prof.Series[0].Data[len(names)-1].Value != res.Profile[0].Pct {
		t.Errorf("top bar %s %.2f, want %s %.2f", top, prof.Series[0].Data[len(names)-1].Value, res.Profile[0].Symbol, res.Profile[0].Pct)
	}
}

// The mix chart draws at most mixBars bars and loses no page.
func TestMixOption_MergesWindowsWithoutLosingPages(t *testing.T) {
	l := run(t, lab.Config{Scenario: "drop", Packets: 300_000}, -1)
	pts, _ := l.Series()
	var want uint64
	for _, p := range pts {
		want += p.Mix.Cached + p.Mix.Ring + p.Mix.Released
	}
	m := mergeWindows(pts, mixBars)
	var got uint64
	for _, p := range m {
		got += p.Mix.Cached + p.Mix.Ring + p.Mix.Released
	}
	if len(pts) <= mixBars || len(m) > mixBars || got != want || m[len(m)-1].Packets != pts[len(pts)-1].Packets {
		t.Errorf("%d windows -> %d bars; pages %d -> %d", len(pts), len(m), want, got)
	}
}

// ECharts draws no zoom buttons for a null icon (go-echarts' default), and
// an inside zoom on the wheel keeps the page from scrolling: every chart
// carries both icons and zooms on the wheel with Ctrl only.
func TestChartOptions_ZoomButtonsAndCtrlWheel(t *testing.T) {
	l := run(t, teaching(t, lab.Config{Scenario: "drop", Packets: 20_000}), -1)
	pts, _ := l.Series()
	for name, o := range map[string]string{
		"throughput": throughputOption(pts, "a", nil, ""), "mix": mixOption(pts), "profile": profileOption(l.Results().Profile, "a", nil, ""),
	} {
		var opt struct {
			Toolbox struct {
				Feature struct {
					DataZoom struct {
						Icon map[string]string `json:"icon"`
					} `json:"dataZoom"`
				} `json:"feature"`
			} `json:"toolbox"`
			DataZoom []map[string]any `json:"dataZoom"`
		}
		if err := json.Unmarshal([]byte(o), &opt); err != nil {
			t.Fatal(err)
		}
		if ic := opt.Toolbox.Feature.DataZoom.Icon; ic["zoom"] == "" || ic["back"] == "" {
			t.Errorf("%s: dataZoom icons %v", name, ic)
		}
		if len(opt.DataZoom) == 0 || opt.DataZoom[0]["zoomOnMouseWheel"] != "ctrl" || opt.DataZoom[0]["moveOnMouseWheel"] != false {
			t.Errorf("%s: dataZoom %v", name, opt.DataZoom)
		}
	}
}
