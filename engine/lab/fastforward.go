package lab

import (
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"unsafe"

	"pplab/engine/mm"
	"pplab/engine/sim"
	"pplab/engine/workload"
)

// Steady-state fast-forward.
//
// A run is a pure function of its config, and most scenarios settle into a
// cycle: after some P operations the machine is back in the same state (the
// same containers holding pages with the same fields in the same order, the
// same pending work), up to which page frame plays which role (a recycled
// page moves one descriptor on each lap of the RX ring: drop repeats every
// 2048 operations with its pages renamed, exactly only after a million
// laps), and except for its counters, which have all grown by the same
// amounts they grew by in the cycle before. From such a
// state every later cycle repeats exactly, so k cycles can be run at once by
// adding k times each counter's per-cycle growth (ffwalk.go says what a
// counter is). That is what this file does, in three steps, in batch mode
// only (runBatch: RunN, RunWhile, RunFor, Run and Seek's replay):
//
//  1. Search. Every `every` operations (a multiple of the light check's 64,
//     right after the check ran, so the checker's own bookkeeping is the
//     same at every sample) the Lab walks its state without the page array
//     and hashes the shape. A hash seen before names a candidate period: the
//     operations between the two samples.
//  2. Verify. At the candidate, one cycle later and two cycles later, a full
//     walk (pages included) must give the same shape, each counter must
//     have grown by the same amount in both cycles, and the renaming of
//     page frames must be the same permutation in both (the run is blind
//     to which frame plays a role) and leave every frame the state names by
//     number (free lists, slab indexes) where it is. Clocks that the run
//     compares with each other (the tcp workload's two CPUs and its window
//     times) must all advance together, so no comparison between them can
//     flip later. Both cycles ran for real, with every check.
//  3. Skip. At the cycle's phase (every P operations from then on) the Lab
//     adds k·growth to every counter and moves each renamed page's role k
//     cycles on (ffRename), where k keeps every horizon ahead: the run's
//     last packet, the caller's operation budget, a workload's scheduled
//     change (numa migration), a u32 counter's wrap in the series. The
//     series' windows that close inside are closed from a recorded cycle; a
//     keyframe that falls due inside is taken after. The operations before
//     each horizon run for real; the next phase skips again. The checks of
//     the skipped operations are those of the verified cycles (with no rule
//     broken and nothing logged, a state the full check passes repeats); the
//     run's own full checks go on where its operations run.
//
// What is not a symmetry: the ptr_ring's indexes are absolute (its lazy
// zeroing flushes at the array's end), so a cycle must bring them back to
// the same slot; runs whose indexes advance by an amount prime to the ring
// repeat only after a long cycle (clone-tap: 253 952 operations) or not
// within the search (coalesce-mixed, and tcp-stream, whose receive queue
// also varies).
//
// It never applies while someone listens to events (a tracer, step
// records), with a rule broken or a violation logged, while a timer is
// pending, before measuring starts, in a run that ends on its own
// (destroy), or with check_every not a multiple of 64. Randomness needs no
// rule of its own: the random source's state is part of the shape, so a
// cycle that draws numbers never repeats. fast_forward=0 turns it off;
// cmd/ppsim's TestFastForward_GoldenCorpus runs the golden corpus both ways
// at 10^5 and 10^6 packets and compares the JSON byte for byte.

// Search spacing: a sample every `every` operations, a power of two at
// least ffEvery and at least ffWordsPerOp times the state's size in words
// (a walk costs about 7 ns per word natively, an operation about 110 ns: a
// sample then costs under 5 % of the operations between samples); after
// ffLevel samples the spacing doubles, so a run that never cycles pays a
// few dozen walks in all. A period P is found once two samples lie a
// multiple of P apart; hashes are kept across levels, so the differences
// cover every multiple of the first spacing up to about 3·ffLevel of them.
const (
	ffEvery      = 16384
	ffWordsPerOp = 2
	ffLevel      = 16
	ffMaxSeen    = 4096
	ffMaxPeriod  = 1 << 22 // a longer candidate is not verified (two cycles of it would be most of a run)
)

