// Package tour is the guided tour's content as data: eight chapters, each a
// few paragraphs of prose whose links set the figure (the playground's
// machine view, driven by the engine's own run) to a preset state and step.
// It is plain Go (no go-app): the chapters, their presets and the links they
// make are tested natively (go test ./app/tour), and app renders them.
//
// A paragraph is a string in a small markup:
//
//	[words](preset)     a link that sets the figure to the chapter's preset
//	                    of that id (its config and step, the playground's URL
//	                    form)
//	[words](https://…)  an outside link (a commit, a mail on lore.kernel.org)
//	{ident}             a kernel identifier, linked to its definition in the
//	                    chapter's era ({ident@era} for another era), through
//	                    the engine's per-era identifier table (lab.LookupIdent)
//	`text`              code that is not an identifier (an expression)
//
// Nothing else is special; Parse reports a markup error, and the tests
// parse every paragraph, resolve every identifier and build every preset.
//
// A paragraph says one thing about one figure state: at most one preset
// link and at most 90 words of visible text (TestChapters_OneClaimPerParagraph).
package tour

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// Chapter is one page of the tour.
type Chapter struct {
	Slug  string // the URL path element: /tour/<slug>/
	Title string
	Lede  string // one sentence: what the chapter is about (the index lists it)
	// Era is the era the chapter's identifiers link into unless one names
	// its own ({ident@era}).
	Era     string
	Presets []Preset // the first is the figure's state when the chapter opens
	Paras   []string // the prose, in the markup above
	// Numbers are the measurements the chapter quotes beside what the
	// model gives for them (chapters 2 and 8); the tests recompute every
	// model value from the engine.
	Numbers []Number
	// NumbersNote says where the measured numbers come from.
	NumbersNote string
}

// Preset is a state of the figure: a config at the teaching sizes and an
// operation.
type Preset struct {
	ID string
	// Q is the preset in the URL form: the scenario, then the fields that
	// differ from its teaching preset (driver, era, knobs, break), and step.
	Q string
	// Caption says what the figure shows at this state (the figure's
	// caption when the preset is active).
	Caption string
	// Expect is text the narration of the step shows (the kernel function,
	// the operation's label, an event's reason or a violation): the tests
	// check it against the engine natively and in the browser.
	Expect string
	// Claim is what the sentence that links the preset says the figure
	// shows at its step (TestPresets_ShowWhatTheirProseClaims).
	Claim Claim
}

// Claim is what a preset's sentence says happens at its step, written by
// hand from the prose — never generated from the run, which it is checked
// against: the page it is about by its role (a move between two places,
// not a pfn, which any model change moves), the kernel functions the
// operation runs, the counters it moves, the violation it finds.
type Claim struct {
	// Move is the page the sentence is about: "from>to", places as the
	// machine view names them (sim.Place: buddy, cache, ring, driver,
	// nic-ring, skb, socket, tx-ring, xdp-frame, …); the operation moves
	// some page that way, and the figure brings the first such page into
	// view. "" when the subject is no page move (Structure).
	Move string
	// Structure is the structure the sentence is about when no page moves
	// (a refused coalesce, a count dropped): the figure brings it into
	// view. One of the machine view's places.
	Structure string
	// Funcs are kernel functions, by the era's names, that the
	// operation's events run.
	Funcs []string
	// Counters are page_pool counters (sim.Stat names) and the way the
	// operation moves them: "recycle_ring+" (up), "recycle_cached=" (not
	// at all).
	Counters []string
	// Violation is the kind the operation finds ("" for none, and then it
	// finds none).
	Violation string
}

// Number is one quoted measurement and the model's value for it.
type Number struct {
	What     string // e.g. "mvpp2, 64-byte drop, 5.12 (no skb recycling)"
	Measured string // as measured, with its unit ("962 kpps"); "" for a prediction
	Model    string // what the model gives, formatted as the tests compute it
	Source   string // where the measurement (or the prediction) comes from
	// Check is how the tests recompute Model from the engine: "rate
	// SCENARIO DRIVER ERA..." (the run's rate in each era, kpps), "pair
	// SCENARIO" (ns per alloc + free pair of a pool micro-benchmark) or
	// "predict PROFILE RATE UNIT CHANGE" (ppsim predict).
	Check string
}

