package skb

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

func (e *env) coalesce(to, from *SKB) CoalesceResult {
	e.t.Helper()
	e.m.Begin(1, sim.SymSkbTryCoalesce)
	r, err := e.s.SkbTryCoalesce(1, to, from)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.OK {
		e.s.KfreeSkbPartial(1, from, r.HeadStolen)
	}
	e.check()
	return r
}

func TestCoalesce_RefusesPPIntoSlab_5_14(t *testing.T) {
	e := newEnv(t, "5.14")
	to, _ := e.s.AllocSKB(0, 1500, false) // a slab-backed skb (e.g. loopback)
	from, fr := e.fragsOnly(3000)
	if r := e.coalesce(to, from); r.OK {
		t.Fatalf("coalesced a page_pool skb into a slab one: %+v", r)
	}
	e.kfree(to, from)
	e.places(map[*mm.Page]sim.Place{fr: sim.PlaceRing})
	e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: 1})
	e.clean()
}

func TestCoalesce_RefusesSlabIntoPP(t *testing.T) {
	for _, era := range []string{"5.14", "5.15", "6.4", "6.8"} {
		e := newEnv(t, era)
		to, _ := e.rx(1500)
		from, _ := e.s.AllocPageFragSKB(0, 3000) // loopback: page_frag head, not pp
		if r := e.coalesce(to, from); r.OK {
			t.Fatalf("%s: coalesced a slab/page_frag skb into a page_pool one", era)
		}
		e.kfree(to, from)
		e.clean()
	}
}

func TestCoalesce_CopiesIntoTailroom(t *testing.T) {
	e := newEnv(t, "6.8")
	to, _ := e.rx(100)
	from, fp := e.rx(200)
	r := e.coalesce(to, from)
	if !r.OK || r.HeadStolen || to.Len != 300 || to.D.NrFrags != 0 {
		t.Fatalf("%+v, to %v: want a copy into the tailroom", r, to)
	}
	e.places(map[*mm.Page]sim.Place{fp: sim.PlaceRing}) // from was freed whole
	e.kfree(to)
	e.stats(map[sim.Stat]uint64{sim.StatRecycleRing: 2})
	e.clean()
}

func TestCoalesce_StealsHead(t *testing.T) {
	e := newEnv(t, "6.8")
	to, tp := e.rx(2500)
	from, fp := e.rx(1500) // 1500 > to's tailroom: steal from's head page as a frag
	r := e.coalesce(to, from)
	if !r.OK || !r.HeadStolen || to.D.NrFrags != 1 || to.D.Frags[0].Page != fp || to.Len != 4000 {
		t.Fatalf("%+v, to %v: want from's head stolen as a frag", r, to)
	}
	if r.Delta != e.s.SkbTruesize(mm.PageSize-e.s.Shinfo())-SkbStructSize {
		t.Errorf("truesize delta %d", r.Delta)
	}
	e.places(map[*mm.Page]sim.Place{fp: sim.PlaceSKB})
	e.kfree(to)
	e.places(map[*mm.Page]sim.Place{tp: sim.PlaceRing, fp: sim.PlaceRing})
	e.clean()
}

func TestCoalesce_RefusesLockedHeadFragListZerocopyAndFullFrags(t *testing.T) {
	e := newEnv(t, "6.8")
	to, _ := e.rx(2500)
	kh, _ := e.s.AllocSKB(0, 1500, false) // kmalloc head: locked
	kh.PPRecycle = true                   // as a page_pool skb that was expanded
	if r := e.coalesce(to, kh); r.OK {
		t.Error("stole a kmalloc'ed head")
	}
	fl, _ := e.fragsOnly(3000)
	fl.D.FragList = []*SKB{nil} // only its presence is read
	if r := e.coalesce(to, fl); r.OK {
		t.Error("coalesced an skb with a frag_list")
	}
	fl.D.FragList = nil
	fl.D.Zerocopy = true
	if r := e.coalesce(to, fl); r.OK {
		t.Error("coalesced zerocopy frags")
	}
	fl.D.Zerocopy = false
	full, _ := e.s.AllocSKB(0, 0, false)
	full.PPRecycle = true
	for i := 0; i < MaxSkbFrags; i++ {
		e.frag(full, 10)
	}
	if r := e.coalesce(full, fl); r.OK {
		t.Error("coalesced past MAX_SKB_FRAGS")
	}
	e.kfree(to, kh, fl, full)
	e.clean()
}