// fastForward is the Lab's fast-forward state. It is not part of the run:
// keyframes do not copy it, and Seek's restore keeps a lock only when the
// restored state is on its cycle (ffRestored).
type fastForward struct {
	on   bool
	off  string // why it stopped for the rest of this run ("" = it may still apply)
	walk ffWalk

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
	pageLin  []linRef // the counters of the pages nothing points to (fixed addresses), spliced into fast walks

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

	// What it did (FFStats), kept across restores.
	skips      int
	skipped    uint64 // operations run by adding whole cycles
	lastPeriod uint64 // the last cycle locked
}

// FFStats is what the fast-forward did in a run.
type FFStats struct {
	Skips   int    // times it skipped
	Skipped uint64 // operations run by adding whole cycles
	Period  uint64 // the last cycle locked, in operations
	Off     string // why it stopped applying ("" if it did not stop)
}

// FFStats says what the fast-forward did in this run.
func (l *Lab) FFStats() FFStats {
	return FFStats{Skips: l.ff.skips, Skipped: l.ff.skipped, Period: l.ff.lastPeriod, Off: l.ff.off}
}

// ffInit arms the fast-forward for a new run (or after a restore).
func (l *Lab) ffInit() {
	l.ff = fastForward{on: l.m.Knobs[sim.KnobFastForward] != 0, next: ffEvery, every: ffEvery}
	if !l.ff.on {
		l.ff.off = "fast_forward=0"
	}
}

// ffPermanent is why fast-forward can never apply to this run ("" = it may).
func (l *Lab) ffPermanent() string {
	switch {
	case l.m.Rules != 0:
		return "a rule is broken"
	case l.checkEach():
		return "every operation is checked fully (a seekable run of a known failure)"
	case l.ownEnd:
		return "the run ends on its own (destroy)"
	case l.checkEvery%lightEvery != 0:
		return "check_every is not a multiple of 64"
	case l.m.Log.Total() > 0:
		return "a violation was logged"
	case l.err != nil:
		return "the run stopped with an error"
	}
	return ""
}

// ffWait reports whether fast-forward must wait (it may apply later).
func (l *Lab) ffWait() bool {
	if l.m.Tracing() || l.m.Recording() || l.startPS == nil || l.m.PendingTimers() > 0 || l.done {
		return true
	}
	if dr, ok := l.run.(*driverRun); ok && dr.settler != nil {
		return true
	}
	return false
}

// ffPoint runs at an operation count that is a multiple of 64, right after
// that operation's check. budget is how many more operations the caller
// allows (< 0: no limit). It returns the operations it skipped.
func (l *Lab) ffPoint(budget int64) int64 {
	f := &l.ff
	if !f.on {
		return 0
	}
	if f.off == "" {
		if why := l.ffPermanent(); why != "" {
			l.ffStop(why)
		}
	}
	if f.off != "" || l.ffWait() {
		return 0
	}
	if f.locked && f.changeAt >= 0 && l.packets >= f.changeAt {
		l.ffUnlock() // the workload's change ran for real: the cycle is over
	}
	switch {
	case f.locked:
		if (l.ops-f.phase)%f.period == 0 {
			return l.ffSkip(budget)
		}
	case len(f.refine) > 0:
		for len(f.refine) > 1 && l.ops > f.t0+f.refine[0] {
			f.refine = f.refine[1:] // passed by a Step (the UI's): not tried
		}
		switch {
		case l.ops == f.t0+f.refine[0]:
			l.ffRefine()
		case l.ops > f.t0+f.refine[0]: // the last one was passed too
			f.refine = nil
			l.ffRefined()
		}
	case f.cand != 0:
		switch {
		case l.ops == f.verifyAt:
			l.ffVerify()
		case l.ops > f.verifyAt: // passed by a Step: the walks must be a cycle apart
			l.ffDrop()
		}
	case l.ops >= f.next:
		l.ffSearch()
	}
	return 0
}

