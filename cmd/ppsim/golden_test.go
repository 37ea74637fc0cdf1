package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden.txt from the current engine and print what moved (run with -v to see it)")

// goldenFile is the golden corpus: for every configuration of goldenCases,
// the plain counters of its batch run and the SHA-256 of its outputs
// (goldenHeader, the file's opening comment, describes the format). Speed
// work on the engine must keep every block byte-identical; a change to the
// model that changes outputs on purpose regenerates it with
//
//	go test ./cmd/ppsim -run '^TestGolden$' -update -v
//
// (or make golden), which prints how many configurations changed per
// scenario and per era and which counters moved: paste that into the
// commit message with the why. The regeneration's diff shows the moved
// counters themselves (git diff --word-diff shows them within a line).
const goldenFile = "testdata/golden.txt"

const (
	goldenTraced = 2000
	goldenBatch  = 20000
)

// goldenHeader opens golden.txt: how to read it.
var goldenHeader = fmt.Sprintf(`# The golden corpus of cmd/ppsim (golden_test.go): what the engine gives
# for every configuration goldenCases lists. go test ./cmd/ppsim -run
# '^TestGolden$' compares all of them byte for byte (-short: a sample at a
# stride coprime with the number of eras); make golden (the test with
# -update) rewrites this file and prints how many configurations changed
# per scenario and era and which counters moved (for the commit message,
# beside the why).
#
# One block per configuration, for example:
#
#   --driver mvpp2 --scenario drop --era 6.8
#     kpps=2355.95 inflight=1088 violations=none
#     alloc_fast=20695 alloc_slow=17 alloc_slow_high_order=0 ... alloc_waive=0
#     recycle_cached=0 recycle_cache_full=0 ... recycle_released_refcnt=0
#     sha256 traced=<64 hex> trace=<64 hex> batch=<64 hex>
#
# - the first line: the flags of ppsim run (seed 1 and the fast-forward on,
#   the defaults, in every run);
# - then the counters of the batch run, ppsim run --json --packets %[2]d:
#   its rate (the key is the rate's unit), inflight, and its violations by
#   kind (kind:count for each kind that occurred, none if none did); then
#   every stat (alloc_*, recycle_*), in the JSON's order, a line per prefix;
# - the sha256 line: the SHA-256 of the output of ppsim run --json
#   --packets %[1]d --trace FILE (traced), of FILE (trace, every event:
#   --trace-format all) and of the batch run's output (batch).
#
# The counters restate part of the batch run's JSON: a change that moves one
# shows in the diff as the counter line that moved (git diff --word-diff
# shows which counter); a change that moves none (the profile, a note, the
# trace, the short run) shows in the sha256 line alone.
`, goldenTraced, goldenBatch)

// goldenShortConfigs: under -short (make check) TestGolden compares about
// this many configurations, at a stride coprime with the era count (make
// test compares the whole corpus): the sample keeps its size, and make
// check its time, as eras and configurations are added.
const goldenShortConfigs = 120

// goldenWasmConfigs: under GOOS=js (make wasm-test: the engine compiled to
// WebAssembly, run by Node.js) TestGolden compares about this many
// configurations, at a stride coprime with the era count: the browser build
// gives the native build's bytes.
const goldenWasmConfigs = 90

// sampleOf is a sample of the corpus cases of about len(cases)/min
// configurations: every stride-th case, at the smallest stride at least
// min that is coprime with the number of eras (len(sim.Eras)), plus the
// first case of each scenario, driver and era the stride misses (a
// scenario with fewer configurations than the stride, devmem-rx's seven).
// The corpus lists each scenario × driver's eras one after the other, so a
// stride sharing no factor with the era count shifts the era it lands on
// from one block to the next and the sample walks across all eras, not the
// same few; the added cases make sure of every one, whatever the counts.
func sampleOf(min int, cases [][]string) (idx []int, stride int) {
	// The stride nearest min that shares no factor with the era count (the
	// larger of two as near), so that the sample's size follows min
	// whatever the count.
	for d := 0; ; d++ {
		if stride = max(min, 1) + d; gcd(stride, len(sim.Eras)) == 1 {
			break
		}
		if stride = min - d; stride >= 1 && gcd(stride, len(sim.Eras)) == 1 {
			break
		}
	}
	for i := 0; i < len(cases); i += stride {
		idx = append(idx, i)
	}
	for _, f := range sampleMisses(cases, idx) {
		for i, c := range cases {
			if slices.Contains(flagPairs(c), f) {
				idx = append(idx, i)
				break
			}
		}
	}
	slices.Sort(idx)
	return slices.Compact(idx), stride
}

