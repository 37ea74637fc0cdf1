package session

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// TestRuleCards_EveryRule: the rules view lists every breakable rule, each
// with its demo (the engine's table), the kernel function whose test it is
// linked in the demo's era and in every release, what the rule does when
// it holds, and its show-me query.
func TestRuleCards_EveryRule(t *testing.T) {
	cards := RuleCards()
	var names []string
	for _, c := range cards {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, sim.RuleNames()) {
		t.Fatalf("cards %v, rules %v", names, sim.RuleNames())
	}
	for _, c := range cards {
		d, ok := lab.DemoFor(c.Name)
		switch {
		case !ok || !c.HasDemo:
			t.Errorf("%s: no demo", c.Name)
		case c.Demo.Scenario != d.Scenario || c.Demo.Driver != d.Driver || c.Demo.Era != d.Era || c.Demo.Kind != d.Kind.String():
			t.Errorf("%s: demo %+v is not the engine's %+v", c.Name, c.Demo, d)
		}
		if !slices.Contains(c.Kinds, c.Demo.Kind) {
			t.Errorf("%s: the demo's %s is not among the rule's kinds %v", c.Name, c.Demo.Kind, c.Kinds)
		}
		if c.Prevents == "" || c.Intact == "" {
			t.Errorf("%s: prevents %q, intact %q", c.Name, c.Prevents, c.Intact)
		}
		if !strings.HasPrefix(c.Enforcer.URL, "https://elixir.bootlin.com/linux/") || c.EnforcerEra != d.Era {
			t.Errorf("%s: enforcer %+v in %s", c.Name, c.Enforcer, c.EnforcerEra)
		}
		n := 0
		for _, r := range c.Releases {
			n += len(r.Eras)
		}
		if n != len(sim.Eras) {
			t.Errorf("%s: %d releases listed, %d eras", c.Name, n, len(sim.Eras))
		}
		if c.ShowMe != "show="+c.Name {
			t.Errorf("%s: show-me %q", c.Name, c.ShowMe)
		}
		if len(c.DecidesIn) == 0 {
			t.Errorf("%s: decides nowhere", c.Name)
		}
	}
}

// TestShow_EveryRuleReachesItsViolation: the show-me query of every rule
// opens its demo with the rule broken at its first violation — of the
// demo's kind, caused by the rule — the page marked (selected: a tile, or
// the page just freed), the narration saying what went wrong and what the
// rule would have done; the state's link reopens the same.
func TestShow_EveryRuleReachesItsViolation(t *testing.T) {
	for _, r := range sim.RuleNames() {
		t.Run(r, func(t *testing.T) {
			q, _ := url.ParseQuery(ShowQuery(r))
			s := New(q, nil)
			v := s.View()
			sv := v.Show
			d, _ := lab.DemoFor(r)
			if sv.Rule != r || sv.Err != "" || !sv.Found || !sv.At || !sv.Broken {
				t.Fatalf("show %s: %+v", r, sv)
			}
			if sv.V.Kind != d.Kind.String() || sv.V.Rule != r {
				t.Errorf("first violation %+v: want %s caused by %s", sv.V, d.Kind, r)
			}
			if got := s.Lab().Ops(); got != sv.V.Op {
				t.Errorf("the run is at op %d, the violation at %d", got, sv.V.Op)
			}
			if sv.PFN < 0 || v.Machine.Selected != sv.PFN || !v.Machine.Scroll {
				t.Errorf("marked pfn %d, selected %d (scroll %v); %s", sv.PFN, v.Machine.Selected, v.Machine.Scroll, sv.TileNote)
			}
			if _, drawn := v.Machine.Snap.Page(sv.PFN); drawn == sv.Free || v.Machine.SelectedFree != sv.Free {
				t.Errorf("pfn %d drawn %v, free %v, machine's SelectedFree %v", sv.PFN, drawn, sv.Free, v.Machine.SelectedFree)
			}
			if sv.V.PFN < 0 && sv.TileNote == "" {
				t.Errorf("a pool-level violation's marked page says nothing of why")
			}
			if !strings.Contains(sv.Wrong, sv.V.Kind) || !strings.Contains(sv.Wrong, strconv.FormatUint(sv.V.Op, 10)) {
				t.Errorf("what went wrong: %q", sv.Wrong)
			}
			if sv.Intact == "" || sv.Enforcer.Name == "" {
				t.Errorf("intact %q, enforcer %+v", sv.Intact, sv.Enforcer)
			}
			link := s.Query()
			if link.Get("show") != r || link.Get("step") != strconv.FormatUint(sv.V.Op, 10) {
				t.Errorf("link %s", link.Encode())
			}
			again := New(link, nil).View()
			if again.Show.V != sv.V || again.Machine.Selected != sv.PFN || !again.Show.At {
				t.Errorf("the link reopens %+v selected %d, want %+v selected %d", again.Show.V, again.Machine.Selected, sv.V, sv.PFN)
			}
			if len(again.Banner) != 0 {
				t.Errorf("banner: %v", again.Banner)
			}
		})
	}
}

