// Package session is the playground's state and behaviour in plain Go: a
// Session holds one run (*lab.Lab) and the views derived from it, takes the
// user's actions (Set, Step, Back, Packet, TogglePlay, Seek, Jump, …) and
// returns one value, View, that the go-app components render. It imports
// neither go-app nor syscall/js, so every action is tested natively (go
// test ./app/session); the browser side (package app) only wires events to
// these methods and View to the page.
//
// Concurrency: a Session is used by one goroutine (the UI goroutine in the
// browser). It is not copyable (it owns its Lab).
//
// Time: a Session never reads a clock itself. Play and the refresh policy
// take the time from the caller (Frame's timestamp, Clock), so a test
// drives them deterministically.
package session

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"net/url"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// Notice is one banner message.
type Notice struct {
	Kind string // "error" or "notice"
	Text string
}

// Speed is one play speed: operations per second, 0 for as fast as the page
// allows (the engine runs in slices of maxSliceMS per animation frame).
type Speed struct {
	Label string
	OpsPS int
	Key   string // the URL form
}

// Speeds are the play speeds a Session offers.
var Speeds = []Speed{{"slow (2 ops/s)", 2, "0"}, {"10 ops/s", 10, "1"}, {"60 ops/s", 60, "2"}, {"1000 ops/s", 1000, "3"}, {"100 000 ops/s", 100_000, "4"}, {"max", 0, "max"}}

// DefaultSpeed is the index of the speed a Session starts with.
const DefaultSpeed = 2

const (
	traceLines   = 200 // the trace keeps this many lines
	recentSteps  = 32  // steps whose moves the inspector can show
	heavyEveryMS = 500 // while playing, series, results and charts refresh this often
	packetLimit  = 10_000
)

// Session is one playground: the run, the config the controls show, the
// banner, the selection, play state and the comparison run.
type Session struct {
	// Clock is the wall time in milliseconds (performance.now() in the
	// browser); nil reads as 0. Only the refresh policy and the play slice
	// use it, never the run.
	Clock func() float64

	list lab.ListJSON

	lab    *lab.Lab
	cfg    lab.Config // the config the run was built from, which the controls show
	preset string
	errs   map[string]string // field -> why its last edit was refused
	note   string            // what the last edit did besides the change (a kept position)
	banner []Notice

	snap     lab.Snapshot
	rec      lab.StepRecord
	hasRec   bool
	recent   []lab.StepRecord // the last recorded steps (the inspector's moves)
	trace    []string
	selected int32
	maxOp    uint64
	// maxPackets: the packets received at maxOp, how far the run has been
	// computed in packets.
	maxPackets int64
	scroll     bool // the selection came from a jump: the page scrolls the tile into view

	traceOpen bool            // the trace panel is open (its lines are drawn)
	folds     map[string]bool // the controls' open folds (Fold); never changed in place

	// The violation log as far as the run went (maxOp): a step back or a
	// jump keeps listing what comes later (the log is a pure function of
	// the config and the operation count).
	viol   []lab.ViolationView
	violN  [sim.NumKinds]int
	violAt uint64

	playing   bool
	toEnd     bool   // playing to the end at max speed (RunToEnd), whatever the speed
	posTarget int64  // a kept position still being reached, in packets (0: none)
	gotoErr   string // why the last "go to" was refused
	speed     int
	carry     float64 // operations owed at a slow speed
	lastFrame float64 // the last frame's timestamp
	lastHeavy float64 // when series, results and charts were last refreshed
	lastView  float64 // when the view was last redrawn at max speed
	drawCost  float64 // what a redraw costs the browser (ms, a moving average: DrawCost)

	cmpMode            string // "" (off), "era:NAME"
	cmp                *lab.Lab
	pageURL            string // the page's origin and path (SetPageURL)
	cmpErr             string
	cmpSynced          float64 // when the charts last took the comparison's series
	cmpDrawn           float64 // when the progress line was last redrawn
	results, cmpResult lab.Results
	series, cmpSeries  []lab.SeriesPoint

	charts     chartCache
	chartsHeld string      // HoldCharts' reason; "" when the charts are drawn
	mk         markerCache // the timeline markers' labels (markers.go)
	// Views that change only with the wanted config, kept by what they
	// were built from.
	ctlKey, cmpChoicesKey string
	ctl                   ControlsView
	cmpChoices            []lab.Choice

	// The rules view's "show me" (rules.go): the rule shown ("": none),
	// why it could not be, and the page marked at its first violation.
	show, showErr, showNote string
	showPFN                 int32
	embed                   bool                // ?embed=1: the page shows only the figure (embed.go)
	tablesOpen              [numTextTables]bool // the text equivalents drawn (a11y.go)

	dirty          bool // the view changed since View was last called
	stale          bool // the run moved since series, results and the comparison were refreshed
	degenerateSaid bool // the banner said the run degenerated (once per run)
}

