package session

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/diagnose"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// fakeClock advances one millisecond per reading: a Work budget of n ms
// lets the sweep ask about n times (every 64 operations) per slice.
func fakeClock() func() float64 {
	var t float64
	return func() float64 { t++; return t }
}

// finish runs Work to the end (in slices of budget ms of d's clock) and
// returns the slices it took.
func finish(t *testing.T, d *Diagnosis, budget float64) int {
	t.Helper()
	n := 0
	for d.Work(budget) {
		n++
		if n > 1_000_000 {
			t.Fatal("Work never ends")
		}
	}
	return n
}

// TestDiagnosis_SweepInSlicesNeverBlocksTyping: the first search runs the
// model in slices of the page's budget (the view says it is computing, and
// how far); a paste typed in meanwhile is diagnosed at once (format,
// counters, ratios) and gets its nearest runs when the sweep ends, without
// starting it again. (The first test of the package to search makes the
// sweep: when another did, only the second half is checked.)
func TestDiagnosis_SweepInSlicesNeverBlocksTyping(t *testing.T) {
	text, _, _ := Example("ethtool")
	d := NewDiagnosis(text, "", fakeClock())
	v := d.View()
	if v.Err != nil || len(v.Counters) != 11 || len(v.Runs) != 1 || len(v.Runs[0].Ratios) == 0 {
		t.Fatalf("before any work: %+v", v)
	}
	if !v.Computing || len(v.Runs[0].Nearest) != 0 {
		t.Fatalf("the nearest runs before the search: computing %v, %v", v.Computing, v.Runs[0].Nearest)
	}
	if !theSweeper().Done() {
		slicesRun := 0
		for i := 0; i < 20 && d.Work(100); i++ {
			slicesRun++
		}
		v = d.View()
		if slicesRun != 20 || !v.Computing || v.Done == 0 || v.Done >= v.Total {
			t.Fatalf("after 20 slices of 100 ms: %d slices, computing %v, %d of %d runs", slicesRun, v.Computing, v.Done, v.Total)
		}
		before := v.Done
		// Typing meanwhile: the new paste is diagnosed at once; the sweep
		// goes on where it was.
		text2, _, _ := Example("ynltool")
		d.SetText(text2)
		v = d.View()
		if v.Format != diagnose.FormatYnltool || !v.Computing || v.Done != before {
			t.Fatalf("a paste while computing: format %q, computing %v, %d runs (was %d)", v.Format, v.Computing, v.Done, before)
		}
		n := finish(t, d, 100)
		t.Logf("the sweep in %d more slices of ≤100 reads of the clock (%d runs)", n, v.Total)
	} else {
		finish(t, d, 100)
	}
	v = d.View()
	if v.Computing || len(v.Runs[0].Nearest) == 0 {
		t.Fatalf("after the search: computing %v, nearest %v", v.Computing, v.Runs[0].Nearest)
	}
	// Every later search only compares: one Work call.
	d.SetText(text)
	if d.Work(1) {
		t.Error("a search after the sweep took more than one Work call")
	}
	if m := d.View().Runs[0].Nearest; m[0].Distance != "0.0000" || m[0].Runs[0].Scenario != "clone-tap" {
		t.Errorf("the example's own run is not first at distance 0: %+v", m[0])
	}
}

