package lab

import (
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
)

// teaching is the teaching preset's knobs for scenario with the
// assignments set over them (as --set takes them).
func teaching(scenario string, set ...string) sim.KnobOverrides {
	cfg, err := Preset(PresetTeaching, scenario)
	if err != nil {
		panic(err)
	}
	return cfg.Knobs.Merge(sim.MustOverrides(set...))
}

// With edits one field: a good value changes that field only (the URL form
// says what the run is), a bad one is a *sim.FieldError naming the field, the
// value and what is accepted, and leaves the config as it was.
func TestConfigWith(t *testing.T) {
	drop := Config{Scenario: "drop", Knobs: teaching("drop")}
	for _, tc := range []struct {
		name         string
		cfg          Config
		field, value string
		want         string // the edited config's URL form, when the value is good
		err          string // the error, when it is not (Error(), in full or its start)
	}{
		{"scenario", drop, "scenario", "tcp-stream", "era=6.8&scenario=tcp-stream&v=2", ""},
		{"scenario: the teaching sizes follow", drop, "scenario", "pool-ring", "era=6.8&scenario=pool-ring&v=2", ""},
		{"scenario: kernel sizes stay", Config{Scenario: "drop", Knobs: sim.MustOverrides("bulk=8")}, "scenario", "pool-ring", "bulk=8&era=6.8&scenario=pool-ring&sizes=kernel&v=2", ""},
		{"scenario: unknown", drop, "scenario", "warp", "", `unknown scenario "warp" (accepted: pool-direct, pool-ring, pool-slow, drop,`},
		{"driver", drop, "driver", "mlx5", "driver=mlx5&era=6.8&scenario=drop&v=2", ""},
		{"driver: the default", Config{Scenario: "drop", Driver: "mlx5"}, "driver", "", "era=6.8&scenario=drop&sizes=kernel&v=2", ""},
		{"driver: one that does not fit is Validate's", drop, "driver", "lunar", "driver=lunar&era=6.8&scenario=drop&v=2", ""},
		{"driver: unknown", drop, "driver", "e1000", "", `unknown driver "e1000" (accepted: mvpp2, mvneta, cpsw, lunar, mlx5, bnxt, hns3)`},
		{"era", drop, "era", "5.12", "era=5.12&scenario=drop&v=2", ""},
		{"era: unknown", drop, "era", "4.19", "", `unknown era "4.19" (accepted: ` + strings.Join(sim.EraNames(), ", ") + `)`},
		{"platform", Config{Scenario: "drop"}, "platform", "x86-server", "era=6.8&platform=x86-server&scenario=drop&sizes=kernel&v=2", ""},
		{"platform: unknown", drop, "platform", "vax", "", `unknown platform "vax" (accepted: `},
		{"packets", Config{Scenario: "drop"}, "packets", "5000", "era=6.8&packets=5000&scenario=drop&sizes=kernel&v=2", ""},
		{"packets: zero", drop, "packets", "0", "", "packets 0: want an integer from 1 to 1099511627776"},
		{"packets: not a number", drop, "packets", "many", "", "packets many: want an integer from 1 to 1099511627776"},
		{"seed", Config{Scenario: "drop"}, "seed", "7", "era=6.8&scenario=drop&seed=7&sizes=kernel&v=2", ""},
		{"seed: negative", drop, "seed", "-3", "", "seed -3: want a non-negative integer"},
		{"preset: kernel", drop, "preset", PresetKernel, "era=6.8&scenario=drop&sizes=kernel&v=2", ""},
		{"preset: kernel keeps the other knobs", Config{Scenario: "drop", Knobs: teaching("drop", "bulk=8")}, "preset", PresetKernel, "bulk=8&era=6.8&scenario=drop&sizes=kernel&v=2", ""},
		{"preset: teaching", Config{Scenario: "pool-slow", Knobs: sim.MustOverrides("pool_size=64")}, "preset", PresetTeaching, "era=6.8&scenario=pool-slow&v=2", ""},
		{"preset: unknown", drop, "preset", "huge", "", "preset huge: want teaching or kernel"},
		{"break: breaks an intact rule", drop, "break", "refcnt-check", "break=refcnt-check&era=6.8&scenario=drop&v=2", ""},
		{"break: mends a broken one", Config{Scenario: "drop", Break: []string{"last-dataref", "refcnt-check"}}, "break", "refcnt-check", "break=last-dataref&era=6.8&scenario=drop&sizes=kernel&v=2", ""},
		{"break: unknown", drop, "break", "gravity", "", `unknown rule "gravity" (accepted: `},
		{"knob", drop, "bulk", "16", "bulk=16&era=6.8&scenario=drop&v=2", ""},
		{"knob: replaces its value", drop, "rx_descs", "64", "era=6.8&rx_descs=64&scenario=drop&v=2", ""},
		{"knob: one that does not fit is Validate's", drop, "frame", "59", "era=6.8&frame=59&scenario=drop&v=2", ""},
		{"knob: out of range", drop, "order", "9", "", "order=9: want an integer from 0 to 4"},
		{"knob: not a number", drop, "rx_descs", "many", "", "rx_descs=many: want an integer from 0 to 4096"},
		{"unknown field", drop, "warp", "9", "", "warp 9: unknown field (accepted: scenario, driver, era, platform, packets, seed, preset, break, or a knob's name)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.cfg.Values().Encode()
			got, err := tc.cfg.With(tc.field, tc.value)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if q := got.Values().Encode(); q != tc.want {
					t.Errorf("edited: %s, want %s", q, tc.want)
				}
			} else {
				var fe *sim.FieldError
				if !errors.As(err, &fe) || fe.Field != tc.field || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want a FieldError for %q: %q", err, tc.field, tc.err)
				}
				if !strings.Contains(err.Error(), tc.value) {
					t.Errorf("error %q does not name the value %q", err, tc.value)
				}
				if q := got.Values().Encode(); q != before {
					t.Errorf("a bad value changed the config: %s -> %s", before, q)
				}
			}
			if q := tc.cfg.Values().Encode(); q != before {
				t.Errorf("With changed its receiver: %s -> %s", before, q)
			}
		})
	}
	// The edited config shares no rule list with the original.
	a := Config{Scenario: "drop", Break: make([]string, 1, 4)}
	a.Break[0] = "last-dataref"
	b, _ := a.With("break", "refcnt-check")
	if b.Break[0] = "x"; a.Break[0] != "last-dataref" {
		t.Error("the edit shares its rule list with the original")
	}
}

