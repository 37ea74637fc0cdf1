package session

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The page runs what it shows: a seeded random walk of a user's actions
// at teaching sizes — select choices that run and ones that do not, knob
// edits with values that fit and ones that do not, rule ticks, steps,
// back, reset, seek, go to, run to the end, an era change mid-run, the
// comparison — and after every action the controls, the run, the link and
// the CLI line agree, and the page's counters and violations equal an
// independent run of the same config taken to the same operation
// (lab.ReplayTo). A failure prints the shortest failing action sequence
// (shrunk). A sample of the walk's states is run through the real ppsim
// (`ppsim run … --ops N`): it accepts the page's line and prints the same
// counters and violations.

// action is one user action of a walk (a value: a walk replays exactly).
type action struct {
	Kind  string // set, step, steps, back, packet, reset, seek, goto, end, compare
	Field string // set: the field; goto: the unit
	Value string // set, goto, compare: the value
	N     uint64 // steps, seek: the count / the op
}

func (a action) String() string {
	switch a.Kind {
	case "set":
		return fmt.Sprintf("s.Set(%q, %q)", a.Field, a.Value)
	case "steps":
		return fmt.Sprintf("%d × s.Step()", a.N)
	case "seek":
		return fmt.Sprintf("s.Seek(%d)", a.N)
	case "goto":
		return fmt.Sprintf("s.GoTo(%q, %q)", a.Field, a.Value)
	case "compare":
		return fmt.Sprintf("s.Compare(%q)", a.Value)
	case "end":
		return "s.RunToEnd + frames"
	}
	return "s." + strings.ToUpper(a.Kind[:1]) + a.Kind[1:] + "()"
}

// maxWalkOps: a walk stays within this many operations (the page's state
// is checked against a replay of the same length after every action).
const maxWalkOps = 2000

// walker draws actions from a seeded source, knowing the session's state
// only through what a user sees (the op reached).
type walker struct {
	r     *rand.Rand
	scens []string
	drvs  []string
	eras  []string
	rules []string
	knobs []sim.KnobSpec
}

func newWalker(seed uint64) *walker {
	w := &walker{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	l := lab.List()
	for _, s := range l.Scenarios {
		w.scens = append(w.scens, s.Name)
	}
	w.drvs = append(w.drvs, "")
	for _, d := range l.Drivers {
		w.drvs = append(w.drvs, d)
	}
	for _, e := range sim.Eras {
		w.eras = append(w.eras, e.Name)
	}
	for _, r := range l.Rules {
		w.rules = append(w.rules, r.Name)
	}
	w.knobs = sim.AllKnobs()
	return w
}

func (w *walker) pick(xs []string) string { return xs[w.r.IntN(len(xs))] }

// next is the next action at op (the op the page shows).
func (w *walker) next(op uint64) action {
	switch n := w.r.IntN(100); {
	case n < 10:
		return action{Kind: "set", Field: "scenario", Value: w.pick(w.scens)}
	case n < 18:
		return action{Kind: "set", Field: "driver", Value: w.pick(w.drvs)}
	case n < 28:
		return action{Kind: "set", Field: "era", Value: w.pick(w.eras)}
	case n < 40:
		k := w.knobs[w.r.IntN(len(w.knobs))]
		return action{Kind: "set", Field: k.Name, Value: w.knobValue(k)}
	case n < 46:
		return action{Kind: "set", Field: "break", Value: w.pick(w.rules)}
	case n < 49:
		return action{Kind: "set", Field: "packets", Value: w.pick([]string{"60", "300", "1000", "20000", "1000000", "0", "-5", "many"})}
	case n < 51:
		return action{Kind: "set", Field: "seed", Value: w.pick([]string{"0", "1", "42", "-1", "x"})}
	case n < 52:
		return action{Kind: "set", Field: "preset", Value: w.pick([]string{"teaching", "huge"})}
	case n < 66:
		if op >= maxWalkOps {
			return action{Kind: "back"}
		}
		return action{Kind: "steps", N: uint64(1 + w.r.IntN(40))}
	case n < 70:
		return action{Kind: "packet"}
	case n < 75:
		return action{Kind: "back"}
	case n < 77:
		return action{Kind: "reset"}
	case n < 84:
		return action{Kind: "seek", N: uint64(w.r.IntN(maxWalkOps + 1))}
	case n < 89:
		unit := w.pick([]string{"op", "packet", "fraction", "op", "packet"})
		val := strconv.Itoa(w.r.IntN(maxWalkOps/2 + 1))
		switch {
		case unit == "fraction":
			val = w.pick([]string{"0", "0.0001", "0.0005", "2", "x"}) // within the walk's depth at 10^6 packets
		case w.r.IntN(6) == 0:
			val = w.pick([]string{"-3", "", "ten", "1e3"})
		}
		return action{Kind: "goto", Field: unit, Value: val}
	case n < 91:
		return action{Kind: "end"}
	case n < 96:
		return action{Kind: "compare", Value: w.pick(append([]string{"", "era:x", "5.12"}, prefixAll("era:", w.eras)...))}
	}
	return action{Kind: "step"}
}

func prefixAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}

