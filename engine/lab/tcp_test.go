package lab

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// The tcp-stream counters follow from kernel mechanisms, not from a
// workload constant: GRO's aggregate shape (skb_gro_receive: 18 pages in
// the aggregate, 27 on its frag_list), skb_attempt_defer_free and the
// net_rx_action flush (NAPI-safe for the aggregate, not for its frag_list
// before 6.6), napi_complete_done's list_owner = -1, and which side — the
// NAPI or the reader — is the slower.

type tcpRun struct {
	l *Lab
	r Results
}

func tcpStream(t *testing.T, driver, era string, packets int64, set ...string) tcpRun {
	t.Helper()
	l, r := run(t, Config{Driver: driver, Scenario: "tcp-stream", Era: era, Packets: packets, Knobs: sim.MustOverrides(set...)})
	if r.Violations.Total() != 0 {
		t.Fatalf("%s %s %v: %v", driver, era, set, first(r.Violations.List))
	}
	return tcpRun{l, r}
}

func (x tcpRun) st(s sim.Stat) uint64 { return x.r.Stats[s] }

// GRO + deferred free in 6.4: the reader's frees come back to the NAPI CPU
// and are flushed NAPI-safe at the next poll — the aggregate's 18 pages go
// to the cache, its frag_list's 27 through the ring (b07a2d97ba5e). At most
// 18/45 of the pages are cached; none overflows the cache.
func TestTCPStream_GRODeferredFlush64CachesTheAggregateNotItsFragList(t *testing.T) {
	x := tcpStream(t, "bnxt", "6.4", 300_000)
	cached, ring := x.st(sim.StatRecycleCached), x.st(sim.StatRecycleRing)
	share := float64(cached) / float64(cached+ring)
	if share > 18.0/45 || share < 0.35 || x.st(sim.StatRecycleCacheFull) != 0 {
		t.Errorf("cached %d ring %d (%.3f of the recycled, want just under 18/45 = 0.4), cache_full %d", cached, ring, share, x.st(sim.StatRecycleCacheFull))
	}
	if x.l.stack.Deferred == 0 {
		t.Errorf("no skb_attempt_defer_free")
	}
	exactStats(t, "bnxt tcp-stream 6.4", x.r.Stats, sim.Stats{sim.StatAllocFast: 297584, sim.StatAllocSlow: 11, sim.StatAllocEmpty: 11, sim.StatAllocRefill: 2916, sim.StatRecycleCached: 113305, sim.StatRecycleRing: 186620})
}

// 6.8 (v6.6's `napi_safe || in_softirq()`): the frag_list members, freed in
// the same softirq on the NAPI's CPU, recycle directly too. What still goes
// through the ring is what net_rx_action's last flush frees after
// napi_complete_done reset list_owner: the NAPI completes because the
// reader is the slower side and the window closes (read_ns=50: bnxt's page
// mode, with its XDP program, napi_alloc_skb and header copy per segment,
// would otherwise outrun a reader that only copies; hw_gro=0: page mode,
// whose software GRO builds the frag_list this test is about). The counts
// are with bnxt's pool syncing for the device from 6.6 (578fcfd26e2a).
// The reader frees each skb at the end of its copy, in time (tcpStream's
// eat operation): what it frees while the NAPI runs its last poll goes to
// the ring, about a third here; the rest, freed while the NAPI is idle or
// before an earlier poll, is flushed NAPI-safe (it was nearly all before
// the free came at the copy's start, 95 %: an artefact).
func TestTCPStream_SoftirqDirect68AndTheIdleNAPIsFlush(t *testing.T) {
	x := tcpStream(t, "bnxt", "6.8", 300_000, "read_ns=50", "hw_gro=0")
	if x.l.drv.Completions == 0 || x.st(sim.StatRecycleRing) == 0 {
		t.Errorf("completions %d, ring %d: want the completing NAPI's flush in the ring", x.l.drv.Completions, x.st(sim.StatRecycleRing))
	}
	if c, r := x.st(sim.StatRecycleCached), x.st(sim.StatRecycleRing); c < 2*r {
		t.Errorf("cached %d ring %d: want most direct", c, r)
	}
	exactStats(t, "bnxt tcp-stream 6.8", x.r.Stats, sim.Stats{sim.StatAllocFast: 299019, sim.StatAllocSlow: 33, sim.StatAllocEmpty: 33, sim.StatAllocRefill: 1459, sim.StatRecycleCached: 206069, sim.StatRecycleCacheFull: 1124, sim.StatRecycleRing: 92410})
}

// A reader faster than the NIC (GRO off: the NAPI does the per-segment
// stack work): the window never closes, the NAPI never completes, and every
// deferred skb is flushed NAPI-safe on the NAPI's CPU — all cached.
func TestTCPStream_ReaderFasterThanTheNICAllCached(t *testing.T) {
	for _, era := range []string{"6.4", "6.8"} {
		x := tcpStream(t, "bnxt", era, 100_000, "gro=0")
		if x.l.drv.Completions != 0 || x.st(sim.StatRecycleRing) != 0 || x.st(sim.StatRecycleCached) == 0 {
			t.Errorf("%s: completions %d, cached %d, ring %d", era, x.l.drv.Completions, x.st(sim.StatRecycleCached), x.st(sim.StatRecycleRing))
		}
		if b := x.r.Bottleneck; b != 0 {
			t.Errorf("%s: bottleneck cpu%d, want the NAPI's cpu0", era, b)
		}
	}
}

