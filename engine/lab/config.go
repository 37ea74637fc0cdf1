package lab

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/workload"
)

// ConfigVersion is the version of the URL form of a config (key "v"). A
// link keeps its meaning: ParseConfig reads every version there was, each
// as it was written, and Values writes the current one.
//
//   - v=1: a size knob a link leaves out is at the kernel's size.
//   - v=2: a size knob a link leaves out (rx_descs, pool_size, node_pages)
//     is at the scenario's teaching size (Preset), the playground's
//     default whatever the entry URL; "sizes=kernel" puts the ones left
//     out at the kernel's sizes. Values always writes the era. A link
//     without v is read as the current version, a link without an era in
//     the default era of its version.
//   - v=1 links name no era when it was the default of the day (v1Era).
const ConfigVersion = "2"

// v1Era is the default era when v=1 was the current form: a v=1 link
// without an era means it (or the scenario's first era, where the
// scenario does not run in it), whatever the default is now.
const v1Era = "6.8"

// configVersions are the versions ParseConfig reads.
var configVersions = []string{"1", "2"}

// configKeys are the keys of the URL form besides the knobs' names.
var configKeys = []string{"v", "scenario", "driver", "era", "platform", "packets", "seed", "break", "sizes"}

// ConfigKeys are the keys of the URL form: the fixed ones, then every
// knob's name.
func ConfigKeys() []string {
	out := slices.Clone(configKeys)
	for _, k := range sim.AllKnobs() {
		out = append(out, k.Name)
	}
	return out
}

// IsConfigKey reports whether key belongs to the URL form of a config (a
// knob's name or one of the fixed keys): a UI keeps its own keys apart.
func IsConfigKey(key string) bool {
	if _, ok := sim.KnobByName(key); ok {
		return true
	}
	return slices.Contains(configKeys, key)
}

// scenarioDefaults is the knobs' defaults in era e (a sysctl whose default
// a release changed: Era.SkbDeferMaxDefault) with the scenario's own
// applied. A knob a config does not set has its era's default: a link
// without skb_defer_max runs 64 in 6.18 and 128 in 6.19.
func scenarioDefaults(sc *Scenario, e *sim.Era) sim.Knobs {
	k := sim.DefaultKnobsIn(e)
	for n, v := range sc.Knobs {
		k[n] = v
	}
	return k
}