// DefaultConfig is what the playground runs without a URL: drop traffic on
// the scenario's default driver, at teaching sizes, in the newest stable
// era (sim.NewestStableEra; a link without an era keeps sim.DefaultEra).
func DefaultConfig() lab.Config {
	cfg, err := lab.Preset(lab.PresetTeaching, "drop")
	if err != nil {
		panic("the default configuration: " + err.Error())
	}
	cfg.Era = sim.NewestStableEra().Name // a visit without a link: today's kernel (its links say so: Values writes the era)
	return cfg
}

func (s *Session) now() float64 {
	if s.Clock == nil {
		return 0
	}
	return s.Clock()
}

// New builds the session a URL query describes (the config, step, cmp,
// speed); every bad parameter falls back to its default with a notice
// naming it. A nil or empty query is the default config at op 0.
func New(q url.Values, clock func() float64) *Session {
	s := &Session{Clock: clock, selected: -1, speed: DefaultSpeed, showPFN: -1}
	s.list = lab.List()
	ui := takeUIParams(q)
	cfgQ := ui.rest
	cfg := DefaultConfig()
	if len(cfgQ) > 0 {
		c, err := lab.ParseConfig(cfgQ)
		for _, e := range lab.FieldErrors(err) {
			s.Notify("notice", "URL: "+urlFieldNotice(e, cfgQ, c))
		}
		if c.Scenario != "" {
			cfg = c
		} else {
			cfg = s.linkWithoutScenario(cfg, cfgQ)
		}
	}
	for _, n := range ui.notices {
		s.Notify("notice", "URL: "+n)
	}

	s.preset = lab.PresetOf(cfg)
	if err := s.build(cfg); err != nil {
		s.Notify("notice", "URL: the configuration does not build ("+clip(err.Error())+") — using the default instead")
		s.preset = lab.PresetTeaching
		if err := s.build(DefaultConfig()); err != nil {
			panic("the default configuration does not build: " + err.Error())
		}
	}
	if ui.speed >= 0 {
		s.speed = ui.speed
	}
	s.embed = ui.embed
	if ui.cmp != "" {
		s.Compare(ui.cmp)
	}
	if ui.step > 0 {
		s.lab.Seek(ui.step)
		if s.lab.Ops() < ui.step {
			s.Notify("notice", fmt.Sprintf("URL: step=%d is past the end of the run (it ends at op %d)", ui.step, s.lab.Ops()))
		}
	}
	s.refresh(true)
	if cfgQ.Get("v") == "1" && lab.PresetOf(s.cfg) != lab.PresetTeaching {
		// Not an error: said beside the controls, where the sizes are.
		s.note = "a v=1 link, read as it was written: the sizes it leaves out are the kernel's (the default of v=1 links; the page's default is the teaching sizes), and so is the era (6.8); the address bar has its v=2 form"
	}
	if ui.show != "" {
		s.showFromURL(ui.show, len(cfgQ) > 0)
	}
	return s
}

