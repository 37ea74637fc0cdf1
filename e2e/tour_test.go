//go:build e2e

package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pplab/app/tour"
)

// openTour navigates to a tour page and waits for the wasm to mount it
// (window.__pplabTour, set by the Tour component: the page is prerendered,
// so what is visible proves nothing) at that chapter.
func (p *page) openTour(u, slug string) {
	p.t.Helper()
	p.do(chromedp.Navigate(u))
	p.waitTour(slug, -1)
}

// waitTour waits for the tour to show chapter slug with its figure at op
// (-1: any op).
func (p *page) waitTour(slug string, op int64) {
	p.t.Helper()
	cond := fmt.Sprintf(`window.__pplabTour !== undefined && window.__pplabTour.mounted === true && window.__pplabTour.chapter === %q`, slug)
	if op >= 0 {
		cond += fmt.Sprintf(` && window.__pplabTour.op === %d`, op)
	}
	if err := p.pollNavigated(cond, 60*time.Second); err != nil {
		var st any
		p.eval(`window.__pplabTour || null`, &st)
		p.t.Fatalf("waiting for chapter %q at op %d: %v (state %v; console errors: %q)", slug, op, err, st, p.errors())
	}
}

// tourState is window.__pplabTour.
func (p *page) tourState() (chapter, active string, op int64) {
	var st struct {
		Chapter, Active string
		Op              float64
	}
	p.eval(`window.__pplabTour`, &st)
	return st.Chapter, st.Active, int64(st.Op)
}

