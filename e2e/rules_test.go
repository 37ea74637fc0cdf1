//go:build e2e

package e2e

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pplab/app/session"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// shown is what the playground must show for a rule's "show me": the
// session's own view of the show-me query, natively.
type shown struct {
	rule, kind string
	op         uint64
	pfn        int32
	free       bool
}

func expectShown(t *testing.T, rule string) shown {
	t.Helper()
	q, _ := url.ParseQuery(session.ShowQuery(rule))
	sv := session.New(q, nil).View().Show
	d, ok := lab.DemoFor(rule)
	if !ok || !sv.Found || sv.V.Kind != d.Kind.String() {
		t.Fatalf("%s: natively the show-me finds %+v (demo %+v)", rule, sv, d)
	}
	return shown{rule: rule, kind: sv.V.Kind, op: sv.V.Op, pfn: sv.PFN, free: sv.Free}
}

// waitShown waits for the playground at the rule's first violation, its
// page marked on a tile and the panel naming the violation.
func (p *page) waitShown(w shown) {
	p.t.Helper()
	p.wait(fmt.Sprintf(`window.__pplab && window.__pplab.page === undefined && window.__pplab.op === %d && !!document.querySelector('#show-wrong[data-kind]')`, w.op), 60*time.Second)
	var got struct {
		Kind, Op, PFN, Wrong, Intact string
		Tile                         bool
		Freed                        bool
		Checked                      bool
	}
	p.eval(fmt.Sprintf(`(function(){
		const w = document.querySelector('#show-wrong');
		const tile = document.querySelector('#machine .tile.selected[data-pfn="%d"]');
		const cb = document.querySelector('#rule-%s');
		return {Kind: w.dataset.kind, Op: w.dataset.op, PFN: w.dataset.pfn, Wrong: w.textContent,
			Intact: (document.querySelector('#show-intact') || {}).textContent || '',
			Tile: !!tile, Freed: !!(tile && tile.closest('.box.freed')), Checked: !!(cb && cb.checked)};
	})()`, w.pfn, w.rule), &got)
	if got.Kind != w.kind || got.Op != strconv.FormatUint(w.op, 10) || got.PFN != strconv.Itoa(int(w.pfn)) {
		p.t.Errorf("%s: the panel shows %s at op %s on pfn %s, want %s at op %d on pfn %d", w.rule, got.Kind, got.Op, got.PFN, w.kind, w.op, w.pfn)
	}
	if !strings.Contains(got.Wrong, w.kind) {
		p.t.Errorf("%s: the narration does not name %s: %q", w.rule, w.kind, got.Wrong)
	}
	if !strings.Contains(got.Intact, w.rule+" intact") {
		p.t.Errorf("%s: what the rule would have done: %q", w.rule, got.Intact)
	}
	if !got.Tile || got.Freed != w.free {
		p.t.Errorf("%s: pfn %d: a selected tile %v (in the just-freed box %v, want %v)", w.rule, w.pfn, got.Tile, got.Freed, w.free)
	}
	if !got.Checked {
		p.t.Errorf("%s: its checkbox is not checked", w.rule)
	}
}

// openRules opens the rules view and waits for it to mount.
func (p *page) openRules(base string) {
	p.t.Helper()
	p.navigate(chromedp.Navigate(base+"rules/"), `window.__pplab !== undefined && window.__pplab.page === 'rules' && document.querySelectorAll('.rule-card').length > 0`)
}

