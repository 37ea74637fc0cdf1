//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pplab/engine/perf"
)

// openWhatIf opens the what-if page and waits for the wasm to mount it.
func (p *page) openWhatIf(u string) {
	p.t.Helper()
	p.navigate(chromedp.Navigate(u), `window.__pplab !== undefined && window.__pplab.page === 'whatif' && window.__pplab.mounted === true`)
}

// whatIfState is window.__pplab on the what-if page.
type whatIfState struct {
	JSON, Example, Text, Rate, Unit, Change, Platform, Err, ErrField string
	ErrLine                                                          int
	Previous                                                         bool
	MS                                                               float64 // the last prediction's wall time in the page
}

func (p *page) whatIf() whatIfState {
	p.t.Helper()
	var s whatIfState
	p.eval(`window.__pplab`, &s)
	return s
}

// cliPredict is what `ppsim predict … --json` prints for a shipped profile.
func cliPredict(t *testing.T, profile, rate, unit, change, platform string) string {
	t.Helper()
	args := []string{"predict", "--profile", profile, "--rate", rate, "--unit", unit, "--change", change, "--json"}
	if platform != "" {
		args = append(args, "--platform", platform)
	}
	out, err := exec.Command(ppsim(t), args...).Output()
	if err != nil {
		t.Fatalf("ppsim %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// checkShown: the page shows the prediction the CLI printed — its JSON
// byte for byte, the rates, the inferred driver/platform/eras, one note per
// note, a table row per predicted symbol, and the drawn chart's two series.
func (p *page) checkShown(name, want string) {
	p.t.Helper()
	var got string
	p.eval(`document.querySelector('#wi-json').textContent`, &got)
	if got != want {
		p.t.Errorf("%s: the page's JSON\n%s\nppsim predict --json\n%s", name, got, want)
	}
	var pr perf.Prediction
	if err := json.Unmarshal([]byte(want), &pr); err != nil {
		p.t.Fatal(err)
	}
	if s := p.text("#wi-predicted"); s != rateText(pr.Predicted.Value)+" "+pr.Predicted.Unit {
		p.t.Errorf("%s: predicted %q, the CLI %v %s", name, s, pr.Predicted.Value, pr.Predicted.Unit)
	}
	if s := p.text("#wi-before"); s != rateText(pr.Before.Value)+" "+pr.Before.Unit {
		p.t.Errorf("%s: measured %q, the CLI %v", name, s, pr.Before.Value)
	}
	if s := p.text("#wi-speedup"); s != fmt.Sprintf("(×%.3f)", pr.Speedup) {
		p.t.Errorf("%s: speedup %q, the CLI %v", name, s, pr.Speedup)
	}
	if d, pl, e := p.text("#wi-driver"), p.text("#wi-plat"), p.text("#wi-eras"); d != pr.Driver || pl != pr.Platform || e != pr.EraBefore+" → "+pr.EraAfter {
		p.t.Errorf("%s: inferred %s %s %s, the CLI %s %s %s → %s", name, d, pl, e, pr.Driver, pr.Platform, pr.EraBefore, pr.EraAfter)
	}
	var notes []string
	p.eval(`Array.from(document.querySelectorAll('#wi-notes li')).map(e => e.textContent)`, &notes)
	if strings.Join(notes, "\n") != strings.Join(pr.Notes, "\n") {
		p.t.Errorf("%s: notes %q, the CLI %q", name, notes, pr.Notes)
	}
	var rows map[string]string
	p.eval(`Object.fromEntries(Array.from(document.querySelectorAll('#wi-table tbody tr')).map(r => [r.cells[0].textContent, r.cells[2].textContent]))`, &rows)
	for _, e := range pr.ProfileAfter {
		if rows[e.Symbol] != fmt.Sprintf("%.2f%%", e.Pct) {
			p.t.Errorf("%s: %s predicted %q in the table, the CLI %.2f%%", name, e.Symbol, rows[e.Symbol], e.Pct)
		}
	}
	p.wait(`(() => { const c = echarts.getInstanceByDom(document.getElementById('wi-chart')); return !!c && c.getOption().series.length === 2; })()`, 10*time.Second)
}

func rateText(v float64) string {
	if v >= 10 || v == 0 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// TestWhatIf_ThePage: the what-if page in one tab; each subtest opens it
// with the page's storage cleared (what a fresh profile has: the paste is
// kept in localStorage).
func TestWhatIf_ThePage(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	for _, st := range []struct {
		name string
		run  func(*testing.T, *page)
	}{
		{"AShippedProfileShowsWhatPpsimPredicts", whatIfAShippedProfile},
		{"KeyboardOnly", whatIfKeyboardOnly},
		{"Phone", whatIfPhone},
		{"BadPasteNamesTheLineAndIsNeverLost", whatIfBadPaste},
	} {
		t.Run(st.name, func(t *testing.T) { st.run(t, p.sub(t)) })
	}
}

// freshWhatIf opens u (the what-if page) with the site's storage cleared.
func (p *page) freshWhatIf(u string) {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](`try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}`))
	p.openWhatIf(u)
}

// whatIfAShippedProfile: the page offers every shipped profile as an
// example; an example's one click fills the form (text, the header's rate
// and unit, a change that applies) and the page shows exactly what `ppsim
// predict --json` prints for that form; another change and a platform
// override, picked in the selects, too; the link alone (the storage
// cleared) reopens it. No console error. In the browser two profiles
// (mvpp2-v1-before, and mvneta-v1-before under /pplab/ in TestSubPath);
// every shipped profile with every change natively: app/session
// TestWhatIf_EveryShippedProfileIsPerfPredictAndTheCLI and
// TestWhatIf_ExampleFillsTheFormWithAChangeThatApplies.
func whatIfAShippedProfile(t *testing.T, p *page) {
	p.freshWhatIf(rootURL + "whatif/")
	var examples []string
	p.eval(`Array.from(document.querySelectorAll('[id^="wi-ex-"]')).map(e => e.id.slice(6))`, &examples)
	shipped := append([]string(nil), perf.ProfileNames()...)
	sort.Strings(shipped)
	sort.Strings(examples)
	if strings.Join(examples, " ") != strings.Join(shipped, " ") {
		t.Errorf("the examples offered %v, the shipped profiles %v", examples, perf.ProfileNames())
	}
	for _, name := range []string{"mvpp2-v1-before"} {
		start := time.Now()
		p.do(chromedp.Click(chromedp.CSS("#wi-ex-" + name)))
		p.wait(`window.__pplab.example === '`+name+`' && window.__pplab.json !== ''`, 20*time.Second)
		s := p.whatIf()
		_, text, _ := perf.ShippedProfile(name)
		var box string
		p.eval(`document.querySelector('#wi-text').value`, &box)
		if box != text {
			t.Errorf("%s: the text box does not hold the profile", name)
		}
		var rate, unit, change string
		p.eval(`document.querySelector('#wi-rate').value`, &rate)
		p.eval(`document.querySelector('#wi-unit').value`, &unit)
		p.eval(`document.querySelector('#wi-change').value`, &change)
		if rate != s.Rate || unit != s.Unit || change != s.Change {
			t.Errorf("%s: the form shows %s %s %s, the state %s %s %s", name, rate, unit, change, s.Rate, s.Unit, s.Change)
		}
		p.checkShown(name, cliPredict(t, name, rate, unit, change, ""))
		var cmd string
		p.eval(`document.querySelector('#wi-cmd').textContent`, &cmd)
		if want := fmt.Sprintf("ppsim predict --profile %s --rate %s --unit %s --change %s --json", name, rate, unit, change); cmd != want {
			t.Errorf("%s: the command is %q, want %q", name, cmd, want)
		}
		t.Logf("%s: %s %s, %s: predicted in the page in %.0f ms; click to checked %s", name, rate, unit, change, s.MS, time.Since(start).Round(time.Millisecond))
		p.shot("whatif-desktop")
	}
	// Another change, then a platform override, from the selects.
	p.do(chromedp.Click(chromedp.CSS("#wi-ex-mvpp2-v1-before")))
	p.wait(`window.__pplab.example === 'mvpp2-v1-before' && window.__pplab.change === 'skb-recycle'`, 20*time.Second)
	p.choose("#wi-change", "bulk")
	p.wait(`window.__pplab.change === 'bulk' && window.__pplab.json.length > 0`, 20*time.Second)
	p.checkShown("mvpp2-v1-before bulk", cliPredict(t, "mvpp2-v1-before", "962", "kpps", "bulk", ""))
	p.choose("#wi-platform", "espressobin")
	p.wait(`window.__pplab.platform === 'espressobin'`, 20*time.Second)
	p.checkShown("mvpp2-v1-before bulk on espressobin", cliPredict(t, "mvpp2-v1-before", "962", "kpps", "bulk", "espressobin"))
	// A refusal lands on its field.
	p.choose("#wi-change", "napi-direct")
	p.wait(`window.__pplab.errField === 'change' && !!document.querySelector('#wi-err-change')`, 20*time.Second)
	// The URL holds the example by name: a link reopens the same prediction.
	p.choose("#wi-change", "bulk")
	p.wait(`window.__pplab.change === 'bulk' && window.__pplab.json.length > 0`, 20*time.Second)
	var link string
	p.eval(`location.href`, &link)
	if !strings.Contains(link, "profile=mvpp2-v1-before") || strings.Contains(link, "text=") {
		t.Errorf("the address bar holds %s", link)
	}
	p.noErrors()
	p.freshWhatIf(link)
	p.checkShown("the link", cliPredict(t, "mvpp2-v1-before", "962", "kpps", "bulk", "espressobin"))
	p.noErrors()
}

// subPathWhatIf: under /pplab/ the what-if page mounts, its links keep the
// prefix, and an example predicts as ppsim does.
func subPathWhatIf(t *testing.T, p *page) {
	p.openWhatIf(subURL + "whatif/")
	var hrefs []string
	p.eval(`Array.from(document.querySelectorAll('.wi-nav a, a.home')).map(a => a.getAttribute('href'))`, &hrefs)
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "/pplab/") {
			t.Errorf("under /pplab/ a link goes to %s", h)
		}
	}
	p.do(chromedp.Click(chromedp.CSS("#wi-ex-mvneta-v1-before")))
	p.wait(`window.__pplab.example === 'mvneta-v1-before' && window.__pplab.json !== ''`, 20*time.Second)
	s := p.whatIf()
	p.checkShown("/pplab/ mvneta-v1-before", cliPredict(t, "mvneta-v1-before", s.Rate, s.Unit, s.Change, ""))
	p.noErrors()
}

