package lab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/sim"
)

// Editing a config the way an interactive front end does: one field at a
// time, with the presets of sizes, and the choices each select offers with
// why a choice does not run. The rules live here (the engine's), so that a
// UI never repeats them.

// Presets of sizes: "teaching" (small rings a person can read, TeachingSet)
// and "kernel" (the drivers' own defaults).
const (
	PresetTeaching = "teaching"
	PresetKernel   = "kernel"
)

// presetKnobs are the knobs a preset of sizes sets.
var presetKnobs = []string{"rx_descs", "pool_size", "node_pages"}

// PresetOf names the preset of sizes cfg uses: teaching when it sets every
// knob of its scenario's teaching set to that value, else kernel.
func PresetOf(cfg Config) string {
	for _, s := range TeachingSet(cfg.Scenario) {
		if !slices.Contains(cfg.Set, s) {
			return PresetKernel
		}
	}
	return PresetTeaching
}

// WithPreset is cfg with the sizes of preset (PresetTeaching or
// PresetKernel) in place of its own; other knobs stay.
func WithPreset(cfg Config, preset string) Config {
	cfg.Set = withoutKnobs(cfg.Set, presetKnobs...)
	if preset == PresetTeaching {
		cfg.Set = append(cfg.Set, TeachingSet(cfg.Scenario)...)
	}
	return cfg
}

// WithKnob is cfg with knob name set to value (the value parsed and range
// checked as --set does; the assignment replaces any earlier one).
func WithKnob(cfg Config, name, value string) (Config, error) {
	n, ok := sim.KnobByName(name)
	if !ok {
		return cfg, &sim.FieldError{Field: name, Value: value, Msg: "unknown knob (ppsim list names them)"}
	}
	var k sim.Knobs
	if err := k.SetValue(n, value); err != nil {
		return cfg, err
	}
	cfg.Set = append(withoutKnobs(cfg.Set, name), name+"="+strconv.FormatInt(k[n], 10))
	return cfg, nil
}

// WithRuleToggled is cfg with rule broken if it was intact and intact if it
// was broken (the list stays sorted).
func WithRuleToggled(cfg Config, rule string) (Config, error) {
	if _, err := sim.RuleByName(rule); err != nil {
		return cfg, err
	}
	b := slices.Clone(cfg.Break)
	if i := slices.Index(b, rule); i >= 0 {
		b = slices.Delete(b, i, i+1)
	} else {
		b = append(b, rule)
	}
	slices.Sort(b)
	cfg.Break = b
	return cfg, nil
}

// withoutKnobs drops the assignments of the named knobs from a Set list.
func withoutKnobs(set []string, names ...string) []string {
	out := make([]string, 0, len(set)+1)
	for _, s := range set {
		if k, _, _ := strings.Cut(s, "="); !slices.Contains(names, k) {
			out = append(out, s)
		}
	}
	return out
}

// Choice is one value a select offers, with why it does not run with the
// rest of the config ("" when it does).
type Choice struct {
	Value, Label, Why string
}

// DriverChoices are the drivers cfg's scenario can name: "" (its default)
// first, then every driver model, each with why it does not run here.
func DriverChoices(cfg Config) []Choice {
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return nil
	}
	if !sc.NeedsDriver {
		return []Choice{{Value: "", Label: "none (a pool micro-benchmark)"}}
	}
	era := cfg.Era
	if era == "" {
		era = sim.DefaultEra
	}
	list := List()
	sj := list.Scenario(sc.Name)
	out := []Choice{{Value: "", Label: "default (" + sc.DefaultDriver + ")"}}
	for _, d := range list.DriverModels {
		c := Choice{Value: d.Name, Label: d.Name + " (" + d.Platform + ")"}
		switch {
		case !slices.Contains(sj.Drivers, d.Name):
			c.Why = "does not run " + sc.Name
		case !slices.Contains(d.Eras, era):
			c.Why = "not in era " + era
		}
		out = append(out, c)
	}
	return out
}

