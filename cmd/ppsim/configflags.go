package main

import (
	"flag"
	"strconv"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// configFlags are a run's config flags (--driver, --scenario, --era,
// --packets, --seed, --set, --break): `ppsim run` and the first side of
// `ppsim compare` take the same ones.
type configFlags struct {
	cfg           lab.Config
	packets, seed *string
	sets, breaks  multi
}

func addConfigFlags(fs *flag.FlagSet) *configFlags {
	c := &configFlags{}
	fs.StringVar(&c.cfg.Driver, "driver", "", "driver model")
	fs.StringVar(&c.cfg.Scenario, "scenario", "", "scenario")
	fs.StringVar(&c.cfg.Era, "era", "", "kernel era (default "+sim.DefaultEra+", or the first era the scenario runs in)")
	c.packets = fs.String("packets", strconv.Itoa(lab.DefaultPackets), "packets to run")
	c.seed = fs.String("seed", "1", "random seed")
	fs.Var(&c.sets, "set", "knob=value (repeatable)")
	fs.Var(&c.breaks, "break", "rule to break (repeatable)")
	return c
}

// parseNumbers reads --packets and --seed.
func (c *configFlags) parseNumbers() error {
	n, err := strconv.ParseInt(*c.packets, 10, 64)
	if err != nil || n < 1 || n > lab.MaxPackets {
		return bad("--packets %q: want an integer from 1 to %d", *c.packets, int64(lab.MaxPackets))
	}
	c.cfg.Packets = n
	s, err := strconv.ParseUint(*c.seed, 10, 64)
	if err != nil {
		return bad("--seed %q: want a non-negative integer", *c.seed)
	}
	c.cfg.Seed = s
	return nil
}

// config is the run's config, its knobs parsed (once, here: the config
// holds their values). The sizes are the kernel's (the drivers' own): a
// config sets only the knobs given, over the scenario's defaults; its URL
// form (Values) says so with sizes=kernel.
func (c *configFlags) config() (lab.Config, error) {
	cfg := c.cfg
	var err error
	if cfg.Knobs, err = sim.ParseOverrides(c.sets...); err != nil {
		return cfg, bad("%s", flagText(err))
	}
	cfg.Break = append([]string(nil), c.breaks...)
	return cfg, nil
}
