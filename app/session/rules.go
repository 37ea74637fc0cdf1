package session

import (
	"fmt"
	"slices"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The rules view (/rules): every breakable rule with what it
// prevents, the kernel function whose test it is (linked per release), the
// demo where breaking it shows its failure (lab.RuleDemos, the engine's
// table) and a "show me": the playground opened at ?show=RULE replays the
// demo with the rule broken, jumps to its first violation (lab.RuleShowMe),
// marks the page and narrates what went wrong and what the rule would have
// done (ShowView). Nothing here copies the engine's tables: every text is
// the engine's rule info, demo table and violation log.

// RuleCard is one rule as the rules view lists it.
type RuleCard struct {
	Name, Prevents string
	Kinds          []string // the violation kinds breaking it produces
	Layer          string   // the engine package that enforces it
	Intact         string   // what the kernel's test does when the rule holds
	Enforcer       lab.SourceRef
	EnforcerEra    string       // the era Enforcer is named and linked in (the demo's)
	Releases       []ReleaseRef // the enforcing function in each era's release
	Demo           DemoView
	HasDemo        bool
	DecidesIn      []string // the scenarios where its check decides something (lab.RuleExercisedIn)
	ShowMe         string   // the playground's query that shows it (ShowQuery)
}

// ReleaseRef is the enforcing function in the releases of consecutive eras
// that name and place it alike.
type ReleaseRef struct {
	Name, File, Note string
	Eras             []EraLink
}

// EraLink is one era's link to the function's definition ("" URL: none).
type EraLink struct {
	Era, Tag, URL string
}

// DemoView is a rule's demo: the config where breaking it shows its failure.
type DemoView struct {
	Driver, Scenario, Era string
	Set                   []string // knob assignments
	Cleared               []string // rules broken first to clear the shown rule's way
	Kind                  string   // the violation it shows
}

// ShowQuery is the playground's query string that shows rule: its demo
// replayed to the first violation.
func ShowQuery(rule string) string { return "show=" + rule }

// RuleCards lists every breakable rule for the rules view (no run: the
// engine's listing, rule info, demo table and identifier table).
func RuleCards() []RuleCard {
	var out []RuleCard
	for _, rj := range lab.List().Rules {
		r, err := sim.RuleByName(rj.Name)
		if err != nil {
			continue
		}
		info := r.Info()
		c := RuleCard{Name: rj.Name, Prevents: rj.Prevents, Kinds: rj.Kinds, Layer: info.Layer, Intact: info.Intact,
			DecidesIn: rj.DecidesIn, ShowMe: ShowQuery(rj.Name)}
		d, ok := lab.DemoFor(rj.Name)
		if ok {
			c.Demo, c.HasDemo = demoView(d), true
			c.EnforcerEra = d.Era
			c.Enforcer = lab.Source(d.Era, "", info.Enforcer)
		}
		c.Releases = releases(info.Enforcer)
		out = append(out, c)
	}
	return out
}

func demoView(d lab.RuleDemo) DemoView {
	return DemoView{Driver: d.Driver, Scenario: d.Scenario, Era: d.Era, Set: slices.Clone(d.Set), Cleared: d.Cleared(), Kind: d.Kind.String()}
}

// releases groups the eras by the name and file the function has in each.
func releases(s sim.Sym) []ReleaseRef {
	var out []ReleaseRef
	for _, e := range sim.Eras {
		src := lab.Source(e.Name, "", s)
		l := EraLink{Era: e.Name, Tag: e.Tag, URL: src.URL}
		if n := len(out); n > 0 && out[n-1].Name == src.Name && out[n-1].File == src.File && out[n-1].Note == src.Note {
			out[n-1].Eras = append(out[n-1].Eras, l)
			continue
		}
		out = append(out, ReleaseRef{Name: src.Name, File: src.File, Note: src.Note, Eras: []EraLink{l}})
	}
	return out
}

// ShowView is the playground's "show me" panel: the rule shown, and its
// first violation in the run as far as it went, with what went wrong and
// what the rule would have done.
type ShowView struct {
	Rule             string // "": no rule shown (the panel is closed)
	Prevents, Intact string
	Kinds            []string
	Enforcer         lab.SourceRef // in the run's era
	Era              string
	Broken           bool // the run breaks the rule
	Demo             DemoView
	Found            bool              // the log lists a violation the rule caused
	V                lab.ViolationView // the first (of the demo's kind when there is one)
	Reached          bool              // the operation shown is at or past it
	At               bool              // the operation shown is the one that found it
	PFN              int32             // the page marked (-1: none)
	Free             bool              // the marked page is back in the page allocator (no tile of its own in the machine but the freed one)
	TileNote         string            // why that page, when the violation names none
	Wrong            string            // what went wrong, in words
	Err              string            // the demo could not be shown
	Op               uint64            // the operation the run shows
	Check            CheckView         // the rule on a live kernel of the era (engine/observe)
}

// Show replays rule's demo with the rule broken (lab.RuleShowMe: at the
// teaching sizes when they show it), jumps to its first violation and marks
// its page; "" closes the panel. A rule that cannot be shown says why in the
// banner and in the panel, and the run stays as it was.
func (s *Session) Show(rule string) {
	s.dirty = true
	if rule == "" {
		s.show, s.showErr, s.showPFN, s.showNote = "", "", -1, ""
		return
	}
	sm, err := lab.RuleShowMe(rule)
	if err != nil {
		s.show, s.showErr = rule, err.Error()
		s.Notify("notice", "show "+clip(rule)+": "+clip(err.Error()))
		return
	}
	wasPreset := s.preset
	if err := s.build(sm.Config); err != nil {
		s.show, s.showErr = rule, err.Error()
		s.Notify("notice", "show "+clip(rule)+": "+err.Error())
		s.preset = wasPreset
		return
	}
	s.preset = lab.PresetOf(sm.Config)
	s.show, s.showErr = rule, ""
	s.jumpShown(sm.First)
}

// ShowJump brings the run back to the shown rule's first violation (as far
// as the run went) and marks its page.
func (s *Session) ShowJump() {
	if s.show == "" {
		return
	}
	if v, ok := s.firstShown(); ok {
		s.jumpShown(v)
	}
}

func (s *Session) jumpShown(v lab.ViolationView) {
	s.playing = false
	s.lab.Seek(v.Op)
	s.refresh(false)
	s.markShown(v)
	s.scroll = true
}

// markShown selects the page of v (or, for a violation of pool state, the
// page the operation that found it moved into the alloc cache).
func (s *Session) markShown(v lab.ViolationView) {
	s.showPFN, s.showNote = v.PFN, ""
	if v.PFN < 0 && s.hasRec && s.rec.Op.Index+1 == v.Op {
		s.showPFN, s.showNote = tileFor(s.rec, &s.snap)
	}
	s.selected = s.showPFN
	s.dirty = true
}

// tileFor is the page to mark for a violation of a pool's state (no page
// of its own): the last page the operation moved into an alloc cache that
// is still there, else the first it moved into one; -1 when it moved none.
func tileFor(rec lab.StepRecord, snap *lab.Snapshot) (int32, string) {
	first := int32(-1)
	for i := len(rec.Moves) - 1; i >= 0; i-- {
		m := rec.Moves[i]
		if m.To != "cache" {
			continue
		}
		first = m.PFN
		if p, ok := snap.Page(m.PFN); ok && p.Place == "cache" {
			return m.PFN, fmt.Sprintf("the violation is about a pool's state, not one page: pfn %#x is the last page this operation put into the alloc cache that is still there", m.PFN)
		}
	}
	if first >= 0 {
		where := "it is no longer there"
		if p, ok := snap.Page(first); ok {
			where = "the same operation took it out again: it is now in the " + p.Place
		}
		return first, fmt.Sprintf("the violation is about a pool's state, not one page: pfn %#x is the first page this operation put into the alloc cache; %s", first, where)
	}
	return -1, "the violation is about a pool's state, and this operation moved no page into an alloc cache"
}

// firstShown is the shown rule's first violation in the log as far as the
// run went: of its demo's kind when the log has one, else of any kind the
// rule caused.
func (s *Session) firstShown() (lab.ViolationView, bool) {
	if d, ok := lab.DemoFor(s.show); ok {
		if v, ok := lab.FirstOf(s.viol, s.show, d.Kind.String()); ok {
			return v, true
		}
	}
	return lab.FirstOf(s.viol, s.show, "")
}

// showFromURL opens the panel a URL's show= asks for: with no config in
// the URL, the rule's demo at its first violation (Show); with one, the
// panel over that run, its page marked when the operation shown is the
// violation's.
func (s *Session) showFromURL(rule string, withConfig bool) {
	if _, err := sim.RuleByName(rule); err != nil {
		s.Notify("notice", "URL: show "+errText(err)+" — no rule shown")
		return
	}
	if !withConfig {
		s.Show(rule)
		return
	}
	s.show = rule
	s.showPFN = -1
	if v, ok := s.firstShown(); ok && v.Op == s.snap.Op {
		s.markShown(v)
		s.scroll = true
	}
}

func (s *Session) showView() ShowView {
	if s.show == "" {
		return ShowView{}
	}
	sv := ShowView{Rule: s.show, PFN: -1, Err: s.showErr, Era: cfgEra(s.cfg), Op: s.snap.Op}
	sv.Check = RuleCheck(s.show, sv.Era)
	r, err := sim.RuleByName(s.show)
	if err != nil {
		return sv
	}
	info := r.Info()
	sv.Prevents, sv.Intact = info.Prevents, info.Intact
	for _, k := range info.Kinds {
		sv.Kinds = append(sv.Kinds, k.String())
	}
	sv.Enforcer = lab.Source(sv.Era, s.driver(), info.Enforcer)
	sv.Broken = slices.Contains(s.cfg.Break, s.show)
	if d, ok := lab.DemoFor(s.show); ok {
		sv.Demo = demoView(d)
	}
	v, ok := s.firstShown()
	if !ok {
		return sv
	}
	sv.Found, sv.V = true, v
	sv.Reached, sv.At = v.Op <= s.snap.Op, v.Op == s.snap.Op
	if v.Op == s.snap.Op || s.showPFN >= 0 {
		sv.PFN, sv.TileNote = s.showPFN, s.showNote
		if sv.PFN < 0 && v.PFN >= 0 {
			sv.PFN = v.PFN
		}
	}
	if sv.PFN >= 0 {
		_, drawn := s.snap.Page(sv.PFN)
		sv.Free = !drawn
	}
	sv.Wrong = wrongText(v)
	return sv
}

// wrongText is what went wrong, from the violation as the log keeps it.
func wrongText(v lab.ViolationView) string {
	page := "in a pool's state (no single page)"
	if v.PFN >= 0 {
		page = fmt.Sprintf("on page pfn %#x", v.PFN)
	}
	return fmt.Sprintf("The invariant checker found %s %s after operation %d, in %s on cpu%d: %s.", v.Kind, page, v.Op, v.Func, v.CPU, strings.TrimSuffix(v.Detail, "."))
}

// reachShowMe is the show-me link a rule checkbox offers when the chosen
// scenario never reaches the rule: the query and where the demo runs.
func reachShowMe(rule, reach string) (query, where string) {
	if reach == "" {
		return "", ""
	}
	d, ok := lab.DemoFor(rule)
	if !ok {
		return "", ""
	}
	where = fmt.Sprintf("%s on %s in %s", d.Scenario, d.Driver, d.Era)
	if len(d.Set) > 0 {
		where += " with " + strings.Join(d.Set, ", ")
	}
	return ShowQuery(rule), where
}
