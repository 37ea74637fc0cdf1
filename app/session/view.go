package session

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// View is everything the page shows, as values: each field is the props of
// one component. It shares slices with the Session's snapshot (read-only).
type View struct {
	Banner     []Notice
	Controls   ControlsView
	Timeline   TimelineView
	Machine    MachineView
	Narration  NarrationView
	Inspector  InspectorView
	Stats      StatsView
	Violations ViolationsView
	Trace      []string // the last events' trace lines (nil while the panel is closed)
	TraceOpen  bool
	Charts     ChartsView
	Show       ShowView // the rules view's "show me" panel (rules.go)
	Link       string   // the URL query of this state (Query().Encode())
	CLI        string   // the ppsim command line of the config (export.go)

	Embed EmbedView // embed mode and the links to this state (embed.go)
	// Live is what the page's live region says (a11y.go): a step taken by
	// hand once, nothing per frame while playing, where play paused.
	Live string
	// The text equivalents of the figures (a11y.go), nil while their
	// <details> is closed.
	MachineTables, ChartTables []TextTable
	YNL                        YNLView // the pools as ynl shows them (ynl.go), while open
}

// ControlsView is the config editor: the run's config, the choices (each
// that does not run with its reason and a short mark) and the rules; Errs
// says why an edit was refused, beside its field.
type ControlsView struct {
	Scenario, Driver, Era, Seed, Preset, Packets string
	Scenarios, Drivers, Eras, Presets            []lab.Choice // Why: the engine's reason a value does not run
	Knobs                                        []KnobRow
	Rules                                        []RuleRow
	Errs                                         map[string]string // field -> message
	Note                                         string            // what the last edit did besides the change ("kept the position …")
	ScenarioDoc                                  string
	// EraDoc is the chosen era's summary: what its kernel changes, the
	// release it follows and its name family.
	EraDoc string
	// Open is which of the folds (FoldKnobs, FoldOtherKnobs, FoldRules) the
	// user opened (true) or closed (false): a closed fold draws only its
	// summary (Fold). A fold not in it is closed, except the rules fold of
	// a run that breaks a rule.
	Open map[string]bool
}

// KnobRow is one knob as the controls show it.
type KnobRow struct {
	Name, Value, Doc string
	Min, Max         int64
	Matters          bool // the scenario lists it among the knobs that change what it does
}

// RuleRow is one breakable rule.
type RuleRow struct {
	Name, Prevents, Kinds string
	Broken                bool
	// Reach says when breaking the rule changes nothing in the chosen
	// scenario ("" when it decides something here).
	Reach string
	// ShowMe is the playground query that shows the rule where it does
	// decide (its demo), ShowWhere names that config; "" with Reach "".
	ShowMe, ShowWhere string
}

// TimelineView is the stepping controls and the scrubber.
type TimelineView struct {
	Op, Max uint64
	Playing bool
	Speed   int
	Done    bool
	// The run's length in packets: where the run is, how far it has been
	// computed, and the configured run's end.
	Packets, MaxPackets, Total int64
	ToEnd                      bool         // running to the end (RunToEnd)
	GoToErr                    string       // why the last "go to" was refused
	Markers                    []MarkerView // the engine's markers as far as the run went (markers.go)
}

// MachineView is the machine drawing's props.
type MachineView struct {
	Snap     lab.Snapshot
	Changed  []int32 // PFNs the last step moved
	Selected int32   // -1: none
	Scroll   bool    // bring the selected tile into view (a jump)
	// SelectedFree: the selected page is back in the page allocator (the
	// machine draws it apart, as just freed).
	SelectedFree bool
}

// NarrationView tells what the operation shown did.
type NarrationView struct {
	Rec    lab.StepRecord
	Has    bool // Rec describes an operation at or before Op
	Era    string
	Driver string // the driver model ("" for the pool micro-benchmarks): names its functions
	Next   string
	Done   bool
	Err    string
	Op     uint64 // the operations run: beyond Rec's when a batch ran on after it
}