// linkWithoutScenario is the run a link that names no valid scenario opens:
// the default run's scenario (def's) with every other field the link
// names, read as a link with that scenario is (its era where it names one,
// else def's — a v=1 link's default was 6.8 —, its driver, sizes, knobs,
// broken rules, seed, packets), each one that does not fit it dropped with
// its notice; one notice says what was kept and what was not, so that
// nothing the link named is dropped silently (break= and the knobs were).
func (s *Session) linkWithoutScenario(def lab.Config, q url.Values) lab.Config {
	if q.Get("v") == "1" {
		def.Era = "" // v=1's default era, sim.DefaultEra
	}
	q2 := url.Values{}
	var given []string
	for k, v := range q {
		if lab.IsConfigKey(k) && k != "scenario" {
			q2[k] = v
			if k != "v" {
				given = append(given, k)
			}
		}
	}
	if len(given) == 0 {
		return def
	}
	slices.Sort(given)
	q2.Set("scenario", def.Scenario)
	if q2.Get("v") != "1" && !q2.Has("era") {
		q2.Set("era", cfgEra(def))
	}
	c, err := lab.ParseConfig(q2)
	if c.Scenario == "" {
		return def // cannot happen: def's scenario is valid
	}
	bad := map[string]bool{}
	for _, e := range lab.FieldErrors(err) {
		bad[e.Field] = true
		s.Notify("notice", "URL: "+urlFieldNotice(e, q2, c))
	}
	var kept, dropped []string
	for _, k := range given {
		for _, v := range q[k] {
			if bad[k] {
				dropped = append(dropped, k+"="+v)
			} else {
				kept = append(kept, k+"="+v)
			}
		}
	}
	msg := "URL: the default scenario (" + c.Scenario + ")"
	if len(kept) > 0 {
		msg += " with the link's " + strings.Join(kept, ", ")
	}
	if len(dropped) > 0 {
		msg += "; not " + strings.Join(dropped, " or ") + ", which it does not run with"
	}
	s.Notify("notice", msg)
	return c
}

// Notify adds a banner entry (an entry the banner already has is not added again).
func (s *Session) Notify(kind, text string) {
	if slices.Contains(s.banner, Notice{kind, text}) {
		return // said already, once is enough (linkWithoutScenario reads a link's fields a second time)
	}
	s.banner = append(s.banner, Notice{kind, text})
	s.dirty = true
}

// Recover turns a panic (recovered by the caller around an action) into a
// banner entry naming the state — the config's link and the operation —
// and stops playing: the page keeps running. It returns the log line.
func (s *Session) Recover(what string, r any) string {
	s.playing = false
	state := "no run"
	if s.lab != nil {
		state = fmt.Sprintf("op %d of %s", s.lab.Ops(), s.cfg.Values().Encode())
	}
	s.Notify("error", fmt.Sprintf("internal error in %s (%v) at %s — the page keeps running; please report it with this link", what, r, state))
	return fmt.Sprintf("pplab: panic in %s: %v\n%s", what, r, firstLines(string(debug.Stack()), 16))
}

// Dismiss removes banner entry i (out of range: nothing).
func (s *Session) Dismiss(i int) {
	if i >= 0 && i < len(s.banner) {
		s.banner = slices.Delete(slices.Clone(s.banner), i, i+1)
		s.dirty = true
	}
}

// build makes cfg the run (from op 0). On error the current run stays.
func (s *Session) build(cfg lab.Config) error {
	l, err := lab.New(cfg)
	if err != nil {
		return err
	}
	l.EnableSeek()
	l.EnableMarkers()
	l.Record(true)
	s.lab, s.cfg = l, cfg
	s.errs = map[string]string{}
	s.hasRec, s.rec, s.recent, s.trace, s.maxOp, s.maxPackets = false, lab.StepRecord{}, nil, nil, 0, 0
	s.toEnd = false
	s.viol, s.violN, s.violAt = nil, [sim.NumKinds]int{}, 0
	s.degenerateSaid = false
	s.selected = -1
	s.showPFN, s.showNote = -1, ""
	s.cmp = nil
	if s.cmpMode != "" {
		s.Compare(s.cmpMode)
	}
	s.refresh(true)
	return nil
}

