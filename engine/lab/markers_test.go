package lab

import (
	"fmt"
	"reflect"
	"testing"

	"pplab/engine/sim"
)

// markerLab is a seekable run of cfg that finds markers (as the
// playground's session builds it), recording its steps when rec.
func markerLab(t *testing.T, cfg Config, rec bool) *Lab {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.EnableSeek()
	l.EnableMarkers()
	l.Record(rec)
	return l
}

func teachingCfg(t *testing.T, scenario string, edits ...string) Config {
	t.Helper()
	cfg, err := Preset(PresetTeaching, scenario)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(edits); i += 2 {
		if cfg, err = cfg.With(edits[i], edits[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

func kinds(ms []Marker) map[MarkerKind][]uint64 {
	out := map[MarkerKind][]uint64{}
	for _, m := range ms {
		out[m.Kind] = append(out[m.Kind], m.Op)
	}
	return out
}

// TestMarkers_PerScenario: named rows, each a run and what its markers
// must show.
func TestMarkers_PerScenario(t *testing.T) {
	demo := RuleDemos[1] // last-dataref on bnxt clone-tap 6.1: a double recycle
	rows := []struct {
		name  string
		cfg   Config
		ops   uint64
		check func(t *testing.T, l *Lab)
	}{
		{"pool-slow: a slow-path allocation at its first op", teachingCfg(t, "pool-slow"), 2000, func(t *testing.T, l *Lab) {
			ms := l.Markers()
			if len(ms) == 0 || ms[0].Op != 0 || ms[0].Kind != MarkSlow {
				t.Fatalf("first marker %+v, want a slow-path allocation at op 0", ms)
			}
			if got := kinds(ms)[MarkReleased]; len(got) == 0 {
				t.Errorf("no released_refcnt marker (pool-slow's extra get_page releases every put): %v", kinds(ms))
			}
		}},
		{"drop: ring_full where the ptr_ring overflows", teachingCfg(t, "drop"), 3000, func(t *testing.T, l *Lab) {
			got := kinds(l.Markers())[MarkRingFull]
			if len(got) == 0 {
				t.Fatalf("no ring_full marker: %v", kinds(l.Markers()))
			}
			// the marked op's record counts the overflow
			l.Record(true)
			l.Seek(got[0] + 1)
			rec, _ := l.StepRecord()
			if rec.Op.Index != got[0] || rec.Stats[sim.StatRecycleRingFull] <= rec.StatsBefore[sim.StatRecycleRingFull] {
				t.Errorf("op %d: recycle_ring_full %d → %d, want it to rise", rec.Op.Index, rec.StatsBefore[sim.StatRecycleRingFull], rec.Stats[sim.StatRecycleRingFull])
			}
		}},
		{"destroy: the release retries, the stalled warning and the pool freed", teachingCfg(t, "destroy"), 1 << 20, func(t *testing.T, l *Lab) {
			k := kinds(l.Markers())
			if len(k[MarkRetry]) != MarkersPerKind || len(k[MarkStalled]) != 1 || len(k[MarkFreed]) != 1 {
				t.Fatalf("retries %v, stalled %v, freed %v: want %d retries, one warning, one free", k[MarkRetry], k[MarkStalled], k[MarkFreed], MarkersPerKind)
			}
			l.Record(true)
			for _, op := range []uint64{k[MarkRetry][0], k[MarkFreed][0]} {
				l.Seek(op + 1)
				rec, _ := l.StepRecord()
				found := false
				for _, e := range rec.Events {
					found = found || e.Kind == sim.EvPoolRelease
				}
				if !found {
					t.Errorf("op %d: no page_pool_release tracepoint in its record", op)
				}
			}
		}},
		{"a broken rule: a violation marker at the violation's op", teachingCfg(t, demo.Scenario, "driver", demo.Driver, "era", demo.Era, "break", demo.Rules[0]), 4000, func(t *testing.T, l *Lab) {
			got := kinds(l.Markers())[MarkViolation]
			if len(got) == 0 {
				t.Fatalf("no violation marker; the log has %d", l.m.Log.Total())
			}
			first := l.m.Log.List[0]
			if got[0] != first.At-1 {
				t.Errorf("first violation marker at op %d, the log lists its first entry from op %d (At %d)", got[0], first.At-1, first.At)
			}
			l.Record(true)
			l.Seek(got[0] + 1)
			if rec, _ := l.StepRecord(); len(rec.Violations) == 0 {
				t.Errorf("op %d's record shows no violation", got[0])
			}
		}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			l := markerLab(t, row.cfg, false)
			l.RunN(int64(row.ops))
			for k, ops := range kinds(l.Markers()) {
				if len(ops) > MarkersPerKind {
					t.Errorf("%d %s markers, at most %d", len(ops), k, MarkersPerKind)
				}
			}
			for _, m := range l.Markers() {
				if m.Op >= l.MarkersFrontier() {
					t.Errorf("marker %+v at or past the frontier %d", m, l.MarkersFrontier())
				}
			}
			row.check(t, l)
		})
	}
}

// TestMarkers_SameOnEveryPath: a run's markers are a function of its
// config and the furthest op it reached, whichever way it got there
// (steps, batch, play slices, seeks back and forth, the fast-forward on or
// off).
func TestMarkers_SameOnEveryPath(t *testing.T) {
	demo := RuleDemos[1]
	rows := []struct {
		name string
		cfg  Config
		n    uint64
	}{
		{"pool-slow", teachingCfg(t, "pool-slow"), 3000},
		{"drop", teachingCfg(t, "drop"), 5000},
		{"tcp-stream", teachingCfg(t, "tcp-stream"), 7000},
		{"destroy", teachingCfg(t, "destroy"), 140},
		{"broken rule", teachingCfg(t, demo.Scenario, "driver", demo.Driver, "era", demo.Era, "break", demo.Rules[0]), 2500},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			n := row.n
			ref := markerLab(t, row.cfg, true)
			for ref.Ops() < n && ref.Step() {
			}
			want := ref.Markers()
			if len(want) == 0 {
				t.Fatal("no markers")
			}
			paths := map[string]func() *Lab{
				"batch": func() *Lab { l := markerLab(t, row.cfg, false); l.RunN(int64(n)); return l },
				"play": func() *Lab {
					l := markerLab(t, row.cfg, true)
					l.RunSlice(int64(n/3), func() bool { return true })
					l.Step()
					l.RunN(int64(n - l.Ops() - 1))
					l.Step()
					return l
				},
				"seeks": func() *Lab {
					l := markerLab(t, row.cfg, true)
					l.Seek(n / 2)
					l.Seek(3)
					l.Seek(n)
					l.Seek(n / 3)
					l.Step()
					l.Seek(n - 1)
					return l
				},
			}
			for name, path := range paths {
				l := path()
				if l.MarkersFrontier() != n {
					t.Errorf("%s: frontier %d, want %d", name, l.MarkersFrontier(), n)
				}
				if got := l.Markers(); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: markers differ from stepping:\n got %v\nwant %v", name, got, want)
				}
			}
		})
	}
}

