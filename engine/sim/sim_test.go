package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// The era table is ordered and its names resolve, whatever eras it holds:
// each era's Order is its index, names are unique, the releases and
// pre-releases of the mainline follow their kernel versions (a pre-release
// before its release), a branch follows the tag of the era it branches
// off, and an unknown name is refused with every accepted one.
func TestEras_NamesAndOrder(t *testing.T) {
	seen := map[string]bool{}
	var prev []int
	for i := range Eras {
		e := &Eras[i]
		if e.Order != i {
			t.Errorf("%s: order %d, want %d", e.Name, e.Order, i)
		}
		if e.Name == "" || seen[e.Name] {
			t.Errorf("era %d: name %q empty or repeated", i, e.Name)
		}
		seen[e.Name] = true
		if got, err := EraByName(e.Name); err != nil || got != e {
			t.Errorf("%s: EraByName gives %v, %v", e.Name, got, err)
		}
		if b := e.Base(); b != nil {
			if b.Order >= e.Order || b.Base() != nil || b.Name != e.Branch || b.Tag != e.Tag {
				t.Errorf("%s: branches off %q (%+v), want an earlier mainline era with its tag %s", e.Name, e.Branch, b, e.Tag)
			}
			continue
		}
		v := tagVersion(t, e.Tag)
		if prev != nil && slices.Compare(v, prev) <= 0 {
			t.Errorf("%s (%s) does not follow the mainline era before it (%v)", e.Name, e.Tag, prev)
		}
		prev = v
	}
	if _, err := EraByName(DefaultEra); err != nil {
		t.Errorf("DefaultEra: %v", err)
	}
	if _, err := EraByName("5.16"); err == nil || !strings.Contains(err.Error(), "accepted: "+strings.Join(EraNames(), ", ")) {
		t.Errorf("unknown era error: %v", err)
	}
}

// tagVersion orders a kernel tag: v6.18 → [6 18 1 0], v7.1-rc1 → [7 1 0 1]
// (a pre-release before its release).
func tagVersion(t *testing.T, tag string) []int {
	t.Helper()
	var maj, min, rc int
	if n, _ := fmt.Sscanf(tag, "v%d.%d-rc%d", &maj, &min, &rc); n == 3 {
		return []int{maj, min, 0, rc}
	}
	if n, _ := fmt.Sscanf(tag, "v%d.%d", &maj, &min); n != 2 {
		t.Fatalf("tag %q: want vX.Y or vX.Y-rcN", tag)
	}
	return []int{maj, min, 1, 0}
}

// TestEras_Features pins each era's behaviour switches to the kernel releases
// that changed them (the commits are on Era's fields).
func TestEras_Features(t *testing.T) {
	type f struct {
		bulk, frag, fragFlag, refCount, napiDirect, consumerLock, ppAtAlloc bool
		skb                                                                 SkbRecycling
		coalesce                                                            CoalesceForm
	}
	want := map[string]f{
		"5.12":   {false, false, false, false, false, true, false, SkbRecycleNone, CoalescePlain},
		"5.13":   {true, false, false, false, false, true, false, SkbRecycleNone, CoalescePlain},
		"rfc-v1": {false, false, false, false, false, true, false, SkbRecycleRFC, CoalescePlain},
		"5.14":   {true, false, false, false, false, true, false, SkbRecycleMerged, CoalescePlain},
		"5.15":   {true, true, true, false, false, true, true, SkbRecycleMerged, Coalesce2022},
		"6.4":    {true, true, true, false, true, false, true, SkbRecycleMerged, Coalesce2023},
		"6.8":    {true, true, false, true, true, false, true, SkbRecycleMerged, CoalescePlainPPRefs},
	}
	for name, w := range want {
		e, err := EraByName(name)
		if err != nil {
			t.Fatal(err)
		}
		got := f{e.BulkAlloc, e.FragAPI, e.FragFlag, e.PPRefCount, e.NAPIDirect, e.RefillConsumerLock, e.PPSetAtAlloc, e.SkbRecycle, e.Coalesce}
		if got != w {
			t.Errorf("%s: features %+v, want %+v", name, got, w)
		}
	}
}