// ffStop ends the fast-forward for the rest of the run.
func (l *Lab) ffStop(why string) {
	l.ffDrop()
	l.ffUnlock()
	l.ff.off, l.ff.seen = why, nil
}

// ffDrop drops the candidate being refined or verified; the search goes on.
func (l *Lab) ffDrop() {
	f := &l.ff
	f.cand, f.refine, f.shape, f.recSeries = 0, nil, nil, false
	f.vals, f.pg, f.clocks = [2][]int64{}, [2]pageSnap{}, nil
	f.next = l.ops + f.every
}

// ffUnlock ends the lock; the search goes on.
func (l *Lab) ffUnlock() {
	f := &l.ff
	f.locked, f.delta, f.pageLin, f.rho, f.dHolder, f.dRecycles = false, nil, nil, nil, nil, nil
	f.next = l.ops + f.every
}

// fastWalk walks the state with the page array's counters spliced in from
// pageLin (nil: not walked) and returns the shape's hash.
func (l *Lab) fastWalk() uint64 {
	w := &l.ff.walk
	w.reset(l.a.Pages())
	w.skipPages, w.pageLin = true, l.ff.pageLin
	w.pointer(unsafe.Pointer(l), reflect.TypeOf(l), nil)
	w.walkPages()
	return hashWords(w.shape)
}

// fullWalk walks everything, pages included.
func (l *Lab) fullWalk() {
	w := &l.ff.walk
	w.reset(l.a.Pages())
	w.skipPages = false
	w.pointer(unsafe.Pointer(l), reflect.TypeOf(l), nil)
	w.walkPages()
}

// hashWords hashes a shape (hash/maphash: one seed per process; hashes
// are only compared within a run, and a collision is only a candidate
// that the full walks then reject).
func hashWords(s []uint64) uint64 {
	if len(s) == 0 {
		return 0
	}
	return maphash.Bytes(ffSeed, unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8))
}

var ffSeed = maphash.MakeSeed()

func (l *Lab) ffSearch() {
	f := &l.ff
	h := l.fastWalk()
	if f.walk.bad != "" {
		l.ffStop(f.walk.bad)
		return
	}
	if f.seen == nil || len(f.seen) >= ffMaxSeen {
		f.seen = map[uint64]uint64{}
	}
	if o, ok := f.seen[h]; ok && l.ops-o <= ffMaxPeriod {
		d := l.ops - o
		f.t0, f.h0, f.cand, f.stage = l.ops, h, d, 0
		f.refine = divisorsBelow(d)
		if len(f.refine) == 0 {
			l.ffVerify()
		}
		return
	}
	f.seen[h] = l.ops
	if f.samples == 0 {
		for uint64(len(f.walk.shape))*ffWordsPerOp > f.every {
			f.every *= 2
		}
	}
	if f.samples++; f.samples%ffLevel == 0 {
		f.every *= 2
	}
	f.next = l.ops + f.every
}

// divisorsBelow lists the proper divisors of d that are multiples of 64,
// ascending (d is a multiple of 64 and at most ffMaxPeriod: d/64 is
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

// ffRefine tries the next divisor: a state equal to t0's there makes it the
// candidate, verified from here.
func (l *Lab) ffRefine() {
	f := &l.ff
	d := f.refine[0]
	f.refine = f.refine[1:]
	if l.fastWalk() == f.h0 {
		f.cand, f.refine = d, nil
		l.ffVerify()
		return
	}
	if len(f.refine) == 0 {
		l.ffRefined()
	}
}

// ffRefined: no divisor matched, so the candidate stays, verified from
// t0 + cand (dropped if a Step passed that point).
func (l *Lab) ffRefined() {
	f := &l.ff
	f.verifyAt = f.t0 + f.cand
	switch {
	case l.ops == f.verifyAt:
		l.ffVerify()
	case l.ops > f.verifyAt:
		l.ffDrop()
	}
}

