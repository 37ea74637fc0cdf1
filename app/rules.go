package app

import (
	"fmt"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// The rules view (/rules) and the playground's "show me" panel. The texts
// are the engine's (session.RuleCards, session.ShowView): nothing here
// knows a rule.

// Actions of the show-me panel.
const (
	actShowJump  = "pp-show-jump"  // back to the shown rule's first violation
	actShowClose = "pp-show-close" // close the panel
)

// sitePath is path p of the site, under the prefix the site is hosted at
// (go-app resolves only /web/ paths itself; GOAPP_ROOT_PREFIX is "/" or
// "/pplab").
func sitePath(p string) string { return rootPrefix() + p }

// RulesPath is the rules view's path (a directory, so that a static host
// serves rules/index.html).
const RulesPath = "/rules/"

// RulesPage lists every breakable rule: what it is, the kernel code whose
// test it is (linked per release), where breaking it shows its failure,
// and a "show me" link that opens the playground at that failure.
type RulesPage struct {
	ga.Compo
	cards []session.RuleCard
	err   string
}

func (p *RulesPage) OnInit() {
	defer func() {
		if r := recover(); r != nil {
			p.err = fmt.Sprint(r)
			ga.Logf("pplab: rules view: %v", r)
		}
	}()
	p.cards = session.RuleCards()
}

func (p *RulesPage) OnMount(ctx ga.Context) {
	ga.Window().Set("__pplab", map[string]any{"mounted": true, "page": "rules", "rules": len(p.cards)})
}

func (p *RulesPage) Render() (ui ga.UI) {
	defer guardRender(&ui, "RulesPage")
	var cards []ga.UI
	var toc []ga.UI
	for _, c := range p.cards {
		cards = append(cards, ruleCard(c))
		toc = append(toc, ga.Li().Body(ga.A().Href("#rule-"+c.Name).Body(ga.Code().Text(c.Name))))
	}
	return ga.Main().ID("rules-page").Class("rules-page").Body(
		ga.Header().Class("top").Body(
			ga.A().Class("skip").Href("#rule-list").Text("skip to the rules"),
			ga.H1().Body(ga.A().Class("home").Href(sitePath("/")).Text("pplab"), ga.Span().Class("tag").Text(" — the rules you can break")),
			ga.P().Class("lede").Text("Each rule below is a test in the kernel's page_pool or sk_buff code that exists to prevent one failure. Break it and the model's invariant checker names that failure; \"show me\" opens the playground on the configuration where it shows, at the operation that found it, with its page marked."),
			ga.Nav().Aria("label", "rules").Body(ga.Ol().Class("rule-toc").Body(toc...)),
		),
		ga.If(p.err != "", func() ga.UI {
			return ga.P().Class("field-error").Role("alert").Text("the rules could not be listed: " + p.err)
		}),
		ga.Div().ID("rule-list").Class("rule-list").Body(cards...),
		ga.Footer().Class("foot").Body(ga.P().Body(
			ga.Text("Kernel links open elixir.bootlin.com at each era's release. "),
			ga.A().Href(sitePath("/")).Text("back to the playground"))),
	)
}

func ruleCard(c session.RuleCard) ga.UI {
	var rel []ga.UI
	for _, r := range c.Releases {
		var eras []ga.UI
		for _, e := range r.Eras {
			if e.URL == "" {
				eras = append(eras, ga.Span().Class("era").Text(e.Era))
			} else {
				eras = append(eras, ga.A().Class("era").Href(e.URL).Target("_blank").Rel("noopener").Title(e.Tag+": "+r.File).Text(e.Era))
			}
			eras = append(eras, ga.Text(" "))
		}
		where := r.File
		if where == "" {
			where = r.Note
		}
		rel = append(rel, ga.Li().Body(ga.Code().Text(r.Name), ga.Span().Class("meta").Text(" ("+where+") in "), ga.Span().Body(eras...)))
	}
	d := c.Demo
	demo := fmt.Sprintf("%s on %s in %s", d.Scenario, d.Driver, d.Era)
	if len(d.Set) > 0 {
		demo += ", " + strings.Join(d.Set, " ")
	}
	return ga.Article().ID("rule-"+c.Name).Class("panel rule-card").Aria("labelledby", "rule-h-"+c.Name).Body(
		ga.H2().ID("rule-h-"+c.Name).Body(ga.Code().Text(c.Name)),
		ga.P().Class("prevents").Body(ga.Strong().Text("Prevents: "), ga.Text(c.Prevents+".")),
		ga.P().Body(ga.Strong().Text("Breaking it produces: "), kindList(c.Kinds)),
		ga.P().Class("enforcer").Body(ga.Strong().Text("Enforced by: "), srcLink(c.Enforcer),
			ga.Span().Class("meta").Text(fmt.Sprintf(" (%s, in %s; the %s layer of the model)", c.Enforcer.File, c.EnforcerEra, c.Layer))),
		ga.Details().Class("releases").Body(
			ga.Summary().Text("the function in each release"),
			ga.Ul().Class("plain").Body(rel...),
		),
		ga.P().Class("intact").Body(ga.Strong().Text("With the rule intact: "), ga.Text(c.Intact+".")),
		ga.If(c.HasDemo, func() ga.UI {
			return ga.P().Class("demo").Body(ga.Strong().Text("Where it shows: "), ga.Text(demo),
				ga.If(len(d.Cleared) > 0, func() ga.UI {
					return ga.Text(", with " + strings.Join(d.Cleared, ", ") + " broken first to clear its way")
				}),
				ga.Text(" → "), ga.Code().Text(d.Kind))
		}),
		ga.P().Class("meta decides").Text("Its check decides something in: "+strings.Join(c.DecidesIn, "; ")+"."),
		ga.If(c.HasDemo, func() ga.UI {
			return ga.A().ID("showme-"+c.Name).Class("btn showme").Href(sitePath("/?"+c.ShowMe)).
				Aria("label", "show me "+c.Name+" broken: its first "+d.Kind).Text("show me")
		}),
	)
}

func kindList(kinds []string) ga.UI {
	var out []ga.UI
	for i, k := range kinds {
		if i > 0 {
			out = append(out, ga.Text(" or "))
		}
		out = append(out, ga.Code().Text(k))
	}
	return ga.Span().Body(out...)
}

// srcLink is a kernel function linked to its definition (plain text when
// the engine has no link, its note as the title).
func srcLink(src lab.SourceRef) ga.UI {
	code := ga.Code().Text(src.Name)
	if src.URL == "" {
		return ga.Span().Title(src.Note).Body(code)
	}
	title := "the definition in " + src.File
	if src.Note != "" {
		title = src.Note
	}
	return ga.A().Href(src.URL).Target("_blank").Rel("noopener").Title(title).Body(code)
}

// RulePanel is the playground's "show me" panel: the rule shown, what went
// wrong at its first violation, the page marked, and what the rule would
// have done.
type RulePanel struct {
	ga.Compo
	V session.ShowView
}

func (c *RulePanel) Render() (ui ga.UI) {
	defer guardRender(&ui, "RulePanel")
	v := c.V
	if v.Rule == "" {
		return ga.Div().ID("show-panel-closed").Hidden(true)
	}
	var body []ga.UI
	body = append(body,
		ga.H2().Body(ga.Text("Breaking "), ga.Code().Text(v.Rule)),
		ga.P().Class("meta").Text("It prevents "+v.Prevents+" ("+strings.Join(v.Kinds, " or ")+")."),
	)
	switch {
	case v.Err != "":
		body = append(body, ga.P().Class("field-error").Role("alert").Text("The demo could not be shown: "+v.Err))
	case !v.Broken:
		body = append(body, ga.P().ID("show-wrong").Text("The rule holds in this run (its checkbox is off): nothing it prevents can happen here."))
	case !v.Found:
		body = append(body, ga.P().ID("show-wrong").Text(fmt.Sprintf("No violation the broken rule caused yet, as far as the run went: step or play on (the demo is %s on %s in %s).", v.Demo.Scenario, v.Demo.Driver, v.Demo.Era)))
	}
	if v.Found && v.Broken {
		mark := ""
		switch {
		case !v.At:
			mark = fmt.Sprintf("The run shows op %d; the violation was found after op %d.", c.opShown(), v.V.Op)
		case v.PFN < 0:
			mark = "No page is marked: " + v.TileNote + "."
		case v.Free:
			mark = fmt.Sprintf("Marked: pfn %#x, freed to the page allocator by this operation (drawn under “just freed” in the machine).", v.PFN)
		default:
			mark = fmt.Sprintf("Marked: pfn %#x, the selected tile in the machine.", v.PFN)
		}
		if v.At && v.TileNote != "" && v.PFN >= 0 {
			mark += " (" + v.TileNote + ".)"
		}
		body = append(body,
			ga.H3().Text("What went wrong"),
			ga.P().ID("show-wrong").DataSet("kind", v.V.Kind).DataSet("op", v.V.Op).DataSet("pfn", v.PFN).Text(v.Wrong),
			ga.P().ID("show-mark").Class("meta").Text(mark),
			ga.H3().Text("What the rule would have done"),
			ga.P().ID("show-intact").Body(ga.Text("With "), ga.Code().Text(v.Rule), ga.Text(" intact, "+v.Intact+".")),
			ga.P().Class("meta").Body(ga.Text("The test is in "), srcLink(v.Enforcer), ga.Text(fmt.Sprintf(" (%s, era %s).", v.Enforcer.File, v.Era))),
		)
		if !v.At {
			body = append(body, ga.Button().ID("btn-show-jump").Class("link").OnClick(onShowJump).Text(fmt.Sprintf("back to the violation (op %d)", v.V.Op)))
		}
	}
	body = append(body, checkBox("check-rule", "it", v.Check))
	body = append(body, ga.P().Class("show-actions").Body(
		ga.A().ID("show-rules").Href(sitePath(RulesPath+"#rule-"+v.Rule)).Text("all the rules"),
		ga.Text(" · "),
		ga.Button().ID("btn-show-close").Class("link").OnClick(onShowClose).Text("close"),
	))
	return ga.Section().ID("show-panel").Class("panel show-panel").Aria("label", "the rule shown").Body(body...)
}

// opShown is the operation the run shows (the violation's when At).
func (c *RulePanel) opShown() uint64 { return c.V.Op }

func onShowJump(ctx ga.Context, e ga.Event)  { ctx.NewAction(actShowJump) }
func onShowClose(ctx ga.Context, e ga.Event) { ctx.NewAction(actShowClose) }

// freedBox draws the selected page when it is back in the page allocator
// (a violation's page freed in the step that found it): the machine draws
// pages that are not free, so it would have no tile.
func freedBox(v *session.MachineView) ga.UI {
	if !v.SelectedFree || v.Selected < 0 {
		return ga.Text("")
	}
	p := lab.PageView{PFN: v.Selected, Place: "buddy", Holder: lab.Holder{Kind: "buddy", ID: -1}}
	cell := tileCell(p, true, true, noteOf("just freed to the page allocator"))
	return ga.Div().Class("box freed").Body(
		ga.H3().Text("just freed"),
		ga.P().Class("meta").Text(fmt.Sprintf("pfn %#x went back to the page allocator; the inspector shows its last moves", int(v.Selected))),
		&TileRow{Class: "ring-slots", Cells: []Cell{cell}},
	)
}