// TestShow_CloseJumpAndBadRule: closing the panel, jumping back to the
// violation after stepping on, a rule that does not exist in the URL.
func TestShow_CloseJumpAndBadRule(t *testing.T) {
	s := New(url.Values{"show": {"refcnt-check"}}, nil)
	at := s.Lab().Ops()
	s.Step()
	s.Step()
	if sv := s.View().Show; sv.At || !sv.Reached {
		t.Errorf("two steps on: at %v, reached %v", sv.At, sv.Reached)
	}
	s.ShowJump()
	if s.Lab().Ops() != at || s.View().Machine.Selected != s.View().Show.PFN {
		t.Errorf("jump: op %d (want %d)", s.Lab().Ops(), at)
	}
	s.Show("")
	if v := s.View(); v.Show.Rule != "" || s.Query().Has("show") {
		t.Errorf("closed: %+v %s", v.Show, s.Query().Encode())
	}
	bad := New(url.Values{"show": {"no-such-rule"}}, nil)
	if v := bad.View(); v.Show.Rule != "" || len(v.Banner) != 1 || !strings.Contains(v.Banner[0].Text, "no-such-rule") {
		t.Errorf("a bad rule: show %+v, banner %v", v.Show, v.Banner)
	}
	// The rule intact again (its checkbox): the panel says no violation.
	s = New(url.Values{"show": {"frag-count"}}, nil)
	s.Set("break", "frag-count")
	if sv := s.View().Show; sv.Broken || sv.Found || sv.Rule != "frag-count" {
		t.Errorf("rule intact: %+v", sv)
	}
}

// TestControls_ReachLinksTheDemo: beside a rule the chosen scenario never
// reaches, the controls link the scenario where it does (its demo); a rule
// that decides here has no link.
func TestControls_ReachLinksTheDemo(t *testing.T) {
	s := New(nil, nil) // drop on its default driver
	rows := map[string]RuleRow{}
	for _, r := range s.View().Controls.Rules {
		rows[r.Name] = r
	}
	for _, tc := range []struct{ rule, where string }{
		{"napi-locality", "forward on mlx5 in 6.4 with tx_cpu=1"},
		{"last-dataref", "clone-tap on bnxt in 6.1"},
		{"coalesce-cloned-guard", "tcp-stream on hns3 in 5.15 with tap_every=2, gro=0, read_ns=2000"},
	} {
		r := rows[tc.rule]
		if !strings.Contains(r.Reach, "never decides anything in drop") || r.ShowMe != "show="+tc.rule || r.ShowWhere != tc.where {
			t.Errorf("%s: reach %q, show-me %q where %q (want %q)", tc.rule, r.Reach, r.ShowMe, r.ShowWhere, tc.where)
		}
	}
	s.Set("scenario", "clone-tap")
	for _, r := range s.View().Controls.Rules {
		if r.Name == "last-dataref" && (r.Reach != "" || r.ShowMe != "") {
			t.Errorf("clone-tap reaches last-dataref: %+v", r)
		}
	}
}
