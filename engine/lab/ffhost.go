package lab

import (
	"reflect"

	"pplab/engine/drivers"
	"pplab/engine/lab/internal/fastforward"
	"pplab/engine/lab/internal/state"
	"pplab/engine/mm"
	"pplab/engine/sim"
)

// schema is what the state walker (keyframes' copies, the fast-forward's
// walks) knows of a Lab's graph: the read-only descriptions runs share.
var schema = state.NewSchema(
	reflect.TypeOf((*sim.Era)(nil)),
	reflect.TypeOf((*sim.Platform)(nil)),
	reflect.TypeOf((*drivers.Spec)(nil)),
	reflect.TypeOf((*Scenario)(nil)),
)

// FFStats is what the fast-forward did in a run.
type FFStats = fastforward.Stats

// FFStats says what the fast-forward did in this run.
func (l *Lab) FFStats() FFStats { return l.ff.Stats() }

// ffInit arms the fast-forward for a new run (or for a copy).
func (l *Lab) ffInit() {
	l.ff = fastforward.New(l.m.Knobs[sim.KnobFastForward] != 0, schema)
}

// ffHost is the Lab as the fast-forward's Host: the same memory, with the
// methods the fast-forward calls kept off the Lab's own API.
type ffHost Lab

func (l *Lab) host() *ffHost { return (*ffHost)(l) }

func (h *ffHost) lab() *Lab        { return (*Lab)(h) }
func (h *ffHost) Root() any        { return h.lab() }
func (h *ffHost) Ops() uint64      { return h.ops }
func (h *ffHost) Packets() int64   { return h.packets }
func (h *ffHost) Pages() []mm.Page { return h.a.Pages() }

func (h *ffHost) Blocked() (never string, wait bool) {
	l := h.lab()
	switch {
	case l.m.Rules != 0:
		never = "a rule is broken"
	case l.checkEach():
		never = "every operation is checked fully (a seekable run of a known failure)"
	case l.ownEnd:
		never = "the run ends on its own (destroy)"
	case l.checkEvery%lightEvery != 0:
		never = "check_every is not a multiple of 64"
	case l.m.Log.Total() > 0:
		never = "a violation was logged"
	case l.err != nil:
		never = "the run stopped with an error"
	}
	wait = l.m.Tracing() || l.m.Recording() || l.startPS == nil || l.m.PendingTimers() > 0 || l.done
	if l.run.settling() {
		wait = true
	}
	return never, wait
}

func (h *ffHost) ChangeAt() int64 {
	if n := h.run.changesIn(); n >= 0 {
		return h.packets + n
	}
	return -1
}

func (h *ffHost) Clocks(dst []int64) []int64 {
	for c := range h.m.CPUs {
		dst = append(dst, h.m.CPUs[c].NowPS())
	}
	return dst
}

func (h *ffHost) SeriesVals(dst []int64) []int64 { return h.lab().seriesVals(dst) }

// MaxCycles keeps the run's last packet real, a workload's scheduled
// change ahead, and the series' release count (a u32 sum over the pools,
// seriesVals' next-to-last value) from wrapping inside a skip.
func (h *ffHost) MaxCycles(dPackets int64, dSeries []int64) int64 {
	k := (h.cfg.Packets - h.packets - 1) / dPackets // the last packet runs for real
	if d := dSeries[len(dSeries)-2]; d > 0 {
		var rel int64
		for _, p := range h.reg.Pools() {
			rel = max(rel, int64(p.Release()))
		}
		k = min(k, (1<<32-1-rel)/d)
	}
	if at := h.ChangeAt(); at >= 0 {
		k = min(k, (at-h.packets-1)/dPackets)
	}
	return k
}

func (h *ffHost) NextWindow() int64 { return h.series.Next() }

func (h *ffHost) CloseWindow(packets int64, vals []int64) {
	h.lab().closeWindow(packets, vals)
}

// Skipped moves the check interval on, and takes a keyframe that fell due
// inside the skipped cycles here instead (where keyframes sit changes how
// long a seek takes, never what it returns).
func (h *ffHost) Skipped(ops uint64) {
	h.sinceCheck = (h.sinceCheck + ops) % h.checkEvery
	if h.kf.on && h.ops/h.kf.every != (h.ops-ops)/h.kf.every {
		h.kf.capture(h.lab())
	}
	if h.mk.on {
		h.lab().markerSkipped(ops, h.ff.Stats().Period)
	}
}
