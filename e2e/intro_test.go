//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"pplab/app/tour"
)

// TestIntro_KeptWhenTheEngineMounts: the playground's page shows what
// pplab is and the tour's chapter list while app.wasm downloads; when the
// engine mounted, the playground replaced it and the text vanished
// mid-read (issue 34). With app.wasm held back (holdWasm), a reader
// scrolls down to a chapter link (or tabs to one), then the wasm is
// released: once the playground is up the same link is in the page at the
// same place on screen (within maxMovePX, in every animation frame from
// the release to the mount and after the panels below the first screen
// are drawn), not under the phone's bottom sheet, with the focus when it
// had it, and the intro's text is all there (its fold open). A reader who
// did not move finds the playground's controls right under the header,
// the intro folded to one line above them. (The fold's markup, one #intro
// and no id twice: app TestPlayground_KeepsTheIntroWhenMounted.)
func TestIntro_KeptWhenTheEngineMounts(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct {
		name    string
		w, h    int
		chapter int // the chapter link the reader scrolls to (1-based)
	}{{"Desktop", 1280, 800, 6}, {"Phone", 390, 844, 3}} {
		t.Run(sz.name+"/Scrolled", func(t *testing.T) {
			t.Parallel()
			introKept(t, sz.name, sz.w, sz.h, sz.chapter, false)
		})
		t.Run(sz.name+"/AtTheTop", func(t *testing.T) {
			t.Parallel()
			introFolded(t, sz.name, sz.w, sz.h)
		})
	}
	t.Run("Desktop/Focused", func(t *testing.T) {
		t.Parallel()
		introKept(t, "Desktop", 1280, 800, 4, true)
	})
}

// maxMovePX is how far the reader's link may move on screen.
const maxMovePX = 3

// linkPlace is a chapter link's place on screen.
type linkPlace struct {
	Found          bool
	Top, Left      float64
	Text           string
	Uncovered      bool // the element at its middle is the link (no sheet, loader or panel over it)
	Focused        bool
	ScrollY, Inner float64
}

// placeJS measures the intro's link sel.
func placeJS(sel string) string {
	return fmt.Sprintf(`(() => { const a = document.querySelector(%q); if (!a) return {Found: false};
		const r = a.getBoundingClientRect(), at = document.elementFromPoint(r.left + Math.min(r.width / 2, 20), r.top + r.height / 2);
		return {Found: true, Top: r.top, Left: r.left, Text: a.textContent, Uncovered: !!at && a.contains(at), Focused: document.activeElement === a, ScrollY: scrollY, Inner: innerHeight}; })()`, sel)
}

