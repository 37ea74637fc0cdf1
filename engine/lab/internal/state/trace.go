package state

import (
	"fmt"
	"strings"

	"pplab/engine/mm"
)

// FirstDifference explains why a fast-forward finds no cycle in a run: it
// advances the run three times by spacing operations (run), walks root's
// graph after each with its words labelled by field, and names the first
// field (in walk order) whose shape words grow at every sample — a counter
// without its pp:"counter" tag — or, if none grows, the first whose words
// differ. pages returns the run's page array at each sample. For tests and
// diagnostics.
func FirstDifference(s *Schema, root any, pages func() []mm.Page, run func(n int64), spacing int64) string {
	type sample struct {
		order []string
		words map[string][]uint64
	}
	take := func() sample {
		w := &Walk{trace: true}
		w.Full(s, root, pages())
		smp := sample{words: map[string][]uint64{}}
		seen := map[string]int{}
		for i, m := range w.marks {
			end := len(w.Shape)
			if i+1 < len(w.marks) {
				end = w.marks[i+1].at
			}
			if end == m.at {
				continue
			}
			key := fmt.Sprintf("%s#%d", m.name, seen[m.name])
			seen[m.name]++
			smp.order = append(smp.order, key)
			smp.words[key] = append([]uint64(nil), w.Shape[m.at:end]...)
		}
		return smp
	}
	var ss [3]sample
	for i := range ss {
		run(spacing)
		ss[i] = take()
	}
	field := func(key string) string { return key[:strings.LastIndexByte(key, '#')] }
	first := ""
	for _, key := range ss[0].order {
		a, b, c := ss[0].words[key], ss[1].words[key], ss[2].words[key]
		if len(a) != len(b) || len(b) != len(c) {
			continue
		}
		for i := range a {
			switch {
			case a[i] < b[i] && b[i] < c[i] && b[i]-a[i] == c[i]-b[i]:
				return fmt.Sprintf("%s grows by %d every %d operations (%d → %d → %d): the walk reads it as shape, so no two states are equal; if it only accumulates, tag it pp:\"counter\" (pp:\"time\" if the run compares it with the clocks)",
					field(key), b[i]-a[i], spacing, a[i], b[i], c[i])
			case first == "" && (a[i] != b[i] || b[i] != c[i]):
				first = fmt.Sprintf("%s differs between samples %d operations apart (%d, %d, %d): shape that does not repeat at that spacing", field(key), spacing, a[i], b[i], c[i])
			}
		}
	}
	if first == "" {
		return fmt.Sprintf("no field differs between samples %d operations apart", spacing)
	}
	return first
}
