package lab

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pplab/engine/sim"
)

// mustCompare compares a with a's config plus the other side's edit.
func mustCompare(t *testing.T, a Config, edit func(*Config)) Comparison {
	t.Helper()
	b := a
	b.Break = append([]string(nil), a.Break...)
	edit(&b)
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCompare_AtTheDivergence: the two kernel pairs on mlx5 at the
// driver's own sizes. Each diverges at the packet whose pages the newer
// era puts elsewhere, and one era flag alone decides it, with its commit.
func TestCompare_AtTheDivergence(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, set, eraA, eraB string
		packet                          int64
		statA, statB                    string // the first decision of each side that differs
		funcA, funcB                    string
		field, commit                   string
	}{
		// 6.10's page_pool_napi_local (4a96a4e807c3): the second port's TX
		// completion runs in the source pool's NAPI, so
		// xdp_return_frame_bulk's pages go to the alloc cache, not the ring.
		{"6.9vs6.10/mlx5/xdp-redirect/redirect_to=1", "xdp-redirect", "redirect_to=1", "6.9", "6.10", 65,
			"recycle_ring", "recycle_cached", "page_pool_put_page_bulk", "page_pool_recycle_in_cache", "PoolNapiLocal", "4a96a4e807c3"},
		// 6.19's napi_consume_skb hands the alien skb (RX on cpu0, TX
		// completion on cpu1) back to cpu0 through the defer list
		// (e20dfbad8aab), where its pages recycle into the cache.
		{"6.18vs6.19/mlx5/forward/tx_cpu=1", "forward", "tx_cpu=1", "6.18", "6.19", 65,
			"recycle_ring", "recycle_cached", "page_pool_recycle_in_ring", "page_pool_recycle_in_cache", "ConsumeAlienDefers", "e20dfbad8aab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Config{Scenario: tc.scenario, Driver: "mlx5", Era: tc.eraA, Knobs: sim.MustOverrides(tc.set), Packets: 5000}
			c := mustCompare(t, a, func(b *Config) { b.Era = tc.eraB })
			d := c.Div
			if d == nil {
				t.Fatalf("no divergence in %d packets", c.Compared)
			}
			if d.Packet != tc.packet {
				t.Errorf("diverges at packet %d, want %d", d.Packet, tc.packet)
			}
			if d.First[0] == nil || d.First[1] == nil {
				t.Fatalf("first decisions %v %v", d.First[0], d.First[1])
			}
			if d.First[0].Stat != tc.statA || d.First[1].Stat != tc.statB || d.First[0].Func != tc.funcA || d.First[1].Func != tc.funcB {
				t.Errorf("first differing decisions: %s %s / %s %s, want %s %s / %s %s", d.First[0].Func, d.First[0].Stat,
					d.First[1].Func, d.First[1].Stat, tc.funcA, tc.statA, tc.funcB, tc.statB)
			}
			for i, era := range []string{tc.eraA, tc.eraB} {
				if want := "/v" + era + "/"; !strings.Contains(d.First[i].Source, want) {
					t.Errorf("side %d's source link %q is not in %s's tree", i, d.First[i].Source, era)
				}
			}
			if !d.Explained || len(d.Changes) == 0 || !d.Changes[0].Decides || d.Changes[0].Name != tc.field || d.Changes[0].Commit != tc.commit {
				t.Errorf("changes: %+v, want %s (%s) deciding first", d.Changes, tc.field, tc.commit)
			}
			for _, ch := range d.Changes[1:] {
				if ch.Decides {
					t.Errorf("a second change decides packet %d alone: %+v", d.Packet, ch)
				}
			}
			// Up to the packet, each window decided the same.
			if d.Decisions[0] == d.Decisions[1] {
				t.Error("the divergent packet's windows decided the same")
			}
			if c.Results[0].Packets != a.Packets || c.Results[1].Packets != a.Packets {
				t.Errorf("results at %d and %d packets, want both runs to their end (%d)", c.Results[0].Packets, c.Results[1].Packets, a.Packets)
			}
		})
	}
}

