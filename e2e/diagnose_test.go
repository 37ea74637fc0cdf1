//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pplab/app/session"
	"pplab/engine/diagnose"
	"pplab/engine/lab"
)

// openDiagnose opens the diagnosis page and waits for it to mount.
func (p *page) openDiagnose(base string) {
	p.t.Helper()
	p.navigate(chromedp.Navigate(base+"diagnose/"), `window.__pplab !== undefined && window.__pplab.page === 'diagnose' && window.__pplab.mounted === true`)
}

// diagState is the page's window.__pplab.
type diagState struct {
	Computing                                bool
	Done, Total, Slices, Applied, ErrLine    int
	NearestMS, SweepMS, MaxSliceMS, SearchMS float64
	Format, Error, SlowSlices                string
	SweepFrom                                string  // "file": the site's diagnose-sweep.json; "model": the page swept
	FetchMS                                  float64 // the sweep file's fetch and decoding
}

func (p *page) diag() diagState {
	p.t.Helper()
	var s diagState
	p.eval(`(function(){ const s = window.__pplab; return {Computing: s.computing, Done: s.done, Total: s.total, Slices: s.slices, Applied: s.applied,
		ErrLine: s.errLine || 0, NearestMS: s.nearestMS, SweepMS: s.sweepMS, MaxSliceMS: s.maxSliceMS, SearchMS: s.searchMS, Format: s.format, Error: s.error, SlowSlices: s.slowSlices,
		SweepFrom: s.sweepFrom || '', FetchMS: s.fetchMS || 0}; })()`, &s)
	return s
}

