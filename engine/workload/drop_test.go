package workload

import (
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// recycled is where a run's pool pages went back: the alloc cache
// (recycle_cached), the ptr_ring (recycle_ring), neither because the pool
// released them (recycle_released_refcnt), and how many the slow path had
// to allocate.
type recycled struct{ cached, ring, released, slow uint64 }

func (r *testRun) wantRecycled(want recycled) {
	r.t.Helper()
	simtest.WantStats(r.t, r.stats(), map[sim.Stat]uint64{
		sim.StatRecycleCached: want.cached, sim.StatRecycleRing: want.ring,
		sim.StatRecycleReleasedRefcnt: want.released, sim.StatAllocSlow: want.slow,
	})
}

// drop frees every frame with kfree_skb on the NAPI CPU, in softirq (the
// poll that received it); where the page goes is the era's and driver's:
// released to the page allocator in 5.12 (no skb recycling), the ptr_ring
// from 5.14 (kfree_skb is not NAPI-safe), the alloc cache from 6.6 for a
// driver whose pool has a NAPI (the in_softirq() arm of napi_pp_put_page),
// and mlx5 before 6.4 through its own RX page cache (no pool recycling).
func TestDrop_KfreeSkbInNAPIContext(t *testing.T) {
	tests := []struct {
		name, driver, era string
		want              recycled
	}{
		{"5.12-released-every-packet-allocates", "mvpp2", "5.12", recycled{slow: 1064}},
		{"5.14-ptr-ring", "mvpp2", "5.14", recycled{ring: 1000, slow: 2}},
		{"6.8-no-pp-napi-ptr-ring", "mvpp2", "6.8", recycled{ring: 1000, slow: 2}},
		{"mlx5-6.1-own-rx-cache", "mlx5", "6.1", recycled{slow: 1}},
		{"mlx5-6.4-not-napi-safe-ptr-ring", "mlx5", "6.4", recycled{ring: 1000, slow: 1}},
		{"mlx5-6.8-softirq-on-napi-cpu-alloc-cache", "mlx5", "6.8", recycled{cached: 1000, slow: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WDrop, tc.driver, tc.era).packets(1000)
			r.wantFrees(map[free]int{kfree(0, softirq): 1000})
			r.wantRecycled(tc.want)
			if r.e.Lost != 0 {
				t.Errorf("lost %d", r.e.Lost)
			}
			r.clean()
		})
	}
}

// numa-migrate is drop traffic whose NAPI moves to cpu1 (node 1) when the
// warm-up and four rings' worth of packets are done (192 + 4·64 = 448):
// from then on kfree_skb runs on cpu1, and the application takes cpu0.
func TestNumaMigrate_NAPIMovesToTheOtherNodeAfterWarmUpAndFourRings(t *testing.T) {
	r := newTestRun(t, WNumaMigrate, "mlx5", "6.8", "numa_nodes=2")
	if got := r.w.(Horizon).ChangesIn(); got != 0 {
		t.Errorf("ChangesIn before the first step = %d, want 0 (not set yet)", got)
	}
	r.packets(448)
	if cpu := r.e.Drv.CPU(); cpu != 0 {
		t.Fatalf("the NAPI moved before packet 449: on cpu%d", cpu)
	}
	r.packets(552)
	if cpu, app := r.e.Drv.CPU(), r.e.App; cpu != 1 || app != 0 {
		t.Errorf("after the move: NAPI on cpu%d, application on cpu%d; want cpu1, cpu0", cpu, app)
	}
	if got := r.w.(Horizon).ChangesIn(); got != -1 {
		t.Errorf("ChangesIn after the move = %d, want -1", got)
	}
	r.wantFrees(map[free]int{kfree(0, softirq): 448, kfree(1, softirq): 552})
	r.wantRecycled(recycled{cached: 1000, slow: 2})
	r.clean()
}

// numa-migrate refuses a machine it cannot move on.
func TestNumaMigrate_NeedsTwoNodesAndTwoCPUs(t *testing.T) {
	for _, opts := range [][]string{{"numa_nodes=1"}, {"numa_nodes=2", "cpus=1"}} {
		k, _, _ := simtest.Options(t, opts...)
		e := &Env{M: sim.NewMachine(sim.Config{Knobs: k})}
		if _, err := NewWorkload(WNumaMigrate, e); err == nil {
			t.Errorf("%v: numa-migrate accepted", opts)
		}
	}
}

// pfmemalloc is drop traffic with 2 % of the page allocator's pages from
// the reserves: the pool releases those instead of recycling them.
func TestPfmemalloc_DropReleasesReservePages(t *testing.T) {
	r := newTestRun(t, WPfmemalloc, "mvpp2", "6.8", "pfmemalloc_ppm=20000").packets(1000)
	r.wantFrees(map[free]int{kfree(0, softirq): 1000})
	r.wantRecycled(recycled{ring: 986, released: 2, slow: 2})
	r.clean()
}
