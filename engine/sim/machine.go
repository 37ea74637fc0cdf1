package sim

import (
	"fmt"
	"sort"
)

// PSPerNS converts the engine's picoseconds to nanoseconds.
const PSPerNS = 1000

// CPU is one simulated CPU. Its clock is the time it has spent (busy) plus the
// time it idled; costs are charged to the CPU that runs the modelled function.
// Only the busy time accumulates per charge; the clock is derived (one add
// per Charge fewer on the hot path).
type CPU struct {
	ID      int
	Node    int
	Softirq bool            // the CPU is currently running in softirq context
	busyPS  int64           `pp:"counter"`
	idlePS  int64           `pp:"counter"`
	spent   [symSlots]int64 `pp:"counter"` // ps per symbol (indexed by a Sym without a bounds check)
}

// NowNS is the CPU's clock in integer nanoseconds.
func (c *CPU) NowNS() int64 { return c.NowPS() / PSPerNS }

// NowPS is the CPU's clock in picoseconds.
func (c *CPU) NowPS() int64 { return c.busyPS + c.idlePS }

// idleTo brings the clock forward to ps if it is behind.
func (c *CPU) idleTo(ps int64) {
	if now := c.busyPS + c.idlePS; now < ps {
		c.idlePS += ps - now
	}
}

// BusyPS is the time the CPU spent in charged functions.
func (c *CPU) BusyPS() int64 { return c.busyPS }

// Checker re-checks one layer's invariants and reports into the violation log.
// CheckInvariants is the full check (every page, every counter); CheckTouched is
// the light check of what the last operations touched, cheap enough to run
// after every operation in batch mode, so that a failure that lasts one
// operation is still caught between two full checks.
type Checker interface {
	CheckInvariants(m *Machine)
	CheckTouched(m *Machine)
}

// Op is the operation in progress: what a violation is attributed to.
type Op struct {
	Seq uint64 `pp:"counter"`
	Sym Sym
	CPU int
}

// Timer is deferred work (a delayed workqueue item). Timers are values the
// machine holds, not closures, so a run's whole state can be copied (the
// lab's keyframes).
type Timer interface{ Fire() }

// TimerFunc adapts a function to a Timer (tests; a run that must be copied
// uses a Timer value instead).
type TimerFunc func()

func (f TimerFunc) Fire() { f() }

type timer struct {
	atPS int64
	seq  uint64
	t    Timer
}

// Move is one page move, recorded at the one place every move passes
// (mm.Page.MoveTo) while the machine records moves (step mode).
type Move struct {
	Seq        uint64 // the operation during which the page moved
	PFN        int32
	From, To   Place
	FromHolder int32
	ToHolder   int32
}

// Machine is the simulated machine one run uses: CPUs, era, broken rules,
// knobs, costs, tracer, violation log, random source and timers. The layers
// above hold a *Machine; it never holds them (only their Checkers).
//
// A Machine is not safe for concurrent use: like NAPI, it is driven by one
// goroutine at a time.
type Machine struct {
	CPUs     []CPU
	Era      *Era
	Rules    RuleSet
	Knobs    Knobs
	Platform *Platform
	Log      ViolationLog `pp:"observer"`
	Rand     Rand

	cost     costPS
	tracer   func(Event) `pp:"observer"`
	op       Op
	seq      uint64    `pp:"counter"`
	checkers []Checker `pp:"observer"`
	pass     uint64    `pp:"scratch"` // full checks begun (CheckPass)
	checking bool      `pp:"scratch"` // a full check is running
	timers   []timer
	tseq     uint64 `pp:"counter"`

	decided RuleSet // rules whose check decided something in this run (Broken, Decide)

	recMoves bool   `pp:"observer"`
	moves    []Move `pp:"observer"`
	stepOp   Op     `pp:"observer"` // the first operation begun since MarkStep
	stepped  bool   `pp:"observer"` // an operation was begun since MarkStep
}

