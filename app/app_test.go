package app

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/app/tour"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// teaching is cfg at the playground's teaching sizes (lab.Preset).
func teaching(t testing.TB, cfg lab.Config) lab.Config {
	t.Helper()
	cfg, err := cfg.With("preset", lab.PresetTeaching)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The Machine draws every page of the snapshot where it is, and marks the
// pages the step moved.
func TestMachine_DrawsEveryPageWhereItIs(t *testing.T) {
	l, err := lab.New(teaching(t, lab.Config{Scenario: "tcp-stream", Packets: 10_000}))
	if err != nil {
		t.Fatal(err)
	}
	l.Record(true)
	for i := 0; i < 400; i++ { // a socket queue longer than skbsDrawn
		l.Step()
	}
	snap := l.Snapshot()
	rec, _ := l.StepRecord()
	var changed []int32
	for _, m := range rec.Moves {
		changed = append(changed, m.PFN)
	}
	m := &Machine{V: session.MachineView{Snap: snap, Changed: changed, Selected: -1}}
	html := ga.HTMLString(m.Render())
	tiles := map[int32]bool{}
	marked := 0
	for _, tag := range buttonRE.FindAllString(html, -1) {
		cls, pfnAttr := classRE.FindStringSubmatch(tag), pfnRE.FindStringSubmatch(tag)
		if cls == nil || pfnAttr == nil || !strings.HasPrefix(cls[1], "tile") {
			continue
		}
		pfn, _ := strconv.ParseInt(pfnAttr[1], 10, 32)
		tiles[int32(pfn)] = true
		if strings.Contains(cls[1], "changed") {
			marked++
		}
	}
	// The skb cards are drawn up to skbsDrawn per group: the pages of the
	// others are counted in the group's "… and N more" line, not drawn.
	drawnSKB, perGroup := map[int32]bool{}, map[string]int{}
	for _, sk := range snap.SKBs {
		if perGroup[sk.Where] < skbsDrawn {
			drawnSKB[sk.ID] = true
		}
		perGroup[sk.Where]++
	}
	for _, p := range snap.Pages {
		if p.Place == "slab" || p.Place == "compound-tail" {
			continue
		}
		if p.Holder.Kind == "skb" && !drawnSKB[p.Holder.ID] {
			continue
		}
		if p.Place == "nic-ring" || p.Place == "cache" || p.Place == "ring" || p.Place == "skb" || p.Place == "socket" || p.Place == "tx-ring" || p.Place == "driver" {
			if !tiles[p.PFN] {
				t.Errorf("page %#x (%s) has no tile", p.PFN, p.Place)
			}
		}
	}
	if len(changed) > 0 && marked == 0 {
		t.Errorf("%d pages moved, none marked", len(changed))
	}
	if len(tiles) == 0 {
		t.Fatal("no tile drawn")
	}
}

// Tiles in rendered HTML: button tags, their class and PFN (attributes come
// in any order).
var (
	buttonRE = regexp.MustCompile(`<button [^>]*>`)
	classRE  = regexp.MustCompile(` class="([^"]*)"`)
	pfnRE    = regexp.MustCompile(` data-pfn="(-?\d+)"`)
)

// A panic while rendering a component becomes an error box, not a dead page.
func TestGuardRender_TurnsAPanicIntoAnErrorBox(t *testing.T) {
	ui := func() (ui ga.UI) {
		defer guardRender(&ui, "Broken")
		var m map[string]int
		m["x"] = 1 // panics
		return ga.Div()
	}()
	if html := ga.HTMLString(ui); !strings.Contains(html, "Broken failed to render") || !strings.Contains(html, `role="alert"`) {
		t.Errorf("%s", html)
	}
}

// Every control rendered from a list names what it acts on in the element
// itself (toolchain pitfall P15): the knob inputs' data-field is their
// knob, the rules' data-rule their rule, the tiles' data-pfn their page —
// so the package-level handlers act on the element the user used, whatever
// go-app kept from an earlier render.
func TestControls_EachInputNamesItsOwnField(t *testing.T) {
	s := session.New(nil, nil)
	s.Set("scenario", "tcp-stream")
	openFolds(s)
	html := ga.HTMLString((&Controls{V: s.View().Controls}).Render())
	inputs := regexp.MustCompile(`<(?:input|select) [^>]*>`).FindAllString(html, -1)
	idRE, fieldRE, ruleRE := regexp.MustCompile(` id="f-([^"]+)"`), regexp.MustCompile(` data-field="([^"]+)"`), regexp.MustCompile(` data-rule="([^"]+)"`)
	ruleIDRE := regexp.MustCompile(` id="rule-([^"]+)"`)
	fields, rules := 0, 0
	for _, in := range inputs {
		if id := idRE.FindStringSubmatch(in); id != nil {
			f := fieldRE.FindStringSubmatch(in)
			if f == nil || f[1] != id[1] {
				t.Errorf("input f-%s acts on field %v", id[1], f)
			}
			fields++
		}
		if id := ruleIDRE.FindStringSubmatch(in); id != nil {
			r := ruleRE.FindStringSubmatch(in)
			if r == nil || r[1] != id[1] {
				t.Errorf("checkbox rule-%s toggles %v", id[1], r)
			}
			rules++
		}
	}
	if fields < 20 || rules != 13 {
		t.Errorf("%d fields, %d rules rendered", fields, rules)
	}
}

// The intro shown while the engine loads names the eras the table has,
// first to last (it said "5.12 to 6.8" long after 6.8).
func TestSiteIntro_NamesTheErasOfTheTable(t *testing.T) {
	html := ga.HTMLString((&SiteIntro{}).Render())
	want := "from " + sim.Eras[0].Name + " to " + sim.Eras[len(sim.Eras)-1].Name
	if !strings.Contains(html, want) {
		t.Errorf("the intro does not say %q: %.300s", want, html)
	}
}

// A choice that does not run shows a short mark, never its sentence; the
// sentence is the option's title.
func TestControls_ARefusedChoiceIsMarkedShort(t *testing.T) {
	s := session.New(nil, nil)
	s.Set("era", "6.8")
	html := ga.HTMLString((&Controls{V: s.View().Controls}).Render())
	opt := regexp.MustCompile(`<option [^>]*value="devmem-rx"[^>]*>([^<]*)</option>`).FindStringSubmatch(html)
	if opt == nil || opt[1] != "devmem-rx ✕" || !strings.Contains(opt[0], "not run here: ") {
		t.Errorf("devmem-rx in 6.8: %q", opt)
	}
	s.Set("scenario", "devmem-rx") // refused
	html = ga.HTMLString((&Controls{V: s.View().Controls}).Render())
	if !strings.Contains(html, `id="err-scenario"`) {
		t.Errorf("the refusal is not beside the scenario select")
	}
}

// Booleans are checkboxes, tri-states and two-way choices selects in
// words; only counts and sizes are number inputs.
func TestControls_BooleansAndTriStatesInWords(t *testing.T) {
	s := session.New(nil, nil)
	openFolds(s)
	html := ga.HTMLString((&Controls{V: s.View().Controls}).Render())
	for name, want := range map[string]string{
		"fast_forward": `<input type="checkbox"`,
		"gro":          `<input type="checkbox"`,
		"coherent":     `<select`,
		"provider":     `<select`,
		"pool_size":    `<input type="number"`,
	} {
		got := regexp.MustCompile(`<(input|select)[^>]* id="f-` + name + `"[^>]*>`).FindString(html)
		tag, typ, _ := strings.Cut(want, " ")
		if !strings.HasPrefix(got, tag) || !strings.Contains(got, typ) {
			t.Errorf("%s: %q, want %s", name, got, want)
		}
	}
	if !strings.Contains(html, ">off (0)</option>") || !strings.Contains(html, ">1: io_uring zero-copy RX</option>") {
		t.Errorf("the selects do not say their values in words")
	}
}

// A net_iov inspected shows struct net_iov's fields — pp_ref_count, its
// binding and the binding's DMA address — and none a net_iov lacks
// (_refcount, a NUMA node, pfmemalloc).
func TestInspector_ANetIovShowsItsOwnFields(t *testing.T) {
	s := session.New(nil, nil)
	s.Set("era", "6.12")
	s.Set("scenario", "devmem-rx")
	var pfn int32 = -1
	for i := 0; i < 400 && pfn < 0; i++ {
		s.Step()
		for _, pg := range s.View().Machine.Snap.Pages {
			if pg.NetIov {
				pfn = pg.PFN
				break
			}
		}
	}
	if pfn < 0 {
		t.Fatal("no net_iov in 400 operations of devmem-rx")
	}
	s.Select(pfn)
	html := ga.HTMLString((&Inspector{V: s.View().Inspector}).Render())
	for _, want := range []string{"net_iov ", "pp_ref_count", "dma-buf binding #1", "the binding&#39;s 0x"} {
		if !strings.Contains(html, want) {
			t.Errorf("the net_iov's inspector lacks %q", want)
		}
	}
	for _, bad := range []string{"_refcount<", "NUMA node", "pfmemalloc"} {
		if strings.Contains(html, bad) {
			t.Errorf("the net_iov's inspector shows %q", bad)
		}
	}
}

// openFolds opens every fold of the controls (closed, they draw their
// summaries only).
func openFolds(s *session.Session) {
	for _, f := range []string{session.FoldKnobs, session.FoldOtherKnobs, session.FoldRules} {
		s.Fold(f, true)
	}
}

// A closed fold draws its summary alone, an open one its body; the nested
// fold of the other knobs draws only inside an open knobs fold. Each fold
// names itself (data-fold), which its toggle posts.
func TestControls_AClosedFoldDrawsOnlyItsSummary(t *testing.T) {
	s := session.New(nil, nil)
	count := func() (knobs, rules int, html string) {
		html = ga.HTMLString((&Controls{V: s.View().Controls}).Render())
		return strings.Count(html, `data-field="`), strings.Count(html, `data-rule="`), html
	}
	k0, r0, html := count()
	for _, f := range []string{"knobs", "other-knobs", "rules"} {
		if f != "other-knobs" && !strings.Contains(html, `data-fold="`+f+`"`) {
			t.Errorf("fold %s is not named on its element", f)
		}
	}
	if r0 != 0 || k0 != 6 { // the six fields above the folds
		t.Errorf("all folds closed: %d fields, %d rules drawn", k0, r0)
	}
	// A run that breaks a rule opens the rules fold (its box shows ticked)
	// until the user closes it; the summary names the rule either way.
	s.Set("break", "refcnt-check")
	if _, r, html := count(); r != 13 || !strings.Contains(html, "broken: refcnt-check") {
		t.Errorf("a run breaking refcnt-check: %d rules drawn, summary names it %v", r, strings.Contains(html, "broken: refcnt-check"))
	}
	s.Fold(session.FoldRules, false)
	if _, r, html := count(); r != 0 || !strings.Contains(html, "broken: refcnt-check") {
		t.Errorf("the rules fold closed by the user: %d rules drawn, summary names it %v", r, strings.Contains(html, "broken: refcnt-check"))
	}
	s.Set("break", "refcnt-check") // a second toggle mends it
	s.Fold(session.FoldRules, false)
	s.Fold(session.FoldOtherKnobs, true) // inside a closed fold: still nothing
	if k, _, _ := count(); k != k0 {
		t.Errorf("the other knobs drew %d fields inside the closed knobs fold", k-k0)
	}
	s.Fold(session.FoldKnobs, true)
	k1, _, _ := count()
	s.Fold(session.FoldOtherKnobs, false)
	k2, _, _ := count()
	if !(k1 > k2 && k2 > k0) {
		t.Errorf("fields drawn: closed %d, knobs and other knobs open %d, knobs only %d", k0, k1, k2)
	}
	s.Fold(session.FoldRules, true)
	if _, r, _ := count(); r != 13 {
		t.Errorf("rules fold open: %d rules drawn", r)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("an unknown fold was taken")
		}
	}()
	s.Fold("glossary", true)
}

