package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"slices"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// withFlags are the flags that make compare's second side from its first.
var withFlags = []string{"--with-era", "--with-driver", "--with-set", "--with-break"}

// cmdCompare runs a run's config (the first side, A) and the same config
// with the --with-* changes (the second, B) packet by packet to the first
// packet whose pages they treat differently (lab.Compare), and prints the
// divergence: both sides' first differing decision, the change that
// decides it with its commit, both runs' counters; --json the same as an
// object, --text the netdev mail text (lab.CompareText).
func cmdCompare(args []string, stdout io.Writer) error {
	fs := newFlagSet("compare")
	cf := addConfigFlags(fs)
	withEra := fs.String("with-era", "", "the second side's era")
	withDriver := fs.String("with-driver", "", "the second side's driver")
	var withSets, withBreaks multi
	fs.Var(&withSets, "with-set", "knob=value the second side sets besides the first side's (repeatable; replaces a --set of the same knob)")
	fs.Var(&withBreaks, "with-break", "a rule the second side breaks besides the first side's (repeatable)")
	asJSON := fs.Bool("json", false, "print JSON")
	asText := fs.Bool("text", false, "print the comparison as plain text for a mail (72 columns) with its link")
	baseURL := fs.String("base-url", "", "the page's address the link starts with (default: the query part alone)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if !flagSet(fs, "with-era") && !flagSet(fs, "with-driver") && len(withSets) == 0 && len(withBreaks) == 0 {
		return bad("compare: give the second side: at least one of --with-era E, --with-driver D, --with-set knob=value, --with-break RULE (each changes the first side's config)")
	}
	if err := checkTextFlags(fs, *asText, *asJSON, *baseURL); err != nil {
		return err
	}
	if err := cf.parseNumbers(); err != nil {
		return err
	}
	a, err := cf.config()
	if err != nil {
		return err
	}
	if _, err := lab.New(a); err != nil {
		return bad("%s", flagText(err))
	}
	b, err := otherSide(fs, a, *withEra, *withDriver, withSets, withBreaks)
	if err != nil {
		return err
	}
	c, err := lab.Compare(a, b)
	if err != nil {
		return err
	}
	query := lab.CompareValues(c.Config[0], c.Config[1]).Encode()
	link := permalink(*baseURL, "compare/", query)
	bw := bufio.NewWriter(stdout)
	switch {
	case *asJSON:
		out, err := compareJSON(c, query, link)
		if err != nil {
			return err
		}
		bw.Write(out)
		bw.WriteByte('\n')
	case *asText:
		bw.WriteString(lab.CompareText(c, link))
	default:
		writeCompare(bw, c, withText(fs), link)
	}
	return bw.Flush()
}

// otherSide is a with the --with-* changes (lab.Edits), each checked as it is added
// (the era and the driver, the rules, then the knobs, as a link adds
// them): a change that does not build names its flag.
func otherSide(fs *flag.FlagSet, a lab.Config, era, driver string, sets, breaks []string) (lab.Config, error) {
	var w lab.Edits
	var named []string
	if flagSet(fs, "with-era") {
		w.Era = era
		named = append(named, "--with-era "+era)
	}
	if flagSet(fs, "with-driver") {
		w.Driver = driver
		named = append(named, "--with-driver "+driver)
	}
	if len(named) > 0 {
		if _, err := lab.New(w.Apply(a)); err != nil {
			return w.Apply(a), bad("%s: %s", strings.Join(named, " "), sideText(err))
		}
	}
	for _, r := range breaks {
		if slices.Contains(a.Break, r) || slices.Contains(w.Break, r) {
			return w.Apply(a), bad("--with-break %s: the first side breaks it already (--break %s), or it is given twice: the second side breaks the rules the first does and these", r, r)
		}
		w.Break = append(w.Break, r)
		if _, err := lab.New(w.Apply(a)); err != nil {
			return w.Apply(a), bad("--with-break %s: %s", r, sideText(err))
		}
	}
	if len(sets) > 0 {
		o, err := sim.ParseOverrides(sets...)
		if err != nil {
			return w.Apply(a), bad("%s", "--with-"+strings.TrimPrefix(flagText(err), "--"))
		}
		w.Knobs = o
		if _, err := lab.New(w.Apply(a)); err != nil {
			var fe *sim.FieldError
			if errors.As(err, &fe) && fe.Knob {
				if k, ok := sim.KnobByName(fe.Field); ok {
					if v, ok := o.Get(k); ok {
						return w.Apply(a), bad("--with-set %s=%d: %s", fe.Field, v, fe.Msg)
					}
				}
			}
			return w.Apply(a), bad("--with-set %s: %s", strings.Join(sets, " --with-set "), sideText(err))
		}
	}
	return w.Apply(a), nil
}

