package session

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/lab"
)

// The browser suite (e2e/, make e2e) proves the page's wiring with one or
// two representatives of each matrix a user could walk; the tests here are
// the matrices' native floor, complete, on the session whose View the page
// renders.

// violationsAt is the violation count the page shows (#violation-total).
func violationsAt(s *Session) int { return s.View().Violations.Total }

// pastFirstViolation steps cfg natively, as → does, to 40 operations past
// its first violation (nil: none within 20000 operations).
func pastFirstViolation(t *testing.T, cfg lab.Config) *lab.Lab {
	t.Helper()
	if cfg.Validate() != nil {
		return nil
	}
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.Record(true)
	var at uint64
	for i := 0; i < 20000 && l.Step(); i++ {
		if at == 0 && l.Snapshot().ViolationList != nil {
			at = l.Ops()
		}
		if at > 0 && l.Ops() >= at+40 {
			return l
		}
	}
	if at > 0 || l.Snapshot().ViolationList != nil {
		return l // a violation on the run's last operation (destroy's last release retry)
	}
	return nil
}

// TestViolations_EveryRuleDemoShowsTheSameCountOnEveryPath: for every
// breakable rule, in the configuration where breaking it shows its failure
// (lab.RuleDemos; at the teaching sizes when it shows there), 40
// operations past its first violation, the violation count the page shows
// is the one stepping the engine natively finds, whichever way the session
// got there: a link opened at that step, a step back and forward (← →),
// the scrubber half-way back and forward again. The browser keeps one demo
// (e2e TestPlayground_ALinkWithABrokenRuleReproducesItsViolations); the
// engine's log on every path is engine/lab TestViolationLog_SameOnEveryPath.
func TestViolations_EveryRuleDemoShowsTheSameCountOnEveryPath(t *testing.T) {
	for _, d := range lab.RuleDemos {
		name := strings.Join(d.Rules, "+")
		t.Run(name+"/"+d.Scenario+"/"+d.Era, func(t *testing.T) {
			cfg := teaching(t, d.Config())
			l := pastFirstViolation(t, cfg)
			if l == nil {
				cfg = d.Config()
				l = pastFirstViolation(t, cfg)
			}
			if l == nil {
				t.Fatalf("no violation within 20000 steps")
			}
			want := 0
			for _, n := range l.Snapshot().Violations {
				want += n
			}
			op := l.Ops()
			q := cfg.Values()
			q.Set("step", strconv.FormatUint(op, 10))
			s := New(q, nil)
			check := func(how string) {
				t.Helper()
				if got := s.Lab().Ops(); got != op {
					t.Fatalf("%s: the session is at op %d, want %d", how, got, op)
				}
				if got := violationsAt(s); got != want {
					t.Errorf("at op %d (%s): %d violations shown, stepping natively found %d", op, how, got, want)
				}
			}
			check("opened the link")
			s.Back()
			if s.Lab().Ops() != op-1 {
				t.Fatalf("← went to op %d", s.Lab().Ops())
			}
			s.Step()
			check("← then →")
			s.Seek(op / 2)
			s.Seek(op)
			check("scrubbed back and forth")
		})
	}
}

// TestExport_TheBuiltCLIPrintsTheExportedJSON: at a run's end the JSON
// export is byte for byte what the built `ppsim` prints for the command
// line the page shows (CLIArgs) — a driver with its own driver_stats, and
// a rule broken (every operation checked in the page; the counts of the
// CLI's own check schedule). The browser keeps the download of the first
// (e2e TestExport_JSONIsWhatPpsimPrints); TestExport_JSONIsTheCLIs checks
// more configurations against the CLI's run loop.
func TestExport_TheBuiltCLIPrintsTheExportedJSON(t *testing.T) {
	bin := ppsimCLI(t)
	for _, q := range []string{
		"v=1&scenario=tcp-stream&driver=mlx5&era=6.1&rx_descs=16&pool_size=32&packets=3000",
		"v=1&scenario=clone-tap&rx_descs=16&pool_size=32&break=last-dataref&packets=2000",
	} {
		s := New(query(t, q), nil)
		s.Seek(1 << 40) // to the end
		if !s.Lab().Done() {
			t.Fatalf("%s: not at the end: op %d", q, s.Lab().Ops())
		}
		args := s.CLIArgs()
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("ppsim %s: %v", strings.Join(args, " "), err)
		}
		if got := s.ResultsJSON(); got != string(out) {
			t.Errorf("%s: the export differs from `ppsim %s`:\n got %s\nwant %s", q, strings.Join(args, " "), got, out)
		}
		if strings.Contains(q, "break=") && !strings.Contains(strings.Join(args, " "), "--break last-dataref") {
			t.Errorf("the command line %q does not break the rule", args)
		}
	}
}

// TestYNLView_ProviderPoolsEndWithTheirAttribute: in devmem-rx the ynl
// view's page-pool-get of the memory-provider pool ends with the
// provider's attribute: 6.12's dmabuf binding id, 6.15's empty io-uring
// nest. The browser keeps the io-uring one (e2e
// TestEras_TheNewErasInThePlayground).
func TestYNLView_ProviderPoolsEndWithTheirAttribute(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"era=6.12", "'dmabuf': 1"},
		{"era=6.15&provider=1", "'io-uring': {}"},
	} {
		s := New(query(t, "v=1&scenario=devmem-rx&step=60&rx_descs=16&pool_size=32&node_pages=2048&"+tc.q), nil)
		s.OpenTable(TableYNL, true)
		if got := s.View().YNL.PoolGet; !strings.Contains(got, tc.want) {
			t.Errorf("devmem-rx %s: page-pool-get %q lacks %q", tc.q, got, tc.want)
		}
	}
}
