//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestExport_Perfetto: the Perfetto (JSON) button downloads Chrome Trace
// Event JSON of the operations up to the one shown. The format and the
// counters are checked natively, event by event (engine/traceevent,
// app/session's TestExport_Perfetto); here, the wiring: the click saves a
// file that parses, names the CPUs and ends at the page's operation.
func TestExport_Perfetto(t *testing.T) {
	p := newPage(t, 1280, 800)
	dir := p.downloads()
	p.open(rootURL + "?v=2&era=7.3&scenario=tcp-stream&step=200")
	p.waitOp(200)
	p.do(chromedp.ScrollIntoView(chromedp.CSS("#export-perfetto")))
	p.shot("perfetto-export")
	if got := p.text("#export-perfetto"); got != "Perfetto (JSON)" {
		t.Errorf("button %q", got)
	}
	start := time.Now()
	name, body := p.download(dir, "#export-perfetto")
	took := time.Since(start)
	var f struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			TS   *float64       `json:"ts"`
			PID  *int           `json:"pid"`
			TID  *int           `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		OtherData       map[string]any `json:"otherData"`
	}
	if err := json.Unmarshal(body, &f); err != nil {
		t.Fatalf("%s (%d bytes) is not JSON: %v", name, len(body), err)
	}
	if !strings.HasSuffix(name, "-op200-perfetto.json") || f.DisplayTimeUnit != "ns" || f.OtherData["to_op"] != 200.0 || f.OtherData["from_op"] != 0.0 {
		t.Errorf("%s: displayTimeUnit %q, otherData %v", name, f.DisplayTimeUnit, f.OtherData)
	}
	ph, threads := map[string]int{}, []string{}
	for _, e := range f.TraceEvents {
		if e.TS == nil || e.PID == nil || e.TID == nil {
			t.Fatalf("event %q without ts, pid or tid", e.Name)
		}
		ph[e.Ph]++
		if e.Name == "thread_name" {
			threads = append(threads, e.Args["name"].(string))
		}
	}
	if ph["i"] < 100 || ph["C"] < 100 || len(threads) == 0 || threads[0] != "cpu0 (NAPI)" {
		t.Errorf("events by ph %v, threads %q", ph, threads)
	}
	t.Logf("%s: %d bytes, %d events %v, threads %q, click to file %v", name, len(body), len(f.TraceEvents), ph, threads, took.Round(time.Millisecond))
	p.noErrors()
}
