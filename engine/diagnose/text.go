package diagnose

import (
	"fmt"
	"io"
	"strings"
)

// maxRunsShown bounds the runs the text lists per shape.
const maxRunsShown = 6

// WriteText prints the report readably (`ppsim diagnose`).
func (r *Report) WriteText(w io.Writer) {
	p := r.Paste
	fmt.Fprintf(w, "format: %s (%s)\n", p.Format, p.Variant)
	fmt.Fprintf(w, "provenance: %s\n", p.Provenance)
	fmt.Fprintf(w, "read: %d lines, %d snapshots", len(p.Lines), len(p.Snapshots))
	if g := p.Grey(); len(g) > 0 {
		fmt.Fprintf(w, "; %d lines not understood (kept, not used):\n", len(g))
		for _, l := range g {
			fmt.Fprintf(w, "  line %d: %s\n", l.N, l.Text)
		}
	} else {
		fmt.Fprintln(w)
	}
	for i, sn := range p.Snapshots {
		for _, pl := range sn.Pools {
			if !pl.HasPoolFields {
				continue
			}
			fmt.Fprintf(w, "snapshot %d pool %d:", i+1, pl.ID)
			if pl.HasIfindex {
				fmt.Fprintf(w, " ifindex %d", pl.Ifindex)
			} else {
				fmt.Fprint(w, " no ifindex (orphaned)")
			}
			if pl.NapiID != 0 {
				fmt.Fprintf(w, " napi-id %d", pl.NapiID)
			}
			if pl.HasInflight {
				fmt.Fprintf(w, " inflight %d", pl.Inflight)
			}
			if pl.HasMem {
				fmt.Fprintf(w, " (%d bytes)", pl.InflightMem)
			}
			if pl.Detached {
				fmt.Fprintf(w, " detach-time %d", pl.DetachTime)
			}
			if pl.HasDmabuf {
				fmt.Fprintf(w, " dmabuf %d", pl.Dmabuf)
			}
			if pl.IOUring {
				fmt.Fprint(w, " io_uring")
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Counters) > 0 {
		fmt.Fprintf(w, "\ncounters (net/core/page_pool.c; the stats exist from %s):\n", "5.18")
		for _, c := range r.Counters {
			fmt.Fprintf(w, "  %-24s %s — %s\n", c.Name, c.Meaning, c.Where)
		}
	}
	for _, run := range r.Runs {
		fmt.Fprintf(w, "\n%s:\n", run.Label)
		if len(run.Absent) > 0 {
			how := "left out of the comparison"
			if run.AbsentAsZero {
				how = "taken as 0"
			}
			fmt.Fprintf(w, "  absent: %s (%s)\n", strings.Join(run.Absent, ", "), how)
		}
		for _, ra := range run.Ratios {
			fmt.Fprintf(w, "  %-22s %10.4f   = %s\n", ra.Name, ra.Value, ra.Formula)
		}
		if len(run.Nearest) > 0 {
			fmt.Fprintf(w, "  nearest model runs (Hellinger distance of the counter shares):\n")
			for _, m := range run.Nearest {
				runs := "1 scenario × driver"
				if len(m.Runs) > 1 {
					runs = fmt.Sprintf("%d scenario × driver pairs with this shape", len(m.Runs))
				}
				fmt.Fprintf(w, "    %.4f  (%s)\n", m.Distance, runs)
				for i, mr := range m.Runs {
					if i == maxRunsShown {
						fmt.Fprintf(w, "            … %d more (--json lists them)\n", len(m.Runs)-maxRunsShown)
						break
					}
					drv := mr.Driver
					if drv == "" {
						drv = "no driver"
					}
					fmt.Fprintf(w, "            %s on %s, era %s  %s\n", mr.Scenario, drv, strings.Join(mr.Eras, ", "), mr.URL)
				}
			}
		}
		for _, a := range run.Next {
			fmt.Fprintf(w, "  next: %s\n        %s\n", a.Signal, a.Means)
			for _, l := range a.Look {
				fmt.Fprintf(w, "        - %s\n", l)
			}
		}
	}
	for i, rs := range r.Rates {
		if len(rs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nrates, snapshot %d → %d (%.3g s):\n", i+1, i+2, rs[0].Seconds)
		for _, x := range rs {
			fmt.Fprintf(w, "  %-24s +%d  %.1f/s\n", x.Counter, x.Delta, x.PerSec)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
