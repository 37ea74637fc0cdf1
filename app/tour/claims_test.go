package tour

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pplab/app/session"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// observed is what the run does at a preset's step, in a Claim's terms.
type observed struct {
	moves      []string // "from>to" of each page move, in order
	funcs      []string // the era's kernel names of the operation's events
	counters   map[string]int64
	violations []string
}

func observe(t *testing.T, c Chapter, p Preset) observed {
	t.Helper()
	q, err := p.Query()
	if err != nil {
		t.Fatal(err)
	}
	s := session.New(q, nil)
	v := s.View()
	if !v.Narration.Has {
		t.Fatalf("no step record at %s", q.Encode())
	}
	r, n := v.Narration.Rec, v.Narration
	var o observed
	for _, m := range r.Moves {
		o.moves = append(o.moves, m.From+">"+m.To)
	}
	o.funcs = append(o.funcs, lab.Source(n.Era, n.Driver, r.Op.Func).Name)
	for _, e := range r.Events {
		if name := lab.Source(n.Era, n.Driver, e.Func).Name; !slices.Contains(o.funcs, name) {
			o.funcs = append(o.funcs, name)
		}
	}
	o.counters = map[string]int64{}
	for st := sim.Stat(0); st < sim.NumStats; st++ {
		o.counters[st.String()] = int64(r.Stats[st]) - int64(r.StatsBefore[st])
	}
	for k := sim.Kind(0); k < sim.NumKinds; k++ {
		if r.NewViolations[k] > 0 {
			o.violations = append(o.violations, k.String())
		}
	}
	return o
}

// TestPresets_ShowWhatTheirProseClaims: every preset declares what its
// sentence says (Claim, written from the prose), and the run at its step
// does it: the page move, the structure, the functions, the counters'
// directions, the violation. A preset without a claim fails: each link
// must say what it shows.
func TestPresets_ShowWhatTheirProseClaims(t *testing.T) {
	places := map[string]bool{}
	for p := sim.Place(0); p < sim.NumPlaces; p++ {
		places[p.String()] = true
	}
	for _, c := range Chapters() {
		for _, p := range c.Presets {
			t.Run(c.Slug+"/"+p.ID, func(t *testing.T) {
				cl := p.Claim
				if cl.Move == "" && cl.Structure == "" {
					t.Fatalf("no claim: say the page move or the structure the sentence is about")
				}
				o := observe(t, c, p)
				fail := func(format string, a ...any) {
					t.Errorf(format+"\n  the op: moves %v\n  funcs %v\n  counters %v\n  violations %v", append(a, o.moves, o.funcs, nonzero(o.counters), o.violations)...)
				}
				if cl.Move != "" {
					from, to, ok := strings.Cut(cl.Move, ">")
					if !ok || !(places[from] || from == "*") || !places[to] {
						t.Fatalf("move %q: want from>to, places of the machine view (from * for any)", cl.Move)
					}
					if !slices.ContainsFunc(o.moves, func(m string) bool { return m == cl.Move || from == "*" && strings.HasSuffix(m, ">"+to) }) {
						fail("no page moves %s", cl.Move)
					}
				}
				if cl.Structure != "" && !places[cl.Structure] {
					t.Fatalf("structure %q: not a place of the machine view", cl.Structure)
				}
				for _, f := range cl.Funcs {
					if !slices.Contains(o.funcs, f) {
						fail("the op runs no %s", f)
					}
				}
				for _, cn := range cl.Counters {
					name, dir := cn[:len(cn)-1], cn[len(cn)-1]
					d, ok := o.counters[name]
					switch {
					case !ok:
						t.Fatalf("counter %q: not a page_pool counter", name)
					case dir == '+' && d <= 0, dir == '=' && d != 0:
						fail("%s moved by %d, the claim says %c", name, d, dir)
					case dir != '+' && dir != '=':
						t.Fatalf("counter %q: end it with + or =", cn)
					}
				}
				switch {
				case cl.Violation == "" && len(o.violations) > 0:
					fail("a violation the claim does not name")
				case cl.Violation != "" && !slices.Contains(o.violations, cl.Violation):
					fail("no %s", cl.Violation)
				}
			})
		}
	}
}

func nonzero(m map[string]int64) string {
	var out []string
	for st := sim.Stat(0); st < sim.NumStats; st++ {
		if d := m[st.String()]; d != 0 {
			out = append(out, fmt.Sprintf("%s%+d", st, d))
		}
	}
	return strings.Join(out, " ")
}

// TestPresets_SubjectIsWhereTheFigureDrawsIt: every preset's link has a
// subject the figure brings into view: a page for a move claim, drawn in
// a structure of the machine (or back in the page allocator), or the
// claimed structure; never a page the machine does not draw. (Where it
// lands on screen: e2e TestTour_EveryLinkBringsItsSubjectIntoView.)
func TestPresets_SubjectIsWhereTheFigureDrawsIt(t *testing.T) {
	drawn := map[string]bool{"cache": true, "ring": true, "nic-ring": true, "skb": true, "socket": true, "tx-ring": true,
		"frag": true, "buddy": true, "driver": true, "xdp-frame": true, "driver-cache": true, "slab": true, "user": true}
	for _, c := range Chapters() {
		for _, p := range c.Presets {
			q, _ := p.Query()
			v := session.New(q, nil).View()
			s := p.SubjectOf(v.Narration.Rec, &v.Machine.Snap)
			switch {
			case p.Claim.Move != "" && s.PFN < 0:
				t.Errorf("%s/%s: no page moves %s", c.Slug, p.ID, p.Claim.Move)
			case !drawn[s.Place]:
				t.Errorf("%s/%s: the subject %+v is in %q, which the machine does not draw", c.Slug, p.ID, s, s.Place)
			case s.Words() == "":
				t.Errorf("%s/%s: the subject has no words", c.Slug, p.ID)
			}
		}
	}
}
