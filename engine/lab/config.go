package lab

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/sim"
)

// ConfigVersion is the version of the URL form of a config (key "v").
const ConfigVersion = "1"

// configKeys are the keys of the URL form besides the knobs' names.
var configKeys = []string{"v", "scenario", "driver", "era", "platform", "packets", "seed", "break"}

// IsConfigKey reports whether key belongs to the URL form of a config (a
// knob's name or one of the fixed keys): a UI keeps its own keys apart.
func IsConfigKey(key string) bool {
	if _, ok := sim.KnobByName(key); ok {
		return true
	}
	return slices.Contains(configKeys, key)
}

// effectiveKnobs is every knob's value for cfg: the config's Knobs (or the
// defaults with the scenario's own), then its Set assignments.
func (cfg Config) effectiveKnobs(sc *Scenario) (sim.Knobs, error) {
	k := cfg.Knobs
	if k == (sim.Knobs{}) {
		k = scenarioDefaults(sc)
	}
	for _, s := range cfg.Set {
		if err := k.Set(s); err != nil {
			return k, err
		}
	}
	return k, nil
}

// scenarioDefaults is the knobs' defaults with the scenario's own applied.
func scenarioDefaults(sc *Scenario) sim.Knobs {
	k := sim.DefaultKnobs()
	for n, v := range sc.Knobs {
		k[n] = v
	}
	return k
}

// Values is the URL form of the config: names, not enum indexes; only what
// differs from the defaults (the driver when it is not the scenario's
// default, knobs that differ from the scenario's defaults, …); broken rules
// sorted; the version v=1. url.Values.Encode sorts the keys. A config that
// does not resolve (see Validate) is encoded as given.
func (cfg Config) Values() url.Values {
	v := url.Values{}
	v.Set("v", ConfigVersion)
	v.Set("scenario", cfg.Scenario)
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return v
	}
	if cfg.Driver != "" && cfg.Driver != sc.DefaultDriver {
		v.Set("driver", cfg.Driver)
	}
	if cfg.Era != "" && cfg.Era != sim.DefaultEra {
		v.Set("era", cfg.Era)
	}
	if cfg.Platform != "" {
		def := sim.BenchX86.Name
		if r, err := cfg.resolve(); err == nil && r.spec != nil {
			def = r.spec.Platform
		}
		if cfg.Platform != def {
			v.Set("platform", cfg.Platform)
		}
	}
	if cfg.Packets != 0 && cfg.Packets != DefaultPackets {
		v.Set("packets", strconv.FormatInt(cfg.Packets, 10))
	}
	if cfg.Seed != 0 {
		v.Set("seed", strconv.FormatUint(cfg.Seed, 10))
	}
	if k, err := cfg.effectiveKnobs(sc); err == nil {
		def := scenarioDefaults(sc)
		for n := sim.Knob(0); n < sim.NumKnobs; n++ {
			if k[n] != def[n] {
				v.Set(n.String(), strconv.FormatInt(k[n], 10))
			}
		}
	}
	rules := append([]string(nil), cfg.Break...)
	sort.Strings(rules)
	for i, r := range rules {
		if i == 0 || r != rules[i-1] {
			v.Add("break", r)
		}
	}
	return v
}

