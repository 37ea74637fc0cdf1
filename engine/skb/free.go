package skb

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// KfreeSKB models kfree_skb (a drop) / consume_skb (a normal free; the model
// does not tell them apart): not NAPI-safe, so page_pool pages go back
// through the ptr_ring.
func (s *Stack) KfreeSKB(cpu int, sk *SKB) { s.kfreeSKB(cpu, sk, whyKfree) }

// passesNapiSafe: the era's skb free functions pass napi_safe down to the
// page_pool return (skb_release_all → skb_release_data → napi_frag_unref /
// skb_free_head → napi_pp_put_page): from v6.4 (b07a2d97ba5e "net: skb:
// plumb napi state thru skb freeing paths" and 8c48eea3adf3) until
// 4a96a4e807c3 removed the argument everywhere in v6.10 (the pool decides,
// page_pool_napi_local). Outside those eras the narration does not name it.
func passesNapiSafe(e *sim.Era) bool { return e.NAPIDirect && !e.PoolNapiLocal }

// freeWhy is the narration of a plain kfree_skb by its caller, worded per
// era only when an event is built (an untraced free reads no era flag for it).
type freeWhy uint8

const (
	whyKfree    freeWhy = iota // KfreeSKB
	whyDevKfree                // DevKfreeSkbAny
	whyFragList                // a frag_list member (kfreeSkbList)
)

func (w freeWhy) text(e *sim.Era) string {
	napiSafe := passesNapiSafe(e)
	switch {
	case w == whyDevKfree && napiSafe:
		return "dev_kfree_skb_any outside hard IRQ: a plain kfree_skb (napi_safe = false; the struct to its kmem_cache, not the NAPI skb cache)"
	case w == whyDevKfree:
		return "dev_kfree_skb_any outside hard IRQ: a plain kfree_skb (the struct to its kmem_cache, not the NAPI skb cache)"
	case w == whyFragList && napiSafe:
		return "a frag_list member is freed with its GRO skb (kfree_skb_list: napi_safe = false)"
	case w == whyFragList:
		return "a frag_list member is freed with its GRO skb (kfree_skb_list)"
	case napiSafe:
		return "frees the skb (a plain kfree_skb: not a NAPI-safe free, napi_safe = false)"
	}
	return "frees the skb (a plain kfree_skb)"
}

func (s *Stack) kfreeSKB(cpu int, sk *SKB, why freeWhy) {
	if !sk.live {
		s.freedTwice(sk, sim.SymKfreeSKB)
		return
	}
	cost := s.M.Charge(cpu, sim.SymKfreeSKB, 0)
	if s.M.Tracing() {
		s.evSlow(cpu, sim.SymKfreeSKB, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, why.text(s.era))
	}
	s.releaseAll(cpu, sk, false)
	s.kfreeSkbmem(cpu, sk)
}

// DevKfreeSkbAny models dev_kfree_skb_any (net/core/dev.c
// __dev_kfree_skb_any): in hard IRQ or with interrupts off it defers the
// free to the TX softirq (dev_kfree_skb_irq); otherwise, as in a driver's
// TX completion inside its NAPI poll, it is a plain kfree_skb. So the free
// is not NAPI-safe (napi_safe = false: from 6.6 a pool page may still go
// to the alloc cache, by the in_softirq() arm of napi_pp_put_page, if the
// pool has a NAPI on this CPU) and the struct goes back to
// skbuff_head_cache, not to the NAPI skb cache as napi_consume_skb's does.
// The model's callers run in softirq, so the hard-IRQ arm is not modelled.
func (s *Stack) DevKfreeSkbAny(cpu int, sk *SKB) { s.kfreeSKB(cpu, sk, whyDevKfree) }

