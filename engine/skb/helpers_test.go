package skb

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

type env struct {
	t    testing.TB
	m    *sim.Machine
	a    *mm.Allocator
	r    *pagepool.Registry
	p    *pagepool.Pool
	napi *pagepool.NAPI
	s    *Stack
}

// newEnv: a machine in era with one DMA-mapping pool whose NAPI runs on cpu0
// (scheduled), and the skb layer. opts: knob assignments or "break=rule".
func newEnv(t testing.TB, era string, opts ...string) *env {
	t.Helper()
	e, err := sim.EraByName(era)
	if err != nil {
		t.Fatal(err)
	}
	return newEnvEra(t, e, opts...)
}

// newEnvEra is newEnv for an era value (a named era with a later rule set:
// the rule tested before its era is in the table).
func newEnvEra(t testing.TB, e *sim.Era, opts ...string) *env {
	t.Helper()
	k, rules, _ := simtest.Options(t, opts...)
	m := sim.NewMachine(sim.Config{Era: e, Rules: rules, Knobs: k, Seed: 1})
	a := mm.NewAllocator(m)
	r := pagepool.NewRegistry(a)
	napi := pagepool.NewNAPI(0)
	p, err := r.Create(0, pagepool.Params{Flags: pagepool.FlagDMAMap, DMADir: mm.DMAFromDevice, NAPI: napi})
	if err != nil {
		t.Fatal(err)
	}
	if e.SkbRecycle == sim.SkbRecycleRFC {
		r.RegMemModel(p)
	}
	napi.Schedule()
	return &env{t: t, m: m, a: a, r: r, p: p, napi: napi, s: NewStack(r)}
}

// page allocates a pool page as a driver's RX refill does (cpu0, NAPI).
func (e *env) page() *mm.Page {
	e.t.Helper()
	e.m.Begin(0, sim.SymAllocPages)
	pg := e.p.AllocPages(0)
	if pg == nil {
		e.t.Fatal("page_pool_alloc_pages: NULL")
	}
	return pg
}

// rx builds a marked skb over a fresh pool page, as a recycling driver does in
// this era (5.12/5.13: page_pool_release_page first, no mark).
func (e *env) rx(length int) (*SKB, *mm.Page) {
	e.t.Helper()
	pg := e.page()
	if e.m.Era.SkbRecycle == sim.SkbRecycleNone {
		e.p.ReleasePage(0, pg)
	}
	sk, err := e.s.BuildSKB(0, pg, 0, mm.PageSize, length, true)
	if err != nil {
		e.t.Fatal(err)
	}
	if e.m.Era.SkbRecycle != sim.SkbRecycleNone {
		if err := e.s.MarkForRecycle(0, sk, pg, e.p); err != nil {
			e.t.Fatal(err)
		}
	}
	e.check()
	return sk, pg
}

// frag adds a pool page of size bytes as a frag (page_pool_store_mem_info in 5.14).
func (e *env) frag(sk *SKB, size int) *mm.Page {
	e.t.Helper()
	pg := e.page()
	if e.m.Era.SkbRecycle == sim.SkbRecycleNone {
		e.p.ReleasePage(0, pg)
	} else {
		e.s.StoreMemInfo(0, sk, pg, e.p)
	}
	if err := e.s.AddRxFrag(0, sk, pg, 0, size, mm.PageSize); err != nil {
		e.t.Fatal(err)
	}
	e.check()
	return pg
}

// fragsOnly is a marked skb with no linear data and one pool frag of size
// bytes (what GRO hands up after pulling the headers).
func (e *env) fragsOnly(size int) (*SKB, *mm.Page) {
	e.t.Helper()
	sk, err := e.s.AllocSKB(0, 0, true)
	if err != nil {
		e.t.Fatal(err)
	}
	if e.m.Era.SkbRecycle != sim.SkbRecycleNone {
		e.s.MarkForRecycle(0, sk, nil, nil)
	}
	return sk, e.frag(sk, size)
}

func (e *env) kfree(sks ...*SKB) {
	for _, sk := range sks {
		e.m.Begin(1, sim.SymKfreeSKB)
		e.s.KfreeSKB(1, sk)
		e.check()
	}
}

func (e *env) check() { e.m.CheckInvariants() }

func (e *env) clean() {
	e.t.Helper()
	simtest.Clean(e.t, e.m)
}

func (e *env) stats(want map[sim.Stat]uint64) {
	e.t.Helper()
	st := e.p.Stats()
	simtest.WantStats(e.t, &st, want)
}

func (e *env) places(want map[*mm.Page]sim.Place) {
	e.t.Helper()
	for pg, w := range want {
		if pg.Place != w {
			e.t.Errorf("pfn %#x is in %s, want %s", pg.PFN, pg.Place, w)
		}
	}
}

// verdict: broken -> the named violation kind is recorded; intact -> none.
func verdict(t *testing.T, e *env, broken bool, kind sim.Kind) {
	t.Helper()
	simtest.Verdict(t, e.m, broken, kind)
}

func brk(broken bool, rule string, opts ...string) []string {
	return simtest.Break(broken, rule, opts...)
}
