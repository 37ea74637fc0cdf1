package lab

import (
	"fmt"
	"reflect"
	"unsafe"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// copier deep-copies a Lab's object graph: every object reachable from it
// is copied once (shared structure and cycles preserved), except the
// read-only descriptions runs share (eras, platforms, driver specs,
// scenarios). Pointers into the allocator's page array map to the same page
// of the copy's array. It copies unexported fields too: a keyframe must hold
// the whole state of a run, and the engine's packages should not each grow a
// copy method that a new field silently breaks (TestClone_IsIndependentAndRunsOnIdentically
// and TestSeek_EqualsStraightRun, seam_test.go, replay scenarios from copies
// and compare against straight runs).
//
// Precondition: the graph holds no function values (the Lab removes its
// event listener around a copy) and no channels; a copier that meets one
// panics naming the path, since a keyframe that silently shares one would
// make seeking wrong.
type copier struct {
	memo map[memoKey]reflect.Value
	// Per type: whether it holds pointers, and a struct's pointer-holding
	// fields. Kept per copy, not per package: two Labs may be copied at
	// once (each Lab is single-goroutine; the package is not).
	pointerFree map[reflect.Type]bool
	fieldPlans  map[reflect.Type][]int
	oldPages    []mm.Page
	newPages    []mm.Page
	base        uintptr
	path        []string
}

type memoKey struct {
	addr uintptr
	t    reflect.Type
}

var (
	pagePtrType = reflect.TypeOf((*mm.Page)(nil))
	shared      = map[reflect.Type]bool{
		reflect.TypeOf((*sim.Era)(nil)):      true,
		reflect.TypeOf((*sim.Platform)(nil)): true,
		reflect.TypeOf((*drivers.Spec)(nil)): true,
		reflect.TypeOf((*Scenario)(nil)):     true,
	}
)

// pointerFields lists the fields of struct type t that hold pointers (the
// rest is copied by the struct's shallow copy).
func (c *copier) pointerFields(t reflect.Type) []int {
	if f, ok := c.fieldPlans[t]; ok {
		return f
	}
	f := []int{}
	for i := 0; i < t.NumField(); i++ {
		if c.hasPointers(t.Field(i).Type) {
			f = append(f, i)
		}
	}
	c.fieldPlans[t] = f
	return f
}

// hasPointers reports whether values of t refer to other memory the copy
// must not share (strings are immutable: sharing them is a copy).
func (c *copier) hasPointers(t reflect.Type) bool {
	if v, ok := c.pointerFree[t]; ok {
		return !v
	}
	var has bool
	switch t.Kind() {
	case reflect.Array:
		has = t.Len() > 0 && c.hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if c.hasPointers(t.Field(i).Type) {
				has = true
				break
			}
		}
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		has = true
	}
	c.pointerFree[t] = !has
	return has
}

// cloneLab copies src into dst (dst's previous contents are overwritten);
// pointers to src inside the graph (the Lab is its machine's checker) point
// to dst in the copy.
func cloneLab(dst, src *Lab) {
	c := &copier{memo: map[memoKey]reflect.Value{}, pointerFree: map[reflect.Type]bool{}, fieldPlans: map[reflect.Type][]int{}}
	c.oldPages = src.a.Pages()
	c.newPages = make([]mm.Page, len(c.oldPages), cap(c.oldPages))
	copy(c.newPages, c.oldPages)
	if len(c.oldPages) > 0 {
		c.base = uintptr(unsafe.Pointer(&c.oldPages[0]))
		c.memo[memoKey{c.base, reflect.TypeOf(c.oldPages)}] = reflect.ValueOf(c.newPages)
	}
	sv := reflect.ValueOf(src)
	c.memo[memoKey{sv.Pointer(), sv.Type()}] = reflect.ValueOf(dst)
	c.copy(reflect.ValueOf(dst).Elem(), sv.Elem())
}