// A reader slower than the NIC (read_ns): the window closes, each poll
// ends short and napi_complete_done runs; the rate is the reader's.
func TestTCPStream_ReaderSlowerThanTheNICNAPICompletes(t *testing.T) {
	x := tcpStream(t, "bnxt", "6.4", 100_000, "read_ns=2000")
	if x.l.drv.Completions == 0 || x.r.Bottleneck != 1 {
		t.Errorf("completions %d, bottleneck cpu%d: want completions and the reader's cpu1", x.l.drv.Completions, x.r.Bottleneck)
	}
}

// sysctl skb_defer_max = 0 (or a full list): the reader frees each skb
// itself with __kfree_skb, in process context: nothing is cached.
func TestTCPStream_DeferMaxZeroFreesOnTheReader(t *testing.T) {
	for _, era := range []string{"6.4", "6.8"} {
		x := tcpStream(t, "bnxt", era, 100_000, "skb_defer_max=0")
		if x.st(sim.StatRecycleCached) != 0 || x.l.stack.Deferred != 0 {
			t.Errorf("%s: cached %d deferred %d", era, x.st(sim.StatRecycleCached), x.l.stack.Deferred)
		}
	}
}

// No workload constant sets cache_full: in 6.4 it stays 0 whatever the RX
// ring and the window (a flush returns 18 pages per aggregate into a cache
// the poll has just drained), and the recycled pages split the same way.
func TestTCPStream_NoWorkloadConstantSetsCacheFull(t *testing.T) {
	var shares []float64
	for _, set := range [][]string{{"rx_descs=256"}, {"rx_descs=1024"}, {"rx_descs=4096"}, {"rcvbuf=1048576"}, {"rcvbuf=3145728"}} {
		x := tcpStream(t, "bnxt", "6.4", 300_000, set...)
		if f := x.st(sim.StatRecycleCacheFull); f != 0 {
			t.Errorf("%v: cache_full %d", set, f)
		}
		c, r := x.st(sim.StatRecycleCached), x.st(sim.StatRecycleRing)
		shares = append(shares, float64(c)/float64(c+r))
	}
	for i, s := range shares {
		if d := s - shares[0]; d > 0.01 || d < -0.01 {
			t.Errorf("run %d: cached share %.3f vs %.3f", i, s, shares[0])
		}
	}
}

// 5.14: no deferral, no direct recycling: the reader's __kfree_skb puts
// every page into the ring (mvpp2: bnxt's page mode marks skbs from 5.19).
func TestTCPStream_514RecyclesThroughTheRing(t *testing.T) {
	x := tcpStream(t, "mvpp2", "5.14", 100_000)
	if x.st(sim.StatRecycleCached) != 0 || x.st(sim.StatRecycleRing) < 90_000 || x.l.stack.Deferred != 0 {
		t.Errorf("cached %d ring %d deferred %d", x.st(sim.StatRecycleCached), x.st(sim.StatRecycleRing), x.l.stack.Deferred)
	}
	exactStats(t, "mvpp2 tcp-stream 5.14", x.r.Stats, sim.Stats{sim.StatAllocFast: 99319, sim.StatAllocSlow: 41, sim.StatAllocEmpty: 41, sim.StatAllocRefill: 1664, sim.StatRecycleRing: 98463})
}

// 32471b2f481d (v6.16): on a PREEMPT_RT kernel page_pool_napi_local
// answers never local, so the reader's deferred frees, flushed in softirq
// on the NAPI's CPU, go through the ptr_ring instead of the alloc cache.
// Before 6.16 no release has the test: the knob is refused there, naming
// the first era that has it.
func TestPreemptRT_NoNAPILocalRecyclingFrom6_16(t *testing.T) {
	plain := tcpStream(t, "bnxt", "6.16", 100_000, "gro=0")
	rt := tcpStream(t, "bnxt", "6.16", 100_000, "gro=0", "preempt_rt=1")
	if plain.st(sim.StatRecycleCached) == 0 || plain.st(sim.StatRecycleRing) != 0 {
		t.Errorf("6.16: cached %d, ring %d; want all cached (a reader faster than the NIC)", plain.st(sim.StatRecycleCached), plain.st(sim.StatRecycleRing))
	}
	if rt.st(sim.StatRecycleCached) != 0 || rt.st(sim.StatRecycleRing) == 0 {
		t.Errorf("6.16 with PREEMPT_RT: cached %d, ring %d; want none cached, all through the ring", rt.st(sim.StatRecycleCached), rt.st(sim.StatRecycleRing))
	}
	_, err := New(Config{Driver: "bnxt", Scenario: "tcp-stream", Era: "6.15", Knobs: sim.MustOverrides("preempt_rt=1")})
	if err == nil || !strings.Contains(err.Error(), "preempt_rt") || !strings.Contains(err.Error(), "6.16") {
		t.Errorf("preempt_rt=1 in 6.15: %v; want refused, naming the knob and 6.16", err)
	}
}
