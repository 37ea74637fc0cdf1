package diagnose

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/lab"
)

// ethtoolBlock is the "NIC statistics:" block of a run's table, as
// `ppsim run` prints it.
func ethtoolBlock(t *testing.T, r lab.Results) string {
	t.Helper()
	var b bytes.Buffer
	r.WriteTable(&b)
	out := b.String()
	i := strings.Index(out, "NIC statistics:")
	if i < 0 {
		t.Fatalf("no NIC statistics block in:\n%s", out)
	}
	block, _, _ := strings.Cut(out[i:], "\n\n")
	return block + "\n"
}

// TestSelfDiagnosis: for every driver scenario, on its default driver and
// era, pasting its own ethtool -S block (as the run's table prints it:
// mlx5's per-ring lines and the drivers' notes included) names that
// scenario among the nearest three. The run is the sweep's length: the
// match checks the round trip from the table through the parser to the
// sweep, and that runs of the same shape are named together (at other
// lengths many driver scenarios share drop's shape — alloc_fast ≈
// recycle_ring, one refill per 64 — and differ only by their warm-up).
func TestSelfDiagnosis(t *testing.T) {
	packets := int64(SweepPackets)
	for _, sc := range lab.List().Scenarios {
		if !sc.NeedsDriver {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			l, err := lab.New(lab.Config{Scenario: sc.Name, Packets: packets})
			if err != nil {
				t.Fatal(err)
			}
			l.Run()
			block := ethtoolBlock(t, l.Results())
			rep, err := Diagnose(block, Options{})
			if err != nil {
				t.Fatalf("%v\n%s", err, block)
			}
			if g := rep.Paste.Grey(); len(g) > 0 {
				t.Errorf("grey lines in the run's own block: %v", g)
			}
			var got []string
			for _, m := range rep.Runs[0].Nearest {
				var names []string
				for _, r := range m.Runs {
					names = append(names, r.Scenario+"/"+r.Driver+"@"+strings.Join(r.Eras, ","))
				}
				got = append(got, strconv.FormatFloat(m.Distance, 'f', 4, 64)+" "+strings.Join(names, " "))
			}
			if !slices.ContainsFunc(rep.Runs[0].Nearest, func(m Match) bool { return m.Has(sc.Name) }) {
				t.Errorf("%s (driver %s): not among the nearest three: %v\n%s", sc.Name, sc.DefaultDriver, got, block)
			} else {
				t.Logf("%s: %v", sc.Name, got)
			}
		})
	}
}
