package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"pplab/engine/sim"
)

// Options tune a diagnosis.
type Options struct {
	// Interval is the seconds between two consecutive snapshots when the
	// paste does not say (a `sleep N` line does); 0: rates only where the
	// paste gives the time.
	Interval float64
	// Nearest is how many scenario × driver groups to name (0: 5 of the
	// sweep's 70 groups, 17 scenarios; a two-snapshot paste, a steady
	// state, sits farther from every run than a whole run does, warm-up
	// included).
	Nearest int
	// NoModel skips the nearest-scenario search (which runs the model).
	NoModel bool
}

// Ratio is one ratio of the counters, with its formula.
type Ratio struct {
	Name    string  `json:"name"`
	Value   float64 `json:"value"`
	Formula string  `json:"formula"`
	Meaning string  `json:"meaning"`
}

// Rate is one counter's increase per second between two snapshots.
type Rate struct {
	Counter string  `json:"counter"`
	Delta   uint64  `json:"delta"`
	PerSec  float64 `json:"per_s"`
	Seconds float64 `json:"seconds"`
}

// Run is the diagnosis of one set of counters: a table column, a single
// snapshot, or the increase between the first and last snapshots.
type Run struct {
	Label    string            `json:"label"`
	Counters map[string]uint64 `json:"counters"`
	// Absent names the counters the paste lacks; with AbsentAsZero they
	// count as 0 (a listing shows all 11, so a missing line is one the
	// poster removed as zero), else they are left out of the comparison.
	Absent       []string `json:"absent,omitempty"`
	AbsentAsZero bool     `json:"absent_as_zero"`
	Ratios       []Ratio  `json:"ratios"`
	Nearest      []Match  `json:"nearest,omitempty"`
	Next         []Advice `json:"next"`
	// Device: the run is this device's alone (a paste of several devices
	// diagnoses each apart); "" for the paste's one device.
	Device string `json:"device,omitempty"`

	c    Counters
	keys []string // the devices it covers (devGroup.key)
	// advised: the devices whose pools' advice (a zombie) this run gives:
	// its own, and for the first run those no run covers.
	advised []string
	// other: the driver's other counters over the run (a snapshot's, or
	// their increase between two; none for a device of a netlink dump).
	other []Named
}

// otherDelta is the increase of the driver's other counters between two
// snapshots, by name (the ones both show and that did not go down; each
// at the later line).
func otherDelta(a, b []Named) []Named {
	var out []Named
	for _, y := range b {
		if i := slices.IndexFunc(a, func(x Named) bool { return x.Name == y.Name }); i >= 0 && y.Value >= a[i].Value {
			out = append(out, Named{Line: y.Line, Name: y.Name, Value: y.Value - a[i].Value})
		}
	}
	return out
}