// era is the era cfg names (the default when it names none), nil when it
// names no era.
func (cfg Config) era() *sim.Era {
	name := cfg.Era
	if name == "" {
		name = sim.DefaultEra
	}
	e, err := sim.EraByName(name)
	if err != nil {
		return nil
	}
	return e
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
	// The era always (v=2): a link keeps its era when the default era
	// changes.
	v.Set("era", cfg.EraName())
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
	def := scenarioDefaults(sc, cfg.era())
	k := cfg.Knobs.Over(def)
	// The sizes: left out at the teaching size (v=2's default); at the
	// kernel's sizes all together, sizes=kernel; else each as it is.
	t := teachingKnobs(sc)
	kernel := true
	for _, n := range presetKnobs {
		if _, ok := t.Get(n); ok && k[n] != def[n] {
			kernel = false
		}
	}
	if kernel {
		v.Set("sizes", PresetKernel)
	}
	for n := sim.Knob(0); n < sim.NumKnobs; n++ {
		ref := def[n]
		if tv, ok := t.Get(n); ok && !kernel {
			ref = tv
		}
		if k[n] != ref {
			v.Set(n.String(), strconv.FormatInt(k[n], 10))
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
	version := ConfigVersion
	if s, ok := one("v"); ok {
		if slices.Contains(configVersions, s) {
			version = s
		} else {
			bad("v", s, "unknown version (this pplab reads v=%s)", strings.Join(configVersions, ", v="))
		}
	}
	sizes := PresetTeaching
	if s, ok := one("sizes"); ok {
		switch {
		case version == "1":
			bad("sizes", s, "not a key of v=1 links (sizes is v=2's)")
		case s == PresetTeaching || s == PresetKernel:
			sizes = s
		default:
			bad("sizes", s, "want %s or %s", PresetTeaching, PresetKernel)
		}
	}
	keys := make([]string, 0, len(v))
	for key := range v {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if !IsConfigKey(key) {
			bad(key, strings.Join(v[key], ","), "unknown parameter%s (accepted: %s)", DidYouMean(key, ConfigKeys()), strings.Join(ConfigKeys(), ", "))
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
	// Each field alone, on top of what was accepted so far, read by With as
	// a UI's edit is.
	try := func(field, value string) bool {
		next, err := cfg.With(field, value)
		if err != nil {
			errs = append(errs, err)
			return false
		}
		if err := next.Validate(); err != nil {
			errs = append(errs, fitErr(field, err))
			return false
		}
		cfg = next
		return true
	}
	if version == "1" && !v.Has("era") {
		era := v1Era
		if len(sc.Eras) > 0 && !slices.Contains(sc.Eras, era) {
			era = sc.Eras[0]
		}
		try("era", era)
	}
	for _, field := range []string{"driver", "era", "platform", "packets", "seed"} {
		if s, ok := one(field); ok {
			try(field, s)
		}
	}
	// The broken rules before the knobs: a knob value may be accepted only
	// with a rule broken (bulk above the 128-slot cache needs bulk-dma-unmap
	// broken), and a link must open the config it was copied from. A rule
	// named twice is broken once (With toggles).
	for _, r := range v["break"] {
		if !slices.Contains(cfg.Break, r) {
			try("break", r)
		}
	}
	// v=2: the sizes a link leaves out are the teaching sizes (unless
	// sizes=kernel), set before the knobs it gives.
	if version != "1" && sizes == PresetTeaching {
		t := teachingKnobs(sc)
		for _, n := range presetKnobs {
			if tv, ok := t.Get(n); ok && !v.Has(n.String()) {
				try(n.String(), strconv.FormatInt(tv, 10))
			}
		}
	}
	// Knobs in passes: a knob that fits only beside another one the link
	// gives later in key order (offset=2370 needs order=3's larger page)
	// is tried again once the others are in; what still does not fit is
	// named below.
	pending := []string{}
	knobVal := map[string]string{}
	for _, key := range keys {
		if _, ok := sim.KnobByName(key); ok {
			pending = append(pending, key)
			knobVal[key], _ = one(key)
		}
	}
	for progress := true; progress && len(pending) > 0; {
		progress = false
		var left []string
		for _, key := range pending {
			next, err := cfg.With(key, knobVal[key])
			if err == nil && next.Validate() == nil {
				cfg, progress = next, true
				continue
			}
			left = append(left, key)
		}
		if len(left) == len(pending) {
			break
		}
		pending = left
	}
	for _, key := range pending {
		if n, ok := sim.KnobByName(key); ok {
			if !try(key, knobVal[key]) && version != "1" && sizes == PresetTeaching {
				// A size that does not fit falls back to the link's
				// default for it, the teaching size (not the kernel's,
				// which the other sizes are not at).
				if tv, ok := teachingKnobs(sc).Get(n); ok {
					try(key, strconv.FormatInt(tv, 10))
				}
			}
		}
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
// scenario's own, then cfg's Knobs. It fails only when the scenario is
// unknown; whether the values fit the rest is Validate's.
func (cfg Config) EffectiveKnobs() (sim.Knobs, error) {
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return sim.Knobs{}, err
	}
	return cfg.Knobs.Over(scenarioDefaults(sc, cfg.era())), nil
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

// Config is everything a run depends on: a run is a pure function of it.
type Config struct {
	Driver   string
	Scenario string
	Era      string
	Platform string
	Packets  int64
	Seed     uint64
	// Knobs are the knobs the run sets over the defaults and the
	// scenario's own (the zero value: none), parsed where the text came in
	// (--set, the URL, an edit: With).
	Knobs sim.KnobOverrides
	Break []string // rule names

	plat *sim.Platform // calibration runs: a platform table under derivation
	// alter: a comparison's one-change run (compare.go): the era or the
	// driver model differing from the named one in one behaviour.
	alter *alteration
}

// alteration is an era and a driver model a config runs instead of the
// ones it names (nil: the named one).
type alteration struct {
	era  *sim.Era
	spec *drivers.Spec
}

// DefaultPackets is the run length when Config.Packets is 0.
const DefaultPackets = 1_000_000

// MaxPackets bounds a run.
const MaxPackets = 1 << 40

// resolved is a config checked field by field, with its defaults filled in.
type resolved struct {
	cfg   Config
	knobs sim.Knobs // every knob's value: the defaults, the scenario's own, cfg.Knobs
	era   *sim.Era
	sc    *Scenario
	spec  *drivers.Spec
	plat  *sim.Platform
	rules sim.RuleSet
}

// EraName is the era cfg runs in: Era when given; else the default era,
// or the scenario's first era when it does not run in the default one
// (devmem-rx). For a config that does not resolve, Era or the default.
func (cfg Config) EraName() string {
	if r, err := cfg.resolve(); err == nil {
		return r.era.Name
	}
	if cfg.Era != "" {
		return cfg.Era
	}
	return sim.DefaultEra
}

// Validate checks every field of cfg and their combinations without building
// the run: the error New would return before the kernel model's own checks
// (page_pool_create may still refuse parameters, as the kernel does).
// DriverName is the driver cfg runs: Driver when given, else its
// scenario's default ("" for a scenario without a driver, or one that is
// not known).
func (cfg Config) DriverName() string {
	if cfg.Driver != "" {
		return cfg.Driver
	}
	if sc, err := ScenarioByName(cfg.Scenario); err == nil && sc.NeedsDriver {
		return sc.DefaultDriver
	}
	return ""
}

func (cfg Config) Validate() error {
	_, err := cfg.resolve()
	return err
}

// resolve checks cfg and fills in its defaults. Every bad input yields one
// *sim.FieldError naming the field, the value and what is accepted.
func (cfg Config) resolve() (resolved, error) {
	var r resolved
	var err error
	eraGiven := cfg.Era != ""
	if !eraGiven {
		cfg.Era = sim.DefaultEra
	}
	era, err := sim.EraByName(cfg.Era)
	if err != nil {
		return r, err
	}
	if cfg.alter != nil && cfg.alter.era != nil {
		era = cfg.alter.era
	}
	if cfg.Scenario == "" {
		return r, named("scenario", "", "no scenario given (accepted: %s)", strings.Join(ScenarioNames(), ", "))
	}
	sc, err := ScenarioByName(cfg.Scenario)
	if err != nil {
		return r, err
	}
	if !eraGiven && len(sc.Eras) > 0 && !slices.Contains(sc.Eras, era.Name) {
		// No era given and the scenario does not run in the default one
		// (devmem-rx: memory providers are 6.12): its first era.
		cfg.Era = sc.Eras[0]
		if era, err = sim.EraByName(cfg.Era); err != nil {
			return r, err
		}
	}
	if cfg.Driver != "" && !sc.NeedsDriver {
		return r, named("driver", cfg.Driver, "scenario %s runs without a driver (no driver for the pool-* scenarios)", sc.Name)
	}
	var spec *drivers.Spec
	if sc.NeedsDriver {
		if cfg.Driver == "" {
			cfg.Driver = sc.DefaultDriver
		}
		if spec, err = drivers.SpecByName(cfg.Driver); err != nil {
			return r, err
		}
		if cfg.alter != nil && cfg.alter.spec != nil {
			spec = cfg.alter.spec
		}
		if sc.Refuses != nil {
			if fe := sc.Refuses(spec, era); fe != nil {
				return r, fe
			}
		}
		if !spec.Runs(sc.Name) {
			return r, named("driver", spec.Name, "driver %s does not run scenario %s (drivers for %s: %s)", spec.Name, sc.Name, sc.Name, strings.Join(sc.Drivers, ", "))
		}
		if era.Order < spec.MinEra() {
			return r, named("era", era.Name, "driver %s does not run in era %s (its frag API buffers need 5.15 or later)", spec.Name, era.Name)
		}
	}
	if len(sc.Eras) > 0 && !slices.Contains(sc.Eras, era.Name) {
		return r, named("era", era.Name, "scenario %s does not run in era %s (accepted: %s)", sc.Name, era.Name, strings.Join(sc.Eras, ", "))
	}
	if cfg.Platform == "" {
		cfg.Platform = sim.BenchX86.Name
		if spec != nil {
			cfg.Platform = spec.Platform
		}
	}
	plat := cfg.plat
	if plat == nil {
		if plat, err = sim.PlatformByName(cfg.Platform); err != nil {
			return r, err
		}
	}
	if cfg.Packets == 0 {
		cfg.Packets = DefaultPackets
	}
	if cfg.Packets < 1 || cfg.Packets > MaxPackets {
		return r, &sim.FieldError{Field: "packets", Value: fmt.Sprint(cfg.Packets), Msg: fmt.Sprintf("want an integer from 1 to %d", int64(MaxPackets))}
	}
	if err := cfg.Knobs.Check(); err != nil {
		return r, err
	}
	knobs := cfg.Knobs.Over(scenarioDefaults(sc, era))
	var rules sim.RuleSet
	for _, name := range cfg.Break {
		rule, err := sim.RuleByName(name)
		if err != nil {
			return r, err
		}
		rules = rules.With(rule)
	}
	if err := checkKnobs(&knobs); err != nil {
		return r, err
	}
	if err := checkKnobsFor(&knobs, sc, spec, era, plat, rules); err != nil {
		return r, err
	}
	r = resolved{cfg: cfg, knobs: knobs, era: era, sc: sc, spec: spec, plat: plat, rules: rules}
	return r, nil
}

// fullCheckPages is the machine size the default full-check interval is for.
const fullCheckPages = 16384

// checkKnobs rejects knob combinations no run can honour.
func checkKnobs(k *sim.Knobs) error {
	if k[sim.KnobNid] >= k[sim.KnobNumaNodes] {
		return knobErr(sim.KnobNid, k, "the machine has %d NUMA node(s) (numa_nodes=%d): want -1 to %d", k[sim.KnobNumaNodes], k[sim.KnobNumaNodes], k[sim.KnobNumaNodes]-1)
	}
	if k[sim.KnobNumaNodes] > k[sim.KnobCPUs] {
		return knobErr(sim.KnobNumaNodes, k, "want at most one node per CPU (cpus=%d)", k[sim.KnobCPUs])
	}
	if v := k[sim.KnobRxDescs]; v != 0 && v < 2 {
		return knobErr(sim.KnobRxDescs, k, "want 0 (the driver's count) or a number from 2 to %d (even for a driver that splits pages)", sim.KnobRxDescs.Spec().Max)
	}
	if max := int64(mm.PageSize) << k[sim.KnobOrder]; k[sim.KnobMaxLen] > max {
		return knobErr(sim.KnobMaxLen, k, "want at most PAGE_SIZE << order = %d", max)
	}
	return nil
}

// minFrame is the Ethernet minimum frame without the FCS.
const minFrame = 60

// checkKnobsFor rejects knob values that do nothing in this run, or that
// the run's scenario, driver, machine or broken rules contradict: a knob's
// accepted range is the range that changes something.
func checkKnobsFor(k *sim.Knobs, sc *Scenario, spec *drivers.Spec, era *sim.Era, plat *sim.Platform, rules sim.RuleSet) error {
	if v := k[sim.KnobVethCPU]; v >= k[sim.KnobCPUs] {
		return knobErr(sim.KnobVethCPU, k, "the machine has %d CPUs (cpus=%d): want -1 (the redirecting CPU) or 0 to %d", k[sim.KnobCPUs], k[sim.KnobCPUs], k[sim.KnobCPUs]-1)
	}
	if v := k[sim.KnobTxCPU]; v >= k[sim.KnobCPUs] {
		return knobErr(sim.KnobTxCPU, k, "the machine has %d CPUs (cpus=%d): want 0 to %d", k[sim.KnobCPUs], k[sim.KnobCPUs], k[sim.KnobCPUs]-1)
	}
	if spec != nil && spec.XDPNdo == drivers.XDPNdoNone {
		switch {
		case sc.Name == workload.WXDPRedirect && k[sim.KnobRedirectTo] == 1:
			return knobErr(sim.KnobRedirectTo, k, "%s has no ndo_xdp_xmit in the model: accepted 0 (the veth)", spec.Name)
		case sc.Name == workload.WDestroy && k[sim.KnobHeld] == 1:
			return knobErr(sim.KnobHeld, k, "%s has no XDP redirect to a second port in the model (xdp-redirect's redirect_to=1 runs on mvpp2, mvneta, mlx5 and bnxt): accepted 0 (skbs)", spec.Name)
		}
	}
	if sc.Name == workload.WDestroy && k[sim.KnobHeld] == 1 && k[sim.KnobReleaseRace] != 0 {
		// The unload, and so the pool's release work, runs on the
		// application's CPU (cpu1); a softirq is not preempted by work
		// queued on its own CPU, so the race needs the late TX
		// completions elsewhere.
		switch {
		case k[sim.KnobCPUs] < 2:
			return knobErr(sim.KnobReleaseRace, k, "with held=1 the race needs the port's TX completion and the pool's release work on two CPUs: want cpus >= 2")
		case txCPU(k) == 1:
			return knobErr(sim.KnobTxCPU, k, "with held=1 the unload, and so the pool's release work, runs on cpu1, where the port's TX completion (a softirq) cannot be preempted by it: release_race=1 wants tx_cpu other than 1")
		}
	}
	if k[sim.KnobPPNapi] == 1 && !era.NAPIDirect {
		first := "6.4"
		if e := sim.FirstEra(func(e *sim.Era) bool { return e.NAPIDirect }); e != nil {
			first = e.Name
		}
		return knobErr(sim.KnobPPNapi, k, "page_pool_params has no napi before %s (8c48eea3adf3): want -1 or 0 in era %s, or era %s or later", first, era.Name, first)
	}
	if k[sim.KnobPreemptRT] == 1 && !era.NapiLocalRT {
		first := "6.16"
		if e := sim.FirstEra(func(e *sim.Era) bool { return e.NapiLocalRT }); e != nil {
			first = e.Name
		}
		return knobErr(sim.KnobPreemptRT, k, "no release before %s tests PREEMPT_RT in page_pool (32471b2f481d added the test to page_pool_napi_local): an RT kernel of era %s recycles directly like any other; want 0 here, or era %s or later", first, era.Name, first)
	}
	if k[sim.KnobSRSO] != 0 && !plat.X86() {
		var x86 []string
		for _, d := range drivers.Specs {
			if d.Platform == sim.X86Server.Name && d.Runs(sc.Name) {
				x86 = append(x86, d.Name)
			}
		}
		return knobErr(sim.KnobSRSO, k, "SRSO is an AMD Zen mitigation, measured on an x86 machine, and this run's platform is %s: want 0, or a driver on %s (for %s: %s)", plat.Name, sim.X86Server.Name, sc.Name, strings.Join(x86, ", "))
	}
	if v := k[sim.KnobFrame]; v > 0 && v < minFrame {
		return knobErr(sim.KnobFrame, k, "below the Ethernet minimum: want 0 (the workload's size) or %d to %d bytes", minFrame, sim.KnobFrame.Spec().Max)
	}
	if v := k[sim.KnobFrame]; v > 0 && v < workload.HdrTCP && workload.TCPFrames(sc.Name) {
		return knobErr(sim.KnobFrame, k, "a TCP segment's headers alone are %d bytes (Ethernet, IPv4, TCP with timestamps), which %s's frames carry: want 0 (the workload's size) or %d to %d bytes", workload.HdrTCP, sc.Name, workload.HdrTCP, sim.KnobFrame.Spec().Max)
	}
	if v := k[sim.KnobBulk]; v > pagepool.AllocCacheSize && !rules.Broken(sim.RuleBulkDMAUnmap) {
		return knobErr(sim.KnobBulk, k, "the kernel's bulk call fills the %d-slot alloc cache and cannot ask for more: want 1 to %d (only the first bulk patch's unbounded list asks for more: --break bulk-dma-unmap)", pagepool.AllocCacheSize, pagepool.AllocCacheSize)
	}
	if spec != nil && !spec.PoolMaps(era) && k[sim.KnobDMASyncDev] == 1 {
		return knobErr(sim.KnobDMASyncDev, k, "%s maps its own RX buffers before era %s (its pool has no PP_FLAG_DMA_MAP), and PP_FLAG_DMA_SYNC_DEV needs it: page_pool_create would fail with -EINVAL (want -1 or 0, or era %s)", spec.Name, spec.PoolDMAFrom, spec.PoolDMAFrom)
	}
	if spec != nil {
		xdp := workload.AttachesXDP(sc.Name, k)
		agg, err := spec.AggMode(era, k, xdp)
		if err != nil {
			return knobErr(sim.KnobHWGRO, k, "%v", err)
		}
		if n := k[sim.KnobRxDescs]; agg && n > int64(spec.AggMaxRxDescs) && spec.AggMaxRxDescs > 0 {
			return knobErr(sim.KnobRxDescs, k, "%s cuts an RX ring of more than %d descriptors to %d when its aggregation ring is on (bnxt_set_ring_params: \"RX ring size reduced ... because the jumbo ring is now enabled\"): want at most %d with hw_gro=1, or hw_gro=0", spec.Name, spec.AggMaxRxDescs, spec.AggMaxRxDescs, spec.AggMaxRxDescs)
		}
		v := k[sim.KnobFrame]
		if limit := spec.TPAMaxFrame(workload.HdrTCP); agg && spec.TPA && workload.TCPFrames(sc.Name) && v > int64(limit) {
			return knobErr(sim.KnobFrame, k, "with hardware GRO %s's chip places each TCP segment in one %d-byte aggregation buffer in the model; a larger MSS (a jumbo MTU) spans several, and bnxt_hwrm_vnic_set_tpa then sizes the aggregate in a way the model does not follow: want a frame of at most %d bytes with hw_gro=1 (or hw_gro=0)", spec.Name, limit-workload.HdrTCP, limit)
		}
		if limit := spec.HeadRingMaxFrame(); spec.HeadRing(era, k, xdp) && v > int64(limit) {
			return knobErr(sim.KnobFrame, k, "%s's RX buffers without an aggregation ring hold one frame of the 1500-byte MTU (rx_buf_use_size %d); a larger MTU turns on its jumbo aggregation ring (BNXT_FLAG_JUMBO), which the model runs with hw_gro=1 only: want a frame of at most %d bytes here, or hw_gro=1", spec.Name, spec.HeadRingRoom, limit)
		}
	} else if k[sim.KnobHWGRO] != -1 {
		return knobErr(sim.KnobHWGRO, k, "the %s scenario has no driver (hw_gro picks bnxt's RX path): accepted -1", sc.Name)
	}
	if off := k[sim.KnobOffset]; off != 0 {
		// The pool's sync setup as the run will build it.
		sync := k[sim.KnobDMASyncDev] == 1
		maxLen := int64(mm.PageSize) << k[sim.KnobOrder]
		if v := k[sim.KnobMaxLen]; v != 0 {
			maxLen = v
		}
		if spec != nil {
			s, _, ml := spec.DeviceSyncIn(era, bufferMode(spec, sc.Name, era, k), k)
			sync, maxLen = s, int64(ml)
		}
		if !sync {
			return knobErr(sim.KnobOffset, k, "page_pool_params.offset only moves where the pool syncs for the device, and this pool does not sync (dma_sync_dev=1 turns it on)")
		}
		if page := int64(mm.PageSize) << k[sim.KnobOrder]; off+maxLen > page {
			return knobErr(sim.KnobOffset, k, "offset + max_len = %d runs past the pool's page (PAGE_SIZE << order = %d): the sync for the device would cover memory outside it (lower offset or max_len=%d)", off+maxLen, page, page-off)
		}
	}
	return nil
}

// txCPU is the CPU a run's TX completion runs on (workload: Env.txCPU):
// tx_cpu, or the NAPI's cpu0.
func txCPU(k *sim.Knobs) int64 {
	if v := k[sim.KnobTxCPU]; v > 0 && v < k[sim.KnobCPUs] {
		return v
	}
	return 0
}

// named is a FieldError whose message names the field and value.
func named(field, value, format string, args ...any) *sim.FieldError {
	return &sim.FieldError{Field: field, Value: value, Msg: fmt.Sprintf(format, args...), Named: true}
}

// knobErr is a FieldError about knob n's value in k.
func knobErr(n sim.Knob, k *sim.Knobs, format string, args ...any) *sim.FieldError {
	return &sim.FieldError{Field: n.String(), Value: fmt.Sprint(k[n]), Msg: fmt.Sprintf(format, args...), Knob: true}
}

// DidYouMean is " (did you mean X?)" for the accepted key nearest to key —
// a prefix either way, or at most two edits away — or "".
func DidYouMean(key string, accepted []string) string {
	best, bestD := "", 3
	for _, a := range accepted {
		k := strings.ToLower(key)
		d := editDistance(k, a)
		if len(k) >= 3 && len(a) >= 3 && (strings.HasPrefix(a, k) || strings.HasPrefix(k, a) || subsequence(a, k) || subsequence(k, a)) {
			d = min(d, 1) // a shortening (cmp for compare) or a lengthening
		}
		if d < bestD {
			best, bestD = a, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// subsequence reports whether a's letters appear in b in order, starting
// with b's first.
func subsequence(a, b string) bool {
	if a == "" || b == "" || a[0] != b[0] {
		return false
	}
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