// Choices: a select's values, each with why the config with it does not
// run — the error Validate gives for it, word for word — and nothing where
// the config does not run for a reason that is not the choice's.
func TestConfigChoices(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		field  string
		values string            // the choices' values in order ("" when not checked)
		why    map[string]string // value -> the start of its Why ("" runs); values not listed: not checked
	}{
		{"drivers of a driver scenario", Config{Scenario: "drop"}, "driver", ",mvneta,cpsw,lunar,mlx5,bnxt,hns3", // the scenario's own driver is its default option alone
			map[string]string{"": "", "hns3": ""}},
		{"a driver that does not run the scenario", Config{Scenario: "xdp-redirect"}, "driver", "",
			map[string]string{"lunar": "driver lunar does not run scenario xdp-redirect (drivers for xdp-redirect: mvpp2, mvneta, mlx5, bnxt)", "": ""}},
		{"a driver that does not run in the era", Config{Scenario: "drop", Era: "5.14"}, "driver", "",
			map[string]string{"hns3": "driver hns3 does not run in era 5.14 (its frag API buffers need 5.15 or later)", "": "", "mvneta": ""}},
		{"the chosen driver's own reason", Config{Scenario: "drop", Driver: "hns3", Era: "5.14"}, "driver", "",
			map[string]string{"hns3": "driver hns3 does not run in era 5.14", "": ""}},
		{"a knob only one driver takes", Config{Scenario: "tcp-stream", Knobs: sim.MustOverrides("hw_gro=1")}, "driver", "",
			map[string]string{"": "", "mlx5": "hw_gro=1: mlx5 has no second RX path in the model"}},
		{"no driver for a pool scenario", Config{Scenario: "pool-ring"}, "driver", "", map[string]string{"": ""}},
		{"eras of a scenario", Config{Scenario: "split-page"}, "era", strings.Join(sim.EraNames(), ","),
			map[string]string{"5.12": "scenario split-page does not run in era 5.12 (accepted: rfc-v1,", "rfc-v1": "", "6.8": ""}},
		{"eras of a driver", Config{Scenario: "drop", Driver: "hns3"}, "era", "",
			map[string]string{"5.14": "driver hns3 does not run in era 5.14", "5.15": ""}},
		{"eras of a knob", Config{Scenario: "tcp-stream", Driver: "bnxt", Knobs: sim.MustOverrides("hw_gro=1")}, "era", "",
			map[string]string{"6.1": "hw_gro=1: bnxt's aggregation ring takes page_pool buffers from 6.6", "6.4": "", "6.6": ""}},
		{"scenarios of a driver", Config{Scenario: "drop", Driver: "lunar"}, "scenario", "",
			map[string]string{"pool-ring": "scenario pool-ring runs without a driver", "xdp-drop": "driver lunar does not run scenario xdp-drop", "forward": ""}},
		{"a knob no choice fixes is left out", Config{Scenario: "pool-ring", Knobs: sim.MustOverrides("nid=1")}, "scenario", "",
			map[string]string{"pool-ring": "", "drop": ""}},
		{"the same, for the drivers", Config{Scenario: "drop", Knobs: sim.MustOverrides("frame=59")}, "driver", "",
			map[string]string{"": "", "mvneta": "", "lunar": ""}},
		{"presets", Config{Scenario: "drop"}, "preset", "teaching,kernel", map[string]string{"teaching": "", "kernel": ""}},
		{"platforms", Config{Scenario: "drop"}, "platform", "", map[string]string{"": "", "x86-server": ""}},
		{"a field without choices", Config{Scenario: "drop"}, "seed", "", nil},
		{"no scenario", Config{}, "driver", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := tc.cfg.Choices(tc.field)
			var values []string
			byValue := map[string]Choice{}
			for _, c := range cs {
				values = append(values, c.Value)
				byValue[c.Value] = c
			}
			if tc.values != "" && strings.Join(values, ",") != tc.values {
				t.Errorf("values %q, want %q", strings.Join(values, ","), tc.values)
			}
			if tc.why == nil && cs != nil {
				t.Errorf("choices %v, want none", cs)
			}
			for v, want := range tc.why {
				c, ok := byValue[v]
				if !ok {
					t.Errorf("no choice %q in %q", v, values)
					continue
				}
				if !strings.HasPrefix(c.Why, want) || (want == "" && c.Why != "") {
					t.Errorf("%q: why %q, want %q", v, c.Why, want)
				}
				if c.Why == "" {
					continue
				}
				// The reason is the engine's: Validate's error for that value.
				next, err := tc.cfg.With(tc.field, v)
				if err == nil {
					err = next.Validate()
				}
				if err == nil || err.Error() != c.Why {
					t.Errorf("%q: why %q, but Validate says %v", v, c.Why, err)
				}
			}
		})
	}
	labels := map[string]string{}
	for _, c := range (Config{Scenario: "split-page"}).Choices("era") {
		labels[c.Value] = c.Label
	}
	if labels["5.14"] != "5.14 (the kernel's own use-after-recycle)" || labels["5.15"] != "5.15" {
		t.Errorf("era labels %v", labels)
	}
	for sc, want := range map[string]string{"drop": "teaching (16 RX descriptors, 32-slot ring, 8 MB)", "pool-ring": "teaching (128-slot ring, 8 MB)"} {
		if got := (Config{Scenario: sc}).Choices("preset")[0].Label; got != want {
			t.Errorf("%s: preset label %q, want %q", sc, got, want)
		}
	}
}

