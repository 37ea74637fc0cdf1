package lab

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pplab/engine/lab/internal/state"
	"pplab/engine/mm"
	"pplab/engine/sim"
	"pplab/engine/skb"
	"pplab/engine/workload"
)

// ffRun runs cfg to its end with the fast-forward on or off and returns
// the Lab.
func ffRun(t *testing.T, cfg Config, on bool) *Lab {
	t.Helper()
	if !on {
		cfg.Knobs = cfg.Knobs.With(sim.KnobFastForward, 0)
	}
	l := mustNew(t, cfg)
	l.Run()
	return l
}

// TestFastForward_Skips: in the scenarios whose state repeats exactly, the
// fast-forward skips most of a 10^6-packet run, and the run's results,
// series, snapshot and stats are those of the run without it. In the
// scenarios whose pages rotate through the ring (a page's descriptor moves
// by one each lap: a cycle up to a renaming of pages, which the walk does
// not do), it finds no cycle and the run is the plain one. The rows are
// independent Labs, run in parallel.
func TestFastForward_Skips(t *testing.T) {
	for _, tc := range []struct {
		scenario, driver string
		skips            bool
		set              string
	}{
		{"forward", "", true, ""}, {"xdp-redirect", "", true, ""}, {"split-page", "", true, ""}, {"numa-migrate", "", true, ""},
		{"drop", "", true, ""}, {"pfmemalloc", "bnxt", true, "rx_descs=512"},
		// mvpp2 has no pp.napi: its pfmemalloc pages all pass through the
		// ptr_ring, and the search finds no cycle in reach. bnxt copies its
		// 64-byte frames (rx_copy_thresh) and no page moves: a cycle at once.
		{"pfmemalloc", "", false, ""}, {"pfmemalloc", "bnxt", true, ""},
		// coalesce-mixed (mvpp2: its pool has no NAPI, every page through
		// the ring) repeats its state; bnxt's page mode (pages cached by the
		// deferred flush) finds no cycle in reach, even on a 512-slot ring.
		{"coalesce-mixed", "", true, ""}, {"coalesce-mixed", "bnxt", false, "rx_descs=512"},
		{"tcp-stream", "", false, ""}, {"clone-tap", "", false, ""},
		// xdp-tx: every driver's way back (bulk into the ring, the alloc
		// cache, bnxt's held buffers and RX doorbell) repeats; bnxt's like its
		// pfmemalloc: within reach on a 512-slot ring, not on its 511.
		{"xdp-tx", "mvpp2", true, ""}, {"xdp-tx", "mvneta", true, ""}, {"xdp-tx", "cpsw", true, ""},
		{"xdp-tx", "mlx5", true, ""}, {"xdp-tx", "bnxt", true, "rx_descs=512"}, {"xdp-tx", "bnxt", false, ""},
	} {
		t.Run(tc.scenario+"/"+tc.driver+"/"+tc.set, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Scenario: tc.scenario, Driver: tc.driver, Packets: 1_000_000}
			if tc.set != "" {
				cfg.Knobs = sim.MustOverrides(tc.set)
			}
			on, off := ffRun(t, cfg, true), ffRun(t, cfg, false)
			st := on.FFStats()
			skips, skipped, period, why := st.Skips, st.Skipped, st.Period, st.Off
			if got := skips > 0; got != tc.skips {
				why := why
				if tc.skips {
					why += "; " + firstDifference(mustNew(t, cfg), 1<<16)
				}
				t.Errorf("skips %d (%d operations, period %d, off %q): want skipping %v", skips, skipped, period, why, tc.skips)
			}
			if tc.skips && skipped < on.Ops()/2 {
				t.Errorf("skipped %d of %d operations: want most", skipped, on.Ops())
			}
			ffSame(t, on, off)
		})
	}
}

// ffSame fails unless two runs of one config report the same.
func ffSame(t *testing.T, on, off *Lab) {
	t.Helper()
	if a, b := on.Results(), off.Results(); !reflect.DeepEqual(a, b) {
		t.Errorf("results differ:\n  on %+v\n off %+v", a, b)
	}
	if a, b := on.series, off.series; !reflect.DeepEqual(a, b) {
		t.Errorf("series differ: %d points (window %d) vs %d (window %d)", len(a.Points()), a.Window(), len(b.Points()), b.Window())
	}
	if a, b := on.Snapshot(), off.Snapshot(); !reflect.DeepEqual(a, b) {
		t.Errorf("snapshots differ")
	}
	if on.Ops() != off.Ops() || on.TimeNS() != off.TimeNS() {
		t.Errorf("ops %d vs %d, time %d vs %d ns", on.Ops(), off.Ops(), on.TimeNS(), off.TimeNS())
	}
}

