package skb

import (
	"testing"

	"pplab/engine/sim"
)

const (
	groFrame = 1514 // a full TCP segment on the wire
	groHdrs  = 52   // IPv4 + TCP with timestamps: what GRO parses after eth_type_trans
	groMSS   = groFrame - 14 - groHdrs
)

// segment is a received full-size TCP segment after eth_type_trans: a
// head_frag skb over its own pool page.
func (e *env) segment() *SKB {
	e.t.Helper()
	sk, _ := e.rx(groFrame)
	e.s.Pull(sk, 14)
	return sk
}

func (e *env) gro(g *GRO, sk *SKB) *SKB {
	e.t.Helper()
	e.m.Begin(0, sim.SymGroReceive)
	flushed, err := e.s.NapiGroReceive(0, g, sk, groHdrs)
	if err != nil {
		e.t.Fatal(err)
	}
	e.check()
	return flushed
}

// skb_gro_receive: the heads of the next MAX_SKB_FRAGS segments are stolen
// as frags of the aggregate; the next segment goes on its frag_list and
// takes the following heads as its own frags; at 64 KB (gro_max_size) the
// aggregate is flushed: 45 full segments.
func TestSkbGroReceive_StealsHeadsThenFragListUpTo64K(t *testing.T) {
	e := newEnv(t, "6.4")
	var g GRO
	first := e.segment()
	e.gro(&g, first)
	for i := 2; i <= 45; i++ {
		if f := e.gro(&g, e.segment()); f != nil {
			t.Fatalf("segment %d flushed the aggregate (len %d)", i, f.Len)
		}
		switch i {
		case 18:
			if first.D.NrFrags != MaxSkbFrags || len(first.D.FragList) != 0 {
				t.Fatalf("after 18 segments: %d frags, frag_list %d", first.D.NrFrags, len(first.D.FragList))
			}
		case 19:
			if len(first.D.FragList) != 1 || first.D.FragList[0].FragListOf != first.ID {
				t.Fatalf("segment 19 not chained on the frag_list: %d", len(first.D.FragList))
			}
		}
	}
	if g.Segments() != 45 || len(first.D.FragList) != 2 {
		t.Fatalf("%d segments, frag_list %d, want 45 and 2", g.Segments(), len(first.D.FragList))
	}
	if want := groFrame - 14 + 44*groMSS; first.Len != want {
		t.Errorf("aggregate len %d, want %d", first.Len, want)
	}
	m1, m2 := first.D.FragList[0], first.D.FragList[1]
	if m1.D.NrFrags != MaxSkbFrags || m2.D.NrFrags != 8 {
		t.Errorf("members' frags %d and %d, want 17 and 8", m1.D.NrFrags, m2.D.NrFrags)
	}
	next := e.segment()
	if f := e.gro(&g, next); f != first || g.Held() != next {
		t.Fatalf("segment 46: flushed %v, held %v: want the aggregate flushed and 46 held", f, g.Held())
	}
	e.check()
}

// A header-only head (a header-splitting driver's copy): the frags move
// to the aggregate and the emptied skb is freed (NAPI_GRO_FREE).
func TestSkbGroReceive_HeaderOnlyHeadFragsMove(t *testing.T) {
	e := newEnv(t, "6.4")
	var g GRO
	seg := func() *SKB {
		sk, err := e.s.AllocSKB(0, groHdrs, true)
		if err != nil {
			t.Fatal(err)
		}
		e.s.MarkForRecycle(0, sk, nil, nil)
		e.frag(sk, groMSS)
		return sk
	}
	p := seg()
	e.gro(&g, p)
	q := seg()
	e.gro(&g, q)
	if p.D.NrFrags != 2 || q.Live() || len(p.D.FragList) != 0 {
		t.Fatalf("aggregate frags %d, merged skb live %v, frag_list %d", p.D.NrFrags, q.Live(), len(p.D.FragList))
	}
	if p.Len != groHdrs+2*groMSS {
		t.Errorf("len %d, want %d", p.Len, groHdrs+2*groMSS)
	}
}

