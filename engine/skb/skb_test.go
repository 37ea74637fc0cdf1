package skb

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

func TestFree_PoolPageDestinationByEra(t *testing.T) {
	tests := []struct {
		era            string
		napiConsume    bool
		wantPlace      sim.Place
		ring, cached   uint64
		wantReleaseCnt uint32
	}{
		{"5.12", false, sim.PlaceBuddy, 0, 0, 1}, // released when the skb was built, put_page on free
		{"5.13", false, sim.PlaceBuddy, 0, 0, 1},
		{"rfc-v1", false, sim.PlaceRing, 1, 0, 0}, // __xdp_return -> page_pool_put_full_page
		{"5.14", false, sim.PlaceRing, 1, 0, 0},
		{"5.14", true, sim.PlaceRing, 1, 0, 0}, // skb frees never recycle directly before 6.4
		{"5.15", true, sim.PlaceRing, 1, 0, 0},
		{"6.4", false, sim.PlaceRing, 1, 0, 0}, // kfree_skb is not NAPI-safe
		{"6.4", true, sim.PlaceCache, 0, 1, 0}, // napi_consume_skb on the pool's NAPI CPU
		{"6.8", true, sim.PlaceCache, 0, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era)
			sk, pg := e.rx(1500)
			if tc.napiConsume {
				e.m.Begin(0, sim.SymNapiConsumeSKB)
				e.s.NapiConsumeSKB(0, sk, 64)
			} else {
				e.kfree(sk)
			}
			e.places(map[*mm.Page]sim.Place{pg: tc.wantPlace})
			e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: tc.ring, sim.StatRecycleCached: tc.cached})
			if e.p.Release() != tc.wantReleaseCnt {
				t.Errorf("release %d, want %d", e.p.Release(), tc.wantReleaseCnt)
			}
			e.clean()
		})
	}
}

func TestNapiConsumeSKB_Budget0IsNotNAPIContext(t *testing.T) {
	e := newEnv(t, "6.4")
	sk, pg := e.rx(64)
	e.m.Begin(0, sim.SymNapiConsumeSKB)
	e.s.NapiConsumeSKB(0, sk, 0)
	e.places(map[*mm.Page]sim.Place{pg: sim.PlaceRing})
	e.clean()
}

func TestNapiConsumeSKB_OtherCPUGoesToRing_6_4(t *testing.T) {
	e := newEnv(t, "6.4")
	sk, pg := e.rx(64)
	e.m.Begin(1, sim.SymNapiConsumeSKB)
	e.s.NapiConsumeSKB(1, sk, 64) // e.g. TX completion on another CPU
	e.places(map[*mm.Page]sim.Place{pg: sim.PlaceRing})
	e.clean()
}

func TestClone_OnlyLastDatarefRecycles(t *testing.T) {
	for _, era := range []string{"5.14", "6.8"} {
		for _, originalFirst := range []bool{true, false} {
			e := newEnv(t, era)
			sk, head := e.rx(200)
			fr := e.frag(sk, 1000)
			e.m.Begin(0, sim.SymSkbClone)
			cl, err := e.s.SkbClone(0, sk)
			if err != nil {
				t.Fatal(err)
			}
			if !SkbCloned(sk) || !SkbCloned(cl) || sk.D.Dataref != 2 || !cl.PPRecycle {
				t.Fatalf("after clone: %v / %v", sk, cl)
			}
			first, second := sk, cl
			if !originalFirst {
				first, second = cl, sk
			}
			e.kfree(first)
			e.places(map[*mm.Page]sim.Place{head: sim.PlaceSKB, fr: sim.PlaceSKB})
			e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: 0})
			e.kfree(second)
			e.places(map[*mm.Page]sim.Place{head: sim.PlaceRing, fr: sim.PlaceRing})
			e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: 2})
			e.clean()
		}
	}
}

