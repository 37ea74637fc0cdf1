package drivers

import (
	"strings"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

func newStub(t *testing.T, era string, mode BufferMode, opts ...string) (*Stub, *sim.Machine) {
	t.Helper()
	e, _ := sim.EraByName(era)
	k := sim.DefaultKnobs()
	k[sim.KnobNodePages] = 1024
	var rules sim.RuleSet
	for _, o := range opts {
		name, _ := strings.CutPrefix(o, "break=")
		r, err := sim.RuleByName(name)
		if err != nil {
			t.Fatal(err)
		}
		rules = rules.With(r)
	}
	m := sim.NewMachine(sim.Config{Era: e, Rules: rules, Knobs: k, Seed: 1})
	a := mm.NewAllocator(m)
	reg := pagepool.NewRegistry(a)
	napi := pagepool.NewNAPI(0)
	flags := pagepool.FlagDMAMap
	if mode == FragAPI && e.FragFlag {
		flags |= pagepool.FlagPageFrag
	}
	pool, err := reg.Create(0, pagepool.Params{Flags: flags, DMADir: mm.DMAFromDevice, NAPI: napi, PoolSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	if e.SkbRecycle == sim.SkbRecycleRFC {
		reg.RegMemModel(pool)
	}
	napi.Schedule()
	d, err := NewStub(skb.NewStack(reg), pool, napi, 8, mode)
	if err != nil {
		t.Fatal(err)
	}
	m.Begin(0, sim.SymAllocPages)
	d.Refill()
	m.CheckInvariants()
	return d, m
}

// step runs one receive + free on the app CPU and checks invariants.
func step(t *testing.T, d *Stub, m *sim.Machine) *mm.Page {
	m.Begin(0, sim.SymBuildSKB)
	sk, err := d.Receive(1000)
	if err != nil || sk == nil {
		t.Fatalf("receive: %v %v", sk, err)
	}
	m.CheckInvariants()
	pg := sk.D.HeadPage
	m.Begin(1, sim.SymKfreeSKB)
	d.S.KfreeSKB(1, sk)
	m.CheckInvariants()
	return pg
}

// TestSplitPage_HalfFlipCaveat_5_14: one page, two RX buffers, handed to the
// stack with skb_mark_for_recycle. Freeing the first half returns the whole
// page to the pool while the NIC still owns the second half — the caveat
// written into the 5.14 page_pool_return_skb_page. No rule is broken.
func TestSplitPage_HalfFlipCaveat_5_14(t *testing.T) {
	for _, era := range []string{"rfc-v1", "5.14"} {
		d, m := newStub(t, era, HalfPageFlip)
		pg := step(t, d, m)
		if pg.Place != sim.PlaceRing {
			t.Fatalf("%s: first half freed: page in %s, want recycled into the ring", era, pg.Place)
		}
		if m.Log.Counts[sim.KindUseAfterRecycle] == 0 {
			t.Fatalf("%s: no use-after-recycle: %v", era, m.Log.List)
		}
		// The NIC now fills the second half: DMA into a recycled page.
		m.Begin(0, sim.SymBuildSKB)
		d.Receive(1000)
		t.Log(m.Log.List[0])
	}
}

// TestSplitPage_HalfFlipBothHalvesUp_ReleasedNotRecycled: when both halves
// are up the stack the driver holds an extra page reference, so the pool
// releases the page (released_refcnt) instead of recycling it: no failure,
// but no recycling either.
func TestSplitPage_HalfFlipBothHalvesUp_ReleasedNotRecycled(t *testing.T) {
	d, m := newStub(t, "5.14", HalfPageFlip)
	a, _ := d.Receive(1000)
	b, _ := d.Receive(1000)
	pg := a.D.HeadPage
	if b.D.HeadPage != pg || pg.Ref != 2 {
		t.Fatalf("halves on pfn %#x / %#x, ref %d", pg.PFN, b.D.HeadPage.PFN, pg.Ref)
	}
	d.S.KfreeSKB(1, a)
	d.S.KfreeSKB(1, b)
	m.CheckInvariants()
	if st := d.Pool.Stats(); st[sim.StatRecycleReleasedRefcnt] != 1 || st[sim.StatRecycleRing] != 0 || pg.Place != sim.PlaceBuddy {
		t.Fatalf("stats %v, page in %s", st, pg.Place)
	}
	if m.Log.Total() != 0 {
		t.Fatal(m.Log.List)
	}
}

// TestSplitPage_FragAPISafe: with page_pool_alloc_frag only the last user
// recycles the page: zero violations, every page recycled.
func TestSplitPage_FragAPISafe(t *testing.T) {
	for _, era := range []string{"5.15", "6.4", "6.8"} {
		d, m := newStub(t, era, FragAPI)
		for i := 0; i < 64; i++ {
			step(t, d, m)
			if d.Posted() < 4 {
				m.Begin(0, sim.SymAllocPages)
				d.Refill()
			}
		}
		m.CheckInvariants()
		if m.Log.Total() != 0 {
			t.Fatalf("%s: %v", era, m.Log.List)
		}
		if st := d.Pool.Stats(); st[sim.StatRecycleRing] == 0 || st[sim.StatRecycleReleasedRefcnt] != 0 {
			t.Fatalf("%s: stats %v: want pages recycled through the ring", era, st)
		}
	}
}

// Breaking frag-count in 5.15+ brings the caveat back.
func TestSplitPage_FragCountBroken(t *testing.T) {
	d, m := newStub(t, "5.15", FragAPI, "break=frag-count")
	step(t, d, m)
	if m.Log.Counts[sim.KindUseAfterRecycle] == 0 {
		t.Fatalf("no use-after-recycle with frag-count broken: %v", m.Log.List)
	}
	if v := m.Log.List[0]; v.Rule != sim.RuleFragCount {
		t.Errorf("attributed to %s", v.Rule)
	}
}

func TestStub_FragAPINeeds5_15(t *testing.T) {
	e, _ := sim.EraByName("5.14")
	k := sim.DefaultKnobs()
	m := sim.NewMachine(sim.Config{Era: e, Knobs: k})
	reg := pagepool.NewRegistry(mm.NewAllocator(m))
	pool, _ := reg.Create(0, pagepool.Params{})
	if _, err := NewStub(skb.NewStack(reg), pool, pagepool.NewNAPI(0), 8, FragAPI); err == nil {
		t.Fatal("frag API stub accepted in 5.14")
	}
	if _, err := NewStub(skb.NewStack(reg), pool, pagepool.NewNAPI(0), 7, PagePerFrame); err == nil {
		t.Fatal("odd ring size accepted")
	}
}
