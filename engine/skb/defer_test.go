package skb

import (
	"fmt"
	"strings"
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// deferFrom builds n marked skbs on cpu0 (the NAPI CPU) and has cpu1 (the
// reader, process context) hand each to skb_attempt_defer_free.
func (e *env) deferFrom(n int) ([]*SKB, []DeferOutcome) {
	e.t.Helper()
	var sks []*SKB
	var outs []DeferOutcome
	for i := 0; i < n; i++ {
		sk, _ := e.rx(1000)
		sks = append(sks, sk)
	}
	e.m.CPUs[1].Softirq = false
	for _, sk := range sks {
		e.m.Begin(1, sim.SymDeferFree)
		outs = append(outs, e.s.SkbAttemptDeferFree(1, sk))
		e.check()
	}
	return sks, outs
}

// skb_attempt_defer_free: an skb the reader's CPU did not allocate waits
// on its allocating CPU's list; the flush there frees it NAPI-safe, and
// from 6.4 its page goes straight into the alloc cache.
func TestSkbAttemptDeferFree_QueuesOnAllocCPUFlushedNAPISafe(t *testing.T) {
	e := newEnv(t, "6.4")
	sks, outs := e.deferFrom(3)
	for i, o := range outs {
		if o != DeferQueued || sks[i].Where != InDeferList || !sks[i].Live() {
			t.Fatalf("skb %d: outcome %d, where %s, live %v", i, o, sks[i].Where, sks[i].Live())
		}
	}
	if n := e.s.DeferCount(0); n != 3 {
		t.Fatalf("defer_count %d, want 3", n)
	}
	e.m.CPUs[0].Softirq = true
	if n := e.s.SkbDeferFreeFlush(0); n != 3 {
		t.Fatalf("flushed %d, want 3", n)
	}
	e.check()
	e.stats(map[sim.Stat]uint64{sim.StatAllocSlow: 1, sim.StatAllocFast: 2, sim.StatRecycleCached: 3})
	if e.s.DeferCount(0) != 0 || e.s.SkbDeferFreeFlush(0) != 0 {
		t.Errorf("the list is not empty after the flush")
	}
	e.clean()
}

// Before 6.4 the same flush recycles through the ring: skb frees never
// recycle directly.
func TestSkbAttemptDeferFree_FlushBefore64GoesToRing(t *testing.T) {
	e := newEnv(t, "5.15")
	e.deferFrom(2)
	e.s.SkbDeferFreeFlush(0)
	e.stats(map[sim.Stat]uint64{sim.StatAllocSlow: 1, sim.StatAllocFast: 1, sim.StatRecycleRing: 2})
	e.clean()
}

// skb_defer_free_flush pops the list from its head: the skb deferred last
// is freed first (LIFO).
func TestSkbDeferFreeFlush_LIFO(t *testing.T) {
	e := newEnv(t, "6.4")
	sks, _ := e.deferFrom(3)
	var order []int32
	e.m.SetTracer(func(ev sim.Event) {
		if ev.Func == sim.SymNapiConsumeSKB && ev.SKB != 0 {
			order = append(order, ev.SKB)
		}
	})
	e.s.SkbDeferFreeFlush(0)
	want := []int32{sks[2].ID, sks[1].ID, sks[0].ID}
	if len(order) != 3 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Errorf("freed %v, want %v (newest first)", order, want)
	}
}

// An skb the reader's own CPU allocated is freed at once (__kfree_skb, not
// NAPI-safe): the ring.
func TestSkbAttemptDeferFree_SameCPUFreesLocally(t *testing.T) {
	e := newEnv(t, "6.4")
	sk, _ := e.rx(1000)
	e.m.Begin(0, sim.SymDeferFree)
	if o := e.s.SkbAttemptDeferFree(0, sk); o != FreedLocal || sk.Live() {
		t.Fatalf("outcome %d, live %v", o, sk.Live())
	}
	e.stats(map[sim.Stat]uint64{sim.StatAllocSlow: 1, sim.StatRecycleRing: 1})
	e.clean()
}

