// Package live records page_pool tracepoints on this machine's own kernel
// (capture.sh) and compares them with the model's veth transfer: `make
// live` prints the comparison; make test runs TestLive_CaptureAgreesWithTheModel.
package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pplab/engine/lab"
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
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := replay.Parse(f, replay.CLIMaxLines)
	if err != nil {
		t.Fatal(err)
	}
	capture := replay.New(tr)
	if tr.UnknownCount > 0 {
		t.Errorf("%d lines of this kernel's own capture did not read: %v", tr.UnknownCount, tr.Unknown)
	}
	p := capture.Busiest()
	if p == nil || p.Holds < replay.BulkRefill {
		t.Fatalf("the capture holds no veth pool: %s", capture.Summary())
	}
	var model strings.Builder
	res, err := lab.RunVethTransfer(lab.VethTransfer{Era: "6.18", MiB: 4}, func(e sim.Event) {
		if e.IsTracepoint() {
			model.WriteString(e.TraceLine() + "\n")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	mt, err := replay.ParseString(model.String(), replay.CLIMaxLines)
	if err != nil {
		t.Fatal(err)
	}
	mr := replay.New(mt)
	rows := replay.CompareShapes(capture.ShapeOf(p), mr.ShapeOf(mr.Busiest()))
	t.Logf("capture:\n%smodel (%d skbs):\n%s\n%s", capture.Summary(), res.SKBs, mr.Summary(), replay.FormatShapes(rows))
	for _, r := range rows {
		if !r.Agree {
			t.Errorf("the capture and the model differ: %s: capture %s, model %s", r.What, r.Capture, r.Model)
		}
	}
}
