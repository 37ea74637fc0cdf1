package app

import (
	"fmt"
	"net/url"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/tour"
)

// The tour's presenter mode: for a talk or a class, the page goes full
// screen, shows the chapter one paragraph at a time beside a larger
// figure, and PageDown / PageUp (what a presentation clicker sends) go to
// the next / previous link's state in reading order (tour.Chapter.Sequence),
// on into the next chapter at a chapter's end. The figure's own keys keep
// their meaning (→ step, ← back, Shift+→ packet, R reset): no key does two
// things. P enters and leaves it, and so does Esc (or leaving full screen).

const (
	actPresent   = "pp-present"    // toggle presenter mode (value: bool, the mode wanted)
	actPresentGo = "pp-present-go" // value int: +1 the next stop, -1 the previous
)

// TourKeys is the tour's key help: every key the page answers, once.
type TourKeys struct {
	ga.Compo
	Presenting bool
}

func (k *TourKeys) Render() (ui ga.UI) {
	defer guardRender(&ui, "TourKeys")
	return ga.P().ID("tour-keys").Class("meta tour-keys").Text("Keys: → step · ← step back · Shift+→ a packet · R reset · " +
		"P presenter mode (full screen, one paragraph at a time): there PageDown and PageUp go to the next and previous link's state, " +
		"on into the next chapter; Esc or P leaves it · in the machine, Tab goes from figure to figure and the arrow keys from page to page.")
}

// PresentBar is presenter mode's bar: where the talk is, and the buttons
// for what the keys do.
type PresentBar struct {
	ga.Compo
	At, Of int // the stop shown (0-based) of the chapter's stops
}

func (b *PresentBar) Render() (ui ga.UI) {
	defer guardRender(&ui, "PresentBar")
	btn := func(id, text, key string, v int) ga.UI {
		return ga.Button().ID(id).Title(text+" ("+key+")").Aria("keyshortcuts", key).DataSet("go", v).Text(text).OnClick(onPresentGo)
	}
	return ga.Div().ID("present-bar").Class("present-bar").Body(
		ga.Span().Class("meta").Body(ga.Text("presenting · "), ga.Strong().ID("present-at").Text(fmt.Sprintf("%d / %d", b.At+1, b.Of))),
		btn("present-prev", "◀ previous", "PageUp", -1),
		btn("present-next", "next ▶", "PageDown", +1),
		ga.Button().ID("present-leave").Title("leave presenter mode (Esc)").Aria("keyshortcuts", "Escape").Text("leave").OnClick(onPresentLeave),
	)
}

// onPresentGo: presenter mode's previous and next buttons (data-go: -1, +1).
func onPresentGo(ctx ga.Context, e ga.Event) {
	if d, err := strconv.Atoi(dataset(ctx.JSSrc(), "go")); err == nil {
		ctx.NewActionWithValue(actPresentGo, d)
	}
}

// onPresentLeave: presenter mode's leave button.
func onPresentLeave(ctx ga.Context, e ga.Event) { ctx.NewActionWithValue(actPresent, false) }

// onPresent: the figure's "present" button (presenter mode on or off).
func onPresent(ctx ga.Context, e ga.Event) { ctx.NewAction(actPresent) }

// present enters (on) or leaves presenter mode.
func (t *Tour) present(on bool) {
	if on == t.presenting {
		return
	}
	t.presenting = on
	doc := ga.Window().Get("document")
	switch {
	case on:
		if el := doc.Get("documentElement"); el.Get("requestFullscreen").Truthy() {
			quiet(el.Call("requestFullscreen"))
		}
		// The bar and the paragraph at the top of the window, whatever
		// the reader had scrolled to.
		t.ctx.Defer(func(ga.Context) {
			ga.Window().Call("scrollTo", 0, 0)
			t.bringSubject("")
		})
	case doc.Get("fullscreenElement").Truthy():
		quiet(doc.Call("exitFullscreen"))
	}
}

// quiet catches a promise's rejection (full screen refused: the presenter
// layout stays, in the window), which would log an error.
func quiet(promise ga.Value) {
	if promise.Truthy() && promise.Get("catch").Truthy() {
		if ignore == nil {
			ignore = ga.FuncOf(func(ga.Value, []ga.Value) any { return nil })
		}
		promise.Call("catch", ignore)
	}
}

var ignore ga.Func

// stop is the index of the chapter's stop the figure is at: the active
// preset's, else the last stop gone to (the reader stepped away from it).
func (t *Tour) stop(c tour.Chapter) int {
	seq := c.Sequence()
	if a := t.activePreset(c); a != "" {
		for i, s := range seq {
			if s.Preset == a {
				return i
			}
		}
	}
	return min(max(t.presentAt, 0), len(seq)-1)
}

// presentGo goes d stops on (−1 back), across a chapter's end.
func (t *Tour) presentGo(d int) {
	c, idx, ok := tour.BySlug(t.slug)
	if !ok {
		return
	}
	seq := c.Sequence()
	i := t.stop(c) + d
	switch {
	case i >= len(seq):
		next, ok := tour.Next(idx)
		if !ok {
			return
		}
		c, seq, i = next, next.Sequence(), 0
	case i < 0:
		prev, ok := tour.Prev(idx)
		if !ok {
			return
		}
		c, seq = prev, prev.Sequence()
		i = len(seq) - 1
	}
	p, _ := c.Preset(seq[i].Preset)
	href := rootPrefix() + c.Link(p)
	u, err := url.Parse(href)
	if err != nil {
		return
	}
	ga.Window().Get("history").Call("pushState", nil, "", href)
	t.presentAt = i
	t.load(u, "")
}
