package session

import (
	"encoding/json"
	"strings"
	"testing"

	"pplab/engine/traceevent"
)

// The Perfetto export: Chrome Trace Event JSON (engine/traceevent checks
// the format event by event) of the operations up to the one shown — all
// of them on a page stepped by hand, the last PerfettoOps past that — whose
// counters end where the page's machine is.
func TestExport_Perfetto(t *testing.T) {
	type file struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
		OtherData map[string]any `json:"otherData"`
	}
	s := New(query(t, "v=2&era=7.3&scenario=tcp-stream"), nil)
	for _, op := range []uint64{0, 37, PerfettoOps + 500} {
		s.Seek(op)
		e, err := s.Export(ExportPerfetto)
		if err != nil || !strings.HasSuffix(e.Name, "-op"+itoa(int64(op))+"-perfetto.json") || e.MIME != "application/json" {
			t.Fatalf("op %d: %q %q %v", op, e.Name, e.MIME, err)
		}
		var f file
		if err := json.Unmarshal([]byte(e.Text), &f); err != nil {
			t.Fatalf("op %d: not JSON: %v", op, err)
		}
		od := f.OtherData
		from := float64(op - min(op, PerfettoOps))
		if od["to_op"] != float64(op) || od["from_op"] != from || od["truncated"] != false || !strings.Contains(od["state"].(string), "v=2") {
			t.Errorf("op %d: otherData %v", op, od)
		}
		last := map[string]float64{}
		instants := 0
		for _, ev := range f.TraceEvents {
			switch ev.Ph {
			case "C":
				last[ev.Name] = ev.Args["pages"].(float64)
			case "i":
				instants++
			}
		}
		if op > 0 && instants == 0 {
			t.Errorf("op %d: no instants", op)
		}
		for _, p := range s.lab.Snapshot().Pools {
			want := map[string]int{traceevent.CounterCache(p.ID): len(p.Cache), traceevent.CounterRing(p.ID): p.RingCount, traceevent.CounterInflight(p.ID): int(p.Inflight)}
			for n, v := range want {
				if got, ok := last[n]; got != float64(v) || (!ok && v != 0 && from == 0) {
					t.Errorf("op %d: %s ends at %v (%v), the page shows %d", op, n, got, ok, v)
				}
			}
		}
		t.Logf("op %d: %d bytes, %d events", op, len(e.Text), len(f.TraceEvents))
	}
}
