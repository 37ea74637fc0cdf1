package app

import (
	"fmt"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// Narration tells what the last operation did: the kernel function (linked
// to its source in the era's kernel), each event with its reason, the
// counters it incremented, the pages it moved, and the violations found.
// It is not a live region: the page's LiveRegion (a11y.go) says each step
// once, and nothing per frame while playing.
type Narration struct {
	ga.Compo
	V session.NarrationView
	// NoPlay: the page has no play (the tour): the idle text offers the
	// step alone.
	NoPlay bool
}

// maxEvents bounds the events listed for one operation (a TX completion at
// a poll start frees a whole ring's worth).
const maxEvents = 48

// foldEvents: an operation with more events than this (the ring fill at
// interface open, a TX completion's batch) lists them folded.
const foldEvents = 12

func (n *Narration) Render() (ui ga.UI) {
	defer guardRender(&ui, "Narration")
	c := &n.V
	next := ga.P().Class("next").Body(ga.Strong().Text("next: "), ga.Span().ID("next-op").Text(c.Next))
	if c.Done {
		msg := "the run is complete"
		if c.Err != "" {
			msg = "the run stopped: " + c.Err
		}
		next = ga.P().Class("next").ID("next-op").Text(msg)
	}
	if !c.Has {
		return ga.Section().ID("narration").Class("panel narration").Aria("label", "what happened").Body(
			ga.H2().Text("What happened"),
			ga.P().ID("narration-text").Text(idleText(c.Op, !n.NoPlay)),
			next,
		)
	}
	r := c.Rec
	fn := sourceLink(lab.Source(c.Era, c.Driver, r.Op.Func), "narration-fn")
	var events []ga.UI
	for i, e := range r.Events {
		if i == maxEvents {
			events = append(events, ga.Li().Class("more").Text(fmt.Sprintf("… and %d more events (the trace below has the last ones)", len(r.Events)-maxEvents)))
			break
		}
		events = append(events, eventItem(e, c.Era, c.Driver))
	}
	var counters []ga.UI
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		if d := r.Stats[s] - r.StatsBefore[s]; d != 0 {
			counters = append(counters, ga.Li().Body(ga.Code().Text(lab.EthtoolName(c.Driver, s, -1)), ga.Text(fmt.Sprintf(" +%d", d))))
		}
	}
	var moves []ga.UI
	for i, m := range r.Moves {
		if i == 24 {
			moves = append(moves, ga.Li().Text(fmt.Sprintf("… and %d more", len(r.Moves)-24)))
			break
		}
		moves = append(moves, ga.Li().Text(fmt.Sprintf("pfn %#x: %s → %s", m.PFN, session.PlaceHolder(m.From, m.FromHolder), session.PlaceHolder(m.To, m.ToHolder))))
	}
	var viol []ga.UI
	for _, v := range r.Violations {
		rule := ""
		if v.Rule != "" {
			rule = " — rule " + v.Rule + " is broken"
		}
		viol = append(viol, ga.Li().Class("violation").Text(fmt.Sprintf("%s on pfn %#x%s: %s", v.Kind, v.PFN, rule, v.Detail)))
	}
	return ga.Section().ID("narration").Class("panel narration").Aria("label", "what happened").Body(
		ga.H2().Text("What happened"),
		ga.P().ID("narration-text").Body(
			ga.Text(fmt.Sprintf("op %d on cpu%d: ", r.Op.Index+1, r.Op.CPU)), fn, ga.Text(" — "+r.Op.Label),
		),
		ga.If(c.Op > r.Op.Index+1, func() ga.UI {
			return ga.P().ID("narration-stale").Class("meta").Text(fmt.Sprintf("This is the last operation recorded; the run then went on in batch to op %d (step back, ←, records the operation before it).", c.Op))
		}),
		ga.If(len(events) > 0 && len(r.Events) <= foldEvents, func() ga.UI { return ga.Ol().Class("events").Body(events...) }),
		ga.If(len(r.Events) > foldEvents, func() ga.UI {
			return ga.Details().Class("events-fold").Body(ga.Summary().Text(fmt.Sprintf("%d events (show them)", len(r.Events))), ga.Ol().Class("events").Body(events...))
		}),
		ga.If(len(counters) > 0, func() ga.UI {
			return ga.Div().Body(ga.H3().Text("counters"), ga.Ul().Class("plain counters").Body(counters...))
		}),
		ga.If(len(moves) > 0, func() ga.UI {
			return detailsOpen(ga.Details(), len(r.Moves) <= 6).Body(ga.Summary().Text(fmt.Sprintf("%d page move(s)", len(r.Moves))), ga.Ul().Class("plain moves").Body(moves...))
		}),
		ga.If(len(viol) > 0, func() ga.UI {
			return ga.Div().Role("alert").Body(ga.H3().Text("violations found"), ga.Ul().Class("plain").Body(viol...))
		}),
		next,
	)
}

// sourceLink shows a kernel function by its era's name, linked to its
// definition in that release (or to the RFC patch that added it), with the
// note that says what the link is ("RFC, not merged in this form", a
// model-only step).
func sourceLink(src lab.SourceRef, id string) ga.UI {
	code := ga.Code().Text(src.Name)
	if src.URL == "" {
		if src.Note != "" {
			return ga.Span().ID(id).Title(src.Note).Body(code)
		}
		return ga.Span().ID(id).Body(code)
	}
	title := "the definition in " + src.File
	if src.Note != "" {
		title = src.Note
	}
	a := ga.A().ID(id).Href(src.URL).Target("_blank").Rel("noopener").Title(title).Body(code)
	if src.Note == "" {
		return a
	}
	return ga.Span().Body(a, ga.Small().Class("meta").Text(" ("+src.Note+")"))
}

// tracepointText is a tracepoint event as the era's TP_printk prints it
// (without the ftrace timestamp head).
func tracepointText(e sim.Event) string {
	return "tracepoint " + e.TracePayload()
}

func eventItem(e sim.Event, era, driver string) ga.UI {
	fn := sourceLink(lab.Source(era, driver, e.Func), "")
	text := ""
	if e.SKB != 0 {
		text += fmt.Sprintf("skb#%d: ", e.SKB)
	}
	switch e.Kind {
	case sim.EvStateHold, sim.EvStateRelease, sim.EvPoolRelease, sim.EvUpdateNid:
		text += tracepointText(e)
	default:
		if e.Page >= 0 {
			text += fmt.Sprintf("pfn %#x ", e.Page)
		}
		if e.From != sim.PlaceNone || e.To != sim.PlaceNone {
			text += fmt.Sprintf("(%s → %s) ", e.From, e.To)
		}
		text += e.Why
	}
	var stat ga.UI
	if e.Stat != sim.StatNone && e.Stat < sim.NumStats {
		stat = ga.Span().Class("stat").Text(" [" + lab.EthtoolName(driver, e.Stat, -1) + "++]")
	}
	cls := "event"
	if e.Kind == sim.EvViolation || e.Kind == sim.EvWarn {
		cls += " warn"
	}
	return ga.Li().Class(cls).Body(fn, ga.Text(": "+text), ga.If(stat != nil, func() ga.UI { return stat }))
}

// idleText is the narration when no recorded operation describes the state.
func idleText(op uint64, play bool) string {
	switch {
	case op == 0 && play:
		return "Nothing yet: step (→) or play (space) to run the first operation."
	case op == 0:
		return "Nothing yet: step (→) to run the first operation."
	}
	return fmt.Sprintf("At op %d, reached in batch (no operation recorded): step (→) to see the next one narrated.", op)
}
