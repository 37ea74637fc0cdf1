package mm

import (
	"fmt"
	"testing"

	"pplab/engine/sim"
)

func newAlloc(t *testing.T, opts ...string) (*sim.Machine, *Allocator) {
	t.Helper()
	k := sim.DefaultKnobs()
	k[sim.KnobNodePages] = 256
	for _, o := range opts {
		if err := k.Set(o); err != nil {
			t.Fatal(err)
		}
	}
	m := sim.NewMachine(sim.Config{Knobs: k, Seed: 3})
	return m, NewAllocator(m)
}

// verify re-checks every invariant and fails on any violation.
func verify(t *testing.T, m *sim.Machine) {
	t.Helper()
	m.CheckInvariants()
	if m.Log.Total() != 0 {
		t.Fatalf("violations: %v", m.Log.List)
	}
}

func TestAllocator_ConservationSingleAndFree(t *testing.T) {
	m, a := newAlloc(t, "numa_nodes=2")
	if a.NumPages() != 512 || a.FreePages(0) != 256 || a.FreePages(1) != 256 {
		t.Fatalf("%v", a)
	}
	var got []*Page
	for i := 0; i < 300; i++ { // more than one node: falls back to the other
		p := a.AllocPagesNode(0, 0, 0)
		if p == nil || p.Ref != 1 || p.Place != sim.PlaceDriver {
			t.Fatalf("alloc %d: %v", i, p)
		}
		got = append(got, p)
		verify(t, m)
	}
	if a.FreePages(0) != 0 || a.FreePages(1) != 212 {
		t.Fatalf("after 300 allocs on node 0: %v", a)
	}
	for _, p := range got {
		a.PutPage(0, p)
		verify(t, m)
	}
	if a.FreePages(0) != 256 || a.FreePages(1) != 256 || a.Frees != 300 {
		t.Fatalf("after freeing: %v frees %d", a, a.Frees)
	}
}

func TestAllocator_LIFOReuse(t *testing.T) {
	m, a := newAlloc(t)
	p := a.AllocPagesNode(0, -1, 0)
	a.PutPage(0, p)
	if q := a.AllocPagesNode(0, -1, 0); q != p {
		t.Fatalf("the most recently freed page is not handed out first (got pfn %#x, want %#x)", q.PFN, p.PFN)
	}
	verify(t, m)
}

func TestAllocPagesBulk_MayReturnFewer(t *testing.T) {
	tests := []struct {
		name string
		opts []string
		want int
		ask  int
	}{
		{"full", nil, 64, 64},
		{"memory runs out", nil, 256, 300},
		{"every allocation fails", []string{"alloc_fail_ppm=1000000"}, 0, 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, a := newAlloc(t, tc.opts...)
			out := make([]*Page, tc.ask)
			if n := a.AllocPagesBulk(0, -1, out); n != tc.want {
				t.Fatalf("bulk returned %d, want %d", n, tc.want)
			}
			verify(t, m)
		})
	}
}

func TestAllocPagesNode_HighOrderAlignedCompound(t *testing.T) {
	m, a := newAlloc(t)
	a.AllocPagesNode(0, -1, 0) // PFN 0 taken: the order-2 block must skip 0-3
	p := a.AllocPagesNode(0, -1, 2)
	if p == nil || p.PFN != 4 || p.Order != 2 {
		t.Fatalf("order-2 page %v, want the aligned block at pfn 4", p)
	}
	for i := int32(1); i < 4; i++ {
		if tl := a.Page(p.PFN + i); tl.Place != sim.PlaceCompound || tl.Holder != p.PFN {
			t.Fatalf("tail %v", tl)
		}
	}
	verify(t, m)
	a.PutPage(0, p)
	for i := int32(0); i < 4; i++ {
		if a.Page(p.PFN+i).Place != sim.PlaceBuddy {
			t.Fatalf("frame %d not freed with its head", i)
		}
	}
	verify(t, m)
}

func TestPutPage_RefcountUnderflowIsReportedNotPanicked(t *testing.T) {
	m, a := newAlloc(t)
	p := a.AllocPagesNode(0, -1, 0)
	a.PutPage(0, p)
	a.PutPage(0, p) // a second put of a freed page
	m.CheckInvariants()
	if m.Log.Counts[sim.KindRefcountUnderflow] != 1 {
		t.Fatalf("want one refcount-underflow, got %v", m.Log.List)
	}
	if a.Frees != 1 {
		t.Fatalf("page freed %d times", a.Frees)
	}
}

