package state

import (
	"hash/maphash"
	"math"
	"reflect"
	"sort"
	"unsafe"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Walk is the fast-forward's view of a run's state: a walk of the graph
// from a root (the same graph a keyframe copies) that writes it out as two
// vectors.
//
//   - Shape: everything that decides what the run does next: every scalar
//     that is not a counter, the lengths and capacities of slices, which
//     object each pointer reaches (any object, pages included, as the order
//     the walk first met it in: neither Go addresses nor which page frame
//     plays a role matter), the dynamic type behind each interface, and
//     after the graph the fields of the pages it reached, in that order.
//   - the counters (Counters, their values in Vals): the fields tagged
//     pp:"counter" or pp:"time". Each keeps the field's address, so a
//     fast-forward can add k cycles' worth to it in place.
//
// Two states with equal shapes behave alike for as long as no counter
// crosses a threshold the run compares it with; the fast-forward relies on
// that and verifies it over two cycles before it skips any.
//
// A Walk's slices are reused by the next walk: a caller keeps what it
// needs by copying. The zero Walk is ready; one Walk serves one root (its
// interface type ids are stable across its walks).
type Walk struct {
	Shape    []uint64
	Vals     []int64  // the counters' values, parallel to Counters
	Times    []int    // the indexes of the counters that are times (pp:"time")
	RawPFNs  []int32  // PFNs the state holds as integers (pp:"pfn")
	Canon    []int32  // the renamed pages: Canon[id] is the PFN of the page the walk met id-th through a pointer
	Holder   []int64  // by role (id): the page's Holder
	Recycles []uint32 // by role: the page's Recycles
	Bad      string   // why this state cannot be fast-forwarded (a func value): "" = fine

	s     *Schema
	ctr   []Counter
	ids   map[objKey]uint64 // objects met, in walk order
	types map[reflect.Type]uint64
	pa    pageArray

	skipPages bool      // the page array is not walked: its counters are pageCtr
	pageCtr   []Counter // with skipPages: the page array's counters, in walk order
	pageCtrAt int       // without skipPages: where the page array's counters start
	pageCtrN  int

	pid      []int32 // PFN -> id+1 in this walk (0: not met); cleared through Canon
	pageRefs []pageRef
	pagesMet bool // the graph holds the page array (walked after it)

	trace bool   // label the shape (FirstDifference's walks; never the search's)
	marks []mark // with trace: where each op's words start
}

// Counter is one counter's address and storage.
type Counter struct {
	p    unsafe.Pointer
	kind ctrKind
}

// Load reads the counter, sign- or zero-extended.
func (r Counter) Load() int64 {
	switch r.kind {
	case ctrI8:
		return int64(*(*int8)(r.p))
	case ctrI16:
		return int64(*(*int16)(r.p))
	case ctrI32:
		return int64(*(*int32)(r.p))
	case ctrI64:
		return *(*int64)(r.p)
	case ctrU8:
		return int64(*(*uint8)(r.p))
	case ctrU16:
		return int64(*(*uint16)(r.p))
	case ctrU32:
		return int64(*(*uint32)(r.p))
	}
	return int64(*(*uint64)(r.p))
}

// Add adds d to the counter with the field's own wrap-around (a uint32
// counter wraps as the kernel's u32 does).
func (r Counter) Add(d int64) {
	switch r.kind {
	case ctrI8:
		*(*int8)(r.p) += int8(d)
	case ctrI16:
		*(*int16)(r.p) += int16(d)
	case ctrI32:
		*(*int32)(r.p) += int32(d)
	case ctrI64:
		*(*int64)(r.p) += d
	case ctrU8:
		*(*uint8)(r.p) += uint8(d)
	case ctrU16:
		*(*uint16)(r.p) += uint16(d)
	case ctrU32:
		*(*uint32)(r.p) += uint32(d)
	default:
		*(*uint64)(r.p) += uint64(d)
	}
}

// WrapDelta is the change of this counter from value a to value b (read
// with Load), modulo the field's width.
func (r Counter) WrapDelta(a, b int64) int64 { return r.kind.wrapDelta(a, b) }

// Aliased reports whether two counters share an address (a counter
// reachable twice would be advanced twice).
func Aliased(ctrs []Counter) bool {
	seen := make(map[unsafe.Pointer]bool, len(ctrs))
	for _, r := range ctrs {
		if seen[r.p] {
			return true
		}
		seen[r.p] = true
	}
	return false
}

// pageRef is a page pointer in the state: where it is and the id of the
// page it points to.
type pageRef struct {
	slot unsafe.Pointer // **mm.Page
	id   int32
}

type objKey struct {
	p uintptr
	t reflect.Type
}

// Full walks everything reachable from root (a non-nil pointer), the page
// array included.
func (w *Walk) Full(s *Schema, root any, pages []mm.Page) {
	w.reset(s, pages)
	w.root(root)
	w.walkPages()
}

// Fast walks root's graph without the page array's contents, listing
// pageCtrs (PageCounters of an earlier full walk of this graph, whose page
// array is the same; nil: none) where the page array's counters go.
func (w *Walk) Fast(s *Schema, root any, pages []mm.Page, pageCtrs []Counter) {
	w.reset(s, pages)
	w.skipPages, w.pageCtr = true, pageCtrs
	w.root(root)
	w.walkPages()
}

// Counters are the counters the last walk listed, in walk order.
func (w *Walk) Counters() []Counter { return w.ctr }

// PageCounters is a copy of the last full walk's counters that belong to
// the pages nothing points to (fixed addresses while the page array lives).
func (w *Walk) PageCounters() []Counter {
	return append([]Counter(nil), w.ctr[w.pageCtrAt:w.pageCtrAt+w.pageCtrN]...)
}

// Role is the id the last walk gave the page pfn (its index in Canon), or
// -1 when the walk did not reach it through a pointer.
func (w *Walk) Role(pfn int32) int32 { return w.pid[pfn] - 1 }

// Repoint makes every page pointer of the graph the last walk met point to
// &pages[perm[Canon[id]]] instead of &pages[Canon[id]] (a renaming's page
// pointers follow their roles).
func (w *Walk) Repoint(pages []mm.Page, perm []int32) {
	for _, r := range w.pageRefs {
		*(**mm.Page)(r.slot) = &pages[perm[w.Canon[r.id]]]
	}
}

// Hash hashes the last walk's shape (hash/maphash, one seed per process:
// hashes are only compared within a run, and a collision is only a
// candidate that full walks then reject).
func (w *Walk) Hash() uint64 {
	if len(w.Shape) == 0 {
		return 0
	}
	return maphash.Bytes(seed, unsafe.Slice((*byte)(unsafe.Pointer(&w.Shape[0])), len(w.Shape)*8))
}

var seed = maphash.MakeSeed()

func (w *Walk) reset(s *Schema, pages []mm.Page) {
	w.s = s
	w.Shape, w.ctr, w.Vals, w.Times = w.Shape[:0], w.ctr[:0], w.Vals[:0], w.Times[:0]
	for _, pfn := range w.Canon {
		w.pid[pfn] = 0
	}
	if len(w.pid) != len(pages) {
		w.pid = make([]int32, len(pages))
	}
	w.Canon, w.pageRefs, w.RawPFNs = w.Canon[:0], w.pageRefs[:0], w.RawPFNs[:0]
	w.Holder, w.Recycles = w.Holder[:0], w.Recycles[:0]
	w.pagesMet, w.skipPages, w.pageCtr = false, false, nil
	if w.ids == nil {
		w.ids, w.types = map[objKey]uint64{}, map[reflect.Type]uint64{}
	}
	clear(w.ids)
	w.pa, w.Bad = newPageArray(pages), ""
	w.marks = w.marks[:0]
}

func (w *Walk) root(root any) {
	v := reflect.ValueOf(root)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("state: a walk's root must be a non-nil pointer")
	}
	w.pointer(v.UnsafePointer(), v.Type(), nil)
}

