package session

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// TestCompareState_Cases: the cases as the page opens them, each
// compared to its end: where it diverges, each side's first differing
// decision, the change that decides it, and the position "go to the
// divergence" gives.
func TestCompareState_Cases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		query  string              // "" : the page's default
		edit   func(*CompareState) // after opening
		packet int64               // the divergence (0: none)
		statA  string
		statB  string
		funcA  string
		funcB  string
		commit string
		start  bool // the runs differ from the start
		cli    []string
	}{
		{name: "the default: 6.9 vs 6.10, mlx5 xdp-redirect to a second port, the driver's sizes", packet: 65,
			statA: "recycle_ring", statB: "recycle_cached", funcA: "page_pool_put_page_bulk", funcB: "page_pool_recycle_in_cache", commit: "4a96a4e807c3",
			cli: []string{"compare", "--driver", "mlx5", "--scenario", "xdp-redirect", "--era", "6.9", "--packets", "1000000", "--seed", "0", "--set", "redirect_to=1", "--with-era", "6.10"}},
		{name: "the first example's link", query: CompareExamples()[0].Query, packet: 65, statA: "recycle_ring", statB: "recycle_cached", commit: "4a96a4e807c3"},
		{name: "6.18 vs 6.19, mlx5 forward, TX completion on cpu1", query: CompareExamples()[1].Query, packet: 65,
			statA: "recycle_ring", statB: "recycle_cached", funcA: "page_pool_recycle_in_ring", funcB: "page_pool_recycle_in_cache", commit: "e20dfbad8aab",
			cli: []string{"--set", "tx_cpu=1", "--with-era", "6.19"}},
		{name: "the default at the teaching sizes: both use the ring", edit: func(c *CompareState) { c.SetA("preset", lab.PresetTeaching) }},
		{name: "two drivers differ from the start", query: CompareExamples()[1].Query, edit: func(c *CompareState) { c.SetB("driver", "bnxt") }, start: true,
			cli: []string{"--with-era", "6.19", "--with-driver", "bnxt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			c := NewCompare(q, nil)
			if tc.edit != nil {
				tc.edit(c)
			}
			if len(c.errs) > 0 || len(c.banner) > 0 {
				t.Fatalf("errors %v, banner %v", c.errs, c.banner)
			}
			c.Finish()
			v := c.View()
			if v.Running {
				t.Fatal("still running after Finish")
			}
			if got := strings.Join(c.CLIArgs(), " "); !strings.Contains(got, strings.Join(tc.cli, " ")) {
				t.Errorf("CLI line %q lacks %q", got, strings.Join(tc.cli, " "))
			}
			if tc.start != (v.FromStart != "") {
				t.Errorf("from the start: %q", v.FromStart)
			}
			if tc.packet == 0 {
				if v.Div != nil {
					t.Fatalf("divergence at %d", v.Div.Packet)
				}
				if !tc.start && (v.NoDiv == "" || v.Compared != v.Limit) {
					t.Errorf("no divergence said %q after %d of %d packets", v.NoDiv, v.Compared, v.Limit)
				}
				if c.Text("L") == "" {
					t.Error("no text")
				}
				return
			}
			d := v.Div
			if d == nil || d.Packet != tc.packet {
				t.Fatalf("divergence %+v, want packet %d", d, tc.packet)
			}
			if d.First[0].Stat != tc.statA || d.First[1].Stat != tc.statB {
				t.Errorf("decisions %s / %s", d.First[0].Stat, d.First[1].Stat)
			}
			if tc.funcA != "" && (d.First[0].Func != tc.funcA || d.First[1].Func != tc.funcB) {
				t.Errorf("functions %s / %s", d.First[0].Func, d.First[1].Func)
			}
			if !d.Explained || d.Changes[0].Commit != tc.commit {
				t.Errorf("changes %+v", d.Changes)
			}
			text := c.Text("https://example.org/pplab/compare/?" + v.Link)
			for _, l := range strings.Split(text, "\n") {
				if len([]rune(l)) > lab.TextWidth {
					t.Errorf("a line of %d columns: %q", len([]rune(l)), l)
				}
			}
			if !strings.Contains(text, tc.commit) || !strings.Contains(text, lab.BuildID()) {
				t.Errorf("the text lacks the commit or the build:\n%s", text)
			}
			// Go to the divergence: each side at its own op before the
			// packet; stepping reaches each side's decision, highlighted.
			c.GoToPacket(1000)
			if !c.GoToDivergence() {
				t.Fatal("no divergence to go to")
			}
			if ops := c.SideOps(); ops != d.Op {
				t.Errorf("at the divergence the sides are at ops %v, want %v", ops, d.Op)
			}
			var seen [2]bool
			for range 200 {
				v := c.View()
				for i := range seen {
					seen[i] = seen[i] || v.Sides[i].AtDecision
				}
				if v.Packet >= d.Packet {
					break
				}
				c.StepOp(1)
			}
			if ops := c.SideOps(); ops != d.OpEnd {
				t.Errorf("after the packet's operations the sides are at %v, want %v", ops, d.OpEnd)
			}
			if !seen[0] || !seen[1] {
				t.Errorf("stepping through the packet showed the decisions: %v", seen)
			}
		})
	}
}

