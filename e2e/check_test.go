//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestCheckOnYourKernel: the show-me panel's "check it on your kernel"
// and the statistics panel's open, show the commands of the run's era
// with a copy button, and follow an era change (the plans of every rule,
// counter and era are checked natively: engine/observe's tests and
// app/session's TestCheck_FollowsTheEra).
func TestCheckOnYourKernel(t *testing.T) {
	t.Parallel()
	for _, size := range []struct {
		name string
		w, h int
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			p := newPage(t, size.w, size.h)
			p.open(rootURL + "?show=refcnt-check")
			p.wait(`!!document.querySelector('#check-rule') && !!document.querySelector('#check-counters')`, time.Minute)
			p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#check-rule').open = true; document.querySelector('#check-counters').open = true`))
			tc := func(sel string) string {
				var s string
				p.eval(`(document.querySelector('`+sel+`') || {}).textContent || ''`, &s)
				return s
			}
			rule1, counters1 := tc("#check-rule"), tc("#check-counters")
			for _, want := range []string{"check it on your kernel", "tracepoint:page_pool:page_pool_state_release", "copy"} {
				if !strings.Contains(rule1, want) {
					t.Errorf("#check-rule lacks %q:\n%s", want, rule1)
				}
			}
			if !strings.Contains(counters1, "check these counters on your kernel") {
				t.Errorf("#check-counters:\n%s", counters1)
			}
			var era string
			p.eval(`document.querySelector('#f-era').value`, &era)
			p.do(chromedp.ScrollIntoView(chromedp.CSS("#check-rule")))
			p.shot("check-rule-" + size.name)
			p.do(chromedp.ScrollIntoView(chromedp.CSS("#check-counters")))
			p.shot("check-counters-" + size.name)
			other := "6.18"
			if era == other {
				other = "6.8"
			}
			p.do(chromedp.SetValue(chromedp.CSS("#f-era"), other),
				chromedp.Evaluate[chromedp.Void](`document.querySelector('#f-era').dispatchEvent(new Event('change', {bubbles: true}))`))
			p.wait(`document.querySelector('#era-doc') && document.querySelector('#era-doc').textContent.startsWith('era `+other+`: ')`, 20*time.Second)
			p.wait(`!!document.querySelector('#check-counters') && document.querySelector('#check-counters summary').textContent.includes('v`+other+`')`, 20*time.Second)
			if c := tc("#check-counters"); c == counters1 {
				t.Errorf("the counters' check did not follow the era %s → %s", era, other)
			}
			if tc("#check-rule") != "" {
				if r := tc("#check-rule summary"); !strings.Contains(r, "v"+other) {
					t.Errorf("the rule's check did not follow the era %s → %s: %q", era, other, r)
				}
			}
			t.Logf("%s: era %s → %s", size.name, era, other)
			p.noErrors()
		})
	}
}
