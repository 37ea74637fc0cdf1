package lab

import (
	"maps"
	"math"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/lab/internal/series"
	"pplab/engine/sim"
)

// seamConfigs is one config per scenario (its default driver and era), at
// the playground's teaching sizes, plus a few with rules broken.
func seamConfigs() []Config {
	var out []Config
	for _, sc := range Scenarios {
		out = append(out, Config{Scenario: sc.Name, Packets: 5000, Knobs: teaching(sc.Name)})
	}
	out = append(out,
		Config{Scenario: "split-page", Era: "5.14", Packets: 5000, Knobs: teaching("split-page")},
		Config{Scenario: "pool-slow", Packets: 5000, Break: []string{"refcnt-check"}, Knobs: teaching("pool-slow")},
		Config{Scenario: "tcp-stream", Driver: "hns3", Era: "5.15", Packets: 5000, Break: []string{"coalesce-cloned-guard"}, Knobs: teaching("tcp-stream", "tap_every=2", "gro=0", "read_ns=2000")},
		Config{Scenario: "forward", Driver: "mvneta", Era: "5.14", Packets: 5000, Knobs: teaching("forward", "tap_every=4")},
	)
	if testing.Short() {
		// 1024 pages per node instead of 16384: a snapshot shows every
		// page, and a seekable run that can fail checks every page after
		// every operation.
		for i := range out {
			out[i].Knobs = out[i].Knobs.With(sim.KnobNodePages, 1024)
		}
	}
	return out
}

func cfgName(c Config) string {
	return strings.Join([]string{c.Scenario, c.Driver, c.Era, strings.Join(c.Break, "+")}, "/")
}

func mustNew(t testing.TB, cfg Config) *Lab {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatalf("%s: %v", cfgName(cfg), err)
	}
	return l
}

// stateOf is a snapshot without the violation log: the machine's state,
// which seeking reproduces exactly whatever the runs compared. The log is
// the same only between runs that check at the same operations (a seekable
// Lab with a rule broken checks every one on every path, seek.go):
// TestViolationLog_SameOnEveryPath compares it.
func stateOf(l *Lab) Snapshot {
	s := l.Snapshot()
	s.Violations, s.ViolationList = [sim.NumKinds]int{}, nil
	return s
}

func TestSnapshot_ShowsEveryPageOnceWithTypedHolders(t *testing.T) {
	l := mustNew(t, Config{Scenario: "drop", Packets: 1000, Knobs: teaching("drop")})
	l.RunN(102) // the ring fill at open, then 50 packets and one in flight: its page sits in an skb
	s := l.Snapshot()
	seen := map[int32]PageView{}
	for _, p := range s.Pages {
		if _, dup := seen[p.PFN]; dup {
			t.Fatalf("pfn %#x listed twice", p.PFN)
		}
		seen[p.PFN] = p
	}
	if len(s.Pools) != 1 || s.NIC == nil || len(s.NIC.Descs) != 16 {
		t.Fatalf("pools %d, NIC %+v", len(s.Pools), s.NIC)
	}
	pool := s.Pools[0]
	for _, pfn := range pool.Cache {
		if p := seen[pfn]; p.Place != "cache" || p.Holder != (Holder{"pool", pool.ID}) {
			t.Errorf("cache page %#x: %+v", pfn, p)
		}
	}
	queued := 0
	for i, slot := range pool.Ring {
		if slot.PFN >= 0 && !slot.Stale {
			queued++
			if p := seen[slot.PFN]; p.Place != "ring" {
				t.Errorf("ring slot %d page %#x: %+v", i, slot.PFN, p)
			}
		}
	}
	if queued != pool.RingCount || len(pool.Ring) != 32 {
		t.Errorf("ring: %d queued slots, count %d, size %d (want 32)", queued, pool.RingCount, len(pool.Ring))
	}
	posted := 0
	for i, d := range s.NIC.Descs {
		if d.Posted {
			posted++
			if p := seen[d.PFN]; p.Place != "nic-ring" || p.Holder != (Holder{"rx-desc", int32(i)}) || p.Users != 1 {
				t.Errorf("desc %d page %#x: %+v", i, d.PFN, p)
			}
		}
	}
	if posted != s.NIC.Posted {
		t.Errorf("%d posted descriptors, NIC says %d", posted, s.NIC.Posted)
	}
	if len(s.SKBs) != 1 || s.SKBs[0].Where != "stack" || !s.SKBs[0].PPRecycle {
		t.Fatalf("skbs %+v", s.SKBs)
	}
	if p := seen[s.SKBs[0].HeadPFN]; p.Place != "skb" || p.Holder != (Holder{"skb", s.SKBs[0].ID}) {
		t.Errorf("skb head page %+v", p)
	}
	free := 0
	for _, n := range s.FreePerNode {
		free += n
	}
	if free+len(s.Pages) != l.a.NumPages() {
		t.Errorf("%d free + %d listed != %d pages", free, len(s.Pages), l.a.NumPages())
	}
	if s.Inflight != int32(len(pool.Cache)+pool.RingCount+posted+1) {
		t.Errorf("inflight %d, want cache %d + ring %d + posted %d + 1 in the skb", s.Inflight, len(pool.Cache), pool.RingCount, posted)
	}
}

