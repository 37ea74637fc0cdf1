package session

import "math"

// Play: the browser calls Frame once per animation frame while Playing;
// the Session runs the engine for the frame's share of the speed and says
// whether the page should redraw.

// At max speed a frame that does not redraw runs the engine until
// frameMS − browserMS after the frame's timestamp (at most maxSliceMS, at
// least minSliceMS). The page has one thread and the browser calls the
// next animation frame at the next vsync, so a fixed slice shorter than
// the frame leaves the rest of it idle (8 ms slices kept max-speed
// tcp-stream at ~0.35 M packets/s), and one that ends after the vsync
// loses a whole frame. The target is a 60 Hz frame whatever the display
// (on a 120 Hz display every other vsync); browserMS leaves the browser
// time for input, style and paint, and a key or click waits at most one
// slice.
const (
	frameMS    = 1000.0 / 60
	browserMS  = 3
	maxSliceMS = 13
	minSliceMS = 2
)

// At max speed the view is redrawn every drawShare redraws' worth of time
// (DrawCost: what the last redraws cost the browser, frame to frame), but
// never more often than every minViewEveryMS (20 a second) nor less often
// than every maxViewEveryMS (unless a redraw costs more than half of that:
// then every second redraw's worth); the series, results and charts are refreshed
// every maxHeavyEveryMS (at the other speeds heavyEveryMS). A redraw that
// fits in its frame (the teaching sizes: ~10 ms of script, then style and
// paint) costs the engine that one frame, and is given every
// cheapDrawShare-th frame: 20 redraws a second at 60 Hz, the engine two
// thirds of the frames (with every fourth frame vsync's jitter kept it
// under 15 a second: 12.7–14.5 measured). An expensive one (a
// kernel-size machine: two to three frames) is given every drawShare-th
// share of the time, which leaves the engine three quarters of it.
const (
	minViewEveryMS  = 50
	maxViewEveryMS  = 250
	cheapDrawMS     = 1.5 * frameMS
	cheapDrawShare  = 3
	drawShare       = 4
	maxHeavyEveryMS = 1000
)

// DrawCost tells the session what a redraw while playing cost (ms, from
// the redrawing frame's start to the next frame's): the redraw interval at
// max speed follows it (a moving average of the last few).
func (s *Session) DrawCost(ms float64) {
	if !(ms > 0) {
		return
	}
	if s.drawCost == 0 {
		s.drawCost = ms
	}
	s.drawCost += (ms - s.drawCost) / 4
}

// Redraws reports what a redraw costs (DrawCost's moving average, ms; 0
// before the first) and the redraw interval at max speed that follows.
func (s *Session) Redraws() (costMS, everyMS float64) {
	return s.drawCost, s.viewEveryMS()
}

// viewEveryMS is the redraw interval at max speed.
func (s *Session) viewEveryMS() float64 {
	if s.drawCost == 0 {
		return maxViewEveryMS
	}
	share := float64(drawShare)
	if s.drawCost <= cheapDrawMS {
		share = cheapDrawShare
	}
	// The ceiling keeps a dear redraw's view fresh, but never below twice
	// the redraw's cost: at 250 ms a redraw of ~250 ms (a loaded machine,
	// a kernel-size machine cold) made every frame after one a redraw, and
	// the engine got one slice per redraw (a trial: 4 redraws/s and 0.2–0.4
	// M packets/s). At twice the cost the engine keeps half the time.
	return min(max(share*s.drawCost, minViewEveryMS), max(maxViewEveryMS, 2*s.drawCost))
}

// FrameResult says what a frame did.
type FrameResult struct {
	Ran    int64 // packets simulated
	Draw   bool  // the view changed: render it
	Heavy  bool  // series, results and charts were refreshed too
	Again  bool  // still playing: ask for another frame
	Engine float64
}

// Frame runs one animation frame of play at timestamp ts (ms).
func (s *Session) Frame(ts float64) FrameResult {
	var out FrameResult
	if !s.playing {
		s.toEnd = false
		return out
	}
	start := s.now()
	dt := math.Min(ts-s.lastFrame, 250)
	if s.lastFrame == 0 || dt < 0 {
		dt = 0
	}
	s.lastFrame = ts
	l := s.lab
	packets0, ops0 := l.Packets(), l.Ops()
	sp := Speeds[s.speed]
	if s.toEnd { // RunToEnd: max speed (a pause or a step clears it with playing)
		sp = Speeds[len(Speeds)-1]
	}
	// What this frame redraws is decided before it runs: at max speed only
	// a redrawing frame ends with a recorded, fully checked step, so that
	// the state shown is always a recorded and checked one.
	heavyEvery := float64(heavyEveryMS)
	if sp.OpsPS == 0 {
		heavyEvery = maxHeavyEveryMS
	}
	out.Heavy = start-s.lastHeavy > heavyEvery
	// Frames come at vsync, so the interval is met to within half a frame:
	// a redraw that costs one frame redraws every cheapDrawShare-th frame
	// (20 a second at 60 Hz), not every (cheapDrawShare+1)-th, which a
	// strict comparison with 3 × 16.7 ms would wait for.
	draw := out.Heavy || sp.OpsPS != 0 || start-s.lastView >= s.viewEveryMS()-frameMS/2
	if sp.OpsPS == 0 {
		// max: a frame that does not redraw runs the engine for a slice
		// (whole verified cycles the fast-forward skips included), leaving
		// the check to the batch's own schedule (per page, every 64
		// operations, every check_every) and to the next redraw's step. A
		// frame that redraws runs that one recorded, fully checked step and
		// spends the rest of itself drawing: a redraw of a kernel-size
		// machine takes one to two frames on its own.
		if draw {
			if !l.Done() {
				l.Step()
			}
		} else {
			// The engine asks more() every 64 operations (~50 µs); the
			// clock is read at every fourth (a read is a call into
			// JavaScript, ~3 µs).
			t0 := s.now()
			end := min(t0+maxSliceMS, max(ts+frameMS-browserMS, t0+minSliceMS))
			asked := 0
			l.RunSlice(math.MaxInt64, func() bool {
				asked++
				return asked%4 != 0 || s.now() < end
			})
		}
		if l.Done() {
			// The run ended inside a batch slice: its last operation was
			// not recorded, and the narration would show whichever one
			// the last redraw recorded (an op that depends on the frame
			// timing), where the link to this state (step=N) opens on op
			// N itself. Record it as that link's open does: from the
			// operation before it (a keyframe and a short replay), one
			// recorded step.
			if rec, ok := l.StepRecord(); !ok || rec.Op.Index+1 != l.Ops() {
				if n := l.Ops(); n > 0 {
					l.Seek(n - 1)
					l.Step()
				}
			}
			l.FinalCheck()
		}
	} else {
		s.carry += float64(sp.OpsPS) * dt / 1000
		n := int64(s.carry)
		s.carry -= float64(n)
		n = min(n, 1<<20)
		switch {
		case n <= 0:
		case n <= 4:
			for i := int64(0); i < n && l.Step(); i++ {
			}
		default:
			l.RunN(n - 1)
			l.Step()
		}
	}
	out.Ran = l.Packets() - packets0
	out.Engine = s.now() - start
	if l.Done() {
		s.playing, s.toEnd, out.Heavy, draw = false, false, true, true
	}
	out.Again = s.playing
	if !draw || !out.Heavy && l.Ops() == ops0 {
		return out // at max speed most frames only run the engine; at a slow speed, a frame may run nothing
	}
	s.lastView = s.now()
	s.refresh(out.Heavy)
	out.Draw = true
	return out
}
