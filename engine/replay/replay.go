package replay

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Pool is one page_pool of a capture, known by its pointer.
type Pool struct {
	Ptr   string // as printed, normalised
	Index int    // 1-based, in order of first appearance
	// Again is 0 for the first pool at Ptr, n for the n-th later one: a
	// freed pool's memory reused by a new pool (the kernel does reuse
	// them), seen as a hold after its destroy finished or a hold=1.
	Again     int
	FirstLine int
	// NidChanges counts page_pool_update_nid events; Nid is the last new_nid.
	NidChanges int
	Nid        int32
	// Holds and Releases count this capture's page_pool_state_hold /
	// _release events of the pool.
	Holds, Releases int
	// HoldCnt and ReleaseCnt are the pool's running pages_state_hold_cnt and
	// pages_state_release_cnt as the last event printed them; a counter not
	// printed yet counts as 0 (ReleaseSeen false: the capture shows no
	// release before this point — if it started after the pool's first
	// release, inflight is overstated until one is seen).
	HoldCnt, ReleaseCnt uint32
	ReleaseSeen         bool
	// FromCreation: the capture holds the pool's first page (hold=1).
	FromCreation bool
	// Inflight = HoldCnt − ReleaseCnt (u32 arithmetic, as
	// page_pool_inflight computes it), or page_pool_release's own inflight.
	Inflight, MaxInflight int64
	Owned                 int // pages this capture saw held and not released
	// DestroyLine is the line of the pool's first page_pool_release (its
	// destroy began: page_pool_destroy → page_pool_release), 0 if none;
	// DestroyChecks counts page_pool_release events (each retry is one);
	// DestroyInflight is the inflight the last one printed.
	DestroyLine, DestroyChecks int
	DestroyInflight            int64
	Series                     []Point // inflight over time (thinned to at most maxSeries points)
	// HoldRuns counts the pool's runs of consecutive holds by length: a
	// bulk refill (alloc_pages_bulk) holds 64 pages in one run, a single
	// page allocation one.
	HoldRuns     map[int]int
	stride, skip int
	pending      Point // the highest point of the current stride's events
	run          int   // the current run of holds
	lastHold     bool  // the pool's previous event was a hold
}

// Point is the pool's inflight after an event: T is the event's time in
// µs, or its index in the trace when the capture has no timestamps.
type Point struct {
	T        float64 `json:"t"`
	Inflight int64   `json:"inflight"`
}

// Finding is something the capture shows a kernel rule broken, or events
// lost.
type Finding struct {
	Line int    `json:"line"`
	Kind string `json:"kind"` // freed-while-owned, held-while-owned, release-not-owned, release-by-other-pool, lost-events, destroy-stalled
	Pool int    `json:"pool"` // pool index, 0 if none
	PFN  uint64 `json:"pfn"`
	Text string `json:"text"`
}

// Replay is a capture replayed: the pools, who owns which page at step At
// (events applied), and what the whole capture shows.
type Replay struct {
	Trace    *Trace
	Pools    []*Pool
	Findings []Finding
	// HeldBefore counts releases of pages held before the capture began
	// (not a finding: the capture started after their hold).
	HeldBefore int
	Timed      bool // every event has a timestamp (Point.T is µs)

	poolIdx map[string]int   // pointer → the index of its latest pool
	poolOf  []int32          // event → its pool's index (0: none)
	owner   map[uint64]int32 // pfn → owning pool index
	since   map[uint64]int   // pfn → line of the hold
	undo    []undo           // nil: not steppable (Stream)
	before  []heldBefore     // pages the capture shows released, never held
	at      int
	// streaming: Stream applies each event as it is read and keeps none
	// (Trace.Events stays empty; the first event decides Timed).
	streaming bool
	lastT     float64
}

// undo is what an event changed: the page's owner and its pool's counters
// before it.
type undo struct {
	pool              int32
	prevOwner         int32
	prevHold, prevRel uint32
	prevInflight      int64
	prevOwned         int32
	prevRelSeen       bool
	prevDestroyChecks int32
	prevDestroyInflt  int64
	prevSince         int
	touchedPage       bool
}

const maxSeries = 4000

// New replays the whole trace once (pools, findings, series, the final
// state) and leaves the state at its end; Seek then steps it both ways.
func New(t *Trace) *Replay { return newReplay(t, true) }

