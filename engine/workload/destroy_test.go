package workload

import (
	"testing"

	"pplab/engine/sim"
)

// destroy: the socket keeps the newest 32 skbs and the reader frees the
// older ones with kfree_skb on cpu1 in process context; at the unload
// (after 256 packets here) page_pool_destroy defers the release while the
// socket holds 32, the reader frees one a second, the last after 90 s, and
// the pool goes away at the next retry: 224 + 32 frees, 91 s on the clock.
func TestDestroy_ReaderFreesTheHeldSkbsOnePerSecondThenThePoolGoes(t *testing.T) {
	r := newTestRun(t, WDestroy, "mvpp2", "6.8")
	SetUnloadAt(r.w, 256)
	w := r.w.(*destroy)
	for w.phase == 0 {
		r.steps(1)
	}
	if r.n != 256 || len(w.held) != destroyHold {
		t.Fatalf("unloaded after %d packets holding %d skbs; want 256, %d", r.n, len(w.held), destroyHold)
	}
	if r.e.Drv.Pool.Freed() {
		t.Fatal("the pool went away with skbs in flight")
	}
	r.wantFrees(map[free]int{kfree(1, process): 256 - destroyHold})
	for steps := 0; !w.Finished(); steps++ {
		if steps > 300 {
			t.Fatal("destroy did not finish")
		}
		r.steps(1)
	}
	r.wantFrees(map[free]int{kfree(1, process): 256})
	if !r.e.Drv.Pool.Freed() || w.since != 91 {
		t.Errorf("pool freed %v after %d s; want freed after 91 s", r.e.Drv.Pool.Freed(), w.since)
	}
	if s := r.e.M.NowPS() / sim.PSPerNS / 1_000_000_000; s != 91 {
		t.Errorf("the clock is at %d s, want 91", s)
	}
	r.wantRecycled(recycled{ring: 288, slow: 2})
	r.clean()
}
