// Package lab is the facade the CLI, the UI and the what-if (engine/perf)
// use. A Lab is one configured, steppable, seekable run: it builds the
// machine (sim), the page allocator (mm), the pools (pagepool) and the
// scenario's workload, steps it one operation at a time or in batch, runs
// every layer's invariant checker, and reports the results: rate, stats,
// inflight, violations and profile. Its rooms:
//
//   - lab.go: the Lab and its step loop; config.go: a Config, its URL form
//     and its checks; results.go: Results and the notes beside them;
//   - scenario.go, driverscenarios.go: the scenarios and how each is built;
//   - snapshot.go, record.go, series.go: the values a UI draws (a Snapshot,
//     a step's record, the charts' series); edit.go: the edits a UI makes;
//   - seek.go: keyframes and Seek (a run replays exactly), a keyframe a
//     deep copy of the run made by package state;
//   - ffhost.go: the Lab as the steady-state fast-forward's host (package
//     fastforward: search, verification, skips of batch runs);
//   - measure.go: the one call engine/perf reads a run through.
//
// Its internal packages: state (internal/state) is the one walker of a
// run's object graph, behind both the keyframes' copies and the
// fast-forward's walks, with each field's policy a pp:"…" struct tag (its
// package doc is the vocabulary); fastforward (internal/fastforward) finds
// a run's cycle and skips whole cycles, through a small Host interface.
package lab

