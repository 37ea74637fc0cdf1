package lab

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// randomEdit applies one random edit (a select's value, a knob within its
// range, a rule toggled) to cfg and keeps it when the result runs.
func randomEdit(r *rand.Rand, cfg Config) Config {
	fields := []string{"era", "driver", "knob", "knob", "break", "preset", "seed"}
	f := fields[r.IntN(len(fields))]
	var next Config
	var err error
	switch f {
	case "era", "driver", "preset":
		ch := cfg.Choices(f)
		if len(ch) == 0 {
			return cfg
		}
		next, err = cfg.With(f, ch[r.IntN(len(ch))].Value)
	case "knob":
		specs := sim.AllKnobs()
		k := specs[r.IntN(len(specs))]
		v := k.Min + r.Int64N(min(k.Max-k.Min+1, 5000))
		next, err = cfg.With(k.Name, strconv.FormatInt(v, 10))
	case "break":
		names := sim.RuleNames()
		next, err = cfg.With("break", names[r.IntN(len(names))])
	case "seed":
		next, err = cfg.With("seed", strconv.Itoa(r.IntN(4)))
	}
	if err != nil || next.Validate() != nil {
		return cfg
	}
	return next
}

// TestCompareValues_TwoRunLinksRoundTrip: for seeded random pairs of
// configs (the second an edit walk away from the first), the two-run link
// reads back as the same two runs (their one-run links equal), names no
// error, and its first run alone is the first run's link.
func TestCompareValues_TwoRunLinksRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		sc := Scenarios[r.IntN(len(Scenarios))]
		a, _ := Preset(PresetTeaching, sc.Name)
		if r.IntN(3) == 0 {
			a, _ = Preset(PresetKernel, sc.Name)
		}
		var walk []string
		for i := r.IntN(4); i > 0; i-- {
			a = randomEdit(r, a)
		}
		b := a
		for i := 1 + r.IntN(4); i > 0; i-- {
			b = randomEdit(r, b)
			walk = append(walk, b.Values().Encode())
		}
		link := CompareValues(a, b)
		// Through the text a browser keeps.
		back, err := url.ParseQuery(link.Encode())
		if err != nil {
			t.Fatal(err)
		}
		ga, gb, two, err := ParseCompare(back)
		if err != nil {
			t.Errorf("seed %d: %s: %v", seed, link.Encode(), err)
			continue
		}
		if !two && a.Values().Encode() != b.Values().Encode() {
			t.Errorf("seed %d: %s reads as one run", seed, link.Encode())
		}
		if ga.Values().Encode() != a.Values().Encode() {
			t.Errorf("seed %d: first run %s, want %s", seed, ga.Values().Encode(), a.Values().Encode())
		}
		if two && gb.Values().Encode() != b.Values().Encode() {
			t.Errorf("seed %d: link %s: second run %s, want %s (walk %s)", seed, link.Encode(), gb.Values().Encode(), b.Values().Encode(), strings.Join(walk, " → "))
		}
	}
}

// TestParseCompare_NamesTheSecondRunsBadField: a bad with.KEY is named
// with its prefix, once; a bad key both runs share is named once,
// without it.
func TestParseCompare_NamesTheSecondRunsBadField(t *testing.T) {
	for _, tc := range []struct{ query, want, not string }{
		{"scenario=forward&era=6.18&with.era=4.0", "with.era", ""},
		{"scenario=forward&era=6.18&with.tx_cpu=9", "with.tx_cpu", ""},
		{"scenario=forward&era=6.18&tx_cpu=9&with.era=6.19", "tx_cpu", "with.tx_cpu"},
		{"scenario=forward&era=6.18&with.nope=1", "with.nope", ""},
	} {
		v, _ := url.ParseQuery(tc.query)
		_, _, two, err := ParseCompare(v)
		if !two || err == nil {
			t.Errorf("%s: two %v, err %v", tc.query, two, err)
			continue
		}
		var fields []string
		for _, fe := range FieldErrors(err) {
			fields = append(fields, fe.Field)
		}
		got := strings.Join(fields, " ")
		if !strings.Contains(" "+got+" ", " "+tc.want+" ") || (tc.not != "" && strings.Contains(got, tc.not)) {
			t.Errorf("%s: fields %q (%v), want %s and not %q", tc.query, got, err, tc.want, tc.not)
		}
	}
}

// TestParseConfig_AKnobThatFitsBesideALaterOne: a link's knobs are read
// in key order, and offset=2370 fits only a pool of order=3's larger
// pages: it is tried again once order is in (it was dropped, a one-run
// link opening another config than it was copied from; found by the
// two-run round trip, seed 203).
func TestParseConfig_AKnobThatFitsBesideALaterOne(t *testing.T) {
	v, _ := url.ParseQuery("driver=mlx5&era=6.8&order=3&offset=2370&redirect_to=1&scenario=xdp-tx&v=2")
	cfg, err := ParseConfig(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := cfg.Knobs.Get(sim.KnobOffset); got != 2370 {
		t.Errorf("offset %d, want 2370 (%s)", got, cfg.Values().Encode())
	}
}
