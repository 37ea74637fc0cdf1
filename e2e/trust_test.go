//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// Tests of what the playground promises a user: every control edits what
// it is labelled with, a link reproduces what was on screen, the page says
// when a run is not what it seems. Each is named after what the user does.

// choose sets a select or input and fires its change event, as a user's
// edit does.
//
// Not chromedp.SetValue: it dispatches the change itself and then reads the
// value back, and a refused edit has put the control back by then (the
// page's job), which SetValue reports as "could not set value".
func (p *page) choose(sel, value string) {
	p.t.Helper()
	p.put(sel, value)
}

// evalAsync evaluates an expression whose value is a promise into out.
func (p *page) evalAsync(expr string, out any) {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string]("(async () => JSON.stringify(await ("+expr+")))()", chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %.80s: %v", expr, err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		p.t.Fatalf("evaluate %.80s: %v (%s)", expr, err, s)
	}
}

// query is the page's state link as URL values.
func (p *page) query() url.Values {
	p.t.Helper()
	var link string
	p.eval(`window.__pplab.url`, &link)
	u, err := url.Parse(link)
	if err != nil {
		p.t.Fatal(err)
	}
	return u.Query()
}

// waitOp waits until the page shows op n.
func (p *page) waitOp(n uint64) {
	p.t.Helper()
	p.wait(fmt.Sprintf(`document.querySelector('#op-count').textContent === '%d'`, n), 20*time.Second)
}

// keys presses key n times (the focus on the page body).
func (p *page) keys(key string, n int) {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	for i := 0; i < n; i++ {
		p.do(chromedp.KeyEvent(key))
	}
}

// defaultSwitchScenarioThenSetEveryKnob: after a scenario change
// every knob input of the new scenario edits its own knob — the link names
// that knob with the value typed — or, when the value does not fit, says
// why beside that knob.
func defaultSwitchScenarioThenSetEveryKnob(t *testing.T, p *page) {
	p.choose("#f-scenario", "tcp-stream")
	p.wait(`window.__pplab.url.includes('scenario=tcp-stream')`, 20*time.Second)
	p.openFold("knobs", "other-knobs", "rules")
	sc, err := lab.ScenarioByName("tcp-stream")
	if err != nil {
		t.Fatal(err)
	}
	// The page opened without a link: the newest stable era (a scenario
	// change keeps it).
	cfg := teaching(t, lab.Config{Scenario: "tcp-stream", Era: sim.NewestStableEra().Name})
	for _, k := range sc.Matters {
		spec := k.Spec()
		cur, _ := cfg.EffectiveKnobs()
		val := spec.Min
		if val == cur[k] {
			val = spec.Max
		}
		next, err := cfg.With(spec.Name, strconv.FormatInt(val, 10))
		if err != nil {
			t.Fatal(err)
		}
		fits := next.Validate() == nil
		if fits {
			if _, err := lab.New(next); err != nil {
				fits = false
			}
		}
		p.choose("#f-"+spec.Name, strconv.FormatInt(val, 10))
		if fits {
			cfg = next
			want := cfg.Values()
			js := "null"
			if want.Has(spec.Name) {
				js = strconv.Quote(want.Get(spec.Name))
			}
			p.wait(fmt.Sprintf(`new URL(window.__pplab.url).searchParams.get(%q) === %s`, spec.Name, js), 20*time.Second)
			if got := p.query(); got.Encode() != want.Encode() {
				t.Errorf("setting %s=%d: the link is %s, want %s", spec.Name, val, got.Encode(), want.Encode())
			}
		} else {
			p.wait(fmt.Sprintf(`document.querySelector('#err-%s') !== null`, spec.Name), 20*time.Second)
			if got := p.query(); got.Encode() != cfg.Values().Encode() {
				t.Errorf("a value of %s that does not fit changed the run: %s", spec.Name, got.Encode())
			}
			// The user puts the knob back (hw_gro=1 after gro=0 stays on
			// screen with its reason until then), and the next knob starts
			// from a form the run accepts.
			p.choose("#f-"+spec.Name, strconv.FormatInt(cur[k], 10))
			p.wait(fmt.Sprintf(`document.querySelector('#err-%s') === null`, spec.Name), 20*time.Second)
		}
	}
	p.noErrors()
}

