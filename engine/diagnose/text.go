package diagnose

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the report readably (`ppsim diagnose`), the answer
// first: the format read and what the paste says about its source, then
// per run the best candidates (every run of a tie named, each with its
// playground link) and what to look at next; after them the ratios, the
// rates, the notes, the lines not understood, and last the glossary of
// the counters the paste shows.
func (r *Report) WriteText(w io.Writer) {
	p := r.Paste
	fmt.Fprintf(w, "format: %s (%s)\n", p.Format, p.Variant)
	fmt.Fprintf(w, "read: %d lines, %d snapshots", len(p.Lines), len(p.Snapshots))
	grey := p.Grey()
	if len(grey) > 0 {
		fmt.Fprintf(w, "; %d lines not understood (listed below)", len(grey))
	}
	fmt.Fprintln(w)
	if u := p.UnderflowLine(); u != "" {
		fmt.Fprintf(w, "underflow: %s\n", u)
	}
	for _, a := range p.Aside {
		fmt.Fprintf(w, "%s\n", a.Sentence("ppsim predict --profile FILE"))
	}
	if len(r.Constraints) > 0 {
		fmt.Fprintln(w, "the paste comes from:")
		for _, c := range r.Constraints {
			fmt.Fprintf(w, "  %-16s %s\n  %16s %s %s\n", c.Rule+":", c.Evidence, "", c.How(), c.Keeps)
		}
	}
	if r.NonePossible != "" {
		fmt.Fprintf(w, "none possible: %s\n", r.NonePossible)
	}
	for _, run := range r.Runs {
		fmt.Fprintf(w, "\n%s:\n", run.Label)
		if len(run.Nearest) > 0 {
			if r.NonePossible != "" {
				fmt.Fprintf(w, "  the nearest shapes all the same (none can have printed the paste; Hellinger distance, 0 = the same):\n")
			} else {
				fmt.Fprintf(w, "  best candidates (model runs of the nearest counter shape; Hellinger distance, 0 = the same):\n")
			}
			if run.Nearest[0].Why != nil {
				fmt.Fprintf(w, "  (why: %s)\n", WhyTolerance)
			}
			for i, m := range run.Nearest {
				tie := ""
				if len(m.Runs) > 1 {
					tie = fmt.Sprintf(" (a tie: %d runs of this shape)", len(m.Runs))
				}
				if m.Preferred && !m.NoShape {
					tie += " (what the paste's other evidence points to)"
				}
				if m.NoShape {
					tie += " (no counter to compare: the runs the paste's other evidence points to)"
				}
				fmt.Fprintf(w, "  %d. %.4f%s\n", i+1, m.Distance, tie)
				for _, mr := range m.Runs {
					drv := mr.Driver
					if drv == "" {
						drv = "no driver"
					}
					fmt.Fprintf(w, "       %s on %s, era %s  %s\n", mr.Scenario, drv, strings.Join(mr.Eras, ", "), mr.URL)
				}
				if m.Why != nil {
					fmt.Fprintf(w, "       why: %s\n", m.Why)
				}
			}
		}
		for _, a := range run.Next {
			fmt.Fprintf(w, "  next: %s\n        %s\n", a.Signal, a.Means)
			for _, l := range a.Look {
				fmt.Fprintf(w, "        - %s\n", l)
			}
		}
		if len(run.Absent) > 0 && len(run.Counters) > 0 {
			how := "left out of the comparison"
			if run.AbsentAsZero {
				how = "taken as 0"
			}
			fmt.Fprintf(w, "  absent: %s (%s)\n", strings.Join(run.Absent, ", "), how)
		}
		for _, ra := range run.Ratios {
			fmt.Fprintf(w, "  %-25s %10.4f   = %s\n", ra.Name, ra.Value, ra.Formula)
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
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "\nprovenance: %s\n", p.Provenance)
	if len(grey) > 0 {
		fmt.Fprintf(w, "lines not understood (kept, not used):\n")
		for _, l := range grey {
			fmt.Fprintf(w, "  line %d: %s\n", l.N, l.Text)
		}
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
}
