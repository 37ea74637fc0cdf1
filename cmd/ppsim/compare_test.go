package main

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// compareOutput is the part of `ppsim compare --json` the tests read.
type compareOutput struct {
	Build   string `json:"build"`
	Configs [2]struct {
		Scenario, Driver, Era string
		Packets               int64
		Seed                  uint64
		Set                   map[string]int64
		Break                 []string
	} `json:"configs"`
	Compared   int64  `json:"compared"`
	FromStart  string `json:"from_start"`
	Divergence *struct {
		Packet    int64 `json:"packet"`
		AfterLast bool  `json:"after_last"`
		Ops       [2]struct{ From, To uint64 }
		Decisions [2]struct {
			Stats      map[string]uint64
			Violations map[string]int
			Lost       int64
		}
		First [2]*struct {
			Op                            uint64
			CPU                           int
			PFN                           int32
			Func, Source, Stat, Violation string
		}
		Changes []struct {
			Kind, Name, Rule, Commit, A, B string
			Decides                        bool
		}
		Explained bool
	} `json:"divergence"`
	Runs [2]struct {
		Era        string
		Packets    int64
		Stats      map[string]uint64
		Violations map[string]int
	} `json:"runs"`
	Query string `json:"query"`
	Link  string `json:"link"`
}

func compareJSONOf(t *testing.T, args ...string) compareOutput {
	t.Helper()
	code, out, errOut := ppsim(append(append([]string{"compare"}, args...), "--json")...)
	if code != 0 || errOut != "" {
		t.Fatalf("ppsim compare %v: exit %d: %s", args, code, errOut)
	}
	var c compareOutput
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return c
}

// The issue's two kernel pairs, as `ppsim compare` takes them.
var issueCases = []struct {
	name         string
	args         []string
	a, b         lab.Config // the configs the flags name, built here, not by the CLI
	packet       int64
	field        string
	commit       string
	funcA, funcB string
}{
	{"6.9vs6.10/mlx5/xdp-redirect/redirect_to=1",
		[]string{"--scenario", "xdp-redirect", "--driver", "mlx5", "--era", "6.9", "--set", "redirect_to=1", "--with-era", "6.10", "--packets", "5000"},
		lab.Config{Scenario: "xdp-redirect", Driver: "mlx5", Era: "6.9", Packets: 5000, Seed: 1, Knobs: sim.MustOverrides("redirect_to=1")},
		lab.Config{Scenario: "xdp-redirect", Driver: "mlx5", Era: "6.10", Packets: 5000, Seed: 1, Knobs: sim.MustOverrides("redirect_to=1")},
		65, "PoolNapiLocal", "4a96a4e807c3", "page_pool_put_page_bulk", "page_pool_recycle_in_cache"},
	{"6.18vs6.19/mlx5/forward/tx_cpu=1",
		[]string{"--scenario", "forward", "--driver", "mlx5", "--era", "6.18", "--set", "tx_cpu=1", "--with-era", "6.19", "--packets", "5000"},
		lab.Config{Scenario: "forward", Driver: "mlx5", Era: "6.18", Packets: 5000, Seed: 1, Knobs: sim.MustOverrides("tx_cpu=1")},
		lab.Config{Scenario: "forward", Driver: "mlx5", Era: "6.19", Packets: 5000, Seed: 1, Knobs: sim.MustOverrides("tx_cpu=1")},
		65, "ConsumeAlienDefers", "e20dfbad8aab", "page_pool_recycle_in_ring", "page_pool_recycle_in_cache"},
}