// tilesMatchInspector clicks every tile and reports those whose inspector
// opens another page.
func (p *page) tilesMatchInspector() (clicked int, wrong []string) {
	p.t.Helper()
	var res struct {
		N     int
		Wrong []string
	}
	p.evalAsync(`(async function(){
		const tiles = Array.from(document.querySelectorAll('#machine .tile'));
		const wrong = [];
		for (const t of tiles) {
			const pfn = Number(t.dataset.pfn);
			const want = 'pfn 0x' + pfn.toString(16);
			t.click();
			// The page renders inside the click's event (go-app's frame
			// patch): look at once, then for up to 100 frames.
			const shown = () => { const el = document.querySelector('#inspected-pfn'); return el ? el.textContent : ''; };
			let got = shown();
			for (let i = 0; i < 100 && got !== want; i++) {
				await new Promise(r => requestAnimationFrame(r));
				got = shown();
			}
			if (got !== want) wrong.push(want + ' opened ' + got);
		}
		return {N: tiles.length, Wrong: wrong};
	})()`, &res)
	return res.N, res.Wrong
}

// TestPlayground_ClickEveryTileOpensThatPage: after steps and after a
// scenario change (the tiles re-rendered), every tile opens its own page.
func TestPlayground_ClickEveryTileOpensThatPage(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=1&scenario=forward&rx_descs=16&pool_size=32&step=40")
	n, wrong := p.tilesMatchInspector()
	if n < 16 || len(wrong) > 0 {
		t.Errorf("forward at op 40: %d tiles, wrong: %q", n, wrong)
	}
	p.keys("\u0303", 7) // → steps: pages move, tiles are reused for other pages
	p.waitOp(47)
	p.choose("#f-scenario", "clone-tap")
	p.wait(`window.__pplab.url.includes('scenario=clone-tap')`, 20*time.Second)
	// The change keeps the position in packets: the run goes on from there.
	at := uint64(p.state()["op"].(float64))
	p.keys("\u0303", 30)
	p.waitOp(at + 30)
	n, wrong = p.tilesMatchInspector()
	if n < 16 || len(wrong) > 0 {
		t.Errorf("clone-tap at op 30 after a scenario change: %d tiles, wrong: %q", n, wrong)
	}
	p.noErrors()
}

// defaultToggleEveryRuleAfterAScenarioChange: each rule checkbox
// breaks its own rule, also after the list re-rendered.
func defaultToggleEveryRuleAfterAScenarioChange(t *testing.T, p *page) {
	p.choose("#f-scenario", "clone-tap")
	p.wait(`window.__pplab.url.includes('scenario=clone-tap')`, 20*time.Second)
	p.openFold("rules")
	for _, r := range sim.AllRules() {
		name := r.String()
		p.do(chromedp.Click(chromedp.CSS("#rule-" + name)))
		p.wait(fmt.Sprintf(`new URL(window.__pplab.url).searchParams.getAll('break').join(',') === %q`, name), 20*time.Second)
		p.do(chromedp.Click(chromedp.CSS("#rule-" + name)))
		p.wait(`!window.__pplab.url.includes('break=')`, 20*time.Second)
	}
	p.noErrors()
}

// defaultSpaceAfterClickingARuleDoesNotPlay: a shortcut never fires
// while a form control has focus (Space there is the checkbox's own);
// Escape leaves the control and the shortcuts work again.
func defaultSpaceAfterClickingARuleDoesNotPlay(t *testing.T, p *page) {
	p.openFold("rules")
	p.do(chromedp.Click(chromedp.CSS("#rule-refcnt-check")))
	p.wait(`window.__pplab.url.includes('break=refcnt-check')`, 20*time.Second)
	p.do(chromedp.KeyEvent(" "))
	time.Sleep(300 * time.Millisecond)
	var playing bool
	p.eval(`window.__pplab.playing`, &playing)
	if playing {
		t.Error("Space in a focused checkbox started play")
	}
	p.do(chromedp.KeyEvent("\u001b")) // Escape
	p.wait(`document.activeElement === document.body || document.activeElement === null`, 5*time.Second)
	before := p.query().Get("break")
	p.do(chromedp.KeyEvent(" "))
	p.wait(`window.__pplab.playing === true`, 10*time.Second)
	p.do(chromedp.KeyEvent(" "))
	p.wait(`window.__pplab.playing === false`, 10*time.Second)
	if got := p.query().Get("break"); got != before {
		t.Errorf("after Escape, Space toggled the rule: break %q -> %q", before, got)
	}
	p.noErrors()
}