// badListing is a paste of 60 lines (too long for the URL) whose 43rd
// line is not a listing line.
func badListing() string {
	var b strings.Builder
	b.WriteString("# my board, perf top -C 2\n")
	for i := 0; i < 59; i++ {
		if i == 41 {
			b.WriteString("   see the attached file for the rest\n")
			continue
		}
		fmt.Fprintf(&b, "   0.%02d%%  [kernel]  [k] some_function_%d\n", 99-i, i)
	}
	return b.String()
}

// paste puts text in the text box as a paste does (an input event).
func (p *page) paste(text string) {
	p.t.Helper()
	b, _ := json.Marshal(text)
	p.do(chromedp.Focus(chromedp.CSS("#wi-text")),
		chromedp.Evaluate[chromedp.Void](`(() => { const t = document.querySelector('#wi-text'); t.value = `+string(b)+`; t.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'})); })()`))
}

func (p *page) boxText() string {
	p.t.Helper()
	var s string
	p.eval(`document.querySelector('#wi-text').value`, &s)
	return s
}

// whatIfBadPaste: a paste that is not a
// listing shows the line number, the line and what was expected next to
// the text box; the paste (too long for the URL) survives a reload, a
// visit to the playground and back, and an example's click (one click
// puts it back); "line N" selects the line in the box. No console error.
func whatIfBadPaste(t *testing.T, p *page) {
	p.freshWhatIf(rootURL + "whatif/")
	bad := badListing()
	p.paste(bad)
	const shown = `window.__pplab.errLine === 43 && window.__pplab.errField === 'text' && !!document.querySelector('#wi-goline')`
	p.wait(shown, 20*time.Second)
	if s := p.text("#wi-text-status"); !strings.Contains(s, "line 43") || !strings.Contains(s, `want a share like "7.36%" first`) || !strings.Contains(s, "see the attached file for the rest") {
		t.Errorf("the status beside the box says %q", s)
	}
	var invalid, result string
	p.eval(`document.querySelector('#wi-text').getAttribute('aria-invalid')`, &invalid)
	p.eval(`document.querySelector('#wi-result').textContent`, &result)
	if invalid != "true" || !strings.Contains(result, "No prediction") {
		t.Errorf("aria-invalid %q; the result panel says %q", invalid, result)
	}
	var search string
	p.eval(`location.search`, &search)
	if strings.Contains(search, "text=") || strings.Contains(search, "profile=") {
		t.Errorf("a 60-line paste went into the URL: %s", search)
	}
	p.shot("whatif-bad-desktop")
	// "line 43" selects that line.
	p.do(chromedp.Click(chromedp.CSS("#wi-goline")))
	var sel string
	p.eval(`(() => { const t = document.querySelector('#wi-text'); return document.activeElement === t ? t.value.slice(t.selectionStart, t.selectionEnd) : 'not focused'; })()`, &sel)
	if sel != "   see the attached file for the rest" {
		t.Errorf("line 43's button selected %q", sel)
	}
	// A reload.
	p.do(chromedp.Reload())
	p.wait(`window.__pplab !== undefined && window.__pplab.page === 'whatif' && window.__pplab.mounted === true`, 60*time.Second)
	p.wait(shown, 20*time.Second)
	if got := p.boxText(); got != bad {
		t.Errorf("after a reload the box holds %d bytes, not the paste", len(got))
	}
	// To the playground and back through the links.
	p.do(chromedp.Click(chromedp.CSS("a.home")))
	p.wait(`window.__pplab !== undefined && window.__pplab.mounted === true && !!document.querySelector('#playground[data-mounted]')`, 60*time.Second)
	p.do(chromedp.Click(chromedp.CSS("#link-whatif")))
	p.wait(`window.__pplab !== undefined && window.__pplab.page === 'whatif'`, 60*time.Second)
	p.wait(shown, 20*time.Second)
	if got := p.boxText(); got != bad {
		t.Errorf("after the playground the box holds %d bytes, not the paste", len(got))
	}
	// An example replaces it; one click puts it back.
	p.do(chromedp.Click(chromedp.CSS("#wi-ex-cpsw-before")))
	p.wait(`window.__pplab.example === 'cpsw-before' && window.__pplab.previous === true && !!document.querySelector('#wi-restore')`, 20*time.Second)
	p.do(chromedp.Click(chromedp.CSS("#wi-restore")))
	p.wait(shown, 20*time.Second)
	if got := p.boxText(); got != bad {
		t.Errorf("put it back: the box holds %d bytes, not the paste", len(got))
	}
	// Fixed in the box, it predicts (the paste names no driver: the platform
	// picks one).
	fixed := strings.Replace(bad, "   see the attached file for the rest\n", "  20.00%  [kernel]  [k] page_pool_release_page\n", 1)
	p.paste(fixed)
	p.choose("#wi-platform", "macchiatobin")
	p.do(chromedp.SetValue(chromedp.CSS("#wi-rate"), "500"), chromedp.Evaluate[chromedp.Void](`document.querySelector('#wi-rate').dispatchEvent(new Event('input', {bubbles: true}))`))
	p.wait(`window.__pplab.json !== '' && window.__pplab.rate === '500'`, 20*time.Second)
	if s := p.whatIf(); s.Err != "" {
		t.Errorf("the fixed paste: %s", s.Err)
	}
	p.noErrors()
}

