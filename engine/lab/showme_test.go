package lab

import (
	"slices"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// TestRuleShowMe_EveryRule: every breakable rule has a demo; its show-me
// config is valid, breaks the rule, and its first violation is of the
// demo's kind — one of the rule's own kinds — caused by the rule, at the
// operation where stepping the config finds it (the log at First.Op lists
// it, the log one operation before does not).
func TestRuleShowMe_EveryRule(t *testing.T) {
	for _, r := range sim.AllRules() {
		t.Run(r.String(), func(t *testing.T) {
			info := r.Info()
			d, ok := DemoFor(info.Name)
			if !ok {
				t.Fatalf("no demo in RuleDemos shows %s", info.Name)
			}
			if d.Shown() != info.Name {
				t.Fatalf("DemoFor(%s) shows %s", info.Name, d.Shown())
			}
			if !slices.Contains(info.Kinds, d.Kind) {
				t.Errorf("the demo's kind %s is not among the rule's kinds %v", d.Kind, info.Kinds)
			}
			sm, err := RuleShowMe(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			if err := sm.Config.Validate(); err != nil {
				t.Fatalf("show-me config: %v", err)
			}
			if !slices.Contains(sm.Config.Break, info.Name) {
				t.Errorf("show-me config breaks %v, not %s", sm.Config.Break, info.Name)
			}
			if sm.First.Kind != d.Kind.String() || sm.First.Rule != info.Name {
				t.Errorf("first violation %+v: want %s caused by %s", sm.First, d.Kind, info.Name)
			}
			if sm.First.Op == 0 {
				t.Fatalf("first violation at op 0: %+v", sm.First)
			}
			at, err := ReplayTo(sm.Config, sm.First.Op)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := FirstOf(at.Snapshot().ViolationList, info.Name, sm.First.Kind); !ok {
				t.Errorf("the log at op %d does not list the first %s", sm.First.Op, sm.First.Kind)
			}
			before, _ := ReplayTo(sm.Config, sm.First.Op-1)
			if v, ok := FirstOf(before.Snapshot().ViolationList, info.Name, sm.First.Kind); ok {
				t.Errorf("the log already lists a %s at op %d: %+v", sm.First.Kind, sm.First.Op-1, v)
			}
			// The demo at teaching sizes when they show the failure.
			if PresetOf(sm.Config) != PresetTeaching && info.Name != "pfmemalloc-check" {
				t.Errorf("show-me at kernel sizes (%s): the teaching sizes show nothing within %d operations", sm.Config.Values().Encode(), showMeTeachingOps)
			}
		})
	}
	if _, err := RuleShowMe("no-such-rule"); err == nil || !strings.Contains(err.Error(), "no-such-rule") {
		t.Errorf("an unknown rule: %v", err)
	}
}

// TestRuleInfo_EnforcerAndIntact: every rule names the function whose test
// it is, with a link into the kernel release of its demo's era, and says
// what that test does when the rule holds.
func TestRuleInfo_EnforcerAndIntact(t *testing.T) {
	for _, r := range sim.AllRules() {
		info := r.Info()
		if info.Enforcer == sim.SymNone || info.Enforcer >= sim.NumSyms {
			t.Errorf("%s: no enforcing function", info.Name)
			continue
		}
		if len(info.Intact) < 40 || strings.HasSuffix(info.Intact, ".") {
			t.Errorf("%s: Intact %q: want a sentence, without its full stop (the UI joins it)", info.Name, info.Intact)
		}
		d, _ := DemoFor(info.Name)
		src := Source(d.Era, "", info.Enforcer)
		if !strings.HasPrefix(src.URL, "https://elixir.bootlin.com/linux/") {
			t.Errorf("%s: %s in %s links %q", info.Name, src.Name, d.Era, src.URL)
		}
	}
}
