package session

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The comparison page (/compare/): two runs of one workload under two
// kernels (or two drivers, knob sets, broken rules) side by side, aligned
// by packet, and the first packet they treat differently.
//
// The second run (B) is always the first (A) plus edits — another era, another
// driver, knobs set, rules broken besides A's — as `ppsim compare` takes
// them (--with-era, --with-driver, --with-set, --with-break): B's broken
// rules include A's. CompareState holds A, the edits (With), the
// comparison (lab.Comparer, advanced in slices: Slice), both runs' results
// for the text, the position (a packet and an operation into the next
// packet's window, the same on both sides) and the two runs shown at it.

// URL keys of the comparison page besides the two-run config form.
const (
	ComparePacketKey = "packet" // packets received on both sides
	CompareOpKey     = "op"     // operations into the next packet's window
)

// With is how B differs from A, as ppsim compare's --with-* flags say it
// (lab.Edits: its Apply is the second run).
type With = lab.Edits

// WithOf is how b differs from a as edits of a; what b does that no edit
// of a says (another scenario, seed, packets or platform, a rule a breaks
// that b keeps) is left out, each named in dropped (the with.KEY).
func WithOf(a, b lab.Config) (w With, dropped []string) {
	if b.EraName() != a.EraName() {
		w.Era = b.EraName()
	}
	if da, db := a.DriverName(), b.DriverName(); da != db {
		w.Driver = db
	}
	// A knob is an edit where B's value is not what A's knobs give in
	// B's era (a default an era changed is the era's doing, not an edit).
	base, errA := w.Apply(a).EffectiveKnobs()
	kb, errB := b.EffectiveKnobs()
	if errA == nil && errB == nil {
		for k := sim.Knob(0); k < sim.NumKnobs; k++ {
			if kb[k] != base[k] {
				w.Knobs = w.Knobs.With(k, kb[k])
			}
		}
	}
	for _, r := range b.Break {
		if !slices.Contains(a.Break, r) {
			w.Break = append(w.Break, r)
		}
	}
	slices.Sort(w.Break)
	for _, r := range a.Break {
		if !slices.Contains(b.Break, r) {
			dropped = append(dropped, lab.WithPrefix+"break")
			break
		}
	}
	if a.Scenario != b.Scenario {
		dropped = append(dropped, lab.WithPrefix+"scenario")
	}
	if a.Seed != b.Seed {
		dropped = append(dropped, lab.WithPrefix+"seed")
	}
	if a.Packets != b.Packets {
		dropped = append(dropped, lab.WithPrefix+"packets")
	}
	if a.Platform != b.Platform {
		dropped = append(dropped, lab.WithPrefix+"platform")
	}
	return w, dropped
}

// CompareCLIArgs is the `ppsim compare` command line (without the
// program's name) of a and w: A's `ppsim run` flags with "compare" for
// "run", then B's edits.
func CompareCLIArgs(a lab.Config, w With) []string {
	args := slices.Clone(CLIArgs(a))
	args[0] = "compare"
	if args[len(args)-1] == "--json" {
		args = args[:len(args)-1]
	}
	if w.Era != "" {
		args = append(args, "--with-era", w.Era)
	}
	if w.Driver != "" {
		args = append(args, "--with-driver", w.Driver)
	}
	for _, s := range w.Knobs.Assignments() {
		args = append(args, "--with-set", s)
	}
	for _, r := range w.Break {
		args = append(args, "--with-break", r)
	}
	return args
}

// CompareDefault is what the page compares without a URL: the issue's
// first case, mlx5 XDP-redirecting to a second port at the driver's own
// sizes, 6.9 against 6.10.
func CompareDefault() (lab.Config, With) {
	a, err := lab.Preset(lab.PresetKernel, "xdp-redirect")
	if err != nil {
		panic("the comparison's default: " + err.Error())
	}
	a.Driver, a.Era = "mlx5", "6.9"
	a.Knobs = a.Knobs.With(mustKnob("redirect_to"), 1)
	return a, With{Era: "6.10"}
}

func mustKnob(name string) sim.Knob {
	k, ok := sim.KnobByName(name)
	if !ok {
		panic("no knob " + name)
	}
	return k
}

// CompareExample is a link the page offers.
type CompareExample struct {
	Label string
	Query string // the two-run URL query
}

