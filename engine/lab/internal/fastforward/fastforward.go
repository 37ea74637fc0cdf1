package fastforward

import (
	"fmt"
	"slices"

	"pplab/engine/lab/internal/state"
	"pplab/engine/mm"
)

// Search spacing: a sample every `every` operations, a power of two at
// least searchEvery and at least wordsPerOp times the state's size in words
// (a walk costs about 7 ns per word natively, an operation about 110 ns: a
// sample then costs under 5 % of the operations between samples); after
// level samples the spacing doubles, so a run that never cycles pays a
// few dozen walks in all. A period P is found once two samples lie a
// multiple of P apart; hashes are kept across levels, so the differences
// cover every multiple of the first spacing up to about 3·level of them.
const (
	searchEvery = 16384
	wordsPerOp  = 2
	level       = 16
	maxSeen     = 4096
	maxPeriod   = 1 << 22 // a longer candidate is not verified (two cycles of it would be most of a run)
)

// State is a run's fast-forward. It is not part of the run: keyframes do
// not copy it, and a Seek's restore keeps a lock only when the restored
// state is on its cycle (Restored). The zero State is off; New arms one.
// Like the Lab it serves, a State is used by one goroutine.
type State struct {
	on   bool
	off  string // why it stopped for the rest of this run ("" = it may still apply)
	s    *state.Schema
	walk state.Walk

	next, every uint64
	samples     int
	seen        map[uint64]uint64 // search: non-page shape hash -> op

	// Refinement: a candidate D is usually a multiple of the period (the
	// samples are D apart): the states at t0 + d for each divisor d of D
	// (a multiple of 64) are hashed on the way to t0 + D, and the first
	// that matches t0's is the candidate.
	refine []uint64 // offsets from t0 still to try, ascending
	t0, h0 uint64

	// Verification of a candidate period.
	cand     uint64 // 0: none
	verifyAt uint64
	stage    int
	shape    []uint64 // full shape at the candidate
	vals     [2][]int64
	pg       [2]pageSnap // the renamed pages at the first two walks
	clocks   []int64     // each CPU's clock at the second walk
	packets  int64       // packets completed at the second walk

	// The series across skipped cycles: during the second verified cycle
	// the values a window's close reads are recorded at each packet
	// completion, relative to the cycle's start (traj: per packet, the
	// machine's time, each CPU's busy time, the stats, the releases), and
	// grow by trajDelta per cycle.
	recSeries bool
	traj      []int64
	trajBase  []int64
	trajDelta []int64

	// The lock: a verified cycle.
	locked   bool
	period   uint64
	phase    uint64 // ops ≡ phase (mod period) at the cycle's phase
	from     uint64 // the first verified state's op: every later state is on the cycle …
	changeAt int64  // … until the packet of a workload's scheduled change (-1: none)
	dPackets int64
	hash     uint64 // non-page shape hash at the phase
	delta    []int64
	pageCtr  []state.Counter // the counters of the pages nothing points to (fixed addresses), spliced into fast walks

	// The renaming one cycle applies: rho[pfn] is the page that plays, one
	// cycle later, the role pfn plays now (-1: a page the graph does not
	// point to, which keeps its role). dHolder and dRecycles are, by role
	// at a cycle's start, what the cycle adds to the role's Holder and to
	// the Recycles of the page playing it.
	rho       []int32
	dHolder   []int64
	dRecycles []int64
	perm      []int32 // scratch: rho^k
	rsum      []int64 // scratch: Recycles added per PFN
	seenPg    []bool  // scratch
	old       []mm.Page

	// What it did (Stats), kept across restores.
	skips      int
	skipped    uint64 // operations run by adding whole cycles
	lastPeriod uint64 // the last cycle locked
}

// FFStats is what the fast-forward did in a run.

// lightEvery is the Lab's light-check interval: Point runs at multiples of
// it, and a period is a multiple of it.
const lightEvery = 64

// Stats is what the fast-forward did in a run.
type Stats struct {
	Skips   int    // times it skipped
	Skipped uint64 // operations run by adding whole cycles
	Period  uint64 // the last cycle locked, in operations
	Off     string // why it stopped applying ("" if it did not stop)
}

// Stats says what the fast-forward did in this run.
func (f *State) Stats() Stats {
	return Stats{Skips: f.skips, Skipped: f.skipped, Period: f.lastPeriod, Off: f.off}
}

