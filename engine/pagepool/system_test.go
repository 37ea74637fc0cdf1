package pagepool

import (
	"errors"
	"strings"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

func TestPageInit_RingClamp16K(t *testing.T) {
	for _, tc := range []struct {
		name     string
		era      string
		poolSize int
		wantRing int // 0: -E2BIG
	}{
		{"6.16 takes 16385 as it is", "6.16", 16385, 16385},
		{"6.16 takes 32768, the limit", "6.16", 32768, 32768},
		{"6.16 refuses 40000", "6.16", 40000, 0},
		{"6.18 clamps 16385", "6.18", 16385, 16384},
		{"6.18 clamps 32768", "6.18", 32768, 16384},
		{"6.18 clamps 40000 instead of refusing it", "6.18", 40000, 16384},
		{"6.18 keeps 16384", "6.18", 16384, 16384},
		{"6.18 keeps the 1024 default", "6.18", 0, 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{})
			p, err := e.r.Create(0, Params{PoolSize: tc.poolSize})
			if tc.wantRing == 0 {
				if !errors.Is(err, ErrE2Big) {
					t.Fatalf("pool_size %d: err %v, want -E2BIG", tc.poolSize, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.RingSize(); got != tc.wantRing {
				t.Errorf("pool_size %d: ring of %d entries, want %d", tc.poolSize, got, tc.wantRing)
			}
		})
	}
}

func TestSystemPool_OnePerCPUCreatedOnFirstUse(t *testing.T) {
	for _, tc := range []struct {
		era     string
		wantNid [2]int
	}{
		{"6.9", [2]int{NumaNoNode, NumaNoNode}},
		{"6.10", [2]int{0, 1}}, // 341ee1a584c8: cpu_to_mem(cpuid)
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{}, "cpus=2", "numa_nodes=2")
			if e.r.SystemPools() != nil {
				t.Fatal("system pools exist before first use")
			}
			sp := e.r.SystemPool(1)
			pools := e.r.SystemPools()
			if len(pools) != 2 || sp != pools[1] || len(e.r.Pools()) != 3 {
				t.Fatalf("SystemPool(1) = pool %d, system pools %d, pools %d: want both CPUs' created at once after the driver's", sp.ID, len(pools), len(e.r.Pools()))
			}
			for c, p := range pools {
				if p.ID != int32(2+c) || p.CPUID() != c || !p.System() || p.P.Flags != FlagSystemPool || p.RingSize() != 256 ||
					p.P.NAPI != nil || p.P.Nid != tc.wantNid[c] || p.Hold() != 0 {
					t.Errorf("cpu%d's system pool: id %d cpuid %d system %v flags %#x ring %d napi %v nid %d hold %d; want id %d, cpuid %d, PP_FLAG_SYSTEM_POOL only, ring 256, no napi, nid %d, nothing preallocated",
						c, p.ID, p.CPUID(), p.System(), p.P.Flags, p.RingSize(), p.P.NAPI, p.P.Nid, p.Hold(), 2+c, c, tc.wantNid[c])
				}
			}
			if e.p.CPUID() != -1 || e.p.System() {
				t.Errorf("page_pool_create's pool: cpuid %d system %v, want -1 and false", e.p.CPUID(), e.p.System())
			}
		})
	}
	e := newEnv(t, "6.8", Params{})
	if e.r.SystemPool(0) != nil {
		t.Error("6.8 has a system page_pool")
	}
}

func TestCreatePercpu_NoSuchFunctionBefore69(t *testing.T) {
	e := newEnv(t, "6.8", Params{})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "page_pool_create_percpu does not exist in era 6.8") {
			t.Errorf("recover() = %v, want the missing-function panic", r)
		}
	}()
	_, _ = e.r.CreatePercpu(0, Params{}, 0)
}

