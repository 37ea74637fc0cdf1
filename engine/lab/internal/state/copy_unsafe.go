package state

import (
	"fmt"
	"reflect"
	"unsafe"

	"pplab/engine/mm"
)

// Copy deep-copies *src into *dst (dst's previous contents are
// overwritten): every object reachable from src is copied once (shared
// structure and cycles preserved) except the schema's shared descriptions,
// and pages, the allocator's page array src's graph points into, is copied
// as one array: a pointer to its page i points to page i of the copy's.
// Pointers to src inside the graph point to dst in the copy. Unexported
// fields are copied too, whatever their pp tags: a keyframe must hold the
// whole state of a run, and the engine's packages should not each grow a
// copy method that a new field silently breaks (the lab's
// TestClone_IsIndependentAndRunsOnIdentically and TestSeek_EqualsStraightRun
// replay scenarios from copies and compare them with straight runs).
//
// Preconditions: dst and src are non-nil pointers of one type; the graph
// holds no function values (the Lab removes its listener around a copy),
// channels or unsafe pointers. A copier that meets one panics naming the
// path, since a keyframe that silently shares one would make seeking wrong.
func (s *Schema) Copy(dst, src any, pages []mm.Page) {
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Type() != sv.Type() || sv.Kind() != reflect.Pointer || sv.IsNil() || dv.IsNil() {
		panic(fmt.Sprintf("state: Copy(%T, %T): want two non-nil pointers of one type", dst, src))
	}
	c := &copier{s: s, memo: map[memoKey]reflect.Value{}, old: newPageArray(pages)}
	c.newPages = make([]mm.Page, len(pages), cap(pages))
	copy(c.newPages, pages)
	if len(pages) > 0 {
		c.memo[memoKey{c.old.base, reflect.TypeOf(pages)}] = reflect.ValueOf(c.newPages)
	}
	c.memo[memoKey{sv.Pointer(), sv.Type()}] = dv
	c.copy(dv.Elem(), sv.Elem())
}

type copier struct {
	s        *Schema
	memo     map[memoKey]reflect.Value
	old      pageArray
	newPages []mm.Page
	path     []string
}

type memoKey struct {
	addr uintptr
	t    reflect.Type
}

// rw makes an addressable value writable and readable even when it was
// reached through an unexported field.
func rw(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (c *copier) fail(what string) {
	panic(fmt.Sprintf("state: cannot copy %s at %v (a keyframe must hold values only)", what, c.path))
}

// pagePtrs maps page pointers into the copy's page array (the fast path for
// the pools' caches and rings).
func (c *copier) pagePtrs(dst, src []*mm.Page) {
	for i, p := range src {
		if p == nil {
			dst[i] = nil
			continue
		}
		if pfn := c.old.pfn(unsafe.Pointer(p)); pfn >= 0 {
			dst[i] = &c.newPages[pfn]
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
	ti := c.s.infoOf(t)
	if !ti.hasPtrs {
		dst.Set(src)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		if c.s.shared[t] {
			dst.Set(src)
			return
		}
		if t == pagePtrType {
			if pfn := c.old.pfn(src.UnsafePointer()); pfn >= 0 {
				dst.Set(reflect.ValueOf(&c.newPages[pfn]))
				return
			}
		}
		key := memoKey{src.Pointer(), t}
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
		case !c.s.infoOf(t.Elem()).hasPtrs:
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
		for _, i := range ti.ptrField {
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
