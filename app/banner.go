package app

import (
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// Banner shows what went wrong or was changed: recovered panics (with the
// state that caused them), URL parameters that fell back to defaults, a
// comparison that does not run.
type Banner struct {
	ga.Compo
	Items []session.Notice
}

func (c *Banner) Render() (ui ga.UI) {
	defer guardRender(&ui, "Banner")
	if len(c.Items) == 0 {
		return ga.Div().ID("banner").Class("banner empty")
	}
	var items []ga.UI
	for i, it := range c.Items {
		items = append(items, ga.Li().Class(it.Kind).Body(
			ga.Span().Text(it.Text),
			ga.Button().Class("link").DataSet("index", strconv.Itoa(i)).Aria("label", "dismiss").Text("×").OnClick(onDismiss),
		))
	}
	return ga.Div().ID("banner").Class("banner").Role("alert").Body(ga.Ul().Class("plain").Body(items...))
}