// sysctl_skb_defer_max: the IPI kicks when the list holds half of it (the
// count before this skb, Kicinski's fix), once until the owner's
// net_rx_action runs; past the maximum the reader frees locally.
func TestSkbAttemptDeferFree_KickAtHalfAndOverflowAtMax(t *testing.T) {
	e := newEnv(t, "6.4", "skb_defer_max=4")
	sks, outs := e.deferFrom(6)
	want := []DeferOutcome{DeferQueued, DeferQueued, DeferKicked, DeferQueued, FreedLocal, FreedLocal}
	for i := range want {
		if outs[i] != want[i] {
			t.Errorf("skb %d: outcome %d, want %d", i, outs[i], want[i])
		}
	}
	if !e.s.KickPending(0) || e.s.DeferCount(0) != 4 || sks[4].Live() || sks[5].Live() {
		t.Fatalf("kick %v, defer_count %d", e.s.KickPending(0), e.s.DeferCount(0))
	}
	e.s.SkbDeferFreeFlush(0)
	if e.s.KickPending(0) {
		t.Errorf("the flush did not clear defer_ipi_scheduled")
	}
	// 2 local frees on cpu1 went through the ring, 4 flushed ones into the cache.
	st := e.p.Stats()
	if st[sim.StatRecycleRing] != 2 || st[sim.StatRecycleCached] != 4 {
		t.Errorf("ring %d cached %d, want 2 and 4", st[sim.StatRecycleRing], st[sim.StatRecycleCached])
	}
	e.clean()
}

// skb_defer_max = 0 turns deferral off: every free is local.
func TestSkbAttemptDeferFree_DeferMaxZeroNeverDefers(t *testing.T) {
	e := newEnv(t, "6.4", "skb_defer_max=0")
	_, outs := e.deferFrom(3)
	for i, o := range outs {
		if o != FreedLocal {
			t.Errorf("skb %d deferred with skb_defer_max=0", i)
		}
	}
	if e.s.DeferCount(0) != 0 {
		t.Errorf("defer_count %d", e.s.DeferCount(0))
	}
	e.clean()
}

// 6.18's lockless defer lists (5628f3fe3b16 and its series) increment
// defer_count before comparing it with skb_defer_max: a list holds one skb
// less than before. The kick comes at the same point, the list reaching
// half.
func TestSkbAttemptDeferFree_HoldsOneLessFrom6_18(t *testing.T) {
	for _, tc := range []struct {
		era  string
		want []DeferOutcome
	}{
		{"6.16", []DeferOutcome{DeferQueued, DeferQueued, DeferKicked, DeferQueued, FreedLocal, FreedLocal}},
		{"6.18", []DeferOutcome{DeferQueued, DeferQueued, DeferKicked, FreedLocal, FreedLocal, FreedLocal}},
	} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era, "skb_defer_max=4")
			_, outs := e.deferFrom(len(tc.want))
			for i := range tc.want {
				if outs[i] != tc.want[i] {
					t.Errorf("skb %d: outcome %d, want %d", i, outs[i], tc.want[i])
				}
			}
			e.s.SkbDeferFreeFlush(0)
			e.clean()
		})
	}
}

// e20dfbad8aab (v6.19): napi_consume_skb on a CPU that did not allocate
// the skb hands it back to the allocating CPU's defer list; its flush there
// (the pool's NAPI CPU) recycles the page into the alloc cache, where
// before the TX CPU freed it and the page went to the ptr_ring. Tested on
// 6.18 with the rule set (Era.ConsumeAlienDefers).
func TestNapiConsumeSKB_HandsAnAlienSkbBack(t *testing.T) {
	e618 := simtest.EraWith(t, "6.18", func(*sim.Era) {})
	e619 := simtest.EraWith(t, "6.18", func(e *sim.Era) { e.ConsumeAlienDefers = true })
	for _, tc := range []struct {
		name         string
		era          *sim.Era
		deferred     int
		ring, cached uint64
	}{
		{"6.18 frees on the TX CPU", e618, 0, 1, 0},
		{"6.19 defers to the RX CPU", e619, 1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnvEra(t, tc.era)
			sk, pg := e.rx(1000)       // built on cpu0, the pool's NAPI CPU
			e.m.CPUs[1].Softirq = true // cpu1's TX completion (a NAPI poll)
			e.m.Begin(1, sim.SymNapiConsumeSKB)
			e.s.NapiConsumeSKB(1, sk, 64)
			e.check()
			if got := e.s.DeferCount(0); got != tc.deferred {
				t.Fatalf("cpu0's defer list holds %d skbs, want %d", got, tc.deferred)
			}
			e.s.SkbDeferFreeFlush(0)
			e.check()
			st := e.p.Stats()
			if st[sim.StatRecycleRing] != tc.ring || st[sim.StatRecycleCached] != tc.cached || sk.Live() {
				t.Errorf("page %#x: ring %d, cached %d, skb live %v; want %d, %d, freed", pg.PFN, st[sim.StatRecycleRing], st[sim.StatRecycleCached], sk.Live(), tc.ring, tc.cached)
			}
			e.clean()
		})
	}
}

