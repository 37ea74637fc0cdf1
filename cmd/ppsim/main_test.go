package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pplab/engine/sim"
)

func ppsim(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestRun_TableInEthtoolForm(t *testing.T) {
	code, out, errOut := ppsim("run", "--scenario", "pool-direct", "--packets", "2000")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// page_pool_put_unrefed_page: 6.8's own name for the put (it was
	// page_pool_put_page, the first profiles' name)
	for _, want := range []string{"rx_pp_alloc_fast: 2062", "rx_pp_recycle_cached: 2000", "rx_pp_recycle_released_ref: 0", "rate:", "kpps", "violations: 0", "page_pool_put_unrefed_page"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRun_JSON(t *testing.T) {
	code, out, _ := ppsim("run", "--scenario", "pool-slow", "--era", "5.13", "--packets", "1000", "--seed", "3", "--json", "--set", "dma_map=1")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		Driver, Scenario, Era string
		Packets               int64
		Seed                  uint64
		Rate                  struct {
			Value float64
			Unit  string
		}
		Stats      map[string]uint64
		Inflight   int
		Violations map[string]int
		Profile    []struct {
			Symbol string
			Pct    float64
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Scenario != "pool-slow" || r.Era != "5.13" || r.Packets != 1000 || r.Seed != 3 || r.Rate.Unit != "kpps" || r.Stats["recycle_released_refcnt"] != 1000 || len(r.Violations) != 14 || len(r.Profile) == 0 {
		t.Fatalf("unexpected JSON: %s", out)
	}
}

func TestRun_BadInputExits2WithOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "missing command (accepted: list, run, compare, predict, diagnose, replay, check, version)"},
		{[]string{"fly"}, `unknown command "fly" (accepted: list, run, compare, predict, diagnose, replay, check, version)`},
		{[]string{"run"}, "no scenario given (accepted: pool-direct, pool-ring, pool-slow, drop, tcp-stream"},
		{[]string{"run", "--scenario", "warp"}, `unknown scenario "warp" (accepted: pool-direct, pool-ring, pool-slow, drop,`},
		{[]string{"run", "--scenario", "drop", "--driver", "e1000"}, `unknown driver "e1000" (accepted: mvpp2, mvneta, cpsw, lunar, mlx5, bnxt, hns3)`},
		{[]string{"run", "--scenario", "xdp-redirect", "--driver", "lunar"}, "driver lunar does not run scenario xdp-redirect"},
		{[]string{"run", "--scenario", "drop", "--driver", "hns3", "--era", "5.14"}, "driver hns3 does not run in era 5.14"},
		{[]string{"predict", "--rate", "1", "--unit", "kpps", "--change", "bulk"}, "--profile: missing"},
		{[]string{"predict", "--profile", "mvpp2-v1-before", "--rate", "-3", "--unit", "kpps", "--change", "bulk"}, `--rate "-3": want a positive number`},
		{[]string{"predict", "--profile", "mvpp2-v1-before", "--rate", "962", "--unit", "furlongs", "--change", "bulk"}, `--unit "furlongs": accepted: kpps, pps, mbps`},
		{[]string{"predict", "--profile", "mvpp2-v1-before", "--rate", "962", "--unit", "kpps", "--change", "magic"}, `--change "magic": accepted: skb-recycle, bulk, napi-direct, pp-napi`},
		{[]string{"predict", "--profile", "mvpp2-v7-before", "--rate", "962", "--unit", "kpps", "--change", "bulk"}, "already shows bulk allocation"},
		{[]string{"predict", "--profile", "mvpp2-v1-after", "--rate", "962", "--unit", "kpps", "--change", "skb-recycle"}, "skb-recycle is already applied"},
		{[]string{"predict", "--profile", "mvpp2-v1-before", "--rate", "962", "--unit", "kpps", "--change", "bulk", "--platform", "vax"}, `platform: unknown platform "vax"`},
		{[]string{"predict", "--profile", "/nonexistent.txt", "--rate", "1", "--unit", "kpps", "--change", "bulk"}, "--profile /nonexistent.txt"},
		{[]string{"run", "--scenario", "pool-ring", "--era", "3.0"}, `unknown era "3.0" (accepted: ` + strings.Join(sim.EraNames(), ", ") + `)`},
		{[]string{"run", "--scenario", "pool-ring", "--packets", "0"}, `--packets "0": want an integer from 1 to`},
		{[]string{"run", "--scenario", "pool-ring", "--packets", "lots"}, `--packets "lots"`},
		{[]string{"run", "--scenario", "pool-ring", "--seed", "-1"}, `--seed "-1": want a non-negative integer`},
		{[]string{"run", "--scenario", "pool-ring", "--set", "order=9"}, "--set order=9: want an integer from 0 to 4"},
		{[]string{"run", "--scenario", "pool-ring", "--set", "speed=9"}, `unknown knob "speed"`},
		{[]string{"run", "--scenario", "pool-ring", "--break", "gravity"}, `unknown rule "gravity" (accepted: coalesce-pp-guard`},
		{[]string{"run", "--scenario", "pool-ring", "--driver", "mvpp2"}, "runs without a driver"},
		{[]string{"run", "--scenario", "pool-ring", "--warp"}, "run: unknown flag --warp (accepted flags: --base-url, --break, --driver"},
		{[]string{"run", "--scenario", "pool-ring", "extra"}, `unexpected argument "extra"`},
		{[]string{"list", "--yaml"}, "list: unknown flag --yaml (accepted flags: --json)"},
	}
	for _, tc := range tests {
		code, out, errOut := ppsim(tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.args, code)
		}
		if !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%v: stderr %q stdout %q; want one line containing %q", tc.args, errOut, out, tc.want)
		}
	}
}

