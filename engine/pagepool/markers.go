package pagepool

import "pplab/engine/sim"

// What the lab's markers read after each operation (engine/lab/markers.go):
// single values, so that looking costs a few loads per operation.

// DestroyCnt is the pool's destroy_cnt: how many times page_pool_release
// ran (page_pool_destroy's own call, then each page_pool_release_retry).
func (p *Pool) DestroyCnt() uint64 { return p.destroyCnt }

// Counter is one of the pool's counters (GetStats adds them all).
func (p *Pool) Counter(s sim.Stat) uint64 { return p.stats[s] }