// Chapters is the tour in order.
func Chapters() []Chapter { return chapters }

// BySlug returns the chapter with that slug and its index.
func BySlug(slug string) (Chapter, int, bool) {
	for i, c := range chapters {
		if c.Slug == slug {
			return c, i, true
		}
	}
	return Chapter{}, -1, false
}

// Prev and Next are the chapters around index i (ok false at either end).
func Prev(i int) (Chapter, bool) {
	if i <= 0 || i > len(chapters) {
		return Chapter{}, false
	}
	return chapters[i-1], true
}

func Next(i int) (Chapter, bool) {
	if i < -1 || i+1 >= len(chapters) {
		return Chapter{}, false
	}
	return chapters[i+1], true
}

// Preset returns the chapter's preset with that id.
func (c Chapter) Preset(id string) (Preset, bool) {
	for _, p := range c.Presets {
		if p.ID == id {
			return p, true
		}
	}
	return Preset{}, false
}

// Path is the chapter's page path (without a site prefix).
func (c Chapter) Path() string { return "/tour/" + c.Slug + "/" }

// IndexPath is the tour's index page path.
const IndexPath = "/tour/"

// Config is the preset's config (teaching sizes plus its fields) and step.
func (p Preset) Config() (lab.Config, uint64, error) {
	q, err := url.ParseQuery(p.Q)
	if err != nil {
		return lab.Config{}, 0, fmt.Errorf("preset %s: %v", p.ID, err)
	}
	sc := q.Get("scenario")
	cfg, err := lab.Preset(lab.PresetTeaching, sc)
	if err != nil {
		return lab.Config{}, 0, fmt.Errorf("preset %s: %v", p.ID, err)
	}
	var step uint64
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// The rules first: a knob may be accepted only with a rule broken
	// (ParseConfig reads them in the same order).
	slices.SortStableFunc(keys, func(a, b string) int {
		return boolInt(a != "break") - boolInt(b != "break")
	})
	for _, k := range keys {
		for _, v := range q[k] {
			switch k {
			case "scenario":
			case "step":
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return lab.Config{}, 0, fmt.Errorf("preset %s: step %q: %v", p.ID, v, err)
				}
				step = n
			default:
				next, err := cfg.With(k, v)
				if err != nil {
					return lab.Config{}, 0, fmt.Errorf("preset %s: %v", p.ID, err)
				}
				cfg = next
			}
		}
	}
	if err := cfg.Validate(); err != nil {
		return lab.Config{}, 0, fmt.Errorf("preset %s: %v", p.ID, err)
	}
	return cfg, step, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Query is the preset's URL query: the config's URL form (lab.Config.Values,
// v=1) and step, as the playground reads it.
func (p Preset) Query() (url.Values, error) {
	cfg, step, err := p.Config()
	if err != nil {
		return nil, err
	}
	v := cfg.Values()
	if step > 0 {
		v.Set("step", strconv.FormatUint(step, 10))
	}
	return v, nil
}

// Link is the preset's link on the chapter's page: the chapter's path and
// the preset's query ("" on an error: the tests make sure there is none).
func (c Chapter) Link(p Preset) string {
	q, err := p.Query()
	if err != nil {
		return c.Path()
	}
	return c.Path() + "?" + q.Encode()
}

// SameState reports whether two URL queries describe the same figure state
// (the same config and step), whatever their keys' order.
func SameState(a, b url.Values) bool {
	return a.Encode() == b.Encode()
}

// Inline is one piece of a parsed paragraph.
type Inline struct {
	Kind   InlineKind
	Text   string // the words shown
	Preset string // KindPreset: the preset's id
	Href   string // KindLink: the address
	Ident  string // KindIdent: the identifier
	Era    string // KindIdent: the era it links into
}

// InlineKind says what an Inline is.
type InlineKind uint8

const (
	KindText   InlineKind = iota
	KindPreset            // a link that sets the figure
	KindLink              // an outside link
	KindIdent             // a kernel identifier, linked per era
	KindCode              // code without a link
)

// Parse reads one paragraph of the markup; era is the chapter's.
func Parse(para, era string) ([]Inline, error) {
	var out []Inline
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, Inline{Kind: KindText, Text: text.String()})
			text.Reset()
		}
	}
	s := para
	for len(s) > 0 {
		switch s[0] {
		case '[':
			end := strings.Index(s, "](")
			if end < 0 {
				return nil, fmt.Errorf("%q: '[' without '](…)'", clip(s))
			}
			close := strings.IndexByte(s[end:], ')')
			if close < 0 {
				return nil, fmt.Errorf("%q: link without ')'", clip(s))
			}
			words, target := s[1:end], s[end+2:end+close]
			if words == "" || target == "" || strings.ContainsAny(words, "[]") {
				return nil, fmt.Errorf("%q: empty or nested link", clip(s))
			}
			flush()
			if strings.HasPrefix(target, "https://") {
				out = append(out, Inline{Kind: KindLink, Text: words, Href: target})
			} else {
				out = append(out, Inline{Kind: KindPreset, Text: words, Preset: target})
			}
			s = s[end+close+1:]
		case '{':
			close := strings.IndexByte(s, '}')
			if close < 0 {
				return nil, fmt.Errorf("%q: '{' without '}'", clip(s))
			}
			id, e, _ := strings.Cut(s[1:close], "@")
			if e == "" {
				e = era
			}
			if id == "" || strings.ContainsAny(id, " {") {
				return nil, fmt.Errorf("%q: bad identifier", clip(s))
			}
			flush()
			out = append(out, Inline{Kind: KindIdent, Text: id, Ident: id, Era: e})
			s = s[close+1:]
		case '`':
			close := strings.IndexByte(s[1:], '`')
			if close < 0 {
				return nil, fmt.Errorf("%q: '`' without a closing one", clip(s))
			}
			flush()
			out = append(out, Inline{Kind: KindCode, Text: s[1 : close+1]})
			s = s[close+2:]
		default:
			n := strings.IndexAny(s, "[{`")
			if n < 0 {
				n = len(s)
			}
			text.WriteString(s[:n])
			s = s[n:]
		}
	}
	flush()
	return out, nil
}