// flagPairs are a case's "--flag value" pairs.
func flagPairs(c []string) []string {
	var out []string
	for j := 0; j+1 < len(c); j += 2 {
		out = append(out, c[j]+" "+c[j+1])
	}
	return out
}

// sampleMisses lists the scenarios, drivers and eras of cases that the
// sample idx misses.
func sampleMisses(cases [][]string, idx []int) []string {
	reached := map[string]bool{}
	for _, i := range idx {
		for _, f := range flagPairs(cases[i]) {
			reached[f] = true
		}
	}
	var out []string
	for _, c := range cases {
		for _, f := range flagPairs(c) {
			if (strings.HasPrefix(f, "--scenario ") || strings.HasPrefix(f, "--driver ") || strings.HasPrefix(f, "--era ")) && !reached[f] {
				out = append(out, f)
				reached[f] = true // listed once
			}
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// goldenShortSample is -short's sample.
func goldenShortSample(cases [][]string) ([]int, int) {
	return sampleOf(len(cases)/goldenShortConfigs, cases)
}

// goldenWasmSample is the wasm sample.
func goldenWasmSample(cases [][]string) ([]int, int) {
	return sampleOf(len(cases)/goldenWasmConfigs, cases)
}

// goldenCases: every valid driver × scenario × era; each breakable rule
// with each scenario on its default driver in two eras; the failure
// injection knobs likewise.
func goldenCases() [][]string {
	var out [][]string
	add := func(args ...string) {
		if _, err := goldenConfig(args); err == nil {
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

// goldenConfig is the lab.Config of a configuration's flags (as ppsim run
// reads them), validated.
func goldenConfig(args []string) (lab.Config, error) {
	var cfg lab.Config
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
			if err := cfg.Knobs.Set(args[i+1]); err != nil {
				return cfg, err
			}
		default:
			return cfg, fmt.Errorf("goldenConfig: flag %s", args[i])
		}
	}
	return cfg, cfg.Validate()
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// goldenEntry is one configuration's block of golden.txt.
type goldenEntry struct {
	config   string    // the flags of ppsim run
	counters []string  // lines of name=value counters
	sha      [3]string // of the traced run's JSON, of its trace, of the batch run's JSON
}

var goldenHashNames = [3]string{"traced", "trace", "batch"}

func (e goldenEntry) String() string {
	var b strings.Builder
	b.WriteString(e.config + "\n")
	for _, l := range e.counters {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("  sha256")
	for i, h := range e.sha {
		b.WriteString(" " + goldenHashNames[i] + "=" + h)
	}
	b.WriteString("\n")
	return b.String()
}

// flag is the value of one of the configuration's flags ("" if not given).
func (e goldenEntry) flag(name string) string {
	f := strings.Fields(e.config)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == name {
			return f[i+1]
		}
	}
	return ""
}

// values are the counters by name (a violation kind by its name; a kind
// that did not occur is absent).
func (e goldenEntry) values() map[string]string {
	out := map[string]string{}
	for _, l := range e.counters {
		for _, tok := range strings.Fields(l) {
			k, v, _ := strings.Cut(tok, "=")
			if k != "violations" {
				out[k] = v
				continue
			}
			if v == "none" {
				continue
			}
			for _, kv := range strings.Split(v, ",") {
				kind, n, _ := strings.Cut(kv, ":")
				out[kind] = n
			}
		}
	}
	return out
}

// moved lists the counters whose values differ between two entries, as
// name old→new, in name order (a counter one entry lacks is 0 there for a
// violation kind, - otherwise).
func moved(was, is goldenEntry) []string {
	a, b := was.values(), is.values()
	kinds := map[string]bool{}
	for _, k := range sim.KindNames() {
		kinds[k] = true
	}
	val := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return v
		}
		if kinds[k] {
			return "0"
		}
		return "-"
	}
	names := map[string]bool{}
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	var out []string
	for k := range names {
		if x, y := val(a, k), val(b, k); x != y {
			out = append(out, k+" "+x+"→"+y)
		}
	}
	sort.Strings(out)
	return out
}

// batchCounters reads the counters of golden.txt from a run's JSON: the
// rate, inflight and the violations by kind on one line, then every stat in
// the JSON's order, a line per prefix (alloc_, recycle_).
func batchCounters(js []byte) ([]string, error) {
	var r struct {
		Rate struct {
			Value json.Number
			Unit  string
		}
		Stats      json.RawMessage
		Inflight   json.Number
		Violations json.RawMessage
	}
	if err := json.Unmarshal(js, &r); err != nil {
		return nil, err
	}
	stats, err := orderedNumbers(r.Stats)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	viols, err := orderedNumbers(r.Violations)
	if err != nil {
		return nil, fmt.Errorf("violations: %w", err)
	}
	if r.Rate.Unit == "" || r.Rate.Value == "" || r.Inflight == "" || len(stats) == 0 || len(viols) == 0 {
		return nil, fmt.Errorf("no rate, inflight, stats or violations in %.200s", js)
	}
	var v []string
	for _, kv := range viols {
		if kv[1] != "0" {
			v = append(v, kv[0]+":"+kv[1])
		}
	}
	if len(v) == 0 {
		v = []string{"none"}
	}
	lines := []string{fmt.Sprintf("%s=%s inflight=%s violations=%s", r.Rate.Unit, r.Rate.Value, r.Inflight, strings.Join(v, ","))}
	var prefix string
	for _, kv := range stats {
		p, _, _ := strings.Cut(kv[0], "_")
		if p != prefix || len(lines) == 1 {
			lines = append(lines, "")
			prefix = p
		} else {
			lines[len(lines)-1] += " "
		}
		lines[len(lines)-1] += kv[0] + "=" + kv[1]
	}
	return lines, nil
}

// orderedNumbers reads a JSON object of numbers, keeping its order.
func orderedNumbers(raw json.RawMessage) ([][2]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object: %.80s", raw)
	}
	var out [][2]string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		v, err := dec.Token()
		if err != nil {
			return nil, err
		}
		n, ok := v.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%v: not a number", k)
		}
		out = append(out, [2]string{k.(string), string(n)})
	}
	return out, nil
}

