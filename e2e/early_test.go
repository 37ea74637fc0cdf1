//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"pplab/engine/perf"
)

// holdWasm holds back the page's requests for app.wasm (the Fetch domain
// pauses them) until release: the prerendered page is up and usable, the
// app is not, for as long as the test needs — the window a cold load over
// a slow link gives a user.
func (p *page) holdWasm() (release func()) {
	p.t.Helper()
	ids := make(chan fetch.RequestID, 16)
	if err := chromedp.Listen(p.tab, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			select {
			case ids <- e.RequestID:
			default:
			}
		}
	}); err != nil {
		p.t.Fatal(err)
	}
	if _, err := chromedp.Call(p.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/web/app.wasm*"}}}); err != nil {
		p.t.Fatalf("Fetch.enable: %v", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			// Every request paused so far and any that comes later (the
			// preload, then app.js's fetch) goes on.
			if _, err := chromedp.Call(p.ctx, fetch.Disable, cdp.Empty{}); err != nil {
				p.t.Errorf("Fetch.disable: %v", err)
			}
			for {
				select {
				case id := <-ids:
					_, _ = chromedp.Call(p.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
				default:
					return
				}
			}
		})
	}
	p.t.Cleanup(release)
	return release
}

// openHeld navigates to u with app.wasm held back and waits for the
// prerendered page's control id; the app must not be up yet.
func (p *page) openHeld(u, id string) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, cdppage.Navigate, cdppage.NavigateParams{URL: u}); err != nil {
		p.t.Fatal(err)
	}
	if err := p.pollNavigated(fmt.Sprintf(`!!document.getElementById(%q)`, id), 60*time.Second); err != nil {
		p.t.Fatalf("the prerendered page's #%s: %v", id, err)
	}
	p.notUpYet("opened")
}

// notUpYet: the app has not mounted (else the test typed into the app, not
// into the prerendered page, and proves nothing).
func (p *page) notUpYet(when string) {
	p.t.Helper()
	var up bool
	p.eval(`window.__pplab !== undefined`, &up)
	if up {
		p.t.Fatalf("%s: the app was up with app.wasm held back: the test types nothing early", when)
	}
}

// typeInto types text into control id as a user does (the focus, then
// the text inserted at the caret, replacing a selection), with select
// replacing what the control holds.
func (p *page) typeInto(id, text string, selectAll bool) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.focus(); %s })()`, id, map[bool]string{true: "e.select();", false: ""}[selectAll])
	p.do(chromedp.Evaluate[chromedp.Void](js))
	if _, err := chromedp.Call(p.ctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		p.t.Fatal(err)
	}
}

// pick chooses value in the select id (the prerendered select works
// before the app is up).
func (p *page) pick(id, value string) {
	p.t.Helper()
	b, _ := json.Marshal(value)
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.focus(); e.value = %s; e.dispatchEvent(new Event('change', {bubbles: true})); })()`, id, b)))
}

