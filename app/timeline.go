package app

import (
	"fmt"
	"strconv"
	"strings"

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
	btn := func(id, text, key, act string, disabled bool) ga.UI {
		return buttonDisabled(ga.Button().ID(id).DataSet("act", act).Title(text+" ("+key+")").Aria("keyshortcuts", key), disabled).Text(text).OnClick(onButton)
	}
	play := "play"
	if v.Playing {
		play = "pause"
	}
	var opts []ga.UI
	for i, s := range session.Speeds {
		opts = append(opts, optionSelected(ga.Option().Value(strconv.Itoa(i)), i == v.Speed).Text(s.Label))
	}
	// The run in packets: the part computed so far shaded, the position a
	// mark; a click there goes to that packet.
	pct := func(n int64) string {
		if v.Total <= 0 {
			return "0%"
		}
		return strconv.FormatFloat(min(100, float64(n)*100/float64(v.Total)), 'f', 3, 64) + "%"
	}
	where := fmt.Sprintf("op %d / %d · packet %s of %s", v.Op, v.Max, group(v.Packets), group(v.Total))
	if v.MaxPackets > v.Packets {
		where += fmt.Sprintf(" (computed to packet %s)", group(v.MaxPackets))
	}
	return ga.Section().ID("timeline").Class("panel timeline").Aria("label", "stepping").Body(
		ga.Div().Class("buttons").Body(
			btn("btn-back", "◀ step back", "ArrowLeft", actBack, v.Op == 0),
			btn("btn-step", "step ▶", "ArrowRight", actStep, v.Done),
			btn("btn-packet", "packet ▶▶", "Shift+ArrowRight", actPacket, v.Done),
			buttonDisabled(ga.Button().ID("btn-play").Class("primary").DataSet("act", actPlay).Title(play+" (Space)").Aria("keyshortcuts", "Space").Aria("pressed", v.Playing), v.Done).Text(play).OnClick(onButton),
			btn("btn-end", "run to end", "E", actToEnd, v.Done || v.ToEnd),
			btn("btn-reset", "reset", "R", actReset, v.Op == 0),
			ga.Label().For("f-speed").Text("speed"),
			ga.Select().ID("f-speed").Body(opts...).OnChange(onSpeed),
		),
		// Always in the DOM (hidden until the end): an element that comes
		// and goes would shift its siblings, and go-app would re-create the
		// markers' <details> below it, closing it.
		pHidden(ga.P().ID("run-complete").Class("run-complete").Role("status"), !v.Done).Text(completeText(v)),
		ga.Div().ID("run-bar").Class("run-bar").Title("the whole run in packets: the shaded part is computed; click to go to a packet").
			Aria("hidden", true).OnClick(onRunBar).Body(
			ga.Div().Class("run-bar-done").Style("width", pct(v.MaxPackets)),
			ga.Div().Class("run-bar-at").Style("left", pct(v.Packets)),
		),
		ga.Div().Class("scrub").Body(
			ga.Label().For("scrubber").Text("timeline"),
			ga.Div().Class("scrub-track").Body(
				ga.Input().Type("range").ID("scrubber").Min(0).Max(v.Max).Value(v.Op).Aria("valuetext", fmt.Sprintf("operation %d of %d", v.Op, v.Max)).OnInput(onScrub),
				markerBar(v), // markers.go
			),
			ga.Span().ID("timeline-where").Class("meta").Text(where),
		),
		// Folded (the timeline is sticky on a phone, where every line of
		// it hides the machine); open while it has something to say.
		detailsOpen(ga.Details().Class("goto-wrap"), v.GoToErr != "").Body(ga.Summary().Text("go to an op or a packet"), ga.Form().ID("goto").Class("goto").Attr("novalidate", true).OnSubmit(onGoTo).Body(
			ga.Label().For("goto-n").Text("go to"),
			ga.Select().ID("goto-unit").Aria("label", "go to an operation or a packet").Body(
				ga.Option().Value("packet").Text("packet"),
				ga.Option().Value("op").Text("op"),
			),
			ga.Input().Type("number").ID("goto-n").Min(0).Aria("describedby", "goto-err"),
			ga.Button().Type("submit").ID("btn-goto").Text("go"),
			ga.If(v.GoToErr != "", func() ga.UI { return ga.P().ID("goto-err").Class("field-error").Role("alert").Text(v.GoToErr) }),
		)),
		markerList(v),
	)
}

func completeText(v session.TimelineView) string {
	if !v.Done {
		return ""
	}
	return fmt.Sprintf("run complete — %s packets in %s operations", group(v.Packets), group(int64(v.Op)))
}

// group writes n with narrow no-break spaces between groups of three
// digits (U+202F: a thin space, U+2009, let a phone's line break inside a
// number: "1 000 / 000").
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteRune('\u202f')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
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