// refresh re-derives the views from the run. heavy also refreshes the
// series, results and the comparison (costly: a single step or a light
// frame skips them).
func (s *Session) refresh(heavy bool) {
	l := s.lab
	s.snap = l.Snapshot()
	if s.snap.Op >= s.maxOp {
		s.maxOp, s.maxPackets = s.snap.Op, s.snap.Packets
	}
	if rec, ok := l.StepRecord(); ok && (!s.hasRec || rec.Op.Index != s.rec.Op.Index || rec.Op.Seq != s.rec.Op.Seq) {
		if s.hasRec && rec.Op.Index != s.rec.Op.Index+1 {
			// The run moved by more than one recorded step (play, a seek,
			// a step back): the moves kept are not the recent steps' any
			// more, and the inspector lists only these.
			s.recent = s.recent[:0]
		}
		s.rec, s.hasRec = rec, true
		s.recent = append(s.recent, rec)
		if len(s.recent) > recentSteps {
			s.recent = append(s.recent[:0], s.recent[len(s.recent)-recentSteps:]...)
		}
		for _, e := range rec.Events {
			s.trace = append(s.trace, e.TraceLine())
		}
		if len(s.trace) > traceLines {
			s.trace = append(s.trace[:0], s.trace[len(s.trace)-traceLines:]...)
		}
	}
	if s.snap.Op >= s.violAt {
		s.viol, s.violN, s.violAt = s.snap.ViolationList, s.snap.Violations, s.snap.Op
	}
	if s.selected >= 0 && !s.pageKnown(s.selected) && !s.selectedFree() {
		s.selected = -1
	}
	s.stale = true
	if heavy {
		s.series, _ = l.Series()
		s.results = l.Results()
		if s.results.Degenerate != "" && !s.degenerateSaid {
			s.degenerateSaid = true
			s.Notify("notice", "This run is not measuring its scenario: "+s.results.Degenerate)
		}
		s.syncCompare()
		s.lastHeavy = s.now()
		s.stale = false
	}
	s.dirty = true
}

// Idle refreshes what single steps leave stale (the series, the results
// with the rate, the comparison run and the charts): the page calls it once
// the user has paused a moment, so that a held arrow key stays fast and the
// panels then catch up. It reports whether anything changed.
func (s *Session) Idle() bool {
	if !s.stale || s.playing {
		return false
	}
	s.refresh(true)
	return true
}

// Lab is the session's run (read-only use: tests and the page's probes).
func (s *Session) Lab() *lab.Lab { return s.lab }

// Playing reports whether the session is playing.
func (s *Session) Playing() bool { return s.playing }

// Step runs one operation (recorded, full check) and pauses play.
func (s *Session) Step() {
	s.stopPosition()
	s.playing = false
	if s.lab.Done() {
		return
	}
	s.lab.Step()
	s.refresh(false)
}

// Back goes one operation back (a replay from the nearest keyframe).
func (s *Session) Back() {
	s.stopPosition()
	s.playing = false
	if op := s.lab.Ops(); op > 0 {
		s.seek(op - 1)
	}
}

// Packet steps until an operation completes a packet.
func (s *Session) Packet() {
	s.stopPosition()
	s.playing = false
	s.lab.StepPacket(packetLimit)
	s.refresh(false)
}

// Reset goes back to operation 0.
func (s *Session) Reset() {
	s.stopPosition()
	s.playing = false
	s.seek(0)
}

// Seek brings the run to op n (pausing play); the step record then
// describes op n. Past the run's end it goes to the end.
func (s *Session) Seek(n uint64) {
	s.stopPosition()
	s.playing = false
	s.seek(n)
}

// GoToPacket brings the run to the first operation at which packet p has
// been received (pausing play); past the run's end, to the end.
func (s *Session) GoToPacket(p int64) {
	s.stopPosition()
	s.playing = false
	if p = max(p, 0); p > s.lab.Packets() {
		s.lab.RunToPackets(p) // forward: on from here, no replay
		s.refresh(false)
		return
	}
	op, _ := lab.OpAtPackets(s.cfg, p)
	s.seek(op)
}

