package workload

import "testing"

// The tap clones every Nth packet on the NAPI CPU and its reader frees each
// clone with kfree_skb on the application CPU, in process context, during
// the packet tapDelay/2 after it (counting the tapped one): the clone of
// packet 1 in packet 8, of packet 5 in packet 12, and so on.
func TestTap_ReaderFreesEachCloneHalfTheDelayLater(t *testing.T) {
	tests := []struct {
		name  string
		every string
		after []int64 // packets completed
		freed []int   // clones freed by then
	}{
		{"every-packet", "tap_every=1", []int64{7, 8, 9, 10, 30}, []int{0, 1, 2, 3, 23}},
		{"every-4th", "tap_every=4", []int64{7, 8, 11, 12, 30}, []int{0, 1, 1, 2, 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRun(t, WCloneTap, "bnxt", "6.8", tc.every)
			for i, n := range tc.after {
				r.packets(n - r.n)
				if got := r.frees[kfree(1, process)]; got != tc.freed[i] {
					t.Errorf("after %d packets: %d clones freed by the reader, want %d", n, got, tc.freed[i])
				}
			}
			r.clean()
		})
	}
}

// Without a tap (tap_every=0, forward's default) nothing is cloned: every
// free is the TX completion's.
func TestTap_OffClonesNothing(t *testing.T) {
	r := newTestRun(t, WForward, "lunar", "6.8").packets(200)
	if n := r.frees[kfree(1, process)]; n != 0 {
		t.Errorf("%d clones freed with the tap off", n)
	}
	for i, cl := range r.w.(*forward).tap.clones {
		if cl != nil {
			t.Errorf("clone slot %d holds skb#%d with the tap off", i, cl.ID)
		}
	}
	r.clean()
}
