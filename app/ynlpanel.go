package app

import (
	"fmt"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// YNLPanel is the pool panel's view of the run as ynl would show it (issue
// 21 §3): a <details> (the session's text table TableYNL, built only while
// open, so a closed one costs a step nothing) with the replies of
// `ynl --family netdev --dump page-pool-get` and `page-pool-stats-get` and
// what `ynltool page-pool stats` derives, for the run at the step shown —
// to compare like with like against a real machine's output, or to paste
// into /diagnose.
type YNLPanel struct {
	ga.Compo
	V session.YNLView
}

func (c *YNLPanel) Render() (ui ga.UI) {
	defer guardRender(&ui, "YNLPanel")
	v := c.V
	body := []ga.UI{ga.Summary().Text("the pools as ynl shows them (page-pool-get, page-pool-stats-get, ynltool)")}
	if v.Open {
		body = append(body,
			ga.If(v.Note != "", func() ga.UI { return ga.P().ID("ynl-note").Class("meta").Text(v.Note) }),
			ga.P().Class("meta").Text(fmt.Sprintf("At op %d: %d pool(s) visible to netlink (a pool made with pp_params.netdev). The same as ppsim run --json's \"ynl\" key.", v.Op, v.Pools)),
			ga.Pre().ID("ynl-pool-get").Class("ynl-out").Text(v.PoolGet),
			ga.If(v.IDNote != "", func() ga.UI { return ga.P().ID("ynl-id-note").Class("meta").Text(v.IDNote) }),
			ga.Pre().ID("ynl-stats-get").Class("ynl-out").Text(v.StatsGet),
			ga.Pre().ID("ynl-ynltool").Class("ynl-out").Text(v.Ynltool),
			ga.P().ID("ynl-formula").Class("meta").Body(ga.Code().Text(v.Formula)),
			ga.P().Body(ga.A().ID("ynl-diagnose").Href(sitePath(DiagnosePath)).OnClick(onYNLDiagnose).Text("diagnose these counters →")),
		)
	}
	return ga.Section().ID("ynl-panel").Class("panel ynl-panel").Aria("label", "the pools as ynl shows them").Body(
		detailsOpen(ga.Details().ID("ynl").DataSet("table", session.TableYNL), v.Open).OnToggle(onTableToggle).Body(body...),
	)
}

// onYNLDiagnose: "diagnose these counters" puts the two dumps in the
// diagnosis page's text box (its stored text) before the link opens it.
func onYNLDiagnose(ctx ga.Context, e ga.Event) {
	doc := ga.Window().Get("document")
	text := ""
	for _, id := range []string{"ynl-pool-get", "ynl-stats-get"} {
		if el := doc.Call("getElementById", id); el.Truthy() {
			text += el.Get("textContent").String()
		}
	}
	if text != "" {
		storageSet(diagStoreText, text)
		storageSet(diagStoreInterval, "")
	}
}