func (w *Walk) put(x uint64) { w.Shape = append(w.Shape, x) }

// mark labels the shape words from at on with the field they come from
// (a traced walk only: FirstDifference).
type mark struct {
	at   int
	name string
}

// typeID names a dynamic type in the shape (stable within one Walk's
// walks: the map is kept across them).
func (w *Walk) typeID(t reflect.Type) uint64 {
	id, ok := w.types[t]
	if !ok {
		id = uint64(len(w.types) + 1)
		w.types[t] = id
	}
	return id
}

// value walks the value of type t at p.
func (w *Walk) value(p unsafe.Pointer, t reflect.Type) {
	w.ops(p, w.s.infoOf(t).walkPlan().ops)
}

func (w *Walk) ops(p unsafe.Pointer, ops []fop) {
	for i := range ops {
		o := &ops[i]
		a := unsafe.Add(p, o.off)
		if w.trace {
			w.marks = append(w.marks, mark{len(w.Shape), o.name})
		}
		switch o.kind {
		case fScalar:
			for j := 0; j < o.n; j++ {
				w.put(loadScalar(unsafe.Add(a, uintptr(j)*o.step), o.size))
			}
		case fCtr:
			size := o.ctr.size()
			for j := 0; j < o.n; j++ {
				r := Counter{p: unsafe.Add(a, uintptr(j)*size), kind: o.ctr}
				if o.time {
					w.Times = append(w.Times, len(w.ctr))
				}
				w.ctr = append(w.ctr, r)
				w.Vals = append(w.Vals, r.Load())
			}
		case fString:
			s := *(*string)(a)
			w.put(uint64(len(s)))
			w.put(strHash(s))
		case fPtr:
			w.pointer(*(*unsafe.Pointer)(a), o.t, a)
		case fSlice:
			w.slice(a, o.t, o.pfn)
		case fIface:
			w.iface(a, o.t)
		case fMap:
			w.mapv(a, o.t, o.pfn)
		case fCounted:
			cnt := min(max(*(*int)(unsafe.Add(p, o.cnt)), 0), o.n)
			eops, size := w.s.infoOf(o.t).walkPlan().ops, o.t.Size()
			for j := 0; j < cnt; j++ {
				w.ops(unsafe.Add(a, uintptr(j)*size), eops)
			}
		case fFunc:
			if *(*unsafe.Pointer)(a) != nil {
				w.Bad = "a function value in the run's state"
			}
			w.put(0)
		}
	}
}

