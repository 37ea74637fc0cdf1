package sim

import "testing"

// TestEras_FragStatsFrom6_13_AlienSkbsAndDeferMaxFrom6_19: 6.13's frag
// stats (ef04d290c013) and 6.19's free path (e20dfbad8aab, b61785852ed0)
// start in their own eras and every later era keeps them.
func TestEras_FragStatsFrom6_13_AlienSkbsAndDeferMaxFrom6_19(t *testing.T) {
	for _, tc := range []struct {
		era                    string
		fragStatPerPage, alien bool
		deferMax               int64
	}{
		{"6.12", false, false, 64},
		{"6.13", true, false, 64},
		{"6.15", true, false, 64},
		{"6.18", true, false, 64},
		{"6.19", true, true, 128},
		{"7.1-rc1", true, true, 128},
		{"7.1", true, true, 128},
	} {
		e, err := EraByName(tc.era)
		if err != nil {
			t.Fatal(err)
		}
		if e.FragStatPerPage != tc.fragStatPerPage || e.ConsumeAlienDefers != tc.alien || e.SkbDeferMaxDefault != tc.deferMax {
			t.Errorf("%s: FragStatPerPage %v, ConsumeAlienDefers %v, SkbDeferMaxDefault %d; want %v, %v, %d", tc.era,
				e.FragStatPerPage, e.ConsumeAlienDefers, e.SkbDeferMaxDefault, tc.fragStatPerPage, tc.alien, tc.deferMax)
		}
	}
}

// TestNewestStableEra: the last era of the table that follows a release
// (7.1-rc1 is a pre-release, rfc-v1 a branch); it is not DefaultEra, which
// links and the CLI keep.
func TestNewestStableEra(t *testing.T) {
	e := NewestStableEra()
	if e.Name != "7.3" || e.PreRelease || e.Branch != "" {
		t.Errorf("newest stable era %s (pre-release %v, branch %q)", e.Name, e.PreRelease, e.Branch)
	}
	if rc, _ := EraByName("7.1-rc1"); !rc.PreRelease {
		t.Error("7.1-rc1 is not marked a pre-release")
	}
}