// paste puts text in the text box as a paste does (one input event) and
// waits until the page diagnosed it and, with nearest, found its nearest
// runs.
func (p *page) diagPaste(text string, nearest bool) diagState {
	p.t.Helper()
	before := p.diag().Applied
	js, _ := json.Marshal(text)
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(function(){ const t = document.getElementById('diag-text'); t.focus(); t.value = %s; t.dispatchEvent(new Event('input', {bubbles: true})); })()`, js)))
	p.wait(fmt.Sprintf(`window.__pplab.applied > %d`, before), 20*time.Second)
	if nearest {
		p.wait(`window.__pplab.computing === false`, 120*time.Second)
	}
	return p.diag()
}

// diagFixtures are engine/diagnose's fixtures, by name.
func diagFixtures(t *testing.T) map[string]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	files, err := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(file)), "engine/diagnose/testdata/*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".txt")] = string(b)
	}
	return out
}

// pageDiag is what the page shows of a diagnosis.
type pageDiag struct {
	Format   string
	Lines    int
	Grey     []int
	Counters map[string][]string
	Nearest  int
	Links    []string
}

func (p *page) diagShown() pageDiag {
	p.t.Helper()
	var d pageDiag
	p.eval(`(function(){
		const f = document.querySelector('#diag-format');
		const counters = {};
		document.querySelectorAll('#diag-counters .diag-counter').forEach(c => {
			counters[c.dataset.counter] = Array.from(c.querySelectorAll('.diag-value')).map(v => v.textContent); });
		return {Format: f ? f.textContent : '', Lines: document.querySelectorAll('#diag-lines .diag-line').length,
			Grey: Array.from(document.querySelectorAll('#diag-lines .diag-line.use-grey')).map(l => Number(l.dataset.n)),
			Counters: counters, Nearest: document.querySelectorAll('.diag-match').length,
			Links: Array.from(document.querySelectorAll('a.open-playground')).map(a => a.getAttribute('href'))};
	})()`, &d)
	return d
}

// TestDiagnose_ThePage: the diagnosis page in one tab (the page makes its
// model's sweep once per load, in slices, and the nearest-run search waits
// for it): on a phone, a paste's counters and nearest runs, the example
// finding its own run, by keyboard alone to the playground, and a bad
// paste kept across a reload (last: the reload starts the sweep again).
func TestDiagnose_ThePage(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	start := time.Now()
	p.openDiagnose(rootURL)
	mounted := time.Since(start)
	p.wait(`window.__pplab.fetching === false`, 30*time.Second)
	st := p.diag()
	t.Logf("the page mounted %v after the navigation; the model's runs ready %v after it (from %s: fetched and decoded in %.0f ms)", mounted.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), st.SweepFrom, st.FetchMS)
	p.shot("diagnose-empty-desktop")
	t.Run("Phone", func(t *testing.T) { diagnosePhone(t, p.sub(t)) })
	t.Run("APasteShowsItsCountersAndItsNearestRuns", func(t *testing.T) { diagnoseAPaste(t, p.sub(t)) })
	t.Run("TheExampleFindsItsOwnRun", func(t *testing.T) { diagnoseTheExample(t, p.sub(t)) })
	t.Run("KeyboardOnly", func(t *testing.T) { diagnoseKeyboardOnly(t, p.sub(t)) })
	t.Run("BadPasteShowsTheLineAndKeepsTheText", func(t *testing.T) {
		p := p.sub(t)
		p.openDiagnose(rootURL)
		diagnoseBadPaste(t, p)
	})
}

// diagnoseAPaste: a fixture, pasted, is detected as its format; every
// line is listed with the grey ones marked by their numbers; every counter
// it gives is shown with the values the session computes natively; the
// nearest model runs are listed with their playground links. In the
// browser two fixtures (ethtool -S of mlx5, ynl's two dumps); every
// fixture natively: app/session TestDiagnosis_EveryFixtureShowsEveryCounter.
// The first search runs the model in slices in the browser: its time and
// its longest slice are logged.
func diagnoseAPaste(t *testing.T, p *page) {
	fx := diagFixtures(t)
	names := []string{"ethtool_mlx5", "ynl_both"}
	first := true
	for _, name := range names {
		text, ok := fx[name]
		if !ok {
			t.Fatalf("no fixture %s", name)
		}
		start := time.Now()
		st := p.diagPaste(text, true)
		if first {
			t.Logf("the first nearest-run search in the browser (%s): %.0f ms from the paste to the nearest runs (the model's runs from %s: fetched and decoded in %.0f ms; swept in the page %.0f ms in %d slices, the longest %.1f ms; slices over 32 ms: %s); wall %v",
				name, st.SearchMS, st.SweepFrom, st.FetchMS, st.SweepMS, st.Slices, st.MaxSliceMS, st.SlowSlices, time.Since(start).Round(time.Millisecond))
			if st.SweepFrom != "file" {
				t.Errorf("the model's runs came from %q, not the site's %s", st.SweepFrom, session.SweepURL)
			}
			first = false
		}
		// The page's candidates are the CLI's (one function: engine/diagnose's Rank).
		var shown [][]string
		p.eval(`Array.from(document.querySelectorAll('.diag-match')).map(m => Array.from(m.querySelectorAll('a.open-playground')).map(a => a.getAttribute('href')))`, &shown)
		cli, err := diagnose.Diagnose(text, diagnose.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var wantShown [][]string
		for _, m := range cli.Runs[0].Nearest {
			var hrefs []string
			for _, r := range m.Runs {
				hrefs = append(hrefs, r.URL)
			}
			wantShown = append(wantShown, hrefs)
		}
		if fmt.Sprint(shown) != fmt.Sprint(wantShown) {
			t.Errorf("%s: the page's candidates\n%v\nppsim diagnose's\n%v", name, shown, wantShown)
		}
		want := session.NewDiagnosis(text, "", nil).View()
		got := p.diagShown()
		if got.Format != want.Format {
			t.Errorf("%s: format %q, want %q", name, got.Format, want.Format)
		}
		if got.Lines != len(want.Lines) {
			t.Errorf("%s: %d lines listed, want %d", name, got.Lines, len(want.Lines))
		}
		var wantGrey []int
		for _, l := range want.Grey {
			wantGrey = append(wantGrey, l.N)
		}
		if fmt.Sprint(got.Grey) != fmt.Sprint(wantGrey) && !(len(got.Grey) == 0 && len(wantGrey) == 0) {
			t.Errorf("%s: grey lines %v, want %v", name, got.Grey, wantGrey)
		}
		if len(got.Counters) != len(want.Counters) {
			t.Errorf("%s: %d counters shown, want %d", name, len(got.Counters), len(want.Counters))
		}
		for _, c := range want.Counters {
			var vals []string
			for _, v := range c.Values {
				if v == "" {
					v = "—"
				}
				vals = append(vals, v)
			}
			if fmt.Sprint(got.Counters[c.Name]) != fmt.Sprint(vals) {
				t.Errorf("%s: %s shows %v, want %v", name, c.Name, got.Counters[c.Name], vals)
			}
		}
		shape := len(want.Counters) > 0
		if shape && (got.Nearest == 0 || len(got.Links) == 0) {
			t.Errorf("%s: %d nearest shapes, %d links", name, got.Nearest, len(got.Links))
		}
		if name == "ethtool_mlx5" {
			p.shot("diagnose-desktop")
		}
	}
	p.noErrors()
}

// diagnoseTheExample: the example (a model run's own ethtool -S) finds
// that run at distance 0; its "open in the playground" link is the
// playground's at that run's config (where it leads: diagnoseKeyboardOnly).
func diagnoseTheExample(t *testing.T, p *page) {
	before := p.diag().Applied
	p.do(chromedp.Click(chromedp.CSS("#example-ethtool")))
	p.wait(fmt.Sprintf(`window.__pplab.applied > %d && window.__pplab.computing === false`, before), 120*time.Second)
	var best struct{ Href, Scenario, Distance string }
	p.eval(`(function(){ const m = document.querySelector('.diag-match'); const a = m.querySelector('a.open-playground');
		return {Href: a.getAttribute('href'), Scenario: a.dataset.scenario, Distance: m.dataset.distance}; })()`, &best)
	if best.Scenario != "clone-tap" || best.Distance != "0.0000" {
		t.Errorf("the example's nearest run is %s at %s", best.Scenario, best.Distance)
	}
	if !strings.HasPrefix(best.Href, "/?") {
		t.Errorf("the link %q is not the playground's at /", best.Href)
	}
	if q := stateOf(t, best.Href); q.Get("scenario") != "clone-tap" {
		t.Errorf("the link %q does not open clone-tap", best.Href)
	}
	p.noErrors()
}

// openedPlayground waits for the playground at path and checks it shows
// the state want.
func (p *page) openedPlayground(want url.Values, path string) {
	t := p.t
	t.Helper()
	p.wait(`window.__pplab !== undefined && window.__pplab.page === undefined && window.__pplab.mounted === true && !!document.querySelector('#f-scenario')`, 60*time.Second)
	var loc string
	p.eval(`window.__pplab.url`, &loc)
	got := stateOf(t, loc)
	for k := range want {
		if got.Get(k) != want.Get(k) {
			t.Errorf("the playground's %s is %q, the link's %q (%s)", k, got.Get(k), want.Get(k), loc)
		}
	}
	if u, err := url.Parse(loc); err != nil || u.Path != path {
		t.Errorf("the playground opened at %s, want the path %s", loc, path)
	}
	cfg, err := lab.ParseConfig(want)
	if err != nil {
		t.Fatal(err)
	}
	var sc, banner string
	p.eval(`document.querySelector('#f-scenario').value`, &sc)
	p.eval(`(document.querySelector('.banner') || {}).textContent || ''`, &banner)
	if sc != cfg.Scenario || strings.Contains(banner, "URL:") {
		t.Errorf("the playground shows scenario %q (want %q), banner %q", sc, cfg.Scenario, banner)
	}
}

// diagnoseBadPaste: a bad paste shows the offending line's number and text
// and what was expected beside the text box; the text is kept across a
// reload and across a trip to the playground and back, and the error with
// it.
func diagnoseBadPaste(t *testing.T, p *page) {
	bad := "NIC statistics:\n     rx_pp_alloc_fast: 10\n     rx_pp_alloc_slow: -3\n"
	p.diagPaste(bad, false)
	check := func(when string) {
		t.Helper()
		p.wait(`!!document.querySelector('#diag-error-line')`, 30*time.Second)
		var got struct {
			Line, Text, Msg, Value string
			Beside                 bool
		}
		p.eval(`(function(){ const e = document.querySelector('#diag-error'); const l = document.querySelector('#diag-error-line');
			const box = document.querySelector('#diag-text');
			return {Line: l.dataset.line, Text: e.querySelector('.diag-bad-text').textContent, Msg: e.textContent, Value: box.value,
				Beside: box.closest('#diag-input') === e.closest('#diag-input')}; })()`, &got)
		if got.Line != "3" || got.Text != "     rx_pp_alloc_slow: -3" || !strings.Contains(got.Msg, "want an unsigned 64-bit integer") || !got.Beside {
			t.Errorf("%s: the error shows line %s %q: %q (beside the box %v)", when, got.Line, got.Text, got.Msg, got.Beside)
		}
		if got.Value != bad {
			t.Errorf("%s: the text box holds %q, want %q", when, got.Value, bad)
		}
	}
	check("pasted")
	p.shot("diagnose-bad-desktop")
	p.do(chromedp.Reload())
	p.wait(`window.__pplab !== undefined && window.__pplab.page === 'diagnose'`, 60*time.Second)
	check("after a reload")
	p.do(chromedp.Click(chromedp.CSS("#diag-to-playground")))
	p.wait(`window.__pplab !== undefined && window.__pplab.page === undefined && window.__pplab.mounted === true`, 60*time.Second)
	p.navigate(chromedp.NavigateBack(), `window.__pplab !== undefined && window.__pplab.page === 'diagnose'`)
	check("after the playground and back")
	p.noErrors()
}

// TestYNL_ThePlaygroundShowsThePoolsAsYnlDoes: in a driver scenario the
// pool panel's ynl view is closed at first; opened, it shows the run's pool
// as page-pool-get and page-pool-stats-get print it and ynltool's
// derivation — the session's own text at that step — and follows steps.
// "diagnose these counters" opens /diagnose with the dumps in the text
// box. On a phone the open view fits the width. (What the open view costs
// a step: make bench-ui.)
func TestYNL_ThePlaygroundShowsThePoolsAsYnlDoes(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	q := "v=1&scenario=tcp-stream&driver=bnxt&era=6.8&rx_descs=16&pool_size=32&step=40"
	p.open(rootURL + "?" + q)
	var open bool
	p.eval(`document.querySelector('#ynl').open`, &open)
	if open {
		t.Fatal("the ynl view is open at first")
	}
	p.do(chromedp.Click(chromedp.CSS("#ynl > summary")))
	p.wait(`!!document.querySelector('#ynl-stats-get')`, 10*time.Second)
	native := func(op uint64) session.YNLView {
		qq, _ := url.ParseQuery(q)
		qq.Set("step", fmt.Sprint(op))
		s := session.New(qq, nil)
		s.OpenTable(session.TableYNL, true)
		return s.View().YNL
	}
	compare := func(op uint64) {
		t.Helper()
		want := native(op)
		var got struct{ Get, Stats, Tool string }
		p.eval(`({Get: document.querySelector('#ynl-pool-get').textContent, Stats: document.querySelector('#ynl-stats-get').textContent, Tool: document.querySelector('#ynl-ynltool').textContent})`, &got)
		if got.Get != want.PoolGet || got.Stats != want.StatsGet || got.Tool != want.Ynltool {
			t.Errorf("op %d: the page shows\n%s%s%s\nthe session\n%s%s%s", op, got.Get, got.Stats, got.Tool, want.PoolGet, want.StatsGet, want.Ynltool)
		}
		if !strings.Contains(got.Stats, "'alloc-fast': ") || !strings.Contains(got.Get, "'napi-id': 8193") {
			t.Errorf("op %d: no pool in the dumps:\n%s%s", op, got.Get, got.Stats)
		}
	}
	compare(40)
	p.shot("ynl-desktop")
	p.keys("\u0303", 15)
	p.waitOp(55)
	time.Sleep(400 * time.Millisecond)
	compare(55)
	// On a phone the open view fits the width.
	p.do(chromedp.EmulateViewport(390, 844))
	p.noHScroll("the playground's ynl view on a phone", 390)
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#ynl-panel').scrollIntoView()`))
	p.shot("ynl-phone")
	p.do(chromedp.EmulateViewport(1280, 800))
	p.do(chromedp.Click(chromedp.CSS("#ynl-diagnose")))
	p.wait(`window.__pplab !== undefined && window.__pplab.page === 'diagnose' && window.__pplab.format === 'ynl'`, 60*time.Second)
	var box string
	p.eval(`document.querySelector('#diag-text').value`, &box)
	if !strings.Contains(box, "page-pool-stats-get") {
		t.Errorf("/diagnose's text box: %q", box)
	}
	p.noErrors()
}