func TestPagePoolGetStats_SystemPoolsShareRecycleStats(t *testing.T) {
	e := newEnv(t, "6.9", Params{}, "cpus=2")
	s0, s1 := e.r.SystemPool(0), e.r.SystemPool(1)
	e.m.Begin(0, sim.SymAllocPages)
	pg := s0.AllocPages(0)
	s0.RecycleDirect(0, pg) // cached, counted on the shared stats
	e.m.Begin(1, sim.SymAllocPages)
	pg = s1.AllocPages(1)
	s1.PutFullPage(1, pg, false) // ring
	e.check()
	for _, p := range []*Pool{s0, s1} {
		var st sim.Stats
		p.GetStats(&st)
		if st[sim.StatRecycleCached] != 1 || st[sim.StatRecycleRing] != 1 || st[sim.StatAllocSlow] != 1 || st[sim.StatAllocEmpty] != 1 {
			t.Errorf("page_pool_get_stats(pool %d) = cached %d ring %d slow %d empty %d; want the shared recycle counters of both pools (1, 1) and its own alloc counters (1, 1)",
				p.ID, st[sim.StatRecycleCached], st[sim.StatRecycleRing], st[sim.StatAllocSlow], st[sim.StatAllocEmpty])
		}
		if own := p.Stats(); own[sim.StatRecycleCached]+own[sim.StatRecycleRing] != 0 {
			t.Errorf("pool %d keeps recycle counters of its own: %v", p.ID, own)
		}
	}
	var sum sim.Stats
	e.r.SumStats(&sum)
	if sum[sim.StatRecycleCached] != 1 || sum[sim.StatRecycleRing] != 1 || sum[sim.StatAllocSlow] != 2 {
		t.Errorf("SumStats: cached %d ring %d slow %d, want 1, 1, 2 (the shared recycle stats once)", sum[sim.StatRecycleCached], sum[sim.StatRecycleRing], sum[sim.StatAllocSlow])
	}
}

// freeOn returns an skb page of pool p with napi_pp_put_page on cpu, in
// softirq or not, and says where it went.
func freeOn(e *env, p *Pool, cpu int, softirq, napiSafe bool) sim.Place {
	e.t.Helper()
	for c := range e.m.CPUs {
		e.m.CPUs[c].Softirq = true
	}
	e.m.Begin(p.consumer, sim.SymAllocPages)
	pg := p.AllocPages(p.consumer)
	e.m.CPUs[cpu].Softirq = softirq
	e.m.Begin(cpu, sim.SymReturnSkbPage)
	if !e.r.ReturnSkbPage(cpu, pg, napiSafe) {
		e.t.Fatalf("page of pool %d not taken back", p.ID)
	}
	return pg.Place
}

func TestNapiPPPutPage_SystemPoolCPUIDAllowsDirect(t *testing.T) {
	for _, tc := range []struct {
		name              string
		era               string
		cpu               int
		softirq, napiSafe bool
		want              sim.Place
	}{
		{"6.9 softirq on the pool's cpu", "6.9", 0, true, false, sim.PlaceCache},
		{"6.9 softirq on another cpu", "6.9", 1, true, false, sim.PlaceRing},
		{"6.9 process context", "6.9", 0, false, false, sim.PlaceRing},
		// allow_direct is true (napi_safe), but __page_pool_put_page
		// still tests in_softirq() before 6.10.
		{"6.9 napi_safe outside softirq", "6.9", 0, false, true, sim.PlaceRing},
		{"6.10 softirq on the pool's cpu", "6.10", 0, true, false, sim.PlaceCache},
		{"6.10 softirq on another cpu", "6.10", 1, true, false, sim.PlaceRing},
		{"6.10 napi_safe is gone: outside softirq is not local", "6.10", 0, false, true, sim.PlaceRing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{}, "cpus=2")
			p, err := e.r.CreatePercpu(0, Params{}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := freeOn(e, p, tc.cpu, tc.softirq, tc.napiSafe); got != tc.want {
				t.Errorf("freed on cpu%d (softirq %v, napi_safe %v): page in %s, want %s", tc.cpu, tc.softirq, tc.napiSafe, got, tc.want)
			}
			e.check()
			if n := len(e.m.Log.List); n != 0 {
				t.Errorf("violations: %v", e.m.Log.List)
			}
		})
	}
}

