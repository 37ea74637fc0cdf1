package state

import (
	"fmt"
	"reflect"
	"sync"

	"pplab/engine/mm"
)

// Schema is what both walks know of a graph: which pointer types lead to
// read-only descriptions the runs share (eras, platforms, driver specs,
// scenarios: copied as the pointer and walked as their address), and each
// type's plans, compiled once. A Schema is safe for concurrent use; the
// walks that use it are not (one per Lab).
type Schema struct {
	shared map[reflect.Type]bool
	info   sync.Map // reflect.Type -> *typeInfo
}

// NewSchema is a schema whose shared descriptions are the pointer types
// given.
func NewSchema(shared ...reflect.Type) *Schema {
	s := &Schema{shared: map[reflect.Type]bool{}}
	for _, t := range shared {
		if t.Kind() != reflect.Pointer {
			panic(fmt.Sprintf("state: NewSchema: shared type %v is not a pointer type", t))
		}
		s.shared[t] = true
	}
	return s
}

// IsShared reports whether t is a shared description's pointer type.
func (s *Schema) IsShared(t reflect.Type) bool { return s.shared[t] }

var (
	pageType    = reflect.TypeOf(mm.Page{})
	pagePtrType = reflect.PointerTo(pageType)
)

// typeInfo is everything compiled for one type: the fast-forward walk's
// plan (ops in field order; ptrs: whether any op leads elsewhere, so a
// slice of such elements cannot be read as one block) and, for the copier,
// whether the type holds pointers at all and a struct's pointer-holding
// fields.
type typeInfo struct {
	t        reflect.Type
	once     sync.Once // the walk plan is compiled on the walk's first use
	ops      []fop
	ptrs     bool
	hasPtrs  bool
	ptrField []int
}

// walkPlan is t's walk plan (compiled once).
func (ti *typeInfo) walkPlan() *typeInfo {
	ti.once.Do(func() {
		compile(&ti.ops, ti.t, 0, 0, false)
		for _, o := range ti.ops {
			if o.kind >= fString {
				ti.ptrs = true // (fCounted too)
			}
		}
	})
	return ti
}

// infoOf is t's compiled information (the walk plan: walkPlan).
func (s *Schema) infoOf(t reflect.Type) *typeInfo {
	if ti, ok := s.info.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := &typeInfo{t: t, hasPtrs: hasPointers(t)}
	if t.Kind() == reflect.Struct {
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				ti.ptrField = append(ti.ptrField, i)
			}
		}
	}
	ti2, _ := s.info.LoadOrStore(t, ti)
	return ti2.(*typeInfo)
}

// hasPointers reports whether values of t refer to other memory a copy
// must not share (strings are immutable: sharing them is a copy).
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	}
	return false
}

// ctrKind is how a counter is stored.
type ctrKind uint8

const (
	ctrI8 ctrKind = iota + 1
	ctrI16
	ctrI32
	ctrI64
	ctrU8
	ctrU16
	ctrU32
	ctrU64
)

func ctrKindOf(k reflect.Kind) ctrKind {
	switch k {
	case reflect.Int8:
		return ctrI8
	case reflect.Int16:
		return ctrI16
	case reflect.Int32:
		return ctrI32
	case reflect.Int, reflect.Int64:
		return ctrI64
	case reflect.Uint8:
		return ctrU8
	case reflect.Uint16:
		return ctrU16
	case reflect.Uint32:
		return ctrU32
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return ctrU64
	}
	return 0
}

func (k ctrKind) size() uintptr {
	switch k {
	case ctrI8, ctrU8:
		return 1
	case ctrI16, ctrU16:
		return 2
	case ctrI32, ctrU32:
		return 4
	}
	return 8
}

// wrapDelta is the per-cycle change of a counter of this kind from a to b
// (read with Load): for the narrow kinds the difference modulo the width,
// so a counter that wraps inside a cycle still has one delta.
func (k ctrKind) wrapDelta(a, b int64) int64 {
	switch k {
	case ctrI8, ctrU8:
		return int64(int8(b - a))
	case ctrI16, ctrU16:
		return int64(int16(b - a))
	case ctrI32, ctrU32:
		return int64(int32(b - a))
	}
	return b - a
}

type fopKind uint8

const (
	fScalar fopKind = iota // size bytes at off (shape)
	fCtr                   // a counter at off
	fString
	fPtr
	fSlice
	fIface
	fMap
	fFunc
	fCounted // an array walked up to a count field's value (pp:"upto=")
)

