package lab

import (
	"fmt"
	"slices"
	"strings"

	"pplab/engine/sim"
)

// A comparison runs two configs on the same seeded workload — two eras,
// drivers, knob sets or broken rules — and finds the first packet whose
// pages the two runs treat differently.
//
// Runs are aligned by packet, not by operation: two eras run different
// operations for the same packet (6.19 defers a free that 6.18 does at
// once), so operation n of one run is no peer of operation n of the other.
// A packet's window is the operations from the one at which the run had
// received packet−1 packets to the one at which it has received packet
// (RunToPackets' stops); what the window decided is where its pages came
// from and went — the pool's 11 counters (alloc cache, ptr_ring, the slow
// path, released) — the violations it found, and the packets it lost.
// The first packet whose windows decided differently is the divergence.
//
// Which change decides it is found by running, for each behaviour in
// which the two sides differ (an era flag, a driver's era-dependent
// behaviour, a knob, a broken rule), the first side with that one change:
// a change decides the divergence when that run diverges from the first
// side at the same packet. The era flags carry their commits (Era's
// commit tags, sim.EraChanges), the driver behaviours theirs
// (drivers.Spec.Commits).

// PacketDecisions is what one packet's window decided in one run.
type PacketDecisions struct {
	Stats sim.Stats // the counters the window added
	// Released is the pages the pools released in the window (the
	// page_pool_state_release tracepoint): every page that left a pool,
	// counted or not (page_pool_release_page, a full cache's flush, a
	// destroy's scrub), where recycle_released_refcnt counts one cause.
	Released   int64
	Violations [sim.NumKinds]int // violations found in the window, per kind
	Lost       int64             // packets lost in the window
}

// Released is a Decision's Stat for a page a pool released (its
// page_pool_state_release tracepoint): it left the pool for the page
// allocator, whether a counter counted it or not.
const Released = "released"

// Decision is one decision of a packet's window: a counter an event
// incremented (where a page came from or went), or a violation.
type Decision struct {
	Op        uint64 // the operation (0-based) whose event it was
	CPU       int
	PFN       int32  // the page (-1 if none)
	Func      string // the kernel function, as the era names it
	Source    string // its definition in the era's release ("" if none)
	Stat      string // the counter (sim.Stat's name), Released, or "" for a violation
	Violation string // the violation's kind, "" for a counter
	Why       string
}

// Change is one way the two sides differ, with what it decides and where
// it comes from.
type Change struct {
	Kind   string // "era" (an Era flag), "driver" (a driver's era-dependent behaviour), "knob", "break"
	Name   string // the Era or Spec field, the knob or the rule
	Rule   string // what it decides
	Commit string // the commit of the newer value ("" when not pinned, and for knobs)
	A, B   string // its value on each side
	// Decides: the first side with this change alone diverges from the
	// first side at the divergence's packet.
	Decides bool
}

// Divergence is the first packet the two runs treat differently.
type Divergence struct {
	Packet int64 // 1-based
	// AfterLast: the runs agree on every packet and differ after the last
	// (Packet is the last + 1): a destroy's unload, its retries.
	AfterLast bool
	// Op is the operation count at which each run had received Packet−1
	// packets (the state before the packet's window: Seek(Op[i]) shows
	// it), OpEnd the count at which it had received Packet.
	Op, OpEnd [2]uint64
	Decisions [2]PacketDecisions
	// First is each run's first decision in the window that differs from
	// the other run's (nil: that run made no further decision there).
	First [2]*Decision
	// Changes are the differences between the sides, those that decide
	// the divergence first; Explained says whether one change, or a pair
	// (Together), does.
	Changes   []Change
	Explained bool
	// Together: no change alone decides the divergence, and the two
	// changes marked Decides do together (a pool's pp.napi and the era's
	// NAPI-direct recycling, 6.1 → 6.4 on bnxt).
	Together bool
}

// Comparison is what Compare found.
type Comparison struct {
	Config [2]Config // as run (era and driver filled in)
	// FromStart is set when the runs are not one workload under two
	// kernels: they differ from the first packet (two drivers, two
	// scenarios, two seeds), and no divergence is looked for.
	FromStart string
	Compared  int64       // packets compared (both runs' windows agreed up to here unless Divergence)
	Div       *Divergence // nil: no divergence in Compared packets
	Results   [2]Results  // each run's results at its end (CompareEnd)
}

// Comparer compares two runs packet by packet, in slices a UI can spread
// over frames (Advance); Compare runs one to the end.
type Comparer struct {
	cfg     [2]Config
	labs    [2]*Lab
	at      [2]windowState
	packet  int64
	limit   int64
	div     *Divergence
	start   string
	done    bool
	explain bool
}

