package app

import "testing"

// While playing the address bar is rewritten for a change of the
// configuration, not for the op alone (writeURL): sameBesidesStep tells
// the two apart.
func TestSameBesidesStep(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"era=7.3&scenario=drop&step=10&v=2", "era=7.3&scenario=drop&step=99&v=2", true},
		{"era=7.3&scenario=drop&v=2", "era=7.3&scenario=drop&step=99&v=2", true},
		{"scenario=drop&era=7.3&v=2", "era=7.3&scenario=drop&v=2", true},
		{"era=7.3&scenario=drop&step=10&v=2", "era=6.12&scenario=drop&step=10&v=2", false},
		{"era=7.3&scenario=drop&v=2", "driver=hns3&era=7.3&scenario=drop&v=2", false},
		{"era=7.3&scenario=drop&v=2", "era=7.3&scenario=drop&speed=4&v=2", false},
		{"era=%zz", "era=%zz", false},
	} {
		if got := sameBesidesStep(tc.a, tc.b); got != tc.same {
			t.Errorf("%q vs %q: %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