// TestCompareState_BadURLFields: each bad field of a link gets one notice
// naming it (the other side's with its with. prefix) and what is
// accepted; the rest runs.
func TestCompareState_BadURLFields(t *testing.T) {
	ex := CompareExamples()[1].Query
	for _, tc := range []struct {
		name, query string
		want        []string // in the one notice per bad field
		era, eraB   string
	}{
		{"the other side's era", strings.Replace(ex, "with.era=6.19", "with.era=4.0", 1), []string{"with.era", "4.0", "accepted", "6.19"}, "6.18", "6.18"},
		{"the first side's era", strings.Replace(ex, "era=6.18", "era=9.9", 1), []string{"era", "9.9", "accepted"}, "", "6.19"},
		{"an unknown key", ex + "&colour=blue", []string{"colour", "accepted"}, "6.18", "6.19"},
		{"a bad packet", ex + "&packet=abc", []string{"packet=abc"}, "6.18", "6.19"},
		{"a side that keeps a rule the first breaks", ex + "&packets=2000&break=frag-count&with.break=", []string{"with.break"}, "6.18", "6.19"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			c := NewCompare(q, nil)
			if len(c.banner) != 1 {
				t.Fatalf("notices: %q, want one", c.banner)
			}
			for _, w := range tc.want {
				if !strings.Contains(c.banner[0].Text, w) {
					t.Errorf("the notice %q does not say %q", c.banner[0].Text, w)
				}
			}
			a, b := c.Configs()
			if tc.era != "" && (a.EraName() != tc.era || b.EraName() != tc.eraB) {
				t.Errorf("eras %s %s, want %s %s", a.EraName(), b.EraName(), tc.era, tc.eraB)
			}
			c.Finish() // it runs
		})
	}
}

// TestCompareState_Edits: B is A plus edits; an edit that would make B
// drop a rule A breaks is refused with the reason; A's edits carry B's.
func TestCompareState_Edits(t *testing.T) {
	c := NewCompare(nil, nil)
	c.SetA("break", "frag-count")
	c.SetB("break", "frag-count")
	if !strings.Contains(c.errs["b.break"], "broken on A's side") {
		t.Errorf("B untick of A's rule: %q", c.errs["b.break"])
	}
	_, b := c.Configs()
	if !slices.Contains(b.Break, "frag-count") {
		t.Errorf("B does not break A's rule: %v", b.Break)
	}
	c.SetB("rx_descs", "2048")
	c.SetA("era", "6.8")
	a, b := c.Configs()
	if a.EraName() != "6.8" || b.EraName() != "6.10" {
		t.Errorf("eras after A's edit: %s %s", a.EraName(), b.EraName())
	}
	if k, _ := b.EffectiveKnobs(); k[mustKnob("rx_descs")] != 2048 {
		t.Errorf("B's knob edit lost: %d", k[mustKnob("rx_descs")])
	}
	c.SetB("era", "")
	if c.Edits().Era != "" {
		t.Errorf("B's era back to A's: %+v", c.Edits())
	}
	c.SetB("era", "4.0")
	if c.errs["b.era"] == "" {
		t.Error("a bad era for B was taken")
	}
	// A panic in a slice stops the work (it would panic again) and is
	// said in the banner.
	c.Recover("the comparison", "boom")
	if c.Running() || len(c.View().Banner) != 1 || !strings.Contains(c.View().Banner[0].Text, "boom") {
		t.Errorf("after a panic: running %v, banner %q", c.Running(), c.View().Banner)
	}
}

