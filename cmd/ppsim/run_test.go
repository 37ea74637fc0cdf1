package main

import (
	"bytes"
	"os"
	"path/filepath"
	"pplab/engine/sim"
	"strings"
	"testing"
	"time"

	"pplab/engine/lab"
)

func TestHelp_PrintsTheUsageAndExits0(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"predict", "-h"}, {"list", "--help"}, {"compare", "--help"}, {"version", "-h"}, {"help"}} {
		code, out, errOut := ppsim(args...)
		if code != 0 || !strings.HasPrefix(out, "usage:") || errOut != "" {
			t.Errorf("%v: exit %d stdout %.40q stderr %q", args, code, out, errOut)
		}
	}
}

// A profile pasted with a byte-order mark reads as without it.
func TestPredict_ProfileWithABOM(t *testing.T) {
	dir := fixtureDir(t)
	code, out, errOut := ppsim("predict", "--profile", filepath.Join(dir, "bom.txt"), "--rate", "962", "--unit", "kpps", "--change", "skb-recycle")
	if code != 0 || !strings.Contains(out, "driver mvpp2") || errOut != "" {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
}

// A small rate keeps its significant digits instead of printing 0.0.
func TestPredict_SmallRatesKeepTheirDigits(t *testing.T) {
	code, out, _ := ppsim("predict", "--profile", "mvpp2-v1-before", "--rate", "0.002", "--unit", "kpps", "--change", "skb-recycle")
	if code != 0 || !strings.Contains(out, "before:    0.002 kpps") || strings.Contains(out, "predicted: 0.0 ") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// --trace-max stops the trace with a marker line and a note; the
// tracepoints format keeps only the four page_pool tracepoints.
func TestTrace_MaxAndFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.txt")
	code, out, errOut := ppsim("run", "--scenario", "pool-ring", "--packets", "5000", "--trace", path, "--trace-max", "4096", "--json")
	if code != 0 || errOut != "" || !strings.Contains(out, `"notes":["the trace stopped at --trace-max 4096 bytes:`) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(path)
	if len(b) > 4096+100 || !strings.HasSuffix(string(b), "# trace stopped here: --trace-max 4096 bytes\n") {
		t.Errorf("trace of %d bytes ending %q", len(b), b[max(0, len(b)-80):])
	}
	code, _, errOut = ppsim("run", "--scenario", "pool-slow", "--packets", "2000", "--trace", path, "--trace-format", "tracepoints", "--set", "dma_map=1")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ = os.ReadFile(path)
	body, ok := strings.CutPrefix(string(b), sim.TraceFileHeader)
	if !ok {
		t.Errorf("the tracepoints file does not start with the tracefs header: %q", b[:min(len(b), 200)])
	}
	lines := strings.Split(strings.TrimSpace(body), "\n")
	for _, l := range lines {
		if !strings.Contains(l, "page_pool_state_hold:") && !strings.Contains(l, "page_pool_state_release:") {
			t.Fatalf("not a tracepoint line: %q", l)
		}
	}
	if len(lines) < 2000 {
		t.Errorf("%d tracepoint lines for 2000 slow-path pairs", len(lines))
	}
}

// The progress line: packets, simulated time, rate so far, ETA, on one
// updating line; nothing with --json.
func TestProgress_OneUpdatingLine(t *testing.T) {
	t.Setenv("PPSIM_PROGRESS", "1")
	var e bytes.Buffer
	show := progressTo(&e, false)
	l, err := lab.New(lab.Config{Scenario: "drop", Packets: 300_000})
	if err != nil {
		t.Fatal(err)
	}
	l.RunN(200_000)
	show(l, 300_000, 2*time.Second, false)
	line := e.String()
	for _, want := range []string{"\r\x1b[Kppsim: ", " / 300000 packets (", "ms simulated", "kpps so far", ", ETA ", "Ctrl-C prints the result so far", "\r"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress %q lacks %q", line, want)
		}
	}
	if progressTo(&e, true) != nil {
		t.Error("progress with --json")
	}
	t.Setenv("PPSIM_PROGRESS", "")
	if progressTo(&e, false) != nil {
		t.Error("progress on a writer that is not a terminal")
	}
}

// Ctrl-C stops a long run at the next chunk; the result covers the packets
// run, and its counters are those of a run of that length.
func TestRun_InterruptPrintsThePartialResult(t *testing.T) {
	l, err := lab.New(lab.Config{Scenario: "pool-ring", Packets: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan os.Signal, 1)
	stop <- os.Interrupt
	if !runWithProgress(l, 1<<40, nil, stop) {
		t.Fatal("not interrupted")
	}
	if n := l.Packets(); n <= 0 || n >= 1<<40 {
		t.Fatalf("stopped after %d packets", n)
	}
	if r := l.Results(); r.Violations.Total() != 0 {
		v := r.Violations.Total()
		t.Errorf("%d violations in the partial run", v)
	}
}
