package pagepool

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

func TestFastPath_LIFOOrder(t *testing.T) {
	tests := []struct {
		name    string
		recycle []int // indexes of the allocated pages, in recycle order
	}{
		{"one", []int{0}},
		{"in order", []int{0, 1, 2, 3}},
		{"reversed", []int{3, 2, 1, 0}},
		{"shuffled", []int{2, 0, 3, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "6.8", Params{})
			got := e.alloc(len(tc.recycle))
			for _, i := range tc.recycle {
				e.direct(got[i])
			}
			fast := e.stat(sim.StatAllocFast)
			again := e.alloc(len(tc.recycle))
			// LIFO: the last page recycled is the first handed out.
			for j, pg := range again {
				want := got[tc.recycle[len(tc.recycle)-1-j]]
				if pg != want {
					t.Fatalf("alloc %d after recycling = pfn %#x, want %#x (last in, first out)", j, pg.PFN, want.PFN)
				}
			}
			if d := e.stat(sim.StatAllocFast) - fast; d != uint64(len(tc.recycle)) {
				t.Errorf("fast path allocations = %d, want %d", d, len(tc.recycle))
			}
			e.clean()
		})
	}
}

func TestRefill_OnlyWhenCacheEmptyAtMost64(t *testing.T) {
	tests := []struct {
		ringed       int
		wantRefills  []int // pages moved by each refill
		wantLeftRing int
	}{
		{ringed: 10, wantRefills: []int{10}},
		{ringed: 64, wantRefills: []int{64}},
		{ringed: 100, wantRefills: []int{64, 36}},
		{ringed: 200, wantRefills: []int{64, 64, 64, 8}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d ringed", tc.ringed), func(t *testing.T) {
			e := newEnv(t, "6.8", Params{})
			pages := e.alloc(tc.ringed)
			e.toRing(pages...)
			// The cache still holds the rest of the last bulk: while it is not
			// empty, allocation never touches the ring.
			left := e.p.CacheCount()
			e.alloc(left)
			if e.p.RingCount() != tc.ringed || e.stat(sim.StatAllocRefill) != 0 {
				t.Fatalf("ring %d refills %d after draining the cache, want %d and 0", e.p.RingCount(), e.stat(sim.StatAllocRefill), tc.ringed)
			}
			for i, n := range tc.wantRefills {
				ring := e.p.RingCount()
				e.alloc(1)
				if moved := ring - e.p.RingCount(); moved != n {
					t.Fatalf("refill %d moved %d pages, want %d", i, moved, n)
				}
				if e.p.CacheCount() != n-1 {
					t.Fatalf("refill %d left %d in the cache, want %d", i, e.p.CacheCount(), n-1)
				}
				e.alloc(n - 1) // drain the cache: fast path only
				if e.stat(sim.StatAllocRefill) != uint64(i+1) {
					t.Fatalf("refill count = %d, want %d", e.stat(sim.StatAllocRefill), i+1)
				}
			}
			e.clean()
		})
	}
}

// numaEnv builds a two-node machine whose pool (nid 0) has in its ring, oldest
// first, pages from the given nodes, and an empty alloc cache.
func numaEnv(t *testing.T, nodes []int) *env {
	e := newEnv(t, "6.8", Params{Nid: 0}, "numa_nodes=2", "cpus=2")
	var ringed []*mm.Page
	for _, n := range nodes {
		e.m.Begin(0, sim.SymUpdateNid)
		e.p.UpdateNid(0, n) // flush the cache so the next alloc comes from node n
		pg := e.alloc(1)[0]
		if int(pg.Nid) != n {
			t.Fatalf("page from pool with nid %d is on node %d", n, pg.Nid)
		}
		ringed = append(ringed, pg)
	}
	e.m.Begin(0, sim.SymUpdateNid)
	e.p.UpdateNid(0, 0)
	e.toRing(ringed...)
	return e
}

