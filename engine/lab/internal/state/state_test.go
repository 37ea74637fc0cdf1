package state

import (
	"reflect"
	"strings"
	"testing"

	"pplab/engine/mm"
)

// A small graph in the shape of a run's: a root that holds pages through
// pointers (a cache), a PFN list, counters, shared descriptions, an
// interface and a map.
type desc struct{ name string }

type node struct {
	id   int
	next *node
}

type root struct {
	pages   []mm.Page
	cache   []*mm.Page
	slot    [2]*mm.Page
	free    []int32 `pp:"pfn"`
	hits    uint64  `pp:"counter"`
	clock   int64   `pp:"time"`
	d       *desc
	ring    *node
	any     any
	byName  map[string]int
	frags   [4]int `pp:"upto=nr"`
	nr      int
	watcher func() `pp:"observer"`
}

var testSchema = NewSchema(reflect.TypeOf((*desc)(nil)))

func newRoot() *root {
	r := &root{pages: make([]mm.Page, 8), d: &desc{"shared"}, byName: map[string]int{"a": 1}}
	for i := range r.pages {
		r.pages[i].PFN = int32(i)
	}
	r.cache = []*mm.Page{&r.pages[2], &r.pages[5]}
	r.slot = [2]*mm.Page{&r.pages[5], nil}
	r.free = []int32{0, 1}
	a := &node{id: 1}
	a.next = &node{id: 2, next: a}
	r.ring, r.any = a, a.next
	r.frags, r.nr = [4]int{7, 8, 99, 99}, 2
	return r
}

// TestCopy_PagesMapIntoTheCopysArray: a page pointer of the copy points
// into the copy's page array at the same PFN; shared descriptions are
// shared; cycles and shared structure are kept; the copy is independent.
func TestCopy_PagesMapIntoTheCopysArray(t *testing.T) {
	src := newRoot()
	src.watcher = nil
	dst := new(root)
	testSchema.Copy(dst, src, src.pages)
	if &dst.pages[0] == &src.pages[0] {
		t.Fatal("the copy shares the page array")
	}
	if dst.cache[0] != &dst.pages[2] || dst.cache[1] != &dst.pages[5] || dst.slot[0] != &dst.pages[5] || dst.slot[1] != nil {
		t.Fatalf("page pointers not mapped into the copy's array: cache %p %p slot %p (array at %p)", dst.cache[0], dst.cache[1], dst.slot[0], &dst.pages[0])
	}
	if dst.d != src.d {
		t.Error("a shared description was copied")
	}
	if dst.ring == src.ring || dst.ring.next.next != dst.ring || dst.any != any(dst.ring.next) {
		t.Error("the cycle or the shared node was not kept in the copy")
	}
	dst.pages[2].Holder = 9
	dst.byName["a"] = 2
	dst.free[0] = 7
	if src.pages[2].Holder == 9 || src.byName["a"] != 1 || src.free[0] != 0 {
		t.Error("writing the copy changed the source")
	}
}

// TestCopy_FuncValuePanicsNamingIt: a function value in the graph is a
// precondition failure (a keyframe must hold values only).
func TestCopy_FuncValuePanicsNamingIt(t *testing.T) {
	src := newRoot()
	src.watcher = func() {}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "cannot copy a func value") {
			t.Fatalf("panic %v: want one naming the func value", r)
		}
	}()
	testSchema.Copy(new(root), src, src.pages)
}