// TestRules_TheRulesView: the rules view in one tab.
//
// ShowMe: the view lists every breakable rule (the engine's list); a
// rule's "show me" opens the playground on its demo at its first violation
// (the operation, kind and page the session finds natively), the page's
// tile selected, the panel naming the violation and what the rule would
// have done; "all the rules" leads back. In the browser two rules,
// napi-locality and the first rule whose marked page is on the other side
// (in a pool or just freed); every rule natively: app/session
// TestShow_EveryRuleReachesItsViolation (and TestRuleCards_EveryRule for
// the cards). Keyboard: rulesKeyboard. Phone: rulesPhone. (Under /pplab/:
// TestSubPath.) No console error.
func TestRules_TheRulesView(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	t.Run("ShowMe", func(t *testing.T) {
		p := p.sub(t)
		p.openRules(rootURL)
		var names []string
		p.eval(`Array.from(document.querySelectorAll('.rule-card h2 code')).map(e => e.textContent)`, &names)
		if strings.Join(names, ",") != strings.Join(sim.RuleNames(), ",") {
			t.Fatalf("the rules view lists %v, the engine %v", names, sim.RuleNames())
		}
		p.shot("rules-desktop")
		first := expectShown(t, "napi-locality")
		ws := []shown{first}
		for _, r := range sim.RuleNames() {
			if w := expectShown(t, r); w.free != first.free {
				ws = append(ws, w)
				break
			}
		}
		for _, w := range ws {
			start := time.Now()
			p.do(chromedp.Click(chromedp.CSS("#showme-" + w.rule)))
			p.waitShown(w)
			t.Logf("%s: show me → op %d (%s on pfn %#x, freed %v) in %v", w.rule, w.op, w.kind, w.pfn, w.free, time.Since(start).Round(time.Millisecond))
			if w.rule == "napi-locality" {
				p.shot("rules-showme-desktop")
			}
			p.do(chromedp.Click(chromedp.CSS("#show-rules")))
			p.wait(`window.__pplab.page === 'rules' && !!document.querySelector('#showme-`+w.rule+`')`, 30*time.Second)
		}
		p.noErrors()
	})
	t.Run("Keyboard", func(t *testing.T) { rulesKeyboard(t, p.sub(t)) })
	t.Run("Phone", func(t *testing.T) { rulesPhone(t, p.sub(t)) })
}

// subPathRules: under /pplab/ the show-me links keep the prefix, one
// opens the playground there at its violation, and the link the address
// bar keeps reopens it.
func subPathRules(t *testing.T, p *page) {
	w := expectShown(t, "refcnt-check")
	p.openRules(subURL)
	var href string
	p.eval(`document.querySelector('#showme-refcnt-check').getAttribute('href')`, &href)
	if href != "/pplab/?show=refcnt-check" {
		t.Errorf("under /pplab/ the show-me link is %q", href)
	}
	p.do(chromedp.Click(chromedp.CSS("#showme-refcnt-check")))
	p.waitShown(w)
	var loc string
	p.eval(`location.pathname`, &loc)
	if loc != "/pplab/" {
		t.Errorf("the playground opened at %s", loc)
	}
	// The link the address bar keeps reopens the same state.
	p.wait(`new URLSearchParams(location.search).get('step') === '`+strconv.FormatUint(w.op, 10)+`'`, 5*time.Second)
	var link string
	p.eval(`location.href`, &link)
	p.open(link)
	p.waitShown(w)
	p.noErrors()
}