// Preset is the one way to a preset's config; PresetOf names the preset a
// config is at.
func TestPreset(t *testing.T) {
	for _, tc := range []struct {
		name, preset, scenario string
		want                   string // the config's URL form
		err                    string
	}{
		{"teaching, a driver scenario", PresetTeaching, "drop", "era=6.8&scenario=drop&v=2", ""}, // v=2: the teaching sizes are what a link leaves out
		{"teaching, a pool micro-benchmark", PresetTeaching, "pool-direct", "era=6.8&scenario=pool-direct&v=2", ""},
		{"kernel", PresetKernel, "tcp-stream", "era=6.8&scenario=tcp-stream&sizes=kernel&v=2", ""},
		{"unknown preset", "huge", "drop", "", "preset huge: want teaching or kernel"},
		{"unknown scenario", PresetTeaching, "warp", "", `unknown scenario "warp"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Preset(tc.preset, tc.scenario)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q := cfg.Values().Encode(); q != tc.want {
				t.Errorf("%s", q)
			}
			if got := PresetOf(cfg); got != tc.preset {
				t.Errorf("PresetOf: %s", got)
			}
			if err := cfg.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
	// A size edited away from the preset is no longer the preset: custom,
	// and the sizes' select says so with the sizes in use; the choice of
	// custom keeps them, from any other config it is refused.
	cfg, _ := Preset(PresetTeaching, "drop")
	if cfg, _ = cfg.With("rx_descs", "64"); PresetOf(cfg) != PresetCustom {
		t.Errorf("rx_descs=64 on the teaching sizes: %s, want custom", PresetOf(cfg))
	}
	ch := cfg.Choices("preset")
	if len(ch) != 3 || ch[2].Value != PresetCustom || ch[2].Label != "custom (64 RX descriptors, 32-slot ring, 8 MB)" || ch[2].Why != "" {
		t.Errorf("the sizes' choices of a custom config: %+v", ch)
	}
	if again, err := cfg.With("preset", PresetCustom); err != nil || again.Values().Encode() != cfg.Values().Encode() {
		t.Errorf("custom chosen again: %v, %v", again.Values(), err)
	}
	if _, err := Preset(PresetTeaching, "drop"); err != nil {
		t.Fatal(err)
	}
	teach, _ := Preset(PresetTeaching, "drop")
	if _, err := teach.With("preset", PresetCustom); err == nil {
		t.Error("custom chosen from the teaching sizes was taken")
	}
	if len(teach.Choices("preset")) != 2 {
		t.Error("a teaching config offers custom")
	}
	// Each size back at the kernel's is kernel again, whatever the knobs
	// name explicitly.
	def, _ := Preset(PresetKernel, "drop")
	if k, _ := def.With("pool_size", strconv.FormatInt(scenarioDefaults(mustScenario(t, "drop"), def.era())[sim.KnobPoolSize], 10)); PresetOf(k) != PresetKernel {
		t.Errorf("the kernel's pool_size named explicitly: %s", PresetOf(k))
	}
	if PresetOf(Config{}) != PresetKernel {
		t.Error("no scenario: not kernel")
	}
}

// The knobs are parsed once, where the text comes in: a URL and ppsim's
// flags (--set through sim.ParseOverrides) give one and the same Config.
func TestConfig_URLAndSetParseToOneConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query string
		cfg   func() (Config, error) // as ppsim builds it from its flags
	}{
		{"knobs", "v=1&scenario=drop&rx_descs=16&pool_size=32&bulk=8", func() (Config, error) {
			k, err := sim.ParseOverrides("rx_descs=16", "pool_size=32", "bulk=8")
			return Config{Scenario: "drop", Knobs: k}, err
		}},
		{"every field", "v=1&scenario=tcp-stream&driver=bnxt&era=6.6&packets=5000&seed=3&break=refcnt-check&hw_gro=0&read_ns=100", func() (Config, error) {
			k, err := sim.ParseOverrides("hw_gro=0", "read_ns=100")
			return Config{Scenario: "tcp-stream", Driver: "bnxt", Era: "6.6", Packets: 5000, Seed: 3, Knobs: k, Break: []string{"refcnt-check"}}, err
		}},
		{"a value at its default is still set", "v=1&scenario=pool-ring&nid=-1", func() (Config, error) {
			k, err := sim.ParseOverrides("nid=-1")
			return Config{Scenario: "pool-ring", Knobs: k}, err
		}},
		{"a rule that allows a knob", "v=1&scenario=pool-slow&bulk=256&break=bulk-dma-unmap", func() (Config, error) {
			k, err := sim.ParseOverrides("bulk=256")
			return Config{Scenario: "pool-slow", Knobs: k, Break: []string{"bulk-dma-unmap"}}, err
		}},
		{"the teaching preset", "v=1&scenario=clone-tap&rx_descs=16&pool_size=32&node_pages=2048", func() (Config, error) {
			return Preset(PresetTeaching, "clone-tap")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			fromURL, err := ParseConfig(q)
			if err != nil {
				t.Fatal(err)
			}
			fromFlags, err := tc.cfg()
			if err != nil {
				t.Fatal(err)
			}
			// A v=1 link without an era meant v1Era (the default of its
			// day: ParseConfig names it); flags without --era mean the
			// default of today, the same era while it is v1Era.
			if fromFlags.Era == "" && sim.DefaultEra == v1Era {
				fromFlags.Era = fromFlags.EraName()
			}
			if !reflect.DeepEqual(fromURL, fromFlags) {
				t.Errorf("the URL gives %+v, the flags %+v", fromURL, fromFlags)
			}
			if fromURL.Knobs != fromFlags.Knobs {
				t.Errorf("knobs %v and %v", fromURL.Knobs, fromFlags.Knobs)
			}
			// And the URL form reads back to the same knobs.
			back, err := ParseConfig(fromFlags.Values())
			if err != nil {
				t.Fatal(err)
			}
			if a, _ := back.EffectiveKnobs(); a != mustKnobs(t, fromFlags) {
				t.Errorf("Values reads back as %v", back.Knobs)
			}
		})
	}
}

func mustKnobs(t *testing.T, cfg Config) sim.Knobs {
	t.Helper()
	k, err := cfg.EffectiveKnobs()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A choice that does not run carries a short mark: an era before the first
// that runs the config (and every later one does) "<that era>+", any other
// "✕"; a choice that runs, none.
func TestChoices_MarkIsShort(t *testing.T) {
	devmem := Config{Scenario: "devmem-rx"}
	first := sim.FirstEra(func(e *sim.Era) bool { return e.MemProvider != sim.MPNone })
	for _, c := range devmem.Choices("era") {
		e, _ := sim.EraByName(c.Value)
		switch {
		case c.Why == "" && c.Mark != "":
			t.Errorf("era %s runs devmem-rx but is marked %q", c.Value, c.Mark)
		case c.Why != "" && e.Order < first.Order && c.Mark != first.Name+"+":
			t.Errorf("era %s: mark %q, want %q (why %q)", c.Value, c.Mark, first.Name+"+", c.Why)
		}
	}
	for _, c := range (Config{Scenario: "split-page"}).Choices("driver") {
		if (c.Why != "") != (c.Mark == "✕") {
			t.Errorf("split-page driver %q: why %q, mark %q", c.Value, c.Why, c.Mark)
		}
	}
}

// A knob a config does not set has its era's default (a sysctl whose
// default a release changed: Era.SkbDeferMaxDefault, 64, 128 from 6.19),
// and the scenario's own value wins over it.
func TestScenarioDefaults_FollowTheEra(t *testing.T) {
	sc, err := ScenarioByName("tcp-stream")
	if err != nil {
		t.Fatal(err)
	}
	if got := scenarioDefaults(sc, simtest.EraWith(t, "6.18", func(*sim.Era) {}))[sim.KnobSkbDeferMax]; got != 64 {
		t.Errorf("6.18: skb_defer_max %d, want 64", got)
	}
	e := simtest.EraWith(t, "6.18", func(e *sim.Era) { e.SkbDeferMaxDefault = 128 }) // 6.19's (b61785852ed0)
	if got := scenarioDefaults(sc, e)[sim.KnobSkbDeferMax]; got != 128 {
		t.Errorf("with 6.19's default: skb_defer_max %d, want 128", got)
	}
	own := &Scenario{Name: "own", Knobs: map[sim.Knob]int64{sim.KnobSkbDeferMax: 8}}
	if got := scenarioDefaults(own, e)[sim.KnobSkbDeferMax]; got != 8 {
		t.Errorf("a scenario's own skb_defer_max: %d, want 8", got)
	}
}

func mustScenario(t *testing.T, name string) *Scenario {
	t.Helper()
	sc, err := ScenarioByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A v=2 link's size that does not fit falls back to the link's default
// for it, the teaching size, as the notice says ("using the default
// instead"); it fell back to the kernel's, a config at no preset.
func TestParseConfig_ABadSizeFallsBackToTheTeachingSize(t *testing.T) {
	for _, bad := range []string{"abc", "-77", "99999999999"} {
		cfg, err := ParseConfig(url.Values{"v": {"2"}, "scenario": {"drop"}, "pool_size": {bad}})
		if err == nil || !strings.Contains(err.Error(), "pool_size") {
			t.Errorf("pool_size=%s: error %v, want one naming pool_size", bad, err)
		}
		if PresetOf(cfg) != PresetTeaching {
			t.Errorf("pool_size=%s: sizes %s (%s), want teaching", bad, PresetOf(cfg), cfg.Values().Encode())
		}
	}
	// A v=1 link's default is the kernel's: so is its fallback.
	cfg, _ := ParseConfig(url.Values{"v": {"1"}, "scenario": {"drop"}, "pool_size": {"abc"}})
	if PresetOf(cfg) != PresetKernel {
		t.Errorf("v=1 pool_size=abc: sizes %s, want kernel", PresetOf(cfg))
	}
}