func TestReleaseData_ClearsPPRecycleOnNonLastRef(t *testing.T) {
	for _, tc := range []struct {
		era  string
		want bool // pp_recycle still set on the skb that dropped a non-final dataref
	}{{"rfc-v1", true}, {"5.14", false}, {"6.8", false}} {
		e := newEnv(t, tc.era)
		sk, _ := e.rx(200)
		e.frag(sk, 1000)
		cl, _ := e.s.SkbClone(0, sk)
		// pskb_expand_head on the clone drops its dataref on the shared data
		// through skb_release_data and keeps living with a new head.
		if err := e.s.PskbExpandHead(0, cl, 0); err != nil {
			t.Fatal(err)
		}
		if cl.PPRecycle != tc.want {
			t.Errorf("%s: pp_recycle after a non-final skb_release_data = %v, want %v", tc.era, cl.PPRecycle, tc.want)
		}
		e.kfree(sk, cl)
		e.clean()
	}
}

func TestFreeHead_OnlyHeadFragHeadsRecycle(t *testing.T) {
	e := newEnv(t, "6.8")
	sk, fr := e.fragsOnly(1000) // kmalloc head, pool frag, pp_recycle set
	if sk.HeadFrag {
		t.Fatal("kmalloc head marked head_frag")
	}
	e.kfree(sk)
	e.places(map[*mm.Page]sim.Place{fr: sim.PlaceRing})
	if e.s.KmallocInUse() != 0 {
		t.Errorf("kmalloc head not freed")
	}
	e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: 1})
	e.clean()
}

func TestPskbExpandHead_ClonedTakesPageRefsThenReleasedRefcnt(t *testing.T) {
	e := newEnv(t, "5.14")
	x, head := e.rx(200)
	fr := e.frag(x, 1000)
	y, _ := e.s.SkbClone(0, x)
	if err := e.s.PskbExpandHead(0, y, 0); err != nil {
		t.Fatal(err)
	}
	if fr.Ref != 2 || y.HeadFrag || SkbCloned(x) || x.D.Dataref != 1 {
		t.Fatalf("after expand: frag ref %d, %v, %v", fr.Ref, x, y)
	}
	e.kfree(x) // last user of the old data: head recycles, the frag has an extra page ref
	e.places(map[*mm.Page]sim.Place{head: sim.PlaceRing, fr: sim.PlaceSKB})
	e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: 1, sim.StatRecycleReleasedRefcnt: 1})
	if fr.Ref != 1 || fr.HasPPSignature() {
		t.Fatalf("frag after released_refcnt: %v", fr)
	}
	e.kfree(y) // pp_recycle was cleared: put_page
	e.places(map[*mm.Page]sim.Place{fr: sim.PlaceBuddy})
	e.clean()
}

// The old head of an skb that is not cloned recycles at once. Where to:
// skb_free_head passes napi_safe = false, so until v6.6 the ptr_ring; from
// v6.6 (`napi_safe || in_softirq()` in napi_pp_put_page) a free in softirq
// on the NAPI's CPU goes to the alloc cache.
func TestPskbExpandHead_NotClonedOldHeadRecycles(t *testing.T) {
	for _, tc := range []struct {
		era   string
		place sim.Place // the old head, freed by pskb_expand_head on cpu0 (the NAPI's)
		stats map[sim.Stat]uint64
	}{
		{"6.4", sim.PlaceRing, map[sim.Stat]uint64{sim.StatRecycleRing: 2}},
		{"6.8", sim.PlaceCache, map[sim.Stat]uint64{sim.StatRecycleCached: 1, sim.StatRecycleRing: 1}},
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era)
			x, head := e.rx(200)
			fr := e.frag(x, 1000)
			if err := e.s.PskbExpandHead(0, x, 0); err != nil {
				t.Fatal(err)
			}
			e.places(map[*mm.Page]sim.Place{head: tc.place, fr: sim.PlaceSKB})
			if fr.Ref != 1 || !x.PPRecycle {
				t.Fatalf("frag ref %d pp_recycle %v: the frags move without references", fr.Ref, x.PPRecycle)
			}
			e.kfree(x) // on cpu1, a reader: not the NAPI's CPU, the ring in both eras
			e.places(map[*mm.Page]sim.Place{fr: sim.PlaceRing})
			e.stats(tc.stats)
			e.clean()
		})
	}
}

