package diagnose

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/sim"
)

// Why a candidate shape is where it is in the ranking, in the paste's own
// ratios: the ones the shape's first run matches (its value at the
// paste's length beside the paste's) and the one it differs on most. The
// distance is over counter shares; the ratios say the same in the terms
// the report shows (cached share, refill per alloc, …).

// RatioCmp is one ratio of the paste and the run's value of it.
type RatioCmp struct {
	Name  string  `json:"name"`
	Paste float64 `json:"paste"`
	Run   float64 `json:"run"`
}

// Why is the ratios a shape matches (at most WhyMatches, the telling ones
// first: those not 0 on both sides) and MoreMatches the others it matches;
// Differs, the ratio it differs on most (nil: none differs by more than
// WhyTolerance).
type Why struct {
	Matches     []RatioCmp `json:"matches,omitempty"`
	MoreMatches int        `json:"more_matches,omitempty"`
	Differs     *RatioCmp  `json:"differs,omitempty"`
}

// WhyMatches bounds the matches a Why names; WhyTolerance is the largest
// difference of a match, on the square-root scale of the distance (a
// ratio, or recycling % / 100, each taken at most 1): 0.0009 against 0
// matches (0.03), 0.01 against 0.03 does not (0.07).
const (
	WhyMatches   = 3
	WhyTolerance = 0.05
)

// why compares the paste's ratios (run's) with the same ratios of a
// model run's counters c at the paste's length; nil when the paste has no
// ratio.
func why(run *Run, c Counts, absentZero bool) *Why {
	if len(run.Ratios) == 0 {
		return nil
	}
	rc := Counters{V: c.PP, Has: run.c.Has, Wrapped: run.c.Wrapped, FastHasRefill: run.c.FastHasRefill, Cache: c.Cache, HasCache: run.c.HasCache}
	if rc.FastHasRefill {
		rc.V[sim.StatAllocFast] += rc.V[sim.StatAllocRefill]
		rc.V[sim.StatAllocRefill] = 0
	}
	theirs := map[string]float64{}
	for _, r := range ratios(rc, absentZero) {
		theirs[r.Name] = r.Value
	}
	type cmp struct {
		RatioCmp
		d float64
	}
	var all []cmp
	for _, r := range run.Ratios {
		v, ok := theirs[r.Name]
		if !ok {
			continue // the run has no such ratio (its denominator is 0)
		}
		all = append(all, cmp{RatioCmp{r.Name, r.Value, v}, math.Abs(math.Sqrt(unit(r.Name, r.Value)) - math.Sqrt(unit(r.Name, v)))})
	}
	w := &Why{}
	var matches []cmp
	most := 0.0
	for _, x := range all {
		if x.d <= WhyTolerance {
			matches = append(matches, x)
		} else if x.d > most {
			d := x.RatioCmp
			w.Differs, most = &d, x.d
		}
	}
	sort.SliceStable(matches, func(i, j int) bool {
		return max(unit(matches[i].Name, matches[i].Paste), unit(matches[i].Name, matches[i].Run)) > max(unit(matches[j].Name, matches[j].Paste), unit(matches[j].Name, matches[j].Run))
	})
	for i, x := range matches {
		if i == WhyMatches {
			w.MoreMatches = len(matches) - i
			break
		}
		w.Matches = append(w.Matches, x.RatioCmp)
	}
	return w
}

// unit is a ratio on the scale 0..1 the comparison uses: recycling % as
// a share, every ratio at most 1.
func unit(name string, v float64) float64 {
	if name == "recycling %" {
		v /= 100
	}
	return min(max(v, 0), 1)
}

// ratioValue prints a ratio's value as the report does.
func ratioValue(name string, v float64) string {
	if name == "recycling %" {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// String is the explanation in one line: "matches: cached share 0.9974
// (run 0.9981), refill per alloc 0.0009 (run 0.0010) and 4 more; differs
// most: slow per alloc 0.0000 vs 0.0310".
func (w *Why) String() string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	if len(w.Matches) == 0 {
		b.WriteString("matches no ratio")
	} else {
		b.WriteString("matches: ")
		for i, m := range w.Matches {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s (run %s)", m.Name, ratioValue(m.Name, m.Paste), ratioValue(m.Name, m.Run))
		}
		if w.MoreMatches > 0 {
			fmt.Fprintf(&b, " and %d more", w.MoreMatches)
		}
	}
	if d := w.Differs; d != nil {
		fmt.Fprintf(&b, "; differs most: %s %s vs %s", d.Name, ratioValue(d.Name, d.Paste), ratioValue(d.Name, d.Run))
	} else {
		b.WriteString("; differs on none")
	}
	return b.String()
}
