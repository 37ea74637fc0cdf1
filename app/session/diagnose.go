package session

import (
	"fmt"
	"strconv"
	"strings"

	"pplab/engine/diagnose"
	"pplab/engine/perf"
)

// The counter diagnosis page (/diagnose/) as plain Go: a
// Diagnosis holds the pasted text and the interval, parses them at once
// (engine/diagnose: the format, every line and what it was, the counters,
// ratios, rates and what to look at next) and finds the nearest model runs
// in slices (Work), because the first search runs the model — a few
// seconds — and the browser has one thread: the page calls Work between
// frames, the typing never waits for it. The page keeps the text in the
// browser's storage; the Diagnosis never reads a clock itself (Clock).

// DiagnoseListed bounds the paste's lines listed one by one (a paste may
// be 1 MiB); the grey lines are listed apart, up to DiagnoseGreyListed.
const (
	DiagnoseListed     = 400
	DiagnoseGreyListed = 200
)

// Diagnosis is the /diagnose page's state.
type Diagnosis struct {
	Clock func() float64

	text, interval string
	intervalErr    string
	seconds        float64

	paste *diagnose.Paste
	rep   *diagnose.Report // with the nearest runs once Nearest is true
	err   *diagnose.ParseError
	other error // an error that is no ParseError (none expected)

	pending   bool    // the nearest runs are wanted and not computed yet
	warm      bool    // the sweep is wanted ahead of any paste (Warm)
	wantedAt  float64 // when they were wanted (the text they are for was set)
	nearestMS float64 // the last search: from the text to its nearest runs, wall time
	sweepMS   float64 // the time spent in the sweep's slices (the model's runs)
	slices    int
	dirty     bool
	fetching  bool // the page is loading the model's runs from the site's file
}

// SetFetching says whether the page is loading the model's runs from the
// site's file (SweepURL): the view says so instead of counting runs made.
func (d *Diagnosis) SetFetching(on bool) {
	if d.fetching != on {
		d.fetching, d.dirty = on, true
	}
}

// sweeper is the process's sweep in slices (one per process, as the sweep).
var sweeper *diagnose.Sweeper

func theSweeper() *diagnose.Sweeper {
	if sweeper == nil {
		sweeper = diagnose.NewSweeper()
	}
	return sweeper
}

// SweepURL is the file of the model's runs the site is built with,
// relative to the site's web/ directory (diagnose.SweepFileName).
const SweepURL = diagnose.SweepFileName

// LoadSweep installs the model's runs from the site's file (the page
// fetched it): the diagnosis then compares at once, without running the
// model; an error for a file this build does not sweep (the page then
// sweeps itself).
func LoadSweep(b []byte) error { return diagnose.LoadSweep(b) }

// NewDiagnosis diagnoses text (the interval in seconds, "" for none).
func NewDiagnosis(text, interval string, clock func() float64) *Diagnosis {
	d := &Diagnosis{Clock: clock}
	d.interval = interval
	d.parseInterval()
	d.SetText(text)
	return d
}

func (d *Diagnosis) now() float64 {
	if d.Clock == nil {
		return 0
	}
	return d.Clock()
}

// Text and Interval are the inputs as given.
func (d *Diagnosis) Text() string     { return d.text }
func (d *Diagnosis) Interval() string { return d.interval }

// Changed reports whether the view changed since View was last called.
func (d *Diagnosis) Changed() bool { return d.dirty }

// SetText diagnoses a new paste (the nearest runs follow from Work).
func (d *Diagnosis) SetText(text string) {
	d.text = text
	d.diagnose()
}

// SetInterval sets the seconds between two snapshots ("" for none).
func (d *Diagnosis) SetInterval(s string) {
	d.interval = s
	d.parseInterval()
	d.diagnose()
}

func (d *Diagnosis) parseInterval() {
	d.intervalErr, d.seconds = "", 0
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.interval), "s"))
	if s == "" {
		return
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f != f || f > 1e9 {
		d.intervalErr = fmt.Sprintf("interval %q: want the seconds between the two snapshots, a positive number (e.g. 10 or 0.5)", clip(d.interval))
		return
	}
	d.seconds = f
}