// TestCompare_IssueCasesDivergeAtTheCommit: the issue's two comparisons
// diverge at packet 65, each side's first differing decision named (its
// function, counter, page, CPU and source in its era's tree), and the era
// change with its commit decides it alone; the table says the same.
func TestCompare_IssueCasesDivergeAtTheCommit(t *testing.T) {
	for _, tc := range issueCases {
		t.Run(tc.name, func(t *testing.T) {
			c := compareJSONOf(t, tc.args...)
			d := c.Divergence
			if d == nil || d.Packet != tc.packet || d.AfterLast {
				t.Fatalf("divergence %+v, want packet %d", d, tc.packet)
			}
			if !d.Explained || len(d.Changes) == 0 || !d.Changes[0].Decides || d.Changes[0].Name != tc.field || d.Changes[0].Commit != tc.commit || d.Changes[0].Kind != "era" {
				t.Errorf("changes %+v, want %s (%s) deciding first", d.Changes, tc.field, tc.commit)
			}
			for i, want := range []string{tc.funcA, tc.funcB} {
				f := d.First[i]
				if f == nil || f.Func != want || f.Stat == "" || f.PFN < 0 || f.Op == 0 {
					t.Fatalf("side %d's first decision %+v, want %s", i, f, want)
				}
				if era := []string{tc.a.Era, tc.b.Era}[i]; !strings.Contains(f.Source, "/v"+era+"/") {
					t.Errorf("side %d's source %q is not in %s's tree", i, f.Source, era)
				}
			}
			if d.Decisions[0].Stats["recycle_ring"] == d.Decisions[1].Stats["recycle_ring"] {
				t.Errorf("packet %d's windows put as many pages in the ring: %+v", d.Packet, d.Decisions)
			}
			if c.Compared != tc.packet || c.FromStart != "" || c.Build != lab.BuildID() {
				t.Errorf("compared %d, from_start %q, build %q", c.Compared, c.FromStart, c.Build)
			}
			for i, era := range []string{tc.a.Era, tc.b.Era} {
				if c.Configs[i].Era != era || c.Runs[i].Era != era || c.Runs[i].Packets != 5000 || len(c.Runs[i].Stats) != int(sim.NumStats) || len(c.Runs[i].Violations) != int(sim.NumKinds) {
					t.Errorf("side %d: config %+v, run %+v", i, c.Configs[i], c.Runs[i])
				}
			}
			if c.Link != "compare/?"+c.Query {
				t.Errorf("link %q without --base-url, want compare/?%s", c.Link, c.Query)
			}

			code, out, errOut := ppsim(append([]string{"compare"}, tc.args...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{"First divergence: packet 65", "B is A with --with-era " + tc.b.Era, "Decided by: ", tc.field, "commit " + tc.commit,
				tc.funcA, tc.funcB, "/v" + tc.a.Era + "/source/", "/v" + tc.b.Era + "/source/", "rx_pp_recycle_cached", "rx_pp_recycle_released_ref",
				"violations (A " + tc.a.Era + "): ", "build: " + lab.BuildID(), "link: compare/?" + c.Query} {
				if !strings.Contains(out, want) {
					t.Errorf("the table has no %q:\n%s", want, out)
				}
			}
		})
	}
}

// unwrapLink reads a link back as a reader of the text does (RFC 3986
// appendix C): its last line, or the text between its last < and >
// without whitespace.
func unwrapLink(text string) string {
	i, j := strings.LastIndex(text, "<"), strings.LastIndex(text, ">")
	if i < 0 || j < i {
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		return lines[len(lines)-1]
	}
	return strings.Join(strings.Fields(text[i+1:j]), "")
}

// linkQuery is the query a printed link carries, checked to start with
// the base.
func linkQuery(t *testing.T, link, base, page string) url.Values {
	t.Helper()
	prefix := permalink(base, page, "")
	q, ok := strings.CutPrefix(link, prefix)
	if !ok {
		t.Fatalf("the link %q does not start with %q", link, prefix)
	}
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatalf("the link %q: %v", link, err)
	}
	return v
}

// sameRun checks that a config read back from a link is the run the CLI
// ran: scenario, driver, era, length, seed, broken rules and every knob's
// value (the sizes among them: the CLI runs the kernel's).
func sameRun(t *testing.T, side string, got, want lab.Config) {
	t.Helper()
	driver := func(c lab.Config) string {
		if c.Driver != "" {
			return c.Driver
		}
		sc, err := lab.ScenarioByName(c.Scenario)
		if err != nil {
			return ""
		}
		return sc.DefaultDriver
	}
	packets := func(c lab.Config) int64 {
		if c.Packets == 0 {
			return lab.DefaultPackets
		}
		return c.Packets
	}
	rules := func(c lab.Config) []string { r := slices.Clone(c.Break); slices.Sort(r); return r }
	if got.Scenario != want.Scenario || driver(got) != driver(want) || got.EraName() != want.EraName() || packets(got) != packets(want) || got.Seed != want.Seed || !slices.Equal(rules(got), rules(want)) {
		t.Errorf("%s: the link opens %s/%s/%s, %d packets, seed %d, broken %v; the CLI ran %s/%s/%s, %d packets, seed %d, broken %v", side,
			got.Scenario, driver(got), got.EraName(), packets(got), got.Seed, got.Break, want.Scenario, driver(want), want.EraName(), packets(want), want.Seed, want.Break)
	}
	kg, err := got.EffectiveKnobs()
	if err != nil {
		t.Fatal(err)
	}
	kw, err := want.EffectiveKnobs()
	if err != nil {
		t.Fatal(err)
	}
	for k := sim.Knob(0); k < sim.NumKnobs; k++ {
		if kg[k] != kw[k] {
			t.Errorf("%s: the link opens %s=%d, the CLI ran %d", side, k, kg[k], kw[k])
		}
	}
}

func checkWidth(t *testing.T, text string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if n := len([]rune(line)); n > lab.TextWidth {
			t.Errorf("line %d is %d columns (over %d): %q", i+1, n, lab.TextWidth, line)
		}
	}
}