// sideText is an engine error about the second side, after the flag that
// made it: what is wrong and what is accepted.
func sideText(err error) string {
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		if fe.Knob && !fe.Named {
			return fe.Error() // names the knob: it may be the first side's
		}
		return fe.Msg
	}
	return err.Error()
}

// withText is the --with-* flags as given.
func withText(fs *flag.FlagSet) string {
	var parts []string
	fs.Visit(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "with-") {
			return
		}
		if m, ok := f.Value.(*multi); ok {
			for _, v := range *m {
				parts = append(parts, "--"+f.Name+" "+v)
			}
			return
		}
		parts = append(parts, "--"+f.Name+" "+f.Value.String())
	})
	return strings.Join(parts, " ")
}

// checkTextFlags checks --text, --json and --base-url together.
func checkTextFlags(fs *flag.FlagSet, asText, asJSON bool, base string) error {
	if asText && asJSON {
		return bad("%s: --text and --json are two outputs: give one", fs.Name())
	}
	if !flagSet(fs, "base-url") {
		return nil
	}
	if fs.Name() == "run" && !asText {
		return bad("run: --base-url goes with --text (the link the text ends with)")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return bad("--base-url %q: want an absolute http or https URL without a query or fragment, the page's address (e.g. https://example.org/pplab/)", base)
	}
	return nil
}

// permalink is the link to a run (page "") or a comparison (page
// "compare/", the side-by-side page): the site's address (--base-url, a
// "/" added when it has none at its end), the page and the query; without
// --base-url the page and the query alone (a base ending in index.html
// is its directory) (a run's "?…", a comparison's
// "compare/?…"), to append to the site's address.
func permalink(base, page, query string) string {
	base = strings.TrimSuffix(base, "index.html") // the site's address, not its index page's
	if base != "" && !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + page + "?" + query
}

