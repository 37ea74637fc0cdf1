package workload

import (
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// generic-xdp: every skb of hns3 and lunar is short of XDP_PACKET_HEADROOM,
// so netif_receive_generic_xdp prepares each one. From 6.9 a frags-aware
// program's skb is copied into cpu0's system page_pool (one bulk refill of
// 64 pages serves the run: each copy is freed by kfree_skb in the same NAPI
// poll on the pool's CPU, so its page recycles into the alloc cache,
// pp->cpuid == cpuid) and the original is consumed (its pages go to the
// driver's pool's ptr_ring: neither driver sets pp.napi); before 6.9, or
// with xdp_frags=0, pskb_expand_head + skb_linearize, no system pool.
func TestGenericXDP_SkbPPCowDataIntoTheSystemPool(t *testing.T) {
	type sysWant struct{ fast, slow, cached, ring uint64 }
	tests := []struct {
		name, driver, era string
		opts              []string
		drv               recycled
		sys               *sysWant // nil: no system pool was created
		frees             int
	}{
		{"lunar-6.8-pskb-expand-head", "lunar", "6.8", nil, recycled{ring: 1000, slow: 1}, nil, 1000},
		// lunar is 32-bit: a 256-byte skb_shared_info makes a 1514-byte
		// copy SKB_HEAD_ALIGN(1514) + 256 = 2048 bytes, half a page, so a
		// fragment: two copies share a page, which page_pool_drain_frag
		// finds returned and reuses in place (nothing recycled).
		{"lunar-6.9-copy-into-system-pool-half-page-frags", "lunar", "6.9", nil, recycled{ring: 1000, slow: 1}, &sysWant{fast: 999, slow: 1}, 2000},
		{"lunar-6.9-frame-1600-copy-a-whole-page", "lunar", "6.9", []string{"frame=1600"}, recycled{ring: 1000, slow: 1}, &sysWant{fast: 999, slow: 1, cached: 1000}, 2000},
		{"lunar-6.9-frags-unaware-program", "lunar", "6.9", []string{"xdp_frags=0"}, recycled{ring: 1000, slow: 1}, nil, 1000},
		{"lunar-6.10-same-as-6.9", "lunar", "6.10", nil, recycled{ring: 1000, slow: 1}, &sysWant{fast: 999, slow: 1}, 2000},
		// hns3's 2 KiB frag-API buffers: its pool sees what drop's does
		// at this frame size (TestGenericXDP_DriverPoolAsInDrop).
		{"hns3-6.8-linearize-frag-back-to-ring", "hns3", "6.8", nil, recycled{ring: 473, slow: 1}, nil, 1000},
		{"hns3-6.9-copy-into-system-pool", "hns3", "6.9", nil, recycled{ring: 473, slow: 1}, &sysWant{fast: 999, slow: 1, cached: 1000}, 2000},
		// Two 1000-byte copies share a frag page (truesize 1600 + 2432:
		// page_pool_alloc_frag rounds the first up to arm64's
		// ARCH_DMA_MINALIGN, 128, so the second starts at 1664):
		// page_pool_drain_frag finds both returned and reuses the page in
		// place, so no page is ever recycled.
		{"hns3-6.9-frame-1000-frag-page-reused", "hns3", "6.9", []string{"frame=1000"}, recycled{ring: 473, slow: 1}, &sysWant{fast: 999, slow: 1}, 2000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WGenericXDP, tc.driver, tc.era, tc.opts...).packets(1000)
			r.wantFrees(map[free]int{kfree(0, softirq): tc.frees})
			r.wantRecycled(tc.drv)
			sys := r.e.Reg.SystemPools()
			switch {
			case tc.sys == nil && sys != nil:
				t.Errorf("system pools created: %d", len(sys))
			case tc.sys != nil:
				if len(sys) != len(r.e.M.CPUs) {
					t.Fatalf("system pools: %d, want one per CPU (%d)", len(sys), len(r.e.M.CPUs))
				}
				var st sim.Stats
				sys[0].GetStats(&st)
				simtest.WantStats(t, &st, map[sim.Stat]uint64{sim.StatAllocFast: tc.sys.fast, sim.StatAllocSlow: tc.sys.slow,
					sim.StatRecycleCached: tc.sys.cached, sim.StatRecycleRing: tc.sys.ring})
				if h := sys[1].Hold(); h != 0 {
					t.Errorf("cpu1's system pool allocated %d pages: the copies are cpu0's", h)
				}
			}
			if r.e.Lost != 0 {
				t.Errorf("lost %d", r.e.Lost)
			}
			r.clean()
		})
	}
}

// The copy (6.9) and the linearize (6.8) both give the original's buffers
// back before the next frame arrives, as drop's kfree_skb does: the
// driver's pool counts exactly what it counts under drop.
func TestGenericXDP_DriverPoolAsInDrop(t *testing.T) {
	for _, era := range []string{"6.8", "6.9"} {
		for _, drv := range []string{"hns3", "lunar"} {
			g := newTestRun(t, WGenericXDP, drv, era).packets(1000)
			d := newTestRun(t, WDrop, drv, era, "frame=1514").packets(1000)
			if *g.stats() != *d.stats() {
				t.Errorf("%s %s: generic-xdp's driver pool %v, drop's %v", drv, era, *g.stats(), *d.stats())
			}
		}
	}
}
