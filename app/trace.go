package app

import (
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Trace shows the last events as text: the four page_pool tracepoints in
// the kernel's TP_printk format, readable lines for the rest. Only recorded
// steps have events (a batch slice of play at high speed has none). The
// lines are drawn only while the panel is open.
type Trace struct {
	ga.Compo
	Lines []string // the newest last, bounded by the session; nil while closed
	Open  bool
}

func (c *Trace) Render() (ui ga.UI) {
	defer guardRender(&ui, "Trace")
	return ga.Section().ID("trace").Class("panel trace").Aria("label", "trace").Body(
		detailsOpen(ga.Details().ID("trace-panel"), c.Open).OnToggle(onTraceToggle).Body(
			ga.Summary().Text("Trace (last events, tracepoint format)"),
			ga.Pre().ID("trace-text").TabIndex(0).Text(strings.Join(c.Lines, "\n")),
		),
	)
}
