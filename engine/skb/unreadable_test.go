package skb

import (
	"errors"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// devmemSKB builds a marked skb whose head is a host page of the env's
// pool (66 bytes of headers) and whose one frag is a net_iov of a devmem
// pool on a bound queue (1448 bytes of payload).
func (e *env) devmemSKB() (*SKB, *mm.Page) {
	e.t.Helper()
	b, err := e.a.BindDmabuf(4, false)
	if err != nil {
		e.t.Fatal(err)
	}
	q := &pagepool.RxQueue{MP: &pagepool.Provider{B: b}}
	pp, err := e.r.Create(0, pagepool.Params{Flags: pagepool.FlagDMAMap | pagepool.FlagAllowUnreadable, DMADir: mm.DMAFromDevice, Queue: q})
	if err != nil {
		e.t.Fatal(err)
	}
	sk, _ := e.rx(66)
	niov := pp.AllocPages(0)
	if err := e.s.AddRxFrag(0, sk, niov, 0, 1448, mm.PageSize); err != nil {
		e.t.Fatal(err)
	}
	return sk, niov
}

// 65249feb6b3d: a net_iov frag makes the skb unreadable; skb_copy_bits
// copies head bytes but fails with -EFAULT as soon as the range reaches
// the frags; breaking frags-readable lets it read the net_iov, reported.
func TestSkbCopyBits_UnreadableFragsFault(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []string
		off, n int
		err    error
		copied int
		reads  int
	}{
		{"head-only", nil, 0, 66, nil, 66, 0},
		{"into-the-frag", nil, 0, 100, ErrFault, 66, 0},
		{"into-the-frag-rule-broken", []string{"break=frags-readable"}, 0, 100, nil, 100, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "6.12", tc.opts...)
			sk, niov := e.devmemSKB()
			if SkbFragsReadable(sk) || !niov.IsNetIov() {
				t.Fatalf("skb readable %v, frag net_iov %v", SkbFragsReadable(sk), niov.IsNetIov())
			}
			n, err := e.s.SkbCopyBits(0, sk, tc.off, tc.n)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) || n != tc.copied {
				t.Fatalf("copied %d err %v, want %d %v", n, err, tc.copied, tc.err)
			}
			if got := e.m.Log.Counts[sim.KindUnreadableRead]; got != tc.reads {
				t.Errorf("unreadable-frag-read %d, want %d", got, tc.reads)
			}
			if tc.reads > 0 && e.m.Log.List[0].Rule != sim.RuleFragsReadable {
				t.Errorf("reported under rule %v", e.m.Log.List[0].Rule)
			}
		})
	}
}

// skb_try_coalesce refuses to mix an unreadable skb with a readable one
// (65249feb6b3d), even where the bytes would fit `to`'s tailroom.
func TestSkbTryCoalesce_RefusesToMixReadableAndUnreadable(t *testing.T) {
	e := newEnv(t, "6.12")
	dev, _ := e.devmemSKB()
	host, _ := e.rx(100)
	for _, pair := range [][2]*SKB{{dev, host}, {host, dev}} {
		res, err := e.s.SkbTryCoalesce(0, pair[0], pair[1])
		if err != nil || res.OK {
			t.Errorf("coalesce skb#%d into skb#%d: %+v %v", pair[1].ID, pair[0].ID, res, err)
		}
	}
	if e.s.CoalesceRefused != 2 {
		t.Errorf("refused %d, want 2", e.s.CoalesceRefused)
	}
}
