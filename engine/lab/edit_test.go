package lab

import (
	"pplab/engine/sim"
)

// teaching is the teaching preset's knobs for scenario with the
// assignments set over them (as --set takes them).
func teaching(scenario string, set ...string) sim.KnobOverrides {
	cfg, err := Preset(PresetTeaching, scenario)
	if err != nil {
		panic(err)
	}
	return cfg.Knobs.Merge(sim.MustOverrides(set...))
}
