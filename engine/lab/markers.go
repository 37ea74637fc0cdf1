package lab

import (
	"fmt"
	"slices"

	"pplab/engine/sim"
)

// Markers: the operations of a run where something a reader should look
// at happened — a slow-path allocation, a page refused by a full alloc
// cache or a full ptr_ring, a page released because someone else still
// held it, a failed allocation, a frame the NIC missed, a violation, and
// page_pool_destroy's deferred release (each retry, the stalled-shutdown
// warning, the pool finally freed). They are found as the run advances,
// after each operation, from what the operation changed (the counters,
// the violation log, the pools' destroy state): no events are needed, so
// batch runs find them too, and a run's markers are a pure function of its
// config and how far it went (the furthest operation reached), whatever
// mix of Step, batch runs, Seek and fast-forward skips got there. Each kind
// keeps its first MarkersPerKind operations.

// MarkerKind is what a marker marks.
type MarkerKind uint8

const (
	MarkSlow      MarkerKind = iota // alloc_slow or alloc_slow_high_order went up
	MarkCacheFull                   // recycle_cache_full
	MarkRingFull                    // recycle_ring_full
	MarkReleased                    // recycle_released_refcnt
	MarkAllocFail                   // page_pool_alloc_pages returned NULL
	MarkMissed                      // the NIC found no posted RX buffer (rx_missed_errors)
	MarkViolation                   // the checker logged a violation
	MarkRetry                       // page_pool_release_retry ran (destroy with pages in flight)
	MarkStalled                     // page_pool_release_retry warned: stalled pool shutdown
	MarkFreed                       // the destroyed pool finally went away
	NumMarkerKinds
)

// MarkersPerKind bounds the markers kept per kind: the first ones.
const MarkersPerKind = 8

var markerNames = [NumMarkerKinds]string{"slow", "cache_full", "ring_full", "released_refcnt", "alloc_fail", "rx_missed", "violation", "retry", "stalled", "freed"}

// String is the kind's short name (a CSS class, a test's key).
func (k MarkerKind) String() string {
	if k >= NumMarkerKinds {
		return fmt.Sprintf("marker(%d)", k)
	}
	return markerNames[k]
}

// statKind: the kinds a counter delta finds (what a fast-forward skip can
// repeat: the others block the fast-forward).
func (k MarkerKind) statKind() bool { return k <= MarkMissed }

// Marker is one marked operation.
type Marker struct {
	Op   uint64 // the operation's index (OpInfo.Index): Seek(Op+1) shows it narrated
	Kind MarkerKind
	N    int64 // how much: the counter's increase in the operation (1 for a violation or a retry)
	// A violation's page and kind ("" and -1 for the other kinds).
	PFN       int32
	Violation string
}

// Label says what happened at the marker, for a reader.
func (m Marker) Label() string {
	switch m.Kind {
	case MarkSlow:
		return fmt.Sprintf("slow-path allocation (alloc_slow +%d)", m.N)
	case MarkCacheFull:
		return fmt.Sprintf("alloc cache full: page to the ptr_ring (recycle_cache_full +%d)", m.N)
	case MarkRingFull:
		return fmt.Sprintf("ptr_ring full: page released (recycle_ring_full +%d)", m.N)
	case MarkReleased:
		return fmt.Sprintf("page still referenced: released, not recycled (recycle_released_refcnt +%d)", m.N)
	case MarkAllocFail:
		return fmt.Sprintf("page_pool_alloc_pages returned NULL (%d)", m.N)
	case MarkMissed:
		return fmt.Sprintf("no RX buffer posted: frame dropped (rx_missed_errors +%d)", m.N)
	case MarkViolation:
		return fmt.Sprintf("violation: %s on pfn %#x", m.Violation, m.PFN)
	case MarkRetry:
		return "page_pool_release_retry: pages still in flight"
	case MarkStalled:
		return "page_pool_release_retry warns: stalled pool shutdown"
	case MarkFreed:
		return "the destroyed pool is freed (inflight 0)"
	}
	return m.Kind.String()
}