func (d *Diagnosis) diagnose() {
	d.dirty = true
	d.paste, d.rep, d.err, d.other, d.pending = nil, nil, nil, nil, false
	if strings.TrimSpace(d.text) == "" {
		return
	}
	p, err := diagnose.Parse(d.text)
	if err != nil {
		if pe, ok := err.(*diagnose.ParseError); ok {
			d.err = pe
		} else {
			d.other = err
		}
		return
	}
	d.paste = p
	d.rep = diagnose.DiagnosePaste(p, diagnose.Options{Interval: d.seconds, NoModel: true})
	prefers := false // the paste's other evidence names runs (a zombie pool: destroy)
	for _, c := range d.rep.Constraints {
		prefers = prefers || c.Prefers
	}
	for _, r := range d.rep.Runs {
		if len(r.Ratios) > 0 || len(r.Counters) > 0 || prefers {
			d.pending, d.wantedAt = true, d.now()
			break
		}
	}
}

// Computing reports whether the nearest runs are still to be found.
func (d *Diagnosis) Computing() bool { return d.pending }

// Warm asks Work to make the model's sweep ahead of any paste (the page
// does it as it opens, so that the first paste's nearest runs are ready
// sooner); it reports whether there is a sweep to make.
func (d *Diagnosis) Warm() bool {
	d.warm = !theSweeper().Done()
	return d.warm
}

// Warming reports whether Work has a sweep to make ahead of any paste.
func (d *Diagnosis) Warming() bool { return d.warm && !d.pending }

// Work goes on finding the nearest runs for up to budgetMS of the Clock
// (0, or no Clock: to the end) and reports whether more is to be done.
// The first search runs the model's sweep (once per process, in slices);
// every later one only compares.
func (d *Diagnosis) Work(budgetMS float64) bool {
	if !d.pending && !d.warm {
		return false
	}
	sw := theSweeper()
	if !sw.Done() {
		t0 := d.now()
		var more func() bool
		if budgetMS > 0 && d.Clock != nil {
			deadline := t0 + budgetMS
			more = func() bool { return d.Clock() < deadline }
		}
		sw.Work(more)
		d.sweepMS += d.now() - t0
		d.slices++
		d.dirty = true
		if !sw.Done() {
			return true
		}
	}
	d.warm = false
	if !d.pending {
		return false
	}
	d.rep = diagnose.DiagnosePaste(d.paste, diagnose.Options{Interval: d.seconds})
	d.pending, d.dirty = false, true
	d.nearestMS = d.now() - d.wantedAt
	return false
}

// DiagnoseView is everything the page shows.
type DiagnoseView struct {
	Text, Interval string
	IntervalErr    string
	Empty          bool // nothing pasted
	Err            *DiagnoseErr

	Format, Variant, Provenance string
	// Underflow names the counters above 2^63 (no count: left out of the
	// ratios and the comparison), in one line; "" for none.
	Underflow    string
	Snapshots    int
	Lines        []DiagLine // the first DiagnoseListed lines
	LinesCut     int        // lines not listed
	Grey         []DiagLine // the lines not understood (the first DiagnoseGreyListed)
	GreyCut      int
	CountersRead int // lines read as page_pool counters
	// Aside are the runs of lines set aside (a perf top listing pasted
	// with the counters), each a sentence around the what-if page's name.
	Aside []DiagAside

	Pools    []string // each pool's page-pool-get attributes, as a line
	Labels   []string // the runs' labels (the counter table's columns)
	Counters []DiagCounter
	Runs     []DiagRun
	Rates    []DiagRates
	Distance string
	// WhyTolerance is when a candidate's ratio matches the paste's (its
	// "why" line), in words (diagnose.WhyTolerance).
	WhyTolerance string
	Notes        []string
	// Constraints are what the paste says about its source (the runs
	// ranked are those that meet them); NonePossible, when it contradicts
	// itself, says so (the runs shown are then shapes only).
	Constraints  []DiagConstraint
	NonePossible string

	// The nearest runs: Computing while they are found (Done of Total
	// model runs made), NearestMS what the last search took (wall time),
	// SweepMS the time the model's runs took of it.
	Computing          bool
	Warming            bool // the sweep is made ahead of any paste (Warm)
	Fetching           bool // the runs are being loaded from the site's file (SweepURL)
	Done, Total        int
	NearestMS, SweepMS float64
	Slices             int
}