// The comparison page's state round-trips: a seeded random walk of edits
// on either side, scrubs and steps; after every action the URL read back
// opens the same two runs at the same position, and the ppsim compare
// line, read back with ppsim's flag rules (A's run flags, B = A plus the
// --with-* edits), describes the same two runs. A failure prints the
// shortest failing prefix (shrunk as property_test.go's walks are).

type cmpAction struct {
	Kind  string // a, b (an edit), goto, op, packet, div, run
	Field string
	Value string
	N     int64
}

func (a cmpAction) String() string {
	switch a.Kind {
	case "a":
		return fmt.Sprintf("c.SetA(%q, %q)", a.Field, a.Value)
	case "b":
		return fmt.Sprintf("c.SetB(%q, %q)", a.Field, a.Value)
	case "goto":
		return fmt.Sprintf("c.GoToPacket(%d)", a.N)
	case "op":
		return fmt.Sprintf("c.StepOp(%d)", a.N)
	case "packet":
		return fmt.Sprintf("c.StepPacket(%d)", a.N)
	case "div":
		return "c.GoToDivergence()"
	}
	return "c.Finish()"
}

func newCmpWalker(seed uint64) func(c *CompareState) cmpAction {
	r := rand.New(rand.NewPCG(seed, 0x51ab))
	l := lab.List()
	var eras, drvs []string
	for _, e := range l.Eras {
		eras = append(eras, e.Name)
	}
	drvs = append(drvs, "")
	for _, d := range l.Drivers {
		drvs = append(drvs, d)
	}
	rules := sim.RuleNames()
	knobs := []string{"redirect_to", "tx_cpu", "rx_descs", "pool_size", "skb_defer_max", "bulk_refill"}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	knobValue := func(name string) string {
		k, _ := sim.KnobByName(name)
		s := k.Spec()
		return strconv.FormatInt(s.Min+r.Int64N(min(s.Max-s.Min+1, 300)), 10)
	}
	return func(c *CompareState) cmpAction {
		switch n := r.IntN(20); {
		case n < 3:
			return cmpAction{Kind: "a", Field: "era", Value: pick(eras)}
		case n < 4:
			return cmpAction{Kind: "a", Field: "driver", Value: pick(drvs)}
		case n < 5:
			return cmpAction{Kind: "a", Field: pick([]string{"preset", "scenario"}), Value: pick([]string{lab.PresetTeaching, lab.PresetKernel, "forward", "xdp-redirect", "drop"})}
		case n < 6:
			k := pick(knobs)
			return cmpAction{Kind: "a", Field: k, Value: knobValue(k)}
		case n < 7:
			return cmpAction{Kind: "a", Field: "break", Value: pick(rules)}
		case n < 9:
			return cmpAction{Kind: "b", Field: "era", Value: pick(append(eras, ""))}
		case n < 10:
			return cmpAction{Kind: "b", Field: "driver", Value: pick(drvs)}
		case n < 11:
			k := pick(knobs)
			return cmpAction{Kind: "b", Field: k, Value: knobValue(k)}
		case n < 12:
			return cmpAction{Kind: "b", Field: "break", Value: pick(rules)}
		case n < 14:
			return cmpAction{Kind: "goto", N: r.Int64N(c.Limit() + 2)}
		case n < 16:
			return cmpAction{Kind: "op", N: int64(1 - 2*r.IntN(2))}
		case n < 18:
			return cmpAction{Kind: "packet", N: int64(1 - 2*r.IntN(2))}
		case n < 19:
			return cmpAction{Kind: "div"}
		}
		return cmpAction{Kind: "run"}
	}
}

func doCmp(c *CompareState, a cmpAction) {
	switch a.Kind {
	case "a":
		c.SetA(a.Field, a.Value)
	case "b":
		c.SetB(a.Field, a.Value)
	case "goto":
		c.GoToPacket(a.N)
	case "op":
		c.StepOp(int(a.N))
	case "packet":
		c.StepPacket(a.N)
	case "div":
		c.GoToDivergence()
	case "run":
		c.Finish()
	}
}