// TestMarkers_FastForwardSkipsRepeatTheCycle: a run the fast-forward
// skips finds the markers a run without it finds (fast_forward=0): a
// skipped cycle repeats the last one's.
func TestMarkers_FastForwardSkipsRepeatTheCycle(t *testing.T) {
	skipped := 0
	for _, sc := range []string{"pool-slow", "pool-ring", "pool-direct", "drop", "forward", "xdp-drop", "xdp-tx", "tcp-stream"} {
		for _, preset := range []string{PresetTeaching, ""} {
			name := fmt.Sprintf("%s/%s", sc, preset)
			var cfg Config
			var err error
			if preset == "" {
				cfg = Config{Scenario: sc, Packets: 300_000}
			} else if cfg, err = Preset(preset, sc); err != nil {
				t.Fatal(err)
			}
			if testing.Short() {
				cfg.Packets = min(cfg.Packets, 100_000)
			}
			on := markerLab(t, cfg, false)
			on.mk.limit = 400 // room left when the first skip comes
			on.Run()
			offCfg, err := cfg.With("fast_forward", "0")
			if err != nil {
				t.Fatal(err)
			}
			off := markerLab(t, offCfg, false)
			off.mk.limit = 400
			off.Run()
			if !reflect.DeepEqual(on.Markers(), off.Markers()) {
				t.Errorf("%s: with the fast-forward %v\nwithout %v", name, on.Markers(), off.Markers())
			}
			if on.mk.skipAdded > 0 {
				skipped++ // markers in the skipped cycles
			}
		}
	}
	if skipped == 0 {
		t.Error("no run was fast-forwarded with markers in its skipped cycles: the test compares nothing")
	}
}
