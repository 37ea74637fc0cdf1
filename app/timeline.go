package app

import (
	"fmt"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// Timeline holds the stepping controls and the scrubber: step, step back,
// step a packet, play/pause, speed, reset, and a slider over every operation
// run so far (moving it seeks: a deterministic replay).
type Timeline struct {
	ga.Compo
	V session.TimelineView
}

func (c *Timeline) Render() (ui ga.UI) {
	defer guardRender(&ui, "Timeline")
	v := c.V
	btn := func(id, text, key, act string) ga.UI {
		return ga.Button().ID(id).DataSet("act", act).Title(text+" ("+key+")").Aria("keyshortcuts", key).Text(text).OnClick(onButton)
	}
	play := "play"
	if v.Playing {
		play = "pause"
	}
	var opts []ga.UI
	for i, s := range session.Speeds {
		opts = append(opts, ga.Option().Value(strconv.Itoa(i)).Selected(i == v.Speed).Text(s.Label))
	}
	return ga.Section().ID("timeline").Class("panel timeline").Aria("label", "stepping").Body(
		ga.Div().Class("buttons").Body(
			btn("btn-back", "◀ step back", "ArrowLeft", actBack),
			btn("btn-step", "step ▶", "ArrowRight", actStep),
			btn("btn-packet", "packet ▶▶", "Shift+ArrowRight", actPacket),
			ga.Button().ID("btn-play").Class("primary").DataSet("act", actPlay).Title(play+" (Space)").Aria("keyshortcuts", "Space").Aria("pressed", v.Playing).Text(play).OnClick(onButton),
			btn("btn-reset", "reset", "R", actReset),
			ga.Label().For("f-speed").Text("speed"),
			ga.Select().ID("f-speed").Body(opts...).OnChange(onSpeed),
		),
		ga.Div().Class("scrub").Body(
			ga.Label().For("scrubber").Text("timeline"),
			ga.Div().Class("scrub-track").Body(
				ga.Input().Type("range").ID("scrubber").Min(0).Max(v.Max).Value(v.Op).Aria("valuetext", fmt.Sprintf("operation %d of %d", v.Op, v.Max)).OnInput(onScrub),
				markerBar(v), // markers.go
			),
			ga.Span().Class("meta").Text(fmt.Sprintf("op %d / %d", v.Op, v.Max)),
		),
		markerList(v),
	)
}

// OnUpdate sets the scrubber's max before its value once the render is in
// the page: the update writes attributes in no fixed order, and a value
// written before a larger max is clamped to the old one (playing at max
// speed left the thumb where the last frame's max was).
func (c *Timeline) OnUpdate(ctx ga.Context) {
	op, max := c.V.Op, c.V.Max
	ctx.Defer(func(ga.Context) {
		if el := ga.Window().GetElementByID("scrubber"); el.Truthy() {
			el.Set("max", strconv.FormatUint(max, 10))
			el.Set("value", strconv.FormatUint(op, 10))
		}
	})
}
