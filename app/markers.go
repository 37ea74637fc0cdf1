package app

import (
	"fmt"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// Timeline markers: the operations the engine marked, as
// ticks on a bar under the scrubber (a click jumps there) and as a list
// (the keyboard's and a screen reader's way to them, and the way to
// markers whose ticks overlap); ] and [ go to the next and the previous
// one. What they mark and where is the session's (session.MarkerView).

// Marker actions.
const (
	actMarker     = "pp-marker"      // value jump: a marker's scrubber op, and a violation's page (-1: none)
	actNextMarker = "pp-next-marker" // to the next marker
	actPrevMarker = "pp-prev-marker" // to the previous marker
)

// markerBar is the ticks under the scrubber. The ticks are for the mouse
// (out of the tab order, hidden from assistive technology): the list
// below carries the same markers as buttons.
func markerBar(v session.TimelineView) ga.UI {
	if len(v.Markers) == 0 {
		return ga.Div().Class("marker-bar empty").Aria("hidden", "true")
	}
	ticks := make([]ga.UI, 0, len(v.Markers))
	for _, m := range v.Markers {
		cls := "marker mk-" + m.Kind
		if m.Here {
			cls += " here"
		}
		ticks = append(ticks, ga.Button().Class(cls).TabIndex(-1).
			Style("left", strconv.FormatFloat(m.Pct, 'f', 2, 64)+"%").
			DataSet("op", m.Op).DataSet("pfn", m.PFN).Title(m.Label).OnClick(onMarker))
	}
	return ga.Div().ID("marker-bar").Class("marker-bar").Aria("hidden", "true").Body(ticks...)
}

// markerList is every marker as a button, in order, with the next and
// previous buttons.
func markerList(v session.TimelineView) ga.UI {
	items := make([]ga.UI, 0, len(v.Markers))
	for _, m := range v.Markers {
		cls := "marker-item mk-" + m.Kind
		if m.Here {
			cls += " here"
		}
		items = append(items, ga.Li().Body(
			ga.Button().Class(cls).DataSet("op", m.Op).DataSet("pfn", m.PFN).DataSet("kind", m.Kind).Aria("current", m.Here).
				OnClick(onMarker).Body(ga.Span().Class("mk-dot").Aria("hidden", "true"), ga.Text(m.Label)),
		))
	}
	summary := fmt.Sprintf("markers (%d)", len(v.Markers))
	if len(v.Markers) == 0 {
		summary = "markers (none yet)"
	}
	return ga.Details().ID("markers").Class("markers").Body(
		ga.Summary().Text(summary),
		ga.Div().Class("marker-nav").Body(
			ga.Button().ID("btn-prev-marker").DataSet("act", actPrevMarker).Title("previous marker ([)").Aria("keyshortcuts", "[").Text("◀ previous marker").OnClick(onButton),
			ga.Button().ID("btn-next-marker").DataSet("act", actNextMarker).Title("next marker (])").Aria("keyshortcuts", "]").Text("next marker ▶").OnClick(onButton),
		),
		ga.P().Class("meta").Text(fmt.Sprintf("What a reader should look at, as far as the run went: the first %d of each kind (slow-path allocations, a full alloc cache or ptr_ring, a released page, a failed allocation, a missed frame, a violation, destroy's retries). Keys: ] next, [ previous.", lab.MarkersPerKind)),
		ga.Ol().Class("plain marker-list").Body(items...),
	)
}

// onMarker: a marker's tick or list entry (data-op: the scrubber's op;
// data-pfn: a violation's page, -1 for none).
func onMarker(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	op, err1 := strconv.ParseUint(dataset(el, "op"), 10, 64)
	pfn, err2 := strconv.ParseInt(dataset(el, "pfn"), 10, 32)
	if err1 != nil || err2 != nil {
		return
	}
	ctx.NewActionWithValue(actMarker, jump{Op: op, PFN: int32(pfn)})
}

// handleMarkers registers the marker actions.
func (p *Playground) handleMarkers(ctx ga.Context) {
	p.handle(ctx, actMarker, func(a ga.Action) {
		j := a.Value.(jump)
		p.step(func() { p.s.GoMarker(j.Op, j.PFN) })
	})
	p.handle(ctx, actNextMarker, func(a ga.Action) { p.markerKey("]") })
	p.handle(ctx, actPrevMarker, func(a ga.Action) { p.markerKey("[") })
}

// markerKey runs the marker shortcut key: ] the next marker, [ the
// previous one.
func (p *Playground) markerKey(key string) {
	if key == "]" {
		p.step(func() { p.s.NextMarker() })
	} else {
		p.step(func() { p.s.PrevMarker() })
	}
}
