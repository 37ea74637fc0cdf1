// Package traceevent writes a run as Chrome Trace Event JSON, the JSON
// Object Format that ui.perfetto.dev (and the older chrome://tracing)
// opens:
//
//	{"traceEvents":[…], "displayTimeUnit":"ns", "otherData":{…}}
//
// The machine is one process (pid 1, named after the run); each CPU is a
// thread of it (tid = CPU + 1, named "cpuN", "cpuN (NAPI)" for a CPU a NAPI
// runs on: Perfetto treats tid 0 as the idle task). On a CPU's track, an
// instant event ("ph":"i", "s":"t") marks each page the pools hand out or
// take back:
//
//   - "alloc fast": page_pool_alloc_pages from the alloc cache, a refill
//     from the ptr_ring included (alloc_fast, alloc_refill), or the next
//     fragment of the frag page;
//   - "alloc slow": the slow path into the page allocator (alloc_slow,
//     alloc_slow_high_order);
//   - "recycle cache": a page recycled into the alloc cache;
//   - "recycle ring": a page produced into the ptr_ring;
//   - "release": page_pool_state_release, the page handed back to the
//     page allocator (or a memory provider);
//
// each with args pfn, pool, func (the kernel function as the event's era
// names it, sim.Sym.NameIn), stat (the counter it incremented, if any),
// release (pages_state_release_cnt, on a release) and skb: the skb the
// event names or, for a recycle or a release, the skb whose free returned
// the page (the page_pool events name none: the last skb the CPU freed in
// the same kernel operation, while the events since are the return of its
// pages); left out when there is none. Counter events ("ph":"C") draw, per pool, the
// pages in its alloc cache, the pages queued in its ptr_ring and its
// inflight (hold − release): read from the run (lab.PoolLevels) after
// every event, written when they change. The events alone would not do:
// a refill moves up to 64 pages from the ring to the cache in one event
// that does not say how many, the bulk slow path fills the cache with no
// event per page but its state_hold, and a ring producer's stat event
// names no place.
//
// ts is in microseconds (exact decimals of the machine's picoseconds).
// Each CPU's clock only moves forward, so every thread's events are in
// time order; the CPUs' clocks are not in step (an event on cpu1 may come
// after one on cpu0 with an earlier time), so a counter sample takes the
// latest time written so far, keeping each counter track in order too.
//
// The writer streams: nothing of the run is kept but a few counters per
// pool and per CPU. With a byte cap it stops writing events once the next
// one would leave no room for the closing, ends the JSON validly and says
// in otherData how many events it dropped.
package traceevent

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// PID is the machine's process id in the trace (0 is special to Perfetto).
const PID = 1

// TID is the thread id of CPU cpu in the trace.
func TID(cpu int) int { return cpu + 1 }

// Instant event names (the "name" of an "i" event).
const (
	NameAllocFast    = "alloc fast"
	NameAllocSlow    = "alloc slow"
	NameRecycleCache = "recycle cache"
	NameRecycleRing  = "recycle ring"
	NameRelease      = "release"
)

// Counter names: a pool's counter event is named Counter*(pool); its one
// arg is "pages".
func CounterCache(pool int32) string    { return "alloc cache (pool " + strconv.Itoa(int(pool)) + ")" }
func CounterRing(pool int32) string     { return "ptr_ring (pool " + strconv.Itoa(int(pool)) + ")" }
func CounterInflight(pool int32) string { return "inflight (pool " + strconv.Itoa(int(pool)) + ")" }

// Options configure a Writer.
type Options struct {
	// MaxBytes caps the file (0: no cap). The header, the CPUs' names and
	// the closing always fit in MinBytes; past that, events are written
	// while the file with its closing stays within MaxBytes.
	MaxBytes int64
	// Other is added to otherData (the writer's own keys win).
	Other map[string]any
}

// MinBytes is the smallest cap a Writer keeps to (a smaller MaxBytes is
// raised to it): room for the header, the metadata of 8 CPUs and the
// closing.
const MinBytes = 4096

// Writer writes one run's trace. Attach installs it as the run's tracer;
// Close ends the JSON. Not safe for concurrent use (nor is a Lab).
type Writer struct {
	l   *lab.Lab
	w   *bufio.Writer
	err error

	max, written, reserve int64
	full                  bool
	events                int64 // trace events written (metadata included)
	dropped               int64 // trace events not written (the cap)
	byName                map[string]int64

	era      *sim.Era
	funcs    map[sim.Sym][]byte // quoted func names
	cpuNamed []bool
	napi     map[int]bool
	lastPS   int64 // the latest ts written (counters take it)
	first    bool  // no event written yet (no comma)

	levels []lab.PoolLevel
	last   map[int32]lab.PoolLevel
	cnames map[int32]*[3]string // a pool's counter names
	skb    []skbCtx             // per CPU: the skb being freed

	other map[string]any
	buf   []byte
}