// markerVals is what the tracker compares across an operation: per kind
// the value whose rise marks it (vals, indexed by MarkerKind; the
// violation kind's is the log's length).
type markerVals struct {
	vals [NumMarkerKinds]int64
	sum  int64 // of vals: every value only grows, so an equal sum is equal values (markerSum)
}

// markerTrack finds the markers as the run advances (an observer: copies
// and restores leave it with the watcher, seek.go's observers).
type markerTrack struct {
	on bool
	// frontier: every operation before it has been looked at (the
	// furthest the run went); base holds the values after operation
	// frontier-1, valid while the run stands at the frontier.
	frontier uint64
	base     markerVals
	list     []Marker // ascending by Op, then Kind
	count    [NumMarkerKinds]int
	limit    int  // markers kept per kind (MarkersPerKind; tests raise it)
	sat      bool // statsSaturated, kept by add: the counters need not be read
	// skipAdded counts the markers found in skipped cycles (tests).
	skipAdded int
}

// EnableMarkers makes the Lab find markers from now on (from op 0 when
// called before the first operation, as a UI does).
func (l *Lab) EnableMarkers() {
	if l.mk.on {
		return
	}
	l.mk = markerTrack{on: true, frontier: l.ops, limit: MarkersPerKind}
	l.mk.base = l.markerVals(true)
}

// Markers returns the markers found so far (up to MarkersFrontier),
// ascending by operation. The slice is the Lab's: read it, do not keep it
// across a step.
func (l *Lab) Markers() []Marker { return l.mk.list }

// MarkersFrontier is the operation count up to which markers were looked
// for (the furthest the run went since EnableMarkers).
func (l *Lab) MarkersFrontier() uint64 { return l.mk.frontier }

// statsSaturated: every counter kind has its markers (the counters need
// not be read any more).
func (t *markerTrack) statsSaturated() bool {
	for k := MarkerKind(0); k < NumMarkerKinds; k++ {
		if k.statKind() && t.count[k] < t.limit {
			return false
		}
	}
	return true
}

func (l *Lab) markerVals(withStats bool) markerVals {
	var v markerVals
	for _, p := range l.reg.Pools() {
		if withStats {
			v.vals[MarkSlow] += int64(p.Counter(sim.StatAllocSlow) + p.Counter(sim.StatAllocSlowHighOrder))
			v.vals[MarkCacheFull] += int64(p.Counter(sim.StatRecycleCacheFull))
			v.vals[MarkRingFull] += int64(p.Counter(sim.StatRecycleRingFull))
			v.vals[MarkReleased] += int64(p.Counter(sim.StatRecycleReleasedRefcnt))
			v.vals[MarkAllocFail] += p.AllocFailures()
		}
		v.vals[MarkRetry] += int64(p.DestroyCnt())
		v.vals[MarkStalled] += int64(p.Warnings)
		if p.Freed() {
			v.vals[MarkFreed]++
		}
	}
	if withStats && l.drv != nil {
		v.vals[MarkMissed] = l.drv.Missed
	}
	v.vals[MarkViolation] = int64(len(l.m.Log.List))
	for _, x := range v.vals {
		v.sum += x
	}
	return v
}

// markerSum is markerVals(withStats).sum without the values: the check
// every operation makes (in the browser the values' copy and comparison
// cost a third of a drop run's speed; most operations change none).
func (l *Lab) markerSum(withStats bool) int64 {
	s := int64(len(l.m.Log.List))
	for _, p := range l.reg.Pools() {
		if withStats {
			s += int64(p.Counter(sim.StatAllocSlow)+p.Counter(sim.StatAllocSlowHighOrder)+p.Counter(sim.StatRecycleCacheFull)+
				p.Counter(sim.StatRecycleRingFull)+p.Counter(sim.StatRecycleReleasedRefcnt)) + p.AllocFailures()
		}
		s += int64(p.DestroyCnt()) + int64(p.Warnings)
		if p.Freed() {
			s++
		}
	}
	if withStats && l.drv != nil {
		s += l.drv.Missed
	}
	return s
}

