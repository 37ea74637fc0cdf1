package pagepool

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

func fragEnv(t *testing.T, era string, opts ...string) *env {
	flags := FlagPageFrag | FlagDMAMap | FlagDMASyncDev
	if era == "6.8" {
		flags = FlagDMAMap | FlagDMASyncDev // the flag is gone; every pool hands out frags
	}
	return newEnv(t, era, Params{Flags: flags, MaxLen: mm.PageSize}, opts...)
}

func (e *env) frag(size int) (*mm.Page, int) {
	e.t.Helper()
	e.m.Begin(0, sim.SymAllocFrag)
	pg, off := e.p.AllocFrag(0, size)
	if pg == nil {
		e.t.Fatalf("page_pool_alloc_frag(%d) = NULL", size)
	}
	e.check()
	return pg, off
}

func TestAllocFrag_CarvesPageAndMovesOn(t *testing.T) {
	for _, era := range []string{"5.15", "6.4", "6.8"} {
		t.Run(era, func(t *testing.T) {
			e := fragEnv(t, era)
			a, offA := e.frag(2048)
			b, offB := e.frag(1024)
			c, offC := e.frag(1024)
			if a != b || b != c || offA != 0 || offB != 2048 || offC != 3072 {
				t.Fatalf("frags (%#x,%d) (%#x,%d) (%#x,%d): want one page at 0, 2048, 3072", a.PFN, offA, b.PFN, offB, c.PFN, offC)
			}
			d, offD := e.frag(512) // does not fit: drain, three users remain, new page
			if d == a || offD != 0 {
				t.Fatalf("fourth frag on pfn %#x at %d, want a new page at 0", d.PFN, offD)
			}
			if a.FragCount != 3 {
				t.Fatalf("drained frag page count %d, want 3 (the users still holding fragments)", a.FragCount)
			}
			// Only the last of the three puts recycles the page.
			for i, want := range []int64{2, 1} {
				e.toRing(a)
				if a.Place == sim.PlaceRing || a.FragCount != want {
					t.Fatalf("put %d: page in %s count %d, want still out with count %d", i, a.Place, a.FragCount, want)
				}
			}
			e.toRing(a)
			if a.Place != sim.PlaceRing || e.stat(sim.StatRecycleRing) != 1 {
				t.Fatalf("last put left the page in %s", a.Place)
			}
			e.clean()
		})
	}
}

func TestAllocFrag_DrainReusesPageWhenAllReturned(t *testing.T) {
	e := fragEnv(t, "5.15")
	a, _ := e.frag(2048)
	b, _ := e.frag(2048)
	e.toRing(a) // users drop their share while the page is still the frag page
	e.toRing(b)
	if a.Place == sim.PlaceRing {
		t.Fatal("frag page recycled while the frag allocator still owns it (bias not drained)")
	}
	fast := e.stat(sim.StatAllocFast)
	c, off := e.frag(2048) // does not fit: drain leaves 0 users -> reuse the same page
	if c != a || off != 0 || e.stat(sim.StatAllocFast) != fast+1 {
		t.Fatalf("got pfn %#x at %d, fast +%d: want the same page reused from 0 (fast++)", c.PFN, off, e.stat(sim.StatAllocFast)-fast)
	}
	e.clean()
}

func TestAllocFrag_NeedsFragSupport(t *testing.T) {
	for _, tc := range []struct {
		era   string
		flags Flags
	}{
		{"5.14", 0},     // no frag API yet
		{"5.15", 0},     // PP_FLAG_PAGE_FRAG missing: WARN, NULL
		{"6.4", 0},      // same
		{"6.8", 1 << 9}, // oversize request below
	} {
		e := newEnv(t, tc.era, Params{})
		size := 1024
		if tc.era == "6.8" {
			size = mm.PageSize + 1
		}
		if pg, _ := e.p.AllocFrag(0, size); pg != nil {
			t.Errorf("%s: page_pool_alloc_frag succeeded without frag support / with size %d", tc.era, size)
		}
	}
}