// readGolden reads golden.txt's blocks.
func readGolden(r io.Reader) ([]goldenEntry, error) {
	var out []goldenEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case !strings.HasPrefix(l, " "):
			if len(out) > 0 && out[len(out)-1].sha[0] == "" {
				return nil, fmt.Errorf("line %d: the block of %s has no sha256 line", n, out[len(out)-1].config)
			}
			out = append(out, goldenEntry{config: l})
		case len(out) == 0:
			return nil, fmt.Errorf("line %d: an indented line before the first configuration", n)
		case strings.HasPrefix(strings.TrimSpace(l), "sha256 "):
			e := &out[len(out)-1]
			f := strings.Fields(l)[1:]
			if len(f) != len(e.sha) {
				return nil, fmt.Errorf("line %d: want %d hashes", n, len(e.sha))
			}
			for i, kv := range f {
				k, v, _ := strings.Cut(kv, "=")
				if k != goldenHashNames[i] || len(v) != 64 {
					return nil, fmt.Errorf("line %d: %q, want %s=<sha256>", n, kv, goldenHashNames[i])
				}
				e.sha[i] = v
			}
		default:
			e := &out[len(out)-1]
			e.counters = append(e.counters, strings.TrimSpace(l))
		}
	}
	if len(out) > 0 && out[len(out)-1].sha[0] == "" {
		return nil, fmt.Errorf("the last block (%s) has no sha256 line", out[len(out)-1].config)
	}
	return out, sc.Err()
}

// goldenRunner runs configurations as TestGolden does; one per goroutine
// (the trace file and the read buffer are its own).
type goldenRunner struct {
	trace string
	buf   []byte
	h     hash.Hash
}

func newGoldenRunner(dir string, i int) *goldenRunner {
	return &goldenRunner{trace: filepath.Join(dir, fmt.Sprintf("trace-%d.txt", i)), buf: make([]byte, 256<<10), h: sha256.New()}
}