func newReplay(t *Trace, steppable bool) *Replay {
	r := &Replay{Trace: t, poolIdx: map[string]int{}, owner: map[uint64]int32{}, since: map[uint64]int{}, poolOf: make([]int32, len(t.Events))}
	if steppable {
		r.undo = make([]undo, len(t.Events))
	}
	r.Timed = len(t.Events) > 0
	for i := range t.Events {
		if t.Events[i].TimeUS < 0 {
			r.Timed = false
			break
		}
	}
	for r.at < len(t.Events) {
		r.apply(true)
	}
	r.finish()
	if steppable && len(r.before) > 0 {
		r.rewind()
	}
	return r
}

// heldBefore is a page a pool released in the capture without the
// capture's having seen it held: held before the capture began.
type heldBefore struct {
	pfn  uint64
	pool int32
}

// rewind replays the capture a second time from a first step at which the
// pages held before it are their pools' (since line 0), so that stepping
// shows them owned until their release. The first pass's whole-capture
// figures (counts, series, findings) stay.
func (r *Replay) rewind() {
	r.owner, r.since = map[uint64]int32{}, map[uint64]int{}
	for _, p := range r.Pools {
		p.HoldCnt, p.ReleaseCnt, p.ReleaseSeen, p.Inflight, p.Owned = 0, 0, false, 0, 0
		p.DestroyChecks, p.DestroyInflight, p.Nid = 0, 0, 0
	}
	for _, b := range r.before {
		if r.owner[b.pfn] == 0 {
			r.owner[b.pfn], r.since[b.pfn] = b.pool, 0
			r.Pools[b.pool-1].Owned++
		}
	}
	r.at = 0
	for r.at < len(r.Trace.Events) {
		r.apply(false)
	}
}

// Stream reads a capture of at most maxLines lines and replays each event
// as it is read, keeping none: the summary, findings and series of a
// capture too large to hold (ppsim replay), in memory that grows with the
// pools and pages, not the lines. It cannot Seek.
func Stream(in io.Reader, maxLines int) (*Replay, error) {
	r := &Replay{poolIdx: map[string]int{}, owner: map[uint64]int32{}, since: map[uint64]int{}, streaming: true}
	t, err := parse(in, maxLines, func(e *Event) { r.applyEvent(e, true) })
	if err != nil {
		return nil, err
	}
	r.Trace = t
	r.finish()
	return r, nil
}

// Events is the number of events replayed (Trace.Events holds them unless
// the replay streamed them).
func (r *Replay) Events() int {
	if r.streaming {
		return r.at
	}
	return len(r.Trace.Events)
}

// finish closes the load's pass: the last runs of holds and series
// points, the destroys still waiting, the findings in line order.
func (r *Replay) finish() {
	for _, l := range r.Trace.Lost {
		r.Findings = append(r.Findings, Finding{Line: l.Line, Kind: "lost-events",
			Text: fmt.Sprintf("the trace buffer dropped %s here ([LOST %d EVENTS]): pages held or released then are missing from the replay (a larger buffer_size_kb, or fewer events enabled)", Plural(l.Events, "event"), l.Events)})
	}
	for _, p := range r.Pools {
		if p.run > 0 {
			p.HoldRuns[p.run]++
		}
		if p.pending.T >= 0 && p.skip > 0 {
			p.Series = append(p.Series, p.pending)
		}
		if p.DestroyLine > 0 && p.DestroyInflight > 0 {
			r.Findings = append(r.Findings, Finding{Line: p.DestroyLine, Kind: "destroy-stalled", Pool: p.Index,
				Text: fmt.Sprintf("pool %s: destroyed at line %d and still waiting at the end of the capture: the last page_pool_release printed inflight=%d after %s (page_pool_release_retry retries every second and warns after 60 s)", p.Name(), p.DestroyLine, p.DestroyInflight, Plural(p.DestroyChecks, "check"))})
		}
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Line < r.Findings[j].Line })
}

// Name is how the replay names a pool: #index and its pointer.
func (p *Pool) Name() string {
	if p.Again > 0 {
		return fmt.Sprintf("#%d (%s, reused)", p.Index, p.Ptr)
	}
	return fmt.Sprintf("#%d (%s)", p.Index, p.Ptr)
}

// PoolOf is the pool of event i (nil for an mm_page_free).
func (r *Replay) PoolOf(i int) *Pool {
	if pi := r.poolOf[i]; pi > 0 {
		return r.Pools[pi-1]
	}
	return nil
}

