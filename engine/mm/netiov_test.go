package mm

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

func newProviderAlloc(t *testing.T, era string) (*sim.Machine, *Allocator) {
	t.Helper()
	e, err := sim.EraByName(era)
	if err != nil {
		t.Fatal(err)
	}
	k := sim.DefaultKnobs()
	k[sim.KnobNodePages] = 256
	k[sim.KnobDmabufPages] = 256
	m := sim.NewMachine(sim.Config{Era: e, Knobs: k, Seed: 3})
	return m, NewAllocator(m)
}

// net_devmem_bind_dmabuf: the binding's chunks are net_iovs after the
// machine's pages, each with its DMA address from the bind, all in the
// genpool; gen_pool_alloc hands out one at a time, lowest first, until the
// binding is exhausted; gen_pool_free takes them back.
func TestBindDmabuf_GenpoolOfNetIovs(t *testing.T) {
	m, a := newProviderAlloc(t, "6.12")
	b, err := a.BindDmabuf(8, false)
	if err != nil {
		t.Fatal(err)
	}
	if a.NumPages() != 256+8 || b.Size() != 8 || b.FreeCount() != 8 {
		t.Fatalf("pages %d size %d free %d", a.NumPages(), b.Size(), b.FreeCount())
	}
	var got []*Page
	for p := b.AllocChunk(); p != nil; p = b.AllocChunk() {
		if !p.IsNetIov() || p.Place != sim.PlaceDriver || p.DMAAddr == 0 || p.Mapped || !b.Owns(p) {
			t.Fatalf("chunk %d: %v", len(got), p)
		}
		got = append(got, p)
	}
	if len(got) != 8 || got[0].PFN != 256 || b.FreeCount() != 0 || b.Allocs != 8 {
		t.Fatalf("%d chunks, first pfn %d, free %d, allocs %d", len(got), got[0].PFN, b.FreeCount(), b.Allocs)
	}
	for _, p := range got {
		b.FreeChunk(p)
	}
	if b.FreeCount() != 8 || b.Frees != 8 {
		t.Fatalf("free %d frees %d", b.FreeCount(), b.Frees)
	}
	verify(t, m)
}

func TestBindDmabuf_RefusedWithoutProvidersAndBeyondTheReserve(t *testing.T) {
	_, a := newProviderAlloc(t, "6.10")
	if _, err := a.BindDmabuf(8, false); err == nil || !strings.Contains(err.Error(), "memory providers are v6.12: 8ab79ed50cf1") {
		t.Errorf("6.10: %v", err)
	}
	_, a = newProviderAlloc(t, "6.12")
	if _, err := a.BindDmabuf(257, false); err == nil || !strings.Contains(err.Error(), "dmabuf_pages") {
		t.Errorf("257 chunks: %v", err)
	}
}

// A net_iov has no struct page: put_page on one (reachable only with a
// rule broken upstream) is reported and changes nothing; a second
// gen_pool_free of a chunk is a double recycle.
func TestNetIov_PutPageAndDoubleFreeAreReported(t *testing.T) {
	m, a := newProviderAlloc(t, "6.12")
	b, _ := a.BindDmabuf(1, false)
	p := b.AllocChunk()
	a.PutPage(0, p)
	if p.Place != sim.PlaceDriver || a.Frees != 0 || m.Log.Counts[sim.KindRefcountUnderflow] != 1 {
		t.Fatalf("%v frees %d log %v", p, a.Frees, m.Log.List)
	}
	b.FreeChunk(p)
	b.FreeChunk(p)
	if b.FreeCount() != 1 || m.Log.Counts[sim.KindDoubleRecycle] != 1 {
		t.Fatalf("free %d log %v", b.FreeCount(), m.Log.List)
	}
}
