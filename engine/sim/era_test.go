package sim

import "testing"

// TestEras_CarryTheReleasesBetweenThem: an era step carries the changes of
// the releases the model has no era for, from the first era after them:
// 6.13's frag stats (ef04d290c013) from 6.15, 6.19's free path
// (e20dfbad8aab, b61785852ed0) from 7.1-rc1.
func TestEras_CarryTheReleasesBetweenThem(t *testing.T) {
	for _, tc := range []struct {
		era                    string
		fragStatPerPage, alien bool
		deferMax               int64
	}{
		{"6.12", false, false, 64},
		{"6.15", true, false, 64},
		{"6.18", true, false, 64},
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