// poolFor is the pool of e on the load's pass: the pointer's latest pool,
// or a new one for a pointer first seen, or for one whose pool was freed
// (its destroy printed inflight=0) or that starts again at hold=1.
func (r *Replay) poolFor(e *Event) int32 {
	pi, ok := r.poolIdx[e.Pool]
	again := 0
	if ok {
		p := r.Pools[pi-1]
		freed := p.DestroyChecks > 0 && p.DestroyInflight == 0 && e.Kind != PoolRelease
		restart := e.Kind == Hold && e.Hold == 1 && p.Holds > 0
		if !freed && !restart {
			return int32(pi)
		}
		again = p.Again + 1
	}
	p := &Pool{Ptr: e.Pool, Index: len(r.Pools) + 1, Again: again, FirstLine: e.Line, stride: 1, HoldRuns: map[int]int{}, pending: Point{T: -1}}
	r.Pools = append(r.Pools, p)
	r.poolIdx[e.Pool] = p.Index
	return int32(p.Index)
}

// At is the number of events applied.
func (r *Replay) At() int { return r.at }

// Seek applies or undoes events until n are applied.
func (r *Replay) Seek(n int) {
	if n < 0 {
		n = 0
	}
	if r.streaming {
		panic("replay: Seek on a streamed replay (use New to step)")
	}
	if n > len(r.Trace.Events) {
		n = len(r.Trace.Events)
	}
	for r.at < n {
		r.apply(false)
	}
	for r.at > n {
		r.unapply()
	}
}

// Owner is the index of the pool owning pfn at the current step, 0 if none.
func (r *Replay) Owner(pfn uint64) int { return int(r.owner[pfn]) }

