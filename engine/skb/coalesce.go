package skb

import (
	"fmt"

	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// CoalesceResult says what skb_try_coalesce did.
type CoalesceResult struct {
	OK         bool
	HeadStolen bool // from's head became a frag of to: free from with KfreeSkbPartial(from, true)
	Delta      int  // truesize moved to `to`
	Why        string
}

// ppRefused applies the era's page_pool test of skb_try_coalesce
// (net/core/skbuff.c):
//   - v5.14 (6a5bcd84e886) and v6.8 (f7dc3248dcfb, which takes pp refs from a
//     cloned source instead): to->pp_recycle != from->pp_recycle;
//   - 2022 (1effe8ca4e34 "skbuff: fix coalescing for page_pool fragment
//     recycling", in 5.15.y): to->pp_recycle != (from->pp_recycle && !skb_cloned(from));
//   - 2023 (0646dc31ca88 "skbuff: Fix a race between coalescing and
//     releasing SKBs", v6.3; the eras from 6.4): also refuses
//     from->pp_recycle && skb_cloned(from).
//
// Breaking coalesce-pp-guard drops the whole test; breaking
// coalesce-cloned-guard drops every clone rule of the function (the plain
// pp test remains): a cloned `to` is accepted, a cloned page_pool `from` too,
// and `to` takes a cloned from's frags without references of its own.
func (s *Stack) ppRefused(to, from *SKB) (bool, string) {
	m := s.M
	if to.PPRecycle != from.PPRecycle {
		m.Decide(sim.RuleCoalescePPGuard) // the kinds differ: the guard decides
	}
	if m.Rules.Broken(sim.RuleCoalescePPGuard) {
		return false, ""
	}
	mixed := "`to` and `from` differ in pp_recycle: mixing page_pool and non-page_pool memory would hand a non-pool page to the pool (or lose a pool page to put_page)"
	form := m.Era.Coalesce
	if (form == Coalesce2022 || form == Coalesce2023) && SkbCloned(from) {
		m.Decide(sim.RuleCoalesceClonedGuard) // a cloned source: the clone rules decide
	}
	if m.Rules.Broken(sim.RuleCoalesceClonedGuard) && (form == Coalesce2022 || form == Coalesce2023) {
		form = CoalescePlain
	}
	switch form {
	case Coalesce2022:
		if to.PPRecycle != (from.PPRecycle && !SkbCloned(from)) {
			if from.PPRecycle && SkbCloned(from) {
				return true, "`from` is a cloned page_pool skb: its pages' pp_frag_count would be dropped twice"
			}
			return true, mixed
		}
	case Coalesce2023:
		if to.PPRecycle != from.PPRecycle {
			return true, mixed
		}
		if from.PPRecycle && SkbCloned(from) {
			return true, "`from` is a cloned page_pool skb: the clone still uses its pages"
		}
	default:
		if to.PPRecycle != from.PPRecycle {
			return true, mixed
		}
	}
	return false, ""
}

// Aliases so this file reads like the kernel's history.
const (
	CoalescePlain       = sim.CoalescePlain
	Coalesce2022        = sim.Coalesce2022
	Coalesce2023        = sim.Coalesce2023
	CoalescePlainPPRefs = sim.CoalescePlainPPRefs
)

// SkbTryCoalesce models skb_try_coalesce(to, from, &fragstolen, &delta): append
// from's data to `to` (a socket receive queue's tail) if the rules allow.
//   - refused if `to` is cloned, or by the era's page_pool test (ppRefused);
//   - bytes that fit `to`'s tailroom are copied;
//   - refused if either has a frag_list or is zerocopy;
//   - with linear data in from, its head is stolen as a frag of `to` when from's
//     head is a page fragment, not locked (cloned) and the frags fit;
//   - the frags are copied: ownership moves when from is not cloned; from a
//     clone `to` takes extra references — page references, or from v6.8 pp
//     references for page_pool pages (skb_pp_frag_ref).
//
// On success the caller frees from with KfreeSkbPartial(from, res.HeadStolen).
func (s *Stack) SkbTryCoalesce(cpu int, to, from *SKB) (CoalesceResult, error) {
	if !to.live || !from.live {
		return CoalesceResult{}, fmt.Errorf("skb_try_coalesce: skb#%d or skb#%d was freed", to.ID, from.ID)
	}
	cost := s.M.Charge(cpu, sim.SymSkbTryCoalesce, 0)
	refuse := func(why string) (CoalesceResult, error) {
		s.CoalesceRefused++
		if s.M.Tracing() {
			s.ev(cpu, sim.SymSkbTryCoalesce, to, nil, sim.PlaceNone, sim.PlaceNone, cost, fmt.Sprintf("refused to take skb#%d — %s", from.ID, why))
		}
		return CoalesceResult{Why: why}, nil
	}
	if SkbCloned(to) && !s.M.Broken(sim.RuleCoalesceClonedGuard) {
		return refuse("`to` is cloned: its shinfo is shared and must not change")
	}
	if no, why := s.ppRefused(to, from); no {
		return refuse(why)
	}
	if SkbFragsReadable(from) != SkbFragsReadable(to) { // 65249feb6b3d
		return refuse("one skb's frags are unreadable device memory (net_iov) and the other's are not: they never mix (skb_frags_readable differs)")
	}
	ok := func(r CoalesceResult, why string) (CoalesceResult, error) {
		r.OK, r.Why = true, why
		s.Coalesced++
		to.Truesize += r.Delta
		if s.M.Tracing() {
			s.ev(cpu, sim.SymSkbTryCoalesce, to, nil, sim.PlaceNone, sim.PlaceNone, cost, fmt.Sprintf("took skb#%d — %s", from.ID, why))
		}
		return r, nil
	}
	if n := from.Len; n <= s.Tailroom(to) && SkbFragsReadable(from) {
		if n > 0 {
			s.M.Charge(cpu, sim.SymMemcpy, n)
		}
		to.Len += n
		return ok(CoalesceResult{}, "small enough to copy into `to`'s tailroom")
	}
	td, fd := to.D, from.D
	if len(td.FragList) > 0 || len(fd.FragList) > 0 || td.Zerocopy || fd.Zerocopy {
		return refuse("a frag_list or zerocopy frags are involved")
	}
	var r CoalesceResult
	if from.Headlen() != 0 {
		if td.NrFrags+fd.NrFrags >= MaxSkbFrags {
			return refuse("no room: stealing the head would exceed MAX_SKB_FRAGS")
		}
		if !from.HeadFrag || SkbCloned(from) { // skb_head_is_locked
			return refuse("`from`'s head is locked (kmalloc'ed or cloned) and cannot be stolen")
		}
		r.Delta = from.Truesize - SkbStructSize
		hp := fd.HeadPage
		td.Frags[td.NrFrags] = Frag{Page: hp, Off: fd.HeadOff + from.Headroom, Size: from.Headlen()}
		hp.MoveTo(s.M, to.Where.place(), to.ID)
		td.NrFrags++
		fd.HeadPage = nil // the head page now belongs to `to`
		r.HeadStolen = true
	} else {
		if td.NrFrags+fd.NrFrags > MaxSkbFrags {
			return refuse("no room: the frags would exceed MAX_SKB_FRAGS")
		}
		r.Delta = from.Truesize - s.SkbTruesize(fd.HeadSize-s.shinfo)
	}
	copy(td.Frags[td.NrFrags:], fd.Frags[:fd.NrFrags])
	start := td.NrFrags
	td.NrFrags += fd.NrFrags
	for i := start; i < td.NrFrags; i++ {
		td.Frags[i].Page.MoveTo(s.M, to.Where.place(), to.ID)
	}
	why := "from's frags move to `to` (from is not cloned: ownership moves)"
	switch {
	case !SkbCloned(from):
		fd.NrFrags = 0
		if r.HeadStolen { // only an skb that is not cloned can lose its head
			why = "from's head is stolen as a frag of `to`, and its frags move too (from is not cloned: ownership moves)"
		}
	case s.M.Broken(sim.RuleCoalesceClonedGuard):
		// The guard removed: the clone keeps its frags and `to` takes them
		// without a reference of its own — two owners, one reference.
		why = "from is cloned, yet `to` takes its frags without references of its own (cloned guard broken)"
		for i := start; i < td.NrFrags; i++ {
			td.Frags[i].Page.Users++
		}
	default:
		// The clone still uses the frags: `to` takes its own references.
		why = "from is cloned: `to` takes a page reference on each frag"
		for i := start; i < td.NrFrags; i++ {
			pg := td.Frags[i].Page
			pg.Users++
			if s.era.Coalesce == CoalescePlainPPRefs && from.PPRecycle && pagepool.IsPP(s.era, pg) {
				pg.FragCount++ // skb_pp_frag_ref: a pp_ref_count unit, so the pool's count stays right
				why = "from is cloned: `to` takes a pp reference (pp_ref_count) on each page_pool frag"
			} else {
				s.A.GetPage(cpu, pg) // __skb_frag_ref
			}
		}
	}
	to.Len += from.Len
	to.DataLen += from.Len
	return ok(r, why)
}

// SkbShift models skb_shift(tgt, skb, shiftlen): move up to shiftlen paged
// bytes from skb's frags to tgt (TCP SACK collapsing). A frag moved whole
// changes owner; a partially moved frag gives tgt a new page reference
// (__skb_frag_ref); a frag merged into tgt's last frag is released with
// __skb_frag_unref(fragfrom, skb->pp_recycle). Returns the bytes moved (0: the
// skb has linear data, or zerocopy frags, or tgt has no room).
func (s *Stack) SkbShift(cpu int, tgt, sk *SKB, shiftlen int) (int, error) {
	if !tgt.live || !sk.live {
		return 0, fmt.Errorf("skb_shift: skb#%d or skb#%d was freed", tgt.ID, sk.ID)
	}
	cost := s.M.Charge(cpu, sim.SymSkbShift, 0)
	if sk.Headlen() != 0 || tgt.D.Zerocopy || sk.D.Zerocopy {
		s.ev(cpu, sim.SymSkbShift, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, "nothing shifted: the skb has linear data or zerocopy frags")
		return 0, nil
	}
	if tgt.PPRecycle != sk.PPRecycle && s.M.Tracing() {
		s.M.Emit(sim.Event{CPU: cpu, Kind: sim.EvWarn, Func: sim.SymSkbShift, Page: -1, Stat: sim.StatNone,
			Why: "DEBUG_NET_WARN_ON_ONCE(tgt->pp_recycle != skb->pp_recycle)"})
	}
	// skb_prepare_for_shift: both must own their shinfo.
	for _, x := range []*SKB{tgt, sk} {
		if err := s.SkbUnclone(cpu, x); err != nil {
			return 0, err
		}
	}
	td, sd := tgt.D, sk.D
	moved, from := 0, 0
	for from < sd.NrFrags && moved < shiftlen {
		f := &sd.Frags[from]
		todo := min(f.Size, shiftlen-moved)
		last := td.NrFrags - 1
		canMerge := last >= 0 && td.Frags[last].Page == f.Page && td.Frags[last].Off+td.Frags[last].Size == f.Off
		switch {
		case canMerge && todo == f.Size:
			td.Frags[last].Size += todo
			s.FragUnref(cpu, f, sk.PPRecycle, false) // merged: drop from's reference
			from++
		case canMerge:
			td.Frags[last].Size += todo
			f.Off += todo
			f.Size -= todo
		case td.NrFrags == MaxSkbFrags:
			goto done
		case todo == f.Size:
			td.Frags[td.NrFrags] = *f // whole frag: ownership moves
			td.NrFrags++
			f.Page.MoveTo(s.M, tgt.Where.place(), tgt.ID)
			from++
		default:
			s.A.GetPage(cpu, f.Page) // partial: both skbs reference the page
			f.Page.Users++
			td.Frags[td.NrFrags] = Frag{Page: f.Page, Off: f.Off, Size: todo}
			td.NrFrags++
			f.Off += todo
			f.Size -= todo
		}
		moved += todo
	}
done:
	copy(sd.Frags[:], sd.Frags[from:sd.NrFrags])
	sd.NrFrags -= from
	sk.Len -= moved
	sk.DataLen -= moved
	tgt.Len += moved
	tgt.DataLen += moved
	s.Shifted++
	if s.M.Tracing() {
		s.ev(cpu, sim.SymSkbShift, sk, nil, sim.PlaceNone, sim.PlaceNone, cost, fmt.Sprintf("moved %d paged bytes to skb#%d", moved, tgt.ID))
	}
	return moved, nil
}
