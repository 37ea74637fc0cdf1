package lab

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// The fast-forward's view of a run's state: a walk of the Lab's object
// graph (the same graph a keyframe copies) that writes it out as two
// vectors.
//
//   - shape: everything that decides what the run does next: every scalar
//     that is not a counter, the lengths and capacities of slices, which
//     object each pointer reaches (any object, pages included, as the order
//     the walk first met it in: neither Go addresses nor which page frame
//     plays a role matter), the dynamic type behind each interface, and
//     after the graph the fields of the pages it reached, in that order.
//   - lin: the counters. A counter is a field the model only adds to and
//     never branches on against a constant: statistics, clocks, per-symbol
//     spend, object ids (compared only with each other). Each lin entry
//     keeps the field's address, so a fast-forward can add k cycles' worth
//     to it in place.
//
// Two states with equal shapes behave alike for as long as no counter
// crosses a threshold the run compares it with (the lab's horizons: the
// packet count's end, a workload's scheduled change); fastforward.go
// relies on that and verifies it over two cycles before it skips any.
//
// A walk reads memory through unsafe pointers by a plan compiled once per
// type (offsets, sizes, which fields are counters): reflection per value
// would cost as much as simulating a few hundred thousand packets.

// Each field's policy is a struct tag on the field itself, `pp:"..."`
// (comma-separated), read when a type's plan is compiled; a field without
// one is shape. The vocabulary:
//
//   - counter: the field only accumulates (a statistic, a clock, per-symbol
//     spend, an id allocator or an id, compared only with others of its
//     kind): the walk puts it in lin, never in shape; an array or struct
//     tagged counter makes every integer inside one.
//   - time: a counter the run compares with the CPUs' clocks (the tcp
//     workload's scheduler): kept apart so a skip moves it with the clocks.
//   - pfn: the field's integers (a slice's elements, a map's keys) name page
//     frames. The walk renames pages it reaches through pointers, never
//     these: a renaming must leave every page they name where it is.
//   - frame (struct page only): the field stays with the page frame when a
//     renaming moves the page's role to another frame: its identity (PFN),
//     its place in the free list, its DMA address relative to the frame
//     (mm.Page.DMARel), and how often it was recycled (also a counter, summed along
//     its orbit). Every other field of a page is the role's.
//   - index: an integer that is an index into a slice the walk sees whole
//     (an skb's slot in the live list), not a page frame: said so the
//     completeness test does not take it for one.
//   - upto=F: an array whose elements at or past the count field F are
//     stale and never read (an skb's frag slots past nr_frags): the walk
//     stops at the count.
//   - observer: the field belongs to whoever watches the run (a tracer, step
//     records, keyframes, the series, the fast-forward itself): not walked.
//     A func or chan field must be one.
//   - scratch: checker bookkeeping rebuilt at every check: not walked.
//   - inert: contents that never steer the run (the freed-object
//     quarantine, which only makes a stale pointer read as freed; its size
//     field is shape): not walked.
//
// TestFFTags_EveryReachableFieldHasItsPolicy checks the tags over every type
// a run reaches. A field the walk treats as shape that changes every cycle
// (a counter without its tag) keeps the search from finding a cycle:
// firstDifference names it.

// ffTag is a field's pp tag, parsed.
type ffTag struct {
	counter, time, pfn, frame, index bool
	skip                             bool // observer, scratch or inert
	upto                             string
}

// ffTagOf parses f's pp tag; an unknown word panics with the field's name
// (the vocabulary is the walk's contract).
func ffTagOf(t reflect.Type, f reflect.StructField) ffTag {
	var tg ffTag
	v, ok := f.Tag.Lookup("pp")
	if !ok || v == "" {
		return tg
	}
	for _, w := range strings.Split(v, ",") {
		switch {
		case w == "counter":
			tg.counter = true
		case w == "time":
			tg.counter, tg.time = true, true
		case w == "pfn":
			tg.pfn = true
		case w == "frame":
			tg.frame = true
		case w == "index":
			tg.index = true
		case w == "observer", w == "scratch", w == "inert":
			tg.skip = true
		case strings.HasPrefix(w, "upto="):
			tg.upto = strings.TrimPrefix(w, "upto=")
		default:
			panic(fmt.Sprintf("lab: %s.%s: unknown pp tag word %q (the vocabulary is in ffwalk.go)", t, f.Name, w))
		}
	}
	return tg
}

