package skb

import (
	"fmt"

	"pplab/engine/sim"
)

// GRO (net/core/gro.c) as it touches page ownership: a NAPI holds one
// aggregate skb per flow, and every further segment of the flow is merged
// into it by skb_gro_receive — its head stolen as a frag while there is room
// (MAX_SKB_FRAGS), else the whole segment chained on the aggregate's
// frag_list — until the aggregate would reach the GRO size limit; then it
// goes up the stack. The model's workloads receive one TCP flow per queue,
// so GRO holds at most one aggregate.

// GroMaxSize is gro_max_size / GRO_LEGACY_MAX_SIZE (65536): an aggregate
// never reaches it.
const GroMaxSize = 65536

// GRO is the GRO state of one NAPI for the one flow it receives
// (napi->gro_hash, NAPI_GRO_CB(p)): the aggregate p, the skb frags are added
// to (NAPI_GRO_CB(p)->last: p, or the last skb on its frag_list) and the
// segment count. The zero value holds nothing.
type GRO struct {
	p, last *SKB
	count   int
}

// Held is the flow's aggregate, or nil.
func (g *GRO) Held() *SKB { return g.p }

// Segments is NAPI_GRO_CB(p)->count: the segments merged into the aggregate.
func (g *GRO) Segments() int { return g.count }

// NapiGroReceive models napi_gro_receive(napi, skb) → dev_gro_receive →
// skb_gro_receive for a TCP segment whose headers (network and transport,
// hdrs bytes after the Ethernet header eth_type_trans pulled) GRO parsed.
// The segment is held as the aggregate (GRO_HELD) or merged into it
// (GRO_MERGED_FREE: its emptied struct is freed or chained). If the
// segment cannot join the aggregate (-E2BIG: the size limit;
// -ETOOMANYREFS: pp_recycle differs), the aggregate is completed and
// returned in flushed and the segment starts a new one. Caller: NAPI context
// on cpu.
func (s *Stack) NapiGroReceive(cpu int, g *GRO, sk *SKB, hdrs int) (flushed *SKB, err error) {
	if !sk.live {
		return nil, fmt.Errorf("napi_gro_receive: skb#%d was freed", sk.ID)
	}
	if hdrs < 0 || hdrs > sk.Headlen() {
		return nil, fmt.Errorf("napi_gro_receive: %d header bytes but skb#%d has %d linear bytes", hdrs, sk.ID, sk.Headlen())
	}
	if g.p == nil {
		g.p, g.last, g.count = sk, sk, 1
		s.ev(cpu, sim.SymGroReceive, sk, nil, sim.PlaceNone, sim.PlaceNone, 0, "the flow's first segment: GRO holds it as the aggregate (GRO_HELD)")
		return nil, nil
	}
	if err := s.skbGroReceive(cpu, g, sk, hdrs); err != nil {
		// tcp_gro_receive: the held aggregate is flushed (napi_gro_complete)
		// and this segment is held as the next one.
		flushed = g.Flush()
		g.p, g.last, g.count = sk, sk, 1
		if s.M.Tracing() {
			s.ev(cpu, sim.SymGroReceive, sk, nil, sim.PlaceNone, sim.PlaceNone, 0,
				fmt.Sprintf("%v: the aggregate skb#%d goes up the stack; this segment starts the next one", err, flushed.ID))
		}
		return flushed, nil
	}
	return nil, nil
}

// Flush models napi_gro_flush / napi_gro_complete for the flow: the
// aggregate (nil if none) leaves GRO to go up the stack.
func (g *GRO) Flush() *SKB {
	p := g.p
	g.p, g.last, g.count = nil, nil, 0
	return p
}

var (
	errGroTooBig    = fmt.Errorf("-E2BIG (the aggregate would reach gro_max_size %d)", GroMaxSize)
	errGroMixedPool = fmt.Errorf("-ETOOMANYREFS (pp_recycle differs: page_pool and other pages are never spliced)")
)

