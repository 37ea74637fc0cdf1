package workload

import (
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim/simtest"
	"pplab/engine/skb"
	"testing"

	"pplab/engine/sim"
)

// providerCounts are the bound queue's payload pool and provider counters
// after a run.
type providerCounts struct {
	slow, fast, empty, refill, ring, cached uint64 // payload pool stats
	hold, release                           uint32 // pages_state_hold_cnt / release_cnt
	genpoolFree                             int    // chunks left in the binding's genpool (io_uring: the area's freelist)
	tokens, returned                        int64  // tokens (CQEs) handed out, given back
	headerSlow, headerRing                  uint64 // the header pool of host pages: its slow path and ring recycles
}

func (r *testRun) providerCounts() providerCounts {
	w := r.w.(*devmemRx)
	p := w.dm.Payload.Stats()
	h := r.stats()
	return providerCounts{slow: p[sim.StatAllocSlow], fast: p[sim.StatAllocFast], empty: p[sim.StatAllocEmpty], refill: p[sim.StatAllocRefill],
		ring: p[sim.StatRecycleRing], cached: p[sim.StatRecycleCached], hold: w.dm.Payload.Hold(), release: w.dm.Payload.Release(),
		genpoolFree: w.mp.B.FreeCount(), tokens: w.Tokens, returned: w.Returned, headerSlow: h[sim.StatAllocSlow], headerRing: h[sim.StatRecycleRing]}
}

// devmem-rx on lunar: 1000 segments into a 64-descriptor bound queue. The
// payload pool never counts the slow path (mp_ops->alloc_netmems: one
// net_iov per call, hold++); devmem's tokens come back with
// SO_DEVMEM_DONTNEED in process context, into the ptr_ring (recycle ring =
// tokens returned), and the pool refills its cache from there; io_uring's
// come back on the refill queue, which alloc_netmems drains straight into
// the alloc cache (no recycle stat at all). The header pool (host pages)
// recycles through its ring as tcp-stream's does. 6.12 and 6.15 show the
// same devmem counters: 6.15 changes what the driver must ask for (DMA
// sync, which the provider turns off), not the behaviour.
func TestDevmemRx_ProviderPoolCounters(t *testing.T) {
	tests := []struct {
		name, era string
		opts      []string
		want      providerCounts
	}{
		{"6.12-devmem", "6.12", nil, providerCounts{slow: 0, fast: 921, empty: 128, refill: 15, ring: 960, hold: 128, release: 0, genpoolFree: 1920, tokens: 1000, returned: 960, headerSlow: 2, headerRing: 960}},
		{"6.15-devmem", "6.15", nil, providerCounts{slow: 0, fast: 921, empty: 128, refill: 15, ring: 960, hold: 128, release: 0, genpoolFree: 1920, tokens: 1000, returned: 960, headerSlow: 2, headerRing: 960}},
		// io_uring: 2 calls take 64 niovs each from the area's freelist
		// (hold 128), 15 drain 64 returned niovs each from the refill
		// queue into the alloc cache: 17 alloc_netmems calls, each after an
		// empty ptr_ring (alloc empty 17), no recycle stat.
		{"6.15-io_uring", "6.15", []string{"provider=1"}, providerCounts{slow: 0, fast: 1047, empty: 17, refill: 0, ring: 0, hold: 128, release: 0, genpoolFree: 1920, tokens: 1000, returned: 960, headerSlow: 2, headerRing: 960}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WDevmemRx, "lunar", tc.era, tc.opts...).packets(1000)
			if got := r.providerCounts(); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			r.clean()
		})
	}
}

// A tap on an unreadable skb captures its headers only
// (skb_frags_readable ? len : headlen); breaking frags-readable captures
// the payload too, and skb_copy_bits reads each tapped skb's net_iov:
// unreadable-frag-read, once per net_iov (it is reported where it sits).
func TestDevmemRx_TapCapturesHeadersOnly(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []string
		reads int
	}{
		{"intact", []string{"tap_every=4"}, 0},
		{"frags-readable-broken", []string{"tap_every=4", "break=frags-readable"}, 250},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WDevmemRx, "lunar", "6.12", tc.opts...).packets(1000)
			if got := r.w.(*devmemRx).Captured; got != 250 {
				t.Errorf("captured %d, want 250", got)
			}
			if got := r.e.M.Log.Counts[sim.KindUnreadableRead]; got != tc.reads {
				t.Errorf("unreadable-frag-read %d, want %d", got, tc.reads)
			}
		})
	}
}

// io_uring zero-copy RX is 6.15: in 6.12 the binding refuses it with the
// reason, before any pool exists.
func TestDevmemRx_IOUringRefusedBefore615(t *testing.T) {
	spec, _ := drivers.SpecByName("lunar")
	m, _ := simtest.Machine(t, "6.12", spec.Platform, "provider=1")
	a := mm.NewAllocator(m)
	reg := pagepool.NewRegistry(a)
	st := skb.NewStack(reg)
	d, err := drivers.New(st, reg, spec, spec.Buffer, pagepool.NewNAPI(0), 64, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewWorkload(WDevmemRx, &Env{M: m, A: a, Reg: reg, S: st, Drv: d, App: 1})
	if err == nil || !strings.Contains(err.Error(), "io_uring zero-copy RX is v6.15") {
		t.Fatalf("got %v", err)
	}
	if n := len(reg.Pools()); n != 1 {
		t.Errorf("%d pools, want only the driver's: the refusal comes before any provider pool", n)
	}
}