// linKind is how a counter is stored.
type linKind uint8

const (
	linI8 linKind = iota + 1
	linI16
	linI32
	linI64
	linU8
	linU16
	linU32
	linU64
)

// linRef is one counter's address and storage.
type linRef struct {
	p    unsafe.Pointer
	kind linKind
}

// load reads the counter, sign- or zero-extended.
func (r linRef) load() int64 {
	switch r.kind {
	case linI8:
		return int64(*(*int8)(r.p))
	case linI16:
		return int64(*(*int16)(r.p))
	case linI32:
		return int64(*(*int32)(r.p))
	case linI64:
		return *(*int64)(r.p)
	case linU8:
		return int64(*(*uint8)(r.p))
	case linU16:
		return int64(*(*uint16)(r.p))
	case linU32:
		return int64(*(*uint32)(r.p))
	}
	return int64(*(*uint64)(r.p))
}

// add adds d to the counter with the field's own wrap-around (a uint32
// counter wraps as the kernel's u32 does).
func (r linRef) add(d int64) {
	switch r.kind {
	case linI8:
		*(*int8)(r.p) += int8(d)
	case linI16:
		*(*int16)(r.p) += int16(d)
	case linI32:
		*(*int32)(r.p) += int32(d)
	case linI64:
		*(*int64)(r.p) += d
	case linU8:
		*(*uint8)(r.p) += uint8(d)
	case linU16:
		*(*uint16)(r.p) += uint16(d)
	case linU32:
		*(*uint32)(r.p) += uint32(d)
	default:
		*(*uint64)(r.p) += uint64(d)
	}
}

// wrapDelta is the per-cycle change of a counter of this kind from a to b
// (read with load): for the narrow kinds the difference modulo the width,
// so a counter that wraps inside a cycle still has one delta.
func (k linKind) wrapDelta(a, b int64) int64 {
	switch k {
	case linI8, linU8:
		return int64(int8(b - a))
	case linI16, linU16:
		return int64(int16(b - a))
	case linI32, linU32:
		return int64(int32(b - a))
	}
	return b - a
}

type fopKind uint8

const (
	fScalar fopKind = iota // size bytes at off (shape)
	fLin                   // a counter at off
	fString
	fPtr
	fSlice
	fIface
	fMap
	fFunc
	fCounted // an array walked up to a count field's value (pp:"upto=")
)

// fop is one step of a type's plan.
type fop struct {
	kind fopKind
	off  uintptr
	size uint8
	lin  linKind
	n    int // fScalar/fLin over an array of scalars: elements and their stride
	step uintptr
	t    reflect.Type // fPtr, fSlice, fMap, fIface: the field's type
	time bool         // fLin: a time the run compares with the CPUs' clocks (pp:"time")
	pfn  bool         // fSlice, fMap: its integers (a map's keys) are PFNs (pp:"pfn")
	cnt  uintptr      // fCounted: the count field's offset (same base as off)
	name string       // the field the op walks ("skb.Data.NrFrags"): what firstDifference names
}

// ffPlan is the walk of one type: its ops in field order, and whether it
// holds any pointer (a slice of pointer-free elements is walked as blocks).
type ffPlan struct {
	ops  []fop
	ptrs bool
}

var ffPlans sync.Map // reflect.Type -> *ffPlan

func planOf(t reflect.Type) *ffPlan {
	if p, ok := ffPlans.Load(t); ok {
		return p.(*ffPlan)
	}
	p := &ffPlan{}
	compile(p, t, 0, 0, false)
	for _, o := range p.ops {
		if o.kind >= fString {
			p.ptrs = true // (fCounted too)
		}
	}
	ffPlans.Store(t, p)
	return p
}

