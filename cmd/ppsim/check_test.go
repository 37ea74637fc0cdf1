package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheck: ppsim check prints the era's commands (the field names, the
// netlink view and the counters follow the era) and --list every target.
func TestCheck(t *testing.T) {
	code, out, errOut := ppsim("check", "destroy", "--era", "6.18")
	if code != 0 || errOut != "" || !strings.Contains(out, "args->netmem") || !strings.Contains(out, "page-pool-get") || !strings.Contains(out, "stalled pool shutdown: id") {
		t.Errorf("check destroy --era 6.18: exit %d, stderr %q\n%s", code, errOut, out)
	}
	_, out, _ = ppsim("check", "--era", "5.13", "destroy")
	if !strings.Contains(out, "args->page") || strings.Contains(out, "page-pool-get") || !strings.Contains(out, "pfn=%lu") || !strings.Contains(out, "stalled pool shutdown -?") {
		t.Errorf("check destroy --era 5.13:\n%s", out)
	}
	_, out, _ = ppsim("check", "rx_pp_alloc_fast", "--era", "6.1")
	if !strings.Contains(out, "ethtool -S") || strings.Contains(out, "[ynl]") {
		t.Errorf("check rx_pp_alloc_fast --era 6.1:\n%s", out)
	}
	_, out, _ = ppsim("check", "frags-readable", "--era", "6.8")
	if !strings.Contains(out, "no memory providers") {
		t.Errorf("check frags-readable --era 6.8:\n%s", out)
	}
	code, out, _ = ppsim("check", "--list", "--json")
	var l map[string][]string
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l["rules"]) != 13 || len(l["counters"]) != 11 || len(l["stories"]) != 1 {
		t.Errorf("check --list --json: exit %d\n%s", code, out)
	}
}