// DiagnoseErr is bad input: the line (0: the whole input), its text, what
// was expected.
type DiagnoseErr struct {
	Line     int
	Text     string
	Msg      string
	Accepted string
	// WhatIf: the input is a perf top listing, which the what-if page
	// reads (the page links to it, handing it the listing).
	WhatIf     bool
	WhatIfLink *WhatIfHandOff
}

// WhatIfHandOff is a perf top listing the diagnosis page hands to the
// what-if page, which reads listings: in the link's URL when it is short
// (Query, the what-if page's own URL form: WhatIfQuery), and in the
// what-if page's stored form, written as the link is followed (Stored: a
// long listing has only that), so the page opens on the listing, not on
// its example.
type WhatIfHandOff struct {
	Listing string
	Query   string // "" when the listing is too long for a URL
}

func whatIfHandOff(listing string) *WhatIfHandOff {
	return &WhatIfHandOff{Listing: listing, Query: WhatIfQuery(handOffForm(listing), "")}
}

// handOffForm is the what-if form for a listing: no rate (the listing's
// header may give one; else the page asks), the default unit and change.
func handOffForm(listing string) WhatIfInput {
	return WhatIfInput{Text: listing, Unit: "kpps", Change: perf.Changes[0]}
}

// Stored is the what-if form to store for the listing (WhatIfStored),
// given the one stored now (current; "" for none): the user's own listing
// it replaces is kept to restore (Previous), as the what-if page keeps it
// when a link brings another.
func (h *WhatIfHandOff) Stored(current string) string {
	in := handOffForm(h.Listing)
	if cur, ok := WhatIfLoad(current); ok {
		in.Previous = cur.Previous
		if strings.TrimSpace(cur.Text) != "" && cur.Text != h.Listing && WhatIf(WhatIfInput{Text: cur.Text}).Example == "" {
			in.Previous = cur.Text
		}
	}
	return WhatIfStored(in)
}

// DiagAside is a run of lines set aside, as the page says it: Before, the
// what-if page's name (a link), After ("Lines 29–40 are a perf top
// listing, not counters: set aside (" · the what-if page · " reads
// listings)"); From and To are the lines.
type DiagAside struct {
	Before, After string
	From, To      int
	WhatIf        *WhatIfHandOff // the listing, for the link
}

// WhatIfName is what the page calls the what-if page in its sentences.
const WhatIfName = "the what-if page"

// DiagLine is one line of the paste and what it was read as.
type DiagLine struct {
	N         int
	Text      string
	Use, Why  string
	IsCounter bool
}

// DiagCounter is one counter: what it means, where page_pool.c
// increments it, per era, and its value in each run (Values, by Labels;
// "" when a run lacks it).
type DiagCounter struct {
	diagnose.CounterInfo
	Values []string
	Eras   string
}

// DiagRun is one run's ratios, nearest model runs and advice.
type DiagRun struct {
	Label   string
	Device  string // the device the run is of, when the paste shows several (its label starts with its name)
	Absent  string // the counters it lacks and how they count
	Ratios  []DiagRatio
	Nearest []DiagMatch
	Next    []diagnose.Advice
	NoShape bool // no counters and no other evidence: no ratios, no nearest runs
}

// DiagRatio is a ratio with its value formatted.
type DiagRatio struct {
	Name, Value, Formula, Meaning string
}

// DiagMatch is one counter shape of the model near the paste: every run
// of it (a tie is named whole).
type DiagMatch struct {
	Distance  string
	Runs      []DiagMatchRun
	Preferred bool // ranked first: the scenarios the driver's other counters point to
	// Why: the paste's ratios the shape matches and the one it differs
	// on most (diagnose.Why, as the text report says it); "" without
	// ratios.
	Why string
}