// NapiConsumeSKB models napi_consume_skb(skb, budget): budget 0 means the
// caller is not in NAPI context (netpoll) and it is a plain consume; otherwise
// the free is NAPI-safe (page_pool pages may go straight into the alloc cache
// from 6.4 when this is the pool's NAPI CPU) and the struct goes to the per-CPU
// NAPI skb cache. From 6.19 an skb allocated on another CPU is deferred to
// that CPU instead (Era.ConsumeAlienDefers; the model has no shared skbs).
func (s *Stack) NapiConsumeSKB(cpu int, sk *SKB, budget int) {
	if budget == 0 {
		s.KfreeSKB(cpu, sk) // dev_consume_skb_any
		return
	}
	if !s.alive(cpu, sk, sim.SymNapiConsumeSKB) {
		return
	}
	cost := s.M.Charge(cpu, sim.SymNapiConsumeSKB, 0)
	if s.era.ConsumeAlienDefers && sk.AllocCPU >= 0 && sk.AllocCPU != cpu {
		// e20dfbad8aab (6.19): an skb another CPU allocated goes back to
		// it, its head state released here (1fcf572211da lets the owner's
		// free release it again, a no-op).
		if s.M.Tracing() {
			s.ev(cpu, sim.SymNapiConsumeSKB, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
				fmt.Sprintf("allocated on cpu%d: skb_release_head_state, then skb_attempt_defer_free hands it back to cpu%d", sk.AllocCPU, sk.AllocCPU))
		}
		s.M.Charge(cpu, sim.SymReleaseHeadState, 0)
		s.SkbAttemptDeferFree(cpu, sk)
		return
	}
	why := "frees the skb in NAPI context (the struct goes to the per-CPU NAPI skb cache)"
	if passesNapiSafe(s.era) {
		why = "frees the skb in NAPI context (napi_safe)"
	}
	s.ev(cpu, sim.SymNapiConsumeSKB, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, why)
	s.releaseAll(cpu, sk, true)
	s.napiSkbCachePut(cpu, sk)
}

// alive guards every free: freeing an skb twice is reported, never done.
func (s *Stack) alive(cpu int, sk *SKB, fn sim.Sym) bool {
	if sk.live {
		return true
	}
	s.freedTwice(sk, fn)
	return false
}

// freedTwice reports a free of an skb that is no longer live (alive's
// report, out of line so the guard inlines).
func (s *Stack) freedTwice(sk *SKB, fn sim.Sym) {
	s.M.Report(sim.KindRefcountUnderflow, -1, s.M.RuleFor(sim.KindRefcountUnderflow), "skb#%d freed twice (%s)", sk.ID, fn.Name())
}

// releaseAll models skb_release_all: skb_release_head_state (dst, destructor,
// conntrack) then skb_release_data.
func (s *Stack) releaseAll(cpu int, sk *SKB, napiSafe bool) {
	s.M.Charge(cpu, sim.SymReleaseHeadState, 0)
	s.ReleaseData(cpu, sk, napiSafe)
}

// ReleaseData models skb_release_data(skb[, napi_safe]): drop this skb's
// dataref; only the skb that drops the LAST one unrefs the frags (with its
// pp_recycle bit) and frees the head. From 5.14-rc2 the exit path clears
// skb->pp_recycle (2cc3aeb5eccc) so that an skb that keeps living after
// dropping a non-final dataref (pskb_expand_head) is no longer responsible
// for recycling. Breaking last-dataref makes every clone release the data.
func (s *Stack) ReleaseData(cpu int, sk *SKB, napiSafe bool) {
	d := sk.D
	cost := s.M.Charge(cpu, sim.SymReleaseData, 0)
	d.users--
	if d.released { // a zombie (last-dataref broken): release what it points at again
		s.ev(cpu, sim.SymReleaseData, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			"the shared data was already released by a clone (last-dataref broken): its frags and head are released again")
		s.releaseFragsAndHead(cpu, sk, napiSafe, false)
		return
	}
	if sk.Cloned {
		sub := int32(1)
		if sk.Nohdr {
			sub += 1 << SkbDatarefShift
		}
		d.Dataref -= sub
		if d.Dataref&SkbDatarefMask != 0 && !s.M.Broken(sim.RuleLastDataref) {
			s.ev(cpu, sim.SymReleaseData, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
				"not the last reference to the shared data (dataref > 0): frags and head stay with the clone")
			s.exitReleaseData(sk)
			return
		}
	}
	s.ev(cpu, sim.SymReleaseData, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
		"last reference to the data: unref every frag and free the head")
	// skb_zcopy_clear: zerocopy completion, not modelled beyond the flag.
	s.releaseFragsAndHead(cpu, sk, napiSafe, true)
}