func TestFragPool_WholePageWithoutFragmentPage_5_15(t *testing.T) {
	// v5.15: a PAGE_FRAG pool decrements pp_frag_count on every put, so a whole
	// page allocated with page_pool_alloc_pages (count 0, never fragmented)
	// underflows on its put and is never recycled: the WARN_ON(ret < 0).
	e := fragEnv(t, "5.15")
	pg := e.alloc(1)[0]
	e.toRing(pg)
	e.check()
	if e.m.Log.Counts[sim.KindRefcountUnderflow] != 1 || pg.Place == sim.PlaceRing {
		t.Fatalf("want a refcount-underflow and the page not recycled; got %v, page in %s", e.m.Log.List, pg.Place)
	}
}

func TestFragPool_WholePageRecycles_6_8(t *testing.T) {
	// v6.7+: every page starts with pp_ref_count 1, so whole pages and frags mix.
	e := fragEnv(t, "6.8")
	pg := e.alloc(1)[0]
	e.toRing(pg)
	if pg.Place != sim.PlaceRing || pg.FragCount != 1 {
		t.Fatalf("whole page in %s with count %d, want in the ring at rest (1)", pg.Place, pg.FragCount)
	}
	e.clean()
}

func TestDestroy_FreesFragPage(t *testing.T) {
	e := fragEnv(t, "5.15")
	a, _ := e.frag(1024)
	e.toRing(a)
	e.m.Begin(0, sim.SymPoolDestroy)
	e.p.Destroy(0) // page_pool_free_frag: no user left, the page is released
	if !e.p.Freed() {
		t.Fatalf("pool not freed: inflight %d", e.p.Inflight())
	}
	e.clean()
}

// __page_pool_page_can_be_recycled is the one predicate: the frag drain
// asks it as the put path does, so a page someone else holds is released at
// drain with the rule intact, and kept when refcnt-check is broken (before,
// the drain tested the refcount itself and ignored broken rules).
func TestCanBeRecycled_DrainAsksThePutPathsPredicate(t *testing.T) {
	for _, broken := range []bool{false, true} {
		name := map[bool]string{false: "intact", true: "refcnt-check broken"}[broken]
		t.Run(name, func(t *testing.T) {
			var opts []string
			if broken {
				opts = append(opts, "break=refcnt-check")
			}
			e := fragEnv(t, "5.15", opts...)
			a, _ := e.frag(2048)
			b, _ := e.frag(2048)
			e.toRing(a)
			e.toRing(b)
			e.a.GetPage(0, a) // someone else takes a reference: not recyclable
			release := e.p.Release()
			e.m.Begin(0, sim.SymAllocFrag)
			c, _ := e.p.AllocFrag(0, 2048) // does not fit: the drain decides a's fate
			if broken {
				if c != a || e.p.Release() != release {
					t.Fatalf("broken: got pfn %#x (a %#x), release %d -> %d: want a kept and reused", c.PFN, a.PFN, release, e.p.Release())
				}
				if !e.m.Decided().Broken(sim.RuleRefcntCheck) {
					t.Error("the drain's check did not record that refcnt-check decided")
				}
				return
			}
			if c == a || e.p.Release() != release+1 || a.Owner != 0 {
				t.Fatalf("intact: got pfn %#x (a %#x), release %d -> %d, owner %d: want a released, a new page", c.PFN, a.PFN, release, e.p.Release(), a.Owner)
			}
		})
	}
}