func TestPlainPages_NeverRecycled(t *testing.T) {
	e := newEnv(t, "6.8")
	// sky2/mlx4 style: plain pages from the page allocator as frags, no mark.
	sk, _ := e.s.AllocSKB(0, 0, false)
	plain := e.a.AllocPagesNode(0, -1, 0)
	e.s.AddRxFrag(0, sk, plain, 0, 1000, mm.PageSize)
	e.kfree(sk)
	e.places(map[*mm.Page]sim.Place{plain: sim.PlaceBuddy})
	// A plain page in a pp_recycle skb: the signature check sends it to put_page.
	sk2, _ := e.rx(100)
	plain2 := e.a.AllocPagesNode(0, -1, 0)
	e.s.AddRxFrag(0, sk2, plain2, 0, 1000, mm.PageSize)
	e.kfree(sk2)
	e.places(map[*mm.Page]sim.Place{plain2: sim.PlaceBuddy})
	// kTLS record frags are unref'd with recycle=false.
	ktls := Frag{Page: e.a.AllocPagesNode(0, -1, 0), Size: 100}
	ktls.Page.Users++
	e.s.FragUnref(0, &ktls, false, false)
	e.places(map[*mm.Page]sim.Place{ktls.Page: sim.PlaceBuddy})
	// A loopback skb: head_frag over a page_frag page.
	lo, _ := e.s.AllocPageFragSKB(0, 100)
	lop := lo.D.HeadPage
	e.kfree(lo)
	e.places(map[*mm.Page]sim.Place{lop: sim.PlaceBuddy})
	e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: 1})
	e.clean()
}

func TestSkb_FreedTwiceIsReported(t *testing.T) {
	e := newEnv(t, "6.8")
	sk, _ := e.rx(100)
	e.kfree(sk)
	e.kfree(sk)
	if e.m.Log.Counts[sim.KindRefcountUnderflow] != 1 {
		t.Fatalf("double kfree_skb: %v", e.m.Log.List)
	}
	if e.p.Stats()[sim.StatRecycleRing] != 1 {
		t.Errorf("the page was recycled twice")
	}
}

func TestMarkForRecycle_NoneBefore5_14(t *testing.T) {
	e := newEnv(t, "5.13")
	sk, _ := e.rx(100)
	if err := e.s.MarkForRecycle(0, sk, nil, nil); err == nil {
		t.Fatal("skb_mark_for_recycle accepted in 5.13")
	}
	e.kfree(sk)
	e.clean()
}

func TestAddRxFrag_MaxSkbFrags(t *testing.T) {
	e := newEnv(t, "6.8")
	sk, _ := e.s.AllocSKB(0, 0, false)
	for i := 0; i < MaxSkbFrags; i++ {
		e.frag(sk, 100)
	}
	if err := e.s.AddRxFrag(0, sk, e.page(), 0, 100, mm.PageSize); err == nil {
		t.Fatal("an 18th frag was accepted")
	}
}

func TestMarkForRecycle_WhatEachEraStores(t *testing.T) {
	for _, tc := range []struct {
		era         string
		ppAfterMark bool // page->pp points at the pool
		private     bool // page->private holds the xdp_mem_info
	}{
		{"rfc-v1", false, true},
		{"5.14", true, false}, // skb_mark_for_recycle(skb, page, pp) stores page->pp
		{"5.15", true, false}, // set at allocation already; the mark only sets the bit
		{"6.8", true, false},
	} {
		e := newEnv(t, tc.era)
		pg := e.page()
		if tc.era == "5.14" && pg.PP != 0 {
			t.Fatalf("5.14 set page->pp at allocation")
		}
		sk, _ := e.s.BuildSKB(0, pg, 0, mm.PageSize, 100, true)
		e.s.MarkForRecycle(0, sk, pg, e.p)
		if (pg.PP == e.p.ID) != tc.ppAfterMark || (pg.Private != 0) != tc.private || !sk.PPRecycle {
			t.Errorf("%s: after the mark: pp %d private %#x pp_recycle %v", tc.era, pg.PP, pg.Private, sk.PPRecycle)
		}
		e.kfree(sk)
		e.clean()
	}
}

