package lab

import (
	"fmt"
	"time"

	"pplab/engine/lab/internal/fastforward"
	"pplab/engine/sim"
)

// Seeking. A run is a pure function of its config, so the state after
// operation n is always the same; Seek reaches it by batch-replaying from
// the nearest keyframe (a full copy of the run taken every `every`
// operations) instead of from the start, then runs one full invariant check.
//
// What is identical: the machine's state (pages, pools, skbs, NIC ring,
// counters, clocks, costs) after Seek(n) is the state a straight run
// reaches after n operations, whatever mix of Step, RunN and Seek led there.
// The violation log records when the checker found a violation, so it is a
// function of the op count only if every path checks at the same
// operations: a seekable Lab with a rule broken, or a scenario failing in
// its era as the kernel did (split-page in 5.14), runs (checkEach) the full
// check after every operation on every path — Step, batch runs, the replay
// here — as step mode does, and never checks a state twice; a keyframe is
// taken after its operation's checks and holds the log. The log after op n
// (every entry's kind, page, rule, operation and At) is then the same for
// Step×n, Seek(n) on a fresh Lab, Seek(n) back from a later op, Seek(n-1)
// then Step, and ReplayTo (TestViolationLog_SameOnEveryPath). Any other
// run has nothing to find, and its batch runs keep their sampled checks
// (per-page checks inline, the light check every 64 operations).
// The cost of checkEach is the full check's (it walks every page): see the
// README's Seam bullet.

// keyframes is the Lab's bounded set of copies of itself.
type keyframes struct {
	on     bool
	every  uint64
	frames []*Lab // frames[i] is the run after frames[i].ops operations, ascending

	// Copying costs time (about the page array's size): a copy is taken only
	// when the run since the last one took at least copyRatio times as long,
	// else the interval doubles. Where keyframes sit never changes what a
	// seek returns, only how long it takes.
	lastAt   time.Time
	copyCost time.Duration
}

// copyRatio bounds the time keyframes take to 1/copyRatio of the run's.
const copyRatio = 8

// Keyframes bounds: at most maxKeyframes copies; when full, every other one
// is dropped and the interval doubles, so the frames always cover the run
// so far evenly. A copy is about the size of the page array (≈1.3 MB at the
// default 16384 pages per node).
const (
	maxKeyframes   = 16
	firstKeyframes = 4096
)

// EnableSeek makes Seek cheap: the Lab keeps keyframes from now on (the
// first one is the current state, unless that is the run's start: Seek
// rebuilds the start with New, as a config that built once builds the same
// again, and a copy of it would cost the page's first view a copy of the
// whole run, 70 ms in a browser that has not compiled the copier yet).
// Without it Seek replays from a fresh copy of the run's start. The CLI's
// batch runs do not need it. In a run that can report violations (a rule
// broken, or the era's known failure of the scenario) it also makes every
// path check fully after each operation (checkEach), so it must come
// before the first operation then: the log so far would have been checked
// otherwise (a precondition panic).
func (l *Lab) EnableSeek() {
	if l.kf.on {
		return
	}
	if l.canFail && l.ops > 0 {
		panic(fmt.Sprintf("lab: EnableSeek after %d operations of a run that can report violations (a rule broken, or a known failure of the era): the log so far comes from batch mode's sampled checks, not the full check after every operation a seekable run makes; enable seeking before the first operation", l.ops))
	}
	l.kf = keyframes{on: true, every: firstKeyframes}
	if l.ops > 0 {
		l.kf.capture(l)
	}
}

// capture adds a copy of l as a keyframe (unless one exists at l.ops).
func (k *keyframes) capture(l *Lab) {
	if n := len(k.frames); n > 0 && k.frames[n-1].ops >= l.ops {
		return
	}
	if len(k.frames) > 0 && time.Since(k.lastAt) < copyRatio*k.copyCost {
		k.every *= 2 // the run is fast next to a copy: space the copies out
		return
	}
	start := time.Now()
	k.frames = append(k.frames, l.clone())
	k.lastAt = time.Now()
	k.copyCost = k.lastAt.Sub(start)
	if len(k.frames) > maxKeyframes {
		kept := k.frames[:1]
		for i := 2; i < len(k.frames); i += 2 {
			kept = append(kept, k.frames[i])
		}
		clear(k.frames[len(kept):])
		k.frames = kept
		k.every *= 2
	}
}

// nearest is the latest keyframe at or before op n (nil: none).
func (k *keyframes) nearest(n uint64) *Lab {
	var best *Lab
	for _, f := range k.frames {
		if f.ops <= n {
			best = f
		}
	}
	return best
}