// OwnedPages lists the pages owned at the current step, by pool then pfn.
func (r *Replay) OwnedPages() []OwnedPage {
	out := make([]OwnedPage, 0, len(r.owner))
	for pfn, p := range r.owner {
		out = append(out, OwnedPage{PFN: pfn, Pool: int(p), Since: r.since[pfn]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pool != out[j].Pool {
			return out[i].Pool < out[j].Pool
		}
		return out[i].PFN < out[j].PFN
	})
	return out
}

// OwnedPage is a page a pool owns, and the line of its hold.
type OwnedPage struct {
	PFN   uint64
	Pool  int
	Since int
}

func (r *Replay) finding(first bool, f Finding) {
	if first {
		r.Findings = append(r.Findings, f)
	}
}

// apply applies event r.at; first is the load's pass, which records
// findings and the series.
func (r *Replay) apply(first bool) { r.applyEvent(&r.Trace.Events[r.at], first) }

// applyEvent applies e as event r.at (a stored event, or one Stream reads
// and forgets).
func (r *Replay) applyEvent(e *Event, first bool) {
	var scratch undo
	u := &scratch
	if r.undo != nil {
		u = &r.undo[r.at]
	}
	var pi int32
	if e.Kind != PageFree {
		if first {
			pi = r.poolFor(e)
			if r.poolOf != nil {
				r.poolOf[r.at] = pi
			}
		} else {
			pi = r.poolOf[r.at]
		}
	}
	if r.streaming && r.at == 0 {
		r.Timed = e.TimeUS >= 0
	}
	r.at++
	if e.Kind == PageFree {
		u.pool = 0
		if o := r.owner[e.PFN]; o != 0 && e.HasPFN {
			p := r.Pools[o-1]
			r.finding(first, Finding{Line: e.Line, Kind: "freed-while-owned", Pool: p.Index, PFN: e.PFN,
				Text: fmt.Sprintf("pfn %#x freed to the page allocator (mm_page_free) while pool %s owns it (held at line %d, no page_pool_state_release since)", e.PFN, p.Name(), r.since[e.PFN])})
		}
		return
	}
	p := r.Pools[pi-1]
	*u = undo{pool: pi, prevHold: p.HoldCnt, prevRel: p.ReleaseCnt, prevInflight: p.Inflight, prevOwned: int32(p.Owned),
		prevRelSeen: p.ReleaseSeen, prevDestroyChecks: int32(p.DestroyChecks), prevDestroyInflt: p.DestroyInflight}
	switch e.Kind {
	case Hold:
		if first {
			p.Holds++
			if p.Holds == 1 && e.Hold == 1 {
				p.FromCreation = true
			}
			if p.Holds > 1 && e.Hold != p.HoldCnt+1 && e.Hold > p.HoldCnt {
				r.finding(true, Finding{Line: e.Line, Kind: "lost-events", Pool: p.Index,
					Text: fmt.Sprintf("pool %s: hold=%d follows hold=%d: %d holds are missing from the capture (a trace buffer overrun, or a filter)", p.Name(), e.Hold, p.HoldCnt, e.Hold-p.HoldCnt-1)})
			}
		}
		p.HoldCnt = e.Hold
		u.touchedPage, u.prevOwner, u.prevSince = true, r.owner[e.PFN], r.since[e.PFN]
		if o := r.owner[e.PFN]; o != 0 {
			q := r.Pools[o-1]
			r.finding(first, Finding{Line: e.Line, Kind: "held-while-owned", Pool: p.Index, PFN: e.PFN,
				Text: fmt.Sprintf("pfn %#x held by pool %s while pool %s owns it since line %d: it left that pool without a page_pool_state_release (freed while owned, or the release is missing from the capture)", e.PFN, p.Name(), q.Name(), r.since[e.PFN])})
			q.Owned--
		}
		r.owner[e.PFN], r.since[e.PFN] = pi, e.Line
		p.Owned++
	case Release:
		if first {
			p.Releases++
		}
		p.ReleaseCnt, p.ReleaseSeen = e.Release, true
		u.touchedPage, u.prevOwner, u.prevSince = true, r.owner[e.PFN], r.since[e.PFN]
		switch o := r.owner[e.PFN]; {
		case o == pi:
			p.Owned--
		case o != 0:
			q := r.Pools[o-1]
			r.finding(first, Finding{Line: e.Line, Kind: "release-by-other-pool", Pool: p.Index, PFN: e.PFN,
				Text: fmt.Sprintf("pfn %#x released by pool %s but held by pool %s (line %d)", e.PFN, p.Name(), q.Name(), r.since[e.PFN])})
			q.Owned--
		case p.FromCreation:
			r.finding(first, Finding{Line: e.Line, Kind: "release-not-owned", Pool: p.Index, PFN: e.PFN,
				Text: fmt.Sprintf("pfn %#x released by pool %s, which the capture saw created and never saw hold it", e.PFN, p.Name())})
		default:
			if first {
				r.HeldBefore++
				r.before = append(r.before, heldBefore{e.PFN, pi})
			}
		}
		delete(r.owner, e.PFN)
		delete(r.since, e.PFN)
	case PoolRelease:
		p.HoldCnt, p.ReleaseCnt, p.ReleaseSeen = e.Hold, e.Release, true
		p.DestroyChecks++
		p.DestroyInflight = e.Inflight
		if first && p.DestroyLine == 0 {
			p.DestroyLine = e.Line
		}
	case UpdateNid:
		if first {
			p.NidChanges++
		}
		p.Nid = e.NewNid
	}
	p.Inflight = int64(int32(p.HoldCnt - p.ReleaseCnt))
	if e.Kind == PoolRelease {
		p.Inflight = e.Inflight
	}
	if first {
		if e.Kind == Hold {
			p.run++
		} else if p.run > 0 {
			p.HoldRuns[p.run]++
			p.run = 0
		}
		if p.Inflight > p.MaxInflight {
			p.MaxInflight = p.Inflight
		}
		r.point(p, e)
	}
}

func (r *Replay) unapply() {
	r.at--
	e := &r.Trace.Events[r.at]
	u := &r.undo[r.at]
	if u.pool == 0 {
		return
	}
	p := r.Pools[u.pool-1]
	if u.touchedPage {
		if cur := r.owner[e.PFN]; cur != 0 {
			r.Pools[cur-1].Owned--
		}
		if u.prevOwner != 0 {
			r.owner[e.PFN], r.since[e.PFN] = u.prevOwner, u.prevSince
			if u.prevOwner != u.pool {
				r.Pools[u.prevOwner-1].Owned++
			}
		} else {
			delete(r.owner, e.PFN)
			delete(r.since, e.PFN)
		}
	}
	p.HoldCnt, p.ReleaseCnt, p.Inflight, p.ReleaseSeen = u.prevHold, u.prevRel, u.prevInflight, u.prevRelSeen
	p.Owned = int(u.prevOwned)
	p.DestroyChecks, p.DestroyInflight = int(u.prevDestroyChecks), u.prevDestroyInflt
}

// point adds the pool's inflight after e to its series, keeping at most
// maxSeries points (every stride-th event once thinned; the maximum is
// MaxInflight, exact).
func (r *Replay) point(p *Pool, e *Event) {
	t := float64(r.at - 1)
	if r.Timed {
		t = max(e.TimeUS, r.lastT) // a streamed line without a time keeps the last one
		r.lastT = t
	}
	if p.skip == 0 || p.Inflight > p.pending.Inflight {
		p.pending = Point{t, p.Inflight}
	}
	p.skip++
	if p.skip < p.stride {
		return
	}
	p.skip = 0
	p.Series = append(p.Series, p.pending)
	if len(p.Series) >= maxSeries {
		// halve: each pair keeps its higher point, so no peak is lost
		half := p.Series[:0]
		for i := 0; i+1 < len(p.Series); i += 2 {
			a, b := p.Series[i], p.Series[i+1]
			if b.Inflight > a.Inflight {
				a = b
			}
			half = append(half, a)
		}
		p.Series = half
		p.stride *= 2
	}
}

// Summary is the replay's text summary, as `ppsim replay` prints it and
// the page shows it: the input, the pools (holds, releases, inflight now
// and at most, pages still owned, destroy), the findings.
func (r *Replay) Summary() string {
	var b strings.Builder
	t := r.Trace
	fmt.Fprintf(&b, "%s: %s", Plural(t.Lines, "line"), Plural(r.Events(), "page_pool event"))
	var fs []string
	for _, f := range []string{"ftrace", "perf", "bpftrace", "bare"} {
		if n := t.Formats[f]; n > 0 {
			fs = append(fs, fmt.Sprintf("%s %d", f, n))
		}
	}
	if len(fs) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(fs, ", "))
	}
	fmt.Fprintf(&b, ", %s, %s", Plural(t.Headers, "header line"), Plural(t.UnknownCount, "unknown line"))
	if t.Binary > 0 {
		fmt.Fprintf(&b, " (%d not text)", t.Binary)
	}
	b.WriteString("\n")
	for i, u := range t.Unknown {
		if i == 5 {
			fmt.Fprintf(&b, "  … %d more unknown lines (--json lists the first %d)\n", t.UnknownCount-5, len(t.Unknown))
			break
		}
		fmt.Fprintf(&b, "  unknown line %d: %s\n", u.Line, u.Text)
	}
	if t.DecimalPFN {
		b.WriteString("some pfn= printed in decimal: a kernel before v5.14\n")
	}
	fmt.Fprintf(&b, "%s\n", Plural(len(r.Pools), "pool"))
	for _, p := range r.Pools {
		fmt.Fprintf(&b, "pool %s: %s, %s in the capture; hold=%d release=%d; inflight %d (max %d); %s still owned",
			p.Name(), Plural(p.Holds, "hold"), Plural(p.Releases, "release"), p.HoldCnt, p.ReleaseCnt, p.Inflight, p.MaxInflight, Plural(p.Owned, "page"))
		if !p.FromCreation && p.Holds > 0 {
			b.WriteString("; created before the capture")
		}
		if !p.ReleaseSeen {
			b.WriteString("; no release seen (release counter taken as 0)")
		}
		if p.DestroyLine > 0 {
			fmt.Fprintf(&b, "; destroyed at line %d, %s, last inflight=%d", p.DestroyLine, Plural(p.DestroyChecks, "page_pool_release check"), p.DestroyInflight)
		}
		if p.NidChanges > 0 {
			fmt.Fprintf(&b, "; page_pool_update_nid %d times, now nid %d", p.NidChanges, p.Nid)
		}
		b.WriteString("\n")
		if len(p.Series) > 1 {
			fmt.Fprintf(&b, "  inflight by %s: %s\n", r.axis(), sparkline(p.Series))
		}
	}
	if r.HeldBefore > 0 {
		fmt.Fprintf(&b, "%s of pages held before the capture began\n", Plural(r.HeldBefore, "release"))
	}
	freed := 0
	for _, f := range r.Findings {
		if f.Kind == "freed-while-owned" || f.Kind == "held-while-owned" {
			freed++
		}
	}
	fmt.Fprintf(&b, "pages freed while owned: %d\n", freed)
	for i, f := range r.Findings {
		if i == 20 {
			fmt.Fprintf(&b, "… %d more findings\n", len(r.Findings)-20)
			break
		}
		fmt.Fprintf(&b, "line %d: %s: %s\n", f.Line, f.Kind, f.Text)
	}
	return b.String()
}