// diagnoseKeyboardOnly: from the page's top, Tab reaches an example,
// Enter loads it; Shift+Tab reaches the text box, typing diagnoses it; Tab
// reaches a nearest run's link, Enter opens the playground on that run's
// config. (The page's links under /pplab/: TestSubPath.)
func diagnoseKeyboardOnly(t *testing.T, p *page) {
	// From the top: the skip link is the first tab stop.
	p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.querySelector('a.skip').focus()`))
	tabTo := func(match string) string {
		t.Helper()
		for i := 0; i < 120; i++ {
			p.do(chromedp.KeyEvent("\t"))
			var at string
			p.eval(`(function(){ const e = document.activeElement; return e ? (e.id || e.className) : ''; })()`, &at)
			if strings.Contains(at, match) {
				return at
			}
		}
		t.Fatalf("120 Tabs did not reach %s", match)
		return ""
	}
	tabTo("example-ynltool")
	before := p.diag().Applied
	p.do(chromedp.KeyEvent("\r"))
	p.wait(fmt.Sprintf(`window.__pplab.applied > %d && window.__pplab.format === 'ynltool page-pool stats'`, before), 30*time.Second)
	// Back to the text box (Shift+Tab), select all, type a paste.
	for i := 0; i < 40; i++ {
		var at string
		p.eval(`document.activeElement ? document.activeElement.id : ''`, &at)
		if at == "diag-text" {
			break
		}
		p.do(chromedp.KeyEvent("\t", chromedp.KeyModifiers(chromedp.ModifierShift)))
	}
	var at string
	p.eval(`document.activeElement ? document.activeElement.id : ''`, &at)
	if at != "diag-text" {
		t.Fatalf("Shift+Tab did not reach the text box (at %q)", at)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement.select()`))
	before = p.diag().Applied
	p.do(chromedp.KeyEvent("rx_pp_alloc_fast: 900\nrx_pp_alloc_refill: 14\nrx_pp_recycle_ring: 890\n"))
	// The page diagnoses as the paste is typed (debounced): under load a
	// first apply can land after two of the three lines, so the wait is
	// for the whole paste's diagnosis, not for the first apply.
	p.wait(fmt.Sprintf(`window.__pplab.applied > %d && window.__pplab.format === 'ethtool -S' && window.__pplab.computing === false && document.querySelectorAll('#diag-counters .diag-counter').length >= 3`, before), 120*time.Second)
	var n int
	p.eval(`document.querySelectorAll('#diag-counters .diag-counter').length`, &n)
	if n != 3 {
		t.Errorf("typed 3 counters, %d shown", n)
	}
	tabTo("open-playground")
	var href string
	p.eval(`document.activeElement.getAttribute('href')`, &href)
	if !strings.HasPrefix(href, "/?") {
		t.Errorf("the nearest run's link is %q", href)
	}
	p.do(chromedp.KeyEvent("\r"))
	p.openedPlayground(stateOf(t, href), "/")
	p.noErrors()
}