// Attach starts a trace of l into out: it writes the header and the
// machine's name, and installs the writer as l's tracer (replacing any).
// The trace covers the operations run from here until Close.
func Attach(l *lab.Lab, out io.Writer, opt Options) *Writer {
	snap := l.Snapshot()
	w := &Writer{l: l, w: bufio.NewWriterSize(out, 64<<10), max: opt.MaxBytes, first: true,
		funcs: map[sim.Sym][]byte{}, napi: map[int]bool{}, last: map[int32]lab.PoolLevel{}, cnames: map[int32]*[3]string{},
		byName: map[string]int64{}, cpuNamed: make([]bool, len(snap.BusyNS))}
	if w.max > 0 && w.max < MinBytes {
		w.max = MinBytes
	}
	w.era, _ = sim.EraByName(snap.Era)
	if snap.NIC != nil {
		w.napi[snap.NIC.CPU] = true
	}
	for _, p := range snap.Pools {
		if p.NAPICPU >= 0 {
			w.napi[p.NAPICPU] = true
		}
	}
	run := snap.Scenario
	if snap.Driver != "" {
		run += " on " + snap.Driver
	}
	w.other = map[string]any{}
	for k, v := range opt.Other {
		w.other[k] = v
	}
	cfg := l.Config()
	w.other["pplab"] = "a simulated run of the Linux page_pool (pplab), not a measurement"
	w.other["scenario"], w.other["driver"], w.other["era"], w.other["seed"] = snap.Scenario, snap.Driver, snap.Era, cfg.Seed
	w.other["from_op"], w.other["from_ns"] = snap.Op, snap.TimeNS
	w.other["ts_unit"] = "µs of the simulated machine's clock (each CPU has its own; a counter sample takes the latest time written)"
	w.other["max_bytes"] = w.max
	w.reserve = int64(len(w.trailer(true))) + 16 // "false" is wider than the worst case's "true"

	w.raw(`{"traceEvents":[`)
	w.meta("process_name", TID(0), map[string]any{"name": "pplab " + run + ", era " + snap.Era + " (simulated)"})
	l.SetTracer(w.Event)
	return w
}

// Event is the tracer: one event of the run.
func (w *Writer) Event(e sim.Event) {
	skb := w.skbOf(e)
	if name, ok := instantName(e); ok {
		if name == NameAllocFast || name == NameAllocSlow {
			skb = e.SKB
		}
		w.instant(e, name, skb)
	}
	w.sample(e)
}

// skbCtx is the skb a CPU is freeing: set by its skb_release_data (or
// another skb free naming it), kept while the events that follow on the CPU
// in the same kernel operation are the return of its pages.
type skbCtx struct {
	seq uint64
	id  int32
}

// skbOf is the skb event e concerns: its own, or, for a page_pool return
// path event that names none, the skb the CPU is freeing in the same
// operation (0: none).
func (w *Writer) skbOf(e sim.Event) int32 {
	for e.CPU >= len(w.skb) {
		w.skb = append(w.skb, skbCtx{})
	}
	c := &w.skb[e.CPU]
	switch {
	case e.SKB != 0 && skbFrees[e.Func]:
		*c = skbCtx{e.Seq, e.SKB}
	case e.SKB != 0 || !pageReturn[e.Func] || e.Seq != c.seq:
		*c = skbCtx{}
	}
	if e.SKB != 0 {
		return e.SKB
	}
	return c.id
}

// skbFrees are the skb functions after which the skb's pages are returned.
var skbFrees = map[sim.Sym]bool{sim.SymReleaseData: true, sim.SymFreeHead: true, sim.SymKfreeSkbPartial: true,
	sim.SymNapiConsumeSKB: true, sim.SymKfreeSKB: true}

// pageReturn are the functions a page's return to its pool or to the page
// allocator runs (they keep the skb being freed as the event's skb).
var pageReturn = map[sim.Sym]bool{sim.SymReturnSkbPage: true, sim.SymPutPage: true, sim.SymPutUnrefed: true,
	sim.SymRecycleInCache: true, sim.SymRecycleInRing: true, sim.SymReleasePage: true, sim.SymReturnPage: true,
	sim.SymDMAUnmapPage: true, sim.SymIOMMUUnmap: true, sim.SymFreePage: true, sim.SymPutPageRef: true,
	sim.SymFragUnref: true, sim.SymPageFragFree: true, sim.SymNapiLocal: true, sim.SymPtrRingProduce: true,
	sim.SymProducerLock: true, sim.SymMPReleaseNetmem: true, sim.SymZcReleaseNetmem: true,
	sim.SymDMAIndexRelease: true, sim.SymSlabFree: true, sim.SymSyncForDevice: true, sim.SymCacheMaint: true}