// clone is a deep copy of the run: stepping either never changes the other.
// The copy has no listener, no step records and no keyframes of its own.
func (l *Lab) clone() *Lab {
	saved := l.detach()
	c := new(Lab)
	schema.Copy(c, l, l.a.Pages())
	c.ffInit() // a copy searches afresh (the state is not the copier's to share)
	l.attach(saved)
	return c
}

// restore makes l the run kf holds (a deep copy: kf stays as it is), keeping
// l's listener, recording and keyframes.
func (l *Lab) restore(kf *Lab) {
	saved := l.detach()
	kfFF := kf.ff // a fresh start (New) has one; keyframes do not
	kf.ff = fastforward.State{}
	schema.Copy(l, kf, kf.a.Pages())
	kf.ff = kfFF
	l.attach(saved)
	l.tallyOn = false // the event stream missed what the replay did
	l.ff.Restored(l.host())
}

// observers is what belongs to whoever watches the run rather than to the
// run: the listener, the step records, the keyframes, and the
// fast-forward's state (which a copy must not share). A copy or a restore
// detaches them around the copy and attaches them again after.
type observers struct {
	tracer func(sim.Event)
	rec    recorder
	kf     keyframes
	ff     fastforward.State
	mk     markerTrack
}

func (l *Lab) detach() observers {
	s := observers{tracer: l.tracer, rec: l.rec, kf: l.kf, ff: l.ff, mk: l.mk}
	l.tracer, l.rec, l.kf, l.ff, l.mk = nil, recorder{}, keyframes{}, fastforward.State{}, markerTrack{}
	l.m.SetTracer(nil)
	return s
}

func (l *Lab) attach(s observers) {
	l.tracer, l.rec, l.kf, l.ff, l.mk = s.tracer, s.rec, s.kf, s.ff, s.mk
	l.m.RecordMoves(l.rec.on)
	l.listen()
	l.markerAttached()
}

// Seek brings the run to the state after operation n (or to its end, if it
// ends sooner): forward by batch replay (from the nearest keyframe when it
// lies ahead and every operation is checked fully, checkEach), backward
// from the nearest keyframe (or the run's start). It then runs the full
// invariant check (unless every operation was checked as it ran:
// checkEach); with recording on, the last operation is stepped so
// StepRecord describes it (the keyframe restored is one before it, even
// when one sits at n).
// A config that built once builds again, so Seek cannot fail; an error that
// stops the run stops it at the same operation as a straight run (Err).
func (l *Lab) Seek(n uint64) {
	last := n // the batch replay's end: with recording on, op n is stepped
	if l.rec.on && n > 0 {
		last = n - 1
	}
	switch kf := l.kf.nearest(last); {
	case n < l.ops:
		if kf == nil {
			start, err := New(l.cfg)
			if err != nil {
				panic("lab: Seek: a config that built once failed to build: " + err.Error()) // cannot happen: New is deterministic
			}
			kf = start
		}
		l.restore(kf)
	case kf != nil && kf.ops > l.ops && l.checkEach():
		// Forward past a keyframe: where every operation is checked fully
		// (≈0.1 ms each), restoring the copy is cheaper than replaying to it.
		l.restore(kf)
	}
	if last > l.ops {
		l.runBatch(int64(last-l.ops), nil)
	}
	if l.rec.on && l.ops < n && !l.done {
		l.Step() // runs the full check
		return
	}
	if !l.checkEach() { // else every operation was checked as it ran
		l.fullCheck()
		l.stampLog()
	}
}

// RunToPackets runs l forward in batch to the first operation at which it
// has received packets packets (or to its end), as Seek would bring a run
// there: fully checked at the end (every operation on the way, for a run
// that checks each). A run already past it stays where it is. It returns
// the packets received.
func (l *Lab) RunToPackets(packets int64) int64 {
	l.runToPackets(packets)
	if !l.checkEach() {
		l.fullCheck()
		l.stampLog()
	}
	return l.packets
}

// runToPackets is RunToPackets without the closing check. An operation
// completes at most one packet, a skipped cycle at most one per operation
// it skips: running as many operations as packets are missing never goes
// past the first operation that completes the last of them.
func (l *Lab) runToPackets(packets int64) {
	for l.packets < packets && l.runBatch(packets-l.packets, nil) {
	}
}

// OpAtPackets is the first operation count at which the run of cfg has
// received packets packets (packets 0: op 0), or its last operation when it
// ends sooner; got is the packets received there. A front end that goes
// back to a packet Seeks to op. The run is a batch run of its own (a run
// is a pure function of its config, so the count is the one stepping
// finds); cfg must build.
func OpAtPackets(cfg Config, packets int64) (op uint64, got int64) {
	l, err := New(cfg)
	if err != nil {
		panic("lab: OpAtPackets: " + err.Error())
	}
	l.runToPackets(packets)
	return l.ops, l.packets
}
