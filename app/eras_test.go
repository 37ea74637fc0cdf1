package app

import (
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// The era selector renders each era's summary as its option's title and
// the chosen era's beside it.
func TestControls_EraSelectorShowsTheErasSummaries(t *testing.T) {
	s := session.New(nil, nil)
	s.Set("era", "7.1-rc1")
	html := ga.HTMLString((&Controls{V: s.View().Controls}).Render())
	for _, want := range []string{`<option value="6.16"`, `title="as 6.15, plus DMA-mapped pages tracked`, `id="era-doc"`, "era 7.1-rc1: as 6.18, plus the page type"} {
		if !strings.Contains(html, want) {
			t.Errorf("the controls lack %q", want)
		}
	}
}

// The inspector's signature row names the era's test.
func TestInspector_SignatureRowNamesTheErasTest(t *testing.T) {
	if got := signatureText(true, "PageNetpp(page)"); got != "yes — the era's test: PageNetpp(page)" {
		t.Errorf("7.1-rc1 row %q", got)
	}
	if got := signatureText(false, ""); !strings.HasPrefix(got, "no (this era's pages carry no page_pool mark") {
		t.Errorf("5.12 row %q", got)
	}
}
