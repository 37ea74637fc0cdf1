package workload

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
	"pplab/engine/skb"
)

// testRun is one RX queue of a driver running a workload, built as
// engine/lab's driver runs build theirs (newDriverRun): the driver's
// platform, the scenario's buffer mode (split-page: page_pool_alloc_frag
// from 5.15, a half-page flip before, skbs marked whenever the era can),
// hardware GRO as the era and the hw_gro knob decide, the NAPI on cpu0 and
// the application on cpu1. Knobs come from simtest.Options (node_pages=1024)
// with a 64-descriptor ring unless the options set rx_descs. A tracer
// counts every skb free by kernel function, CPU and context.
type testRun struct {
	t     *testing.T
	e     *Env
	w     Workload
	frees map[free]int
	n     int64 // packets completed
}

// free is one kind of skb free the trace shows: the kernel function, the
// CPU it ran on and that CPU's context then.
type free struct {
	fn  string // kfree_skb, dev_kfree_skb_any, napi_consume_skb, skb_attempt_defer_free, skb_defer_free_flush
	cpu int
	ctx string // softirq or process
}

func (f free) String() string { return fmt.Sprintf("%s/cpu%d/%s", f.fn, f.cpu, f.ctx) }

// Shorthands for the table rows.
func kfree(cpu int, ctx string) free     { return free{"kfree_skb", cpu, ctx} }
func devKfree(cpu int, ctx string) free  { return free{"dev_kfree_skb_any", cpu, ctx} }
func napiConsume(cpu int) free           { return free{"napi_consume_skb", cpu, softirq} }
func deferFree(cpu int, ctx string) free { return free{"skb_attempt_defer_free", cpu, ctx} }
func deferFlush(cpu int) free            { return free{"skb_defer_free_flush", cpu, softirq} }

const (
	softirq = "softirq"
	process = "process"
)

func newTestRun(t *testing.T, name, driver, era string, opts ...string) *testRun {
	t.Helper()
	spec, err := drivers.SpecByName(driver)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.Runs(name) {
		t.Fatalf("%s does not run %s", driver, name)
	}
	m, rest := simtest.Machine(t, era, spec.Platform, append([]string{"rx_descs=64"}, opts...)...)
	if len(rest) > 0 {
		t.Fatalf("unknown options %v", rest)
	}
	e := m.Era
	a := mm.NewAllocator(m)
	reg := pagepool.NewRegistry(a)
	st := skb.NewStack(reg)
	mode := spec.Buffer
	if name == WSplitPage {
		mode = drivers.HalfPageFlip
		if e.FragAPI {
			mode = drivers.FragAPI
		}
	}
	agg, err := spec.AggMode(e, &m.Knobs, AttachesXDP(name, &m.Knobs))
	if err != nil {
		t.Fatal(err)
	}
	d, err := drivers.New(st, reg, spec, mode, pagepool.NewNAPI(0), int(m.Knobs[sim.KnobRxDescs]), agg)
	if err != nil {
		t.Fatal(err)
	}
	if name == WSplitPage {
		d.MarkWheneverPossible()
	}
	env := &Env{M: m, A: a, Reg: reg, S: st, Drv: d, App: 1 % len(m.CPUs)}
	w, err := NewWorkload(name, env)
	if err != nil {
		t.Fatal(err)
	}
	r := &testRun{t: t, e: env, w: w, frees: map[free]int{}}
	m.SetTracer(r.trace)
	d.Open()
	return r
}

// trace counts the skb frees: dev_kfree_skb_any is kfree_skb's event with
// its own reason.
func (r *testRun) trace(ev sim.Event) {
	if ev.Kind != sim.EvCall {
		return
	}
	var fn string
	switch ev.Func {
	case sim.SymKfreeSKB:
		fn = "kfree_skb"
		if strings.HasPrefix(ev.Why, "dev_kfree_skb_any") {
			fn = "dev_kfree_skb_any"
		}
	case sim.SymNapiConsumeSKB:
		fn = "napi_consume_skb"
	case sim.SymDeferFree:
		fn = "skb_attempt_defer_free"
	case sim.SymDeferFlush:
		fn = "skb_defer_free_flush"
	default:
		return
	}
	ctx := process
	if r.e.M.CPUs[ev.CPU].Softirq {
		ctx = softirq
	}
	r.frees[free{fn, ev.CPU, ctx}]++
}

// packets runs until n more packets have completed; it fails on a run error.
func (r *testRun) packets(n int64) *testRun {
	r.t.Helper()
	for end := r.n + n; r.n < end; {
		if r.w.Step(r.e) {
			r.n++
		}
		if r.e.Err != nil {
			r.t.Fatalf("after %d packets: %v", r.n, r.e.Err)
		}
	}
	return r
}

// steps runs n operations.
func (r *testRun) steps(n int) *testRun {
	r.t.Helper()
	for range n {
		if r.w.Step(r.e) {
			r.n++
		}
		if r.e.Err != nil {
			r.t.Fatalf("after %d packets: %v", r.n, r.e.Err)
		}
	}
	return r
}

// stats is the pool's counters now.
func (r *testRun) stats() *sim.Stats {
	var s sim.Stats
	r.e.Drv.Pool.GetStats(&s)
	return &s
}

// wantFrees compares the frees counted so far with want, exactly: a kind
// of free want does not list must not have happened.
func (r *testRun) wantFrees(want map[free]int) {
	r.t.Helper()
	if !equalFrees(r.frees, want) {
		r.t.Errorf("frees after %d packets:\n got %s\nwant %s", r.n, fmtFrees(r.frees), fmtFrees(want))
	}
}

// clean ends a run: the invariant checker finds nothing.
func (r *testRun) clean() {
	r.t.Helper()
	simtest.Clean(r.t, r.e.M)
}

func equalFrees(a, b map[free]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

func fmtFrees(f map[free]int) string {
	var s []string
	for k, v := range f {
		if v != 0 {
			s = append(s, fmt.Sprintf("%s: %d", k, v))
		}
	}
	slices.Sort(s)
	return "{" + strings.Join(s, ", ") + "}"
}