// InspectorView is the selected page.
type InspectorView struct {
	Page  lab.PageView
	Has   bool // a page is selected
	Free  bool // the selected page is back in the page allocator
	PFN   int32
	Moves []PageMove
	// SignatureCheck is the test the run's era uses to tell a page_pool
	// page (sim.Era.SignatureCheck; "" when the era's pages carry no mark).
	SignatureCheck string
	// PageType: the era marks a pool page with a page type (PGTY_netpp,
	// tested by PageNetpp(); 7.1-rc1), not a pp_magic signature.
	PageType bool
}

// PageMove is one move of the inspected page in a recent step.
type PageMove struct {
	Op       uint64
	Label    string
	From, To string
}

// StatsView is the counters panel.
type StatsView struct {
	Stats, Before sim.Stats
	Names         [sim.NumStats]string // each counter as the driver's ethtool -S prints it
	NamesNote     string               // what the driver's ethtool -S shows, when not the generic helper's names
	Rings         []RingStats          // per-ring counters, for a driver that names them (mlx5: rx<N>_pp_*)
	Inflight      int32
	Packets       int64
	Op            uint64
	Rate          string
	Note          string
	Check         CheckView // the counters on a live kernel of the era (engine/observe)
	// The packets the run did not deliver, so far and in the last step:
	// frames the NIC dropped for want of a posted RX buffer
	// (rx_missed_errors), page_pool_alloc_pages calls that returned NULL,
	// and all packets lost.
	RxMissed, AllocFailures, Lost int64
	DRxMissed, DAllocFail, DLost  int64
	// Degenerate says why the run measures something other than its
	// scenario ("" when it does not).
	Degenerate string
}

// ViolationsView is the violation log: the counts at the operation shown,
// and the list as far as the run has gone, the entries found after the
// operation shown marked Later.
type ViolationsView struct {
	Counts [sim.NumKinds]int // at the operation shown
	List   []ViolationRow
	Total  int // at the operation shown
	Later  int // found after it, as far as the run has gone
	Op     uint64
}

// ViolationRow is one logged violation.
type ViolationRow struct {
	lab.ViolationView
	Later bool // found after the operation shown
}

// ChartsView is the charts and the comparison control.
type ChartsView struct {
	Compare                  string
	Choices                  []lab.Choice
	Err                      string
	Throughput, Mix, Profile string // ECharts options (JSON); Profile "" before the first measured window
	CmpName                  string
	// CmpProgress is how far the comparison has run ("era 5.12: 9 400 of
	// 20 000 packets"; "… complete" at its end); "" without one.
	CmpProgress string
	// SideBySide is the two-run query of the run and the comparison's
	// (lab.CompareValues) for the side-by-side page; "" without one.
	SideBySide string
	// File is the charts' image file name stem, as the other exports name
	// theirs (pplab-SCENARIO[-DRIVER]-ERA-opN); a chart adds its own name.
	File   string
	Points int // windows in the run's series
	// Held, when not "", says why the charts are not drawn yet (the page
	// holds them until ECharts has loaded: HoldCharts); their options are
	// then "".
	Held string
}

// chartCache keeps the charts' options between views: they are rebuilt
// when their data changes, not per frame.
type chartCache struct {
	key                      string
	n                        int // throughput refreshes
	throughput, mix, profile string
}

// HoldCharts leaves the charts' options out of the views until
// ReleaseCharts, saying why (why is shown in their place). The page holds
// them while ECharts loads: nothing can draw them before, and the first
// options (go-echarts, encoding/json: code the browser compiles when it
// first runs) cost the first view a seventh of a second on a slow machine,
// before the first step is possible.
func (s *Session) HoldCharts(why string) {
	if why == "" {
		panic("session: HoldCharts needs the reason it shows")
	}
	s.chartsHeld, s.dirty = why, true
}

// ReleaseCharts puts the charts' options back into the views.
func (s *Session) ReleaseCharts() {
	if s.chartsHeld != "" {
		s.chartsHeld, s.dirty = "", true
	}
}

// Changed reports whether anything shown changed since the last View.
func (s *Session) Changed() bool { return s.dirty }

