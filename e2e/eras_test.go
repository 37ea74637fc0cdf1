//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pplab/engine/sim"
)

// teachingQuery is the playground's teaching sizes in the URL form.
const teachingQuery = "rx_descs=16&pool_size=32&node_pages=2048"

// TestEras_TheNewErasInThePlayground: a user of a kernel after 6.8 finds
// it in the era selector (every era, with its summary), and each new
// era's mechanism where the playground shows it — 6.9's system page_pool
// in generic-xdp, 6.12's memory-provider pool of net_iovs in devmem-rx with
// its kernel links into v6.12, 7.1-rc1's page type in the page inspector,
// 6.15's destroy with the unbound device's DMA calls and its io-uring
// provider in ynl's view — chosen with the keyboard where a user would
// choose it, with no console error. One era per mechanism; every era
// natively (named at each).
func TestEras_TheNewErasInThePlayground(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=1&scenario=generic-xdp&era=6.8&" + teachingQuery)

	// The selector offers every era, oldest first, each with its summary.
	var opts []struct{ Value, Title string }
	p.eval(`[...document.querySelectorAll('#f-era option')].filter(o => o.value).map(o => ({Value: o.value, Title: o.title}))`, &opts)
	var got []string
	for _, o := range opts {
		got = append(got, o.Value)
		if o.Title == "" {
			t.Errorf("era %s has no summary", o.Value)
		}
	}
	if want := sim.EraNames(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("era options %v, want %v", got, want)
	}

	// 6.9 by keyboard: focus the selector, pick 6.9, leave it; then step.
	p.do(chromedp.Focus(chromedp.CSS("#f-era")))
	p.do(chromedp.SetValue(chromedp.CSS("#f-era"), "6.9"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#f-era').dispatchEvent(new Event('change', {bubbles: true}))`))
	p.wait(`document.querySelector('#era-doc') && document.querySelector('#era-doc').textContent.startsWith('era 6.9: ')`, 10*time.Second)
	p.do(chromedp.KeyEvent("\u001b")) // Escape leaves the control: the shortcuts work again
	for i := 0; i < 40; i++ {
		p.do(chromedp.KeyEvent("\u0303"))
	}
	p.wait(`document.querySelector('#op-count').textContent === '40'`, 10*time.Second)
	if h := p.text("#machine"); !strings.Contains(h, "cpu0's system page_pool") {
		t.Errorf("6.9 generic-xdp: the machine shows no system page_pool")
	}
	p.shot("eras-6.9-generic-xdp")

	// 6.12 devmem-rx from a link: the provider's pool of net_iovs, and the
	// narration's kernel links point into v6.12.
	p.open(rootURL + "?v=1&scenario=devmem-rx&era=6.12&step=60&" + teachingQuery)
	p.wait(`document.querySelector('#op-count').textContent === '60'`, 20*time.Second)
	if h := p.text("#machine"); !strings.Contains(h, "memory-provider pool (net_iovs of the dma-buf binding") {
		t.Errorf("6.12 devmem-rx: no provider pool in the machine")
	}
	var links []string
	p.eval(`[...document.querySelectorAll('#narration a[href*="elixir.bootlin.com"]')].map(a => a.href)`, &links)
	if len(links) == 0 {
		t.Error("6.12: the narration links no kernel source")
	}
	for _, l := range links {
		if !strings.Contains(l, "/linux/v6.12/") {
			t.Errorf("6.12: narration link %s is not into v6.12", l)
		}
	}
	p.shot("eras-6.12-devmem")

	// 7.1-rc1: the inspector names the page type as the era's test (every
	// era's test natively: app/session TestInspector_ShowsTheErasSignatureCheck,
	// 7.1's revert to pp_magic among them).
	for _, tc := range []struct{ era, want string }{{"7.1-rc1", "PageNetpp(page)"}} {
		p.open(rootURL + fmt.Sprintf("?v=1&scenario=drop&era=%s&step=30&%s", tc.era, teachingQuery))
		p.wait(`document.querySelector('#op-count').textContent === '30'`, 20*time.Second)
		p.do(chromedp.Focus(chromedp.CSS(".pool .tile[data-pfn]")), chromedp.KeyEvent("\r"))
		p.wait(`document.querySelector('#inspected-pfn') !== null`, 10*time.Second)
		if h := p.text("#inspector"); !strings.Contains(h, tc.want) {
			t.Errorf("%s: the inspector does not name %q:\n%s", tc.era, tc.want, h)
		}
		if tc.era == "7.1-rc1" {
			p.shot("eras-7.1-rc1-inspector")
		}
	}

	// destroy: 6.15's late returns use the unbound device (the kernel's own
	// failure, named beside the violations). Every era's (6.16's scrub
	// leaves none) natively: engine/lab
	// TestDestroy_KnownFailureIsWhatEveryRunShows.
	for _, tc := range []struct {
		era        string
		violations bool
	}{{"6.15", true}} {
		p.open(rootURL + fmt.Sprintf("?v=1&scenario=destroy&era=%s&step=100000&%s", tc.era, teachingQuery))
		p.wait(`window.__pplab.done === true`, 60*time.Second)
		v := p.text("#violations")
		if has := strings.Contains(v, "dma-unmap-after-unbind"); has != tc.violations {
			t.Errorf("destroy %s: violations panel %q", tc.era, v)
		}
	}
	// The provider pools in ynl's view: page-pool-get ends with the
	// provider's attribute (6.15's empty io-uring nest here; 6.12's dmabuf
	// id too natively: app/session
	// TestYNLView_ProviderPoolsEndWithTheirAttribute).
	for _, tc := range []struct{ q, want string }{
		{"era=6.15&provider=1", "'io-uring': {}"},
	} {
		p.open(rootURL + "?v=1&scenario=devmem-rx&step=60&" + tc.q + "&" + teachingQuery)
		p.do(chromedp.Click(chromedp.CSS("#ynl > summary")))
		p.wait(`!!document.querySelector('#ynl-pool-get')`, 10*time.Second)
		if got := p.text("#ynl-pool-get"); !strings.Contains(got, tc.want) {
			t.Errorf("devmem-rx %s: page-pool-get %q lacks %q", tc.q, got, tc.want)
		}
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#ynl-panel').scrollIntoView()`))
	p.shot("eras-6.15-io-uring-ynl")
	p.noErrors()

	// On a phone.
	ph := p
	ph.do(chromedp.EmulateViewport(390, 844))
	ph.open(rootURL + "?v=1&scenario=devmem-rx&era=6.18&step=60&" + teachingQuery)
	ph.wait(`document.querySelector('#op-count').textContent === '60'`, 20*time.Second)
	ph.shot("eras-6.18-devmem-phone")
	ph.openTour(rootURL+"tour/napi-local/", "napi-local")
	if got := ph.text("main"); !strings.Contains(got, "page_pool_napi_local") || !strings.Contains(got, "redirect_to=1") {
		t.Errorf("tour chapter napi-local lacks 6.10's text: %.300q", got)
	}
	ph.do(chromedp.Evaluate[chromedp.Void](`Array.from(document.querySelectorAll('p')).find(e => e.textContent.includes('redirect_to=1')).scrollIntoView()`))
	ph.shot("eras-tour-napi-local-phone")
	ph.noErrors()
}
