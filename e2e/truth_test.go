//go:build e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"pplab/app/session"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The page runs what it shows, in the browser: the DOM's controls, the
// address bar, the CLI line and the counters agree after each action (the
// native walk, app/session's TestProperty_ThePageRunsWhatItShows, checks
// 10 000 actions on the session; here the wiring: the select or input
// the user changed, put back when the edit is refused).

// put sets a control's value as typing or choosing does (a number input
// given letters reads ""; a checkbox is ticked for "1"), and fires its
// change event.
func (p *page) put(sel, value string) {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(function(){ const el = document.querySelector(%q); const v = %q;
		if (el.type === 'checkbox') el.checked = v === '1'; else el.value = v;
		el.dispatchEvent(new Event('change', {bubbles: true})) })()`, sel, value)))
}

// settle waits until the page has taken the last action: the Go side's
// queue is empty when a posted no-op comes back.
func (p *page) settle() {
	p.t.Helper()
	p.do(chromedp.Evaluate[chromedp.Void](`window.__settled = false; setTimeout(function(){ requestAnimationFrame(function(){ setTimeout(function(){ window.__settled = true }, 0) }) }, 0)`))
	p.wait(`window.__settled === true`, 10*time.Second)
}

// controlsShown is what the controls show, read from the DOM.
type controlsShown struct {
	Scenario, Driver, Era, Preset, Seed, Packets string
	Knobs                                        map[string]string
	Rules                                        map[string]bool
	CLI, URL, Search                             string
	Op, Packets0                                 float64
	Stats, Viol                                  []float64
}

func (p *page) shown() controlsShown {
	p.t.Helper()
	var s controlsShown
	p.eval(`(function(){
		const v = id => { const el = document.getElementById(id); return el ? el.value : null };
		const knobs = {}, rules = {};
		document.querySelectorAll('#controls .knob [data-field]').forEach(el => knobs[el.dataset.field] = el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value);
		document.querySelectorAll('#controls input[type=checkbox][data-rule]').forEach(el => rules[el.dataset.rule] = el.checked);
		const cli = document.getElementById('export-cli');
		return {Scenario: v('f-scenario'), Driver: v('f-driver'), Era: v('f-era'), Preset: v('f-preset'), Seed: v('f-seed'), Packets: v('f-packets'),
			Knobs: knobs, Rules: rules, CLI: cli ? cli.textContent : '', URL: window.__pplab.url, Search: location.search,
			Op: window.__pplab.op, Packets0: window.__pplab.packets, Stats: window.__pplab.stats, Viol: window.__pplab.violationCounts};
	})()`, &s)
	return s
}

// agree checks that the DOM shows the config the page's link names, that
// the CLI line is that config's, and that the counters are an independent
// run's at the same op. It returns the config.
func agree(t *testing.T, s controlsShown, what string) lab.Config {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatalf("%s: url %q: %v", what, s.URL, err)
	}
	q := u.Query()
	step, _ := strconv.ParseUint(q.Get("step"), 10, 64)
	for _, k := range []string{"step", "cmp", "speed", "show", "embed"} {
		q.Del(k)
	}
	cfg, err := lab.ParseConfig(q)
	if err != nil {
		t.Fatalf("%s: the page's link %q does not parse: %v", what, s.URL, err)
	}
	if uint64(s.Op) != step {
		t.Fatalf("%s: the page is at op %v, its link says step %d", what, s.Op, step)
	}
	era := cfg.EraName()
	if s.Driver == "(default)" {
		s.Driver = ""
	}
	if s.Scenario != cfg.Scenario || s.Driver != cfg.Driver || s.Era != era || s.Seed != strconv.FormatUint(cfg.Seed, 10) ||
		s.Packets != strconv.FormatInt(max(cfg.Packets, 0)+map[bool]int64{true: lab.DefaultPackets}[cfg.Packets == 0], 10) || s.Preset != lab.PresetOf(cfg) {
		t.Fatalf("%s: the controls show %s/%q/%s preset %s seed %s packets %s; the link %q", what, s.Scenario, s.Driver, s.Era, s.Preset, s.Seed, s.Packets, s.URL)
	}
	eff, _ := cfg.EffectiveKnobs()
	for name, val := range s.Knobs {
		n, ok := sim.KnobByName(name)
		if !ok || val != strconv.FormatInt(eff[n], 10) {
			t.Fatalf("%s: knob %s shows %q, the link's config has %d", what, name, val, eff[n])
		}
	}
	for name, on := range s.Rules {
		if on != slices.Contains(cfg.Break, name) {
			t.Fatalf("%s: rule %s shows %v, the link breaks %v", what, name, on, cfg.Break)
		}
	}
	if want := "ppsim " + strings.Join(session.CLIArgs(cfg), " "); s.CLI != want {
		t.Fatalf("%s: the CLI line %q, want %q", what, s.CLI, want)
	}
	ref, err := lab.ReplayTo(cfg, step)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	snap := ref.Snapshot()
	for i, v := range s.Stats {
		if uint64(v) != snap.Stats[i] {
			t.Fatalf("%s: at op %d the page shows %s=%v, an independent run %d", what, step, sim.Stat(i), v, snap.Stats[i])
		}
	}
	for i, v := range s.Viol {
		if int(v) != snap.Violations[i] {
			t.Fatalf("%s: at op %d the page counts %v %s, an independent run %d", what, step, v, sim.Kind(i), snap.Violations[i])
		}
	}
	if int64(s.Packets0) != snap.Packets {
		t.Fatalf("%s: at op %d the page shows %v packets, an independent run %d", what, step, s.Packets0, snap.Packets)
	}
	return cfg
}

// TestPlayground_RefusedEditsAreRefusedWhole: the walks, in the
// browser: devmem-rx while 6.8 is shown, then 5.12; an invalid knob value,
// then valid edits. Screenshots of the refused states at both sizes.
func TestPlayground_RefusedEditsAreRefusedWhole(t *testing.T) {
	t.Parallel()
	for _, size := range []struct {
		name string
		w, h int
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			p := newPage(t, size.w, size.h)
			p.open(rootURL)
			p.put("#f-era", "6.8")
			p.settle()
			p.put("#f-scenario", "devmem-rx")
			p.wait(`document.querySelector('#err-scenario') !== null`, 10*time.Second)
			p.settle()
			s := p.shown()
			if s.Scenario != "drop" || !strings.Contains(p.text("#err-scenario"), "memory providers") {
				t.Fatalf("devmem-rx in 6.8: the select shows %s, the reason %q", s.Scenario, p.text("#err-scenario"))
			}
			agree(t, s, "devmem-rx refused")
			p.do(chromedp.ScrollIntoView(chromedp.CSS("#f-scenario")))
			p.shot(size.name + "-refused-scenario")
			p.put("#f-era", "5.12")
			p.wait(`window.__pplab.url.includes('era=5.12')`, 10*time.Second)
			p.settle()
			agree(t, p.shown(), "then 5.12")

			p.openFold("knobs")
			p.put("#f-frame", "20")
			p.wait(`document.querySelector('#err-frame') !== null`, 10*time.Second)
			p.settle()
			s = p.shown()
			if s.Knobs["frame"] == "20" {
				t.Fatalf("the frame input still shows the refused 20")
			}
			agree(t, s, "frame=20 refused")
			p.do(chromedp.ScrollIntoView(chromedp.CSS("#f-frame")))
			p.shot(size.name + "-refused-knob")
			p.put("#f-pool_size", "8")
			p.wait(`window.__pplab.url.includes('pool_size=8')`, 10*time.Second)
			p.openFold("rules")
			p.do(chromedp.Click(chromedp.CSS("#rule-refcnt-check")))
			p.wait(`window.__pplab.url.includes('break=refcnt-check')`, 10*time.Second)
			p.settle()
			agree(t, p.shown(), "valid edits after refused ones")
			p.noErrors()
		})
	}
}

// TestPlayground_TheRunEnds: a short run played to its end says so, and
// step and play are disabled there; go to a packet keeps the packets.
func TestPlayground_TheRunEnds(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=2&scenario=drop&packets=300")
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('.goto-wrap').open = true`))
	p.put("#goto-unit", "packet")
	// A bad number is refused beside the form (the form does not let the
	// browser swallow it), then a good one goes there.
	p.do(chromedp.SetValue(chromedp.CSS("#goto-n"), "-5"), chromedp.Click(chromedp.CSS("#btn-goto")))
	p.wait(`document.querySelector('#goto-err') !== null`, 10*time.Second)
	if e := p.text("#goto-err"); !strings.Contains(e, "want a whole number") {
		t.Errorf("go to packet -5: %q", e)
	}
	p.do(chromedp.SetValue(chromedp.CSS("#goto-n"), "120"), chromedp.Click(chromedp.CSS("#btn-goto")))
	p.wait(`window.__pplab.packets === 120`, 10*time.Second)
	p.settle()
	agree(t, p.shown(), "go to packet 120")
	p.do(chromedp.Click(chromedp.CSS("#btn-end")))
	p.wait(`window.__pplab.done === true && window.__pplab.playing === false`, 30*time.Second)
	p.settle()
	if txt := p.text("#run-complete"); !strings.Contains(txt, "run complete — 300 packets") {
		t.Errorf("at the end: %q", txt)
	}
	var disabled []bool
	p.eval(`['#btn-step', '#btn-packet', '#btn-play', '#btn-end'].map(s => document.querySelector(s).disabled)`, &disabled)
	if slices.Contains(disabled, false) {
		t.Errorf("at the end step, packet, play, run-to-end disabled: %v", disabled)
	}
	agree(t, p.shown(), "the end")
	p.noErrors()
}