// fop is one step of a type's walk plan.
type fop struct {
	kind fopKind
	off  uintptr
	size uint8
	ctr  ctrKind
	n    int // fScalar/fCtr over an array of scalars: elements and their stride
	step uintptr
	t    reflect.Type // fPtr, fSlice, fMap, fIface: the field's type; fCounted: the element's
	time bool         // fCtr: a time the run compares with the CPUs' clocks (pp:"time")
	pfn  bool         // fSlice, fMap: its integers (a map's keys) are PFNs (pp:"pfn")
	cnt  uintptr      // fCounted: the count field's offset (same base as off)
	name string       // the field the op walks ("skb.Data.NrFrags"): what FirstDifference names
}

// compile appends t's ops at base offset off; ctr marks every integer
// inside as a counter (a counter field that is an array or struct), time as
// a time (pp:"time").
func compile(ops *[]fop, t reflect.Type, off uintptr, ctr ctrKind, time bool) {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if ctr != 0 && t.Kind() != reflect.Bool {
			*ops = append(*ops, fop{kind: fCtr, off: off, ctr: ctrKindOf(t.Kind()), n: 1, time: time})
			return
		}
		*ops = append(*ops, fop{kind: fScalar, off: off, size: uint8(t.Size()), n: 1})
	case reflect.Float32, reflect.Float64:
		*ops = append(*ops, fop{kind: fScalar, off: off, size: uint8(t.Size()), n: 1})
	case reflect.String:
		*ops = append(*ops, fop{kind: fString, off: off})
	case reflect.Pointer, reflect.UnsafePointer:
		*ops = append(*ops, fop{kind: fPtr, off: off, t: t})
	case reflect.Slice:
		*ops = append(*ops, fop{kind: fSlice, off: off, t: t})
	case reflect.Interface:
		*ops = append(*ops, fop{kind: fIface, off: off, t: t})
	case reflect.Map:
		*ops = append(*ops, fop{kind: fMap, off: off, t: t})
	case reflect.Func:
		*ops = append(*ops, fop{kind: fFunc, off: off})
	case reflect.Array:
		e := t.Elem()
		if k := e.Kind(); k >= reflect.Int && k <= reflect.Uintptr && t.Len() > 1 {
			// An array of integers: one op over all its elements.
			o := fop{kind: fScalar, off: off, size: uint8(e.Size()), n: t.Len(), step: e.Size()}
			if ctr != 0 {
				o.kind, o.ctr, o.size = fCtr, ctrKindOf(k), 0
			}
			*ops = append(*ops, o)
			return
		}
		for i := 0; i < t.Len(); i++ {
			compile(ops, e, off+uintptr(i)*e.Size(), ctr, time)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tg := TagOf(t, f)
			if tg.Skip || f.Name == "_" {
				continue
			}
			fc := ctr
			if tg.Counter {
				fc = ctrI64 // any nonzero: the leaves pick their own kind
			}
			if tg.Upto != "" {
				c, found := t.FieldByName(tg.Upto)
				if !found || c.Type.Kind() != reflect.Int || f.Type.Kind() != reflect.Array {
					panic(fmt.Sprintf("state: %s.%s: pp:\"upto=%s\" names no int field of %s, or the field is not an array", t, f.Name, tg.Upto, t))
				}
				*ops = append(*ops, fop{kind: fCounted, off: off + f.Offset, cnt: off + c.Offset, n: f.Type.Len(), t: f.Type.Elem(), name: t.String() + "." + f.Name})
				continue
			}
			n := len(*ops)
			compile(ops, f.Type, off+f.Offset, fc, time || tg.Time)
			for i := n; i < len(*ops); i++ {
				if (*ops)[i].name == "" {
					(*ops)[i].name = t.String() + "." + f.Name
				}
				if tg.PFN {
					(*ops)[i].pfn = true
				}
			}
		}
	case reflect.Chan:
		panic(fmt.Sprintf("state: the walk cannot compare a channel in %v (tag the field pp:\"observer\")", t))
	default:
		panic(fmt.Sprintf("state: the walk cannot compare a %v", t))
	}
}

// rolePlan is the walk of a page's role fields: all but the frame's
// (pp:"frame") and Holder, which the renaming treats apart; with Holder's
// offset.
var rolePlan = sync.OnceValues(func() ([]fop, uintptr) {
	var ops []fop
	var holder uintptr
	for i := 0; i < pageType.NumField(); i++ {
		switch f := pageType.Field(i); {
		case f.Name == "Holder":
			holder = f.Offset
		case !TagOf(pageType, f).Frame:
			compile(&ops, f.Type, f.Offset, 0, false)
		}
	}
	return ops, holder
})