func linKindOf(k reflect.Kind) linKind {
	switch k {
	case reflect.Int8:
		return linI8
	case reflect.Int16:
		return linI16
	case reflect.Int32:
		return linI32
	case reflect.Int, reflect.Int64:
		return linI64
	case reflect.Uint8:
		return linU8
	case reflect.Uint16:
		return linU16
	case reflect.Uint32:
		return linU32
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return linU64
	}
	return 0
}

// compile appends t's ops at base offset off; lin marks every integer
// inside as a counter (a counter field that is an array or struct), time as
// a time (pp:"time").
func compile(p *ffPlan, t reflect.Type, off uintptr, lin linKind, time bool) {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if lin != 0 && t.Kind() != reflect.Bool {
			p.ops = append(p.ops, fop{kind: fLin, off: off, lin: linKindOf(t.Kind()), n: 1, time: time})
			return
		}
		p.ops = append(p.ops, fop{kind: fScalar, off: off, size: uint8(t.Size()), n: 1})
	case reflect.Float32, reflect.Float64:
		p.ops = append(p.ops, fop{kind: fScalar, off: off, size: uint8(t.Size()), n: 1})
	case reflect.String:
		p.ops = append(p.ops, fop{kind: fString, off: off})
	case reflect.Pointer, reflect.UnsafePointer:
		p.ops = append(p.ops, fop{kind: fPtr, off: off, t: t})
	case reflect.Slice:
		p.ops = append(p.ops, fop{kind: fSlice, off: off, t: t})
	case reflect.Interface:
		p.ops = append(p.ops, fop{kind: fIface, off: off, t: t})
	case reflect.Map:
		p.ops = append(p.ops, fop{kind: fMap, off: off, t: t})
	case reflect.Func:
		p.ops = append(p.ops, fop{kind: fFunc, off: off})
	case reflect.Array:
		e := t.Elem()
		if k := e.Kind(); k >= reflect.Int && k <= reflect.Uintptr && t.Len() > 1 {
			// An array of integers: one op over all its elements.
			o := fop{kind: fScalar, off: off, size: uint8(e.Size()), n: t.Len(), step: e.Size()}
			if lin != 0 {
				o.kind, o.lin, o.size = fLin, linKindOf(k), 0
			}
			p.ops = append(p.ops, o)
			return
		}
		for i := 0; i < t.Len(); i++ {
			compile(p, e, off+uintptr(i)*e.Size(), lin, time)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tg := ffTagOf(t, f)
			if tg.skip || f.Name == "_" {
				continue
			}
			fl := lin
			if tg.counter {
				fl = linI64 // any nonzero: the leaves pick their own kind
			}
			if tg.upto != "" {
				c, found := t.FieldByName(tg.upto)
				if !found || c.Type.Kind() != reflect.Int || f.Type.Kind() != reflect.Array {
					panic(fmt.Sprintf("lab: %s.%s: pp:\"upto=%s\" names no int field of %s, or the field is not an array", t, f.Name, tg.upto, t))
				}
				p.ops = append(p.ops, fop{kind: fCounted, off: off + f.Offset, cnt: off + c.Offset, n: f.Type.Len(), t: f.Type.Elem()})
				continue
			}
			n := len(p.ops)
			compile(p, f.Type, off+f.Offset, fl, time || tg.time)
			for i := n; i < len(p.ops); i++ {
				if p.ops[i].name == "" {
					p.ops[i].name = t.String() + "." + f.Name
				}
			}
			if tg.pfn {
				for i := n; i < len(p.ops); i++ {
					p.ops[i].pfn = true
				}
			}
		}
	case reflect.Chan:
		panic(fmt.Sprintf("lab: fast-forward cannot walk a channel in %v", t))
	default:
		panic(fmt.Sprintf("lab: fast-forward cannot walk a %v", t))
	}
}