// MustParse is Parse for the shipped chapters (the tests parse them all): a
// markup error shows as the paragraph's text instead.
func MustParse(para, era string) []Inline {
	in, err := Parse(para, era)
	if err != nil {
		return []Inline{{Kind: KindText, Text: para}}
	}
	return in
}

// IdentURL links a kernel identifier to its definition in the era's
// release on elixir.bootlin.com (the engine's per-era table; an identifier
// the RFC added links its patch): "" when the era's table lacks it.
func IdentURL(era, ident string) string {
	d, ok := lab.LookupIdent(era, ident)
	if !ok {
		return ""
	}
	if d.MsgID != "" {
		return "https://lore.kernel.org/netdev/" + url.PathEscape(d.MsgID) + "/"
	}
	e, err := sim.EraByName(era)
	if err != nil {
		return ""
	}
	return "https://elixir.bootlin.com/linux/" + e.Tag + "/source/" + d.File
}

// IdentTitle is the title of an identifier's link.
func IdentTitle(era, ident string) string {
	d, ok := lab.LookupIdent(era, ident)
	switch {
	case !ok:
		return ""
	case d.MsgID != "":
		return ident + " in the RFC patch (" + lab.RFCNote + ")"
	}
	e, _ := sim.EraByName(era)
	return ident + ": its definition in " + d.File + " of " + e.Tag
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Step is one stop of a chapter read in order (the presenter mode's
// PageDown): a preset and the paragraph that links it.
type Step struct {
	Preset string
	Para   int
}

// Sequence is the chapter's presets in reading order: each paragraph's
// preset link, once each, in the order the text links them — after the
// first preset (the state the chapter opens at) with the first paragraph
// when no paragraph links it.
func (c Chapter) Sequence() []Step {
	var out []Step
	seen := map[string]bool{}
	for i, para := range c.Paras {
		for _, x := range MustParse(para, c.Era) {
			if x.Kind == KindPreset && !seen[x.Preset] {
				seen[x.Preset] = true
				out = append(out, Step{x.Preset, i})
			}
		}
	}
	if len(c.Presets) > 0 && !seen[c.Presets[0].ID] {
		out = append([]Step{{c.Presets[0].ID, 0}}, out...)
	}
	return out
}