// checkPreset: the figure is at the preset's state and step: the tour says
// so, the op counter shows the step, the narration of that step says what
// the sentence is about, and "try it" opens the playground at the same
// config and step.
func (p *page) checkPreset(c tour.Chapter, pr tour.Preset, prefix string) {
	p.t.Helper()
	_, step, err := pr.Config()
	if err != nil {
		p.t.Fatal(err)
	}
	p.waitTour(c.Slug, int64(step))
	p.wait(fmt.Sprintf(`window.__pplabTour.active === %q`, pr.ID), 10*time.Second)
	if got := p.text("#tour-op"); got != fmt.Sprint(step) {
		p.t.Errorf("%s/%s: the op counter shows %s, want %d", c.Slug, pr.ID, got, step)
	}
	var narr string
	p.eval(`document.querySelector('#narration').textContent`, &narr)
	if !strings.Contains(narr, fmt.Sprintf("op %d on cpu", step)) || !strings.Contains(narr, pr.Expect) {
		p.t.Errorf("%s/%s: the narration does not show op %d saying %q:\n%s", c.Slug, pr.ID, step, pr.Expect, clipText(narr, 600))
	}
	var try string
	p.eval(`document.querySelector('#tour-try').getAttribute('href')`, &try)
	tu, err := url.Parse(try)
	want, _ := pr.Query()
	if err != nil || tu.Path != prefix+"/" || tu.Query().Encode() != want.Encode() {
		p.t.Errorf("%s/%s: try it links to %q, want %s/?%s", c.Slug, pr.ID, try, prefix, want.Encode())
	}
	var caption string
	p.eval(`document.querySelector('#tour-caption').textContent`, &caption)
	if !strings.Contains(caption, pr.Caption) {
		p.t.Errorf("%s/%s: the caption says %q, want %q", c.Slug, pr.ID, caption, pr.Caption)
	}
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestTour_AChaptersLinksLandOnTheirPresetAndStep: the first chapter
// opens at its first preset; every link in its sentences sets the figure
// to its preset's config and step (the narration of that step shows the
// function and the event the sentence names, the caption and "try it"
// follow); after stepping away, a link brings the figure back; the page
// never logs an error. Every chapter's every preset natively: app/tour
// TestPresets_EveryLinkIsAValidStateAtItsStep (its state, step and
// narration) and TestChapters_MarkupParsesAndEveryLinkResolves; every
// chapter opens at its first preset in the browser in
// TestTour_KeyboardOnlyFromStartToEnd.
func TestTour_AChaptersLinksLandOnTheirPresetAndStep(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	c := tour.Chapters()[0]
	p.openTour(rootURL+strings.TrimPrefix(c.Path(), "/"), c.Slug)
	p.checkPreset(c, c.Presets[0], "")
	p.shot("tour-desktop")
	for _, pr := range c.Presets {
		sel := fmt.Sprintf(`#tour a.preset[data-preset=%q]`, pr.ID)
		var n int
		p.eval(fmt.Sprintf(`document.querySelectorAll('%s').length`, sel), &n)
		if n == 0 {
			if pr.ID != c.Presets[0].ID {
				t.Errorf("%s: no link sets preset %s", c.Slug, pr.ID)
			}
			continue
		}
		p.do(chromedp.Click(chromedp.CSS(sel)))
		p.checkPreset(c, pr, "")
	}
	// Step away, then the same link again: back to its state.
	last := c.Presets[len(c.Presets)-1]
	_, step, _ := last.Config()
	p.do(chromedp.Click(chromedp.CSS("#tour-step")))
	p.waitTour(c.Slug, int64(step+1))
	if _, active, _ := p.tourState(); active != "" {
		t.Errorf("%s: a step past the preset still shows preset %q as active", c.Slug, active)
	}
	p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tour a.preset[data-preset=%q]`, last.ID))))
	p.checkPreset(c, last, "")
	p.noErrors()
	// A bad field in a chapter's address: the chapter's opening state,
	// and the banner names the field.
	cl, _, _ := tour.BySlug("clones")
	for _, q := range []string{"step=abc", "scenario=bogus"} {
		p.openTour(rootURL+"tour/clones/?"+q, cl.Slug)
		p.checkPreset(cl, cl.Presets[0], "")
		if b := p.text("#banner"); !strings.Contains(b, strings.Split(q, "=")[0]) || !strings.Contains(b, "opening state") {
			t.Errorf("?%s: the banner says %q", q, b)
		}
	}
}

// subPathTour: under /pplab/ the tour's pages are served, its links carry
// the prefix, and a link and "try it" work there.
func subPathTour(t *testing.T, p *page) {
	c, _, _ := tour.BySlug("clones")
	p.openTour(subURL+"tour/clones/", c.Slug)
	p.checkPreset(c, c.Presets[0], "/pplab")
	var hrefs []string
	p.eval(`[...document.querySelectorAll('#tour a.preset, #tour-prev, #tour-next, .tour-chapters a')].map(a => a.getAttribute('href'))`, &hrefs)
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "/pplab/tour/") {
			t.Errorf("a tour link under /pplab/ goes to %q", h)
		}
	}
	pr := c.Presets[1]
	p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tour a.preset[data-preset=%q]`, pr.ID))))
	p.checkPreset(c, pr, "/pplab")
	// The next chapter, then "try it": the playground at the figure's state.
	p.do(chromedp.Click(chromedp.CSS("#tour-next")))
	next, _ := tour.Next(2)
	p.waitTour(next.Slug, -1)
	var loc string
	p.eval(`location.pathname`, &loc)
	if loc != "/pplab"+next.Path() {
		t.Errorf("the next chapter's address is %q", loc)
	}
	_, step, _ := next.Presets[0].Config()
	p.do(chromedp.Click(chromedp.CSS("#tour-try")))
	p.wait(`window.__pplab !== undefined && window.__pplab.mounted === true`, 30*time.Second)
	p.wait(fmt.Sprintf(`window.__pplab.op === %d`, step), 30*time.Second)
	p.noErrors()
}

// TestTour_KeyboardOnlyFromStartToEnd: from the tour's index to the last
// chapter with Tab and Enter only; in a chapter → steps the figure.
func TestTour_KeyboardOnlyFromStartToEnd(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.openTour(rootURL+"tour/", "")
	tabTo := func(id string) {
		t.Helper()
		for i := 0; i < 250; i++ {
			p.do(chromedp.KeyEvent("\t"))
			var at string
			p.eval(`document.activeElement ? document.activeElement.id : ''`, &at)
			if at == id {
				return
			}
		}
		t.Fatalf("250 Tabs did not reach #%s", id)
	}
	tabTo("tour-start")
	p.do(chromedp.KeyEvent("\r"))
	chs := tour.Chapters()
	for i, c := range chs {
		_, step, _ := c.Presets[0].Config()
		p.waitTour(c.Slug, int64(step))
		var focus string
		p.eval(`document.activeElement ? document.activeElement.id : ''`, &focus)
		if focus != "tour-title" {
			t.Errorf("%s: after the link the focus is on %q, not the chapter's heading", c.Slug, focus)
		}
		if i == 0 {
			// → on the page (the heading has the focus) steps the figure, ← back.
			p.do(chromedp.KeyEvent("\u0303"))
			p.waitTour(c.Slug, int64(step+1))
			p.do(chromedp.KeyEvent("\u0302"))
			p.waitTour(c.Slug, int64(step))
		}
		if i == len(chs)-1 {
			tabTo("tour-end")
			break
		}
		tabTo("tour-next")
		p.do(chromedp.KeyEvent("\r"))
	}
	p.noErrors()
}

