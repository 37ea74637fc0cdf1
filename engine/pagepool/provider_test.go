package pagepool

import (
	"errors"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// providerEnv is a machine of era with a binding of n chunks bound to
// queue 0 (ioUring: an io_uring zcrx area), and no pool yet.
func providerEnv(t *testing.T, era string, n int, ioUring bool, opts ...string) (*env, *RxQueue) {
	t.Helper()
	e, _ := sim.EraByName(era)
	k, rules, _ := simtest.Options(t, append([]string{"node_pages=256"}, opts...)...)
	m := sim.NewMachine(sim.Config{Era: e, Rules: rules, Knobs: k, Seed: 1})
	a := mm.NewAllocator(m)
	b, err := a.BindDmabuf(n, ioUring)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, m: m, a: a, r: NewRegistry(a)}, &RxQueue{Index: 0, MP: &Provider{B: b}}
}

func providerParams(q *RxQueue, flags Flags) Params {
	return Params{Flags: flags | FlagAllowUnreadable, DMADir: mm.DMAFromDevice, MaxLen: mm.PageSize, Queue: q, Nid: NumaNoNode}
}

// page_pool_init's provider checks per era: 6.12's mp_dmabuf_devmem_init
// wants DMA_MAP and refuses DMA_SYNC_DEV (-EOPNOTSUPP) and order > 0
// (-E2BIG); from b400f4b87430 (6.14, the 6.15 era) the core wants both
// DMA_MAP and DMA_SYNC_DEV and the provider turns the sync off. A flagged
// pool on a queue without a provider is an ordinary pool; the flag does
// not exist before 6.12 (-EINVAL).
func TestProviderInit_FlagsPerEra(t *testing.T) {
	m, s := FlagDMAMap, FlagDMAMap|FlagDMASyncDev
	tests := []struct {
		name, era string
		flags     Flags
		order     uint8
		noMP      bool
		err       error // nil: created
		provider  bool  // the pool took the queue's provider
	}{
		{"6.12-map-only", "6.12", m, 0, false, nil, true},
		{"6.12-sync-refused", "6.12", s, 0, false, ErrNotSupp, false},
		{"6.12-no-map-refused", "6.12", 0, 0, false, ErrNotSupp, false},
		{"6.12-order-1-refused", "6.12", m, 1, false, ErrE2Big, false},
		{"6.15-map-and-sync", "6.15", s, 0, false, nil, true},
		{"6.15-map-only-refused", "6.15", m, 0, false, ErrNotSupp, false},
		{"6.15-order-1-refused", "6.15", s, 1, false, ErrE2Big, false},
		{"6.12-no-provider-on-the-queue", "6.12", s, 0, true, nil, false},
		{"6.10-no-such-flag", "6.10", m, 0, true, ErrInval, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e *env
			q := &RxQueue{}
			if tc.era == "6.10" { // no binding without providers
				e = newEnv(t, "6.10", Params{Flags: FlagDMAMap})
			} else {
				e, q = providerEnv(t, tc.era, 8, false)
			}
			if tc.noMP {
				q.MP = nil
			}
			p := providerParams(q, tc.flags)
			p.Order = tc.order
			pool, err := e.r.Create(0, p)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if got := pool.Provider() != nil; got != tc.provider {
				t.Errorf("provider %v, want %v", got, tc.provider)
			}
			if tc.provider && pool.DMASync() {
				t.Errorf("a provider pool syncs for the device (flags %#x, dma_sync on)", pool.P.Flags)
			}
		})
	}
}

// A devmem pool allocates through mp_ops->alloc_netmems: one net_iov per
// call from the genpool (hold++), never the 'slow' stat; a net_iov is
// recyclable whatever its refcount; a put outside the pool's context goes
// to the ptr_ring, whose refill feeds the cache (a net_iov is on every
// node); destroy releases them back to the genpool through
// mp_ops->release_netmem (release++), never put_page.
func TestProviderAlloc_DevmemOneNetIovPerCall(t *testing.T) {
	e, q := providerEnv(t, "6.12", 8, false)
	pool, err := e.r.Create(0, providerParams(q, FlagDMAMap))
	if err != nil {
		t.Fatal(err)
	}
	e.p = pool
	pages := e.alloc(3)
	for _, pg := range pages {
		if !pg.IsNetIov() || pg.PP != pool.ID || pg.FragCount != 1 {
			t.Fatalf("%v", pg)
		}
	}
	if pool.Hold() != 3 || q.MP.B.FreeCount() != 5 {
		t.Fatalf("hold %d genpool free %d", pool.Hold(), q.MP.B.FreeCount())
	}
	e.toRing(pages...)
	e.alloc(2) // from the ring through the refill
	e.wantStats(map[sim.Stat]uint64{sim.StatAllocSlow: 0, sim.StatAllocEmpty: 3, sim.StatAllocRefill: 1, sim.StatAllocFast: 1,
		sim.StatRecycleRing: 3, sim.StatRecycleReleasedRefcnt: 0})
	pool.Destroy(0)
	if q.MP.B.FreeCount() != 6 || pool.Release() != 1 || e.a.DMA.Unmaps != 0 || e.a.Frees != 0 {
		t.Errorf("genpool free %d release %d unmaps %d frees %d", q.MP.B.FreeCount(), pool.Release(), e.a.DMA.Unmaps, e.a.Frees)
	}
	e.clean()
}