// releaseFragsAndHead is the body of skb_release_data once this skb is
// responsible: every frag unref'd with its pp_recycle bit, then the head.
// user=false for a bogus second release (the data holds no use any more).
func (s *Stack) releaseFragsAndHead(cpu int, sk *SKB, napiSafe, user bool) {
	d := sk.D
	for i := 0; i < d.NrFrags; i++ {
		s.fragUnref(cpu, &d.Frags[i], sk.PPRecycle, napiSafe, user)
	}
	if len(d.FragList) > 0 {
		s.kfreeSkbList(cpu, d.FragList)
		if user {
			clear(d.FragList)
			s.lists = append(s.lists, d.FragList[:0])
			d.FragList = nil
		}
	}
	s.freeHead(cpu, sk, napiSafe, user)
	s.releaseData(d)
	s.exitReleaseData(sk)
}

func (s *Stack) exitReleaseData(sk *SKB) {
	if s.era.ReleaseDataClearsPPRecycle {
		sk.PPRecycle = false
	}
}

// freeHead models skb_free_head: a head_frag head may go back to its
// page_pool when pp_recycle is set (skb_pp_recycle); otherwise it is
// skb_free_frag (put_page) or kfree. user: the data really held this use of
// the page (false for a second, bogus release of the same data).
func (s *Stack) freeHead(cpu int, sk *SKB, napiSafe, user bool) {
	d := sk.D
	cost := s.M.Charge(cpu, sim.SymFreeHead, 0)
	if !sk.HeadFrag && sk.PPRecycle && s.era.SkbRecycle == sim.SkbRecycleRFC && d.HeadObj.Valid() {
		// RFC v1 tests pp_recycle before head_frag (Dumazet's review of v5
		// moved it under head_frag): a kmalloc'ed head of a marked skb —
		// pskb_expand_head keeps pp_recycle there — is offered to the pool
		// first. Its slab page fails the signature check (unless that rule
		// is broken), and the head is kfree'd.
		if s.ppRecycle(cpu, d.HeadObj.Page, napiSafe) {
			return
		}
	}
	if !sk.HeadFrag {
		s.kfreeHead(cpu, d)
		s.ev(cpu, sim.SymFreeHead, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, "kfree of a kmalloc'ed head")
		return
	}
	pg := d.HeadPage
	if pg == nil { // stolen by skb_try_coalesce: it belongs to another skb now
		return
	}
	if user {
		pg.Users--
	}
	if sk.PPRecycle && s.ppRecycle(cpu, pg, napiSafe) {
		return
	}
	cost += s.M.Charge(cpu, sim.SymPageFragFree, 0)
	s.ev(cpu, sim.SymFreeHead, sk, pg, pg.Place, pg.Place, cost, "skb_free_frag → page_frag_free: the head page is put_page'd")
	s.A.PutPage(cpu, pg)
}

// ppRecycle models skb_pp_recycle / napi_pp_put_page: offer the page to its
// page_pool (page_pool_return_skb_page). False if it is not a pool page.
func (s *Stack) ppRecycle(cpu int, pg *mm.Page, napiSafe bool) bool {
	if s.era.SkbRecycle == sim.SkbRecycleNone {
		return false
	}
	return s.Reg.ReturnSkbPage(cpu, pg, napiSafe)
}

// FragUnref models __skb_frag_unref(frag, recycle): with recycle (the skb's
// pp_recycle) the page is offered to its page_pool first, else put_page.
// Callers that must never recycle (sky2, mlx4, kTLS records) pass false.
// From v6.4 to v6.9 the unref is napi_frag_unref(frag, recycle, napi_safe)
// (skb_release_data's call; __skb_frag_unref wraps it with false), which
// names it there (sim Era.Names); v6.10 has __skb_frag_unref again, in
// include/linux/skbuff_ref.h.
func (s *Stack) FragUnref(cpu int, f *Frag, recycle, napiSafe bool) {
	s.fragUnref(cpu, f, recycle, napiSafe, true)
}