func TestRules_NamesKindsAndSets(t *testing.T) {
	want := "coalesce-pp-guard,coalesce-cloned-guard,signature-check,last-dataref,refcnt-check,frag-count,napi-locality,pfmemalloc-check,bulk-map-error,bulk-dma-unmap,release-producer-barrier,dma-mapped-cmpxchg,frags-readable"
	if got := strings.Join(RuleNames(), ","); got != want {
		t.Fatalf("rules %s", got)
	}
	for _, r := range AllRules() {
		if len(r.Info().Kinds) == 0 || r.Info().Prevents == "" {
			t.Errorf("%s: no violation kind or description", r)
		}
	}
	var s RuleSet
	s = s.With(RuleRefcntCheck)
	if !s.Broken(RuleRefcntCheck) || s.Broken(RuleFragCount) {
		t.Fatal("rule set")
	}
	m := NewMachine(Config{Rules: s, Knobs: DefaultKnobs()})
	if m.RuleFor(KindUseAfterRecycle) != RuleRefcntCheck || m.RuleFor(KindDMALeak) != RuleNone {
		t.Fatal("RuleFor attribution")
	}
	if _, err := RuleByName("nope"); err == nil || !strings.Contains(err.Error(), "accepted: coalesce-pp-guard") {
		t.Fatalf("unknown rule error: %v", err)
	}
	if got := strings.Join(KindNames(), ","); got != "use-after-recycle,double-recycle,foreign-page-in-pool,inflight-leak,dma-leak,cache-race,reserve-page-retained,alloc-failure-with-cache,refcount-underflow,page-in-two-places,stalled-shutdown,dma-unmap-after-unbind,pool-use-after-free,unreadable-frag-read" {
		t.Fatalf("kinds %s", got)
	}
}

func TestKnobs_SetRejectsBadInputWithAcceptedValues(t *testing.T) {
	tests := []struct {
		in, errHas string
	}{
		{"order=2", ""},
		{"nid=-1", ""},
		{"order", "want knob=value"},
		{"order=5", "want an integer from 0 to 4"},
		{"order=x", "want an integer from 0 to 4"},
		{"colour=3", `unknown knob "colour"`},
	}
	for _, tc := range tests {
		k := DefaultKnobs()
		err := k.Set(tc.in)
		if tc.errHas == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: error %v, want it to say %q", tc.in, err, tc.errHas)
		}
	}
	k := DefaultKnobs()
	k.Set("order=3")
	if k.Get(KnobOrder) != 3 {
		t.Fatal("Set did not set")
	}
}

func TestRand_Deterministic(t *testing.T) {
	a, b := NewRand(42), NewRand(42)
	for i := 0; i < 100; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed, different sequence")
		}
	}
	r := NewRand(1)
	if r.Chance(0) || !r.Chance(1000000) {
		t.Fatal("Chance bounds")
	}
	n := 0
	for i := 0; i < 100000; i++ {
		if r.Chance(250000) {
			n++
		}
	}
	if n < 24000 || n > 26000 {
		t.Fatalf("Chance(25%%) hit %d of 100000", n)
	}
}

func TestMachine_ChargeClockAndTimers(t *testing.T) {
	k := DefaultKnobs()
	m := NewMachine(Config{Knobs: k})
	ps := m.Charge(1, SymProducerLock, 0)
	if want := int64(31) * 1_000_000 / 3600; ps != want || m.CPUs[1].BusyPS() != want || m.SpentPS(1, SymProducerLock) != want {
		t.Fatalf("charge %d ps, want %d", ps, want)
	}
	if m.CPUs[0].BusyPS() != 0 {
		t.Fatal("charged the wrong CPU")
	}
	var fired []int64
	m.After(2000, TimerFunc(func() { fired = append(fired, m.NowPS()/PSPerNS) }))
	m.After(1000, TimerFunc(func() { fired = append(fired, m.NowPS()/PSPerNS) }))
	m.AdvanceNS(1500)
	if len(fired) != 1 {
		t.Fatalf("fired %v after 1.5 µs", fired)
	}
	m.AdvanceNS(1000)
	if len(fired) != 2 || fired[0] > fired[1] {
		t.Fatalf("fired %v", fired)
	}
}