// io_uring: io_pp_zc_alloc_netmems takes 64 niovs from the area's
// freelist into the alloc cache when the refill queue is empty; niovs the
// user posts on the refill queue go straight into the alloc cache at the
// next call (io_zcrx_ring_refill), with no recycle stat.
func TestProviderAlloc_ZcrxRefillQueueIntoTheCache(t *testing.T) {
	e, q := providerEnv(t, "6.15", 128, true)
	pool, err := e.r.Create(0, providerParams(q, FlagDMAMap|FlagDMASyncDev))
	if err != nil {
		t.Fatal(err)
	}
	e.p = pool
	pages := e.alloc(64)
	if pool.Hold() != 64 || pool.CacheCount() != 0 || q.MP.B.FreeCount() != 64 {
		t.Fatalf("hold %d cache %d free %d", pool.Hold(), pool.CacheCount(), q.MP.B.FreeCount())
	}
	for _, pg := range pages {
		pg.MoveTo(e.m, sim.PlaceUser, q.MP.B.ID)
		q.MP.ZcrxReturn(pg)
	}
	e.alloc(1)
	if pool.Hold() != 64 || pool.CacheCount() != 63 || q.MP.RefillQueued() != 0 {
		t.Fatalf("hold %d cache %d queued %d", pool.Hold(), pool.CacheCount(), q.MP.RefillQueued())
	}
	e.wantStats(map[sim.Stat]uint64{sim.StatAllocSlow: 0, sim.StatAllocEmpty: 2, sim.StatAllocFast: 63, sim.StatRecycleRing: 0, sim.StatRecycleCached: 0})
	e.clean()
}

// io_pp_zc_init leaves pool->dma_sync on (only mp_dmabuf_devmem_init
// turns it off) and refuses order > 0 with -EOPNOTSUPP; io_uring syncs
// every niov it puts into the alloc cache for the device itself
// (io_zcrx_sync_for_device, PAGE_SIZE), on the freelist path and on the
// refill-queue path: on a non-coherent platform that is one sync per niov.
func TestIOPPZcInit_DMASyncStaysOnAndZcrxSyncsEachNiov(t *testing.T) {
	e, q := providerEnv(t, "6.15", 128, true, "coherent=0")
	p := providerParams(q, FlagDMAMap|FlagDMASyncDev)
	p.Order = 1
	if _, err := e.r.Create(0, p); !errors.Is(err, ErrNotSupp) {
		t.Fatalf("order 1: err %v, want -EOPNOTSUPP", err)
	}
	pool, err := e.r.Create(0, providerParams(q, FlagDMAMap|FlagDMASyncDev))
	if err != nil {
		t.Fatal(err)
	}
	if !pool.DMASync() {
		t.Fatal("an io_uring zcrx pool has dma_sync off")
	}
	e.p = pool
	pages := e.alloc(64) // 64 from the freelist: 64 syncs
	if got := e.a.DMA.SyncDevCalls; got != 64 || e.a.DMA.SyncDevBytes != 64*mm.PageSize {
		t.Fatalf("after the freelist refill: %d syncs (%d bytes), want 64 of PAGE_SIZE", got, e.a.DMA.SyncDevBytes)
	}
	for _, pg := range pages[:10] {
		pg.MoveTo(e.m, sim.PlaceUser, q.MP.B.ID)
		q.MP.ZcrxReturn(pg)
	}
	e.alloc(1) // the refill queue: 10 more
	if got := e.a.DMA.SyncDevCalls; got != 74 {
		t.Errorf("after the refill queue: %d syncs, want 74", got)
	}
}

// mp_dmabuf_devmem_release_page: `if (WARN_ON_ONCE(refcount != 1)) return
// false;` — a net_iov released with another reference still on it is
// never given back to the binding: a leak the checker reports, and the
// binding is one chunk short for good.
func TestMPDmabufDevmemReleasePage_RefcountNotOneLeaks(t *testing.T) {
	e, q := providerEnv(t, "6.12", 8, false)
	pool, err := e.r.Create(0, providerParams(q, FlagDMAMap))
	if err != nil {
		t.Fatal(err)
	}
	e.p = pool
	pages := e.alloc(2)
	pages[0].FragCount = 2 // a second reference nobody will drop
	pool.mpReleaseNetmem(0, pages[0])
	pool.mpReleaseNetmem(0, pages[1])
	if q.MP.Leaked != 1 || q.MP.B.FreeCount() != 7 {
		t.Errorf("leaked %d, genpool free %d: want 1 and 7", q.MP.Leaked, q.MP.B.FreeCount())
	}
	if pool.Release() != 2 {
		t.Errorf("release %d, want 2 (pages_state_release_cnt counts the refused one too)", pool.Release())
	}
	if n := e.m.Log.Counts[sim.KindInflightLeak]; n != 1 {
		t.Errorf("%d inflight-leak violations, want 1", n)
	}
}
