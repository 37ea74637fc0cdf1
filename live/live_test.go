// Package live records page_pool tracepoints on this machine's own kernel
// (capture.sh) and compares them with the model's veth transfer: `make
// live` prints the comparison; make test runs TestLive_CaptureAgreesWithTheModel.
package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"pplab/engine/lab"
	"pplab/engine/observe"
	"pplab/engine/replay"
	"pplab/engine/sim"
)

// TestLive_CaptureAgreesWithTheModel records a veth pool on this machine
// from its creation to its destroy (a 4 MiB TCP transfer into a namespace
// with an XDP program on the receiving peer: capture.sh), replays it and
// compares its shape with the model's veth transfer of the same size in
// the machine's era. A step the kernel refuses fails the test naming the
// step. make check (-short) leaves it to make test and make live.
func TestLive_CaptureAgreesWithTheModel(t *testing.T) {
	if testing.Short() {
		t.Skip("the live capture runs in make test and make live (it needs root, veth, netns and XDP), not in make check")
	}
	out := filepath.Join(t.TempDir(), "capture.txt")
	cmd := exec.Command("bash", "capture.sh", out, "4")
	b, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(b))
		if i := strings.LastIndex(msg, "live: the kernel refused:"); i >= 0 {
			msg = msg[i:]
		}
		t.Fatalf("capture.sh: %v: %s", err, msg)
	}
	capture, p := replayFile(t, out)
	if p.Holds < replay.BulkRefill {
		t.Fatalf("the capture holds no veth pool: %s", capture.Summary())
	}
	model, res, err := lab.VethTransferTrace(lab.VethTransfer{Era: "6.18", MiB: 4})
	if err != nil {
		t.Fatal(err)
	}
	mt, err := replay.ParseString(model, replay.CLIMaxLines)
	if err != nil {
		t.Fatal(err)
	}
	mr := replay.New(mt)
	rows := replay.CompareShapes(capture.ShapeOf(p), mr.ShapeOf(mr.Busiest()))
	t.Logf("capture:\n%smodel (%d skbs):\n%s\n%s", capture.Summary(), res.SKBs, mr.Summary(), replay.FormatShapes(rows))
	for _, r := range rows {
		if r.Compared && !r.Agree {
			t.Errorf("the capture and the model differ: %s: capture %s, model %s", r.What, r.Capture, r.Model)
		}
	}
}

// TestLive_BpftraceRecordSeesWhatTracefsSees runs the record script `ppsim
// check destroy` prints (observe.RecordScript, this machine's era) under
// bpftrace while capture.sh records the same transfer through tracefs:
// both replay to the same pool — the same holds and releases, the same
// pages, the same destroy.
func TestLive_BpftraceRecordSeesWhatTracefsSees(t *testing.T) {
	if testing.Short() {
		t.Skip("the live capture runs in make test and make live, not in make check")
	}
	if _, err := exec.LookPath("bpftrace"); err != nil {
		t.Fatal("bpftrace is not installed: make bpftrace installs Debian's (make test does)")
	}
	dir := t.TempDir()
	era, _ := sim.EraByName("6.18")
	script := filepath.Join(dir, "record.bt")
	if err := os.WriteFile(script, []byte(observe.RecordScript(era)), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "bpftrace.txt")
	bt := exec.Command("bpftrace", "-o", rec, script)
	var btErr strings.Builder
	bt.Stderr = &btErr
	if err := bt.Start(); err != nil {
		t.Fatal(err)
	}
	defer bt.Process.Kill()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, _ := os.ReadFile(rec); strings.Contains(string(b), "Attaching") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bpftrace did not attach the record script in 30 s: %s", btErr.String())
		}
	}
	out := filepath.Join(dir, "capture.txt")
	if b, err := exec.Command("bash", "capture.sh", out, "2").CombinedOutput(); err != nil {
		t.Fatalf("capture.sh: %v: %s", err, b)
	}
	bt.Process.Signal(syscall.SIGINT)
	bt.Wait()
	tr, tp := replayFile(t, out)
	br, bp := replayFile(t, rec)
	pfns := func(r *replay.Replay, p *replay.Pool) []uint64 {
		var out []uint64
		for _, e := range r.Trace.Events {
			if e.Kind == replay.Hold && e.Pool == p.Ptr {
				out = append(out, e.PFN)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	}
	if tp.Holds != bp.Holds || tp.Releases != bp.Releases || tp.HoldCnt != bp.HoldCnt || tp.DestroyChecks != bp.DestroyChecks || tp.Inflight != bp.Inflight {
		t.Errorf("tracefs and bpftrace replay differently:\ntracefs:  %s\nbpftrace: %s", tr.Summary(), br.Summary())
	}
	if a, b := pfns(tr, tp), pfns(br, bp); !slices.Equal(a, b) {
		t.Errorf("the pages held differ: tracefs %d, bpftrace %d", len(a), len(b))
	}
	if !br.Timed || br.Trace.Formats["bpftrace"] != len(br.Trace.Events) {
		t.Errorf("bpftrace lines: timed %v, formats %v", br.Timed, br.Trace.Formats)
	}
	t.Logf("tracefs and bpftrace: %d holds, %d releases, destroy checks %d", tp.Holds, tp.Releases, tp.DestroyChecks)
}

// TestLive_PerfScriptSeesWhatTracefsSees: perf record -e 'page_pool:*'
// around capture.sh, then perf script (raw pointers, the system:event
// column): its replay is the tracefs capture's.
func TestLive_PerfScriptSeesWhatTracefsSees(t *testing.T) {
	if testing.Short() {
		t.Skip("the live capture runs in make test and make live, not in make check")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Fatal("perf is not installed: make perf installs Debian's linux-perf (make test does)")
	}
	dir := t.TempDir()
	data, out := filepath.Join(dir, "perf.data"), filepath.Join(dir, "capture.txt")
	if b, err := exec.Command("perf", "record", "-q", "-e", "page_pool:*", "-a", "-o", data, "--", "bash", "capture.sh", out, "2").CombinedOutput(); err != nil {
		t.Fatalf("perf record around capture.sh: %v: %s", err, b)
	}
	script, err := exec.Command("perf", "script", "-i", data).Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	perfOut := filepath.Join(dir, "perf.txt")
	if err := os.WriteFile(perfOut, script, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, tp := replayFile(t, out)
	pr, pp := replayFile(t, perfOut)
	if f := pr.Trace.Formats; f["perf"] != len(pr.Trace.Events) {
		t.Errorf("perf script lines read as %v", f)
	}
	if tp.Holds != pp.Holds || tp.Releases != pp.Releases || tp.DestroyChecks != pp.DestroyChecks || tp.Inflight != pp.Inflight {
		t.Errorf("tracefs and perf script replay differently:\ntracefs: %s\nperf:    %s", tr.Summary(), pr.Summary())
	}
}

// replayFile replays a capture file; every line must read and some pool
// must hold pages. It returns the replay and its busiest pool.
func replayFile(t *testing.T, name string) (*replay.Replay, *replay.Pool) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := replay.ParseString(string(b), replay.CLIMaxLines)
	if err != nil {
		t.Fatal(err)
	}
	if tr.UnknownCount > 0 {
		t.Errorf("%s: %d lines did not read: %v", filepath.Base(name), tr.UnknownCount, tr.Unknown)
	}
	r := replay.New(tr)
	p := r.Busiest()
	if p == nil {
		t.Fatalf("%s holds no pool", filepath.Base(name))
	}
	return r, p
}
