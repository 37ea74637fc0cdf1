package app

import (
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// The era selector renders each era's summary as its option's title and
// the chosen era's beside it. (go-app writes an element's attributes in
// map order: look for each attribute on its own.)
func TestControls_EraSelectorShowsTheErasSummaries(t *testing.T) {
	s := session.New(nil, nil)
	s.Set("era", "7.1-rc1")
	html := ga.HTMLString((&Controls{V: s.View().Controls}).Render())
	for _, want := range []string{`value="6.16"`, `title="as 6.15, plus DMA-mapped pages tracked`, `id="era-doc"`, "era 7.1-rc1: as 6.19, plus the page type"} {
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

// A bound queue's pool (devmem-rx, 6.12+) is titled as the provider's: its
// net_iovs, the binding, how the user gives buffers back; a pool linked to
// the netdev shows its netlink id.
func TestMachine_ProviderPoolIsTitledAsTheProviders(t *testing.T) {
	for _, tc := range []struct {
		era, provider string
		want          []string
	}{
		{"6.12", "0", []string{"RX queue 0&#39;s memory-provider pool (net_iovs of the dma-buf binding", "SO_DEVMEM_DONTNEED", "netlink id"}},
		{"6.15", "1", []string{"io_uring zero-copy RX area", "refill queue"}},
	} {
		cfg, err := lab.Config{Scenario: "devmem-rx", Era: tc.era, Packets: 1000}.With("provider", tc.provider)
		if err != nil {
			t.Fatal(err)
		}
		l, err := lab.New(teaching(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			l.Step()
		}
		html := ga.HTMLString((&Machine{V: session.MachineView{Snap: l.Snapshot(), Selected: -1}}).Render())
		for _, w := range tc.want {
			if !strings.Contains(html, w) {
				t.Errorf("%s: the machine lacks %q", tc.era, w)
			}
		}
	}
}
