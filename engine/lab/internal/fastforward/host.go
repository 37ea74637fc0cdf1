package fastforward

import "pplab/engine/mm"

// Host is what the fast-forward needs of the run it skips through (the
// Lab).
type Host interface {
	Root() any        // the run's state, where the walks start (a pointer)
	Ops() uint64      // operations run
	Packets() int64   // packets completed
	Pages() []mm.Page // the allocator's page array
	// Blocked says why the fast-forward cannot apply: never, for the rest of
	// the run (a rule is broken, …), or, with never empty, wait: not now,
	// maybe later (a tracer listens, a timer is pending, …).
	Blocked() (never string, wait bool)
	// ChangeAt is the packet count at which the workload's scheduled change
	// happens (-1: none ahead).
	ChangeAt() int64
	Clocks(dst []int64) []int64 // each CPU's clock, appended to dst
	// SeriesVals appends the values a series window's close reads (each a
	// sum that only grows over a cycle: time, busy times, stats, …).
	SeriesVals(dst []int64) []int64
	// MaxCycles bounds the cycles one skip may add, given what a cycle adds
	// to the packets and to SeriesVals: every horizon stays ahead (the
	// run's last packet, a scheduled change, a narrow sum's wrap).
	MaxCycles(dPackets int64, dSeries []int64) int64
	// NextWindow is the packet count at which the next series window
	// closes; CloseWindow closes it with the values SeriesVals would have
	// read there.
	NextWindow() int64
	CloseWindow(packets int64, vals []int64)
	// Skipped says that a skip has just run ops operations' worth (the
	// check interval and the keyframes move on).
	Skipped(ops uint64)
}