// windowState is a run's cumulative decisions after a packet.
type windowState struct {
	stats      sim.Stats
	released   int64
	violations [sim.NumKinds]int
	lost       int64
	ops        uint64
}

// NewComparer builds both runs (each config's errors as New gives them,
// the second's naming its side). The runs check fully after every
// operation where they can find a violation, so a violation lands in the
// window of the packet whose operations made it.
func NewComparer(a, b Config) (*Comparer, error) {
	c := &Comparer{explain: true}
	for i, cfg := range [2]Config{a, b} {
		r, err := cfg.resolve()
		if err != nil {
			if i == 1 {
				return nil, fmt.Errorf("the other side: %w", err)
			}
			return nil, err
		}
		c.cfg[i] = r.cfg
		l, err := New(cfg)
		if err != nil {
			return nil, err
		}
		l.checkAll = true
		c.labs[i] = l
		c.at[i] = l.window()
	}
	c.limit = min(c.cfg[0].Packets, c.cfg[1].Packets)
	x, y := c.cfg[0], c.cfg[1]
	switch {
	case x.Scenario != y.Scenario:
		c.start = fmt.Sprintf("the runs are two scenarios (%s, %s): they differ from the first packet", x.Scenario, y.Scenario)
	case x.Driver != y.Driver:
		c.start = fmt.Sprintf("the runs are two drivers (%s, %s): their RX paths differ from the first packet, so no divergence is looked for", x.Driver, y.Driver)
	case x.Seed != y.Seed:
		c.start = fmt.Sprintf("the runs have two seeds (%d, %d): their workloads differ from the first packet", x.Seed, y.Seed)
	}
	if c.start != "" {
		c.done = true
	}
	return c, nil
}

// window is the run's cumulative decisions now.
func (l *Lab) window() windowState {
	w := windowState{stats: l.stats(), violations: l.m.Log.Counts, lost: l.lost, ops: l.ops}
	for _, p := range l.reg.Pools() {
		w.released += int64(p.Release())
	}
	return w
}

// decided is what the window from w to v decided.
func decided(w, v windowState) PacketDecisions {
	var d PacketDecisions
	for i := range d.Stats {
		d.Stats[i] = v.stats[i] - w.stats[i]
	}
	for i := range d.Violations {
		d.Violations[i] = v.violations[i] - w.violations[i]
	}
	d.Lost = v.lost - w.lost
	d.Released = v.released - w.released
	return d
}

// Advance compares up to n more packets; it reports whether the
// comparison is finished (a divergence, the end of either run, or runs
// that differ from the start).
func (c *Comparer) Advance(n int64) bool {
	for ; n > 0 && !c.done; n-- {
		if c.packet >= c.limit || c.labs[0].done || c.labs[1].done {
			c.tail()
			c.done = true
			break
		}
		k := c.packet + 1
		var next [2]windowState
		for i, l := range c.labs {
			l.runToPackets(k)
			next[i] = l.window()
		}
		if c.labs[0].packets < k || c.labs[1].packets < k {
			c.tail() // a run ended before the packet
			c.done = true
			break
		}
		da, db := decided(c.at[0], next[0]), decided(c.at[1], next[1])
		if da != db {
			c.div = &Divergence{Packet: k, Op: [2]uint64{c.at[0].ops, c.at[1].ops}, OpEnd: [2]uint64{next[0].ops, next[1].ops},
				Decisions: [2]PacketDecisions{da, db}}
			c.done = true
		}
		c.at = next
		c.packet = k
	}
	return c.done
}

// tail compares what both runs do after their last packet (a destroy
// scenario's unload and its retries) as one more window, numbered the
// packet after the last: where two runs of one length differ only there,
// that is their divergence.
func (c *Comparer) tail() {
	if c.cfg[0].Packets != c.cfg[1].Packets || c.labs[0].packets != c.packet || c.labs[1].packets != c.packet {
		return // runs of two lengths, or one ran past the other's end
	}
	var end [2]windowState
	for i, l := range c.labs {
		l.Run()
		end[i] = l.window()
	}
	da, db := decided(c.at[0], end[0]), decided(c.at[1], end[1])
	if da != db {
		c.div = &Divergence{Packet: c.packet + 1, AfterLast: true, Op: [2]uint64{c.at[0].ops, c.at[1].ops}, OpEnd: [2]uint64{end[0].ops, end[1].ops},
			Decisions: [2]PacketDecisions{da, db}}
	}
	c.at = end
}

// Compared is the packets compared so far.
func (c *Comparer) Compared() int64 { return c.packet }

// Limit is the packets a comparison without a divergence compares (the
// shorter run's).
func (c *Comparer) Limit() int64 { return c.limit }