// View is the page's state now.
func (s *Session) View() View {
	s.dirty = false
	v := View{Banner: s.banner, TraceOpen: s.traceOpen, Link: s.Query().Encode()}
	if s.traceOpen { // a closed trace panel draws no lines (200 lines to the DOM per step)
		v.Trace = s.trace
	}
	if key := fmt.Sprintf("%s|%v|%s|%s", s.cfg.Values().Encode(), s.errs, s.preset, s.note); key != s.ctlKey {
		s.ctlKey, s.ctl = key, s.controls()
	}
	v.Controls = s.ctl
	v.Controls.Open = s.folds
	v.Timeline = TimelineView{Op: s.snap.Op, Max: max(s.maxOp, s.snap.Op), Playing: s.playing, Speed: s.speed, Done: s.snap.Done,
		Packets: s.snap.Packets, MaxPackets: max(s.maxPackets, s.snap.Packets), Total: cmp.Or(s.cfg.Packets, lab.DefaultPackets), ToEnd: s.toEnd && s.playing, GoToErr: s.gotoErr}
	v.Timeline.Markers = s.markers(v.Timeline.Max)
	v.Machine = MachineView{Snap: s.snap, Changed: s.changed(), Selected: s.selected, Scroll: s.scroll, SelectedFree: s.selectedFree()}
	has := s.hasRec && s.snap.Op > 0 && s.rec.Op.Index < s.snap.Op
	v.Narration = NarrationView{Rec: s.rec, Has: has, Era: s.snap.Era, Driver: s.driver(), Next: s.snap.Next, Done: s.snap.Done, Err: s.runErr(), Op: s.snap.Op}
	page, _ := s.snap.Page(s.selected)
	v.Inspector = InspectorView{Page: page, Has: s.selected >= 0, Free: s.selectedFree(), PFN: s.selected, Moves: s.selectedMoves()}
	if e, err := sim.EraByName(cfgEra(s.cfg)); err == nil {
		v.Inspector.SignatureCheck, v.Inspector.PageType = e.SignatureCheck(), e.PageType
	}
	v.Stats = StatsView{Stats: s.snap.Stats, Before: s.statsBefore(), Inflight: s.snap.Inflight, Packets: s.snap.Packets, Op: s.snap.Op, Rate: s.rateText(), Note: s.lab.StatsNote(),
		RxMissed: s.snap.RxMissed, AllocFailures: s.snap.AllocFailures, Lost: s.snap.Lost, Degenerate: s.results.Degenerate}
	s.statNames(&v.Stats)
	v.Stats.Check = CountersCheck(cfgEra(s.cfg))
	if s.hasRec && s.rec.Op.Index+1 == s.snap.Op {
		v.Stats.DRxMissed, v.Stats.DAllocFail, v.Stats.DLost = s.snap.RxMissed-s.rec.RxMissedBefore, s.snap.AllocFailures-s.rec.AllocFailuresBefore, s.snap.Lost-s.rec.LostBefore
	}
	v.Violations = s.violations()
	v.Charts = s.chartsView()
	v.Show = s.showView()
	s.embedView(&v)
	s.a11yView(&v)
	v.YNL = s.ynlView()
	v.CLI = s.CLICommand()
	return v
}

func (s *Session) controls() ControlsView {
	k, _ := s.cfg.EffectiveKnobs()
	sc := s.list.Scenario(s.cfg.Scenario)
	c := ControlsView{Scenario: s.cfg.Scenario, Driver: s.cfg.Driver, Era: cfgEra(s.cfg), Seed: strconv.FormatUint(s.cfg.Seed, 10), Preset: s.preset,
		Packets:   strconv.FormatInt(cmp.Or(s.cfg.Packets, lab.DefaultPackets), 10),
		Scenarios: pinned(s.cfg).Choices("scenario"), Drivers: pinned(s.cfg).Choices("driver"), Eras: s.cfg.Choices("era"), Presets: pinned(s.cfg).Choices("preset"),
		Errs: s.errs, Note: s.note, ScenarioDoc: sc.Doc}
	for _, e := range c.Eras {
		if e.Value == c.Era {
			c.EraDoc = e.Doc
		}
	}
	for _, o := range knobOrder(sc.Knobs) {
		n, _ := sim.KnobByName(o.spec.Name)
		c.Knobs = append(c.Knobs, KnobRow{Name: o.spec.Name, Value: strconv.FormatInt(k[n], 10), Doc: o.spec.Doc, Min: o.spec.Min, Max: o.spec.Max, Matters: o.matters})
	}
	for _, r := range s.list.Rules {
		row := RuleRow{Name: r.Name, Prevents: r.Prevents, Kinds: strings.Join(r.Kinds, " / "),
			Broken: slices.Contains(s.cfg.Break, r.Name), Reach: lab.RuleReach(s.cfg, r.Name)}
		row.ShowMe, row.ShowWhere = reachShowMe(r.Name, row.Reach)
		c.Rules = append(c.Rules, row)
	}
	return c
}

