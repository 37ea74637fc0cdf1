package session

import "math"

// Play: the browser calls Frame once per animation frame while Playing;
// the Session runs the engine for the frame's share of the speed and says
// whether the page should redraw.

// maxSliceMS is how long one frame may run the engine at max speed: the
// page's only thread must keep drawing.
const maxSliceMS = 10

// maxViewEveryMS: at max speed the view is redrawn at most this often (a
// redraw costs about as much as an engine slice).
const maxViewEveryMS = 50

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
	if sp.OpsPS == 0 { // max: the engine runs for the frame's slice (whole verified cycles the fast-forward skips included), the last op recorded
		t0 := s.now()
		l.RunWhile(math.MaxInt64, func() bool { return s.now()-t0 < maxSliceMS })
		if !l.Done() {
			l.Step()
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
	out.Heavy = s.now()-s.lastHeavy > heavyEveryMS
	if l.Done() {
		s.playing = false
		out.Heavy = true
	}
	out.Again = s.playing
	if !out.Heavy && (l.Ops() == ops0 || sp.OpsPS == 0 && s.now()-s.lastView < maxViewEveryMS) {
		return out // nothing ran, or at max speed: most frames only run the engine
	}
	s.lastView = s.now()
	s.refresh(out.Heavy)
	out.Draw = true
	return out
}