// GoTo brings the run to an operation (unit "op"), to the first operation
// at which a packet was received (unit "packet"), or to the packet at a
// fraction of the configured run (unit "fraction", 0 to 1: a click on the
// run bar), as the timeline gives them. A bad value is explained beside
// the form (View.Timeline.GoToErr) and nothing moves.
func (s *Session) GoTo(unit, value string) {
	s.dirty = true
	s.gotoErr = ""
	value = strings.TrimSpace(value)
	if unit == "fraction" {
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			s.gotoErr = fmt.Sprintf("go to %q: want a fraction of the run from 0 to 1", clip(value))
			return
		}
		s.GoToPacket(int64(math.Round(f * float64(cmp.Or(s.cfg.Packets, lab.DefaultPackets)))))
		return
	}
	n, err := strconv.ParseUint(value, 10, 64)
	switch {
	case unit != "op" && unit != "packet":
		s.gotoErr = fmt.Sprintf("go to %q: want op or packet", clip(unit))
	case err != nil:
		s.gotoErr = fmt.Sprintf("go to %s %q: want a whole number from 0 to the run's end", unit, clip(value))
		if value == "" {
			s.gotoErr = fmt.Sprintf("go to %s: no number (letters and signs read as nothing): want a whole number from 0 to the run's end", unit)
		}
	case unit == "op":
		s.Seek(n)
		if s.lab.Ops() < n {
			s.gotoErr = fmt.Sprintf("go to op %d: the run ends at op %d (packet %d): at its end", n, s.lab.Ops(), s.lab.Packets())
		}
	default:
		s.GoToPacket(int64(min(n, uint64(lab.MaxPackets))))
		if uint64(s.lab.Packets()) < n {
			s.gotoErr = fmt.Sprintf("go to packet %d: the run has %d packets: at its end", n, s.lab.Packets())
		}
	}
}

// RunToEnd plays the run to its end at max speed, whatever the speed
// chosen, drawing as max-speed play does; a pause (or any step) stops it.
// at is the wall time (ms) it starts at.
func (s *Session) RunToEnd(at float64) {
	s.stopPosition()
	if s.lab.Done() {
		return
	}
	s.playing, s.toEnd = true, true
	s.carry, s.lastFrame = 0, at
	s.dirty = true
}

func (s *Session) seek(n uint64) {
	s.lab.Seek(n)
	if n == 0 {
		s.hasRec, s.rec = false, lab.StepRecord{}
	}
	s.refresh(n == 0 || s.lastHeavy == 0)
}

// The controls' folds: the knobs, the knobs that do not matter for the
// scenario (inside the first), and the rules to break.
const (
	FoldKnobs      = "knobs"
	FoldOtherKnobs = "other-knobs"
	FoldRules      = "rules"
)

// Fold opens or closes one of the controls' folds. A closed fold draws only
// its summary: the knobs and rules are a third of the page's elements, and
// the page's first render, before the first step is possible, draws what
// shows. An unknown fold is the caller's mistake (a precondition panic).
func (s *Session) Fold(name string, open bool) {
	switch name {
	case FoldKnobs, FoldOtherKnobs, FoldRules:
	default:
		panic(fmt.Sprintf("session: Fold(%q): the folds are %s, %s and %s", name, FoldKnobs, FoldOtherKnobs, FoldRules))
	}
	if was, set := s.folds[name]; set && was == open {
		return
	}
	folds := maps.Clone(s.folds) // the views handed out keep theirs
	if folds == nil {
		folds = map[string]bool{}
	}
	folds[name] = open
	s.folds, s.dirty = folds, true
}

// OpenTrace opens or closes the trace panel: the lines are kept either
// way, drawn only while it is open.
func (s *Session) OpenTrace(open bool) {
	if open != s.traceOpen {
		s.traceOpen, s.dirty = open, true
	}
}

// Select inspects page pfn (-1: none).
func (s *Session) Select(pfn int32) {
	s.selected, s.scroll = pfn, false
	s.dirty = true
}