func TestFreeMappedPage_IsDMALeak(t *testing.T) {
	m, a := newAlloc(t)
	p := a.AllocPagesNode(0, -1, 0)
	if _, ok := a.DMA.MapPage(0, p, PageSize, DMAFromDevice); !ok {
		t.Fatal("map failed")
	}
	a.PutPage(0, p)
	m.CheckInvariants()
	if m.Log.Counts[sim.KindDMALeak] != 1 {
		t.Fatalf("want one dma-leak, got %v", m.Log.List)
	}
	m.CheckInvariants() // reported once while the page stays where it is
	if m.Log.Counts[sim.KindDMALeak] != 1 {
		t.Fatal("reported twice")
	}
	a.AllocPagesNode(0, -1, 0) // the page is reused: the mapping is lost for good
	if a.DMA.Leaked != 1 {
		t.Fatalf("leaked mappings %d, want 1", a.DMA.Leaked)
	}
}

func TestFreePoolOwnedPage_IsInflightLeak(t *testing.T) {
	m, a := newAlloc(t)
	p := a.AllocPagesNode(0, -1, 0)
	p.Owner = 7 // a pool counted it in flight
	a.PutPage(0, p)
	m.CheckInvariants()
	if m.Log.Counts[sim.KindInflightLeak] != 1 {
		t.Fatalf("want inflight-leak, got %v", m.Log.List)
	}
	a.AllocPagesNode(0, -1, 0)
	if a.LeakedFor(7) != 1 {
		t.Fatalf("LeakedFor = %d", a.LeakedFor(7))
	}
}

func TestPfmemalloc_BitInPPMagicWord(t *testing.T) {
	_, a := newAlloc(t, "pfmemalloc_ppm=1000000")
	p := a.AllocPagesNode(0, -1, 0)
	if !p.Pfmemalloc() || p.PPMagic != 2 {
		t.Fatalf("pfmemalloc page has pp_magic %#x", p.PPMagic)
	}
	p.PPMagic |= PPSignature
	if !p.HasPPSignature() || !p.Pfmemalloc() {
		t.Fatal("OR-ing the signature lost the pfmemalloc bit or the mask test")
	}
}

func TestDMA_CostsByCoherenceAndIOMMU(t *testing.T) {
	tests := []struct {
		name        string
		opts        []string
		perByteSync bool
		iommu       bool
	}{
		{"coherent", []string{"coherent=1"}, false, false},
		{"non-coherent", []string{"coherent=0"}, true, false},
		{"iommu", []string{"iommu=1"}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, a := newAlloc(t, tc.opts...)
			p := a.AllocPagesNode(0, -1, 0)
			a.DMA.MapPage(0, p, PageSize, DMAFromDevice)
			small := a.DMA.SyncForDevice(0, p, 0, 64, DMAFromDevice)
			big := a.DMA.SyncForDevice(0, p, 0, 4096, DMAFromDevice)
			if (big > small) != tc.perByteSync {
				t.Errorf("sync 4096 B costs %d ps, 64 B %d ps; per-byte cost expected: %v", big, small, tc.perByteSync)
			}
			if got := m.SpentPS(0, sim.SymIOMMUMap) > 0; got != tc.iommu {
				t.Errorf("IOMMU map charged: %v, want %v", got, tc.iommu)
			}
			a.DMA.UnmapPage(0, p, PageSize, DMAFromDevice)
			if p.Mapped {
				t.Error("still mapped after unmap")
			}
		})
	}
}

func TestDMA_InjectedFailures(t *testing.T) {
	_, a := newAlloc(t)
	p, q := a.AllocPagesNode(0, -1, 0), a.AllocPagesNode(0, -1, 0)
	a.DMA.InjectMapFailureFor(q.PFN)
	if _, ok := a.DMA.MapPage(0, p, PageSize, DMAFromDevice); !ok {
		t.Fatal("p failed")
	}
	if _, ok := a.DMA.MapPage(0, q, PageSize, DMAFromDevice); ok {
		t.Fatal("q mapped despite the injected failure")
	}
	if _, ok := a.DMA.MapPage(0, q, PageSize, DMAFromDevice); !ok {
		t.Fatal("the injected failure fired twice")
	}
	a.DMA.InjectMapFailures(1)
	if _, ok := a.DMA.MapPage(0, p, PageSize, DMAFromDevice); ok {
		t.Fatal("InjectMapFailures(1) did not fail the next map")
	}
}

