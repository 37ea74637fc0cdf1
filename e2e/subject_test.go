//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"pplab/app/session"
	"pplab/app/tour"
)

// onScreenJS defines window.__onScreen(selector): of the elements selector
// finds, the first that is wholly inside the window and not covered where
// it is (document.elementFromPoint at its centre and at its corners, inset
// by 2 px, is the element or inside it); or a string saying why none is.
const onScreenJS = `window.__onScreen = function(sel) {
  const els = [...document.querySelectorAll(sel)];
  if (els.length === 0) return 'no element ' + sel;
  const why = [];
  next: for (const el of els) {
    // An inline element (a link) is each of its line boxes.
    const rects = [...el.getClientRects()];
    if (rects.length === 0) { why.push('not drawn'); continue; }
    for (const r of rects) {
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
        why.push('at ' + Math.round(r.left) + ',' + Math.round(r.top) + '…' + Math.round(r.right) + ',' + Math.round(r.bottom) + ' in a ' + innerWidth + '×' + innerHeight + ' window');
        continue next;
      }
      const pts = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]].map(([fx, fy]) => [r.left + fx * r.width, r.top + fy * r.height]);
      const hidden = pts.map(([x, y]) => document.elementFromPoint(x, y)).find(h => !h || !(el === h || el.contains(h)));
      if (hidden !== undefined) {
        why.push('covered by ' + (hidden ? (hidden.id ? '#' + hidden.id : hidden.className || hidden.tagName) : 'nothing'));
        continue next;
      }
    }
    return '';
  }
  return sel + ': ' + why.join('; ');
};`

// subjectSelector is where the test looks for a preset's subject, found
// natively (tour.Preset.SubjectOf over the session's run): in the
// two-column layout a tile of its page (or its skb's card, or the
// structure) in the machine, marked as selected; in the one-column layout
// the same in the figure's strip.
func subjectSelector(s tour.Subject, oneColumn bool) string {
	scope := "#machine"
	if oneColumn {
		scope = "#tour-strip"
	}
	switch {
	case s.PFN >= 0 && !oneColumn:
		return fmt.Sprintf(`%s .tile.selected[data-pfn="%d"]`, scope, s.PFN)
	case s.PFN >= 0:
		return fmt.Sprintf(`%s .tile[data-pfn="%d"]`, scope, s.PFN)
	case s.SKB != 0:
		return fmt.Sprintf(`%s .skb[data-skb="%d"]`, scope, s.SKB)
	case oneColumn:
		return scope
	}
	return map[string]string{"cache": "#machine figure.cache", "ring": "#machine figure.ring", "nic-ring": "#machine .box.nic", "skb": "#machine .box.skbs", "socket": "#machine .box.skbs"}[s.Place]
}

// TestTour_EveryLinkBringsItsSubjectIntoView: at 1280×800 and at 390×844,
// every chapter (reached through the chapter list, in the page) and every
// preset link in it: the reader scrolls the link into the part of the
// window the figure leaves and taps it where it is; then the page or
// structure the sentence is about (its Claim's subject, found natively) is
// on screen and uncovered — in the machine, its tile selected, beside the
// prose; in the bottom sheet's strip on a phone — and so are the figure's
// caption and the link itself. The geometry is the browser's
// (getBoundingClientRect, elementFromPoint), not class names. An explicit
// exception to one representative per matrix (e2e_test.go): where a
// subject lands is layout, which only the browser has. With
// prefers-reduced-motion, so that nothing is in flight when it is measured.
func TestTour_EveryLinkBringsItsSubjectIntoView(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{1280, 800}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Parallel()
			oneColumn := sz[0] <= 980
			// Reduced motion: the pages land at once (their flight is
			// TestTour_AMovedPageTravelsItsPath's), so 108 links do not
			// wait out 108 flights.
			p := mediaPage(t, sz[0], sz[1], &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
			chs := tour.Chapters()
			p.openTour(rootURL+strings.TrimPrefix(chs[0].Path(), "/"), chs[0].Slug)
			p.eval(`(() => { `+onScreenJS+` return true; })()`, new(bool))
			checked := 0
			for i, c := range chs {
				var opened float64
				p.eval(`window.__pplabTour.brought`, &opened)
				if i > 0 {
					p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`.tour-chapters a[href=%q]`, c.Path()))))
					p.waitTour(c.Slug, -1)
					// The chapter's opening state is brought into view too.
					p.wait(fmt.Sprintf(`window.__pplabTour.brought > %v`, opened), 20*time.Second)
				} else {
					p.wait(`window.__pplabTour.brought > 0`, 20*time.Second)
				}
				for _, pr := range c.Presets {
					sel := fmt.Sprintf(`#tour a.preset[data-preset=%q]`, pr.ID)
					var n int
					p.eval(fmt.Sprintf(`document.querySelectorAll('%s').length`, sel), &n)
					if n == 0 {
						continue
					}
					where := c.Slug + "/" + pr.ID
					var brought float64
					p.eval(`window.__pplabTour.brought`, &brought)
					// The reader scrolls the link to the middle of what the
					// figure leaves of the window, and taps it there.
					var xy []float64
					p.eval(fmt.Sprintf(`(() => {
						const a = document.querySelector('%s');
						const fig = document.getElementById('tour-figure');
						const sheet = %t ? fig.getBoundingClientRect().top : innerHeight;
						let r = a.getBoundingClientRect();
						const room = %t ? Math.min(sheet, innerHeight) : innerHeight;
						window.scrollBy(0, (r.top + r.bottom) / 2 - room / 2);
						r = a.getClientRects()[0];
						return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
					})()`, sel, oneColumn, oneColumn), &xy)
					var hit string
					p.eval(fmt.Sprintf(`(() => { const h = document.elementFromPoint(%f, %f); return h && h.closest('a.preset') === document.querySelector('%s') ? '' : (h ? h.outerHTML.slice(0, 120) : 'nothing'); })()`, xy[0], xy[1], sel), &hit)
					if hit != "" {
						t.Errorf("%s: the link cannot be tapped where it is: %s is there", where, hit)
						continue
					}
					p.do(chromedp.MouseClickXY(xy[0], xy[1]))
					p.wait(fmt.Sprintf(`window.__pplabTour.active === %q && window.__pplabTour.brought > %v`, pr.ID, brought), 20*time.Second)
					// Where the page lands: after it has travelled there.
					p.wait(`document.getAnimations().every(a => a.id !== 'pp-move' || a.playState === 'finished')`, 10*time.Second)
					q, _ := pr.Query()
					v := session.New(q, nil).View()
					subj := pr.SubjectOf(v.Narration.Rec, &v.Machine.Snap)
					for _, s := range []struct{ what, sel string }{
						{"the subject (" + subj.Words() + ")", subjectSelector(subj, oneColumn)},
						{"the caption", "#tour-caption"},
						{"the link", sel},
					} {
						var why string
						p.eval(fmt.Sprintf(`window.__onScreen(%q)`, s.sel), &why)
						if why != "" {
							t.Errorf("%s: %s is not on screen: %s", where, s.what, why)
							p.shot(fmt.Sprintf("subject-%dx%d-%s-%s", sz[0], sz[1], c.Slug, pr.ID))
						}
					}
					var look string
					p.eval(`(document.getElementById('tour-subject') || {}).textContent || ''`, &look)
					if look != subj.Words() {
						t.Errorf("%s: the figure names %q, the subject is %q", where, look, subj.Words())
					}
					checked++
				}
			}
			t.Logf("%d preset links checked", checked)
			p.noErrors()
		})
	}
}