// TestCompareText_72ColumnsAndTheLinkOpensBothRuns: `ppsim compare
// --text` is lab.CompareText: every line at most 72 columns, the build,
// the divergence and its commit; its link (unwrapped) starts with
// --base-url, or is the query alone, and ParseCompare reads it back as
// the two configs the CLI ran, which diverge again at the same packet.
func TestCompareText_72ColumnsAndTheLinkOpensBothRuns(t *testing.T) {
	for _, tc := range issueCases {
		for _, base := range []string{"", "https://example.org/pplab/", "http://localhost:8080/a/rather/long/path/to/the/page/index.html"} {
			t.Run(tc.name+"/base="+base, func(t *testing.T) {
				args := append([]string{"compare"}, tc.args...)
				if base != "" {
					args = append(args, "--base-url", base)
				}
				code, out, errOut := ppsim(append(args, "--text")...)
				if code != 0 || errOut != "" {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				checkWidth(t, out)
				for _, want := range []string{"pplab model " + lab.BuildID() + ": comparison", "First divergence: packet 65.", "commit " + tc.commit, "rx_pp_recycle_ring"} {
					if !strings.Contains(out, want) {
						t.Errorf("the text has no %q:\n%s", want, out)
					}
				}
				a, b, two, err := lab.ParseCompare(linkQuery(t, unwrapLink(out), base, "compare/"))
				if err != nil || !two {
					t.Fatalf("the link reads back with two=%v: %v\n%s", two, err, out)
				}
				sameRun(t, "A", a, tc.a)
				sameRun(t, "B", b, tc.b)
				c, err := lab.Compare(a, b)
				if err != nil || c.Div == nil || c.Div.Packet != tc.packet {
					t.Errorf("the link's runs: %v, divergence %+v, want packet %d", err, c.Div, tc.packet)
				}
			})
		}
	}
}

// TestRunText_TheLinkOpensTheRun: `ppsim run --text` is lab.RunText at
// 72 columns with the build, and its link reads back (ParseConfig) as the
// config the CLI ran, at the kernel's sizes.
func TestRunText_TheLinkOpensTheRun(t *testing.T) {
	demo := lab.RuleDemos[3] // napi-locality: mlx5 forward, tx_cpu=1
	for _, tc := range []struct {
		name string
		args []string
		base string
		want lab.Config
	}{
		{"pool-ring/defaults", []string{"--scenario", "pool-ring", "--packets", "3000"}, "", lab.Config{Scenario: "pool-ring", Packets: 3000, Seed: 1}},
		{"mlx5/forward/knobs/base-url", []string{"--scenario", "forward", "--driver", "mlx5", "--era", "6.18", "--set", "tx_cpu=1", "--set", "bulk=32", "--packets", "3000", "--seed", "7"},
			"https://example.org/pplab/", lab.Config{Scenario: "forward", Driver: "mlx5", Era: "6.18", Packets: 3000, Seed: 7, Knobs: sim.MustOverrides("tx_cpu=1", "bulk=32")}},
		{"rule demo broken", []string{"--scenario", demo.Scenario, "--driver", demo.Driver, "--era", demo.Era, "--set", demo.Set[0], "--break", demo.Rules[0], "--packets", "3000"},
			"http://localhost:8080/", lab.Config{Scenario: demo.Scenario, Driver: demo.Driver, Era: demo.Era, Packets: 3000, Seed: 1, Knobs: sim.MustOverrides(demo.Set...), Break: demo.Rules}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run"}, tc.args...)
			if tc.base != "" {
				args = append(args, "--base-url", tc.base)
			}
			code, out, errOut := ppsim(append(args, "--text")...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkWidth(t, out)
			if !strings.HasPrefix(out, "pplab model "+lab.BuildID()+": ") || !strings.Contains(out, "rx_pp_recycle_released_ref") {
				t.Errorf("the text:\n%s", out)
			}
			got, err := lab.ParseConfig(linkQuery(t, unwrapLink(out), tc.base, ""))
			if err != nil {
				t.Fatalf("the link reads back: %v\n%s", err, out)
			}
			sameRun(t, "run", got, tc.want)
		})
	}
}

// TestCompare_OtherSides: each --with-* flag makes the second side: two
// drivers differ from the start; a knob (--with-set, replacing the first
// side's value) and a broken rule (--with-break, on a rule's demo) each
// diverge with the change named as the one that decides.
func TestCompare_OtherSides(t *testing.T) {
	demo := lab.RuleDemos[3] // napi-locality: mlx5 forward 6.4, tx_cpu=1
	demoArgs := []string{"--scenario", demo.Scenario, "--driver", demo.Driver, "--era", demo.Era, "--set", demo.Set[0], "--packets", "20000"}
	for _, tc := range []struct {
		name       string
		args       []string
		fromStart  bool
		kind, rule string // the deciding change
		setB       map[string]int64
		breakB     []string
	}{
		{"with-driver bnxt", []string{"--scenario", "forward", "--driver", "mlx5", "--era", "6.18", "--with-driver", "bnxt", "--packets", "3000"}, true, "", "", map[string]int64{}, []string{}},
		{"with-set tx_cpu=1", []string{"--scenario", "forward", "--driver", "mlx5", "--era", "6.18", "--with-set", "tx_cpu=1", "--packets", "3000"}, false, "knob", "the knob tx_cpu", map[string]int64{"tx_cpu": 1}, []string{}},
		{"with-set replaces the set", []string{"--scenario", "forward", "--driver", "mlx5", "--era", "6.18", "--set", "tx_cpu=1", "--set", "bulk=32", "--with-set", "tx_cpu=0", "--packets", "3000"}, false, "knob", "the knob tx_cpu", map[string]int64{"tx_cpu": 0, "bulk": 32}, []string{}},
		{"with-break " + demo.Rules[0], append(slices.Clone(demoArgs), "--with-break", demo.Rules[0]), false, "break", "the rule " + demo.Rules[0] + " broken", map[string]int64{"tx_cpu": 1}, demo.Rules},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compareJSONOf(t, tc.args...)
			if (c.FromStart != "") != tc.fromStart {
				t.Errorf("from_start %q", c.FromStart)
			}
			if !maps(c.Configs[1].Set, tc.setB) || !slices.Equal(c.Configs[1].Break, tc.breakB) {
				t.Errorf("the second side sets %v, breaks %v; want %v, %v", c.Configs[1].Set, c.Configs[1].Break, tc.setB, tc.breakB)
			}
			code, out, _ := ppsim(append([]string{"compare"}, tc.args...)...)
			if tc.fromStart {
				if c.Divergence != nil || !strings.Contains(out, "The runs differ from the start: ") || code != 0 {
					t.Errorf("two drivers: divergence %+v, exit %d:\n%s", c.Divergence, code, out)
				}
				return
			}
			d := c.Divergence
			if d == nil || len(d.Changes) == 0 || !d.Changes[0].Decides || d.Changes[0].Kind != tc.kind || d.Changes[0].Rule != tc.rule {
				t.Fatalf("divergence %+v, want %s deciding", d, tc.rule)
			}
			if !strings.Contains(out, "Decided by: "+tc.rule) {
				t.Errorf("the table does not name %s as deciding:\n%s", tc.rule, out)
			}
		})
	}
}