// New arms a fast-forward for a new run whose state s describes (on:
// the run's fast_forward knob).
func New(on bool, s *state.Schema) State {
	f := State{on: on, s: s, next: searchEvery, every: searchEvery}
	if !on {
		f.off = "fast_forward=0"
	}
	return f
}

// Recording reports whether the packet completions of a cycle are being
// recorded: the host calls RecordPacket at each one then.
func (f *State) Recording() bool { return f.recSeries }

// RecordPacket records a packet completion of the recorded cycle.
func (f *State) RecordPacket(h Host) { f.traj = h.SeriesVals(f.traj) }

// Point runs at an operation count that is a multiple of 64, right after
// that operation's check. budget is how many more operations the caller
// allows (< 0: no limit). It returns the operations it skipped.
func (f *State) Point(h Host, budget int64) int64 {
	if !f.on {
		return 0
	}
	never, wait := h.Blocked()
	if f.off == "" && never != "" {
		f.stop(h, never)
	}
	if f.off != "" || wait {
		return 0
	}
	ops := h.Ops()
	if f.locked && f.changeAt >= 0 && h.Packets() >= f.changeAt {
		f.unlock(h) // the workload's change ran for real: the cycle is over
	}
	switch {
	case f.locked:
		if (ops-f.phase)%f.period == 0 {
			return f.skip(h, budget)
		}
	case len(f.refine) > 0:
		for len(f.refine) > 1 && ops > f.t0+f.refine[0] {
			f.refine = f.refine[1:] // passed by a Step (the UI's): not tried
		}
		switch {
		case ops == f.t0+f.refine[0]:
			f.refineNext(h)
		case ops > f.t0+f.refine[0]: // the last one was passed too
			f.refine = nil
			f.refined(h)
		}
	case f.cand != 0:
		switch {
		case ops == f.verifyAt:
			f.verify(h)
		case ops > f.verifyAt: // passed by a Step: the walks must be a cycle apart
			f.drop(h)
		}
	case ops >= f.next:
		f.search(h)
	}
	return 0
}

// Due is the next operation at which a walk of a candidate is due (0:
// none), and whether it is a verification walk rather than a refinement:
// for tests that step onto it.
func (f *State) Due() (op uint64, verify bool) {
	switch {
	case len(f.refine) > 0:
		return f.t0 + f.refine[0], false
	case f.cand != 0:
		return f.verifyAt, true
	}
	return 0, false
}

// stop ends the fast-forward for the rest of the run.
func (f *State) stop(h Host, why string) {
	f.drop(h)
	f.unlock(h)
	f.off, f.seen = why, nil
}

// drop drops the candidate being refined or verified; the search goes on.
func (f *State) drop(h Host) {
	f.cand, f.refine, f.shape, f.recSeries = 0, nil, nil, false
	f.vals, f.pg, f.clocks = [2][]int64{}, [2]pageSnap{}, nil
	f.next = h.Ops() + f.every
}

// unlock ends the lock; the search goes on.
func (f *State) unlock(h Host) {
	f.locked, f.delta, f.pageCtr, f.rho, f.dHolder, f.dRecycles = false, nil, nil, nil, nil, nil
	f.next = h.Ops() + f.every
}

// fastWalk walks the state with the page array's counters spliced in from
// pageCtr (nil: not walked) and returns the shape's hash.
func (f *State) fastWalk(h Host) uint64 {
	f.walk.Fast(f.s, h.Root(), h.Pages(), f.pageCtr)
	return f.walk.Hash()
}

// Hash is the hash of the host's state as the search sees it (for tests).
func (f *State) Hash(h Host) uint64 {
	if f.s == nil {
		panic("fastforward: Hash on a State New did not arm")
	}
	return f.fastWalk(h)
}

func (f *State) search(h Host) {
	hash := f.fastWalk(h)
	if f.walk.Bad != "" {
		f.stop(h, f.walk.Bad)
		return
	}
	ops := h.Ops()
	if f.seen == nil || len(f.seen) >= maxSeen {
		f.seen = map[uint64]uint64{}
	}
	if o, ok := f.seen[hash]; ok && ops-o <= maxPeriod {
		d := ops - o
		f.t0, f.h0, f.cand, f.stage = ops, hash, d, 0
		f.refine = divisorsBelow(d)
		if len(f.refine) == 0 {
			f.verify(h)
		}
		return
	}
	f.seen[hash] = ops
	if f.samples == 0 {
		for uint64(len(f.walk.Shape))*wordsPerOp > f.every {
			f.every *= 2
		}
	}
	if f.samples++; f.samples%level == 0 {
		f.every *= 2
	}
	f.next = ops + f.every
}