// TestCompare_TeachingSizesUseTheRingInBoth: at the playground's small
// rings (16 descriptors, a 32-slot ring) 6.10's locality check finds the
// pool's NAPI not scheduled where the second port completes, and both
// eras return redirected frames to the ptr_ring: no divergence there.
func TestCompare_TeachingSizes(t *testing.T) {
	a, _ := Preset(PresetTeaching, "xdp-redirect")
	a.Driver, a.Era, a.Packets = "mlx5", "6.9", 5000
	a.Knobs = a.Knobs.Merge(sim.MustOverrides("redirect_to=1"))
	c := mustCompare(t, a, func(b *Config) { b.Era = "6.10" })
	if c.Div != nil {
		t.Errorf("divergence at %d: %+v %+v; changes %+v", c.Div.Packet, c.Div.First[0], c.Div.First[1], c.Div.Changes)
	}
	if c.Compared != a.Packets {
		t.Errorf("compared %d packets, want the run's %d", c.Compared, a.Packets)
	}
}

// TestCompare_ItselfNeverDiverges: a config against itself, for every
// scenario a driver runs, compares to the end without a divergence.
func TestCompare_ItselfNeverDiverges(t *testing.T) {
	for _, sc := range Scenarios {
		a, _ := Preset(PresetTeaching, sc.Name)
		a.Packets = 3000
		if sc.NeedsDriver {
			a.Driver = sc.DefaultDriver
		}
		t.Run(sc.Name, func(t *testing.T) {
			c, err := Compare(a, a)
			if err != nil {
				t.Skipf("does not build: %v", err)
			}
			if c.Div != nil {
				t.Errorf("diverges from itself at packet %d", c.Div.Packet)
			}
		})
	}
}

// TestCompare_TwoDriversDifferFromStart: two drivers are not one
// workload under two kernels: the comparison says so and looks for no
// divergence, and still gives both runs' results.
func TestCompare_TwoDriversDifferFromStart(t *testing.T) {
	a := Config{Scenario: "forward", Driver: "mlx5", Era: "6.18", Packets: 2000}
	c := mustCompare(t, a, func(b *Config) { b.Driver = "bnxt" })
	if c.FromStart == "" || c.Div != nil || c.Compared != 0 {
		t.Errorf("two drivers: FromStart %q, Div %v, Compared %d", c.FromStart, c.Div, c.Compared)
	}
	if c.Results[1].Driver != "bnxt" || c.Results[1].Packets != 2000 {
		t.Errorf("the other side's results: %s, %d packets", c.Results[1].Driver, c.Results[1].Packets)
	}
}

// TestCompare_ABrokenRuleDiverges: each rule's demo (RuleDemos) with the
// rule kept against the demo with it broken diverges, and the broken rule
// is the change that decides it.
func TestCompare_ABrokenRuleDiverges(t *testing.T) {
	for _, d := range RuleDemos {
		rule := d.Rules[len(d.Rules)-1]
		t.Run(rule, func(t *testing.T) {
			b := d.Config()
			b.Packets = 20000
			a := b
			a.Break = slices.Clone(b.Break[:len(b.Break)-1])
			if err := a.Validate(); err != nil {
				t.Skipf("the demo does not run with the rule kept: %v", err)
			}
			c, err := Compare(a, b)
			if err != nil {
				t.Fatal(err)
			}
			if c.Div == nil {
				t.Fatalf("no divergence in %d packets", c.Compared)
			}
			if !c.Div.Explained || c.Div.Changes[0].Kind != "break" || c.Div.Changes[0].Name != rule {
				t.Errorf("packet %d: changes %+v", c.Div.Packet, c.Div.Changes)
			}
			if c.Results[1].Violations.Counts[d.Kind] == 0 {
				t.Errorf("the broken side found no %v", d.Kind)
			}
		})
	}
}