// TestPlayground_PropertyWalk: a seeded walk of 220 actions through the
// DOM — the selects (choices that run and ones that do not), knob inputs
// (values that fit and ones that do not), rule checkboxes, keys, go to —
// and after every action the controls, the link, the CLI line and the
// counters agree; at a sample of states the real ppsim, given the page's
// CLI line with --ops, prints the page's counters.
func TestPlayground_PropertyWalk(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL)
	p.openFold("knobs", "other-knobs", "rules")
	r := rand.New(rand.NewPCG(31, 7))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	list := lab.List()
	var scens, eras, rules []string
	for _, s := range list.Scenarios {
		scens = append(scens, s.Name)
	}
	for _, e := range sim.Eras {
		eras = append(eras, e.Name)
	}
	for _, ru := range list.Rules {
		rules = append(rules, ru.Name)
	}
	drvs := append([]string{""}, list.Drivers...)
	knobs := []string{"pool_size", "rx_descs", "frame", "bulk", "tap_every", "gro", "alloc_fail_ppm"}
	bin := ppsim(t) // built once for the package (TestMain)
	var log []string
	for i := 0; i < 220; i++ {
		var what string
		op := p.state()["op"].(float64)
		switch n := r.IntN(100); {
		case n < 12:
			v := pick(scens)
			what = "scenario " + v
			p.put("#f-scenario", v)
		case n < 20:
			v := pick(drvs)
			what = "driver " + v
			p.put("#f-driver", v)
		case n < 32:
			v := pick(eras)
			what = "era " + v
			p.put("#f-era", v)
		case n < 46:
			k := pick(knobs)
			v := pick([]string{"0", "8", "16", "32", "60", "-7", "99999999", "x"})
			what = "knob " + k + "=" + v
			p.put("#f-"+k, v)
		case n < 52:
			ru := pick(rules)
			what = "rule " + ru
			p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('#rule-%s').click()`, ru)))
		case n < 54:
			v := pick([]string{"200", "5000", "0", "abc"})
			what = "packets " + v
			p.put("#f-packets", v)
		case n < 78:
			key := "ArrowRight"
			if op >= 600 || r.IntN(4) == 0 {
				key = "ArrowLeft"
			}
			what = "key " + key
			p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`), chromedp.KeyEvent(map[string]string{"ArrowRight": "\ue014", "ArrowLeft": "\ue012"}[key]))
		case n < 82:
			what = "key r"
			p.do(chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`), chromedp.KeyEvent("r"))
		case n < 92:
			unit, v := pick([]string{"op", "packet"}), strconv.Itoa(r.IntN(400))
			if r.IntN(5) == 0 {
				v = pick([]string{"-1", "x"})
			}
			what = "go to " + unit + " " + v
			p.put("#goto-unit", unit)
			p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('#goto-n').value = %q; document.querySelector('#btn-goto').click()`, v)))
		default:
			what = "step button"
			p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#btn-step').click()`))
		}
		log = append(log, what)
		p.settle()
		s := p.shown()
		cfg := agree(t, s, fmt.Sprintf("action %d (%s; the walk so far: %s)", i, what, strings.Join(log, ", ")))
		if i%30 == 29 && s.Op > 0 {
			args := append(session.CLIArgs(cfg), "--ops", strconv.FormatFloat(s.Op, 'f', 0, 64))
			out, err := exec.Command(bin, args...).Output()
			if err != nil {
				t.Fatalf("ppsim %s: %v", strings.Join(args, " "), err)
			}
			for j, v := range s.Stats {
				if name := sim.Stat(j).String(); !strings.Contains(string(out), fmt.Sprintf("%q:%d", name, uint64(v))) {
					t.Fatalf("ppsim %s: %s is not the page's %v:\n%s", strings.Join(args, " "), name, v, out)
				}
			}
		}
	}
	// The address bar follows the link (it is written at most every 250 ms).
	p.wait(`location.href === window.__pplab.url`, 5*time.Second)
	if os.Getenv("PPLAB_WALK_LOG") != "" {
		t.Logf("walk: %s", strings.Join(log, ", "))
	}
	p.noErrors()
}

