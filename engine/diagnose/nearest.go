package diagnose

import (
	"math"
	"sync"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The nearest scenarios are found by running the model: every scenario on
// every driver that runs it, in every era whose kernel has page_pool stats
// (sim.Era.Stats: a pasted counter comes from such a kernel), for
// SweepPackets packets — short runs, made once per process (the first
// diagnosis pays ≈2 s on one core) and kept in memory. The runs use the
// drivers' own sizes (lab.PresetKernel: RX rings of 512–1024, their
// pool_size), as a pasted counter comes from a real machine: the teaching
// preset's 16-descriptor ring and 32-slot ptr_ring refill the cache in
// smaller steps, which moves alloc_refill and alloc_empty away from what a
// kernel-size ring shows (drop on mvpp2 at the teaching sizes is farther
// from its own kernel-size counters than pool-ring is).

// SweepPackets is the length of each model run of the sweep.
const SweepPackets = 20_000

// Candidate is one model run of the sweep: its counters at the end, and
// Warm, at the first of the run's check points (every 64th operation) at
// or after WarmPackets packets: the counters the run adds after Warm are
// its steady state, which a longer run repeats (Scaled). Cache and
// CacheWarm are the driver's own RX page cache's counters at the same two
// points (mlx5 before 6.4; zero for a run without one).
type Candidate struct {
	Config           lab.Config
	Stats            sim.Stats
	Warm             sim.Stats
	Cache, CacheWarm CacheStats
}

// CacheStats are the counters of a driver's own RX page cache in front of
// the pool (mlx5e_rx_cache, before 6.4: en_stats.c's rx_cache_*, the
// device's totals), in CacheNames order: the driver's counters, not
// page_pool's, but a listing that shows them says how the driver's
// refills and frees went around the pool (every pool allocation follows a
// cache miss; a remote page the cache waives is recycled into the pool).
type CacheStats [NumCacheStats]uint64

// NumCacheStats is the number of the RX page cache's counters.
const NumCacheStats = 5

// CacheNames are the cache counters' ethtool -S names (the device's
// totals; rx<N>_cache_* are one ring's), as lab.DriverStats names them.
var CacheNames = [NumCacheStats]string{"rx_cache_reuse", "rx_cache_full", "rx_cache_empty", "rx_cache_busy", "rx_cache_waive"}

// The cache counters, by their index in CacheStats.
const (
	cacheReuse = iota
	cacheFull
	cacheEmpty
	cacheBusy
	cacheWaive
)

// cacheOf reads a run's cache counters from its driver's counters
// (lab.Results.DriverStats; zero when it has none).
func cacheOf(ds []lab.DriverStat) CacheStats {
	var c CacheStats
	for _, d := range ds {
		for i, n := range CacheNames {
			if d.Name == n && d.Value > 0 {
				c[i] = uint64(d.Value)
			}
		}
	}
	return c
}

// Counts are what a comparison reads of a paste or a run: page_pool's
// counters and the driver's RX page cache's.
type Counts struct {
	PP    sim.Stats
	Cache CacheStats
}

// ScaledCounts is the run's Counts at a paste's length: the page_pool
// counters as Scaled, the cache's scaled with them (the same steady
// state).
func (c Candidate) ScaledCounts(allocs float64) Counts {
	out := Counts{PP: c.Scaled(allocs)}
	a, z := c.Warm, c.Stats
	am, zm := float64(allocsOf(a)), float64(allocsOf(z))
	if zm <= am {
		out.Cache = c.Cache
		return out
	}
	k := max((allocs-am)/(zm-am), 0)
	for i := range out.Cache {
		d := float64(c.Cache[i]) - float64(c.CacheWarm[i])
		out.Cache[i] = uint64(max(float64(c.CacheWarm[i])+k*d, 0) + 0.5)
	}
	return out
}

// returnStats are the counters of a page coming back to the pool: into
// the alloc cache, into the ptr_ring, or let go (the ring full, a
// reference still held). Each page handed out (allocsOf) comes back at
// most once, so over a run from its start they never sum to more than
// the allocations.
var returnStats = [...]sim.Stat{sim.StatRecycleCached, sim.StatRecycleRing, sim.StatRecycleRingFull, sim.StatRecycleReleasedRefcnt}

func returnsOf(v sim.Stats) uint64 {
	var n uint64
	for _, s := range returnStats {
		n += v[s]
	}
	return n
}

// WarmPackets is where the sweep's runs take their Warm counters.
const WarmPackets = SweepPackets / 4

// Scaled is the run's counters at the length of a paste that allocated
// allocs pages: Warm, plus the counters the run adds after Warm scaled so
// that the allocations match (the warm-up's counts — the ring's first
// fill, the first refills — stay as they are; the steady state's grow);
// between Warm and the end the run's own counters are interpolated, and a
// paste shorter than Warm is compared with Warm.
//
// Past the run's end, what repeats is the window after Warm less the
// pages it gave back beyond those it handed out: those were handed out
// before the window (the ring's first fill, the skbs a socket held,
// returned at a destroy) and come back once, not once per window. Repeated
// with the window, they made a run give back more pages than it ever
// allocated (destroy on bnxt at 1.8 G allocations: recycling 152.96 %,
// where the run itself ends at 98.30 %). The window's returns are
// lessened by that excess, each in proportion to its share of them, and
// the excess is counted once (in the run's own end counters).
func (c Candidate) Scaled(allocs float64) sim.Stats {
	a, z := c.Warm, c.Stats
	am, zm := float64(allocsOf(a)), float64(allocsOf(z))
	if zm <= am {
		return z
	}
	k := max((allocs-am)/(zm-am), 0)
	var out sim.Stats
	if k <= 1 {
		for i := range out {
			d := float64(z[i]) - float64(a[i])
			out[i] = uint64(max(float64(a[i])+k*d, 0) + 0.5)
		}
		return out
	}
	var d [sim.NumStats]float64
	for i := range d {
		d[i] = float64(z[i]) - float64(a[i])
	}
	if back, out := float64(returnsOf(z))-float64(returnsOf(a)), zm-am; back > out && back > 0 {
		keep := out / back // the share of the window's returns that repeats
		for _, s := range returnStats {
			d[s] *= keep
		}
	}
	for i := range out {
		out[i] = uint64(max(float64(z[i])+(k-1)*d[i], 0) + 0.5)
	}
	return out
}

func allocsOf(v sim.Stats) uint64 {
	return v[sim.StatAllocFast] + v[sim.StatAllocRefill] + v[sim.StatAllocSlow] + v[sim.StatAllocSlowHighOrder]
}

var (
	sweepOnce sync.Once
	sweep     []Candidate
)

// Sweep runs the model once per process and returns its runs (a
// Sweeper's, in one piece).
func Sweep() []Candidate {
	sweepOnce.Do(func() {
		w := &Sweeper{cfgs: sweepConfigs()}
		w.run(nil)
		sweep = w.out
	})
	return sweep
}

// Shape is the counters a comparison uses: which counters (the paste's),
// whether alloc_fast stands for alloc_fast + alloc_refill (ynltool), and
// whether the driver's RX page cache's counters are compared too (the
// paste shows them: mlx5 before 6.4).
type Shape struct {
	Use           [sim.NumStats]bool
	FastHasRefill bool
	Cache         bool
}

// shapeOf is the counters of c compared: the ones c has; with the
// Absent-is-zero rule (ethtool and ynl listings show every counter, so a
// missing line is one the poster removed as zero) every counter.
func shapeOf(c Counters, absentIsZero bool) Shape {
	sh := Shape{Use: c.Has, FastHasRefill: c.FastHasRefill, Cache: c.HasCache}
	if absentIsZero && !c.FastHasRefill {
		for i := range sh.Use {
			sh.Use[i] = true
		}
	}
	if sh.FastHasRefill {
		sh.Use[sim.StatAllocRefill] = false
	}
	for i, w := range c.Wrapped {
		if w {
			sh.Use[i] = false // an underflowed counter is no count
		}
	}
	return sh
}

// any reports whether v has a nonzero page_pool counter the shape
// compares.
func (sh Shape) any(v sim.Stats) bool {
	_, ok := Shape{Use: sh.Use, FastHasRefill: sh.FastHasRefill}.vector(Counts{PP: v})
	return ok
}

// vector is c's counters as shares of their sum over the shape's counters
// (the page_pool counters, then the cache's when the shape compares them).
func (sh Shape) vector(c Counts) ([sim.NumStats + NumCacheStats]float64, bool) {
	var out [sim.NumStats + NumCacheStats]float64
	v := c.PP
	if sh.FastHasRefill {
		v[sim.StatAllocFast] += v[sim.StatAllocRefill]
	}
	var sum float64
	for i := range v {
		if sh.Use[i] {
			out[i] = float64(v[i])
		}
	}
	if sh.Cache {
		for i, x := range c.Cache {
			out[int(sim.NumStats)+i] = float64(x)
		}
	}
	for _, x := range out {
		sum += x
	}
	if sum == 0 {
		return out, false
	}
	for i := range out {
		out[i] /= sum
	}
	return out, true
}

// Distance is the Hellinger distance between the counter shapes of a and
// b: each counter's share of the compared counters' sum, p and q, and
// H = sqrt(1 − Σ sqrt(p_i·q_i)), from 0 (the same shape) to 1 (no counter in
// common). Shares make it blind to scale (packets, run length, queues);
// the square roots give a counter at 1 % a tenth of the weight of one at
// 100 % rather than a hundredth, so the rare counters that tell scenarios
// apart (waive, ring_full, released_refcnt) count; unlike the KL divergence
// it is symmetric and finite when one side has a zero. An all-zero side is
// at distance 1 unless both are.
func (sh Shape) Distance(a, b Counts) float64 {
	p, okp := sh.vector(a)
	q, okq := sh.vector(b)
	if !okp || !okq {
		if !okp && !okq {
			return 0
		}
		return 1
	}
	var bc float64
	for i := range p {
		bc += math.Sqrt(p[i] * q[i])
	}
	return math.Sqrt(math.Max(0, 1-bc))
}

// Match is one counter shape of the model near the paste: the model runs
// at that distance, grouped by scenario and driver (runs with the same
// shape cannot be told apart by their counters, so they are named
// together).
type Match struct {
	Distance float64    `json:"distance"`
	Runs     []MatchRun `json:"runs"`
	// Preferred: the runs are of the scenarios the paste's other counters
	// point to (RuleDriverCounters), ranked before the nearer others.
	Preferred bool `json:"preferred,omitempty"`
	// NoShape: the paste has no counter to compare (page-pool-get alone):
	// the runs are the ones its other evidence points to, at distance 1.
	NoShape bool `json:"no_shape,omitempty"`
	// Stats are the first run's counters.
	Stats map[string]uint64 `json:"stats"`
	// Why says which of the paste's ratios the shape matches and the one
	// it differs on most (the first run's, at the paste's length); nil
	// when the paste has no ratio.
	Why *Why `json:"why,omitempty"`

	counts Counts // the first run's counters at the paste's length
}

// MatchRun is one scenario × driver of a Match, in the eras at that
// distance.
type MatchRun struct {
	Scenario string   `json:"scenario"`
	Driver   string   `json:"driver,omitempty"`
	Eras     []string `json:"eras"`
	// URL opens the run (the newest of the eras) in the playground:
	// "/?" + its config's Values().Encode().
	URL string `json:"url"`
}

// Has reports whether the match names scenario.
func (m Match) Has(scenario string) bool {
	for _, r := range m.Runs {
		if r.Scenario == scenario {
			return true
		}
	}
	return false
}

// Nearest returns the n counter shapes of the sweep nearest to v under sh,
// nearest first, every run a candidate (Rank with no constraint): each
// scenario × driver once, at its nearest eras; distances are rounded to 4
// decimals, and runs at the same distance are one shape.
func Nearest(v Counts, sh Shape, n int) []Match {
	m, _ := Rank(Sweep(), v, sh, n, nil)
	return m
}

func eraOrder(name string) int {
	e, err := sim.EraByName(name)
	if err != nil {
		return -1
	}
	return e.Order
}

func statsMap(s sim.Stats) map[string]uint64 {
	m := map[string]uint64{}
	for i := sim.Stat(0); i < sim.NumStats; i++ {
		m[i.String()] = s[i]
	}
	return m
}