// TestFastForward_NeverWhile: the conditions under which it must not apply.
func TestFastForward_NeverWhile(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		prep func(l *Lab)
	}{
		{"a tracer listens", Config{Scenario: "forward", Packets: 300_000}, func(l *Lab) { l.SetTracer(func(sim.Event) {}) }},
		{"a rule is broken", Config{Scenario: "forward", Packets: 300_000, Break: []string{"refcnt-check"}}, nil},
		{"fast_forward=0", Config{Scenario: "forward", Packets: 300_000, Knobs: sim.MustOverrides("fast_forward=0")}, nil},
		{"check_every not a multiple of 64", Config{Scenario: "forward", Packets: 300_000, Knobs: sim.MustOverrides("check_every=1000")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); err != nil {
				t.Fatalf("config: %v", err)
			}
			l := mustNew(t, tc.cfg)
			if tc.prep != nil {
				tc.prep(l)
			}
			l.Run()
			if st := l.FFStats(); st.Skips != 0 {
				skips, skipped := st.Skips, st.Skipped
				t.Errorf("skipped %d operations in %d skips", skipped, skips)
			}
		})
	}
}

// TestFastForward_RandomSourceIsShape: a draw from the machine's random
// source changes the walked shape, so a cycle that draws numbers never
// matches itself; a random knob whose draws stop once the steady state
// needs no allocation (pfmemalloc_ppm: the page allocator's) still skips,
// with the same results.
func TestFastForward_RandomSourceIsShape(t *testing.T) {
	l := mustNew(t, Config{Scenario: "forward", Packets: 100_000})
	l.RunN(20_000)
	a := l.ff.Hash(l.host())
	b := l.ff.Hash(l.host())
	l.m.Rand.Uint64()
	c := l.ff.Hash(l.host())
	if a != b || a == c {
		t.Fatalf("walk hashes %x %x, after a draw %x: want the first two equal and the third different", a, b, c)
	}
	cfg := Config{Scenario: "forward", Packets: 1_000_000, Knobs: sim.MustOverrides("pfmemalloc_ppm=20000")}
	on, off := ffRun(t, cfg, true), ffRun(t, cfg, false)
	if on.FFStats().Skips == 0 {
		t.Errorf("no skip")
	}
	ffSame(t, on, off)
}

// TestFastForward_SeekAndSlices: the UI's use: keyframes on, runs in
// slices with a recorded Step between them, seeks back and forth. Every
// state reached equals the one a plain run reaches at that operation: one
// plain run, stopped at each target in turn and then run to its end (a run
// in pieces is the run in one: TestRunFor_ChunksEqualOneRun). The scenarios
// run in parallel.
func TestFastForward_SeekAndSlices(t *testing.T) {
	for _, sc := range []string{"xdp-redirect", "drop", "numa-migrate"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Scenario: sc, Packets: 2_000_000}
			l := mustNew(t, cfg)
			l.EnableSeek()
			l.Record(true)
			for i := 0; i < 40 && !l.Done(); i++ {
				l.RunN(50_000 + int64(i)*7)
				l.Step()
			}
			if st := l.FFStats(); st.Skips == 0 {
				why := st.Off
				t.Fatalf("no skip in sliced play (off: %q)", why)
			}
			end := l.Ops()
			targets := []uint64{end, 123_457, end / 2, 900_001, end, 20_000}
			type state struct {
				snap Snapshot
				res  Results
			}
			plain := map[uint64]state{}
			ref := mustNew(t, Config{Scenario: cfg.Scenario, Packets: cfg.Packets, Knobs: sim.MustOverrides("fast_forward=0")})
			for _, n := range slices.Sorted(slices.Values(targets)) {
				ref.RunN(int64(n - ref.Ops()))
				plain[n] = state{ref.Snapshot(), ref.Results()}
			}
			for _, n := range targets {
				l.Seek(n)
				ref := plain[n]
				if a, b := l.Snapshot(), ref.snap; !reflect.DeepEqual(a, b) {
					t.Errorf("Seek(%d): the snapshot differs from a plain run's", n)
				}
				if a, b := l.Results(), ref.res; !reflect.DeepEqual(a.Stats, b.Stats) || a.Rate != b.Rate {
					t.Errorf("Seek(%d): stats %v rate %v, plain %v %v", n, a.Stats, a.Rate, b.Stats, b.Rate)
				}
			}
			l.Seek(end)
			l.Run()
			ref.Run()
			ffSame(t, l, ref)
		})
	}
}

