package app

import (
	"fmt"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/sim"
)

// StatsPanel shows the pool counters by their `ethtool -S` names with the
// last step's delta, inflight, and the rate so far.
type StatsPanel struct {
	ga.Compo
	V session.StatsView
}

func (c *StatsPanel) Render() (ui ga.UI) {
	defer guardRender(&ui, "StatsPanel")
	v := c.V
	var rows []ga.UI
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		d := v.Stats[s] - v.Before[s]
		delta := ""
		cls := ""
		if d != 0 {
			delta, cls = fmt.Sprintf("+%d", d), "changed"
		}
		rows = append(rows, ga.Tr().Class(cls).Body(
			ga.Th().Scope("row").Body(ga.Code().Text(v.Names[s])),
			ga.Td().ID("stat-"+s.String()).Text(fmt.Sprint(v.Stats[s])),
			ga.Td().Class("delta").Text(delta),
		))
	}
	return ga.Section().ID("stats").Class("panel stats").Aria("label", "statistics").Body(
		ga.H2().Text("Statistics"),
		ga.P().Class("summary").Body(
			ga.Text("op "), ga.Strong().ID("op-count").Text(fmt.Sprint(v.Op)),
			ga.Text(" · packets "), ga.Strong().ID("packet-count").Text(fmt.Sprint(v.Packets)),
			ga.Text(" · inflight "), ga.Strong().ID("inflight").Text(fmt.Sprint(v.Inflight)),
			ga.Text(" · rate "), ga.Strong().ID("rate").Text(v.Rate),
		),
		ga.Table().Class("stats-table").Body(
			ga.Caption().Text("ethtool -S (page_pool counters)"),
			ga.THead().Body(ga.Tr().Body(ga.Th().Scope("col").Text("counter"), ga.Th().Scope("col").Text("value"), ga.Th().Scope("col").Text("last step"))),
			ga.TBody().Body(rows...),
		),
		ga.If(v.NamesNote != "", func() ga.UI { return ga.P().ID("ethtool-note").Class("meta").Text(v.NamesNote) }),
		checkBox("check-counters", "these counters", v.Check),
		ga.If(len(v.Rings) > 0, func() ga.UI { return ringTables(v.Rings) }),
		ga.Table().Class("stats-table lost").Body(
			ga.Caption().Text("packets not delivered"),
			ga.TBody().Body(
				lostRow("stat-rx-missed", "rx_missed_errors", "frames the NIC dropped: no RX buffer posted", v.RxMissed, v.DRxMissed),
				lostRow("stat-alloc-fail", "alloc failures", "page_pool_alloc_pages returned NULL", v.AllocFailures, v.DAllocFail),
				lostRow("stat-lost", "lost", "packets not delivered, all causes", v.Lost, v.DLost),
			),
		),
		ga.If(v.Degenerate != "", func() ga.UI {
			return ga.P().ID("degenerate").Class("degenerate").Role("alert").Body(ga.Strong().Text("Not what the scenario measures: "), ga.Text(v.Degenerate))
		}),
		ga.If(v.Note != "", func() ga.UI { return ga.P().Class("meta").Text(v.Note) }),
	)
}

func lostRow(id, name, doc string, n, d int64) ga.UI {
	delta, cls := "", ""
	if d != 0 {
		delta, cls = fmt.Sprintf("+%d", d), "changed"
	}
	return ga.Tr().Class(cls).Body(
		ga.Th().Scope("row").Title(doc).Body(ga.Code().Text(name)),
		ga.Td().ID(id).Text(fmt.Sprint(n)),
		ga.Td().Class("delta").Text(delta),
	)
}

// ringTables shows per-ring counters under the driver's own names.
func ringTables(rings []session.RingStats) ga.UI {
	var rows []ga.UI
	for _, r := range rings {
		for s := sim.Stat(0); s < sim.NumStats; s++ {
			rows = append(rows, ga.Tr().Body(ga.Th().Scope("row").Body(ga.Code().Text(r.Names[s])), ga.Td().Text(fmt.Sprint(r.Stats[s]))))
		}
	}
	return ga.Details().Class("rings").Body(ga.Summary().Text(fmt.Sprintf("per-ring counters (%d ring(s))", len(rings))),
		ga.Table().Class("stats-table").Body(ga.TBody().Body(rows...)))
}