// Result is the comparison so far; once Advance has finished it, the
// divergence's decisions and changes are filled in (a run of each side
// to the packet, and of each change's one-change run: Explain).
func (c *Comparer) Result() Comparison {
	out := Comparison{Config: c.cfg, FromStart: c.start, Compared: c.packet, Div: c.div}
	if c.done && c.div != nil && c.explain {
		c.explain = false
		c.div.First = firstDecisionsDiffering(c.cfg, c.div.Packet)
		c.div.Changes, c.div.Explained, c.div.Together = changesAt(c.cfg, c.div.Packet)
	}
	return out
}

// Compare compares a and b to their first divergence (or the shorter
// run's end) and runs both to their ends for their results.
func Compare(a, b Config) (Comparison, error) {
	c, err := NewComparer(a, b)
	if err != nil {
		return Comparison{}, err
	}
	for !c.Advance(1 << 16) {
	}
	out := c.Result()
	for i := range out.Config {
		out.Results[i] = BatchResults(out.Config[i])
	}
	return out, nil
}

// BatchResults are the results of cfg's run to its end in batch, as `ppsim
// run` reports them: a comparison's runs check every operation (so that a
// violation lands in its packet), and a violation that lasts is reported
// at every check, so their counts are not what the run alone reports; the
// results a comparison gives are the runs' own. cfg must build.
func BatchResults(cfg Config) Results {
	l, err := New(cfg)
	if err != nil {
		panic("lab: BatchResults: " + err.Error())
	}
	l.Run()
	l.FinalCheck()
	return l.Results()
}

// firstDecisionsDiffering replays each run to the packet's window with its
// events and returns each run's first decision there that differs from
// the other's (by counter or violation kind, in order).
func firstDecisionsDiffering(cfg [2]Config, packet int64) [2]*Decision {
	var seq [2][]Decision
	for i := range cfg {
		l, err := New(cfg[i])
		if err != nil {
			panic("lab: a compared config no longer builds: " + err.Error())
		}
		l.checkAll = true
		l.runToPackets(packet - 1)
		var evs []sim.Event
		l.SetTracer(func(e sim.Event) {
			if e.Stat != sim.StatNone || e.Kind == sim.EvStateRelease {
				evs = append(evs, e)
			}
		})
		for l.packets < packet && !l.done {
			op, logged := l.ops, len(l.m.Log.List)
			evs = evs[:0]
			l.Step()
			for _, e := range evs {
				d := Decision{Op: op, CPU: e.CPU, PFN: e.Page, Why: e.Why}
				src := l.Source(e.Func)
				d.Func, d.Source = src.Name, src.URL
				d.Stat = e.Stat.String()
				if e.Kind == sim.EvStateRelease {
					d.Stat = Released
				}
				seq[i] = append(seq[i], d)
			}
			// The violations the step found, from the log (a checker's
			// finding is no event; the log keeps the first
			// sim.MaxViolationsKept).
			for _, v := range l.m.Log.List[logged:] {
				src := l.Source(v.Op)
				seq[i] = append(seq[i], Decision{Op: op, CPU: v.CPU, PFN: v.Page, Func: src.Name, Source: src.URL, Violation: v.Kind.String(), Why: v.Detail})
			}
		}
		l.SetTracer(nil)
	}
	// Where pages went (a recycle counter, a release) and violations
	// first: the decisions a comparison is about; where pages came from
	// (the alloc counters) only when those agree.
	dest := func(d Decision) bool {
		return d.Violation != "" || d.Stat == Released || strings.HasPrefix(d.Stat, "recycle_")
	}
	if out, ok := firstDiffering(seq, dest); ok {
		return out
	}
	out, _ := firstDiffering(seq, func(d Decision) bool { return !dest(d) })
	return out
}

// firstDiffering is the first decision of each sequence, among those keep
// admits, at the first position where the two differ (by counter or
// violation kind; nil past a sequence's end); ok is false when they agree.
func firstDiffering(seq [2][]Decision, keep func(Decision) bool) (out [2]*Decision, ok bool) {
	var f [2][]Decision
	for i := range seq {
		for _, d := range seq[i] {
			if keep(d) {
				f[i] = append(f[i], d)
			}
		}
	}
	for j := 0; j < max(len(f[0]), len(f[1])); j++ {
		for i := range f {
			out[i] = nil
			if j < len(f[i]) {
				out[i] = &f[i][j]
			}
		}
		if out[0] == nil || out[1] == nil || out[0].Stat != out[1].Stat || out[0].Violation != out[1].Violation {
			return out, true
		}
	}
	return [2]*Decision{}, false
}