// TestEarly_TypedBeforeTheAppIsUpIsKept: the site is prerendered, so on
// a cold load the form is there seconds before app.wasm runs; what a user
// typed into it then was lost when the app mounted (the what-if page put
// its shipped example back, the diagnosis page emptied the box). With
// app.wasm held back: the diagnosis page's text (a paste) and interval,
// the what-if page's listing, rate, unit, change and platform, each typed
// or picked before the app is up, are the form once it is, diagnosed or
// predicted, stored, and the focus is where the user left it. (The merge
// of what was typed with a link's or the storage's form natively:
// app TestKeepTyped.)
func TestEarly_TypedBeforeTheAppIsUpIsKept(t *testing.T) {
	t.Parallel()
	t.Run("Diagnose", func(t *testing.T) {
		t.Parallel()
		p := newPage(t, 1280, 800)
		release := p.holdWasm()
		p.openHeld(rootURL+"diagnose/", "diag-text")
		text := diagFixtures(t)["ethtool_mlx5"]
		p.typeInto("diag-text", text, false)
		p.typeInto("diag-interval", "10", false)
		p.notUpYet("typed")
		// Enter in the interval submits the form: before the app is up that
		// reloaded the page and lost the text; it is done once it is up.
		p.do(chromedp.Evaluate[chromedp.Void](`window.__notReloaded = 1`), chromedp.KeyEvent("\r"))
		p.notUpYet("Enter pressed")
		release()
		p.wait(`window.__pplab !== undefined && window.__pplab.page === 'diagnose' && window.__pplab.mounted === true`, 60*time.Second)
		p.wait(`window.__pplab.computing === false`, 120*time.Second)
		var got struct {
			Text, Interval, Stored, StoredIv, Focus, Format string
			Matches                                         int
		}
		p.eval(`({Format: window.__pplab.format, Text: document.getElementById('diag-text').value, Interval: document.getElementById('diag-interval').value,
			Stored: localStorage.getItem('pplab.diagnose.text'), StoredIv: localStorage.getItem('pplab.diagnose.interval'),
			Focus: document.activeElement ? document.activeElement.id : '', Matches: document.querySelectorAll('.diag-match').length})`, &got)
		if got.Text != text || got.Stored != text {
			t.Errorf("the text typed before the app was up: in the box %q, stored %q", clip(got.Text), clip(got.Stored))
		}
		if got.Interval != "10" || got.StoredIv != "10" {
			t.Errorf("the interval typed before the app was up: %q, stored %q", got.Interval, got.StoredIv)
		}
		if got.Format != "ethtool -S" || got.Matches == 0 {
			t.Errorf("the text typed before the app was up is not diagnosed: format %q, %d candidates", got.Format, got.Matches)
		}
		if got.Focus != "diag-interval" && got.Focus != "diag-answer-h" {
			t.Errorf("the focus is on %q, not on the interval the user typed in last or the answer its Enter asked for", got.Focus)
		}
		var kept int
		p.eval(`window.__notReloaded || 0`, &kept)
		if kept != 1 {
			t.Error("Enter before the app was up reloaded the page")
		}
		p.noErrors()
	})
	t.Run("WhatIf", func(t *testing.T) {
		t.Parallel()
		p := newPage(t, 1280, 800)
		release := p.holdWasm()
		p.openHeld(rootURL+"whatif/", "wi-text")
		_, listing, err := perf.ShippedProfile("mvneta-v1-before")
		if err != nil {
			t.Fatal(err)
		}
		p.typeInto("wi-text", listing, false)
		p.pick("wi-unit", "pps")
		p.pick("wi-change", "bulk")
		p.pick("wi-platform", "macchiatobin")
		p.typeInto("wi-rate", "500", true)
		p.notUpYet("typed")
		p.do(chromedp.Evaluate[chromedp.Void](`window.__notReloaded = 1`), chromedp.KeyEvent("\r"))
		p.notUpYet("Enter pressed")
		release()
		p.wait(`window.__pplab !== undefined && window.__pplab.page === 'whatif' && window.__pplab.mounted === true`, 60*time.Second)
		var got struct {
			Text, Rate, Unit, Change, Platform, Example, Box, RateBox, Focus string
		}
		p.eval(`(() => { const s = window.__pplab; return {Text: s.text, Rate: s.rate, Unit: s.unit, Change: s.change, Platform: s.platform, Example: s.example,
			Box: document.getElementById('wi-text').value, RateBox: document.getElementById('wi-rate').value,
			Focus: document.activeElement ? document.activeElement.id : ''}; })()`, &got)
		if got.Text != listing || got.Box != listing || got.Example != "mvneta-v1-before" {
			t.Errorf("the listing typed before the app was up: the form's %q (example %q), the box's %q", clip(got.Text), got.Example, clip(got.Box))
		}
		if got.Rate != "500" || got.RateBox != "500" || got.Unit != "pps" || got.Change != "bulk" || got.Platform != "macchiatobin" {
			t.Errorf("the fields set before the app was up: rate %q (box %q), unit %q, change %q, platform %q; want 500, pps, bulk, macchiatobin", got.Rate, got.RateBox, got.Unit, got.Change, got.Platform)
		}
		if got.Focus != "wi-rate" {
			t.Errorf("the focus is on %q, not on the rate the user typed in last", got.Focus)
		}
		var kept int
		p.eval(`window.__notReloaded || 0`, &kept)
		if kept != 1 {
			t.Error("Enter in the rate field before the app was up reloaded the page")
		}
		p.wait(`window.__pplab.json !== '' && window.__pplab.rate === '500'`, 20*time.Second)
		var stored string
		p.eval(`localStorage.getItem('pplab.whatif') || ''`, &stored)
		if !strings.Contains(stored, `"500"`) {
			t.Errorf("the form stored is %s", clip(stored))
		}
		p.noErrors()
	})
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
