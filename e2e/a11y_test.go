//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tabStopsJS counts the page's tab stops: the elements sequential focus
// navigation visits (focusable, tabindex ≥ 0, rendered, not disabled or
// inert), as a whole and inside the machine drawing.
const tabStopsJS = `(function(){
	const sel = 'a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable=""], [contenteditable="true"]';
	const stops = Array.from(document.querySelectorAll(sel)).filter(e => {
		if (e.tabIndex < 0 || e.disabled || e.closest('[inert]')) return false;
		// (inside a closed <details> only the summary has boxes)
		return e.checkVisibility({visibilityProperty: true});
	});
	const machine = document.querySelector('#machine');
	return {All: stops.length, Machine: stops.filter(e => machine && machine.contains(e)).length,
		Tiles: stops.filter(e => e.matches('button.tile')).length};
})()`

type tabStops struct{ All, Machine, Tiles int }

func (p *page) tabStops() tabStops {
	p.t.Helper()
	var n tabStops
	p.eval(tabStopsJS, &n)
	return n
}

// focused describes document.activeElement: its figure (data-figure of
// the closest figure, "" outside one), whether it is a tile, its pfn, its
// position among the figure's tiles and on screen.
type focused struct {
	Figure, ID, Tag string
	Tile            bool
	PFN, Index      int
	X, Y            float64
}

const focusedJS = `(function(){
	const e = document.activeElement; if (!e) return {};
	const fig = e.closest('[data-figure]'), r = e.getBoundingClientRect();
	const tiles = fig ? Array.from(fig.querySelectorAll('button.tile')) : [];
	return {Figure: fig ? fig.dataset.figure : '', ID: e.id, Tag: e.tagName, Tile: e.matches('button.tile'),
		PFN: e.dataset.pfn ? Number(e.dataset.pfn) : -1, Index: tiles.indexOf(e), X: r.left + r.width/2, Y: r.top + r.height/2};
})()`

func (p *page) focused() focused {
	p.t.Helper()
	var f focused
	p.eval(focusedJS, &f)
	return f
}

func (p *page) press(key string, mods ...chromedp.Modifier) focused {
	p.t.Helper()
	if len(mods) > 0 {
		p.do(chromedp.KeyEvent(key, chromedp.KeyModifiers(mods...)))
	} else {
		p.do(chromedp.KeyEvent(key))
	}
	return p.focused()
}