// changesAt lists how the sides differ and, for each, whether the first
// side with that change alone diverges from the first side at packet.
// Those that do come first; explained says whether any does. When none
// does alone, the pairs of changes are tried (up to maxPairChanges
// changes): the first pair that does is marked, first, and together is
// set.
func changesAt(cfg [2]Config, packet int64) (out []Change, explained, together bool) {
	a, b := cfg[0], cfg[1]
	ra, _ := a.resolve()
	rb, _ := b.resolve()
	type cand struct {
		ch    Change
		apply func(Config) Config
	}
	var cands []cand
	for _, ec := range sim.EraChanges(ra.era, rb.era) {
		field := ec.Field
		cands = append(cands, cand{Change{Kind: "era", Name: ec.Field, Rule: ec.Rule, Commit: ec.Commit, A: ec.A, B: ec.B},
			func(c Config) Config {
				alt := c.altered()
				base := ra.era
				if alt.era != nil {
					base = alt.era
				}
				alt.era = base.WithField(field, rb.era)
				c.alter = &alt
				return c
			}})
	}
	if ra.spec != nil && rb.spec != nil && ra.spec.Name == rb.spec.Name {
		for _, f := range ra.spec.EraFeatures(ra.era, rb.era) {
			field, on := f.Field, f.B
			cands = append(cands, cand{Change{Kind: "driver", Name: f.Field, Rule: f.Rule, Commit: f.Commit, A: onOff(f.A), B: onOff(f.B)},
				func(c Config) Config {
					alt := c.altered()
					base := ra.spec
					if alt.spec != nil {
						base = alt.spec
					}
					alt.spec = base.WithFeatureAs(field, on)
					c.alter = &alt
					return c
				}})
		}
	}
	for k := sim.Knob(0); k < sim.NumKnobs; k++ {
		_, sa := a.Knobs.Get(k)
		_, sb := b.Knobs.Get(k)
		if !sa && !sb {
			continue // both at their era's default (an era change says so)
		}
		if ra.knobs[k] == rb.knobs[k] {
			continue
		}
		k, v := k, rb.knobs[k]
		cands = append(cands, cand{Change{Kind: "knob", Name: k.String(), Rule: "the knob " + k.String(), A: fmt.Sprint(ra.knobs[k]), B: fmt.Sprint(v)},
			func(c Config) Config {
				c.Knobs = c.Knobs.With(k, v)
				return c
			}})
	}
	for _, r := range symDiff(a.Break, b.Break) {
		r, inB := r, slices.Contains(b.Break, r)
		cands = append(cands, cand{Change{Kind: "break", Name: r, Rule: "the rule " + r + " broken", A: onOff(!inB), B: onOff(inB)},
			func(c Config) Config {
				if inB {
					c.Break = append(slices.Clone(c.Break), r)
				} else {
					c.Break = slices.DeleteFunc(slices.Clone(c.Break), func(s string) bool { return s == r })
				}
				return c
			}})
	}
	// decidesAt: the first side with these changes diverges from it at
	// the packet.
	decidesAt := func(apply ...func(Config) Config) bool {
		one := a
		for _, f := range apply {
			one = f(one)
		}
		cmp, err := NewComparer(a, one)
		if err != nil {
			return false
		}
		cmp.explain = false
		cmp.limit = min(cmp.limit, packet)
		for !cmp.Advance(1 << 16) {
		}
		return cmp.div != nil && cmp.div.Packet == packet
	}
	var decides, rest []Change
	for _, cd := range cands {
		cd.ch.Decides = decidesAt(cd.apply)
		if cd.ch.Decides {
			decides = append(decides, cd.ch)
		} else {
			rest = append(rest, cd.ch)
		}
	}
	if len(decides) > 0 || len(cands) > maxPairChanges {
		return append(decides, rest...), len(decides) > 0, false
	}
	for i := range cands {
		for j := i + 1; j < len(cands); j++ {
			if decidesAt(cands[i].apply, cands[j].apply) {
				out = []Change{cands[i].ch, cands[j].ch}
				out[0].Decides, out[1].Decides = true, true
				for k := range cands {
					if k != i && k != j {
						out = append(out, cands[k].ch)
					}
				}
				return out, true, true
			}
		}
	}
	return rest, false, false
}

// maxPairChanges bounds the changes whose pairs changesAt tries (n(n−1)/2
// runs to the packet).
const maxPairChanges = 16

// altered is a copy of cfg's alteration (none: the zero value).
func (cfg Config) altered() alteration {
	if cfg.alter == nil {
		return alteration{}
	}
	return *cfg.alter
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// symDiff is the names in exactly one of a and b, a's first.
func symDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}