func maps(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestVersion_PrintsTheBuildID: `ppsim version` prints lab.BuildID, the
// Go version and platform; --json the same as an object.
func TestVersion_PrintsTheBuildID(t *testing.T) {
	code, out, errOut := ppsim("version")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "ppsim "+lab.BuildID()+" (go") || strings.Count(out, "\n") != 1 {
		t.Errorf("exit %d: %q %q", code, out, errOut)
	}
	code, out, _ = ppsim("version", "--json")
	var v struct{ Build, Go string }
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || v.Build != lab.BuildID() || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("exit %d: %s (%v)", code, out, err)
	}
}

// TestVersion_TheBuildIDBuiltIn: a ppsim built as the Makefile builds it
// (-ldflags -X pplab/engine/lab.build=ID) prints that ID in `version`,
// `version --json` and every --text output.
func TestVersion_TheBuildIDBuiltIn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ppsim")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build ppsim with")
	}
	bin := filepath.Join(t.TempDir(), "ppsim")
	build := exec.Command(gobin, "build", "-ldflags", "-X pplab/engine/lab.build=test-id", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"version", []string{"version"}, "ppsim test-id (go"},
		{"version --json", []string{"version", "--json"}, `{"build":"test-id","go":"go`},
		{"run --text", []string{"run", "--scenario", "pool-ring", "--packets", "1000", "--text"}, "pplab model test-id: pool-ring"},
		{"compare --text", []string{"compare", "--scenario", "pool-ring", "--packets", "1000", "--with-era", "6.1", "--text"}, "pplab model test-id: comparison"},
		{"compare --json", []string{"compare", "--scenario", "pool-ring", "--packets", "1000", "--with-era", "6.1", "--json"}, `{"build":"test-id",`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(os.Environ(), "PPSIM_PROGRESS=")
			out, err := cmd.Output()
			if err != nil || !strings.HasPrefix(string(out), tc.want) {
				t.Errorf("%v: %v: %.200s", tc.args, err, out)
			}
		})
	}
}
