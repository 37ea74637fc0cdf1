package pagepool

// What the netdev netlink family reads of a pool (net/core/page_pool_user.c,
// page_pool_nl_fill; v6.8): the pool's order for inflight-mem, and when it
// was detached.

// Detached reports whether page_pool_destroy had to defer the release (pages
// still in flight): page_pool_destroy calls page_pool_detached, which sets
// user.detach_time, exactly then — after page_pool_release returned non-zero
// and before it schedules release_dw. at is the model's clock then, in ps.
func (p *Pool) Detached() (at int64, ok bool) {
	return p.deferStartPS, p.destroyed && p.deferWarnPS != 0
}
