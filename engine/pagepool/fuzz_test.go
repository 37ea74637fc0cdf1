package pagepool

import (
	"fmt"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// handle is one use of a page the fuzz driver holds: a whole page, or one
// fragment of a frag page.
type handle struct {
	pg     *mm.Page
	marked bool // stored for skb recycling (5.14 page->pp / rfc-v1 mem info)
}

// fuzzDriver plays a driver that keeps the kernel's caller contracts: it
// allocates and recycles directly only on the NAPI CPU and before destroy,
// fragments whole pages in frag pools (page_pool_fragment_page), never puts a
// handle twice. Any violation it provokes is therefore a model bug.
type fuzzDriver struct {
	e       *env
	napi    *NAPI
	frag    bool
	held    []handle
	extra   []*mm.Page // extra page references (get_page)
	destroy bool
	memID   int32
	log     []string
}

func (d *fuzzDriver) logf(format string, args ...any) {
	d.log = append(d.log, fmt.Sprintf(format, args...))
}

func (d *fuzzDriver) take(arg byte) (handle, bool) {
	if len(d.held) == 0 {
		return handle{}, false
	}
	i := int(arg) % len(d.held)
	h := d.held[i]
	d.held[i] = d.held[len(d.held)-1]
	d.held = d.held[:len(d.held)-1]
	return h, true
}

func (d *fuzzDriver) step(op, arg byte) {
	e, m := d.e, d.e.m
	era := m.Era
	cpu := int(arg>>7) & 1 // ring producers may run on either CPU
	switch op % 12 {
	case 0, 1: // page_pool_alloc_pages (NAPI CPU)
		if d.destroy {
			return
		}
		m.Begin(0, sim.SymAllocPages)
		pg := e.p.AllocPages(0)
		d.logf("alloc -> %v", pg != nil)
		if pg == nil {
			return
		}
		if d.frag && !era.PPRefCount {
			e.p.FragmentPage(pg, 1) // a whole page from a frag pool (v5.15–6.6 contract)
		}
		d.held = append(d.held, handle{pg: pg})
	case 2: // page_pool_alloc_frag
		if d.destroy || !d.frag {
			return
		}
		size := 256 * (1 + int(arg)%16)
		m.Begin(0, sim.SymAllocFrag)
		pg, _ := e.p.AllocFrag(0, size)
		d.logf("frag %d -> %v", size, pg != nil)
		if pg != nil {
			d.held = append(d.held, handle{pg: pg})
		}
	case 3: // page_pool_recycle_direct (NAPI CPU, before destroy)
		if d.destroy {
			return
		}
		if h, ok := d.take(arg); ok {
			d.logf("direct pfn %#x", h.pg.PFN)
			m.Begin(0, sim.SymPutPage)
			e.p.RecycleDirect(0, h.pg)
		}
	case 4: // page_pool_put_page(allow_direct=false), any CPU
		if h, ok := d.take(arg); ok {
			d.logf("ring pfn %#x cpu%d", h.pg.PFN, cpu)
			m.Begin(cpu, sim.SymPutPage)
			e.p.PutPage(cpu, h.pg, int(arg)*16-1, false)
		}
	case 5: // page_pool_put_page_bulk of up to 8 handles
		var batch [8]*mm.Page
		n := 0
		for k := 0; k < 1+int(arg)%8; k++ {
			if h, ok := d.take(arg + byte(k)); ok {
				batch[n] = h.pg
				n++
			}
		}
		if n > 0 {
			d.logf("bulk %d cpu%d", n, cpu)
			m.Begin(cpu, sim.SymPutPageBulk)
			e.p.PutPageBulk(cpu, batch[:n])
		}
	case 6: // get_page: someone else takes a reference
		if len(d.held) > 0 {
			pg := d.held[int(arg)%len(d.held)].pg
			d.logf("get_page pfn %#x", pg.PFN)
			m.Begin(0, sim.SymGetPage)
			e.a.GetPage(0, pg)
			d.extra = append(d.extra, pg)
		}
	case 7: // put_page of an extra reference
		if len(d.extra) > 0 {
			i := int(arg) % len(d.extra)
			pg := d.extra[i]
			d.extra[i] = d.extra[len(d.extra)-1]
			d.extra = d.extra[:len(d.extra)-1]
			d.logf("put_page pfn %#x", pg.PFN)
			m.Begin(0, sim.SymPutPageRef)
			e.a.PutPage(0, pg)
		}
	case 8: // page_pool_destroy (driver unload: NAPI disabled first)
		if !d.destroy {
			d.destroy = true
			d.napi.Complete()
			d.logf("destroy")
			m.Begin(1, sim.SymPoolDestroy)
			e.p.Destroy(1)
			if d.memID != 0 {
				e.p.UnregMemModel(1)
			}
		}
	case 9: // page_pool_update_nid (NAPI context, before destroy)
		if !d.destroy {
			nid := int(arg) % e.a.Nodes()
			d.logf("update_nid %d", nid)
			m.Begin(0, sim.SymUpdateNid)
			e.p.UpdateNid(0, nid)
		}
	case 10: // the skb free path: page_pool_return_skb_page, else put_page
		h, ok := d.take(arg)
		if !ok {
			return
		}
		d.logf("skb free pfn %#x cpu%d", h.pg.PFN, cpu)
		if era.SkbRecycle == sim.SkbRecycleNone || !(h.marked || era.PPSetAtAlloc) {
			// The driver released the page when it built the skb (frag pools
			// only exist from 5.15, where every page is marked at allocation).
			m.Begin(0, sim.SymReleasePage)
			e.p.ReleasePage(0, h.pg)
			e.a.PutPage(cpu, h.pg)
			return
		}
		m.Begin(cpu, sim.SymReturnSkbPage)
		if !e.r.ReturnSkbPage(cpu, h.pg, arg&1 == 0) {
			panic("marked pool page not recognised by page_pool_return_skb_page")
		}
	case 11: // skb_mark_for_recycle of a held page, or time passes (deferred release)
		if len(d.held) > 0 && arg&1 == 0 && era.SkbRecycle != sim.SkbRecycleNone && !d.frag {
			h := &d.held[int(arg>>1)%len(d.held)]
			e.p.StoreMemInfo(h.pg)
			if era.SkbRecycle == sim.SkbRecycleRFC {
				e.p.StoreXDPMemInfo(h.pg)
			}
			h.marked = true
			return
		}
		d.logf("time +1s")
		m.AdvanceNS(DeferTimeNS)
	}
	if !d.destroy {
		d.napi.Schedule()
	}
}

// drain gives everything back and waits for the pool to go away.
func (d *fuzzDriver) drain() {
	for len(d.extra) > 0 {
		d.step(7, 0)
	}
	for len(d.held) > 0 {
		d.step(4, 0)
	}
	if !d.destroy {
		d.step(8, 0)
	}
	d.e.m.AdvanceNS(2 * DeferTimeNS)
}

func fuzzEnv(t testing.TB, data []byte) (*fuzzDriver, []byte) {
	// Never write into data: the fuzzing engine owns its memory.
	data = append(append([]byte(nil), data...), 0, 0, 0)
	era := sim.Eras[int(data[0])%len(sim.Eras)]
	cfg := data[1]
	napi := NewNAPI(0)
	p := Params{Nid: NumaNoNode, NAPI: napi}
	if cfg&1 != 0 {
		p.Flags |= FlagDMAMap
		if cfg&2 != 0 {
			p.Flags |= FlagDMASyncDev
			p.MaxLen = 256 * (1 + int(data[2])%16)
		}
	}
	frag := cfg&4 != 0 && era.FragAPI
	if frag && era.FragFlag {
		p.Flags |= FlagPageFrag
	}
	if cfg&8 != 0 {
		p.PoolSize = 16 // a tiny ring: ring_full and the lazy zeroing matter
	}
	if cfg&16 != 0 && !frag {
		p.Order = 1
	}
	opts := []string{"numa_nodes=2", "node_pages=256"}
	if cfg&32 != 0 {
		opts = append(opts, "pfmemalloc_ppm=100000", "alloc_fail_ppm=20000", "dma_map_fail_ppm=20000")
	}
	e := newEnv(t, era.Name, p, opts...)
	d := &fuzzDriver{e: e, napi: napi, frag: frag}
	if era.SkbRecycle == sim.SkbRecycleRFC {
		d.memID = e.r.RegMemModel(e.p)
	}
	napi.Schedule()
	return d, data[3:]
}

const maxFuzzOps = 256

// FuzzPool runs random operation sequences through one pool in any era, with
// the invariant checker after every operation. The driver keeps the kernel's
// contracts and no rule is broken, so any violation is a model bug. The seed
// corpus in testdata/fuzz/FuzzPool runs in every `go test`.
func FuzzPool(f *testing.F) {
	f.Add([]byte{6, 0, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 5, 3})
	f.Add([]byte{4, 5, 3, 2, 10, 2, 20, 4, 1, 2, 200, 4, 7, 10, 3, 8, 0, 11, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ops := fuzzEnv(t, data)
		e := d.e
		if len(ops) > 2*maxFuzzOps {
			ops = ops[:2*maxFuzzOps] // the checker runs after every op: keep inputs fast
		}
		for i := 0; i+1 < len(ops); i += 2 {
			d.step(ops[i], ops[i+1])
			e.check()
			if e.m.Log.Total() != 0 {
				t.Fatalf("era %s: violations after op %d (%v): %v\nops: %v", e.m.Era.Name, i/2, d.log[max(0, len(d.log)-1):], e.m.Log.List, d.log)
			}
		}
		d.drain()
		e.check()
		if e.m.Log.Total() != 0 {
			t.Fatalf("era %s: violations while draining: %v\nops: %v", e.m.Era.Name, e.m.Log.List, d.log)
		}
		if !e.p.Freed() {
			t.Fatalf("era %s: pool not freed after every page came back: inflight %d, cache %d, ring %d\nops: %v", e.m.Era.Name, e.p.Inflight(), e.p.CacheCount(), e.p.RingCount(), d.log)
		}
		for i := range e.a.Pages() {
			pg := &e.a.Pages()[i]
			if pg.Place != sim.PlaceBuddy {
				t.Fatalf("era %s: after the run page %v is not back in the page allocator\nops: %v", e.m.Era.Name, pg, d.log)
			}
		}
	})
}
