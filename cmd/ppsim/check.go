package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"pplab/engine/observe"
	"pplab/engine/sim"
)

// cmdCheck prints the commands that observe a rule, a counter or the
// destroy story on a live kernel of an era (engine/observe): ppsim check
// RULE|COUNTER|destroy [--era E] [--json], or ppsim check --list.
func cmdCheck(args []string, stdout io.Writer) error {
	fs := newFlagSet("check")
	era := fs.String("era", sim.DefaultEra, "kernel era")
	list := fs.Bool("list", false, "list what can be checked")
	asJSON := fs.Bool("json", false, "print JSON")
	var name string
	switch {
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	case len(args) > 0 && !strings.HasPrefix(args[len(args)-1], "-") && (len(args) < 2 || !isValueFlag(args[len(args)-2])):
		name, args = args[len(args)-1], args[:len(args)-1]
	}
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *list {
		if name != "" {
			return bad("check: --list takes no rule or counter (got %q)", name)
		}
		return writeCheckList(stdout, *asJSON)
	}
	if name == "" {
		return bad("check: give a rule, a counter or %s (ppsim check --list names them)", observe.StoryName)
	}
	t, err := observe.ByName(name)
	if err != nil {
		return bad("check: %v", err)
	}
	e, err := sim.EraByName(*era)
	if err != nil {
		return bad("check: --era: %v", err)
	}
	p := observe.PlanFor(t, e)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	return writePlan(stdout, p, e)
}

// isValueFlag says whether a takes the next argument as its value.
func isValueFlag(a string) bool {
	n := strings.TrimLeft(a, "-")
	return n == "era" && !strings.Contains(a, "=")
}

func writeCheckList(w io.Writer, asJSON bool) error {
	var rules, counters []string
	for _, t := range observe.Targets() {
		switch {
		case t.IsRule():
			rules = append(rules, t.String())
		case t.IsCounter():
			counters = append(counters, t.String())
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string][]string{"rules": rules, "counters": counters, "stories": {observe.StoryName}, "eras": sim.EraNames()})
	}
	_, err := fmt.Fprintf(w, "rules:    %s\ncounters: %s (or by ethtool's or netlink's name)\nstory:    %s (a pool destroyed while pages are in flight)\neras:     %s (default %s)\n",
		strings.Join(rules, " "), strings.Join(counters, " "), observe.StoryName, strings.Join(sim.EraNames(), " "), sim.DefaultEra)
	return err
}

func writePlan(w io.Writer, p observe.Plan, e *sim.Era) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on a %s kernel (era %s)\n", p.Target, e.Tag, e.Name)
	if p.Note != "" {
		fmt.Fprintf(&b, "%s\n", p.Note)
	}
	if len(p.Commands) == 0 {
		b.WriteString("no command observes it in this era\n")
	}
	for _, c := range p.Commands {
		fmt.Fprintf(&b, "\n[%s] %s\n", c.Kind, c.Shows)
		if c.Run != "" {
			fmt.Fprintf(&b, "  run: %s\n", c.Run)
		}
		fmt.Fprintf(&b, "  source: %s\n  validated: %s\n", c.Source, c.Validated)
		for _, l := range strings.Split(strings.TrimRight(c.Text, "\n"), "\n") {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
