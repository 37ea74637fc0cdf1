package lab

import (
	"fmt"

	"pplab/engine/sim"
)

// Measurement is what a clean run spent in its measured window (the packets
// after the warm-up): the model's side of a perf top listing. It is all the
// what-if (engine/perf: calibration and predict) reads of a run.
type Measurement struct {
	// Packets is the packets completed in the measured window.
	Packets int64
	// SymbolNS is the nanoseconds per measured packet spent per profile
	// symbol over all CPUs: what a system-wide perf top attributes to each
	// symbol (Lab.SymbolNS).
	SymbolNS map[string]float64
	// FuncNS is the nanoseconds per measured packet spent in each modelled
	// function over all CPUs: the callers behind one profile symbol, apart.
	FuncNS map[sim.Sym]float64
	// SpentPS is the picoseconds spent in each modelled function in the
	// measured window, summed over all CPUs.
	SpentPS [sim.NumSyms]int64
	// ProfileName is the symbol a profile of this run shows for each
	// modelled function (Lab.ProfileName: the driver's name, else the
	// platform's).
	ProfileName [sim.NumSyms]string
}

// Measure runs cfg with cfg.Packets measured after the warm-up and returns
// what it spent. table is the platform's cost table to run on — calibration
// passes the one it is deriving — or nil for cfg.Platform's. A run the
// model's cost figures are read from must be clean: a run error or a
// violation is an error.
func Measure(cfg Config, table *sim.Platform) (Measurement, error) {
	cfg.plat = table
	l, err := measuredRun(cfg)
	if err != nil {
		return Measurement{}, err
	}
	m := Measurement{Packets: l.measuredPackets(), SymbolNS: l.SymbolNS(), FuncNS: l.symNS()}
	for s := sim.Sym(1); s < sim.NumSyms; s++ {
		m.ProfileName[s] = l.ProfileName(s)
		for cpu := range l.m.CPUs {
			m.SpentPS[s] += l.measuredSpentPS(cpu, s)
		}
	}
	return m, nil
}

// measuredRun runs cfg with cfg.Packets measured after the warm-up; a run
// the model's cost figures are read from must be clean.
func measuredRun(cfg Config) (*Lab, error) {
	l, err := New(cfg)
	if err != nil {
		return nil, err
	}
	l.cfg.Packets += l.run.warmup()
	l.Run()
	if l.Err() != nil {
		return nil, l.Err()
	}
	if n := l.m.Log.Total(); n != 0 {
		return nil, fmt.Errorf("%d violations in the %s/%s run in era %s: %v", n, cfg.Driver, cfg.Scenario, cfg.Era, l.m.Log.List[0])
	}
	return l, nil
}
