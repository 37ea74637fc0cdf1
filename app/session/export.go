package session

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/traceevent"
)

// Export: the run as files, built on demand (a button press, never per
// step): the results as JSON in `ppsim run --json`'s contract, the time
// series as CSV, the trace as text, the operations up to the one shown as
// Chrome Trace Event JSON for Perfetto, and the counters as an `ethtool -S`
// block to paste into a mail. The page downloads or copies the text.

// Export kinds.
const (
	ExportJSON     = "json"
	ExportCSV      = "csv"
	ExportTrace    = "trace"
	ExportEthtool  = "ethtool"
	ExportPerfetto = "perfetto"
	ExportNetdev   = "netdev"
)

// ExportKinds are the kinds Export takes, in the order the page offers them.
var ExportKinds = []string{ExportJSON, ExportCSV, ExportTrace, ExportPerfetto, ExportEthtool, ExportNetdev}

// Exported is one export: a file name, its media type and the text.
type Exported struct {
	Name, MIME, Text string
}

// Export builds the export of the given kind from the run as it stands
// (the operation shown).
func (s *Session) Export(kind string) (Exported, error) {
	base := s.exportBase()
	switch kind {
	case ExportJSON:
		return Exported{base + ".json", "application/json", s.ResultsJSON()}, nil
	case ExportCSV:
		return Exported{base + "-series.csv", "text/csv", s.SeriesCSV()}, nil
	case ExportTrace:
		return Exported{base + "-trace.txt", "text/plain", s.TraceText()}, nil
	case ExportEthtool:
		return Exported{base + "-ethtool.txt", "text/plain", s.EthtoolText()}, nil
	case ExportNetdev:
		return Exported{base + "-netdev.txt", "text/plain", s.NetdevText()}, nil
	case ExportPerfetto:
		text, err := s.PerfettoJSON()
		return Exported{base + "-perfetto.json", "application/json", text}, err
	}
	return Exported{}, fmt.Errorf("export %q: accepted: %s", clip(kind), strings.Join(ExportKinds, ", "))
}

// exportBase names the files: pplab-SCENARIO[-DRIVER]-ERA-opN.
func (s *Session) exportBase() string {
	parts := []string{"pplab", s.cfg.Scenario}
	if d := s.driver(); d != "" {
		parts = append(parts, d)
	}
	parts = append(parts, cfgEra(s.cfg), "op"+strconv.FormatUint(s.lab.Ops(), 10))
	return strings.Join(parts, "-")
}

// ResultsJSON is what `ppsim run --json` prints (a line: the JSON and a
// newline) for the run as it stands: at the run's end, byte for byte what
// the CLI prints for the same config (CLIArgs); before it, the results of
// the packets run so far, as an interrupted CLI run reports them (without
// its note).
//
// A run that can report violations (a rule broken, or the era's known
// failure of the scenario) is checked fully after every operation in the
// playground (lab's checkEach: the log is then the same on every path),
// where the CLI's batch run checks on its schedule; a violation that
// lasts is reported at every check, so the counts differ. Its export is
// the CLI's: an equal run in batch to the same operation, replayed when
// the button is pressed (the page's violation panel keeps its own log).
func (s *Session) ResultsJSON() string {
	b, err := json.Marshal(s.exportResults())
	if err != nil { // cannot happen: Results.MarshalJSON does not fail
		panic("session: the results do not marshal: " + err.Error())
	}
	return string(b) + "\n"
}

// exportResults are the results the exports give (ResultsJSON's doc says
// why a run that checks every operation is run again in batch).
func (s *Session) exportResults() lab.Results {
	r := s.lab.Results()
	if s.checksEveryOp() {
		if l, err := lab.New(s.cfg); err == nil {
			l.RunFor(int64(s.lab.Ops()))
			l.FinalCheck()
			r = l.Results()
		}
	}
	return r
}

// checksEveryOp: the run can report violations, so the playground's run
// checks fully after every operation (see ResultsJSON).
func (s *Session) checksEveryOp() bool {
	return len(s.cfg.Break) > 0 || len(s.lab.KnownFailure()) > 0
}

// SetPageURL tells the session where its page is (origin and path, e.g.
// https://example.org/pplab/): the netdev text's link starts with it. A
// session without one (a test, the CLI's) links the query part alone.
func (s *Session) SetPageURL(u string) { s.pageURL = u }

// Link is the page's link to the state shown: the page URL (SetPageURL)
// and the query (Query: the config, the step, the page's own keys).
func (s *Session) Link() string {
	return s.pageURL + "?" + s.FullQuery().Encode()
}

// NetdevText is the run as it stands as plain text for a netdev mail
// (lab.RunText: the config, the counters as ethtool -S names them, the
// rate, the model's build id and the link to this state; no line over 72
// columns). The results are ResultsJSON's: at the run's end what
// `ppsim run --text` prints for the same config, but for the link (the
// CLI links the run, the page the operation shown).
func (s *Session) NetdevText() string {
	return lab.RunText(s.cfg, s.exportResults(), s.Link())
}

// csvHeader is the series CSV's first line: a window's end (packets, the
// machine's time), its rate and the busiest CPU's busy time in it, the
// packets it delivered, and where its pages went (lab.SeriesPoint's Mix:
// cached, ring and released are disjoint; cache_full is part of ring,
// ring_full and released_refcnt parts of released).
const csvHeader = "packets,time_ns,kpps,delivered,busy_ps,cached,ring,released,cache_full,ring_full,released_refcnt"