// ffWalk is one walk's output and scratch.
type ffWalk struct {
	shape []uint64
	lin   []linRef
	val   []int64 // lin values, parallel to lin

	ids   map[objKey]uint64 // objects met, in walk order
	types map[reflect.Type]uint64
	pages []mm.Page
	base  uintptr
	bad   string // why this state cannot be fast-forwarded (a func value): "" = fine

	skipPages bool     // the page array is not walked: its counters are pageLin
	pageLin   []linRef // with skipPages: the page array's counters, in walk order
	pageLinAt int      // without skipPages: where the page array's counters start in lin
	pageLinN  int
	timeIdx   []int // lin entries that are times (pp:"time")

	// Renaming: pages reached through pointers are named by the order the
	// walk first meets them (canon[id] is the PFN), so two states that
	// differ only by which frame plays which role have one shape. Their
	// fields are walked after the graph, in that order (role fields as
	// shape, Holder by role); the pages nothing points to follow by PFN.
	pid      []int32 // PFN -> id+1 in this walk (0: not met); cleared through canon
	canon    []int32
	pageRefs []pageRef
	pagesMet bool     // the graph holds the page array (walked after it)
	holder   []int64  // by role: Holder
	recycles []uint32 // by role: Recycles
	rawPFNs  []int32  // PFNs the state holds as integers (pp:"pfn")

	trace bool     // label the shape (firstDifference's walks; never the search's)
	marks []ffMark // with trace: where each op's words start
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

func (w *ffWalk) reset(pages []mm.Page) {
	w.shape, w.lin, w.val, w.timeIdx = w.shape[:0], w.lin[:0], w.val[:0], w.timeIdx[:0]
	for _, pfn := range w.canon {
		w.pid[pfn] = 0
	}
	if len(w.pid) != len(pages) {
		w.pid = make([]int32, len(pages))
	}
	w.canon, w.pageRefs, w.rawPFNs = w.canon[:0], w.pageRefs[:0], w.rawPFNs[:0]
	w.holder, w.recycles = w.holder[:0], w.recycles[:0]
	w.pagesMet = false
	if w.ids == nil {
		w.ids, w.types = map[objKey]uint64{}, map[reflect.Type]uint64{}
	}
	clear(w.ids)
	w.pages, w.base, w.bad = pages, 0, ""
	if len(pages) > 0 {
		w.base = uintptr(unsafe.Pointer(&pages[0]))
	}
}

func (w *ffWalk) put(x uint64) { w.shape = append(w.shape, x) }

// ffMark labels the shape words from at on with the field they come from
// (a traced walk only: firstDifference).
type ffMark struct {
	at   int
	name string
}

// typeID names a dynamic type in the shape (stable within one Lab's walks:
// the map is kept across them).
func (w *ffWalk) typeID(t reflect.Type) uint64 {
	id, ok := w.types[t]
	if !ok {
		id = uint64(len(w.types) + 1)
		w.types[t] = id
	}
	return id
}

// value walks the value of type t at p.
func (w *ffWalk) value(p unsafe.Pointer, t reflect.Type) {
	w.ops(p, planOf(t).ops)
}

func (w *ffWalk) ops(p unsafe.Pointer, ops []fop) {
	for i := range ops {
		o := &ops[i]
		a := unsafe.Add(p, o.off)
		if w.trace {
			w.marks = append(w.marks, ffMark{len(w.shape), o.name})
		}
		switch o.kind {
		case fScalar:
			for j := 0; j < o.n; j++ {
				w.put(loadScalar(unsafe.Add(a, uintptr(j)*o.step), o.size))
			}
		case fLin:
			size := uintptr(linSize(o.lin))
			for j := 0; j < o.n; j++ {
				r := linRef{p: unsafe.Add(a, uintptr(j)*size), kind: o.lin}
				if o.time {
					w.timeIdx = append(w.timeIdx, len(w.lin))
				}
				w.lin = append(w.lin, r)
				w.val = append(w.val, r.load())
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
			eops, size := planOf(o.t).ops, o.t.Size()
			for j := 0; j < cnt; j++ {
				w.ops(unsafe.Add(a, uintptr(j)*size), eops)
			}
		case fFunc:
			if *(*unsafe.Pointer)(a) != nil {
				w.bad = "a function value in the run's state"
			}
			w.put(0)
		}
	}
}

func linSize(k linKind) int {
	switch k {
	case linI8, linU8:
		return 1
	case linI16, linU16:
		return 2
	case linI32, linU32:
		return 4
	}
	return 8
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

var pageType = reflect.TypeOf(mm.Page{})

// pointer writes where p (of pointer type t, stored at slot: nil when it
// cannot be rewritten) leads, walking the object the first time it is met.
func (w *ffWalk) pointer(p unsafe.Pointer, t reflect.Type, slot unsafe.Pointer) {
	if p == nil {
		w.put(mNil)
		return
	}
	if t.Kind() == reflect.UnsafePointer {
		w.bad = "an unsafe.Pointer in the run's state"
		w.put(mNil)
		return
	}
	if shared[t] { // the read-only descriptions runs share (clone.go): written as their address
		w.put(mShared)
		w.put(uint64(uintptr(p)))
		return
	}
	if t.Elem() == pageType && len(w.pages) > 0 {
		size := unsafe.Sizeof(mm.Page{})
		if off := uintptr(p) - w.base; uintptr(p) >= w.base && off < uintptr(len(w.pages))*size {
			pfn := int32(off / size)
			id := w.pid[pfn] - 1
			if id < 0 {
				id = int32(len(w.canon))
				w.canon = append(w.canon, pfn)
				w.pid[pfn] = id + 1
			}
			if slot == nil {
				w.bad = "a page pointer held in an interface"
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
func (w *ffWalk) slice(a unsafe.Pointer, t reflect.Type, pfn bool) {
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
	if uintptr(h.data) == w.base && w.base != 0 {
		w.pagesMet = true
		w.put(mPage)
		return
	}
	e := t.Elem()
	pl := planOf(e)
	size := e.Size()
	if !pl.ptrs && len(pl.ops) == 1 && pl.ops[0].kind == fScalar && pl.ops[0].n == 1 {
		// A slice of integers: one block.
		for i := 0; i < h.len; i++ {
			w.put(loadScalar(unsafe.Add(h.data, uintptr(i)*size), pl.ops[0].size))
		}
		if pfn && pl.ops[0].size == 4 {
			w.rawPFNs = append(w.rawPFNs, unsafe.Slice((*int32)(h.data), h.len)...)
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
// the latter's counters are listed (pageLin: the page set is the shape's).
func (w *ffWalk) walkPages() {
	if !w.pagesMet {
		return
	}
	if w.skipPages {
		for _, r := range w.pageLin {
			w.lin = append(w.lin, r)
			w.val = append(w.val, r.load())
		}
		return
	}
	roles, holder := pageRolePlan()
	for _, pfn := range w.canon {
		pg := &w.pages[pfn]
		if pg.Order != 0 || pg.Place == sim.PlaceCompound {
			w.bad = "a compound page (its tails name the head by PFN)"
		}
		w.ops(unsafe.Pointer(pg), roles)
		w.put(pg.DMARel())
		w.holder = append(w.holder, int64(*(*int32)(unsafe.Add(unsafe.Pointer(pg), holder))))
		w.recycles = append(w.recycles, pg.Recycles)
	}
	w.pageLinAt = len(w.lin)
	pl := planOf(pageType)
	for pfn := range w.pages {
		if w.pid[pfn] != 0 {
			continue
		}
		w.put(uint64(pfn))
		w.ops(unsafe.Pointer(&w.pages[pfn]), pl.ops)
	}
	w.pageLinN = len(w.lin) - w.pageLinAt
}

var (
	rolePlanOnce sync.Once
	rolePlan     []fop
	holderOff    uintptr
)

// pageRolePlan is the walk of a page's role fields (all but the frame's,
// pp:"frame", and Holder, which the renaming treats apart: all shape) and
// Holder's offset.
func pageRolePlan() ([]fop, uintptr) {
	rolePlanOnce.Do(func() {
		var p ffPlan
		for i := 0; i < pageType.NumField(); i++ {
			switch f := pageType.Field(i); {
			case f.Name == "Holder":
				holderOff = f.Offset
			case !ffTagOf(pageType, f).frame:
				compile(&p, f.Type, f.Offset, 0, false)
			}
		}
		rolePlan = p.ops
	})
	return rolePlan, holderOff
}

// iface writes an interface's dynamic type and value.
func (w *ffWalk) iface(a unsafe.Pointer, t reflect.Type) {
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
	n := len(w.lin)
	w.value(c.UnsafePointer(), e.Type())
	for _, x := range w.val[n:] {
		w.put(uint64(x))
	}
	w.truncLin(n)
}

// mapv writes a map's entries in key order (keys of integer or string
// kind; the model's maps are keyed by PFN, pool id or name).
func (w *ffWalk) mapv(a unsafe.Pointer, t reflect.Type, pfn bool) {
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
		w.bad = "a map with keys of kind " + t.Key().Kind().String()
		return
	}
	w.put(uint64(len(keys)))
	for _, k := range keys {
		if pfn && t.Key().Kind() == reflect.Int32 {
			w.rawPFNs = append(w.rawPFNs, int32(k.Int()))
		}
		kc, vc := reflect.New(t.Key()), reflect.New(t.Elem())
		kc.Elem().Set(k)
		vc.Elem().Set(v.MapIndex(k))
		n := len(w.lin)
		w.value(kc.UnsafePointer(), t.Key())
		w.value(vc.UnsafePointer(), t.Elem())
		// Map values are copies: their counters are shape.
		for _, x := range w.val[n:] {
			w.put(uint64(x))
		}
		w.truncLin(n)
	}
}

// truncLin drops the counters listed from n on (those of a copy).
func (w *ffWalk) truncLin(n int) {
	w.lin, w.val = w.lin[:n], w.val[:n]
	for len(w.timeIdx) > 0 && w.timeIdx[len(w.timeIdx)-1] >= n {
		w.timeIdx = w.timeIdx[:len(w.timeIdx)-1]
	}
}

// firstDifference explains why the fast-forward finds no cycle: it runs l
// three times spacing operations further, walks the state after each with
// its words labelled by field, and names the first field (in walk order)
// whose shape words grow at every sample — a counter without its
// pp:"counter" tag — or, if none grows, the first whose words differ. For
// tests and diagnostics: it advances l.
func firstDifference(l *Lab, spacing int64) string {
	type sample struct {
		order []string
		words map[string][]uint64
	}
	take := func() sample {
		w := &ffWalk{trace: true}
		w.reset(l.a.Pages())
		w.pointer(unsafe.Pointer(l), reflect.TypeOf(l), nil)
		w.walkPages()
		s := sample{words: map[string][]uint64{}}
		seen := map[string]int{}
		for i, m := range w.marks {
			end := len(w.shape)
			if i+1 < len(w.marks) {
				end = w.marks[i+1].at
			}
			if end == m.at {
				continue
			}
			key := fmt.Sprintf("%s#%d", m.name, seen[m.name])
			seen[m.name]++
			s.order = append(s.order, key)
			s.words[key] = append([]uint64(nil), w.shape[m.at:end]...)
		}
		return s
	}
	var ss [3]sample
	for i := range ss {
		l.RunN(spacing)
		ss[i] = take()
	}
	field := func(key string) string { return key[:strings.LastIndexByte(key, '#')] }
	first := ""
	for _, key := range ss[0].order {
		a, b, c := ss[0].words[key], ss[1].words[key], ss[2].words[key]
		if len(a) != len(b) || len(b) != len(c) {
			continue
		}
		for i := range a {
			switch {
			case a[i] < b[i] && b[i] < c[i] && b[i]-a[i] == c[i]-b[i]:
				return fmt.Sprintf("%s grows by %d every %d operations (%d → %d → %d): the walk reads it as shape, so no two states are equal; if it only accumulates, tag it pp:\"counter\" (pp:\"time\" if the run compares it with the clocks)",
					field(key), b[i]-a[i], spacing, a[i], b[i], c[i])
			case first == "" && (a[i] != b[i] || b[i] != c[i]):
				first = fmt.Sprintf("%s differs between samples %d operations apart (%d, %d, %d): shape that does not repeat at that spacing", field(key), spacing, a[i], b[i], c[i])
			}
		}
	}
	if first == "" {
		return fmt.Sprintf("no field differs between samples %d operations apart", spacing)
	}
	return first
}