func (r *Replay) axis() string {
	if r.Timed {
		return "time"
	}
	return "event"
}

// sparkline draws a series in 40 columns of block characters, each
// column an equal part of the axis (time, or events) drawn at the highest
// inflight in it; a column no event falls in keeps the level before it.
func sparkline(s []Point) string {
	const cols = 40
	var max int64
	for _, p := range s {
		if p.Inflight > max {
			max = p.Inflight
		}
	}
	blocks := []rune(" ▁▂▃▄▅▆▇█")
	t0, t1 := s[0].T, s[len(s)-1].T
	out := make([]rune, cols)
	level, j := int64(0), 0
	for c := 0; c < cols; c++ {
		end := t0 + (t1-t0)*float64(c+1)/cols
		m, any := int64(-1), false
		for ; j < len(s) && (s[j].T <= end || c == cols-1); j++ {
			if s[j].Inflight > m {
				m = s[j].Inflight
			}
			level, any = s[j].Inflight, true
		}
		if !any {
			m = level
		}
		i := 0
		if max > 0 && m > 0 {
			i = int((m*int64(len(blocks)-1) + max - 1) / max) // any page out shows
		}
		out[c] = blocks[i]
	}
	return fmt.Sprintf("%s (0 … %d)", string(out), max)
}

// JSONReport is the replay as `ppsim replay --json` prints it.
type JSONReport struct {
	Lines                int            `json:"lines"`
	Lost                 []Lost         `json:"lost,omitempty"`
	Events               int            `json:"events"`
	Headers              int            `json:"header_lines"`
	UnknownLines         int            `json:"unknown_lines"`
	Unknown              []Unknown      `json:"unknown,omitempty"`
	Formats              map[string]int `json:"formats"`
	DecimalPFN           bool           `json:"decimal_pfn"`
	Timed                bool           `json:"timed"`
	Pools                []JSONPool     `json:"pools"`
	HeldBefore           int            `json:"releases_held_before_capture"`
	PagesFreedWhileOwned int            `json:"pages_freed_while_owned"`
	Findings             []Finding      `json:"findings"`
}

