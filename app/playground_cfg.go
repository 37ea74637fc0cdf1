package app

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The Playground's config: what the controls change, the URL form of the
// whole state (the config's Values plus the playground's own keys), and the
// rows the Controls render.

// uiParams are the URL keys that belong to the playground, not the config.
type uiParams struct {
	step    uint64
	cmp     string
	speed   int
	notices []string
}

var uiKeys = []string{"step", "cmp", "speed"}

// take removes the playground's keys from q (returning the config's part)
// and parses them; a bad value falls back with a notice.
func (u *uiParams) take(q url.Values) url.Values {
	u.speed = -1
	rest := url.Values{}
	for k, v := range q {
		if !slices.Contains(uiKeys, k) {
			rest[k] = v
		}
	}
	if s := q.Get("step"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			u.notices = append(u.notices, fmt.Sprintf("step %q: want a non-negative integer — starting at op 0", s))
		} else {
			u.step = n
		}
	}
	if s := q.Get("cmp"); s != "" {
		u.cmp = s
	}
	if s := q.Get("speed"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n >= len(speeds) {
			u.notices = append(u.notices, fmt.Sprintf("speed %q: want 0 to %d — using the default", s, len(speeds)-1))
		} else {
			u.speed = n
		}
	}
	return rest
}

// link is the URL of the current state: the config, the step, the
// comparison and the speed.
func (p *Playground) link() string {
	u := *p.ctx.Page().URL()
	v := p.cfg.Values()
	if p.lab != nil && p.lab.Ops() > 0 {
		v.Set("step", strconv.FormatUint(p.lab.Ops(), 10))
	}
	if p.cmpMode != "" {
		v.Set("cmp", p.cmpMode)
	}
	if p.speed != 2 {
		v.Set("speed", strconv.Itoa(p.speed))
	}
	u.RawQuery = v.Encode()
	u.Fragment = ""
	return u.String()
}

// writeURL puts the state in the address bar (history.replaceState).
func (p *Playground) writeURL() {
	if p.lab == nil {
		return
	}
	u, err := url.Parse(p.link())
	if err != nil {
		return
	}
	p.ctx.Page().ReplaceURL(u)
	p.lastURL = now()
}

// copyLink copies the state's link to the clipboard (and says so).
func (p *Playground) copyLink() {
	link := p.link()
	clip := ga.Window().Get("navigator").Get("clipboard")
	if clip.Truthy() {
		clip.Call("writeText", link)
	}
	p.banner = append(p.banner, bannerItem{"notice", "link to this state: " + link})
}

func hasTeaching(cfg lab.Config) bool {
	for _, s := range lab.TeachingSet(cfg.Scenario) {
		if !slices.Contains(cfg.Set, s) {
			return false
		}
	}
	return true
}

// setKnob replaces (or adds) name=value in a Set list.
func setKnob(set []string, name, value string) []string {
	out := make([]string, 0, len(set)+1)
	for _, s := range set {
		if k, _, _ := strings.Cut(s, "="); k != name {
			out = append(out, s)
		}
	}
	return append(out, name+"="+value)
}

// withoutKnobs drops the assignments of the named knobs.
func withoutKnobs(set []string, names ...string) []string {
	out := make([]string, 0, len(set))
	for _, s := range set {
		if k, _, _ := strings.Cut(s, "="); !slices.Contains(names, k) {
			out = append(out, s)
		}
	}
	return out
}

var presetKnobs = []string{"rx_descs", "pool_size"}

// onSet applies a change of one field to the wanted config and builds it;
// what does not fit is explained beside the field and the run goes on.
func (p *Playground) onSet(f setField) {
	w := p.want
	w.Set = slices.Clone(w.Set)
	w.Break = slices.Clone(w.Break)
	w.Knobs = sim.Knobs{}
	switch f.Field {
	case "scenario":
		w.Scenario = f.Value
		if p.preset == "teaching" {
			w.Set = append(withoutKnobs(w.Set, presetKnobs...), lab.TeachingSet(f.Value)...)
		}
	case "driver":
		w.Driver = f.Value
	case "era":
		w.Era = f.Value
	case "seed":
		n, err := strconv.ParseUint(strings.TrimSpace(f.Value), 10, 64)
		if err != nil {
			p.errs = map[string]string{"seed": fmt.Sprintf("seed %q: want a non-negative integer", f.Value)}
			return
		}
		w.Seed = n
	case "preset":
		p.preset = f.Value
		w.Set = withoutKnobs(w.Set, presetKnobs...)
		if f.Value == "teaching" {
			w.Set = append(w.Set, lab.TeachingSet(w.Scenario)...)
		}
	case "break":
		if i := slices.Index(w.Break, f.Value); i >= 0 {
			w.Break = slices.Delete(w.Break, i, i+1)
		} else {
			w.Break = append(w.Break, f.Value)
		}
		slices.Sort(w.Break)
	default:
		n, ok := sim.KnobByName(f.Field)
		if !ok {
			p.errs = map[string]string{f.Field: fmt.Sprintf("unknown field %q", f.Field)}
			return
		}
		var k sim.Knobs
		if err := k.SetValue(n, f.Value); err != nil {
			p.want = w
			p.errs = map[string]string{f.Field: err.Error()}
			return
		}
		w.Set = setKnob(w.Set, f.Field, strconv.FormatInt(k[n], 10))
	}
	p.want = w
	p.errs = map[string]string{}
	if err := w.Validate(); err != nil {
		p.errs[errField(err, f.Field)] = err.Error()
		return
	}
	wasPlaying := p.playing
	if err := p.build(w); err != nil {
		p.want = w
		p.errs[errField(err, f.Field)] = err.Error()
		return
	}
	p.playing = wasPlaying
	if p.playing {
		p.queueFrame()
	}
	p.writeURL()
}

