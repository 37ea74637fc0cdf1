package mm

import (
	"fmt"
	"reflect"
	"testing"

	"pplab/engine/sim"
)

// checkByWalks is the allocator's full check as two plain walks — every
// free-list entry looked up in the page array, then every page — which
// CheckInvariants must report exactly as (the same violations, in the
// same order).
func (a *Allocator) checkByWalks(m *sim.Machine) {
	inFree := 0
	for n := range a.nodes {
		nd := &a.nodes[n]
		for i, pfn := range nd.free {
			p := &a.pages[pfn]
			if p.Place != sim.PlaceBuddy || p.freeIdx != int32(i) {
				p.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone,
					"on node %d's free list but recorded as %s", n, p.Place)
			}
		}
		inFree += len(nd.free)
	}
	marked := 0
	for i := range a.pages {
		p := &a.pages[i]
		switch {
		case p.Ref < 0:
			p.ReportOnce(m, sim.KindRefcountUnderflow, m.RuleFor(sim.KindRefcountUnderflow), "refcount is %d", p.Ref)
		case p.Place == sim.PlaceBuddy:
			marked++
			a.checkFree(m, p)
		case p.Place == sim.PlaceCompound:
			h := &a.pages[p.Holder]
			if h.Place == sim.PlaceBuddy || p.PFN-h.PFN >= int32(1)<<h.Order {
				p.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone, "compound tail of pfn 0x%x, which no longer covers it", h.PFN)
			}
		}
	}
	if marked != inFree {
		m.Report(sim.KindPageInTwoPlaces, -1, sim.RuleNone, "%d frames marked free but %d on the free lists", marked, inFree)
	}
}

// corruption breaks the allocator's bookkeeping in one way (what a broken
// rule or a model bug could leave), on the page or entry r picks.
type corruption struct {
	name  string
	apply func(a *Allocator, r *sim.Rand)
}

var corruptions = []corruption{
	{"page-on-its-free-list-twice", func(a *Allocator, r *sim.Rand) {
		nd := &a.nodes[r.Intn(len(a.nodes))]
		if len(nd.free) > 0 {
			nd.free = append(nd.free, nd.free[r.Intn(len(nd.free))])
		}
	}},
	{"listed-page-recorded-elsewhere", func(a *Allocator, r *sim.Rand) {
		nd := &a.nodes[r.Intn(len(a.nodes))]
		if len(nd.free) > 0 {
			a.pages[nd.free[r.Intn(len(nd.free))]].Place = sim.PlaceSKB
		}
	}},
	{"free-index-off-by-one", func(a *Allocator, r *sim.Rand) {
		nd := &a.nodes[r.Intn(len(a.nodes))]
		if len(nd.free) > 0 {
			a.pages[nd.free[r.Intn(len(nd.free))]].freeIdx++
		}
	}},
	{"entry-moved-to-the-other-node", func(a *Allocator, r *sim.Rand) {
		from, to := &a.nodes[0], &a.nodes[len(a.nodes)-1]
		if len(from.free) > 1 {
			to.free = append(to.free, from.free[len(from.free)-1])
			from.free = from.free[:len(from.free)-1]
		}
	}},
	{"free-page-mapped", func(a *Allocator, r *sim.Rand) { freePage(a, r).Mapped = true }},
	{"free-page-with-users", func(a *Allocator, r *sim.Rand) { freePage(a, r).Users = 1 }},
	{"free-page-owned-by-a-pool", func(a *Allocator, r *sim.Rand) { freePage(a, r).Owner = 1 }},
	{"negative-refcount", func(a *Allocator, r *sim.Rand) { a.pages[r.Intn(len(a.pages))].Ref = -1 }},
	{"compound-tail-of-a-free-head", func(a *Allocator, r *sim.Rand) {
		head := freePage(a, r)
		tail := &a.pages[(int(head.PFN)+1)%len(a.pages)]
		tail.Place, tail.Holder = sim.PlaceCompound, head.PFN
	}},
}

func freePage(a *Allocator, r *sim.Rand) *Page {
	nd := &a.nodes[r.Intn(len(a.nodes))]
	if len(nd.free) == 0 {
		nd = &a.nodes[0]
	}
	return &a.pages[nd.free[r.Intn(len(nd.free))]]
}

// allocated is an allocator with some pages out (single and compound), on
// two nodes, as two identical copies with their own machines.
func allocated(t *testing.T) [2]*Allocator {
	var out [2]*Allocator
	for i := range out {
		_, a := newAlloc(t, "numa_nodes=2")
		for j := 0; j < 40; j++ {
			p := a.AllocPagesNode(0, j%2, uint8(j%3/2))
			if j%5 == 0 {
				a.PutPage(0, p)
			}
		}
		out[i] = a
	}
	return out
}

// TestAllocatorCheck_ReportsAsTheTwoWalks: the allocator's full check,
// which reads the page array once, reports exactly what walking every
// free-list entry and then every page reports, in the same order — for
// each corruption alone, and for seeded mixes of them checked twice (the
// second check sees what the first already reported).
func TestAllocatorCheck_ReportsAsTheTwoWalks(t *testing.T) {
	same := func(t *testing.T, name string, pair [2]*Allocator) {
		t.Helper()
		for round := 0; round < 2; round++ {
			pair[0].CheckInvariants(pair[0].m)
			pair[1].checkByWalks(pair[1].m)
			if got, want := pair[0].m.Log, pair[1].m.Log; !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, check %d: reports %v, the walks report %v", name, round+1, got.List, want.List)
			}
		}
	}
	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			pair := allocated(t)
			for _, a := range pair {
				r := sim.NewRand(7)
				c.apply(a, &r)
			}
			same(t, c.name, pair)
			if pair[0].m.Log.Total() == 0 {
				t.Fatalf("%s: nothing reported", c.name)
			}
		})
	}
	t.Run("seeded-mixes", func(t *testing.T) {
		for seed := uint64(1); seed <= 200; seed++ {
			pair := allocated(t)
			for _, a := range pair {
				r := sim.NewRand(seed)
				for k := 1 + r.Intn(4); k > 0; k-- {
					corruptions[r.Intn(len(corruptions))].apply(a, &r)
				}
			}
			same(t, fmt.Sprintf("seed %d", seed), pair)
		}
	})
	t.Run("intact", func(t *testing.T) {
		pair := allocated(t)
		same(t, "intact", pair)
		if pair[0].m.Log.Total() != 0 {
			t.Fatalf("intact allocator: %v", pair[0].m.Log.List)
		}
	})
}

// BenchmarkAllocatorCheck: the allocator's full check of a default-size
// node (16384 pages) with a few pages out, against the two plain walks.
func BenchmarkAllocatorCheck(b *testing.B) {
	k := sim.DefaultKnobs()
	m := sim.NewMachine(sim.Config{Knobs: k, Seed: 3})
	a := NewAllocator(m)
	for j := 0; j < 200; j++ {
		p := a.AllocPagesNode(0, 0, 0)
		if j%3 == 0 {
			a.PutPage(0, p)
		}
	}
	b.Run("scan", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			a.CheckInvariants(m)
		}
	})
	b.Run("walks", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			a.checkByWalks(m)
		}
	})
}