// Jump shows a violation: the run at the operation from which the log
// lists it (op), its page selected and brought into view.
func (s *Session) Jump(op uint64, pfn int32) {
	s.stopPosition()
	s.playing = false
	s.lab.Seek(op)
	s.selected, s.scroll = pfn, true
	s.refresh(false)
}

// TogglePlay starts or pauses play at the current speed. at is the wall
// time (ms) it happens at.
func (s *Session) TogglePlay(at float64) {
	s.stopPosition()
	if s.lab.Done() {
		s.playing = false
		return
	}
	s.playing, s.toEnd = !s.playing, false
	s.carry, s.lastFrame = 0, at
	if !s.playing {
		s.lab.FinalCheck() // the state shown is fully checked (play slices leave it to the batch schedule)
		s.refresh(true)
	}
	s.dirty = true
}

// SetSpeed picks Speeds[i].
func (s *Session) SetSpeed(i int) {
	if i < 0 || i >= len(Speeds) {
		s.Notify("notice", fmt.Sprintf("speed %d: want 0 to %d", i, len(Speeds)-1))
		return
	}
	s.speed = i
	s.dirty = true
}

// Set changes one field of the run's config — "scenario", "driver",
// "era", "platform", "packets", "seed", "preset", "break" (value: the rule
// to toggle) or a knob's name, as lab.Config.With takes them — and builds
// it. An edit is taken whole or refused whole: a value that is not
// accepted, or a config that does not run, leaves the run, its config and
// every control as they were, and the reason is shown beside the field
// (View.Controls.Errs). The next edit starts from the config in use, so no
// edit is ever lost to an earlier refusal. A change keeps the position in
// packets (View.Controls.Note says so).
func (s *Session) Set(field, value string) {
	pending := s.posTarget // a position still being reached is the one to keep
	s.stopPosition()
	s.dirty = true
	s.errs = map[string]string{}
	s.note = ""
	w, err := pinned(s.cfg).With(field, value)
	if err == nil && field == "scenario" && s.preset == lab.PresetTeaching {
		// The sizes select says teaching: the new scenario's teaching
		// sizes, even when a size was edited since (With keeps an edited one).
		w, _ = w.With("preset", lab.PresetTeaching)
	}
	if err == nil {
		err = w.Validate()
	}
	if err == nil {
		// The config in the form its link reads back as (a default named
		// explicitly — the scenario's own driver, the default era, a
		// knob at its default — is the default): the controls, the link
		// and the run are then one config.
		w, err = lab.ParseConfig(w.Values())
	}
	if err != nil {
		s.errs[field] = refusal(field, value, err)
		return
	}
	if reflect.DeepEqual(w, s.cfg) && (field != "preset" || value == s.preset) {
		return // the value in use: nothing to rebuild
	}
	wasPlaying := s.playing
	packets := max(s.lab.Packets(), pending)
	if err := s.build(w); err != nil {
		s.errs[field] = refusal(field, value, err)
		return
	}
	if field == "preset" {
		s.preset = value
	} else {
		s.preset = lab.PresetOf(w)
	}
	// Every change keeps the position: a knob's, a rule's, the sizes' or
	// the seed's restarted the run at op 0 without a word (a trial), where
	// the scenario's, driver's, era's and platform's kept the packet; the
	// same moment of the new run is what an edit is compared with.
	if packets > 0 {
		s.keepPosition(packets)
	}
	s.playing = wasPlaying && !s.lab.Done()
}

// keepPosition brings the new run to the first operation at which it has
// received as many packets as the old run had (or to its end), and says so.
func (s *Session) keepPosition(packets int64) {
	if s.Clock != nil && packets > posSyncPackets {
		// A long way: in slices the page runs frame by frame
		// (PositionSlice), its progress in the note.
		s.posTarget = packets
		s.note = fmt.Sprintf("keeping the position: packet 0 of %d…", packets)
		return
	}
	s.lab.RunToPackets(packets) // the new run is at op 0: forward once, no replay
	s.positionKept(packets)
}