func TestRefill_StopsAtWrongNodeCountsWaive(t *testing.T) {
	tests := []struct {
		name               string
		ring               []int
		wantCache, wantRng int
		wantWaive, wantRef uint64
		wantSlow           uint64 // slow-path calls caused by the alloc
	}{
		{"all local", []int{0, 0, 0}, 2, 0, 0, 1, 0},
		{"remote first", []int{1, 0, 0}, 63, 2, 1, 0, 1},
		{"remote in the middle", []int{0, 0, 1, 0, 0}, 1, 2, 1, 1, 0},
		{"all remote", []int{1, 1}, 63, 1, 1, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := numaEnv(t, tc.ring)
			slow, empty := e.stat(sim.StatAllocSlow), e.stat(sim.StatAllocEmpty)
			pg := e.alloc(1)[0]
			if pg.Nid != 0 {
				t.Errorf("got a page from node %d, want node 0", pg.Nid)
			}
			if e.p.CacheCount() != tc.wantCache || e.p.RingCount() != tc.wantRng {
				t.Errorf("cache %d ring %d, want %d and %d", e.p.CacheCount(), e.p.RingCount(), tc.wantCache, tc.wantRng)
			}
			if got := e.stat(sim.StatAllocWaive); got != tc.wantWaive {
				t.Errorf("waive = %d, want %d", got, tc.wantWaive)
			}
			if got := e.stat(sim.StatAllocRefill); got != tc.wantRef {
				t.Errorf("refill = %d, want %d", got, tc.wantRef)
			}
			if got := e.stat(sim.StatAllocSlow) - slow; got != tc.wantSlow {
				t.Errorf("slow = %d, want %d", got, tc.wantSlow)
			}
			// A waive is not an empty ring: NULL from refill goes straight to the slow path.
			if got := e.stat(sim.StatAllocEmpty) - empty; got != 0 {
				t.Errorf("empty grew by %d, want 0", got)
			}
			e.clean()
		})
	}
}

func TestEmpty_OnlyWhenRingEmpty(t *testing.T) {
	t.Run("cache and ring empty", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{})
		e.alloc(1)
		e.wantStats(map[sim.Stat]uint64{sim.StatAllocEmpty: 1, sim.StatAllocSlow: 1})
		e.clean()
	})
	t.Run("cache not empty: no refill attempt", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{})
		e.alloc(64) // one bulk: 1 empty, 1 slow, 63 fast
		e.wantStats(map[sim.Stat]uint64{sim.StatAllocEmpty: 1, sim.StatAllocSlow: 1, sim.StatAllocFast: 63})
		e.clean()
	})
	t.Run("ring holds only a remote page", func(t *testing.T) {
		e := numaEnv(t, []int{1})
		empty := e.stat(sim.StatAllocEmpty)
		e.alloc(1)
		if e.stat(sim.StatAllocEmpty) != empty {
			t.Errorf("empty counted although the ring was not empty")
		}
		e.clean()
	})
	t.Run("ring has pages", func(t *testing.T) {
		e := newEnv(t, "6.8", Params{})
		pages := e.alloc(64)
		e.toRing(pages...)
		e.alloc(1)
		e.wantStats(map[sim.Stat]uint64{sim.StatAllocEmpty: 1, sim.StatAllocRefill: 1})
		e.clean()
	})
}

func TestSlow_OncePerBulkCall(t *testing.T) {
	tests := []struct {
		era       string
		opts      []string
		n         int
		wantSlow  uint64
		wantFast  uint64
		wantBulks int64
	}{
		{"6.8", nil, 200, 4, 196, 4},
		{"5.13", nil, 64, 1, 63, 1},
		{"5.13", nil, 65, 2, 63, 2},
		{"6.8", []string{"bulk=16"}, 200, 13, 187, 13},
		// Before 5.13 every slow-path allocation is one page.
		{"5.12", nil, 200, 200, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{}, tc.opts...)
			e.alloc(tc.n)
			e.wantStats(map[sim.Stat]uint64{sim.StatAllocSlow: tc.wantSlow, sim.StatAllocFast: tc.wantFast, sim.StatAllocEmpty: tc.wantSlow})
			if e.a.BulkCalls != tc.wantBulks {
				t.Errorf("alloc_pages_bulk calls = %d, want %d", e.a.BulkCalls, tc.wantBulks)
			}
			e.clean()
		})
	}
}

func TestHighOrder_SingleAllocsCountSlowHighOrder(t *testing.T) {
	for _, order := range []uint8{1, 2, 3} {
		t.Run(fmt.Sprintf("order %d", order), func(t *testing.T) {
			e := newEnv(t, "6.8", Params{Order: order, Flags: FlagDMAMap})
			pages := e.alloc(10)
			e.wantStats(map[sim.Stat]uint64{sim.StatAllocSlowHighOrder: 10, sim.StatAllocSlow: 0, sim.StatAllocEmpty: 10, sim.StatAllocFast: 0})
			if e.a.BulkCalls != 0 {
				t.Errorf("high-order pool used the bulk allocator %d times", e.a.BulkCalls)
			}
			for _, pg := range pages {
				if pg.Order != order || pg.PFN%(1<<order) != 0 {
					t.Fatalf("page %v: want an aligned order-%d compound page", pg, order)
				}
				for j := int32(1); j < 1<<order; j++ {
					if tail := e.a.Page(pg.PFN + j); tail.Place != sim.PlaceCompound || tail.Holder != pg.PFN {
						t.Fatalf("tail %v not held by its head", tail)
					}
				}
			}
			e.direct(pages...)
			again := e.alloc(10)
			if e.stat(sim.StatAllocFast) != 10 || !slices.Equal(pfns(again), reversed(pfns(pages))) {
				t.Errorf("recycled high-order pages not reused from the cache")
			}
			e.clean()
		})
	}
}