// changed is the PFNs the last step moved (none when the run is elsewhere).
func (s *Session) changed() []int32 {
	if !s.hasRec || s.rec.Op.Index+1 != s.snap.Op {
		return nil
	}
	var out []int32
	for _, m := range s.rec.Moves {
		if !slices.Contains(out, m.PFN) {
			out = append(out, m.PFN)
		}
	}
	return out
}

func (s *Session) statsBefore() sim.Stats {
	if !s.hasRec || s.rec.Op.Index+1 != s.snap.Op {
		return s.snap.Stats
	}
	return s.rec.StatsBefore
}

func (s *Session) selectedMoves() []PageMove {
	var out []PageMove
	for _, r := range s.recent {
		for _, m := range r.Moves {
			if m.PFN == s.selected {
				out = append(out, PageMove{Op: r.Op.Index, Label: r.Op.Label, From: PlaceHolder(m.From, m.FromHolder), To: PlaceHolder(m.To, m.ToHolder)})
			}
		}
	}
	return out
}

// PlaceHolder names a place and who holds the page there.
func PlaceHolder(place string, h lab.Holder) string {
	switch h.Kind {
	case "pool":
		return fmt.Sprintf("%s of pool #%d", place, h.ID)
	case "rx-desc":
		return fmt.Sprintf("RX descriptor %d", h.ID)
	case "skb":
		return fmt.Sprintf("%s (skb#%d)", place, h.ID)
	case "slab":
		return fmt.Sprintf("slab cache %d", h.ID)
	}
	return place
}

func (s *Session) runErr() string {
	if err := s.lab.Err(); err != nil {
		return err.Error()
	}
	return ""
}

func (s *Session) rateText() string {
	r := s.results
	if r.Rate.Value == 0 {
		return "— (still warming up: the rate counts once every RX buffer has cycled twice)"
	}
	t := fmt.Sprintf("%.1f %s (%.1f ns per packet on cpu%d)", r.Rate.Value, r.Rate.Unit, r.NsPerPacket, r.Bottleneck)
	if r.LinkBound {
		t += ", link-bound"
	}
	return t
}

// RingStats is one RX ring's counters with the driver's names for them.
type RingStats struct {
	Ring  int
	Names [sim.NumStats]string
	Stats sim.Stats
}

// driver is the run's driver model by name ("" without one).
func (s *Session) driver() string {
	if s.snap.NIC != nil {
		return s.snap.NIC.Driver
	}
	return s.snap.Driver
}

// statNames fills the stats view's names from the driver's ethtool -S.
func (s *Session) statNames(v *StatsView) {
	d := s.driver()
	for st := sim.Stat(0); st < sim.NumStats; st++ {
		v.Names[st] = lab.EthtoolName(d, st, -1)
	}
	v.NamesNote = lab.EthtoolNote(d)
	for i, rs := range s.snap.RingStats {
		if lab.EthtoolName(d, 0, i) == "" {
			break
		}
		r := RingStats{Ring: i, Stats: rs}
		for st := sim.Stat(0); st < sim.NumStats; st++ {
			r.Names[st] = lab.EthtoolName(d, st, i)
		}
		v.Rings = append(v.Rings, r)
	}
}