func TestCoalesce_ClonedPPSourceByEra(t *testing.T) {
	tests := []struct {
		era      string
		ok       bool
		ppRef    bool // to takes a pp_ref_count unit instead of a page reference
		released uint64
		ring     uint64
	}{
		{"5.14", true, false, 1, 0}, // plain test: page refs; the extra ref turns the pool's put into released_refcnt
		{"5.15", false, false, 0, 1},
		{"6.4", false, false, 0, 1},
		{"6.8", true, true, 0, 1}, // skb_pp_frag_ref keeps the pool's count exact: the page still recycles
	}
	for _, tc := range tests {
		t.Run(tc.era, func(t *testing.T) {
			e := newEnv(t, tc.era)
			to, _ := e.rx(1500)
			from, fr := e.fragsOnly(3000)
			tap, _ := e.s.SkbClone(0, from) // AF_PACKET tap
			r := e.coalesce(to, from)
			if r.OK != tc.ok {
				t.Fatalf("coalesce of a cloned page_pool skb: %+v, want ok=%v", r, tc.ok)
			}
			if tc.ok {
				if tc.ppRef && (fr.FragCount != 2 || fr.Ref != 1) || !tc.ppRef && fr.Ref != 2 {
					t.Fatalf("frag page after coalesce: %v", fr)
				}
			} else {
				e.kfree(from)
			}
			e.kfree(to, tap)
			e.stats(map[sim.Stat]uint64{sim.StatRecycleReleasedRefcnt: tc.released})
			if st := e.p.Stats(); st[sim.StatRecycleRing] != 1+tc.ring {
				t.Errorf("ring %d, want %d", st[sim.StatRecycleRing], 1+tc.ring)
			}
			e.clean()
		})
	}
}

func TestCoalesce_RefusesClonedTo(t *testing.T) {
	e := newEnv(t, "6.8")
	to, _ := e.rx(2500)
	tap, _ := e.s.SkbClone(0, to)
	from, _ := e.fragsOnly(3000)
	if r := e.coalesce(to, from); r.OK {
		t.Fatal("coalesced into a cloned skb")
	}
	e.kfree(to, tap, from)
	e.clean()
}

func TestShift_PartialTakesPageRefMergeUnrefsWithSourceFlag(t *testing.T) {
	e := newEnv(t, "6.8")
	tgt, _ := e.fragsOnly(1000)
	src, _ := e.s.AllocSKB(0, 0, false)
	src.PPRecycle = true
	pg := e.frag(src, 3000)
	e.m.Begin(0, sim.SymSkbShift)
	n, err := e.s.SkbShift(0, tgt, src, 1000) // partial: tgt references the page too
	if err != nil || n != 1000 {
		t.Fatal(n, err)
	}
	if pg.Ref != 2 || tgt.D.NrFrags != 2 || src.D.Frags[0].Off != 1000 || src.D.Frags[0].Size != 2000 {
		t.Fatalf("after a partial shift: page ref %d, tgt %v, src %v", pg.Ref, tgt, src)
	}
	n, _ = e.s.SkbShift(0, tgt, src, 2000) // the rest is contiguous: merged into tgt's last frag
	if n != 2000 || src.D.NrFrags != 0 || tgt.D.Frags[1].Size != 3000 || pg.Ref != 1 {
		t.Fatalf("after the merge: page ref %d, tgt %v, src %v", pg.Ref, tgt, src)
	}
	// The merged frag was unref'd with src's pp_recycle while tgt held a page
	// reference: page_ref_count 2, so the pool released the page
	// (released_refcnt) and it left the pool; tgt's put_page frees it later.
	e.stats(map[sim.Stat]uint64{sim.StatRecycleReleasedRefcnt: 1})
	e.check()
	e.kfree(src, tgt)
	e.places(map[*mm.Page]sim.Place{pg: sim.PlaceBuddy})
	e.clean()
	if n, _ := e.s.SkbShift(0, tgt, src, 1); n != 0 {
		t.Error("shifted between freed skbs")
	}
}

func TestShift_RefusesLinearSource(t *testing.T) {
	e := newEnv(t, "6.8")
	tgt, _ := e.fragsOnly(100)
	src, _ := e.rx(100)
	if n, _ := e.s.SkbShift(0, tgt, src, 100); n != 0 {
		t.Fatal("shifted from an skb with linear data")
	}
	e.kfree(tgt, src)
	e.clean()
}