// writeCompare prints a comparison as a table: the sides, the first
// divergence with each side's first differing decision and its source,
// the changes that decide it, both runs' counters and violations, the
// build and the link.
func writeCompare(w *bufio.Writer, c lab.Comparison, with, link string) {
	x, y := c.Config[0], c.Config[1]
	na, nb := lab.SideNames(x, y)
	names := [2]string{"A", "B"}
	if na != "A" {
		names = [2]string{"A " + na, "B " + nb}
	}
	width := max(len(names[0]), len(names[1])) + 1
	for i, cfg := range c.Config {
		fmt.Fprintf(w, "%-*s %s\n", width, names[i]+":", sideLine(cfg))
	}
	fmt.Fprintf(w, "B is A with %s\n\n", with)
	switch {
	case c.FromStart != "":
		fmt.Fprintf(w, "The runs differ from the start: %s.\n", c.FromStart)
	case c.Div == nil:
		fmt.Fprintf(w, "No divergence: both runs decide each of %d packets alike (the pool's counters, violations and lost packets of each packet's operations).\n", c.Compared)
	default:
		d := c.Div
		if d.AfterLast {
			fmt.Fprintf(w, "First divergence: after the last packet (%d), in what the runs do then; every packet was decided alike.\n", d.Packet-1)
		} else {
			fmt.Fprintf(w, "First divergence: packet %d (packets 1 to %d decided alike).\n", d.Packet, d.Packet-1)
		}
		for i := range names {
			fmt.Fprintf(w, "  %-*s %s\n", width, names[i]+":", lab.DecisionText(d.First[i]))
			if f := d.First[i]; f != nil {
				if f.Why != "" {
					fmt.Fprintf(w, "  %-*s   %s\n", width, "", f.Why)
				}
				if f.Source != "" {
					fmt.Fprintf(w, "  %-*s   %s\n", width, "", f.Source)
				}
			}
		}
		fmt.Fprintf(w, "  packet %d's operations (A ops %d-%d, B ops %d-%d) decided:\n", d.Packet, d.Op[0]+1, d.OpEnd[0], d.Op[1]+1, d.OpEnd[1])
		fmt.Fprintf(w, "    %-28s %8s %8s\n", "", "A", "B")
		for s := sim.Stat(0); s < sim.NumStats; s++ {
			if d.Decisions[0].Stats[s] != d.Decisions[1].Stats[s] {
				fmt.Fprintf(w, "    %-28s %8d %8d\n", s.Ethtool(), d.Decisions[0].Stats[s], d.Decisions[1].Stats[s])
			}
		}
		for k := sim.Kind(0); k < sim.NumKinds; k++ {
			if d.Decisions[0].Violations[k] != d.Decisions[1].Violations[k] {
				fmt.Fprintf(w, "    %-28s %8d %8d\n", "violation "+k.String(), d.Decisions[0].Violations[k], d.Decisions[1].Violations[k])
			}
		}
		if d.Decisions[0].Released != d.Decisions[1].Released {
			fmt.Fprintf(w, "    %-28s %8d %8d\n", "pages released", d.Decisions[0].Released, d.Decisions[1].Released)
		}
		if d.Decisions[0].Lost != d.Decisions[1].Lost {
			fmt.Fprintf(w, "    %-28s %8d %8d\n", "lost", d.Decisions[0].Lost, d.Decisions[1].Lost)
		}
		w.WriteString("\n")
		if d.Together {
			w.WriteString("Decided by these two changes together (neither alone moves this packet):\n")
		}
		decides := 0
		for _, ch := range d.Changes {
			if ch.Decides {
				decides++
				if d.Together {
					fmt.Fprintf(w, "  %s\n", lab.ChangeText(ch))
				} else {
					fmt.Fprintf(w, "Decided by: %s\n", lab.ChangeText(ch))
				}
			}
		}
		switch {
		case !d.Explained:
			w.WriteString("No one change alone, nor two together, moves this packet; the changes together do:\n")
		case len(d.Changes) > decides && d.Together:
			w.WriteString("Other differences:\n")
		case len(d.Changes) > decides:
			w.WriteString("Other differences (none alone moves this packet):\n")
		}
		for _, ch := range d.Changes {
			if !ch.Decides {
				fmt.Fprintf(w, "  %s\n", lab.ChangeText(ch))
			}
		}
	}
	fmt.Fprintf(w, "\n%-28s %14s %14s\n", "counters (ethtool -S)", names[0], names[1])
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		fmt.Fprintf(w, "%-28s %14d %14d\n", s.Ethtool(), c.Results[0].Stats[s], c.Results[1].Stats[s])
	}
	for i, r := range c.Results {
		var parts []string
		for k := sim.Kind(0); k < sim.NumKinds; k++ {
			if n := r.Violations.Counts[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, n))
			}
		}
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		fmt.Fprintf(w, "violations (%s): %s\n", names[i], strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "\nbuild: %s\nlink: %s\n", lab.BuildID(), link)
}

// sideLine is one side's config as the flags name it.
func sideLine(cfg lab.Config) string {
	s := "scenario " + cfg.Scenario
	if cfg.Driver != "" {
		s += "  driver " + cfg.Driver
	}
	s += fmt.Sprintf("  era %s  packets %d  seed %d", cfg.EraName(), cfg.Packets, cfg.Seed)
	if a := cfg.Knobs.Assignments(); len(a) > 0 {
		s += "  set " + strings.Join(a, " ")
	}
	if len(cfg.Break) > 0 {
		s += "  break " + strings.Join(cfg.Break, " ")
	}
	return s
}

// The `ppsim compare --json` contract (README's ppsim section).
type compareOut struct {
	Build      string             `json:"build"`
	Configs    [2]configOut       `json:"configs"`
	Compared   int64              `json:"compared"`
	FromStart  string             `json:"from_start"`
	Divergence *divergenceOut     `json:"divergence"`
	Runs       [2]json.RawMessage `json:"runs"`
	Query      string             `json:"query"`
	Link       string             `json:"link"`
}

type configOut struct {
	Scenario string           `json:"scenario"`
	Driver   string           `json:"driver"`
	Era      string           `json:"era"`
	Platform string           `json:"platform"`
	Packets  int64            `json:"packets"`
	Seed     uint64           `json:"seed"`
	Set      map[string]int64 `json:"set"`
	Break    []string         `json:"break"`
}

