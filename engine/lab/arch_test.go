package lab

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers lists every engine package bottom-up: a package may import only
// the packages below it. sim is the foundation; simtest builds test
// machines from it; the model's layers follow (mm → pagepool → skb →
// drivers → workload); lab's internal rooms (the state walker, the
// fast-forward on it, the series' windows, the kernel identifier table,
// the results' and the listing's renderings)
// sit under the facade; the what-if (perf) and the counter diagnosis
// (diagnose) read runs through lab, and lab never imports them; observe (the
// live-kernel commands for a rule or a counter) reads sim and lab's names;
// the Chrome Trace Event writer (traceevent) reads runs through lab.
// A new package must be named here.
var layers = []string{
	"sim", "sim/simtest", "mm", "pagepool", "skb", "drivers", "workload",
	"lab/internal/state", "lab/internal/fastforward", "lab/internal/series", "lab/internal/kernelsrc", "lab/internal/report",
	"lab", "traceevent", "observe", "perf", "diagnose", "replay/examples", "replay",
}

// TestArchitecture_ImportsPointDown checks every engine source file, tests
// included: each directory with Go files is a named layer, imports of
// engine packages point down the layer stack, nothing imports syscall/js
// or go-app, and package unsafe appears only in *_unsafe.go files (the
// state walker's).
func TestArchitecture_ImportsPointDown(t *testing.T) {
	rank := map[string]int{}
	for i, l := range layers {
		rank["pplab/engine/"+l] = i
	}
	seen, pkgs := 0, map[string]bool{}
	err := filepath.WalkDir("..", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			return nil
		}
		rel, _ := filepath.Rel("..", dir)
		pkg := "pplab/engine/" + filepath.ToSlash(rel)
		own, ok := rank[pkg]
		if !ok {
			t.Errorf("engine/%s is not a named layer: add it to layers (%v)", rel, layers)
			return nil
		}
		pkgs[pkg] = true
		for _, f := range files {
			seen++
			for _, path := range importsOf(t, f) {
				if path == "syscall/js" || strings.HasPrefix(path, "github.com/maxence-charriere/go-app") {
					t.Errorf("%s imports %s: the engine must build and test natively", f, path)
				}
				if path == "unsafe" && !strings.HasSuffix(f, "_unsafe.go") {
					t.Errorf("%s imports unsafe: keep unsafe code in a *_unsafe.go file of package state", f)
				}
				if r, ok := rank[path]; ok && r >= own && path != pkg {
					t.Errorf("%s (layer %s) imports %s: imports must point down %v", f, rel, path, layers)
				}
				if strings.HasPrefix(path, "pplab/") && !strings.HasPrefix(path, "pplab/engine/") {
					t.Errorf("%s imports %s from outside the engine", f, path)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range rank {
		if !pkgs[pkg] {
			t.Errorf("layer %s has no Go files: remove it from layers", pkg)
		}
	}
	if seen < 10 {
		t.Fatalf("only %d engine files inspected", seen)
	}
}

// TestArchitecture_UIAndCLIUseTheLab: the UI (app, wasm) and the CLI reach
// the engine only through lab (and sim, whose values — counters, kinds,
// events — are part of lab's API), the what-if, perf, the diagnosis and
// observe (the live-kernel commands) and the trace writer (traceevent); they never hold a page, a pool or an
// skb.
func TestArchitecture_UIAndCLIUseTheLab(t *testing.T) {
	allowed := map[string]bool{"pplab/engine/lab": true, "pplab/engine/perf": true, "pplab/engine/diagnose": true, "pplab/engine/observe": true, "pplab/engine/traceevent": true, "pplab/engine/sim": true, "pplab/app": true, "pplab/app/session": true,
		"pplab/engine/replay/examples": true, // the captures the replay page offers (data)
		"pplab/engine/replay":          true, // a real capture replayed: pages by pfn from a trace, no model state
		"pplab/app/tour":               true, // the guided tour's chapters as data (plain Go, as the session)
		"pplab/app/tourprint":          true} // a tour state's printed picture (plain Go: the site generator draws it)
	seen := 0
	for _, dir := range []string{"../../app", "../../app/session", "../../app/tour", "../../app/tourprint", "../../wasm", "../../cmd/ppsim", "../../e2e"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			seen++
			for _, path := range importsOf(t, f) {
				if strings.HasPrefix(path, "pplab/") && !allowed[path] {
					t.Errorf("%s imports %s: outside the engine, use pplab/engine/lab (or pplab/engine/perf for the what-if)", f, path)
				}
				if path == "pplab/app" && !strings.Contains(f, "wasm") {
					t.Errorf("%s imports the UI", f)
				}
				// The session is plain Go: its behaviour is tested natively,
				// without a browser.
				if (strings.Contains(f, "app/session") || strings.Contains(f, "app/tour/") || strings.Contains(f, "app/tourprint/")) && (strings.HasPrefix(path, "github.com/maxence-charriere/go-app") || path == "syscall/js" || path == "pplab/app") {
					t.Errorf("%s imports %s: the session and the tour's chapters must stay plain Go", f, path)
				}
			}
		}
	}
	if seen < 15 {
		t.Fatalf("only %d files inspected", seen)
	}
}

// importsOf lists a Go file's import paths.
func importsOf(t *testing.T, file string) []string {
	t.Helper()
	af, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range af.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		out = append(out, path)
	}
	return out
}
