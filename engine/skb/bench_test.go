package skb

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// benchBuildFree: a driver receives into a pool page, builds and marks a
// one-page skb, and the stack frees it — through the ptr_ring or the direct
// path (6.4 napi_consume_skb on the pool's NAPI CPU). In 6.8 a kfree_skb in
// softirq on the pool's NAPI CPU recycles directly too (v6.6, the
// in_softirq() arm), so the ring case frees in process context (a socket
// reader's kfree_skb on that CPU). The steady state must not allocate.
func benchBuildFree(b *testing.B, napi bool) {
	e := newEnv(b, "6.8")
	free := func(sk *SKB) {
		if napi {
			e.s.NapiConsumeSKB(0, sk, 64)
			return
		}
		e.m.CPUs[0].Softirq = false
		e.s.KfreeSKB(0, sk)
		e.m.CPUs[0].Softirq = true
	}
	run := func() {
		pg := e.p.AllocPages(0)
		sk, err := e.s.BuildSKB(0, pg, 0, mm.PageSize, 64, true)
		if err != nil {
			b.Fatal(err)
		}
		e.s.MarkForRecycle(0, sk, pg, e.p)
		free(sk)
	}
	for i := 0; i < 1000; i++ { // warm up: quarantines and caches fill
		run()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.StopTimer()
	e.clean()
	st := e.p.Stats()
	if napi && st[sim.StatRecycleCached] == 0 || !napi && st[sim.StatRecycleRing] == 0 {
		b.Fatalf("wrong recycling path: %v", st)
	}
}

func BenchmarkBuildMarkFree_Ring(b *testing.B)   { benchBuildFree(b, false) }
func BenchmarkBuildMarkFree_Direct(b *testing.B) { benchBuildFree(b, true) }
