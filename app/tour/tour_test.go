package tour

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pplab/app/session"
	"pplab/engine/lab"
	"pplab/engine/perf"
	"pplab/engine/sim"
)

// TestChapters_MarkupParsesAndEveryLinkResolves: every paragraph parses;
// every figure link names a preset of its chapter and every preset is
// linked from the prose (the first, the chapter's opening state, may be
// linked or not); every kernel identifier is in its era's table, so it
// links to its definition in that release.
func TestChapters_MarkupParsesAndEveryLinkResolves(t *testing.T) {
	slugs := map[string]bool{}
	for _, c := range Chapters() {
		if c.Slug == "" || slugs[c.Slug] || strings.ContainsAny(c.Slug, "/?#& ") {
			t.Errorf("chapter %q: empty, repeated or not a path element", c.Slug)
		}
		slugs[c.Slug] = true
		if _, err := sim.EraByName(c.Era); err != nil {
			t.Errorf("%s: era %q: %v", c.Slug, c.Era, err)
		}
		if len(c.Presets) == 0 || len(c.Paras) == 0 || c.Title == "" || c.Lede == "" {
			t.Errorf("%s: a chapter needs a title, a lede, presets and prose", c.Slug)
		}
		linked := map[string]bool{}
		ids := map[string]bool{}
		for _, p := range c.Presets {
			if ids[p.ID] {
				t.Errorf("%s: preset %s defined twice", c.Slug, p.ID)
			}
			ids[p.ID] = true
		}
		for i, para := range c.Paras {
			in, err := Parse(para, c.Era)
			if err != nil {
				t.Errorf("%s ¶%d: %v", c.Slug, i+1, err)
				continue
			}
			for _, x := range in {
				switch x.Kind {
				case KindPreset:
					if !ids[x.Preset] {
						t.Errorf("%s ¶%d: [%s](%s): no such preset", c.Slug, i+1, x.Text, x.Preset)
					}
					linked[x.Preset] = true
				case KindIdent:
					if IdentURL(x.Era, x.Ident) == "" {
						t.Errorf("%s ¶%d: {%s} is not in era %s's identifier table", c.Slug, i+1, x.Ident, x.Era)
					}
				case KindLink:
					if _, err := url.Parse(x.Href); err != nil || !strings.HasPrefix(x.Href, "https://") {
						t.Errorf("%s ¶%d: link %q", c.Slug, i+1, x.Href)
					}
				}
			}
		}
		for _, p := range c.Presets[1:] {
			if !linked[p.ID] {
				t.Errorf("%s: preset %s is linked from no sentence", c.Slug, p.ID)
			}
		}
	}
}