// JSONPool is one pool of a JSONReport.
type JSONPool struct {
	Index           int      `json:"index"`
	Ptr             string   `json:"ptr"`
	Holds           int      `json:"holds"`
	Releases        int      `json:"releases"`
	HoldCnt         uint32   `json:"hold"`
	ReleaseCnt      uint32   `json:"release"`
	Inflight        int64    `json:"inflight"`
	MaxInflight     int64    `json:"max_inflight"`
	Owned           int      `json:"pages_still_owned"`
	OwnedPFNs       []uint64 `json:"owned_pfns"`
	FromCreation    bool     `json:"from_creation"`
	DestroyLine     int      `json:"destroy_line,omitempty"`
	DestroyChecks   int      `json:"destroy_checks,omitempty"`
	DestroyInflight int64    `json:"destroy_inflight,omitempty"`
	Series          []Point  `json:"inflight_series"`
}

// FreedWhileOwned counts the findings of pages that left a pool without
// its release: freed to the allocator, or held again, while owned.
func (r *Replay) FreedWhileOwned() int {
	n := 0
	for _, f := range r.Findings {
		if f.Kind == "freed-while-owned" || f.Kind == "held-while-owned" {
			n++
		}
	}
	return n
}

// JSON is the replay's report at the current step (pools' counters and
// owned pages are those of At; findings and series the whole capture's).
func (r *Replay) JSON() JSONReport {
	t := r.Trace
	out := JSONReport{Lines: t.Lines, Lost: t.Lost, Events: r.Events(), Headers: t.Headers, UnknownLines: t.UnknownCount, Unknown: t.Unknown,
		Formats: t.Formats, DecimalPFN: t.DecimalPFN, Timed: r.Timed, HeldBefore: r.HeldBefore, PagesFreedWhileOwned: r.FreedWhileOwned(),
		Findings: append([]Finding{}, r.Findings...)}
	owned := map[int][]uint64{}
	for _, o := range r.OwnedPages() {
		owned[o.Pool] = append(owned[o.Pool], o.PFN)
	}
	for _, p := range r.Pools {
		out.Pools = append(out.Pools, JSONPool{Index: p.Index, Ptr: p.Ptr, Holds: p.Holds, Releases: p.Releases, HoldCnt: p.HoldCnt,
			ReleaseCnt: p.ReleaseCnt, Inflight: p.Inflight, MaxInflight: p.MaxInflight, Owned: p.Owned, OwnedPFNs: append([]uint64{}, owned[p.Index]...),
			FromCreation: p.FromCreation, DestroyLine: p.DestroyLine, DestroyChecks: p.DestroyChecks, DestroyInflight: p.DestroyInflight,
			Series: p.Series})
	}
	return out
}

// Plural is "1 pool", "2 pools".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
