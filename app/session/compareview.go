package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// CompareView is everything the comparison page shows: a value the
// components render.
type CompareView struct {
	Banner []Notice
	Embed  bool

	A CompareControls // A's config editor
	B CompareControls // B's: era, driver, knobs, rules besides A's

	Names  [2]string // the sides' short names (their eras, else drivers, else A and B)
	Titles [2]string // each side's era and driver ("6.18, mlx5")

	// The comparison's progress.
	Running   bool
	Phase     string // "compare", "explain", "results", ""
	Compared  int64
	Limit     int64
	FromStart string
	Div       *lab.Divergence // nil: none (yet)
	NoDiv     string          // said when the comparison ended without a divergence

	// The position: both sides at Packet packets, Op operations into the
	// next packet's window (WindowLen: the longer side's).
	Packet    int64
	Op        int
	WindowLen int
	InDiv     bool // the window shown is the divergence's
	Sides     [2]CompareSide
	Now       string // the position in words

	Link    string // the URL query of the state
	CLI     string // the ppsim compare line
	BuildID string
}

// CompareControls is one side's editor.
type CompareControls struct {
	Scenario, Driver, Era, Preset, Seed, Packets string
	Scenarios, Drivers, Eras, Presets            []lab.Choice
	Knobs                                        []CompareKnob
	Rules                                        []CompareRule
	Errs                                         map[string]string // field -> why its edit was refused
	Config                                       string            // the config in a line
}

// CompareKnob is one knob of a side.
type CompareKnob struct {
	KnobRow
	Differs bool // B's value differs from A's
	Edited  bool // B sets it (a --with-set)
}

// CompareRule is one rule of a side.
type CompareRule struct {
	Name, Prevents string
	Broken         bool
	Locked         bool // B: broken because A breaks it
}

// CompareSide is one run at the position.
type CompareSide struct {
	Machine MachineView
	Op      uint64 // operations run
	Packets int64
	// WinOp is the operations of the window run (up to WinLen, this side's).
	WinOp, WinLen int
	Rec           lab.StepRecord
	Has           bool // Rec describes the operation shown
	Era, Driver   string
	Stats         sim.Stats
	Differs       [sim.NumStats]bool // the counter differs from the other side's
	Violations    int
	// AtDecision: the operation shown is this side's first differing
	// decision of the divergent packet.
	AtDecision bool
	Decision   *lab.Decision // the side's first differing decision (nil: none)
	// Where is the side's position in words, the status line's position:
	// packets received, the operation count, the next window's progress.
	Where string
	// Window: at the end of the divergent packet, each of its operations
	// on this side (the one holding Decision among them).
	Window []lab.StepRecord
}