func loadScalar(a unsafe.Pointer, size uint8) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(a))
	case 2:
		return uint64(*(*uint16)(a))
	case 4:
		return uint64(*(*uint32)(a))
	}
	return *(*uint64)(a)
}

func strHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// Shape markers.
const (
	mNil uint64 = math.MaxUint64 - iota
	mPage
	mRef
	mNew
	mShared
)

// pointer writes where p (of pointer type t, stored at slot: nil when it
// cannot be rewritten) leads, walking the object the first time it is met.
func (w *Walk) pointer(p unsafe.Pointer, t reflect.Type, slot unsafe.Pointer) {
	if p == nil {
		w.put(mNil)
		return
	}
	if t.Kind() == reflect.UnsafePointer {
		w.Bad = "an unsafe.Pointer in the run's state"
		w.put(mNil)
		return
	}
	if w.s.shared[t] { // the read-only descriptions runs share: written as their address
		w.put(mShared)
		w.put(uint64(uintptr(p)))
		return
	}
	if t == pagePtrType {
		if pfn := w.pa.pfn(p); pfn >= 0 {
			id := w.pid[pfn] - 1
			if id < 0 {
				id = int32(len(w.Canon))
				w.Canon = append(w.Canon, int32(pfn))
				w.pid[pfn] = id + 1
			}
			if slot == nil {
				w.Bad = "a page pointer held in an interface"
			}
			w.pageRefs = append(w.pageRefs, pageRef{slot, id})
			w.put(mPage)
			w.put(uint64(id))
			return
		}
	}
	k := objKey{uintptr(p), t}
	if id, ok := w.ids[k]; ok {
		w.put(mRef)
		w.put(id)
		return
	}
	w.ids[k] = uint64(len(w.ids))
	w.put(mNew)
	w.value(p, t.Elem())
}

// slice writes a slice header's length and capacity and its elements. A
// slice is walked once per backing array and length (another header over
// the same elements is a reference), so a counter is never listed twice.
// The page array is walked after the graph (walkPages), once the pages the
// graph points to have their names.
func (w *Walk) slice(a unsafe.Pointer, t reflect.Type, pfn bool) {
	h := (*struct {
		data     unsafe.Pointer
		len, cap int
	})(a)
	if h.data == nil {
		w.put(mNil)
		return
	}
	w.put(uint64(h.len))
	w.put(uint64(h.cap))
	k := objKey{uintptr(h.data), t}
	if id, ok := w.ids[k]; ok {
		w.put(mRef)
		w.put(id)
		return
	}
	w.ids[k] = uint64(len(w.ids))
	if w.pa.isArray(h.data) {
		w.pagesMet = true
		w.put(mPage)
		return
	}
	e := t.Elem()
	pl := w.s.infoOf(e).walkPlan()
	size := e.Size()
	if !pl.ptrs && len(pl.ops) == 1 && pl.ops[0].kind == fScalar && pl.ops[0].n == 1 {
		// A slice of integers: one block.
		for i := 0; i < h.len; i++ {
			w.put(loadScalar(unsafe.Add(h.data, uintptr(i)*size), pl.ops[0].size))
		}
		if pfn && pl.ops[0].size == 4 {
			w.RawPFNs = append(w.RawPFNs, unsafe.Slice((*int32)(h.data), h.len)...)
		}
		return
	}
	for i := 0; i < h.len; i++ {
		w.ops(unsafe.Add(h.data, uintptr(i)*size), pl.ops)
	}
}

