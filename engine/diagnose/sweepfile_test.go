package diagnose

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestSweepFile_IsTheSweep: the file WriteSweep writes decodes to Sweep's
// runs, in Sweep's order, with their counters (their Warm counters and
// their driver's RX page cache's, which mlx5's runs before 6.4 have).
func TestSweepFile_IsTheSweep(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweep(&b); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSweep(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := Sweep()
	if len(got) != len(want) {
		t.Fatalf("%d runs decoded, the sweep has %d", len(got), len(want))
	}
	cached := 0
	for i := range want {
		if got[i].Config.Values().Encode() != want[i].Config.Values().Encode() || !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("run %d: decoded %+v, the sweep %+v", i, got[i], want[i])
		}
		if want[i].Cache != (CacheStats{}) {
			cached++
			if want[i].Config.Driver != "mlx5" {
				t.Errorf("run %d (%s): RX cache counters %v", i, want[i].Config.Values().Encode(), want[i].Cache)
			}
		}
	}
	if cached == 0 {
		t.Error("no run with RX cache counters: mlx5's runs before 6.4 have them")
	}
	t.Logf("%d runs, %d bytes", len(got), b.Len())
}

// TestSweepFile_RefusesAnotherBuildsFile: a file whose runs are not this
// build's (one missing, one unknown, another length) is refused.
func TestSweepFile_RefusesAnotherBuildsFile(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweep(&b); err != nil {
		t.Fatal(err)
	}
	var f sweepFile
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(f *sweepFile){
		"a run missing":  func(f *sweepFile) { f.Runs = f.Runs[1:] },
		"an unknown run": func(f *sweepFile) { f.Runs[0].Config = strings.Replace(f.Runs[0].Config, "era=", "era=9", 1) },
		"other packets":  func(f *sweepFile) { f.Packets = 1000 },
		"RX cache counters cut": func(f *sweepFile) {
			for i := range f.Runs {
				if len(f.Runs[i].Cache) > 0 {
					f.Runs[i].Cache = f.Runs[i].Cache[:3]
					return
				}
			}
		},
		"not JSON": nil,
	} {
		g := f
		g.Runs = append([]sweepFR(nil), f.Runs...)
		var in []byte
		if edit != nil {
			edit(&g)
			in, _ = json.Marshal(g)
		} else {
			in = []byte("<html>404</html>")
		}
		if _, err := DecodeSweep(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestLoadSweep_EndsASweepInProgress: in a process that has not swept, a
// Sweeper part way through ends when the file is loaded, and the
// diagnosis then ranks the file's runs: the same candidates as the sweep
// the model makes (the CLI's).
func TestLoadSweep_EndsASweepInProgress(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweep(&b); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join("testdata", "ethtool_mlx5_gro.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cli, err := Diagnose(string(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Sweep()
	defer func() { // the process's sweep as it was
		sweepOnce, installed = sync.Once{}, false
		sweepOnce.Do(func() { sweep = want })
	}()
	sweepOnce, sweep, installed = sync.Once{}, nil, false
	w := NewSweeper()
	n := 0
	w.Work(func() bool { n++; return n < 50 })
	if w.Done() {
		t.Fatal("the sweep ended in 50 slices")
	}
	if err := LoadSweep(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !w.Done() || !w.Work(nil) || len(Sweep()) != len(want) {
		t.Fatalf("after the load: done %v, %d runs", w.Done(), len(Sweep()))
	}
	if d, total := w.Progress(); d != total || total != len(want) {
		t.Errorf("progress %d of %d", d, total)
	}
	if err := LoadSweep(b.Bytes()); err == nil {
		t.Error("a second load was accepted")
	}
	page, err := Diagnose(string(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(page.Runs[0].Nearest, cli.Runs[0].Nearest) {
		t.Errorf("from the file: %+v\nfrom the model: %+v", page.Runs[0].Nearest, cli.Runs[0].Nearest)
	}
}
