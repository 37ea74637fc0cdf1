package state

import (
	"unsafe"

	"pplab/engine/mm"
)

// pageArray is the allocator's page array as both walks see it: a pointer
// into it is the page frame at that index (mm.Allocator.Pages: one array
// for the machine's life), never an object of its own. This is the one
// place that tells a page pointer from any other.
type pageArray struct {
	pages []mm.Page
	base  uintptr
}

const pageSize = unsafe.Sizeof(mm.Page{})

func newPageArray(pages []mm.Page) pageArray {
	a := pageArray{pages: pages}
	if len(pages) > 0 {
		a.base = uintptr(unsafe.Pointer(&pages[0]))
	}
	return a
}

// pfn is the index of the page p points to, or -1 when p does not point
// into the array.
func (a *pageArray) pfn(p unsafe.Pointer) int {
	if a.base == 0 {
		return -1
	}
	if off := uintptr(p) - a.base; uintptr(p) >= a.base && off < uintptr(len(a.pages))*pageSize {
		return int(off / pageSize)
	}
	return -1
}

// isArray reports whether data is the array's backing store (a slice
// header over the whole page array).
func (a *pageArray) isArray(data unsafe.Pointer) bool {
	return a.base != 0 && uintptr(data) == a.base
}