// The mounted playground keeps the intro the loading page showed (issue
// 34: it vanished mid-read when the engine mounted): the chapter list, its
// text and the rules link, in a fold right under the header, open when
// the reader was in it (introplace.go), its open attribute written only
// then (boolattr.go); one #intro, and no id twice in the page. The
// geometry — the reader's place kept on screen — is e2e's
// TestIntro_KeptWhenTheEngineMounts.
func TestPlayground_KeepsTheIntroWhenMounted(t *testing.T) {
	for _, open := range []bool{false, true} {
		s := session.New(nil, nil)
		p := &Playground{s: s, view: s.View(), intro: introPlace{open: open, block: -1, focus: -1}, rest: restStages}
		html := ga.HTMLString(p.Render())
		for _, want := range []string{`id="intro-more"`, `id="intro"`, `id="intro-tour"`, introSummaryLead, ">" + introSummaryCount() + "<", "pplab runs a Go model of the kernel&#39;s page_pool", `href="/rules/"`} {
			if !strings.Contains(html, want) {
				t.Errorf("open %v: the mounted page lacks %s", open, want)
			}
		}
		for _, c := range tour.Chapters() {
			if want := `href="` + c.Path() + `"`; !strings.Contains(html, want) {
				t.Errorf("open %v: the mounted page does not link chapter %s", open, c.Path())
			}
		}
		if !strings.Contains(introSummary(), strconv.Itoa(len(tour.Chapters()))+" chapters") {
			t.Errorf("the summary %q does not count the chapters", introSummary())
		}
		fold := regexp.MustCompile(`<details[^>]*id="intro-more"[^>]*>`).FindString(html)
		if got := regexp.MustCompile(`\sopen(=|\s|>)`).MatchString(fold); got != open {
			t.Errorf("open %v: the fold's tag is %s", open, fold)
		}
		if i, j := strings.Index(html, `id="intro-more"`), strings.Index(html, `id="controls"`); i < 0 || j < 0 || i > j || i < strings.Index(html, "</header>") {
			t.Errorf("open %v: the fold is not between the header and the controls", open)
		}
		seen := map[string]int{}
		for _, m := range regexp.MustCompile(`\sid="([^"]+)"`).FindAllStringSubmatch(html, -1) {
			seen[m[1]]++
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("open %v: id %q %d times in the mounted page", open, id, n)
			}
		}
	}
}