func TestEvent_TracepointFormats(t *testing.T) {
	pool1, pool2 := HashPtr(PoolPtr(1)), HashPtr(PoolPtr(2))
	tests := []struct {
		e    Event
		want string
	}{
		{Event{Kind: EvStateHold, Pool: 1, Page: 0x10, Hold: 3, TimePS: 1_500_000},
			"          <idle>-0       [000] ..s1.     0.000001: page_pool_state_hold: page_pool=" + pool1 + " netmem=" + HashPtr(PagePtr(0x10)) + " is_net_iov=0, pfn=0x10 hold=3"},
		{Event{Kind: EvStateRelease, CPU: 1, Pool: 2, Page: 1, Release: 9, TimePS: 33723_211814_000_000},
			"          <idle>-0       [001] ..s1. 33723.211814: page_pool_state_release: page_pool=" + pool2 + " netmem=" + HashPtr(PagePtr(1)) + " is_net_iov=0 pfn=0x1 release=9"},
		{Event{Kind: EvStateRelease, Pool: 2, Page: 7, NetIov: true, Release: 9},
			"          <idle>-0       [000] ..s1.     0.000000: page_pool_state_release: page_pool=" + pool2 + " netmem=" + HashPtr(PagePtr(7)|1) + " is_net_iov=1 pfn=0x0 release=9"},
		{Event{Kind: EvPoolRelease, Pool: 1, Inflight: 3, Hold: 64, Release: 61, DestroyCnt: 1},
			"          <idle>-0       [000] ..s1.     0.000000: page_pool_release: page_pool=" + pool1 + " inflight=3 hold=64 release=61 cnt=1"},
		{Event{Kind: EvUpdateNid, Pool: 1, Nid: 0, NewNid: 1},
			"          <idle>-0       [000] ..s1.     0.000000: page_pool_update_nid: page_pool=" + pool1 + " pool_nid=0 new_nid=1"},
		{Event{Kind: EvCall, Func: SymRecycleInCache, Page: 2, From: PlaceSKB, To: PlaceCache, Stat: StatRecycleCached, CostPS: 555, Why: "because"},
			"          <idle>-0       [000] ..s1.     0.000000: page_pool_recycle_in_cache: pfn=0x2 skb->cache [recycle_cached++] (0.6 ns) — because"},
	}
	e618, _ := EraByName("6.18") // this machine's kernel: its capture's format
	for _, tc := range tests {
		tc.e.Era = e618
		if got := tc.e.TraceLine(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// TestHashPtr_AsThePercentPOfA64BitKernel: %p prints 16 hex digits, the
// upper 8 zero (lib/vsprintf.c masks the hash to 32 bits), like this
// machine's capture: page_pool=00000000899a4a90.
func TestHashPtr_AsThePercentPOfA64BitKernel(t *testing.T) {
	seen := map[string]bool{}
	for pfn := int32(0); pfn < 4096; pfn++ {
		h := HashPtr(PagePtr(pfn))
		if len(h) != 16 || h[:8] != "00000000" || strings.Trim(h, "0123456789abcdef") != "" {
			t.Fatalf("HashPtr(page %d) = %q", pfn, h)
		}
		if seen[h] {
			t.Fatalf("HashPtr collides at page %d", pfn)
		}
		seen[h] = true
	}
}

func TestStats_NamesAndEthtool(t *testing.T) {
	var names, eth []string
	for s := Stat(0); s < NumStats; s++ {
		names = append(names, s.String())
		eth = append(eth, s.Ethtool())
	}
	if got := strings.Join(names, ","); got != "alloc_fast,alloc_slow,alloc_slow_high_order,alloc_empty,alloc_refill,alloc_waive,recycle_cached,recycle_cache_full,recycle_ring,recycle_ring_full,recycle_released_refcnt" {
		t.Errorf("stat names %s", got)
	}
	if got := strings.Join(eth, ","); got != "rx_pp_alloc_fast,rx_pp_alloc_slow,rx_pp_alloc_slow_ho,rx_pp_alloc_empty,rx_pp_alloc_refill,rx_pp_alloc_waive,rx_pp_recycle_cached,rx_pp_recycle_cache_full,rx_pp_recycle_ring,rx_pp_recycle_ring_full,rx_pp_recycle_released_ref" {
		t.Errorf("ethtool names %s", got)
	}
	var a, b Stats
	a[StatAllocFast], b[StatAllocFast] = 2, 3
	a.Add(&b)
	if a[StatAllocFast] != 5 {
		t.Fatal("Add")
	}
}

// TestBenchX86_ReproducesKernelBenchmark re-derives the three measured sums of
// bench_page_pool_simple (Brouer's 2023 figures, BenchX86's doc) from the per-function costs,
// so the split cannot drift away from the measurement.
func TestBenchX86_ReproducesKernelBenchmark(t *testing.T) {
	fast, ring, slow := benchSums(&BenchX86.Cycles)
	for _, tc := range []struct {
		name      string
		got, want float64
	}{{"01_fast_path", fast, 14}, {"02_ptr_ring", ring, 49}, {"03_slow", slow, 162}} {
		if tc.got != tc.want {
			t.Errorf("%s: the split sums to %.2f cycles, measured %v", tc.name, tc.got, tc.want)
		}
	}
}

// page_pool_state_hold/release print the pfn as the era's
// include/trace/events/page_pool.h does: decimal (pfn=%lu) until
// 53d884a6675b (v5.14), hex (pfn=0x%lx) from it; page=%p until the netmem
// conversion, netmem=%p is_net_iov=%lu after it.
func TestTraceLine_PFNFormatPerEra(t *testing.T) {
	pool, page := HashPtr(PoolPtr(1)), HashPtr(PagePtr(18))
	tests := []struct {
		name, era string
		kind      EventKind
		want      string
	}{
		{"5.12 hold decimal", "5.12", EvStateHold, "page_pool_state_hold: page_pool=" + pool + " page=" + page + " pfn=18 hold=7"},
		{"5.13 release decimal", "5.13", EvStateRelease, "page_pool_state_release: page_pool=" + pool + " page=" + page + " pfn=18 release=7"},
		{"rfc-v1 on v5.12 decimal", "rfc-v1", EvStateHold, "page_pool_state_hold: page_pool=" + pool + " page=" + page + " pfn=18 hold=7"},
		{"5.14 hex", "5.14", EvStateHold, "page_pool_state_hold: page_pool=" + pool + " page=" + page + " pfn=0x12 hold=7"},
		{"6.10 release hex page", "6.10", EvStateRelease, "page_pool_state_release: page_pool=" + pool + " page=" + page + " pfn=0x12 release=7"},
		{"6.12 hold netmem with the stray comma", "6.12", EvStateHold, "page_pool_state_hold: page_pool=" + pool + " netmem=" + page + " is_net_iov=0, pfn=0x12 hold=7"},
		{"7.3 release netmem", "7.3", EvStateRelease, "page_pool_state_release: page_pool=" + pool + " netmem=" + page + " is_net_iov=0 pfn=0x12 release=7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := EraByName(tt.era)
			ev := Event{Kind: tt.kind, Pool: 1, Page: 18, Hold: 7, Release: 7, Era: e}
			if got := ev.TracePayload(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSym_NameInEra(t *testing.T) {
	tests := []struct {
		name, era string
		sym       Sym
		want      string
	}{
		{"6.8 skb free path", "6.8", SymReturnSkbPage, "napi_pp_put_page"},
		{"6.4 skb free path", "6.4", SymReturnSkbPage, "page_pool_return_skb_page"},
		{"6.8 release", "6.8", SymReleasePage, "__page_pool_release_page_dma"},
		{"5.12 DMA map in the slow path", "5.12", SymPoolDMAMap, "__page_pool_alloc_pages_slow"},
		{"5.13 page_pool_dma_map", "5.13", SymPoolDMAMap, "page_pool_dma_map"},
		{"5.12 allocator", "rfc-v1", SymAllocPagesNode, "__alloc_pages_nodemask"},
		{"unchanged name", "5.15", SymPutPage, "page_pool_put_page"},
		{"6.1 frag unref: __skb_frag_unref", "6.1", SymFragUnref, "__skb_frag_unref"},
		{"6.4 frag unref: napi_frag_unref (8c48eea3adf3)", "6.4", SymFragUnref, "napi_frag_unref"},
		{"6.9 frag unref: still napi_frag_unref", "6.9", SymFragUnref, "napi_frag_unref"},
		{"6.10 frag unref: __skb_frag_unref again (net: remove napi_frag_unref)", "6.10", SymFragUnref, "__skb_frag_unref"},
		{"7.1 frag unref: __skb_frag_unref", "7.1", SymFragUnref, "__skb_frag_unref"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := EraByName(tt.era)
			if got := tt.sym.NameIn(e); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := SymReturnSkbPage.NameIn(nil); got != SymReturnSkbPage.Name() {
		t.Errorf("nil era: %q", got)
	}
}

// A profile of an era from 6.9 names the out-of-line function the era's
// kernel runs each modelled function in, by the era's name; up to 6.8 the
// first profiles' names stay (engine/perf matches real 5.x listings to them).
func TestSym_ProfileInEra(t *testing.T) {
	tests := []struct {
		name, era string
		sym       Sym
		want      string
	}{
		{"5.14 keeps the first profiles' names (the shipped listings' kernels)", "5.14", SymPutPage, "page_pool_put_page"},
		{"5.15 page_pool_release_page is out of line (exported up to v6.5)", "5.15", SymReleasePage, "page_pool_release_page"},
		{"6.1 skb free path is page_pool_return_skb_page", "6.1", SymReturnSkbPage, "page_pool_return_skb_page"},
		{"6.1 inline page_pool_put_page runs in page_pool_put_defragged_page", "6.1", SymPutPage, "page_pool_put_defragged_page"},
		{"6.6 skb free path is napi_pp_put_page (moved in v6.6)", "6.6", SymReturnSkbPage, "napi_pp_put_page"},
		{"6.6 the release runs in page_pool_return_page (535b9c61bdef)", "6.6", SymReleasePage, "page_pool_return_page"},
		{"6.8 inline page_pool_put_page runs in page_pool_put_unrefed_page", "6.8", SymPutPage, "page_pool_put_unrefed_page"},
		{"6.9 skb free path is napi_pp_put_page (moved in v6.6)", "6.9", SymReturnSkbPage, "napi_pp_put_page"},
		{"6.9 inline page_pool_put_page runs in page_pool_put_unrefed_page", "6.9", SymPutPage, "page_pool_put_unrefed_page"},
		{"6.10 page_pool_napi_local runs in page_pool_put_unrefed_page (4a96a4e807c3)", "6.10", SymNapiLocal, "page_pool_put_unrefed_page"},
		{"6.10 recycle_in_ring inlined into the put", "6.10", SymRecycleInRing, "page_pool_put_unrefed_page"},
		{"6.12 the put is page_pool_put_unrefed_netmem (v6.11 netmem)", "6.12", SymNapiLocal, "page_pool_put_unrefed_netmem"},
		{"6.12 ptr_ring produce inlined into the netmem put", "6.12", SymPtrRingProduce, "page_pool_put_unrefed_netmem"},
		{"6.15 release_page is gone: the release runs in page_pool_return_page", "6.15", SymReleasePage, "page_pool_return_page"},
		{"6.15 page_pool_return_page is out of line", "6.15", SymReturnPage, "page_pool_return_page"},
		{"6.16 the dma_mapped xa_cmpxchg runs in page_pool_return_page (__always_inline release)", "6.16", SymDMAIndexRelease, "page_pool_return_page"},
		{"6.18 page_pool_return_netmem (v6.17 rename)", "6.18", SymReleasePage, "page_pool_return_netmem"},
		{"6.16 the dma_mapped xa_alloc runs in the slow path", "6.16", SymDMAIndexAlloc, "__page_pool_alloc_pages_slow"},
		{"6.18 slow path renamed __page_pool_alloc_netmems_slow", "6.18", SymDMAIndexAlloc, "__page_pool_alloc_netmems_slow"},
		{"6.9 bulk allocator still __alloc_pages_bulk", "6.9", SymAllocPagesBulk, "__alloc_pages_bulk"},
		{"6.10 bulk allocator alloc_pages_bulk_noprof", "6.10", SymAllocPagesBulk, "alloc_pages_bulk_noprof"},
		{"6.15 bulk put page_pool_put_netmem_bulk", "6.15", SymPutPageBulk, "page_pool_put_netmem_bulk"},
		{"a profile name outside the model stays", "6.12", SymAllocPagesNode, "get_page_from_freelist"},
		{"an inlined skb helper shows as skb_release_data", "6.10", SymFragUnref, "skb_release_data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := EraByName(tt.era)
			if got := tt.sym.ProfileIn(e); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	for i := range Eras {
		e := &Eras[i]
		if e.ProfileNames {
			continue
		}
		for s := Sym(1); s < NumSyms; s++ {
			if got := s.ProfileIn(e); got != s.Profile() {
				t.Errorf("era %s: %s profiles as %q, want the unchanged %q", e.Name, s.Name(), got, s.Profile())
			}
		}
	}
	// The shipped profiles' names hold up to 5.14 (their kernels); 5.15
	// is the first era whose profiles show its own names.
	if e := FirstEra(func(e *Era) bool { return e.ProfileNames }); e == nil || e.Name != "5.15" {
		t.Errorf("the first era with ProfileNames is %v, want 5.15", e)
	}
	if got := SymReturnSkbPage.ProfileIn(nil); got != SymReturnSkbPage.Profile() {
		t.Errorf("nil era: %q", got)
	}
	e, _ := EraByName("6.10")
	if got := Arm64Server.ProfileNameIn(SymProducerLock, e); got != "page_pool_put_unrefed_page" {
		t.Errorf("arm64 inlines the producer lock into the put: %q in 6.10", got)
	}
	if got := X86Server.ProfileNameIn(SymProducerLock, e); got != "_raw_spin_lock" {
		t.Errorf("x86 producer lock: %q", got)
	}
}

// The srso knob's platforms: bench_page_pool_simple's three loops sum to
// what the EPYC 9684X measured in each SRSO mode (to a cycle: the costs are
// whole cycles), and every cost outside the loops is the platform's own.
func TestWithSRSO_ThePoolLoopsAsMeasured(t *testing.T) {
	for _, p := range []*Platform{&BenchX86, &X86Server} {
		for mode := int64(1); mode < int64(len(SRSO)); mode++ {
			q := p.WithSRSO(mode)
			fast, ring, slow := benchSums(&q.Cycles)
			want := SRSO[mode]
			for _, tc := range []struct {
				name    string
				got, ns float64
			}{{"fast", fast, want.Fast}, {"ptr_ring", ring, want.Ring}, {"slow", slow, want.Slow}} {
				if w := tc.ns * float64(p.MHz) / 1000; math.Abs(tc.got-w) > 1.5 {
					t.Errorf("%s srso=%d: the %s loop sums to %.1f cycles, want %.1f (%.3f ns)", p.Name, mode, tc.name, tc.got, w, tc.ns)
				}
			}
			loops := map[Sym]bool{}
			for _, s := range append(append(append([]Sym{}, srsoFast...), srsoRing...), srsoSlow...) {
				loops[s] = true
			}
			for s := Sym(0); s < NumSyms; s++ {
				if !loops[s] && q.Cycles[s] != p.Cycles[s] {
					t.Errorf("%s srso=%d: %s changed (%v → %v)", p.Name, mode, s.Name(), p.Cycles[s], q.Cycles[s])
				}
			}
		}
	}
	// The measured gap: the default mitigation costs the fast path almost
	// four times the ibpb boot's.
	if r := SRSO[1].Fast / SRSO[2].Fast; r < 3.5 || r > 4.0 {
		t.Errorf("fast path default/ibpb %.2f", r)
	}
}

// TestPlatform_TheCopyToUserIsTheArchitecturesPerEra: the copy to user
// space profiles under x86's own function, which v6.4 renamed, and arm64's
// (the x86 platform showed arm64's __arch_copy_to_user).
func TestPlatform_TheCopyToUserIsTheArchitecturesPerEra(t *testing.T) {
	for _, tc := range []struct {
		p    *Platform
		era  string
		want string
	}{
		{&X86Server, "5.14", "copy_user_enhanced_fast_string"},
		{&X86Server, "6.1", "copy_user_enhanced_fast_string"},
		{&X86Server, "rfc-v1", "copy_user_enhanced_fast_string"},
		{&X86Server, "6.4", "rep_movs_alternative"},
		{&X86Server, "7.3", "rep_movs_alternative"},
		{&Arm64Server, "6.12", "__arch_copy_to_user"},
		{&Macchiatobin, "5.12", "__arch_copy_to_user"},
	} {
		e, err := EraByName(tc.era)
		if err != nil {
			t.Fatal(err)
		}
		if got := tc.p.ProfileNameIn(SymCopyToUser, e); got != tc.want {
			t.Errorf("%s in %s: %q, want %q", tc.p.Name, tc.era, got, tc.want)
		}
	}
}
