package lab

import (
	"strings"
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// The kernel micro-benchmark's no-softirq run of 01_fast_path calls
// page_pool_recycle_direct from process context: before 6.10
// __page_pool_put_page's `allow_direct && in_softirq()` sends every page
// to the ptr_ring; 6.10 (4a96a4e807c3) drops the in_softirq() test (a
// caller passing allow_direct vouches for its context), so the pages go
// into the alloc cache. This is the model's scenario whose counters 6.10
// changes (the driver scenarios' bulk and frame returners have no pp.napi:
// docs/eras-after-6.8.md §2.5).
func TestPoolDirect_ProcessContextRecyclesIntoTheCacheFrom610(t *testing.T) {
	for _, tc := range []struct {
		era  string
		want map[sim.Stat]uint64
	}{
		{"6.9", map[sim.Stat]uint64{sim.StatAllocFast: 9906, sim.StatAllocRefill: 157, sim.StatAllocSlow: 1, sim.StatRecycleCached: 0, sim.StatRecycleRing: 10064}},
		{"6.10", map[sim.Stat]uint64{sim.StatAllocFast: 10062, sim.StatAllocRefill: 1, sim.StatAllocSlow: 1, sim.StatRecycleCached: 10000, sim.StatRecycleRing: 64}},
	} {
		t.Run(tc.era, func(t *testing.T) {
			_, r := run(t, Config{Scenario: "pool-direct", Era: tc.era, Packets: 10000, Knobs: sim.MustOverrides("softirq=0")})
			simtest.WantStats(t, &r.Stats, tc.want)
			if r.Violations.Total() != 0 {
				t.Errorf("violations: %v", r.Violations.List)
			}
		})
	}
}

// generic-xdp from 6.9: the run's totals include cpu0's system pool, which
// neither ethtool -S (RingStats: the driver's pool) nor netlink (YNL: only
// pools with a netdev) shows; the snapshot lists the system pools with
// their cpuid and the shared recycle stats once. On lunar (32-bit: a
// 256-byte skb_shared_info) a 1514-byte frame's copy is exactly half a
// page, a fragment, and two copies share a page that page_pool_drain_frag
// reuses in place, so nothing is recycled; a 1600-byte frame's copy
// (SKB_HEAD_ALIGN(1600) + 256 = 2112 bytes) takes a whole page, which the
// copy's free recycles into the alloc cache.
func TestGenericXDP_SystemPoolInTotalsOnly(t *testing.T) {
	for _, tc := range []struct {
		name, era, knobs string
		sys              bool   // system pools created
		sysRec           uint64 // recycle_cached of the shared system recycle stats
	}{
		{"6.8: no system pool", "6.8", "frame=1600", false, 0},
		{"6.9: whole-page copies recycle into the cache", "6.9", "frame=1600", true, 3000},
		{"6.9: half-page copies share frag pages", "6.9", "frame=1514", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, r := run(t, Config{Driver: "lunar", Scenario: "generic-xdp", Era: tc.era, Packets: 3000, Knobs: sim.MustOverrides(tc.knobs)})
			if r.Violations.Total() != 0 {
				t.Fatalf("violations: %v", r.Violations.List)
			}
			drv := r.RingStats[0]
			if got := r.Stats[sim.StatRecycleCached] - drv[sim.StatRecycleCached]; got != tc.sysRec {
				t.Errorf("totals minus the driver's pool: recycle_cached %d, want %d (the system pool's)", got, tc.sysRec)
			}
			s := l.Snapshot()
			var sys []PoolView
			for _, p := range s.Pools {
				if p.System {
					sys = append(sys, p)
				}
			}
			note := strings.Contains(strings.Join(r.Notes, "\n"), "system page_pools")
			if !tc.sys {
				if len(sys) != 0 || note {
					t.Errorf("system pools in %s: %d, note %v", tc.era, len(sys), note)
				}
				return
			}
			if len(sys) != len(l.m.CPUs) || sys[0].CPUID != 0 || sys[0].NAPICPU != -1 || s.SystemRecycle[sim.StatRecycleCached] != tc.sysRec || !note {
				t.Errorf("snapshot: %d system pools (cpu0's cpuid %d), shared recycle_cached %d, note %v", len(sys), sys[0].CPUID, s.SystemRecycle[sim.StatRecycleCached], note)
			}
			if s.Stats != r.Stats {
				t.Errorf("snapshot totals %v differ from the results' %v", s.Stats, r.Stats)
			}
			// Netlink lists the driver's pool only; its id follows the
			// system pools', which took the first ids at net_dev_init.
			if len(r.YNL.Pools) != 1 || r.YNL.Pools[0].ID != uint32(len(l.m.CPUs))+1 {
				t.Errorf("netlink lists %+v, want the driver's pool alone, id %d", r.YNL.Pools, len(l.m.CPUs)+1)
			}
		})
	}
}
