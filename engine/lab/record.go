package lab

import (
	"pplab/engine/sim"
)

// StepRecord is what one step (one Lab operation) did, as values: the
// operation, its events, every page move, the violations it found, and the
// counters before and after it.
type StepRecord struct {
	Op     OpInfo
	Events []sim.Event
	// Moves is every page move of the step, in order, recorded where every
	// move passes (mm.Page.MoveTo): a bulk refill or a coalesce that emits one
	// event (or none) still shows each page it moved.
	Moves         []MoveView
	Violations    []ViolationView   // found during the step (as kept by the log)
	NewViolations [sim.NumKinds]int // counts found during the step, per kind
	StatsBefore   sim.Stats
	Stats         sim.Stats // after the step
	// The undelivered-packet counters before the step (Snapshot's Lost,
	// RxMissed, AllocFailures after it).
	LostBefore, RxMissedBefore, AllocFailuresBefore int64
	PacketDone                                      bool // the step completed a packet
}

// OpInfo names one Lab operation.
type OpInfo struct {
	Index uint64 // 0-based: the state after it is Snapshot.Op == Index+1
	CPU   int
	Func  sim.Sym // the first kernel function the operation began with
	Name  string  // Func's kernel name in the Lab's era and driver (Lab.Source)
	Label string  // what the runner said it would do (Lab.Next before the step)
	Seq   uint64  // the machine's operation sequence number of Func's call
}

// MoveView is one page move.
type MoveView struct {
	PFN        int32
	From, To   string // places
	FromHolder Holder
	ToHolder   Holder
}

// recorder holds step-record state while recording is on.
type recorder struct {
	on      bool
	paused  bool // a batch run: no events built (unless the caller traces), no moves recorded
	events  []sim.Event
	label   string
	index   uint64
	packets int64
	logLen  int
	counts  [sim.NumKinds]int
	stats   sim.Stats
	// lost, rxMissed, allocFail: the undelivered-packet counters before the step
	lost, rxMissed, allocFail int64
	last                      StepRecord
	has                       bool
}

// Record turns step records on or off. While on, every Step builds a
// StepRecord (events and page moves are collected, which allocates); batch
// runs (Run, RunN, Seek's replay) never record and stay allocation-free.
func (l *Lab) Record(on bool) {
	l.rec.on = on
	l.rec.has = false
	l.rec.events = nil
	l.m.RecordMoves(on)
	l.listen()
}

// StepRecord returns the record of the last Step (ok=false when recording
// was off for it, or no step ran since recording began).
func (l *Lab) StepRecord() (StepRecord, bool) { return l.rec.last, l.rec.has }

// pauseRecord stops (on) and resumes (off) building events and recording
// moves around a batch run, so batch runs stay as cheap with recording on.
func (l *Lab) pauseRecord(on bool) {
	if !l.rec.on || l.rec.paused == on {
		return
	}
	l.rec.paused = on
	l.m.RecordMoves(!on)
	if on && l.tracer == nil {
		l.m.SetTracer(nil)
		l.tallyOn = false // the event stream misses the batch from here on
		return
	}
	l.listen()
}

func (l *Lab) stats() sim.Stats {
	var st sim.Stats
	l.reg.SumStats(&st) // the system pools' shared recycle stats once
	return st
}

func (l *Lab) beginRecord() {
	r := &l.rec
	l.m.MarkStep()
	l.m.TakeMoves() // moves outside a step (set-up, a seek) are not this step's
	r.events = r.events[:0]
	r.label, r.index, r.packets = l.Next(), l.ops, l.packets
	r.logLen, r.counts = len(l.m.Log.List), l.m.Log.Counts
	r.stats = l.stats()
	r.lost, r.rxMissed, r.allocFail = l.lost, l.rxMissed(), l.allocFailures()
}

func (l *Lab) endRecord() {
	r := &l.rec
	m := l.m
	rec := StepRecord{Op: OpInfo{Index: r.index, Label: r.label}, StatsBefore: r.stats, Stats: l.stats(),
		LostBefore: r.lost, RxMissedBefore: r.rxMissed, AllocFailuresBefore: r.allocFail,
		PacketDone: l.packets > r.packets}
	if op, ok := m.StepOp(); ok {
		rec.Op.CPU, rec.Op.Func, rec.Op.Name, rec.Op.Seq = op.CPU, op.Sym, l.Source(op.Sym).Name, op.Seq
	}
	rec.Events = append([]sim.Event(nil), r.events...)
	for _, mv := range m.TakeMoves() {
		rec.Moves = append(rec.Moves, MoveView{PFN: mv.PFN, From: mv.From.String(), To: mv.To.String(),
			FromHolder: holderAt(mv.From, mv.FromHolder), ToHolder: holderAt(mv.To, mv.ToHolder)})
	}
	for _, v := range m.Log.List[r.logLen:] {
		rec.Violations = append(rec.Violations, violationView(v))
	}
	for k := range rec.NewViolations {
		rec.NewViolations[k] = m.Log.Counts[k] - r.counts[k]
	}
	r.last, r.has = rec, true
}

// SourceLink is the link of Source(era, "", s): the definition of the kernel
// function s models in the source of the release the era follows ("" for
// what is not a kernel function of the era). Callers that know the driver
// (the driver symbols' names) or want the note use Source.
func SourceLink(era string, s sim.Sym) string { return Source(era, "", s).URL }