// EraChoices are the eras in release order, each with why cfg's scenario or
// driver does not run there, or the failure the kernel of that era shows in
// the scenario with no rule broken.
func EraChoices(cfg Config) []Choice {
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return nil
	}
	list := List()
	sj := list.Scenario(sc.Name)
	drv := cfg.Driver
	if drv == "" {
		drv = sc.DefaultDriver
	}
	var drvEras []string
	for _, d := range list.DriverModels {
		if d.Name == drv {
			drvEras = d.Eras
		}
	}
	var out []Choice
	for _, e := range list.Eras {
		c := Choice{Value: e.Name, Label: e.Name}
		switch {
		case !slices.Contains(sj.Eras, e.Name):
			c.Why = "scenario " + sc.Name + " does not run here"
		case sc.NeedsDriver && !slices.Contains(drvEras, e.Name):
			c.Why = "driver " + drv + " does not run here"
		case sj.KnownFailure[e.Name] != "":
			c.Label += " (the kernel's own " + sj.KnownFailure[e.Name] + ")"
		}
		out = append(out, c)
	}
	return out
}

// NoSkbRecycling reports whether era has no skb recycling (its skb frees
// put_page every page: the comparison a chart labels).
func NoSkbRecycling(era string) bool {
	e, err := sim.EraByName(era)
	return err == nil && e.SkbRecycle == sim.SkbRecycleNone
}

// StepPacket steps (recorded, fully checked, as Step) until an operation
// completes a packet, at most limit operations; it reports whether one did.
func (l *Lab) StepPacket(limit int) bool {
	for i := 0; i < limit && !l.done; i++ {
		l.Step()
		if rec, ok := l.StepRecord(); ok && rec.PacketDone {
			return true
		}
	}
	return false
}

// StatsNote says what the run's counters are not: counters of an era before
// 5.18, which had none, and operations the fast-forward added as verified
// cycles ("" when neither).
func (l *Lab) StatsNote() string {
	var notes []string
	if n := l.statsEraNote(); n != "" {
		notes = append(notes, n+".")
	}
	if st := l.FFStats(); st.Skipped > 0 {
		skipped, period := st.Skipped, st.Period
		notes = append(notes, fmt.Sprintf("Fast-forward: %d operations so far were added as whole cycles of %d operations, each cycle verified to repeat exactly, instead of one by one (knob fast_forward=0 simulates every one; the counters are the same either way).",
			skipped, period))
	}
	return strings.Join(notes, " ")
}

// statsEraNote says that the run's era predates the page_pool counters
// ("" from 5.18 on): a note of Results and of StatsNote.
func (l *Lab) statsEraNote() string {
	if l.m.Era.Stats {
		return ""
	}
	return fmt.Sprintf("era %s predates page_pool stats (CONFIG_PAGE_POOL_STATS, v5.18): the counters are what a stats-enabled pool would count at the kernel's increment points", l.m.Era.Name)
}

// FragText shows a page's pp_frag_count / pp_ref_count readably: "" for 0,
// small counts as numbers, counts near the kernel's BIAS_MAX (LONG_MAX, or
// LONG_MAX >> 1 from 6.8's pp_ref_count) as "B−n", n below the bias.
func FragText(c int64) string {
	switch {
	case c == 0:
		return ""
	case c < 1<<20:
		return strconv.FormatInt(c, 10)
	}
	for _, bias := range []int64{int64(^uint64(0) >> 1), int64(^uint64(0) >> 2)} {
		if d := bias - c; d >= 0 && d < 1<<20 {
			return "B−" + strconv.FormatInt(d, 10)
		}
	}
	return strconv.FormatInt(c, 10)
}

// RuleReach says whether breaking rule can change anything in cfg's
// scenario, from RuleExercisedIn (which TestRuleExercise derives by running
// every scenario): "" when the rule's check decides something there as
// configured by default; otherwise a sentence naming the settings or the
// scenarios where it does.
func RuleReach(cfg Config, rule string) string {
	where := RuleExercisedIn[rule]
	var needs []string
	for _, w := range where {
		name, cond, _ := strings.Cut(w, " (")
		if name != cfg.Scenario {
			continue
		}
		if cond == "" {
			return ""
		}
		needs = append(needs, strings.TrimSuffix(cond, ")"))
	}
	if len(needs) > 0 {
		return fmt.Sprintf("in %s it decides only with %s", cfg.Scenario, strings.Join(needs, "; or "))
	}
	if len(where) == 0 {
		return fmt.Sprintf("never decides anything in %s (nor anywhere with the other rules intact)", cfg.Scenario)
	}
	return fmt.Sprintf("never decides anything in %s; it does in %s", cfg.Scenario, strings.Join(where, ", "))
}