func TestParse_Markup(t *testing.T) {
	in, err := Parse("a [b](p1) {page_pool_put_page@5.12} `x || y` [c](https://x.org/) end", "6.8")
	if err != nil {
		t.Fatal(err)
	}
	want := []Inline{
		{Kind: KindText, Text: "a "}, {Kind: KindPreset, Text: "b", Preset: "p1"}, {Kind: KindText, Text: " "},
		{Kind: KindIdent, Text: "page_pool_put_page", Ident: "page_pool_put_page", Era: "5.12"}, {Kind: KindText, Text: " "},
		{Kind: KindCode, Text: "x || y"}, {Kind: KindText, Text: " "}, {Kind: KindLink, Text: "c", Href: "https://x.org/"}, {Kind: KindText, Text: " end"},
	}
	if !slices.Equal(in, want) {
		t.Errorf("got %+v\nwant %+v", in, want)
	}
	for _, bad := range []string{"[a](", "[a]", "{x", "`x", "[](p)", "{}"} {
		if _, err := Parse(bad, "6.8"); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
	if got := IdentURL("5.12", "page_pool_release_page"); got != "https://elixir.bootlin.com/linux/v5.12/source/net/core/page_pool.c" {
		t.Errorf("IdentURL: %s", got)
	}
	if got := IdentURL("rfc-v1", "skb_mark_for_recycle"); !strings.HasPrefix(got, "https://lore.kernel.org/") {
		t.Errorf("IdentURL rfc-v1: %s", got)
	}
	if IdentURL("5.12", "napi_pp_put_page") != "" {
		t.Error("napi_pp_put_page is not in 5.12")
	}
}

// TestPresets_EveryLinkIsAValidStateAtItsStep: every preset's link is the
// playground's URL form: lab.ParseConfig reads its config part without an
// error and gives the preset's config back, at the teaching sizes; the step
// key is a number; a session opened at the link has no notice, shows that
// step, links back to the same state, and its narration of the step says
// what the chapter's sentence is about (Expect).
func TestPresets_EveryLinkIsAValidStateAtItsStep(t *testing.T) {
	for _, c := range Chapters() {
		for _, p := range c.Presets {
			t.Run(c.Slug+"/"+p.ID, func(t *testing.T) {
				cfg, step, err := p.Config()
				if err != nil {
					t.Fatal(err)
				}
				q, err := p.Query()
				if err != nil {
					t.Fatal(err)
				}
				link, err := url.Parse(c.Link(p))
				if err != nil || link.Path != c.Path() || link.RawQuery != q.Encode() {
					t.Fatalf("link %q (%v)", c.Link(p), err)
				}
				cq := url.Values{}
				for k, v := range q {
					if k != "step" {
						cq[k] = v
					}
				}
				parsed, err := lab.ParseConfig(cq)
				if err != nil {
					t.Fatalf("ParseConfig(%s): %v", cq.Encode(), err)
				}
				if parsed.Values().Encode() != cfg.Values().Encode() {
					t.Errorf("ParseConfig gives %s, the preset is %s", parsed.Values().Encode(), cfg.Values().Encode())
				}
				if lab.PresetOf(parsed) != lab.PresetTeaching {
					t.Errorf("not at the teaching sizes: %s", cq.Encode())
				}
				n, err := strconv.ParseUint(q.Get("step"), 10, 64)
				if err != nil || n != step || step == 0 {
					t.Fatalf("step %q: %v (want a step > 0)", q.Get("step"), err)
				}
				s := session.New(q, nil)
				v := s.View()
				for _, b := range v.Banner {
					t.Errorf("notice: %s", b.Text)
				}
				if s.Lab().Ops() != step {
					t.Fatalf("the session is at op %d, want %d (the run ends sooner?)", s.Lab().Ops(), step)
				}
				if !SameState(s.Query(), q) {
					t.Errorf("the session links to %s, not %s", s.Query().Encode(), q.Encode())
				}
				if !v.Narration.Has {
					t.Fatal("no narration at the step")
				}
				if text := NarrationText(v.Narration); !strings.Contains(text, p.Expect) {
					t.Errorf("the narration of op %d does not say %q:\n%s", step, p.Expect, text)
				}
			})
		}
	}
}

// NarrationText is the text the narration panel shows for the step (the
// same pieces app.Narration draws: the operation, its first 48 events with
// their counters, the counters, the violations).
func NarrationText(n session.NarrationView) string {
	var b strings.Builder
	r := n.Rec
	fmt.Fprintf(&b, "op %d on cpu%d: %s — %s\n", r.Op.Index+1, r.Op.CPU, lab.Source(n.Era, n.Driver, r.Op.Func).Name, r.Op.Label)
	for i, e := range r.Events {
		if i == 48 {
			break
		}
		fmt.Fprintf(&b, "%s: %s", lab.Source(n.Era, n.Driver, e.Func).Name, e.Why)
		if e.Stat != sim.StatNone && e.Stat < sim.NumStats {
			fmt.Fprintf(&b, " [%s++]", lab.EthtoolName(n.Driver, e.Stat, -1))
		}
		b.WriteString("\n")
	}
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		if d := r.Stats[s] - r.StatsBefore[s]; d != 0 {
			fmt.Fprintf(&b, "%s +%d\n", lab.EthtoolName(n.Driver, s, -1), d)
		}
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "%s on pfn %#x: %s\n", v.Kind, v.PFN, v.Detail)
	}
	return b.String()
}

