package app

import (
	"fmt"
	"math"
	"slices"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The Playground's run: building it, stepping, playing, seeking, and
// keeping the derived views (snapshot, records, trace, series, results,
// the comparison run) in step with it.

// start reads the URL (config, step, comparison, speed) and builds the run;
// every bad parameter falls back to its default with a notice naming it.
func (p *Playground) start(ctx ga.Context) {
	q := ctx.Page().URL().Query()
	ui := uiParams{}
	cfgQ := ui.take(q)
	cfg := DefaultConfig()
	if len(cfgQ) > 0 {
		c, err := lab.ParseConfig(cfgQ)
		for _, e := range lab.FieldErrors(err) {
			p.banner = append(p.banner, bannerItem{"notice", "URL: " + e.Error() + " — using the default instead"})
		}
		if c.Scenario != "" {
			cfg = c
		}
	}
	for _, n := range ui.notices {
		p.banner = append(p.banner, bannerItem{"notice", "URL: " + n})
	}
	p.preset = "kernel"
	if hasTeaching(cfg) {
		p.preset = "teaching"
	}
	if err := p.build(cfg); err != nil {
		p.banner = append(p.banner, bannerItem{"notice", "URL: the configuration does not build (" + err.Error() + ") — using the default instead"})
		p.preset = "teaching"
		if err := p.build(DefaultConfig()); err != nil {
			panic("the default configuration does not build: " + err.Error())
		}
	}
	if ui.speed >= 0 {
		p.speed = ui.speed
	}
	if ui.cmp != "" {
		p.setCompare(ui.cmp)
	}
	if ui.step > 0 {
		p.lab.Seek(ui.step)
		if p.lab.Ops() < ui.step {
			p.banner = append(p.banner, bannerItem{"notice", fmt.Sprintf("URL: step=%d is past the end of the run (it ends at op %d)", ui.step, p.lab.Ops())})
		}
	}
	p.refresh(true)
	p.syncCompare()
	p.writeURL()
}

// build makes cfg the run (from op 0). On error the current run stays.
func (p *Playground) build(cfg lab.Config) error {
	l, err := lab.New(cfg)
	if err != nil {
		return err
	}
	l.EnableSeek()
	l.Record(true)
	p.lab, p.cfg, p.want = l, cfg, cfg
	p.errs = map[string]string{}
	p.hasRec, p.rec, p.recent, p.trace, p.maxOp = false, lab.StepRecord{}, nil, nil, 0
	p.selected = -1
	p.cmp = nil
	if p.cmpMode != "" {
		p.setCompare(p.cmpMode)
	}
	p.refresh(true)
	return nil
}

// refresh re-derives the views from the run. heavy also refreshes the
// series, results and the comparison (costly: done at most every
// heavyEveryMS while playing).
func (p *Playground) refresh(heavy bool) {
	l := p.lab
	p.snap = l.Snapshot()
	p.maxOp = max(p.maxOp, p.snap.Op)
	if rec, ok := l.StepRecord(); ok && (!p.hasRec || rec.Op.Index != p.rec.Op.Index || rec.Op.Seq != p.rec.Op.Seq) {
		p.rec, p.hasRec = rec, true
		p.recent = append(p.recent, rec)
		if len(p.recent) > recentSteps {
			p.recent = append(p.recent[:0], p.recent[len(p.recent)-recentSteps:]...)
		}
		for _, e := range rec.Events {
			p.trace = append(p.trace, e.TraceLine())
		}
		if len(p.trace) > traceLines {
			p.trace = append(p.trace[:0], p.trace[len(p.trace)-traceLines:]...)
		}
	}
	if p.selected >= 0 && !p.pageKnown(p.selected) && !p.selectedFree() {
		p.selected = -1
	}
	if heavy {
		p.series, _ = l.Series()
		p.results = l.Results()
		p.syncCompare()
		p.lastHeavy = now()
		p.heavySeq++
	}
	p.publish()
}

// stepOp runs one operation (recorded, full check).
func (p *Playground) stepOp() {
	if p.lab.Done() {
		return
	}
	start := now()
	p.lab.Step()
	p.refresh(true)
	p.writeURL()
	p.ctx.Defer(func(ga.Context) { p.perf.stepMS = now() - start; p.publish() })
}

// stepBack goes one operation back (a replay from the nearest keyframe).
func (p *Playground) stepBack() {
	if op := p.lab.Ops(); op > 0 {
		p.seek(op - 1)
	}
}

// stepPacket steps until an operation completes a packet.
func (p *Playground) stepPacket() {
	for i := 0; i < 10_000 && !p.lab.Done(); i++ {
		p.lab.Step()
		if rec, ok := p.lab.StepRecord(); ok && rec.PacketDone {
			break
		}
	}
	p.refresh(true)
	p.writeURL()
}

// seek brings the run to op n; the step record then describes op n.
func (p *Playground) seek(n uint64) {
	p.lab.Seek(n)
	if n == 0 {
		p.hasRec, p.rec = false, lab.StepRecord{}
	}
	p.refresh(true)
	p.writeURL()
}

// jumpTo shows a violation: the run at the operation that found it, its
// page selected.
func (p *Playground) jumpTo(j jump) {
	p.lab.SeekToSeq(j.Seq, p.maxOp)
	p.selected = j.PFN
	p.refresh(true)
	p.writeURL()
}

func (p *Playground) pause() { p.playing = false }

func (p *Playground) togglePlay() {
	if p.lab.Done() {
		p.playing = false
		return
	}
	p.playing = !p.playing
	p.carry, p.lastFrame = 0, now()
	if p.playing {
		p.queueFrame()
	} else {
		p.refresh(true)
		p.writeURL()
	}
}

func (p *Playground) setSpeed(i int) {
	if i < 0 || i >= len(speeds) {
		p.banner = append(p.banner, bannerItem{"notice", fmt.Sprintf("speed %d: want 0 to %d", i, len(speeds)-1)})
		return
	}
	p.speed = i
	p.writeURL()
}

// queueFrame asks for an animation frame (once).
func (p *Playground) queueFrame() {
	if p.frameQueued {
		return
	}
	p.frameQueued = true
	if p.raf == nil {
		p.raf = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
			ts := args[0].Float()
			p.ctx.Dispatch(func(ctx ga.Context) {
				p.frameQueued = false
				p.guard("play", func() { p.frame(ctx, ts) })
			})
			return nil
		})
	}
	ga.Window().Call("requestAnimationFrame", p.raf)
}