// whatIfKeyboardOnly: the skip link first; Tab reaches every example
// and the form's fields in order; Enter on an example fills the form;
// typing a rate and Enter predicts at that rate.
func whatIfKeyboardOnly(t *testing.T, p *page) {
	p.freshWhatIf(rootURL + "whatif/")
	active := `(document.activeElement && (document.activeElement.id || document.activeElement.className || document.activeElement.tagName))`
	p.do(chromedp.KeyEvent("\t"))
	var id string
	p.eval(active, &id)
	if id != "skip" {
		t.Errorf("the first Tab stop is %q, want the skip link", id)
	}
	p.do(chromedp.KeyEvent("\r")) // the skip link: the next Tab is in the form
	var order []string
	for i := 0; i < 40; i++ {
		p.do(chromedp.KeyEvent("\t"))
		p.eval(active, &id)
		order = append(order, id)
		if id == "wi-predict" {
			break
		}
	}
	got := strings.Join(order, " ")
	for _, n := range perf.ProfileNames() {
		if !strings.Contains(got, "wi-ex-"+n) {
			t.Errorf("Tab never reached the example %s: %s", n, got)
		}
	}
	if !strings.Contains(got, "wi-text wi-rate wi-unit wi-platform wi-change wi-predict") {
		t.Errorf("the form's tab order: %s", got)
	}
	// Enter on an example.
	p.do(chromedp.Focus(chromedp.CSS("#wi-ex-mvneta-v7-before")), chromedp.KeyEvent("\r"))
	p.wait(`window.__pplab.example === 'mvneta-v7-before' && window.__pplab.json !== ''`, 20*time.Second)
	s := p.whatIf()
	// A rate typed in its field, then Enter.
	// (Tab into a text field selects its value: typing replaces it.)
	p.do(chromedp.Focus(chromedp.CSS("#wi-text")), chromedp.KeyEvent("\t"))
	p.eval(active, &id)
	if id != "wi-rate" {
		t.Fatalf("Tab from the text box went to %q", id)
	}
	p.do(chromedp.KeyEvent("250\r"))
	p.wait(`window.__pplab.rate === '250' && JSON.parse(window.__pplab.json || '{}').before?.value === 250`, 20*time.Second)
	p.checkShown("keyboard", cliPredict(t, "mvneta-v7-before", "250", s.Unit, s.Change, ""))
	p.noErrors()
}