// TestChapters_PrevNextChainCoversEveryChapter: from the index, Next walks
// every chapter once in order and Prev walks back.
func TestChapters_PrevNextChainCoversEveryChapter(t *testing.T) {
	if len(Chapters()) != 8 {
		t.Errorf("%d chapters, the tour has 8", len(Chapters()))
	}
	var walked []string
	for i := -1; ; {
		c, ok := Next(i)
		if !ok {
			break
		}
		_, j, found := BySlug(c.Slug)
		if !found || j != i+1 {
			t.Fatalf("Next(%d) = %s at %d", i, c.Slug, j)
		}
		walked = append(walked, c.Slug)
		i = j
		if len(walked) > 20 {
			t.Fatal("Next loops")
		}
	}
	var all []string
	for _, c := range Chapters() {
		all = append(all, c.Slug)
	}
	if !slices.Equal(walked, all) {
		t.Errorf("Next walks %v, want %v", walked, all)
	}
	var back []string
	for i := len(all) - 1; ; {
		back = append(back, Chapters()[i].Slug)
		p, ok := Prev(i)
		if !ok {
			break
		}
		_, i, _ = BySlug(p.Slug)
	}
	slices.Reverse(back)
	if !slices.Equal(back, all) {
		t.Errorf("Prev walks %v", back)
	}
	if _, ok := Prev(0); ok {
		t.Error("the first chapter has a previous one")
	}
	if _, ok := Next(len(all) - 1); ok {
		t.Error("the last chapter has a next one")
	}
}

// TestNumbers_TheModelGivesWhatTheChaptersQuote: every model number a
// chapter quotes is recomputed from the engine (kernel sizes, 10^6
// packets), and every measured one is the rate its shipped profile states.
func TestNumbers_TheModelGivesWhatTheChaptersQuote(t *testing.T) {
	for _, c := range Chapters() {
		for _, n := range c.Numbers {
			t.Run(c.Slug+"/"+n.What, func(t *testing.T) {
				f := strings.Fields(n.Check)
				if len(f) < 2 {
					t.Fatalf("check %q", n.Check)
				}
				var got string
				switch f[0] {
				case "rate":
					var rates []string
					for _, era := range f[3:] {
						rates = append(rates, fmt.Sprintf("%.1f", rate(t, lab.Config{Scenario: f[1], Driver: f[2], Era: era})))
					}
					got = strings.Join(rates, " → ") + " kpps"
				case "pair":
					got = fmt.Sprintf("%.2f ns", 1e6/rate(t, lab.Config{Scenario: f[1]}))
				case "predict":
					if testing.Short() {
						t.Skip("-short: the prediction runs the model twice")
					}
					prof, _, err := perf.ShippedProfile(f[1])
					if err != nil {
						t.Fatal(err)
					}
					v, _ := strconv.ParseFloat(f[2], 64)
					pr, err := perf.Predict(perf.PredictInput{Profile: prof, Rate: v, Unit: f[3], Change: f[4]})
					if err != nil {
						t.Fatal(err)
					}
					got = fmt.Sprintf("%.1f Mbit/s predicted", pr.Predicted.Value)
					if pr.Predicted.Unit != "mbps" {
						t.Errorf("unit %s", pr.Predicted.Unit)
					}
				default:
					t.Fatalf("check %q", n.Check)
				}
				if got != n.Model {
					t.Errorf("%s: the model gives %q, the chapter says %q", n.Check, got, n.Model)
				}
				for _, name := range strings.Split(n.Source, ", ") {
					name = strings.Fields(name)[0]
					prof, _, err := perf.ShippedProfile(name)
					if err != nil {
						continue // not a profile's name (a bench, the model)
					}
					if !strings.Contains(n.Measured, strconv.FormatFloat(prof.Rates[0].Value, 'f', -1, 64)) {
						t.Errorf("%s states %v %s; the chapter says %q", name, prof.Rates[0].Value, prof.Rates[0].Unit, n.Measured)
					}
				}
			})
		}
	}
}

func rate(t *testing.T, cfg lab.Config) float64 {
	t.Helper()
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.Run()
	r := l.Results()
	if r.Rate.Unit != "kpps" {
		t.Fatalf("%+v: unit %s", cfg, r.Rate.Unit)
	}
	return r.Rate.Value
}

