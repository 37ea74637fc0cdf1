package app

import (
	htmlpkg "html"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/diagnose"
)

// html_ is s as go-app writes text: HTML-escaped.
func html_(s string) string { return htmlpkg.EscapeString(s) }

// TestDiagnosePage_AnswerFirst: the page shows, beside the text box, the
// format read, what the paste says of its source, the best candidates with
// their playground links and what to look at next; the lines as read and
// the counter glossary (folded in a <details>) come below.
func TestDiagnosePage_AnswerFirst(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/ethtool_mlx5_gro.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := ga.HTMLString(p.Render())
	last := -1
	for _, w := range []string{`id="diag-text"`, `id="diag-answer"`, `id="diag-format"`, `id="diag-source"`, `class="diag-match"`, `tcp-stream on mlx5`, `class="btn open-playground"`, `What to look at next`, `id="diag-read"`, `<details id="diag-glossary"`, `class="diag-counter"`} {
		i := strings.Index(html, w)
		if i < 0 {
			t.Fatalf("no %s in the page", w)
		}
		if i < last {
			t.Errorf("%s comes before what should precede it", w)
		}
		last = i
	}
}

// TestDiagnosePage_NonePossibleIsSaid: a paste that contradicts itself (a
// ynl dump from a 6.1 kernel) says so in the answer, before any run.
func TestDiagnosePage_NonePossibleIsSaid(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/pastes/ynl-on-6.1-impossible.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := ga.HTMLString(p.Render())
	i, j := strings.Index(html, `id="diag-none-possible"`), strings.Index(html, `class="diag-match"`)
	if i < 0 || j < 0 || i > j || !strings.Contains(html, "no modelled run can have printed this paste") {
		t.Errorf("none-possible at %d, the first match at %d", i, j)
	}
}

// TestDiagnosePage_APerfListingIsSetAside: the answer says which lines
// were a perf top listing, set aside, with a link to the what-if page, and
// the listing's lines are marked so in the lines as read; a listing alone
// is refused with a link to the what-if page. No command-line flag.
func TestDiagnosePage_APerfListingIsSetAside(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/pastes/mvneta-6.1-drop-perf-mixed.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := tight(ga.HTMLString(p.Render()))
	// (go-app writes an element's attributes in any order)
	for _, w := range []string{`<p( (class="diag-aside"|data-from="29"|data-to="40")){3}>Lines 29–40 are a perf top listing, not counters: set aside \(<a href="/whatif/">the what-if page</a>reads listings\)</p>`,
		`<li( (class="diag-line use-aside"|data-use="aside"|data-n="31"|title="[^"]*")){4}>`, `class="key use-aside"`} {
		if !regexp.MustCompile(w).MatchString(html) {
			t.Errorf("no %s in the page", w)
		}
	}
	if strings.Contains(html, `id="diag-none-possible"`) || strings.Contains(html, "--profile") {
		t.Error("the page says none is possible, or names a flag")
	}
	d.SetText(strings.Join(strings.SplitAfter(string(b), "\n")[28:], ""))
	p.view = d.View()
	html = tight(ga.HTMLString(p.Render()))
	if !regexp.MustCompile(`<a( (id="diag-to-whatif"|href="/whatif/")){2}>open the what-if page</a>`).MatchString(html) || strings.Contains(html, "--profile") {
		t.Errorf("a listing alone: no link to the what-if page, or a flag named:\n%s", html)
	}
}

// tight is HTMLString's output without its indentation: no white space
// after a tag or before one.
func tight(html string) string {
	return tightRe.ReplaceAllString(html, "$1")
}

var tightRe = regexp.MustCompile(`\s*(<|>)\s*`)

// TestDiagnosePage_SaysWhyEachCandidate: each candidate shape on the page
// says which of the paste's ratios it matches and the one it differs on
// most, as the text report does (diagnose.Why); the RX cache's ratios
// are among the paste's when it shows mlx5's rx_cache_*.
func TestDiagnosePage_SaysWhyEachCandidate(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/ethtool_mlx5_rxcache_never_missed.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	v := d.View()
	p := &DiagnosePage{d: d, view: v}
	html := tight(ga.HTMLString(p.Render()))
	if n, want := strings.Count(html, `<p class="meta diag-why"><strong>why:</strong>matches`), len(v.Runs[0].Nearest); n != want || want == 0 {
		t.Errorf("%d why lines for %d candidate shapes", n, want)
	}
	for _, w := range []string{"differs most: RX cache misses per alloc 0.0000 vs 1.0000", `data-ratio="RX cache misses per alloc"`,
		// the tolerance of a match, stated once above the candidates
		`id="diag-why-tolerance-0"`, `>In each “why”, ` + html_(diagnose.WhyTolerance) + `.</p>`} {
		if !strings.Contains(html, w) {
			t.Errorf("no %s in the page", w)
		}
	}
}

// TestDiagnosePage_TheDiagnoseButton: the text box and the interval are a
// form with a diagnose button (Enter in the interval field submits it),
// and the answer's heading can take the focus from a script (not from
// Tab: tabindex -1) when an answer asked for arrives.
func TestDiagnosePage_TheDiagnoseButton(t *testing.T) {
	d := session.NewDiagnosis("", "", nil)
	p := &DiagnosePage{d: d, view: d.View()}
	html := tight(ga.HTMLString(p.Render()))
	for _, w := range []string{`<form( (id="diag-form")){1}>`, `<button( (id="diag-go"|type="submit"|class="primary")){3}>diagnose</button>`, `<h2( (id="diag-answer-h"|tabindex="-1")){2}>The answer</h2>`} {
		if !regexp.MustCompile(w).MatchString(html) {
			t.Errorf("no %s in the page", w)
		}
	}
	i, j, k := strings.Index(html, `id="diag-text"`), strings.Index(html, `id="diag-go"`), strings.Index(html, `</form>`)
	if !(i >= 0 && i < j && j < k) || strings.Index(html, `id="diag-interval"`) > k {
		t.Errorf("the text box, the interval and the button are not one form")
	}
}