func TestNapiSkbCache_BulkRefillAndHalfFlush(t *testing.T) {
	e := newEnv(t, "6.8")
	var sks []*SKB
	for i := 0; i < 20; i++ {
		sk, _ := e.rx(64) // napi_build_skb: takes structs from the per-CPU cache
		sks = append(sks, sk)
	}
	// 20 structs: a bulk of 16 then another: 12 left in the cache.
	if e.s.napi[0] != 2*NapiSkbCacheBulk-20 {
		t.Fatalf("cache holds %d, want %d", e.s.napi[0], 2*NapiSkbCacheBulk-20)
	}
	bulk := e.m.SpentPS(0, sim.SymNapiSkbCacheGet)
	for _, sk := range sks {
		e.s.NapiConsumeSKB(0, sk, 64)
	}
	// 12 + 20 = 32 < 64: nothing flushed yet; 32 more frees reach 64 and flush half.
	if e.s.napi[0] != 32 {
		t.Fatalf("cache holds %d after 20 frees, want 32", e.s.napi[0])
	}
	for i := 0; i < 32; i++ {
		sk, _ := e.s.AllocSKB(0, 10, false)
		e.s.NapiConsumeSKB(0, sk, 64)
	}
	if e.s.napi[0] != NapiSkbCacheSize-NapiSkbCacheHalf {
		t.Fatalf("cache holds %d, want %d after a half flush", e.s.napi[0], NapiSkbCacheSize-NapiSkbCacheHalf)
	}
	if bulk == 0 || e.m.SpentPS(0, sim.SymNapiSkbCachePut) == 0 {
		t.Fatal("bulk refill / flush not charged")
	}
	e.clean()
}