// CompareExamples are the two cases.
func CompareExamples() []CompareExample {
	a, w := CompareDefault()
	f, err := lab.Preset(lab.PresetKernel, "forward")
	if err != nil {
		panic(err)
	}
	f.Driver, f.Era = "mlx5", "6.18"
	f.Knobs = f.Knobs.With(mustKnob("tx_cpu"), 1)
	fw := With{Era: "6.19"}
	return []CompareExample{
		{"6.9 vs 6.10, mlx5 xdp-redirect to a second port", lab.CompareValues(a, w.Apply(a)).Encode()},
		{"6.18 vs 6.19, mlx5 forward, TX completion on cpu1", lab.CompareValues(f, fw.Apply(f)).Encode()},
	}
}

// side is one run as the page shows it: a seekable, recorded run and the
// operation counts at which it had received each packet (as far as asked).
type side struct {
	lab  *lab.Lab
	cfg  lab.Config
	opAt map[int64]uint64
	// win: at the end of the divergent packet, each of its operations'
	// records (the decision that differs is rarely the last operation).
	win []lab.StepRecord
}

// maxWindowOps caps the divergent packet's operations the page lists.
const maxWindowOps = 64

// window steps from op lo to hi recording each operation; the side ends
// at hi.
func (s *side) window(lo, hi uint64) []lab.StepRecord {
	if s.lab.Ops() != lo {
		s.lab.Seek(lo)
	}
	var out []lab.StepRecord
	for s.lab.Ops() < hi && len(out) < maxWindowOps {
		before := s.lab.Ops()
		s.lab.Step()
		if s.lab.Ops() == before {
			break
		}
		if r, ok := s.lab.StepRecord(); ok {
			out = append(out, r)
		}
	}
	if s.lab.Ops() != hi {
		s.lab.Seek(hi)
	}
	return out
}

func newSide(cfg lab.Config) (*side, error) {
	l, err := lab.New(cfg)
	if err != nil {
		return nil, err
	}
	l.EnableSeek()
	l.Record(true)
	return &side{lab: l, cfg: cfg, opAt: map[int64]uint64{0: 0}}, nil
}

// at is the operation count at which the run had received p packets (its
// last operation when it ends sooner).
func (s *side) at(p int64) uint64 {
	if op, ok := s.opAt[p]; ok {
		return op
	}
	if len(s.opAt) > 4096 {
		s.opAt = map[int64]uint64{0: 0}
	}
	op, _ := lab.OpAtPackets(s.cfg, p)
	s.opAt[p] = op
	return op
}

// CompareState is the comparison page's state: plain Go, tested natively.
type CompareState struct {
	// Clock is the wall time in ms (performance.now()); Slice uses it.
	Clock func() float64

	list   lab.ListJSON
	a      lab.Config
	with   With
	b      lab.Config
	banner []Notice
	errs   map[string]string // "a.FIELD" or "b.FIELD" -> why the edit was refused
	embed  bool

	sides [2]*side
	cmp   *lab.Comparer
	res   lab.Comparison
	phase string // "compare", "explain", "results", "" (done)
	rl    [2]*lab.Lab
	rdone bool // both results runs are at their ends

	packet int64 // position: packets received on both sides
	k      int   // and operations into the next packet's window

	dirty bool
}