// instantName is the instant event e is, if any.
func instantName(e sim.Event) (string, bool) {
	if e.Kind == sim.EvStateRelease {
		return NameRelease, true
	}
	if e.Kind != sim.EvCall || e.Pool == 0 || e.Page < 0 {
		return "", false
	}
	switch e.Stat {
	case sim.StatAllocFast, sim.StatAllocRefill:
		return NameAllocFast, true
	case sim.StatAllocSlow, sim.StatAllocSlowHighOrder:
		return NameAllocSlow, true
	}
	switch {
	case e.To == sim.PlaceCache && e.From != sim.PlaceCache:
		return NameRecycleCache, true
	case e.To == sim.PlaceRing && e.From != sim.PlaceRing:
		return NameRecycleRing, true
	}
	return "", false
}

func (w *Writer) instant(e sim.Event, name string, skb int32) {
	if !w.room() {
		return
	}
	w.nameCPU(e.CPU)
	b := w.buf[:0]
	b = append(b, `{"name":"`...)
	b = append(b, name...)
	b = append(b, `","cat":"page_pool","ph":"i","s":"t","ts":`...)
	b = appendTS(b, e.TimePS)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, PID, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(TID(e.CPU)), 10)
	b = append(b, `,"args":{"pfn":`...)
	b = strconv.AppendInt(b, int64(e.Page), 10)
	b = append(b, `,"pool":`...)
	b = strconv.AppendInt(b, int64(e.Pool), 10)
	b = append(b, `,"func":`...)
	b = append(b, w.funcName(e.Func)...)
	if skb != 0 {
		b = append(b, `,"skb":`...)
		b = strconv.AppendInt(b, int64(skb), 10)
	}
	if e.Stat < sim.NumStats {
		b = append(b, `,"stat":"`...)
		b = append(b, e.Stat.String()...)
		b = append(b, '"')
	}
	if e.Kind == sim.EvStateRelease {
		b = append(b, `,"release":`...)
		b = strconv.AppendUint(b, uint64(e.Release), 10)
	}
	b = append(b, `}}`...)
	w.buf = b
	if w.put(b) {
		w.byName[name]++
	}
	w.lastPS = max(w.lastPS, e.TimePS)
}

// sample writes the counters of every pool whose levels changed.
func (w *Writer) sample(e sim.Event) {
	w.levels = w.l.PoolLevels(w.levels[:0])
	for _, p := range w.levels {
		old := w.last[p.ID] // a pool first seen starts from zero
		if p == old {
			continue
		}
		w.last[p.ID] = p
		ts := max(w.lastPS, e.TimePS)
		names := w.cnames[p.ID]
		if names == nil {
			names = &[3]string{CounterCache(p.ID), CounterRing(p.ID), CounterInflight(p.ID)}
			w.cnames[p.ID] = names
		}
		if p.Cache != old.Cache {
			w.counter(names[0], e.CPU, ts, int64(p.Cache))
		}
		if p.Ring != old.Ring {
			w.counter(names[1], e.CPU, ts, int64(p.Ring))
		}
		if p.Inflight != old.Inflight {
			w.counter(names[2], e.CPU, ts, int64(p.Inflight))
		}
	}
}

func (w *Writer) counter(name string, cpu int, ps, v int64) {
	if !w.room() {
		return
	}
	w.nameCPU(cpu)
	b := w.buf[:0]
	b = append(b, `{"name":"`...)
	b = append(b, name...)
	b = append(b, `","ph":"C","ts":`...)
	b = appendTS(b, ps)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, PID, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(TID(cpu)), 10)
	b = append(b, `,"args":{"pages":`...)
	b = strconv.AppendInt(b, v, 10)
	b = append(b, `}}`...)
	w.buf = b
	w.put(b)
	w.lastPS = max(w.lastPS, ps)
}

// nameCPU writes a CPU's thread_name and thread_sort_index before its
// first event.
func (w *Writer) nameCPU(cpu int) {
	for cpu >= len(w.cpuNamed) {
		w.cpuNamed = append(w.cpuNamed, false)
	}
	if w.cpuNamed[cpu] {
		return
	}
	w.cpuNamed[cpu] = true
	name := "cpu" + strconv.Itoa(cpu)
	if w.napi[cpu] {
		name += " (NAPI)"
	}
	w.meta("thread_name", TID(cpu), map[string]any{"name": name})
	w.meta("thread_sort_index", TID(cpu), map[string]any{"sort_index": cpu})
}