// TestCompare_AgreesWithSteppedRuns: the comparison's divergence (batch
// runs to each packet, fast-forward and all) is the first packet whose
// windows differ when each run is stepped one operation at a time with
// step records: two ways to the same packet.
func TestCompare_AgreesWithSteppedRuns(t *testing.T) {
	rows := []struct{ scenario, driver, eraA, eraB, set string }{
		{"forward", "mlx5", "6.18", "6.19", "tx_cpu=1"},
		{"xdp-redirect", "mlx5", "6.9", "6.10", "redirect_to=1"},
		{"tcp-stream", "bnxt", "6.12", "6.13", ""},
		{"forward", "bnxt", "6.18", "6.19", "tx_cpu=1"},
		{"tcp-stream", "mlx5", "5.15", "6.1", ""},
		{"clone-tap", "mlx5", "6.6", "6.8", ""},
	}
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s/%s/%s-%s", r.scenario, r.driver, r.eraA, r.eraB), func(t *testing.T) {
			a, _ := Preset(PresetTeaching, r.scenario)
			a.Driver, a.Era, a.Packets = r.driver, r.eraA, 4000
			if r.set != "" {
				a.Knobs = a.Knobs.Merge(sim.MustOverrides(r.set))
			}
			b := a
			b.Era = r.eraB
			c, err := Compare(a, b)
			if err != nil {
				t.Skipf("does not build: %v", err)
			}
			want := steppedDivergence(t, a, b)
			got := int64(0)
			if c.Div != nil {
				got = c.Div.Packet
			}
			if got != want {
				t.Errorf("the comparison diverges at packet %d, stepped runs at %d", got, want)
			}
		})
	}
}

// steppedDivergence steps both runs with records and returns the first
// packet whose windows' counters or violations differ (0: none).
func steppedDivergence(t *testing.T, a, b Config) int64 {
	var win [2][]PacketDecisions
	for i, cfg := range []Config{a, b} {
		l := mustNew(t, cfg)
		l.EnableSeek()
		l.Record(true)
		var cur PacketDecisions
		lostAt := l.lost
		for {
			released := l.window().released
			if !l.Step() && l.ops == 0 {
				break
			}
			rec, _ := l.StepRecord()
			cur.Released += l.window().released - released
			for s := range cur.Stats {
				cur.Stats[s] += rec.Stats[s] - rec.StatsBefore[s]
			}
			for k := range cur.Violations {
				cur.Violations[k] += rec.NewViolations[k]
			}
			if rec.PacketDone {
				cur.Lost, lostAt = l.lost-lostAt, l.lost
				win[i] = append(win[i], cur)
				cur = PacketDecisions{}
			}
			if l.packets >= cfg.Packets || l.done {
				break
			}
		}
	}
	for p := 0; p < min(len(win[0]), len(win[1])); p++ {
		if win[0][p] != win[1][p] {
			return int64(p + 1)
		}
	}
	return 0
}

// TestCompare_EveryAdjacentEraDivergenceIsExplained: for every driver,
// every scenario it runs and every two eras next to each other, at the
// driver's own sizes, a divergence of the two runs is decided by one
// tagged change (an Era flag with its commit, a driver's era field) or a
// pair of them: the model's behaviour between two eras is what its era
// entries say changed, nothing else. (-short: a rotating sample.)
func TestCompare_EveryAdjacentEraDivergenceIsExplained(t *testing.T) {
	type row struct {
		driver, scenario string
		a, b             string
	}
	var rows []row
	for _, sc := range Scenarios {
		var drvs []string
		if sc.NeedsDriver {
			drvs = sc.Drivers
		} else {
			drvs = []string{""}
		}
		for _, d := range drvs {
			for i := 1; i < len(sim.Eras); i++ {
				rows = append(rows, row{d, sc.Name, sim.Eras[i-1].Name, sim.Eras[i].Name})
			}
		}
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	diverged := 0
	for i := int(time.Now().Unix()/86400) % step; i < len(rows); i += step {
		r := rows[i]
		a, _ := Preset(PresetKernel, r.scenario)
		a.Driver, a.Era, a.Packets = r.driver, r.a, 5000
		b := a
		b.Era = r.b
		if a.Validate() != nil || b.Validate() != nil {
			continue
		}
		c, err := Compare(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if c.Div == nil {
			continue
		}
		diverged++
		if !c.Div.Explained {
			t.Errorf("%s %s %s→%s: packet %d: no change nor pair of changes decides it (%+v)", r.driver, r.scenario, r.a, r.b, c.Div.Packet, c.Div.Changes)
		}
		if c.Div.First[0] == nil && c.Div.First[1] == nil {
			t.Errorf("%s %s %s→%s: packet %d: the windows differ but no decision does", r.driver, r.scenario, r.a, r.b, c.Div.Packet)
		}
	}
	if diverged == 0 {
		t.Error("no two adjacent eras diverged")
	}
}