// DiagConstraint is one thing the paste says about its source.
type DiagConstraint struct {
	Rule, Evidence, Keeps string
	How                   string // diagnose.Constraint.How
	Dropped, Prefers      bool
}

// DiagMatchRun is one scenario × driver at that distance: URL opens it in
// the playground (the site's root-relative path, "/?…").
type DiagMatchRun struct {
	Scenario, Driver, Eras, URL string
}

// DiagRates are the rates between two snapshots.
type DiagRates struct {
	Title string
	Rows  [][3]string // counter, increase, per second
}

// View is the page's state now.
func (d *Diagnosis) View() DiagnoseView {
	d.dirty = false
	v := DiagnoseView{Text: d.text, Interval: d.interval, IntervalErr: d.intervalErr, Computing: d.pending, NearestMS: d.nearestMS, SweepMS: d.sweepMS, Slices: d.slices}
	if d.pending || d.warm {
		v.Done, v.Total = theSweeper().Progress()
	}
	v.Warming, v.Fetching = d.Warming(), d.fetching
	switch {
	case strings.TrimSpace(d.text) == "":
		v.Empty = true
		return v
	case d.err != nil:
		v.Err = &DiagnoseErr{Line: d.err.Line, Text: d.err.Text, Msg: d.err.Msg, Accepted: diagnose.Accepted}
		if d.err.PerfListing {
			// The CLI's message names ppsim predict's flags; the page names
			// no flag: the what-if page reads listings.
			v.Err.Msg, v.Err.WhatIf = "a perf top listing, not page_pool counters: "+WhatIfName+" reads listings; here, paste counters", true
			v.Err.WhatIfLink = whatIfHandOff(d.err.Listing)
		}
		return v
	case d.other != nil:
		v.Err = &DiagnoseErr{Msg: d.other.Error(), Accepted: diagnose.Accepted}
		return v
	}
	p, r := d.paste, d.rep
	v.Format, v.Variant, v.Provenance, v.Snapshots = p.Format, p.Variant, p.Provenance, len(p.Snapshots)
	v.Underflow = p.UnderflowLine()
	for i, l := range p.Lines {
		dl := DiagLine{N: l.N, Text: l.Text, Use: l.Use, Why: l.Why, IsCounter: l.Use == diagnose.UseCounter}
		if dl.IsCounter {
			v.CountersRead++
		}
		if i < DiagnoseListed {
			v.Lines = append(v.Lines, dl)
		}
		if l.Use == diagnose.UseGrey {
			if len(v.Grey) < DiagnoseGreyListed {
				v.Grey = append(v.Grey, dl)
			} else {
				v.GreyCut++
			}
		}
	}
	v.LinesCut = max(len(p.Lines)-DiagnoseListed, 0)
	for _, a := range p.Aside {
		before, after, _ := strings.Cut(cap1(a.Sentence("\x00")), "\x00")
		v.Aside = append(v.Aside, DiagAside{Before: before, After: after, From: a.From, To: a.To, WhatIf: whatIfHandOff(p.AsideText(a))})
	}
	for i, sn := range p.Snapshots {
		for _, pl := range sn.Pools {
			if pl.HasPoolFields {
				v.Pools = append(v.Pools, poolLine(i+1, len(p.Snapshots), pl))
			}
		}
	}
	for _, run := range r.Runs {
		v.Labels = append(v.Labels, run.Label)
	}
	for _, c := range r.Counters {
		dc := DiagCounter{CounterInfo: c, Eras: strings.Join(c.Eras, ", ")}
		for _, run := range r.Runs {
			if val, ok := run.Counters[c.Name]; ok {
				dc.Values = append(dc.Values, strconv.FormatUint(val, 10))
			} else {
				dc.Values = append(dc.Values, "")
			}
		}
		v.Counters = append(v.Counters, dc)
	}
	for _, run := range r.Runs {
		dr := DiagRun{Label: run.Label, Device: run.Device, Next: run.Next, NoShape: len(run.Counters) == 0 && len(run.Nearest) == 0 && !d.pending}
		if len(run.Absent) > 0 && !dr.NoShape {
			how := "left out of the comparison"
			if run.AbsentAsZero {
				how = "taken as 0: a listing shows every counter, so a missing line is one removed as zero"
			}
			dr.Absent = strings.Join(run.Absent, ", ") + " (" + how + ")"
		}
		for _, ra := range run.Ratios {
			dr.Ratios = append(dr.Ratios, DiagRatio{Name: ra.Name, Value: ratioText(ra), Formula: ra.Formula, Meaning: ra.Meaning})
		}
		for _, m := range run.Nearest {
			dm := DiagMatch{Distance: strconv.FormatFloat(m.Distance, 'f', 4, 64), Preferred: m.Preferred, Why: m.Why.String()}
			for _, mr := range m.Runs {
				dm.Runs = append(dm.Runs, DiagMatchRun{Scenario: mr.Scenario, Driver: mr.Driver, Eras: strings.Join(mr.Eras, ", "), URL: mr.URL})
			}
			dr.Nearest = append(dr.Nearest, dm)
		}
		v.Runs = append(v.Runs, dr)
	}
	for i, rs := range r.Rates {
		if len(rs) == 0 {
			continue
		}
		dr := DiagRates{Title: fmt.Sprintf("snapshot %d → %d, %s s apart", i+1, i+2, strconv.FormatFloat(rs[0].Seconds, 'g', 4, 64))}
		for _, x := range rs {
			dr.Rows = append(dr.Rows, [3]string{x.Counter, "+" + strconv.FormatUint(x.Delta, 10), perSec(x.PerSec)})
		}
		v.Rates = append(v.Rates, dr)
	}
	v.Distance, v.WhyTolerance = r.Distance, diagnose.WhyTolerance
	for _, n := range r.Notes {
		if n == diagnose.NoteNoInterval {
			// The CLI's note names its flag; the page names its field.
			n = "two snapshots but no time between them: give the seconds between them (the field under the text box, or a `sleep N` line between them) for the rates"
		}
		v.Notes = append(v.Notes, n)
	}
	v.NonePossible = r.NonePossible
	for _, c := range r.Constraints {
		v.Constraints = append(v.Constraints, DiagConstraint{Rule: c.Rule, Evidence: c.Evidence, Keeps: c.Keeps, How: c.How(), Dropped: c.Dropped, Prefers: c.Prefers})
	}
	return v
}