// meta writes an "M" event. Metadata is written whatever the cap (it is
// small and names the tracks the events already written are on); MinBytes
// leaves room for 8 CPUs'.
func (w *Writer) meta(name string, tid int, args map[string]any) {
	a, _ := json.Marshal(args)
	b := w.buf[:0]
	b = append(b, `{"name":"`...)
	b = append(b, name...)
	b = append(b, `","ph":"M","ts":0,"pid":`...)
	b = strconv.AppendInt(b, PID, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"args":`...)
	b = append(b, a...)
	b = append(b, '}')
	w.buf = b
	w.put(b)
}

// metaSize bounds one CPU's two metadata events, kept free under the cap
// for a CPU not seen yet.
const metaSize = 200

// room reports whether an event of up to eventMax bytes (and a CPU's
// metadata) still fits under the cap with the closing; else it counts the
// event dropped.
func (w *Writer) room() bool {
	if w.max > 0 && !w.full && w.written+eventMax+metaSize+w.reserve > w.max {
		w.full = true
	}
	if w.full {
		w.dropped++
		return false
	}
	return true
}

// eventMax bounds one event's bytes (an instant with a long function name).
const eventMax = 320

// Full reports whether the cap was reached: every event from here on is
// dropped (a caller replaying a run for the trace may stop).
func (w *Writer) Full() bool { return w.full }

// Dropped is the number of trace events the cap dropped.
func (w *Writer) Dropped() int64 { return w.dropped }

// Written is the number of bytes written so far.
func (w *Writer) Written() int64 { return w.written }

// Events is the number of trace events written (metadata included).
func (w *Writer) Events() int64 { return w.events }

// put writes one event (a comma first but for the first one).
func (w *Writer) put(b []byte) bool {
	if w.err != nil {
		return false
	}
	sep := ",\n"
	if w.first {
		sep, w.first = "\n", false
	}
	w.raw(sep)
	n, err := w.w.Write(b)
	w.written += int64(n)
	if err != nil {
		w.err = err
		return false
	}
	w.events++
	return true
}

func (w *Writer) raw(s string) {
	if w.err != nil {
		return
	}
	n, err := w.w.WriteString(s)
	w.written += int64(n)
	w.err = err
}

// Close samples the counters once more (a move after the last event), ends
// the JSON with otherData, flushes, and removes the tracer from the run.
// It returns the first write error.
func (w *Writer) Close() error {
	w.l.SetTracer(nil)
	w.sample(sim.Event{CPU: 0, TimePS: w.lastPS})
	w.raw(string(w.trailer(false)))
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	return w.err
}

// trailer is the closing: the end of traceEvents, displayTimeUnit and
// otherData. worst sizes it with every number at its widest (the reserve
// kept under the cap).
func (w *Writer) trailer(worst bool) []byte {
	od := make(map[string]any, len(w.other)+8)
	for k, v := range w.other {
		od[k] = v
	}
	snapOp, snapPackets, nowNS := w.l.Ops(), w.l.Packets(), w.l.TimeNS()
	counts := map[string]int64{}
	for k, v := range w.byName {
		counts[k] = v
	}
	ev, dropped := w.events, w.dropped
	if worst {
		const wide = 1<<63 - 1
		snapOp, snapPackets, nowNS, ev, dropped = 1<<64-1, wide, wide, wide, wide
		for _, n := range []string{NameAllocFast, NameAllocSlow, NameRecycleCache, NameRecycleRing, NameRelease} {
			counts[n] = wide
		}
	}
	od["to_op"], od["to_packets"], od["to_ns"] = snapOp, snapPackets, nowNS
	od["events_written"], od["events_dropped"], od["truncated"] = ev, dropped, dropped > 0 || worst
	od["instants"] = counts
	b, _ := json.Marshal(od)
	out := append([]byte("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":"), b...)
	return append(out, "}\n"...)
}

// funcName is s's name in the run's era, quoted (cached per symbol).
func (w *Writer) funcName(s sim.Sym) []byte {
	if q, ok := w.funcs[s]; ok {
		return q
	}
	q, _ := json.Marshal(s.NameIn(w.era))
	w.funcs[s] = q
	return q
}

// appendTS appends ps as microseconds, an exact decimal ("12.345678").
func appendTS(b []byte, ps int64) []byte {
	if ps < 0 {
		b = append(b, '-')
		ps = -ps
	}
	b = strconv.AppendInt(b, ps/1e6, 10)
	frac := ps % 1e6
	if frac == 0 {
		return b
	}
	b = append(b, '.')
	digits := strconv.AppendInt(nil, frac+1e6, 10)[1:] // 6 digits, zero-padded
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return append(b, digits...)
}