// violations is the log at the furthest operation reached; the entries the
// operation shown has not reached yet are Later.
func (s *Session) violations() ViolationsView {
	v := ViolationsView{Counts: s.snap.Violations, Op: s.snap.Op}
	for _, x := range s.viol {
		later := x.Op > s.snap.Op
		v.List = append(v.List, ViolationRow{ViolationView: x, Later: later})
	}
	for k, n := range s.snap.Violations {
		v.Total += n
		v.Later += s.violN[k] - n
	}
	return v
}

func (s *Session) chartsView() ChartsView {
	c := ChartsView{Compare: s.cmpMode, Err: s.cmpErr, File: s.exportBase()}
	if key := s.cfg.Values().Encode(); key != s.cmpChoicesKey {
		s.cmpChoicesKey = key
		s.cmpChoices = []lab.Choice{{Value: "", Label: "no comparison"}}
		for _, e := range s.cfg.Choices("era") {
			if e.Why != "" || e.Value == cfgEra(s.cfg) {
				continue
			}
			s.cmpChoices = append(s.cmpChoices, lab.Choice{Value: "era:" + e.Value, Label: "the same run in era " + e.Value + recyclingNote(e.Value)})
		}
	}
	c.Choices = s.cmpChoices
	if c.Held = s.chartsHeld; c.Held != "" {
		c.Points = len(s.series)
		return c
	}
	main := "era " + s.snap.Era
	if s.cmp != nil {
		c.SideBySide = lab.CompareValues(s.cfg, s.cmp.Config()).Encode()
		era := s.cmp.Config().Era
		c.CmpName = "era " + era + recyclingNote(era)
		total := cmp.Or(s.cmp.Config().Packets, lab.DefaultPackets)
		if s.cmp.Done() {
			c.CmpProgress = fmt.Sprintf("era %s: complete, %d packets", era, s.cmp.Packets())
		} else {
			c.CmpProgress = fmt.Sprintf("era %s: %d of %d packets", era, s.cmp.Packets(), total)
		}
	}
	key := fmt.Sprintf("%d/%d/%s/%d/%d/%s", len(s.series), lastPackets(s.series), c.CmpName, lastPackets(s.cmpSeries), len(s.cmpSeries), main)
	if key != s.charts.key {
		s.charts.key = key
		s.charts.throughput = throughputOption(s.series, main, s.cmpSeries, c.CmpName)
		// While playing, the mix and the profile follow at every third
		// refresh of the throughput (an ECharts redraw costs a frame or more
		// on a machine without a GPU); paused, every refresh.
		if s.charts.n++; !s.playing || s.charts.n%3 == 1 || s.charts.mix == "" {
			s.charts.mix = mixOption(s.series)
			s.charts.profile = ""
			if len(s.series) > 0 { // before the first measured window the profile is set-up only
				s.charts.profile = profileOption(s.results.Profile, main, s.cmpResult.Profile, c.CmpName)
			}
		}
	}
	c.Throughput, c.Mix, c.Profile, c.Points = s.charts.throughput, s.charts.mix, s.charts.profile, len(s.series)
	return c
}

// recyclingNote marks the eras without skb recycling.
func recyclingNote(era string) string {
	if lab.NoSkbRecycling(era) {
		return " (no skb recycling)"
	}
	return ""
}

// lastPackets is where a series ends (0 when empty).
func lastPackets(s []lab.SeriesPoint) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].Packets
}

// orderedKnob is a knob's place in the knob inputs: its spec, and whether
// it matters for the scenario.
type orderedKnob struct {
	spec    sim.KnobSpec
	matters bool
}

// knobOrder is the order of the knob inputs: the scenario's knobs that
// matter (names: its list), each once, then every other knob.
func knobOrder(names []string) []orderedKnob {
	var out []orderedKnob
	done := map[string]bool{}
	for _, name := range names {
		if n, ok := sim.KnobByName(name); ok && !done[n.Spec().Name] {
			done[n.Spec().Name] = true
			out = append(out, orderedKnob{n.Spec(), true})
		}
	}
	for _, spec := range sim.AllKnobs() {
		if !done[spec.Name] {
			out = append(out, orderedKnob{spec, false})
		}
	}
	return out
}