func reversed(s []int32) []int32 {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestCreate_RejectsInvalidParamsAsTheKernel(t *testing.T) {
	tests := []struct {
		name, era string
		p         Params
		wantErr   error
	}{
		{"defaults", "6.8", Params{}, nil},
		{"ring 32768", "6.8", Params{PoolSize: 32768}, nil},
		{"ring 32769", "6.8", Params{PoolSize: 32769}, ErrE2Big},
		{"unknown flag", "6.8", Params{Flags: 1 << 5}, ErrInval},
		{"PAGE_FRAG before 5.15", "5.14", Params{Flags: FlagPageFrag}, ErrInval},
		{"PAGE_FRAG in 5.15", "5.15", Params{Flags: FlagPageFrag}, nil},
		{"PAGE_FRAG in 6.4", "6.4", Params{Flags: FlagPageFrag}, nil},
		{"PAGE_FRAG removed by 6.8", "6.8", Params{Flags: FlagPageFrag}, ErrInval},
		{"map to device", "6.8", Params{Flags: FlagDMAMap, DMADir: mm.DMAToDevice}, ErrInval},
		{"map bidirectional", "6.8", Params{Flags: FlagDMAMap, DMADir: mm.DMABidirectional}, nil},
		{"sync without map", "6.8", Params{Flags: FlagDMASyncDev, MaxLen: 4096}, ErrInval},
		{"sync without max_len", "6.8", Params{Flags: FlagDMAMap | FlagDMASyncDev, DMADir: mm.DMAFromDevice}, ErrInval},
		{"sync ok", "6.8", Params{Flags: FlagDMAMap | FlagDMASyncDev, DMADir: mm.DMAFromDevice, MaxLen: 1668}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.era, Params{})
			p, err := e.r.Create(0, tc.p)
			if tc.wantErr == nil {
				if err != nil || p == nil {
					t.Fatalf("Create: %v, want a pool", err)
				}
				want := tc.p.PoolSize
				if want == 0 {
					want = DefaultRingSize
				}
				if p.RingSize() != want {
					t.Errorf("ring size %d, want %d", p.RingSize(), want)
				}
				return
			}
			if err == nil || !errorsIs(err, tc.wantErr) {
				t.Fatalf("Create: %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// The fast path says which page it pops: the most recently recycled one
// only when a recycle put it on top of the cache, else one the slow path's
// bulk allocation or a refill from the ptr_ring left there.
func TestFastPath_NarratesWhereItsPageCameFrom(t *testing.T) {
	e := newEnv(t, "6.8", Params{})
	var whys []string
	e.m.SetTracer(func(ev sim.Event) {
		if ev.Stat == sim.StatAllocFast {
			whys = append(whys, ev.Why)
		}
	})
	pages := e.alloc(2) // a slow bulk allocation, then a page it left in the cache
	e.direct(pages...)
	e.alloc(1) // the last recycled
	e.toRing(e.alloc(2)...)
	for e.p.alloc.count > 0 { // empty the cache: the next allocation refills from the ring
		e.alloc(1)
	}
	e.alloc(2) // the refill's page, then one it left on top
	if len(whys) < 4 {
		t.Fatalf("%d fast-path events", len(whys))
	}
	for i, want := range map[int]string{0: "bulk allocation", 1: "most recently recycled", len(whys) - 1: "refill moved there from the ptr_ring"} {
		if !strings.Contains(whys[i], want) {
			t.Errorf("fast path %d: %q, want it to say %q", i, whys[i], want)
		}
	}
}

// trace_page_pool_state_release fires in page_pool_release_page while it
// exists (to 6.5) and in page_pool_return_page from 6.6 (its name in the
// era: page_pool_return_netmem from 6.17), not in the release helper.
func TestStateReleaseTracepoint_InTheErasReturnFunction(t *testing.T) {
	for i := range sim.Eras {
		era := &sim.Eras[i]
		t.Run(era.Name, func(t *testing.T) {
			e := newEnvEra(t, era, Params{})
			var got []sim.Sym
			e.m.SetTracer(func(ev sim.Event) {
				if ev.Kind == sim.EvStateRelease {
					got = append(got, ev.Func)
				}
			})
			pg := e.alloc(1)[0]
			e.m.Begin(0, sim.SymPutPage)
			e.p.returnPage(0, pg)
			want := sim.SymReleasePage
			if era.NoReleasePageAPI {
				want = sim.SymReturnPage
			}
			if len(got) != 1 || got[0] != want {
				t.Fatalf("the release tracepoint fired in %v, want %v (%s in %s)", got, want, want.NameIn(era), era.Name)
			}
		})
	}
}