// Config configures a Machine.
type Config struct {
	Era      *Era
	Rules    RuleSet
	Knobs    Knobs
	Platform *Platform
	Seed     uint64
}

// NewMachine builds a machine from a config; CPUs are spread over the NUMA
// nodes round-robin by blocks (cpu i is on node i*nodes/cpus).
func NewMachine(c Config) *Machine {
	if c.Era == nil {
		c.Era, _ = EraByName(DefaultEra)
	}
	if c.Platform == nil {
		c.Platform = &BenchX86
	}
	ncpu := int(c.Knobs[KnobCPUs])
	if ncpu < 1 {
		ncpu = 1
	}
	nodes := int(c.Knobs[KnobNumaNodes])
	if nodes < 1 {
		nodes = 1
	}
	if mode := c.Knobs[KnobSRSO]; mode != 0 {
		c.Platform = c.Platform.WithSRSO(mode) // the lab refuses it off x86
	}
	m := &Machine{Era: c.Era, Rules: c.Rules, Knobs: c.Knobs, Platform: c.Platform, Rand: NewRand(c.Seed)}
	m.CPUs = make([]CPU, ncpu)
	for i := range m.CPUs {
		m.CPUs[i] = CPU{ID: i, Node: i * nodes / ncpu, Softirq: c.Knobs[KnobSoftirq] != 0}
	}
	m.cost = c.Platform.compile()
	return m
}

// Coherent reports whether DMA is I/O-coherent in this run: the coherent
// knob when set, else the platform's.
func (m *Machine) Coherent() bool {
	if k := m.Knobs[KnobCoherent]; k >= 0 {
		return k == 1
	}
	return m.Platform.Coherent
}

// Broken reports whether rule r is broken in this run. Call it where the
// rule decides: where the check it names fails, so that breaking the rule
// changes what happens. It records that the rule decided something in this
// run (Decided). A check that runs whether or not it matters uses
// m.Rules.Broken, and Decide where the outcome depends on the rule.
func (m *Machine) Broken(r Rule) bool {
	m.decided = m.decided.With(r)
	return m.Rules.Broken(r)
}

// Decide records that rule r's check decided something (for a check site
// that consults the rule unconditionally).
func (m *Machine) Decide(r Rule) { m.decided = m.decided.With(r) }

// Decided is the set of rules whose check decided something in this run:
// a broken rule outside it changed nothing.
func (m *Machine) Decided() RuleSet { return m.decided }

// Charge charges one call of s with the given units (bytes or pages) on cpu and
// returns its cost in picoseconds.
func (m *Machine) Charge(cpu int, s Sym, units int) int64 {
	ps := m.cost.fixed[s]
	if units != 0 {
		ps += m.cost.perUnit[s] * int64(units) / 1000
	}
	c := &m.CPUs[cpu]
	c.busyPS += ps
	c.spent[s] += ps
	return ps
}

// Charge4 is Charge of four symbols' fixed costs, one after the other, on
// cpu (the stack's receive path charges four at once): the same sums, the
// CPU found once.
func (m *Machine) Charge4(cpu int, a, b, c, d Sym) {
	pa, pb, pc, pd := m.cost.fixed[a], m.cost.fixed[b], m.cost.fixed[c], m.cost.fixed[d]
	x := &m.CPUs[cpu]
	x.busyPS += pa + pb + pc + pd
	x.spent[a] += pa
	x.spent[b] += pb
	x.spent[c] += pc
	x.spent[d] += pd
}

// ChargeExtra charges an extra cost in cycles to s on cpu (costs the platform
// table does not hold per symbol, e.g. a cross-CPU cacheline transfer).
func (m *Machine) ChargeExtra(cpu int, s Sym, cycles int64) int64 {
	ps := cycles * 1_000_000 / m.Platform.MHz
	c := &m.CPUs[cpu]
	c.busyPS += ps
	c.spent[s] += ps
	return ps
}