// TestA11y_OneTabStopPerFigureArrowKeysInside: the machine's tiles are not
// tab stops, each figure is one (before this change every tile was one:
// drop at kernel sizes, op 3000, had 190 tab stops on the page, 164 in the
// machine; tcp-stream at op 20000 494 and 474); Tab lands on a figure's
// tile, the arrow keys move between its tiles without stepping the run,
// Tab and Shift+Tab go from figure to figure, Enter opens the tile's page.
// The skip link lands the focus on the machine. (tcp-stream is looked at
// op 4000: a link there opens in a fraction of op 20000's time and draws
// more tiles, 533 against 470.)
func TestA11y_OneTabStopPerFigureArrowKeysInside(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	for _, q := range []string{"scenario=drop&step=3000", "scenario=tcp-stream&step=4000"} {
		p.open(rootURL + "?v=1&" + q)
		n := p.tabStops()
		var figures, tiles, tabbableTiles int
		p.eval(`document.querySelectorAll('#machine [data-figure]').length`, &figures)
		p.eval(`document.querySelectorAll('#machine button.tile').length`, &tiles)
		p.eval(`Array.from(document.querySelectorAll('#machine button.tile')).filter(e => e.tabIndex >= 0).length`, &tabbableTiles)
		var other int // the glossary terms and the key's summary
		p.eval(`document.querySelectorAll('#machine abbr.gloss, #machine summary').length`, &other)
		t.Logf("kernel sizes, %s: %d tab stops on the page, %d in the machine (%d figures, %d glossary terms and summaries); %d tiles drawn", q, n.All, n.Machine, figures, other, tiles)
		if tabbableTiles != 0 || n.Tiles != 0 || tiles == 0 {
			t.Errorf("%s: %d of %d tiles are tab stops", q, tabbableTiles, tiles)
		}
		if n.Machine != figures+other {
			t.Errorf("%s: %d tab stops in the machine, want one per figure (%d) and the %d glossary stops", q, n.Machine, figures, other)
		}
	}

	// Keyboard only, at teaching sizes with pages everywhere.
	p.open(rootURL + "?v=1&scenario=tcp-stream&era=6.4&rx_descs=16&pool_size=32&node_pages=2048&step=300")
	op := p.state()["op"]
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)`))
	if f := p.press("\t"); !strings.Contains(p.text("a.skip"), "skip") || f.Tag != "A" {
		t.Fatalf("the first tab stop is %+v, want the skip link", f)
	}
	if f := p.press("\r"); f.ID != "machine" {
		p.wait(`document.activeElement && document.activeElement.id === 'machine'`, 5*time.Second)
	}
	// Tab until a figure's tile has the focus: the alloc cache's.
	var f focused
	for i := 0; i < 12 && !f.Tile; i++ {
		f = p.press("\t")
	}
	if !f.Tile || f.Figure != "cache-1" || f.Index != 0 {
		t.Fatalf("Tab into the machine landed on %+v, want the alloc cache's first tile", f)
	}
	first := f
	if f = p.press("\u0303"); f.Figure != "cache-1" || f.Index != 1 { // →
		t.Errorf("→ in the alloc cache: %+v, want its second tile", f)
	}
	if f = p.press("\u0302"); f.Index != 0 { // ←
		t.Errorf("← back: %+v", f)
	}
	if f = p.press("\u0301"); f.Figure != "cache-1" || f.Y <= first.Y { // ↓
		t.Errorf("↓ in the alloc cache: %+v, want a tile in a lower row than %+v", f, first)
	}
	if f = p.press("\u0304"); f.Y != first.Y { // ↑
		t.Errorf("↑ back: %+v, want the row of %+v", f, first)
	}
	end := p.press("\u0305") // End
	var n int
	p.eval(`document.querySelectorAll('[data-figure="cache-1"] button.tile').length`, &n)
	if end.Index != n-1 {
		t.Errorf("End: %+v, want tile %d", end, n-1)
	}
	if f = p.press("\u0306"); f.Index != 0 { // Home
		t.Errorf("Home: %+v", f)
	}
	if got := p.state()["op"]; got != op {
		t.Errorf("the arrow keys in a figure stepped the run: op %v -> %v", op, got)
	}
	p.press("\u0303")
	left := p.focused()
	if f = p.press("\t"); f.Figure != "ring-1" {
		t.Errorf("Tab from the alloc cache: %+v, want the ptr_ring", f)
	}
	if f = p.press("\t", chromedp.ModifierShift); f.Figure != "cache-1" || f.PFN != left.PFN {
		t.Errorf("Shift+Tab back: %+v, want the alloc cache's tile last focused %+v", f, left)
	}
	// Through the figures to the end of the machine: one stop each.
	var seen []string
	for i := 0; i < 20; i++ {
		f = p.press("\t")
		var in bool
		p.eval(`document.querySelector('#machine').contains(document.activeElement)`, &in)
		if !in {
			break
		}
		seen = append(seen, fmt.Sprintf("%s/%s%s", f.Figure, strings.ToLower(f.Tag), map[bool]string{true: " tile"}[f.Tile]))
	}
	t.Logf("Tab from the alloc cache through the machine: %q", seen)
	if len(seen) > 8 {
		t.Errorf("%d tab stops after the alloc cache in the machine: %q", len(seen), seen)
	}
	// Enter on a tile opens its page.
	p.do(chromedp.Focus(chromedp.CSS(`[data-figure="nic"] button.tile`)))
	f = p.press("\r")
	p.wait(fmt.Sprintf(`document.querySelector('#inspected-pfn') !== null && document.querySelector('#inspected-pfn').textContent === 'pfn 0x%x'`, f.PFN), 10*time.Second)
	p.noErrors()
}

// defaultTheLiveRegionIsQuietWhilePlaying: a step by hand is said once;
// while playing the live region does not change (the narration does, many
// times a second); pausing says where play stopped.
func defaultTheLiveRegionIsQuietWhilePlaying(t *testing.T, p *page) {
	var live string
	p.eval(`document.querySelector('#narration').getAttribute('aria-live') + '|' + document.querySelector('#live').getAttribute('aria-live')`, &live)
	if live != "null|polite" {
		t.Errorf("aria-live of the narration|the live region: %s, want null|polite", live)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`window.__liveLog = []; window.__narrationChanges = 0;
		new MutationObserver(() => window.__liveLog.push(document.querySelector('#live').textContent)).observe(document.querySelector('#live'), {subtree: true, childList: true, characterData: true});
		new MutationObserver(() => window.__narrationChanges++).observe(document.querySelector('#narration'), {subtree: true, childList: true, characterData: true})`))
	p.keys("\u0303", 1)
	p.waitOp(1)
	p.wait(`window.__liveLog.length >= 1`, 5*time.Second)
	var log []string
	p.eval(`window.__liveLog`, &log)
	if len(log) != 1 || !strings.HasPrefix(log[0], "op 1 on cpu0: ") {
		t.Errorf("one step: the live region said %q", log)
	}
	p.keys(" ", 1) // play at the default 60 ops/s
	p.wait(`window.__pplab.playing === true`, 5*time.Second)
	// At least 2.5 s of play, and until the narration changed 20 times
	// (on a loaded machine the page draws fewer frames a second).
	time.Sleep(2500 * time.Millisecond)
	if err := chromedp.Do(p.ctx, chromedp.Poll[chromedp.Void](`window.__narrationChanges >= 20 && window.__pplab.op >= 50`, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Logf("play: %v", err) // the check below says what it saw
	}
	var during []string
	var narr int
	p.eval(`window.__liveLog`, &during)
	p.eval(`window.__narrationChanges`, &narr)
	st := p.state()
	p.keys(" ", 1)
	p.wait(`window.__pplab.playing === false`, 5*time.Second)
	opAt := p.state()["op"].(float64)
	t.Logf("play at 60 ops/s: to op %v, %d narration mutations, the live region said %q", st["op"], narr, during[1:])
	if st["op"].(float64) < 50 || narr < 20 {
		t.Fatalf("play did not run: op %v, %d narration changes", st["op"], narr)
	}
	if len(during) != 2 || !strings.HasPrefix(during[1], "playing at ") {
		t.Errorf("while playing the live region changed %d times: %q", len(during)-1, during[1:])
	}
	p.wait(`window.__liveLog.length >= 3`, 5*time.Second)
	p.eval(`window.__liveLog`, &log)
	if len(log) != 3 || !strings.Contains(log[2], fmt.Sprintf("op %d ", int(opAt))) {
		t.Errorf("after the pause at op %v the live region said %q", opAt, log[2:])
	}
	p.noErrors()
}

// TestA11y_EveryFigureHasATextEquivalent: the machine as a table of its
// places and counts (the numbers the drawing shows), the charts' data as
// tables (a row per point the chart draws).
func TestA11y_EveryFigureHasATextEquivalent(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	// A 20 000-packet run: the comparison, which runs to its end in the
	// background, is complete before the tables are read.
	p.open(rootURL + "?v=1&scenario=drop&rx_descs=16&pool_size=32&node_pages=2048&packets=20000&step=3000&cmp=era%3A5.12")
	p.do(chromedp.Click(chromedp.CSS("#machine-table > summary")))
	p.wait(`document.querySelector('#table-structures') !== null && document.querySelector('#table-places') !== null`, 10*time.Second)
	var got struct{ Cache, Tiles, Table, Places string }
	p.eval(`(function(){
		const row = (id, what) => Array.from(document.querySelectorAll('#' + id + ' tbody tr')).find(r => r.cells[0].textContent.startsWith(what));
		return {Cache: document.querySelector('#cache-count-1').textContent, Table: row('table-structures', 'page_pool #1 alloc cache').cells[1].textContent,
			Tiles: String(document.querySelectorAll('[data-figure="cache-1"] .tile').length), Places: row('table-places', 'pool alloc cache').cells[1].textContent};
	})()`, &got)
	if got.Table != got.Cache || got.Tiles != got.Cache || got.Places != got.Cache {
		t.Errorf("alloc cache: drawn %s (%s tiles), the table says %s, pages by place %s", got.Cache, got.Tiles, got.Table, got.Places)
	}
	p.wait(`document.querySelector('#cmp-progress') !== null && document.querySelector('#cmp-progress').textContent.includes('complete')`, 60*time.Second)
	p.do(chromedp.Click(chromedp.CSS("#chart-tables > summary")))
	p.wait(`document.querySelector('#table-throughput') !== null`, 10*time.Second)
	var rows, points, cmpRows, cmpPoints, profile int
	p.waitChart("chart-throughput")
	p.eval(`document.querySelectorAll('#table-throughput tbody tr').length`, &rows)
	p.eval(`echarts.getInstanceByDom(document.getElementById('chart-throughput')).getOption().series[0].data.length`, &points)
	p.eval(`document.querySelectorAll('#table-throughput-cmp tbody tr').length`, &cmpRows)
	p.eval(`echarts.getInstanceByDom(document.getElementById('chart-throughput')).getOption().series[1].data.length`, &cmpPoints)
	p.eval(`document.querySelectorAll('#table-profile tbody tr').length`, &profile)
	if rows == 0 || rows != points || cmpRows != cmpPoints || profile == 0 {
		t.Errorf("throughput table %d rows for %d points, comparison %d for %d, profile %d rows", rows, points, cmpRows, cmpPoints, profile)
	}
	p.noErrors()
}

// mediaPage is a page emulating the given media features.
func mediaPage(t *testing.T, w, h int, features ...*emulation.MediaFeature) *page {
	p := newPage(t, w, h)
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: features}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestA11y_DarkReducedMotionAndPhone: with prefers-reduced-motion, the
// playground light at 1280×800, and the playground and the embed dark at
// 390×844: the page is dark when asked, nothing animates, nothing is wider
// than the screen, and the embed's narration line is in its flow (not the
// phone's bottom sheet). (The dark page at 1280: TestPlayground_ChartsInDarkMode;
// the light phone: TestPlayground_Phone.) PPLAB_SHOTS=DIR keeps the
// screenshots.
func TestA11y_DarkReducedMotionAndPhone(t *testing.T) {
	t.Parallel()
	const state = "v=1&scenario=tcp-stream&era=6.4&rx_descs=16&pool_size=32&node_pages=2048&step=137"
	for _, tc := range []struct {
		scheme string
		size   [2]int
		embeds []bool
	}{
		{"light", [2]int{1280, 800}, []bool{false}},
		{"dark", [2]int{390, 844}, []bool{false, true}},
	} {
		scheme, size := tc.scheme, tc.size
		name := fmt.Sprintf("%s-%d", scheme, size[0])
		t.Run(name, func(t *testing.T) {
			p := mediaPage(t, size[0], size[1], &emulation.MediaFeature{Name: "prefers-color-scheme", Value: scheme}, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
			for _, embed := range tc.embeds {
				u, what := rootURL+"?"+state, "page"
				if embed {
					u, what = u+"&embed=1", "embed"
				}
				p.open(u)
				p.keys("\u0303", 1)
				p.wait(`window.__pplab.op === 138`, 10*time.Second)
				var got struct {
					BG        string
					Wide      int
					Anims     int
					Sheet     string
					Embed     bool
					Narration bool
				}
				p.eval(`({BG: getComputedStyle(document.body).backgroundColor, Wide: document.documentElement.scrollWidth, Anims: document.getAnimations().length,
					Sheet: getComputedStyle(document.querySelector('#narration')).position, Embed: document.querySelector('main.embed') !== null,
					Narration: document.querySelector('#narration-text') !== null})`, &got)
				dark := got.BG == "rgb(18, 18, 18)"
				if dark != (scheme == "dark") || got.Embed != embed || !got.Narration {
					t.Errorf("%s %s: %+v", what, name, got)
				}
				if got.Wide > size[0] {
					t.Errorf("%s %s: %d px wide on a %d px screen", what, name, got.Wide, size[0])
				}
				if got.Anims != 0 {
					t.Errorf("%s %s: %d animations under prefers-reduced-motion", what, name, got.Anims)
				}
				if embed && got.Sheet == "fixed" {
					t.Errorf("embed %s: the narration is a fixed sheet", name)
				}
				if embed && scheme == "dark" {
					p.do(chromedp.Click(chromedp.CSS("#machine-table > summary")))
					p.wait(`document.querySelector('#table-places') !== null`, 10*time.Second)
				}
				p.shot(what + "-" + name)
			}
			p.noErrors()
		})
	}
}

// TestA11y_SpacePlaysWithoutScrolling: Space toggles play and does not
// also scroll the page (a trial: each press scrolled 700 px — Blink
// scrolls from the Space's character event, which CDP, like assistive
// tools, sends on its own).
func TestA11y_SpacePlaysWithoutScrolling(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=2&scenario=drop")
	p.wait(`window.__pplab.full === true`, 30*time.Second)
	for i, want := range []bool{true, false} {
		p.do(chromedp.KeyEvent(" "))
		p.wait(fmt.Sprintf(`window.__pplab.playing === %v`, want), 5*time.Second)
		time.Sleep(300 * time.Millisecond)
		var y float64
		p.eval(`scrollY`, &y)
		if y != 0 {
			t.Errorf("Space %d: the page scrolled to %v px", i+1, y)
		}
	}
	p.noErrors()
}

// TestA11y_KeysPressedWhileLoadingAreTaken: the playground's keys pressed
// on the prerendered page before the engine is up are done, in order, when
// it is (they were dropped: a cold load shows the controls ~2 s before the
// wasm runs), and their default (scrolling) is stopped meanwhile; the
// tour's page does not hold its keys.
func TestA11y_KeysPressedWhileLoadingAreTaken(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	const press = `document.addEventListener("DOMContentLoaded", () => {
		const k = (key, type) => document.body.dispatchEvent(new KeyboardEvent(type || "keydown", {key, bubbles: true, cancelable: true}));
		if (location.hash === "#cap") {
			// a held arrow (80 presses), then a deliberate R and one more step
			for (let i = 0; i < 80; i++) k("ArrowRight");
			k("r"); k("ArrowRight");
			const el = document.getElementById("tour-link");
			if (el) el.focus();
			window.__early = {engine: !!window.__pplab, held: [true, true, true, true, true], other: true, focus: el ? el.id : ""};
			return;
		}
		const held = [k("ArrowRight"), k("ArrowRight"), k("ArrowRight"), k("ArrowLeft"), k("ArrowRight")].map(ok => !ok);
		const space = [!k(" "), !k(" ", "keypress")]; // and a Space's character event
		k(" "); // (and Space again: play, then pause)
		window.__early = {engine: !!window.__pplab, held, other: k("x"), space};
	});`
	added, err := chromedp.Call(p.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: press})
	if err != nil {
		t.Fatal(err)
	}
	defer chromedp.Call(p.ctx, cdppage.RemoveScriptToEvaluateOnNewDocument, cdppage.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: added.Identifier})
	for _, tc := range []struct {
		url    string
		wantOp int
	}{
		{rootURL + "?v=2&scenario=drop", 3},
		{subURL + "?v=2&scenario=drop&step=40", 43}, // under a prefix, from a step
		{rootURL + "?v=2&scenario=drop#cap", 1},
	} {
		p.navigate(chromedp.Navigate(tc.url), `window.__pplab !== undefined && window.__pplab.full === true`)
		var early struct {
			Engine bool
			Held   []bool
			Other  bool
			Space  []bool
			Focus  string
		}
		p.eval(`window.__early`, &early)
		if early.Engine {
			t.Fatalf("%s: the engine was up before the document had loaded: the test presses nothing early", tc.url)
		}
		if strings.Trim(fmt.Sprint(early.Held), "[]") != "true true true true true" || !early.Other {
			t.Errorf("%s: while loading, the page's keys' default stopped %v (want all), another key's left %v (want true)", tc.url, early.Held, early.Other)
		}
		if early.Space != nil && strings.Trim(fmt.Sprint(early.Space), "[]") != "true true" {
			t.Errorf("%s: a Space while loading: keydown, character event stopped %v, want both (the character event scrolls the page)", tc.url, early.Space)
		}
		if early.Focus != "" {
			var focus string
			p.eval(`document.activeElement && document.activeElement.id`, &focus)
			if focus != early.Focus {
				t.Errorf("%s: the focus on #%s while loading is on %q once the page is up", tc.url, early.Focus, focus)
			}
		}
		var playing bool
		p.eval(`window.__pplab.playing`, &playing)
		if playing {
			t.Errorf("%s: playing after Space, Space while loading", tc.url)
		}
		var op int
		p.eval(`window.__pplab.op`, &op)
		if op != tc.wantOp {
			t.Errorf("%s: op %d after the keys pressed while loading, want %d", tc.url, op, tc.wantOp)
		}
		var left bool
		p.eval(`window.__pplabEarlyKeys === null`, &left)
		if !left {
			t.Errorf("%s: the early keys' queue is still recording after the engine took it", tc.url)
		}
	}
	// The tour's page: no queue, the keys' defaults untouched.
	p.navigate(chromedp.Navigate(rootURL+"tour/"), `window.__early !== undefined`)
	var tour struct {
		Queue bool
		Held  []bool
	}
	p.eval(`({Queue: window.__pplabEarlyKeys !== undefined, Held: window.__early.held})`, &tour)
	if tour.Queue || strings.Contains(fmt.Sprint(tour.Held), "true") {
		t.Errorf("the tour's page holds the playground's keys: queue %v, defaults stopped %v", tour.Queue, tour.Held)
	}
	p.noErrors()
}

// TestA11y_ArrowsOnASelectPassBlockedOptions: ↓ on the closed scenario
// select goes to the next scenario the driver runs, past the ones marked
// ✕ (a trial: every ↓ after forward tried xdp-redirect ✕ on cpsw, was
// refused and put back, and the scenarios after it could not be reached).
func TestA11y_ArrowsOnASelectPassBlockedOptions(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=2&scenario=tcp-stream&driver=cpsw")
	p.wait(`window.__pplab.full === true`, 30*time.Second)
	var blocked []string
	p.eval(`[...document.querySelectorAll('#f-scenario option[data-blocked]')].map(o => o.value)`, &blocked)
	if len(blocked) == 0 {
		t.Fatal("no scenario option is marked blocked for cpsw")
	}
	p.do(chromedp.Focus(chromedp.CSS("#f-scenario")))
	var seen []string
	for i := 0; i < 4; i++ {
		var before string
		p.eval(`document.querySelector('#f-scenario').value`, &before)
		p.do(chromedp.KeyEvent(kb.ArrowDown))
		p.wait(fmt.Sprintf(`document.querySelector('#f-scenario').value !== %q && new URL(window.__pplab.url).searchParams.get('scenario') === document.querySelector('#f-scenario').value`, before), 10*time.Second)
		var now string
		p.eval(`document.querySelector('#f-scenario').value`, &now)
		seen = append(seen, now)
		for _, b := range blocked {
			if now == b {
				t.Errorf("↓ landed on %s, which cpsw does not run", now)
			}
		}
	}
	if want := "forward xdp-drop xdp-tx clone-tap"; strings.Join(seen, " ") != want {
		t.Errorf("↓ ×4 from tcp-stream on cpsw: %v, want %s", seen, want)
	}
	p.noErrors()
}