// page_pool_alloc_frag rounds every fragment up to dma_get_cache_alignment():
// ARCH_DMA_MINALIGN where the architecture defines it, whatever the
// device's coherence, 1 on x86.
func TestAllocFrag_AlignsToArchDMAMinalign(t *testing.T) {
	tests := []struct {
		name     string
		plat     *sim.Platform
		coherent bool
		second   int // offset of the second 1030-byte fragment
	}{
		{"x86-64 defines no ARCH_DMA_MINALIGN: 1", &sim.X86Server, true, 1030},
		{"arm64 ARCH_DMA_MINALIGN 128, I/O-coherent too", &sim.Arm64Server, true, 1152},
		{"arm64 128 on a non-coherent device (espressobin)", &sim.Espressobin, false, 1152},
		{"ARM32 ARCH_DMA_MINALIGN = L1_CACHE_BYTES, 64 on a Cortex-A15", &sim.TICpsw, false, 1088},
		{"non-coherent MIPS: mach-generic's 128", &sim.LunarMIPS, false, 1152},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := sim.EraByName("6.8")
			k, rules, _ := simtest.Options(t)
			m := sim.NewMachine(sim.Config{Era: e, Rules: rules, Knobs: k, Platform: tt.plat, Seed: 1})
			if m.Coherent() != tt.coherent {
				t.Fatalf("%s coherent %v", tt.plat.Name, m.Coherent())
			}
			r := NewRegistry(mm.NewAllocator(m))
			p, err := r.Create(0, Params{Flags: FlagDMAMap, DMADir: mm.DMAFromDevice})
			if err != nil {
				t.Fatal(err)
			}
			m.Begin(0, sim.SymAllocFrag)
			a, _ := p.AllocFrag(0, 1030)
			b, off := p.AllocFrag(0, 1030)
			if a == nil || b != a || off != tt.second {
				t.Fatalf("second fragment at %d (same page %v), want %d", off, b == a, tt.second)
			}
		})
	}
}

// ef04d290c013 (v6.13): page_pool_alloc_frag counts pages, not fragments.
// A further fragment of the current frag page counted alloc_fast up to
// 6.12 and counts nothing after; a drained page reused from offset 0
// counts alloc_fast in both, and recycle_cached too after. The 6.13 rule is
// tested on 6.12 with the flag set (Era.FragStatPerPage).
func TestAllocFrag_CountsPagesNotFragments(t *testing.T) {
	e612 := simtest.EraWith(t, "6.12", func(*sim.Era) {})
	e613 := simtest.EraWith(t, "6.12", func(e *sim.Era) { e.FragStatPerPage = true })
	for _, tc := range []struct {
		name                string
		era                 *sim.Era
		fastNext, fastReuse uint64 // alloc_fast for two further fragments, for a drained page reused
		cachedReuse         uint64
	}{
		{"6.12 counts every fragment", e612, 2, 1, 0},
		{"6.13 counts pages", e613, 0, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnvEra(t, tc.era, Params{Flags: FlagDMAMap | FlagDMASyncDev, MaxLen: mm.PageSize})
			a, _ := e.frag(2048)
			fast := e.stat(sim.StatAllocFast)
			b, _ := e.frag(1024)
			c, _ := e.frag(1024)
			if a != b || b != c {
				t.Fatal("the fragments are not on one page")
			}
			if got := e.stat(sim.StatAllocFast) - fast; got != tc.fastNext {
				t.Errorf("two further fragments counted alloc_fast %d times, want %d", got, tc.fastNext)
			}
			for _, pg := range []*mm.Page{a, b, c} {
				e.toRing(pg)
			}
			fast, cached := e.stat(sim.StatAllocFast), e.stat(sim.StatRecycleCached)
			d, off := e.frag(2048) // does not fit: drained with no users left, reused from 0
			if d != a || off != 0 {
				t.Fatalf("got pfn %#x at %d, want the drained page reused from 0", d.PFN, off)
			}
			if gf, gc := e.stat(sim.StatAllocFast)-fast, e.stat(sim.StatRecycleCached)-cached; gf != tc.fastReuse || gc != tc.cachedReuse {
				t.Errorf("the reuse counted alloc_fast %d, recycle_cached %d; want %d, %d", gf, gc, tc.fastReuse, tc.cachedReuse)
			}
			e.clean()
		})
	}
}