// TestTour_PhoneLayout: at 390×844 a chapter (with its table of numbers)
// has no horizontal scroll, the prose comes first and the figure sticks to
// the bottom of the screen while the prose scrolls.
func TestTour_PhoneLayout(t *testing.T) {
	t.Parallel()
	p := newPage(t, 390, 844)
	for _, slug := range []string{"drivers", "coalescing"} {
		p.openTour(rootURL+"tour/"+slug+"/", slug)
		var sw, iw int
		p.eval(`document.documentElement.scrollWidth`, &sw)
		p.eval(`window.innerWidth`, &iw)
		if sw > iw {
			t.Errorf("%s: the page scrolls sideways: scrollWidth %d > innerWidth %d", slug, sw, iw)
		}
		var lay struct {
			Position            string
			ProseTop, FigureTop float64
			FigureBottom, ViewH float64
		}
		p.eval(`(() => { const f = document.getElementById('tour-figure'), pr = document.querySelector('.tour-prose');
			const fr = f.getBoundingClientRect();
			return {Position: getComputedStyle(f).position, ProseTop: pr.getBoundingClientRect().top, FigureTop: fr.top, FigureBottom: fr.bottom, ViewH: innerHeight} })()`, &lay)
		if lay.Position != "sticky" || lay.ProseTop >= lay.FigureTop {
			t.Errorf("%s: the figure is %s at %.0f, the prose at %.0f: want the prose above a sticky figure", slug, lay.Position, lay.FigureTop, lay.ProseTop)
		}
		if lay.FigureTop >= lay.ViewH || lay.FigureBottom > lay.ViewH+1 {
			t.Errorf("%s: the figure (%.0f–%.0f) is not in view at the bottom of the %.0f px screen", slug, lay.FigureTop, lay.FigureBottom, lay.ViewH)
		}
		p.shot("tour-phone-" + slug)
		if slug == "drivers" {
			p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('.tour-numbers').scrollIntoView({block: 'start'})`))
			p.eval(`document.documentElement.scrollWidth`, &sw)
			if sw > iw {
				t.Errorf("the table of numbers scrolls the page sideways: %d > %d", sw, iw)
			}
			p.shot("tour-phone-drivers-numbers")
		}
	}
	p.noErrors()
}

// TestTour_TheActiveLinkReadsAtAA: the active preset link's text against
// its tinted background (blended over the page) is at least 4.5:1 (it was
// 4.12:1, the accent on its own tint).
func TestTour_TheActiveLinkReadsAtAA(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	c := tour.Chapters()[0]
	p.openTour(rootURL+strings.TrimPrefix(c.Path(), "/"), c.Slug)
	p.wait(`document.querySelector('#tour a.preset.active') !== null`, 10*time.Second)
	var ratio float64
	p.eval(`(function(){
		// A computed colour as [r, g, b, a] in 0..1: rgb()/rgba() or color(srgb …).
		function parse(s) {
			const n = (s.match(/[-\d.]+/g) || []).map(Number);
			if (s.startsWith('color(')) return [n[0], n[1], n[2], n.length > 3 ? n[3] : 1];
			return [n[0] / 255, n[1] / 255, n[2] / 255, n.length > 3 ? n[3] : 1];
		}
		function lum(c) {
			const f = v => v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
			return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
		}
		const a = document.querySelector('#tour a.preset.active');
		let page = parse(getComputedStyle(document.body).backgroundColor);
		if (page[3] === 0) page = [1, 1, 1, 1];
		const bg = parse(getComputedStyle(a).backgroundColor);
		const mix = [0, 1, 2].map(i => bg[i] * bg[3] + page[i] * (1 - bg[3]));
		const fg = parse(getComputedStyle(a).color);
		const l1 = lum(fg), l2 = lum(mix);
		return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
	})()`, &ratio)
	if ratio < 4.5 {
		t.Errorf("the active tour link's contrast is %.2f:1, want at least 4.5:1 (AA)", ratio)
	}
	t.Logf("the active tour link: %.2f:1", ratio)
}
