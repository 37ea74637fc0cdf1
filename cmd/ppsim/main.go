// Command ppsim runs the pplab engine headless: list what can be configured,
// run a scenario and print its results (a table, JSON for other tools, or
// plain text for a mail with the link that opens the run), compare two
// kernels (or knobs, or broken rules) at the packet they diverge,
// predict a change from a perf top listing, diagnose pasted page_pool
// counters, print the model's build id (version).
// The command-line contract is this comment and the README's "ppsim" section;
// other tools depend on it.
//
// Exit status: 0 on success, 2 on bad input (one line on stderr naming the
// input and the accepted values), 1 on an internal error.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"pplab/engine/diagnose"
	"pplab/engine/lab"
	"pplab/engine/perf"
	"pplab/engine/replay"
	"pplab/engine/sim"
	"pplab/engine/traceevent"
)

// usageError is bad input: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// flagText renders an engine error as the flags name the field (a
// sim.FieldError), or as it is.
func flagText(err error) string {
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		return fe.FlagText()
	}
	return err.Error()
}

func bad(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  ppsim list [--json]
  ppsim run [--driver D] --scenario S [--era E] [--packets N] [--ops N] [--seed N]
            [--set knob=value ...] [--break rule ...] [--json | --text [--base-url URL]]
            [--trace FILE [--trace-format all|tracepoints] [--trace-max BYTES]]
            [--trace-event FILE [--trace-event-max BYTES]]
  ppsim compare [--driver D] --scenario S [--era E] [--packets N] [--seed N]
            [--set knob=value ...] [--break rule ...]
            [--with-era E] [--with-driver D] [--with-set knob=value ...] [--with-break rule ...]
            [--json | --text] [--base-url URL]
  ppsim predict --profile FILE|NAME --rate VALUE --unit kpps|pps|mbps
            --change skb-recycle|bulk|napi-direct|pp-napi|era:E [--platform P] [--json]
  ppsim diagnose [--file F|-] [--interval SECONDS] [--json]
  ppsim replay FILE|- [--json] [--compare-veth MIB [--era E]]
  ppsim check RULE|COUNTER|destroy [--era E] [--json] | --list
  ppsim version [--json]`

func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintln(stderr, "ppsim: "+msg)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	if errors.Is(err, errInterrupted) {
		return 130
	}
	return 1
}

// errInterrupted: Ctrl-C stopped a run; its partial result was printed.
var errInterrupted = errors.New("interrupted")

// errHelp: --help was asked for; the usage was printed.
var errHelp = errors.New("help")

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return bad("missing command (accepted: list, run, compare, predict, diagnose, replay, check, version); %s", strings.ReplaceAll(usage, "\n", " "))
	}
	switch args[0] {
	case "list":
		return cmdList(args[1:], stdout)
	case "predict":
		return cmdPredict(args[1:], stdout)
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "diagnose":
		return cmdDiagnose(args[1:], stdout)
	case "replay":
		return cmdReplay(args[1:], stdout)
	case "check":
		return cmdCheck(args[1:], stdout)
	case "compare":
		return cmdCompare(args[1:], stdout)
	case "version":
		return cmdVersion(args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return bad("unknown command %q (accepted: list, run, compare, predict, diagnose, replay, check, version)", args[0])
}

// multi collects a repeatable flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse turns flag errors into one-line usage errors naming the accepted
// flags. A flag that takes one value may be given once (a repeated one is
// refused, not silently the last); an explicitly empty value is refused;
// --help prints the usage (exit 0); a stray argument that names a scenario,
// driver, era or rule suggests its flag.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	multi := map[string]bool{"set": true, "break": true, "with-set": true, "with-break": true}
	seen := map[string]string{}
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f == nil || multi[name] {
			continue
		} else if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); isBool && !hasVal {
			val = "true"
		}
		if _, dup := seen[name]; dup {
			return bad("%s: --%s is given twice: give it once", fs.Name(), name)
		}
		seen[name] = val
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usage)
			return errHelp
		}
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			msg = "unknown flag --" + name
		} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
			msg = "--" + name + " needs a value"
		}
		return bad("%s: %s (accepted flags: %s)", fs.Name(), msg, strings.Join(names, ", "))
	}
	var empty error
	fs.Visit(func(f *flag.Flag) {
		if empty == nil && f.Value.String() == "" && !multi[f.Name] {
			empty = bad("%s: --%s is empty: give a value or leave the flag out", fs.Name(), f.Name)
		}
	})
	if empty != nil {
		return empty
	}
	if fs.NArg() > 0 {
		arg := fs.Arg(0)
		if hint := suggest(fs, arg); hint != "" {
			return bad("%s: unexpected argument %q (did you mean %s %s?)", fs.Name(), arg, hint, arg)
		}
		return bad("%s: unexpected argument %q", fs.Name(), arg)
	}
	return nil
}

// suggest names the flag a stray argument belongs to, if it is a known name.
func suggest(fs *flag.FlagSet, arg string) string {
	l := lab.List()
	has := func(names []string) bool {
		for _, n := range names {
			if n == arg {
				return true
			}
		}
		return false
	}
	switch {
	case fs.Lookup("scenario") != nil && has(lab.ScenarioNames()):
		return "--scenario"
	case fs.Lookup("driver") != nil && has(l.Drivers):
		return "--driver"
	case fs.Lookup("era") != nil && has(sim.EraNames()):
		return "--era"
	case fs.Lookup("break") != nil && has(sim.RuleNames()):
		return "--break"
	case fs.Lookup("change") != nil && has(perf.Changes):
		return "--change"
	case fs.Lookup("profile") != nil && has(perf.ProfileNames()):
		return "--profile"
	case strings.Contains(arg, "=") && fs.Lookup("set") != nil:
		return "--set"
	}
	return ""
}

func cmdList(args []string, stdout io.Writer) error {
	fs := newFlagSet("list")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(lab.List())
	}
	lab.WriteListTable(stdout)
	return nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run")
	cf := addConfigFlags(fs)
	trace := fs.String("trace", "", "write the event trace to FILE")
	traceFormat := fs.String("trace-format", "all", "all (tracepoints and model events) or tracepoints (the four page_pool tracepoints only)")
	traceMax := fs.String("trace-max", strconv.FormatInt(defaultTraceMax, 10), "stop writing the trace after this many bytes")
	traceEvent := fs.String("trace-event", "", "write the run as Chrome Trace Event JSON (for ui.perfetto.dev) to FILE")
	traceEventMax := fs.String("trace-event-max", strconv.FormatInt(defaultTraceMax, 10), "stop writing the Chrome Trace Event JSON after this many bytes (the file still ends validly)")
	opsFlag := fs.String("ops", "", "stop after N operations: the state the playground shows at op N (every operation checked as the page checks it)")
	asJSON := fs.Bool("json", false, "print JSON")
	asText := fs.Bool("text", false, "print the run as plain text for a mail (72 columns) with its link")
	baseURL := fs.String("base-url", "", "with --text: the page's address the link starts with (default: the query part alone)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := checkTextFlags(fs, *asText, *asJSON, *baseURL); err != nil {
		return err
	}
	if *asText && flagSet(fs, "ops") {
		return bad("run: --text prints a whole run and the link that opens it; --ops goes without it")
	}
	var ops uint64
	if flagSet(fs, "ops") {
		o, err := strconv.ParseUint(*opsFlag, 10, 64)
		if err != nil || o < 1 {
			return bad("--ops %q: want a positive integer (operations)", *opsFlag)
		}
		ops = o
	}
	if err := cf.parseNumbers(); err != nil {
		return err
	}
	if *traceFormat != "all" && *traceFormat != "tracepoints" {
		return bad("--trace-format %q: accepted: all, tracepoints", *traceFormat)
	}
	max, err := strconv.ParseInt(*traceMax, 10, 64)
	if err != nil || max < 1 {
		return bad("--trace-max %q: want a positive number of bytes", *traceMax)
	}
	if *trace == "" && (flagSet(fs, "trace-format") || flagSet(fs, "trace-max")) {
		return bad("run: --trace-format and --trace-max go with --trace FILE")
	}
	teMax, err := strconv.ParseInt(*traceEventMax, 10, 64)
	if err != nil || teMax < traceevent.MinBytes {
		return bad("--trace-event-max %q: want a number of bytes from %d", *traceEventMax, traceevent.MinBytes)
	}
	if *traceEvent == "" && flagSet(fs, "trace-event-max") {
		return bad("run: --trace-event-max goes with --trace-event FILE")
	}
	if *traceEvent != "" && *trace != "" && filepath.Clean(*traceEvent) == filepath.Clean(*trace) {
		return bad("run: --trace and --trace-event name the same file %s: give each its own", *trace)
	}
	cfg, err := cf.config()
	if err != nil {
		return err
	}
	l, err := lab.New(cfg)
	if err != nil {
		return bad("%s", flagText(err))
	}
	var tw *traceWriter
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			return bad("--trace %s: %v", *trace, err)
		}
		// Written 64 KB at a time: a trace runs to megabytes (the default
		// 4 KB writes were a sixth of a traced run's CPU time).
		tw = &traceWriter{f: f, w: bufio.NewWriterSize(f, 64<<10), max: max, onlyTracepoints: *traceFormat == "tracepoints"}
		if tw.onlyTracepoints {
			// as the tracefs trace file: its header, then the lines
			tw.w.WriteString(sim.TraceFileHeader)
		}
		l.SetTracer(tw.event)
	}
	var te *traceevent.Writer
	var teFile *os.File
	if *traceEvent != "" {
		if teFile, err = os.Create(*traceEvent); err != nil {
			return bad("--trace-event %s: %v", *traceEvent, err)
		}
		defer teFile.Close()
		te = traceevent.Attach(l, teFile, traceevent.Options{MaxBytes: teMax, Other: map[string]any{"command": "ppsim run " + strings.Join(args, " ")}})
		if tw != nil {
			l.SetTracer(func(e sim.Event) { tw.event(e); te.Event(e) })
		}
	}
	interrupted := false
	if ops > 0 {
		// The page's run: seekable, so that a run that can fail is
		// checked fully after every operation, as the playground checks
		// it; Seek brings it to op N as a link with step=N does.
		l.EnableSeek()
		l.Seek(ops)
	} else {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		defer signal.Stop(sig)
		interrupted = runWithProgress(l, cfg.Packets, progressTo(stderr, *asJSON), sig)
	}
	l.SetTracer(nil)
	if tw != nil {
		if err := tw.close(); err != nil {
			return fmt.Errorf("--trace %s: %w (the trace is incomplete)", *trace, err)
		}
	}
	if te != nil {
		err := te.Close()
		if cerr := teFile.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--trace-event %s: %w (the trace is incomplete)", *traceEvent, err)
		}
	}
	if err := l.Err(); err != nil {
		return fmt.Errorf("the run stopped after %d packets: %w", l.Packets(), err)
	}
	res := l.Results()
	if tw != nil && tw.dropped > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("the trace stopped at --trace-max %d bytes: %d more events were not written", max, tw.dropped))
	}
	if te != nil && te.Dropped() > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("the Chrome Trace Event JSON stopped at --trace-event-max %d bytes: %d more events were not written (otherData says so)", teMax, te.Dropped()))
	}
	if ops > 0 {
		if l.Ops() < ops {
			res.Notes = append(res.Notes, fmt.Sprintf("--ops %d: the run ended at op %d (%d packets)", ops, l.Ops(), l.Packets()))
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("--ops %d: stopped after op %d, %d of %d packets: the state the playground shows at step=%d", ops, l.Ops(), l.Packets(), cfg.Packets, ops))
		}
	}
	if interrupted {
		res.Notes = append(res.Notes, fmt.Sprintf("interrupted (Ctrl-C) after %d of %d packets: the result covers those", l.Packets(), cfg.Packets))
	}
	if *asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		if _, err = fmt.Fprintf(stdout, "%s\n", b); err != nil {
			return err
		}
	} else if *asText {
		// the config as run: its driver named (the scenario's default
		// when none was given)
		if cfg.Driver == "" {
			cfg.Driver = res.Driver
		}
		if _, err := io.WriteString(stdout, lab.RunText(cfg, res, permalink(*baseURL, "", cfg.Values().Encode()))); err != nil {
			return err
		}
	} else {
		// One write, not one per line: under Node.js (the wasm build) each
		// write to stdout is a call into JavaScript and a resume of the Go
		// scheduler. Write errors are ignored, as WriteTable's are.
		bw := bufio.NewWriter(stdout)
		res.WriteTable(bw)
		bw.Flush()
	}
	if interrupted {
		return errInterrupted
	}
	return nil
}

// defaultTraceMax bounds a trace file (a 1 M-packet trace of every event is
// about 400 MB).
const defaultTraceMax = 256 << 20

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// traceWriter writes trace lines up to a byte limit and keeps the first
// write error (a full disk must not pass as a complete trace).
type traceWriter struct {
	f               *os.File
	w               *bufio.Writer
	max, written    int64
	dropped         int64
	onlyTracepoints bool
	err             error
}

func (t *traceWriter) event(e sim.Event) {
	if t.onlyTracepoints && !e.IsTracepoint() {
		return
	}
	if t.err != nil {
		return
	}
	line := e.TraceLine()
	if t.written+int64(len(line))+1 > t.max {
		if t.dropped == 0 {
			n, err := fmt.Fprintf(t.w, "# trace stopped here: --trace-max %d bytes\n", t.max)
			t.written += int64(n)
			t.err = err
		}
		t.dropped++
		return
	}
	n, err := t.w.WriteString(line)
	if err == nil {
		err = t.w.WriteByte('\n')
		n++
	}
	t.written += int64(n)
	t.err = err
}

func (t *traceWriter) close() error {
	if err := t.w.Flush(); t.err == nil {
		t.err = err
	}
	if err := t.f.Close(); t.err == nil {
		t.err = err
	}
	return t.err
}

// progressChunk is how many operations run between two looks at the clock
// and at Ctrl-C.
const progressChunk = 1 << 20

// runWithProgress runs l to the end in chunks (the same run as l.Run),
// calling show about four times a second, and stops early when stop
// delivers (Ctrl-C). It reports whether it was interrupted.
func runWithProgress(l *lab.Lab, packets int64, show func(l *lab.Lab, packets int64, elapsed time.Duration, final bool), stop <-chan os.Signal) bool {
	start := time.Now()
	last := start
	interrupted := false
	// Under js/wasm nothing preempts the run: a GC cycle that set-up began
	// would keep its mark phase (every pointer store behind a write
	// barrier) until the run yields. It yields here and after each chunk,
	// so the collector's worker finishes what it started.
	runtime.Gosched()
	for l.RunFor(progressChunk) {
		runtime.Gosched()
		select {
		case <-stop:
			interrupted = true
		default:
		}
		if interrupted {
			break
		}
		if show != nil && time.Since(last) > 250*time.Millisecond {
			show(l, packets, time.Since(start), false)
			last = time.Now()
		}
	}
	l.FinalCheck()
	if show != nil && time.Since(start) > 250*time.Millisecond {
		show(l, packets, time.Since(start), true)
	}
	return interrupted
}

// progressTo is the progress line on stderr: only when stderr is a terminal
// (or PPSIM_PROGRESS=1) and the output is not JSON.
func progressTo(stderr io.Writer, asJSON bool) func(*lab.Lab, int64, time.Duration, bool) {
	if asJSON {
		return nil
	}
	f, ok := stderr.(*os.File)
	tty := false
	if ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	if !tty && os.Getenv("PPSIM_PROGRESS") != "1" {
		return nil
	}
	return func(l *lab.Lab, packets int64, elapsed time.Duration, final bool) {
		done := l.Packets()
		line := fmt.Sprintf("ppsim: %d / %d packets (%.1f%%), %.3f ms simulated", done, packets, 100*float64(done)/float64(packets), float64(l.TimeNS())/1e6)
		if r := l.Results(); r.Rate.Value > 0 {
			line += fmt.Sprintf(", %.1f %s so far", r.Rate.Value, r.Rate.Unit)
		}
		if done > 0 && !final {
			eta := time.Duration(float64(elapsed) * float64(packets-done) / float64(done))
			line += ", ETA " + eta.Round(time.Second).String() + " (Ctrl-C prints the result so far)"
		}
		end := "\r"
		if final {
			end = "\n"
		}
		fmt.Fprintf(stderr, "\r\x1b[K%s%s", line, end)
	}
}

func cmdPredict(args []string, stdout io.Writer) error {
	fs := newFlagSet("predict")
	file := fs.String("profile", "", "perf top listing (a file, or the name of a shipped profile)")
	rate := fs.String("rate", "", "the measured rate (default: the listing's \"# rate:\" header)")
	unit := fs.String("unit", "", "kpps, pps or mbps (Mpps, Gbps converted; default: the header rate's)")
	change := fs.String("change", "", "skb-recycle, bulk, napi-direct or pp-napi")
	platform := fs.String("platform", "", "platform (default: the profile's driver's)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *file == "" {
		return bad("--profile: missing (a perf top listing file, or one of: %s)", strings.Join(perf.ProfileNames(), ", "))
	}
	prof, err := readProfile(*file)
	if err != nil {
		return err
	}
	if *rate == "" && len(prof.Rates) > 0 {
		// the rate the listing's header measured, in its unit
		*rate = strconv.FormatFloat(prof.Rates[0].Value, 'g', -1, 64)
		if *unit == "" {
			*unit = prof.Rates[0].Unit
		}
	}
	if *rate == "" {
		return bad("--rate: missing, and the listing's header states none (a \"# rate: 962 kpps\" line)")
	}
	v, err := strconv.ParseFloat(*rate, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return bad("--rate %q: want a positive number", *rate)
	}
	given, givenUnit := *rate, *unit
	v, *unit, err = perf.NormalizeRate(v, *unit)
	if err != nil {
		return bad("--%v", err)
	}
	pr, err := perf.Predict(perf.PredictInput{Profile: prof, Rate: v, Unit: *unit, Change: *change, Platform: *platform})
	if err != nil {
		if !strings.EqualFold(givenUnit, *unit) {
			return bad("%v (the rate given, %s %s, read as %s %s)", err, given, givenUnit, strconv.FormatFloat(v, 'g', -1, 64), *unit)
		}
		return bad("%v", err)
	}
	if *asJSON {
		b, err := json.Marshal(pr)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	fmt.Fprintf(stdout, "driver %s  platform %s  workload %s  era %s -> %s\n", pr.Driver, pr.Platform, pr.Workload, pr.EraBefore, pr.EraAfter)
	fmt.Fprintf(stdout, "before:    %s %s\npredicted: %s %s  (x%.3f)\n", num(pr.Before.Value), pr.Before.Unit, num(pr.Predicted.Value), pr.Predicted.Unit, pr.Speedup)
	for _, n := range pr.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	fmt.Fprintf(stdout, "\npredicted profile after the change:\n  Overhead  Symbol\n")
	for _, e := range pr.ProfileAfter {
		fmt.Fprintf(stdout, "  %6.2f%%  %s\n", e.Pct, e.Symbol)
	}
	return nil
}

// num prints a rate with one decimal, or with the significant digits a
// small rate needs (0.012, not 0.0).
func num(v float64) string {
	if v >= 10 || v == 0 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// readProfile reads --profile: a file (through perf.ReadProfile's limits)
// or, when no such file exists, a shipped profile's name.
func readProfile(name string) (*perf.Profile, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		p, _, serr := perf.ShippedProfile(name)
		if serr != nil {
			return nil, bad("--profile %s: no such file, and not a shipped profile (shipped: %s)", name, strings.Join(perf.ProfileNames(), ", "))
		}
		return p, nil
	}
	if err != nil {
		return nil, bad("--profile %s: %v", name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, bad("--profile %s: a directory (want a perf top listing file)", name)
	}
	p, err := perf.ReadProfile(f)
	if err != nil {
		return nil, bad("--profile %s: %v", name, err)
	}
	return p, nil
}

// stdin is what `--file -` reads (a test sets it).
var stdin io.Reader = os.Stdin

// cmdDiagnose reads pasted page_pool counters (ethtool -S, a table of
// them, ynl page-pool-stats-get / page-pool-get, ynltool page-pool stats)
// from --file (stdin by default, or "-") and prints the diagnosis: the
// format and where its numbers come from, each counter's meaning and
// increment site, the ratios, the rates between snapshots (--interval, or a
// `sleep N` line between them), the nearest model runs and what to look at
// next. Bad input is the line and what was expected (exit 2).
func cmdDiagnose(args []string, stdout io.Writer) error {
	fs := newFlagSet("diagnose")
	file := fs.String("file", "-", "the paste: a file, or - for stdin")
	interval := fs.String("interval", "0", "seconds between two snapshots (when the paste has no sleep N line)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	sec, err := parseInterval(*interval)
	if err != nil || (flagSet(fs, "interval") && sec <= 0) {
		return bad("--interval %q: want a positive number of seconds (10, 1.5 or 1.5s)", *interval)
	}
	name := *file
	var r io.Reader = stdin
	if name == "-" {
		name = "- (stdin)"
	} else {
		f, err := os.Open(*file)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return bad("--file %s: no such file (want a file with the paste, or - for stdin)", *file)
			}
			return bad("--file %s: %v", *file, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return bad("--file %s: a directory (want a file with the paste, or - for stdin)", *file)
		}
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, diagnose.MaxBytes+1))
	if err != nil {
		return bad("--file %s: %v", name, err)
	}
	if len(b) > diagnose.MaxBytes {
		return bad("--file %s: over %d bytes (want one paste of counters)", name, diagnose.MaxBytes)
	}
	if !utf8.Valid(b) {
		return bad("--file %s: not UTF-8 text (want %s)", name, diagnose.Accepted)
	}
	rep, err := diagnose.Diagnose(string(b), diagnose.Options{Interval: sec})
	if err != nil {
		return bad("--file %s: %v", name, err)
	}
	if *asJSON {
		out, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", out)
		return err
	}
	rep.WriteText(stdout)
	return nil
}

// parseInterval reads seconds: a number, or a duration with a unit (1.5s).
func parseInterval(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, fmt.Errorf("bad")
		}
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad")
	}
	return d.Seconds(), nil
}

// cmdReplay reads a page_pool:* capture (tracefs, trace-cmd report, perf
// script or bpftrace output; up to replay.CLIMaxLines lines) and prints
// its pools, the pages they still own, inflight over time and the pages
// freed while owned (engine/replay).
func cmdReplay(args []string, stdout io.Writer) error {
	fs := newFlagSet("replay")
	asJSON := fs.Bool("json", false, "print JSON")
	compareVeth := fs.String("compare-veth", "", "compare the capture with the model's veth transfer of MIB mebibytes (what live/capture.sh records)")
	eraName := fs.String("era", "6.18", "with --compare-veth: the model's era")
	var files []string
	var flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-" || !strings.HasPrefix(a, "-"):
			files = append(files, a)
		case (a == "--compare-veth" || a == "-compare-veth" || a == "--era" || a == "-era") && i+1 < len(args):
			flags = append(flags, a, args[i+1])
			i++
		default:
			flags = append(flags, a)
		}
	}
	if err := parse(fs, flags, stdout); err != nil {
		return err
	}
	if len(files) != 1 {
		return bad("replay: want one FILE (a page_pool:* capture: the tracefs trace file, trace-cmd report, perf script or bpftrace output), or - for stdin; got %d", len(files))
	}
	name := files[0]
	var r io.Reader = stdin
	if name == "-" {
		name = "- (stdin)"
	} else {
		f, err := os.Open(name)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return bad("replay %s: no such file (want a page_pool:* capture, or - for stdin)", name)
			}
			return bad("replay %s: %v", name, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return bad("replay %s: a directory (want a page_pool:* capture, or - for stdin)", name)
		}
		r = f
	}
	if f, ok := r.(*os.File); ok && f != stdin {
		// refuse a file over the limit before holding any of it
		if n, err := countLines(f, replay.CLIMaxLines); err != nil {
			return bad("replay %s: %v", name, err)
		} else if n > replay.CLIMaxLines {
			return bad("replay %s: %v", name, &replay.TooLarge{Max: replay.CLIMaxLines})
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return bad("replay %s: %v", name, err)
		}
	}
	rp, err := replay.Stream(r, replay.CLIMaxLines)
	if err != nil {
		return bad("replay %s: %v", name, err)
	}
	t := rp.Trace
	switch {
	case t.Lines == 0:
		return bad("replay %s: empty (want a page_pool:* capture: %s)", name, replay.Accepted)
	case t.Binary > 0 && rp.Events() == 0:
		return bad("replay %s: not text (%d of %d lines have a NUL byte or are not UTF-8; want %s)", name, t.Binary, t.Lines, replay.Accepted)
	case rp.Events() == 0:
		first := ""
		if len(t.Unknown) > 0 {
			first = fmt.Sprintf(" (line %d: %q)", t.Unknown[0].Line, t.Unknown[0].Text)
		}
		return bad("replay %s: no page_pool event in %d lines%s; want %s", name, t.Lines, first, replay.Accepted)
	}
	if *compareVeth != "" {
		if *asJSON {
			return bad("replay: --compare-veth prints a table; --json goes without it")
		}
		mib, err := strconv.Atoi(*compareVeth)
		if err != nil || mib < 1 || mib > 1024 {
			return bad("--compare-veth %q: want the transfer's size in MiB, 1 to 1024 (live/capture.sh's second argument)", *compareVeth)
		}
		return compareVethRun(stdout, rp, mib, *eraName)
	}
	if flagSet(fs, "era") {
		return bad("replay: --era goes with --compare-veth (a capture's era is what it printed)")
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rp.JSON())
	}
	_, err = io.WriteString(stdout, rp.Summary())
	return err
}

// compareVethRun prints the capture's summary, the model's veth transfer
// of the same size (lab.RunVethTransfer, its tracepoints read back through
// the same parser) and the two shapes side by side; a shape that differs
// is an error (exit 1).
func compareVethRun(stdout io.Writer, capture *replay.Replay, mib int, era string) error {
	var pools []*replay.Pool
	for _, p := range capture.Pools {
		if p.Holds > 0 {
			pools = append(pools, p)
		}
	}
	if len(pools) == 0 {
		return fmt.Errorf("replay: the capture holds no page in any pool: nothing to compare with the model's veth pool")
	}
	trace, res, err := lab.VethTransferTrace(lab.VethTransfer{Era: era, MiB: mib})
	if err != nil {
		return bad("--compare-veth: %v", flagText(err))
	}
	mt, err := replay.ParseString(trace, replay.CLIMaxLines)
	if err != nil {
		return err
	}
	model := replay.New(mt)
	if mt.UnknownCount > 0 || model.Busiest() == nil {
		return fmt.Errorf("replay: the model's own trace did not read back (%d unknown lines)", mt.UnknownCount)
	}
	fmt.Fprint(stdout, capture.Summary())
	fmt.Fprintf(stdout, "\nmodel: veth transfer of %d MiB in era %s (%d skbs copied by skb_pp_cow_data, reader batch %d bytes)\n", mib, era, res.SKBs, lab.VethDefaultRcvbuf)
	fmt.Fprint(stdout, model.Summary())
	var differ []string
	for _, p := range pools {
		rows := replay.CompareShapes(capture.ShapeOf(p), model.ShapeOf(model.Busiest()))
		fmt.Fprintf(stdout, "\ncapture pool %s against the model's veth pool:\n%s", p.Name(), replay.FormatShapes(rows))
		for _, r := range rows {
			if r.Compared && !r.Agree {
				differ = append(differ, fmt.Sprintf("pool %s: %s", p.Name(), r.What))
			}
		}
	}
	if len(pools) > 1 {
		fmt.Fprintf(stdout, "\nthe capture has %d pools that held pages (a veth has one page_pool per RX queue; live/capture.sh makes one queue): each is compared with the model's one\n", len(pools))
	}
	if len(differ) > 0 {
		return fmt.Errorf("replay: the capture and the model differ: %s", strings.Join(differ, "; "))
	}
	return nil
}

// countLines counts f's lines, stopping past max.
func countLines(f *os.File, max int) (int, error) {
	buf := make([]byte, 1<<20)
	n, last := 0, byte('\n')
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
			if n > max {
				return n, nil
			}
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