// ParseConfig reads the URL form of a config. Each bad field (an unknown
// key, a bad value, a value that does not fit the rest) is left at its
// default and named in the error, which joins one *sim.FieldError per bad
// field: a caller that must not guess stops at the error; a UI runs the
// returned config and shows a notice per field. Keys that are not the
// config's (IsConfigKey) are errors too: a UI removes its own first.
func ParseConfig(v url.Values) (Config, error) {
	var cfg Config
	var errs []error
	bad := func(field, value, format string, args ...any) {
		errs = append(errs, &sim.FieldError{Field: field, Value: value, Msg: fmt.Sprintf(format, args...)})
	}
	one := func(key string) (string, bool) {
		vals, ok := v[key]
		if !ok {
			return "", false
		}
		if len(vals) > 1 {
			bad(key, strings.Join(vals, ","), "given %d times; want it once", len(vals))
		}
		return vals[len(vals)-1], true
	}
	if s, ok := one("v"); ok && s != ConfigVersion {
		bad("v", s, "unknown version (this pplab reads v=%s)", ConfigVersion)
	}
	keys := make([]string, 0, len(v))
	for key := range v {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if !IsConfigKey(key) {
			bad(key, strings.Join(v[key], ","), "unknown parameter (accepted: %s, or a knob's name)", strings.Join(configKeys, ", "))
		}
	}
	s, ok := one("scenario")
	if !ok || s == "" {
		errs = append(errs, named("scenario", s, "no scenario given (accepted: %s)", strings.Join(ScenarioNames(), ", ")))
		return cfg, errors.Join(errs...)
	}
	sc, err := ScenarioByName(s)
	if err != nil {
		return cfg, errors.Join(append(errs, err)...)
	}
	cfg.Scenario = sc.Name
	// Each field alone, on top of what was accepted so far.
	try := func(field string, apply func(*Config) error) {
		next := cfg
		if err := apply(&next); err != nil {
			errs = append(errs, err)
			return
		}
		if err := next.Validate(); err != nil {
			errs = append(errs, fitErr(field, err))
			return
		}
		cfg = next
	}
	if s, ok := one("driver"); ok {
		try("driver", func(c *Config) error { c.Driver = s; return nil })
	}
	if s, ok := one("era"); ok {
		try("era", func(c *Config) error { c.Era = s; return nil })
	}
	if s, ok := one("platform"); ok {
		try("platform", func(c *Config) error { c.Platform = s; return nil })
	}
	if s, ok := one("packets"); ok {
		try("packets", func(c *Config) error {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 || n > MaxPackets {
				return &sim.FieldError{Field: "packets", Value: s, Msg: fmt.Sprintf("want an integer from 1 to %d", int64(MaxPackets))}
			}
			c.Packets = n
			return nil
		})
	}
	if s, ok := one("seed"); ok {
		try("seed", func(c *Config) error {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return &sim.FieldError{Field: "seed", Value: s, Msg: "want a non-negative integer"}
			}
			c.Seed = n
			return nil
		})
	}
	// The broken rules before the knobs: a knob value may be accepted only
	// with a rule broken (bulk above the 128-slot cache needs bulk-dma-unmap
	// broken), and a link must open the config it was copied from.
	for _, r := range v["break"] {
		try("break", func(c *Config) error {
			if _, err := sim.RuleByName(r); err != nil {
				return err
			}
			if !slices.Contains(c.Break, r) {
				c.Break = append(append([]string(nil), c.Break...), r)
			}
			return nil
		})
	}
	for _, key := range keys {
		n, ok := sim.KnobByName(key)
		if !ok {
			continue
		}
		val, _ := one(key)
		try(key, func(c *Config) error {
			var k sim.Knobs
			if err := k.SetValue(n, val); err != nil {
				return err
			}
			c.Set = append(append([]string(nil), c.Set...), key+"="+strconv.FormatInt(k[n], 10))
			return nil
		})
	}
	sort.Strings(cfg.Break)
	return cfg, errors.Join(errs...)
}

// fitErr names field as the one that did not fit: the field was fine alone
// but not with the rest of the config (e.g. a driver for another scenario).
func fitErr(field string, err error) error {
	var fe *sim.FieldError
	if errors.As(err, &fe) && fe.Field == field {
		return fe
	}
	return &sim.FieldError{Field: field, Msg: err.Error(), Named: true}
}

// EffectiveKnobs is every knob's value in a run of cfg: the defaults, the
// scenario's own, then cfg's Knobs or Set. It fails as Validate does.
func (cfg Config) EffectiveKnobs() (sim.Knobs, error) {
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return sim.Knobs{}, err
	}
	return cfg.effectiveKnobs(sc)
}

// FieldErrors splits an error of ParseConfig (or New) into its field
// errors; an error about no field comes back as the only element's Msg.
func FieldErrors(err error) []*sim.FieldError {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]*sim.FieldError, 0, len(errs))
	for _, e := range errs {
		var fe *sim.FieldError
		if !errors.As(e, &fe) {
			fe = &sim.FieldError{Msg: e.Error(), Named: true}
		}
		out = append(out, fe)
	}
	return out
}
