package lab

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// unwrapLink is what a reader of a wrapped link does (RFC 3986 appendix
// C): the text between < and > with its whitespace removed, or the line.
func unwrapLink(text string) string {
	i := strings.LastIndex(text, "<")
	j := strings.LastIndex(text, ">")
	if i < 0 || j < i {
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		return lines[len(lines)-1]
	}
	return strings.Join(strings.Fields(text[i+1:j]), "")
}

func checkWidth(t *testing.T, name, text string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if n := len([]rune(line)); n > TextWidth {
			t.Errorf("%s: line %d is %d columns: %q", name, i+1, n, line)
		}
	}
}

// TestCompareText_72ColumnsWithTheCommitAndTheLink: the netdev text of the
// issue's comparisons keeps to 72 columns, names the divergence's packet,
// the commit that decides it and the build, and its wrapped link reads
// back whole.
func TestCompareText_72ColumnsWithTheCommitAndTheLink(t *testing.T) {
	for _, tc := range []struct{ scenario, set, eraA, eraB, commit, packet string }{
		{"xdp-redirect", "redirect_to=1", "6.9", "6.10", "4a96a4e807c3", "packet 65"},
		{"forward", "tx_cpu=1", "6.18", "6.19", "e20dfbad8aab", "packet 65"},
	} {
		a := Config{Scenario: tc.scenario, Driver: "mlx5", Era: tc.eraA, Knobs: sim.MustOverrides(tc.set), Packets: 3000}
		b := a
		b.Era = tc.eraB
		c, err := Compare(a, b)
		if err != nil {
			t.Fatal(err)
		}
		link := "https://pplab.example.org/some/long/prefix/?" + CompareValues(a, b).Encode()
		text := CompareText(c, link)
		checkWidth(t, tc.scenario, text)
		for _, want := range []string{tc.commit, tc.packet, BuildID(), "rx_pp_recycle_cached", "Decided by:"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the text has no %q:\n%s", tc.scenario, want, text)
			}
		}
		if got := unwrapLink(text); got != link {
			t.Errorf("%s: the link reads back as %q, want %q", tc.scenario, got, link)
		}
	}
}

// TestRunText_72Columns: a run's text, with knobs and rules and a long
// link, keeps to 72 columns and gives every counter.
func TestRunText_72Columns(t *testing.T) {
	d := RuleDemos[0]
	cfg := d.Config()
	cfg.Packets = 2000
	l := mustNew(t, cfg)
	l.Run()
	link := "https://example.org/?" + cfg.Values().Encode() + "&" + strings.Repeat("x", 100)
	text := RunText(cfg, l.Results(), link)
	checkWidth(t, "run", text)
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		if !strings.Contains(text, s.Ethtool()) {
			t.Errorf("no %s in\n%s", s.Ethtool(), text)
		}
	}
	if got := unwrapLink(text); got != link {
		t.Errorf("the link reads back as %q", got)
	}
}