// errField is the field an error is about (the one changed, when the error
// names no field of its own).
func errField(err error, changed string) string {
	var fe *sim.FieldError
	if errors.As(err, &fe) && fe.Field != "set" {
		return fe.Field
	}
	return changed
}

func (p *Playground) wantEra() string {
	if p.want.Era == "" {
		return sim.DefaultEra
	}
	return p.want.Era
}

func (p *Playground) cfgEra() string {
	if p.cfg.Era == "" {
		return sim.DefaultEra
	}
	return p.cfg.Era
}

func (p *Playground) scenario(name string) (lab.ScenarioJSON, bool) {
	for _, s := range p.list.Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return lab.ScenarioJSON{}, false
}

func (p *Playground) scenarioDoc() string {
	s, _ := p.scenario(p.want.Scenario)
	return s.Doc
}

func (p *Playground) scenarioOptions() []option {
	var out []option
	for _, s := range p.list.Scenarios {
		out = append(out, option{Value: s.Name, Label: s.Name})
	}
	return out
}

func (p *Playground) driverOptions() []option {
	sc, _ := p.scenario(p.want.Scenario)
	if !sc.NeedsDriver {
		return []option{{Value: "", Label: "none (a pool micro-benchmark)"}}
	}
	out := []option{{Value: "", Label: "default (" + sc.DefaultDriver + ")"}}
	for _, d := range p.list.DriverModels {
		o := option{Value: d.Name, Label: d.Name + " (" + d.Platform + ")"}
		if !slices.Contains(sc.Drivers, d.Name) {
			o.Why = "does not run " + sc.Name
		} else if !slices.Contains(d.Eras, p.wantEra()) {
			o.Why = "not in era " + p.wantEra()
		}
		out = append(out, o)
	}
	return out
}

func (p *Playground) eraOptions() []option {
	sc, _ := p.scenario(p.want.Scenario)
	drv := p.want.Driver
	if drv == "" {
		drv = sc.DefaultDriver
	}
	var drvEras []string
	for _, d := range p.list.DriverModels {
		if d.Name == drv {
			drvEras = d.Eras
		}
	}
	var out []option
	for _, e := range p.list.Eras {
		o := option{Value: e.Name, Label: e.Name}
		switch {
		case !slices.Contains(sc.Eras, e.Name):
			o.Why = "scenario " + sc.Name + " does not run here"
		case sc.NeedsDriver && !slices.Contains(drvEras, e.Name):
			o.Why = "driver " + drv + " does not run here"
		case sc.KnownFailure[e.Name] != "":
			o.Label += " (the kernel's own " + sc.KnownFailure[e.Name] + ")"
		}
		out = append(out, o)
	}
	return out
}

func (p *Playground) knobRows() []knobRow {
	k, err := p.want.EffectiveKnobs()
	if err != nil {
		k, _ = p.cfg.EffectiveKnobs()
	}
	sc, _ := p.scenario(p.want.Scenario)
	var rows []knobRow
	add := func(spec sim.KnobSpec, matters bool) {
		n, _ := sim.KnobByName(spec.Name)
		val := strconv.FormatInt(k[n], 10)
		for _, s := range p.want.Set { // show what the user typed, even if it did not fit
			if name, v, _ := strings.Cut(s, "="); name == spec.Name {
				val = v
			}
		}
		rows = append(rows, knobRow{Name: spec.Name, Value: val, Doc: spec.Doc, Min: spec.Min, Max: spec.Max, Matters: matters})
	}
	for _, name := range sc.Knobs {
		if n, ok := sim.KnobByName(name); ok {
			add(n.Spec(), true)
		}
	}
	for _, spec := range sim.AllKnobs() {
		if !slices.Contains(sc.Knobs, spec.Name) {
			add(spec, false)
		}
	}
	return rows
}

func (p *Playground) ruleRows() []ruleRow {
	var rows []ruleRow
	for _, r := range p.list.Rules {
		rows = append(rows, ruleRow{Name: r.Name, Prevents: r.Prevents, Kinds: strings.Join(r.Kinds, " / "), Broken: slices.Contains(p.want.Break, r.Name)})
	}
	return rows
}
