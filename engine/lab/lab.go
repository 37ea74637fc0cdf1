// Package lab is the facade the CLI and the UI use. A Lab is one configured,
// steppable, replayable run: it builds the machine (sim), the page allocator
// (mm), the pools (pagepool) and the scenario's workload, steps it one
// operation at a time or in batch, runs every layer's invariant checker, and
// reports the results: rate, stats, inflight, violations and profile.
package lab

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
	"pplab/engine/workload"
)

// Config is everything a run depends on: a run is a pure function of it.
type Config struct {
	Driver   string
	Scenario string
	Era      string
	Platform string
	Packets  int64
	Seed     uint64
	Knobs    sim.Knobs
	Set      []string // "knob=value", applied over Knobs (or the defaults when Knobs is zero)
	Break    []string // rule names

	plat *sim.Platform // calibration runs: a platform table under derivation
}

// DefaultPackets is the run length when Config.Packets is 0.
const DefaultPackets = 1_000_000

// MaxPackets bounds a run.
const MaxPackets = 1 << 40

// Lab is one run.
type Lab struct {
	Cfg      Config
	Scenario *Scenario
	Spec     *drivers.Spec // the driver model (driver scenarios); shared, read-only

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

	// measurement window: what was spent before the first measured operation
	startPS    []int64   // busy time per CPU
	startSpent [][]int64 // per CPU per symbol

	tracer  func(sim.Event) `pp:"observer"` // the caller's listener (SetTracer)
	tally   sim.Stats       `pp:"observer"` // counters as seen in the event stream
	tallyOn bool            `pp:"observer"` // the event stream has been seen since the first operation

	rec    recorder    `pp:"observer"` // step records (Record)
	series series      `pp:"observer"` // throughput and recycle mix over the run
	kf     keyframes   `pp:"observer"`
	ff     fastForward `pp:"observer"` // steady-state fast-forward (fastforward.go)
}

// resolved is a config checked field by field, with its defaults filled in.
type resolved struct {
	cfg   Config
	era   *sim.Era
	sc    *Scenario
	spec  *drivers.Spec
	plat  *sim.Platform
	rules sim.RuleSet
}

// Validate checks every field of cfg and their combinations without building
// the run: the error New would return before the kernel model's own checks
// (page_pool_create may still refuse parameters, as the kernel does).
func (cfg Config) Validate() error {
	_, err := cfg.resolve()
	return err
}