type divergenceOut struct {
	Packet    int64           `json:"packet"`
	AfterLast bool            `json:"after_last"`
	Ops       [2]opsOut       `json:"ops"`
	Decisions [2]decisionsOut `json:"decisions"`
	First     [2]*decisionOut `json:"first"`
	Changes   []changeOut     `json:"changes"`
	Explained bool            `json:"explained"`
	Together  bool            `json:"together"`
}

type opsOut struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

type decisionsOut struct {
	Stats      map[string]uint64 `json:"stats"`
	Violations map[string]int    `json:"violations"`
	Released   int64             `json:"released"`
	Lost       int64             `json:"lost"`
}

type decisionOut struct {
	Op        uint64 `json:"op"`
	CPU       int    `json:"cpu"`
	PFN       int32  `json:"pfn"`
	Func      string `json:"func"`
	Source    string `json:"source"`
	Stat      string `json:"stat"`
	Violation string `json:"violation"`
	Why       string `json:"why"`
}

type changeOut struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Rule    string `json:"rule"`
	Commit  string `json:"commit"`
	A       string `json:"a"`
	B       string `json:"b"`
	Decides bool   `json:"decides"`
}

func compareJSON(c lab.Comparison, query, link string) ([]byte, error) {
	out := compareOut{Build: lab.BuildID(), Compared: c.Compared, FromStart: c.FromStart, Query: query, Link: link}
	for i, cfg := range c.Config {
		co := configOut{Scenario: cfg.Scenario, Driver: cfg.Driver, Era: cfg.EraName(), Platform: c.Results[i].Platform,
			Packets: cfg.Packets, Seed: cfg.Seed, Set: map[string]int64{}, Break: slices.Clone(cfg.Break)}
		if co.Break == nil {
			co.Break = []string{}
		}
		for k := sim.Knob(0); k < sim.NumKnobs; k++ {
			if v, ok := cfg.Knobs.Get(k); ok {
				co.Set[k.String()] = v
			}
		}
		out.Configs[i] = co
		r, err := json.Marshal(c.Results[i])
		if err != nil {
			return nil, err
		}
		out.Runs[i] = r
	}
	if d := c.Div; d != nil {
		do := &divergenceOut{Packet: d.Packet, AfterLast: d.AfterLast, Explained: d.Explained, Together: d.Together, Changes: []changeOut{}}
		for i := range 2 {
			do.Ops[i] = opsOut{From: d.Op[i], To: d.OpEnd[i]}
			ds := decisionsOut{Stats: map[string]uint64{}, Violations: map[string]int{}, Released: d.Decisions[i].Released, Lost: d.Decisions[i].Lost}
			for s := sim.Stat(0); s < sim.NumStats; s++ {
				ds.Stats[s.String()] = d.Decisions[i].Stats[s]
			}
			for k := sim.Kind(0); k < sim.NumKinds; k++ {
				ds.Violations[k.String()] = d.Decisions[i].Violations[k]
			}
			do.Decisions[i] = ds
			if f := d.First[i]; f != nil {
				do.First[i] = &decisionOut{Op: f.Op + 1, CPU: f.CPU, PFN: f.PFN, Func: f.Func, Source: f.Source, Stat: f.Stat, Violation: f.Violation, Why: f.Why}
			}
		}
		for _, ch := range d.Changes {
			do.Changes = append(do.Changes, changeOut{Kind: ch.Kind, Name: ch.Name, Rule: ch.Rule, Commit: ch.Commit, A: ch.A, B: ch.B, Decides: ch.Decides})
		}
		out.Divergence = do
	}
	return json.Marshal(out)
}

// cmdVersion prints the model's build id (lab.BuildID: what every --text
// output and the page's footer print) and the Go toolchain.
func cmdVersion(args []string, stdout io.Writer) error {
	fs := newFlagSet("version")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *asJSON {
		b, err := json.Marshal(struct {
			Build string `json:"build"`
			Go    string `json:"go"`
		}{lab.BuildID(), runtime.Version()})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintf(stdout, "ppsim %s (%s, %s/%s)\n", lab.BuildID(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
