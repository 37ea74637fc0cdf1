package skb

import (
	"errors"
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// Generic (skb-mode) XDP: an XDP program on a driver without native XDP
// runs on the skb in __netif_receive_skb_core (do_xdp_generic), and the skb
// must first look like an XDP buffer: not cloned, linear (or, from 6.9 for a
// frags-aware program, copied into page_pool pages) and with
// XDP_PACKET_HEADROOM in front of it.

// XDPPacketHeadroom is XDP_PACKET_HEADROOM.
const XDPPacketHeadroom = 256

// GenericXDPOutcome says which way netif_receive_generic_xdp prepared the
// skb for the program.
type GenericXDPOutcome uint8

const (
	GenericXDPAsIs      GenericXDPOutcome = iota // already an XDP-able skb: nothing copied
	GenericXDPPPCow                              // skb_pp_cow_data: copied into the system page_pool (6.9)
	GenericXDPLinearize                          // pskb_expand_head + skb_linearize, no page_pool
	GenericXDPDropped                            // the preparation failed: kfree_skb (do_drop)
)

func (o GenericXDPOutcome) String() string {
	return [...]string{"as-is", "pp-cow", "linearize", "dropped"}[o]
}

// NetifReceiveGenericXDP models netif_receive_generic_xdp(pskb, xdp, prog)
// for a program that returns XDP_PASS, up to the program run
// (bpf_prog_run_generic_xdp). It returns the skb the stack goes on with —
// the original, or the copy that replaced it — or nil when the skb was
// dropped (and freed). hasFrags is prog->aux->xdp_has_frags.
//
// Per era (e6d5dbdd20aa "xdp: add multi-buff support for xdp running in
// generic mode", v6.9, with 4d2bb0bfe874's skb pointer reference):
// a cloned, non-linear or headroom-short skb goes through
// netif_skb_check_for_xdp, which first tries skb_cow_data_for_xdp with this
// CPU's system page_pool and, when that fails (no frags support, a
// frag_list, too long, no memory), does what every era before 6.9 does:
// pskb_expand_head for the missing headroom (ALIGN(hroom, NET_SKB_PAD)) and
// the tail, then skb_linearize; a failure there drops the skb. The mac
// header push and pull around it cancel out: the model's skb stands at its
// mac header here.
func (s *Stack) NetifReceiveGenericXDP(cpu int, sk *SKB, hasFrags bool) (*SKB, GenericXDPOutcome) {
	cost := s.M.Charge(cpu, sim.SymGenericXDP, 0)
	if !(SkbCloned(sk) || sk.DataLen != 0 || sk.Headroom < XDPPacketHeadroom) {
		s.ev(cpu, sim.SymGenericXDP, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			"the skb is not cloned, linear and has XDP_PACKET_HEADROOM (256 bytes) in front: the program runs on it as it is")
		s.M.Charge(cpu, sim.SymXDPRun, 0)
		return sk, GenericXDPAsIs
	}
	if s.M.Tracing() {
		s.ev(cpu, sim.SymGenericXDP, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			fmt.Sprintf("the skb is %s: it must be made XDP-able before the program runs (netif_skb_check_for_xdp)", genericXDPWhy(sk)))
	}
	if s.era.SystemPool {
		var pool *pagepool.Pool
		if hasFrags {
			pool = s.Reg.SystemPool(cpu) // this_cpu_read(system_page_pool): the model creates the pools on first use
		}
		if nskb, err := s.SkbCowDataForXDP(cpu, pool, sk, hasFrags); err == nil {
			s.M.Charge(cpu, sim.SymXDPRun, 0)
			return nskb, GenericXDPPPCow
		}
	}
	if err := s.pskbExpandForXDP(cpu, sk); err != nil {
		if s.M.Tracing() {
			s.ev(cpu, sim.SymGenericXDP, sk, nil, sim.PlaceNone, sim.PlaceNone, 0, fmt.Sprintf("%v: do_drop, kfree_skb", err))
		}
		s.KfreeSKB(cpu, sk)
		return nil, GenericXDPDropped
	}
	s.M.Charge(cpu, sim.SymXDPRun, 0)
	return sk, GenericXDPLinearize
}

func genericXDPWhy(sk *SKB) string {
	switch {
	case SkbCloned(sk):
		return "cloned"
	case sk.DataLen != 0:
		return fmt.Sprintf("non-linear (%d bytes in %d frags)", sk.DataLen, sk.D.NrFrags)
	}
	return fmt.Sprintf("short of headroom (%d bytes, XDP_PACKET_HEADROOM is 256)", sk.Headroom)
}

// SkbCowDataForXDP models skb_cow_data_for_xdp(pool, pskb, prog)
// (e6d5dbdd20aa, v6.9): -EINVAL unless the program was loaded with frags
// support (prog->aux->xdp_has_frags), else skb_pp_cow_data with
// XDP_PACKET_HEADROOM.
func (s *Stack) SkbCowDataForXDP(cpu int, pool *pagepool.Pool, sk *SKB, hasFrags bool) (*SKB, error) {
	if !hasFrags {
		s.ev(cpu, sim.SymGenericXDP, sk, nil, sim.PlaceNone, sim.PlaceNone, 0,
			"skb_cow_data_for_xdp: -EINVAL, the program was not loaded with frags support (xdp_has_frags): the old path, pskb_expand_head + skb_linearize, without page_pool")
		return nil, ErrNoXDPFrags
	}
	return s.SkbPPCowData(cpu, pool, sk, XDPPacketHeadroom)
}

// The errors of skb_cow_data_for_xdp and skb_pp_cow_data, as values: the
// caller falls back on pskb_expand_head for any of them, once per packet
// for a frags-unaware program, so they are not built per call.
var (
	ErrNoXDPFrags  = errors.New("skb_cow_data_for_xdp: -EINVAL (no xdp_has_frags)")
	ErrCowFragList = errors.New("skb_pp_cow_data: -EOPNOTSUPP (frag_list)")
	ErrCowTooLong  = errors.New("skb_pp_cow_data: -ENOMEM (longer than a head and MAX_SKB_FRAGS pages)")
	ErrCowNoMem    = errors.New("skb_pp_cow_data: -ENOMEM (page_pool_dev_alloc failed)")
)

// SkbPPCowData models skb_pp_cow_data(pool, pskb, headroom) (e6d5dbdd20aa,
// v6.9; veth uses it with its own pool, 27accb3cc08a): copy the skb into
// page_pool memory. The head: truesize = SKB_HEAD_ALIGN(size) + headroom
// from page_pool_dev_alloc_va (a fragment when at most half a page),
// napi_build_skb, skb_reserve(headroom), skb_copy_header,
// skb_mark_for_recycle, then the first size bytes; the rest in frags of at
// most a page from page_pool_dev_alloc (skb_add_rx_frag). At the end
// consume_skb of the original, whose buffers go back wherever they came
// from. -EOPNOTSUPP for an skb with a frag_list, -ENOMEM when it is longer
// than max_head_size + MAX_SKB_FRAGS pages or an allocation fails (the copy
// is freed and the original kept).
func (s *Stack) SkbPPCowData(cpu int, pool *pagepool.Pool, sk *SKB, headroom int) (*SKB, error) {
	cost := s.M.Charge(cpu, sim.SymSkbPPCowData, 0)
	if len(sk.D.FragList) > 0 {
		return nil, ErrCowFragList
	}
	maxHead := mm.PageSize - headroom - s.shinfo // SKB_WITH_OVERHEAD(PAGE_SIZE - headroom)
	if sk.Len > maxHead+MaxSkbFrags*mm.PageSize {
		return nil, ErrCowTooLong
	}
	size := min(sk.Len, maxHead)
	truesize := s.skbDataAlign(size) + s.shinfo + headroom // SKB_HEAD_ALIGN(size) + headroom
	pg, off, truesize := pool.Alloc(cpu, truesize)         // page_pool_dev_alloc_va
	if pg == nil {
		return nil, ErrCowNoMem
	}
	nskb, err := s.buildSKB(cpu, pg, off, truesize, 0, true, sim.SymNapiBuildSKB) // napi_build_skb(data, truesize)
	if err != nil {
		panic(fmt.Sprintf("skb: skb_pp_cow_data: %v (truesize %d for %d bytes)", err, truesize, size))
	}
	nskb.Headroom = headroom // skb_reserve(nskb, headroom) from the buffer's start
	nskb.Len = size          // skb_put
	_ = s.MarkForRecycle(cpu, nskb, pg, pool)
	cost += s.M.Charge(cpu, sim.SymMemcpy, size) // skb_copy_bits
	if s.M.Tracing() {
		s.ev(cpu, sim.SymSkbPPCowData, nskb, pg, sim.PlaceSKB, sim.PlaceSKB, cost,
			fmt.Sprintf("copies the first %d bytes into a %d-byte head from page_pool %d (this CPU's system page_pool for generic XDP; page_pool_dev_alloc_va: %s), napi_build_skb, skb_mark_for_recycle", size, truesize, pool.ID, allocWhat(truesize)))
	}
	for rest := sk.Len - size; rest > 0; {
		n := min(rest, mm.PageSize)
		fpg, foff, ftrue := pool.Alloc(cpu, n) // page_pool_dev_alloc
		if fpg == nil {
			s.KfreeSKB(cpu, nskb)
			return nil, ErrCowNoMem
		}
		if err := s.AddRxFrag(cpu, nskb, fpg, foff, n, ftrue); err != nil {
			panic(fmt.Sprintf("skb: skb_pp_cow_data: %v", err)) // the length test above bounds the frags
		}
		s.M.Charge(cpu, sim.SymMemcpy, n)
		rest -= n
	}
	s.ev(cpu, sim.SymSkbPPCowData, sk, nil, sim.PlaceNone, sim.PlaceNone, 0,
		"consume_skb of the original: its buffers go back where they came from (page_pool pages to their pool, a kmalloc'ed head to its slab)")
	s.KfreeSKB(cpu, sk) // consume_skb: not NAPI-safe
	return nskb, nil
}

func allocWhat(truesize int) string {
	if truesize == mm.PageSize {
		return "more than half a page, so a whole page"
	}
	return "at most half a page, so a fragment of the pool's frag page"
}

// pskbExpandForXDP is generic XDP's old path (netif_receive_generic_xdp
// before 6.9; netif_skb_check_for_xdp's fallback from 6.9):
// pskb_expand_head(skb, hroom > 0 ? ALIGN(hroom, NET_SKB_PAD) : 0,
// troom > 0 ? troom + 128 : 0), then skb_linearize. The call is
// unconditional: with no headroom and no tailroom missing (a non-linear
// skb whose head can take its paged bytes) it is pskb_expand_head(skb, 0,
// 0), which still allocates a new head and copies the old one into it
// (e6d5dbdd20aa's netif_skb_check_for_xdp and the pre-6.9 block it
// replaced, both read in its diff).
func (s *Stack) pskbExpandForXDP(cpu int, sk *SKB) error {
	hroom := XDPPacketHeadroom - sk.Headroom
	if hroom > 0 {
		hroom = (hroom + NetSkbPad - 1) &^ (NetSkbPad - 1)
	} else {
		hroom = 0
	}
	room := sk.D.HeadSize - s.shinfo - sk.Headroom - sk.Headlen()
	troom := sk.DataLen - room // skb->tail + skb->data_len - skb->end
	// The model sizes the new kmalloc'ed head from what it holds
	// (headroom + linear bytes + extra), not from the old head's end as
	// the kernel does (skb_end_offset + nhead + ntail: a head over a whole
	// page would need kmalloc-8k, which the model's two head caches lack):
	// the extra is the headroom added, the paged bytes skb_linearize will
	// copy, and the 128 bytes pskb_expand_head adds to a short tail.
	extra := hroom + sk.DataLen
	if troom > 0 {
		extra += 128
	}
	if err := s.PskbExpandHead(cpu, sk, extra); err != nil {
		return err
	}
	sk.Headroom += hroom
	return s.SkbLinearize(cpu, sk)
}

// SkbLinearize models skb_linearize → __pskb_pull_tail(skb, skb->data_len):
// every frag's bytes are copied into the head, and each frag is unref'd
// with the skb's pp_recycle (skb_frag_unref: a page_pool page goes back to
// its pool, not NAPI-safe). The head must already have the tailroom (the
// caller's pskb_expand_head); otherwise it is an error.
func (s *Stack) SkbLinearize(cpu int, sk *SKB) error {
	if sk.DataLen == 0 {
		return nil
	}
	if len(sk.D.FragList) > 0 {
		return fmt.Errorf("skb_linearize: skb#%d has a frag_list (not modelled)", sk.ID)
	}
	if room := sk.D.HeadSize - s.shinfo - sk.Headroom - sk.Headlen(); room < sk.DataLen {
		return fmt.Errorf("skb_linearize: %d paged bytes do not fit skb#%d's tailroom of %d", sk.DataLen, sk.ID, room)
	}
	if SkbCloned(sk) {
		return fmt.Errorf("skb_linearize: skb#%d is cloned (pskb_expand_head first)", sk.ID)
	}
	cost := s.M.Charge(cpu, sim.SymMemcpy, sk.DataLen)
	if s.M.Tracing() {
		s.ev(cpu, sim.SymGenericXDP, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			fmt.Sprintf("skb_linearize: %d bytes of %d frags copied into the kmalloc'ed head; each frag is unref'd with the skb's pp_recycle", sk.DataLen, sk.D.NrFrags))
	}
	d := sk.D
	for i := 0; i < d.NrFrags; i++ {
		s.fragUnref(cpu, &d.Frags[i], sk.PPRecycle, false, true)
		d.Frags[i] = Frag{}
	}
	d.NrFrags = 0
	sk.DataLen = 0
	return nil
}
