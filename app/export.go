package app

import (
	"strconv"
	"strings"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/engine/lab"
)

// Export: the run as it stands as files — the results as
// `ppsim run --json` prints them, the series as CSV, the trace as text, the
// operations up to the one shown as Chrome Trace Event JSON for Perfetto —
// downloaded (a Blob behind an a[download]), and the counters as an
// `ethtool -S` block, copied to paste into a mail or downloaded. The
// session builds each text when its button is pressed (never per step);
// the charts save themselves as PNG from their own toolbox.

const actExport = "pp-export" // value exportReq

// exportReq is one export button: the kind (session.ExportKinds) and
// whether to copy it instead of downloading it.
type exportReq struct {
	Kind string
	Copy bool
}

// ExportPanel is the export buttons and the run's command line.
type ExportPanel struct {
	ga.Compo
	CLI string // the ppsim command line of the config
}

func (c *ExportPanel) Render() (ui ga.UI) {
	defer guardRender(&ui, "ExportPanel")
	btn := func(id, kind, text, title string, copy bool) ga.UI {
		b := ga.Button().ID(id).DataSet("kind", kind).Title(title).Text(text).OnClick(onExport)
		if copy {
			b = b.DataSet("copy", "1")
		}
		return b
	}
	return ga.Section().ID("export").Class("panel export").Aria("label", "export").Body(
		ga.H2().Text("Export"),
		ga.P().Class("meta").Text("The run as far as the operation shown: at the run's end the JSON is byte for byte what the command below prints. Perfetto (JSON) is the last "+strconv.Itoa(session.PerfettoOps)+" operations at most, to open in ui.perfetto.dev."),
		ga.Div().Class("export-buttons").Body(
			btn("export-json", session.ExportJSON, "results JSON", "download the results as ppsim run --json prints them", false),
			btn("export-csv", session.ExportCSV, "series CSV", "download the throughput and recycle-mix series as CSV", false),
			btn("export-trace", session.ExportTrace, "trace text", "download the trace lines (the last recorded steps' events)", false),
			btn("export-perfetto", session.ExportPerfetto, "Perfetto (JSON)", "download the operations up to this one (the last "+strconv.Itoa(session.PerfettoOps)+" at most) as Chrome Trace Event JSON: open it in ui.perfetto.dev (Open trace file)", false),
			btn("export-ethtool", session.ExportEthtool, "ethtool -S", "download the counters as an ethtool -S block", false),
			btn("copy-ethtool", session.ExportEthtool, "copy ethtool -S", "copy the counters as an ethtool -S block, to paste into a mail", true),
			btn("copy-netdev", session.ExportNetdev, "copy for netdev", "copy the run as plain text for a netdev mail (at most 72 columns): the config, the counters, the model's build id and the link to this state", true),
			btn("export-netdev", session.ExportNetdev, "netdev text", "download the run as plain text for a netdev mail", false),
		),
		ga.P().Class("export-cli").Body(ga.Span().Class("meta").Text("the same run: "), ga.Code().ID("export-cli").Text(c.CLI)),
	)
}

// onExport: an export button (data-kind, data-copy).
func onExport(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	ctx.NewActionWithValue(actExport, exportReq{Kind: dataset(el, "kind"), Copy: dataset(el, "copy") == "1"})
}

// handleExport registers the export action.
func (p *Playground) handleExport(ctx ga.Context) {
	p.handle(ctx, actExport, func(a ga.Action) {
		r := a.Value.(exportReq)
		e, err := p.s.Export(r.Kind)
		if err != nil {
			p.s.Notify("notice", err.Error())
			return
		}
		if r.Copy {
			p.copyText(e)
			return
		}
		download(ctx, e)
	})
}

// download saves e as a file: a Blob URL behind a hidden a[download],
// clicked, then revoked once the browser has taken it.
func download(ctx ga.Context, e session.Exported) {
	w := ga.Window()
	blob := w.Get("Blob").New([]any{e.Text}, map[string]any{"type": e.MIME + ";charset=utf-8"})
	urls := w.Get("URL")
	href := urls.Call("createObjectURL", blob).String()
	doc := w.Get("document")
	a := doc.Call("createElement", "a")
	a.Set("href", href)
	a.Set("download", e.Name)
	a.Get("style").Set("display", "none")
	body := doc.Get("body")
	body.Call("appendChild", a)
	a.Call("click")
	body.Call("removeChild", a)
	ctx.After(10*time.Second, func(ga.Context) { urls.Call("revokeObjectURL", href) })
	w.Set("__pplabLastExport", map[string]any{"name": e.Name, "bytes": len(e.Text)})
}

// copyText puts e's text on the clipboard and says in the banner whether
// it went there (the clipboard may refuse: an unfocused page, a
// permission).
func (p *Playground) copyText(e session.Exported) {
	what, fallback := "the ethtool -S block", "the ethtool -S download"
	if strings.HasSuffix(e.Name, "-netdev.txt") {
		what, fallback = "the netdev text", "the netdev text download"
	}
	clip := ga.Window().Get("navigator").Get("clipboard")
	if !clip.Truthy() {
		p.s.Notify("notice", "this page has no clipboard access (it needs https or localhost): use "+fallback+" instead")
		return
	}
	lines := strings.Count(e.Text, "\n")
	var ok, fail ga.Func
	done := func(msg string) {
		ok.Release()
		fail.Release()
		p.ctx.Dispatch(func(ga.Context) { p.act("copy", func() { p.s.Notify("notice", msg) }) })
	}
	ok = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		done("copied " + what + " (" + strconv.Itoa(lines) + " lines) to the clipboard")
		return nil
	})
	fail = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		why := "refused"
		if len(args) > 0 && args[0].Truthy() {
			why = args[0].Call("toString").String()
		}
		done("the clipboard did not take " + what + " (" + why + "): use " + fallback + " instead")
		return nil
	})
	clip.Call("writeText", e.Text).Call("then", ok, fail)
}

// pageURL is the page's origin and path (window.location), the part of
// a link before its query: the netdev text's link opens the same page on
// the same host, under a sub-path too.
func pageURL() string {
	loc := ga.Window().Get("location")
	if !loc.Truthy() {
		return ""
	}
	return loc.Get("origin").String() + loc.Get("pathname").String()
}

// buildLine is the model's build id as the footer of a page says it:
// the id `ppsim version` prints for the same build.
func buildLine() ga.UI {
	return ga.P().Class("meta build").Body(ga.Text("Model build "), ga.Code().ID("build-id").Text(lab.BuildID()), ga.Text(" (ppsim version prints the same for the same build)."))
}