// NewCompare builds the page's state from a URL query (nil: the default).
// Every bad field falls back with one notice naming it; the rest runs.
func NewCompare(q url.Values, clock func() float64) *CompareState {
	c := &CompareState{Clock: clock, list: lab.List(), errs: map[string]string{}}
	a, w := CompareDefault()
	cq := url.Values{}
	var packet int64
	k := 0
	for key, vals := range q {
		v := ""
		if len(vals) > 0 {
			v = vals[len(vals)-1]
		}
		switch key {
		case ComparePacketKey:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				c.Notify("notice", fmt.Sprintf("URL: packet=%s: want a packet count (0 or more) — opened at packet 0", clip(v)))
				continue
			}
			packet = n
		case CompareOpKey:
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				c.Notify("notice", fmt.Sprintf("URL: op=%s: want an operation count into the packet (0 or more) — opened at 0", clip(v)))
				continue
			}
			k = n
		case EmbedKey:
			e, ok := parseEmbed(v)
			if !ok {
				c.Notify("notice", fmt.Sprintf("URL: embed=%s: want 1 or 0 — the full page", clip(v)))
			}
			c.embed = e
		default:
			cq[key] = vals
		}
	}
	if len(cq) > 0 {
		pa, pb, two, err := lab.ParseCompare(cq)
		again := false
		for _, fe := range lab.FieldErrors(err) {
			c.Notify("notice", "URL: "+compareFieldNotice(fe))
			if strings.HasPrefix(fe.Field, lab.WithPrefix) && cq.Has(fe.Field) {
				// A bad with.KEY: the other side keeps A's value (no
				// edit), not the key's default.
				cq.Del(fe.Field)
				again = true
			}
		}
		if again {
			pa, pb, two, _ = lab.ParseCompare(cq)
		}
		if pa.Scenario != "" && two && pb.Scenario != "" {
			// A with.KEY no --with-* flag says (another scenario, seed,
			// packets, platform; a rule A breaks kept intact) is ignored
			// entirely: B is A plus the usable edits (with.scenario must
			// not bring its scenario's driver along).
			if _, dropped := WithOf(pa, pb); len(dropped) > 0 {
				for _, d := range dropped {
					name := d
					if cq.Has(d) {
						name += "=" + clip(cq.Get(d))
					}
					if d == lab.WithPrefix+"break" {
						// Its rules besides A's are used: A's stay broken.
						c.Notify("notice", "URL: "+name+": the other side breaks every rule the first breaks (ppsim compare's --with-break adds a rule) — "+strings.Join(pa.Break, ", ")+" kept broken on it")
						continue
					}
					c.Notify("notice", "URL: "+name+": the other side differs from the first only in era, driver, knobs and rules it breaks besides the first's (ppsim compare's --with-* flags) — ignored")
					cq.Del(d)
				}
				pa, pb, two, _ = lab.ParseCompare(cq)
			}
		}
		if pa.Scenario != "" {
			a = pa
			w = With{}
			if two && pb.Scenario != "" {
				w, _ = WithOf(pa, pb)
			}
		}
	}
	if err := c.build(a, w); err != nil {
		// A that runs is kept: the with-edits that do not run with it
		// are dropped, each named; the default only when A does not run.
		if kept, why := c.usableEdits(a, w); c.build(a, kept) == nil {
			for _, n := range why {
				c.Notify("notice", "URL: "+n)
			}
		} else {
			c.Notify("notice", "URL: the comparison does not run ("+err.Error()+") — the default example instead")
			da, dw := CompareDefault()
			if err := c.build(da, dw); err != nil {
				panic("the comparison's default does not run: " + err.Error())
			}
		}
	}
	c.seekTo(packet, k)
	return c
}

// usableEdits is w less the edits that do not run with a (B does not
// build), each edit tried in turn on top of those kept; why names each
// dropped one (its with.KEY) and the reason.
func (c *CompareState) usableEdits(a lab.Config, w With) (kept With, why []string) {
	runs := func(w With) error {
		b := w.Apply(a)
		if err := b.Validate(); err != nil {
			return err
		}
		_, err := lab.NewComparer(a, b)
		return err
	}
	try := func(key, value string, next With) {
		if err := runs(next); err != nil {
			why = append(why, fmt.Sprintf("%s%s=%s: the other side does not run with it (%v) — ignored", lab.WithPrefix, key, value, err))
			return
		}
		kept = next
	}
	if w.Era != "" {
		n := kept
		n.Era = w.Era
		try("era", w.Era, n)
	}
	if w.Driver != "" {
		n := kept
		n.Driver = w.Driver
		try("driver", w.Driver, n)
	}
	for k := sim.Knob(0); k < sim.NumKnobs; k++ {
		if v, ok := w.Knobs.Get(k); ok {
			n := kept
			n.Knobs = n.Knobs.With(k, v)
			try(k.String(), strconv.FormatInt(v, 10), n)
		}
	}
	for _, r := range w.Break {
		n := kept
		n.Break = append(slices.Clone(n.Break), r)
		try("break", r, n)
	}
	return kept, why
}

// compareFieldNotice says a bad field of a two-run link, naming it
// (key=value) once: a knob's error already starts so, a named one names
// its value in its own words, any other is what is wanted.
func compareFieldNotice(fe *sim.FieldError) string {
	name := fe.Field + "=" + clip(fe.Value)
	var msg string
	switch {
	case fe.Named && strings.HasPrefix(fe.Field, lab.WithPrefix):
		msg = name + ": " + fe.Msg // the with.KEY its own words do not name
	case fe.Named:
		msg = fe.Msg
	case fe.Field == "":
		msg = fe.Error()
	default:
		msg = name + ": " + fe.Msg
	}
	if !lab.IsConfigKey(strings.TrimPrefix(fe.Field, lab.WithPrefix)) && fe.Field != "" {
		keys := append([]string{ComparePacketKey, CompareOpKey, EmbedKey}, lab.ConfigKeys()...)
		msg += " (this page's keys: " + strings.Join(keys, ", ") + ", each also as with.KEY for the other side)"
	}
	return msg + " — ignored"
}