// rw makes an addressable value writable and readable even when it was
// reached through an unexported field.
func rw(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (c *copier) fail(what string) {
	panic(fmt.Sprintf("lab: cannot copy %s at %v (a keyframe must hold values only)", what, c.path))
}

// pagePtrs maps page pointers into the copy's page array (the fast path for
// the pools' caches and rings).
func (c *copier) pagePtrs(dst, src []*mm.Page) {
	size := unsafe.Sizeof(mm.Page{})
	end := uintptr(len(c.oldPages)) * size
	for i, p := range src {
		if off := uintptr(unsafe.Pointer(p)) - c.base; p != nil && uintptr(unsafe.Pointer(p)) >= c.base && off < end {
			dst[i] = &c.newPages[off/size]
			continue
		}
		if p == nil {
			dst[i] = nil
			continue
		}
		d := reflect.New(pagePtrType).Elem()
		c.copy(d, reflect.ValueOf(p))
		dst[i] = d.Interface().(*mm.Page)
	}
}

// copy deep-copies src into dst; both are addressable values of one type.
func (c *copier) copy(dst, src reflect.Value) {
	t := src.Type()
	if !c.hasPointers(t) {
		dst.Set(src)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		if shared[t] {
			dst.Set(src)
			return
		}
		addr := src.Pointer()
		if t == pagePtrType && len(c.oldPages) > 0 {
			if off := addr - c.base; addr >= c.base && off < uintptr(len(c.oldPages))*unsafe.Sizeof(mm.Page{}) {
				dst.Set(reflect.ValueOf(&c.newPages[off/unsafe.Sizeof(mm.Page{})]))
				return
			}
		}
		key := memoKey{addr, t}
		if v, ok := c.memo[key]; ok {
			dst.Set(v)
			return
		}
		np := reflect.New(t.Elem())
		c.memo[key] = np
		c.copy(np.Elem(), src.Elem())
		dst.Set(np)
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		key := memoKey{src.Pointer(), t}
		if v, ok := c.memo[key]; ok && src.Cap() <= v.Cap() {
			dst.Set(v.Slice3(0, src.Len(), src.Cap()))
			return
		}
		ns := reflect.MakeSlice(t, src.Len(), src.Cap())
		c.memo[key] = ns.Slice3(0, src.Cap(), src.Cap())
		switch {
		case !c.hasPointers(t.Elem()):
			reflect.Copy(ns, src)
		case t.Elem() == pagePtrType:
			c.pagePtrs(unsafe.Slice((**mm.Page)(ns.UnsafePointer()), src.Len()), unsafe.Slice((**mm.Page)(src.UnsafePointer()), src.Len()))
		default:
			for i := 0; i < src.Len(); i++ {
				c.copy(ns.Index(i), rw(src.Index(i)))
			}
		}
		dst.Set(ns)
	case reflect.Array:
		if t.Elem() == pagePtrType && src.CanAddr() && dst.CanAddr() {
			c.pagePtrs(unsafe.Slice((**mm.Page)(unsafe.Pointer(dst.UnsafeAddr())), src.Len()),
				unsafe.Slice((**mm.Page)(unsafe.Pointer(src.UnsafeAddr())), src.Len()))
			return
		}
		for i := 0; i < src.Len(); i++ {
			c.copy(rw(dst.Index(i)), rw(src.Index(i)))
		}
	case reflect.Struct:
		dst.Set(src) // the scalars; pointer fields are replaced below
		for _, i := range c.pointerFields(t) {
			c.copy(rw(dst.Field(i)), rw(src.Field(i)))
		}
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		nm := reflect.MakeMapWithSize(t, src.Len())
		it := src.MapRange()
		for it.Next() {
			k, v := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			ks, vs := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			ks.Set(it.Key())
			vs.Set(it.Value())
			c.copy(k, ks)
			c.copy(v, vs)
			nm.SetMapIndex(k, v)
		}
		dst.Set(nm)
	case reflect.Interface:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		e := src.Elem()
		tmp := reflect.New(e.Type()).Elem()
		tmp.Set(e)
		nv := reflect.New(e.Type()).Elem()
		c.copy(nv, tmp)
		dst.Set(nv)
	case reflect.Func, reflect.UnsafePointer:
		if !src.IsNil() {
			c.fail("a " + t.Kind().String() + " value")
		}
		dst.SetZero()
	default:
		c.fail("a " + t.Kind().String())
	}
}