// View is the page's state as a value.
func (c *CompareState) View() CompareView {
	c.dirty = false
	v := CompareView{Banner: slices.Clone(c.banner), Embed: c.embed, Running: c.Running(), Phase: c.phase,
		Compared: c.res.Compared, Limit: c.Limit(), FromStart: c.res.FromStart, Div: c.res.Div,
		Packet: c.packet, Op: c.k, WindowLen: c.windowLen(c.packet),
		Link: c.Query().Encode(), CLI: c.CLICommand(), BuildID: lab.BuildID()}
	v.Names[0], v.Names[1] = lab.SideNames(c.a, c.b)
	for i, cfg := range [2]lab.Config{c.a, c.b} {
		v.Titles[i] = cfg.EraName()
		if d := cfg.DriverName(); d != "" {
			v.Titles[i] += ", " + d
		}
	}
	if !v.Running && v.Div == nil && v.FromStart == "" {
		v.NoDiv = fmt.Sprintf("No divergence: both runs decide every one of %s alike (the pool's counters, violations and lost packets of each packet's operations).", Plural(int(v.Compared), "packet"))
	}
	v.A = c.controlsA()
	v.B = c.controlsB()
	d := v.Div
	// The divergent packet's window: from the state before it to its
	// end (the next packet's start).
	v.InDiv = d != nil && (c.packet == d.Packet-1 || (c.packet == d.Packet && c.k == 0))
	for i, s := range c.sides {
		snap := s.lab.Snapshot()
		rec, has := s.lab.StepRecord()
		has = has && rec.Op.Index+1 == snap.Op
		sv := CompareSide{Op: snap.Op, Packets: snap.Packets, Rec: rec, Has: has, Era: snap.Era, Driver: s.cfg.DriverName(), Stats: snap.Stats}
		lo, hi := s.at(c.packet), s.at(c.packet+1)
		sv.WinLen, sv.WinOp = int(hi-lo), int(snap.Op-lo)
		for _, n := range snap.Violations {
			sv.Violations += n
		}
		mv := MachineView{Snap: snap, Selected: -1}
		if has {
			for _, m := range rec.Moves {
				if !slices.Contains(mv.Changed, m.PFN) {
					mv.Changed = append(mv.Changed, m.PFN)
				}
			}
		}
		if d != nil {
			sv.Decision = d.First[i]
			if v.InDiv && sv.Decision != nil {
				sv.AtDecision = snap.Op == sv.Decision.Op+1 && has
				if snap.Op > sv.Decision.Op && sv.Decision.PFN >= 0 {
					if _, ok := snap.Page(sv.Decision.PFN); ok {
						mv.Selected = sv.Decision.PFN
					}
				}
			}
		}
		sv.Machine = mv
		sv.Window = s.win
		sv.Where = c.sideWhere(&v, sv)
		v.Sides[i] = sv
	}
	for st := range sim.NumStats {
		diff := v.Sides[0].Stats[st] != v.Sides[1].Stats[st]
		v.Sides[0].Differs[st], v.Sides[1].Differs[st] = diff, diff
	}
	v.Now = c.nowText(&v)
	return v
}

// sideWhere says a side's position as the status line counts it: after a
// packet, "packet N done" and the next packet's operations to come; in a
// window, how many of the next packet's operations ran.
func (c *CompareState) sideWhere(v *CompareView, s CompareSide) string {
	w := fmt.Sprintf("%s received · op %d · ", Plural(int(v.Packet), "packet"), s.Op)
	next := fmt.Sprintf("packet %d's", v.Packet+1)
	if v.Packet >= v.Limit {
		next = "the run's end's"
	}
	switch {
	case v.Op == 0 && v.Packet > 0:
		w += fmt.Sprintf("packet %d done; %s %s next", v.Packet, next, Plural(s.WinLen, "operation"))
	case v.Op == 0:
		w += fmt.Sprintf("%s %s next", next, Plural(s.WinLen, "operation"))
	default:
		w += fmt.Sprintf("%d of %s %s run", s.WinOp, next, Plural(s.WinLen, "operation"))
	}
	return w + " · " + Plural(s.Violations, "violation")
}

func (c *CompareState) nowText(v *CompareView) string {
	s := fmt.Sprintf("Packet %d of %d", v.Packet, v.Limit)
	if v.Packet >= v.Limit {
		s = fmt.Sprintf("After the last packet (%d)", v.Limit)
	}
	if v.Op > 0 {
		s += fmt.Sprintf(", %d of packet %d's operations", v.Op, v.Packet+1)
		s += fmt.Sprintf(" (%s: %d of %d, %s: %d of %d)", v.Names[0], v.Sides[0].WinOp, v.Sides[0].WinLen, v.Names[1], v.Sides[1].WinOp, v.Sides[1].WinLen)
	} else {
		s += fmt.Sprintf(" received on both sides (%s at op %d, %s at op %d)", v.Names[0], v.Sides[0].Op, v.Names[1], v.Sides[1].Op)
	}
	if d := v.Div; d != nil && v.Packet == d.Packet-1 && v.Op == 0 {
		s += fmt.Sprintf(": the divergent packet %d is next — → steps through its operations on both sides, Shift+→ runs it whole", d.Packet)
	} else if d != nil && v.Packet == d.Packet-1 {
		s += fmt.Sprintf(": in the divergent packet %d", d.Packet)
	} else if v.InDiv {
		s += fmt.Sprintf(": the divergent packet %d's operations done (each side's listed below)", d.Packet)
	}
	return s + "."
}