// TestDiagnosePage_AnUnderflowIsSaidInTheAnswer: a counter at 2^64 − 1 is
// named in the answer, in one line, before the candidates.
func TestDiagnosePage_AnUnderflowIsSaidInTheAnswer(t *testing.T) {
	d := session.NewDiagnosis("NIC statistics:\n     rx_pp_alloc_fast: 1000\n     rx_pp_alloc_slow: 1\n     rx_pp_recycle_ring: 18446744073709551615\n     rx_pp_recycle_cached: 5\n", "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := ga.HTMLString(p.Render())
	i, j := strings.Index(html, `id="diag-underflow"`), strings.Index(html, `class="diag-match"`)
	if i < 0 || j < 0 || i > j || strings.Count(html, "2^64 − 1") != 1 {
		t.Errorf("the underflow line at %d, the first candidate at %d, 2^64 − 1 said %d times", i, j, strings.Count(html, "2^64 − 1"))
	}
}

// TestDiagnosePage_LostFramesAreWhatToLookAtNext: the frames the driver's
// counters say were lost (mvneta's rx_discard and rx_overrun) are in the
// answer's "what to look at next", first.
func TestDiagnosePage_LostFramesAreWhatToLookAtNext(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/pastes/mvneta-forward-no-xdp-ethtool.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := tight(ga.HTMLString(p.Render()))
	a, i, j := strings.Index(html, `id="diag-answer"`), strings.Index(html, `id="diag-next-0"`), strings.Index(html, "rx_discard 2.11 M (line 30), rx_overrun 1.2 M (line 31): 3.32 M frames lost: 7.3 %")
	if a < 0 || i < a || j < i {
		t.Errorf("the loss in what to look at next: at %d, the section at %d, the answer at %d", j, i, a)
	}
}

// TestDiagnosePage_BeforeTheAppIsUp: the page as prerendered into the
// site's HTML (not mounted: no diagnosis yet) shows the empty answer, not
// the answer of an empty diagnosis ("() — 0 lines, 0 read as page_pool
// counters … 0 snapshot(s)"), and no attribute with a newline in it
// (go-app writes attributes with strconv.Quote: the placeholder read a
// literal "\n"). An error's answer names no direction (on a phone the
// message is above the answer, on a wide screen beside it).
func TestDiagnosePage_BeforeTheAppIsUp(t *testing.T) {
	html := ga.HTMLString((&DiagnosePage{}).Render())
	if !strings.Contains(html, `id="diag-empty"`) || strings.Contains(html, "snapshot(s)") || strings.Contains(html, `id="diag-format"`) {
		t.Errorf("the prerendered answer is not the empty one:\n%s", html)
	}
	if m := regexp.MustCompile(`="[^"]*\\n[^"]*"`).FindString(html); m != "" {
		t.Errorf("an attribute with a literal \\n: %s", m)
	}
	d := session.NewDiagnosis("NIC statistics:\n     rx_pp_alloc_fast: -3\n", "", nil)
	html = ga.HTMLString((&DiagnosePage{d: d, view: d.View()}).Render())
	i := strings.Index(html, "Nothing: the input has an error")
	if i < 0 {
		t.Fatal("no answer for an input with an error")
	}
	if p := html[i : i+strings.Index(html[i:], "</p>")]; regexp.MustCompile(`(?i)\b(beside|above|below|left|right|under)\b`).MatchString(p) {
		t.Errorf("the error's answer names a direction: %q", p)
	}
}

// TestDiagnosePage_TheWhatIfLinkCarriesTheListing: a short listing pasted
// alone links the what-if page with the listing in its URL (the what-if
// page's ?text=); a long one links it plain, and the link's click stores
// the listing as the what-if page's form (e2e: TestDiagnose_APerfListing…).
func TestDiagnosePage_TheWhatIfLinkCarriesTheListing(t *testing.T) {
	short := "  16.20%  [kernel]          [k] mvpp2_rx\n  10.40%  [kernel]          [k] mvpp2_poll\n"
	d := session.NewDiagnosis(short, "", nil)
	p := &DiagnosePage{d: d, view: d.View()}
	html := tight(ga.HTMLString(p.Render()))
	m := regexp.MustCompile(`<a( (id="diag-to-whatif"|href="([^"]*)")){2}>open the what-if page</a>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no link to the what-if page:\n%s", html)
	}
	href := htmlpkg.UnescapeString(m[3])
	u, err := url.Parse(href)
	if err != nil || u.Path != "/whatif/" {
		t.Fatalf("the link %q", href)
	}
	if in, ok := session.WhatIfFromQuery(u.Query()); !ok || in.Text != short {
		t.Errorf("the what-if page reads %+v from the link %q", in, href)
	}
}

// TestDiagnosePage_EachDeviceHasItsRun: a paste of two devices shows each
// device's candidates under its name as the paste writes it (eth0, not
// "Eth0"), and the zombie's evidence says which device's run it ranks.
func TestDiagnosePage_EachDeviceHasItsRun(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/pastes/ynltool-two-devices-zombie.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := tight(ga.HTMLString(p.Render()))
	i, j := strings.Index(html, `<h3 class="diag-run-label">eth0[2] (line 1)</h3>`), strings.Index(html, `<h3 class="diag-run-label">eth1[3] (line 4)</h3>`)
	if i < 0 || j < i || !strings.Contains(html, "for eth1[3]&#39;s run only") {
		t.Errorf("the devices' runs at %d and %d:\n%s", i, j, html)
	}
}
