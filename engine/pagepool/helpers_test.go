package pagepool

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// env is one machine with one pool, for tests.
type env struct {
	t testing.TB
	m *sim.Machine
	a *mm.Allocator
	r *Registry
	p *Pool
}

// newEnv builds a machine for era with a pool of params. opts are knob
// assignments ("numa_nodes=2") or broken rules ("break=refcnt-check").
func newEnv(t testing.TB, era string, params Params, opts ...string) *env {
	t.Helper()
	e, err := sim.EraByName(era)
	if err != nil {
		t.Fatal(err)
	}
	return newEnvEra(t, e, params, opts...)
}

// newEnvEra is newEnv for an era value (a test's variant of a named era:
// a stable kernel that carries a later fix back).
func newEnvEra(t testing.TB, e *sim.Era, params Params, opts ...string) *env {
	t.Helper()
	k, rules, _ := simtest.Options(t, opts...)
	m := sim.NewMachine(sim.Config{Era: e, Rules: rules, Knobs: k, Seed: 1})
	a := mm.NewAllocator(m)
	r := NewRegistry(a)
	if params.DMADir == 0 && params.Flags&FlagDMAMap != 0 {
		params.DMADir = mm.DMAFromDevice
	}
	if params.MaxLen == 0 && params.Flags&FlagDMASyncDev != 0 {
		params.MaxLen = mm.PageSize
	}
	p, err := r.Create(0, params)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, m: m, a: a, r: r, p: p}
}

// alloc allocates n pages on cpu0, failing the test on NULL.
func (e *env) alloc(n int) []*mm.Page {
	e.t.Helper()
	out := make([]*mm.Page, n)
	for i := range out {
		e.m.Begin(0, sim.SymAllocPages)
		out[i] = e.p.AllocPages(0)
		if out[i] == nil {
			e.t.Fatalf("alloc %d of %d returned NULL", i, n)
		}
		e.check()
	}
	return out
}

// toRing puts pages back with allow_direct=false (ptr_ring).
func (e *env) toRing(pages ...*mm.Page) {
	for _, pg := range pages {
		e.m.Begin(0, sim.SymPutPage)
		e.p.PutPage(0, pg, -1, false)
		e.check()
	}
}

// direct recycles pages with page_pool_recycle_direct.
func (e *env) direct(pages ...*mm.Page) {
	for _, pg := range pages {
		e.m.Begin(0, sim.SymPutPage)
		e.p.RecycleDirect(0, pg)
		e.check()
	}
}

// check runs the invariant checker (as step mode does after every operation).
func (e *env) check() { e.m.CheckInvariants() }

// clean asserts that no violation was recorded.
func (e *env) clean() {
	e.t.Helper()
	simtest.Clean(e.t, e.m)
}

func (e *env) stat(s sim.Stat) uint64 { return e.p.stats[s] }

// wantStats compares the named counters.
func (e *env) wantStats(want map[sim.Stat]uint64) {
	e.t.Helper()
	simtest.WantStats(e.t, &e.p.stats, want)
}

func pfns(pages []*mm.Page) []int32 {
	out := make([]int32, len(pages))
	for i, p := range pages {
		out[i] = p.PFN
	}
	return out
}
