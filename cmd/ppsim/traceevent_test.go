package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --trace-event writes the run as Chrome Trace Event JSON (its format is
// engine/traceevent's tests'): here, that the file is one JSON object that
// ends the run's trace, beside --trace; that --trace-event-max ends it
// validly with a note and otherData's count of dropped events; and that
// --ops traces the operations up to op N.
func TestTraceEvent_File(t *testing.T) {
	dir := t.TempDir()
	te, txt := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.txt")
	type file struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
		} `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		OtherData       map[string]any `json:"otherData"`
	}
	read := func() file {
		t.Helper()
		b, err := os.ReadFile(te)
		if err != nil {
			t.Fatal(err)
		}
		var f file
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%d bytes, not JSON: %v", len(b), err)
		}
		return f
	}
	code, out, errOut := ppsim("run", "--scenario", "forward", "--packets", "500", "--trace", txt, "--trace-event", te, "--json")
	if code != 0 || errOut != "" || strings.Contains(out, "notes") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	f := read()
	ph := map[string]int{}
	for _, e := range f.TraceEvents {
		ph[e.Ph]++
	}
	if ph["i"] < 1000 || ph["C"] < 1000 || ph["M"] < 3 || f.DisplayTimeUnit != "ns" || f.OtherData["to_packets"] != 500.0 ||
		f.OtherData["command"] != "ppsim run --scenario forward --packets 500 --trace "+txt+" --trace-event "+te+" --json" {
		t.Errorf("events by ph %v, otherData %v", ph, f.OtherData)
	}
	if b, _ := os.ReadFile(txt); !strings.Contains(string(b), "page_pool_alloc_pages") {
		t.Errorf("the text trace beside it: %.200q", b)
	}

	code, out, errOut = ppsim("run", "--scenario", "forward", "--packets", "500", "--trace-event", te, "--trace-event-max", "5000", "--json")
	if code != 0 || errOut != "" || !strings.Contains(out, `"notes":["the Chrome Trace Event JSON stopped at --trace-event-max 5000 bytes: `) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if fi, _ := os.Stat(te); fi.Size() > 5000 {
		t.Errorf("%d bytes over --trace-event-max 5000", fi.Size())
	}
	if f = read(); f.OtherData["truncated"] != true || f.OtherData["events_dropped"].(float64) < 100 {
		t.Errorf("otherData %v", f.OtherData)
	}

	code, _, errOut = ppsim("run", "--scenario", "pool-ring", "--ops", "40", "--trace-event", te)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if f = read(); f.OtherData["to_op"] != 40.0 || len(f.TraceEvents) < 40 {
		t.Errorf("--ops 40: %d events, otherData %v", len(f.TraceEvents), f.OtherData)
	}
}