// posSyncPackets: a kept position up to this many packets is reached at
// once; a longer way runs in slices with its progress shown.
const posSyncPackets = 20_000

// PositionPending reports whether a kept position is still being reached
// (PositionSlice runs it).
func (s *Session) PositionPending() bool { return s.posTarget > 0 }

// PositionSlice runs the way to a kept position for about ms milliseconds
// and reports whether more remains. Any action that moves the run stops
// it where it got (stopPosition).
func (s *Session) PositionSlice(ms float64) bool {
	if s.posTarget <= 0 {
		return false
	}
	end := s.now() + ms
	l := s.lab
	for l.Packets() < s.posTarget && !l.Done() && s.now() < end {
		l.RunSlice(min(s.posTarget-l.Packets(), 1<<11), nil) // ~0.2 ms natively, ~3 ms as wasm
	}
	s.dirty = true
	if l.Packets() < s.posTarget && !l.Done() {
		s.note = fmt.Sprintf("keeping the position: packet %d of %d…", l.Packets(), s.posTarget)
		return true
	}
	target := s.posTarget
	s.posTarget = 0
	l.RunToPackets(target) // the closing check, as Seek's
	s.positionKept(target)
	return false
}

// stopPosition stops the way to a kept position where it got (an action
// that moves the run came first).
func (s *Session) stopPosition() {
	if s.posTarget <= 0 {
		return
	}
	target := s.posTarget
	s.posTarget = 0
	s.lab.FinalCheck()
	s.note = fmt.Sprintf("stopped keeping the position at packet %d (op %d) of %d", s.lab.Packets(), s.lab.Ops(), target)
	s.refresh(true)
}

// positionKept says where a kept position landed.
func (s *Session) positionKept(packets int64) {
	got, op := s.lab.Packets(), s.lab.Ops()
	s.refresh(true)
	switch {
	case got < packets:
		s.note = fmt.Sprintf("kept the position as far as the new run goes: it ends at packet %d (op %d); the old run was at packet %d", got, op, packets)
	default:
		s.note = fmt.Sprintf("kept the position: packet %d, op %d of the new run", packets, op)
	}
}

// refusal is the reason an edit was refused, as the field shows it.
func refusal(field, value string, err error) string {
	msg := errText(err)
	if strings.TrimSpace(value) == "" {
		// A number input given letters reads "": say so, not "field=".
		return fmt.Sprintf("not changed — %s: no number (letters read as nothing): %s", field, strings.TrimPrefix(msg, field+"=: "))
	}
	if v := clip(value); strings.Contains(msg, field+" "+v) || strings.Contains(msg, field+"="+v) {
		return "not changed — " + msg // the engine's sentence names the value
	}
	return fmt.Sprintf("not changed — %s %s: %s", field, clip(value), msg)
}

// Compare sets the comparison run: the same config in another era ("" for
// none). A mode that does not run is refused with the reason, in the
// banner and beside the control.
func (s *Session) Compare(mode string) {
	s.cmpMode, s.cmp, s.cmpErr = mode, nil, ""
	s.cmpSeries, s.cmpResult = nil, lab.Results{}
	s.dirty = true
	if mode == "" {
		return
	}
	refuse := func(msg string) {
		s.cmpErr, s.cmpMode = msg, ""
		s.Notify("notice", msg)
	}
	era, ok := strings.CutPrefix(mode, "era:")
	if !ok {
		refuse(fmt.Sprintf("compare %q: want era:NAME (e.g. era:5.12)", clip(mode)))
		return
	}
	if era == cfgEra(s.cfg) {
		refuse(fmt.Sprintf("compare %q: the run is already in era %s — pick another era", clip(mode), era))
		return
	}
	c := s.cfg
	c.Era = era
	l, err := lab.New(c)
	if err != nil {
		refuse("compare " + clip(mode) + ": " + err.Error())
		return
	}
	s.cmp = l
	s.syncCompare()
}

// The comparison runs to its end on its own, in slices the page runs
// while it is otherwise idle (CompareSlice), never inside a step: its
// progress shows beside the charts (View.Charts.CmpProgress), and a config
// change starts it over (build calls Compare again).