// TestWalk_ShapeIgnoresCountersAndFrameNames: two states that differ only
// in their counters, or in which page frame plays a role, have one shape;
// a scalar or a PFN list of their own changes it.
func TestWalk_ShapeIgnoresCountersAndFrameNames(t *testing.T) {
	var w Walk
	hash := func(r *root) uint64 {
		w.Full(testSchema, r, r.pages)
		if w.Bad != "" {
			t.Fatalf("walk: %s", w.Bad)
		}
		return w.Hash()
	}
	a := newRoot()
	h0 := hash(a)
	if len(w.Vals) != 2+2*6 { // hits, clock; Holder and Recycles of the six pages nothing points to
		t.Errorf("listed %d counters, want %d", len(w.Vals), 2+2*6)
	}
	if len(w.Times) != 1 || w.Vals[w.Times[0]] != a.clock {
		t.Errorf("times %v: want the clock alone", w.Times)
	}
	if !reflect.DeepEqual(w.RawPFNs, []int32{0, 1}) {
		t.Errorf("raw PFNs %v, want [0 1]", w.RawPFNs)
	}
	if !reflect.DeepEqual(w.Canon, []int32{2, 5}) || w.Role(5) != 1 || w.Role(0) != -1 {
		t.Errorf("canon %v role(5) %d role(0) %d: want [2 5], 1, -1", w.Canon, w.Role(5), w.Role(0))
	}
	a.hits, a.clock = 10, 20
	a.frags[3] = 5 // past nr: stale, never read
	if hash(a) != h0 {
		t.Error("counters or stale frags changed the shape")
	}
	// Rename: frames 2 and 5 swap roles (the pages nothing points to are
	// walked by PFN: a renaming moves roles among the pages the graph
	// reaches).
	b := newRoot()
	b.pages[2].Users, b.pages[5].Users = 1, 2
	h1 := hash(b)
	b.pages[2].Users, b.pages[5].Users = 2, 1
	b.cache = []*mm.Page{&b.pages[5], &b.pages[2]}
	b.slot[0] = &b.pages[2]
	if hash(b) != h1 {
		t.Error("renaming which frame plays a role changed the shape")
	}
	if !reflect.DeepEqual(w.Canon, []int32{5, 2}) {
		t.Errorf("canon %v after the renaming, want [5 2]", w.Canon)
	}
	c := newRoot()
	c.nr = 1
	if hash(c) == h0 {
		t.Error("a shape scalar did not change the shape")
	}
	d := newRoot()
	d.free[1] = 4
	if hash(d) == h0 {
		t.Error("a PFN list did not change the shape")
	}
}

// TestWalk_CountersAddInPlaceAndRepoint: Add writes the field the walk
// listed; Repoint moves the graph's page pointers along a permutation.
func TestWalk_CountersAddInPlaceAndRepoint(t *testing.T) {
	r := newRoot()
	var w Walk
	w.Full(testSchema, r, r.pages)
	for i, c := range w.Counters() {
		if c.Load() != w.Vals[i] {
			t.Fatalf("counter %d loads %d, listed %d", i, c.Load(), w.Vals[i])
		}
	}
	w.Counters()[0].Add(5)
	if r.hits != 5 {
		t.Fatalf("hits %d after Add(5)", r.hits)
	}
	perm := []int32{0, 1, 7, 3, 4, 6, 5, 2}
	w.Repoint(r.pages, perm)
	if r.cache[0] != &r.pages[7] || r.cache[1] != &r.pages[6] || r.slot[0] != &r.pages[6] {
		t.Fatal("Repoint did not move the page pointers along the permutation")
	}
	if Aliased(w.Counters()) {
		t.Error("distinct counters reported aliased")
	}
	if !Aliased([]Counter{w.Counters()[0], w.Counters()[0]}) {
		t.Error("one counter twice not reported aliased")
	}
}

// TestWalk_CounterWrapDelta: a narrow counter's delta is modulo its width.
func TestWalk_CounterWrapDelta(t *testing.T) {
	c := Counter{kind: ctrU32}
	if d := c.WrapDelta(1<<32-3, 2); d != 5 {
		t.Errorf("u32 delta across the wrap %d, want 5", d)
	}
}

// TestTagOf: the vocabulary parses, and a misspelt word panics naming the
// field.
func TestTagOf(t *testing.T) {
	type tagged struct {
		A int `pp:"counter"`
		B int `pp:"time"`
		C int `pp:"upto=A,index"`
		D int `pp:"countr"`
	}
	rt := reflect.TypeOf(tagged{})
	if tg := TagOf(rt, rt.Field(1)); !tg.Counter || !tg.Time {
		t.Errorf("time: %+v", tg)
	}
	if tg := TagOf(rt, rt.Field(2)); tg.Upto != "A" || !tg.Index {
		t.Errorf("upto,index: %+v", tg)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `tagged.D: unknown pp tag word "countr"`) {
			t.Fatalf("panic %v: want one naming the field and the word", r)
		}
	}()
	TagOf(rt, rt.Field(3))
}

// TestFirstDifference_NamesAGrowingField: a field that grows every sample
// is named with the tag to add.
func TestFirstDifference_NamesAGrowingField(t *testing.T) {
	type run struct {
		pages []mm.Page
		bytes int64
	}
	r := &run{pages: make([]mm.Page, 2)}
	msg := FirstDifference(testSchema, r, func() []mm.Page { return r.pages }, func(n int64) { r.bytes += 64 * n }, 16)
	if !strings.Contains(msg, "state.run.bytes grows by 1024 every 16 operations") || !strings.Contains(msg, `pp:"counter"`) {
		t.Errorf("FirstDifference: %s", msg)
	}
}
