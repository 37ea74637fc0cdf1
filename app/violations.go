package app

import (
	"fmt"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// Violations lists what the invariant checker found, by kind and one by
// one; each entry jumps to its step and highlights its page.
type Violations struct {
	ga.Compo
	Counts [sim.NumKinds]int
	List   []lab.ViolationView // the first ones (bounded)
	Total  int
}

// violationsShown bounds the list the panel draws.
const violationsShown = 50

func (c *Violations) Render() (ui ga.UI) {
	defer guardRender(&ui, "Violations")
	var kinds []ga.UI
	for k := sim.Kind(0); k < sim.NumKinds; k++ {
		if n := c.Counts[k]; n > 0 {
			kinds = append(kinds, ga.Li().Body(ga.Code().Text(k.String()), ga.Text(fmt.Sprintf(": %d", n))))
		}
	}
	var items []ga.UI
	for i, v := range c.List {
		if i == violationsShown {
			break
		}
		j := jump{Seq: v.Seq, PFN: v.PFN}
		rule := ""
		if v.Rule != "" {
			rule = " (rule " + v.Rule + " broken)"
		}
		items = append(items, ga.Li().Body(ga.Button().Class("link violation").
			OnClick(func(ctx ga.Context, e ga.Event) { ctx.NewActionWithValue(actJump, j) }).
			Text(fmt.Sprintf("#%d %s in %s, pfn %#x%s: %s", v.Seq, v.Kind, v.Func, v.PFN, rule, v.Detail))))
	}
	more := c.Total - min(len(c.List), violationsShown)
	return ga.Section().ID("violations").Class("panel violations").Aria("label", "violations").Body(
		ga.H2().Body(ga.Text("Violations: "), ga.Span().ID("violation-total").Text(fmt.Sprint(c.Total))),
		ga.If(c.Total == 0, func() ga.UI { return ga.P().Class("meta").Text("none: every kernel rule held") }),
		ga.Ul().Class("plain").Body(kinds...),
		ga.Ol().Class("violation-list").Body(items...),
		ga.If(more > 0, func() ga.UI { return ga.P().Class("meta").Text(fmt.Sprintf("… %d more (counted, not listed)", more)) }),
	)
}
