package app

import (
	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Banner shows what went wrong or was changed: recovered panics (with the
// state that caused them) and URL parameters that fell back to defaults.
type Banner struct {
	ga.Compo
	Items []bannerItem
}

// bannerItem is one message.
type bannerItem struct {
	Kind string // "error" or "notice"
	Text string
}

func (c *Banner) Render() (ui ga.UI) {
	defer guardRender(&ui, "Banner")
	if len(c.Items) == 0 {
		return ga.Div().ID("banner").Class("banner empty")
	}
	var items []ga.UI
	for i, it := range c.Items {
		i := i
		items = append(items, ga.Li().Class(it.Kind).Body(
			ga.Span().Text(it.Text),
			ga.Button().Class("link").Aria("label", "dismiss").Text("×").
				OnClick(func(ctx ga.Context, e ga.Event) { ctx.NewActionWithValue(actDismiss, i) }),
		))
	}
	return ga.Div().ID("banner").Class("banner").Role("alert").Body(ga.Ul().Class("plain").Body(items...))
}
