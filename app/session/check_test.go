package session

import (
	"strings"
	"testing"
)

// TestCheck_FollowsTheEra: the rules panel's and the statistics panel's
// "check on your kernel" follow the run's era.
func TestCheck_FollowsTheEra(t *testing.T) {
	a, b := RuleCheck("refcnt-check", "6.8"), RuleCheck("refcnt-check", "6.18")
	if len(a.Commands) == 0 || !strings.Contains(a.Commands[0].Text, "args->pfn") || a.Commands[0].Text == b.Commands[0].Text || b.Tag != "v6.18" {
		t.Errorf("refcnt-check: 6.8 %+v\n6.18 %+v", a, b)
	}
	s := New(nil, nil)
	v := s.View()
	if v.Stats.Check.Era != cfgEra(s.cfg) || len(v.Stats.Check.Commands) == 0 {
		t.Errorf("stats check: %+v (era %s)", v.Stats.Check, cfgEra(s.cfg))
	}
	if c := CountersCheck("5.13"); len(c.Commands) != 1 || c.Commands[0].Kind != "bpftrace" {
		t.Errorf("counters in 5.13 (no stats): %+v", c)
	}
	if RuleCheck("warp", "6.8").Target != "" || RuleCheck("refcnt-check", "3.0").Target != "" {
		t.Error("an unknown rule or era has a check")
	}
}