// diagnosePhone: at 390×844 the page (the text box, a diagnosis with its
// counters, ratios, nearest runs and advice, the bad-input error) has no
// horizontal scroll. (The playground's ynl view on a phone:
// TestYNL_ThePlaygroundShowsThePoolsAsYnlDoes.)
func diagnosePhone(t *testing.T, p *page) {
	p.do(chromedp.EmulateViewport(390, 844))
	t.Cleanup(func() { _ = chromedp.Do(p.tab, chromedp.EmulateViewport(1280, 800)) })
	p.noHScroll("empty", 390)
	p.shot("diagnose-empty-phone")
	p.diagPaste(diagFixtures(t)["ethtool_mlx5"], true)
	p.noHScroll("mlx5 diagnosed", 390)
	p.shot("diagnose-phone")
	p.diagPaste(diagFixtures(t)["ynl_both"], true)
	p.noHScroll("ynl diagnosed", 390)
	p.diagPaste("NIC statistics:\n     rx_pp_alloc_fast: 12abc\n", false)
	p.wait(`!!document.querySelector('#diag-error-line')`, 10*time.Second)
	p.noHScroll("bad input", 390)
	p.shot("diagnose-bad-phone")
	p.noErrors()
}

// noHScroll: the page is no wider than w (a w px screen).
func (p *page) noHScroll(when string, w int) {
	p.t.Helper()
	var width int
	p.eval(`document.documentElement.scrollWidth`, &width)
	if width > w {
		var wide []string
		p.eval(fmt.Sprintf(`Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > %d).slice(0, 12).map(e => e.tagName + '#' + e.id + '.' + e.className + ' right ' + Math.round(e.getBoundingClientRect().right))`, w+1), &wide)
		p.t.Errorf("%s: the page is %d px wide on a %d px screen; too wide: %q", when, width, w, wide)
	}
}

