package replay

import (
	"fmt"
	"sort"
	"strings"
)

// Shape is what a capture of one pool shows, independent of timing and
// of the pages' numbers: how its pages came (runs of holds: bulk refills),
// how many there were at most, whether they all came back, and how its
// destroy went.
type Shape struct {
	Created       bool // the capture begins at the pool's first hold
	Holds         int
	Releases      int
	Runs          string // hold runs by length: "64×5"
	AllBulk       bool   // every run of holds is a whole bulk refill (64 pages)
	PeakInflight  int64
	DestroyChecks int   // page_pool_release events
	FinalInflight int64 // what the last one printed (or hold − release at the end)
}

// BulkRefill is PP_ALLOC_CACHE_REFILL: the pages one bulk refill holds.
const BulkRefill = 64

// Busiest is the pool with the most holds (nil if none).
func (r *Replay) Busiest() *Pool {
	var best *Pool
	for _, p := range r.Pools {
		if best == nil || p.Holds > best.Holds {
			best = p
		}
	}
	return best
}

// ShapeOf is the shape of pool p over the whole capture.
func (r *Replay) ShapeOf(p *Pool) Shape {
	s := Shape{Created: p.FromCreation, Holds: p.Holds, Releases: p.Releases, PeakInflight: p.MaxInflight, DestroyChecks: 0, AllBulk: len(p.HoldRuns) > 0}
	var lens []int
	for n := range p.HoldRuns {
		lens = append(lens, n)
		if n%BulkRefill != 0 {
			s.AllBulk = false
		}
	}
	sort.Ints(lens)
	var parts []string
	for _, n := range lens {
		parts = append(parts, fmt.Sprintf("%d×%d", n, p.HoldRuns[n]))
	}
	s.Runs = strings.Join(parts, " ")
	// the final state: replayed to the end
	at := r.At()
	if !r.streaming {
		r.Seek(len(r.Trace.Events))
	}
	s.DestroyChecks, s.FinalInflight = p.DestroyChecks, p.Inflight
	if p.DestroyChecks > 0 {
		s.FinalInflight = p.DestroyInflight
	}
	if !r.streaming {
		r.Seek(at)
	}
	return s
}

// ShapeRow is one line of a comparison: a property, each side's value,
// and whether they agree.
type ShapeRow struct {
	What           string
	Capture, Model string
	Compared       bool // false: shown only
	Agree          bool
}

// CompareShapes compares a capture's shape with the model's, property by
// property. Counts are shown, not compared (they move with TCP's timing
// from one capture to the next: 320 to 1216 holds for 4 MiB on the same
// machine); what must agree is the shape.
func CompareShapes(capture, model Shape) []ShapeRow {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	returned := func(s Shape) bool { return s.DestroyChecks > 0 && s.FinalInflight == 0 }
	beyond := func(s Shape) bool { return s.PeakInflight > 256 }
	return []ShapeRow{
		{"the capture starts at the pool's creation (hold=1)", yes(capture.Created), yes(model.Created), true, capture.Created == model.Created},
		{"pages came in whole bulk refills (runs of holds, 64 each)", fmt.Sprintf("%s (%s)", yes(capture.AllBulk), capture.Runs), fmt.Sprintf("%s (%s)", yes(model.AllBulk), model.Runs), true, capture.AllBulk == model.AllBulk},
		{"more pages out at once than the ptr_ring holds (256)", fmt.Sprintf("%s (peak %d)", yes(beyond(capture)), capture.PeakInflight), fmt.Sprintf("%s (peak %d)", yes(beyond(model)), model.PeakInflight), true, beyond(capture) == beyond(model)},
		{"destroyed in the capture, every page back (inflight=0 at the end)", fmt.Sprintf("%s (checks %d, inflight %d)", yes(returned(capture)), capture.DestroyChecks, capture.FinalInflight), fmt.Sprintf("%s (checks %d, inflight %d)", yes(returned(model)), model.DestroyChecks, model.FinalInflight), true, returned(capture) == returned(model)},
		{"holds / releases (shown, not compared: TCP's timing)", fmt.Sprintf("%d / %d", capture.Holds, capture.Releases), fmt.Sprintf("%d / %d", model.Holds, model.Releases), false, false},
	}
}

// FormatShapes prints a comparison as a table.
func FormatShapes(rows []ShapeRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-66s %-27s %-27s %s\n", "", "capture", "model", "")
	for _, r := range rows {
		mark := "agrees"
		switch {
		case !r.Compared:
			mark = "—"
		case !r.Agree:
			mark = "DIFFERS"
		}
		fmt.Fprintf(&b, "%-66s %-27s %-27s %s\n", r.What, r.Capture, r.Model, mark)
	}
	return b.String()
}