// knobValue is a value for k: mostly one that is in range and small (the
// walk stays at teaching sizes), sometimes one that is not accepted.
func (w *walker) knobValue(k sim.KnobSpec) string {
	switch w.r.IntN(10) {
	case 0:
		return strconv.FormatInt(k.Max+1, 10)
	case 1:
		return w.pick([]string{"-77", "", "lots", "1.5"})
	case 2, 3:
		return strconv.FormatInt(k.Default, 10)
	}
	span := min(k.Max-k.Min, 64)
	return strconv.FormatInt(k.Min+w.r.Int64N(span+1), 10)
}

// do applies a to s as the page does.
func do(s *Session, a action) {
	switch a.Kind {
	case "set":
		s.Set(a.Field, a.Value)
	case "step":
		s.Step()
	case "steps":
		for i := uint64(0); i < a.N && s.Lab().Ops() < maxWalkOps; i++ {
			s.Step()
		}
	case "back":
		s.Back()
	case "packet":
		s.Packet()
	case "reset":
		s.Reset()
	case "seek":
		s.Seek(a.N)
	case "goto":
		s.GoTo(a.Field, a.Value)
	case "end":
		// Only a short run is played to its end (a walk's depth stays
		// bounded); otherwise the button's press plays and is paused.
		// (Without a clock a max-speed frame runs to the end at once.)
		s.RunToEnd(1)
		if p := s.Config().Packets; p > 0 && p <= 1000 {
			for ts := 2.0; s.Playing(); ts++ {
				s.Frame(ts)
			}
		} else if s.Playing() {
			s.TogglePlay(3)
		}
	case "compare":
		s.Compare(a.Value)
		s.CompareSlice(0)
	default:
		panic("unknown action " + a.Kind)
	}
	s.Idle()
}

// checker compares a session with independent runs: one seekable reference
// lab per config, moved forward (or rebuilt) to the session's op.
type checker struct {
	refKey string
	ref    *lab.Lab
}

