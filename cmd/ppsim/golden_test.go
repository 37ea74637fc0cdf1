package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden.txt from the current engine")

// goldenFile holds, per configuration, the SHA-256 of `ppsim run --json`
// for a traced run and a longer batch run, and of the traced run's --trace
// file. Speed work on the engine must keep every line byte-identical; a
// change to the model that changes outputs on purpose regenerates it with
// `go test ./cmd/ppsim -run TestGolden -update` and says why in its commit.
const goldenFile = "testdata/golden.txt"

const (
	goldenTraced = 2000
	goldenBatch  = 20000
)

// goldenShortStride: under -short (make check) TestGolden compares every
// goldenShortStride-th configuration of the corpus, about 120 of 963: the
// corpus lists each driver × scenario in era order, and a stride prime to
// the era count (9) walks across the eras, so the sample still reaches
// every scenario, driver and era. make test runs the whole corpus.
const goldenShortStride = 8

// goldenCases: every valid driver × scenario × era; each breakable rule
// with each scenario on its default driver in two eras; the failure
// injection knobs likewise.
func goldenCases() [][]string {
	var out [][]string
	valid := func(args []string) bool {
		cfg := lab.Config{}
		for i := 0; i+1 < len(args); i += 2 {
			switch args[i] {
			case "--driver":
				cfg.Driver = args[i+1]
			case "--scenario":
				cfg.Scenario = args[i+1]
			case "--era":
				cfg.Era = args[i+1]
			case "--break":
				cfg.Break = append(cfg.Break, args[i+1])
			case "--set":
				if cfg.Knobs.Set(args[i+1]) != nil {
					return false
				}
			}
		}
		return cfg.Validate() == nil
	}
	add := func(args ...string) {
		if valid(args) {
			out = append(out, args)
		}
	}
	for _, sc := range lab.Scenarios {
		drivers := sc.Drivers
		if !sc.NeedsDriver {
			drivers = []string{""}
		}
		for _, d := range drivers {
			for _, era := range sim.EraNames() {
				args := []string{"--scenario", sc.Name, "--era", era}
				if d != "" {
					args = append([]string{"--driver", d}, args...)
				}
				add(args...)
			}
		}
		for _, era := range []string{"5.14", "6.8"} {
			for _, r := range sim.RuleNames() {
				add("--scenario", sc.Name, "--era", era, "--break", r)
			}
			for _, k := range []string{"alloc_fail_ppm=20000", "dma_map_fail_ppm=20000", "pfmemalloc_ppm=20000"} {
				add("--scenario", sc.Name, "--era", era, "--set", k)
			}
		}
	}
	// A redirect to a second port (6.10's direct bulk recycling), and
	// destroy's pages held as its stalled frames with the bulk put's race.
	for _, d := range []string{"mvpp2", "mvneta", "mlx5", "bnxt"} {
		for _, era := range []string{"6.9", "6.10"} {
			add("--driver", d, "--scenario", "xdp-redirect", "--era", era, "--set", "redirect_to=1")
		}
	}
	for _, c := range [][2]string{{"mvpp2", "6.12"}, {"mvpp2", "6.15"}, {"mvpp2", "6.16"}, {"mvpp2", "7.1"}, {"bnxt", "6.16"}} {
		add("--driver", c[0], "--scenario", "destroy", "--era", c[1], "--set", "held=1", "--set", "release_race=1")
	}
	return out
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// goldenLine runs one case: traced and batch.
func goldenLine(t *testing.T, dir string, i int, args []string) string {
	trace := filepath.Join(dir, fmt.Sprintf("trace-%d.txt", i))
	var out, errb bytes.Buffer
	a := append([]string{"run", "--json", "--packets", fmt.Sprint(goldenTraced), "--trace", trace}, args...)
	if rc := run(a, &out, &errb); rc != 0 {
		t.Errorf("ppsim %s: exit %d: %s", strings.Join(a, " "), rc, errb.String())
		return ""
	}
	tr, err := os.ReadFile(trace)
	if err != nil {
		t.Error(err)
		return ""
	}
	os.Remove(trace)
	traced := sha(out.Bytes())
	out.Reset()
	b := append([]string{"run", "--json", "--packets", fmt.Sprint(goldenBatch)}, args...)
	if rc := run(b, &out, &errb); rc != 0 {
		t.Errorf("ppsim %s: exit %d: %s", strings.Join(b, " "), rc, errb.String())
		return ""
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s", strings.Join(args, " "), traced, sha(tr), sha(out.Bytes()))
}

// TestGolden: the engine's outputs for the whole corpus are what
// testdata/golden.txt records, byte for byte.
func TestGolden(t *testing.T) {
	cases := goldenCases()
	dir := t.TempDir()
	lines := make([]string, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				lines[i] = goldenLine(t, dir, i, cases[i])
			}
		}()
	}
	short := testing.Short() && !*updateGolden
	for i := range cases {
		if short && i%goldenShortStride != 0 {
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if t.Failed() {
		return
	}
	if *updateGolden {
		body := "# config\tsha256 of run --json (" + fmt.Sprint(goldenTraced) + " packets, traced)\tof its --trace\tof run --json (" + fmt.Sprint(goldenBatch) + " packets)\n" + strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(goldenFile, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d configurations", goldenFile, len(lines))
		return
	}
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/ppsim -run TestGolden -update writes it)", err)
	}
	defer f.Close()
	want := map[string]string{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		k, _, _ := strings.Cut(l, "\t")
		want[k] = l
		order = append(order, k)
	}
	got := map[string]bool{}
	diffs := 0
	for _, l := range lines {
		if l == "" { // not sampled under -short
			continue
		}
		k, _, _ := strings.Cut(l, "\t")
		got[k] = true
		if w, ok := want[k]; !ok {
			t.Errorf("%s: not in %s (a new configuration: -update)", k, goldenFile)
		} else if w != l && diffs < 20 {
			diffs++
			t.Errorf("%s: outputs changed\n got %s\nwant %s", k, l, w)
		}
	}
	if short {
		// The sample must still reach every scenario, driver and era.
		reached := map[string]bool{}
		for i := 0; i < len(cases); i += goldenShortStride {
			for j := 0; j+1 < len(cases[i]); j += 2 {
				reached[cases[i][j]+" "+cases[i][j+1]] = true
			}
		}
		for _, c := range cases {
			for j := 0; j+1 < len(c); j += 2 {
				if f := c[j]; (f == "--scenario" || f == "--driver" || f == "--era") && !reached[f+" "+c[j+1]] {
					t.Errorf("-short: the sample of every %dth configuration misses %s %s", goldenShortStride, f, c[j+1])
					reached[f+" "+c[j+1]] = true // reported once
				}
			}
		}
		t.Logf("-short: compared %d of %d configurations (every %dth)", len(got), len(cases), goldenShortStride)
		return // the corpus's missing configurations are the full run's to find
	}
	var missing []string
	for _, k := range order {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d configurations of %s are no longer valid, e.g. %s", len(missing), goldenFile, missing[0])
	}
}
