package traceevent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The Trace Event Format's fields as this writer uses them
// (docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
// decoded strictly (an unknown field, a float pid or tid, a string where a
// number belongs fail the decode).
type traceFile struct {
	TraceEvents     []traceEvent   `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

type traceEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	S    string          `json:"s"`
	TS   *float64        `json:"ts"`
	PID  *int            `json:"pid"`
	TID  *int            `json:"tid"`
	Args json.RawMessage `json:"args"`
}

type instantArgs struct {
	PFN     *int32  `json:"pfn"`
	Pool    *int32  `json:"pool"`
	Func    string  `json:"func"`
	SKB     int32   `json:"skb"`
	Stat    string  `json:"stat"`
	Release *uint32 `json:"release"`
}

type counterArgs struct {
	Pages *int64 `json:"pages"`
}

type metaArgs struct {
	Name      *string `json:"name"`
	SortIndex *int    `json:"sort_index"`
}

func strict(t *testing.T, b []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Fatalf("decode %.200s: %v", b, err)
	}
	if d.More() {
		t.Fatalf("trailing data after the JSON object")
	}
}

// parsed is a checked trace: the last value of each counter, the instants
// by name, the thread names.
type parsed struct {
	file     traceFile
	counters map[string]int64
	instants map[string]int
	threads  map[int]string
	skbs     int // instants that name an skb
}

// check decodes a trace and checks every event against the format.
func check(t *testing.T, b []byte) parsed {
	t.Helper()
	var p parsed
	strict(t, b, &p.file)
	if p.file.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit %q", p.file.DisplayTimeUnit)
	}
	if p.file.OtherData == nil {
		t.Fatal("no otherData")
	}
	p.counters, p.instants, p.threads = map[string]int64{}, map[string]int{}, map[int]string{}
	lastTID := map[int]float64{}
	lastCounter := map[string]float64{}
	usedTIDs := map[int]bool{}
	process := false
	for i, e := range p.file.TraceEvents {
		at := fmt.Sprintf("event %d %q", i, e.Name)
		if e.TS == nil || e.PID == nil || e.TID == nil {
			t.Fatalf("%s: ts, pid and tid are required", at)
		}
		if *e.PID != PID || *e.TID < 1 {
			t.Fatalf("%s: pid %d tid %d", at, *e.PID, *e.TID)
		}
		if *e.TS < 0 {
			t.Fatalf("%s: ts %v", at, *e.TS)
		}
		switch e.Ph {
		case "i":
			var a instantArgs
			strict(t, e.Args, &a)
			if e.S != "t" || e.Cat != "page_pool" {
				t.Fatalf("%s: scope %q cat %q", at, e.S, e.Cat)
			}
			switch e.Name {
			case NameAllocFast, NameAllocSlow, NameRecycleCache, NameRecycleRing, NameRelease:
			default:
				t.Fatalf("%s: not an instant name", at)
			}
			if a.PFN == nil || *a.PFN < 0 || a.Pool == nil || *a.Pool < 1 || a.Func == "" || a.SKB < 0 {
				t.Fatalf("%s: args %s", at, e.Args)
			}
			if (e.Name == NameRelease) != (a.Release != nil) {
				t.Fatalf("%s: release arg %s", at, e.Args)
			}
			if *e.TS < lastTID[*e.TID] {
				t.Fatalf("%s: ts %v before the thread's previous %v", at, *e.TS, lastTID[*e.TID])
			}
			lastTID[*e.TID] = *e.TS
			usedTIDs[*e.TID] = true
			p.instants[e.Name]++
			if a.SKB > 0 {
				p.skbs++
			}
		case "C":
			var a counterArgs
			strict(t, e.Args, &a)
			if a.Pages == nil || *a.Pages < 0 {
				t.Fatalf("%s: args %s", at, e.Args)
			}
			if !strings.HasPrefix(e.Name, "alloc cache (pool ") && !strings.HasPrefix(e.Name, "ptr_ring (pool ") && !strings.HasPrefix(e.Name, "inflight (pool ") {
				t.Fatalf("%s: not a counter name", at)
			}
			if last, ok := lastCounter[e.Name]; ok && *e.TS < last {
				t.Fatalf("%s: ts %v before the counter's previous %v", at, *e.TS, last)
			}
			lastCounter[e.Name] = *e.TS
			usedTIDs[*e.TID] = true
			p.counters[e.Name] = *a.Pages
		case "M":
			var a metaArgs
			strict(t, e.Args, &a)
			switch e.Name {
			case "process_name":
				process = a.Name != nil && *a.Name != ""
			case "thread_name":
				if a.Name == nil || !strings.HasPrefix(*a.Name, fmt.Sprintf("cpu%d", *e.TID-1)) {
					t.Fatalf("%s: args %s", at, e.Args)
				}
				p.threads[*e.TID] = *a.Name
			case "thread_sort_index":
				if a.SortIndex == nil {
					t.Fatalf("%s: args %s", at, e.Args)
				}
			default:
				t.Fatalf("%s: unknown metadata", at)
			}
		default:
			t.Fatalf("%s: ph %q", at, e.Ph)
		}
	}
	if !process {
		t.Error("no process_name")
	}
	for tid := range usedTIDs {
		if p.threads[tid] == "" {
			t.Errorf("tid %d has events but no thread_name", tid)
		}
	}
	return p
}

// trace runs cfg to its end with a writer attached and returns the file
// and the lab.
func trace(t *testing.T, cfg lab.Config, opt Options, tap func(w *Writer, e sim.Event)) ([]byte, *lab.Lab) {
	t.Helper()
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := Attach(l, &buf, opt)
	if tap != nil {
		l.SetTracer(func(e sim.Event) { w.Event(e); tap(w, e) })
	}
	l.Run()
	l.FinalCheck()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), l
}

var configs = []lab.Config{
	{Scenario: "pool-ring"}, {Scenario: "pool-direct"}, {Scenario: "pool-slow"},
	{Scenario: "drop"}, {Scenario: "tcp-stream"}, {Scenario: "forward"}, {Scenario: "xdp-redirect"},
	{Scenario: "destroy"}, {Scenario: "split-page"}, {Scenario: "clone-tap"}, {Scenario: "numa-migrate"},
	{Scenario: "tcp-stream", Era: "5.12"}, {Scenario: "tcp-stream", Era: "7.3"}, {Scenario: "split-page", Era: "6.13"},
	{Scenario: "forward", Era: "6.10"}, {Scenario: "pool-ring", Era: "5.12"},
}

// TestFormat_EveryEventAndCountersAgree: every event of the trace of each
// run has the format's fields, each thread is named, and each counter's
// last value is the run's own at its end; a pool with no counter track
// held nothing. The instants count what the pools' counters count (every
// alloc_fast, alloc_refill, alloc_slow(_ho), recycle_cached, recycle_ring;
// the releases are the pools' pages_state_release_cnt).
func TestFormat_EveryEventAndCountersAgree(t *testing.T) {
	for _, cfg := range configs {
		cfg.Packets = 2000
		name := cfg.Scenario + "@" + cmpOr(cfg.Era, sim.DefaultEra)
		t.Run(name, func(t *testing.T) {
			b, l := trace(t, cfg, Options{}, nil)
			p := check(t, b)
			if len(p.instants) == 0 {
				t.Fatal("no instant events")
			}
			snap := l.Snapshot()
			var release, fast, slow, cached, ring uint64
			for _, pv := range snap.Pools {
				want := map[string]int64{CounterCache(pv.ID): int64(len(pv.Cache)), CounterRing(pv.ID): int64(pv.RingCount), CounterInflight(pv.ID): int64(pv.Inflight)}
				for n, v := range want {
					if got, ok := p.counters[n]; got != v || (!ok && v != 0) {
						t.Errorf("%s: trace ends at %d (track %v), the run at %d", n, got, ok, v)
					}
				}
				release += uint64(pv.Release)
				fast += pv.Stats[sim.StatAllocFast] + pv.Stats[sim.StatAllocRefill]
				slow += pv.Stats[sim.StatAllocSlow] + pv.Stats[sim.StatAllocSlowHighOrder]
				cached += pv.Stats[sim.StatRecycleCached]
				ring += pv.Stats[sim.StatRecycleRing]
			}
			if got := uint64(p.instants[NameRelease]); got != release {
				t.Errorf("%d release instants, the pools released %d pages", got, release)
			}
			if got := uint64(p.instants[NameAllocSlow]); got != slow {
				t.Errorf("%d alloc slow instants, alloc_slow(+_ho) %d", got, slow)
			}
			if got := uint64(p.instants[NameAllocFast]); got != fast {
				t.Errorf("%d alloc fast instants, alloc_fast + alloc_refill %d", got, fast)
			}
			if got := uint64(p.instants[NameRecycleCache]); got != cached+snap.SystemRecycle[sim.StatRecycleCached] {
				t.Errorf("%d recycle cache instants, recycle_cached %d", got, cached)
			}
			if got := uint64(p.instants[NameRecycleRing]); got != ring+snap.SystemRecycle[sim.StatRecycleRing] {
				t.Errorf("%d recycle ring instants, recycle_ring %d", got, ring)
			}
			od := p.file.OtherData
			if od["events_dropped"] != 0.0 || od["truncated"] != false || od["era"] != snap.Era || od["to_op"] != float64(l.Ops()) {
				t.Errorf("otherData %v", od)
			}
			t.Logf("%d bytes, %d events (%.0f B/event), instants %v, %d with an skb, threads %v", len(b), len(p.file.TraceEvents), float64(len(b))/float64(len(p.file.TraceEvents)), p.instants, p.skbs, p.threads)
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestInflight_IsWhatTheTracepointsSay: after every event, the inflight
// counter the trace holds for each pool is hold − release as the run's
// page_pool_state_hold / _release tracepoints carry them (what a reader of
// a real trace computes), and the cache and ring counters are the run's.
func TestInflight_IsWhatTheTracepointsSay(t *testing.T) {
	for _, cfg := range []lab.Config{{Scenario: "tcp-stream"}, {Scenario: "pool-slow"}, {Scenario: "destroy"}, {Scenario: "xdp-redirect", Era: "7.3"}} {
		cfg.Packets = 1000
		t.Run(cfg.Scenario, func(t *testing.T) {
			hold, rel := map[int32]uint32{}, map[int32]uint32{}
			bad := 0
			var levels []lab.PoolLevel
			var l *lab.Lab
			tap := func(w *Writer, e sim.Event) {
				switch e.Kind {
				case sim.EvStateHold:
					hold[e.Pool] = e.Hold
				case sim.EvStateRelease:
					rel[e.Pool] = e.Release
				}
				levels = w.l.PoolLevels(levels[:0])
				for _, p := range levels {
					got := w.last[p.ID]
					if got.Inflight != int32(hold[p.ID]-rel[p.ID]) || got != p {
						if bad++; bad < 5 {
							t.Errorf("after %s on cpu%d: the trace holds %+v, the tracepoints say inflight %d, the run %+v", e.Func.Name(), e.CPU, got, int32(hold[p.ID]-rel[p.ID]), p)
						}
					}
				}
			}
			_, l = trace(t, cfg, Options{}, tap)
			if len(hold) == 0 || l.Packets() == 0 {
				t.Fatal("no holds")
			}
		})
	}
}

// TestCap_EndsValid: a cap ends the JSON validly within the cap and says
// how many events it dropped.
func TestCap_EndsValid(t *testing.T) {
	for _, max := range []int64{1, MinBytes, 10_000, 100_000} {
		b, _ := trace(t, lab.Config{Scenario: "tcp-stream", Packets: 3000}, Options{MaxBytes: max, Other: map[string]any{"command": "ppsim run --scenario tcp-stream"}}, nil)
		p := check(t, b)
		od := p.file.OtherData
		if int64(len(b)) > max && int64(len(b)) > MinBytes {
			t.Errorf("cap %d: %d bytes", max, len(b))
		}
		if od["truncated"] != true || od["events_dropped"].(float64) < 1 || od["command"] != "ppsim run --scenario tcp-stream" {
			t.Errorf("cap %d: otherData %v", max, od)
		}
		t.Logf("cap %d: %d bytes, %d events written, %v dropped", max, len(b), len(p.file.TraceEvents), od["events_dropped"])
	}
}

func TestAppendTS(t *testing.T) {
	for ps, want := range map[int64]string{0: "0", 1: "0.000001", 1_000_000: "1", 1_234_500: "1.2345", 12_000_001_000_000: "12000001", -5: "-0.000005"} {
		if got := string(appendTS(nil, ps)); got != want {
			t.Errorf("appendTS(%d) = %q, want %q", ps, got, want)
		}
	}
}

// TestSKB_IsTheOneThatHeldThePage: a recycle or release names as its skb
// the skb the page was last added to (runs without clones or GRO, where
// that skb is the one whose free returns the page).
func TestSKB_IsTheOneThatHeldThePage(t *testing.T) {
	for _, cfg := range []lab.Config{{Scenario: "drop"}, {Scenario: "forward"}, {Scenario: "numa-migrate"}, {Scenario: "forward", Era: "6.10"}} {
		cfg.Packets = 1000
		t.Run(cfg.Scenario+"@"+cmpOr(cfg.Era, sim.DefaultEra), func(t *testing.T) {
			holder := map[int32]int32{}
			named, bad := 0, 0
			tap := func(w *Writer, e sim.Event) {
				if e.Page >= 0 && e.SKB != 0 && e.To == sim.PlaceSKB {
					holder[e.Page] = e.SKB
				}
				name, ok := instantName(e)
				if !ok || name == NameAllocFast || name == NameAllocSlow || e.SKB != 0 {
					return
				}
				if got := w.skb[e.CPU].id; got != 0 {
					named++
					if got != holder[e.Page] {
						if bad++; bad < 5 {
							t.Errorf("%s of pfn %#x names skb#%d; the page was last added to skb#%d", name, e.Page, got, holder[e.Page])
						}
					}
				}
			}
			trace(t, cfg, Options{}, tap)
			if named < 100 {
				t.Errorf("only %d recycles or releases name an skb", named)
			}
		})
	}
}