// Pages queued on a socket, a TX ring or a tap show those places.
func TestSnapshot_SocketTXRingAndTapPlaces(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		place string
		where string
	}{
		{Config{Scenario: "tcp-stream", Packets: 1000, Knobs: teaching("tcp-stream")}, "socket", "socket"},
		{Config{Scenario: "forward", Packets: 1000, Knobs: teaching("forward")}, "tx-ring", "tx-ring"},
		{Config{Scenario: "clone-tap", Packets: 1000, Knobs: teaching("clone-tap")}, "socket", "tap"},
		{Config{Scenario: "destroy", Packets: 1000, Knobs: teaching("destroy")}, "socket", "socket"},
	} {
		t.Run(tc.cfg.Scenario, func(t *testing.T) {
			l := mustNew(t, tc.cfg)
			found := false
			for i := 0; i < 300 && !found; i++ {
				l.Step()
				s := l.Snapshot()
				places := map[int32]PageView{}
				for _, p := range s.Pages {
					places[p.PFN] = p
				}
				for _, sk := range s.SKBs {
					if sk.Where != tc.where {
						continue
					}
					pfn := sk.HeadPFN
					if len(sk.Frags) > 0 {
						pfn = sk.Frags[0].PFN
					}
					if p := places[pfn]; p.Place == tc.place && p.Holder.Kind == "skb" {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("no skb at %s with its pages shown as %s in 300 steps", tc.where, tc.place)
			}
		})
	}
}

// Every page whose place or holder changed in a step appears in the step's
// moves, and replaying the moves from the state before gives the state after.
func TestStepRecord_RecordsEveryPageMove(t *testing.T) {
	for _, cfg := range seamConfigs() {
		t.Run(cfgName(cfg), func(t *testing.T) {
			l := mustNew(t, cfg)
			l.Record(true)
			where := func(s Snapshot) map[int32][2]string {
				out := make(map[int32][2]string, len(s.Pages))
				for _, p := range s.Pages {
					out[p.PFN] = [2]string{p.Place, p.Holder.Kind + ":" + itoa(p.Holder.ID)}
				}
				return out
			}
			before := where(l.Snapshot())
			moves := 0
			for i := 0; i < 400 && l.Step(); i++ {
				after := where(l.Snapshot())
				rec, ok := l.StepRecord()
				if !ok || rec.Op.Index != uint64(i) {
					t.Fatalf("step %d: record %v index %d", i, ok, rec.Op.Index)
				}
				state := maps.Clone(before)
				for _, mv := range rec.Moves {
					cur, ok := state[mv.PFN]
					if !ok {
						cur = [2]string{"buddy", "buddy:-1"}
					}
					if from := [2]string{mv.From, mv.FromHolder.Kind + ":" + itoa(mv.FromHolder.ID)}; from != cur {
						t.Fatalf("step %d (%s): move of %#x from %v, but it was at %v", i, rec.Op.Label, mv.PFN, from, cur)
					}
					state[mv.PFN] = [2]string{mv.To, mv.ToHolder.Kind + ":" + itoa(mv.ToHolder.ID)}
					if mv.To == "buddy" {
						delete(state, mv.PFN)
					}
					moves++
				}
				if !maps.Equal(state, after) {
					for pfn, w := range after {
						if state[pfn] != w {
							t.Fatalf("step %d (%s): page %#x is at %v, the moves say %v", i, rec.Op.Label, pfn, w, state[pfn])
						}
					}
					for pfn, w := range state {
						if _, ok := after[pfn]; !ok {
							t.Fatalf("step %d (%s): the moves leave %#x at %v, it is free", i, rec.Op.Label, pfn, w)
						}
					}
				}
				if (rec.Op.Name == "" && len(rec.Events) > 0) || rec.Stats != l.stats() {
					t.Fatalf("step %d: op %+v stats %v events %+v", i, rec.Op, rec.Stats, rec.Events)
				}
				before = after
			}
			if moves == 0 {
				t.Fatal("no page moved in 400 steps")
			}
		})
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

// Events name their skb in a field; the trace line still shows it.
func TestStepRecord_EventsCarryTheSkbID(t *testing.T) {
	l := mustNew(t, Config{Scenario: "drop", Packets: 100, Knobs: teaching("drop")})
	l.Record(true)
	for i := 0; i < 60; i++ {
		l.Step()
		rec, _ := l.StepRecord()
		for _, e := range rec.Events {
			if e.Func == sim.SymBuildSKB {
				if e.SKB == 0 || strings.HasPrefix(e.Why, "skb#") || !strings.Contains(e.TraceLine(), "skb#") {
					t.Fatalf("build_skb event: skb %d why %q line %q", e.SKB, e.Why, e.TraceLine())
				}
				return
			}
		}
	}
	t.Fatal("no build_skb event in 60 steps")
}

// Seek(n) reaches the state a straight run of n steps reaches, forward and
// backward, across keyframes (taken from op 4096 on; under -short the
// farthest target is 5000 instead of 9000).
func TestSeek_EqualsStraightRun(t *testing.T) {
	far := uint64(9000)
	if testing.Short() {
		far = 5000
	}
	for _, cfg := range seamConfigs() {
		t.Run(cfgName(cfg), func(t *testing.T) {
			straight := mustNew(t, cfg)
			want := map[uint64]Snapshot{}
			wantLog := map[uint64][sim.NumKinds]int{}
			targets := []uint64{0, 1, 7, 300, 4095, 4096, 4097, far}
			for _, n := range targets {
				for straight.Ops() < n && !straight.Done() {
					straight.RunN(1)
				}
				want[n], wantLog[n] = stateOf(straight), straight.m.Log.Counts
			}
			l := mustNew(t, cfg)
			l.EnableSeek()
			for _, n := range []uint64{far, 300, 4097, 0, 4096, 1, 4095, 7, far} {
				l.Seek(n)
				if got := stateOf(l); !reflect.DeepEqual(got, want[n]) {
					t.Fatalf("Seek(%d): state differs from a straight run (op %d vs %d, packets %d vs %d)", n, got.Op, want[n].Op, got.Packets, want[n].Packets)
				}
				if len(cfg.Break) == 0 && len(l.KnownFailure()) == 0 && (l.m.Log.Total() != 0 || wantLog[n] != [sim.NumKinds]int{}) {
					t.Fatalf("Seek(%d): violations %v (straight %v)", n, l.m.Log.Counts, wantLog[n])
				}
			}
		})
	}
}

// Stepping after a seek is stepping: Seek(n) then Step equals Seek(n+1),
// with recording on (the playground's mode) and off.
func TestSeek_ThenStepEqualsSeekNext(t *testing.T) {
	for _, cfg := range seamConfigs() {
		for _, rec := range []bool{false, true} {
			t.Run(cfgName(cfg)+map[bool]string{false: "", true: "/recording"}[rec], func(t *testing.T) {
				a, b := mustNew(t, cfg), mustNew(t, cfg)
				a.EnableSeek()
				b.EnableSeek()
				a.Record(rec)
				b.Record(rec)
				for _, n := range []uint64{5, 200, 4096, 5000, 130, 0} {
					a.Seek(n)
					a.Step()
					b.Seek(n + 1)
					if sa, sb := stateOf(a), stateOf(b); !reflect.DeepEqual(sa, sb) {
						t.Fatalf("Seek(%d)+Step differs from Seek(%d): op %d/%d packets %d/%d", n, n+1, sa.Op, sb.Op, sa.Packets, sb.Packets)
					}
					if rec {
						ra, _ := a.StepRecord()
						rb, _ := b.StepRecord()
						if ra.Op != rb.Op || !reflect.DeepEqual(ra.Moves, rb.Moves) || ra.Stats != rb.Stats {
							t.Fatalf("after Seek(%d): records differ: %+v vs %+v", n, ra.Op, rb.Op)
						}
					}
				}
			})
		}
	}
}

// A keyframe is a copy: stepping one never changes the other, and a copy
// runs on exactly as the original does.
func TestClone_IsIndependentAndRunsOnIdentically(t *testing.T) {
	for _, cfg := range seamConfigs() {
		t.Run(cfgName(cfg), func(t *testing.T) {
			l := mustNew(t, cfg)
			l.RunN(777)
			before := l.Snapshot()
			c := l.clone()
			c.RunN(1500)
			if !reflect.DeepEqual(l.Snapshot(), before) {
				t.Fatal("running the copy changed the original")
			}
			l.RunN(1500)
			if sa, sb := l.Snapshot(), c.Snapshot(); !reflect.DeepEqual(sa, sb) {
				t.Fatalf("copy and original diverged: op %d/%d packets %d/%d", sa.Op, sb.Op, sa.Packets, sb.Packets)
			}
			ra, rb := l.Results(), c.Results()
			ja, _ := ra.MarshalJSON()
			jb, _ := rb.MarshalJSON()
			if string(ja) != string(jb) {
				t.Fatalf("results differ:\n%s\n%s", ja, jb)
			}
		})
	}
}

// Two runs of one config agree on every id (no package-global counters).
func TestReplay_IDsArePerRun(t *testing.T) {
	cfg := Config{Scenario: "coalesce-mixed", Packets: 400, Knobs: teaching("coalesce-mixed")}
	a := mustNew(t, cfg)
	a.RunN(300)
	b := mustNew(t, cfg)
	b.RunN(300)
	if !reflect.DeepEqual(a.Snapshot(), b.Snapshot()) {
		t.Fatal("two runs of one config differ")
	}
}

func TestConfigValues_RoundTrip(t *testing.T) {
	knobSets := [][]string{nil, {"rx_descs=16", "pool_size=32"}, {"bulk=16", "frame=1000"}, {"coherent=0", "iommu=1", "alloc_fail_ppm=100"}}
	n := 0
	for _, sc := range Scenarios {
		drivers := sc.Drivers
		if len(drivers) == 0 {
			drivers = []string{""}
		}
		eras := sc.Eras
		if len(eras) == 0 {
			eras = sim.EraNames()
		}
		for _, drv := range drivers {
			for _, era := range eras {
				for i, set := range knobSets {
					cfg := Config{Scenario: sc.Name, Driver: drv, Era: era, Knobs: sim.MustOverrides(set...), Seed: uint64(i)}
					if i == 3 {
						cfg.Break = []string{"refcnt-check", "coalesce-pp-guard"}
						cfg.Packets = 777
					}
					if cfg.Validate() != nil {
						continue // e.g. hns3 before 5.15
					}
					v := cfg.Values()
					q, err := url.ParseQuery(v.Encode())
					if err != nil {
						t.Fatal(err)
					}
					got, err := ParseConfig(q)
					if err != nil {
						t.Fatalf("%v: %v", v.Encode(), err)
					}
					if got.Values().Encode() != v.Encode() {
						t.Fatalf("round trip: %s -> %s", v.Encode(), got.Values().Encode())
					}
					ra, _ := cfg.resolve()
					rb, _ := got.resolve()
					if ra.knobs != rb.knobs || ra.era != rb.era || ra.cfg.Driver != rb.cfg.Driver || ra.rules != rb.rules || ra.cfg.Packets != rb.cfg.Packets || ra.cfg.Seed != rb.cfg.Seed {
						t.Fatalf("round trip changed the run: %s", v.Encode())
					}
					n++
				}
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d configs round-tripped", n)
	}
	// Only non-default knobs, names not indexes, a version.
	v := Config{Scenario: "drop", Knobs: sim.MustOverrides("rx_descs=16", "bulk=64")}.Values()
	if v.Encode() != "era=6.8&node_pages=16384&pool_size=0&scenario=drop&v=2" { // v=2: rx_descs=16 is the teaching size, the other sizes the kernel's
		t.Errorf("Values: %s", v.Encode())
	}
}

func TestParseConfig_BadFieldsFallBackAndAreNamed(t *testing.T) {
	for _, tc := range []struct {
		query  string
		fields []string // the bad fields, in the error
		want   string   // the config that runs instead (Values)
	}{
		{"v=1&scenario=drop&era=4.19", []string{"era"}, "era=6.8&scenario=drop&sizes=kernel&v=2"},
		{"v=1&scenario=drop&driver=lunar&rx_descs=16", []string{}, "driver=lunar&era=6.8&node_pages=16384&pool_size=0&scenario=drop&v=2"},
		{"v=1&scenario=xdp-redirect&driver=lunar", []string{"driver"}, "era=6.8&scenario=xdp-redirect&sizes=kernel&v=2"},
		{"v=1&scenario=drop&rx_descs=1&pool_size=32", []string{"rx_descs"}, "era=6.8&node_pages=16384&rx_descs=0&scenario=drop&v=2"},
		{"v=1&scenario=drop&order=9&break=gravity&warp=1", []string{"warp", "break", "order"}, "era=6.8&scenario=drop&sizes=kernel&v=2"}, // rules are read before knobs
		{"v=3&scenario=pool-ring&seed=-1", []string{"v", "seed"}, "era=6.8&scenario=pool-ring&v=2"},
		{"v=2&scenario=pool-ring&seed=-1", []string{"seed"}, "era=6.8&scenario=pool-ring&v=2"},
		{"v=1&scenario=pool-ring&sizes=kernel", []string{"sizes"}, "era=6.8&scenario=pool-ring&sizes=kernel&v=2"},
		{"v=2&scenario=pool-ring&sizes=huge", []string{"sizes"}, "era=6.8&scenario=pool-ring&v=2"},
		{"v=2&scenario=drop&sizes=kernel&pool_size=32", []string{}, "era=6.8&node_pages=16384&rx_descs=0&scenario=drop&v=2"},
		{"v=2&scenario=drop&secnario=x", []string{"secnario"}, "era=6.8&scenario=drop&v=2"},
		{"scenario=pool-ring&nid=1", []string{"nid"}, "era=6.8&scenario=pool-ring&v=2"},
		{"v=1&scenario=pool-ring&scenario=drop", []string{"scenario"}, "era=6.8&scenario=drop&sizes=kernel&v=2"},
	} {
		q, _ := url.ParseQuery(tc.query)
		cfg, err := ParseConfig(q)
		var got []string
		for _, fe := range FieldErrors(err) {
			if fe.Field == "" {
				t.Fatalf("%s: %v is not a field error", tc.query, fe)
			}
			got = append(got, fe.Field)
		}
		if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
			t.Errorf("%s: bad fields %v, want %v (%v)", tc.query, got, tc.fields, err)
		}
		if cfg.Values().Encode() != tc.want {
			t.Errorf("%s: runs %s, want %s", tc.query, cfg.Values().Encode(), tc.want)
		}
	}
	if _, err := ParseConfig(url.Values{}); err == nil {
		t.Error("no scenario: no error")
	}
}

// The series covers the run in bounded windows and agrees with Results.
func TestSeries_BoundedWindowsAgreeWithResults(t *testing.T) {
	l := mustNew(t, Config{Scenario: "drop", Packets: 200_000})
	l.Run()
	pts, window := l.Series()
	if len(pts) == 0 || len(pts) > series.Max || window < series.FirstWindow {
		t.Fatalf("%d points, window %d", len(pts), window)
	}
	var dp int64
	var mix Mix
	for i, p := range pts {
		dp += p.Delivered
		mix.Cached += p.Mix.Cached
		mix.Ring += p.Mix.Ring
		mix.Released += p.Mix.Released
		if i > 0 && p.Packets <= pts[i-1].Packets {
			t.Fatalf("points not in order at %d", i)
		}
	}
	last := pts[len(pts)-1]
	if dp != last.Packets {
		t.Errorf("windows hold %d packets, the last ends at %d", dp, last.Packets)
	}
	res := l.Results()
	// The windows count what the run counted, but for the open window.
	for _, c := range []struct {
		name       string
		got, total uint64
	}{{"cached", mix.Cached, res.Stats[sim.StatRecycleCached]}, {"ring", mix.Ring, res.Stats[sim.StatRecycleRing]}, {"released", mix.Released, uint64(l.releases())}} {
		if c.got > c.total || int64(c.total-c.got) > 2*window {
			t.Errorf("windows' %s %d vs the run's %d", c.name, c.got, c.total)
		}
	}
	if mix.Cached+mix.Ring+mix.Released == 0 {
		t.Error("no page freed in any window")
	}
	// The steady-state windows run at the run's measured rate.
	if p := pts[len(pts)-2]; p.Kpps < res.Rate.Value*0.98 || p.Kpps > res.Rate.Value*1.02 {
		t.Errorf("a late window runs at %.1f kpps, the run at %.1f", p.Kpps, res.Rate.Value)
	}
}

func TestScenarios_ListTheKnobsThatMatter(t *testing.T) {
	for _, sc := range List().Scenarios {
		if len(sc.Knobs) == 0 {
			t.Errorf("%s lists no knobs", sc.Name)
		}
		for _, k := range sc.Knobs {
			if _, ok := sim.KnobByName(k); !ok {
				t.Errorf("%s: unknown knob %q", sc.Name, k)
			}
		}
	}
	var cl ScenarioJSON
	for _, sc := range List().Scenarios {
		if sc.Name == "clone-tap" {
			cl = sc
		}
	}
	if len(cl.Knobs) == 0 || cl.Knobs[0] != "tap_every" {
		t.Errorf("clone-tap knobs %v: want tap_every first", cl.Knobs)
	}
}

func TestSourceLink_NamesTheErasKernel(t *testing.T) {
	if got := SourceLink("5.14", sim.SymPutPage); got != "https://elixir.bootlin.com/linux/v5.14/source/net/core/page_pool.c" {
		t.Errorf("link %q", got)
	}
	if got := SourceLink("6.8", sim.SymStackRest); got != "" {
		t.Errorf("rest of the stack links to %q", got)
	}
}

// A batch run with recording on builds no step record and stays
// allocation-free per operation (recording pauses around it).
func TestRecord_BatchRunsDoNotRecord(t *testing.T) {
	// fast_forward=0: the fast-forward's samples allocate (a walk per
	// 16384+ operations); the operations themselves must not.
	l := mustNew(t, Config{Scenario: "drop", Packets: 1 << 30, Knobs: teaching("drop", "fast_forward=0")})
	l.Record(true)
	l.Step()
	rec, _ := l.StepRecord()
	l.RunN(5000)
	if got, _ := l.StepRecord(); got.Op != rec.Op {
		t.Fatalf("RunN changed the step record: %+v", got.Op)
	}
	if len(l.rec.events) > len(rec.Events) || len(l.m.TakeMoves()) != 0 {
		t.Fatalf("RunN recorded %d events and moves", len(l.rec.events))
	}
	allocs := testing.AllocsPerRun(5, func() { l.RunN(4096) })
	if allocs > 2 {
		t.Errorf("RunN(4096) with recording on: %.0f allocations", allocs)
	}
	l.Step()
	if got, _ := l.StepRecord(); got.Op.Index != l.Ops()-1 || l.m.Log.Total() != 0 {
		t.Errorf("after the batch: record of op %d (ops %d), violations %v", got.Op.Index, l.Ops(), l.m.Log.Counts)
	}
}

// A run in chunks (RunFor, then FinalCheck) is the same run as Run: same
// results to the byte, violations included.
func TestRunFor_ChunksEqualOneRun(t *testing.T) {
	for _, cfg := range []Config{
		{Scenario: "pool-slow", Packets: 20_000, Break: []string{"refcnt-check"}},
		{Scenario: "clone-tap", Packets: 20_000, Break: []string{"last-dataref"}},
		{Scenario: "tcp-stream", Packets: 20_000},
	} {
		a := mustNew(t, cfg)
		a.Run()
		b := mustNew(t, cfg)
		for b.RunFor(777) {
		}
		b.FinalCheck()
		ja, _ := a.Results().MarshalJSON()
		jb, _ := b.Results().MarshalJSON()
		if string(ja) != string(jb) {
			t.Errorf("%s: chunked run differs:\n%s\n%s", cfgName(cfg), ja, jb)
		}
	}
}

// Notes say what the numbers do not: a broken rule the run never reached,
// a machine too small for the RX ring.
func TestResults_NotesWhatTheNumbersDoNotSay(t *testing.T) {
	l := mustNew(t, Config{Scenario: "pool-ring", Packets: 2000, Break: []string{"napi-locality"}})
	l.Run()
	if n := l.Results().Notes; len(n) != 1 || !strings.Contains(n[0], "rule napi-locality is broken, but it never decided anything") || !strings.Contains(n[0], "forward (mlx5, tx_cpu=1)") {
		t.Errorf("notes %q", n)
	}
	l = mustNew(t, Config{Scenario: "pool-slow", Packets: 2000, Break: []string{"refcnt-check"}})
	l.Run()
	if n := l.Results().Notes; len(n) != 0 {
		t.Errorf("a rule that decided: notes %q", n)
	}
	l = mustNew(t, Config{Scenario: "drop", Packets: 2000, Knobs: sim.MustOverrides("node_pages=256")})
	l.Run()
	if n := l.Results().Notes; len(n) != 2 || !strings.HasPrefix(n[0], "degenerate run: ") || !strings.Contains(n[1], "fewer than mvpp2's 1024 RX descriptors") {
		t.Errorf("notes %q", n)
	}
}

// A run that does not measure its scenario's steady state says so first in
// its notes, with the rule and the numbers: more than 1 % of the packets
// missed for want of a posted RX buffer, more than 10 % lost in all, or more
// than 10 % of the page allocations failed. The teaching sizes (16 RX
// descriptors, a 32-slot ring) are a steady state like the kernel's; failure
// injection at 2 % is not degenerate.
func TestResults_DegenerateRunSaysSo(t *testing.T) {
	tests := []struct {
		name                     string
		cfg                      Config
		lost, missed, allocFails int64
		want                     string // in Degenerate; "" = not degenerate
	}{
		{"mlx5 xdp-redirect teaching sizes", Config{Driver: "mlx5", Scenario: "xdp-redirect", Packets: 20000, Knobs: teaching("xdp-redirect")}, 0, 0, 0, ""},
		{"mvneta xdp-redirect teaching sizes", Config{Driver: "mvneta", Scenario: "xdp-redirect", Packets: 20000, Knobs: teaching("xdp-redirect")}, 0, 0, 0, ""},
		{"mlx5 xdp-redirect kernel sizes", Config{Driver: "mlx5", Scenario: "xdp-redirect", Packets: 20000}, 0, 0, 0, ""},
		// 20001 allocations: the ring fill at open tries once, then every
		// poll's refill.
		{"every allocation fails", Config{Driver: "mlx5", Scenario: "xdp-redirect", Packets: 20000, Knobs: sim.MustOverrides("alloc_fail_ppm=1000000")}, 20000, 20000, 20001,
			"degenerate run: 100.0 % of the packets were lost (20000 of 20000; 20000 dropped by the NIC for want of a posted RX buffer, rx_missed_errors), and 100.0 % of the page allocations failed (20001 of 20001 page_pool_alloc_pages calls returned NULL, rx_buff_alloc_err) — over the limits of a steady-state run (1 % of the packets missed for want of an RX buffer, 10 % lost in all, 10 % of the allocations failed); the rate counts the 0 delivered packets only"},
		{"injected failures at 2 %", Config{Driver: "lunar", Scenario: "forward", Packets: 20000, Knobs: sim.MustOverrides("dma_map_fail_ppm=20000")}, -1, 0, 0, ""},
		{"forward at teaching sizes (the TX ring holds two polls)", Config{Driver: "mvpp2", Scenario: "forward", Packets: 20000, Knobs: teaching("forward")}, 0, 0, 0, ""},
		{"half the TX mappings fail", Config{Driver: "mvpp2", Scenario: "forward", Packets: 20000, Knobs: sim.MustOverrides("dma_map_fail_ppm=500000")}, -1, 0, 0, "dropped after the NIC: no memory for an skb, a full TX ring or a TX mapping error"},
		{"pool pairs whose allocation failed", Config{Scenario: "pool-slow", Packets: 2000, Knobs: sim.MustOverrides("alloc_fail_ppm=500000")}, -1, 0, -1, "whose page allocation failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, tc.cfg)
			l.Run()
			r := l.Results()
			if tc.lost >= 0 && (r.Lost != tc.lost || r.RxMissed != tc.missed || r.AllocFailures != tc.allocFails) {
				t.Errorf("lost %d, rx_missed %d, alloc failures %d; want %d, %d, %d", r.Lost, r.RxMissed, r.AllocFailures, tc.lost, tc.missed, tc.allocFails)
			}
			if r.Delivered+r.Lost != r.Packets {
				t.Errorf("delivered %d + lost %d != %d packets", r.Delivered, r.Lost, r.Packets)
			}
			switch {
			case tc.want == "" && r.Degenerate != "":
				t.Errorf("degenerate: %q", r.Degenerate)
			case tc.want != "" && (!strings.Contains(r.Degenerate, tc.want) || len(r.Notes) == 0 || r.Notes[0] != r.Degenerate):
				t.Errorf("degenerate %q, notes %q; want %q first", r.Degenerate, r.Notes, tc.want)
			}
			if s := l.Snapshot(); s.Lost != r.Lost || s.RxMissed != r.RxMissed || s.AllocFailures != r.AllocFailures {
				t.Errorf("snapshot lost %d, rx_missed %d, alloc failures %d; results %d, %d, %d", s.Lost, s.RxMissed, s.AllocFailures, r.Lost, r.RxMissed, r.AllocFailures)
			}
		})
	}
}

// The rate counts delivered packets only: a run that loses packets (here
// forward on mvpp2 with half its DMA mappings failing) is rated on the
// packets that arrived, per ns of the bottleneck CPU.
func TestResults_RateCountsDeliveredPacketsOnly(t *testing.T) {
	l := mustNew(t, Config{Driver: "mvpp2", Scenario: "forward", Packets: 20000, Knobs: sim.MustOverrides("dma_map_fail_ppm=500000")})
	l.Run()
	r := l.Results()
	dr := l.run.(*driverRun)
	measured, delivered := dr.n-dr.warm, l.measuredDelivered()
	if r.Lost == 0 || delivered >= measured {
		t.Fatalf("lost %d, delivered %d of %d measured: want a lossy run", r.Lost, delivered, measured)
	}
	busyNS := float64(l.m.CPUs[r.Bottleneck].BusyPS()-l.startPS[r.Bottleneck]) / sim.PSPerNS
	if got := float64(delivered) / busyNS * 1e6; math.Abs(got-r.Rate.Value) > 1e-6*r.Rate.Value {
		t.Errorf("rate %.3f kpps, want delivered/busy = %.3f", r.Rate.Value, got)
	}
	if offered := float64(measured) / busyNS * 1e6; r.Rate.Value >= offered {
		t.Errorf("rate %.3f kpps is not below the offered packets' %.3f", r.Rate.Value, offered)
	}
}

// Before 5.18 the counters are modelled at the kernel's increment points
// though no kernel of the era exposes them: every result of such an era
// says so.
func TestResults_StatsBefore5_18AreNoted(t *testing.T) {
	for _, era := range sim.EraNames() {
		e, _ := sim.EraByName(era)
		l := mustNew(t, Config{Scenario: "pool-ring", Era: era, Packets: 500})
		l.Run()
		noted := strings.Contains(strings.Join(l.Results().Notes, " "), "predates page_pool stats (CONFIG_PAGE_POOL_STATS, v5.18)")
		if noted == e.Stats {
			t.Errorf("era %s (stats %v): noted %v", era, e.Stats, noted)
		}
	}
}

// A knob value that only a broken rule allows (bulk above the 128-slot
// cache with bulk-dma-unmap broken) opens from its URL form: the rules are
// read before the knobs.
func TestParseConfig_ARuleBrokenBeforeTheKnobsItAllows(t *testing.T) {
	cfg := Config{Driver: "mlx5", Scenario: "xdp-redirect", Era: "5.13", Knobs: sim.MustOverrides("bulk=256"), Break: []string{"bulk-dma-unmap"}}
	got, err := ParseConfig(cfg.Values())
	if err != nil || got.Values().Encode() != cfg.Values().Encode() {
		t.Errorf("%s opens as %s (%v)", cfg.Values().Encode(), got.Values().Encode(), err)
	}
}

// A link keeps its era when the default era changes: a v=1 link without
// an era is read in the default of its day (v1Era, or the scenario's first
// era where it does not run in it), and v=2 always writes the era.
func TestParseConfig_AnEraLessLinkKeepsItsEra(t *testing.T) {
	for q, want := range map[string]string{
		"v=1&scenario=drop":          v1Era,
		"v=1&scenario=devmem-rx":     "6.12",
		"v=1&scenario=drop&era=5.12": "5.12",
	} {
		v, _ := url.ParseQuery(q)
		cfg, err := ParseConfig(v)
		if err != nil || cfg.Era != want {
			t.Errorf("%s: era %q (%v), want %q named", q, cfg.Era, err, want)
		}
		if got := cfg.Values().Get("era"); got != want {
			t.Errorf("%s: its v=2 link says era %q, want %q", q, got, want)
		}
	}
}