// fixtures are engine/diagnose's: one per format and variant.
func fixtures(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../../engine/diagnose/testdata/*.txt")
	if err != nil || len(files) < 10 {
		t.Fatalf("the fixtures: %v %v", files, err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".txt")] = string(b)
	}
	return out
}

// TestDiagnosis_EveryFixtureShowsEveryCounter: each fixture of
// engine/diagnose/testdata, pasted, is detected as its format (with its
// provenance) and every line is listed with its number and what it was
// read as (none dropped; the grey ones also apart); every counter the
// paste gives is in the counter table with its meaning, where page_pool.c
// increments it and its eras, and a value for each run that has it; runs
// with counters have ratios and nearest model runs, each with a
// playground link.
func TestDiagnosis_EveryFixtureShowsEveryCounter(t *testing.T) {
	for name, text := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			d := NewDiagnosis(text, "", nil)
			finish(t, d, 0)
			v := d.View()
			if v.Err != nil {
				t.Fatalf("error %+v", v.Err)
			}
			p, err := diagnose.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			if v.Format != p.Format || v.Provenance == "" || v.Text != text {
				t.Errorf("format %q provenance %q (want %q)", v.Format, v.Provenance, p.Format)
			}
			if len(v.Lines) != len(p.Lines) || v.LinesCut != 0 {
				t.Fatalf("%d lines listed (%d cut), the paste has %d", len(v.Lines), v.LinesCut, len(p.Lines))
			}
			for i, l := range v.Lines {
				if l.N != i+1 || l.Text != p.Lines[i].Text || l.Use == "" {
					t.Errorf("line %d listed as %+v", i+1, l)
				}
			}
			if len(v.Grey) != len(p.Grey()) {
				t.Errorf("%d grey lines listed, %d in the paste", len(v.Grey), len(p.Grey()))
			}
			var has [sim.NumStats]bool
			for _, sn := range p.Snapshots {
				for i, h := range sn.Device.Has {
					has[i] = has[i] || h
				}
			}
			for s := sim.Stat(0); s < sim.NumStats; s++ {
				i := slices.IndexFunc(v.Counters, func(c DiagCounter) bool { return c.Name == s.String() })
				if has[s] != (i >= 0) {
					t.Errorf("%s: in the paste %v, in the table %v", s, has[s], i >= 0)
					continue
				}
				if i < 0 {
					continue
				}
				c := v.Counters[i]
				if c.Meaning == "" || c.Where == "" || c.Eras == "" || len(c.Values) != len(v.Labels) || !slices.ContainsFunc(c.Values, func(s string) bool { return s != "" }) {
					t.Errorf("%s: %+v", s, c)
				}
			}
			for _, r := range v.Runs {
				if r.NoShape {
					continue
				}
				// A paste without counters (page-pool-get alone) has no
				// ratios; its candidates are what its pools point to (a
				// zombie: destroy).
				if (len(v.Counters) > 0 && len(r.Ratios) == 0) || len(r.Nearest) == 0 || len(r.Next) == 0 {
					t.Errorf("%s: %d ratios, %d nearest, %d advice", r.Label, len(r.Ratios), len(r.Nearest), len(r.Next))
				}
				for _, m := range r.Nearest {
					for _, mr := range m.Runs {
						if !strings.HasPrefix(mr.URL, "/?") {
							t.Errorf("%s: link %q", mr.Scenario, mr.URL)
						}
					}
				}
			}
			if strings.HasPrefix(name, "ynl_pools") && len(v.Pools) == 0 {
				t.Error("page-pool-get: no pool listed")
			}
		})
	}
}

// TestDiagnosis_BadInputNamesTheLineAndKeepsTheText: a bad paste names the
// offending line, its text and what was expected, and the text stays as
// typed; fixing it diagnoses it.
func TestDiagnosis_BadInputNamesTheLineAndKeepsTheText(t *testing.T) {
	bad := "NIC statistics:\n     rx_pp_alloc_fast: 10\n     rx_pp_alloc_slow: -3\n"
	d := NewDiagnosis(bad, "", nil)
	v := d.View()
	if v.Err == nil || v.Err.Line != 3 || v.Err.Text != "     rx_pp_alloc_slow: -3" || !strings.Contains(v.Err.Msg, "want an unsigned 64-bit integer") || v.Err.Accepted == "" {
		t.Fatalf("error %+v", v.Err)
	}
	if v.Text != bad || d.Computing() || len(v.Counters) != 0 {
		t.Errorf("text kept %v, computing %v, counters %d", v.Text == bad, d.Computing(), len(v.Counters))
	}
	d.SetText(strings.Replace(bad, "-3", "3", 1))
	if v := d.View(); v.Err != nil || len(v.Counters) != 2 {
		t.Errorf("fixed: %+v, %d counters", v.Err, len(v.Counters))
	}
	d.SetText("hello\n")
	if v := d.View(); v.Err == nil || v.Err.Line != 1 {
		t.Errorf("prose: %+v", v.Err)
	}
	d.SetText(" \n")
	if v := d.View(); !v.Empty || v.Err != nil {
		t.Errorf("blank: empty %v, error %+v", v.Empty, v.Err)
	}
	d.SetInterval("ten")
	if v := d.View(); !strings.Contains(v.IntervalErr, `"ten"`) || v.Interval != "ten" {
		t.Errorf("a bad interval: %q", v.IntervalErr)
	}
}

// TestDiagnosis_TwoSnapshotsGiveRates: two ethtool snapshots with a sleep
// between them give per-second rates; without it the interval field does,
// and without either there are none, with a note saying what to give.
func TestDiagnosis_TwoSnapshotsGiveRates(t *testing.T) {
	text := fixtures(t)["ethtool_two_snapshots"]
	v := NewDiagnosis(text, "", nil).View()
	if len(v.Rates) != 1 || !strings.Contains(v.Rates[0].Title, "10 s apart") {
		t.Fatalf("rates %+v", v.Rates)
	}
	row := v.Rates[0].Rows[slices.IndexFunc(v.Rates[0].Rows, func(r [3]string) bool { return r[0] == "alloc_fast" })]
	if row[1] != "+10000000" || row[2] != "1.000 M/s" {
		t.Errorf("alloc_fast: %v", row)
	}
	if !strings.Contains(v.Runs[0].Label, "increase") {
		t.Errorf("the run diagnosed: %q", v.Runs[0].Label)
	}
	noSleep := strings.ReplaceAll(text, "$ sleep 10\n", "")
	d := NewDiagnosis(noSleep, "", nil)
	if v := d.View(); len(v.Rates) != 0 || !slices.ContainsFunc(v.Notes, func(n string) bool { return strings.Contains(n, "the field under the text box") }) {
		t.Errorf("no interval: rates %v, notes %v", v.Rates, v.Notes)
	} else if i := slices.IndexFunc(v.Notes, func(n string) bool { return strings.Contains(n, "--") }); i >= 0 {
		t.Errorf("the page's note names a command-line flag: %q", v.Notes[i])
	}
	d.SetInterval("4s")
	if v := d.View(); len(v.Rates) != 1 || !strings.Contains(v.Rates[0].Title, "4 s apart") || v.Rates[0].Rows[0][2] != "2.500 M/s" {
		t.Errorf("interval 4 s: %+v", v.Rates)
	}
	ex, iv, _ := Example("snapshots")
	if v := NewDiagnosis(ex, iv, nil).View(); len(v.Rates) != 1 || v.Interval != iv {
		t.Errorf("the two-snapshot example: interval %q, rates %+v", iv, v.Rates)
	}
}

// TestDiagnosis_APlaygroundRunFindsItself: for every driver scenario, the
// playground opened on the sweep's run of it (the nearest runs' link: the
// drivers' own sizes, diagnose.SweepPackets packets) and played to its end
// exports its ethtool -S block (the export button's text); pasted, the
// diagnosis lists that scenario among the nearest three, and its link
// opens the playground on a run of that scenario.
func TestDiagnosis_APlaygroundRunFindsItself(t *testing.T) {
	for _, sc := range lab.List().Scenarios {
		if !sc.NeedsDriver {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			cfg, err := lab.Preset(lab.PresetKernel, sc.Name)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Packets = diagnose.SweepPackets
			s := New(cfg.Values(), nil)
			s.lab.Run()
			s.refresh(true)
			d := NewDiagnosis(s.EthtoolText(), "", nil)
			finish(t, d, 0)
			v := d.View()
			if v.Err != nil {
				t.Fatalf("%+v\n%s", v.Err, s.EthtoolText())
			}
			var got []string
			var link string
			for _, m := range v.Runs[0].Nearest {
				for _, r := range m.Runs {
					got = append(got, m.Distance+" "+r.Scenario+"/"+r.Driver)
					if r.Scenario == sc.Name && link == "" {
						link = r.URL
					}
				}
			}
			if link == "" {
				t.Fatalf("%s not among the nearest three: %v", sc.Name, got)
			}
			q, err := url.ParseQuery(strings.TrimPrefix(link, "/?"))
			if err != nil {
				t.Fatal(err)
			}
			if o := New(q, nil); o.Config().Scenario != sc.Name || len(o.View().Banner) != 0 {
				t.Errorf("the link %s opens %s (banner %v)", link, o.Config().Scenario, o.View().Banner)
			}
		})
	}
}

// TestDiagnosis_Examples: every example is the output of a model run in
// its format, diagnosed without a grey line (the two-snapshot one has its
// one comment line) and finding its run.
func TestDiagnosis_Examples(t *testing.T) {
	for _, ex := range DiagnoseExamples {
		text, iv, ok := Example(ex.Name)
		if !ok {
			t.Fatalf("%s: no example", ex.Name)
		}
		d := NewDiagnosis(text, iv, nil)
		finish(t, d, 0)
		v := d.View()
		if v.Err != nil || len(v.Counters) == 0 {
			t.Fatalf("%s: %+v, %d counters\n%s", ex.Name, v.Err, len(v.Counters), text)
		}
		if g := len(v.Grey); g > 0 && ex.Name != "snapshots" {
			t.Errorf("%s: grey lines %+v", ex.Name, v.Grey)
		}
		found := false
		for _, m := range v.Runs[0].Nearest {
			for _, r := range m.Runs {
				found = found || r.Scenario == ex.Scenario
			}
		}
		if !found {
			t.Errorf("%s: %s not among the nearest: %+v", ex.Name, ex.Scenario, v.Runs[0].Nearest)
		}
	}
	if _, _, ok := Example("nope"); ok {
		t.Error("an unknown example")
	}
}

// TestYNLView: closed, the pool panel's ynl view is empty (a step builds
// nothing); open on a driver scenario it shows the run's pool as
// page-pool-get and page-pool-stats-get print it and ynltool's line, and
// follows the steps; a micro-benchmark's pool has no netdev and netlink
// lists none, which the note says.
func TestYNLView(t *testing.T) {
	s := New(query(t, "scenario=drop&era=6.8"), nil)
	s.Set("driver", "bnxt")
	s.Step()
	if v := s.View().YNL; v.Open || v.StatsGet != "" {
		t.Fatalf("closed: %+v", v)
	}
	s.OpenTable(TableYNL, true)
	for i := 0; i < 40; i++ {
		s.Step()
	}
	v := s.View().YNL
	if !v.Open || v.Pools != 1 || !strings.Contains(v.PoolGet, "page-pool-get\n[{'id': 1,\n  'ifindex': 2,") ||
		!strings.Contains(v.StatsGet, "'alloc-fast': ") || !strings.Contains(v.Ynltool, "eth0[2]\tpage pools: 1 (zombies: 0)") {
		t.Fatalf("open:\n%s\n%s\n%s", v.PoolGet, v.StatsGet, v.Ynltool)
	}
	st := s.lab.YNL().Stats[0].Stats
	if !strings.Contains(v.StatsGet, "'alloc-fast': "+strconv.FormatUint(st[sim.StatAllocFast], 10)) {
		t.Errorf("alloc-fast is not the pool's %d:\n%s", st[sim.StatAllocFast], v.StatsGet)
	}
	if p, err := diagnose.Parse(v.PoolGet + v.StatsGet); err != nil || p.Snapshots[0].Device.V != st {
		t.Errorf("the dumps do not parse back to the run's counters: %v", err)
	}
	s.Set("driver", "")
	s.Set("scenario", "pool-direct")
	if v := s.View().YNL; v.Pools != 0 || !strings.Contains(v.Note, "no netdev") {
		t.Errorf("pool-direct: %d pools, note %q", v.Pools, v.Note)
	}
	s.OpenTable(TableYNL, false)
	if v := s.View().YNL; v.Open || v.PoolGet != "" {
		t.Errorf("closed again: %+v", v)
	}
	m := New(query(t, "scenario=drop&era=6.8"), nil) // drop on mvpp2: no pp_params.netdev
	m.OpenTable(TableYNL, true)
	m.Step()
	if v := m.View().YNL; v.Pools != 0 || !strings.Contains(v.Note, "mvpp2 creates its page_pools without pp_params.netdev") {
		t.Errorf("mvpp2: %d pools, note %q", v.Pools, v.Note)
	}
}

// From 6.9 the view numbers the driver's pool after the per-CPU system
// pools and says why; it always shows ynltool's formula.
func TestYNLView_SystemPoolIDsAndFormula(t *testing.T) {
	s := New(query(t, "scenario=drop&era=6.8"), nil)
	s.Set("driver", "bnxt")
	s.OpenTable(TableYNL, true)
	s.Step()
	if v := s.View().YNL; v.IDNote != "" || !strings.Contains(v.Formula, "(recycle-ring + recycle-cached) / (alloc-fast + alloc-refill + alloc-slow)") {
		t.Errorf("6.8: id note %q, formula %q", v.IDNote, v.Formula)
	}
	s.Set("era", "6.9")
	for i := 0; i < 40; i++ {
		s.Step()
	}
	v := s.View().YNL
	if !strings.Contains(v.PoolGet, "[{'id': 3,\n  'ifindex': 2,") || !strings.Contains(v.IDNote, "ids 1..2 are the 2 per-CPU system page_pools") {
		t.Errorf("6.9 on 2 CPUs:\n%s\nid note %q", v.PoolGet, v.IDNote)
	}
}

// TestDiagnosis_Warm: the page opens with nothing pasted and warms the
// sweep; Work makes it without a paste (no nearest runs to show, nothing
// computing), and the first paste then finds its nearest runs in one Work
// call.
func TestDiagnosis_Warm(t *testing.T) {
	d := NewDiagnosis("", "", fakeClock())
	if d.Warm() {
		if !d.Warming() || d.Computing() || !d.View().Warming {
			t.Fatal("warming: not said")
		}
		finish(t, d, 100)
	}
	if d.Warming() || d.Work(1) {
		t.Fatal("still warming after the sweep")
	}
	text, _, _ := Example("ynltool")
	d.SetText(text)
	if !d.Computing() || d.Work(1) || len(d.View().Runs[0].Nearest) == 0 {
		t.Error("the first paste after warming did not find its nearest runs in one Work call")
	}
}

// TestDiagnosis_ThePageRanksAsTheCLI: for every paste of the corpus
// (engine/diagnose/testdata/pastes), the page's diagnosis names the same
// candidates, in the same order, as ppsim diagnose's (both are
// diagnose.DiagnosePaste → Rank over the one sweep).
func TestDiagnosis_ThePageRanksAsTheCLI(t *testing.T) {
	files, err := filepath.Glob("../../engine/diagnose/testdata/pastes/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("the corpus: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cli, err := diagnose.Diagnose(string(b), diagnose.Options{})
		if err != nil {
			continue // bad input: the page shows the same error (TestDiagnosis_BadInputNamesTheLineAndKeepsTheText)
		}
		d := NewDiagnosis(string(b), "", nil)
		for d.Work(0) {
		}
		v := d.View()
		if len(v.Runs) != len(cli.Runs) || v.NonePossible != cli.NonePossible {
			t.Errorf("%s: %d runs, none possible %q; the CLI %d, %q", filepath.Base(f), len(v.Runs), v.NonePossible, len(cli.Runs), cli.NonePossible)
			continue
		}
		for i, run := range cli.Runs {
			var want, got []string
			for _, m := range run.Nearest {
				for _, r := range m.Runs {
					want = append(want, strconv.FormatFloat(m.Distance, 'f', 4, 64)+" "+r.URL+" "+strings.Join(r.Eras, ","))
				}
			}
			for _, m := range v.Runs[i].Nearest {
				for _, r := range m.Runs {
					got = append(got, m.Distance+" "+r.URL+" "+r.Eras)
				}
			}
			if strings.Join(got, "\n") != strings.ReplaceAll(strings.Join(want, "\n"), ",", ", ") {
				t.Errorf("%s: the page\n%s\nthe CLI\n%s", filepath.Base(f), strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// TestDiagnosis_APerfListingIsSetAside: a perf top listing pasted with the
// counters is set aside in one sentence that names the what-if page (the
// page names no command-line flag; the CLI's report names ppsim predict),
// and the diagnosis is the counters' alone: nothing is impossible. A paste
// that is only a listing is refused with the what-if page named, no flag.
func TestDiagnosis_APerfListingIsSetAside(t *testing.T) {
	b, err := os.ReadFile("../../engine/diagnose/testdata/pastes/mvneta-6.1-drop-perf-mixed.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	v := d.View()
	want := []DiagAside{{Before: "Lines 29–40 are a perf top listing, not counters: set aside (", After: " reads listings)", From: 29, To: 40}}
	got := slices.Clone(v.Aside)
	for i := range got {
		got[i].WhatIf = nil // TestDiagnosis_APerfListingGoesToTheWhatIfPage
	}
	if !slices.Equal(got, want) {
		t.Errorf("set aside %+v, want %+v", got, want)
	}
	if v.NonePossible != "" || len(v.Grey) != 0 {
		t.Errorf("none possible %q, grey %v", v.NonePossible, v.Grey)
	}
	for _, c := range v.Constraints {
		if c.Rule == diagnose.RuleDriverNamed {
			t.Errorf("the listing's symbols are evidence: %+v", c)
		}
	}
	for _, a := range v.Aside {
		if s := a.Before + WhatIfName + a.After; strings.Contains(s, "--") || strings.Contains(s, "ppsim") {
			t.Errorf("the page's sentence names the CLI: %q", s)
		}
	}
	lines := strings.SplitAfter(string(b), "\n")
	d.SetText(strings.Join(lines[28:], ""))
	v = d.View()
	if v.Err == nil || !v.Err.WhatIf || v.Err.Line != 1 || !strings.Contains(v.Err.Msg, "a perf top listing, not page_pool counters: the what-if page reads listings") {
		t.Fatalf("a listing alone: %+v", v.Err)
	}
	if strings.Contains(v.Err.Msg, "--") || strings.Contains(v.Err.Msg, "ppsim") {
		t.Errorf("the page's message names the CLI: %q", v.Err.Msg)
	}
}

// TestDiagnosis_APerfListingGoesToTheWhatIfPage: the link to the what-if
// page from a perf top listing (set aside beside counters, or pasted
// alone) hands it the listing — in the what-if page's own URL form when
// short, and as its stored form, which keeps the user's own listing it
// replaces to restore — so the what-if page opens on it, not on its
// example (it linked plain /whatif/).
func TestDiagnosis_APerfListingGoesToTheWhatIfPage(t *testing.T) {
	b, err := os.ReadFile("../../engine/diagnose/testdata/pastes/mvneta-6.1-drop-perf-mixed.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	listing := strings.Join(lines[28:40], "")
	v := NewDiagnosis(string(b), "", nil).View()
	if len(v.Aside) != 1 || v.Aside[0].WhatIf == nil || v.Aside[0].WhatIf.Listing != listing {
		t.Fatalf("the set-aside listing handed over: %+v", v.Aside)
	}
	h := v.Aside[0].WhatIf
	if h.Query != "" {
		t.Errorf("a listing of %d bytes in the URL: %d bytes", len(listing), len(h.Query))
	}
	// The what-if page reads what is stored: the listing, ready to predict.
	in, ok := WhatIfLoad(h.Stored(""))
	if !ok || in.Text != listing || in.Previous != "" {
		t.Fatalf("stored: %+v", in)
	}
	in.Rate = "100"
	if w := WhatIf(in); w.Err != nil && w.Err.Field == "text" {
		t.Errorf("the what-if page cannot read the listing handed over: %+v", w.Err)
	}
	// The user's own listing stored there is kept to restore; an example is not.
	own := WhatIfStored(WhatIfInput{Text: "  12.00%  [kernel]  [k] my_own_symbol\n", Rate: "5", Unit: "kpps", Change: "bulk"})
	if in, _ := WhatIfLoad(h.Stored(own)); in.Text != listing || in.Previous != "  12.00%  [kernel]  [k] my_own_symbol\n" {
		t.Errorf("over the user's own listing: %+v", in)
	}
	ex := WhatIfExamples()[0]
	exIn, err := WhatIfLoadExample(ex.Name, WhatIfInput{})
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := WhatIfLoad(h.Stored(WhatIfStored(exIn))); in.Text != listing || in.Previous != "" {
		t.Errorf("over the example %s: previous %q", ex.Name, in.Previous)
	}

	// A short listing pasted alone: refused here, and in the link's URL.
	short := strings.Join(lines[30:33], "")
	v = NewDiagnosis(short, "", nil).View()
	if v.Err == nil || v.Err.WhatIfLink == nil || v.Err.WhatIfLink.Listing != short || v.Err.WhatIfLink.Query == "" {
		t.Fatalf("a short listing alone: %+v", v.Err)
	}
	q, err := url.ParseQuery(v.Err.WhatIfLink.Query)
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := WhatIfFromQuery(q); !ok || in.Text != short {
		t.Errorf("the what-if page reads %+v from the link's query %q", in, v.Err.WhatIfLink.Query)
	}
}
