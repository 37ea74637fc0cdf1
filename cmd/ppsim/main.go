// Command ppsim runs the pplab engine headless: list what can be configured,
// run a scenario and print its results (a table, or JSON for other tools).
// The command-line contract is in product.md §3; other tools depend on it.
//
// Exit status: 0 on success, 2 on bad input (one line on stderr naming the
// input and the accepted values), 1 on an internal error.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
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
  ppsim run [--driver D] --scenario S [--era E] [--packets N] [--seed N]
            [--set knob=value ...] [--break rule ...] [--trace FILE] [--json]
  ppsim predict --profile FILE --rate VALUE --unit kpps|pps|mbps
            --change skb-recycle|bulk|napi-direct [--platform P] [--json]`

func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout)
	if err == nil {
		return 0
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintln(stderr, "ppsim: "+msg)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func dispatch(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return bad("missing command (accepted: list, run, predict); %s", strings.ReplaceAll(usage, "\n", " "))
	}
	switch args[0] {
	case "list":
		return cmdList(args[1:], stdout)
	case "predict":
		return cmdPredict(args[1:], stdout)
	case "run":
		return cmdRun(args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return bad("unknown command %q (accepted: list, run, predict)", args[0])
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

// parse turns flag errors into one-line usage errors naming the accepted flags.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
		return bad("%s %v (accepted flags: %s)", fs.Name(), err, strings.Join(names, ", "))
	}
	if fs.NArg() > 0 {
		return bad("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

func cmdList(args []string, stdout io.Writer) error {
	fs := newFlagSet("list")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
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

func cmdRun(args []string, stdout io.Writer) error {
	fs := newFlagSet("run")
	var cfg lab.Config
	var sets, breaks multi
	fs.StringVar(&cfg.Driver, "driver", "", "driver model")
	fs.StringVar(&cfg.Scenario, "scenario", "", "scenario")
	fs.StringVar(&cfg.Era, "era", sim.DefaultEra, "kernel era")
	packets := fs.String("packets", strconv.Itoa(lab.DefaultPackets), "packets to run")
	seed := fs.String("seed", "1", "random seed")
	fs.Var(&sets, "set", "knob=value (repeatable)")
	fs.Var(&breaks, "break", "rule to break (repeatable)")
	trace := fs.String("trace", "", "write the event trace to FILE")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	n, err := strconv.ParseInt(*packets, 10, 64)
	if err != nil || n < 1 || n > lab.MaxPackets {
		return bad("--packets %q: want an integer from 1 to %d", *packets, int64(lab.MaxPackets))
	}
	cfg.Packets = n
	s, err := strconv.ParseUint(*seed, 10, 64)
	if err != nil {
		return bad("--seed %q: want a non-negative integer", *seed)
	}
	cfg.Seed = s
	cfg.Set, cfg.Break = sets, breaks
	l, err := lab.New(cfg)
	if err != nil {
		return bad("%s", flagText(err))
	}
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			return bad("--trace %s: %v", *trace, err)
		}
		w := bufio.NewWriter(f)
		l.SetTracer(func(e sim.Event) {
			w.WriteString(e.TraceLine())
			w.WriteByte('\n')
		})
		defer func() {
			w.Flush()
			f.Close()
		}()
	}
	l.Run()
	if err := l.Err(); err != nil {
		return fmt.Errorf("the run stopped after %d packets: %w", l.Packets(), err)
	}
	res := l.Results()
	if *asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	res.WriteTable(stdout)
	return nil
}

func cmdPredict(args []string, stdout io.Writer) error {
	fs := newFlagSet("predict")
	file := fs.String("profile", "", "perf top listing (a file, or the name of a shipped profile)")
	rate := fs.String("rate", "", "the measured rate")
	unit := fs.String("unit", "", "kpps, pps or mbps")
	change := fs.String("change", "", "skb-recycle, bulk or napi-direct")
	platform := fs.String("platform", "", "platform (default: the profile's driver's)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *file == "" {
		return bad("--profile: missing (a perf top listing file, or one of: %s)", strings.Join(lab.ProfileNames(), ", "))
	}
	text, err := os.ReadFile(*file)
	var prof *lab.Profile
	if err != nil {
		p, _, serr := lab.ShippedProfile(*file)
		if serr != nil {
			return bad("--profile %s: %v", *file, err)
		}
		prof = p
	} else if prof, err = lab.ParseProfile(string(text)); err != nil {
		return bad("--profile %s: %v", *file, err)
	}
	v, err := strconv.ParseFloat(*rate, 64)
	if err != nil || v <= 0 {
		return bad("--rate %q: want a positive number", *rate)
	}
	if *unit != "kpps" && *unit != "pps" && *unit != "mbps" {
		return bad("--unit %q: accepted: kpps, pps, mbps", *unit)
	}
	pr, err := lab.Predict(lab.PredictInput{Profile: prof, Rate: v, Unit: *unit, Change: *change, Platform: *platform})
	if err != nil {
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
	fmt.Fprintf(stdout, "before:    %.1f %s\npredicted: %.1f %s  (x%.3f)\n", pr.Before.Value, pr.Before.Unit, pr.Predicted.Value, pr.Predicted.Unit, pr.Speedup)
	for _, n := range pr.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	fmt.Fprintf(stdout, "\npredicted profile after the change:\n  Overhead  Symbol\n")
	for _, e := range pr.ProfileAfter {
		fmt.Fprintf(stdout, "  %6.2f%%  %s\n", e.Pct, e.Symbol)
	}
	return nil
}