// ffVerify takes the candidate's three full walks, one cycle apart.
func (l *Lab) ffVerify() {
	f := &l.ff
	l.fullWalk()
	w := &f.walk
	clocks := make([]int64, len(l.m.CPUs))
	for c := range l.m.CPUs {
		clocks[c] = l.m.CPUs[c].NowPS()
	}
	if f.stage == 0 {
		f.shape = append(f.shape[:0], w.shape...)
		f.vals[0] = append(f.vals[0][:0], w.val...)
		f.pg[0] = snapPages(w)
		f.stage, f.verifyAt = 1, l.ops+f.cand
		return
	}
	if !slices.Equal(f.shape, w.shape) || len(w.val) != len(f.vals[0]) {
		l.ffDrop() // the shape differs a cycle later
		return
	}
	if f.stage == 1 {
		f.vals[1] = append(f.vals[1][:0], w.val...)
		f.pg[1] = snapPages(w)
		f.clocks, f.packets = clocks, l.packets
		f.stage, f.verifyAt = 2, l.ops+f.cand
		f.trajBase = l.seriesVals(f.trajBase[:0])
		f.traj, f.recSeries = f.traj[:0], true
		return
	}
	f.recSeries = false
	// Third walk: the counters (the clocks' busy and idle parts among them)
	// must have grown alike in both cycles.
	delta := make([]int64, len(w.val))
	for i, r := range w.lin {
		d1 := r.kind.wrapDelta(f.vals[0][i], f.vals[1][i])
		d2 := r.kind.wrapDelta(f.vals[1][i], w.val[i])
		if d1 != d2 {
			l.ffDrop()
			return
		}
		delta[i] = d2
	}
	if !l.ffClocksTogether(clocks, f.clocks, delta) {
		l.ffStop("the run compares clocks that advance at different rates")
		return
	}
	rho, dH, dR, ok := renaming(f.pg[0], f.pg[1], snapPages(w), len(l.a.Pages()))
	if !ok {
		l.ffDrop() // the pages' renaming differs between the cycles
		return
	}
	for _, x := range w.rawPFNs {
		if rho[x] >= 0 && rho[x] != x {
			l.ffStop("the cycle renames a page the state names by number (a free list, a slab index)")
			return
		}
	}
	if aliased(w.lin) {
		l.ffStop("a counter is reachable twice in the run's state")
		return
	}
	dp := l.packets - f.packets
	if dp <= 0 {
		l.ffDrop() // no packet completes in a cycle
		return
	}
	// Lock: the page array's counters keep their addresses for the rest of
	// the run; the fast walks splice them in.
	f.pageLin = append([]linRef(nil), w.lin[w.pageLinAt:w.pageLinAt+w.pageLinN]...)
	f.locked, f.period, f.phase, f.dPackets, f.delta = true, f.cand, l.ops, dp, delta
	f.rho, f.dHolder, f.dRecycles = rho, dH, dR
	f.from = l.ops - 2*f.cand
	f.changeAt = l.changeAt()
	f.lastPeriod = f.cand
	f.trajDelta = l.seriesVals(nil)
	for i := range f.trajDelta {
		f.trajDelta[i] -= f.trajBase[i]
	}
	stride := len(f.trajDelta)
	if int64(len(f.traj)) != dp*int64(stride) {
		panic(fmt.Sprintf("lab: fast-forward: %d packets in a cycle, %d recorded", dp, len(f.traj)/stride))
	}
	for i := range f.traj {
		f.traj[i] -= f.trajBase[i%stride]
	}
	l.ffDrop() // the candidate is the lock now (its recorded cycle stays)
	f.seen = nil
	f.hash = l.fastWalk()
	if len(f.walk.lin) != len(delta) {
		panic(fmt.Sprintf("lab: fast-forward: a fast walk lists %d counters, the full walk %d", len(f.walk.lin), len(delta)))
	}
}