// markerObserve runs after every operation's checks (opChecked).
func (l *Lab) markerObserve() {
	t := &l.mk
	n := l.ops
	switch {
	case n < t.frontier: // a replay of what was seen
		return
	case n == t.frontier: // a replay reached the frontier: the base to compare with
		t.base = l.markerVals(!t.sat)
		return
	case n > t.frontier+1: // cannot happen (skips come through markerSkipped): look on from here
		t.frontier = n
		t.base = l.markerVals(!t.sat)
		return
	}
	if l.markerSum(!t.sat) == t.base.sum {
		t.frontier = n // most operations: nothing to mark
		return
	}
	cur := l.markerVals(!t.sat)
	b := t.base
	t.base, t.frontier = cur, n
	if cur == b {
		return // most operations: nothing to mark
	}
	op := n - 1
	for k := MarkerKind(0); k < NumMarkerKinds; k++ {
		d := cur.vals[k] - b.vals[k]
		switch {
		case d <= 0:
		case k == MarkViolation:
			for _, v := range l.m.Log.List[b.vals[k]:cur.vals[k]] {
				at := op
				if v.At > 0 && v.At <= n {
					at = v.At - 1
				}
				t.add(Marker{Op: at, Kind: MarkViolation, N: 1, PFN: v.Page, Violation: v.Kind.String()})
			}
		case k == MarkRetry && b.vals[k] == 0: // page_pool_destroy's own release, not a retry
		default:
			t.add(Marker{Op: op, Kind: k, N: d})
		}
	}
}

// add keeps m when its count is positive and its kind has room.
func (t *markerTrack) add(m Marker) {
	if m.N <= 0 || t.count[m.Kind] >= t.limit {
		return
	}
	if m.Kind != MarkViolation {
		m.PFN = -1
	}
	t.count[m.Kind]++
	if m.Kind.statKind() {
		t.sat = t.statsSaturated()
	}
	i, _ := slices.BinarySearchFunc(t.list, m, func(a, b Marker) int {
		if a.Op != b.Op {
			if a.Op < b.Op {
				return -1
			}
			return 1
		}
		if a.Kind <= b.Kind { // after the equal ones: insertion order within a kind
			return -1
		}
		return 1
	})
	t.list = slices.Insert(t.list, i, m)
}

// markerSkipped: a fast-forward skip just added ops operations' worth of
// whole cycles of period P. The cycle repeats exactly, so the operations it
// skipped did what the last cycle's did P, 2P, … operations earlier: a
// counter kind that still has room gets those markers, as a straight run
// would have found them. (The other kinds keep the fast-forward off: a
// broken rule, a logged violation, destroy.)
func (l *Lab) markerSkipped(ops, period uint64) {
	t := &l.mk
	end := l.ops
	start := end - ops
	if end < t.frontier {
		return
	}
	if end > t.frontier && period > 0 && !t.sat {
		var cycle []Marker
		for _, m := range t.list {
			if m.Kind.statKind() && m.Op+period >= start && m.Op < start {
				cycle = append(cycle, m)
			}
		}
		for j := uint64(1); len(cycle) > 0 && start-period+j*period < end; j++ {
			for _, m := range cycle {
				if at := m.Op + j*period; at >= t.frontier && at < end {
					m.Op = at
					t.skipAdded++
					t.add(m)
				}
			}
			if t.sat {
				break
			}
		}
	}
	t.frontier = max(t.frontier, end)
	t.base = l.markerVals(!t.sat)
}

// markerAttached: a copy or restore is done (seek.go's attach); a run
// restored at the frontier compares with what it holds now.
func (l *Lab) markerAttached() {
	if l.mk.on && l.ops == l.mk.frontier {
		l.mk.base = l.markerVals(!l.mk.sat)
	}
}