// check reports the first disagreement in s after an action ("" when all
// agree).
func (c *checker) check(s *Session) string {
	v := s.View()
	cfg := s.Config()
	l := s.Lab()
	op := l.Ops()
	ctl := v.Controls
	// The controls show the config in use.
	eff, err := cfg.EffectiveKnobs()
	if err != nil {
		return "the config in use does not validate: " + err.Error()
	}
	// The CLI line names the era; the config with it named must be the
	// same run (ppsim refuses what the page would run in another era).
	if err := pinned(cfg).Validate(); err != nil {
		return fmt.Sprintf("the page runs %q, but with its era named (%s, as the CLI line says) it does not run: %v", cfg.Values().Encode(), cfgEra(cfg), err)
	}
	if l.Snapshot().Era != cfgEra(cfg) {
		return fmt.Sprintf("the run is in era %s, the page names %s", l.Snapshot().Era, cfgEra(cfg))
	}
	if ctl.Scenario != cfg.Scenario || ctl.Driver != cfg.Driver || ctl.Era != cfgEra(cfg) ||
		ctl.Seed != strconv.FormatUint(cfg.Seed, 10) || ctl.Packets != strconv.FormatInt(max(cfg.Packets, 0)+boolInt(cfg.Packets == 0)*lab.DefaultPackets, 10) {
		return fmt.Sprintf("the controls show %s/%s/%s seed %s packets %s, the run is %s", ctl.Scenario, ctl.Driver, ctl.Era, ctl.Seed, ctl.Packets, cfg.Values().Encode())
	}
	if ctl.Preset != lab.PresetOf(cfg) {
		return fmt.Sprintf("the sizes select shows %s, the run's sizes are %s", ctl.Preset, lab.PresetOf(cfg))
	}
	for _, k := range ctl.Knobs {
		n, _ := sim.KnobByName(k.Name)
		if k.Value != strconv.FormatInt(eff[n], 10) {
			return fmt.Sprintf("knob %s shows %s, the run has %d", k.Name, k.Value, eff[n])
		}
	}
	for _, r := range ctl.Rules {
		if r.Broken != slices.Contains(cfg.Break, r.Name) {
			return fmt.Sprintf("rule %s shows broken=%v, the run breaks %v", r.Name, r.Broken, cfg.Break)
		}
	}
	// The link is the run: its config, its op, its comparison.
	q, err := url.ParseQuery(v.Link)
	if err != nil {
		return "the link does not parse: " + err.Error()
	}
	ui := takeUIParams(q)
	back, err := lab.ParseConfig(ui.rest)
	if err != nil || back.Values().Encode() != cfg.Values().Encode() {
		return fmt.Sprintf("the link %q reads back as %q (%v), the run is %q", v.Link, back.Values().Encode(), err, cfg.Values().Encode())
	}
	if ui.step != op || len(ui.notices) > 0 {
		return fmt.Sprintf("the link says step %d (%v), the run is at op %d", ui.step, ui.notices, op)
	}
	if ui.cmp != s.cmpMode {
		return fmt.Sprintf("the link's comparison %q, the page's %q", ui.cmp, s.cmpMode)
	}
	if s.cmp != nil && (s.cmp.Config().Era == cfgEra(cfg) || !sameButEra(s.cmp.Config(), cfg)) {
		return fmt.Sprintf("the comparison runs %q beside %q", s.cmp.Config().Values().Encode(), cfg.Values().Encode())
	}
	// The CLI line is the config's, and it parses back to it.
	if want := "ppsim " + strings.Join(CLIArgs(cfg), " "); v.CLI != want {
		return fmt.Sprintf("CLI %q, want %q", v.CLI, want)
	}
	// The timeline and the counters are the run's, at the op shown, and
	// equal an independent run's there.
	if v.Timeline.Op != op || v.Stats.Op != op || v.Timeline.Packets != l.Packets() {
		return fmt.Sprintf("the timeline shows op %d (packet %d), the run is at op %d (packet %d)", v.Timeline.Op, v.Timeline.Packets, op, l.Packets())
	}
	if v.Timeline.Done != l.Done() {
		return fmt.Sprintf("the timeline says done=%v, the run %v", v.Timeline.Done, l.Done())
	}
	key := cfg.Values().Encode()
	if c.ref == nil || c.refKey != key || c.ref.Ops() > op {
		r, err := lab.ReplayTo(cfg, op)
		if err != nil {
			return "the independent run does not build: " + err.Error()
		}
		c.ref, c.refKey = r, key
	} else if c.ref.Ops() < op {
		c.ref.Seek(op)
	}
	rs := c.ref.Snapshot()
	if rs.Op != op || rs.Packets != v.Stats.Packets || rs.Stats != v.Stats.Stats || rs.Inflight != v.Stats.Inflight {
		return fmt.Sprintf("at op %d the page shows %d packets, %v, inflight %d; the independent run (op %d) %d packets, %v, inflight %d",
			op, v.Stats.Packets, v.Stats.Stats, v.Stats.Inflight, rs.Op, rs.Packets, rs.Stats, rs.Inflight)
	}
	if rs.Violations != v.Violations.Counts {
		return fmt.Sprintf("at op %d the page counts violations %v, the independent run %v", op, v.Violations.Counts, rs.Violations)
	}
	return ""
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// sameButEra: a and b are the same config but for the era.
func sameButEra(a, b lab.Config) bool {
	// Both in b's era, not in none: a config resolves in its era (a knob
	// only some eras take, preempt_rt, would not resolve in the default
	// one, and its URL form would then spell out its platform).
	a.Era = b.Era
	return a.Values().Encode() == b.Values().Encode()
}

// walkResult is where a walk failed (-1: it did not) and why.
type walkResult struct {
	at  int
	msg string
}

// replay runs actions on a fresh session, checking after each; a panic is
// a failure too.
func replay(actions []action) walkResult {
	return walk(len(actions), func(i int, _ *Session) action { return actions[i] }, nil)
}

// walk runs n actions, each drawn by next from the session's state, on a
// fresh session, checking after each; a panic is a failure too.
func walk(n int, next func(i int, s *Session) action, sample func(s *Session, i int)) (res walkResult) {
	res.at = -1
	i := -1
	defer func() {
		if r := recover(); r != nil {
			res = walkResult{i, fmt.Sprintf("panic: %v", r)}
		}
	}()
	s := New(nil, nil)
	var c checker
	if msg := c.check(s); msg != "" {
		return walkResult{0, "at the start: " + msg}
	}
	for i = range n {
		do(s, next(i, s))
		if msg := c.check(s); msg != "" {
			return walkResult{i, msg}
		}
		if sample != nil {
			sample(s, i)
		}
	}
	return res
}

// shrink returns a shortest-found prefix-and-subset of actions that still
// fails (ddmin-style: drop chunks, halving their size).
func shrink(actions []action) ([]action, walkResult) { return shrinkWith(actions, replay) }

// shrinkWith is shrink for any walk: replay runs a sequence of actions
// and says where it failed (at < 0: it did not).
func shrinkWith[A any](actions []A, replay func([]A) walkResult) ([]A, walkResult) {
	res := replay(actions)
	actions = actions[:res.at+1]
	for chunk := len(actions) / 2; chunk >= 1; chunk /= 2 {
		for start := 0; start < len(actions); {
			cand := append(slices.Clone(actions[:start]), actions[min(start+chunk, len(actions)):]...)
			if r := replay(cand); r.at >= 0 {
				actions, res = cand[:r.at+1], r
				continue
			}
			start += chunk
		}
	}
	return actions, res
}

// cliSample is a state of a walk to run through the real ppsim.
type cliSample struct {
	args []string
	op   uint64
	pkts int64
	st   sim.Stats
	viol [sim.NumKinds]int
}

func TestProperty_ThePageRunsWhatItShows(t *testing.T) {
	walks, length := 50, 200 // 10 000 actions
	if testing.Short() {
		walks = 5 // 1 000
	}
	if s := os.Getenv("PPLAB_WALKS"); s != "" {
		walks, _ = strconv.Atoi(s)
	}
	var (
		mu      sync.Mutex
		samples []cliSample
	)
	for seed := 1; seed <= walks; seed++ {
		w := newWalker(uint64(seed))
		var actions []action
		res := walk(length, func(i int, s *Session) action {
			a := w.next(s.Lab().Ops())
			actions = append(actions, a)
			return a
		}, func(s *Session, i int) {
			if i%40 == 39 {
				mu.Lock()
				defer mu.Unlock()
				v := s.View()
				samples = append(samples, cliSample{args: s.CLIArgs(), op: s.Lab().Ops(), pkts: v.Stats.Packets, st: v.Stats.Stats, viol: v.Violations.Counts})
			}
		})
		if res.at < 0 {
			continue
		}
		short, r := shrink(actions)
		var b strings.Builder
		for _, a := range short {
			fmt.Fprintf(&b, "\n\t%s", a)
		}
		t.Fatalf("walk %d: after action %d: %s\nshortest failing sequence (%d actions, from New(nil, nil)):%s", seed, res.at, r.msg, len(short), b.String())
	}
	t.Logf("%d walks of %d actions agree; %d states for ppsim", walks, length, len(samples))
	checkWithPpsim(t, samples)
}

// checkWithPpsim runs each sample's CLI line with --ops through the real
// ppsim binary: it accepts the line, and at that op prints the page's
// counters and violations. (A state at op 0 has no --ops form: skipped.)
func checkWithPpsim(t *testing.T, samples []cliSample) {
	bin := filepath.Join(t.TempDir(), "ppsim")
	if out, err := exec.Command("go", "build", "-o", bin, "pplab/cmd/ppsim").CombinedOutput(); err != nil {
		t.Fatalf("building ppsim: %v\n%s", err, out)
	}
	for _, smp := range samples {
		if smp.op == 0 {
			continue
		}
		args := append(slices.Clone(smp.args), "--ops", strconv.FormatUint(smp.op, 10))
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Errorf("ppsim %s: %v", strings.Join(args, " "), err)
			continue
		}
		var got struct {
			Packets    int64            `json:"packets"`
			Stats      map[string]int64 `json:"stats"`
			Violations map[string]int   `json:"violations"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Errorf("ppsim %s: %v", strings.Join(args, " "), err)
			continue
		}
		if got.Packets != smp.pkts {
			t.Errorf("ppsim %s: %d packets, the page %d", strings.Join(args, " "), got.Packets, smp.pkts)
		}
		for i := range sim.NumStats {
			if n := sim.Stat(i).String(); got.Stats[n] != int64(smp.st[i]) {
				t.Errorf("ppsim %s: %s %d, the page %d", strings.Join(args, " "), n, got.Stats[n], smp.st[i])
			}
		}
		for k := range sim.NumKinds {
			if n := sim.Kind(k).String(); got.Violations[n] != smp.viol[k] {
				t.Errorf("ppsim %s: violations %s %d, the page %d", strings.Join(args, " "), n, got.Violations[n], smp.viol[k])
			}
		}
	}
}