// ChargeNS charges ns nanoseconds to s on cpu (work whose cost a knob
// gives in time, not the platform's cycles: the application's own work).
func (m *Machine) ChargeNS(cpu int, s Sym, ns int64) int64 {
	ps := ns * PSPerNS
	c := &m.CPUs[cpu]
	c.busyPS += ps
	c.spent[s] += ps
	return ps
}

// IdleUntil advances cpu's clock to ps if it is behind (the CPU waited for
// work: a reader for data, a NAPI for frames); it returns the time idled.
func (m *Machine) IdleUntil(cpu int, ps int64) int64 {
	c := &m.CPUs[cpu]
	d := ps - c.NowPS()
	if d <= 0 {
		return 0
	}
	c.idlePS += d
	return d
}

// Idle advances cpu's clock by ns without charging any symbol.
func (m *Machine) Idle(cpu int, ns int64) { m.CPUs[cpu].idlePS += ns * PSPerNS }

// SpentPS returns the picoseconds cpu spent in symbol s.
func (m *Machine) SpentPS(cpu int, s Sym) int64 { return m.CPUs[cpu].spent[s] }

// NowPS is the machine's time: the furthest CPU clock.
func (m *Machine) NowPS() int64 {
	var t int64
	for i := range m.CPUs {
		if now := m.CPUs[i].NowPS(); now > t {
			t = now
		}
	}
	return t
}

// NodeOf returns cpu's NUMA node (numa_mem_id()).
func (m *Machine) NodeOf(cpu int) int { return m.CPUs[cpu].Node }

// Begin marks the start of a top-level operation: violations found until the
// next Begin are attributed to it.
func (m *Machine) Begin(cpu int, s Sym) {
	m.seq++
	m.op = Op{Seq: m.seq, Sym: s, CPU: cpu}
	if !m.stepped {
		m.stepOp, m.stepped = m.op, true
	}
}

// MarkStep starts a new step of the caller's (one Lab operation may begin
// several kernel operations): StepOp then reports the first one begun.
func (m *Machine) MarkStep() { m.stepped = false }

// StepOp is the first operation begun since MarkStep, and whether there was one.
func (m *Machine) StepOp() (Op, bool) { return m.stepOp, m.stepped }

// RecordMoves turns move recording on or off. While on, every page move is
// appended to the machine's move list (TakeMoves empties it).
// Recording reports whether page moves are being recorded (step mode).
func (m *Machine) Recording() bool { return m.recMoves }

func (m *Machine) RecordMoves(on bool) {
	m.recMoves = on
	m.moves = m.moves[:0]
}

// Moved records a page move when recording is on. It is called by
// mm.Page.MoveTo, the choke point every move passes; nowhere else.
func (m *Machine) Moved(pfn int32, from Place, fromHolder int32, to Place, toHolder int32) {
	if m.recMoves {
		m.moves = append(m.moves, Move{Seq: m.op.Seq, PFN: pfn, From: from, To: to, FromHolder: fromHolder, ToHolder: toHolder})
	}
}

// TakeMoves returns the moves recorded since the last call and forgets them.
// The returned slice is the caller's.
func (m *Machine) TakeMoves() []Move {
	out := append([]Move(nil), m.moves...)
	m.moves = m.moves[:0]
	return out
}

// CurrentOp is the operation in progress.
func (m *Machine) CurrentOp() Op { return m.op }

// Seq is the number of operations begun so far.
func (m *Machine) Seq() uint64 { return m.seq }

// Report records a violation of kind against the current operation.
// page is a PFN or -1. It never panics.
func (m *Machine) Report(kind Kind, page int32, rule Rule, format string, args ...any) {
	v := Violation{Seq: m.op.Seq, Kind: kind, Op: m.op.Sym, CPU: m.op.CPU, Page: page, Rule: rule, Detail: fmt.Sprintf(format, args...)}
	m.Log.add(v)
	if m.tracer != nil {
		m.tracer(Event{Seq: m.op.Seq, TimePS: m.CPUs[m.op.CPU].NowPS(), CPU: m.op.CPU, Func: m.op.Sym, Page: page,
			Kind: EvViolation, Violation: kind, Why: v.Detail, Stat: StatNone, Era: m.Era})
	}
}