// reachableTypes collects the struct types a run's state holds, by walking
// values (so the dynamic types behind interfaces count), over every
// scenario on its default driver and the others that have a path of their
// own (bnxt's two RX paths, mlx5's cache).
func reachableTypes(t *testing.T) map[reflect.Type]bool {
	types := map[reflect.Type]bool{}
	seen := map[uintptr]bool{}
	var visit func(v reflect.Value)
	visit = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] || schema.IsShared(v.Type()) {
				return // shared: read-only descriptions, walked as their address
			}
			seen[v.Pointer()] = true
			visit(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				visit(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.IsNil() {
				return
			}
			for i := 0; i < v.Len() && i < 64; i++ { // the element type is met in the first ones
				visit(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for n := 0; it.Next() && n < 64; n++ {
				visit(it.Key())
				visit(it.Value())
			}
		case reflect.Struct:
			types[v.Type()] = true
			for i := 0; i < v.NumField(); i++ {
				if tg := state.TagOf(v.Type(), v.Type().Field(i)); !tg.Skip {
					visit(v.Field(i))
				}
			}
		}
	}
	cfgs := []Config{}
	for _, sc := range Scenarios {
		cfgs = append(cfgs, Config{Scenario: sc.Name})
	}
	cfgs = append(cfgs, Config{Scenario: "tcp-stream", Driver: "bnxt", Knobs: sim.MustOverrides("hw_gro=0")},
		Config{Scenario: "tcp-stream", Driver: "mlx5", Era: "5.15"}, Config{Scenario: "drop", Driver: "hns3"},
		Config{Scenario: "xdp-redirect", Knobs: sim.MustOverrides("redirect_to=1")})
	for _, cfg := range cfgs {
		cfg.Packets = 100_000
		cfg.Knobs = cfg.Knobs.Merge(teaching(cfg.Scenario))
		l := mustNew(t, cfg)
		l.RunN(3000)
		visit(reflect.ValueOf(l))
	}
	return types
}

// framelike reports whether an integer field's name says it names a page
// frame or an index (pfn, …Idx, …index, free).
func framelike(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "pfn") || strings.HasSuffix(n, "idx") || strings.HasSuffix(n, "index") || n == "free"
}

func intsInside(t reflect.Type) bool {
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Map {
		return intsInside(t.Key())
	}
	return t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr
}

// TestFFTags_EveryReachableFieldHasItsPolicy: over every struct type a run
// reaches, the fields the fast-forward could misread carry their pp tag —
// an integer named like a page frame or an index says which (pfn, frame,
// index), a func or chan is an observer, an upto= names an int field of
// the struct, frame is struct page's alone — and every tag parses. Each
// failure names the field and the tag to add.
func TestFFTags_EveryReachableFieldHasItsPolicy(t *testing.T) {
	types := reachableTypes(t)
	for _, want := range []reflect.Type{pageType, reflect.TypeOf(Lab{}), reflect.TypeOf(skb.Data{})} {
		if !types[want] {
			t.Fatalf("%v not reached: the walk of the runs is incomplete", want)
		}
	}
	names := make([]string, 0, len(types))
	byName := map[string]reflect.Type{}
	for rt := range types {
		names = append(names, rt.String())
		byName[rt.String()] = rt
	}
	slices.Sort(names)
	for _, name := range names {
		rt := byName[name]
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			tg := state.TagOf(rt, f)
			switch k := f.Type.Kind(); {
			case (k == reflect.Func || k == reflect.Chan) && !tg.Skip:
				t.Errorf("%s.%s is a %v the fast-forward cannot compare: tag it pp:\"observer\" (it belongs to whoever watches the run)", name, f.Name, k)
			case intsInside(f.Type) && framelike(f.Name) && !tg.PFN && !tg.Frame && !tg.Index && !tg.Skip:
				t.Errorf("%s.%s looks like a page frame number or an index: tag it pp:\"pfn\" (its integers name frames: a renaming leaves them), pp:\"index\" (an index that is not a frame) or, in struct page, pp:\"frame\"", name, f.Name)
			case tg.Frame && rt != pageType:
				t.Errorf("%s.%s: pp:\"frame\" is struct page's (what stays with a frame when a role moves)", name, f.Name)
			}
			if tg.Upto != "" {
				if c, ok := rt.FieldByName(tg.Upto); !ok || c.Type.Kind() != reflect.Int || f.Type.Kind() != reflect.Array {
					t.Errorf("%s.%s: pp:\"upto=%s\" needs an array and an int field %s in %s", name, f.Name, tg.Upto, tg.Upto, name)
				}
			}
		}
	}
}

