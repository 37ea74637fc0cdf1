package app

import (
	"fmt"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Controls edits the wanted config: driver, scenario, era, preset, seed,
// knobs (the scenario's first) and the rules to break. A value that does not
// fit is explained beside its control (Errs); the run goes on with the last
// config that built.
type Controls struct {
	ga.Compo
	Scenario, Driver, Era, Seed, Preset string
	Scenarios                           []option
	Drivers                             []option
	Eras                                []option
	Knobs                               []knobRow
	Rules                               []ruleRow
	Errs                                map[string]string // field -> message
	ScenarioDoc                         string
}

// option is one choice of a select, with why it does not fit (if it does not).
type option struct {
	Value, Label, Why string
}

// knobRow is one knob as the controls show it.
type knobRow struct {
	Name, Value, Doc string
	Min, Max         int64
	Matters          bool // the scenario lists it among the knobs that change what it does
}

// ruleRow is one breakable rule.
type ruleRow struct {
	Name, Prevents, Kinds string
	Broken                bool
}

func (c *Controls) Render() (ui ga.UI) {
	defer guardRender(&ui, "Controls")
	var first, rest []ga.UI
	for _, k := range c.Knobs {
		if k.Matters {
			first = append(first, c.knob(k))
		} else {
			rest = append(rest, c.knob(k))
		}
	}
	var rules []ga.UI
	for _, r := range c.Rules {
		name := r.Name
		rules = append(rules, ga.Li().Body(
			ga.Label().Title("prevents "+r.Prevents+" → "+r.Kinds).Body(
				ga.Input().Type("checkbox").ID("rule-"+name).Checked(r.Broken).
					OnChange(func(ctx ga.Context, e ga.Event) { ctx.NewActionWithValue(actSet, setField{"break", name}) }),
				ga.Code().Text(name),
				ga.Span().Class("meta").Text(" — prevents "+r.Prevents+" ("+r.Kinds+")"),
			)))
	}
	return ga.Section().ID("controls").Class("panel controls").Aria("label", "configuration").Body(
		ga.Div().Class("control-row").Body(
			c.selectField("scenario", "scenario", c.Scenario, c.Scenarios),
			c.selectField("driver", "driver", c.Driver, c.Drivers),
			c.selectField("era", "kernel era", c.Era, c.Eras),
			c.selectField("preset", "sizes", c.Preset, []option{{"teaching", "teaching (16 RX descriptors, 32-slot ring)", ""}, {"kernel", "kernel defaults", ""}}),
			c.field("seed", "seed", ga.Input().Type("number").ID("f-seed").Min(0).Value(c.Seed).
				OnChange(func(ctx ga.Context, e ga.Event) {
					ctx.NewActionWithValue(actSet, setField{"seed", ctx.JSSrc().Get("value").String()})
				})),
		),
		ga.P().Class("scenario-doc").Text(c.ScenarioDoc),
		ga.Details().Class("knobs").Body(
			ga.Summary().Text(fmt.Sprintf("knobs (%d that matter for this scenario)", len(first))),
			ga.Div().Class("knob-grid").Body(first...),
			ga.Details().Body(ga.Summary().Text(fmt.Sprintf("all other knobs (%d)", len(rest))), ga.Div().Class("knob-grid").Body(rest...)),
		),
		ga.Details().Class("rules").Body(
			ga.Summary().Text("break a rule (see what it prevents)"),
			ga.Ul().Class("plain").Body(rules...),
			ga.If(c.Errs["break"] != "", func() ga.UI { return ga.P().Class("field-error").Role("alert").Text(c.Errs["break"]) }),
		),
	)
}

// field wraps a control with its label and, when the value does not fit,
// the reason.
func (c *Controls) field(name, label string, control ga.UI) ga.UI {
	err := c.Errs[name]
	return ga.Div().Class("field").Body(
		ga.Label().For("f-"+name).Text(label),
		control,
		ga.If(err != "", func() ga.UI {
			return ga.P().Class("field-error").ID("err-" + name).Role("alert").Text(err)
		}),
	)
}

func (c *Controls) selectField(name, label, value string, opts []option) ga.UI {
	var os []ga.UI
	for _, o := range opts {
		text := o.Label
		if o.Why != "" {
			text += " — " + o.Why
		}
		os = append(os, ga.Option().Value(o.Value).Selected(o.Value == value).Text(text))
	}
	return c.field(name, label, ga.Select().ID("f-"+name).Body(os...).
		OnChange(func(ctx ga.Context, e ga.Event) {
			ctx.NewActionWithValue(actSet, setField{name, ctx.JSSrc().Get("value").String()})
		}))
}

func (c *Controls) knob(k knobRow) ga.UI {
	name := k.Name
	err := c.Errs[name]
	return ga.Div().Class("field knob").Body(
		ga.Label().For("f-"+name).Title(k.Doc).Body(ga.Code().Text(name)),
		ga.Input().Type("number").ID("f-"+name).Min(k.Min).Max(k.Max).Value(k.Value).Title(k.Doc).
			Aria("describedby", "doc-"+name).
			OnChange(func(ctx ga.Context, e ga.Event) {
				ctx.NewActionWithValue(actSet, setField{name, ctx.JSSrc().Get("value").String()})
			}),
		ga.Small().ID("doc-"+name).Class("doc").Text(k.Doc+" (range "+strconv.FormatInt(k.Min, 10)+"…"+strconv.FormatInt(k.Max, 10)+")"),
		ga.If(err != "", func() ga.UI { return ga.P().Class("field-error").ID("err-" + name).Role("alert").Text(err) }),
	)
}
