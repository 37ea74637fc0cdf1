package lab

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// logRow is a run with a rule broken and the operation count at which its
// violation log is compared across paths.
type logRow struct {
	name string
	cfg  Config
	kind sim.Kind // the rule's violation, which must be in the log by n
	n    uint64
}

// logRows: every rule in the driver scenario where it shows its violation
// (RuleDemos), the playground's clone-tap teaching preset with
// last-dataref broken (compared at op 137, after its first double
// recycle), and a known failure of an era with no rule broken.
// A few go past the first keyframes (4096), so that a seek back restores
// one taken during the run; under -short every row stops at 200, or just
// after its first violation when that comes later, and the demos run on
// 4096 pages per node instead of 16384 (every operation of these runs
// checks every page).
func logRows() []logRow {
	far := map[string]bool{"last-dataref": true, "pfmemalloc-check": true}
	rows := []logRow{{name: "last-dataref/clone-tap-teaching", kind: sim.KindDoubleRecycle, n: 137,
		cfg: Config{Scenario: "clone-tap", Knobs: teaching("clone-tap"), Break: []string{"last-dataref"}}}}
	for _, d := range RuleDemos {
		rule := d.Rules[len(d.Rules)-1]
		n := uint64(500)
		if far[rule] && !testing.Short() {
			n = firstKeyframes + 100
		}
		if testing.Short() {
			n = 200
			if rule == "last-dataref" {
				n = 2100 // its first double-recycle at kernel sizes is op 2053 (bnxt's 511-slot ring)
			}
			if rule == "signature-check" && d.Era == "7.1-rc1" {
				n = 300 // its first foreign-page-in-pool is op 283 (op 27 in 5.14)
			}
		}
		// destroy's violations come after the unload and the late frees:
		// the demos' run (a 64-descriptor ring) ends at op 348, after the
		// last release retry, the one the producer races.
		if late := map[string]uint64{"dma-mapped-cmpxchg": 348, "release-producer-barrier": 348}[rule]; late > 0 {
			n = late
		}
		cfg := d.Config()
		cfg.Packets = 10_000
		if testing.Short() {
			cfg.Knobs = cfg.Knobs.With(sim.KnobNodePages, 4096)
		}
		rows = append(rows, logRow{name: strings.Join(d.Rules, "+") + "/" + d.Driver + "/" + d.Scenario + "/" + d.Era, kind: d.Kind, n: n, cfg: cfg})
	}
	// No rule broken: the kernel of 5.14 has split-page's failure itself.
	sp, _ := ScenarioByName("split-page")
	rows = append(rows, logRow{name: "known-failure/split-page/5.14", kind: Config{Scenario: sp.Name, Era: "5.14"}.KnownFailure()[0], n: min(rows[1].n, 500),
		cfg: Config{Scenario: "split-page", Era: "5.14", Packets: 10_000}})
	return rows
}

// seekable is the playground's Lab: keyframes and step records on.
func seekable(t *testing.T, cfg Config, rec bool) *Lab {
	t.Helper()
	l := mustNew(t, cfg)
	l.EnableSeek()
	l.Record(rec)
	return l
}

