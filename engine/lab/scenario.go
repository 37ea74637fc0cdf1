package lab

import (
	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// Scenario describes a workload a Lab can run.
type Scenario struct {
	Name        string
	Doc         string
	NeedsDriver bool
	Drivers     []string // drivers it runs with (empty: no driver)
	Eras        []string // eras it supports (empty: all)
	// Known says which failures the kernel itself has in this scenario,
	// with no rule broken, for a run's era, driver, platform and knobs (the
	// split-page caveat of 5.14; destroy's unmap after unbind before 6.16):
	// the violation kinds the run shows, nil when none. Nil: never. Read it
	// through KnownFailure.
	Known func(c KnownCase) []sim.Kind
	// DefaultDriver runs the scenario when --driver is not given.
	DefaultDriver string
	// Knobs are the scenario's own knob defaults (applied before --set).
	Knobs map[sim.Knob]int64
	// Matters lists the knobs that change what this scenario does, most
	// telling first (the UI shows these first; every other knob still applies).
	Matters []sim.Knob
	// Refuses, when set, is the scenario's own refusal of a driver in an
	// era, with the kernel's reason (devmem-rx: the queue cannot be bound);
	// checked before whether the driver runs it at all.
	Refuses func(spec *drivers.Spec, era *sim.Era) *sim.FieldError
	newRun  func(l *Lab) (runner, error)
}

// KnownCase is what decides whether a run shows a kernel's own failure.
type KnownCase struct {
	Era      *sim.Era
	Spec     *drivers.Spec // nil: no driver
	Platform *sim.Platform
	Knobs    *sim.Knobs
}

// KnownFailure returns the violation kinds the kernel of c's era shows in
// this scenario with no rule broken (nil: none).
func (s *Scenario) KnownFailure(c KnownCase) []sim.Kind {
	if s.Known == nil {
		return nil
	}
	return s.Known(c)
}

// poolKnobs matter to the pool micro-benchmarks.
var poolKnobs = []sim.Knob{sim.KnobPoolSize, sim.KnobDMAMap, sim.KnobDMASyncDev, sim.KnobMaxLen, sim.KnobDMASyncSize,
	sim.KnobOrder, sim.KnobBulk, sim.KnobSoftirq, sim.KnobNid, sim.KnobNumaNodes, sim.KnobAllocFailPPM, sim.KnobDMAMapFailPPM, sim.KnobPfmemallocPPM}

// runner advances a scenario by one operation. It returns packetDone when the
// operation completed a packet (one alloc+free pair for the pool scenarios).
// The Lab asks it everything that differs between the pool micro-benchmarks
// (poolBench) and the driver scenarios (driverRun) through these methods.
type runner interface {
	step(l *Lab) (packetDone bool)
	// measuring reports whether set-up is over: rate and profile count from
	// the first measured operation.
	measuring() bool
	// next names the next operation (for the UI's step narration).
	next() string
	// ownsEnd reports whether the runner, not the packet count, ends the
	// run (destroy); finished, whether it has ended it.
	ownsEnd() bool
	finished() bool
	// warmup is the packets before the measured window (0: measured from
	// the first).
	warmup() int64
	// measured is the packets completed in the measured window, and of
	// them the ones delivered (not lost): what the rate counts.
	measured(l *Lab) (completed, delivered int64)
	// frameBytes is the size of the packets' frames (0: no driver).
	frameBytes() int
	// settling reports that measuring waits for the workload to settle:
	// the fast-forward must not start before.
	settling() bool
	// changesIn is the packets until the workload changes its pattern (a
	// NAPI that moves to another CPU), -1 if it never will.
	changesIn() int64
	// quiet runs at most k operations between check points (Lab.quietOps)
	// and returns the operations run: Lab.runQuiet's loop, or the runner's
	// own with the same effects.
	quiet(l *Lab, k int64) int64
}

// Scenarios lists every scenario.
var Scenarios = []*Scenario{
	{Name: "pool-direct", Doc: "kernel micro-benchmark 01_fast_path: page_pool_alloc_pages + page_pool_recycle_direct, in a tasklet (ring prefilled with 64 pages)",
		Matters: poolKnobs, newRun: func(l *Lab) (runner, error) { return newPoolBench(l, benchDirect) }},
	{Name: "pool-ring", Doc: "kernel micro-benchmark 02_ptr_ring: page_pool_alloc_pages + page_pool_put_page(allow_direct=false): every page cycles through the ptr_ring",
		Matters: poolKnobs, newRun: func(l *Lab) (runner, error) { return newPoolBench(l, benchRing) }},
	{Name: "pool-slow", Doc: "kernel micro-benchmark 03_slow: an extra page reference (get_page) makes the put release the page; every allocation comes from the page allocator",
		Matters: poolKnobs, newRun: func(l *Lab) (runner, error) { return newPoolBench(l, benchSlow) }},
}

// ScenarioByName resolves a scenario name.
func ScenarioByName(name string) (*Scenario, error) {
	return sim.ByName("scenario", "scenario", Scenarios, scenarioName, name)
}

// ScenarioNames lists the scenario names.
func ScenarioNames() []string { return sim.Names(Scenarios, scenarioName) }

func scenarioName(s *Scenario) string { return s.Name }

type benchKind uint8

const (
	benchDirect benchKind = iota
	benchRing
	benchSlow
)

// poolBench mirrors bench_page_pool_simple.c: pp_fill_ptr_ring(pool, 64)
// (alloc 64 pages, put each to the ring), then per loop one alloc and one free
// of the kind under test. Each call is one operation of the Lab.
type poolBench struct {
	kind  benchKind
	pool  *pagepool.Pool
	cpu   int
	phase int // 0: prefill alloc, 1: prefill put, 2: loop
	i     int
	fill  [64]*mm.Page
	page  *mm.Page
	op    int // position inside one loop iteration
}

func newPoolBench(l *Lab, kind benchKind) (runner, error) {
	k := &l.m.Knobs
	p := pagepool.Params{
		Order:    uint8(k[sim.KnobOrder]),
		PoolSize: int(k[sim.KnobPoolSize]),
		Nid:      int(k[sim.KnobNid]),
		DMADir:   mm.DMAFromDevice,
		MaxLen:   int(k[sim.KnobMaxLen]),
		Offset:   int(k[sim.KnobOffset]),
	}
	if k[sim.KnobDMAMap] != 0 {
		p.Flags |= pagepool.FlagDMAMap
	}
	if p.MaxLen == 0 {
		p.MaxLen = mm.PageSize << p.Order
	}
	if k[sim.KnobDMASyncDev] == 1 {
		p.Flags |= pagepool.FlagDMASyncDev
	}
	pool, err := l.reg.Create(0, p)
	if err != nil {
		return nil, err
	}
	l.pool = pool
	return &poolBench{kind: kind, pool: pool}, nil
}

func (b *poolBench) measuring() bool { return b.phase == 2 }

// A micro-benchmark ends at its packet count, measures from its first loop
// (its prefill is not counted in packets), has no frames and never changes.
func (b *poolBench) ownsEnd() bool  { return false }
func (b *poolBench) finished() bool { return false }
func (b *poolBench) warmup() int64  { return 0 }
func (b *poolBench) measured(l *Lab) (completed, delivered int64) {
	return l.packets, l.packets - l.lost
}
func (b *poolBench) frameBytes() int             { return 0 }
func (b *poolBench) settling() bool              { return false }
func (b *poolBench) changesIn() int64            { return -1 }
func (b *poolBench) quiet(l *Lab, k int64) int64 { return l.runQuiet(k) }

func (b *poolBench) next() string {
	switch b.phase {
	case 0:
		return "page_pool_alloc_pages (prefill)"
	case 1:
		return "page_pool_put_full_page (prefill the ptr_ring)"
	}
	if b.op == 0 {
		return "page_pool_alloc_pages"
	}
	switch b.kind {
	case benchDirect:
		return "page_pool_recycle_direct"
	case benchRing:
		return "page_pool_put_page(allow_direct=false)"
	}
	return [...]string{"", "get_page", "page_pool_put_page", "put_page"}[b.op]
}

func (b *poolBench) step(l *Lab) bool {
	m, pool, cpu := l.m, b.pool, b.cpu
	switch b.phase {
	case 0: // pp_fill_ptr_ring: allocate 64 pages…
		m.Begin(cpu, sim.SymAllocPages)
		b.fill[b.i] = pool.AllocPages(cpu)
		if b.i++; b.i == len(b.fill) {
			b.phase, b.i = 1, 0
		}
		return false
	case 1: // …and return them to the ptr_ring
		m.Begin(cpu, sim.SymPutPage)
		if pg := b.fill[b.i]; pg != nil {
			pool.PutFullPage(cpu, pg, false)
			b.fill[b.i] = nil
		}
		if b.i++; b.i == len(b.fill) {
			b.phase, b.i = 2, 0
		}
		return false
	}
	if b.op == 0 {
		m.Begin(cpu, sim.SymAllocPages)
		b.page = pool.AllocPages(cpu)
		if b.page == nil { // allocation failure: nothing to free, the packet is lost
			l.lost++
			return true
		}
		b.op = 1
		return false
	}
	pg := b.page
	switch b.kind {
	case benchDirect:
		m.Begin(cpu, sim.SymPutPage)
		pool.RecycleDirect(cpu, pg)
	case benchRing:
		m.Begin(cpu, sim.SymPutPage)
		pool.PutPage(cpu, pg, int(m.Knobs[sim.KnobDMASyncSize]), false)
	case benchSlow:
		switch b.op {
		case 1:
			m.Begin(cpu, sim.SymGetPage)
			l.a.GetPage(cpu, pg)
			b.op = 2
			return false
		case 2:
			m.Begin(cpu, sim.SymPutPage)
			pool.PutPage(cpu, pg, int(m.Knobs[sim.KnobDMASyncSize]), false)
			b.op = 3
			return false
		case 3:
			m.Begin(cpu, sim.SymPutPageRef)
			l.a.PutPage(cpu, pg)
		}
	}
	b.op, b.page = 0, nil
	return true
}

// known is the run's KnownCase.
func (r *resolved) known() KnownCase {
	return KnownCase{Era: r.era, Spec: r.spec, Platform: r.plat, Knobs: &r.knobs}
}

// KnownFailure returns the violation kinds the kernel of the config's era
// shows in its scenario with no rule broken (nil: none, or an invalid
// config).
func (cfg Config) KnownFailure() []sim.Kind {
	r, err := cfg.resolve()
	if err != nil {
		return nil
	}
	return r.sc.KnownFailure(r.known())
}

// KnownFailure is the run's kernel-own failure kinds (Config.KnownFailure).
func (l *Lab) KnownFailure() []sim.Kind { return l.known }

// kindList joins kinds with " and ".
func kindList(ks []sim.Kind) string {
	s := ""
	for i, k := range ks {
		if i > 0 {
			s += " and "
		}
		s += k.String()
	}
	return s
}