// maxSliceMS is how long one frame may run the engine at max speed: the
// page's only thread must keep drawing.
const maxSliceMS = 10

// maxViewEveryMS: at max speed the view is redrawn at most this often.
const maxViewEveryMS = 50

// frame runs one animation frame: a pending seek, or a slice of play.
func (p *Playground) frame(ctx ga.Context, ts float64) {
	if p.seekTo >= 0 {
		n := uint64(p.seekTo)
		p.seekTo = -1
		p.seek(n)
		return
	}
	if !p.playing {
		return
	}
	start := now()
	if p.lastFrame > 0 && ts > p.lastFrame {
		p.perf.intervalMS = ts - p.lastFrame
		p.perf.sumInterval += p.perf.intervalMS
		p.perf.intervals++
	}
	dt := math.Min(ts-p.lastFrame, 250)
	p.lastFrame = ts
	l := p.lab
	packets0 := l.Packets()
	sp := speeds[p.speed]
	switch {
	case sp.opsPS == 0: // max: the engine runs for the frame's slice of time (as many operations as fit, whole cycles the fast-forward skips included), the last op recorded
		t0 := now()
		l.RunWhile(math.MaxInt64, func() bool { return now()-t0 < maxSliceMS })
		if !l.Done() {
			l.Step()
		}
	default:
		p.carry += float64(sp.opsPS) * dt / 1000
		n := int64(p.carry)
		p.carry -= float64(n)
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
	engineMS := now() - start
	p.perf.engineMS = engineMS
	p.perf.playPackets += l.Packets() - packets0
	p.perf.playMS += math.Max(dt, engineMS)
	heavy := now()-p.lastHeavy > heavyEveryMS
	// At max speed the view redraws at about 20 Hz; the frames between
	// only run the engine (a redraw costs about as much as a slice).
	if sp.opsPS == 0 && !heavy && now()-p.lastView < maxViewEveryMS && !l.Done() {
		ctx.PreventUpdate()
		p.queueFrame()
		p.perf.frames++
		p.perf.lastFrameMS = now() - start
		return
	}
	p.lastView = now()
	p.refresh(heavy)
	if l.Done() {
		p.playing = false
		p.refresh(true)
	}
	if p.playing {
		p.queueFrame()
	}
	if now()-p.lastURL > 1000 || !p.playing {
		p.writeURL()
	}
	p.perf.frames++
	p.perf.lastFrameMS = now() - start
	rendered := now()
	p.ctx.Defer(func(ga.Context) {
		p.perf.renderMS = now() - rendered
		if !heavy {
			p.perf.lightRenderMS = p.perf.renderMS
		}
	})
	p.perf.maxFrameMS = math.Max(p.perf.maxFrameMS, p.perf.lastFrameMS)
	p.publish()
}

// setCompare sets the comparison run: the same config in another era.
func (p *Playground) setCompare(mode string) {
	p.cmpMode, p.cmp, p.cmpErr = mode, nil, ""
	p.cmpSeries, p.cmpResult = nil, lab.Results{}
	if mode == "" {
		p.writeURL()
		return
	}
	era, ok := strings.CutPrefix(mode, "era:")
	if !ok {
		p.cmpErr = fmt.Sprintf("compare %q: want era:NAME", mode)
		p.cmpMode = ""
		return
	}
	c := p.cfg
	c.Era = era
	l, err := lab.New(c)
	if err != nil {
		p.cmpErr = "comparison: " + err.Error()
		p.cmpMode = ""
		return
	}
	p.cmp = l
	p.syncCompare()
	p.writeURL()
}

// syncCompare runs the comparison as far as the run (in packets), bounded
// per call so that a frame stays short; it catches up over later frames.
func (p *Playground) syncCompare() {
	if p.cmp == nil || p.lab == nil {
		return
	}
	start := now()
	target := p.lab.Packets()
	if p.cmp.Packets() > target { // the run went back: start the comparison over
		c, err := lab.New(p.cmp.Cfg)
		if err != nil {
			p.cmpErr = err.Error()
			p.cmp = nil
			return
		}
		p.cmp = c
	}
	for p.cmp.Packets() < target && !p.cmp.Done() && now()-start < 6 {
		p.cmp.RunN(min(4096, 2*(target-p.cmp.Packets())+1))
	}
	p.cmpSeries, _ = p.cmp.Series()
	p.cmpResult = p.cmp.Results()
}

// changed is the PFNs the last step moved.
func (p *Playground) changed() []int32 {
	if !p.hasRec || p.rec.Op.Index+1 != p.snap.Op {
		return nil
	}
	var out []int32
	for _, m := range p.rec.Moves {
		if !slices.Contains(out, m.PFN) {
			out = append(out, m.PFN)
		}
	}
	return out
}

func (p *Playground) statsBefore() sim.Stats {
	if !p.hasRec || p.rec.Op.Index+1 != p.snap.Op {
		return p.snap.Stats
	}
	return p.rec.StatsBefore
}

func (p *Playground) pageKnown(pfn int32) bool {
	for _, pg := range p.snap.Pages {
		if pg.PFN == pfn {
			return true
		}
	}
	return false
}

func (p *Playground) selectedPage() lab.PageView {
	for _, pg := range p.snap.Pages {
		if pg.PFN == p.selected {
			return pg
		}
	}
	return lab.PageView{PFN: p.selected}
}

// selectedFree: the selected page is a real frame back in the allocator.
func (p *Playground) selectedFree() bool {
	if p.selected < 0 || p.pageKnown(p.selected) {
		return false
	}
	for _, r := range p.recent {
		for _, m := range r.Moves {
			if m.PFN == p.selected {
				return true
			}
		}
	}
	return false
}

func (p *Playground) selectedMoves() []pageMove {
	var out []pageMove
	for _, r := range p.recent {
		for _, m := range r.Moves {
			if m.PFN == p.selected {
				out = append(out, pageMove{Op: r.Op.Index, Label: r.Op.Label, From: placeHolder(m.From, m.FromHolder), To: placeHolder(m.To, m.ToHolder)})
			}
		}
	}
	return out
}

func (p *Playground) runErr() string {
	if err := p.lab.Err(); err != nil {
		return err.Error()
	}
	return ""
}

func (p *Playground) rateText() string {
	r := p.results
	if r.Rate.Value == 0 {
		return "— (still warming up: the rate counts once every RX buffer has cycled twice)"
	}
	s := fmt.Sprintf("%.1f %s (%.1f ns per packet on cpu%d)", r.Rate.Value, r.Rate.Unit, r.NsPerPacket, r.Bottleneck)
	if r.LinkBound {
		s += ", link-bound"
	}
	return s
}

func (p *Playground) statsNote() string {
	var notes []string
	if e, err := sim.EraByName(p.snap.Era); err == nil && !e.Stats {
		notes = append(notes, "Kernels expose these counters from 5.18 (CONFIG_PAGE_POOL_STATS); in this era they are what a stats-enabled pool would count.")
	}
	if _, skipped, period, _ := p.lab.FFStats(); skipped > 0 {
		notes = append(notes, fmt.Sprintf("Fast-forward: %d operations so far were added as whole cycles of %d operations, each cycle verified to repeat exactly, instead of one by one (knob fast_forward=0 simulates every one; the counters are the same either way).",
			skipped, period))
	}
	return strings.Join(notes, " ")
}

func (p *Playground) mainLabel() string { return "era " + p.snap.Era }

func (p *Playground) cmpLabel() string { return "era " + p.cmp.Cfg.Era + recyclingNote(p.cmp.Cfg.Era) }
