package app

import (
	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// checkBox is "check it on your kernel": a closed disclosure with the
// commands that observe a rule or the counters on a live kernel of the
// run's era (session.CheckView, from engine/observe), each with a copy
// button. One handler for every copy button, reading the text from the
// button's data-copy (toolchain P15: a handler made per item keeps its
// first item's text).
func checkBox(id, what string, v session.CheckView) ga.UI {
	if v.Era == "" {
		return ga.Text("")
	}
	var cmds []ga.UI
	for i, c := range v.Commands {
		cid := id + "-" + string(rune('a'+i))
		cmds = append(cmds, ga.Div().Class("check-cmd").DataSet("kind", c.Kind).Body(
			ga.P().Class("meta").Body(ga.Strong().Text(c.Kind+": "), ga.Text(c.Shows)),
			ga.Pre().ID(cid).Class("check-text").Body(ga.Code().Text(c.Text)),
			ga.P().Class("meta check-foot").Body(
				ga.Button().Class("link copy").DataSet("copy", c.Text).Aria("label", "copy the "+c.Kind+" command").OnClick(onCheckCopy).Text("copy"),
				ga.If(c.Run != "", func() ga.UI { return ga.Text(" · " + c.Run) }),
				ga.Span().Title(c.Validated).Text(" · what pplab checked"),
			),
		))
	}
	return ga.Details().ID(id).Class("check").Body(
		ga.Summary().Text("check "+what+" on your kernel ("+v.Tag+")"),
		ga.If(v.Note != "", func() ga.UI { return ga.P().Class("meta check-note").Text(v.Note) }),
		ga.Div().Body(cmds...),
	)
}

// onCheckCopy puts its button's data-copy on the clipboard and says so on
// the button.
func onCheckCopy(ctx ga.Context, e ga.Event) {
	btn := ctx.JSSrc()
	text := btn.Get("dataset").Get("copy").String()
	clip := ga.Window().Get("navigator").Get("clipboard")
	if !clip.Truthy() {
		btn.Set("textContent", "no clipboard here (needs https or localhost): select the text")
		return
	}
	clip.Call("writeText", text)
	btn.Set("textContent", "copied")
}