// skbGroReceive models skb_gro_receive(p, skb) (net/core/gro.c, v6.4):
//   - pp_recycle must match (-ETOOMANYREFS, from v6.2: Era.GROPPRecycleCheck;
//     before it the pages are spliced whatever their memory, and each one
//     finds its way back by its own pp_magic);
//   - p->len + len >= gro_max_size: -E2BIG;
//   - the head holds only headers (headlen <= offset): the frags move to
//     NAPI_GRO_CB(p)->last, and the emptied skb is freed (NAPI_GRO_FREE);
//   - a head_frag head: stolen as a frag of last, with the frags
//     (NAPI_GRO_FREE_STOLEN_HEAD: only the struct is freed);
//   - no room in last's frags (MAX_SKB_FRAGS): merge — the segment, pulled
//     to its payload, is chained on p's frag_list and becomes last.
func (s *Stack) skbGroReceive(cpu int, g *GRO, sk *SKB, offset int) error {
	p := g.p
	cost := s.M.Charge(cpu, sim.SymSkbGroReceive, 0)
	if p.PPRecycle != sk.PPRecycle && s.era.GROPPRecycleCheck {
		return errGroMixedPool
	}
	length := sk.Len - offset // skb_gro_len
	if p.Len+length >= GroMaxSize {
		return errGroTooBig
	}
	lp := g.last
	pd, sd := lp.D, sk.D
	headlen := sk.Headlen()
	var delta int
	switch {
	case headlen <= offset && pd.NrFrags+sd.NrFrags <= MaxSkbFrags:
		// The frags move; the first loses the header bytes past the head.
		eat := offset - headlen
		start := pd.NrFrags
		copy(pd.Frags[start:], sd.Frags[:sd.NrFrags])
		pd.NrFrags += sd.NrFrags
		pd.Frags[start].Off += eat
		pd.Frags[start].Size -= eat
		for i := start; i < pd.NrFrags; i++ {
			pd.Frags[i].Page.MoveTo(s.M, lp.Where.place(), lp.ID)
		}
		sd.NrFrags = 0
		sk.Len -= sk.DataLen
		sk.DataLen = 0
		newTruesize := s.SkbTruesize(sd.HeadSize - s.shinfo)
		delta = sk.Truesize - newTruesize
		sk.Truesize = newTruesize
		if s.M.Tracing() {
			s.ev(cpu, sim.SymSkbGroReceive, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
				fmt.Sprintf("merged into skb#%d: the frags move, the header-only skb is freed (NAPI_GRO_FREE)", lp.ID))
		}
		s.grow(g, lp, length, delta)
		s.napiKfreeSKB(cpu, sk)
		return nil
	case headlen > offset && sk.HeadFrag && pd.NrFrags+1+sd.NrFrags <= MaxSkbFrags:
		hp := sd.HeadPage
		f := Frag{Page: hp, Off: sd.HeadOff + sk.Headroom + offset, Size: headlen - offset}
		pd.Frags[pd.NrFrags] = f
		copy(pd.Frags[pd.NrFrags+1:], sd.Frags[:sd.NrFrags])
		start := pd.NrFrags
		pd.NrFrags += 1 + sd.NrFrags
		for i := start; i < pd.NrFrags; i++ {
			pd.Frags[i].Page.MoveTo(s.M, lp.Where.place(), lp.ID)
		}
		sd.HeadPage, sd.NrFrags = nil, 0
		delta = sk.Truesize - SkbStructSize
		if s.M.Tracing() {
			s.ev(cpu, sim.SymSkbGroReceive, sk, hp, sim.PlaceSKB, lp.Where.place(), cost,
				fmt.Sprintf("merged into skb#%d: the head is stolen as a frag, the struct is freed (NAPI_GRO_FREE_STOLEN_HEAD)", lp.ID))
		}
		s.grow(g, lp, length, delta)
		s.napiSkbFreeStolenHead(cpu, sk)
		return nil
	}
	// merge: chain the segment on p's frag_list.
	delta = sk.Truesize
	if offset > headlen { // the headers run into the first frag
		eat := offset - headlen
		sd.Frags[0].Off += eat
		sd.Frags[0].Size -= eat
		sk.DataLen -= eat
		sk.Len -= eat
		offset = headlen
	}
	s.Pull(sk, offset)
	if p.D.FragList == nil && len(s.lists) > 0 {
		p.D.FragList, s.lists = s.lists[len(s.lists)-1], s.lists[:len(s.lists)-1]
	}
	p.D.FragList = append(p.D.FragList, sk)
	sk.FragListOf = p.ID
	g.last = sk
	if !SkbCloned(sk) {
		_ = s.SkbHeaderRelease(sk) // __skb_header_release
	}
	if s.M.Tracing() {
		s.ev(cpu, sim.SymSkbGroReceive, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			fmt.Sprintf("no room for more frags (MAX_SKB_FRAGS): chained on skb#%d's frag_list", p.ID))
	}
	s.grow(g, p, length, delta)
	return nil
}

// grow is skb_gro_receive's done: label: p (and lp, when frags went to a
// frag_list member) grow by the segment.
func (s *Stack) grow(g *GRO, lp *SKB, length, delta int) {
	p := g.p
	g.count++
	p.Len += length
	p.DataLen += length
	p.Truesize += delta
	if lp != p {
		lp.Len += length
		lp.DataLen += length
		lp.Truesize += delta
	}
}

// napiSkbFreeStolenHead models napi_skb_free_stolen_head: the skb's head
// and frags now belong to the aggregate; only the struct goes, into the
// per-CPU NAPI skb cache.
func (s *Stack) napiSkbFreeStolenHead(cpu int, sk *SKB) {
	s.leaveStolenData(cpu, sk) // skb_dst_drop, skb_ext_put
	s.napiSkbCachePut(cpu, sk)
}

// napiKfreeSKB models __napi_kfree_skb(skb, SKB_CONSUMED) in napi_skb_finish:
// skb_release_all(skb, reason, true) and napi_skb_cache_put.
func (s *Stack) napiKfreeSKB(cpu int, sk *SKB) {
	s.releaseAll(cpu, sk, true)
	s.napiSkbCachePut(cpu, sk)
}