// resolve checks cfg and fills in its defaults. Every bad input yields one
// *sim.FieldError naming the field, the value and what is accepted.
func (cfg Config) resolve() (resolved, error) {
	var r resolved
	var err error
	if cfg.Era == "" {
		cfg.Era = sim.DefaultEra
	}
	era, err := sim.EraByName(cfg.Era)
	if err != nil {
		return r, err
	}
	if cfg.Scenario == "" {
		return r, named("scenario", "", "no scenario given (accepted: %s)", strings.Join(ScenarioNames(), ", "))
	}
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return r, err
	}
	if cfg.Driver != "" && !sc.NeedsDriver {
		return r, named("driver", cfg.Driver, "scenario %s runs without a driver (no driver for the pool-* scenarios)", sc.Name)
	}
	var spec *drivers.Spec
	if sc.NeedsDriver {
		if cfg.Driver == "" {
			cfg.Driver = sc.DefaultDriver
		}
		if spec, err = drivers.SpecByName(cfg.Driver); err != nil {
			return r, err
		}
		if !spec.Runs(sc.Name) {
			return r, named("driver", spec.Name, "driver %s does not run scenario %s (drivers for %s: %s)", spec.Name, sc.Name, sc.Name, strings.Join(sc.Drivers, ", "))
		}
		if era.Order < spec.MinEra() {
			return r, named("era", era.Name, "driver %s does not run in era %s (its frag API buffers need 5.15 or later)", spec.Name, era.Name)
		}
	}
	if len(sc.Eras) > 0 && !slices.Contains(sc.Eras, era.Name) {
		return r, named("era", era.Name, "scenario %s does not run in era %s (accepted: %s)", sc.Name, era.Name, strings.Join(sc.Eras, ", "))
	}
	if cfg.Platform == "" {
		cfg.Platform = sim.BenchX86.Name
		if spec != nil {
			cfg.Platform = spec.Platform
		}
	}
	plat := cfg.plat
	if plat == nil {
		if plat, err = sim.PlatformByName(cfg.Platform); err != nil {
			return r, err
		}
	}
	if cfg.Packets == 0 {
		cfg.Packets = DefaultPackets
	}
	if cfg.Packets < 1 || cfg.Packets > MaxPackets {
		return r, &sim.FieldError{Field: "packets", Value: fmt.Sprint(cfg.Packets), Msg: fmt.Sprintf("want an integer from 1 to %d", int64(MaxPackets))}
	}
	if cfg.Knobs == (sim.Knobs{}) {
		cfg.Knobs = sim.DefaultKnobs()
		for k, v := range sc.Knobs {
			cfg.Knobs[k] = v
		}
	}
	for _, s := range cfg.Set {
		if err := cfg.Knobs.Set(s); err != nil {
			return r, err
		}
	}
	var rules sim.RuleSet
	for _, name := range cfg.Break {
		rule, err := sim.RuleByName(name)
		if err != nil {
			return r, err
		}
		rules = rules.With(rule)
	}
	if err := checkKnobs(&cfg.Knobs); err != nil {
		return r, err
	}
	if err := checkKnobsFor(&cfg.Knobs, sc, spec, era, rules); err != nil {
		return r, err
	}
	r = resolved{cfg: cfg, era: era, sc: sc, spec: spec, plat: plat, rules: rules}
	return r, nil
}