// ffClocksTogether: when the state holds times the run compares with the
// CPUs' clocks (pp:"time"), every such time and every clock must either
// advance by one common amount per cycle or stand still at or below all
// the moving ones, so no comparison between them can change later.
// Without such times the clocks are only ever read, never compared.
func (l *Lab) ffClocksTogether(now, prev []int64, delta []int64) bool {
	w := &l.ff.walk
	if len(w.timeIdx) == 0 {
		return true
	}
	type tv struct{ v, d int64 }
	var all []tv
	for c := range now {
		all = append(all, tv{now[c], now[c] - prev[c]})
	}
	for _, i := range w.timeIdx {
		all = append(all, tv{w.val[i], delta[i]})
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

// aliased reports whether two counters share an address.
func aliased(lin []linRef) bool {
	p := make([]uintptr, len(lin))
	for i, r := range lin {
		p[i] = uintptr(r.p)
	}
	slices.Sort(p)
	for i := 1; i < len(p); i++ {
		if p[i] == p[i-1] {
			return true
		}
	}
	return false
}

// ffSkip adds k cycles at the cycle's phase, k as large as every horizon
// and the budget allow (a keyframe due inside is taken after the skip).
func (l *Lab) ffSkip(budget int64) int64 {
	f := &l.ff
	P, dp := int64(f.period), f.dPackets
	k := int64(1<<62) / P
	if budget >= 0 {
		k = min(k, budget/P)
	}
	k = min(k, (l.Cfg.Packets-l.packets-1)/dp) // the last packet runs for real
	if rel, d := l.maxRelease(), f.trajDelta[len(f.trajDelta)-1]; d > 0 {
		k = min(k, (1<<32-1-rel)/d) // the series' release count is a u32 sum: no wrap in a skip
	}
	if at := l.changeAt(); at >= 0 {
		k = min(k, (at-l.packets-1)/dp) // a workload's scheduled change
	}
	if k < 1 {
		return 0
	}
	if f.pageLin == nil { // restored from a keyframe: a new page array
		l.fullWalk()
		f.pageLin = append([]linRef(nil), f.walk.lin[f.walk.pageLinAt:f.walk.pageLinAt+f.walk.pageLinN]...)
	}
	if h := l.fastWalk(); h != f.hash || len(f.walk.lin) != len(f.delta) {
		// Not the locked cycle's state after all (cannot happen while the
		// conditions hold): search again.
		l.ffUnlock()
		return 0
	}
	l.ffSeries(k)
	if len(f.walk.canon) != len(f.dHolder) {
		panic(fmt.Sprintf("lab: fast-forward: %d renamed pages, the cycle has %d", len(f.walk.canon), len(f.dHolder)))
	}
	l.ffRename(k)
	for i, r := range f.walk.lin {
		r.add(k * f.delta[i])
	}
	skipped := uint64(k * P)
	l.sinceCheck = (l.sinceCheck + skipped) % l.checkEvery
	f.skips++
	f.skipped += skipped
	f.phase = l.ops
	if l.kf.on && l.ops/l.kf.every != (l.ops-skipped)/l.kf.every {
		// A keyframe fell due inside the skipped cycles: it is taken here
		// instead (where keyframes sit changes how long a seek takes, never
		// what it returns).
		l.kf.capture(l)
	}
	return int64(skipped)
}

// ffRecordPacket records a packet completion of the recorded cycle.
func (l *Lab) ffRecordPacket() { l.ff.traj = l.seriesVals(l.ff.traj) }

// maxRelease is the largest pool release count (u32).
func (l *Lab) maxRelease() int64 {
	var m int64
	for _, p := range l.reg.Pools() {
		m = max(m, int64(p.Release()))
	}
	return m
}

// ffSeries closes the series windows that end inside the k cycles about to
// be skipped, from the recorded cycle: the window ending at packet X in
// cycle c (from 0) at the cycle's r-th packet reads the values now, plus c
// cycles' growth, plus the recorded cycle's values at its r-th packet.
func (l *Lab) ffSeries(k int64) {
	f := &l.ff
	s := &l.series
	stride := len(f.trajDelta)
	now := l.seriesVals(nil)
	vals := make([]int64, stride)
	for end := l.packets + k*f.dPackets; s.next <= end; {
		x := s.next
		c := (x - l.packets - 1) / f.dPackets
		r := x - l.packets - c*f.dPackets // 1 … dPackets
		rec := f.traj[(r-1)*int64(stride) : r*int64(stride)]
		for i := range vals {
			vals[i] = now[i] + c*f.trajDelta[i] + rec[i]
		}
		s.sampleAt(l, x, vals)
	}
}

// changeAt is the packet count at which the workload's scheduled change
// happens (-1: none ahead).
func (l *Lab) changeAt() int64 {
	if dr, ok := l.run.(*driverRun); ok {
		if h, ok := dr.w.(workload.Horizon); ok {
			if n := h.ChangesIn(); n >= 0 {
				return l.packets + n
			}
		}
	}
	return -1
}

// ffRestored: Seek restored an earlier state of this run (a keyframe or
// the start). A state at or after the lock's first verified one is on the
// cycle, so the lock holds (with the copy's page array); otherwise the
// search starts again.
func (l *Lab) ffRestored() {
	f := &l.ff
	if !f.locked || l.ops < f.from || f.changeAt >= 0 && l.packets >= f.changeAt || f.off != "" {
		skips, skipped, period := f.skips, f.skipped, f.lastPeriod
		l.ffInit()
		l.ff.skips, l.ff.skipped, l.ff.lastPeriod = skips, skipped, period
		return
	}
	f.pageLin = nil
}

// pageSnap is what a full walk saw of the renamed pages, by role.
type pageSnap struct {
	canon    []int32
	holder   []int64
	recycles []uint32
}

func snapPages(w *ffWalk) pageSnap {
	return pageSnap{slices.Clone(w.canon), slices.Clone(w.holder), slices.Clone(w.recycles)}
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

// ffRename moves every renamed page's role k cycles on: the role the page
// pfn plays now is played by rho^k(pfn) then. Each page keeps its own
// frame fields (pp:"frame"; its Recycles grows by what the roles it plays on the
// way add); the page pointers of the graph follow their roles.
func (l *Lab) ffRename(k int64) {
	f := &l.ff
	w := &f.walk
	pages := l.a.Pages()
	n := len(pages)
	if len(f.perm) != n {
		f.perm, f.rsum, f.seenPg = make([]int32, n), make([]int64, n), make([]bool, n)
	}
	var orbit []int32
	var pre []int64
	for _, x := range w.canon {
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
			role := w.pid[orbit[t%L]] - 1
			pre = append(pre, pre[t]+f.dRecycles[role])
		}
		full, a, b := pre[L], k/L, k%L
		for i := int64(0); i < L; i++ {
			f.perm[orbit[i]] = orbit[(i+k)%L]
			f.rsum[orbit[i]] = a*full + pre[i+L+1] - pre[i+L+1-b]
		}
	}
	f.old = f.old[:0]
	for _, x := range w.canon {
		f.old = append(f.old, pages[x])
	}
	for j, x := range w.canon {
		pg := &pages[f.perm[x]]
		pg.AssumeRole(&f.old[j], int32(int64(f.old[j].Holder)+k*f.dHolder[j]), uint32(f.rsum[pg.PFN]))
	}
	for _, r := range w.pageRefs {
		*(**mm.Page)(r.slot) = &pages[f.perm[w.canon[r.id]]]
	}
	for _, x := range w.canon {
		f.seenPg[x] = false
	}
}
