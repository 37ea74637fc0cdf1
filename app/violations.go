package app

import (
	"fmt"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/sim"
)

// Violations lists what the invariant checker found, by kind and one by
// one, as far as the run has gone; each entry jumps to its step and
// highlights its page. Entries found after the operation shown stay in the
// list, marked "later".
type Violations struct {
	ga.Compo
	V session.ViolationsView
}

// violationsShown bounds the list the panel draws.
const violationsShown = 50

func (c *Violations) Render() (ui ga.UI) {
	defer guardRender(&ui, "Violations")
	v := c.V
	var kinds []ga.UI
	for k := sim.Kind(0); k < sim.NumKinds; k++ {
		if n := v.Counts[k]; n > 0 {
			kinds = append(kinds, ga.Li().Body(ga.Code().Text(k.String()), ga.Text(fmt.Sprintf(": %d", n))))
		}
	}
	var items []ga.UI
	for i, x := range v.List {
		if i == violationsShown {
			break
		}
		rule := ""
		if x.Rule != "" {
			rule = " (rule " + x.Rule + " broken)"
		}
		cls, later := "link violation", ""
		if x.Later {
			cls, later = "link violation later", " — later in the run"
		}
		items = append(items, ga.Li().Body(ga.Button().Class(cls).
			DataSet("op", strconv.FormatUint(x.Op, 10)).DataSet("pfn", strconv.Itoa(int(x.PFN))).OnClick(onViolation).
			Text(fmt.Sprintf("op %d: %s in %s%s%s: %s%s", x.Op, x.Kind, x.Func, pfnText(x.PFN), rule, x.Detail, later))))
	}
	more := v.Total + v.Later - min(len(v.List), violationsShown)
	return ga.Section().ID("violations").Class("panel violations").Aria("label", "violations").Body(
		ga.H2().Body(ga.Text("Violations: "), ga.Span().ID("violation-total").Text(fmt.Sprint(v.Total))),
		ga.If(v.Total == 0, func() ga.UI { return ga.P().Class("meta").Text("none: every kernel rule held") }),
		ga.Ul().Class("plain").Body(kinds...),
		ga.Ol().Class("violation-list").Body(items...),
		ga.If(more > 0, func() ga.UI { return ga.P().Class("meta").Text(fmt.Sprintf("… %d more (counted, not listed)", more)) }),
		ga.If(v.Later > 0, func() ga.UI {
			return ga.P().Class("meta").ID("violations-later").Text(fmt.Sprintf("%d more found later in the run (at operations after %d, listed as “later”)", v.Later, v.Op))
		}),
	)
}

// pfnText names the page a violation is on (", pfn 0x…"), or nothing for a
// violation about a pool's state that names no page (pfn -1).
func pfnText(pfn int32) string {
	if pfn < 0 {
		return ""
	}
	return fmt.Sprintf(", pfn %#x", pfn)
}
