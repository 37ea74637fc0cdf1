package app

import (
	"encoding/json"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

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

// The chart options are what ECharts takes: valid JSON holding the run's
// series point for point, and the profile's shares.
func TestChartOptions_HoldTheRunsValues(t *testing.T) {
	l := run(t, lab.Config{Scenario: "drop", Set: lab.TeachingSet("drop"), Packets: 40_000}, -1)
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
	if opt.Toolbox.Feature["saveAsImage"] == nil || opt.Toolbox.Feature["dataZoom"] == nil || opt.Animation {
		t.Errorf("toolbox %v animation %v: want save-as-image, zoom, no animation", opt.Toolbox.Feature, opt.Animation)
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

func TestUIParams_TakeThePlaygroundsKeys(t *testing.T) {
	q, _ := url.ParseQuery("v=1&scenario=drop&step=12&cmp=era:5.12&speed=9&rx_descs=16")
	var u uiParams
	rest := u.take(q)
	if u.step != 12 || u.cmp != "era:5.12" || u.speed != -1 || len(u.notices) != 1 || !strings.Contains(u.notices[0], `speed "9"`) {
		t.Errorf("ui %+v", u)
	}
	if rest.Encode() != "rx_descs=16&scenario=drop&v=1" {
		t.Errorf("config part %s", rest.Encode())
	}
}

func TestSetKnob_ReplacesTheKnobsAssignment(t *testing.T) {
	got := setKnob([]string{"rx_descs=16", "pool_size=32"}, "rx_descs", "8")
	if !reflect.DeepEqual(got, []string{"pool_size=32", "rx_descs=8"}) {
		t.Errorf("%v", got)
	}
	if got := withoutKnobs([]string{"rx_descs=16", "bulk=8", "pool_size=32"}, presetKnobs...); !reflect.DeepEqual(got, []string{"bulk=8"}) {
		t.Errorf("%v", got)
	}
}

func TestFragText_ShowsBiasReadably(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{{0, ""}, {1, "1"}, {2, "2"}, {int64(^uint64(0)>>1) - 3, "B−3"}, {int64(^uint64(0)>>2) - 1, "B−1"}} {
		if got := fragText(tc.in); got != tc.want {
			t.Errorf("fragText(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The Machine draws every page of the snapshot where it is, and marks the
// pages the step moved.
func TestMachine_DrawsEveryPageWhereItIs(t *testing.T) {
	l, err := lab.New(lab.Config{Scenario: "tcp-stream", Set: lab.TeachingSet("tcp-stream"), Packets: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	l.Record(true)
	for i := 0; i < 150; i++ {
		l.Step()
	}
	snap := l.Snapshot()
	rec, _ := l.StepRecord()
	var changed []int32
	for _, m := range rec.Moves {
		changed = append(changed, m.PFN)
	}
	m := &Machine{Snap: snap, Changed: changed, Selected: -1}
	html := ga.HTMLString(m.Render())
	tiles := map[int32]bool{}
	marked := 0
	for _, tag := range buttonRE.FindAllString(html, -1) {
		cls, pfnAttr := classRE.FindStringSubmatch(tag), pfnRE.FindStringSubmatch(tag)
		if cls == nil || pfnAttr == nil || !strings.HasPrefix(cls[1], "tile") {
			continue
		}
		pfn, _ := strconv.ParseInt(pfnAttr[1], 10, 32)
		tiles[int32(pfn)] = true
		if strings.Contains(cls[1], "changed") {
			marked++
		}
	}
	for _, p := range snap.Pages {
		if p.Place == "slab" || p.Place == "compound-tail" {
			continue
		}
		if p.Place == "nic-ring" || p.Place == "cache" || p.Place == "ring" || p.Place == "skb" || p.Place == "socket" || p.Place == "tx-ring" || p.Place == "driver" {
			if !tiles[p.PFN] {
				t.Errorf("page %#x (%s) has no tile", p.PFN, p.Place)
			}
		}
	}
	if len(changed) > 0 && marked == 0 {
		t.Errorf("%d pages moved, none marked", len(changed))
	}
	if len(tiles) == 0 {
		t.Fatal("no tile drawn")
	}
}

// Tiles in rendered HTML: button tags, their class and PFN (attributes come
// in any order).
var (
	buttonRE = regexp.MustCompile(`<button [^>]*>`)
	classRE  = regexp.MustCompile(` class="([^"]*)"`)
	pfnRE    = regexp.MustCompile(` data-pfn="(-?\d+)"`)
)

// A panic while rendering a component becomes an error box, not a dead page.
func TestGuardRender_TurnsAPanicIntoAnErrorBox(t *testing.T) {
	ui := func() (ui ga.UI) {
		defer guardRender(&ui, "Broken")
		var m map[string]int
		m["x"] = 1 // panics
		return ga.Div()
	}()
	if html := ga.HTMLString(ui); !strings.Contains(html, "Broken failed to render") || !strings.Contains(html, `role="alert"`) {
		t.Errorf("%s", html)
	}
}