// introKept: the reader scrolled to chapter n's link (or focused it, the
// window at the top) before the engine mounted.
func introKept(t *testing.T, size string, w, h, n int, focus bool) {
	p := newPage(t, w, h)
	release := p.holdWasm()
	p.openHeld(rootURL, "intro-tour")
	c := tour.Chapters()[n-1]
	sel := fmt.Sprintf(`#intro a[href=%q]`, c.Path())
	name := "intro-" + strings.ToLower(size) + "-scrolled"
	if focus {
		name = "intro-" + strings.ToLower(size) + "-focused"
		p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).focus()`, sel)))
	} else {
		// The link at 40 % of the window's height, as far as the page
		// scrolls (the loading page is barely taller than a desktop window).
		p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const a = document.querySelector(%q);
			scrollTo({top: scrollY + a.getBoundingClientRect().top - innerHeight * 0.4, behavior: "instant"}); })()`, sel)))
	}
	var before linkPlace
	p.eval(placeJS(sel), &before)
	if !before.Found || !before.Uncovered || before.Top < 0 || before.Top > before.Inner {
		t.Fatalf("the loading page's link to %s is not on screen: %+v", c.Path(), before)
	}
	if focus != (before.ScrollY == 0) || (focus && !before.Focused) {
		t.Fatalf("before the mount: scrolled %v px, focused %v: the test does not do what it says", before.ScrollY, before.Focused)
	}
	p.notUpYet("scrolled")
	p.shot(name + "-before")
	// Every frame from the release on: the link's top (it must be in the
	// page in each, at its place).
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const w = window.__introTrace = {frames: 0, missing: 0, min: 1e9, max: -1e9};
		const f = () => { const a = document.querySelector(%q);
			if (a) { const y = a.getBoundingClientRect().top; w.min = Math.min(w.min, y); w.max = Math.max(w.max, y); } else w.missing++;
			w.frames++; if (!w.stop) requestAnimationFrame(f); };
		requestAnimationFrame(f); })()`, sel)))
	release()
	p.wait(`window.__pplab !== undefined && window.__pplab.mounted === true && !!document.getElementById('intro-more')`, 90*time.Second)
	p.wait(`window.__pplab.full === true`, 60*time.Second)
	time.Sleep(300 * time.Millisecond) // the frames after the last stage
	var after linkPlace
	p.eval(placeJS(sel), &after)
	var trace struct {
		Frames, Missing int
		Min, Max        float64
	}
	p.eval(`(() => { window.__introTrace.stop = true; return window.__introTrace; })()`, &trace)
	var kept struct {
		Open     bool
		Shift    float64
		Text     string
		Chapters int
	}
	p.eval(`({Open: document.getElementById('intro-more').open, Shift: (window.__pplabIntro || {}).shift,
		Text: document.getElementById('intro').textContent, Chapters: document.querySelectorAll('#intro-tour li a').length})`, &kept)
	t.Logf("%s: chapter %d's link at top %.1f px (scrollY %.0f) before the mount, %.1f px (scrollY %.0f) after: moved %.1f px; the page scrolled %.1f px to keep it; %d frames traced, its top %.1f…%.1f px, missing in %d",
		size, n, before.Top, before.ScrollY, after.Top, after.ScrollY, after.Top-before.Top, kept.Shift, trace.Frames, trace.Min, trace.Max, trace.Missing)
	p.shot(name + "-after")
	if !after.Found {
		t.Fatalf("the link to %s is gone from the mounted page", c.Path())
	}
	if d := after.Top - before.Top; math.Abs(d) > maxMovePX || math.Abs(after.Left-before.Left) > maxMovePX {
		t.Errorf("the link to %s moved on screen by (%.1f, %.1f) px when the engine mounted", c.Path(), after.Left-before.Left, d)
	}
	if !after.Uncovered {
		t.Errorf("the link to %s is covered once the engine is up (at %.0f px of %.0f)", c.Path(), after.Top, after.Inner)
	}
	if trace.Frames == 0 || trace.Missing > 0 || trace.Min < before.Top-maxMovePX || trace.Max > before.Top+maxMovePX {
		t.Errorf("between the release and the mount: %d frames, the link missing in %d, its top %.1f…%.1f px (was %.1f)", trace.Frames, trace.Missing, trace.Min, trace.Max, before.Top)
	}
	if focus && !after.Focused {
		var active string
		p.eval(`document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : ''`, &active)
		t.Errorf("the focus was on the link to %s, now on %s", c.Path(), active)
	}
	if !kept.Open {
		t.Errorf("the intro the reader was in is folded in the mounted page")
	}
	if !strings.Contains(kept.Text, "pplab runs a Go model") || kept.Chapters != len(tour.Chapters()) || after.Text != c.Title {
		t.Errorf("the intro's text in the mounted page: %d chapter links, the link reads %q, the text %.120q", kept.Chapters, after.Text, kept.Text)
	}
	// On a phone the narration's bottom sheet shows its heading only
	// while the intro runs under it, and comes up once the reader scrolls
	// on to the playground.
	var sheet struct{ Fixed, Top, Inner float64 }
	sheetJS := `(() => { const n = document.getElementById('narration'); return {Fixed: getComputedStyle(n).position === 'fixed' ? 1 : 0, Top: n.getBoundingClientRect().top, Inner: innerHeight}; })()`
	p.eval(sheetJS, &sheet)
	if sheet.Fixed == 1 {
		t.Logf("%s: with the intro on screen the sheet's top is at %.0f px of %.0f", size, sheet.Top, sheet.Inner)
		if sheet.Top < sheet.Inner-60 {
			t.Errorf("the narration's sheet covers the intro: its top at %.0f px of %.0f", sheet.Top, sheet.Inner)
		}
		p.do(chromedp.Evaluate[chromedp.Void](`scrollTo({top: scrollY + document.getElementById('controls').getBoundingClientRect().top - 20, behavior: 'instant'})`))
		p.wait(`!document.documentElement.hasAttribute('data-intro-on-screen')`, 10*time.Second)
		time.Sleep(400 * time.Millisecond) // its transition
		p.eval(sheetJS, &sheet)
		t.Logf("%s: scrolled on to the controls, the sheet's top is at %.0f px", size, sheet.Top)
		if sheet.Top > sheet.Inner-100 {
			t.Errorf("scrolled on to the controls, the narration's sheet stays down: its top at %.0f px of %.0f", sheet.Top, sheet.Inner)
		}
		p.shot(name + "-after-scrolled-on")
	}
	noDuplicateIDs(p)
	p.noErrors()
}

// introFolded: the reader did not move before the engine mounted.
func introFolded(t *testing.T, size string, w, h int) {
	p := newPage(t, w, h)
	release := p.holdWasm()
	p.openHeld(rootURL, "intro-tour")
	p.shot("intro-" + strings.ToLower(size) + "-top-before")
	release()
	p.wait(`window.__pplab !== undefined && window.__pplab.mounted === true && !!document.getElementById('intro-more')`, 90*time.Second)
	p.wait(`window.__pplab.full === true`, 60*time.Second)
	var got struct {
		Open                        bool
		Summary                     string
		ScrollY                     float64
		HeadBottom, FoldH, Controls float64
		Inner                       float64
		Chapters                    int
		Step                        bool // the step button is on the first screen, uncovered
	}
	p.eval(`(() => { const f = document.getElementById('intro-more'), hd = document.querySelector('#playground > header').getBoundingClientRect(),
		c = document.getElementById('controls').getBoundingClientRect(), s = document.getElementById('btn-step'), sr = s.getBoundingClientRect(),
		at = document.elementFromPoint(sr.left + sr.width / 2, sr.top + sr.height / 2);
		return {Open: f.open, Summary: f.querySelector('summary').textContent, ScrollY: scrollY, HeadBottom: hd.bottom, FoldH: f.getBoundingClientRect().height,
			Controls: c.top, Inner: innerHeight, Chapters: document.querySelectorAll('#intro-tour li a').length,
			Step: sr.bottom <= innerHeight && !!at && s.contains(at)}; })()`, &got)
	t.Logf("%s: the header ends at %.0f px, the folded intro is %.0f px, the controls start at %.0f px (scrollY %.0f)", size, got.HeadBottom, got.FoldH, got.Controls, got.ScrollY)
	p.shot("intro-" + strings.ToLower(size) + "-top-after")
	if got.Open || got.ScrollY != 0 {
		t.Errorf("a reader who did not move: the intro open %v, the window scrolled %.0f px", got.Open, got.ScrollY)
	}
	if want := fmt.Sprintf("About pplab and the guided tour (%d chapters)", len(tour.Chapters())); got.Summary != want || got.Chapters != len(tour.Chapters()) {
		t.Errorf("the folded intro says %q with %d chapter links, want %q and %d", got.Summary, got.Chapters, want, len(tour.Chapters()))
	}
	// One line between the header and the controls.
	if got.FoldH > 60 || got.Controls-got.HeadBottom > got.FoldH+24 {
		t.Errorf("the controls start %.0f px below the header, the folded intro takes %.0f px: want one line", got.Controls-got.HeadBottom, got.FoldH)
	}
	if got.Controls > got.Inner/2 || (w > 560 && !got.Step) {
		t.Errorf("the controls start at %.0f px of %.0f; the step button on the first screen, uncovered: %v", got.Controls, got.Inner, got.Step)
	}
	// The reader opens it: it stays open through the playground's renders
	// (a step), which write no open attribute of their own (boolattr.go).
	p.do(chromedp.Click(chromedp.CSS(`#intro-more > summary`)))
	p.wait(`document.getElementById('intro-more').open === true`, 5*time.Second)
	p.do(chromedp.KeyEvent(kb.ArrowRight))
	p.wait(`window.__pplab.op === 1`, 10*time.Second)
	var open bool
	p.eval(`document.getElementById('intro-more').open`, &open)
	if !open {
		t.Errorf("the intro the reader opened folded again at the next step")
	}
	noDuplicateIDs(p)
	p.noErrors()
}

// noDuplicateIDs: no id twice in the document.
func noDuplicateIDs(p *page) {
	p.t.Helper()
	var dup []string
	p.eval(`(() => { const seen = {}, dup = []; for (const e of document.querySelectorAll('[id]')) { if (seen[e.id]) dup.push(e.id); seen[e.id] = 1; } return dup; })()`, &dup)
	if len(dup) > 0 {
		p.t.Errorf("ids twice in the page: %q", dup)
	}
}
