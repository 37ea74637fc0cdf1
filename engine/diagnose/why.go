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

// WhyMatches bounds the matches a Why names. A ratio matches when the
// run's value and the paste's differ by at most WhyAbs, or by at most
// WhyRel of the larger — of the two values, or, nearer 1, of what they
// leave to 1 (recycling % as a share): 0.0154 against 0.0156 matches,
// 0.0154 against 0.0124 does not; recycling 99.95 % against 96.23 % does
// not (0.05 % of the pages not back against 3.77 %), nor 100.00 % against
// 93.14 %, nor against 152.96 %. WhyTolerance says it in words.
const (
	WhyMatches = 3
	WhyRel     = 0.05
	WhyAbs     = 0.001
)

// WhyTolerance is the match's tolerance in words, as the report and the
// page state it.
const WhyTolerance = "a ratio matches when the run's value and the paste's differ by at most 0.001 (0.1 points of recycling %), or by at most 5 % of the larger — near 1, of the larger remainder to 1: recycling 99.95 % and 96.23 % leave 0.05 % and 3.77 % of the pages, which do not match"

// whyDiff is how far apart a and b are (on unit's scale) in tolerances:
// at most 1 is a match.
func whyDiff(a, b float64) float64 {
	near := min(max(a, b), max(1-a, 1-b)) // the larger value, or the larger remainder to 1
	return math.Abs(a-b) / max(WhyAbs, WhyRel*near)
}

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
		d    float64 // in tolerances: at most 1 matches
		most float64 // how far apart, to pick the one it differs on most
	}
	var all []cmp
	for _, r := range run.Ratios {
		v, ok := theirs[r.Name]
		if !ok {
			continue // the run has no such ratio (its denominator is 0)
		}
		a, b := unit(r.Name, r.Value), unit(r.Name, v)
		// The one it differs on most: on the distance's square-root
		// scale, each ratio taken at most 1 (a share past 1 differs no
		// more than 1 does).
		most := math.Abs(math.Sqrt(min(a, 1)) - math.Sqrt(min(b, 1)))
		all = append(all, cmp{RatioCmp{r.Name, r.Value, v}, whyDiff(a, b), most})
	}
	w := &Why{}
	var matches []cmp
	most := 0.0
	for _, x := range all {
		if x.d <= 1 {
			matches = append(matches, x)
		} else if x.most > most || w.Differs == nil {
			d := x.RatioCmp
			w.Differs, most = &d, x.most
		}
	}
	sort.SliceStable(matches, func(i, j int) bool {
		return min(max(unit(matches[i].Name, matches[i].Paste), unit(matches[i].Name, matches[i].Run)), 1) > min(max(unit(matches[j].Name, matches[j].Paste), unit(matches[j].Name, matches[j].Run)), 1)
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

// unit is a ratio on the scale the comparison uses: recycling % as a
// share (not clamped: a run above 100 % differs from a paste at 100 %).
func unit(name string, v float64) float64 {
	if name == "recycling %" {
		v /= 100
	}
	return max(v, 0)
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
