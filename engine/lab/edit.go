package lab

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Editing a config the way an interactive front end does: one field at a
// time (With), the presets of sizes (Preset), and the choices each select
// offers with why a choice does not run (Choices). The rules live here and
// in Validate (the engine's), so that a UI never repeats them.

// Presets of sizes: "teaching" (small rings a person can read) and
// "kernel" (the drivers' own defaults). A config at neither (a size's knob
// edited) is "custom": PresetOf says so, and the sizes' select shows it
// as it is, but it is no preset to choose (With takes it only as a
// config's own).
const (
	PresetTeaching = "teaching"
	PresetKernel   = "kernel"
	PresetCustom   = "custom"
)

// presetKnobs are the knobs a preset of sizes sets.
var presetKnobs = []sim.Knob{sim.KnobRxDescs, sim.KnobPoolSize, sim.KnobNodePages}

// Preset is the config of the named preset of sizes for scenario, the one
// place a preset's knobs come from. PresetKernel sets no knob: the kernel's
// and the drivers' own sizes. PresetTeaching is the playground's small
// machine: few enough pages that the machine view shows every one of them
// (16 RX descriptors and a 32-slot ptr_ring for a driver scenario; for a
// pool micro-benchmark a 128-slot ring, as it prefills 64 pages), on 2048
// pages (8 MB) per node. The small machine is what makes a run with a rule
// broken usable in the page: such a run checks every page after every
// operation (so that every path to a step finds the same violations), and
// that check walks the page array. At these sizes every driver scenario in
// every era runs without loss or violation (the kernel's own failures aside: the split-page caveat, destroy before 6.16),
// as at the kernel's sizes. The kernel-exact defaults stay the defaults; the
// preset only sets knobs a user can see and change.
func Preset(name, scenario string) (Config, error) {
	if name != PresetTeaching && name != PresetKernel {
		return Config{}, &sim.FieldError{Field: "preset", Value: name, Msg: fmt.Sprintf("want %s or %s", PresetTeaching, PresetKernel)}
	}
	sc, err := ScenarioByName(scenario)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Scenario: sc.Name}
	if name == PresetTeaching {
		cfg.Knobs = teachingKnobs(sc)
	}
	return cfg, nil
}

// teachingKnobs are PresetTeaching's sizes for sc.
func teachingKnobs(sc *Scenario) sim.KnobOverrides {
	var k sim.KnobOverrides
	if !sc.NeedsDriver {
		return k.With(sim.KnobPoolSize, 128).With(sim.KnobNodePages, 2048)
	}
	return k.With(sim.KnobRxDescs, 16).With(sim.KnobPoolSize, 32).With(sim.KnobNodePages, 2048)
}

// PresetOf names the preset of sizes cfg uses: teaching when it sets every
// knob of its scenario's teaching preset to that value, kernel when each
// of them is at the kernel's size (also for a config without a known
// scenario), else custom (a size edited: the sizes' select said "kernel
// defaults" of a run on 16 descriptors with a 64-slot ring).
func PresetOf(cfg Config) string {
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return PresetKernel
	}
	t := teachingKnobs(sc)
	def := scenarioDefaults(sc, cfg.era())
	k := cfg.Knobs.Over(def)
	teaching, kernel := true, true
	for _, n := range presetKnobs {
		tv, ok := t.Get(n)
		if !ok {
			continue
		}
		if v, set := cfg.Knobs.Get(n); !set || v != tv {
			teaching = false
		}
		if k[n] != def[n] {
			kernel = false
		}
	}
	switch {
	case teaching:
		return PresetTeaching
	case kernel:
		return PresetKernel
	}
	return PresetCustom
}

// sizesLabel says cfg's sizes as the sizes' select does ("16 RX
// descriptors, 32-slot ring, 8 MB"): each size sc's teaching preset sets,
// at cfg's value.
func sizesLabel(cfg Config, sc *Scenario) string {
	k := cfg.Knobs.Over(scenarioDefaults(sc, cfg.era()))
	t := teachingKnobs(sc)
	var parts []string
	for _, n := range presetKnobs {
		if _, ok := t.Get(n); !ok {
			continue
		}
		switch n {
		case sim.KnobRxDescs:
			parts = append(parts, fmt.Sprintf("%d RX descriptors", k[n]))
		case sim.KnobPoolSize:
			parts = append(parts, fmt.Sprintf("%d-slot ring", k[n]))
		case sim.KnobNodePages:
			parts = append(parts, fmt.Sprintf("%d MB", k[n]*mm.PageSize>>20))
		}
	}
	return strings.Join(parts, ", ")
}