// TestChapterNapiLocal_RedirectFiguresAreTheModels: the counters chapter 7
// quotes for xdp-redirect with redirect_to=1 on mlx5 (20000 frames, the
// driver's sizes) are what the model gives: the ring in 6.9, the alloc
// cache in 6.10.
func TestChapterNapiLocal_RedirectFiguresAreTheModels(t *testing.T) {
	var text string
	for _, c := range Chapters() {
		if c.Slug == "napi-local" {
			text = strings.Join(c.Paras, " ")
		}
	}
	for _, tc := range []struct {
		era  string
		stat sim.Stat
	}{{"6.9", sim.StatRecycleRing}, {"6.10", sim.StatRecycleCached}} {
		l, err := lab.New(lab.Config{Scenario: "xdp-redirect", Driver: "mlx5", Era: tc.era, Packets: 20000,
			Knobs: sim.KnobOverrides{}.With(sim.KnobRedirectTo, 1)})
		if err != nil {
			t.Fatal(err)
		}
		l.Run()
		n := l.Results().Stats[tc.stat]
		if !strings.Contains(text, fmt.Sprintf("%d pages into the", n)) && !strings.Contains(text, fmt.Sprintf("and %d into the alloc cache", n)) {
			t.Errorf("era %s: the model's %s is %d; the chapter does not quote it", tc.era, tc.stat, n)
		}
	}
}

// maxParaWords is the most words of visible text a paragraph may have.
const maxParaWords = 90

// VisibleWords is the number of words a paragraph shows: its markup parsed
// and stripped (a link's words, an identifier, code count as shown).
func VisibleWords(in []Inline) int {
	var b strings.Builder
	for _, x := range in {
		b.WriteString(x.Text)
	}
	return len(strings.Fields(b.String()))
}

// TestChapters_OneClaimPerParagraph: a paragraph says one thing about one
// figure state: at most one link sets the figure, and it shows at most
// maxParaWords words of text (markup stripped).
func TestChapters_OneClaimPerParagraph(t *testing.T) {
	for _, c := range Chapters() {
		for i, para := range c.Paras {
			in, err := Parse(para, c.Era)
			if err != nil {
				continue // TestChapters_MarkupParsesAndEveryLinkResolves says so
			}
			var presets []string
			for _, x := range in {
				if x.Kind == KindPreset {
					presets = append(presets, x.Preset)
				}
			}
			if len(presets) > 1 {
				t.Errorf("%s ¶%d: %d figure links (%s); one claim per paragraph: split it", c.Slug, i+1, len(presets), strings.Join(presets, ", "))
			}
			if n := VisibleWords(in); n > maxParaWords {
				t.Errorf("%s ¶%d: %d words; at most %d per paragraph", c.Slug, i+1, n, maxParaWords)
			}
		}
	}
}

// TestChapters_SequenceVisitsEveryPresetOnce: the presenter mode's order
// (Chapter.Sequence) has every preset once, in the order the text links
// them (the chapter's opening state first when no paragraph links it),
// each with the paragraph that links it.
func TestChapters_SequenceVisitsEveryPresetOnce(t *testing.T) {
	for _, c := range Chapters() {
		seq := c.Sequence()
		linked := strings.Contains(strings.Join(c.Paras, "\n"), "]("+c.Presets[0].ID+")")
		if len(seq) != len(c.Presets) || !linked && seq[0].Preset != c.Presets[0].ID {
			t.Errorf("%s: sequence %v for %d presets", c.Slug, seq, len(c.Presets))
		}
		seen := map[string]bool{}
		for _, s := range seq {
			if seen[s.Preset] {
				t.Errorf("%s: %s twice", c.Slug, s.Preset)
			}
			seen[s.Preset] = true
			if _, ok := c.Preset(s.Preset); !ok || s.Para < 0 || s.Para >= len(c.Paras) {
				t.Errorf("%s: step %+v", c.Slug, s)
			}
			if s.Para > 0 || strings.Contains(c.Paras[0], "]("+s.Preset+")") {
				if !strings.Contains(c.Paras[s.Para], "]("+s.Preset+")") {
					t.Errorf("%s: paragraph %d does not link %s", c.Slug, s.Para, s.Preset)
				}
			}
		}
	}
}