func (s *Stack) fragUnref(cpu int, f *Frag, recycle, napiSafe, user bool) {
	cost := s.M.Charge(cpu, sim.SymFragUnref, 0)
	if user {
		f.Page.Users--
	}
	if recycle && s.ppRecycle(cpu, f.Page, napiSafe) {
		return
	}
	s.ev(cpu, sim.SymFragUnref, nil, f.Page, f.Page.Place, f.Page.Place, cost, "put_page of a frag (not recycled)")
	s.A.PutPage(cpu, f.Page)
}

// kfreeSkbList models kfree_skb_list_reason(shinfo->frag_list) in
// skb_release_data: every chained skb is released with skb_release_all(…,
// napi_safe = false) (b07a2d97ba5e, v6.4: only the skb napi_consume_skb was
// called for is known to be NAPI-safe) and its struct freed in bulk. So a
// GRO skb's frag_list pages go through the ptr_ring even when the skb itself
// is freed NAPI-safe — unless the v6.6 softirq rule recycles them directly.
func (s *Stack) kfreeSkbList(cpu int, list []*SKB) {
	for _, m := range list {
		s.kfreeSKB(cpu, m, whyFragList)
	}
}

// kfreeSkbmem frees the struct sk_buff itself (kmem_cache_free).
func (s *Stack) kfreeSkbmem(cpu int, sk *SKB) {
	s.M.Charge(cpu, sim.SymKfreeSkbmem, 0)
	s.dropStruct(sk)
}

// napiSkbCachePut models napi_skb_cache_put: the struct goes to the per-CPU
// cache; when it is full, half of it is freed with kmem_cache_free_bulk.
func (s *Stack) napiSkbCachePut(cpu int, sk *SKB) {
	n := 0
	s.napi[cpu]++
	if s.napi[cpu] == NapiSkbCacheSize {
		n = NapiSkbCacheHalf
		s.napi[cpu] -= NapiSkbCacheHalf
	}
	s.M.Charge(cpu, sim.SymNapiSkbCachePut, n)
	s.dropStruct(sk)
}

func (s *Stack) dropStruct(sk *SKB) {
	sk.live = false
	last := s.skbs[len(s.skbs)-1]
	s.skbs[sk.liveIdx] = last
	last.liveIdx = sk.liveIdx
	s.skbs = s.skbs[:len(s.skbs)-1]
	sk.liveIdx = -1
	s.Freed++
	s.skbQ.put(sk)
}

// KfreeSkbPartial models kfree_skb_partial(skb, head_stolen): after
// skb_try_coalesce, free what is left of from. With the head stolen only the
// struct goes (skb_release_head_state + kmem_cache_free): the head now belongs
// to the other skb; otherwise a full __kfree_skb.
func (s *Stack) KfreeSkbPartial(cpu int, sk *SKB, headStolen bool) {
	if !s.alive(cpu, sk, sim.SymKfreeSkbPartial) {
		return
	}
	cost := s.M.Charge(cpu, sim.SymKfreeSkbPartial, 0)
	if !headStolen {
		s.ev(cpu, sim.SymKfreeSkbPartial, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, "head not stolen: a full free of what is left")
		s.releaseAll(cpu, sk, false)
		s.kfreeSkbmem(cpu, sk)
		return
	}
	s.ev(cpu, sim.SymKfreeSkbPartial, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, "head stolen: only the struct sk_buff is freed")
	s.leaveStolenData(cpu, sk)
	s.kfreeSkbmem(cpu, sk)
}

// leaveStolenData: sk's head and frags now belong to another skb (coalesced
// or merged by GRO): skb_release_head_state, and sk lets go of its data
// without releasing what it held.
func (s *Stack) leaveStolenData(cpu int, sk *SKB) {
	s.M.Charge(cpu, sim.SymReleaseHeadState, 0)
	sk.D.users--
	s.releaseData(sk.D)
}