// TestPlayground_ChartButtonsByKeyboard: each chart has HTML buttons for
// zoom and save; from the keyboard, zoom in narrows the data axis, reset
// widens it again, and save writes a PNG named as the other exports, drawn
// at twice the chart's CSS size.
func TestPlayground_ChartButtonsByKeyboard(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=2&scenario=drop&step=3000")
	p.waitChart("chart-throughput")
	p.wait(`document.querySelector('.chart-btn[data-chart="chart-throughput"][data-act="zoom-in"]') !== null`, 20*time.Second)
	press := func(act string) {
		p.do(chromedp.Focus(chromedp.CSS(`.chart-btn[data-chart="chart-throughput"][data-act="`+act+`"]`)), chromedp.KeyEvent("\r"))
		p.settle()
	}
	zoom := func() (z [2]float64) {
		p.eval(`(function(){ const dz = echarts.getInstanceByDom(document.getElementById('chart-throughput')).getOption().dataZoom[0]; return [dz.start, dz.end] })()`, &z)
		return z
	}
	press("zoom-in")
	if z := zoom(); z[1]-z[0] > 50.01 {
		t.Errorf("after zoom in the data axis shows %v%%", z)
	}
	press("zoom-reset")
	if z := zoom(); z[0] != 0 || z[1] != 100 {
		t.Errorf("after reset the data axis shows %v%%", z)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`HTMLAnchorElement.prototype.click = function(){ const a = this; const img = new Image(); img.onload = function(){ window.__saved = {name: a.download, w: img.naturalWidth, css: document.getElementById('chart-throughput').clientWidth} }; img.src = a.href }`))
	press("save")
	p.wait(`window.__saved !== undefined`, 10*time.Second)
	var saved struct {
		Name   string
		W, CSS float64
	}
	p.eval(`window.__saved`, &saved)
	if saved.Name != "pplab-drop-mvpp2-6.8-op3000-throughput.png" || saved.W < 2*saved.CSS-2 {
		t.Errorf("saved %q, %v px wide for a %v px chart: want pplab-drop-mvpp2-6.8-op3000-throughput.png at 2×", saved.Name, saved.W, saved.CSS)
	}
	p.noErrors()
}

