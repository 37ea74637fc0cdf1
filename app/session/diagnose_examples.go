package session

import (
	"fmt"
	"strconv"
	"strings"

	"pplab/engine/diagnose"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The /diagnose page's examples: each is the output of a model run in one
// of the formats the page reads (the run's own ethtool -S, ynl dumps,
// ynltool), made when it is asked for — never a hand-written sample. Each
// names the run in a shell comment on its command line (a line before the
// output that is neither a command nor output would make the parser take a
// ynl dump for ethtool -S). A run is the sweep's kind of run (the drivers'
// own sizes, diagnose.SweepPackets packets, in the playground's default
// era, which the sweep covers), so its diagnosis finds it at distance 0.

// DiagnoseExample is one example the page offers.
type DiagnoseExample struct {
	Name, Label      string
	Scenario, Driver string // the model run it comes from ("" driver: the scenario's default)
}

// DiagnoseExamples are the examples, in the order the page offers them.
var DiagnoseExamples = []DiagnoseExample{
	{"ethtool", "ethtool -S (clone-tap on bnxt)", "clone-tap", "bnxt"},
	{"snapshots", "two ethtool -S snapshots (tcp-stream on bnxt) + interval", "tcp-stream", "bnxt"},
	// netlink lists only pools linked to their netdev (bnxt, mlx5, lunar).
	{"ynl", "ynl page-pool-get + page-pool-stats-get (xdp-tx on mlx5)", "xdp-tx", "mlx5"},
	{"ynl-json", "ynl page-pool-stats-get --output-json (forward on lunar)", "forward", "lunar"},
	{"ynltool", "ynltool page-pool stats (drop on mlx5)", "drop", "mlx5"},
}

// Example is example name's text and the interval it comes with ("" for
// none); ok is false for an unknown name.
func Example(name string) (text, interval string, ok bool) {
	var ex DiagnoseExample
	for _, e := range DiagnoseExamples {
		if e.Name == name {
			ex, ok = e, true
		}
	}
	if !ok {
		return "", "", false
	}
	cfg, err := lab.Preset(lab.PresetKernel, ex.Scenario)
	if err != nil {
		return "", "", false
	}
	cfg.Era, cfg.Packets, cfg.Driver = sim.DefaultEra, diagnose.SweepPackets, ex.Driver
	l, err := lab.New(cfg)
	if err != nil {
		return "", "", false
	}
	var b strings.Builder
	drv := cfg.Driver
	if drv == "" {
		drv = l.Results().Driver
	}
	note := fmt.Sprintf("   # pplab example: the model's run of %s on %s, era %s, %d packets (simulated, not a measurement)\n", cfg.Scenario, drv, cfg.Era, cfg.Packets)
	switch name {
	case "snapshots":
		// The first snapshot a tenth of the way in: the pool warm, most of
		// the run between the two (at half way the steady state alone sat
		// nearer clone-tap's whole runs than its own, once 7.3's bnxt
		// joined the sweep).
		first := cfg.Packets / 10
		l.RunWhile(-1, func() bool { return l.Packets() < first })
		t0 := l.TimeNS()
		b.WriteString("$ ethtool -S eth0" + note)
		l.Results().WriteEthtool(&b)
		l.Run()
		dt := float64(l.TimeNS()-t0) / 1e9
		fmt.Fprintf(&b, "# %.6f s of simulated time later (the interval field):\n", dt)
		b.WriteString("$ ethtool -S eth0\n")
		l.Results().WriteEthtool(&b)
		return b.String(), strconv.FormatFloat(dt, 'g', 6, 64), true
	}
	l.Run()
	y := l.YNL()
	switch name {
	case "ethtool":
		b.WriteString("$ ethtool -S eth0" + note)
		l.Results().WriteEthtool(&b)
	case "ynl":
		b.WriteString("$ ynl --family netdev --dump page-pool-get" + note)
		y.WritePagePoolGet(&b, false)
		b.WriteString("$ ynl --family netdev --dump page-pool-stats-get\n")
		y.WritePagePoolStatsGet(&b, false)
	case "ynl-json":
		b.WriteString("$ ynl --family netdev --dump page-pool-stats-get --output-json" + note)
		y.WritePagePoolStatsGet(&b, true)
	case "ynltool":
		b.WriteString("$ ynltool page-pool stats" + note)
		y.WriteYnltool(&b, false)
	}
	return b.String(), "", true
}