// subPathDiagnose: under /pplab/ the diagnosis page mounts, its links keep
// the prefix (every link of the page is made by one function, sitePath:
// a nearest run's "open in the playground" too), and "the playground"
// opens the playground there.
func subPathDiagnose(t *testing.T, p *page) {
	p.openDiagnose(subURL)
	// The model's runs come from the site's file under the sub-path too.
	p.wait(`window.__pplab.fetching === false`, 30*time.Second)
	if st := p.diag(); st.SweepFrom != "file" {
		t.Errorf("under /pplab/ the model's runs came from %q, not %s", st.SweepFrom, session.SweepURL)
	}
	var hrefs []string
	p.eval(`Array.from(document.querySelectorAll('a.home, #diag-to-playground, #diag-to-playground ~ a')).map(a => a.getAttribute('href'))`, &hrefs)
	if len(hrefs) < 3 {
		t.Errorf("the page's links: %q", hrefs)
	}
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "/pplab/") {
			t.Errorf("under /pplab/ a link goes to %s", h)
		}
	}
	p.do(chromedp.Click(chromedp.CSS("#diag-to-playground")))
	p.wait(`window.__pplab !== undefined && window.__pplab.page === undefined && window.__pplab.mounted === true`, 60*time.Second)
	var loc string
	p.eval(`location.pathname`, &loc)
	if loc != "/pplab/" {
		t.Errorf("the playground opened at %s", loc)
	}
	p.noErrors()
}

