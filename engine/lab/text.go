package lab

import (
	"fmt"
	"runtime/debug"
	"strings"

	"pplab/engine/sim"
)

// build is the build id a release build sets (-ldflags "-X
// pplab/engine/lab.build=…"); BuildID falls back to what go build stamps.
var build = ""

// BuildID names the model's build: the commit it was built from (12 hex
// digits, "-dirty" when the tree had changes), as `ppsim version` and the
// page both print it — the one value a reader of a pasted run needs to
// reproduce it. The Makefile sets it for every build; a plain go build or
// go install gets it from the VCS stamp; a test binary is "dev".
func BuildID() string {
	if build != "" {
		return build
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// TextWidth is the widest line of the plain-text summaries, what a netdev
// mail's body keeps to.
const TextWidth = 72

// RunText is a plain-text summary of one run, as a kernel developer pastes
// it into a mail: its config, the counters as ethtool -S names them, the
// result, the model's build and the link (the page passes its own origin
// and path; the CLI --base-url's, or the query part alone). No line is
// wider than TextWidth: a link longer than that is wrapped as RFC 3986
// (appendix C) asks, in angle brackets, its pieces split after & or /.
func RunText(cfg Config, r Results, link string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pplab model %s: %s\n", BuildID(), configLine(cfg))
	if rs := strings.Join(cfg.Knobs.Assignments(), " "); rs != "" {
		wrapWords(&b, "set: ", rs)
	}
	if len(cfg.Break) > 0 {
		wrapWords(&b, "broken rules: ", strings.Join(cfg.Break, " "))
	}
	if r.Packets == 0 {
		b.WriteString("\nbefore the first packet (no rate yet)\n")
	} else {
		fmt.Fprintf(&b, "\nafter %d packets: %s\n", r.Packets, rateText(r))
	}
	b.WriteString("\n")
	counters(&b, []string{""}, []sim.Stats{r.Stats})
	b.WriteString(violationText([]Results{r}, []string{""}))
	if link != "" {
		b.WriteString("\n")
		b.WriteString(WrapLink(link))
	}
	return b.String()
}

// CompareText is a plain-text summary of a comparison: both configs, the
// first divergence with the decision each run took and the change that
// decides it (its commit), both runs' counters, the build and the link.
// Lines as RunText's.
func CompareText(c Comparison, link string) string {
	var b strings.Builder
	x, y := c.Config[0], c.Config[1]
	fmt.Fprintf(&b, "pplab model %s: comparison\n", BuildID())
	na, nb := SideNames(x, y)
	la, lb := "A "+na+": ", "B "+nb+": "
	if na == "A" {
		la, lb = "A: ", "B: "
	}
	wrapWords(&b, la, configLine(x)+setBreak(x))
	wrapWords(&b, lb, configLine(y)+setBreak(y))
	b.WriteString("\n")
	switch {
	case c.FromStart != "":
		wrapWords(&b, "", c.FromStart+".")
	case c.Div == nil:
		wrapWords(&b, "", fmt.Sprintf("No divergence: both runs decide every one of %d packets alike (the pool's counters, violations and lost packets of each packet's operations).", c.Compared))
	default:
		d := c.Div
		if d.AfterLast {
			wrapWords(&b, "", fmt.Sprintf("First divergence: after the last packet (%d), in what the runs do then.", d.Packet-1))
		} else {
			wrapWords(&b, "", fmt.Sprintf("First divergence: packet %d.", d.Packet))
		}
		for i, name := range []string{na, nb} {
			wrapWords(&b, "  "+name+": ", DecisionText(d.First[i]))
		}
		b.WriteString("\n")
		if d.Together {
			wrapWords(&b, "", "Decided by these two changes together (neither alone moves this packet):")
		}
		for _, ch := range d.Changes {
			switch {
			case !ch.Decides:
			case d.Together:
				wrapWords(&b, "  ", ChangeText(ch))
			default:
				wrapWords(&b, "Decided by: ", ChangeText(ch))
			}
		}
		if !d.Explained {
			wrapWords(&b, "", "No one change alone, nor two together, moves this packet; the changes together do:")
			for _, ch := range d.Changes {
				wrapWords(&b, "  ", ChangeText(ch))
			}
		}
		for i, era := range []string{x.EraName(), y.EraName()} {
			if f := d.First[i]; f != nil && f.Source != "" && (i == 0 || f.Source != d.First[0].Source) {
				fmt.Fprintf(&b, "%s source (%s):\n", f.Func, era)
				b.WriteString(WrapLink(f.Source))
			}
		}
	}
	b.WriteString("\n")
	counters(&b, []string{na, nb}, []sim.Stats{c.Results[0].Stats, c.Results[1].Stats})
	b.WriteString(violationText(c.Results[:], []string{na, nb}))
	if link != "" {
		b.WriteString("\n")
		b.WriteString(WrapLink(link))
	}
	return b.String()
}

// SideNames are the short names of a comparison's two sides: their eras
// when the eras differ, else their drivers, else A and B.
func SideNames(a, b Config) (string, string) {
	switch {
	case a.EraName() != b.EraName():
		return a.EraName(), b.EraName()
	case a.Driver != b.Driver && a.Driver != "" && b.Driver != "":
		return a.Driver, b.Driver
	}
	return "A", "B"
}

// DecisionText says one decision: the function, what it counted (or the
// violation), the page and the CPU.
func DecisionText(d *Decision) string {
	if d == nil {
		return "no further decision in the packet"
	}
	return fmt.Sprintf("%s: %s (%s)", d.Func, d.What(), d.Where())
}

// What is what the decision did: the counter it counted (or released), or
// "violation KIND".
func (d *Decision) What() string {
	if d.Violation != "" {
		return "violation " + d.Violation
	}
	return d.Stat
}

// Where is where it was decided: the CPU, the page (when there is one)
// and the operation (1-based).
func (d *Decision) Where() string {
	page := ""
	if d.PFN >= 0 {
		page = fmt.Sprintf(", pfn %d", d.PFN)
	}
	return fmt.Sprintf("cpu%d%s, op %d", d.CPU, page, d.Op+1)
}

// ChangeText says one change: what it decides, its values and its commit.
func ChangeText(ch Change) string {
	commit := "commit not pinned"
	if ch.Commit != "" {
		commit = "commit " + ch.Commit
	}
	if ch.Kind == "knob" || ch.Kind == "break" {
		commit = ch.Kind
	}
	return fmt.Sprintf("%s (%s: %s→%s; %s)", ch.Rule, ch.Name, ch.A, ch.B, commit)
}

// configLine names a run: its driver (the scenario's default named too),
// scenario, era, seed (always: the page's default is 0, ppsim's 1) and
// packets.
func configLine(cfg Config) string {
	s := cfg.Scenario
	if d := cfg.DriverName(); d != "" {
		s = d + " " + s
	}
	s += ", era " + cfg.EraName()
	s += fmt.Sprintf(", seed %d", cfg.Seed)
	packets := cfg.Packets
	if packets == 0 {
		packets = DefaultPackets
	}
	return s + fmt.Sprintf(", %d packets", packets)
}

func setBreak(cfg Config) string {
	s := ""
	if a := cfg.Knobs.Assignments(); len(a) > 0 {
		s += "; " + strings.Join(a, " ")
	}
	if len(cfg.Break) > 0 {
		s += "; broken: " + strings.Join(cfg.Break, " ")
	}
	return s
}

func rateText(r Results) string {
	s := fmt.Sprintf("%.0f %s", r.Rate.Value, r.Rate.Unit)
	if r.LinkBound {
		s += " (the link's rate)"
	} else {
		s += fmt.Sprintf(" (cpu%d the bottleneck)", r.Bottleneck)
	}
	return s
}

// counters writes the 11 counters as ethtool -S names them, one column
// per run.
func counters(b *strings.Builder, names []string, st []sim.Stats) {
	if len(names) > 1 || names[0] != "" {
		fmt.Fprintf(b, "%-26s", "")
		for _, n := range names {
			fmt.Fprintf(b, " %13s", n)
		}
		b.WriteString("\n")
	}
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		fmt.Fprintf(b, "%-26s", s.Ethtool())
		for i := range st {
			fmt.Fprintf(b, " %13d", st[i][s])
		}
		b.WriteString("\n")
	}
}

func violationText(rs []Results, names []string) string {
	var b strings.Builder
	for i, r := range rs {
		var parts []string
		for k := sim.Kind(0); k < sim.NumKinds; k++ {
			if n := r.Violations.Counts[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, n))
			}
		}
		label := "violations: "
		if names[i] != "" {
			label = "violations (" + names[i] + "): "
		}
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		wrapWords(&b, label, strings.Join(parts, ", "))
	}
	return b.String()
}

