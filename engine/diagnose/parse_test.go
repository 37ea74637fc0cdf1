package diagnose

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// TestParse_Fixtures: one fixture per format and variant (testdata), each
// detected as its format, every counter it contains parsed (every line that
// names a page_pool counter is read as one), the lines it does not
// understand grey and listed, never dropped.
func TestParse_Fixtures(t *testing.T) {
	for _, tc := range []struct {
		file, format, variant string
		snaps                 int
		counters              int // counters present in the last snapshot's device totals
		stat                  sim.Stat
		value                 uint64 // of stat in the last snapshot
		pools, rings          int
		grey                  []int
	}{
		{"ethtool_generic", FormatEthtool, "generic", 1, 11, sim.StatAllocRefill, 36643, 0, 0, nil},
		{"ethtool_noheader", FormatEthtool, "generic", 1, 11, sim.StatRecycleReleasedRefcnt, 250000, 0, 0, nil},
		{"ethtool_quoted_gt", FormatEthtool, "mail-quoted", 1, 6, sim.StatRecycleRingFull, 1270, 0, 0, []int{1, 2, 11}},
		{"ethtool_quoted_bar", FormatEthtool, "mail-quoted", 1, 11, sim.StatAllocSlow, 7813, 0, 0, nil},
		{"ethtool_slash", FormatEthtool, "generic", 1, 11, sim.StatAllocWaive, 4200, 0, 0, nil},
		{"ethtool_mlx5", FormatEthtool, "per-ring", 1, 11, sim.StatRecycleCached, 19999000, 0, 2, nil},
		{"ethtool_two_snapshots", FormatEthtool, "generic", 2, 11, sim.StatAllocFast, 11000000, 0, 0, nil},
		{"table", FormatTable, "one column per run", 2, 5, sim.StatRecycleRing, 3158000, 0, 0, nil},
		{"table_header", FormatTable, "one column per run", 2, 11, sim.StatRecycleCached, 58123456, 0, 0, nil},
		{"ynl_stats_python", FormatYNL, "page-pool-stats-get, Python literals", 1, 11, sim.StatAllocFast, 3024 + 3212, 2, 0, nil},
		{"ynl_stats_python_prose", FormatYNL, "page-pool-stats-get, Python literals", 1, 11, sim.StatAllocFast, 3024 + 3212, 2, 0, []int{1, 2}},
		{"ynl_stats_json", FormatYNL, "page-pool-stats-get, --output-json", 1, 11, sim.StatRecycleCached, 3100, 2, 0, nil},
		{"ynl_pools_python", FormatYNL, "page-pool-get, Python literals", 1, 0, 0, 0, 5, 0, nil},
		{"ynl_pools_json", FormatYNL, "page-pool-get, --output-json", 1, 0, 0, 0, 2, 0, nil},
		{"ynl_both", FormatYNL, "page-pool-get + page-pool-stats-get", 1, 11, sim.StatRecycleRingFull, 16, 1, 0, nil},
		{"ynltool_plain", FormatYnltool, "plain", 1, 4, sim.StatAllocFast, 3915776, 0, 0, nil},
		{"ynltool_json", FormatYnltool, "-j", 1, 4, sim.StatRecycleCached, 2400000, 0, 0, nil},
		{"ynltool_pp", FormatYnltool, "group-by pp", 1, 4, sim.StatAllocSlow, 512, 3, 0, nil},
		{"ynltool_pp_json", FormatYnltool, "-j group-by pp", 1, 4, sim.StatRecycleRing, 400000, 2, 0, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + tc.file + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			p, err := Parse(string(b))
			if err != nil {
				t.Fatal(err)
			}
			if p.Format != tc.format || !strings.Contains(p.Variant, tc.variant) {
				t.Errorf("format %q (%s), want %q (%s)", p.Format, p.Variant, tc.format, tc.variant)
			}
			if p.Provenance == "" {
				t.Error("no provenance")
			}
			if len(p.Snapshots) != tc.snaps {
				t.Fatalf("%d snapshots, want %d", len(p.Snapshots), tc.snaps)
			}
			last := p.Snapshots[len(p.Snapshots)-1]
			n := 0
			for _, h := range last.Device.Has {
				if h {
					n++
				}
			}
			if n != tc.counters {
				t.Errorf("%d counters, want %d", n, tc.counters)
			}
			if tc.counters > 0 && last.Device.V[tc.stat] != tc.value {
				t.Errorf("%s = %d, want %d", tc.stat, last.Device.V[tc.stat], tc.value)
			}
			if len(last.Pools) != tc.pools || len(last.Rings) != tc.rings {
				t.Errorf("%d pools, %d rings; want %d, %d", len(last.Pools), len(last.Rings), tc.pools, tc.rings)
			}
			var grey []int
			for _, l := range p.Grey() {
				grey = append(grey, l.N)
			}
			if !slicesEqual(grey, tc.grey) {
				t.Errorf("grey lines %v, want %v", grey, tc.grey)
			}
			if len(p.Lines) != strings.Count(string(b), "\n") {
				t.Errorf("%d lines kept of %d", len(p.Lines), strings.Count(string(b), "\n"))
			}
			// Every line naming a counter is read as one.
			for _, l := range p.Lines {
				if namesCounter(l.Text) && l.Use != UseCounter {
					t.Errorf("line %d %q names a counter but is %s", l.N, l.Text, l.Use)
				}
			}
		})
	}
}

