package fastforward

import (
	"reflect"
	"slices"
	"testing"

	"pplab/engine/lab/internal/state"
	"pplab/engine/mm"
)

// toy is a run in miniature: three pages rotate through a three-slot ring,
// one slot per operation, and the page in the first slot is recycled; a
// packet completes every operation. Its state repeats every 64 operations
// (Point's spacing) up to which frame plays which slot: 64 mod 3 = 1, so
// each cycle renames the pages.
type toy struct {
	pages   []mm.Page
	ring    [3]*mm.Page
	ops     uint64 `pp:"counter"`
	packets int64  `pp:"counter"`
	bytes   int64  `pp:"counter"`
	last    int64  // the run's packet count
}

func newToy(last int64) *toy {
	t := &toy{pages: make([]mm.Page, 5), last: last}
	for i := range t.pages {
		t.pages[i].PFN = int32(i)
	}
	t.ring = [3]*mm.Page{&t.pages[0], &t.pages[1], &t.pages[2]}
	return t
}

func (t *toy) step() {
	t.ring[0], t.ring[1], t.ring[2] = t.ring[1], t.ring[2], t.ring[0]
	t.ring[0].Recycles++
	t.ops++
	t.packets++
	t.bytes += 1500
}

// toyHost is the toy as a Host.
type toyHost struct{ t *toy }

func (h toyHost) Root() any                      { return h.t }
func (h toyHost) Ops() uint64                    { return h.t.ops }
func (h toyHost) Packets() int64                 { return h.t.packets }
func (h toyHost) Pages() []mm.Page               { return h.t.pages }
func (h toyHost) Blocked() (string, bool)        { return "", false }
func (h toyHost) ChangeAt() int64                { return -1 }
func (h toyHost) Clocks(dst []int64) []int64     { return dst }
func (h toyHost) SeriesVals(dst []int64) []int64 { return append(dst, h.t.bytes, 0, 0) }
func (h toyHost) MaxCycles(dp int64, _ []int64) int64 {
	return (h.t.last - h.t.packets - 1) / dp
}
func (h toyHost) NextWindow() int64          { return 1 << 62 }
func (h toyHost) CloseWindow(int64, []int64) {}
func (h toyHost) Skipped(uint64)             {}

var toySchema = state.NewSchema()

// run runs the toy to its last packet, with the fast-forward on or off.
func run(last int64, on bool) (*toy, Stats) {
	t := newToy(last)
	f := New(on, toySchema)
	h := toyHost{t}
	for t.packets < last {
		t.step()
		if f.Recording() { // a packet completed
			f.RecordPacket(h)
		}
		if t.ops%lightEvery == 0 {
			f.Point(h, -1)
		}
	}
	return t, f.Stats()
}

// TestFastForward_ToySkipsAndLandsWhereAStraightRunDoes: the search finds
// the 64-operation cycle with its renaming, skips almost all of a long
// run, and ends in the state a straight run ends in: the counters, each
// page's Recycles along its orbit, and which frame holds each slot.
func TestFastForward_ToySkipsAndLandsWhereAStraightRunDoes(t *testing.T) {
	const last = 10_000_003
	on, st := run(last, true)
	off, _ := run(last, false)
	if st.Skips == 0 || st.Period != 64 || st.Skipped < last*9/10 {
		t.Fatalf("stats %+v: want the 64-operation cycle found and most of the run skipped", st)
	}
	if on.ops != off.ops || on.bytes != off.bytes {
		t.Errorf("ops %d bytes %d, straight %d %d", on.ops, on.bytes, off.ops, off.bytes)
	}
	pfns := func(x *toy) []int32 {
		return []int32{x.ring[0].PFN, x.ring[1].PFN, x.ring[2].PFN}
	}
	if !slices.Equal(pfns(on), pfns(off)) {
		t.Errorf("ring frames %v, straight %v", pfns(on), pfns(off))
	}
	for i := range on.pages {
		if !reflect.DeepEqual(on.pages[i], off.pages[i]) {
			t.Errorf("page %d: %+v, straight %+v", i, on.pages[i], off.pages[i])
		}
	}
}

// TestFastForward_OffNeverSkips: New(false) is off, and says why.
func TestFastForward_OffNeverSkips(t *testing.T) {
	if _, st := run(100_000, false); st.Skips != 0 || st.Off != "fast_forward=0" {
		t.Fatalf("stats %+v", st)
	}
}

func TestDivisorsBelow(t *testing.T) {
	for _, c := range []struct {
		name string
		d    uint64
		want []uint64
	}{
		{"prime multiple", 64 * 7, []uint64{64}},
		{"power of two", 64 * 8, []uint64{64, 128, 256}},
		{"the spacing itself", 64, []uint64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := divisorsBelow(c.d); !slices.Equal(got, c.want) {
				t.Errorf("divisorsBelow(%d) = %v, want %v", c.d, got, c.want)
			}
		})
	}
}

// TestRenaming_SameInBothCycles: a renaming is accepted only when both
// cycles apply the same permutation.
func TestRenaming_SameInBothCycles(t *testing.T) {
	a := pageSnap{canon: []int32{0, 1, 2}, holder: []int64{0, 0, 0}, recycles: []uint32{0, 0, 0}}
	b := pageSnap{canon: []int32{1, 2, 0}, holder: []int64{0, 0, 0}, recycles: []uint32{1, 1, 1}}
	c := pageSnap{canon: []int32{2, 0, 1}, holder: []int64{0, 0, 0}, recycles: []uint32{2, 2, 2}}
	rho, _, dR, ok := renaming(a, b, c, 4)
	if !ok || !slices.Equal(rho, []int32{1, 2, 0, -1}) || !slices.Equal(dR, []int64{1, 1, 1}) {
		t.Fatalf("rho %v dR %v ok %v", rho, dR, ok)
	}
	c.canon = []int32{0, 2, 1}
	if _, _, _, ok := renaming(a, b, c, 4); ok {
		t.Error("a renaming that differs in the second cycle was accepted")
	}
}