// TestViolationLog_SameOnEveryPath: with a rule broken, the violation log
// after operation n — every entry's kind, page, rule, function, CPU,
// sequence number, detail and At, and the counts — is the same whichever
// way the run got there: stepping, a seek on a fresh Lab (a link), a seek
// back from 2n (a keyframe, ←), a seek forward from op 1 with keyframes
// ahead (the scrubber), a seek to n-1 and a step (→ after ←), the
// playground's play (batch slices ending in a recorded step), and
// ReplayTo. Each entry's At is the first op whose log lists it.
//
// The rows run in parallel. Under -short each row takes three of the seven
// paths, starting one path further at each row, so every path is still
// compared on three rows in seven (every row still steps, and checks At).
func TestViolationLog_SameOnEveryPath(t *testing.T) {
	for i, row := range logRows() {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			n := row.n
			stepped := seekable(t, row.cfg, true)
			for stepped.Ops() < n && stepped.Step() {
			}
			if stepped.Ops() != n {
				t.Fatalf("the run ended at op %d, before %d", stepped.Ops(), n)
			}
			want := stepped.m.Log
			if want.Counts[row.kind] == 0 {
				t.Fatalf("no %s by op %d: %v", row.kind, n, want.Counts)
			}
			paths := []struct {
				name string
				run  func() *Lab
			}{
				{"seek-fresh", func() *Lab { l := seekable(t, row.cfg, true); l.Seek(n); return l }},
				{"seek-fresh-unrecorded", func() *Lab { l := seekable(t, row.cfg, false); l.Seek(n); return l }},
				{"seek-back-from-2n", func() *Lab {
					l := seekable(t, row.cfg, true)
					l.Seek(2 * n)
					l.Seek(n)
					if n > firstKeyframes && l.kf.nearest(n).ops < firstKeyframes {
						t.Errorf("seek-back-from-2n: restored from op %d, not from a keyframe the run took", l.kf.nearest(n).ops)
					}
					return l
				}},
				{"seek-forward-from-1", func() *Lab { // past the keyframes 2n left: restores the nearest
					l := seekable(t, row.cfg, true)
					l.Seek(2 * n)
					l.Seek(1)
					l.Seek(n)
					return l
				}},
				{"seek-n-1-then-step", func() *Lab { l := seekable(t, row.cfg, true); l.Seek(n - 1); l.Step(); return l }},
				{"play", func() *Lab { // RunN slices and RunWhile, each ending in a recorded Step
					l := seekable(t, row.cfg, true)
					l.RunN(int64(n/3) - 1)
					l.Step()
					l.RunWhile(int64(n/3), func() bool { return true })
					l.RunN(int64(n - l.Ops() - 1))
					l.Step()
					return l
				}},
				{"replay-to", func() *Lab {
					l, err := ReplayTo(row.cfg, n)
					if err != nil {
						t.Fatal(err)
					}
					return l
				}},
			}
			for j, p := range paths {
				if testing.Short() && (j-i%len(paths)+len(paths))%len(paths) >= 3 {
					continue
				}
				name, l := p.name, p.run()
				if l.Ops() != n {
					t.Errorf("%s: at op %d, want %d", name, l.Ops(), n)
					continue
				}
				if got := l.m.Log; !reflect.DeepEqual(got, want) {
					t.Errorf("%s: violation log differs from stepping: %d entries %v, want %d %v; first difference: %s",
						name, got.Total(), got.Counts, want.Total(), want.Counts, firstDiff(got.List, want.List))
				}
			}
			// At: the first op whose log lists the entry.
			list := want.List
			l := seekable(t, row.cfg, true)
			for _, i := range []int{len(list) - 1, len(list) / 2, 0} {
				v := list[i]
				if v.At == 0 || v.At > n {
					t.Fatalf("entry %d: At %d outside 1..%d", i, v.At, n)
				}
				l.Seek(v.At)
				if got := l.m.Log.List; len(got) <= i || got[i] != v {
					t.Errorf("entry %d (At %d) is not in the log after Seek(%d)", i, v.At, v.At)
				}
				l.Seek(v.At - 1)
				if got := l.m.Log.List; len(got) > i {
					t.Errorf("entry %d (At %d) is already in the log at op %d", i, v.At, v.At-1)
				}
			}
			if s := stepped.Snapshot(); s.ViolationList[len(list)-1].Op != list[len(list)-1].At {
				t.Errorf("ViolationView.Op %d, want At %d", s.ViolationList[len(list)-1].Op, list[len(list)-1].At)
			}
		})
	}
}

func firstDiff(got, want []sim.Violation) string {
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// A seekable run with a rule broken checks every operation from the first:
// enabling it later is a caller's mistake, and panics.
func TestEnableSeek_AfterTheFirstOpWithARuleBrokenPanics(t *testing.T) {
	l := mustNew(t, Config{Scenario: "clone-tap", Knobs: teaching("clone-tap"), Break: []string{"last-dataref"}})
	l.Step()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	l.EnableSeek()
}

// With recording on, a seek that lands on a keyframe still steps its last
// operation, so the step record describes op n (the playground's ← onto a
// keyframe narrated the op it came from).
func TestSeek_OntoAKeyframeRecordsItsLastOp(t *testing.T) {
	l := seekable(t, Config{Scenario: "clone-tap", Knobs: teaching("clone-tap"), Break: []string{"last-dataref"}}, true)
	l.Seek(firstKeyframes + 50)
	kf := l.kf.nearest(firstKeyframes + 50)
	if kf == nil || kf.ops == 0 {
		t.Fatalf("no keyframe taken during the run (frames at %v)", len(l.kf.frames))
	}
	for _, from := range []uint64{kf.ops + 50, kf.ops - 10} { // back onto it, forward onto it
		l.Seek(from)
		l.Seek(kf.ops)
		if rec, ok := l.StepRecord(); !ok || rec.Op.Index != kf.ops-1 || l.Ops() != kf.ops {
			t.Errorf("from op %d: at op %d the step record is of op index %d (ok %v), want %d", from, l.Ops(), rec.Op.Index, ok, kf.ops-1)
		}
	}
}
