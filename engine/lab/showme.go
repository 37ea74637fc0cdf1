package lab

import (
	"fmt"
	"slices"

	"pplab/engine/sim"
)

// DemoFor is the entry of RuleDemos that shows rule (the rule it names
// last), or false for a name no demo shows.
func DemoFor(rule string) (RuleDemo, bool) {
	for _, d := range RuleDemos {
		if d.Rules[len(d.Rules)-1] == rule {
			return d, true
		}
	}
	return RuleDemo{}, false
}

// Shown is the rule a demo shows (its last rule).
func (d RuleDemo) Shown() string { return d.Rules[len(d.Rules)-1] }

// Cleared is the rules a demo breaks only to clear the shown rule's way.
func (d RuleDemo) Cleared() []string { return slices.Clone(d.Rules[:len(d.Rules)-1]) }

// ShowMe is where breaking a rule shows its failure first: the demo's
// config (at the playground's teaching sizes when the failure shows there
// within showMeTeachingOps operations, else at the kernel's) and the first
// violation of the demo's kind the broken rule caused.
type ShowMe struct {
	Demo   RuleDemo
	Config Config
	First  ViolationView // Seek(First.Op) shows it
}

// The searches' bounds, in operations: a failure the teaching sizes show
// shows early (the latest, bulk-map-error's, at op 1104); pfmemalloc's
// reserve pages never run out at 2048 pages per node, so its search goes
// on at the kernel's sizes, where every demo fails within a few hundred.
const (
	showMeTeachingOps = 2048
	showMeKernelOps   = 20000
)

// RuleShowMe runs the rule's demo to its first violation (fully checked,
// as the playground steps, so First.Op is where stepping finds it). An
// unknown rule, or a demo that shows nothing within its bounds, is an
// error naming it.
func RuleShowMe(rule string) (ShowMe, error) {
	d, ok := DemoFor(rule)
	if !ok {
		if _, err := sim.RuleByName(rule); err != nil {
			return ShowMe{}, err
		}
		return ShowMe{}, fmt.Errorf("rule %s has no demo in RuleDemos", rule)
	}
	cfg := d.Config()
	if t, err := cfg.With("preset", PresetTeaching); err == nil {
		if v, ok, err := firstViolation(t, rule, d.Kind, showMeTeachingOps); err != nil {
			return ShowMe{}, err
		} else if ok {
			return ShowMe{Demo: d, Config: t, First: v}, nil
		}
	}
	v, ok, err := firstViolation(cfg, rule, d.Kind, showMeKernelOps)
	if err != nil {
		return ShowMe{}, err
	}
	if !ok {
		return ShowMe{}, fmt.Errorf("rule %s: its demo (%s %s %s) found no %s within %d operations", rule, d.Driver, d.Scenario, d.Era, d.Kind, showMeKernelOps)
	}
	return ShowMe{Demo: d, Config: cfg, First: v}, nil
}

// firstViolation runs cfg seekable (every operation checked fully: the
// log's At is stepping's) until the log lists a violation of kind that
// rule caused, or limit operations.
func firstViolation(cfg Config, rule string, kind sim.Kind, limit uint64) (ViolationView, bool, error) {
	l, err := New(cfg)
	if err != nil {
		return ViolationView{}, false, err
	}
	l.EnableSeek()
	seen := func() bool { return l.m.Log.Counts[kind] > 0 }
	for l.ops < limit && !l.done && !seen() {
		l.RunWhile(int64(min(64, limit-l.ops)), func() bool { return !seen() })
	}
	list := make([]ViolationView, 0, len(l.m.Log.List))
	for _, v := range l.m.Log.List {
		list = append(list, violationView(v))
	}
	v, ok := FirstOf(list, rule, kind.String())
	return v, ok, nil
}

// FirstOf is the first violation in list of kind (any kind when "") that
// rule caused (the log names the broken rule that would have prevented
// each); false when there is none.
func FirstOf(list []ViolationView, rule, kind string) (ViolationView, bool) {
	for _, v := range list {
		if v.Rule == rule && (kind == "" || v.Kind == kind) {
			return v, true
		}
	}
	return ViolationView{}, false
}