// skb_gro_receive refuses to splice page_pool and other memory
// (-ETOOMANYREFS, v6.2): the aggregate is flushed. In 5.15 (before the
// fix) the segment is merged.
func TestSkbGroReceive_PPRecycleMismatchFlushes(t *testing.T) {
	for _, tc := range []struct {
		era     string
		refuses bool
	}{{"6.4", true}, {"6.8", true}, {"5.15", false}} {
		e := newEnv(t, tc.era)
		var g GRO
		p := e.segment()
		e.gro(&g, p)
		other := e.segment()
		other.PPRecycle = false
		f := e.gro(&g, other)
		if tc.refuses && (f != p || g.Held() != other) {
			t.Errorf("%s: flushed %v, held %v; want the aggregate flushed", tc.era, f, g.Held())
		}
		if !tc.refuses && (f != nil || g.Held() != p || other.Live()) {
			t.Errorf("%s: flushed %v, held %v, segment live %v; want it merged", tc.era, f, g.Held(), other.Live())
		}
	}
}

// Before the v6.2 fix a page_pool segment could be merged into an
// aggregate that is not marked for recycling: its frags then go back with
// put_page, and the pool's pages leak with their DMA mappings — the bug
// "skb: Do mix page pool and page referenced frags in GRO" fixed. 6.4
// refuses the merge and nothing leaks.
func TestSkbGroReceive_MixedSpliceBefore62Leaks(t *testing.T) {
	for _, tc := range []struct {
		era   string
		leaks bool
	}{{"5.15", true}, {"6.4", false}} {
		e := newEnv(t, tc.era)
		var g GRO
		agg, err := e.s.AllocPageFragSKB(0, groFrame) // a page_frag skb of the flow, not marked
		if err != nil {
			t.Fatal(err)
		}
		e.s.Pull(agg, 14)
		e.gro(&g, agg)
		pp := e.segment() // a marked page_pool segment of the same flow
		if f := e.gro(&g, pp); f != nil {
			e.s.KfreeSKB(0, f)
		}
		if h := g.Flush(); h != nil {
			e.s.KfreeSKB(0, h)
		}
		e.check()
		leaked := e.m.Log.Counts[sim.KindInflightLeak] > 0
		if leaked != tc.leaks {
			t.Errorf("%s: inflight leaks %d, want a leak %v (%v)", tc.era, e.m.Log.Counts[sim.KindInflightLeak], tc.leaks, e.m.Log.List)
		}
	}
}

// b07a2d97ba5e (6.4): skb_release_data frees the frag_list with
// kfree_skb_list (napi_safe = false). A NAPI-safe free of an aggregate on
// the pool's NAPI CPU recycles the aggregate's own pages into the cache and
// its frag_list members' pages through the ring; from 6.6 a free in softirq
// there recycles them all directly (and outside softirq none: the put
// itself checks in_serving_softirq()).
func TestSkbReleaseData_FragListFreedNotNAPISafe(t *testing.T) {
	for _, tc := range []struct {
		name, era     string
		softirq       bool
		cached, rings uint64
	}{
		{"6.4: members through the ring", "6.4", true, 18, 2},
		{"6.8 in softirq: all direct", "6.8", true, 20, 0},
		{"6.8 outside softirq: __page_pool_put_page's in_serving_softirq() refuses the cache", "6.8", false, 0, 20},
		{"5.15: nothing direct", "5.15", true, 0, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.era)
			var g GRO
			p := e.segment()
			e.gro(&g, p)
			for i := 1; i < 20; i++ {
				e.gro(&g, e.segment())
			}
			if len(p.D.FragList) != 1 {
				t.Fatalf("frag_list %d, want 1", len(p.D.FragList))
			}
			g.Flush()
			e.m.CPUs[0].Softirq = tc.softirq
			e.m.Begin(0, sim.SymNapiConsumeSKB)
			e.s.NapiConsumeSKB(0, p, 1)
			e.check()
			st := e.p.Stats()
			if st[sim.StatRecycleCached] != tc.cached || st[sim.StatRecycleRing] != tc.rings {
				t.Errorf("cached %d ring %d, want %d and %d", st[sim.StatRecycleCached], st[sim.StatRecycleRing], tc.cached, tc.rings)
			}
			if e.s.Live() != 0 {
				t.Errorf("%d data buffers still live", e.s.Live())
			}
			e.clean()
		})
	}
}

// tcp_try_coalesce → skb_try_coalesce refuses an skb with a frag_list
// (either side): a GRO aggregate is queued on its own.
func TestSkbTryCoalesce_RefusesGROFragList(t *testing.T) {
	e := newEnv(t, "6.4")
	var g GRO
	p := e.segment()
	e.gro(&g, p)
	for i := 1; i < 20; i++ {
		e.gro(&g, e.segment())
	}
	g.Flush()
	tail := e.segment()
	res, err := e.s.SkbTryCoalesce(0, tail, p)
	if err != nil || res.OK {
		t.Fatalf("coalesced an aggregate with a frag_list: %+v %v", res, err)
	}
}