// whatIfPhone: at 390×844 nothing scrolls sideways (the listing
// scrolls inside its box), the chart is drawn, and a bad paste's line
// shows; screenshots.
func whatIfPhone(t *testing.T, p *page) {
	p.do(chromedp.EmulateViewport(390, 844))
	t.Cleanup(func() { _ = chromedp.Do(p.tab, chromedp.EmulateViewport(1280, 800)) })
	p.freshWhatIf(rootURL + "whatif/?profile=mvpp2-v1-after&rate=2047&unit=kpps&change=bulk")
	p.wait(`window.__pplab.json !== ''`, 20*time.Second)
	p.checkShown("phone", cliPredict(t, "mvpp2-v1-after", "2047", "kpps", "bulk", ""))
	wide := func(what string) {
		var width int
		p.eval(`document.documentElement.scrollWidth`, &width)
		if width > 390 {
			var els []string
			p.eval(`Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > 391).slice(0, 12).map(e => e.tagName + '#' + e.id + '.' + e.className + ' right ' + Math.round(e.getBoundingClientRect().right))`, &els)
			t.Errorf("%s: the page is %d px wide at 390: %q", what, width, els)
		}
	}
	wide("a prediction")
	p.shot("whatif-phone")
	p.do(chromedp.ScrollIntoView(chromedp.CSS("#wi-chart")))
	p.shot("whatif-phone-chart")
	p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	p.paste(badListing())
	p.wait(`window.__pplab.errLine === 43`, 20*time.Second)
	wide("a bad paste")
	p.do(chromedp.ScrollIntoView(chromedp.CSS("#wi-text-status")))
	p.shot("whatif-bad-phone")
	p.noErrors()
}