// TestDiagnose_TheAnswerAskedForComesIntoView: on a phone (390×844) the
// answer is below the form. When an answer asked for arrives, its heading
// comes into view: after the diagnose button (and the focus moves to the
// heading, for a keyboard or screen reader user), after Enter in the
// interval field, after an example (the same), after a paste (the focus
// stays in the text box); typing, and the page opened with its stored
// text, leave the page where it is. (The answer's content natively: app
// TestDiagnosePage_SaysWhyEachCandidate and the engine's tests.)
func TestDiagnose_TheAnswerAskedForComesIntoView(t *testing.T) {
	t.Parallel()
	p := newPage(t, 390, 844)
	p.openDiagnose(rootURL)
	p.wait(`window.__pplab.fetching === false`, 30*time.Second)
	text := diagFixtures(t)["ethtool_mlx5_rxcache_never_missed"]
	type where struct {
		ScrollY, Top float64
		Focus        string
		Answers      int
	}
	at := func() where {
		t.Helper()
		var w where
		p.eval(`({ScrollY: window.scrollY, Top: document.getElementById('diag-answer-h').getBoundingClientRect().top,
			Focus: document.activeElement ? document.activeElement.id : '', Answers: window.__pplab.answers})`, &w)
		return w
	}
	inView := func(w where) bool { return w.Top >= 0 && w.Top <= 844/2 }
	toTop := func() {
		p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()`))
	}
	// Typing: the page stays where it is.
	p.diagPaste(text, true)
	if w := at(); w.ScrollY != 0 || w.Answers != 0 {
		t.Errorf("typing moved the page: %+v", w)
	}
	askAndWait := func(what string, do func(), wantFocus string) {
		t.Helper()
		toTop()
		before := at()
		if inView(before) {
			t.Fatalf("%s: the answer's heading is in view before (%+v): the test proves nothing", what, before)
		}
		do()
		p.wait(fmt.Sprintf(`window.__pplab.answers > %d && window.__pplab.computing === false`, before.Answers), 60*time.Second)
		// (the heading comes into view after the render that follows)
		p.wait(`(() => { const r = document.getElementById('diag-answer-h').getBoundingClientRect(); return r.top >= 0 && r.top <= 422; })()`, 10*time.Second)
		if w := at(); !inView(w) || w.Focus != wantFocus {
			t.Errorf("%s: the answer's heading at %.0f px (scrolled %.0f), the focus on %q; want it in view, the focus on %q", what, w.Top, w.ScrollY, w.Focus, wantFocus)
		}
	}
	askAndWait("the diagnose button", func() { p.do(chromedp.Click(chromedp.CSS("#diag-go"))) }, "diag-answer-h")
	p.shot("diagnose-phone-answer")
	askAndWait("Enter in the interval field", func() {
		p.do(chromedp.Focus(chromedp.CSS("#diag-interval")), chromedp.KeyEvent("\r"))
	}, "diag-answer-h")
	askAndWait("an example", func() { p.do(chromedp.Click(chromedp.CSS("#example-ynltool"))) }, "diag-answer-h")
	askAndWait("a paste", func() {
		js, _ := json.Marshal(text)
		p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const t = document.getElementById('diag-text'); t.focus({preventScroll: true}); t.value = %s; t.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'})); })()`, js)))
	}, "diag-text")
	// Opened again with the text stored: no one asked, nothing moves.
	p.openDiagnose(rootURL)
	p.wait(`window.__pplab.fetching === false && window.__pplab.computing === false`, 60*time.Second)
	time.Sleep(300 * time.Millisecond)
	if w := at(); w.ScrollY != 0 || w.Focus == "diag-answer-h" {
		t.Errorf("the page opened with its stored text moved to the answer: %+v", w)
	}
	p.noErrors()
	// The answer at a desktop's size too (PPLAB_SHOTS).
	p.do(chromedp.EmulateViewport(1280, 800))
	p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	p.shot("diagnose-desktop-mlx5")
}