// parseCompareArgs reads a ppsim compare line as ppsim does: A's run
// flags, then B = A with the --with-* edits.
func parseCompareArgs(args []string) (a, b lab.Config, err error) {
	if len(args) == 0 || args[0] != "compare" {
		return a, b, fmt.Errorf("not a compare line: %q", args)
	}
	var with [][2]string
	for i := 1; i < len(args); i += 2 {
		if i+1 >= len(args) {
			return a, b, fmt.Errorf("flag %s without a value", args[i])
		}
		flag, val := args[i], args[i+1]
		var e error
		switch flag {
		case "--driver", "--scenario", "--era", "--packets", "--seed":
			a, e = a.With(strings.TrimPrefix(flag, "--"), val)
		case "--set":
			e = a.Knobs.Set(val)
		case "--break":
			if !slices.Contains(a.Break, val) {
				a, e = a.With("break", val)
			}
		case "--with-era", "--with-driver", "--with-set", "--with-break":
			with = append(with, [2]string{flag, val})
		default:
			e = fmt.Errorf("unknown flag %s", flag)
		}
		if e != nil {
			return a, b, e
		}
	}
	b = a
	b.Break = slices.Clone(a.Break)
	for _, w := range with {
		var e error
		switch w[0] {
		case "--with-era":
			b, e = b.With("era", w[1])
		case "--with-driver":
			b, e = b.With("driver", w[1])
		case "--with-set":
			e = b.Knobs.Set(w[1])
		case "--with-break":
			if !slices.Contains(b.Break, w[1]) {
				b, e = b.With("break", w[1])
			}
		}
		if e != nil {
			return a, b, e
		}
	}
	return a, b, nil
}

// checkCompare is the walk's check after each action ("" : it holds).
func checkCompare(c *CompareState) string {
	a, b := c.Configs()
	if got := c.Edits().Apply(a); got.Values().Encode() != b.Values().Encode() {
		return fmt.Sprintf("B is not A plus its edits: %s vs %s", got.Values().Encode(), b.Values().Encode())
	}
	for _, r := range a.Break {
		if !slices.Contains(b.Break, r) {
			return "B keeps a rule A breaks: " + r
		}
	}
	q := c.Query()
	back := NewCompare(q, nil)
	if len(back.banner) > 0 {
		return fmt.Sprintf("the URL %s reads back with notices %q", q.Encode(), back.banner)
	}
	ba, bb := back.Configs()
	if ba.Values().Encode() != a.Values().Encode() || bb.Values().Encode() != b.Values().Encode() {
		return fmt.Sprintf("the URL %s reads back as %s / %s, not %s / %s", q.Encode(), ba.Values().Encode(), bb.Values().Encode(), a.Values().Encode(), b.Values().Encode())
	}
	p, k := c.Position()
	if bp, bk := back.Position(); bp != p || bk != k || back.SideOps() != c.SideOps() {
		return fmt.Sprintf("the URL %s reads back at packet %d op %d (ops %v), not %d %d (ops %v)", q.Encode(), bp, bk, back.SideOps(), p, k, c.SideOps())
	}
	ca, cb, err := parseCompareArgs(c.CLIArgs())
	if err != nil {
		return fmt.Sprintf("the CLI line %q: %v", c.CLICommand(), err)
	}
	if ca.Values().Encode() != a.Values().Encode() || cb.Values().Encode() != b.Values().Encode() {
		return fmt.Sprintf("the CLI line %q reads as %s / %s, not %s / %s", c.CLICommand(), ca.Values().Encode(), cb.Values().Encode(), a.Values().Encode(), b.Values().Encode())
	}
	return ""
}

// cmpWalk runs actions from a fresh page (at 400 packets, to keep the
// walk fast), checking after each; a panic fails too.
func cmpWalk(n int, next func(i int, c *CompareState) cmpAction) (res walkResult) {
	res.at = -1
	i := -1
	defer func() {
		if r := recover(); r != nil {
			res = walkResult{i, fmt.Sprintf("panic: %v", r)}
		}
	}()
	c := NewCompare(url.Values{"packets": {"400"}, "scenario": {"xdp-redirect"}, "driver": {"mlx5"}, "era": {"6.9"}, "redirect_to": {"1"}, "sizes": {"kernel"}, "with.era": {"6.10"}}, nil)
	if msg := checkCompare(c); msg != "" {
		return walkResult{0, "at the start: " + msg}
	}
	for i = range n {
		doCmp(c, next(i, c))
		if msg := checkCompare(c); msg != "" {
			return walkResult{i, msg}
		}
	}
	return res
}

