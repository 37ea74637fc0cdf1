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

// The inspector's mark row names the era's test; in 7.1-rc1 the mark is a
// page type (PGTY_netpp, db359fccf212), not a signature, and the row says so.
func TestInspector_MarkRowNamesTheErasTest(t *testing.T) {
	tests := []struct {
		name, check string
		has, typ    bool
		want        [2]string
	}{
		{"7.1-rc1: the page type PGTY_netpp, tested by PageNetpp()", "PageNetpp(page)", true, true,
			[2]string{"page type", "yes (PGTY_netpp) — the era's test: PageNetpp(page)"}},
		{"7.1: the pp_magic signature again (54cf41c969da)", "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE", true, false,
			[2]string{"signature", "yes — the era's test: (page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE"}},
		{"5.12: no mark at all", "", false, false,
			[2]string{"signature", "no (this era's pages carry no page_pool mark: nothing tests for one)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := markRow(tt.has, tt.check, tt.typ); got != tt.want {
				t.Errorf("row %q, want %q", got, tt.want)
			}
		})
	}
	s := session.New(nil, nil)
	s.Set("era", "7.1-rc1")
	if v := s.View().Inspector; !v.PageType || v.SignatureCheck != "PageNetpp(page)" {
		t.Errorf("7.1-rc1 inspector: page type %v, check %q", v.PageType, v.SignatureCheck)
	}
}