// Notify adds a banner entry (once).
func (c *CompareState) Notify(kind, text string) {
	if slices.Contains(c.banner, Notice{kind, text}) {
		return
	}
	c.banner = append(c.banner, Notice{kind, text})
	c.dirty = true
}

// Dismiss removes banner entry i.
func (c *CompareState) Dismiss(i int) {
	if i >= 0 && i < len(c.banner) {
		c.banner = slices.Delete(slices.Clone(c.banner), i, i+1)
		c.dirty = true
	}
}

// Recover turns a panic into a banner entry naming the state and stops
// the comparison's work (a slice that panicked would panic again); the
// page keeps running, scrubbing what was computed. It returns the log line.
func (c *CompareState) Recover(what string, r any) string {
	c.phase = ""
	c.Notify("error", fmt.Sprintf("internal error in %s (%v) at %s — the page keeps running; please report it with this link", what, r, c.Query().Encode()))
	return fmt.Sprintf("pplab: compare: panic in %s: %v", what, r)
}

// build makes (a, w) the comparison, from its start; the position is
// kept where the new runs have it. On error nothing changes.
func (c *CompareState) build(a lab.Config, w With) error {
	w = normalize(a, w)
	b := w.Apply(a)
	if err := a.Validate(); err != nil {
		return err
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("the other side: %w", err)
	}
	cmp, err := lab.NewComparer(a, b)
	if err != nil {
		return err
	}
	sa, err := newSide(a)
	if err != nil {
		return err
	}
	sb, err := newSide(b)
	if err != nil {
		return fmt.Errorf("the other side: %w", err)
	}
	c.a, c.with, c.b = a, w, b
	c.cmp, c.sides = cmp, [2]*side{sa, sb}
	c.res = cmp.Result()
	c.phase = "compare"
	c.rl, c.rdone = [2]*lab.Lab{}, false
	c.errs = map[string]string{}
	c.seekTo(c.packet, 0)
	c.dirty = true
	return nil
}

// normalize drops the edits that change nothing (a knob at A's value, a
// rule A breaks, A's era or driver).
func normalize(a lab.Config, w With) With {
	n, _ := WithOf(a, w.Apply(a))
	return n
}

// Configs are the two runs compared.
func (c *CompareState) Configs() (a, b lab.Config) { return c.a, c.b }

// Edits is how B differs from A.
func (c *CompareState) Edits() With { return c.with }

// Embedded: ?embed=1.
func (c *CompareState) Embedded() bool { return c.embed }

// Changed reports whether the view changed since the last View.
func (c *CompareState) Changed() bool { return c.dirty }

// Limit is the packets the slider spans (the shorter run's).
func (c *CompareState) Limit() int64 { return c.cmp.Limit() }

// Position is the packet and the operation into its next window.
func (c *CompareState) Position() (packet int64, op int) { return c.packet, c.k }

// SetA edits A's field (scenario, driver, era, preset, seed, packets, a
// knob, break: a rule toggled); B follows with its edits. A refused edit
// changes nothing and says why beside the field.
func (c *CompareState) SetA(field, value string) {
	c.dirty = true
	delete(c.errs, "a."+field)
	if field == "scenario" {
		c.setScenario(value)
		return
	}
	next, err := c.a.With(field, value)
	if err == nil {
		err = c.build(next, c.with)
	}
	if err != nil {
		c.errs["a."+field] = refusal(field, value, err)
	}
}