// defaultResetAndStepBackToZeroClearTheNarration: at op 0 the page
// narrates no operation, whichever way it got there.
func defaultResetAndStepBackToZeroClearTheNarration(t *testing.T, p *page) {
	idle := `document.querySelector('#narration-text').textContent.startsWith('Nothing yet')`
	p.keys("\u0303", 12)
	p.waitOp(12)
	p.keys("r", 1)
	p.waitOp(0)
	p.wait(idle, 5*time.Second)
	p.keys("\u0303", 3)
	p.waitOp(3)
	p.keys("\u0302", 3)
	p.waitOp(0)
	p.wait(idle, 5*time.Second)
	p.keys("\u0303", 5)
	p.waitOp(5)
	p.do(chromedp.SetValue(chromedp.CSS("#scrubber"), "0"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#scrubber').dispatchEvent(new Event('input', {bubbles: true}))`))
	p.waitOp(0)
	p.wait(idle, 5*time.Second)
	p.noErrors()
}

// defaultTheFirstStepOpensTheInterface: op 1 is the ring fill at
// interface open, narrated as such, with its many events folded; the
// first receive is op 2.
func defaultTheFirstStepOpensTheInterface(t *testing.T, p *page) {
	if next := p.text("#next-op"); !strings.HasPrefix(next, "open: fill the RX ring") {
		t.Errorf("before op 1 the next operation is %q", next)
	}
	p.keys("\u0303", 1)
	p.waitOp(1)
	if got := p.text("#narration-text"); !strings.Contains(got, "open: fill the RX ring") {
		t.Errorf("op 1 narration %q", got)
	}
	var open bool
	p.eval(`(function(){ const d = document.querySelector('#narration details.events-fold'); return d ? d.open : true })()`, &open)
	if open {
		t.Error("op 1's events are not folded")
	}
	p.keys("\u0303", 1)
	p.waitOp(2)
	if got := p.text("#narration-text"); !strings.Contains(got, "NIC receive") {
		t.Errorf("op 2 narration %q", got)
	}
	// The glossary explains the marks; a rule the scenario never reaches
	// says so beside it.
	if g := p.text("#glossary"); !strings.Contains(g, "what the marks mean") {
		t.Errorf("glossary %q", g)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#glossary').open = true`))
	p.openFold("rules")
	for _, term := range []string{"nid -1", "inflight", "P C N F", "B−n", "stale slot", "users"} {
		if g := p.text("#glossary"); !strings.Contains(g, term) {
			t.Errorf("the glossary does not explain %q", term)
		}
	}
	if r := p.text("#reach-coalesce-pp-guard"); !strings.Contains(r, "never decides anything in drop") {
		t.Errorf("coalesce-pp-guard in drop: %q", r)
	}
	p.noErrors()
}

// TestPlayground_ACompareThatDoesNotRunIsNamed: a comparison that does
// not run is named in the banner; no cost breakdown before the first
// measured window.
func TestPlayground_ACompareThatDoesNotRunIsNamed(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=1&scenario=drop&rx_descs=16&pool_size=32&cmp=era:" + sim.DefaultEra)
	if b := p.text("#banner"); !strings.Contains(b, "already in era "+sim.DefaultEra) {
		t.Errorf("banner %q", b)
	}
	p.keys("\u0303", 1)
	p.waitOp(1)
	p.wait(`document.querySelector('#chart-profile-empty') !== null`, 5*time.Second)
	p.noErrors()
}

// TestPlayground_ChartsInDarkMode: at op 3000 under prefers-color-scheme:
// dark the charts use ECharts' dark theme and the play button's text
// contrast is at least 4.5:1; the charts carry zoom buttons and zoom on
// the wheel only with Ctrl; the cost breakdown is drawn.
func TestPlayground_ChartsInDarkMode(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	p.open(rootURL + "?v=1&scenario=drop&rx_descs=16&pool_size=32&step=3000")
	t.Run("ContrastAndTheDarkTheme", func(t *testing.T) {
		p := p.sub(t)
		var ratio float64
		p.eval(`(function(){
		const lum = c => { const v = c.match(/\d+(\.\d+)?/g).slice(0,3).map(Number).map(x => { x /= 255; return x <= 0.03928 ? x/12.92 : Math.pow((x+0.055)/1.055, 2.4) }); return 0.2126*v[0] + 0.7152*v[1] + 0.0722*v[2] };
		const s = getComputedStyle(document.querySelector('#btn-play'));
		const a = lum(s.color), b = lum(s.backgroundColor);
		return (Math.max(a,b) + 0.05) / (Math.min(a,b) + 0.05);
	})()`, &ratio)
		if ratio < 4.5 {
			t.Errorf("play button contrast %.2f:1 in dark mode", ratio)
		}
		var bg string
		p.waitChart("chart-throughput")
		p.eval(`String(echarts.getInstanceByDom(document.getElementById('chart-throughput')).getOption().backgroundColor)`, &bg)
		var light string
		p.eval(`getComputedStyle(document.body).backgroundColor`, &light)
		t.Logf("dark mode: play button %.1f:1, chart background %s, page %s", ratio, bg, light)
		if bg == "" || bg == "#fff" || bg == "#ffffff" || bg == "white" {
			t.Errorf("the charts are not in the dark theme (background %q)", bg)
		}
		p.shot("desktop-dark")
		p.noErrors()
	})
	t.Run("ZoomControlsAndTheProfile", func(t *testing.T) {
		p := p.sub(t)
		var icons map[string]string
		p.waitChart("chart-throughput")
		p.eval(`echarts.getInstanceByDom(document.getElementById('chart-throughput')).getOption().toolbox[0].feature.dataZoom.icon`, &icons)
		if icons["zoom"] == "" || icons["back"] == "" {
			t.Errorf("zoom icons %v", icons)
		}
		var wheel string
		p.eval(`echarts.getInstanceByDom(document.getElementById('chart-throughput')).getOption().dataZoom[0].zoomOnMouseWheel`, &wheel)
		if wheel != "ctrl" {
			t.Errorf("zoomOnMouseWheel %q", wheel)
		}
		p.wait(`document.querySelector('#chart-profile-empty') === null`, 5*time.Second)
		p.noErrors()
	})
}

// phoneKeepsTheNarrationBesideTheMachine: at 390×844 the narration is in
// view while the machine is.
func phoneKeepsTheNarrationBesideTheMachine(t *testing.T, p *page) {
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#machine').scrollIntoView()`))
	var both bool
	p.eval(`(function(){ const m = document.querySelector('#machine').getBoundingClientRect(), n = document.querySelector('#narration').getBoundingClientRect();
		return m.top < innerHeight && m.bottom > 0 && n.top < innerHeight && n.bottom > 0 && n.top >= 0 })()`, &both)
	if !both {
		t.Error("on a phone the narration is not in view beside the machine")
	}
	p.shot("phone-sheet")
	p.noErrors()
}

// stepLatencies presses → n times and measures each from the key event to
// the DOM showing the next op (the page's own clock). sync counts the steps
// whose DOM had changed when dispatchEvent returned: with go-app's frame
// patch (third_party/go-app) the page renders inside the event, so every
// step is synchronous; without it, none is.
func (p *page) stepLatencies(n int) (ms []float64, sync int) {
	p.t.Helper()
	var out struct {
		MS   []float64
		Sync int
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	p.evalAsync(fmt.Sprintf(`(async function(){
		const out = [];
		let sync = 0;
		const op = () => document.querySelector('#op-count').textContent;
		for (let i = 0; i < %d; i++) {
			const before = op();
			// The observer is in place before the key: the page may render
			// before dispatchEvent returns.
			const done = new Promise(resolve => {
				let tm;
				const obs = new MutationObserver(() => { if (op() !== before) { obs.disconnect(); clearTimeout(tm); resolve(true); } });
				obs.observe(document.querySelector('#stats'), {subtree: true, childList: true, characterData: true});
				tm = setTimeout(() => { obs.disconnect(); resolve(false); }, 5000);
			});
			const t0 = performance.now();
			document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
			if (op() !== before) sync++;
			if (!await done) break; // a step that never showed: fewer values, the test fails
			out.push(performance.now() - t0);
			await new Promise(r => setTimeout(r, 30));
		}
		return {MS: out, Sync: sync};
	})()`, n), &out)
	return out.MS, out.Sync
}

// firstOpWith is the first operation of cfg with an event that match
// reports (found by running the engine).
func firstOpWith(t *testing.T, cfg lab.Config, match func(sim.Event) bool) uint64 {
	t.Helper()
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.Record(true)
	for i := 0; i < 5000 && l.Step(); i++ {
		rec, _ := l.StepRecord()
		for _, e := range rec.Events {
			if match(e) {
				return rec.Op.Index + 1
			}
		}
	}
	t.Fatalf("no operation of %v has the event", cfg)
	return 0
}

// firstOpCalling is the first operation of cfg whose events name fn in
// its era.
func firstOpCalling(t *testing.T, cfg lab.Config, fn string) uint64 {
	t.Helper()
	era := cfg.Era
	return firstOpWith(t, cfg, func(e sim.Event) bool { return lab.Source(era, "", e.Func).Name == fn })
}

// TestPlayground_KernelNamesFollowTheEra: the narration names each
// function as the era's kernel does and links its definition in that
// release's file (never a search page); rfc-v1's own identifiers link the
// RFC patch and say it was not merged in this form; tracepoint lines print
// the pfn as the era's kernel did (5.12's decimal here). Every era's names
// and links natively: engine/lab TestKernelNames_PerEra and
// TestKernelNames_EveryNarratedNameIsInItsErasTable; the tracepoint
// formats: engine/sim's tests.
func TestPlayground_KernelNamesFollowTheEra(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	links := func() [][2]string {
		var out [][2]string
		p.eval(`Array.from(document.querySelectorAll('#narration a')).map(a => [a.textContent, a.href])`, &out)
		return out
	}
	for _, tc := range []struct {
		era, fn, href, note string
	}{
		{"6.8", "napi_pp_put_page", "https://elixir.bootlin.com/linux/v6.8/source/net/core/skbuff.c", ""},
		{"rfc-v1", "skb_mark_for_recycle", "https://lore.kernel.org/", "RFC, not merged in this form"},
	} {
		cfg := teaching(t, lab.Config{Scenario: "drop", Era: tc.era})
		op := firstOpCalling(t, cfg, tc.fn)
		q := cfg.Values()
		q.Set("step", strconv.FormatUint(op, 10))
		p.open(rootURL + "?" + q.Encode())
		found := false
		for _, l := range links() {
			if strings.Contains(l[1], "/A/ident/") {
				t.Errorf("%s: a link to a search page: %v", tc.era, l)
			}
			if l[0] == tc.fn {
				found = true
				if !strings.HasPrefix(l[1], tc.href) {
					t.Errorf("%s: %s links %s, want %s…", tc.era, tc.fn, l[1], tc.href)
				}
			}
		}
		if !found {
			t.Errorf("%s at op %d: the narration does not name %s: %q", tc.era, op, tc.fn, p.text("#narration"))
		}
		if tc.note != "" && !strings.Contains(p.text("#narration"), tc.note) {
			t.Errorf("%s: the narration does not say %q", tc.era, tc.note)
		}
	}
	// Tracepoints: decimal pfn before 53d884a6675b (5.12), hex after.
	for era, re := range map[string]string{"5.12": `pfn=[0-9]+ `} {
		cfg := teaching(t, lab.Config{Scenario: "pool-slow", Era: era})
		op := firstOpWith(t, cfg, func(e sim.Event) bool { return e.Kind == sim.EvStateHold || e.Kind == sim.EvStateRelease })
		q := cfg.Values()
		q.Set("step", strconv.FormatUint(op-1, 10))
		p.open(rootURL + "?" + q.Encode())
		p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#trace-panel').open = true`))
		time.Sleep(300 * time.Millisecond) // the toggle event reaches the page first
		p.keys("\u0303", 1)
		p.waitOp(op)
		// The era's format, in a tracepoint line of the step's trace.
		if err := chromedp.Do(p.ctx, chromedp.Poll[chromedp.Void](fmt.Sprintf(`/page_pool_state_(hold|release): .*%s/.test(document.querySelector('#trace-text').textContent)`, re),
			chromedp.WithPollingTimeout(minWait))); err != nil {
			t.Errorf("era %s op %d: no tracepoint line with %s in the trace (%v)", era, op, re, err)
		}
	}
	p.noErrors()
}

// TestPlayground_ADegenerateRunSaysSo: a run that loses its packets says so
// beside the counters, with the packets not delivered.
func TestPlayground_ADegenerateRunSaysSo(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=1&scenario=drop&rx_descs=16&pool_size=32&alloc_fail_ppm=1000000&step=400")
	p.wait(`document.querySelector('#degenerate') !== null`, 10*time.Second)
	if s := p.text("#degenerate"); !strings.Contains(s, "degenerate run") {
		t.Errorf("degenerate notice %q", s)
	}
	if b := p.text("#banner"); !strings.Contains(b, "not measuring its scenario") {
		t.Errorf("banner %q", b)
	}
	if n, _ := strconv.Atoi(p.text("#stat-lost")); n == 0 {
		t.Errorf("lost %q", p.text("#stat-lost"))
	}
	// The stalled-ring case of the issue: mlx5 xdp-redirect at teaching
	// sizes delivers every packet; mlx5 shows its own ethtool -S names
	// (natively: app/session TestSession_CountersUseTheDriversEthtoolNames).
	p.open(rootURL + "?v=1&scenario=xdp-redirect&driver=mlx5&rx_descs=16&pool_size=32&step=3000")
	if n := p.text("#stat-lost"); n != "0" {
		t.Errorf("mlx5 xdp-redirect at teaching sizes lost %s packets", n)
	}
	if s := p.text("#stats"); !strings.Contains(s, "rx_pp_alloc_slow_high_order") || !strings.Contains(s, "per-ring counters") {
		t.Errorf("mlx5 stats %q", s)
	}
	p.noErrors()
}

// TestPlayground_ALinkWithABrokenRuleReproducesItsViolations: with a rule
// broken in the configuration where breaking it shows its failure (here
// last-dataref's demo, lab.RuleDemos), the violation log the page shows at
// an operation is the same whichever way the page got there — a link opened
// at that step, a step back and forward, the scrubber — and the same as
// stepping the engine natively. Every rule's demo natively: app/session
// TestViolations_EveryRuleDemoShowsTheSameCountOnEveryPath (the page's
// count on each path) and engine/lab TestViolationLog_SameOnEveryPath (the
// log itself).
func TestPlayground_ALinkWithABrokenRuleReproducesItsViolations(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	d, ok := lab.DemoFor("last-dataref")
	if !ok {
		t.Fatal("no demo of last-dataref")
	}
	// Natively, as → does, to 40 operations past the first violation.
	cfg := teaching(t, d.Config())
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.Record(true)
	var at uint64
	for i := 0; i < 20000 && l.Step(); i++ {
		if at == 0 && l.Snapshot().ViolationList != nil {
			at = l.Ops()
		}
		if at > 0 && l.Ops() >= at+40 {
			break
		}
	}
	if at == 0 {
		t.Fatalf("%v: no violation within 20000 steps", cfg)
	}
	total := 0
	for _, n := range l.Snapshot().Violations {
		total += n
	}
	q := cfg.Values()
	q.Set("step", strconv.FormatUint(l.Ops(), 10))
	p.open(rootURL + "?" + q.Encode())
	check := func(how string) {
		t.Helper()
		// textContent: with the rules fold open (the link breaks a rule)
		// the panel lies below the fold, where content-visibility: auto
		// skips its rendering and innerText reads "".
		var got string
		p.eval(`document.querySelector('#violation-total').textContent`, &got)
		if got != strconv.Itoa(total) {
			t.Errorf("at op %d (%s): %s violations, stepping natively found %d", l.Ops(), how, got, total)
		}
	}
	check("opened the link")
	p.keys("\u0302", 1)
	p.waitOp(l.Ops() - 1)
	p.keys("\u0303", 1)
	p.waitOp(l.Ops())
	check("← then →")
	p.do(chromedp.SetValue(chromedp.CSS("#scrubber"), strconv.FormatUint(l.Ops()/2, 10)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#scrubber').dispatchEvent(new Event('input', {bubbles: true}))`))
	p.waitOp(l.Ops() / 2)
	p.do(chromedp.SetValue(chromedp.CSS("#scrubber"), strconv.FormatUint(l.Ops(), 10)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#scrubber').dispatchEvent(new Event('input', {bubbles: true}))`))
	p.waitOp(l.Ops())
	check("scrubbed back and forth")
	p.noErrors()
}