import (
	"fmt"
	"slices"

	"pplab/engine/drivers"
	"pplab/engine/lab/internal/fastforward"
	"pplab/engine/lab/internal/series"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// Lab is one run: a pure function of its Config (the same config steps
// through the same operations, to the byte).
//
// Contract: a Lab is driven by one goroutine at a time (the UI's session,
// the CLI, a test); nothing in it is safe for concurrent use. It is not
// copyable — its state holds pointers into itself — and vet's copylocks
// check says so (noCopy). A copy of a run is a keyframe (seek.go), made for
// Seek: never a second Lab to run.
type Lab struct {
	_ noCopy

	cfg      Config
	scenario *Scenario
	spec     *drivers.Spec // the driver model (driver scenarios); shared, read-only

	// The engine's objects: the Lab's own. Callers see values (Snapshot,
	// StepRecord, Results), never these pointers.
	m     *sim.Machine
	a     *mm.Allocator
	reg   *pagepool.Registry
	pool  *pagepool.Pool  // the scenario's pool (the first one)
	stack *skb.Stack      // the skb layer, for scenarios that build skbs
	drv   *drivers.Driver // the driver (driver scenarios)

	run        runner
	ownEnd     bool   // the runner, not the packet count, ends the run (destroy): cached, not asserted per step
	ops        uint64 `pp:"counter"`
	packets    int64  `pp:"counter"`
	lost       int64  `pp:"counter"` // packets not delivered (lost frames; pool pairs whose allocation failed)
	err        error  // a scenario step that could not go on (e.g. out of memory)
	done       bool
	checkEvery uint64
	sinceCheck uint64 `pp:"scratch"`
	stamped    int    `pp:"scratch"` // log entries whose At is set (stampLog)
	canFail    bool   // a rule is broken, or the era's kernel shows the scenario's failure (Scenario.KnownFailure)
	checkAll   bool   // check fully after every operation, as a seekable run does (a comparison's runs: compare.go)
	known      []sim.Kind

	// measurement window: what was spent before the first measured operation
	startPS    []int64   // busy time per CPU
	startSpent [][]int64 // per CPU per symbol

	tracer  func(sim.Event) `pp:"observer"` // the caller's listener (SetTracer)
	tally   sim.Stats       `pp:"observer"` // counters as seen in the event stream
	tallyOn bool            `pp:"observer"` // the event stream has been seen since the first operation

	rec       recorder          `pp:"observer"` // step records (Record)
	series    series.Series     `pp:"observer"` // throughput and recycle mix over the run (package series)
	seriesBuf []int64           `pp:"observer"` // scratch: the sums a window's close reads
	kf        keyframes         `pp:"observer"`
	ff        fastforward.State `pp:"observer"` // steady-state fast-forward (package fastforward; ffhost.go)
	mk        markerTrack       `pp:"observer"` // the run's markers (markers.go)
}

// New validates a config and builds the run. Every bad input yields one error
// naming the input and what is accepted (a *sim.FieldError for a field).
func New(cfg Config) (*Lab, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	cfg, era, sc, spec, plat, rules := r.cfg, r.era, r.sc, r.spec, r.plat, r.rules
	m := sim.NewMachine(sim.Config{Era: era, Rules: rules, Knobs: r.knobs, Platform: plat, Seed: cfg.Seed})
	l := &Lab{cfg: cfg, scenario: sc, m: m, spec: spec}
	l.known = sc.KnownFailure(r.known())
	l.canFail = rules != 0 || len(l.known) > 0
	l.a = mm.NewAllocator(m)
	l.reg = pagepool.NewRegistry(l.a)
	l.checkEvery = uint64(r.knobs[sim.KnobCheckEvery])
	if r.knobs[sim.KnobCheckEvery] == sim.KnobCheckEvery.Spec().Default {
		// The full check walks every page: at the default interval its cost
		// per operation grows with the machine (node_pages=1048576 made a
		// run 4.2× slower). The default keeps it per page constant: one full
		// check per 65536 operations per 16384 pages (the default machine).
		// An interval the caller sets is kept as set.
		l.checkEvery *= uint64(max(1, (l.a.NumPages()+fullCheckPages-1)/fullCheckPages))
	}
	run, err := sc.newRun(l)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	l.run = run
	l.ownEnd = run.ownsEnd()
	if run.measuring() { // no set-up phase: measure from the first operation
		l.markStart()
	}
	m.AddChecker(l)
	l.stampLog() // what set-up reported shows from op 0
	l.sample()
	l.ffInit()
	return l, nil
}

// SetTracer installs an event listener (nil removes it). Installed before the
// first step, the Lab also checks the counters against the event stream.
func (l *Lab) SetTracer(fn func(sim.Event)) {
	l.tracer = fn
	l.listen()
}

// listen installs the machine's event listener when the caller traces or
// steps are recorded, and removes it otherwise (batch runs build no events).
func (l *Lab) listen() {
	if l.tracer == nil && !l.rec.on {
		l.m.SetTracer(nil)
		l.tallyOn = false
		return
	}
	if !l.m.Tracing() {
		l.tallyOn = l.ops == 0
	}
	l.m.SetTracer(l.onEvent)
}

func (l *Lab) onEvent(e sim.Event) {
	if e.Stat != sim.StatNone && e.Stat < sim.NumStats {
		l.tally[e.Stat]++
	}
	if l.rec.on && !l.rec.paused {
		l.rec.events = append(l.rec.events, e)
	}
	if l.tracer != nil {
		l.tracer(e)
	}
}

// fail stops the run with an error (reported by Err).
func (l *Lab) fail(err error) {
	if l.err == nil {
		l.err = err
	}
	l.done = true
}

// Config is the config the run was made from (a copy: the caller's to
// change, as New's argument was).
func (l *Lab) Config() Config {
	c := l.cfg
	c.Break = slices.Clone(c.Break)
	return c
}

// Err is the error that stopped the run early, if any.
func (l *Lab) Err() error { return l.err }

// Done reports whether the run has finished its packets.
func (l *Lab) Done() bool { return l.done }

// Ops is the number of operations run.
func (l *Lab) Ops() uint64 { return l.ops }

// Packets is the number of packets completed.
func (l *Lab) Packets() int64 { return l.packets }

// Next names the operation the next Step will run.
func (l *Lab) Next() string {
	if l.done {
		return ""
	}
	return l.run.next()
}

// Step runs one operation and then the full invariant checker (step mode).
// It returns false once the run is complete.
func (l *Lab) Step() bool {
	if l.done {
		return false
	}
	if l.rec.on {
		l.beginRecord()
	}
	l.stepOne()
	l.fullCheck()
	l.opChecked()
	if l.rec.on {
		l.endRecord()
	}
	return !l.done
}

// checkEach reports whether every path checks fully after each operation:
// a seekable Lab (EnableSeek) whose run can report violations — a rule is
// broken, or the era's kernel has the scenario's failure (split-page in
// 5.14). Step always checks so; batch runs and Seek's replay then do too,
// so the violation log after operation n is the same whatever mix of Step,
// RunN, RunWhile and Seek reached it (seek.go). Any other run has nothing
// to find on any path, and its batch runs keep their
// sampled checks.
func (l *Lab) checkEach() bool { return (l.kf.on || l.checkAll) && l.canFail }

// fullCheck runs every layer's full invariant check.
func (l *Lab) fullCheck() {
	l.m.CheckInvariants()
	l.sinceCheck = 0
}

// opChecked ends an operation once its checks ran: the log entries they
// added are stamped with the operation, and a keyframe may be taken (after
// the checks, so that a replay from it goes on exactly as the run did).
func (l *Lab) opChecked() {
	// A batch run that logged nothing, with no markers and no keyframes,
	// has nothing to do here: the test inlines into the step loop.
	if len(l.m.Log.List) != l.stamped || l.mk.on || l.kf.on {
		l.opCheckedSlow()
	}
}

func (l *Lab) opCheckedSlow() {
	if len(l.m.Log.List) != l.stamped {
		l.stampLog()
	}
	if l.mk.on {
		l.markerObserve()
	}
	if l.kf.on && l.ops%l.kf.every == 0 {
		l.kf.capture(l)
	}
}

// stampLog sets At on the log entries added since the last stamp: the
// operation count at which the log first lists them.
func (l *Lab) stampLog() {
	list := l.m.Log.List
	for i := l.stamped; i < len(list); i++ {
		list[i].At = l.ops
	}
	l.stamped = len(list)
}

func (l *Lab) stepOne() bool {
	if l.done {
		return false
	}
	setUp := l.startPS == nil // measuring has not started: see whether this step starts it
	if l.run.step(l) {
		l.packets++
		if l.ff.Recording() {
			l.ff.RecordPacket(l.host())
		}
		if l.packets >= l.series.Next() {
			l.sample()
		}
		if l.packets >= l.cfg.Packets && !l.ownEnd {
			l.done = true
		}
	}
	if l.ownEnd && l.run.finished() {
		l.done = true
	}
	l.ops++
	if l.m.PendingTimers() > 0 {
		l.m.RunTimers()
	}
	if setUp {
		l.markStart()
	}
	return true
}

// markStart records the spend so far once set-up is over.
func (l *Lab) markStart() {
	if !l.run.measuring() || l.startPS != nil {
		return
	}
	n := len(l.m.CPUs)
	l.startPS = make([]int64, n)
	l.startSpent = make([][]int64, n)
	for c := 0; c < n; c++ {
		l.startPS[c] = l.m.CPUs[c].BusyPS()
		l.startSpent[c] = make([]int64, sim.NumSyms)
		for s := sim.Sym(0); s < sim.NumSyms; s++ {
			l.startSpent[c][s] = l.m.SpentPS(c, s)
		}
	}
}

// lightEvery: batch mode runs the light check (conditions that stay recorded
// until checked) every lightEvery operations; per-page tests run inline where
// pages move, so no one-operation failure slips between checks.
const lightEvery = 64

// Run runs the remaining operations in batch mode: per-page checks inline, the
// light invariant check every 64 operations, the full one every check_every
// operations and once at the end.
func (l *Lab) Run() { l.RunN(-1) }

// RunN runs at most n operations (n < 0: until done) in batch mode.
func (l *Lab) RunN(n int64) {
	l.runBatch(n, nil)
	l.FinalCheck()
}

// RunWhile runs at most n operations in batch mode, like RunN (with its
// closing full check), and stops sooner once more returns false; more is
// asked at every 64th operation of the run, after the fast-forward's turn
// there (a UI passes a frame's deadline: a slice then runs as many
// operations as its time allows, whole skipped cycles included).
// more must not change the Lab. It returns the operations run.
func (l *Lab) RunWhile(n int64, more func() bool) int64 {
	start := l.ops
	l.runBatch(n, more)
	l.FinalCheck()
	return int64(l.ops - start)
}

// RunSlice is RunWhile without the closing full check: for a caller that
// runs the engine in slices and checks when it shows the state (a Step
// after the slice runs the full check, as does FinalCheck). It returns the
// operations run.
func (l *Lab) RunSlice(n int64, more func() bool) int64 {
	start := l.ops
	l.runBatch(n, more)
	return int64(l.ops - start)
}

// RunFor runs at most n operations in batch mode, like RunN but without the
// closing full check, so that a run in chunks (a CLI that shows progress)
// checks exactly where one Run would: call FinalCheck at the end. It reports
// whether the run can go on.
func (l *Lab) RunFor(n int64) bool { return l.runBatch(max(n, 0), nil) }

// runBatch is every batch run's loop: at most n operations (n < 0: until
// done), the fast-forward's turn at every 64th operation of the run (it may
// add whole cycles, counted in n), more (nil: always) asked after it. It
// reports whether the run can go on.
func (l *Lab) runBatch(n int64, more func() bool) bool {
	l.pauseRecord(true)
	defer l.pauseRecord(false)
	for i := int64(0); n < 0 || i < n; i++ {
		if k := l.quietOps(n, i); k > 0 {
			// The operations before the next check point: stepBatch's
			// work without its tests, none of which can pass there.
			if i += l.run.quiet(l, k); n >= 0 && i >= n {
				break
			}
		}
		if !l.stepBatch() {
			return false
		}
		if l.ops%lightEvery == 0 {
			i += l.ff.Point(l.host(), n-i-1)
			if more != nil && !more() {
				break
			}
		}
	}
	return !l.done
}

// quietOps is how many operations from the i-th of a batch run of n (n < 0:
// no limit) runQuiet may run: the operations before the next one that ends
// on a check or a fast-forward point (a multiple of lightEvery, the full
// check's interval), when nothing else needs an operation's attention —
// measuring has started, the runner does not own the run's end, the
// fast-forward is not recording, no markers, keyframes or per-operation
// checking, and check_every a multiple of lightEvery (the light check then
// keeps to the operation count). 0: stepBatch runs the next operation.
func (l *Lab) quietOps(n, i int64) int64 {
	if l.done || l.startPS == nil || l.ownEnd || l.ff.Recording() || l.mk.on || l.kf.on ||
		l.checkEvery%lightEvery != 0 || l.sinceCheck+1 >= l.checkEvery {
		return 0
	}
	k := min(int64(lightEvery-1-l.ops%lightEvery), int64(l.checkEvery-l.sinceCheck-1))
	if n >= 0 {
		k = min(k, n-i)
	}
	return k
}

// runQuiet runs at most k operations (quietOps) as stepBatch does, with
// only the tests that can pass between check points: a packet completed (a
// series window to close, the run's end), a timer due, log entries to
// stamp. It stops early once the run is done and returns the operations
// run.
func (l *Lab) runQuiet(k int64) int64 {
	m := l.m
	for j := int64(0); j < k; j++ {
		if l.done {
			return j
		}
		if l.run.step(l) {
			l.packets++
			if l.packets >= l.series.Next() {
				l.sample()
			}
			if l.packets >= l.cfg.Packets {
				l.done = true
			}
		}
		l.ops++
		if m.PendingTimers() > 0 {
			m.RunTimers()
		}
		l.sinceCheck++
		if len(m.Log.List) != l.stamped {
			l.stampLog()
		}
	}
	return k
}

// FinalCheck runs the full invariant check that ends a batch run (none when
// every operation was checked fully as it ran, checkEach: a second check
// of the same state would log again what is reported at every check while
// it lasts, e.g. skb data whose dataref disagrees with its users).
func (l *Lab) FinalCheck() {
	if l.checkEach() {
		return
	}
	l.fullCheck()
	l.stampLog()
}

// TimeNS is the machine's simulated time so far.
func (l *Lab) TimeNS() int64 { return l.m.NowPS() / sim.PSPerNS }

// stepBatch runs one operation in batch mode (no record; the light check
// after every 64th operation of the run, the full one every check_every).
// The light check keeps to the run's operation count, not to the last full
// check, so a Step in between (the UI's) does not move it: the fast-forward
// samples right after it. A check_every that is not a multiple of 64 keeps
// the light check 64 operations after the last full one. With checkEach
// every operation is checked fully, as Step does.
func (l *Lab) stepBatch() bool {
	if !l.stepOne() {
		return false
	}
	light := l.ops
	if l.checkEvery%lightEvery != 0 {
		light = l.sinceCheck + 1
	}
	if l.sinceCheck++; l.sinceCheck >= l.checkEvery || l.checkEach() {
		l.fullCheck()
	} else if light%lightEvery == 0 {
		l.m.CheckTouched()
	}
	l.opChecked()
	return true
}

// CheckInvariants is the lab's own check: the counters agree with the event
// stream (when a tracer has listened from the start).
func (l *Lab) CheckInvariants(m *sim.Machine) {
	if !l.tallyOn {
		return
	}
	st := l.stats()
	if st != l.tally {
		for i := range st {
			if st[i] != l.tally[i] {
				m.Report(sim.KindPageInTwoPlaces, -1, sim.RuleNone, "counter %s is %d but the event stream shows %d", sim.Stat(i), st[i], l.tally[i])
			}
		}
		l.tally = st // report a divergence once
	}
}

// CheckTouched: the counter comparison is cheap; run it in full.
func (l *Lab) CheckTouched(m *sim.Machine) { l.CheckInvariants(m) }

// ReplayTo builds the run of cfg, seekable (EnableSeek), and brings it to
// the state after n operations (Seek): a run is a pure function of its
// config, so this is the state — and the violation log — that stepping
// reaches there.
func ReplayTo(cfg Config, n uint64) (*Lab, error) {
	l, err := New(cfg)
	if err != nil {
		return nil, err
	}
	l.EnableSeek()
	l.Seek(n)
	return l, nil
}

// noCopy makes go vet's copylocks check refuse a Lab copied by value.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