// Report is a whole diagnosis.
type Report struct {
	Paste *Paste `json:"paste"`
	// Counters describes each counter the paste shows.
	Counters []CounterInfo `json:"counters"`
	Runs     []Run         `json:"runs"`
	// Rates are per counter between consecutive snapshots in time, when
	// the interval is known.
	Rates [][]Rate `json:"rates,omitempty"`
	// Distance says how the nearest scenarios were ranked.
	Distance string `json:"distance"`
	// Constraints are what the paste says about where it comes from: the
	// nearest runs are ranked among the runs that meet them (Rank).
	Constraints []Constraint `json:"constraints,omitempty"`
	// NonePossible says why no modelled run can have printed the paste
	// (what it says of its source contradicts itself, or fits no run): the
	// candidates are then only the nearest shapes without the constraint
	// dropped. "" when some run can.
	NonePossible string   `json:"none_possible,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}

// DistanceDoc is the distance the nearest scenarios are ranked by.
const DistanceDoc = "Hellinger distance between counter shapes: each compared counter's share of their sum (page_pool's counters, and mlx5's rx_cache_* when the paste shows them: the driver's own RX page cache before 6.4, which the model counts too), p (the paste) and q (a model run at the paste's length: its counters at 5 000 packets plus what it adds after them, scaled to the paste's allocations — the warm-up's counts stay, the steady state's grow, and the pages the run gives back after its warm-up beyond those it hands out, handed out before (a destroy's late returns), come back once, not once per repeat), H = sqrt(1 - Σ sqrt(p_i q_i)), 0 (the same shape) to 1 (nothing in common); model runs: every scenario × driver × era with page_pool stats (6.1 on) at the drivers' own sizes, 20 000 packets, among those the paste could come from (its constraints); each scenario × driver at its nearest eras; runs at the same distance are one shape, every one named"

// NoteNoInterval is the note of two snapshots without the time between
// them, in the CLI's words (the page says where its own field is).
const NoteNoInterval = "two snapshots but no time between them: give the interval (ppsim diagnose --interval SECONDS, or a `sleep N` line between them) for the rates"

// Diagnose reads a paste and diagnoses it.
func Diagnose(text string, opt Options) (*Report, error) {
	p, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return DiagnosePaste(p, opt), nil
}

// DiagnosePaste diagnoses a parsed paste.
func DiagnosePaste(p *Paste, opt Options) *Report {
	if opt.Nearest == 0 {
		opt.Nearest = 5
	}
	r := &Report{Paste: p, Distance: DistanceDoc, Constraints: Constraints(p)}
	absentZero := p.Format == FormatEthtool || p.Format == FormatYNL
	if l, ok := p.cutMidLine(); ok && absentZero {
		absentZero = false
		r.Notes = append(r.Notes, fmt.Sprintf("the paste ends in the middle of a counter's name (line %d: %q): the counters it lacks are unknown, not 0, and are left out of the comparison", l.N, strings.TrimSpace(l.Text)))
	}
	var shown [sim.NumStats]bool
	for _, sn := range p.Snapshots {
		for i, h := range sn.Device.Has {
			shown[i] = shown[i] || h
		}
	}
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		if shown[s] {
			r.Counters = append(r.Counters, Counter(s))
		}
	}
	var runs []Run
	withStats := 0
	for _, sn := range p.Snapshots {
		if sn.Device.Any() {
			withStats++
		}
	}
	first, last := p.Snapshots[0], p.Snapshots[len(p.Snapshots)-1]
	firstDevs, lastDevs := deviceGroups(first), deviceGroups(last)
	switch {
	case p.Columns:
		for _, sn := range p.Snapshots {
			c := sn.Device
			c.Cache, c.HasCache = snapCache(sn)
			runs = append(runs, Run{Label: sn.Label, c: c, other: sn.Other})
		}
	case withStats >= 2:
		span := fmt.Sprintf("increase from snapshot 1 (line %d) to snapshot %d (line %d)", first.Line, len(p.Snapshots), last.Line)
		if len(lastDevs) > 1 && sameKeys(firstDevs, lastDevs) {
			// Each device's increase apart.
			down := false
			for _, g := range lastDevs {
				i := slices.IndexFunc(firstDevs, func(f devGroup) bool { return f.key == g.key })
				d, ok := delta(firstDevs[i].c, g.c)
				down = down || !ok
				runs = append(runs, Run{Label: g.short() + ": " + span, Device: g.short(), c: d, keys: []string{g.key}})
			}
			if !down {
				r.Notes = append(r.Notes, devicesApart(lastDevs))
				break
			}
			runs = nil
			r.Notes = append(r.Notes, "a device's counter went down between the snapshots (a reset): each device's last snapshot is diagnosed alone")
			for _, g := range lastDevs {
				runs = append(runs, Run{Label: fmt.Sprintf("%s, snapshot %d", g.label, len(p.Snapshots)), Device: g.short(), c: g.c, keys: []string{g.key}})
			}
		} else {
			d, ok := delta(first.Device, last.Device)
			if a, okA := snapCache(first); okA {
				if b, okB := snapCache(last); okB {
					d.Cache, d.HasCache = b, true
					for i := range b {
						if b[i] < a[i] {
							d.HasCache = false
							break
						}
						d.Cache[i] = b[i] - a[i]
					}
				}
			}
			keys := groupKeys(lastDevs)
			if len(lastDevs) > 1 || len(firstDevs) > 1 {
				r.Notes = append(r.Notes, fmt.Sprintf("the snapshots show different devices (%s, then %s): their pools are summed, as one device (a device's increase needs it in both)", groupNames(firstDevs), groupNames(lastDevs)))
				keys = append(groupKeys(firstDevs), keys...)
			}
			if ok {
				runs = append(runs, Run{Label: span, c: d, keys: keys, other: otherDelta(first.Other, last.Other)})
			} else {
				r.Notes = append(r.Notes, "a counter went down between the snapshots (a reset, or two different devices): the last snapshot is diagnosed alone")
				c := last.Device
				c.Cache, c.HasCache = snapCache(last)
				runs = append(runs, Run{Label: fmt.Sprintf("snapshot %d (line %d)", len(p.Snapshots), last.Line), c: c, keys: groupKeys(lastDevs), other: last.Other})
			}
		}
		r.Rates = rates(p, opt.Interval)
		if r.Rates == nil {
			r.Notes = append(r.Notes, NoteNoInterval)
		}
	case len(lastDevs) > 1:
		for _, g := range lastDevs {
			runs = append(runs, Run{Label: g.label, Device: g.short(), c: g.c, keys: []string{g.key}})
		}
		r.Notes = append(r.Notes, devicesApart(lastDevs))
	default:
		c := last.Device
		c.Cache, c.HasCache = snapCache(last)
		runs = append(runs, Run{Label: fmt.Sprintf("snapshot (line %d)", last.Line), c: c, keys: groupKeys(lastDevs), other: last.Other})
	}
	// The evidence about one device (a zombie pool) ranks that device's run
	// alone.
	applied := make([]bool, len(r.Constraints))
	var covered []string
	for _, run := range runs {
		covered = append(covered, run.keys...)
	}
	for i := range runs {
		runs[i].advised = runs[i].keys
		if i == 0 && len(runs[i].keys) > 0 {
			for _, sn := range p.Snapshots[len(p.Snapshots)-1:] {
				for _, pl := range sn.Pools {
					if k := poolKey(pl); !contains(covered, k) && !contains(runs[i].advised, k) {
						runs[i].advised = append(runs[i].advised, k)
					}
				}
				for _, d := range sn.Devices {
					if k := deviceKey(d); !contains(covered, k) && !contains(runs[i].advised, k) {
						runs[i].advised = append(runs[i].advised, k)
					}
				}
			}
		}
	}
	for i := range runs {
		run := &runs[i]
		run.AbsentAsZero = absentZero
		run.Counters = map[string]uint64{}
		for s := sim.Stat(0); s < sim.NumStats; s++ {
			if run.c.Has[s] {
				run.Counters[s.String()] = run.c.V[s] // as pasted, an underflowed one too
			} else if !(run.c.FastHasRefill && s == sim.StatAllocRefill) {
				run.Absent = append(run.Absent, s.String())
			}
			if run.c.Wrapped[s] {
				run.c.V[s] = 0 // no count: read nowhere (ratios, shape and advice leave it out)
			}
		}
		var cs []Constraint
		var at []int // cs[j] is r.Constraints[at[j]]
		for j, c := range r.Constraints {
			// A run without counters takes every piece of evidence: its
			// candidates come from that alone.
			if c.devKey == "" || contains(run.keys, c.devKey) || !run.c.Any() {
				cs, at = append(cs, c), append(at, j)
				applied[j] = true
			}
		}
		rank := func(sh Shape) {
			var notes []string
			run.Nearest, notes = Rank(Sweep(), run.c.counts(), sh, opt.Nearest, cs)
			for j, c := range cs {
				if c.Dropped || c.Either { // the filters are the paste's: the same for every run
					rc := &r.Constraints[at[j]]
					rc.Dropped, rc.Either, rc.why = c.Dropped, c.Either, c.why
				}
			}
			for _, n := range notes {
				if run.Device != "" && strings.HasPrefix(n, "the nearest shape of all") {
					n = run.Device + ": " + n // about this device's counters
				}
				if !contains(r.Notes, n) {
					r.Notes = append(r.Notes, n)
				}
			}
		}
		if !run.c.Any() {
			if !opt.NoModel && prefers(cs) {
				// No page_pool counter: the runs the other evidence points
				// to, unranked by shape (the RX cache's counters alone do
				// not tell the scenarios apart: XDP_DROP and a drop in the
				// stack both reuse every page through it).
				sh := shapeOf(run.c, true)
				sh.Cache = false
				rank(sh)
			}
			run.Next = advise(p, run)
			continue
		}
		run.Ratios = ratios(run.c, absentZero)
		if !opt.NoModel {
			rank(shapeOf(run.c, absentZero))
		}
		for j := range run.Nearest {
			run.Nearest[j].Why = why(run, run.Nearest[j].counts, absentZero)
		}
		run.Next = advise(p, run)
	}
	for j := range r.Constraints {
		c := &r.Constraints[j]
		switch {
		case c.devKey == "":
		case !applied[j]:
			c.Keeps += ", for " + c.Device + " only: the paste shows no page_pool counters of it, so it ranks no run"
		case len(runs) > 1:
			c.Keeps += ", for " + c.Device + "'s run only"
		}
	}
	if len(runs) > 0 && !runs[0].c.Any() {
		if len(p.Snapshots[0].Pools) > 0 {
			r.Notes = append(r.Notes, "no page_pool counters in the paste (page-pool-get carries none): paste page-pool-stats-get or ethtool -S for the shape and the nearest scenarios")
		}
	}
	r.Runs = runs
	for _, c := range r.Constraints {
		if c.Dropped || c.Either {
			r.NonePossible = "no modelled run can have printed this paste: " + c.why
			break
		}
	}
	if nc := notCompared(p, r.Constraints); len(nc) > 0 {
		const show = 12
		more := ""
		if len(nc) > show {
			more = fmt.Sprintf(" and %d more", len(nc)-show)
			nc = nc[:show]
		}
		r.Notes = append(r.Notes, "not compared (the model does not count them): "+strings.Join(nc, ", ")+more)
	}
	r.Notes = append(r.Notes, p.Notes...)
	return r
}

// devicesApart is the note of a paste whose devices are diagnosed apart.
func devicesApart(gs []devGroup) string {
	return fmt.Sprintf("%d devices (%s): each diagnosed apart — their pools are different queues' or NICs', and a sum would hide one's trouble in the other's counts; what the paste says of one device alone (a zombie pool) ranks that device's run only", len(gs), groupNames(gs))
}

func groupNames(gs []devGroup) string {
	var n []string
	for _, g := range gs {
		n = append(n, g.short())
	}
	return strings.Join(n, ", ")
}

// cutMidLine reports whether the paste's last line is a counter's name
// cut short (a paste that ends mid-line): its last non-blank line is not
// understood and is the beginning of a page_pool counter's name.
func (p *Paste) cutMidLine() (Line, bool) {
	for i := len(p.Lines) - 1; i >= 0; i-- {
		l := p.Lines[i]
		t := strings.TrimSpace(quoteRe().ReplaceAllString(l.Text, ""))
		if t == "" {
			continue
		}
		if l.Use != UseGrey || strings.ContainsAny(t, ": \t") || len(t) < 4 {
			return Line{}, false
		}
		statNamesOnce.Do(buildStatNames)
		for name := range statNames {
			if strings.HasPrefix(name, t) && name != t {
				return l, true
			}
		}
		if m := lazyRingPrefix().FindStringSubmatch(t); m != nil {
			for suffix := range ringSuffix {
				if strings.HasPrefix(suffix, m[1]) {
					return l, true
				}
			}
		}
		return Line{}, false
	}
	return Line{}, false
}

var lazyRingPrefix = lazyRegexp(`^rx\d+_pp_(\w*)$`)

// counts are the counters a comparison reads.
func (c Counters) counts() Counts { return Counts{PP: c.V, Cache: c.Cache} }

var ringCacheRe = lazyRegexp(`^rx\d+_(cache_(?:reuse|full|empty|busy|waive))$`)

// snapCache reads a snapshot's RX page cache counters from its other
// counters: the device's rx_cache_* totals, else the sum of the rings'
// rx<N>_cache_*; ok false when it shows none.
func snapCache(sn Snapshot) (c CacheStats, ok bool) {
	var rings CacheStats
	okRings := false
	for _, o := range sn.Other {
		for i, n := range CacheNames {
			switch {
			case o.Name == n:
				c[i], ok = uint64(max(o.Value, 0)), true
			case ringCacheRe().MatchString(o.Name) && ringCacheRe().FindStringSubmatch(o.Name)[1] == n[len("rx_"):]:
				rings[i] += uint64(max(o.Value, 0))
				okRings = true
			}
		}
	}
	if !ok && okRings {
		return rings, true
	}
	return c, ok
}

func prefers(cs []Constraint) bool {
	for _, c := range cs {
		if c.Prefers {
			return true
		}
	}
	return false
}

func delta(a, b Counters) (Counters, bool) {
	var d Counters
	d.FastHasRefill = a.FastHasRefill || b.FastHasRefill
	for i := range a.V {
		if a.Has[i] && b.Has[i] {
			if a.Wrapped[i] || b.Wrapped[i] {
				// No count at one end: no increase either.
				d.Has[i], d.Wrapped[i] = true, true
				continue
			}
			if b.V[i] < a.V[i] {
				return d, false
			}
			d.set(sim.Stat(i), b.V[i]-a.V[i])
		}
	}
	return d, true
}

// rates are the increase per second of each counter between consecutive
// snapshots in time: the interval is the `sleep N` between them, else
// opt's; nil when neither says.
func rates(p *Paste, interval float64) [][]Rate {
	var out [][]Rate
	for i := 1; i < len(p.Snapshots); i++ {
		a, b := p.Snapshots[i-1], p.Snapshots[i]
		sec := b.Sleep
		if sec == 0 {
			sec = interval
		}
		if sec <= 0 {
			return nil
		}
		var rs []Rate
		for s := sim.Stat(0); s < sim.NumStats; s++ {
			if a.Device.Has[s] && b.Device.Has[s] && !a.Device.Wrapped[s] && !b.Device.Wrapped[s] && b.Device.V[s] >= a.Device.V[s] {
				d := b.Device.V[s] - a.Device.V[s]
				rs = append(rs, Rate{Counter: s.String(), Delta: d, PerSec: float64(d) / sec, Seconds: sec})
			}
		}
		out = append(out, rs)
	}
	return out
}

// allocs is the page_pool_alloc_pages calls that returned a page: each
// counts one of fast (from the cache), refill (the cache refilled from the
// ring), slow or slow_high_order (from the page allocator).
func allocs(v sim.Stats) uint64 {
	return v[sim.StatAllocFast] + v[sim.StatAllocRefill] + v[sim.StatAllocSlow] + v[sim.StatAllocSlowHighOrder]
}

func frac(a, b uint64) (float64, bool) {
	if b == 0 {
		return 0, false
	}
	return float64(a) / float64(b), true
}

func ratios(c Counters, absentZero bool) []Ratio {
	v := c.V
	has := func(ss ...sim.Stat) bool {
		for _, s := range ss {
			if c.Wrapped[s] || (!c.Has[s] && !absentZero) {
				return false
			}
		}
		return true
	}
	// A ratio per allocation divides by all four allocation counters: none
	// may be an underflowed one.
	perAlloc := func(ss ...sim.Stat) bool {
		return has(ss...) && !c.Wrapped[sim.StatAllocFast] && !c.Wrapped[sim.StatAllocRefill] && !c.Wrapped[sim.StatAllocSlow] && !c.Wrapped[sim.StatAllocSlowHighOrder]
	}
	var out []Ratio
	add := func(name string, num, den uint64, formula, meaning string, ok bool) {
		if !ok {
			return
		}
		if f, ok := frac(num, den); ok {
			out = append(out, Ratio{Name: name, Value: math.Round(f*1e6) / 1e6, Formula: formula, Meaning: meaning})
		}
	}
	const A = "(alloc_fast + alloc_refill + alloc_slow + alloc_slow_high_order)"
	fastHasRefill := c.FastHasRefill
	if !fastHasRefill {
		add("cached share", v[sim.StatRecycleCached], v[sim.StatRecycleCached]+v[sim.StatRecycleRing], "recycle_cached / (recycle_cached + recycle_ring)",
			"of the pages recycled, the share put straight back into the alloc cache (direct recycling: XDP in the poll, from 6.4 skbs freed in the pool's NAPI context) rather than through the ptr_ring", has(sim.StatRecycleCached, sim.StatRecycleRing))
		add("refill per alloc", v[sim.StatAllocRefill], allocs(v), "alloc_refill / "+A,
			"allocations that found the cache empty and refilled it from the ptr_ring (up to 64 pages each)", perAlloc(sim.StatAllocFast, sim.StatAllocRefill, sim.StatAllocSlow))
		add("slow per alloc", v[sim.StatAllocSlow]+v[sim.StatAllocSlowHighOrder], allocs(v), "(alloc_slow + alloc_slow_high_order) / "+A,
			"allocations that went to the page allocator (order 0: one bulk call of up to 64 pages each)", perAlloc(sim.StatAllocFast, sim.StatAllocRefill, sim.StatAllocSlow))
		add("empty per alloc", v[sim.StatAllocEmpty], allocs(v), "alloc_empty / "+A, "refills that found the ptr_ring empty", perAlloc(sim.StatAllocEmpty, sim.StatAllocFast, sim.StatAllocSlow))
		add("waive per alloc", v[sim.StatAllocWaive], allocs(v), "alloc_waive / "+A, "ring pages of another NUMA node than the pool's, released at refill", perAlloc(sim.StatAllocWaive, sim.StatAllocFast))
		puts := v[sim.StatRecycleCached] + v[sim.StatRecycleRing] + v[sim.StatRecycleRingFull] + v[sim.StatRecycleReleasedRefcnt]
		add("ring_full share", v[sim.StatRecycleRingFull], v[sim.StatRecycleRing]+v[sim.StatRecycleRingFull], "recycle_ring_full / (recycle_ring + recycle_ring_full)",
			"of the pages offered to the ptr_ring, the share released because it was full (a bulk put counts ring_full once per call)", has(sim.StatRecycleRing, sim.StatRecycleRingFull))
		add("released_refcnt share", v[sim.StatRecycleReleasedRefcnt], puts, "recycle_released_refcnt / (recycle_cached + recycle_ring + recycle_ring_full + recycle_released_refcnt)",
			"of the pages that came back to the pool, the share it had to let go because someone else still held a reference (or it was a pfmemalloc page)", has(sim.StatRecycleReleasedRefcnt, sim.StatRecycleCached, sim.StatRecycleRing))
		add("cache_full share", v[sim.StatRecycleCacheFull], v[sim.StatRecycleCached]+v[sim.StatRecycleCacheFull], "recycle_cache_full / (recycle_cached + recycle_cache_full)",
			"direct recycles that found the 128-slot alloc cache full (the page went to the ring)", has(sim.StatRecycleCacheFull, sim.StatRecycleCached))
	}
	if c.HasCache && !fastHasRefill {
		// mlx5's own RX page cache, before 6.4: its refill asks it first
		// (mlx5e_page_alloc_pool → mlx5e_rx_cache_get) and takes a page
		// from the pool only on a miss (empty, or its head page still in
		// use); a freed page it refuses for its node goes to the pool
		// (page_pool_recycle_direct).
		cv := c.Cache
		misses := cv[cacheEmpty] + cv[cacheBusy]
		add("RX cache reuse share", cv[cacheReuse], cv[cacheReuse]+misses, "rx_cache_reuse / (rx_cache_reuse + rx_cache_empty + rx_cache_busy)",
			"of the pages mlx5's RX refill asked its own page cache for (mlx5e_rx_cache_get, before 6.4), the share it got there; the rest came from the pool", true)
		add("RX cache misses per alloc", misses, allocs(v), "(rx_cache_empty + rx_cache_busy) / "+A,
			"the refills that found mlx5's RX page cache empty or its head page still in use, per page_pool allocation: before 6.4 the driver goes to the pool only after such a miss, so this is about 1", perAlloc(sim.StatAllocFast, sim.StatAllocRefill, sim.StatAllocSlow))
		add("RX cache waive per alloc", cv[cacheWaive], allocs(v), "rx_cache_waive / "+A,
			"freed pages mlx5's RX page cache refused (another NUMA node's, or pfmemalloc) per page_pool allocation: each goes to the pool's alloc cache (page_pool_recycle_direct: recycle_cached)", perAlloc(sim.StatAllocFast, sim.StatAllocRefill, sim.StatAllocSlow))
	}
	fast := v[sim.StatAllocFast]
	if !fastHasRefill {
		fast += v[sim.StatAllocRefill]
	}
	if d := fast + v[sim.StatAllocSlow]; d > 0 && has(sim.StatRecycleRing, sim.StatRecycleCached, sim.StatAllocSlow, sim.StatAllocFast) && !c.Wrapped[sim.StatAllocRefill] {
		f := float64(v[sim.StatRecycleRing]+v[sim.StatRecycleCached]) / float64(d) * 100
		out = append(out, Ratio{Name: "recycling %", Value: math.Round(f*100) / 100,
			Formula: "(recycle_ring + recycle_cached) / (alloc_fast + alloc_refill + alloc_slow) × 100 (ynltool page-pool stats; high-order allocations not counted)",
			Meaning: "ynltool's recycling rate: pages put back per page allocated; it under-counts a little, as ynltool says, since the pages sitting in the cache and the ring are not counted"})
	}
	return out
}