// setScenario changes A's scenario as the playground does (its era kept,
// teaching sizes moved to the new scenario's, the config read back as its
// link has it), and leaves behind what was the old scenario's own: its
// knobs the new one does not use (A's and B's edits of them) and its
// default driver, which becomes the new scenario's, said in a notice. A
// driver chosen explicitly stays (and is refused where it does not run).
func (c *CompareState) setScenario(value string) {
	old := c.a
	next, err := pinned(old).With("scenario", value)
	oldDriver := old.DriverName()
	implicit := old.Driver == "" || old.Driver == c.list.Scenario(old.Scenario).DefaultDriver
	w := c.with
	if err == nil {
		if implicit {
			next.Driver = ""
		}
		oldK, newK := c.list.Scenario(old.Scenario).Knobs, c.list.Scenario(next.Scenario).Knobs
		for _, name := range oldK {
			n, ok := sim.KnobByName(name)
			if !ok || slices.Contains(newK, name) || n == sim.KnobRxDescs || n == sim.KnobPoolSize || n == sim.KnobNodePages {
				continue
			}
			next.Knobs = next.Knobs.Without(n)
			w.Knobs = w.Knobs.Without(n)
		}
		if err = next.Validate(); err == nil {
			next, err = lab.ParseConfig(next.Values())
		}
	}
	if err == nil {
		err = c.build(next, w)
	}
	if err != nil {
		c.errs["a.scenario"] = refusal("scenario", value, err)
		return
	}
	if d := c.a.DriverName(); implicit && d != oldDriver && oldDriver != "" {
		to := d
		if to == "" {
			to = "none"
		}
		c.Notify("notice", fmt.Sprintf("The driver is now %s, %s's default (%s was %s's default; choose it in A's driver select to keep it).", to, c.a.Scenario, oldDriver, old.Scenario))
	}
}

// SetB edits B: "era" or "driver" ("" : A's), a knob (its value in B), or
// "break" (a rule toggled among those B breaks besides A's; a rule A
// breaks stays broken in B).
func (c *CompareState) SetB(field, value string) {
	c.dirty = true
	delete(c.errs, "b."+field)
	w := c.with
	w.Break = slices.Clone(w.Break)
	var err error
	switch field {
	case "era":
		if _, e := c.a.With("era", value); e != nil {
			err = e
		}
		w.Era = value
	case "driver":
		if _, e := c.a.With("driver", value); e != nil {
			err = e
		}
		w.Driver = value
	case "break":
		switch {
		case slices.Contains(c.a.Break, value):
			err = fmt.Errorf("%s is broken on A's side, and B is A plus its edits (ppsim compare --with-break adds a rule, never keeps one): untick it on A's side to compare without it", value)
		case slices.Contains(w.Break, value):
			w.Break = slices.DeleteFunc(w.Break, func(s string) bool { return s == value })
		default:
			if _, e := sim.RuleByName(value); e != nil {
				err = e
			}
			w.Break = append(w.Break, value)
			slices.Sort(w.Break)
		}
	default:
		n, ok := sim.KnobByName(field)
		if !ok {
			err = fmt.Errorf("unknown field %q", field)
			break
		}
		if e := w.Knobs.SetValue(n, value); e != nil {
			err = e
		}
	}
	if err == nil {
		err = c.build(c.a, w)
	}
	if err != nil {
		c.errs["b."+field] = refusal(field, value, err)
	}
}

// Running reports whether the comparison (or the results for the text)
// is still being computed.
func (c *CompareState) Running() bool { return c.phase != "" }

// Slice advances the comparison for about ms of wall time (Clock); it
// reports whether work remains.
func (c *CompareState) Slice(ms float64) bool {
	now := func() float64 {
		if c.Clock == nil {
			return 0
		}
		return c.Clock()
	}
	t0 := now()
	for c.phase != "" {
		switch c.phase {
		case "compare":
			if c.cmp.Advance(256) {
				// The explanation is one long task (a run per change):
				// the page says so first.
				c.phase = "explain"
				c.res = c.cmp.Result()
				c.dirty = true
				if c.res.Div != nil && c.Clock != nil {
					return true
				}
			}
			c.res = c.cmp.Result()
		case "explain":
			c.res = c.cmp.Result() // the divergence's decisions and changes (one-change runs)
			if c.res.Div != nil {
				d := c.res.Div
				for i, s := range c.sides {
					s.opAt[d.Packet-1], s.opAt[d.Packet] = d.Op[i], d.OpEnd[i]
				}
				if c.packet == d.Packet && c.k == 0 {
					c.seekTo(c.packet, 0) // at its end: its operations listed
				}
			}
			c.phase = "results"
			if c.Clock != nil {
				// The page shows the comparison's outcome before the
				// results' runs begin.
				c.dirty = true
				return true
			}
		case "results":
			if c.rl[0] == nil {
				// Each run's own results in batch (lab.BatchResults, what
				// ppsim run and ppsim compare report), in slices: no
				// keyframes, no check after every operation.
				for i, cfg := range [2]lab.Config{c.a, c.b} {
					l, err := lab.New(cfg)
					if err != nil {
						panic("compare: a run that built does not: " + err.Error())
					}
					c.rl[i] = l
				}
			}
			more := false
			for _, l := range c.rl {
				if !l.Done() {
					l.RunFor(1 << 14)
					more = more || !l.Done()
				}
			}
			if !more {
				for i, l := range c.rl {
					l.FinalCheck()
					c.res.Results[i] = l.Results()
				}
				c.rdone = true
				c.phase = ""
			}
		}
		c.dirty = true
		if now()-t0 >= ms {
			break
		}
	}
	return c.phase != ""
}