// SeriesCSV is the run's time series (lab.Series: at most 256 windows
// covering the run so far) as CSV.
func (s *Session) SeriesCSV() string {
	pts, _ := s.lab.Series()
	var b strings.Builder
	b.WriteString(csvHeader + "\n")
	for _, p := range pts {
		m := p.Mix
		fmt.Fprintf(&b, "%d,%d,%s,%d,%d,%d,%d,%d,%d,%d,%d\n", p.Packets, p.TimeNS, strconv.FormatFloat(p.Kpps, 'f', -1, 64), p.Delivered, p.BusyPS,
			m.Cached, m.Ring, m.Released, m.CacheFull, m.RingFull, m.ReleasedRefcnt)
	}
	return b.String()
}

// TraceText is the trace panel's lines (the events of the last recorded
// steps, at most traceLines, in the tracepoints' ftrace format), under a
// comment saying what they cover.
func (s *Session) TraceText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# pplab trace: %s, era %s, at op %d\n", s.runName(), cfgEra(s.cfg), s.lab.Ops())
	fmt.Fprintf(&b, "# the events of the operations stepped (batch runs record none), the last %d lines at most; ppsim run --trace FILE writes a whole run's\n", traceLines)
	fmt.Fprintf(&b, "# state: ?%s\n", s.Query().Encode())
	for _, l := range s.trace {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// PerfettoOps is how many operations the page's Perfetto export covers at
// most: the last ones up to the operation shown (a page stepped by hand is
// within it; the trace of 10^4 operations is 1–7 MB).
const PerfettoOps = 10_000

// PerfettoMax caps the Perfetto export's bytes (traceevent.Options.MaxBytes).
const PerfettoMax = 16 << 20

// PerfettoJSON is the operations up to the one shown — the last PerfettoOps
// of them — as Chrome Trace Event JSON (engine/traceevent: one track per
// CPU, the pools' allocs, recycles and releases, their alloc cache, ptr_ring
// and inflight counters) to open in ui.perfetto.dev. It replays the run
// when the button is pressed: in batch, untraced, to the first operation it
// covers, then traced to the one shown (a run is a pure function of its
// config), and stops early at PerfettoMax bytes; otherData says which
// operations it covers and how many events the cap dropped.
func (s *Session) PerfettoJSON() (string, error) {
	to := s.lab.Ops()
	from := to - min(to, PerfettoOps)
	l, err := lab.New(s.cfg)
	if err != nil { // cannot happen: the session's config built once
		return "", err
	}
	if from > 0 {
		l.RunFor(int64(from))
	}
	var b strings.Builder
	w := traceevent.Attach(l, &b, traceevent.Options{MaxBytes: PerfettoMax, Other: map[string]any{
		"state":  "?" + s.Query().Encode(),
		"covers": fmt.Sprintf("the playground's run from op %d to op %d, the one shown (the last %d operations at most), replayed in batch; to_op is where the trace ends (the byte cap may end it sooner)", from, to, PerfettoOps),
	}})
	l.RunWhile(int64(to-from), func() bool { return !w.Full() })
	if err := w.Close(); err != nil { // cannot happen: a strings.Builder does not fail
		return "", err
	}
	return b.String(), nil
}

// EthtoolText is the counters as `ethtool -S` prints them (the driver's
// names, its per-ring counters, lab.Results.WriteEthtool) under a comment
// naming the simulated run, to paste into a mail.
func (s *Session) EthtoolText() string {
	r := s.lab.Results()
	var b strings.Builder
	fmt.Fprintf(&b, "# pplab (a simulated run, not a measurement): %s, era %s, seed %d, op %d, %d packets\n", s.runName(), r.Era, r.Seed, s.lab.Ops(), r.Packets)
	fmt.Fprintf(&b, "# state: ?%s\n", s.Query().Encode())
	fmt.Fprintf(&b, "$ ethtool -S eth0\n")
	r.WriteEthtool(&b)
	return b.String()
}

// runName is the scenario and the driver model.
func (s *Session) runName() string {
	if d := s.driver(); d != "" {
		return s.cfg.Scenario + " on " + d
	}
	return s.cfg.Scenario
}

// CLIArgs is the ppsim command line of the run's config (without the
// program name): `ppsim run` with these arguments prints what
// ResultsJSON gives at the run's end.
func (s *Session) CLIArgs() []string {
	return CLIArgs(s.cfg)
}

// CLIArgs is cfg as `ppsim run … --json` takes it.
func CLIArgs(cfg lab.Config) []string {
	args := []string{"run"}
	if cfg.Driver != "" {
		args = append(args, "--driver", cfg.Driver)
	}
	packets := cfg.Packets
	if packets == 0 {
		packets = lab.DefaultPackets
	}
	args = append(args, "--scenario", cfg.Scenario, "--era", cfgEra(cfg), "--packets", strconv.FormatInt(packets, 10), "--seed", strconv.FormatUint(cfg.Seed, 10))
	for _, a := range cfg.Knobs.Assignments() {
		args = append(args, "--set", a)
	}
	for _, r := range cfg.Break {
		args = append(args, "--break", r)
	}
	return append(args, "--json")
}

// CLICommand is CLIArgs as a shell line.
func (s *Session) CLICommand() string {
	return "ppsim " + strings.Join(s.CLIArgs(), " ")
}
