package diagnose

import (
	"encoding/json"
	"fmt"
	"io"

	"pplab/engine/sim"
)

// The sweep is deterministic: the site generator writes it once, when the
// site is built, as a file beside app.wasm (SweepFileName), and the
// diagnosis page loads it instead of running the model for seconds on the
// browser's one thread. The file is what Sweep computes, made by this code
// from the same build as the page, so it is fresh by construction;
// LoadSweep still checks that its runs are the runs this build sweeps
// (sweepConfigs, by their URL form) and refuses a file that is not, and
// the page then sweeps itself.

// SweepFileName is the file's name under the site's web/ directory.
const SweepFileName = "diagnose-sweep.json"

// sweepFile is the file's form: every config the sweep runs, in its order,
// by its playground URL's query (lab.Config.Values().Encode()), with its 11
// counters in sim.Stat order (and its driver's RX page cache's 5, in
// CacheNames order, when it has one).
type sweepFile struct {
	Doc     string    `json:"doc"`
	Packets int       `json:"packets"`
	Runs    []sweepFR `json:"runs"`
}

type sweepFR struct {
	Config string               `json:"config"`
	Stats  [sim.NumStats]uint64 `json:"stats"`
	Warm   [sim.NumStats]uint64 `json:"warm"`
	// Cache and CacheWarm: the driver's RX page cache's counters
	// (Candidate.Cache), only for a run that has one.
	Cache     []uint64 `json:"cache,omitempty"`
	CacheWarm []uint64 `json:"cache_warm,omitempty"`
	// LeftOut: the config did not build or its run failed, and Sweep
	// leaves it out (listed, so that the file names every config swept).
	LeftOut bool `json:"left_out,omitempty"`
}

// WriteSweep writes the sweep (Sweep: running the model if this process
// has not yet) in the file's form.
func WriteSweep(w io.Writer) error {
	f := sweepFile{Doc: "pplab's diagnosis sweep: every scenario × driver × era the diagnosis compares a paste with, and its page_pool counters (engine/diagnose Sweep); written when the site is built", Packets: SweepPackets}
	ran := map[string]Candidate{}
	for _, c := range Sweep() {
		ran[c.Config.Values().Encode()] = c
	}
	for _, cfg := range sweepConfigs() {
		k := cfg.Values().Encode()
		c, ok := ran[k]
		fr := sweepFR{Config: k, Stats: c.Stats, Warm: c.Warm, LeftOut: !ok}
		if c.Cache != (CacheStats{}) || c.CacheWarm != (CacheStats{}) {
			fr.Cache, fr.CacheWarm = c.Cache[:], c.CacheWarm[:]
		}
		f.Runs = append(f.Runs, fr)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// DecodeSweep reads a sweep file: its runs, as Candidates of this build's
// sweep configs, in Sweep's order; an error when the file's runs are not
// exactly the runs this build sweeps.
func DecodeSweep(b []byte) ([]Candidate, error) {
	var f sweepFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %v", SweepFileName, err)
	}
	if f.Packets != SweepPackets {
		return nil, fmt.Errorf("%s: runs of %d packets, this build sweeps %d", SweepFileName, f.Packets, SweepPackets)
	}
	cfgs := sweepConfigs()
	if len(f.Runs) != len(cfgs) {
		return nil, fmt.Errorf("%s: %d runs, this build sweeps %d: a file of another build", SweepFileName, len(f.Runs), len(cfgs))
	}
	var out []Candidate
	for i, cfg := range cfgs {
		r := f.Runs[i]
		if r.Config != cfg.Values().Encode() {
			return nil, fmt.Errorf("%s: run %d is %s, this build sweeps %s there: a file of another build", SweepFileName, i+1, r.Config, cfg.Values().Encode())
		}
		if r.LeftOut {
			continue
		}
		c := Candidate{Config: cfg, Stats: r.Stats, Warm: r.Warm}
		if len(r.Cache) != 0 || len(r.CacheWarm) != 0 {
			if len(r.Cache) != NumCacheStats || len(r.CacheWarm) != NumCacheStats {
				return nil, fmt.Errorf("%s: run %d (%s): %d and %d RX cache counters, want %d: a file of another build", SweepFileName, i+1, r.Config, len(r.Cache), len(r.CacheWarm), NumCacheStats)
			}
			copy(c.Cache[:], r.Cache)
			copy(c.CacheWarm[:], r.CacheWarm)
		}
		out = append(out, c)
	}
	return out, nil
}

// LoadSweep installs a sweep file's runs as the process's sweep (Sweep
// and every Sweeper then return them, the model is not run); it reports
// an error, and installs nothing, for a file DecodeSweep refuses or when
// the process already has its sweep.
func LoadSweep(b []byte) error {
	runs, err := DecodeSweep(b)
	if err != nil {
		return err
	}
	done := false
	sweepOnce.Do(func() { sweep, done = runs, true })
	if !done {
		return fmt.Errorf("the sweep was made already")
	}
	installed = true
	return nil
}