// editFields are the fields With takes besides the knobs' names.
var editFields = []string{"scenario", "driver", "era", "platform", "packets", "seed", "preset", "break"}

// With is cfg with one field edited, every edit a UI makes and the URL
// form's fields (ParseConfig reads each through it):
//
//   - "scenario": a scenario's name; a config at the teaching sizes moves
//     to the new scenario's teaching sizes (they differ: a pool
//     micro-benchmark has no RX ring);
//   - "driver", "era", "platform": a name, or "" for the default (the
//     scenario's driver, DefaultEra, the driver's platform);
//   - "packets": 1 to MaxPackets; "seed": a non-negative integer;
//   - "preset": PresetTeaching or PresetKernel, whose sizes (Preset) replace
//     cfg's own; the other knobs stay;
//   - "break": a rule's name, toggled: broken if it was intact, intact if it
//     was broken (the list stays sorted);
//   - a knob's name: its value, parsed and range checked as --set does.
//
// With checks the value itself: a bad one is a *sim.FieldError naming the
// field, the value and what is accepted, and cfg comes back unchanged.
// Whether the edited config runs — the value fits the rest, e.g. a driver
// for this scenario and era — is Validate's (Choices says it per value),
// so that a UI can keep and show an edit that does not fit yet.
func (cfg Config) With(field, value string) (Config, error) {
	next := cfg
	next.Break = slices.Clone(cfg.Break) // no slice shared with cfg
	switch field {
	case "scenario":
		sc, err := ScenarioByName(value)
		if err != nil {
			return cfg, err
		}
		next.Scenario = sc.Name
		if PresetOf(cfg) == PresetTeaching {
			next.Knobs = next.Knobs.Without(presetKnobs...).Merge(teachingKnobs(sc))
		}
	case "driver":
		if value != "" {
			if _, err := drivers.SpecByName(value); err != nil {
				return cfg, err
			}
		}
		next.Driver = value
	case "era":
		if value != "" {
			if _, err := sim.EraByName(value); err != nil {
				return cfg, err
			}
		}
		next.Era = value
	case "platform":
		if value != "" {
			if _, err := sim.PlatformByName(value); err != nil {
				return cfg, err
			}
		}
		next.Platform = value
	case "packets":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > MaxPackets {
			return cfg, &sim.FieldError{Field: "packets", Value: value, Msg: fmt.Sprintf("want an integer from 1 to %d", int64(MaxPackets))}
		}
		next.Packets = n
	case "seed":
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return cfg, &sim.FieldError{Field: "seed", Value: value, Msg: "want a non-negative integer"}
		}
		next.Seed = n
	case "preset":
		if value == PresetCustom {
			if PresetOf(cfg) == PresetCustom {
				return cfg, nil // the config's own sizes, chosen again
			}
			return cfg, &sim.FieldError{Field: "preset", Value: value, Msg: "custom sizes are made by editing a size's knob (rx_descs, pool_size, node_pages); choose teaching or kernel"}
		}
		p, err := Preset(value, cfg.Scenario)
		if err != nil {
			return cfg, err
		}
		next.Knobs = next.Knobs.Without(presetKnobs...).Merge(p.Knobs)
	case "break":
		if _, err := sim.RuleByName(value); err != nil {
			return cfg, err
		}
		if i := slices.Index(next.Break, value); i >= 0 {
			next.Break = slices.Delete(next.Break, i, i+1)
		} else {
			next.Break = append(next.Break, value)
		}
		slices.Sort(next.Break)
	default:
		n, ok := sim.KnobByName(field)
		if !ok {
			return cfg, &sim.FieldError{Field: field, Value: value, Msg: fmt.Sprintf("unknown field (accepted: %s, or a knob's name)", strings.Join(editFields, ", "))}
		}
		if err := next.Knobs.SetValue(n, value); err != nil {
			return cfg, err
		}
	}
	return next, nil
}