func shrinkCmp(actions []cmpAction) ([]cmpAction, walkResult) {
	return shrinkWith(actions, func(as []cmpAction) walkResult {
		return cmpWalk(len(as), func(i int, _ *CompareState) cmpAction { return as[i] })
	})
}

func TestCompareProperty_LinkAndCLIKeepBothRuns(t *testing.T) {
	walks, length := 12, 40
	if testing.Short() {
		walks = 3
	}
	for seed := 1; seed <= walks; seed++ {
		next := newCmpWalker(uint64(seed))
		var actions []cmpAction
		res := cmpWalk(length, func(i int, c *CompareState) cmpAction {
			a := next(c)
			actions = append(actions, a)
			return a
		})
		if res.at < 0 {
			continue
		}
		short, r := shrinkCmp(actions)
		var b strings.Builder
		for _, a := range short {
			fmt.Fprintf(&b, "\n\t%s", a)
		}
		t.Fatalf("walk %d: after action %d: %s\nshortest failing sequence (%d actions):%s", seed, res.at, r.msg, len(short), b.String())
	}
}

// TestCompareState_UnusableWithKeys: a with.KEY the page does not use
// changes nothing (with.scenario brings no driver along), A's fields
// (packets) are kept, and a notice names each key once, "key=value".
func TestCompareState_UnusableWithKeys(t *testing.T) {
	q, _ := url.ParseQuery("scenario=xdp-redirect&era=6.9&packets=5000&with.era=6.12&with.scenario=forward")
	c := NewCompare(q, nil)
	a, b := c.Configs()
	if a.Scenario != "xdp-redirect" || a.Packets != 5000 || a.EraName() != "6.9" || b.EraName() != "6.12" || b.Scenario != "xdp-redirect" || b.DriverName() != a.DriverName() {
		t.Fatalf("A %s %d %s, B %s %s %s", a.Scenario, a.Packets, a.EraName(), b.Scenario, b.EraName(), b.DriverName())
	}
	if len(c.banner) != 1 || !strings.Contains(c.banner[0].Text, "with.scenario=forward") || !strings.Contains(c.banner[0].Text, "ignored") {
		t.Errorf("notices %q", c.banner)
	}
	for _, tc := range []struct{ query, want string }{
		{"scenario=xdp-redirect&with.nope=1", "with.nope=1: unknown"},
		{"scenario=forward&driver=mlx5&with.tx_cpu=99", "URL: with.tx_cpu=99: want"},
	} {
		q, _ := url.ParseQuery(tc.query)
		c := NewCompare(q, nil)
		if len(c.banner) != 1 || !strings.Contains(c.banner[0].Text, tc.want) || strings.Count(c.banner[0].Text, "with.") > 1 && !strings.Contains(c.banner[0].Text, "with.KEY") {
			t.Errorf("%s: notices %q, want one with %q", tc.query, c.banner, tc.want)
		}
	}
}

// TestCompareState_WithEditsThatDoNotRun: a with-edit B does not run with
// is dropped, named; A and the other edits are kept, never the default.
func TestCompareState_WithEditsThatDoNotRun(t *testing.T) {
	a, err := lab.Preset(lab.PresetKernel, "xdp-redirect")
	if err != nil {
		t.Fatal(err)
	}
	a.Era, a.Packets = "6.9", 5000
	c := &CompareState{list: lab.List(), errs: map[string]string{}}
	kept, why := c.usableEdits(a, With{Era: "6.12", Driver: "lunar"})
	if kept.Era != "6.12" || kept.Driver != "" || len(why) != 1 || !strings.Contains(why[0], "with.driver=lunar") {
		t.Errorf("kept %+v, why %q", kept, why)
	}
}

