package app

import (
	"fmt"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Timeline holds the stepping controls and the scrubber: step, step back,
// step a packet, play/pause, speed, reset, and a slider over every operation
// run so far (moving it seeks: a deterministic replay).
type Timeline struct {
	ga.Compo
	Op      uint64
	Max     uint64 // the furthest operation reached
	Playing bool
	Speed   int
	Done    bool
}

// speeds are the play speeds: operations per second, or 0 for as fast as
// the page allows (the engine runs in slices of a few milliseconds per
// animation frame, so the page never freezes).
var speeds = []struct {
	label string
	opsPS int
}{{"slow (2 ops/s)", 2}, {"10 ops/s", 10}, {"60 ops/s", 60}, {"1000 ops/s", 1000}, {"100 000 ops/s", 100_000}, {"max", 0}}

func (c *Timeline) Render() (ui ga.UI) {
	defer guardRender(&ui, "Timeline")
	btn := func(id, text, key, act string) ga.UI {
		return ga.Button().ID(id).Title(text+" ("+key+")").Aria("keyshortcuts", key).Text(text).
			OnClick(func(ctx ga.Context, e ga.Event) { ctx.NewAction(act) })
	}
	play := "play"
	if c.Playing {
		play = "pause"
	}
	var opts []ga.UI
	for i, s := range speeds {
		opts = append(opts, ga.Option().Value(strconv.Itoa(i)).Selected(i == c.Speed).Text(s.label))
	}
	max := c.Max
	if max < c.Op {
		max = c.Op
	}
	return ga.Section().ID("timeline").Class("panel timeline").Aria("label", "stepping").Body(
		ga.Div().Class("buttons").Body(
			btn("btn-back", "◀ step back", "ArrowLeft", actBack),
			btn("btn-step", "step ▶", "ArrowRight", actStep),
			btn("btn-packet", "packet ▶▶", "Shift+ArrowRight", actPacket),
			ga.Button().ID("btn-play").Class("primary").Title(play+" (Space)").Aria("keyshortcuts", "Space").Aria("pressed", c.Playing).Text(play).
				OnClick(func(ctx ga.Context, e ga.Event) { ctx.NewAction(actPlay) }),
			btn("btn-reset", "reset", "R", actReset),
			ga.Label().For("f-speed").Text("speed"),
			ga.Select().ID("f-speed").Body(opts...).OnChange(func(ctx ga.Context, e ga.Event) {
				n, _ := strconv.Atoi(ctx.JSSrc().Get("value").String())
				ctx.NewActionWithValue(actSpeed, n)
			}),
		),
		ga.Div().Class("scrub").Body(
			ga.Label().For("scrubber").Text("timeline"),
			ga.Input().Type("range").ID("scrubber").Min(0).Max(max).Value(c.Op).Aria("valuetext", fmt.Sprintf("operation %d of %d", c.Op, max)).
				OnInput(func(ctx ga.Context, e ga.Event) {
					n, err := strconv.ParseUint(ctx.JSSrc().Get("value").String(), 10, 64)
					if err == nil {
						ctx.NewActionWithValue(actSeek, n)
					}
				}),
			ga.Span().Class("meta").Text(fmt.Sprintf("op %d / %d", c.Op, max)),
		),
	)
}

// OnUpdate sets the scrubber's max before its value once the render is in
// the page: the update writes attributes in no fixed order, and a value
// written before a larger max is clamped to the old one (playing at max
// speed left the thumb where the last frame's max was).
func (c *Timeline) OnUpdate(ctx ga.Context) {
	op, max := c.Op, max(c.Max, c.Op)
	ctx.Defer(func(ga.Context) {
		if el := ga.Window().GetElementByID("scrubber"); el.Truthy() {
			el.Set("max", strconv.FormatUint(max, 10))
			el.Set("value", strconv.FormatUint(op, 10))
		}
	})
}
