package app

import (
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// What a user typed into a prerendered page's form before app.wasm ran.
// The static site prerenders each page (app/prerender.go): on a cold load
// its text box, fields and selects are there, and usable, seconds before
// the wasm mounts — and the mounted page replaces the prerendered one
// (go-app's first render replaces the body's first element), which took
// a paste or a typed rate with it: the what-if page then showed its
// shipped example, the diagnosis page an empty box. A page reads its
// controls in OnInit, which go-app calls while the prerendered document
// is still in place (the replacement follows the component's first
// render), and keeps what differs from what was prerendered.

// earlyForm is the prerendered page's controls the user changed: each
// one's value by its id (only those whose value is not the one the page
// was rendered with: a text control's defaultValue, a select's option
// marked selected), and the control that had the focus, with its
// selection (a text control's).
type earlyForm struct {
	vals             map[string]string
	focus            string
	selStart, selEnd int
	hasSel           bool
}

// readEarlyForm reads the controls ids of the document as it is (in a
// page's OnInit: the prerendered one); nothing outside the browser, or
// for ids the document does not have (a navigation from another page).
func readEarlyForm(ids ...string) earlyForm {
	var f earlyForm
	if !ga.IsClient {
		return f
	}
	defer func() {
		if r := recover(); r != nil {
			ga.Logf("pplab: reading the form typed before the page was up: %v", r)
		}
	}()
	doc := ga.Window().Get("document")
	active := doc.Get("activeElement")
	for _, id := range ids {
		el := doc.Call("getElementById", id)
		if !el.Truthy() {
			continue
		}
		v := el.Get("value").String()
		if v != prerenderedValue(el) {
			if f.vals == nil {
				f.vals = map[string]string{}
			}
			f.vals[id] = v
		}
		if active.Truthy() && active.Equal(el) {
			f.focus = id
			if s := el.Get("selectionStart"); s.Truthy() || s.Type() == ga.TypeNumber {
				f.selStart, f.selEnd, f.hasSel = s.Int(), el.Get("selectionEnd").Int(), true
			}
		}
	}
	return f
}

// prerenderedValue is the value a control showed as the page was
// loaded: a text control's defaultValue; a select's last option with a
// selected attribute (else its first), as the HTML parser picks it (the
// pages set selected only on the chosen option: boolattr.go).
func prerenderedValue(el ga.Value) string {
	if el.Get("tagName").String() == "SELECT" {
		opts := el.Get("options")
		n := opts.Length()
		for i := n - 1; i >= 0; i-- {
			if o := opts.Index(i); o.Get("defaultSelected").Bool() {
				return o.Get("value").String()
			}
		}
		if n > 0 {
			return opts.Index(0).Get("value").String()
		}
		return ""
	}
	return el.Get("defaultValue").String()
}

// typed is the value the user typed into control id before the page was
// up, if any.
func (f earlyForm) typed(id string) (string, bool) {
	v, ok := f.vals[id]
	return v, ok
}

// refocus gives the focus (and the selection) the user had in the
// prerendered page back to the mounted page's control of that id, once
// it is drawn, unless something else has the focus by then.
func (f earlyForm) refocus(ctx ga.Context) {
	if f.focus == "" {
		return
	}
	ctx.Defer(func(ga.Context) {
		doc := ga.Window().Get("document")
		el := doc.Call("getElementById", f.focus)
		if !el.Truthy() || !(doc.Get("activeElement").Equal(doc.Get("body")) || !doc.Get("activeElement").Truthy()) {
			return
		}
		el.Call("focus")
		if f.hasSel {
			el.Call("setSelectionRange", f.selStart, f.selEnd)
		}
	})
}

// whatIfFields are the what-if page's controls, by id, and the field of
// the form each one is.
var whatIfFields = []struct{ id, field string }{
	{"wi-text", "text"}, {"wi-rate", "rate"}, {"wi-unit", "unit"}, {"wi-change", "change"}, {"wi-platform", "platform"},
}

func whatIfFieldIDs() []string {
	ids := make([]string, len(whatIfFields))
	for i, f := range whatIfFields {
		ids[i] = f.id
	}
	return ids
}

// keepTyped is the what-if form in with what the user typed before the
// page was up put over it (typed: by control id): a text typed over a
// listing of the user's own (not a shipped example's) keeps that one as
// the one to put back (Previous), as a link's form does.
func keepTyped(in session.WhatIfInput, typed map[string]string) session.WhatIfInput {
	for _, f := range whatIfFields {
		v, ok := typed[f.id]
		if !ok {
			continue
		}
		switch f.field {
		case "text":
			if v != in.Text && !isShippedOrBlank(in.Text) {
				in.Previous = in.Text
			}
			in.Text = v
		case "rate":
			in.Rate = v
		case "unit":
			in.Unit = v
		case "change":
			in.Change = v
		case "platform":
			in.Platform = v
		}
	}
	return in
}

func isShippedOrBlank(text string) bool {
	return strings.TrimSpace(text) == "" || session.WhatIf(session.WhatIfInput{Text: text}).Example != ""
}