func TestPageNapiLocal_DriverPutsAndBulkRecycleDirectFrom610(t *testing.T) {
	for _, tc := range []struct {
		name      string
		era       string
		scheduled bool
		wantCache uint64 // of 16 single puts, then of a bulk of 16
	}{
		{"6.9 NAPI scheduled here: allow_direct=false means the ring", "6.9", true, 0},
		{"6.10 NAPI scheduled here: page_pool_napi_local says local", "6.10", true, 16},
		{"6.10 NAPI not scheduled: list_owner -1, not local", "6.10", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			napi := NewNAPI(0)
			if tc.scheduled {
				napi.Schedule()
			}
			e := newEnv(t, tc.era, Params{NAPI: napi})
			pages := e.alloc(16)
			for _, pg := range pages {
				e.m.Begin(0, sim.SymPutPage)
				e.p.PutFullPage(0, pg, false) // a driver's put (page_pool_put_full_page(pool, page, false))
			}
			st := e.p.Stats()
			if st[sim.StatRecycleCached] != tc.wantCache || st[sim.StatRecycleRing] != 16-tc.wantCache {
				t.Errorf("single puts: cached %d ring %d, want %d and %d", st[sim.StatRecycleCached], st[sim.StatRecycleRing], tc.wantCache, 16-tc.wantCache)
			}
			pages = e.alloc(16)
			e.m.Begin(0, sim.SymPutPageBulk)
			e.p.PutPageBulk(0, pages) // xdp_flush_frame_bulk
			e.check()
			st2 := e.p.Stats()
			cached, ring := st2[sim.StatRecycleCached]-st[sim.StatRecycleCached], st2[sim.StatRecycleRing]-st[sim.StatRecycleRing]
			if cached != tc.wantCache || ring != 16-tc.wantCache {
				t.Errorf("bulk put: cached %d ring %d, want %d and %d", cached, ring, tc.wantCache, 16-tc.wantCache)
			}
			if len(e.m.Log.List) != 0 {
				t.Errorf("violations: %v", e.m.Log.List)
			}
		})
	}
}

func TestPutPage_RecycleDirectWithoutSoftirqTestFrom610(t *testing.T) {
	for _, tc := range []struct {
		era  string
		want sim.Place
	}{
		{"6.9", sim.PlaceRing},   // allow_direct && in_softirq()
		{"6.10", sim.PlaceCache}, // 4a96a4e807c3: the caller vouches for its context
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{}, "softirq=0")
			pg := e.alloc(1)[0]
			e.direct(pg)
			if pg.Place != tc.want {
				t.Errorf("page_pool_recycle_direct in process context: page in %s, want %s", pg.Place, tc.want)
			}
		})
	}
}