func (c *CompareState) controlsA() CompareControls {
	a := c.a
	k, _ := a.EffectiveKnobs()
	ctl := CompareControls{Scenario: a.Scenario, Driver: a.Driver, Era: a.EraName(), Preset: lab.PresetOf(a),
		Seed: strconv.FormatUint(a.Seed, 10), Packets: strconv.FormatInt(max(a.Packets, 0), 10),
		Scenarios: pinned(a).Choices("scenario"), Drivers: pinned(a).Choices("driver"), Eras: a.Choices("era"), Presets: pinned(a).Choices("preset"),
		Errs: fieldErrs(c.errs, "a."), Config: runFlags(a)}
	if a.Driver != "" && a.Driver == c.list.Scenario(a.Scenario).DefaultDriver {
		ctl.Driver = "" // the select's "default (…)" option
	}
	if a.Packets == 0 {
		ctl.Packets = strconv.FormatInt(lab.DefaultPackets, 10)
	}
	ctl.Knobs = c.knobRows(a, k, nil)
	for _, r := range c.list.Rules {
		ctl.Rules = append(ctl.Rules, CompareRule{Name: r.Name, Prevents: r.Prevents, Broken: slices.Contains(a.Break, r.Name)})
	}
	return ctl
}

func (c *CompareState) controlsB() CompareControls {
	b := c.b
	k, _ := b.EffectiveKnobs()
	ka, _ := c.a.EffectiveKnobs()
	ctl := CompareControls{Scenario: b.Scenario, Driver: c.with.Driver, Era: c.with.Era, Preset: lab.PresetOf(b),
		Errs: fieldErrs(c.errs, "b."), Config: runFlags(b)}
	same := func(ch []lab.Choice, what, cur string) []lab.Choice {
		out := []lab.Choice{{Value: "", Label: "A's (" + cur + ")"}}
		for _, x := range ch {
			if x.Value == "" {
				continue
			}
			out = append(out, x)
		}
		return out
	}
	ctl.Eras = same(b.Choices("era"), "era", c.a.EraName())
	da := c.a.DriverName()
	if da == "" {
		da = "none"
	}
	ctl.Drivers = same(pinned(b).Choices("driver"), "driver", da)
	ctl.Knobs = c.knobRows(b, k, &ka)
	for _, r := range c.list.Rules {
		ctl.Rules = append(ctl.Rules, CompareRule{Name: r.Name, Prevents: r.Prevents, Broken: slices.Contains(b.Break, r.Name), Locked: slices.Contains(c.a.Break, r.Name)})
	}
	return ctl
}

// knobRows are cfg's knobs, the scenario's first; other: A's values (B's
// rows say where they differ).
func (c *CompareState) knobRows(cfg lab.Config, k sim.Knobs, other *sim.Knobs) []CompareKnob {
	sc := c.list.Scenario(cfg.Scenario)
	var out []CompareKnob
	for _, o := range knobOrder(sc.Knobs) {
		n, _ := sim.KnobByName(o.spec.Name)
		row := CompareKnob{KnobRow: KnobRow{Name: o.spec.Name, Value: strconv.FormatInt(k[n], 10), Doc: o.spec.Doc, Min: o.spec.Min, Max: o.spec.Max, Matters: o.matters}}
		if other != nil {
			row.Differs = other[n] != k[n]
			_, row.Edited = c.with.Knobs.Get(n)
		}
		out = append(out, row)
	}
	return out
}

func fieldErrs(errs map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range errs {
		if f, ok := strings.CutPrefix(k, prefix); ok {
			out[f] = v
		}
	}
	return out
}

// runFlags is cfg's ppsim run flags, as a line.
func runFlags(cfg lab.Config) string {
	args := CLIArgs(cfg)[1:]
	return strings.Join(slices.DeleteFunc(args, func(s string) bool { return s == "--json" }), " ")
}
