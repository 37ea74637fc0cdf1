package app

import (
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Event handlers: one per kind of control, each reading what it acts on
// from the element it is attached to (ctx.JSSrc(): its id, value and data-*
// attributes), never from a closure.
//
// Why: go-app decides whether to replace an element's handler on a
// re-render by comparing the handler's code pointer (eventHandler.Equal in
// pkg/app/event.go: reflect.ValueOf(fn).Pointer()), and every closure made
// by one func literal shares a code pointer. So a handler made in a loop
// (one per knob, rule, tile, violation, banner entry) would keep the
// variables its element captured at its first render: after a scenario
// change the input labelled gro would set rx_descs, and a tile click would
// open whichever page the tile showed first. Reading from the element
// itself is right whatever go-app keeps. Every handler below is a
// package-level function; nothing in this package makes a handler in a
// loop or captures a loop variable.

// onField: a config field changed. The element carries data-field (the
// field: "scenario", "driver", "era", "preset", "seed" or a knob's name);
// the value is the element's.
func onField(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	v := el.Get("value").String()
	if v == defaultOption {
		v = ""
	}
	ctx.NewActionWithValue(actSet, setField{Field: dataset(el, "field"), Value: v})
}

// onSelectKey: ↑ and ↓ on a closed select of the config skip the options
// it cannot take (data-blocked: marked ✕ or "6.12+"). Chromium commits a
// closed select's arrow key as a change, and the refusal puts the old
// value back: the next ↓ chose the same blocked option again, so the
// options after it could not be reached by arrows (a trial). A blocked
// option can still be chosen with the mouse or by typing its name, and is
// refused with its reason.
func onSelectKey(ctx ga.Context, e ga.Event) {
	key := e.Get("key").String()
	if (key != "ArrowDown" && key != "ArrowUp") || e.Get("altKey").Bool() || e.Get("metaKey").Bool() {
		return
	}
	el := ctx.JSSrc()
	opts := el.Get("options")
	n, i := opts.Length(), el.Get("selectedIndex").Int()
	step := 1
	if key == "ArrowUp" {
		step = -1
	}
	e.PreventDefault()
	for j := i + step; j >= 0 && j < n; j += step {
		o := opts.Index(j)
		if o.Call("hasAttribute", "data-blocked").Bool() {
			continue
		}
		el.Set("value", o.Get("value"))
		v := o.Get("value").String()
		if v == defaultOption {
			v = ""
		}
		ctx.NewActionWithValue(actSet, setField{Field: dataset(el, "field"), Value: v})
		return
	}
}

// onKnobCheck: a boolean knob's checkbox (data-field names the knob).
func onKnobCheck(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	v := "0"
	if el.Get("checked").Bool() {
		v = "1"
	}
	ctx.NewActionWithValue(actSet, setField{Field: dataset(el, "field"), Value: v})
}

// onRule: a rule checkbox toggled (data-rule names the rule).
func onRule(ctx ga.Context, e ga.Event) {
	ctx.NewActionWithValue(actSet, setField{Field: "break", Value: dataset(ctx.JSSrc(), "rule")})
}

// onTile: a click in the machine drawing (one handler on its body, not
// one per tile: a tile is a button carrying data-pfn, and a click on it or
// its badges, or Enter/Space on it, bubbles up here). Delegation also
// spares go-app a handler per tile on every step: a kernel-size machine
// draws a thousand tiles, and each handler is a map entry and a JavaScript
// function go-app keeps and compares.
func onTile(ctx ga.Context, e ga.Event) {
	t := e.Get("target")
	if !t.Truthy() || t.Get("closest").IsUndefined() {
		return
	}
	tile := t.Call("closest", "button.tile[data-pfn]")
	if !tile.Truthy() {
		return
	}
	pfn, err := strconv.ParseInt(dataset(tile, "pfn"), 10, 32)
	if err != nil {
		return
	}
	ctx.NewActionWithValue(actSelect, int32(pfn))
}

// onCloseInspector: the inspector's close button.
func onCloseInspector(ctx ga.Context, e ga.Event) { ctx.NewActionWithValue(actSelect, int32(-1)) }

// onViolation: a violation entry was pressed (data-op, data-pfn).
func onViolation(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	op, err1 := strconv.ParseUint(dataset(el, "op"), 10, 64)
	pfn, err2 := strconv.ParseInt(dataset(el, "pfn"), 10, 32)
	if err1 != nil || err2 != nil {
		return
	}
	ctx.NewActionWithValue(actJump, jump{Op: op, PFN: int32(pfn)})
}

// onDismiss: a banner entry's close button (data-index).
func onDismiss(ctx ga.Context, e ga.Event) {
	i, err := strconv.Atoi(dataset(ctx.JSSrc(), "index"))
	if err != nil {
		return
	}
	ctx.NewActionWithValue(actDismiss, i)
}

// onButton: a stepping button (data-act names the action: actStep, …).
func onButton(ctx ga.Context, e ga.Event) { ctx.NewAction(dataset(ctx.JSSrc(), "act")) }

// onSpeed: the speed select (its value is an index into session.Speeds).
func onSpeed(ctx ga.Context, e ga.Event) {
	n, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
	if err != nil {
		return
	}
	ctx.NewActionWithValue(actSpeed, n)
}

// onScrub: the timeline slider moved (its value is an operation).
func onScrub(ctx ga.Context, e ga.Event) {
	n, err := strconv.ParseUint(ctx.JSSrc().Get("value").String(), 10, 64)
	if err != nil {
		return
	}
	ctx.NewActionWithValue(actSeek, n)
}

// onGoTo: the timeline's "go to" form submitted (its unit select and
// number input).
func onGoTo(ctx ga.Context, e ga.Event) {
	e.PreventDefault()
	doc := ga.Window().Get("document")
	unit := doc.Call("getElementById", "goto-unit")
	n := doc.Call("getElementById", "goto-n")
	if !unit.Truthy() || !n.Truthy() {
		return
	}
	ctx.NewActionWithValue(actGoTo, goTo{Unit: unit.Get("value").String(), Value: n.Get("value").String()})
}

// onRunBar: a click on the run bar goes to the packet under the pointer.
func onRunBar(ctx ga.Context, e ga.Event) {
	bar := ctx.JSSrc()
	r := bar.Call("getBoundingClientRect")
	w := r.Get("width").Float()
	if w <= 0 {
		return
	}
	frac := (e.Get("clientX").Float() - r.Get("left").Float()) / w
	ctx.NewActionWithValue(actGoTo, goTo{Unit: "fraction", Value: strconv.FormatFloat(min(max(frac, 0), 1), 'f', 6, 64)})
}

// onCompare: the comparison select (its value: "" or "era:NAME").
func onCompare(ctx ga.Context, e ga.Event) {
	ctx.NewActionWithValue(actCompare, ctx.JSSrc().Get("value").String())
}

// onTraceToggle: the trace panel opened or closed (the details element's
// open property).
func onTraceToggle(ctx ga.Context, e ga.Event) {
	ctx.NewActionWithValue(actTrace, ctx.JSSrc().Get("open").Truthy())
}

// onFoldToggle: one of the controls' folds opened or closed (data-fold:
// which; toggle does not bubble, so it is the fold's own).
func onFoldToggle(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	ctx.NewActionWithValue(actFold, foldState{Name: dataset(el, "fold"), Open: el.Get("open").Truthy()})
}

// onCopy: the copy-link button.
func onCopy(ctx ga.Context, e ga.Event) { ctx.NewAction(actCopy) }

// dataset reads the element's data-name attribute ("" when absent).
func dataset(el ga.Value, name string) string {
	if !el.Truthy() {
		return ""
	}
	v := el.Call("getAttribute", "data-"+name)
	if !v.Truthy() {
		return ""
	}
	return v.String()
}
