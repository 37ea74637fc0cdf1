package pagepool

import "pplab/engine/mm"

// ptrRing models struct ptr_ring (include/linux/ptr_ring.h) holding pages.
//
// A slot is free iff it holds NULL. The consumer does not NULL a slot when it
// consumes it: __ptr_ring_discard_one zeroes consumed slots lazily, in batches
// of r->batch (SMP_CACHE_BYTES*2/sizeof(void *), 16 on x86-64; 1 when that is
// more than half the ring), so that producer and consumer do not bounce one
// cache line. Until then the producer sees up to batch-1 consumed slots as
// occupied and __ptr_ring_produce fails with -ENOSPC although fewer than size
// pages are queued.
//
// Stale (consumed, not yet zeroed) slots still point at their old page: they
// are not ring contents. live counts the queued pages for the checker.
type ptrRing struct {
	queue        []*mm.Page
	producer     int
	consumerHead int // next entry to consume
	consumerTail int // next entry to invalidate
	batch        int
	live         int
}

// init models ptr_ring_init / __ptr_ring_set_size.
func (r *ptrRing) init(size, cacheLine, ptrBytes int) {
	r.queue = make([]*mm.Page, size)
	r.batch = cacheLine * 2 / ptrBytes
	// We need to keep at least one entry empty for the producer/consumer to
	// make progress: a batch larger than half the ring degrades to 1.
	if r.batch > size/2 || r.batch == 0 {
		r.batch = 1
	}
}

func (r *ptrRing) size() int { return len(r.queue) }

// empty models __ptr_ring_empty: the slot at consumer_head is NULL.
func (r *ptrRing) empty() bool {
	if len(r.queue) == 0 {
		return true
	}
	return r.queue[r.consumerHead] == nil
}

// produce models __ptr_ring_produce. Caller holds the producer lock.
func (r *ptrRing) produce(p *mm.Page) bool {
	if len(r.queue) == 0 || r.queue[r.producer] != nil {
		return false // -ENOSPC
	}
	r.queue[r.producer] = p
	r.producer++
	if r.producer >= len(r.queue) {
		r.producer = 0
	}
	r.live++
	return true
}

// consume models __ptr_ring_consume (peek + __ptr_ring_discard_one).
func (r *ptrRing) consume() *mm.Page {
	if len(r.queue) == 0 {
		return nil
	}
	p := r.queue[r.consumerHead]
	if p == nil {
		return nil
	}
	r.discardOne()
	r.live--
	return p
}

// discardOne models __ptr_ring_discard_one: zero consumed entries in reverse
// order, a batch at a time (or at the end of the array), so the producer only
// sees them free once the whole batch has been consumed.
func (r *ptrRing) discardOne() {
	consumerHead := r.consumerHead
	head := consumerHead
	consumerHead++
	if consumerHead-r.consumerTail >= r.batch || consumerHead >= len(r.queue) {
		for head >= r.consumerTail {
			r.queue[head] = nil
			head--
		}
		r.consumerTail = consumerHead
	}
	if consumerHead >= len(r.queue) {
		consumerHead = 0
		r.consumerTail = 0
	}
	r.consumerHead = consumerHead
}

// forEach calls fn on every queued (live) page, oldest first.
func (r *ptrRing) forEach(fn func(*mm.Page)) {
	i := r.consumerHead
	for n := 0; n < r.live; n++ {
		fn(r.queue[i])
		i++
		if i >= len(r.queue) {
			i = 0
		}
	}
}

// stale is the number of consumed slots that still look occupied.
func (r *ptrRing) stale() int {
	n := 0
	for _, p := range r.queue {
		if p != nil {
			n++
		}
	}
	return n - r.live
}

// slots calls fn on every slot in array order: the page it holds (nil when
// zeroed) and whether it is queued (a stale slot holds a consumed page).
func (r *ptrRing) slots(fn func(i int, pg *mm.Page, queued bool)) {
	n := len(r.queue)
	for i, pg := range r.queue {
		d := i - r.consumerHead
		if d < 0 {
			d += n
		}
		fn(i, pg, pg != nil && d < r.live)
	}
}