// wrapWords writes prefix and text as lines of at most TextWidth columns,
// continuation lines indented two spaces under the prefix; a word longer than a line is
// written whole (a link: WrapLink).
func wrapWords(b *strings.Builder, prefix, text string) {
	line := prefix
	width := func(s string) int { return len([]rune(s)) }
	indent := strings.Repeat(" ", len(prefix)-len(strings.TrimLeft(prefix, " "))+2)
	for _, w := range strings.Fields(text) {
		switch {
		case line == prefix:
			line += w
		case width(line)+1+width(w) <= TextWidth:
			line += " " + w
		default:
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent + w
		}
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
}

// WrapLink writes a link on lines of at most TextWidth columns: whole when
// it fits, else in angle brackets split after '&', '?' or '/' (RFC 3986
// appendix C: a reader removes the whitespace a wrapped URI gained), a
// piece longer than a line split where it must.
func WrapLink(link string) string {
	if len(link) <= TextWidth {
		return link + "\n"
	}
	s := "<" + link + ">"
	var b strings.Builder
	for len(s) > TextWidth {
		cut := strings.LastIndexAny(s[:TextWidth], "&?/")
		if cut < TextWidth/3 {
			cut = TextWidth - 1
		}
		b.WriteString(s[:cut+1] + "\n")
		s = s[cut+1:]
	}
	b.WriteString(s + "\n")
	return b.String()
}