func TestEvents_EverySkbOperationIsNarrated(t *testing.T) {
	e := newEnv(t, "5.14")
	var lines []string
	e.m.SetTracer(func(ev sim.Event) { lines = append(lines, ev.TraceLine()) })
	to, _ := e.s.AllocSKB(0, 1500, false)
	from, _ := e.fragsOnly(3000)
	e.coalesce(to, from)
	cl, _ := e.s.SkbClone(0, to)
	e.s.PskbExpandHead(0, cl, 0)
	e.kfree(to, cl, from)
	want := []string{
		"__alloc_skb:", "skb_add_rx_frag:", "skb_mark_for_recycle:",
		"skb_try_coalesce:", "skb#1: refused to take skb#2 — `to` and `from` differ in pp_recycle",
		"skb_clone:", "pskb_expand_head:", "skb_release_data:", "kfree_skb:", "page_pool_return_skb_page:",
	}
	all := ""
	for _, l := range lines {
		all += l + "\n"
	}
	for _, w := range want {
		if !containsStr(all, w) {
			t.Errorf("no %q in the trace:\n%s", w, all)
		}
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// fakeRing posts one buffer for the checker (a NIC RX descriptor).
type fakeRing struct {
	pg        *mm.Page
	off, size int
}

func (f *fakeRing) HeldPages(v PageVisitor) {
	v.HeldPage(f.pg, f.off, f.size, "a posted NIC RX descriptor")
}

// TestChecker_PostedBufferMustNotOverlapLiveSkbData: a page may be in an skb
// and on the NIC ring at once (two halves), but a posted buffer overlapping
// bytes a live skb holds is a use-after-recycle in the making.
func TestChecker_PostedBufferMustNotOverlapLiveSkbData(t *testing.T) {
	for _, tc := range []struct {
		off  int
		want bool
	}{{mm.PageSize / 2, false}, {1024, true}, {0, true}} {
		e := newEnv(t, "6.8")
		pg := e.page()
		sk, _ := e.s.BuildSKB(0, pg, 0, mm.PageSize/2, 1000, true) // the first half
		e.s.MarkForRecycle(0, sk, pg, e.p)
		pg.Users++ // the posted descriptor's use
		e.s.AddHolder(&fakeRing{pg: pg, off: tc.off, size: mm.PageSize / 2})
		e.check()
		if got := e.m.Log.Counts[sim.KindUseAfterRecycle] > 0; got != tc.want {
			t.Errorf("descriptor at %d: violation %v, want %v (%v)", tc.off, got, tc.want, e.m.Log.List)
		}
	}
}

// TestReleaseData_NohdrDropsBothHalvesOfDataref: after __skb_header_release the
// skb's own free subtracts (1 << SKB_DATAREF_SHIFT) + 1; the data is released
// only when both the clone's and the payload-only reference are gone.
func TestReleaseData_NohdrDropsBothHalvesOfDataref(t *testing.T) {
	for _, originalFirst := range []bool{true, false} {
		e := newEnv(t, "6.8")
		sk, pg := e.rx(500)
		if err := e.s.SkbHeaderRelease(sk); err != nil {
			t.Fatal(err)
		}
		cl, _ := e.s.SkbClone(0, sk)
		if cl.Nohdr || !sk.Nohdr || sk.D.Dataref != 2+1<<SkbDatarefShift || !SkbCloned(sk) {
			t.Fatalf("after clone: %v / %v", sk, cl)
		}
		first, second := sk, cl
		if !originalFirst {
			first, second = cl, sk
		}
		e.kfree(first)
		e.places(map[*mm.Page]sim.Place{pg: sim.PlaceSKB})
		e.kfree(second)
		e.places(map[*mm.Page]sim.Place{pg: sim.PlaceRing})
		e.clean()
	}
	e := newEnv(t, "6.8")
	sk, _ := e.rx(100)
	e.s.SkbClone(0, sk)
	if err := e.s.SkbHeaderRelease(sk); err == nil {
		t.Fatal("__skb_header_release accepted a cloned skb")
	}
}

// __skb_put and __skb_pull move the linear data's bounds; the tailroom stays
// with the head, a put beyond it is refused (skb_over_panic), a pull never
// reaches into the frags, and pulling a header-split skb leaves it
// frags-only: coalescing then moves frags, it cannot steal a head.
func TestPutPull_LinearBounds(t *testing.T) {
	e := newEnv(t, "6.4")
	sk, err := e.s.NapiAllocSKB(0, 256)
	if err != nil {
		t.Fatal(err)
	}
	room := e.s.Tailroom(sk)
	if sk.Len != 0 || room < 256 {
		t.Fatalf("napi_alloc_skb(256): len %d tailroom %d", sk.Len, room)
	}
	if err := e.s.Put(sk, room+1); err == nil {
		t.Fatal("__skb_put beyond the tailroom accepted")
	}
	if err := e.s.Put(sk, 66); err != nil || sk.Len != 66 || e.s.Tailroom(sk) != room-66 {
		t.Fatalf("put 66: err %v len %d tailroom %d", err, sk.Len, e.s.Tailroom(sk))
	}
	e.s.MarkForRecycle(0, sk, nil, nil)
	pg := e.frag(sk, 3000)
	if n := e.s.Pull(sk, 100); n != 66 || sk.Headlen() != 0 || sk.Len != 3000 || sk.DataLen != 3000 {
		t.Fatalf("pull 100 of 66 linear bytes: pulled %d, %v", n, sk)
	}
	to, _ := e.rx(1500)
	e.s.Pull(to, 66)
	if r := e.coalesce(to, sk); !r.OK || r.HeadStolen || to.D.Frags[to.D.NrFrags-1].Page != pg {
		t.Fatalf("coalescing a frags-only skb: %+v", r)
	}
	e.kfree(to)
	e.clean()
}

// RFC v1's page_pool_return_skb_page clears page->private before
// xdp_return_skb_frame: a second return of the same page reads mem type 0,
// WARNs once and put_page()s a page the pool already holds — the outcome
// is a refcount the pool loses, not a second recycle.
func TestRFCv1_ReturnClearsPagePrivateSecondReturnWarnsAndPutsPage(t *testing.T) {
	e := newEnv(t, "rfc-v1")
	sk, pg := e.rx(1000)
	if pg.Private == 0 {
		t.Fatal("the marked page carries no xdp_mem_info")
	}
	e.kfree(sk)
	if pg.Private != 0 || pg.Place != sim.PlaceRing {
		t.Fatalf("after the first return: private %#x, place %s", pg.Private, pg.Place)
	}
	warned := false
	e.m.SetTracer(func(ev sim.Event) { warned = warned || ev.Kind == sim.EvWarn })
	e.m.Begin(1, sim.SymReturnSkbPage)
	if !e.r.ReturnSkbPage(1, pg, false) {
		t.Fatal("the second return was not handled by the RFC path")
	}
	e.check()
	if st := e.p.Stats(); st[sim.StatRecycleRing] != 1 || !warned {
		t.Errorf("recycle_ring %d (want 1: no second recycle), WARN %v", st[sim.StatRecycleRing], warned)
	}
	if e.m.Log.Total() == 0 {
		t.Errorf("put_page of a page the pool holds went unreported")
	}
}

// RFC v1's skb_free_head tests pp_recycle before head_frag: the kmalloc'ed
// head pskb_expand_head gave a marked skb is offered to the pool first
// (its slab page fails the signature check and is kfree'd); from v5 on the
// test sits under head_frag and a kmalloc'ed head never reaches the pool.
func TestRFCv1_SkbFreeHeadTestsPPRecycleBeforeHeadFrag(t *testing.T) {
	for _, tc := range []struct {
		era   string
		tries bool
	}{{"rfc-v1", true}, {"5.14", false}} {
		e := newEnv(t, tc.era)
		sk, _ := e.rx(1000)
		e.m.Begin(0, sim.SymPskbExpandHead)
		if err := e.s.PskbExpandHead(0, sk, 0); err != nil {
			t.Fatal(err)
		}
		e.check()
		if sk.HeadFrag || !sk.PPRecycle {
			t.Fatalf("%s: after pskb_expand_head head_frag %v pp_recycle %v", tc.era, sk.HeadFrag, sk.PPRecycle)
		}
		e.kfree(sk) // on cpu1
		if tried := e.m.SpentPS(1, sim.SymReturnSkbPage) > 0; tried != tc.tries {
			t.Errorf("%s: page_pool_return_skb_page for the kmalloc'ed head: %v, want %v", tc.era, tried, tc.tries)
		}
		e.clean()
	}
}

// napi_safe is an argument of the skb free path from v6.4 (b07a2d97ba5e,
// 8c48eea3adf3) to v6.9; 4a96a4e807c3 (v6.10) removed it everywhere. The
// free paths' narration names it exactly in those eras.
func TestEvents_NapiSafeIsNamedOnlyWhereTheFreePathPassesIt(t *testing.T) {
	tests := []struct {
		name, era string
		want      bool
	}{
		{"5.15: no napi_safe argument before v6.4", "5.15", false},
		{"6.4: b07a2d97ba5e plumbs napi_safe through the free path", "6.4", true},
		{"6.9: still passed down", "6.9", true},
		{"6.10: 4a96a4e807c3 removes the argument", "6.10", false},
		{"7.1: none", "7.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.era)
			var all string
			e.m.SetTracer(func(ev sim.Event) { all += ev.TraceLine() + "\n" })
			a, _ := e.rx(100)
			e.frag(a, 1000)
			b, _ := e.rx(100)
			e.kfree(a)
			e.m.Begin(0, sim.SymNapiConsumeSKB)
			e.s.NapiConsumeSKB(0, b, 64)
			if got := containsStr(all, "napi_safe"); got != tt.want {
				t.Errorf("napi_safe named: %v, want %v:\n%s", got, tt.want, all)
			}
			e.clean()
		})
	}
}

// SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) per platform: 320 with
// 8-byte pointers, 248 rounded up to 256 with 4-byte ones; the 5.12–5.15
// layout (no xdp_frags_size, d16697cb6261 v5.18) pads to the same size.
func TestShinfoSize_FollowsThePlatformsPointersAndCacheLine(t *testing.T) {
	tests := []struct {
		name string
		plat *sim.Platform
		want int
	}{
		{"x86-64: sizeof 320, 64-byte lines", &sim.X86Server, 320},
		{"arm64: sizeof 320", &sim.Arm64Server, 320},
		{"ARMv7 (ti-cpsw): sizeof 248, SKB_DATA_ALIGN to 64 is 256", &sim.TICpsw, 256},
		{"MIPS32 (lunar-mips): sizeof 248, SKB_DATA_ALIGN to 32 is 256", &sim.LunarMIPS, 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShinfoSize(tt.plat); got != tt.want {
				t.Errorf("ShinfoSize = %d, want %d", got, tt.want)
			}
		})
	}
	layouts := []struct {
		name         string
		ptr          int
		xdpFragsSize bool
		want         int
	}{
		{"64-bit, v5.18 on", 8, true, 320},
		{"64-bit, before xdp_frags_size", 8, false, 320},
		{"32-bit, v5.18 on", 4, true, 248},
		{"32-bit, before xdp_frags_size: 244 padded to the ktime_t's 8", 4, false, 248},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			if got := shinfoSizeof(l.ptr, l.xdpFragsSize); got != l.want {
				t.Errorf("sizeof = %d, want %d", got, l.want)
			}
		})
	}
}
