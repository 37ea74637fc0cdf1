package app

import (
	"fmt"
	"strconv"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// Controls edits the run's config: scenario, driver, era, sizes, seed,
// packets, knobs (the scenario's first) and the rules to break. Every
// control shows the config in use: an edit that is refused puts its
// control back (reconcileControls) and the reason shows beside it (V.Errs).
type Controls struct {
	ga.Compo
	V session.ControlsView
}

func (c *Controls) Render() (ui ga.UI) {
	defer guardRender(&ui, "Controls")
	v := c.V
	var first, rest []ga.UI
	for _, k := range v.Knobs {
		if k.Matters {
			first = append(first, c.knob(k))
		} else {
			rest = append(rest, c.knob(k))
		}
	}
	var rules []ga.UI
	for _, r := range v.Rules {
		rules = append(rules, ga.Li().Body(
			ga.Label().Title("prevents "+r.Prevents+" → "+r.Kinds).Body(
				ga.Input().Type("checkbox").ID("rule-"+r.Name).DataSet("rule", r.Name).Checked(r.Broken).OnChange(onRule),
				ga.Code().Text(r.Name),
				ga.Span().Class("meta").Text(" — prevents "+r.Prevents+" ("+r.Kinds+")"),
			),
			ga.If(r.Reach != "", func() ga.UI {
				return ga.P().Class("reach meta").ID("reach-"+r.Name).Body(ga.Text("Breaking it changes nothing here: "+r.Reach+". "),
					ga.If(r.ShowMe != "", func() ga.UI {
						return ga.A().ID("reach-show-" + r.Name).Href("?" + r.ShowMe).Text("Show it where it does: " + r.ShowWhere)
					}))
			}),
		))
	}
	broken := brokenNote(v.Rules)
	return ga.Section().ID("controls").Class("panel controls").Aria("label", "configuration").Body(
		ga.Div().Class("control-row").Body(
			c.selectField("scenario", "scenario", v.Scenario, v.Scenarios),
			c.selectField("driver", "driver", v.Driver, v.Drivers),
			c.selectField("era", "kernel era", v.Era, v.Eras),
			c.selectField("preset", "sizes", v.Preset, v.Presets),
			c.field("seed", "seed", ga.Input().Type("number").ID("f-seed").DataSet("field", "seed").Min(0).Value(v.Seed).OnChange(onField)),
			c.field("packets", "packets", ga.Input().Type("number").ID("f-packets").DataSet("field", "packets").Min(1).Max(lab.MaxPackets).Value(v.Packets).OnChange(onField)),
		),
		// Always in the DOM (empty when there is nothing to say): the knobs'
		// and rules' <details> below keep their open state.
		pHidden(ga.P().ID("controls-note").Class("meta").Role("status"), v.Note == "").Text(v.Note),
		ga.P().Class("scenario-doc").Text(v.ScenarioDoc),
		ga.If(v.EraDoc != "", func() ga.UI {
			return ga.P().ID("era-doc").Class("scenario-doc meta").Text("era " + v.Era + ": " + v.EraDoc)
		}),
		fold(v, session.FoldKnobs, "knobs", fmt.Sprintf("knobs (%d that matter for this scenario)", len(first)), false, func() []ga.UI {
			return []ga.UI{
				ga.Div().Class("knob-grid").Body(first...),
				fold(v, session.FoldOtherKnobs, "other-knobs", fmt.Sprintf("all other knobs (%d)", len(rest)), false, func() []ga.UI {
					return []ga.UI{ga.Div().Class("knob-grid").Body(rest...)}
				}),
			}
		}),
		// Until the user opens or closes it, the rules fold is open when
		// the run breaks a rule (a show me, a link with break=): its box
		// shows ticked.
		fold(v, session.FoldRules, "rules", "break a rule (see what it prevents)"+broken, broken != "", func() []ga.UI {
			return []ga.UI{
				ga.Ul().Class("plain").Body(rules...),
				ga.If(v.Errs["break"] != "", func() ga.UI { return ga.P().Class("field-error").Role("alert").Text(v.Errs["break"]) }),
			}
		}),
	)
}

// brokenNote names the rules the run breaks, for the rules fold's summary
// ("" when none).
func brokenNote(rules []session.RuleRow) string {
	var names []string
	for _, r := range rules {
		if r.Broken {
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " — broken: " + strings.Join(names, ", ")
}

// fold is one of the controls' <details>: its body is drawn only while the
// session has it open (the user's toggle posts actFold), so the page's
// first render mounts the summaries alone — the knobs and rules are a
// third of the page's elements.
// open is the fold's state until the user opens or closes it.
func fold(v session.ControlsView, name, class, summary string, open bool, body func() []ga.UI) ga.UI {
	if o, set := v.Open[name]; set {
		open = o
	}
	kids := []ga.UI{ga.Summary().Text(summary)}
	if open {
		kids = append(kids, body()...)
	}
	return detailsOpen(ga.Details().Class(class).DataSet("fold", name), open).OnToggle(onFoldToggle).Body(kids...)
}

// field wraps a control with its label and, when the value does not fit,
// the reason.
func (c *Controls) field(name, label string, control ga.UI) ga.UI {
	err := c.V.Errs[name]
	return ga.Div().Class("field").Body(
		ga.Label().For("f-"+name).Text(label),
		control,
		ga.If(err != "", func() ga.UI {
			return ga.P().Class("field-error").ID("err-" + name).Role("alert").Text(err)
		}),
	)
}

func (c *Controls) selectField(name, label, value string, opts []lab.Choice) ga.UI {
	return c.field(name, label, ga.Select().ID("f-"+name).DataSet("field", name).Body(choiceOptions(opts, value)...).OnChange(onField).OnKeyDown(onSelectKey))
}

// choiceOptions are a select's options for the engine's choices, value
// selected. A choice that does not run carries a short mark; its reason is
// the option's title (and, once chosen, the refusal beside the field);
// the arrow keys pass it (data-blocked: onSelectKey).
func choiceOptions(opts []lab.Choice, value string) []ga.UI {
	var os []ga.UI
	for _, o := range opts {
		text, title := o.Label, o.Doc
		if o.Why != "" {
			text += " " + o.Mark
			title = strings.TrimPrefix(title+" — ", " — ") + "not run here: " + o.Why
		}
		opt := optionSelected(ga.Option().Value(optionValue(o.Value)), o.Value == value).Text(text)
		if title != "" {
			opt = opt.Title(title)
		}
		if o.Why != "" {
			opt = opt.DataSet("blocked", "1")
		}
		os = append(os, opt)
	}
	return os
}

// defaultOption is the value of a select's "default (…)" option: go-app
// writes no value attribute for "", and an option without one has its
// text for its value (the driver select read "default (mvpp2)").
const defaultOption = "(default)"

// optionValue is a choice's value as its option carries it.
func optionValue(v string) string {
	if v == "" {
		return defaultOption
	}
	return v
}

func (c *Controls) knob(k session.KnobRow) ga.UI {
	err := c.V.Errs[k.Name]
	var input ga.UI
	switch words := knobWords[k.Name]; {
	case words != nil:
		// A choice between two behaviours, not on/off: a select in words.
		var opts []ga.UI
		for i, w := range words {
			v := strconv.FormatInt(k.Min+int64(i), 10)
			opts = append(opts, optionSelected(ga.Option().Value(v), k.Value == v).Text(w))
		}
		input = ga.Select().ID("f-"+k.Name).DataSet("field", k.Name).Title(k.Doc).Aria("describedby", "doc-"+k.Name).Body(opts...).OnChange(onField)
	case k.Min == 0 && k.Max == 1:
		// A boolean: a checkbox (its change posts 1 or 0).
		input = ga.Input().Type("checkbox").ID("f-"+k.Name).DataSet("field", k.Name).Checked(k.Value == "1").Title(k.Doc).
			Aria("describedby", "doc-"+k.Name).OnChange(onKnobCheck)
	case k.Min == -1 && k.Max == 1:
		// A tri-state: -1 leaves it to the model (the platform's, the
		// driver's, the era's), 0 off, 1 on.
		opt := func(v, text string) ga.UI { return optionSelected(ga.Option().Value(v), k.Value == v).Text(text) }
		input = ga.Select().ID("f-"+k.Name).DataSet("field", k.Name).Title(k.Doc).Aria("describedby", "doc-"+k.Name).
			Body(opt("-1", "default (-1)"), opt("0", "off (0)"), opt("1", "on (1)")).OnChange(onField)
	default:
		input = ga.Input().Type("number").ID("f-"+k.Name).DataSet("field", k.Name).Min(k.Min).Max(k.Max).Value(k.Value).Title(k.Doc).
			Aria("describedby", "doc-"+k.Name).OnChange(onField)
	}
	return ga.Div().Class("field knob").Body(
		ga.Label().For("f-"+k.Name).Title(k.Doc).Body(ga.Code().Text(k.Name)),
		input,
		ga.Small().ID("doc-"+k.Name).Class("doc").Text(k.Doc+" (range "+strconv.FormatInt(k.Min, 10)+"…"+strconv.FormatInt(k.Max, 10)+")"),
		ga.If(err != "", func() ga.UI { return ga.P().Class("field-error").ID("err-" + k.Name).Role("alert").Text(err) }),
	)
}

// knobWords are the knobs whose values pick one of two behaviours (not
// off/on): each value's words, from Min up.
var knobWords = map[string][]string{
	"provider":    {"0: a dma-buf (devmem TCP)", "1: io_uring zero-copy RX"},
	"redirect_to": {"0: a veth", "1: a second port of the driver"},
}

// reconcileControls sets every control of #controls to the value the view
// shows, where the DOM differs (a refused edit: go-app renders only what
// changed in the view, and a refused edit changes nothing in it).
func reconcileControls(v session.ControlsView) {
	doc := ga.Window().Get("document")
	if !doc.Truthy() {
		return
	}
	set := func(name, value string) {
		el := doc.Call("getElementById", "f-"+name)
		switch {
		case !el.Truthy():
		case el.Get("type").String() == "checkbox":
			if on := value == "1"; el.Get("checked").Bool() != on {
				el.Set("checked", on)
			}
		case el.Get("value").String() != value:
			el.Set("value", value)
		}
	}
	set("scenario", v.Scenario)
	set("driver", optionValue(v.Driver))
	set("era", v.Era)
	set("preset", v.Preset)
	set("seed", v.Seed)
	set("packets", v.Packets)
	for _, k := range v.Knobs {
		set(k.Name, k.Value)
	}
	for _, r := range v.Rules {
		if el := doc.Call("getElementById", "rule-"+r.Name); el.Truthy() && el.Get("checked").Bool() != r.Broken {
			el.Set("checked", r.Broken)
		}
	}
}