// TestCompareState_ScenarioChange: A's new scenario leaves the old one's
// own knobs behind (redirect_to: the URL, both sides' flags, the CLI
// line) and says that the driver became the new scenario's default.
func TestCompareState_ScenarioChange(t *testing.T) {
	q, _ := url.ParseQuery(CompareExamples()[0].Query)
	c := NewCompare(q, nil)
	c.SetA("scenario", "forward")
	if len(c.errs) > 0 {
		t.Fatalf("refused: %v", c.errs)
	}
	a, b := c.Configs()
	if a.Scenario != "forward" || b.Scenario != "forward" || b.EraName() != "6.10" {
		t.Fatalf("A %s, B %s %s", a.Scenario, b.Scenario, b.EraName())
	}
	for _, s := range []string{c.Query().Encode(), c.CLICommand(), runFlags(a), runFlags(b)} {
		if strings.Contains(s, "redirect_to") {
			t.Errorf("the old scenario's knob stays: %s", s)
		}
	}
	if len(c.banner) != 1 || !strings.Contains(c.banner[0].Text, "lunar") || !strings.Contains(c.banner[0].Text, "mlx5") {
		t.Errorf("the driver change unsaid: %q", c.banner)
	}
	// A driver chosen explicitly stays.
	c = NewCompare(q, nil)
	c.SetA("driver", "bnxt")
	c.SetA("scenario", "forward")
	if a, _ := c.Configs(); a.DriverName() != "bnxt" || len(c.banner) != 0 {
		t.Errorf("explicit driver: %s, %q, %v", a.DriverName(), c.banner, c.errs)
	}
}

// TestCompareState_ResultsAsTheCLI: the results of runs with a rule
// broken (checked after every operation, now by the CLI's own comparison
// rather than keyframed runs 25 times slower) and without are the CLI's.
func TestCompareState_ResultsAsTheCLI(t *testing.T) {
	for _, s := range []string{"driver=mlx5&era=6.18&scenario=forward&v=2&packets=20000&with.break=napi-locality", CompareExamples()[0].Query + "&packets=20000"} {
		q, _ := url.ParseQuery(s)
		c := NewCompare(q, nil)
		c.Finish()
		a, b := c.Configs()
		r, err := lab.Compare(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.Text("x"), lab.CompareText(r, "x"); got != want {
			t.Errorf("%s: the page's text\n%s\nthe CLI's\n%s", s, got, want)
		}
	}
}

// TestCompareView_PositionWords: the status line and each side's line say
// one position: before the divergent packet, it is next (and how to step
// it); at its end, "packet N done" on both sides, with the packet's
// operations listed, the one holding the differing decision among them.
func TestCompareView_PositionWords(t *testing.T) {
	q, _ := url.ParseQuery(CompareExamples()[1].Query)
	c := NewCompare(q, nil)
	c.Finish()
	c.GoToDivergence()
	v := c.View()
	if !strings.Contains(v.Now, "Packet 64 ") || !strings.Contains(v.Now, "divergent packet 65 is next") || !strings.Contains(v.Now, "Shift+→") {
		t.Errorf("before: %q", v.Now)
	}
	c.StepPacket(1)
	v = c.View()
	if !strings.Contains(v.Now, "divergent packet 65's operations done") {
		t.Errorf("after: %q", v.Now)
	}
	for i, s := range v.Sides {
		if !strings.HasPrefix(s.Where, "65 packets received") || !strings.Contains(s.Where, "packet 65 done") || strings.Contains(s.Where, "this packet") {
			t.Errorf("side %d: %q", i, s.Where)
		}
		if len(s.Window) < 2 || s.Decision == nil {
			t.Fatalf("side %d: %d operations listed, decision %v", i, len(s.Window), s.Decision)
		}
		found := false
		for _, r := range s.Window {
			found = found || r.Op.Index == s.Decision.Op
		}
		if !found || s.Op != c.SideOps()[i] || s.Window[len(s.Window)-1].Op.Index+1 != s.Op {
			t.Errorf("side %d: the decision's op %d not among the listed, or the side not at the packet's end (%d)", i, s.Decision.Op, s.Op)
		}
	}
	c.StepOp(-1)
	if v := c.View(); len(v.Sides[0].Window) != 0 || !strings.Contains(v.Sides[0].Where, "of packet 65's") {
		t.Errorf("inside the packet: %d listed, %q", len(v.Sides[0].Window), v.Sides[0].Where)
	}
}

// TestCompareState_WithBreakBesidesA: a with.break that leaves out a rule
// A breaks still adds its own rules to B; A's stay broken, said once.
func TestCompareState_WithBreakBesidesA(t *testing.T) {
	q, _ := url.ParseQuery(CompareExamples()[1].Query + "&packets=2000&break=frag-count&with.break=napi-locality")
	c := NewCompare(q, nil)
	_, b := c.Configs()
	if !slices.Equal(b.Break, []string{"frag-count", "napi-locality"}) || len(c.banner) != 1 || !strings.Contains(c.banner[0].Text, "frag-count kept broken") {
		t.Errorf("B breaks %v; notices %q", b.Break, c.banner)
	}
}