// TestPlayground_ResultsComeIntoView: on a phone, what the user asked for
// lands on screen — the inspector a tile opens, the rule a show-me link
// explains, the diagnosis of an example.
func TestPlayground_ResultsComeIntoView(t *testing.T) {
	t.Parallel()
	p := newPage(t, 390, 844)
	inView := func(sel string) bool {
		var ok bool
		p.eval(`(function(){ const el = document.querySelector('`+sel+`'); if (!el) return false; const r = el.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0 })()`, &ok)
		return ok
	}
	p.open(rootURL + "?v=2&scenario=drop&step=40")
	p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.querySelector('#machine button.tile[data-pfn]').click()`))
	p.wait(`document.querySelector('#inspected-pfn') !== null`, 10*time.Second)
	p.settle()
	if !inView("#inspector") {
		t.Errorf("a tile clicked on a phone: the inspector is off screen")
	}
	p.open(rootURL + "?show=refcnt-check")
	p.wait(`document.querySelector('#show-panel') !== null`, 20*time.Second)
	// The page scrolls to it once its first frames are in (300 ms).
	p.wait(`(function(){ const r = document.querySelector('#show-panel').getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0 })()`, 5*time.Second)
	p.open(rootURL + "diagnose/")
	p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.querySelector('.diag-examples button[data-example]').click()`))
	p.wait(`document.querySelector('#diag-answer h2') !== null && document.querySelector('#diag-empty') === null`, 30*time.Second)
	p.settle()
	if !inView("#diag-answer") {
		t.Errorf("an example chosen on a phone: the diagnosis is off screen")
	}
	p.noErrors()
}