func ratioText(r diagnose.Ratio) string {
	if r.Name == "recycling %" {
		return strconv.FormatFloat(r.Value, 'f', 2, 64) + " %"
	}
	return strconv.FormatFloat(r.Value, 'f', 4, 64)
}

func perSec(f float64) string {
	switch {
	case f >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', 3, 64) + " M/s"
	case f >= 1e3:
		return strconv.FormatFloat(f/1e3, 'f', 2, 64) + " k/s"
	default:
		return strconv.FormatFloat(f, 'f', 1, 64) + " /s"
	}
}

// poolLine is one pool's page-pool-get attributes as a sentence.
func poolLine(snap, snaps int, pl diagnose.Pool) string {
	var b strings.Builder
	if snaps > 1 {
		fmt.Fprintf(&b, "snapshot %d, ", snap)
	}
	fmt.Fprintf(&b, "pool %d (line %d):", pl.ID, pl.Line)
	if pl.HasIfindex {
		fmt.Fprintf(&b, " ifindex %d", pl.Ifindex)
	} else {
		b.WriteString(" no ifindex (orphaned: its netdev is gone)")
	}
	if pl.NapiID != 0 {
		fmt.Fprintf(&b, ", napi-id %d", pl.NapiID)
	}
	if pl.HasInflight {
		fmt.Fprintf(&b, ", inflight %d", pl.Inflight)
	}
	if pl.HasMem {
		fmt.Fprintf(&b, " (%d bytes)", pl.InflightMem)
	}
	if pl.Detached {
		fmt.Fprintf(&b, ", detach-time %d (destroyed, waiting for its pages)", pl.DetachTime)
	}
	if pl.HasDmabuf {
		fmt.Fprintf(&b, ", dmabuf %d", pl.Dmabuf)
	}
	if pl.IOUring {
		b.WriteString(", io_uring")
	}
	return b.String()
}

func cap1(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
