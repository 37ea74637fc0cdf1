package mm

import (
	"fmt"

	"pplab/engine/sim"
)

// SlabObj is one object of a slab cache: a kmalloc'ed skb head, a struct
// sk_buff, … It lives inside a slab page.
type SlabObj struct {
	Page *Page
	Idx  int32 `pp:"index"`
}

// Valid reports whether the object refers to memory.
func (o SlabObj) Valid() bool { return o.Page != nil }

// SlabCache models a kmem_cache: objects of one size carved out of order-0
// pages that the cache owns (PlaceSlab). Slab pages are never page_pool pages,
// which is exactly why an skb head from here must never be offered to a pool.
type SlabCache struct {
	Name    string
	ObjSize int
	id      int32
	a       *Allocator
	perPage int32
	pages   []*Page
	inUse   []int32         // objects in use per page, parallel to pages
	index   map[int32]int32 `pp:"pfn"` // PFN -> index in pages
	free    []SlabObj

	Allocs, Frees int64 `pp:"counter"`
}

// SlabHolderBase: slab pages are held by holder ids from here on, far from
// pool ids. Ids are per allocator (per run), so two runs of one config agree.
const SlabHolderBase = 1 << 20

// ID is the cache's holder id (what its pages record as Holder).
func (c *SlabCache) ID() int32 { return c.id }

// NewSlabCache models kmem_cache_create(name, size).
func NewSlabCache(a *Allocator, name string, objSize int) (*SlabCache, error) {
	if objSize <= 0 || objSize > PageSize {
		return nil, fmt.Errorf("kmem_cache_create %s: object size %d not in 1..%d", name, objSize, PageSize)
	}
	a.slabIDs++
	return &SlabCache{Name: name, ObjSize: objSize, id: SlabHolderBase + a.slabIDs, a: a, perPage: int32(PageSize / objSize)}, nil
}

// Alloc models kmem_cache_alloc: an object, growing the cache by one page when
// no object is free. ok=false when the page allocator fails.
func (c *SlabCache) Alloc(cpu int) (SlabObj, bool) {
	c.a.m.Charge(cpu, sim.SymSlabAlloc, 0)
	if len(c.free) == 0 {
		p := c.a.AllocPagesNode(cpu, -1, 0)
		if p == nil {
			return SlabObj{}, false
		}
		p.MoveTo(c.a.m, sim.PlaceSlab, c.id)
		if c.index == nil {
			c.index = map[int32]int32{}
		}
		c.index[p.PFN] = int32(len(c.pages))
		c.pages = append(c.pages, p)
		c.inUse = append(c.inUse, 0)
		for i := c.perPage - 1; i >= 0; i-- {
			c.free = append(c.free, SlabObj{Page: p, Idx: i})
		}
	}
	o := c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	c.inUse[c.index[o.Page.PFN]]++
	c.Allocs++
	return o, true
}

// Free models kmem_cache_free.
func (c *SlabCache) Free(cpu int, o SlabObj) {
	c.a.m.Charge(cpu, sim.SymSlabFree, 0)
	c.inUse[c.index[o.Page.PFN]]--
	c.free = append(c.free, o)
	c.Frees++
}

// InUse is the number of live objects.
func (c *SlabCache) InUse() int64 { return c.Allocs - c.Frees }

// CheckInvariants: slab pages stay in the slab, object counts add up.
func (c *SlabCache) CheckInvariants(m *sim.Machine) {
	var total int64
	for i, p := range c.pages {
		if p.Place != sim.PlaceSlab || p.Holder != c.id {
			p.ReportOnce(m, sim.KindPageInTwoPlaces, sim.RuleNone, "slab page of %s recorded as %s", c.Name, p.Place)
		}
		total += int64(c.inUse[i])
	}
	if total != c.InUse() {
		m.Report(sim.KindPageInTwoPlaces, -1, sim.RuleNone, "slab %s: %d objects in pages, %d allocated", c.Name, total, c.InUse())
	}
}

// CheckTouched: slab objects do not move between checks; nothing to do.
func (c *SlabCache) CheckTouched(m *sim.Machine) {}