// TestPlayground_MorphedMachineIsAFreshOne: the machine's rows are brought
// to each step's markup in place (app/morph.go); after steps taken one by
// one and a stretch of max-speed play, the drawing is the one a fresh page
// opened at the same operation draws.
func TestPlayground_MorphedMachineIsAFreshOne(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	const q = "?v=2&scenario=tcp-stream&step=300"
	p.open(rootURL + q)
	// The drawing as text, attributes sorted (go-app writes them in any
	// order).
	machine := `(function ser(n) {
		if (n.nodeType !== 1) return n.nodeType === 3 ? n.nodeValue : '';
		const at = [...n.attributes].map(a => a.name + '="' + a.value + '"').sort().join(' ');
		return '<' + n.nodeName + (at ? ' ' + at : '') + '>' + [...n.childNodes].map(ser).join('') + '</' + n.nodeName + '>';
	})(document.querySelector('#machine .machine-body'))`
	p.keys("\u0303", 40)
	p.waitOp(340)
	p.choose("#f-speed", "5")
	p.do(chromedp.Click(chromedp.CSS("#btn-play")))
	p.wait(`window.__pplab.op > 3000`, 30*time.Second)
	p.do(chromedp.Evaluate[chromedp.Void](`window.__pplab.playing && document.querySelector('#btn-play').click()`))
	p.wait(`window.__pplab.playing === false`, 10*time.Second)
	p.keys("\u0303", 3) // the last operations by hand: their moves are marked
	var op float64
	p.eval(`window.__pplab.op`, &op)
	p.waitOp(uint64(op))
	var morphed, fresh string
	p.eval(machine, &morphed)
	p.open(rootURL + strings.Replace(q, "step=300", fmt.Sprintf("step=%d", int(op)), 1))
	p.eval(machine, &fresh)
	if morphed != fresh {
		i := 0
		for i < min(len(morphed), len(fresh)) && morphed[i] == fresh[i] {
			i++
		}
		t.Errorf("the machine at op %d, stepped and played to, differs from a fresh page's at %d:\n morphed …%s…\n fresh   …%s…", int(op), i, morphed[max(0, i-200):min(len(morphed), i+200)], fresh[max(0, i-200):min(len(fresh), i+200)])
	}
}
