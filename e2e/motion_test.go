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

// recordAnimationsJS keeps every Web Animation the page starts
// (window.__anims), so that a test sees one that has already finished.
const recordAnimationsJS = `(() => {
  window.__anims = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function(...args) { const a = animate.apply(this, args); window.__anims.push(a); return a; };
  return true;
})()`

// moves lists the page-move animations the page started since
// recordAnimationsJS: each one's tile's pfn and its number of keyframes.
func (p *page) moves() [][2]int {
	var out [][2]int
	p.eval(`window.__anims.filter(a => a.id === 'pp-move').map(a => [Number(a.effect.target.dataset.pfn), a.effect.getKeyframes().length])`, &out)
	return out
}

// TestTour_AMovedPageTravelsItsPath: a link whose page moved through
// places in its step (pool-basics "fast": alloc cache → driver → NIC RX
// ring) makes that page's tile travel from the first place's box through
// each to where it is — one keyframe per place, on the subject's tile;
// a step (→) does the same for the page it moved; with
// prefers-reduced-motion nothing travels (the figure still lands on the
// subject).
func TestTour_AMovedPageTravelsItsPath(t *testing.T) {
	t.Parallel()
	c, _, _ := tour.BySlug("pool-basics")
	pr, _ := c.Preset("fast")
	q, _ := pr.Query()
	v := session.New(q, nil).View()
	subj := pr.SubjectOf(v.Narration.Rec, &v.Machine.Snap)
	if len(subj.Moved) < 3 {
		t.Fatalf("the preset's page moved %v: pick a preset whose page passes three places", subj.Moved)
	}
	for _, reduced := range []bool{false, true} {
		t.Run(fmt.Sprintf("reduced=%t", reduced), func(t *testing.T) {
			t.Parallel()
			var p *page
			if reduced {
				p = mediaPage(t, 1280, 800, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
			} else {
				p = newPage(t, 1280, 800)
			}
			p.openTour(rootURL+strings.TrimPrefix(c.Path(), "/"), c.Slug)
			p.wait(`window.__pplabTour.brought > 0`, 20*time.Second) // the opening state's own flight
			p.eval(recordAnimationsJS, new(bool))
			var brought float64
			p.eval(`window.__pplabTour.brought`, &brought)
			p.do(chromedp.Click(chromedp.CSS(`#tour a.preset[data-preset="fast"]`)))
			p.wait(fmt.Sprintf(`window.__pplabTour.active === "fast" && window.__pplabTour.brought > %v`, brought), 20*time.Second)
			got := p.moves()
			switch {
			case reduced && len(got) != 0:
				t.Errorf("with prefers-reduced-motion pages still travel: %v", got)
			case !reduced && (len(got) != 1 || got[0] != [2]int{int(subj.PFN), len(subj.Moved)}):
				t.Errorf("after the link: travels %v, want pfn %d over %d places (%v)", got, subj.PFN, len(subj.Moved), subj.Moved)
			}
			// A step: the page it moves travels.
			p.eval(`window.__pplabTour.brought`, &brought)
			p.do(chromedp.Click(chromedp.CSS("#tour-step")))
			p.wait(fmt.Sprintf(`window.__pplabTour.brought > %v`, brought), 20*time.Second)
			var step struct {
				Subject struct {
					PFN float64
				}
			}
			p.eval(`window.__pplabTour`, &step)
			got = p.moves()
			if reduced && len(got) != 0 || !reduced && (len(got) != 2 || got[1][0] != int(step.Subject.PFN)) {
				t.Errorf("after a step (its page pfn %v): travels %v", step.Subject.PFN, got)
			}
			p.noErrors()
		})
	}
}