// divisorsBelow lists the proper divisors of d that are multiples of 64,
// ascending (d is a multiple of 64 and at most maxPeriod: d/64 is
// factored by trial division).
func divisorsBelow(d uint64) []uint64 {
	var out []uint64
	m := d / lightEvery
	for q := uint64(1); q*q <= m; q++ {
		if m%q == 0 {
			out = append(out, q*lightEvery, m/q*lightEvery)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return out[:len(out)-1] // d itself
}

// refineNext tries the next divisor: a state equal to t0's there makes it
// the candidate, verified from here.
func (f *State) refineNext(h Host) {
	d := f.refine[0]
	f.refine = f.refine[1:]
	if f.fastWalk(h) == f.h0 {
		f.cand, f.refine = d, nil
		f.verify(h)
		return
	}
	if len(f.refine) == 0 {
		f.refined(h)
	}
}

// refined: no divisor matched, so the candidate stays, verified from
// t0 + cand (dropped if a Step passed that point).
func (f *State) refined(h Host) {
	f.verifyAt = f.t0 + f.cand
	switch ops := h.Ops(); {
	case ops == f.verifyAt:
		f.verify(h)
	case ops > f.verifyAt:
		f.drop(h)
	}
}

// verify takes the candidate's three full walks, one cycle apart.
func (f *State) verify(h Host) {
	w := &f.walk
	w.Full(f.s, h.Root(), h.Pages())
	ops := h.Ops()
	clocks := h.Clocks(nil)
	if f.stage == 0 {
		f.shape = append(f.shape[:0], w.Shape...)
		f.vals[0] = append(f.vals[0][:0], w.Vals...)
		f.pg[0] = snapPages(w)
		f.stage, f.verifyAt = 1, ops+f.cand
		return
	}
	if !slices.Equal(f.shape, w.Shape) || len(w.Vals) != len(f.vals[0]) {
		f.drop(h) // the shape differs a cycle later
		return
	}
	if f.stage == 1 {
		f.vals[1] = append(f.vals[1][:0], w.Vals...)
		f.pg[1] = snapPages(w)
		f.clocks, f.packets = clocks, h.Packets()
		f.stage, f.verifyAt = 2, ops+f.cand
		f.trajBase = h.SeriesVals(f.trajBase[:0])
		f.traj, f.recSeries = f.traj[:0], true
		return
	}
	f.recSeries = false
	// Third walk: the counters (the clocks' busy and idle parts among them)
	// must have grown alike in both cycles.
	ctrs := w.Counters()
	delta := make([]int64, len(w.Vals))
	for i, r := range ctrs {
		d1 := r.WrapDelta(f.vals[0][i], f.vals[1][i])
		d2 := r.WrapDelta(f.vals[1][i], w.Vals[i])
		if d1 != d2 {
			f.drop(h)
			return
		}
		delta[i] = d2
	}
	if !clocksTogether(w, clocks, f.clocks, delta) {
		f.stop(h, "the run compares clocks that advance at different rates")
		return
	}
	rho, dH, dR, ok := renaming(f.pg[0], f.pg[1], snapPages(w), len(h.Pages()))
	if !ok {
		f.drop(h) // the pages' renaming differs between the cycles
		return
	}
	for _, x := range w.RawPFNs {
		if rho[x] >= 0 && rho[x] != x {
			f.stop(h, "the cycle renames a page the state names by number (a free list, a slab index)")
			return
		}
	}
	if state.Aliased(ctrs) {
		f.stop(h, "a counter is reachable twice in the run's state")
		return
	}
	dp := h.Packets() - f.packets
	if dp <= 0 {
		f.drop(h) // no packet completes in a cycle
		return
	}
	// Lock: the page array's counters keep their addresses for the rest of
	// the run; the fast walks splice them in.
	f.pageCtr = w.PageCounters()
	f.locked, f.period, f.phase, f.dPackets, f.delta = true, f.cand, ops, dp, delta
	f.rho, f.dHolder, f.dRecycles = rho, dH, dR
	f.from = ops - 2*f.cand
	f.changeAt = h.ChangeAt()
	f.lastPeriod = f.cand
	f.trajDelta = h.SeriesVals(nil)
	for i := range f.trajDelta {
		f.trajDelta[i] -= f.trajBase[i]
	}
	stride := len(f.trajDelta)
	if int64(len(f.traj)) != dp*int64(stride) {
		panic(fmt.Sprintf("fastforward: %d packets in a cycle, %d recorded", dp, len(f.traj)/stride))
	}
	for i := range f.traj {
		f.traj[i] -= f.trajBase[i%stride]
	}
	f.drop(h) // the candidate is the lock now (its recorded cycle stays)
	f.seen = nil
	f.hash = f.fastWalk(h)
	if len(f.walk.Vals) != len(delta) {
		panic(fmt.Sprintf("fastforward: a fast walk lists %d counters, the full walk %d", len(f.walk.Vals), len(delta)))
	}
}

// clocksTogether: when the state holds times the run compares with the
// CPUs' clocks (pp:"time"), every such time and every clock must either
// advance by one common amount per cycle or stand still at or below all
// the moving ones, so no comparison between them can change later.
// Without such times the clocks are only ever read, never compared.
func clocksTogether(w *state.Walk, now, prev []int64, delta []int64) bool {
	if len(w.Times) == 0 {
		return true
	}
	type tv struct{ v, d int64 }
	var all []tv
	for c := range now {
		all = append(all, tv{now[c], now[c] - prev[c]})
	}
	for _, i := range w.Times {
		all = append(all, tv{w.Vals[i], delta[i]})
	}
	var step int64
	minMoving := int64(1<<63 - 1)
	for _, t := range all {
		if t.d == 0 {
			continue
		}
		if step != 0 && t.d != step {
			return false
		}
		step = t.d
		minMoving = min(minMoving, t.v)
	}
	for _, t := range all {
		if t.d == 0 && t.v > minMoving {
			return false
		}
	}
	return true
}

// skip adds k cycles at the cycle's phase, k as large as every horizon
// and the budget allow.
func (f *State) skip(h Host, budget int64) int64 {
	P, dp := int64(f.period), f.dPackets
	k := int64(1<<62) / P
	if budget >= 0 {
		k = min(k, budget/P)
	}
	k = min(k, h.MaxCycles(dp, f.trajDelta))
	if k < 1 {
		return 0
	}
	if f.pageCtr == nil { // restored from a keyframe: a new page array
		f.walk.Full(f.s, h.Root(), h.Pages())
		f.pageCtr = f.walk.PageCounters()
	}
	if hash := f.fastWalk(h); hash != f.hash || len(f.walk.Vals) != len(f.delta) {
		// Not the locked cycle's state after all (cannot happen while the
		// conditions hold): search again.
		f.unlock(h)
		return 0
	}
	f.series(h, k)
	if len(f.walk.Canon) != len(f.dHolder) {
		panic(fmt.Sprintf("fastforward: %d renamed pages, the cycle has %d", len(f.walk.Canon), len(f.dHolder)))
	}
	f.rename(h.Pages(), k)
	for i, r := range f.walk.Counters() {
		r.Add(k * f.delta[i])
	}
	skipped := uint64(k * P)
	f.skips++
	f.skipped += skipped
	f.phase = h.Ops()
	h.Skipped(skipped)
	return int64(skipped)
}

// series closes the series windows that end inside the k cycles about to
// be skipped, from the recorded cycle: the window ending at packet X in
// cycle c (from 0) at the cycle's r-th packet reads the values now, plus c
// cycles' growth, plus the recorded cycle's values at its r-th packet.
func (f *State) series(h Host, k int64) {
	stride := len(f.trajDelta)
	now := h.SeriesVals(nil)
	vals := make([]int64, stride)
	packets := h.Packets()
	for end := packets + k*f.dPackets; h.NextWindow() <= end; {
		x := h.NextWindow()
		c := (x - packets - 1) / f.dPackets
		r := x - packets - c*f.dPackets // 1 … dPackets
		rec := f.traj[(r-1)*int64(stride) : r*int64(stride)]
		for i := range vals {
			vals[i] = now[i] + c*f.trajDelta[i] + rec[i]
		}
		h.CloseWindow(x, vals)
	}
}

// Restored: the host restored an earlier state of this run (a keyframe or
// the start). A state at or after the lock's first verified one is on the
// cycle, so the lock holds (with the copy's page array); otherwise the
// search starts again.
func (f *State) Restored(h Host) {
	if !f.locked || h.Ops() < f.from || f.changeAt >= 0 && h.Packets() >= f.changeAt || f.off != "" {
		skips, skipped, period := f.skips, f.skipped, f.lastPeriod
		*f = New(f.on, f.s)
		f.skips, f.skipped, f.lastPeriod = skips, skipped, period
		return
	}
	f.pageCtr = nil
}

// pageSnap is what a full walk saw of the renamed pages, by role.
type pageSnap struct {
	canon    []int32
	holder   []int64
	recycles []uint32
}

func snapPages(w *state.Walk) pageSnap {
	return pageSnap{slices.Clone(w.Canon), slices.Clone(w.Holder), slices.Clone(w.Recycles)}
}

// renaming derives the renaming one cycle applies from three walks a cycle
// apart, and checks it is the same in both cycles (the run is blind to
// which frame plays a role); and that each role's Holder and each role's
// page's Recycles grew alike in both. n is the number of pages.
func renaming(a, b, c pageSnap, n int) (rho []int32, dH, dR []int64, ok bool) {
	if len(a.canon) != len(b.canon) || len(b.canon) != len(c.canon) {
		return nil, nil, nil, false
	}
	rho = make([]int32, n)
	inv := [2][]int32{make([]int32, n), make([]int32, n)}
	for i := range rho {
		rho[i], inv[0][i], inv[1][i] = -1, -1, -1
	}
	for j, x := range a.canon {
		rho[x] = b.canon[j]
	}
	for j, x := range b.canon {
		if rho[x] != c.canon[j] { // the second cycle renames differently (or the page set changed)
			return nil, nil, nil, false
		}
		inv[0][x] = int32(j)
	}
	for j, x := range c.canon {
		inv[1][x] = int32(j)
	}
	m := len(a.canon)
	dH, dR = make([]int64, m), make([]int64, m)
	for j := 0; j < m; j++ {
		h1, h2 := int64(int32(b.holder[j]-a.holder[j])), int64(int32(c.holder[j]-b.holder[j]))
		r1 := int64(b.recycles[inv[0][a.canon[j]]] - a.recycles[j])
		r2 := int64(c.recycles[inv[1][b.canon[j]]] - b.recycles[j])
		if h1 != h2 || r1 != r2 {
			return nil, nil, nil, false
		}
		dH[j], dR[j] = h2, r2
	}
	return rho, dH, dR, true
}

// rename moves every renamed page's role k cycles on: the role the page
// pfn plays now is played by rho^k(pfn) then. Each page keeps its own
// frame fields (pp:"frame"; its Recycles grows by what the roles it plays
// on the way add: mm.Page.AssumeRole); the page pointers of the graph
// follow their roles.
func (f *State) rename(pages []mm.Page, k int64) {
	w := &f.walk
	n := len(pages)
	if len(f.perm) != n {
		f.perm, f.rsum, f.seenPg = make([]int32, n), make([]int64, n), make([]bool, n)
	}
	var orbit []int32
	var pre []int64
	for _, x := range w.Canon {
		if f.seenPg[x] {
			continue
		}
		orbit = orbit[:0]
		for q := x; ; {
			f.seenPg[q] = true
			orbit = append(orbit, q)
			q = f.rho[q]
			if q == x {
				break
			}
		}
		L := int64(len(orbit))
		// D[m]: what a cycle adds to the Recycles of the page that plays the
		// role orbit[m] plays now; the page orbit[i] plays, c cycles on, the
		// role orbit[i-c] plays now.
		pre = append(pre[:0], 0)
		for t := int64(0); t < 2*L; t++ {
			role := w.Role(orbit[t%L])
			pre = append(pre, pre[t]+f.dRecycles[role])
		}
		full, a, b := pre[L], k/L, k%L
		for i := int64(0); i < L; i++ {
			f.perm[orbit[i]] = orbit[(i+k)%L]
			f.rsum[orbit[i]] = a*full + pre[i+L+1] - pre[i+L+1-b]
		}
	}
	f.old = f.old[:0]
	for _, x := range w.Canon {
		f.old = append(f.old, pages[x])
	}
	for j, x := range w.Canon {
		pg := &pages[f.perm[x]]
		pg.AssumeRole(&f.old[j], int32(int64(f.old[j].Holder)+k*f.dHolder[j]), uint32(f.rsum[pg.PFN]))
	}
	w.Repoint(pages, f.perm)
	for _, x := range w.Canon {
		f.seenPg[x] = false
	}
}