var wordRe = regexp.MustCompile(`[A-Za-z0-9_-]+`)

func namesCounter(line string) bool {
	for _, w := range wordRe.FindAllString(line, -1) {
		if _, _, ok := StatByName(w); ok && (strings.Contains(w, "_") || strings.Contains(w, "-")) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestParse_BadInput: bad input names the line and what was expected.
func TestParse_BadInput(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "no input: want ethtool -S output"},
		{"blank lines", "\n  \n", "no input"},
		{"prose", "hello\nworld\n", `line 1 "hello": no page_pool counter or pool found: want ethtool -S output`},
		{"a perf top listing", "   14.21%  [kernel]           [k] _copy_to_iter\n    7.93%  [mlx5_core]        [k] mlx5e_skb_from_cqe_mpwrq_linear\n", `a perf top listing, not page_pool counters: ppsim predict --profile FILE`},
		{"negative counter", "NIC statistics:\n     rx_pp_alloc_fast: -3\n", `line 2 "     rx_pp_alloc_fast: -3": rx_pp_alloc_fast: want an unsigned 64-bit integer, found "-3"`},
		{"counter not a number", "rx_pp_alloc_fast: 12abc\n", `line 1 "rx_pp_alloc_fast: 12abc": rx_pp_alloc_fast: want an unsigned 64-bit integer, found "12abc"`},
		{"counter overflow", "rx_pp_recycle_ring: 18446744073709551616\n", "want an unsigned 64-bit integer"},
		{"table ragged", "rx_pp_alloc_fast\t10\t20\nrx_pp_alloc_slow\t1\n", `line 2 "rx_pp_alloc_slow\t1": want 2 values (one per column, as on line 1), found 1`},
		{"table float counter", "rx_pp_alloc_fast\t10\t20.5\n", `line 1 "rx_pp_alloc_fast\t10\t20.5": rx_pp_alloc_fast, column 2: want an unsigned 64-bit integer, found "20.5"`},
		{"ynl unclosed", "[{'id': 1,\n  'inflight': 3\n", `line 2 "  'inflight': 3": want ',' or '}'`},
		{"ynl missing colon", "[{'info' {'id': 1}}]\n", `line 1 "[{'info' {'id': 1}}]": want ':' after the key 'info'`},
		{"ynl negative stat", "[{'info': {'id': 1}, 'alloc-fast': -1}]\n", `'alloc-fast': want an unsigned 64-bit integer, found -1`},
		{"ynl bad token", "[{'id': 1, 'inflight': @}]\n", `line 1 "[{'id': 1, 'inflight': @}]": unexpected "@": want a value`},
		{"ynl unknown dicts", "[{'foo': 1}]\n", "a dict that is none of page-pool-get's"},
		{"ynltool orphan recycling line", "page pools: 1\n\t\trecycling: 9.0% (alloc: 1:2 recycle: 3:4)\npool id: 3\n", "a recycling line before any device or pool line"},
		{"nul", "rx_pp_alloc_fast: 1\x00", "binary input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDiagnose_Rates: two snapshots and the time between them give the
// rates — from a `sleep N` line, or from Options.Interval.
func TestDiagnose_Rates(t *testing.T) {
	b, _ := os.ReadFile("testdata/ethtool_two_snapshots.txt")
	noSleep := strings.ReplaceAll(string(b), "$ sleep 10\n", "")
	for _, tc := range []struct {
		name     string
		text     string
		interval float64
		fast     float64 // alloc_fast per second
	}{
		{"sleep line", string(b), 0, 1_000_000},
		{"interval option", noSleep, 4, 2_500_000},
		{"sleep line wins", string(b), 4, 1_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Diagnose(tc.text, Options{Interval: tc.interval, NoModel: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Rates) != 1 {
				t.Fatalf("rates %v", r.Rates)
			}
			for _, x := range r.Rates[0] {
				if x.Counter == "alloc_fast" && (x.PerSec != tc.fast || x.Delta != 10_000_000) {
					t.Errorf("alloc_fast %+v, want %v/s", x, tc.fast)
				}
			}
			if !strings.HasPrefix(r.Runs[0].Label, "increase from snapshot 1") || r.Runs[0].Counters["recycle_ring"] != 10_156_250 {
				t.Errorf("run %s %v", r.Runs[0].Label, r.Runs[0].Counters)
			}
		})
	}
	r, _ := Diagnose(noSleep, Options{NoModel: true})
	if r.Rates != nil || !strings.Contains(strings.Join(r.Notes, " "), "no time between them") {
		t.Errorf("without an interval: rates %v, notes %v", r.Rates, r.Notes)
	}
}

// TestDiagnose_Ratios: the ratios of one fixture, by their formulas.
func TestDiagnose_Ratios(t *testing.T) {
	b, _ := os.ReadFile("testdata/ethtool_noheader.txt")
	r, err := Diagnose(string(b), Options{NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	allocs := 985000.0 + 15400 + 230
	for name, want := range map[string]float64{
		"cached share":          996000.0 / (996000 + 3100),
		"refill per alloc":      15400 / allocs,
		"slow per alloc":        230 / allocs,
		"released_refcnt share": 250000.0 / (996000 + 3100 + 250000),
		"recycling %":           (3100.0 + 996000) / allocs * 100,
	} {
		got, ok := ratio(r.Runs[0].Ratios, name)
		if !ok || got-want > 0.01 || want-got > 0.01 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	var signals []string
	for _, a := range r.Runs[0].Next {
		signals = append(signals, a.Signal)
	}
	if !strings.Contains(strings.Join(signals, "|"), "recycle_released_refcnt") {
		t.Errorf("no released_refcnt advice: %v", signals)
	}
}

// TestDiagnose_Zombie: a detached pool with pages in flight is called a
// zombie, with the triage.
func TestDiagnose_Zombie(t *testing.T) {
	b, _ := os.ReadFile("testdata/ynl_pools_python.txt")
	r, err := Diagnose(string(b), Options{NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, a := range r.Runs[0].Next {
		all = append(all, a.Signal+" "+strings.Join(a.Look, " "))
	}
	s := strings.Join(all, "|")
	for _, want := range []string{"pool 90 is a zombie: detached at 5421 s (detach-time) with 32 pages in flight", "Recv-Q", "pp_leak"} {
		if !strings.Contains(s, want) {
			t.Errorf("advice lacks %q: %s", want, s)
		}
	}
}

// TestYNL_RoundTrip: the run's pools as Lab.YNL renders them (ynl's
// Python literals and --output-json, ynltool plain and -j) parse back to
// the run's counters.
func TestYNL_RoundTrip(t *testing.T) {
	l, err := lab.New(lab.Config{Scenario: "tcp-stream", Packets: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	l.Run()
	y := l.YNL()
	st := l.Results().Stats
	if len(y.Pools) != 1 || y.Pools[0].Ifindex != lab.NICIfindex || y.Pools[0].NapiID == 0 {
		t.Fatalf("pools %+v", y.Pools)
	}
	for _, tc := range []struct {
		name   string
		write  func(*bytes.Buffer)
		format string
		full   bool
	}{
		{"stats python", func(b *bytes.Buffer) { y.WritePagePoolStatsGet(b, false) }, FormatYNL, true},
		{"stats json", func(b *bytes.Buffer) { y.WritePagePoolStatsGet(b, true) }, FormatYNL, true},
		{"both python", func(b *bytes.Buffer) { y.WritePagePoolGet(b, false); y.WritePagePoolStatsGet(b, false) }, FormatYNL, true},
		{"ynltool plain", func(b *bytes.Buffer) { y.WriteYnltool(b, false) }, FormatYnltool, false},
		{"ynltool json", func(b *bytes.Buffer) { y.WriteYnltool(b, true) }, FormatYnltool, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.write(&b)
			p, err := Parse(b.String())
			if err != nil {
				t.Fatalf("%v\n%s", err, b.String())
			}
			if p.Format != tc.format || len(p.Grey()) > 0 {
				t.Errorf("format %s, grey %v\n%s", p.Format, p.Grey(), b.String())
			}
			got := p.Snapshots[0].Device.V
			if tc.full {
				if got != st {
					t.Errorf("counters %v, want %v", got, st)
				}
				return
			}
			if got[sim.StatAllocFast] != st[sim.StatAllocFast]+st[sim.StatAllocRefill] || got[sim.StatRecycleRing] != st[sim.StatRecycleRing] || got[sim.StatRecycleCached] != st[sim.StatRecycleCached] {
				t.Errorf("ynltool counters %v from %v", got, st)
			}
		})
	}
}

// TestYNL_RoundTrip_ProviderPools: a memory-provider pool's page-pool-get
// reply ends with its provider's attribute (dmabuf: the binding's id;
// io-uring: an empty nest), in ynl's Python literals and --output-json,
// and the parser reads it back.
func TestYNL_RoundTrip_ProviderPools(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider int64
		dmabuf   uint64
		ioUring  bool
	}{
		{"devmem", 0, 1, false},
		{"io_uring", 1, 0, true},
	} {
		l, err := lab.New(lab.Config{Scenario: "devmem-rx", Era: "6.15", Packets: 2000, Knobs: sim.KnobOverrides{}.With(sim.KnobProvider, tc.provider)})
		if err != nil {
			t.Fatal(err)
		}
		l.Run()
		y := l.YNL()
		for _, asJSON := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s json=%v", tc.name, asJSON), func(t *testing.T) {
				var b bytes.Buffer
				y.WritePagePoolGet(&b, asJSON)
				p, err := Parse(b.String())
				if err != nil {
					t.Fatalf("%v\n%s", err, b.String())
				}
				if len(p.Grey()) > 0 {
					t.Errorf("grey %v\n%s", p.Grey(), b.String())
				}
				var n int
				for _, pl := range p.Snapshots[0].Pools {
					if pl.HasDmabuf || pl.IOUring {
						n++
						if pl.Dmabuf != tc.dmabuf || pl.IOUring != tc.ioUring {
							t.Errorf("pool %d: dmabuf %d io-uring %v, want %d %v\n%s", pl.ID, pl.Dmabuf, pl.IOUring, tc.dmabuf, tc.ioUring, b.String())
						}
					}
				}
				if n != 1 || len(p.Snapshots[0].Pools) != 2 {
					t.Errorf("%d provider pools of %d, want 1 of 2\n%s", n, len(p.Snapshots[0].Pools), b.String())
				}
			})
		}
	}
}

var lineNumRe = regexp.MustCompile(`line \d+`)

// TestParse_PerfListingSetAside: a perf top listing pasted with the
// counters (after them, or perf report --stdio's before them) is set
// aside: its lines (the symbols, the "Samples:" and column header lines,
// perf report's "#" comments and the blank lines between) are neither
// counters nor grey nor evidence — its symbols name mvpp2, which made the
// paste "contradict itself" — and the counters are diagnosed as if alone;
// the text report says which lines in one sentence naming ppsim predict.
// A driver named in the paste's own prose is still evidence.
func TestParse_PerfListingSetAside(t *testing.T) {
	b, err := os.ReadFile("testdata/pastes/mvneta-6.1-drop-perf-mixed.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	counters := strings.Join(lines[:28], "")
	perfTop := strings.Join(lines[28:], "")
	perfReport := "# To display the perf.data header info, please use --header/--header-only options.\n#\n# Samples: 180K of event 'cycles'\n# Event count (approx.): 45000000000\n#\n# Children      Self  Command  Shared Object      Symbol\n# ........  ........  .......  .................  ..................\n#\n    16.20%    16.20%  swapper  [kernel.kallsyms]  [k] mvpp2_rx\n\n    10.40%     0.00%  ksoftirqd/0  [kernel.kallsyms]  [k] mvpp2_poll\n\n"
	alone, err := Diagnose(counters, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if alone.NonePossible != "" {
		t.Fatalf("the counters alone: %s", alone.NonePossible)
	}
	shown := func(r *Report) string {
		var out []string
		for _, c := range r.Constraints {
			// (the evidence without its line numbers: a listing before the
			// counters moves them)
			out = append(out, fmt.Sprintf("%s %s %v", c.Rule, lineNumRe.ReplaceAllString(c.Evidence, "line N"), c.Dropped))
		}
		for _, run := range r.Runs {
			for _, m := range run.Nearest {
				out = append(out, fmt.Sprintf("%.4f %v", m.Distance, m.Runs))
			}
		}
		return strings.Join(append(out, r.NonePossible), "\n")
	}
	for _, tc := range []struct {
		name, text string
		aside      []Aside
	}{
		{"perf top after the counters", counters + perfTop, []Aside{{29, 40, AsidePerf}}},
		{"perf report --stdio before the counters", perfReport + counters, []Aside{{1, 11, AsidePerf}}},
		{"both", perfReport + counters + "\n" + perfTop, []Aside{{1, 11, AsidePerf}, {42, 53, AsidePerf}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Diagnose(tc.text, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rep.Paste.Aside) != fmt.Sprint(tc.aside) {
				t.Errorf("set aside %v, want %v", rep.Paste.Aside, tc.aside)
			}
			for _, a := range tc.aside {
				for n := a.From; n <= a.To; n++ {
					if u := rep.Paste.Lines[n-1].Use; u != UseAside {
						t.Errorf("line %d %q is %s, not set aside", n, rep.Paste.Lines[n-1].Text, u)
					}
				}
			}
			if g := rep.Paste.Grey(); len(g) > 0 {
				t.Errorf("grey lines: %v", g)
			}
			if got, want := shown(rep), shown(alone); got != want {
				t.Errorf("diagnosed\n%s\nthe counters alone\n%s", got, want)
			}
			var out bytes.Buffer
			rep.WriteText(&out)
			for _, a := range tc.aside {
				want := fmt.Sprintf("lines %d–%d are a perf top listing, not counters: set aside (ppsim predict", a.From, a.To)
				if !strings.Contains(out.String(), want) {
					t.Errorf("the text report lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
	// The poster's own words are evidence still.
	rep, err := Diagnose("my espressobin, mvpp2 on the other port\n"+counters+perfTop, Options{NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rep.Constraints, func(c Constraint) bool { return c.Rule == RuleDriverNamed })
	if i < 0 || !strings.Contains(rep.Constraints[i].Evidence, "mvpp2 (line 1)") || strings.Contains(rep.Constraints[i].Evidence, "line 3") {
		t.Errorf("the prose's driver: %+v", rep.Constraints)
	}
}

// TestDiagnose_AnUnderflowedCounterIsNoCount: a counter above 2^63 (one
// that went below zero: 2^64 − 1 is −1) is named in one line, with its
// line and how far below 2^64 it is, and is left out of the ratios and of
// the comparison: recycle_ring at 2^64 − 1 beside recycle_cached 5 made a
// "cached share" of 1.25 (the sum wrapped) and ranked runs from it. In
// each format: ethtool -S, two snapshots (the increase has none either),
// ynltool's plain line.
func TestDiagnose_AnUnderflowedCounterIsNoCount(t *testing.T) {
	const max = "18446744073709551615"
	for _, c := range []struct {
		name, text string
		wants      []string // in the underflow line
	}{
		{"ethtool", "NIC statistics:\n     rx_pp_alloc_fast: 1000\n     rx_pp_alloc_slow: 1\n     rx_pp_recycle_ring: " + max + "\n     rx_pp_recycle_cached: 5\n",
			[]string{"rx_pp_recycle_ring (line 4) is " + max + " = 2^64 − 1"}},
		{"two snapshots", "NIC statistics:\n     rx_pp_alloc_fast: 1000\n     rx_pp_recycle_ring: 18446744073709551610\n     rx_pp_recycle_cached: 5\nsleep 1\nNIC statistics:\n     rx_pp_alloc_fast: 2000\n     rx_pp_recycle_ring: 7\n     rx_pp_recycle_cached: 5\n",
			[]string{"rx_pp_recycle_ring (line 3) is 18446744073709551610 = 2^64 − 6"}},
		{"ynltool", "eth0[2]\tpage pools: 1 (zombies: 0)\n\trefs: 1 bytes: 4096 (refs: 0 bytes: 0)\n\trecycling: 100.0% (alloc: 3:1000 recycle: " + max + ":5)\n",
			[]string{"recycle ring (line 3) is " + max + " = 2^64 − 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Diagnose(c.text, Options{})
			if err != nil {
				t.Fatal(err)
			}
			line := r.Paste.UnderflowLine()
			for _, w := range append(c.wants, "not a count", "left out of the ratios and the comparison") {
				if !strings.Contains(line, w) {
					t.Errorf("the underflow line %q lacks %q", line, w)
				}
			}
			run := r.Runs[len(r.Runs)-1]
			for _, ra := range run.Ratios {
				if ra.Name == "cached share" || ra.Name == "recycling %" || ra.Name == "ring_full share" || ra.Name == "released_refcnt share" {
					t.Errorf("a ratio of recycle_ring: %s = %v", ra.Name, ra.Value)
				}
			}
			if len(run.Nearest) == 0 {
				t.Fatal("no candidates")
			}
			// The shape compares the other counters only: recycle_ring
			// taken out, the distances are those of the paste without it.
			sh := shapeOf(run.c, run.AbsentAsZero)
			if sh.Use[sim.StatRecycleRing] {
				t.Error("the comparison uses recycle_ring")
			}
			var b bytes.Buffer
			r.WriteText(&b)
			if strings.Count(b.String(), "underflow: ") != 1 {
				t.Errorf("the report says the underflow %d times, not in one line:\n%s", strings.Count(b.String(), "underflow: "), b.String())
			}
		})
	}
}

// TestDiagnose_LostFramesAreWhatToLookAtNext: the driver's counters of
// frames lost before the stack had them (mvneta's rx_discard and
// rx_overrun: 7 % of a new user's frames) are what to look at next, with
// their share of the frames received, not "not compared"; between two
// snapshots, their increase.
func TestDiagnose_LostFramesAreWhatToLookAtNext(t *testing.T) {
	b, err := os.ReadFile("testdata/pastes/mvneta-forward-no-xdp-ethtool.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Diagnose(string(b), Options{NoModel: true})
	if err != nil {
		t.Fatal(err)
	}
	next := r.Runs[0].Next
	if len(next) == 0 || next[0].Signal != "rx_discard 2.11 M (line 30), rx_overrun 1.2 M (line 31): 3.32 M frames lost: 7.3 % of good_frames_received 45.2 M received (lost / received)" {
		t.Errorf("what to look at next: %+v", next)
	}
	if nc := notCompared(r.Paste, r.Constraints); slices.Contains(nc, "rx_discard") || slices.Contains(nc, "rx_overrun") || !slices.Contains(nc, "rx_fifo_overrun") {
		t.Errorf("not compared (a loss counter at 0 is; those above 0 are read): %v", nc)
	}
	// Two snapshots: the frames lost between them.
	two := "NIC statistics:\n     good_frames_received: 1000000\n     rx_discard: 500\n     rx_pp_alloc_fast: 1000000\n     rx_pp_alloc_slow: 16\n     rx_pp_recycle_ring: 999000\nsleep 10\nNIC statistics:\n     good_frames_received: 3000000\n     rx_discard: 20500\n     rx_pp_alloc_fast: 3000000\n     rx_pp_alloc_slow: 16\n     rx_pp_recycle_ring: 2999000\n"
	if r, err = Diagnose(two, Options{NoModel: true}); err != nil {
		t.Fatal(err)
	}
	if next := r.Runs[0].Next; len(next) == 0 || !strings.HasPrefix(next[0].Signal, "rx_discard 20 k (line 10): 20 k frames lost: 1 % of good_frames_received 2 M received") {
		t.Errorf("two snapshots, what to look at next: %+v", next)
	}
}