// run runs one configuration: traced (the JSON and the trace file it
// writes, hashed as it is read back) and batch (the JSON, and the counters
// read from it).
func (g *goldenRunner) run(args []string) (goldenEntry, error) {
	e := goldenEntry{config: strings.Join(args, " ")}
	var out, errb bytes.Buffer
	a := append([]string{"run", "--json", "--packets", fmt.Sprint(goldenTraced), "--trace", g.trace}, args...)
	if rc := run(a, &out, &errb); rc != 0 {
		return e, fmt.Errorf("ppsim %s: exit %d: %s", strings.Join(a, " "), rc, errb.String())
	}
	e.sha[0] = sha(out.Bytes())
	f, err := os.Open(g.trace)
	if err != nil {
		return e, err
	}
	g.h.Reset()
	for {
		n, err := f.Read(g.buf)
		g.h.Write(g.buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return e, err
		}
	}
	f.Close()
	e.sha[1] = hex.EncodeToString(g.h.Sum(nil))
	out.Reset()
	b := append([]string{"run", "--json", "--packets", fmt.Sprint(goldenBatch)}, args...)
	if rc := run(b, &out, &errb); rc != 0 {
		return e, fmt.Errorf("ppsim %s: exit %d: %s", strings.Join(b, " "), rc, errb.String())
	}
	e.sha[2] = sha(out.Bytes())
	if e.counters, err = batchCounters(out.Bytes()); err != nil {
		return e, fmt.Errorf("ppsim %s: %w", strings.Join(b, " "), err)
	}
	return e, nil
}

// goldenSample is the cases TestGolden compares (nil: every one), and what
// they are: the whole corpus (make test, and -update), -short's sample
// (make check), or the wasm sample (GOOS=js: make wasm-test).
func goldenSample(cases [][]string) ([]int, string) {
	switch {
	case *updateGolden:
		return nil, "the whole corpus"
	case runtime.GOOS == "js":
		idx, _ := goldenWasmSample(cases)
		return idx, "the wasm sample"
	case testing.Short():
		idx, _ := goldenShortSample(cases)
		return idx, "-short's sample"
	}
	return nil, "the whole corpus"
}

