package session

import (
	"fmt"

	"pplab/engine/lab"
)

// Markers: the operations the engine marked (lab.Marker: a slow-path
// allocation, cache_full, ring_full, released_refcnt, a violation, the
// destroy's retries, …) as the timeline shows them, and the actions that
// go to them. The list is the engine's, bounded (lab.MarkersPerKind per
// kind) and a pure function of the config and the furthest op the run
// reached, so a step back keeps every marker ahead of it.

// MarkerView is one marker on the scrubber.
type MarkerView struct {
	Op    uint64  // the scrubber's value that shows it: the state after the marked operation
	Kind  string  // lab.MarkerKind's name (a CSS class)
	Label string  // what happened, for a reader
	PFN   int32   // a violation's page (-1: none)
	Pct   float64 // where it sits on the scrubber (0–100)
	Here  bool    // the operation shown is this marker's
}

// markerCache keeps the markers' labels between views: the engine's list
// only grows (a marker is inserted, never removed or changed), so its
// length says whether the labels are still the list's. A step then only
// places the markers (the scrubber's range grows with the run).
type markerCache struct {
	lab    *lab.Lab
	n      int
	labels []string
}

// markers is the timeline's markers for a scrubber whose range is 0..max.
func (s *Session) markers(max uint64) []MarkerView {
	ms := s.lab.Markers()
	if len(ms) == 0 {
		return nil
	}
	c := &s.mk
	if c.lab != s.lab || c.n != len(ms) {
		c.lab, c.n, c.labels = s.lab, len(ms), make([]string, len(ms))
		for i, m := range ms {
			c.labels[i] = fmt.Sprintf("op %d: %s", m.Op+1, m.Label())
		}
	}
	out := make([]MarkerView, 0, len(ms))
	for i, m := range ms {
		op := m.Op + 1
		pct := 100.0
		if max > 0 {
			pct = min(100, 100*float64(op)/float64(max))
		}
		out = append(out, MarkerView{Op: op, Kind: m.Kind.String(), Label: c.labels[i], PFN: m.PFN, Pct: pct, Here: op == s.snap.Op})
	}
	return out
}

// GoMarker shows the marker at scrubber value op (the marked operation
// narrated, its page selected and brought into view for a violation).
func (s *Session) GoMarker(op uint64, pfn int32) {
	s.playing = false
	s.lab.Seek(op)
	if op == 0 {
		s.hasRec, s.rec = false, lab.StepRecord{}
	}
	if pfn >= 0 {
		s.selected, s.scroll = pfn, true
	}
	s.refresh(false)
}

// NextMarker goes to the first marker after the operation shown; it
// reports whether there was one.
func (s *Session) NextMarker() bool {
	for _, m := range s.lab.Markers() {
		if m.Op+1 > s.snap.Op {
			s.GoMarker(m.Op+1, m.PFN)
			return true
		}
	}
	s.noMarker("after")
	return false
}

// PrevMarker goes to the last marker before the operation shown; it
// reports whether there was one.
func (s *Session) PrevMarker() bool {
	ms := s.lab.Markers()
	for i := len(ms) - 1; i >= 0; i-- {
		if m := ms[i]; m.Op+1 < s.snap.Op {
			s.GoMarker(m.Op+1, m.PFN)
			return true
		}
	}
	s.noMarker("before")
	return false
}

// noMarker: a next/previous with nothing there pauses play and says so
// once (pressed again, the banner does not grow).
func (s *Session) noMarker(where string) {
	s.playing = false
	msg := fmt.Sprintf("no marker %s op %d", where, s.snap.Op)
	if where == "after" {
		msg += fmt.Sprintf(" as far as the run went (op %d): step or play on to find more", s.lab.MarkersFrontier())
	}
	if n := len(s.banner); n > 0 && s.banner[n-1].Text == msg {
		return
	}
	s.Notify("notice", msg)
}