// skb_attempt_defer_free's refused skb (here: freed by the CPU that
// allocated it, the pool's NAPI CPU, from process context) is freed with
// kfree_skb_napi_cache from 6.10 (7cb31c46b9cc; read in 6.12.118's,
// the 6.19 cycle's and 7.3.4's skbuff.c): under local_bh_disable, so in
// softirq on the pool's NAPI CPU, and its page goes straight into the alloc
// cache; 6.9's __kfree_skb in process context puts it in the ptr_ring.
func TestSkbAttemptDeferFree_RefusedFreesNapiSafeFrom6_10(t *testing.T) {
	for _, tc := range []struct {
		era          string
		ring, cached uint64
	}{{"6.9", 1, 0}, {"6.10", 0, 1}, {"6.19", 0, 1}, {"7.3", 0, 1}} {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era)
			sk, pg := e.rx(1000)        // built on cpu0, the pool's NAPI CPU
			e.m.CPUs[0].Softirq = false // the reader, in process context on cpu0
			e.m.Begin(0, sim.SymDeferFree)
			if out := e.s.SkbAttemptDeferFree(0, sk); out != FreedLocal {
				t.Fatalf("outcome %d, want FreedLocal", out)
			}
			e.check()
			st := e.p.Stats()
			if st[sim.StatRecycleRing] != tc.ring || st[sim.StatRecycleCached] != tc.cached || sk.Live() || e.m.CPUs[0].Softirq {
				t.Errorf("page %#x: ring %d, cached %d, skb live %v, softirq left %v; want %d, %d, freed, false", pg.PFN, st[sim.StatRecycleRing], st[sim.StatRecycleCached], sk.Live(), e.m.CPUs[0].Softirq, tc.ring, tc.cached)
			}
			e.clean()
		})
	}
}

// 0943404b1f3b "net: do not delay zero-copy skbs in skb_attempt_defer_free()"
// (v7.0): a zero-copy skb another CPU allocated is freed at once by the CPU
// that drops it (NAPI-safe, kfree_skb_napi_cache), where v6.19 queues it on
// its allocating CPU's defer list and its completion notification waits
// for that CPU's next net_rx_action. A plain skb is deferred in both.
func TestSkbAttemptDeferFree_ZerocopyNotDelayedFrom7_0_0943404b1f3b(t *testing.T) {
	for _, tc := range []struct {
		era      string
		zerocopy bool
		want     DeferOutcome
	}{
		{"6.19", true, DeferQueued},
		{"7.1-rc1", true, FreedLocal},
		{"7.3", true, FreedLocal},
		{"7.3", false, DeferQueued},
	} {
		t.Run(fmt.Sprintf("%s/zerocopy=%v", tc.era, tc.zerocopy), func(t *testing.T) {
			e := newEnv(t, tc.era)
			sk, _ := e.rx(1000) // allocated on cpu0
			sk.D.Zerocopy = tc.zerocopy
			var why string
			e.m.SetTracer(func(ev sim.Event) {
				if ev.Func == sim.SymDeferFree {
					why = ev.Why
				}
			})
			e.m.Begin(1, sim.SymDeferFree)
			if out := e.s.SkbAttemptDeferFree(1, sk); out != tc.want {
				t.Fatalf("outcome %d, want %d (%s)", out, tc.want, why)
			}
			e.check()
			if tc.want == FreedLocal {
				if sk.Live() || e.s.DeferCount(0) != 0 || !strings.Contains(why, "zero-copy") {
					t.Errorf("skb live %v, cpu0's defer_count %d, narrated %q", sk.Live(), e.s.DeferCount(0), why)
				}
			} else if sk.Where != InDeferList || e.s.DeferCount(0) != 1 {
				t.Errorf("where %s, cpu0's defer_count %d: want it on cpu0's list", sk.Where, e.s.DeferCount(0))
			}
			e.m.SetTracer(nil)
			e.m.CPUs[0].Softirq = true
			e.s.SkbDeferFreeFlush(0)
			e.clean()
		})
	}
}
