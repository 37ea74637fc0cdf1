package skb

import (
	"pplab/engine/sim"
)

// This file is the deferred skb free of v5.19+ (net/core/skbuff.c and
// net/core/dev.c): a CPU that frees an skb another CPU allocated (the
// socket reader freeing what the NAPI built) hands it back to that CPU's
// softnet_data defer list, and the owner frees it from net_rx_action — in
// NAPI context, where from 6.4 its page_pool pages may go straight back into
// the alloc cache.
//
//   - 68822bdf76f1 / f35f821935d8 (5.19): per-CPU defer lists, flushed by
//     net_rx_action, each skb freed with napi_consume_skb(skb, 1);
//   - 39564c3fdc66 (5.19): sysctl_skb_defer_max (64), and an IPI kick when the
//     list reaches half of it, as fixed by Kicinski's follow-up (the count is
//     compared before it is incremented: kick = defer_count == defer_max >> 1);
//     the IPI's handler, trigger_rx_softirq, runs on the list's CPU: it
//     raises NET_RX_SOFTIRQ there and clears defer_ipi_scheduled;
//   - 909876500251 "net: call skb_defer_free_flush() before each
//     napi_poll()" and 2db60eed1a95 "net: use napi_consume_skb() in
//     skb_defer_free_flush()" (the net-skb-defer-freeing-polish branch, May
//     2022, 5.19): net_rx_action flushes before every napi_poll and once
//     more when its poll list is empty;
//   - b07a2d97ba5e (6.4) changes nothing here but what napi_consume_skb does
//     with its budget: it passes !!budget down as napi_safe, so from 6.4 the
//     flush's free is NAPI-safe for page_pool pages.

// deferList is the defer part of struct softnet_data: defer_list (pushed at
// its head: LIFO) and defer_count; and whether the IPI raised
// NET_RX_SOFTIRQ there and net_rx_action has not run since.
// defer_ipi_scheduled has no field: the model runs the IPI's handler as the
// IPI is sent, so the flag is set and cleared within one call.
type deferList struct {
	skbs     []*SKB // oldest first; the kernel's list pops the newest first
	rxRaised bool   // NET_RX_SOFTIRQ pending on this CPU from the IPI
}

// DeferOutcome says what SkbAttemptDeferFree did.
type DeferOutcome uint8

const (
	DeferQueued DeferOutcome = iota // on the allocating CPU's defer list
	DeferKicked                     // queued, and the list reached half of skb_defer_max: an IPI raises NET_RX_SOFTIRQ there
	FreedLocal                      // freed here (__kfree_skb; kfree_skb_napi_cache from 6.10): this CPU allocated it, the list was full (defer_count >= skb_defer_max), or (7.0) it is zero-copy
)

// SkbAttemptDeferFree models skb_attempt_defer_free(skb) (net/core/skbuff.c,
// v6.4): an skb allocated on another CPU goes onto that CPU's defer list;
// one allocated here, or any skb when the list already holds
// sysctl_skb_defer_max (the skb_defer_max knob; from 6.18 one less:
// Era.DeferCountFirst), is freed here with
// __kfree_skb — not a NAPI-safe free, so its page_pool pages go through the
// ptr_ring. When the list reaches half of the maximum, an IPI
// (smp_call_function_single_async, once until the owner runs) raises
// NET_RX_SOFTIRQ on the owner: the caller then runs its net_rx_action
// (KickPending reports it). From 7.0 a zero-copy skb is freed here at
// once, wherever it was allocated (Era.DeferSkipsZerocopy, 0943404b1f3b).
// Caller: process context (tcp_eat_recv_skb), or any context that frees an
// skb another CPU allocated.
func (s *Stack) SkbAttemptDeferFree(cpu int, sk *SKB) DeferOutcome {
	if !s.alive(cpu, sk, sim.SymDeferFree) {
		return FreedLocal
	}
	owner := sk.AllocCPU
	cost := s.M.Charge(cpu, sim.SymDeferFree, 0)
	limit := int(s.M.Knobs[sim.KnobSkbDeferMax])
	holds := limit // the most skbs a list holds
	if s.era.DeferCountFirst {
		holds = limit - 1 // 6.18: defer_count incremented, then compared
	}
	zcopy := s.era.DeferSkipsZerocopy && sk.D.Zerocopy // skb_zcopy(skb): goto nodefer (7.0)
	if zcopy || owner == cpu || owner < 0 || owner >= len(s.defers) || len(s.defers[owner].skbs) >= holds {
		napiCache := s.era.DeferRefusedNapiCache
		why := refusedWhy[boolIdx(owner != cpu)][boolIdx(napiCache)]
		if zcopy && napiCache {
			why = zcopyWhy
		}
		s.ev(cpu, sim.SymDeferFree, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, why)
		if napiCache {
			s.kfreeSkbNapiCache(cpu, sk)
		} else {
			s.KfreeSKB(cpu, sk)
		}
		return FreedLocal
	}
	d := &s.defers[owner]
	kick := len(d.skbs) == limit>>1
	d.skbs = append(d.skbs, sk)
	s.Queue(sk, InDeferList)
	s.Deferred++
	if kick {
		// !defer_ipi_scheduled: WRITE_ONCE(..., 1); smp_call_function_single_async
		s.Kicks++
		cost += s.M.Charge(cpu, sim.SymDeferIPI, 0)
		s.ev(cpu, sim.SymDeferFree, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			"queued on the allocating CPU's defer list, which reached half of skb_defer_max: an IPI raises NET_RX_SOFTIRQ there")
		s.triggerRxSoftirq(owner)
		return DeferKicked
	}
	s.ev(cpu, sim.SymDeferFree, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
		"queued on the allocating CPU's defer list: that CPU frees it from net_rx_action")
	return DeferQueued
}

