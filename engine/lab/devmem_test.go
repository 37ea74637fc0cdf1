package lab

import (
	"strings"
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// devmem-rx: every driver × era runs or is refused with one reason, the
// binding's (drivers.Spec.BindRxQueue), before the lab's generic "does not
// run" answers: only lunar runs it, from 6.12.
func TestDevmemRx_EveryDriverEraRunsOrSaysWhy(t *testing.T) {
	reasons := []string{"memory providers are v6.12: 8ab79ed50cf1", "-EOPNOTSUPP", "-ENODATA", "the model's bnxt does not implement", "devmem needs mlx5's SHAMPO RQ"}
	for _, spec := range drivers.Specs {
		for _, e := range sim.Eras {
			err := Config{Scenario: "devmem-rx", Driver: spec.Name, Era: e.Name}.Validate()
			runs := spec.Name == "lunar" && e.MemProvider != sim.MPNone
			switch {
			case runs && err != nil:
				t.Errorf("%s/%s: refused: %v", spec.Name, e.Name, err)
			case !runs && err == nil:
				t.Errorf("%s/%s: accepted", spec.Name, e.Name)
			case !runs:
				n := 0
				for _, r := range reasons {
					if strings.Contains(err.Error(), r) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s/%s: %v: want exactly one of %q", spec.Name, e.Name, err, reasons)
				}
			}
		}
	}
}

// The lab's run of devmem-rx in 6.12 (devmem) and 6.15 (devmem, and
// io_uring with provider=1), 2000 segments on lunar's 256-descriptor
// queue: the payload pool (id 2, the one ynl lists first) never counts the
// slow path; devmem's buffers come back through the ptr_ring (recycle
// ring = tokens returned: 31 SO_DEVMEM_DONTNEED calls of 64), io_uring's
// through the refill queue into the alloc cache (no recycle stat; each
// alloc_netmems call follows an empty ring: 5 take 64 niovs from the
// area, the rest drain 64 from the refill queue).
func TestDevmemRx_ProviderPoolSideBySide(t *testing.T) {
	tests := []struct {
		name, era                 string
		set                       []string
		fast, empty, refill, ring uint64
		inflight                  int64
	}{
		{"6.12-devmem", "6.12", nil, 1905, 320, 31, 1984, 320},
		{"6.15-devmem", "6.15", nil, 1905, 320, 31, 1984, 320},
		{"6.15-io_uring", "6.15", []string{"provider=1"}, 2220, 36, 0, 0, 320},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, r := run(t, Config{Scenario: "devmem-rx", Era: tc.era, Packets: 2000, Knobs: sim.MustOverrides(tc.set...)})
			if l.Err() != nil || r.Violations.Total() != 0 {
				t.Fatalf("err %v violations %v", l.Err(), first(r.Violations.List))
			}
			y := l.YNL()
			// The ids follow the per-CPU system pools' (SystemPoolIDs).
			sys := uint32(SystemPoolIDs(l.m.Era, len(l.m.CPUs)))
			if len(y.Pools) != 2 || y.Pools[0].ID != sys+2 || y.Pools[1].ID != sys+1 {
				t.Fatalf("ynl pools %+v: want the payload pool (%d) and the header pool (%d)", y.Pools, sys+2, sys+1)
			}
			st := &y.Stats[0].Stats
			got := [5]int64{int64(st[sim.StatAllocFast]), int64(st[sim.StatAllocEmpty]), int64(st[sim.StatAllocRefill]), int64(st[sim.StatRecycleRing]), y.Pools[0].Inflight}
			want := [5]int64{int64(tc.fast), int64(tc.empty), int64(tc.refill), int64(tc.ring), tc.inflight}
			if got != want || st[sim.StatAllocSlow] != 0 || st[sim.StatRecycleCached] != 0 {
				t.Errorf("fast, empty, refill, ring, inflight = %v, want %v (slow %d, cached %d)", got, want, st[sim.StatAllocSlow], st[sim.StatRecycleCached])
			}
		})
	}
}