// probeWorkload wraps a workload with a counter that has no pp tag: the
// issue's probe (a new counter in a workload) as a test can make it.
type probeWorkload struct {
	workload.Workload
	bytes int64
}

func (p *probeWorkload) Step(e *workload.Env) bool {
	p.bytes += 64
	return p.Workload.Step(e)
}

// firstDifference explains why the fast-forward finds no cycle in l's run
// (state.FirstDifference): it advances l.
func firstDifference(l *Lab, spacing int64) string {
	return state.FirstDifference(schema, l, l.a.Pages, func(n int64) { l.RunN(n) }, spacing)
}

// pageType is struct page.
var pageType = reflect.TypeOf(mm.Page{})

// TestFFTags_FirstDifferenceNamesAnUntaggedCounter: a counter the walk reads
// as shape keeps the search from finding drop's cycle, and firstDifference
// names it with the tag to add.
func TestFFTags_FirstDifferenceNamesAnUntaggedCounter(t *testing.T) {
	l := mustNew(t, Config{Scenario: "drop", Packets: 1_000_000})
	dr := l.run.(*driverRun)
	dr.w = &probeWorkload{Workload: dr.w}
	l.Run()
	if skips := l.FFStats().Skips; skips != 0 {
		t.Fatalf("drop with an untagged counter skipped %d times: the probe did not reach the walk", skips)
	}
	l = mustNew(t, Config{Scenario: "drop", Packets: 1_000_000})
	dr = l.run.(*driverRun)
	dr.w = &probeWorkload{Workload: dr.w}
	msg := firstDifference(l, 4096)
	if !strings.Contains(msg, "lab.probeWorkload.bytes grows by 262144 every 4096 operations") || !strings.Contains(msg, `pp:"counter"`) {
		t.Errorf("firstDifference: %s", msg)
	}
	t.Logf("the probe's message: %s", msg)
}

// TestFastForward_StepOnAVerificationPoint: a Step (the UI's, between two
// batch slices) that lands on the operation where a verification walk is
// due must not stall the fast-forward: the candidate is dropped and the
// search goes on, and the run still skips. (The six steps and the first
// skip, at op 772352, come within 10^6 packets: the -short run stops there,
// the full one runs 5·10^6.)
func TestFastForward_StepOnAVerificationPoint(t *testing.T) {
	packets := int64(5_000_000)
	if testing.Short() {
		packets = 1_000_000
	}
	l := mustNew(t, Config{Scenario: "drop", Packets: packets})
	stepped := 0
	for i := 0; i < 2000 && !l.Done() && l.FFStats().Skips == 0; i++ {
		due, verify := l.ff.Due()
		switch {
		case due > l.ops && !verify:
			l.RunN(int64(due - l.ops - 1))
			l.Step()
			stepped++
		case due > l.ops && verify && stepped < 6:
			l.RunN(int64(due - l.ops - 1))
			l.Step()
			stepped++
		default:
			l.RunN(4096)
		}
	}
	if stepped == 0 {
		t.Fatal("never had a probe or verification point to step onto")
	}
	l.Run()
	if st := l.FFStats(); st.Skips == 0 {
		t.Fatalf("no skip after %d steps onto due points (off %q)", stepped, st.Off)
	}
	ffSame(t, l, ffRun(t, Config{Scenario: "drop", Packets: packets}, false))
}

// TestRunWhile: RunWhile stops once more says so (asked at every 64th
// operation), lands where RunN of the same count would, and
// with more always true runs to the end, whole cycles skipped included.
func TestRunWhile(t *testing.T) {
	cfg := Config{Scenario: "drop", Packets: 3_000_000}
	l := mustNew(t, cfg)
	calls := 0
	ran := l.RunWhile(math.MaxInt64, func() bool { calls++; return calls < 3 })
	if calls != 3 || ran != 3*64 {
		t.Fatalf("ran %d operations, more asked %d times: want 192 and 3", ran, calls)
	}
	ref := mustNew(t, cfg)
	ref.RunN(ran)
	if !reflect.DeepEqual(l.Snapshot(), ref.Snapshot()) {
		t.Fatal("RunWhile's state differs from RunN's")
	}
	calls = 0
	l.RunWhile(math.MaxInt64, func() bool { calls++; return true })
	if !l.Done() {
		t.Fatal("not done")
	}
	if skipped := l.FFStats().Skipped; skipped == 0 || uint64(calls)*64 > l.Ops()/4 {
		t.Errorf("skipped %d of %d operations, more asked %d times: want most skipped", skipped, l.Ops(), calls)
	}
	ffSame(t, l, ffRun(t, cfg, false))
}
