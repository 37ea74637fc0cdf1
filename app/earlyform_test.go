package app

import (
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/perf"
)

// TestKeepTyped: what was typed into the prerendered what-if page before
// the app was up goes over the form the page loads (a link's, the
// storage's, the default example): each field typed, and only those; a
// listing typed over the user's own (stored) listing keeps that one to
// put back, never a shipped example. (In the browser, with app.wasm held
// back: e2e TestEarly_TypedBeforeTheAppIsUpIsKept.)
func TestKeepTyped(t *testing.T) {
	def := session.WhatIfDefault()
	_, mvneta, err := perf.ShippedProfile("mvneta-v1-before")
	if err != nil {
		t.Fatal(err)
	}
	own := "  40.00%  [kernel]  [k] page_pool_alloc_pages\n"
	for _, tc := range []struct {
		name  string
		in    session.WhatIfInput
		typed map[string]string
		want  session.WhatIfInput
	}{
		{"nothing typed", def, nil, def},
		{"a listing over the default example", def, map[string]string{"wi-text": mvneta},
			session.WhatIfInput{Text: mvneta, Rate: def.Rate, Unit: def.Unit, Change: def.Change, Platform: def.Platform}},
		{"every field", def, map[string]string{"wi-text": own, "wi-rate": "500", "wi-unit": "pps", "wi-change": "bulk", "wi-platform": "macchiatobin"},
			session.WhatIfInput{Text: own, Rate: "500", Unit: "pps", Change: "bulk", Platform: "macchiatobin"}},
		{"the rate alone over a stored listing", session.WhatIfInput{Text: own, Rate: "962", Unit: "kpps", Change: "bulk"}, map[string]string{"wi-rate": "1200"},
			session.WhatIfInput{Text: own, Rate: "1200", Unit: "kpps", Change: "bulk"}},
		{"a listing over the user's own", session.WhatIfInput{Text: own, Rate: "962", Unit: "kpps", Change: "bulk"}, map[string]string{"wi-text": mvneta},
			session.WhatIfInput{Text: mvneta, Rate: "962", Unit: "kpps", Change: "bulk", Previous: own}},
	} {
		if got := keepTyped(tc.in, tc.typed); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if ids := strings.Join(whatIfFieldIDs(), " "); ids != "wi-text wi-rate wi-unit wi-change wi-platform" {
		t.Errorf("the controls read: %s", ids)
	}
	// The ids are the rendered page's.
	html := ga.HTMLString((&WhatIfPage{in: def, view: session.WhatIf(def)}).Render())
	for _, id := range whatIfFieldIDs() {
		if !strings.Contains(html, `id="`+id+`"`) {
			t.Errorf("the what-if page has no #%s", id)
		}
	}
}