// New validates a config and builds the run. Every bad input yields one error
// naming the input and what is accepted (a *sim.FieldError for a field).
func New(cfg Config) (*Lab, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	cfg, era, sc, spec, plat, rules := r.cfg, r.era, r.sc, r.spec, r.plat, r.rules
	m := sim.NewMachine(sim.Config{Era: era, Rules: rules, Knobs: cfg.Knobs, Platform: plat, Seed: cfg.Seed})
	l := &Lab{Cfg: cfg, Scenario: sc, m: m, Spec: spec}
	_, known := sc.KnownFailure[era.Name]
	l.canFail = rules != 0 || known
	l.a = mm.NewAllocator(m)
	l.reg = pagepool.NewRegistry(l.a)
	l.checkEvery = uint64(cfg.Knobs[sim.KnobCheckEvery])
	if cfg.Knobs[sim.KnobCheckEvery] == sim.KnobCheckEvery.Spec().Default {
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
	if f, ok := run.(finisher); ok {
		l.ownEnd = f.ownsEnd()
	}
	if run.measuring() { // no set-up phase: measure from the first operation
		l.markStart()
	}
	m.AddChecker(l)
	l.stampLog() // what set-up reported shows from op 0
	l.series.sample(l)
	l.ffInit()
	return l, nil
}

// fullCheckPages is the machine size the default full-check interval is for.
const fullCheckPages = 16384

// checkKnobs rejects knob combinations no run can honour.
func checkKnobs(k *sim.Knobs) error {
	if k[sim.KnobNid] >= k[sim.KnobNumaNodes] {
		return knobErr(sim.KnobNid, k, "the machine has %d NUMA node(s) (numa_nodes=%d): want -1 to %d", k[sim.KnobNumaNodes], k[sim.KnobNumaNodes], k[sim.KnobNumaNodes]-1)
	}
	if k[sim.KnobNumaNodes] > k[sim.KnobCPUs] {
		return knobErr(sim.KnobNumaNodes, k, "want at most one node per CPU (cpus=%d)", k[sim.KnobCPUs])
	}
	if v := k[sim.KnobRxDescs]; v != 0 && v < 2 {
		return knobErr(sim.KnobRxDescs, k, "want 0 (the driver's count) or a number from 2 to %d (even for a driver that splits pages)", sim.KnobRxDescs.Spec().Max)
	}
	if max := int64(mm.PageSize) << k[sim.KnobOrder]; k[sim.KnobMaxLen] > max {
		return knobErr(sim.KnobMaxLen, k, "want at most PAGE_SIZE << order = %d", max)
	}
	return nil
}

// minFrame is the Ethernet minimum frame without the FCS.
const minFrame = 60

// checkKnobsFor rejects knob values that do nothing in this run, or that
// the run's scenario, driver, machine or broken rules contradict: a knob's
// accepted range is the range that changes something.
func checkKnobsFor(k *sim.Knobs, sc *Scenario, spec *drivers.Spec, era *sim.Era, rules sim.RuleSet) error {
	if v := k[sim.KnobVethCPU]; v >= k[sim.KnobCPUs] {
		return knobErr(sim.KnobVethCPU, k, "the machine has %d CPUs (cpus=%d): want -1 (the redirecting CPU) or 0 to %d", k[sim.KnobCPUs], k[sim.KnobCPUs], k[sim.KnobCPUs]-1)
	}
	if v := k[sim.KnobTxCPU]; v >= k[sim.KnobCPUs] {
		return knobErr(sim.KnobTxCPU, k, "the machine has %d CPUs (cpus=%d): want 0 to %d", k[sim.KnobCPUs], k[sim.KnobCPUs], k[sim.KnobCPUs]-1)
	}
	if v := k[sim.KnobFrame]; v > 0 && v < minFrame {
		return knobErr(sim.KnobFrame, k, "below the Ethernet minimum: want 0 (the workload's size) or %d to %d bytes", minFrame, sim.KnobFrame.Spec().Max)
	}
	if v := k[sim.KnobBulk]; v > pagepool.AllocCacheSize && !rules.Broken(sim.RuleBulkDMAUnmap) {
		return knobErr(sim.KnobBulk, k, "the kernel's bulk call fills the %d-slot alloc cache and cannot ask for more: want 1 to %d (only the first bulk patch's unbounded list asks for more: --break bulk-dma-unmap)", pagepool.AllocCacheSize, pagepool.AllocCacheSize)
	}
	if spec != nil && !spec.PoolMaps(era) && k[sim.KnobDMASyncDev] == 1 {
		return knobErr(sim.KnobDMASyncDev, k, "%s maps its own RX buffers before era %s (its pool has no PP_FLAG_DMA_MAP), and PP_FLAG_DMA_SYNC_DEV needs it: page_pool_create would fail with -EINVAL (want -1 or 0, or era %s)", spec.Name, spec.PoolDMAFrom, spec.PoolDMAFrom)
	}
	if spec != nil {
		if _, err := spec.AggMode(era, k, xdpScenario(sc.Name)); err != nil {
			return knobErr(sim.KnobHWGRO, k, "%v", err)
		}
	} else if k[sim.KnobHWGRO] != -1 {
		return knobErr(sim.KnobHWGRO, k, "the %s scenario has no driver (hw_gro picks bnxt's RX path): accepted -1", sc.Name)
	}
	if off := k[sim.KnobOffset]; off != 0 {
		// The pool's sync setup as the run will build it.
		sync := k[sim.KnobDMASyncDev] == 1
		maxLen := int64(mm.PageSize) << k[sim.KnobOrder]
		if v := k[sim.KnobMaxLen]; v != 0 {
			maxLen = v
		}
		if spec != nil {
			s, _, ml := spec.DeviceSyncIn(era, bufferMode(spec, sc.Name, era), k)
			sync, maxLen = s, int64(ml)
		}
		if !sync {
			return knobErr(sim.KnobOffset, k, "page_pool_params.offset only moves where the pool syncs for the device, and this pool does not sync (dma_sync_dev=1 turns it on)")
		}
		if page := int64(mm.PageSize) << k[sim.KnobOrder]; off+maxLen > page {
			return knobErr(sim.KnobOffset, k, "offset + max_len = %d runs past the pool's page (PAGE_SIZE << order = %d): the sync for the device would cover memory outside it (lower offset or max_len=%d)", off+maxLen, page, page-off)
		}
	}
	return nil
}

// named is a FieldError whose message names the field and value.
func named(field, value, format string, args ...any) *sim.FieldError {
	return &sim.FieldError{Field: field, Value: value, Msg: fmt.Sprintf(format, args...), Named: true}
}

// knobErr is a FieldError about knob n's value in k.
func knobErr(n sim.Knob, k *sim.Knobs, format string, args ...any) *sim.FieldError {
	return &sim.FieldError{Field: n.String(), Value: fmt.Sprint(k[n]), Msg: fmt.Sprintf(format, args...), Knob: true}
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
// to find on any path (product.md §2.3), and its batch runs keep their
// sampled checks.
func (l *Lab) checkEach() bool { return l.kf.on && l.canFail }

// fullCheck runs every layer's full invariant check.
func (l *Lab) fullCheck() {
	l.m.CheckInvariants()
	l.sinceCheck = 0
}

// opChecked ends an operation once its checks ran: the log entries they
// added are stamped with the operation, and a keyframe may be taken (after
// the checks, so that a replay from it goes on exactly as the run did).
func (l *Lab) opChecked() {
	l.stampLog()
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
		if l.ff.recSeries {
			l.ffRecordPacket()
		}
		if l.packets >= l.series.next {
			l.series.sample(l)
		}
		if l.packets >= l.Cfg.Packets && !l.ownEnd {
			l.done = true
		}
	}
	if l.ownEnd && l.run.(finisher).finished() {
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

// finisher is a runner that ends on its own (destroy).
type finisher interface {
	finished() bool
	ownsEnd() bool
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
	l.Finish()
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
	l.Finish()
	return int64(l.ops - start)
}

// RunSlice is RunWhile without the closing full check: for a caller that
// runs the engine in slices and checks when it shows the state (a Step
// after the slice runs the full check, as does Finish). It returns the
// operations run.
func (l *Lab) RunSlice(n int64, more func() bool) int64 {
	start := l.ops
	l.runBatch(n, more)
	return int64(l.ops - start)
}

// RunFor runs at most n operations in batch mode, like RunN but without the
// closing full check, so that a run in chunks (a CLI that shows progress)
// checks exactly where one Run would: call Finish at the end. It reports
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
		if !l.stepBatch() {
			return false
		}
		if l.ops%lightEvery == 0 {
			i += l.ffPoint(n - i - 1)
			if more != nil && !more() {
				break
			}
		}
	}
	return !l.done
}

// Finish runs the full invariant check that ends a batch run (none when
// every operation was checked fully as it ran, checkEach: a second check
// of the same state would log again what is reported at every check while
// it lasts, e.g. skb data whose dataref disagrees with its users).
func (l *Lab) Finish() {
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

// Rate is a throughput with its unit.
type Rate struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// ProfileEntry is one line of a perf-top style profile.
type ProfileEntry struct {
	Symbol string  `json:"symbol"`
	Pct    float64 `json:"pct"`
}

// Results is what a run reports.
type Results struct {
	Driver, Scenario, Era string
	Packets               int64
	Seed                  uint64
	Rate                  Rate
	NsPerPacket           float64
	Stats                 sim.Stats
	// RingStats are the driver's RX rings' own counters (Lab.RingStats);
	// the table prints them for a driver with per-ring names (mlx5). Not in
	// the JSON.
	RingStats []sim.Stats
	// DriverStats are the driver's own counters beside page_pool's
	// (Lab.DriverStats: mlx5e's RX page cache before 6.4); nil when the
	// driver keeps none in the era. In the JSON as driver_stats.
	DriverStats []DriverStat
	Inflight    int32
	Violations  sim.ViolationLog
	Profile     []ProfileEntry
	// Lost is the packets not delivered: frames the NIC dropped for want of
	// a posted RX buffer, frames the stack dropped for want of memory (an
	// skb), frames dropped at a full TX ring; for the pool scenarios, pairs
	// whose allocation failed. Delivered = Packets - Lost; the rate counts
	// delivered packets only.
	Lost, Delivered int64
	// RxMissed is the frames the NIC dropped because too few RX descriptors
	// were posted: rtnl_link_stats64.rx_missed_errors (mlx5 fills it from
	// its rx_out_of_buffer counter).
	RxMissed int64
	// AllocFailures is page_pool_alloc_pages calls that returned NULL, over
	// the run's pools: the drivers' rx_buff_alloc_err (mlx5) or
	// refill_errors (mvneta); page_pool itself keeps no such counter.
	AllocFailures int64
	// Degenerate says why the run measures something other than its
	// scenario's steady state ("" when it does not): see degenerate. It is
	// also the first of Notes.
	Degenerate string
	Bottleneck int  // the CPU whose busy time sets the rate
	LinkBound  bool // the rate is the link's, not the CPU's
	Platform   string
	// Notes say what the numbers do not show by themselves, e.g. a broken
	// rule that never decided anything in this run.
	Notes []string
}

// Results computes the run's results from what it spent. Throughput is the
// measured packets over the busy time of the bottleneck CPU in the measured
// window; the profile is each perf symbol's share of all busy time there.
func (l *Lab) Results() Results {
	r := Results{Driver: l.Cfg.Driver, Scenario: l.Scenario.Name, Era: l.m.Era.Name, Packets: l.packets, Seed: l.Cfg.Seed,
		Violations: l.m.Log, Lost: l.lost, Delivered: l.packets - l.lost, RxMissed: l.rxMissed(), AllocFailures: l.allocFailures(), Platform: l.m.Platform.Name}
	r.Stats = l.stats()
	r.RingStats = l.RingStats()
	r.DriverStats = l.DriverStats()
	for _, p := range l.reg.Pools() {
		r.Inflight += p.Inflight()
	}
	n := len(l.m.CPUs)
	start := func(c int) int64 {
		if l.startPS == nil {
			return l.m.CPUs[c].BusyPS() // nothing measured yet
		}
		return l.startPS[c]
	}
	var worst int64
	for c := 0; c < n; c++ {
		if b := l.m.CPUs[c].BusyPS() - start(c); b > worst {
			worst, r.Bottleneck = b, c
		}
	}
	measured := l.measuredDelivered()
	r.Rate = Rate{Unit: "kpps"}
	r.Rate.Value, r.LinkBound = l.kpps(measured, worst)
	if measured > 0 && worst > 0 {
		r.NsPerPacket = float64(worst) / float64(measured) / sim.PSPerNS
	}
	bySym := map[string]int64{}
	var total int64
	for name, v := range l.spentBySymbol() {
		bySym[name] += v
		total += v
	}
	for name, v := range bySym {
		r.Profile = append(r.Profile, ProfileEntry{Symbol: name, Pct: round2(100 * float64(v) / float64(total))})
	}
	sort.Slice(r.Profile, func(i, j int) bool {
		if r.Profile[i].Pct != r.Profile[j].Pct {
			return r.Profile[i].Pct > r.Profile[j].Pct
		}
		return r.Profile[i].Symbol < r.Profile[j].Symbol
	})
	r.Notes = l.notes()
	if r.Degenerate = degenerate(r); r.Degenerate != "" {
		r.Notes = append([]string{r.Degenerate}, r.Notes...)
	}
	return r
}

// Degenerate-run thresholds, in parts per million: a run is degenerate
// when more than DegenerateMissedPPM of its packets were dropped by the NIC
// for want of a posted RX buffer (the ring ran dry: the driver is not
// refilling it), when more than DegenerateLostPPM of its packets were lost
// in all, or when more than DegenerateAllocFailPPM of its page allocations
// failed. Failure injection at its usual rates (2 %) stays under the last
// two.
const (
	DegenerateMissedPPM    = 10_000  // 1 %
	DegenerateLostPPM      = 100_000 // 10 %
	DegenerateAllocFailPPM = 100_000 // 10 % of the allocations (alloc_fast + alloc_slow + alloc_slow_ho + the NULLs)
)

// degenerate is the notice for a run that does not measure its scenario's
// steady state (the rule and the thresholds above); it names the rule and
// the numbers. "" when the run is not degenerate.
func degenerate(r Results) string {
	allocs := int64(r.Stats[sim.StatAllocFast]+r.Stats[sim.StatAllocSlow]+r.Stats[sim.StatAllocSlowHighOrder]) + r.AllocFailures
	over := func(n, of, ppm int64) bool { return of > 0 && n*1_000_000 > ppm*of }
	missedBad := over(r.RxMissed, r.Packets, DegenerateMissedPPM)
	lostBad := over(r.Lost, r.Packets, DegenerateLostPPM)
	allocBad := over(r.AllocFailures, allocs, DegenerateAllocFailPPM)
	if !missedBad && !lostBad && !allocBad {
		return ""
	}
	pct := func(a, b int64) string { return strconv.FormatFloat(100*float64(a)/float64(b), 'f', 1, 64) + " %" }
	var why []string
	if r.RxMissed > 0 {
		why = append(why, fmt.Sprintf("%d dropped by the NIC for want of a posted RX buffer, rx_missed_errors", r.RxMissed))
	}
	if other := r.Lost - r.RxMissed; other > 0 {
		if r.Driver == "" {
			why = append(why, fmt.Sprintf("%d whose page allocation failed", other))
		} else {
			why = append(why, fmt.Sprintf("%d dropped after the NIC: no memory for an skb, a full TX ring or a TX mapping error", other))
		}
	}
	var b strings.Builder
	b.WriteString("degenerate run: ")
	if r.Lost > 0 {
		fmt.Fprintf(&b, "%s of the packets were lost (%d of %d", pct(r.Lost, r.Packets), r.Lost, r.Packets)
		if len(why) > 0 {
			fmt.Fprintf(&b, "; %s", strings.Join(why, "; "))
		}
		b.WriteString(")")
	}
	if allocBad {
		if r.Lost > 0 {
			b.WriteString(", and ")
		}
		fmt.Fprintf(&b, "%s of the page allocations failed (%d of %d page_pool_alloc_pages calls returned NULL, rx_buff_alloc_err)", pct(r.AllocFailures, allocs), r.AllocFailures, allocs)
	}
	fmt.Fprintf(&b, " — over the limits of a steady-state run (1 %% of the packets missed for want of an RX buffer, 10 %% lost in all, 10 %% of the allocations failed); the rate counts the %d delivered packets only", r.Delivered)
	return b.String()
}

// rxMissed is the driver's frames dropped for want of a posted RX buffer.
func (l *Lab) rxMissed() int64 {
	if l.drv == nil {
		return 0
	}
	return l.drv.Missed
}

// allocFailures is the NULL returns of page_pool_alloc_pages over the pools.
func (l *Lab) allocFailures() int64 {
	var n int64
	for _, p := range l.reg.Pools() {
		n += p.AllocFailures()
	}
	return n
}

// notes: each broken rule whose check never decided anything in this run
// (the scenario never reaches a state where the rule matters), and a
// machine too small for the driver's RX ring.
func (l *Lab) notes() []string {
	var out []string
	if n := l.statsEraNote(); n != "" {
		out = append(out, n)
	}
	if l.drv != nil && l.drv.RingSize() > l.a.NumPages() {
		out = append(out, fmt.Sprintf("the machine has %d pages (node_pages × numa_nodes), fewer than %s's %d RX descriptors: the ring never fills, the run measures memory exhaustion",
			l.a.NumPages(), l.Spec.Name, l.drv.RingSize()))
	}
	if l.drv != nil && l.Scenario.Name == workload.WTCPStream && !l.Spec.GRO && l.m.Knobs[sim.KnobGRO] != 0 {
		out = append(out, fmt.Sprintf("%s hands its skbs to netif_receive_skb, not napi_gro_receive: no GRO, every segment goes up the stack alone", l.Spec.Name))
	}
	decided := l.m.Decided()
	for _, r := range sim.AllRules() {
		if !l.m.Rules.Broken(r) || decided.Broken(r) {
			continue
		}
		where := "nowhere with the other rules intact"
		if sc := RuleExercisedIn[r.String()]; len(sc) > 0 {
			where = strings.Join(sc, ", ")
		}
		out = append(out, fmt.Sprintf("rule %s is broken, but it never decided anything in this run: %s in era %s never reaches a state it guards (it decides in: %s)",
			r, l.Scenario.Name, l.m.Era.Name, where))
	}
	return out
}

// measuredDelivered is the packets delivered (completed, not lost) in the
// measured window: what the rate counts.
func (l *Lab) measuredDelivered() int64 {
	if dr, ok := l.run.(*driverRun); ok {
		return dr.n - dr.warm - (dr.env.Lost - dr.lost0)
	}
	return l.packets - l.lost
}

// measuredPackets is the packets completed in the measured window.
func (l *Lab) measuredPackets() int64 {
	if dr, ok := l.run.(*driverRun); ok {
		return dr.n - dr.warm
	}
	return l.packets
}

// FrameBytes is the frame size of a driver scenario's packets (0 otherwise).
func (l *Lab) FrameBytes() int {
	if dr, ok := l.run.(*driverRun); ok {
		return dr.env.Frame
	}
	return 0
}

// linkKpps is the link's packet rate for the scenario's frames, 0 without a
// driver.
func (l *Lab) linkKpps() float64 {
	if f := l.FrameBytes(); f > 0 {
		return l.m.Platform.LinkPPS(f) / 1e3
	}
	return 0
}

// ProfileName is the symbol a profile of this run shows for s.
func (l *Lab) ProfileName(s sim.Sym) string {
	if l.Spec != nil {
		return l.Spec.ProfileName(l.m.Platform, s)
	}
	return l.m.Platform.ProfileName(s)
}

// measuredSpentPS is the picoseconds cpu spent in s in the measured window.
func (l *Lab) measuredSpentPS(cpu int, s sim.Sym) int64 {
	v := l.m.SpentPS(cpu, s)
	if l.startSpent != nil {
		v -= l.startSpent[cpu][s]
	}
	return v
}

// spentBySymbol is the picoseconds spent per profile symbol over all CPUs in
// the measured window.
func (l *Lab) spentBySymbol() map[string]int64 {
	out := map[string]int64{}
	for c := range l.m.CPUs {
		for s := sim.Sym(1); s < sim.NumSyms; s++ {
			if v := l.measuredSpentPS(c, s); v > 0 {
				out[l.ProfileName(s)] += v
			}
		}
	}
	return out
}

// SymbolNS is the nanoseconds per measured packet spent per profile symbol
// over all CPUs (what a system-wide perf top attributes to each symbol).
func (l *Lab) SymbolNS() map[string]float64 {
	n := l.measuredPackets()
	out := map[string]float64{}
	if n <= 0 {
		return out
	}
	for name, v := range l.spentBySymbol() {
		out[name] = float64(v) / sim.PSPerNS / float64(n)
	}
	return out
}

// symNS is the nanoseconds per measured packet spent in each modelled
// function over all CPUs: the callers behind one profile symbol, apart.
func (l *Lab) symNS() map[sim.Sym]float64 {
	n := l.measuredPackets()
	out := map[sim.Sym]float64{}
	if n <= 0 {
		return out
	}
	for c := range l.m.CPUs {
		for s := sim.Sym(1); s < sim.NumSyms; s++ {
			if v := l.measuredSpentPS(c, s); v > 0 {
				out[s] += float64(v) / sim.PSPerNS / float64(n)
			}
		}
	}
	return out
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

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