// zcopyWhy narrates a zero-copy skb skb_attempt_defer_free frees at once
// (Era.DeferSkipsZerocopy: always NAPI-safe, 7.0 having 6.10's cache).
const zcopyWhy = "a zero-copy skb: not delayed on a defer list (its completion notifications would wait), freed here NAPI-safe (kfree_skb_napi_cache)"

// refusedWhy narrates a free skb_attempt_defer_free does not defer, by
// [the owner's list is full][the free is kfree_skb_napi_cache] (constant
// strings: the untraced path builds none).
var refusedWhy = [2][2]string{
	{"allocated on this CPU: freed here (__kfree_skb, not NAPI-safe)",
		"allocated on this CPU: freed here NAPI-safe (kfree_skb_napi_cache)"},
	{"the owner's defer list is full (defer_count >= skb_defer_max): freed here (__kfree_skb, not NAPI-safe)",
		"the owner's defer list is full (defer_count >= skb_defer_max): freed here NAPI-safe (kfree_skb_napi_cache)"},
}

func boolIdx(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kfreeSkbNapiCache models kfree_skb_napi_cache (net/core/skbuff.c, from
// 7cb31c46b9cc, v6.10; Era.DeferRefusedNapiCache): local_bh_disable, then
// __napi_kfree_skb — skb_release_all and napi_skb_cache_put — so the free
// runs in softirq: on the CPU of a pool's NAPI its pages may go straight
// into the alloc cache, and the struct goes to the NAPI skb cache. (The
// model has no fclones, which it would free with __kfree_skb.)
func (s *Stack) kfreeSkbNapiCache(cpu int, sk *SKB) {
	c := &s.M.CPUs[cpu]
	was := c.Softirq
	c.Softirq = true // local_bh_disable
	s.M.Charge(cpu, sim.SymKfreeSKB, 0)
	s.releaseAll(cpu, sk, true)
	s.napiSkbCachePut(cpu, sk)
	c.Softirq = was // local_bh_enable
}

// triggerRxSoftirq models trigger_rx_softirq (net/core/dev.c), the defer
// IPI's handler on cpu, the list's owner: __raise_softirq_irqoff(NET_RX_SOFTIRQ)
// and smp_store_release(&sd->defer_ipi_scheduled, 0). The sender pays the
// send (smp_call_function_single_async); the interrupt and the handler are
// the owner's time. The model runs the handler as soon as the IPI is sent.
func (s *Stack) triggerRxSoftirq(cpu int) {
	d := &s.defers[cpu]
	cost := s.M.Charge(cpu, sim.SymTriggerRxSoftirq, 0)
	d.rxRaised = true // and smp_store_release(&sd->defer_ipi_scheduled, 0)
	s.ev(cpu, sim.SymTriggerRxSoftirq, nil, nil, sim.PlaceNone, sim.PlaceNone, cost,
		"the defer IPI on the list's CPU: NET_RX_SOFTIRQ raised, defer_ipi_scheduled cleared")
}

// DeferCount is sd->defer_count of cpu.
func (s *Stack) DeferCount(cpu int) int { return len(s.defers[cpu].skbs) }

// KickPending reports whether the defer IPI raised NET_RX_SOFTIRQ on cpu
// and its net_rx_action has not run since.
func (s *Stack) KickPending(cpu int) bool { return s.defers[cpu].rxRaised }

// SkbDeferFreeFlush models skb_defer_free_flush(sd) (net/core/dev.c, v5.19-v6.8),
// which net_rx_action runs on cpu before every napi_poll and once more when
// its poll list is empty: the list is taken under the lock and each skb,
// newest first, freed with napi_consume_skb(skb, 1) — a NAPI-safe free. An
// empty list costs a READ_ONCE. Returns the skbs freed. Caller: softirq on
// cpu, in net_rx_action (the NET_RX_SOFTIRQ an IPI raised is running).
func (s *Stack) SkbDeferFreeFlush(cpu int) int {
	d := &s.defers[cpu]
	d.rxRaised = false
	n := len(d.skbs)
	if n == 0 {
		return 0
	}
	cost := s.M.Charge(cpu, sim.SymDeferFlush, 0)
	s.ev(cpu, sim.SymDeferFlush, nil, nil, sim.PlaceNone, sim.PlaceNone, cost,
		"net_rx_action takes this CPU's defer list: each skb, newest first, is freed with napi_consume_skb(skb, 1)")
	for i := n - 1; i >= 0; i-- {
		sk := d.skbs[i]
		d.skbs[i] = nil
		s.M.Begin(cpu, sim.SymNapiConsumeSKB)
		s.NapiConsumeSKB(cpu, sk, 1)
	}
	d.skbs = d.skbs[:0]
	return n
}
