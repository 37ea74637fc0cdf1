package report

import (
	"fmt"
	"io"

	"pplab/engine/sim"
)

// WriteEthtool prints the counters as `ethtool -S` does ("NIC
// statistics:", then one indented "name: value" line each): the page_pool
// counters by the driver's names, its per-RX-ring ones where it has them
// (mlx5's rx<N>_pp_*), a note where the driver shows other names or none,
// and the driver's own counters (mlx5's RX page cache before 6.4). It is
// the stats part of WriteTable, and what the playground exports to paste
// into a mail.
func (r Results) WriteEthtool(w io.Writer) {
	fmt.Fprintf(w, "NIC statistics:\n")
	for i := sim.Stat(0); i < sim.NumStats; i++ {
		fmt.Fprintf(w, "     %s: %d\n", EthtoolName(r.Driver, i, -1), r.Stats[i])
	}
	for ring, st := range r.RingStats {
		if EthtoolName(r.Driver, 0, ring) == "" {
			break
		}
		for i := sim.Stat(0); i < sim.NumStats; i++ {
			fmt.Fprintf(w, "     %s: %d\n", EthtoolName(r.Driver, i, ring), st[i])
		}
	}
	if n := EthtoolNote(r.Driver); n != "" {
		fmt.Fprintf(w, "     (%s)\n", n)
	}
	if len(r.DriverStats) > 0 {
		fmt.Fprintf(w, "     (%s:)\n", DriverStatsNote(r.Driver))
		for _, st := range r.DriverStats {
			fmt.Fprintf(w, "     %s: %d\n", st.Name, st.Value)
		}
	}
}