// AddChecker registers a layer's invariant checker.
func (m *Machine) AddChecker(c Checker) { m.checkers = append(m.checkers, c) }

// CheckInvariants runs every registered checker.
func (m *Machine) CheckInvariants() {
	m.pass++
	m.checking = true
	for _, c := range m.checkers {
		c.CheckInvariants(m)
	}
	m.checking = false
}

// CheckPass numbers the full check in progress (CheckInvariants; 0 outside
// one). Checkers only read the run's state and report, so within one pass
// it does not change: a checker may use what an earlier one read in the
// same pass (the allocator's page scan serves the skb layer's and the
// pools' checks) instead of reading the page array again.
func (m *Machine) CheckPass() uint64 {
	if !m.checking {
		return 0
	}
	return m.pass
}

// CheckTouched runs every registered checker's light check.
func (m *Machine) CheckTouched() {
	for _, c := range m.checkers {
		c.CheckTouched(m)
	}
}

// SetTracer installs fn as the event listener (nil: events are not built).
func (m *Machine) SetTracer(fn func(Event)) { m.tracer = fn }

// Tracing reports whether someone listens; callers build events only then.
func (m *Machine) Tracing() bool { return m.tracer != nil }

// Emit hands an event to the listener. Call only when Tracing().
func (m *Machine) Emit(e Event) {
	e.Seq = m.op.Seq
	e.TimePS = m.CPUs[e.CPU].NowPS()
	e.Era = m.Era
	e.Process = !m.CPUs[e.CPU].Softirq
	m.tracer(e)
}

// After schedules t to fire once the machine's time reaches nowPS+delayNS
// (deferred work, e.g. page_pool_release_retry). Timers run from RunTimers.
func (m *Machine) After(delayNS int64, t Timer) {
	m.tseq++
	m.timers = append(m.timers, timer{atPS: m.NowPS() + delayNS*PSPerNS, seq: m.tseq, t: t})
	sort.Slice(m.timers, func(i, j int) bool {
		if m.timers[i].atPS != m.timers[j].atPS {
			return m.timers[i].atPS < m.timers[j].atPS
		}
		return m.timers[i].seq < m.timers[j].seq
	})
}

// PendingTimers is the number of scheduled timers.
func (m *Machine) PendingTimers() int { return len(m.timers) }

// NextTimerNS returns when the next timer is due, or -1.
func (m *Machine) NextTimerNS() int64 {
	if len(m.timers) == 0 {
		return -1
	}
	return m.timers[0].atPS / PSPerNS
}

// RunTimers runs every timer that is due at the machine's time. A timer runs
// on cpu0 (a workqueue), whose clock is first brought to the timer's time.
func (m *Machine) RunTimers() int {
	n := 0
	for len(m.timers) > 0 && m.timers[0].atPS <= m.NowPS() {
		t := m.timers[0]
		m.timers = m.timers[1:]
		m.CPUs[0].idleTo(t.atPS)
		t.t.Fire()
		n++
	}
	return n
}

// AdvanceNS idles every CPU to the machine's time plus ns and runs the timers
// that fall due on the way, in order.
func (m *Machine) AdvanceNS(ns int64) {
	target := m.NowPS() + ns*PSPerNS
	for len(m.timers) > 0 && m.timers[0].atPS <= target {
		at := m.timers[0].atPS
		for i := range m.CPUs {
			m.CPUs[i].idleTo(at)
		}
		m.RunTimers()
	}
	for i := range m.CPUs {
		m.CPUs[i].idleTo(target)
	}
}