func TestRun_TraceFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.txt")
	code, _, errOut := ppsim("run", "--scenario", "pool-ring", "--packets", "100", "--trace", path, "--set", "dma_map=1")
	if code != 0 {
		t.Fatal(errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"<idle>-0       [000] ..s1.     0.0000", ": page_pool_state_hold: page_pool=" + sim.HashPtr(sim.PoolPtr(1)) + " page=0000000", "page_pool_recycle_in_ring:", "[recycle_ring++]", "page_pool_refill_alloc_cache:"} {
		if !strings.Contains(s, want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	if code, _, errOut := ppsim("run", "--scenario", "pool-ring", "--trace", "/nonexistent/dir/t.txt"); code != 2 || !strings.Contains(errOut, "--trace /nonexistent/dir/t.txt") {
		t.Errorf("unwritable trace: exit %d %q", code, errOut)
	}
}

func TestList(t *testing.T) {
	code, out, _ := ppsim("list", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	var l struct {
		Scenarios []struct{ Name string }
		Eras      []struct {
			Name, Summary, Tag, Naming string
			SignatureCheck             string `json:"signature_check"`
		}
		Rules []struct {
			Name       string
			Violations []string
		}
		Knobs []struct {
			Name         string
			Default, Min int64
			Max          int64
		}
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Scenarios) != 17 || len(l.Eras) != len(sim.Eras) || len(l.Rules) != 13 || len(l.Knobs) == 0 {
		t.Fatalf("list: %s", out)
	}
	eras := map[string]int{}
	for i, e := range l.Eras {
		eras[e.Name] = i
	}
	// Each era says the release it follows, the names its narration uses
	// and its signature test (keys other tools may read; added, none
	// renamed).
	for _, w := range []struct{ name, tag, naming, sig string }{
		{"5.12", "v5.12", "page", ""},
		{"6.8", "v6.8", "page", "(page->pp_magic & ~0x3UL) == PP_SIGNATURE"},
		{"6.10", "v6.10", "page", "(page->pp_magic & ~0x3UL) == PP_SIGNATURE"},
		{"6.12", "v6.12", "netmem", "(page->pp_magic & ~0x3UL) == PP_SIGNATURE"},
		{"6.16", "v6.16", "netmem", "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE"},
		{"6.18", "v6.18", "netmem_desc", "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE"},
		{"7.1-rc1", "v7.1-rc1", "netmem_desc", "PageNetpp(page)"},
		{"7.1", "v7.1", "netmem_desc", "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE"},
	} {
		i, ok := eras[w.name]
		if !ok {
			t.Errorf("list --json lacks era %s", w.name)
			continue
		}
		if e := l.Eras[i]; e.Tag != w.tag || e.Naming != w.naming || e.SignatureCheck != w.sig || e.Summary == "" {
			t.Errorf("era %s: %+v, want tag %s, naming %s, signature %q", w.name, e, w.tag, w.naming, w.sig)
		}
	}
	code, out, _ = ppsim("list")
	if code != 0 || !strings.Contains(out, "scenarios:") || !strings.Contains(out, "knobs (--set name=value):") ||
		!strings.Contains(out, "  7.1      as 7.1-rc1 without its page type") || !strings.Contains(out, "follows v6.12; names: netmem;") {
		t.Fatalf("list table: %s", out)
	}
}

func TestPredict_GarbageProfileNamesTheLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.txt")
	os.WriteFile(path, []byte("# driver: mvpp2\n 30.1%  [kernel]  [k] page_pool_release_page\nthis is not perf output\n"), 0o644)
	code, _, errOut := ppsim("predict", "--profile", path, "--rate", "962", "--unit", "kpps", "--change", "skb-recycle")
	if code != 2 || !strings.Contains(errOut, "line 3") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d %q", code, errOut)
	}
}

func TestPredict_JSONContract(t *testing.T) {
	code, out, errOut := ppsim("predict", "--profile", "mvpp2-v1-before", "--rate", "962", "--unit", "kpps", "--change", "skb-recycle", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var p struct {
		Before, Predicted struct {
			Value float64
			Unit  string
		}
		Speedup      float64
		ProfileAfter []struct {
			Symbol string
			Pct    float64
		} `json:"profile_after"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Before.Value != 962 || p.Predicted.Unit != "kpps" || p.Speedup < 1 || len(p.ProfileAfter) == 0 {
		t.Errorf("predict json: %s", out)
	}
}

// The table prints each driver's own ethtool -S names: mlx5's (en_stats.c,
// device total and per ring), mvneta's generic helper's, and says when a
// driver shows none (mvpp2).
func TestRun_TableUsesTheDriversEthtoolNames(t *testing.T) {
	tests := []struct {
		name, driver string
		want, not    []string
	}{
		{"mlx5 own names and rings", "mlx5", []string{"rx_pp_alloc_slow_high_order: 0", "rx0_pp_alloc_fast:", "rx0_pp_recycle_released_ref: 0"}, []string{"rx_pp_alloc_slow_ho:", "generic helper"}},
		{"mvneta generic helper", "mvneta", []string{"rx_pp_alloc_slow_ho: 0"}, []string{"rx0_pp_", "generic helper"}},
		{"mvpp2 shows none", "mvpp2", []string{"rx_pp_alloc_fast:", "mvpp2's ethtool -S shows no page_pool counters"}, []string{"rx0_pp_"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := ppsim("run", "--driver", tt.driver, "--scenario", "drop", "--packets", "500")
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q:\n%s", n, out)
				}
			}
		})
	}
}
