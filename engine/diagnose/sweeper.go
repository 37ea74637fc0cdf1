package diagnose

import (
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// A Sweeper makes the sweep Sweep makes, in slices a caller bounds: the
// browser runs the model on its one thread, and a sweep of a few seconds
// in one piece would freeze the page (no input, no paint) until it ends.
// Each Work call runs the model until more says stop (asked every 64
// operations, lab.RunSlice), so a slice lasts about as long as the caller
// allows; the runs, their order and their counters are Sweep's. When the
// last run ends the Sweeper installs its runs as the process's sweep, and
// Sweep (so Nearest and DiagnosePaste) returns them without running the
// model again.
type Sweeper struct {
	cfgs      []lab.Config
	i         int
	cur       *lab.Lab
	warm      *sim.Stats // the current run's Warm, once taken
	cacheWarm CacheStats
	out       []Candidate
	own       []Candidate // the runs this Sweeper made (out is the process's sweep once installed)
	done      bool
}

// installed: a Sweeper installed the process's sweep (Sweep then returns
// it at once).
var installed bool

// Swept reports whether the sweep runs era e: every era with page_pool
// stats up to 6.8, and after it the longterm releases and the newest era
// (6.12, 6.18, 7.1). Each era after 6.8 is the one before it plus its own
// change (sim.Era), so a swept era carries the mechanisms of the eras it
// skips (6.12 has 6.9's system pools and 6.10's locality, 6.18 has 6.16's
// DMA tracking); the skipped ones would make the sweep 834 runs instead
// of 486 for counter shapes their neighbours already show.
func Swept(e *sim.Era) bool {
	last := &sim.Eras[len(sim.Eras)-1]
	return e.Stats && (!e.SystemPool || e.LTS || e == last) // !SystemPool: before 6.9
}

// sweepConfigs are the sweep's runs, in Sweep's order: every scenario on
// every driver that runs it, in every era Swept, at the
// drivers' own sizes, SweepPackets packets; configs that do not validate
// are left out as Sweep leaves them out.
func sweepConfigs() []lab.Config {
	var out []lab.Config
	list := lab.List()
	for _, sc := range list.Scenarios {
		drvs := sc.Drivers
		if len(drvs) == 0 {
			drvs = []string{""}
		}
		for _, d := range drvs {
			for _, e := range sc.Eras {
				era, err := sim.EraByName(e)
				if err != nil || !Swept(era) {
					continue
				}
				cfg, err := lab.Preset(lab.PresetKernel, sc.Name)
				if err != nil {
					continue
				}
				cfg.Driver, cfg.Era, cfg.Packets = d, e, SweepPackets
				if cfg.Validate() != nil {
					continue
				}
				out = append(out, cfg)
			}
		}
	}
	return out
}

// NewSweeper starts a sweep in slices; when a Sweeper already installed
// the process's sweep, it is done from the start.
func NewSweeper() *Sweeper {
	if installed {
		return &Sweeper{done: true, out: sweep}
	}
	return &Sweeper{cfgs: sweepConfigs()}
}

// Done reports whether the sweep is complete (and installed): this
// Sweeper's, or one LoadSweep installed.
func (w *Sweeper) Done() bool {
	w.adopt()
	return w.done
}

// adopt ends the Sweeper when the process's sweep was installed from
// elsewhere (LoadSweep) while it ran.
func (w *Sweeper) adopt() {
	if installed && !w.done {
		w.done, w.out, w.cur = true, sweep, nil
	}
}

// Progress is the runs finished and the runs in all.
func (w *Sweeper) Progress() (done, total int) {
	w.adopt()
	if w.done {
		return len(w.out), len(w.out)
	}
	return w.i, len(w.cfgs)
}

// Work runs the sweep until more returns false (asked every 64 operations
// of a run and between runs; nil: to the end) and reports whether it is
// done.
func (w *Sweeper) Work(more func() bool) bool {
	w.adopt()
	w.run(more)
	if !w.done && w.i == len(w.cfgs) {
		w.install()
	}
	return w.done
}

// run makes the runs until more says stop or the last ends.
func (w *Sweeper) run(more func() bool) {
	for !w.done {
		if w.i == len(w.cfgs) {
			break
		}
		if w.cur == nil {
			l, err := lab.New(w.cfgs[w.i])
			if err != nil {
				w.i++ // Sweep leaves out a config that does not build
				continue
			}
			w.cur, w.warm, w.cacheWarm = l, nil, CacheStats{}
		}
		l := w.cur
		if !l.Done() && l.Err() == nil {
			// Warm is taken at the first check point at or after
			// WarmPackets: the points are the run's own (every 64th
			// operation), so slices of any length take it at the same
			// operation.
			l.RunSlice(-1, func() bool {
				if w.warm == nil && l.Packets() >= WarmPackets {
					r := l.Results()
					st := r.Stats
					w.warm, w.cacheWarm = &st, cacheOf(r.DriverStats)
				}
				return more == nil || more()
			})
		}
		if l.Done() || l.Err() != nil {
			l.FinalCheck() // as Run ends
			if l.Err() == nil {
				r := l.Results()
				c := Candidate{Config: w.cfgs[w.i], Stats: r.Stats, Cache: cacheOf(r.DriverStats)}
				c.Warm, c.CacheWarm = c.Stats, c.Cache
				if w.warm != nil {
					c.Warm, c.CacheWarm = *w.warm, w.cacheWarm
				}
				w.out = append(w.out, c)
			}
			w.cur, w.warm, w.cacheWarm = nil, nil, CacheStats{}
			w.i++
		}
		if more != nil && !more() {
			break
		}
	}
}

func (w *Sweeper) install() {
	w.done = true
	out := w.out
	w.own = out
	sweepOnce.Do(func() { sweep = out })
	w.out = sweep // Sweep ran first: its runs (the same)
	installed = true
}