// Finish runs the comparison and the results to their end (tests, the
// CLI's equal).
func (c *CompareState) Finish() {
	for c.Slice(1e9) {
	}
}

// Result is the comparison as far as it went.
func (c *CompareState) Result() lab.Comparison { return c.res }

// Text is the netdev text of the comparison with link; "" until the
// comparison and both runs' results are done.
func (c *CompareState) Text(link string) string {
	if !c.rdone {
		return ""
	}
	return lab.CompareText(c.res, link)
}

// GoToPacket puts both sides where they had received p packets.
func (c *CompareState) GoToPacket(p int64) {
	c.seekTo(p, 0)
}

// StepPacket moves both sides d packets (at the packet's start).
func (c *CompareState) StepPacket(d int64) {
	c.seekTo(c.packet+d, 0)
}

// windowLen is the operations of packet p+1's window, the longer side's.
func (c *CompareState) windowLen(p int64) int {
	n := 0
	for _, s := range c.sides {
		n = max(n, int(s.at(p+1)-s.at(p)))
	}
	return n
}

// StepOp moves one operation forward (+1) or back (-1) in the packets'
// windows: each side runs its own operations of the packet (a side whose
// window is shorter waits at its end); past the longer window's end, the
// next packet.
func (c *CompareState) StepOp(d int) {
	switch {
	case d > 0:
		if c.packet > c.Limit() {
			return
		}
		if c.k+1 >= c.windowLen(c.packet) {
			if c.packet >= c.Limit() {
				c.seekTo(c.packet, c.k+1) // after the last packet: its tail
				return
			}
			c.seekTo(c.packet+1, 0)
			return
		}
		c.seekTo(c.packet, c.k+1)
	case d < 0:
		if c.k > 0 {
			c.seekTo(c.packet, c.k-1)
			return
		}
		if c.packet > 0 {
			c.seekTo(c.packet-1, max(c.windowLen(c.packet-1)-1, 0))
		}
	}
}

// GoToDivergence puts both sides at the state before the divergent
// packet (each at its own operation count); false when there is none.
func (c *CompareState) GoToDivergence() bool {
	d := c.res.Div
	if d == nil {
		return false
	}
	c.seekTo(d.Packet-1, 0)
	return true
}

// seekTo brings both sides to packet p (clamped to the limit) and k
// operations into the next window (clamped to its length).
func (c *CompareState) seekTo(p int64, k int) {
	c.dirty = true
	p = min(max(p, 0), c.Limit())
	k = max(k, 0)
	if wl := c.windowLen(p); k > wl {
		k = wl
	}
	c.packet, c.k = p, k
	d := c.res.Div
	divEnd := d != nil && p == d.Packet && k == 0 && p > 0
	for _, s := range c.sides {
		s.win = nil
		lo, hi := s.at(p), s.at(p+1)
		op := min(lo+uint64(k), hi)
		if divEnd {
			s.win = s.window(s.at(p-1), op)
			continue
		}
		if s.lab.Ops() != op {
			s.lab.Seek(op)
		}
	}
}

// SideOps are each side's operation counts now.
func (c *CompareState) SideOps() [2]uint64 {
	return [2]uint64{c.sides[0].lab.Ops(), c.sides[1].lab.Ops()}
}

// Query is the URL of the state: both runs (lab.CompareValues), the
// position, the embed.
func (c *CompareState) Query() url.Values {
	q := lab.CompareValues(c.a, c.b)
	if c.packet > 0 {
		q.Set(ComparePacketKey, strconv.FormatInt(c.packet, 10))
	}
	if c.k > 0 {
		q.Set(CompareOpKey, strconv.Itoa(c.k))
	}
	if c.embed {
		q.Set(EmbedKey, "1")
	}
	return q
}

// CLIArgs is the state's `ppsim compare` line (without the program).
func (c *CompareState) CLIArgs() []string { return CompareCLIArgs(c.a, c.with) }

// CLICommand is CLIArgs as a shell line.
func (c *CompareState) CLICommand() string { return "ppsim " + strings.Join(c.CLIArgs(), " ") }