// Choice is one value a select offers, with why the config does not run
// with it ("" when it does).
type Choice struct {
	Value, Label, Why string
	// Mark is a short mark for a choice that does not run (Why != ""),
	// for a select to show instead of the sentence: an era before the
	// first era that runs the config, "6.12+"; any other, "✕".
	Mark string
	// Doc says what the value is (an era: its summary, the release it
	// follows and the names its narration uses); "" for most fields.
	Doc string
}

// Choices are the values a select for field offers — "scenario", "driver",
// "era", "platform" or "preset"; nil for any other field, or without a
// known scenario — each with why cfg with that value does not run: the
// error of Validate on cfg.With(field, value), the engine's own words, so
// that a UI states no rule of its own. An error cfg already has that more
// than one choice shares is not the choices' doing (a knob that fits no
// value here: it is shown beside its own field) and is left out. The
// driver's choices are "" (the scenario's default) and every driver model,
// or only "" for a scenario without a driver; an era's label names the
// failure the kernel of that era shows in the scenario with no rule broken.
func (cfg Config) Choices(field string) []Choice {
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil && field != "scenario" {
		return nil
	}
	var out []Choice
	switch field {
	case "scenario":
		for _, s := range Scenarios {
			out = append(out, Choice{Value: s.Name, Label: s.Name})
		}
	case "driver":
		if !sc.NeedsDriver {
			return []Choice{{Value: "", Label: "none (a pool micro-benchmark)"}}
		}
		// The scenario's own driver is its "default" option alone: named
		// explicitly it is the same config (ParseConfig writes it as the
		// default), and a second option for it would snap back to the
		// first when chosen — a keyboard walk through the list stops there.
		out = append(out, Choice{Value: "", Label: "default (" + sc.DefaultDriver + ")"})
		for _, d := range drivers.Specs {
			if d.Name != sc.DefaultDriver {
				out = append(out, Choice{Value: d.Name, Label: d.Name + " (" + d.Platform + ")"})
			}
		}
	case "era":
		for _, e := range sim.Eras {
			c := Choice{Value: e.Name, Label: e.Name, Doc: e.Summary + " (follows " + e.Tag + "; " + e.Naming + " names)"}
			if e.PreRelease {
				c.Label += " (pre-release)"
			}
			ec := cfg
			ec.Era = e.Name
			if ks := ec.KnownFailure(); len(ks) > 0 {
				c.Label += " (the kernel's own " + kindList(ks) + ")"
			}
			out = append(out, c)
		}
	case "platform":
		def := sim.BenchX86.Name
		if sc.NeedsDriver {
			d := cmp.Or(cfg.Driver, sc.DefaultDriver)
			if spec, err := drivers.SpecByName(d); err == nil {
				def = spec.Platform
			}
		}
		out = append(out, Choice{Value: "", Label: "default (" + def + ")"})
		for _, p := range sim.Platforms {
			if p.Name != def { // as the driver's: its default option alone
				out = append(out, Choice{Value: p.Name, Label: p.Name})
			}
		}
	case "preset":
		out = []Choice{{Value: PresetTeaching, Label: "teaching (" + sizesLabel(Config{Scenario: sc.Name, Knobs: teachingKnobs(sc)}, sc) + ")"}, {Value: PresetKernel, Label: "kernel defaults"}}
		if PresetOf(cfg) == PresetCustom {
			out = append(out, Choice{Value: PresetCustom, Label: "custom (" + sizesLabel(cfg, sc) + ")"})
		}
	default:
		return nil
	}
	why := make([]string, len(out))
	count := map[string]int{}
	for i, c := range out {
		next, err := cfg.With(field, c.Value)
		if err == nil {
			err = next.Validate()
		}
		if err != nil {
			why[i] = err.Error()
			count[why[i]]++
		}
	}
	own := ""
	if err := cfg.Validate(); err != nil {
		own = err.Error()
	}
	for i := range out {
		if why[i] != own || count[why[i]] == 1 {
			out[i].Why = why[i]
		}
		if out[i].Why != "" {
			out[i].Mark = "✕"
			if field == "era" {
				// The first later era that runs it, when every era from
				// there on does: "from that release on".
				for j := i + 1; j < len(out); j++ {
					if why[j] == "" {
						if !slices.ContainsFunc(why[j:], func(w string) bool { return w != "" }) {
							out[i].Mark = out[j].Value + "+"
						}
						break
					}
				}
			}
		}
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