func TestPagePoolDestroy_DisablesDirectRecyclingByCPUID(t *testing.T) {
	e := newEnv(t, "6.9", Params{}, "cpus=2")
	p, err := e.r.CreatePercpu(0, Params{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.m.Begin(0, sim.SymAllocPages)
	pg := p.AllocPages(0)
	e.m.Begin(0, sim.SymPoolDestroy)
	p.Destroy(0)
	if p.CPUID() != -1 {
		t.Fatalf("cpuid %d after page_pool_destroy, want -1 (56ef27e3abe6)", p.CPUID())
	}
	e.m.Begin(0, sim.SymReturnSkbPage)
	e.r.ReturnSkbPage(0, pg, false) // in softirq on the pool's old CPU
	if pg.Place != sim.PlaceRing {
		t.Errorf("a late skb free in softirq on cpu0: page in %s, want the ptr_ring (the cache is never emptied again)", pg.Place)
	}
}

func TestPagePoolAlloc_HalfAPageIsAFrag(t *testing.T) {
	e := newEnv(t, "6.9", Params{})
	for _, tc := range []struct {
		size             int
		wantOff, wantTru int
		samePage         bool
	}{
		{1600, 0, 1600, false},
		{1600, 1600, 2496, true}, // no third 1600 fits: the rest of the page goes to this one
		{2112, 0, 4096, false},   // more than half a page: a whole page
	} {
		var prev *mm.Page = e.p.FragPage()
		e.m.Begin(0, sim.SymAllocFrag)
		pg, off, tru := e.p.Alloc(0, tc.size)
		if pg == nil || off != tc.wantOff || tru != tc.wantTru || (pg == prev) != tc.samePage {
			t.Errorf("page_pool_alloc(%d) = page %v off %d truesize %d; want off %d truesize %d, same frag page %v", tc.size, pg, off, tru, tc.wantOff, tc.wantTru, tc.samePage)
		}
	}
}

func TestNapiPPPutPage_PageNetppIsTheSignatureIn71rc1(t *testing.T) {
	for _, tc := range []struct {
		era         string
		wantType    bool // the pool page carries PGTY_netpp
		wantMagic   bool // the pool page carries PP_SIGNATURE in pp_magic
		forgedTaken bool // a page with PP_SIGNATURE in pp_magic but no page type is taken for a pool page
	}{
		{"6.18", false, true, true},
		{"7.1-rc1", true, false, false},
		{"7.1", false, true, true}, // 54cf41c969da reverted it
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{})
			pg := e.alloc(1)[0]
			if pg.PageNetpp() != tc.wantType || pg.HasPPSignature() != tc.wantMagic {
				t.Errorf("pool page: PageNetpp %v, pp_magic signature %v; want %v, %v", pg.PageNetpp(), pg.HasPPSignature(), tc.wantType, tc.wantMagic)
			}
			e.m.Begin(0, sim.SymReturnSkbPage)
			if !e.r.ReturnSkbPage(0, pg, false) {
				t.Errorf("the pool's own page fails %s", e.m.Era.SignatureCheck())
			}
			forged := e.a.AllocPagesNode(0, -1, 0)
			forged.PPMagic |= mm.PPSignature
			forged.PP = e.p.ID
			forged.Owner = e.p.ID // the checker's ground truth: it counts as the pool's
			taken := IsPP(e.m.Era, forged)
			if taken != tc.forgedTaken {
				t.Errorf("page with PP_SIGNATURE in pp_magic and no page type: %s = %v, want %v", e.m.Era.SignatureCheck(), taken, tc.forgedTaken)
			}
			e.m.Begin(0, sim.SymReturnPage)
			e.p.scrub(0) // release what the pool holds: page_pool_clear_pp_info
			if pg.PageNetpp() {
				t.Error("PGTY_netpp survives page_pool_clear_pp_info")
			}
		})
	}
}

func TestSignatureCheck_BreaksInPageTypeForm(t *testing.T) {
	e := newEnv(t, "7.1-rc1", Params{}, "break=signature-check")
	plain := e.a.AllocPagesNode(0, -1, 0) // not a pool page: no PGTY_netpp, page->pp NULL
	e.m.Begin(0, sim.SymReturnSkbPage)
	e.r.ReturnSkbPage(0, plain, false)
	if n := e.m.Log.Counts[sim.KindForeignPageInPool]; n != 1 {
		t.Fatalf("foreign-page-in-pool reported %d times, want 1: %v", n, e.m.Log.List)
	}
	if v := e.m.Log.List[0]; v.Rule != sim.RuleSignatureCheck || !strings.Contains(v.Detail, "PageNetpp(page)") {
		t.Errorf("violation %+v: want rule signature-check naming PageNetpp(page)", v)
	}
}
