package lab

// PoolLevel is one page_pool's fill at a moment of the run: the counts a
// trace's counter tracks draw (engine/traceevent).
type PoolLevel struct {
	ID       int32
	Cache    int   // pages in the alloc cache (alloc.count)
	Ring     int   // pages queued in the ptr_ring (stale slots not counted)
	Inflight int32 // page_pool_inflight: hold − release (the cache and the ring included)
}

// PoolLevels appends every pool's levels to dst, in Snapshot's Pools order,
// and returns it. It reads three counters per pool and allocates nothing
// once dst has room: a tracer may call it at every event (the machine's
// state is then the event's, mid-operation).
func (l *Lab) PoolLevels(dst []PoolLevel) []PoolLevel {
	for _, p := range l.reg.Pools() {
		dst = append(dst, PoolLevel{ID: p.ID, Cache: p.CacheCount(), Ring: p.RingCount(), Inflight: p.Inflight()})
	}
	return dst
}