// cmpDrawEveryMS: the comparison's progress line is redrawn this often.
const cmpDrawEveryMS = 250

// cmpSliceOps bounds a slice without a clock (natively, in tests): a
// slice is then a fixed number of operations, so a run is deterministic.
const cmpSliceOps = 1 << 16

// CompareRunning reports whether the comparison has more to run.
func (s *Session) CompareRunning() bool { return s.cmp != nil && !s.cmp.Done() }

// CompareSlice runs the comparison for about ms milliseconds of wall time
// (without a Clock: cmpSliceOps operations) and reports whether it has
// more to run. The charts and the progress follow.
func (s *Session) CompareSlice(ms float64) bool {
	if !s.CompareRunning() {
		return false
	}
	if s.Clock == nil {
		s.cmp.RunN(cmpSliceOps)
	} else {
		end := s.now() + ms
		s.cmp.RunWhile(math.MaxInt64, func() bool { return s.now() < end })
	}
	// The charts follow at most every heavyEveryMS (a chart's redraw costs
	// a frame); the progress beside them at every slice.
	// The page redraws for the progress line at most every cmpDrawEveryMS
	// (a redraw costs as much as a slice).
	if s.Clock == nil || s.cmp.Done() || s.now()-s.cmpSynced >= heavyEveryMS {
		s.syncCompare()
		s.cmpSynced = s.now()
		s.dirty = true
	}
	if s.Clock == nil || s.now()-s.cmpDrawn >= cmpDrawEveryMS {
		s.cmpDrawn = s.now()
		s.dirty = true
	}
	return !s.cmp.Done()
}

// syncCompare takes the comparison's series and results as far as it ran.
func (s *Session) syncCompare() {
	if s.cmp == nil {
		return
	}
	s.cmpSeries, _ = s.cmp.Series()
	s.cmpResult = s.cmp.Results()
}

func (s *Session) pageKnown(pfn int32) bool {
	_, ok := s.snap.Page(pfn)
	return ok
}

// selectedFree: the selected page is a real frame back in the allocator.
func (s *Session) selectedFree() bool {
	if s.selected < 0 || s.pageKnown(s.selected) {
		return false
	}
	for _, r := range s.recent {
		for _, m := range r.Moves {
			if m.PFN == s.selected {
				return true
			}
		}
	}
	return false
}

// cfgEra is the era c runs in (lab.Config.EraName): the era the select
// shows and the CLI line names.
func cfgEra(c lab.Config) string { return c.EraName() }

// pinned is c with its era named: the era the page shows stays the era
// an edit of another field runs in (no edit moves the run to another era
// unseen: devmem-rx chosen while 6.8 is shown is refused, not run in
// 6.12).
func pinned(c lab.Config) lab.Config {
	c.Era = c.EraName()
	return c
}

// errField is the field an error is about (the one changed, when the error
// names no field of its own).
func errField(err error, changed string) string {
	for _, fe := range lab.FieldErrors(err) {
		if fe.Field != "" && fe.Field != "set" {
			return fe.Field
		}
	}
	return changed
}

// errText is an error as a field shows it: each field error's echoed
// value cut to a readable length.
func errText(err error) string {
	var parts []string
	for _, fe := range lab.FieldErrors(err) {
		e := *fe
		e.Value = clip(e.Value)
		if e.Named {
			// The engine's sentence names the accepted values in full (an
			// era list is longer than a clip); only the user's value in it
			// is cut, and a sentence that does not echo it plainly is cut
			// at a length a banner still reads.
			if fe.Value != "" && strings.Contains(e.Msg, fe.Value) {
				e.Msg = strings.ReplaceAll(e.Msg, fe.Value, e.Value)
			} else {
				e.Msg = clipN(e.Msg, 320)
			}
		}
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

// clip cuts a user's value to what a message echoes.
func clip(s string) string { return clipN(s, 80) }

// clipN cuts s to n runes, marking the cut.
func clipN(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
