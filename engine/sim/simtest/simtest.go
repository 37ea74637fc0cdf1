// Package simtest holds the test helpers every engine layer's tests share:
// building knobs and broken rules from options, and asserting on the
// violation log.
package simtest

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// Options turns test options into knobs (defaults, with node_pages=1024 so
// full checks stay cheap) and broken rules: "knob=value" sets a knob,
// "break=rule" breaks a rule. Unknown words are returned for the caller.
func Options(t testing.TB, opts ...string) (k sim.Knobs, rules sim.RuleSet, rest []string) {
	t.Helper()
	k = sim.DefaultKnobs()
	k[sim.KnobNodePages] = 1024
	for _, o := range opts {
		if name, ok := strings.CutPrefix(o, "break="); ok {
			r, err := sim.RuleByName(name)
			if err != nil {
				t.Fatal(err)
			}
			rules = rules.With(r)
			continue
		}
		if !strings.Contains(o, "=") {
			rest = append(rest, o)
			continue
		}
		if err := k.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	return k, rules, rest
}

// Machine builds a machine for a driver's tests: the named era and
// platform, and the knobs and broken rules of opts (Options). Unknown
// words are returned for the caller.
func Machine(t testing.TB, era, platform string, opts ...string) (*sim.Machine, []string) {
	t.Helper()
	e, err := sim.EraByName(era)
	if err != nil {
		t.Fatal(err)
	}
	plat, err := sim.PlatformByName(platform)
	if err != nil {
		t.Fatal(err)
	}
	k, rules, rest := Options(t, opts...)
	return sim.NewMachine(sim.Config{Era: e, Rules: rules, Knobs: k, Platform: plat}), rest
}

// Break returns opts plus "break=rule" when broken.
func Break(broken bool, rule string, opts ...string) []string {
	if broken {
		return append(opts, "break="+rule)
	}
	return opts
}

// Clean runs the full invariant check and fails on any violation.
func Clean(t testing.TB, m *sim.Machine) {
	t.Helper()
	m.CheckInvariants()
	if n := m.Log.Total(); n != 0 {
		for _, v := range m.Log.List {
			t.Log(v)
		}
		t.Fatalf("%d violations, want none", n)
	}
}

// Verdict checks a broken-rule test: with the rule broken a violation of kind
// was recorded and attributed to a rule; intact, none at all.
func Verdict(t testing.TB, m *sim.Machine, broken bool, kind sim.Kind) {
	t.Helper()
	if !broken {
		Clean(t, m)
		return
	}
	m.CheckInvariants()
	if m.Log.Counts[kind] == 0 {
		t.Fatalf("rule broken but no %s violation; log: %v", kind, m.Log.List)
	}
	for _, v := range m.Log.List {
		if v.Kind == kind {
			t.Log(v)
			if v.Rule == sim.RuleNone {
				t.Errorf("violation not attributed to the broken rule: %v", v)
			}
			return
		}
	}
}

// WantStats compares the named counters of got.
func WantStats(t testing.TB, got *sim.Stats, want map[sim.Stat]uint64) {
	t.Helper()
	for s, w := range want {
		if got[s] != w {
			t.Errorf("%s = %d, want %d", s, got[s], w)
		}
	}
}

// EraWith is a copy of the named era with change applied: a rule of a
// later release tested on an era the model has, before the release's own
// era is in the table.
func EraWith(t testing.TB, name string, change func(e *sim.Era)) *sim.Era {
	t.Helper()
	e, err := sim.EraByName(name)
	if err != nil {
		t.Fatal(err)
	}
	c := *e
	change(&c)
	return &c
}
