package mm

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"pplab/engine/sim"
)

// TestAllocator_WrittenOutLazilyEqualsWrittenOutAtOnce: the page array is
// written out as frames are first asked for (Allocator.ready). Seeded
// random walks of single and high-order allocations, frees, reference
// drops and full checks, on one and on two nodes, run twice: on an
// allocator written out lazily and on one written out whole right after
// NewAllocator. After every step the two agree on what the walk sees (the
// page handed out, the violations), and at the end on every frame and
// every free list. A failing walk is shrunk to its shortest failing prefix.
func TestAllocator_WrittenOutLazilyEqualsWrittenOutAtOnce(t *testing.T) {
	for _, nodes := range []int{1, 2} {
		for seed := uint64(1); seed <= 40; seed++ {
			ops := walkOps(seed, 400)
			if msg := runBoth(t, nodes, ops); msg != "" {
				n := len(ops)
				for n > 1 && runBoth(t, nodes, ops[:n-1]) != "" {
					n--
				}
				t.Fatalf("numa_nodes=%d seed %d: after %d steps (shortest failing prefix of %d): %s\nsteps: %v", nodes, seed, n, len(ops), runBoth(t, nodes, ops[:n]), ops[:n])
			}
		}
	}
}

type walkOp struct {
	kind  byte // 'a' alloc_pages_node, 'b' bulk, 'f' put_page, 'g' get_page, 'c' full check
	order uint8
	nid   int
	pick  int
}

func (o walkOp) String() string { return fmt.Sprintf("%c%d/%d/%d", o.kind, o.order, o.nid, o.pick) }

func walkOps(seed uint64, n int) []walkOp {
	r := rand.New(rand.NewPCG(seed, 7))
	ops := make([]walkOp, n)
	for i := range ops {
		o := walkOp{nid: r.IntN(3) - 1, pick: r.IntN(1 << 20)}
		switch x := r.IntN(20); {
		case x < 7:
			o.kind = 'a'
			if r.IntN(4) == 0 {
				o.order = uint8(1 + r.IntN(3))
			}
		case x < 9:
			o.kind = 'b'
			o.order = uint8(r.IntN(8)) // pages in the bulk
		case x < 16:
			o.kind = 'f'
		case x < 18:
			o.kind = 'g'
		default:
			o.kind = 'c'
		}
		ops[i] = o
	}
	return ops
}

// runBoth runs ops on a lazily written allocator and on one written out
// at once; "" when they agree throughout.
func runBoth(t *testing.T, nodes int, ops []walkOp) string {
	t.Helper()
	type side struct {
		m    *sim.Machine
		a    *Allocator
		held []*Page
	}
	mk := func(eager bool) *side {
		_, a := newAlloc(t, "node_pages=1024", fmt.Sprintf("numa_nodes=%d", nodes), fmt.Sprintf("cpus=%d", nodes))
		if eager {
			a.Pages()
		}
		return &side{m: a.m, a: a}
	}
	lazy, eager := mk(false), mk(true)
	for i, o := range ops {
		var got [2]string
		for k, s := range []*side{lazy, eager} {
			switch o.kind {
			case 'a':
				if p := s.a.AllocPagesNode(0, o.nid, o.order); p != nil {
					s.held = append(s.held, p)
					got[k] = fmt.Sprint(p.PFN)
				}
			case 'b':
				out := make([]*Page, o.order)
				n := s.a.AllocPagesBulk(0, o.nid, out)
				s.held = append(s.held, out[:n]...)
				for _, p := range out[:n] {
					got[k] += fmt.Sprint(p.PFN, " ")
				}
			case 'f', 'g':
				if len(s.held) == 0 {
					break
				}
				j := o.pick % len(s.held)
				p := s.held[j]
				if o.kind == 'g' {
					s.a.GetPage(0, p)
					s.held = append(s.held, p)
				} else {
					s.a.PutPage(0, p)
					s.held = append(s.held[:j], s.held[j+1:]...)
				}
				got[k] = fmt.Sprint(p.PFN, p.Ref)
			case 'c':
				s.m.CheckInvariants()
			}
			got[k] += fmt.Sprintf(" violations %v free %d/%d", s.m.Log.List, s.a.FreePages(0), s.a.FreePages(nodes-1))
		}
		if got[0] != got[1] {
			return fmt.Sprintf("step %d (%v): lazily written %q, at once %q", i, o, got[0], got[1])
		}
	}
	if !reflect.DeepEqual(lazy.a.Pages(), eager.a.Pages()) {
		for i := range eager.a.pages {
			if lazy.a.pages[i] != eager.a.pages[i] {
				return fmt.Sprintf("frame %d: lazily written %v, at once %v", i, &lazy.a.pages[i], &eager.a.pages[i])
			}
		}
	}
	for n := range lazy.a.nodes {
		if !reflect.DeepEqual(lazy.a.nodes[n].free, eager.a.nodes[n].free) {
			return fmt.Sprintf("node %d's free list: lazily written %v, at once %v", n, lazy.a.nodes[n].free, eager.a.nodes[n].free)
		}
	}
	return ""
}

// TestAllocator_ChecksReadOnlyWhatIsWrittenOut: a full check after a few
// allocations reads the frames written out, not the whole array: the
// frames past them stay unwritten (zero) memory, and the check counts them
// free all the same.
func TestAllocator_ChecksReadOnlyWhatIsWrittenOut(t *testing.T) {
	m, a := newAlloc(t, "node_pages=4096")
	for range 10 {
		a.AllocPagesNode(0, -1, 0)
	}
	verify(t, m)
	if r := len(a.Ready()); r >= a.NumPages() || r < 10 {
		t.Fatalf("after 10 allocations %d of %d frames are written out", r, a.NumPages())
	}
	if last := a.pages[a.NumPages()-1]; last != (Page{}) {
		t.Fatalf("the last frame was written: %v", &last)
	}
	if a.FreePages(0) != 4096-10 {
		t.Fatalf("free pages %d", a.FreePages(0))
	}
}