// TestDiagnose_APerfListingOpensTheWhatIfPageOnIt: the diagnosis page's
// link to the what-if page hands it the perf top listing pasted: a long
// listing set aside beside counters through the what-if page's stored
// form (written as the link is followed: the user's own what-if listing
// stored there is kept to restore), a short one pasted alone in the URL.
// The what-if page then opens on the listing, not on its example (the
// link was plain /whatif/).
func TestDiagnose_APerfListingOpensTheWhatIfPageOnIt(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.openDiagnose(rootURL)
	b, err := os.ReadFile(diagPaste(t, "mvneta-6.1-drop-perf-mixed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	listing := strings.Join(lines[28:40], "")
	// The user's own listing, stored by the what-if page before.
	own := `{"text":"  12.00%  [kernel]  [k] my_own_symbol\n","rate":"5","unit":"kpps","change":"bulk"}`
	ownJS, _ := json.Marshal(own)
	p.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('pplab.whatif', ` + string(ownJS) + `)`))
	p.diagPaste(string(b), false)
	p.wait(`!!document.querySelector('.diag-aside a')`, 30*time.Second)
	p.do(chromedp.Click(chromedp.CSS(".diag-aside a")))
	p.wait(`window.__pplab !== undefined && window.__pplab.page === 'whatif' && window.__pplab.mounted === true`, 60*time.Second)
	st := p.whatIf()
	var box string
	p.eval(`document.querySelector('#wi-text').value`, &box)
	if st.Text != listing || box != listing || st.Example != "" || !st.Previous {
		t.Errorf("the what-if page opened on %q (box %q, example %q, the user's own kept %v), want the listing %q", st.Text, box, st.Example, st.Previous, listing)
	}
	p.noErrors()

	// A short listing alone: refused, its link carries it in the URL.
	p.openDiagnose(rootURL)
	short := strings.Join(lines[30:33], "")
	p.diagPaste(short, false)
	p.wait(`!!document.querySelector('#diag-to-whatif')`, 30*time.Second)
	var href string
	p.eval(`document.querySelector('#diag-to-whatif').getAttribute('href')`, &href)
	if !strings.HasPrefix(href, "/whatif/?") || !strings.Contains(href, "text=") {
		t.Errorf("the link %q does not carry the listing", href)
	}
	p.do(chromedp.Click(chromedp.CSS("#diag-to-whatif")))
	p.wait(`window.__pplab !== undefined && window.__pplab.page === 'whatif' && window.__pplab.mounted === true`, 60*time.Second)
	if st := p.whatIf(); st.Text != short {
		t.Errorf("the what-if page opened on %q, want %q", st.Text, short)
	}
	p.noErrors()
}

// diagPaste is the path of engine/diagnose's testdata/pastes/name.
func diagPaste(t *testing.T, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(filepath.Dir(file)), "engine", "diagnose", "testdata", "pastes", name)
}