// rulesKeyboard: the rules view by keyboard alone: the skip link comes
// first, every rule's "show me" is reached with Tab, a details element
// opens with Enter, Enter on a "show me" opens the playground at the
// violation, and there Tab reaches the panel's links and close button.
func rulesKeyboard(t *testing.T, p *page) {
	p.openRules(rootURL)
	active := `(document.activeElement && (document.activeElement.id || document.activeElement.className || document.activeElement.tagName))`
	p.do(chromedp.KeyEvent("\t"))
	var first string
	p.eval(active, &first)
	if first != "skip" {
		t.Errorf("the first Tab stop is %q, want the skip link", first)
	}
	seen := map[string]bool{}
	var summaryAt int
	for i := 0; i < 300 && len(seen) < len(sim.RuleNames()); i++ {
		p.do(chromedp.KeyEvent("\t"))
		var id, tag string
		p.eval(`document.activeElement.id`, &id)
		p.eval(`document.activeElement.tagName`, &tag)
		if after, ok := strings.CutPrefix(id, "showme-"); ok {
			seen[after] = true
		}
		if tag == "SUMMARY" && summaryAt == 0 {
			summaryAt = i
			p.do(chromedp.KeyEvent("\r"))
			var open bool
			p.eval(`document.activeElement.parentElement.open`, &open)
			if !open {
				t.Errorf("Enter on a summary did not open its details")
			}
		}
	}
	for _, r := range sim.RuleNames() {
		if !seen[r] {
			t.Errorf("Tab never reached %s's show me", r)
		}
	}
	// Enter on a show me (focused by script: the walk above went past it).
	w := expectShown(t, "last-dataref")
	p.do(chromedp.Focus(chromedp.CSS("#showme-last-dataref")), chromedp.KeyEvent("\r"))
	p.waitShown(w)
	found := map[string]bool{}
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	for i := 0; i < 400 && !(found["show-rules"] && found["btn-show-close"]); i++ {
		p.do(chromedp.KeyEvent("\t"))
		var id string
		p.eval(`document.activeElement.id`, &id)
		found[id] = true
	}
	if !found["show-rules"] || !found["btn-show-close"] {
		t.Errorf("Tab did not reach the panel's links: all the rules %v, close %v", found["show-rules"], found["btn-show-close"])
	}
	// Enter on close closes the panel (a button: the playground's keys stay off).
	p.do(chromedp.Focus(chromedp.CSS("#btn-show-close")), chromedp.KeyEvent("\r"))
	p.wait(`!document.querySelector('#show-panel') && !new URLSearchParams(window.__pplab.url.split('?')[1] || '').has('show')`, 10*time.Second)
	p.noErrors()
}

// defaultReachLinkShowsTheDemo: beside a rule the chosen scenario never
// reaches (drop: napi-locality never decides there), the playground's
// controls link the scenario where it does, and the link shows it.
func defaultReachLinkShowsTheDemo(t *testing.T, p *page) {
	p.openFold("rules")
	var href, text string
	p.eval(`document.querySelector('#reach-show-napi-locality').getAttribute('href')`, &href)
	p.eval(`document.querySelector('#reach-napi-locality').textContent`, &text)
	if href != "?show=napi-locality" || !strings.Contains(text, "never decides anything in drop") || !strings.Contains(text, "forward on mlx5 in 6.4") {
		t.Errorf("the reach note: %q, link %q", text, href)
	}
	p.do(chromedp.Click(chromedp.CSS("#reach-show-napi-locality")))
	w := expectShown(t, "napi-locality")
	p.waitShown(w)
	// A link to a fragment right after a few steps (the address bar lags
	// the state by up to 250 ms) leaves the run where it is.
	p.keys("\u0303", 3)
	p.waitOp(w.op + 3)
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('.skip').click()`))
	time.Sleep(600 * time.Millisecond)
	p.waitOp(w.op + 3)
	p.noErrors()
}

// rulesPhone: on a phone the rules view and the playground with the
// show-me panel fit the width.
func rulesPhone(t *testing.T, phone *page) {
	phone.do(chromedp.EmulateViewport(390, 844))
	t.Cleanup(func() { _ = chromedp.Do(phone.tab, chromedp.EmulateViewport(1280, 800)) })
	phone.openRules(rootURL)
	overflow := `document.documentElement.scrollWidth > window.innerWidth`
	var wide bool
	phone.eval(overflow, &wide)
	if wide {
		t.Errorf("the rules view scrolls sideways on a phone")
	}
	phone.shot("rules-phone")
	w := expectShown(t, "coalesce-pp-guard")
	phone.do(chromedp.Click(chromedp.CSS("#showme-coalesce-pp-guard")))
	phone.waitShown(w)
	phone.eval(overflow, &wide)
	if wide {
		t.Errorf("the playground with the panel scrolls sideways on a phone")
	}
	phone.do(chromedp.ScrollIntoView(chromedp.CSS("#show-panel")))
	phone.shot("rules-showme-phone")
	phone.noErrors()
}