// TestGolden: the engine's outputs for the whole corpus are what
// testdata/golden.txt records, byte for byte (under -short and GOOS=js, a
// sample of it; see goldenSample).
func TestGolden(t *testing.T) {
	t.Parallel()
	cases := goldenCases()
	sample, what := goldenSample(cases)
	dir := t.TempDir()
	got := make([]goldenEntry, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		g := newGoldenRunner(dir, w)
		go func() {
			defer wg.Done()
			for i := range next {
				var err error
				if got[i], err = g.run(cases[i]); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	if sample == nil {
		for i := range cases {
			next <- i
		}
	}
	for _, i := range sample {
		next <- i
	}
	close(next)
	wg.Wait()
	if t.Failed() {
		return
	}
	var old []goldenEntry
	f, err := os.Open(goldenFile)
	if err == nil {
		old, err = readGolden(f)
		f.Close()
	}
	if *updateGolden {
		var body strings.Builder
		body.WriteString(goldenHeader)
		for _, e := range got {
			body.WriteString("\n" + e.String())
		}
		if err := os.WriteFile(goldenFile, []byte(body.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err != nil {
			fmt.Printf("%s: %d configurations written; the previous corpus could not be read (%v): nothing to compare\n", goldenFile, len(got), err)
			return
		}
		fmt.Print(goldenChanges(old, got))
		return
	}
	if err != nil {
		t.Fatalf("%s: %v (go test ./cmd/ppsim -run '^TestGolden$' -update writes it)", goldenFile, err)
	}
	if head, err := os.ReadFile(goldenFile); err == nil && !bytes.HasPrefix(head, []byte(goldenHeader)) {
		t.Errorf("%s: its opening comment is not goldenHeader's: the format's description is stale (-update rewrites it)", goldenFile)
	}
	want := map[string]goldenEntry{}
	for _, e := range old {
		if _, dup := want[e.config]; dup {
			t.Errorf("%s: %s has two blocks", goldenFile, e.config)
		}
		want[e.config] = e
	}
	compared := map[string]bool{}
	diffs := 0
	for _, e := range got {
		if e.config == "" { // not in the sample
			continue
		}
		compared[e.config] = true
		w, ok := want[e.config]
		switch {
		case !ok:
			t.Errorf("%s: not in %s (a new configuration: -update)", e.config, goldenFile)
		case w.String() != e.String():
			if diffs++; diffs <= 20 {
				t.Errorf("%s: outputs changed: %s\n got:\n%swant:\n%s", e.config, describeChange(w, e), e.String(), w.String())
			}
		}
	}
	if diffs > 20 {
		t.Errorf("... %d configurations changed in all", diffs)
	}
	if sample != nil {
		t.Logf("%s: compared %d of %d configurations", what, len(compared), len(cases))
		return // the corpus's missing configurations are the full run's to find
	}
	var missing []string
	for _, e := range old {
		if !compared[e.config] {
			missing = append(missing, e.config)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d configurations of %s are no longer valid, e.g. %s", len(missing), goldenFile, missing[0])
	}
}

// describeChange says what changed between two blocks: the counters that
// moved, the hashes that differ.
func describeChange(was, is goldenEntry) string {
	var parts []string
	if m := moved(was, is); len(m) > 0 {
		parts = append(parts, "counters "+strings.Join(m, ", "))
	} else if strings.Join(was.counters, "\n") != strings.Join(is.counters, "\n") {
		parts = append(parts, "counter lines (same values)")
	}
	var h []string
	for i := range was.sha {
		if was.sha[i] != is.sha[i] {
			h = append(h, goldenHashNames[i])
		}
	}
	if len(h) > 0 {
		parts = append(parts, "sha256 of "+strings.Join(h, ", "))
	}
	return strings.Join(parts, "; ")
}

// goldenChanges is -update's report: how many configurations changed, per
// scenario and per era, and which counters moved (in how many of them),
// ready for a commit message.
func goldenChanges(old, now []goldenEntry) string {
	was := map[string]goldenEntry{}
	for _, e := range old {
		was[e.config] = e
	}
	type tally struct{ changed, of int }
	var scenarios, eras []string
	byScenario, byEra := map[string]*tally{}, map[string]*tally{}
	count := func(m map[string]*tally, order *[]string, k string, changed bool) {
		if m[k] == nil {
			m[k] = &tally{}
			*order = append(*order, k)
		}
		m[k].of++
		if changed {
			m[k].changed++
		}
	}
	counters := map[string]int{}
	hashes := [3]int{}
	changed, added, noCounter := 0, 0, 0
	seen := map[string]bool{}
	for _, e := range now {
		seen[e.config] = true
		w, ok := was[e.config]
		ch := !ok || w.String() != e.String()
		if !ok {
			added++
		} else if ch {
			changed++
			m := moved(w, e)
			for _, c := range m {
				name, _, _ := strings.Cut(c, " ")
				counters[name]++
			}
			if len(m) == 0 {
				noCounter++
			}
			for i := range e.sha {
				if w.sha[i] != e.sha[i] {
					hashes[i]++
				}
			}
		}
		count(byScenario, &scenarios, e.flag("--scenario"), ch)
		count(byEra, &eras, e.flag("--era"), ch)
	}
	gone := 0
	for _, e := range old {
		if !seen[e.config] {
			gone++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "golden corpus: %d configurations: %d changed, %d new, %d gone\n", len(now), changed, added, gone)
	if changed+added == 0 {
		return b.String()
	}
	list := func(title string, order []string, m map[string]*tally) {
		var parts []string
		for _, k := range order {
			if m[k].changed > 0 {
				parts = append(parts, fmt.Sprintf("%s %d/%d", k, m[k].changed, m[k].of))
			}
		}
		fmt.Fprintf(&b, "  changed or new by %s: %s\n", title, strings.Join(parts, ", "))
	}
	list("scenario", scenarios, byScenario)
	eraOrder := sim.EraNames()
	sort.SliceStable(eras, func(i, j int) bool { return indexOf(eraOrder, eras[i]) < indexOf(eraOrder, eras[j]) })
	list("era", eras, byEra)
	if changed > 0 {
		names := make([]string, 0, len(counters))
		for k := range counters {
			names = append(names, k)
		}
		sort.Slice(names, func(i, j int) bool {
			if counters[names[i]] != counters[names[j]] {
				return counters[names[i]] > counters[names[j]]
			}
			return names[i] < names[j]
		})
		var parts []string
		for _, k := range names {
			parts = append(parts, fmt.Sprintf("%s in %d", k, counters[k]))
		}
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		fmt.Fprintf(&b, "  counters moved: %s\n", strings.Join(parts, ", "))
		fmt.Fprintf(&b, "  outputs changed with no counter moved: %d; hashes changed: traced %d, trace %d, batch %d\n", noCounter, hashes[0], hashes[1], hashes[2])
	}
	return b.String()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

// TestGolden_SamplesReachEveryEra: the strides TestGolden's samples use
// (-short's, the wasm sample's) and TestFastForward_GoldenCorpus's at 10^6
// are coprime with the number of eras, and each sample reaches every
// scenario, driver and era of the corpus; the wasm sample has 50 to 100
// configurations.
func TestGolden_SamplesReachEveryEra(t *testing.T) {
	cases := goldenCases()
	for _, s := range []struct {
		name     string
		sample   func([][]string) ([]int, int)
		min, max int // configurations
	}{
		{"-short", goldenShortSample, goldenShortConfigs / 2, goldenShortConfigs * 2},
		{"wasm", goldenWasmSample, 50, 100},
		{"fast-forward at 10^6", ffLongSample, len(cases) / 10, len(cases) / 6},
	} {
		idx, stride := s.sample(cases)
		if g := gcd(stride, len(sim.Eras)); g != 1 {
			t.Errorf("%s: stride %d shares the factor %d with the %d eras", s.name, stride, g, len(sim.Eras))
		}
		if m := sampleMisses(cases, idx); len(m) > 0 {
			t.Errorf("%s: the sample misses %s", s.name, strings.Join(m, ", "))
		}
		if n := len(idx); n < s.min || n > s.max {
			t.Errorf("%s: the sample is %d configurations, want %d to %d", s.name, n, s.min, s.max)
		}
		t.Logf("%s: every %dth configuration and the first of what it misses, %d of %d", s.name, stride, len(idx), len(cases))
	}
	// The sample keeps its size as eras are added: for any era count up to
	// 40 a stride coprime with it lies within 8 of the minimum (the reach
	// is sampleOf's added cases, whatever the counts).
	for n := 2; n <= 40; n++ {
		st := 8
		for gcd(st, n) != 1 {
			st++
		}
		if st > 8+8 {
			t.Errorf("%d eras: the stride grows to %d", n, st)
		}
	}
	// sampleMisses on a made-up corpus of 3 scenarios × 4 eras: a stride of
	// 4 lands on era 1 only, a stride of 3 (coprime with 4) on every era.
	var toy [][]string
	for _, sc := range []string{"a", "b", "c"} {
		for _, era := range []string{"1", "2", "3", "4"} {
			toy = append(toy, []string{"--scenario", sc, "--era", era})
		}
	}
	every := func(stride int) (idx []int) {
		for i := 0; i < len(toy); i += stride {
			idx = append(idx, i)
		}
		return idx
	}
	if m := sampleMisses(toy, every(4)); strings.Join(m, ",") != "--era 2,--era 3,--era 4" {
		t.Errorf("sampleMisses(toy, every 4th) = %q", m)
	}
	if m := sampleMisses(toy, every(3)); len(m) != 0 {
		t.Errorf("sampleMisses(toy, every 3rd) = %q", m)
	}
}

// TestGolden_ReadsWhatItWrites: a block written is read back as the same
// block, the counters taken from a run's JSON.
func TestGolden_ReadsWhatItWrites(t *testing.T) {
	js := []byte(`{"rate":{"value":2355.95,"unit":"kpps"},"stats":{"alloc_fast":20695,"alloc_slow":17,"recycle_ring":20000},"inflight":1088,"violations":{"use-after-recycle":0,"double-recycle":3,"inflight-leak":1}}`)
	c, err := batchCounters(js)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"kpps=2355.95 inflight=1088 violations=double-recycle:3,inflight-leak:1", "alloc_fast=20695 alloc_slow=17", "recycle_ring=20000"}
	if strings.Join(c, "\n") != strings.Join(want, "\n") {
		t.Fatalf("counters %q, want %q", c, want)
	}
	e := goldenEntry{config: "--scenario drop --era 6.8", counters: c, sha: [3]string{strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)}}
	back, err := readGolden(strings.NewReader(goldenHeader + "\n" + e.String()))
	if err != nil || len(back) != 1 || back[0].String() != e.String() {
		t.Fatalf("read back %v (%v), want %v", back, err, e)
	}
	e2 := e
	e2.counters = []string{"kpps=2355.95 inflight=1088 violations=double-recycle:4", "alloc_fast=20695 alloc_slow=18", "recycle_ring=20000"}
	e2.sha[2] = strings.Repeat("d", 64)
	if got, want := describeChange(e, e2), "counters alloc_slow 17→18, double-recycle 3→4, inflight-leak 1→0; sha256 of batch"; got != want {
		t.Errorf("describeChange: %q, want %q", got, want)
	}
	if got := goldenChanges([]goldenEntry{e}, []goldenEntry{e2}); !strings.Contains(got, "1 changed") || !strings.Contains(got, "by scenario: drop 1/1") || !strings.Contains(got, "by era: 6.8 1/1") || !strings.Contains(got, "alloc_slow in 1") {
		t.Errorf("goldenChanges:\n%s", got)
	}
}
