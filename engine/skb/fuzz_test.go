package skb

import (
	"errors"
	"fmt"
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// skbProgram plays random skb operations the way the stack's callers use them
// (contracts kept: no frags added to a cloned skb, skb_shift only between skbs
// of the same pp_recycle, every skb freed once), so any violation is a model bug.
type skbProgram struct {
	e   *env
	sks []*SKB
	gro GRO // the NAPI's GRO: its aggregate is not in sks while held
	log []string
}

func (p *skbProgram) pick(arg byte) (int, *SKB) {
	if len(p.sks) == 0 {
		return -1, nil
	}
	i := int(arg) % len(p.sks)
	return i, p.sks[i]
}

func (p *skbProgram) drop(i int) {
	p.sks[i] = p.sks[len(p.sks)-1]
	p.sks = p.sks[:len(p.sks)-1]
}

func (p *skbProgram) add(sk *SKB, err error, what string) {
	if errors.Is(err, ErrNoMem) || sk == nil {
		return
	}
	if err != nil {
		p.e.t.Fatalf("%s: %v", what, err)
	}
	p.sks = append(p.sks, sk)
}

func (p *skbProgram) step(op, arg byte) {
	e := p.e
	s := e.s
	cpu := int(arg>>7) & 1
	size := 64 + int(arg)*12 // 64..3124 bytes
	e.m.Begin(cpu, sim.SymBuildSKB)
	switch op % 14 {
	case 0: // a page_pool driver receives a frame
		if len(p.sks) > 40 {
			return
		}
		pg := e.p.AllocPages(0)
		if pg == nil {
			return
		}
		if e.m.Era.SkbRecycle == sim.SkbRecycleNone {
			e.p.ReleasePage(0, pg)
		}
		sk, err := s.BuildSKB(0, pg, 0, mm.PageSize, size, true)
		if err != nil {
			e.t.Fatal(err)
		}
		if e.m.Era.SkbRecycle != sim.SkbRecycleNone {
			s.MarkForRecycle(0, sk, pg, e.p)
		}
		p.log = append(p.log, fmt.Sprintf("rx %d -> skb#%d", size, sk.ID))
		p.add(sk, nil, "rx")
	case 1: // a slab-backed skb (kmalloc head)
		if len(p.sks) > 40 {
			return
		}
		sk, err := s.AllocSKB(cpu, size%1600, arg&1 == 0)
		p.log = append(p.log, fmt.Sprintf("alloc_skb %d", size%1600))
		p.add(sk, err, "alloc_skb")
	case 2: // loopback: a page_frag head
		if len(p.sks) > 40 {
			return
		}
		sk, err := s.AllocPageFragSKB(cpu, size)
		p.log = append(p.log, fmt.Sprintf("loopback %d", size))
		p.add(sk, err, "page_frag skb")
	case 3: // skb_add_rx_frag: pool pages into page_pool skbs, plain pages anywhere
		_, sk := p.pick(arg)
		if sk == nil || SkbCloned(sk) || sk.D.NrFrags >= MaxSkbFrags-1 {
			return
		}
		var pg *mm.Page
		if sk.PPRecycle && arg&1 == 0 {
			if pg = e.p.AllocPages(0); pg == nil {
				return
			}
			s.StoreMemInfo(cpu, sk, pg, e.p)
		} else if pg = e.a.AllocPagesNode(cpu, -1, 0); pg == nil {
			return
		}
		p.log = append(p.log, fmt.Sprintf("add frag pfn %#x to skb#%d", pg.PFN, sk.ID))
		s.AddRxFrag(cpu, sk, pg, 0, size%mm.PageSize, mm.PageSize)
	case 4: // skb_clone (a tap)
		_, sk := p.pick(arg)
		if sk == nil || len(p.sks) > 40 {
			return
		}
		cl, err := s.SkbClone(cpu, sk)
		p.log = append(p.log, fmt.Sprintf("clone skb#%d", sk.ID))
		p.add(cl, err, "clone")
	case 5: // skb_try_coalesce(to, from)
		i, to := p.pick(arg)
		j, from := p.pick(arg / 3)
		if to == nil || i == j {
			return
		}
		r, err := s.SkbTryCoalesce(cpu, to, from)
		if err != nil {
			e.t.Fatal(err)
		}
		p.log = append(p.log, fmt.Sprintf("coalesce skb#%d into skb#%d: %v", from.ID, to.ID, r.OK))
		if r.OK {
			s.KfreeSkbPartial(cpu, from, r.HeadStolen)
			p.drop(j)
		}
	case 6: // skb_shift
		i, tgt := p.pick(arg)
		j, src := p.pick(arg / 5)
		if tgt == nil || i == j || tgt.PPRecycle != src.PPRecycle {
			return
		}
		n, err := s.SkbShift(cpu, tgt, src, size)
		if err != nil && !errors.Is(err, ErrNoMem) {
			e.t.Fatal(err)
		}
		p.log = append(p.log, fmt.Sprintf("shift %d from skb#%d to skb#%d", n, src.ID, tgt.ID))
	case 7: // pskb_expand_head
		_, sk := p.pick(arg)
		if sk == nil {
			return
		}
		p.log = append(p.log, fmt.Sprintf("expand skb#%d", sk.ID))
		s.PskbExpandHead(cpu, sk, 0)
	case 8: // kfree_skb / consume_skb
		i, sk := p.pick(arg)
		if sk == nil {
			return
		}
		p.log = append(p.log, fmt.Sprintf("kfree skb#%d cpu%d", sk.ID, cpu))
		s.KfreeSKB(cpu, sk)
		p.drop(i)
	case 9: // napi_consume_skb on the NAPI CPU
		i, sk := p.pick(arg)
		if sk == nil {
			return
		}
		p.log = append(p.log, fmt.Sprintf("napi_consume skb#%d", sk.ID))
		e.m.Begin(0, sim.SymNapiConsumeSKB)
		s.NapiConsumeSKB(0, sk, int(arg)%2*64)
		p.drop(i)
	case 10: // skb_unclone
		_, sk := p.pick(arg)
		if sk == nil {
			return
		}
		p.log = append(p.log, fmt.Sprintf("unclone skb#%d", sk.ID))
		s.SkbUnclone(cpu, sk)
	case 11: // napi_gro_receive of a fresh-looking skb (not cloned, no frag_list)
		i, sk := p.pick(arg)
		hdrs := int(arg) % 80
		if sk == nil || SkbCloned(sk) || len(sk.D.FragList) > 0 || sk.Headlen() < hdrs || sk.Cloned {
			return
		}
		if h := p.gro.Held(); h != nil && h.PPRecycle != sk.PPRecycle && !e.m.Era.GROPPRecycleCheck {
			// Before 6.2 skb_gro_receive spliced page_pool and other memory
			// alike: the kernel's own leak, which
			// TestSkbGroReceive_MixedSpliceBefore62Leaks shows. The programs
			// explore what each era does safely.
			return
		}
		p.drop(i)
		e.m.CPUs[0].Softirq = true
		e.m.Begin(0, sim.SymGroReceive)
		flushed, err := s.NapiGroReceive(0, &p.gro, sk, hdrs)
		if err != nil {
			e.t.Fatal(err)
		}
		p.log = append(p.log, fmt.Sprintf("gro skb#%d (hdrs %d): flushed %v", sk.ID, hdrs, flushed != nil))
		if flushed != nil {
			p.sks = append(p.sks, flushed)
		}
	case 12: // skb_attempt_defer_free from the reader's CPU (process context)
		i, sk := p.pick(arg)
		if sk == nil {
			return
		}
		e.m.CPUs[1].Softirq = false
		e.m.Begin(1, sim.SymDeferFree)
		out := s.SkbAttemptDeferFree(1, sk)
		p.log = append(p.log, fmt.Sprintf("defer free skb#%d: %d", sk.ID, out))
		p.drop(i)
	case 13: // net_rx_action's flush on cpu0 (its NAPI scheduled or not)
		if arg&1 == 0 {
			e.napi.Complete()
		} else {
			e.napi.Schedule()
		}
		e.m.CPUs[0].Softirq = true
		p.log = append(p.log, fmt.Sprintf("defer flush cpu0 (list_owner %d)", e.napi.ListOwner))
		s.SkbDeferFreeFlush(0)
	}
}

// finish hands everything back: GRO's aggregate to the program, the defer
// lists flushed.
func (p *skbProgram) finish() {
	if g := p.gro.Flush(); g != nil {
		p.sks = append(p.sks, g)
	}
	for len(p.sks) > 0 {
		p.step(8, 0)
	}
	for cpu := range p.e.m.CPUs {
		p.e.s.SkbDeferFreeFlush(cpu)
	}
}

const maxSkbFuzzOps = 200

// FuzzSkb runs random skb programs in any era with the invariant checker after
// every operation: no rule broken, zero violations; at the end every skb is
// freed and every page is back in its pool or the page allocator.
func FuzzSkb(f *testing.F) {
	f.Add([]byte{6, 0, 10, 4, 0, 3, 0, 8, 0, 8, 0})
	f.Add([]byte{3, 0, 100, 0, 200, 5, 1, 2, 50, 5, 9, 7, 0, 8, 1, 8, 0, 8, 0})
	f.Add([]byte{5, 0, 120, 0, 121, 0, 122, 11, 10, 11, 10, 11, 10, 4, 0, 12, 1, 12, 0, 13, 1, 8, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = append(append([]byte(nil), data...), 0)
		era := sim.Eras[int(data[0])%len(sim.Eras)]
		e := newEnv(t, era.Name, "numa_nodes=1", "node_pages=512")
		p := &skbProgram{e: e}
		ops := data[1:]
		if len(ops) > 2*maxSkbFuzzOps {
			ops = ops[:2*maxSkbFuzzOps]
		}
		for i := 0; i+1 < len(ops); i += 2 {
			p.step(ops[i], ops[i+1])
			e.check()
			if e.m.Log.Total() != 0 {
				t.Fatalf("era %s, after %v: %v\nprogram: %v", era.Name, p.log[max(0, len(p.log)-1):], e.m.Log.List, p.log)
			}
		}
		p.finish()
		e.check()
		if e.m.Log.Total() != 0 {
			t.Fatalf("era %s, freeing everything: %v\nprogram: %v", era.Name, e.m.Log.List, p.log)
		}
		if e.s.Live() != 0 {
			t.Fatalf("era %s: %d skb data buffers still live after every skb was freed", era.Name, e.s.Live())
		}
		for i := range e.a.Pages() {
			pg := &e.a.Pages()[i]
			if pg.Users != 0 || (pg.Place != sim.PlaceBuddy && pg.Place != sim.PlaceCache && pg.Place != sim.PlaceRing && pg.Place != sim.PlaceSlab) {
				t.Fatalf("era %s: page %v is still in use after every skb was freed\nprogram: %v", era.Name, pg, p.log)
			}
		}
	})
}
