package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// TestDiagnose_CLI: ppsim diagnose reads a paste from --file or stdin and
// prints the diagnosis, as text or JSON; a model run's own ethtool -S block
// finds that run.
func TestDiagnose_CLI(t *testing.T) {
	t.Parallel() // its sweep of model runs (one goroutine) runs beside TestGolden's workers
	code, out, errOut := ppsim("run", "--scenario", "pfmemalloc", "--packets", "20000")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	i := strings.Index(out, "NIC statistics:")
	block, _, _ := strings.Cut(out[i:], "\n\n")
	file := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(file, []byte("> "+strings.ReplaceAll(block, "\n", "\n> ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	last := sim.Eras[len(sim.Eras)-1].Name // the sweep's last era (diagnose.Swept)
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"file, text", []string{"diagnose", "--file", file}, "", []string{"format: ethtool -S (generic rx_pp_* names, mail-quoted)", "released_refcnt share", "pfmemalloc on mvpp2, era 6.1, 6.4, 6.6, 6.8, 6.12, 6.18, " + last + "  /?era=" + last + "&packets=20000&scenario=pfmemalloc&sizes=kernel&v=2", "next: recycle_released_refcnt is 0.10 %"}},
		{"stdin by default", []string{"diagnose"}, block, []string{"format: ethtool -S", "pfmemalloc on mvpp2"}},
		{"stdin as -", []string{"diagnose", "--file", "-", "--interval", "2s"}, block, []string{"format: ethtool -S"}},
		{"json", []string{"diagnose", "--file", file, "--json"}, "", []string{`"format":"ethtool -S"`, `"scenario":"pfmemalloc"`, `"distance":0.0053`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin = strings.NewReader(tc.stdin)
			defer func() { stdin = os.Stdin }()
			code, out, errOut := ppsim(tc.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.name == "json" {
				var v map[string]any
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Errorf("not JSON: %v", err)
				}
			}
		})
	}
}

// TestRun_JSONHasYNL: run --json carries the run's pools as ynl shows them.
func TestRun_JSONHasYNL(t *testing.T) {
	code, out, errOut := ppsim("run", "--scenario", "xdp-redirect", "--packets", "2000", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v struct {
		YNL struct {
			Pools   []map[string]any `json:"page-pool-get"`
			Stats   []map[string]any `json:"page-pool-stats-get"`
			Ynltool []map[string]any `json:"ynltool-page-pool-stats"`
		} `json:"ynl"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.YNL.Pools) != 1 || v.YNL.Pools[0]["napi-id"] == nil || len(v.YNL.Stats) != 1 || v.YNL.Stats[0]["recycle-cached"] != 2000.0 || v.YNL.Ynltool[0]["ifname"] != "eth0" {
		t.Errorf("ynl %+v", v.YNL)
	}
}
