package skb

import (
	"fmt"

	"pplab/engine/sim"
)

// SkbClone models skb_clone / __skb_clone: a new struct sk_buff sharing the
// head and the frags (no page reference changes); pp_recycle and head_frag are
// copied, both skbs are marked cloned and shinfo->dataref is raised.
func (s *Stack) SkbClone(cpu int, sk *SKB) (*SKB, error) {
	if !sk.live {
		return nil, fmt.Errorf("skb_clone: skb#%d was freed", sk.ID)
	}
	cost := s.M.Charge(cpu, sim.SymSkbClone, 0)
	n := s.newSKB(cpu, false)
	id, idx := n.ID, n.liveIdx
	*n = *sk
	n.ID, n.live, n.liveIdx, n.Where = id, true, idx, InStack
	n.Cloned, n.Nohdr = true, false
	sk.Cloned = true
	sk.D.Dataref++
	sk.D.users++
	s.Clones++
	if s.M.Tracing() {
		s.ev(cpu, sim.SymSkbClone, n, nil, sim.PlaceNone, sim.PlaceNone, cost,
			fmt.Sprintf("clone of skb#%d: shares its head and frags, copies pp_recycle, dataref now %d", sk.ID, sk.D.Dataref&SkbDatarefMask))
	}
	return n, nil
}

// SkbCloned models skb_cloned(): cloned and the data has other users.
func SkbCloned(sk *SKB) bool { return sk.Cloned && sk.D.Dataref&SkbDatarefMask != 1 }

// SkbUnclone models skb_unclone: give a cloned skb its own data.
func (s *Stack) SkbUnclone(cpu int, sk *SKB) error {
	if SkbCloned(sk) {
		return s.PskbExpandHead(cpu, sk, 0)
	}
	return nil
}

// PskbExpandHead models pskb_expand_head(skb, nhead, ntail): a new kmalloc'ed
// head (head_frag = 0) with a copy of the linear data and of the shinfo.
//   - If the skb is cloned, the frags are now referenced from two shinfos: each
//     gets a page reference (skb_frag_ref = get_page, never a pp reference), and
//     the old data only loses this skb's dataref (skb_release_data, which
//     clears pp_recycle from 5.14-rc2). The extra page references later turn
//     the pool's put into released_refcnt.
//   - If not, the frags move to the new shinfo as they are and the old head is
//     freed with skb_free_head, which may recycle a page_pool head.
func (s *Stack) PskbExpandHead(cpu int, sk *SKB, extra int) error {
	if !sk.live {
		return fmt.Errorf("pskb_expand_head: skb#%d was freed", sk.ID)
	}
	cost := s.M.Charge(cpu, sim.SymPskbExpandHead, 0)
	cost += s.M.Charge(cpu, sim.SymMemcpy, sk.Headlen()+s.shinfo)
	obj, size, err := s.kmallocHead(cpu, sk.Headroom+sk.Headlen()+extra)
	if err != nil {
		return fmt.Errorf("pskb_expand_head: %w", err)
	}
	old := sk.D
	if len(old.FragList) > 0 && SkbCloned(sk) {
		// skb_clone_fraglist: every chained skb would gain a user
		// (skb_get); the model keeps no skb->users, so it refuses.
		return fmt.Errorf("pskb_expand_head: skb#%d is cloned and has a frag_list (skb_clone_fraglist is not modelled)", sk.ID)
	}
	nd := s.newData()
	nd.HeadObj, nd.HeadSize = obj, size
	nd.NrFrags, nd.Frags, nd.FragList, nd.Zerocopy = old.NrFrags, old.Frags, old.FragList, old.Zerocopy
	if SkbCloned(sk) {
		for i := 0; i < nd.NrFrags; i++ {
			s.A.GetPage(cpu, nd.Frags[i].Page) // skb_frag_ref
			nd.Frags[i].Page.Users++
		}
		s.ev(cpu, sim.SymPskbExpandHead, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			"cloned: copies the head, takes a page reference on every frag, and drops its dataref on the shared data")
		s.ReleaseData(cpu, sk, false) // this skb leaves the old data; it owns nd now
	} else {
		s.ev(cpu, sim.SymPskbExpandHead, sk, nil, sim.PlaceNone, sim.PlaceNone, cost,
			"not cloned: the frags move to the new shinfo and the old head is freed (a page_pool head may recycle)")
		s.freeHead(cpu, sk, false, true)
		old.NrFrags, old.FragList = 0, nil
		old.users--
		s.releaseData(old)
	}
	sk.D = nd
	sk.HeadFrag, sk.Cloned, sk.Nohdr = false, false, false
	sk.Truesize += size - old.HeadSize
	s.Expanded++
	return nil
}

// SkbHeaderRelease models __skb_header_release (TCP's write queue): the skb
// promises not to touch the header part of its data again, so clones may
// write headers: nohdr = 1 and dataref = 1 + (1 << SKB_DATAREF_SHIFT), the
// high half counting payload-only references. Only on an skb that is not
// cloned.
func (s *Stack) SkbHeaderRelease(sk *SKB) error {
	if SkbCloned(sk) {
		return fmt.Errorf("__skb_header_release: skb#%d is cloned", sk.ID)
	}
	sk.Nohdr = true
	sk.D.Dataref = 1 + 1<<SkbDatarefShift
	return nil
}
