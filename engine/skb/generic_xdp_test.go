package skb

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

func TestNetifReceiveGenericXDP_CopyOrLinearizePerEra(t *testing.T) {
	for _, tc := range []struct {
		name     string
		era      string
		headroom int // 0: build_skb's NET_SKB_PAD (64)
		frag     int // bytes added as a pool frag (non-linear)
		noFrags  bool
		want     GenericXDPOutcome
	}{
		{"6.9 enough headroom, linear: as it is", "6.9", XDPPacketHeadroom, 0, false, GenericXDPAsIs},
		{"6.8 short headroom: pskb_expand_head", "6.8", 0, 0, false, GenericXDPLinearize},
		{"6.8 non-linear: pskb_expand_head + skb_linearize", "6.8", 0, 1000, false, GenericXDPLinearize},
		{"6.8 non-linear, nothing missing: pskb_expand_head(skb, 0, 0) still reallocates the head", "6.8", XDPPacketHeadroom, 1000, false, GenericXDPLinearize},
		{"6.9 frags-unaware, nothing missing: pskb_expand_head(skb, 0, 0)", "6.9", XDPPacketHeadroom, 1000, true, GenericXDPLinearize},
		{"6.9 short headroom: skb_pp_cow_data", "6.9", 0, 0, false, GenericXDPPPCow},
		{"6.9 non-linear: skb_pp_cow_data", "6.9", 0, 1000, false, GenericXDPPPCow},
		{"6.9 frags-unaware program: linearize", "6.9", 0, 1000, true, GenericXDPLinearize},
		{"6.10 short headroom: skb_pp_cow_data", "6.10", 0, 0, false, GenericXDPPPCow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.era, "cpus=2")
			sk, head := e.rx(500)
			if tc.headroom > 0 {
				sk.Headroom = tc.headroom
			}
			var fpg *mm.Page
			if tc.frag > 0 {
				fpg = e.frag(sk, tc.frag)
			}
			length := sk.Len
			e.m.Begin(0, sim.SymGenericXDP)
			got, out := e.s.NetifReceiveGenericXDP(0, sk, !tc.noFrags)
			e.check()
			if out != tc.want || got == nil {
				t.Fatalf("outcome %s (skb %v), want %s", out, got, tc.want)
			}
			if got.Len != length || got.Headroom < XDPPacketHeadroom || got.DataLen != 0 {
				t.Errorf("prepared skb: len %d (want %d), headroom %d (want >= 256), data_len %d (want linear)", got.Len, length, got.Headroom, got.DataLen)
			}
			sys := e.r.SystemPools()
			switch out {
			case GenericXDPAsIs:
				if got != sk || sys != nil {
					t.Errorf("as-is: a new skb or a system pool")
				}
			case GenericXDPLinearize:
				if e.s.Expanded != 1 {
					t.Errorf("pskb_expand_head ran %d times, want once", e.s.Expanded)
				}
				if got != sk || got.HeadFrag || sys != nil {
					t.Errorf("linearize: skb %v head_frag %v, system pools %d: want the original with a kmalloc'ed head, no system pool", got, got.HeadFrag, len(sys))
				}
			case GenericXDPPPCow:
				sp := e.r.SystemPool(0)
				if got == sk || sk.Live() || !got.HeadFrag || !got.PPRecycle || got.D.HeadPage.PP != sp.ID || got.Headroom != XDPPacketHeadroom {
					t.Errorf("pp-cow: new %v, original live %v, head page's pool %d (cpu0's system pool is %d), headroom %d", got != sk, sk.Live(), got.D.HeadPage.PP, sp.ID, got.Headroom)
				}
			}
			// The original's page_pool buffers went back to the driver's
			// pool (a free in softirq on its NAPI's CPU: the alloc cache),
			// except in the as-is case.
			// (pskb_expand_head's skb_free_head recycles the old head.)
			if out != GenericXDPAsIs {
				e.places(map[*mm.Page]sim.Place{head: sim.PlaceCache})
				if fpg != nil {
					e.places(map[*mm.Page]sim.Place{fpg: sim.PlaceCache})
				}
			}
			e.m.Begin(0, sim.SymKfreeSKB)
			e.s.KfreeSKB(0, got)
			// A copy of more than half a page (SKB_HEAD_ALIGN(1500) + 256)
			// has a page of its own, which its free recycles; a 500-byte
			// copy's frag page stays with the pool's frag allocator.
			if out == GenericXDPPPCow && got.D.HeadSize == mm.PageSize {
				if pg := got.D.HeadPage; pg.Place != sim.PlaceCache {
					t.Errorf("the copy's page after kfree_skb on cpu0: %s, want the system pool's alloc cache (pp->cpuid == cpuid)", pg.Place)
				}
			}
			e.clean()
		})
	}
}

func TestSkbPPCowData_JumboGetsPageFrags(t *testing.T) {
	e := newEnv(t, "6.9", "cpus=2")
	sk, _ := e.rx(1000)
	e.frag(sk, 3000) // 4000 bytes: more than max_head_size (3520)
	sp := e.r.SystemPool(0)
	e.m.Begin(0, sim.SymSkbPPCowData)
	nskb, err := e.s.SkbPPCowData(0, sp, sk, XDPPacketHeadroom)
	if err != nil {
		t.Fatal(err)
	}
	e.check()
	if nskb.Len != 4000 || nskb.Headlen() != 3520 || nskb.D.NrFrags != 1 || nskb.D.Frags[0].Size != 480 || nskb.D.Frags[0].Page.PP != sp.ID {
		t.Errorf("copy: len %d headlen %d frags %d (first %d bytes, pool %d); want 4000, 3520 in the head, one 480-byte frag from pool %d",
			nskb.Len, nskb.Headlen(), nskb.D.NrFrags, nskb.D.Frags[0].Size, nskb.D.Frags[0].Page.PP, sp.ID)
	}
	if nskb.D.HeadPage == nskb.D.Frags[0].Page {
		t.Error("the 4096-byte head and the frag share a page")
	}
	e.m.Begin(0, sim.SymKfreeSKB)
	e.s.KfreeSKB(0, nskb)
	e.clean()
}

// skb_pp_cow_data builds its copy with napi_build_skb(data, truesize)
// (e6d5dbdd20aa), and the narration names it so, not build_skb.
func TestSkbPPCowData_NarratesNapiBuildSkb(t *testing.T) {
	e := newEnv(t, "6.9", "cpus=2")
	sk, _ := e.rx(1000)
	var funcs []sim.Sym
	e.m.SetTracer(func(ev sim.Event) { funcs = append(funcs, ev.Func) })
	e.m.Begin(0, sim.SymSkbPPCowData)
	nskb, err := e.s.SkbPPCowData(0, e.r.SystemPool(0), sk, XDPPacketHeadroom)
	if err != nil {
		t.Fatal(err)
	}
	napi, plain := false, false
	for _, f := range funcs {
		napi = napi || f == sim.SymNapiBuildSKB
		plain = plain || f == sim.SymBuildSKB
	}
	if !napi || plain {
		t.Errorf("the copy's build narrated as napi_build_skb %v, as build_skb %v; want napi_build_skb only", napi, plain)
	}
	e.m.Begin(0, sim.SymKfreeSKB)
	e.s.KfreeSKB(0, nskb)
	e.clean()
}
