package session

import (
	"fmt"
	"pplab/engine/lab"
	"slices"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// The eras in the playground: the era selector offers every era with its
// summary; a link with era=6.8 or with no era opens 6.8 as
// before; a new era round-trips through the URL; an unknown era falls back
// with one notice naming the accepted values.
func TestSession_EraSelectorOffersTheNewErasWithTheirSummaries(t *testing.T) {
	s := New(nil, nil)
	c := s.View().Controls
	got := map[string]string{}
	for _, e := range c.Eras {
		got[e.Value] = e.Doc
	}
	for i := range sim.Eras {
		e := &sim.Eras[i]
		name := e.Name
		doc, ok := got[name]
		if !ok || !strings.HasPrefix(doc, e.Summary) || !strings.Contains(doc, "follows "+e.Tag+"; "+e.Naming+" names") {
			t.Errorf("era %s: offered %v, doc %q", name, ok, doc)
		}
	}
	if !strings.Contains(c.EraDoc, "follows "+sim.NewestStableEra().Tag+"; ") { // a visit without a link: the newest stable era
		t.Errorf("the chosen era's doc %q", c.EraDoc)
	}
}

func TestSession_OldLinksOpenAsBefore(t *testing.T) {
	for _, q := range []string{"v=1&scenario=drop", "v=1&scenario=drop&era=6.8", "scenario=drop", "v=2&scenario=drop"} {
		s := New(query(t, q), nil)
		v := verify(t, s, q)
		if cfgEra(s.Config()) != "6.8" || len(v.Banner) != 0 {
			t.Errorf("%q: era %s, banner %+v", q, cfgEra(s.Config()), v.Banner)
		}
	}
	// A visit without a link is no old link: today's kernel, and its
	// link says so.
	s := New(query(t, ""), nil)
	if v := verify(t, s, ""); cfgEra(s.Config()) != sim.NewestStableEra().Name || !strings.Contains(v.Link, "era="+sim.NewestStableEra().Name) {
		t.Errorf("no link: era %s, link %q", cfgEra(s.Config()), v.Link)
	}
}

func TestSession_NewEraRoundTripsThroughTheURL(t *testing.T) {
	for _, era := range []string{"6.9", "6.12", "7.1-rc1", "7.1"} {
		s := New(query(t, "v=1&scenario=drop&era="+era), nil)
		for i := 0; i < 20; i++ {
			s.Step()
		}
		v := verify(t, s, era)
		if cfgEra(s.Config()) != era || len(v.Banner) != 0 || !strings.Contains(v.Link, "era="+era) {
			t.Fatalf("era %s: ran %s, banner %+v, link %q", era, cfgEra(s.Config()), v.Banner, v.Link)
		}
		o := New(query(t, v.Link), nil)
		if cfgEra(o.Config()) != era || o.Lab().Ops() != s.Lab().Ops() {
			t.Errorf("era %s: the link opens era %s at op %d, want op %d", era, cfgEra(o.Config()), o.Lab().Ops(), s.Lab().Ops())
		}
	}
}

func TestSession_UnknownEraNamesTheAcceptedValues(t *testing.T) {
	s := New(query(t, "v=1&scenario=drop&era=7.2"), nil)
	v := verify(t, s, "era=7.2")
	var hits []string
	for _, n := range v.Banner {
		if strings.Contains(n.Text, "7.2") {
			hits = append(hits, n.Text)
		}
	}
	if len(hits) != 1 || !strings.Contains(hits[0], "7.1-rc1") || !strings.Contains(hits[0], "5.12") || cfgEra(s.Config()) != sim.DefaultEra {
		t.Errorf("notices %q, ran era %s", hits, cfgEra(s.Config()))
	}
}

// The page inspector shows the signature test of the run's era.
func TestInspector_ShowsTheErasSignatureCheck(t *testing.T) {
	for era, want := range map[string]string{
		"6.8":     "(page->pp_magic & ~0x3UL) == PP_SIGNATURE",
		"6.16":    "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE",
		"7.1-rc1": "PageNetpp(page)",
		"7.1":     "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE",
		"5.12":    "",
	} {
		s := New(query(t, "v=1&scenario=drop&era="+era), nil)
		if got := s.View().Inspector.SignatureCheck; got != want {
			t.Errorf("era %s: inspector's check %q, want %q", era, got, want)
		}
	}
}

// A link that names no (valid) scenario opens the default scenario in the
// era and on the driver it names, and says so; a v=1 link without a
// scenario keeps v=1's era.
func TestSession_ALinkWithoutAScenarioKeepsItsEraAndDriver(t *testing.T) {
	for _, tc := range []struct {
		q, era, driver string
	}{
		{"era=7.1&driver=bnxt", "7.1", "bnxt"},
		{"scenario=DROP&era=7.1&v=2", "7.1", ""},
		{"era=5.12&driver=hns3", "6.8", "hns3"}, // hns3 runs from 5.15: read as a link with a scenario is (the driver, then the era), the era dropped, said
		{"v=1", "6.8", ""},
		{"seed=3", sim.NewestStableEra().Name, ""},
		{"break=refcnt-check", sim.NewestStableEra().Name, ""},
		{"pool_size=64&driver=mlx5", sim.NewestStableEra().Name, "mlx5"},
	} {
		s := New(query(t, tc.q), nil)
		cfg := s.Config()
		if cfgEra(cfg) != tc.era || cfg.Driver != tc.driver || cfg.Scenario != "drop" {
			t.Errorf("%q: %s on %q in %s, want drop on %q in %s", tc.q, cfg.Scenario, cfg.Driver, cfgEra(cfg), tc.driver, tc.era)
		}
		// Every other field the link names is kept where it fits, and said.
		b := fmt.Sprint(s.View().Banner)
		for _, kv := range strings.Split(tc.q, "&") {
			if k, v, _ := strings.Cut(kv, "="); k == "seed" && cfg.Seed != 3 || k == "break" && !slices.Contains(cfg.Break, v) || k == "pool_size" && !hasKnob(cfg, sim.KnobPoolSize, 64) {
				t.Errorf("%q: %s=%s dropped: %+v", tc.q, k, v, cfg)
			}
		}
		if strings.Contains(tc.q, "break=") && !strings.Contains(b, "with the link's break=refcnt-check") {
			t.Errorf("%q: banner %s", tc.q, b)
		}
		if tc.driver != "" && !strings.Contains(b, "driver="+tc.driver) || tc.q == "era=5.12&driver=hns3" && !strings.Contains(b, "not era=5.12") {
			t.Errorf("%q: banner %s", tc.q, b)
		}
	}
}

func hasKnob(cfg lab.Config, k sim.Knob, want int64) bool {
	v, ok := cfg.Knobs.Get(k)
	return ok && v == want
}