// walkPages walks the page array after the graph: the pages the graph points
// to in the order it met them (role fields as shape, Holder and Recycles
// by role), then every other page by PFN, as it is. With skipPages only
// the latter's counters are listed (pageCtr: the page set is the shape's).
func (w *Walk) walkPages() {
	if !w.pagesMet {
		return
	}
	if w.skipPages {
		for _, r := range w.pageCtr {
			w.ctr = append(w.ctr, r)
			w.Vals = append(w.Vals, r.Load())
		}
		return
	}
	roles, holder := rolePlan()
	pages := w.pa.pages
	for _, pfn := range w.Canon {
		pg := &pages[pfn]
		if pg.Order != 0 || pg.Place == sim.PlaceCompound {
			w.Bad = "a compound page (its tails name the head by PFN)"
		}
		w.ops(unsafe.Pointer(pg), roles)
		w.put(pg.DMARel())
		w.Holder = append(w.Holder, int64(*(*int32)(unsafe.Add(unsafe.Pointer(pg), holder))))
		w.Recycles = append(w.Recycles, pg.Recycles)
	}
	w.pageCtrAt = len(w.ctr)
	pl := w.s.infoOf(pageType).walkPlan()
	for pfn := range pages {
		if w.pid[pfn] != 0 {
			continue
		}
		w.put(uint64(pfn))
		w.ops(unsafe.Pointer(&pages[pfn]), pl.ops)
	}
	w.pageCtrN = len(w.ctr) - w.pageCtrAt
}

// iface writes an interface's dynamic type and value.
func (w *Walk) iface(a unsafe.Pointer, t reflect.Type) {
	v := reflect.NewAt(t, a).Elem()
	if v.IsNil() {
		w.put(mNil)
		return
	}
	e := v.Elem()
	w.put(w.typeID(e.Type()))
	if e.Kind() == reflect.Pointer {
		w.pointer(e.UnsafePointer(), e.Type(), nil)
		return
	}
	// A value type in an interface: walk a copy (its counters cannot be
	// advanced in place, so they are shape).
	c := reflect.New(e.Type())
	c.Elem().Set(e)
	n := len(w.ctr)
	w.value(c.UnsafePointer(), e.Type())
	for _, x := range w.Vals[n:] {
		w.put(uint64(x))
	}
	w.truncCtr(n)
}

// mapv writes a map's entries in key order (keys of integer or string
// kind; the model's maps are keyed by PFN, pool id or name).
func (w *Walk) mapv(a unsafe.Pointer, t reflect.Type, pfn bool) {
	v := reflect.NewAt(t, a).Elem()
	if v.IsNil() {
		w.put(mNil)
		return
	}
	keys := v.MapKeys()
	switch t.Key().Kind() {
	case reflect.String:
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Int() < keys[j].Int() })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Uint() < keys[j].Uint() })
	default:
		w.Bad = "a map with keys of kind " + t.Key().Kind().String()
		return
	}
	w.put(uint64(len(keys)))
	for _, k := range keys {
		if pfn && t.Key().Kind() == reflect.Int32 {
			w.RawPFNs = append(w.RawPFNs, int32(k.Int()))
		}
		kc, vc := reflect.New(t.Key()), reflect.New(t.Elem())
		kc.Elem().Set(k)
		vc.Elem().Set(v.MapIndex(k))
		n := len(w.ctr)
		w.value(kc.UnsafePointer(), t.Key())
		w.value(vc.UnsafePointer(), t.Elem())
		// Map values are copies: their counters are shape.
		for _, x := range w.Vals[n:] {
			w.put(uint64(x))
		}
		w.truncCtr(n)
	}
}

// truncCtr drops the counters listed from n on (those of a copy).
func (w *Walk) truncCtr(n int) {
	w.ctr, w.Vals = w.ctr[:n], w.Vals[:n]
	for len(w.Times) > 0 && w.Times[len(w.Times)-1] >= n {
		w.Times = w.Times[:len(w.Times)-1]
	}
}