func TestSlab_ObjectsLiveInSlabPages(t *testing.T) {
	m, a := newAlloc(t)
	c, err := NewSlabCache(a, "skbuff_head_cache", 1024)
	if err != nil {
		t.Fatal(err)
	}
	m.AddChecker(c)
	var objs []SlabObj
	for i := 0; i < 9; i++ {
		o, ok := c.Alloc(0)
		if !ok || o.Page.Place != sim.PlaceSlab {
			t.Fatalf("object %d: %v", i, o)
		}
		objs = append(objs, o)
	}
	if len(c.pages) != 3 {
		t.Fatalf("9 objects of 1 KiB in %d pages, want 3", len(c.pages))
	}
	for _, o := range objs {
		c.Free(0, o)
	}
	if c.InUse() != 0 {
		t.Fatalf("in use %d", c.InUse())
	}
	verify(t, m)
	if _, err := NewSlabCache(a, "bad", 0); err == nil {
		t.Fatal("size 0 accepted")
	}
}

// TestPage_AssumeRoleKeepsTheFrame: a frame that takes another page's role
// keeps what is the frame's — PFN, free-list index, Recycles (plus what the
// roles added), its DMA address relative to the frame — and takes every
// other field of the role, Holder from the caller.
func TestPage_AssumeRoleKeepsTheFrame(t *testing.T) {
	frame := Page{PFN: 7, freeIdx: 3, Recycles: 10, Users: 9, Place: sim.PlaceBuddy}
	role := Page{PFN: 2, freeIdx: 11, Recycles: 4, Users: 1, Place: sim.PlaceRing, Holder: 5, PP: 1, Mapped: true,
		DMAAddr: 2<<PageShift + 0x40, FragCount: 3}
	frame.AssumeRole(&role, 6, 2)
	want := role
	want.PFN, want.freeIdx, want.Recycles, want.Holder = 7, 3, 12, 6
	want.DMAAddr = 7<<PageShift + 0x40
	if frame != want {
		t.Errorf("assumed:\n %+v\nwant\n %+v", frame, want)
	}
	// An IOMMU address (not the frame's) and an unmapped page's stay as they are.
	iommu := Page{PFN: 2, DMAAddr: 0xdead0000, Mapped: false}
	f2 := Page{PFN: 9}
	f2.AssumeRole(&iommu, 0, 0)
	if f2.DMAAddr != 0xdead0000 || f2.PFN != 9 {
		t.Errorf("unmapped role: %+v", f2)
	}
}

// dma_dev_need_sync (f406c8e4b770, v6.10): from 6.10 a sync on an
// I/O-coherent device is skipped before any call — no cost, no count, and
// nothing that names the device, even an unbound one; before 6.10, and on
// a non-coherent device in any era, the call is made.
func TestDMASkipSync_NoSyncCallOnACoherentDeviceFrom610(t *testing.T) {
	for _, tc := range []struct {
		era      string
		coherent int64
		calls    bool
	}{
		{"6.9", 1, true},
		{"6.10", 1, false},
		{"7.1", 1, false},
		{"6.10", 0, true},
		{"7.1", 0, true},
	} {
		t.Run(fmt.Sprintf("%s coherent=%d", tc.era, tc.coherent), func(t *testing.T) {
			e, err := sim.EraByName(tc.era)
			if err != nil {
				t.Fatal(err)
			}
			k := sim.DefaultKnobs()
			k[sim.KnobNodePages] = 256
			k[sim.KnobCoherent] = tc.coherent
			m := sim.NewMachine(sim.Config{Era: e, Knobs: k, Seed: 3})
			a := NewAllocator(m)
			p := a.AllocPagesNode(0, -1, 0)
			a.DMA.MapPage(0, p, PageSize, DMAFromDevice)
			a.DMA.Unbind(0)
			cost := a.DMA.SyncForDevice(0, p, 0, 1500, DMAFromDevice) + a.DMA.SyncForCPU(0, p, 0, 1500, DMAFromDevice)
			calls := a.DMA.SyncDevCalls + a.DMA.SyncCPUCalls
			if want := map[bool]int64{true: 2, false: 0}[tc.calls]; calls != want || a.DMA.AfterUnbind != want {
				t.Errorf("%d sync calls, %d on the unbound device; want %d, %d", calls, a.DMA.AfterUnbind, want, want)
			}
			if (cost > 0) != tc.calls || (m.SpentPS(0, sim.SymSyncForDevice) > 0) != tc.calls {
				t.Errorf("the syncs cost %d ps; want a cost: %v", cost, tc.calls)
			}
		})
	}
}
