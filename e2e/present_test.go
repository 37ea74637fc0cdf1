//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"pplab/app/tour"
)

// TestTour_PresenterMode: P asks for full screen and shows one paragraph
// — the one that links the state shown — beside the figure; PageDown and
// PageUp go through the chapter's links in reading order and on into the
// next chapter; → still steps the figure (no key does two things) and
// PageDown then goes on from the stop it stepped from; Esc leaves; the
// key help names every key. Keyboard only.
func TestTour_PresenterMode(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	c, idx, _ := tour.BySlug("clones")
	p.openTour(rootURL+strings.TrimPrefix(c.Path(), "/"), c.Slug)
	p.eval(`(() => { window.__fs = 0; const r = Element.prototype.requestFullscreen; Element.prototype.requestFullscreen = function(...a) { window.__fs++; return r.apply(this, a); }; return true; })()`, new(bool))
	var keys string
	p.eval(`document.getElementById('tour-keys').textContent`, &keys)
	for _, k := range []string{"→", "←", "Shift+→", "R ", "P presenter", "PageDown", "PageUp", "Esc"} {
		if !strings.Contains(keys, k) {
			t.Errorf("the key help does not name %q: %s", k, keys)
		}
	}
	seq := c.Sequence()
	// shown: the visible paragraphs' indexes.
	shown := func() []int {
		var out []int
		p.eval(`[...document.querySelectorAll('.tour-prose > p:not(.tour-count)')].map((e, i) => e.getClientRects().length > 0 ? i : -1).filter(i => i >= 0)`, &out)
		return out
	}
	at := func(i int, ch tour.Chapter) {
		t.Helper()
		s := ch.Sequence()[i]
		pr, _ := ch.Preset(s.Preset)
		_, step, _ := pr.Config()
		p.waitTour(ch.Slug, int64(step))
		p.wait(fmt.Sprintf(`window.__pplabTour.active === %q && window.__pplabTour.presenting === true`, s.Preset), 10*time.Second)
		if got := shown(); len(got) != 1 || got[0] != s.Para {
			t.Errorf("%s at %s: paragraphs %v shown, want only %d", ch.Slug, s.Preset, got, s.Para)
		}
		if got, want := p.text("#present-at"), fmt.Sprintf("%d / %d", i+1, len(ch.Sequence())); got != want {
			t.Errorf("%s at %s: the bar says %q, want %q", ch.Slug, s.Preset, got, want)
		}
	}
	// Inside a figure of the machine the arrow keys go from tile to tile
	// and never step the figure (the key help says so).
	_, _, op0 := p.tourState()
	p.eval(`(() => { const t = document.querySelector('#machine [data-figure] button.tile'); t.focus(); return true; })()`, new(bool))
	p.do(chromedp.KeyEvent(kb.ArrowRight))
	time.Sleep(300 * time.Millisecond)
	var moved bool
	p.eval(`document.activeElement.matches('button.tile') && document.activeElement !== document.querySelector('#machine [data-figure] button.tile')`, &moved)
	if _, _, op := p.tourState(); op != op0 || !moved {
		t.Errorf("→ on a tile of the machine: op %d → %d, focus went to the next tile: %t", op0, op, moved)
	}
	// The reader clicks on the prose: the figure keys let go.
	p.do(chromedp.Click(chromedp.CSS(".tour-prose > p:nth-of-type(2)")))
	p.eval(`(() => { window.scrollTo(0, 500); return true; })()`, new(bool))
	// P from half-way down the chapter: the bar is on screen.
	p.do(chromedp.KeyEvent("p"))
	p.wait(`document.querySelector('#tour.presenting') !== null`, 10*time.Second)
	p.eval(`(() => { `+onScreenJS+` return true; })()`, new(bool))
	var why string
	p.eval(`window.__onScreen('#present-bar')`, &why)
	if why != "" {
		t.Errorf("presenter mode entered from a scrolled page: its bar is not on screen: %s", why)
	}
	var fs int
	p.eval(`window.__fs`, &fs)
	if fs != 1 {
		t.Errorf("presenter mode asked for full screen %d times", fs)
	}
	at(0, c)
	for i := 1; i < len(seq); i++ {
		p.do(chromedp.KeyEvent(kb.PageDown))
		at(i, c)
	}
	// → steps the figure and nothing else; PageDown goes on from there.
	_, _, op := p.tourState()
	p.do(chromedp.KeyEvent(kb.ArrowRight))
	p.waitTour(c.Slug, op+1)
	p.do(chromedp.KeyEvent(kb.ArrowLeft))
	p.waitTour(c.Slug, op)
	p.do(chromedp.KeyEvent(kb.ArrowRight))
	p.waitTour(c.Slug, op+1)
	p.do(chromedp.KeyEvent(kb.PageUp))
	at(len(seq)-2, c)
	p.do(chromedp.KeyEvent(kb.PageDown))
	at(len(seq)-1, c)
	// Past the chapter's last link: the next chapter's first.
	next, _ := tour.Next(idx)
	p.do(chromedp.KeyEvent(kb.PageDown))
	at(0, next)
	p.do(chromedp.KeyEvent(kb.PageUp))
	at(len(seq)-1, c)
	// The bar's buttons do what the keys do.
	p.do(chromedp.Click(chromedp.CSS("#present-prev")))
	at(len(seq)-2, c)
	p.do(chromedp.Click(chromedp.CSS("#present-next")))
	at(len(seq)-1, c)
	p.shot("tour-presenting")
	p.do(chromedp.KeyEvent(kb.Escape))
	p.wait(`document.querySelector('#tour.presenting') === null && window.__pplabTour.presenting === false`, 10*time.Second)
	if got := shown(); len(got) != len(c.Paras) {
		t.Errorf("after Esc %d of %d paragraphs shown", len(got), len(c.Paras))
	}
	// Outside presenter mode PageDown is the browser's (it scrolls).
	_, active, _ := p.tourState()
	p.do(chromedp.KeyEvent(kb.PageDown))
	time.Sleep(300 * time.Millisecond)
	if _, a, _ := p.tourState(); a != active {
		t.Errorf("PageDown outside presenter mode moved the figure from %q to %q", active, a)
	}
	p.noErrors()
}
