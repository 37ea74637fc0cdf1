package lab

import (
	"fmt"
	"sort"
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/lab/internal/report"
	"pplab/engine/sim"
	"pplab/engine/workload"
)

// Results computes the run's results from what it spent. Throughput is the
// measured packets over the busy time of the bottleneck CPU in the measured
// window; the profile is each perf symbol's share of all busy time there.
func (l *Lab) Results() Results {
	r := Results{Driver: l.cfg.Driver, Scenario: l.scenario.Name, Era: l.m.Era.Name, Packets: l.packets, Seed: l.cfg.Seed,
		Violations: l.m.Log, Lost: l.lost, Delivered: l.packets - l.lost, RxMissed: l.rxMissed(), AllocFailures: l.allocFailures(), Platform: l.m.Platform.Name}
	r.Stats = l.stats()
	r.RingStats = l.RingStats()
	r.DriverStats = l.DriverStats()
	r.YNL = l.YNL()
	for _, p := range l.reg.Pools() {
		r.Inflight += p.Inflight()
	}
	n := len(l.m.CPUs)
	start := func(c int) int64 {
		if l.startPS == nil {
			return l.m.CPUs[c].BusyPS() // nothing measured yet
		}
		return l.startPS[c]
	}
	var worst int64
	for c := 0; c < n; c++ {
		if b := l.m.CPUs[c].BusyPS() - start(c); b > worst {
			worst, r.Bottleneck = b, c
		}
	}
	measured := l.measuredDelivered()
	r.Rate = Rate{Unit: "kpps"}
	r.Rate.Value, r.LinkBound = l.kpps(measured, worst)
	if measured > 0 && worst > 0 {
		r.NsPerPacket = float64(worst) / float64(measured) / sim.PSPerNS
	}
	bySym := map[string]int64{}
	var total int64
	for name, v := range l.spentBySymbol() {
		bySym[name] += v
		total += v
	}
	for name, v := range bySym {
		r.Profile = append(r.Profile, ProfileEntry{Symbol: name, Pct: report.Round2(100 * float64(v) / float64(total))})
	}
	sort.Slice(r.Profile, func(i, j int) bool {
		if r.Profile[i].Pct != r.Profile[j].Pct {
			return r.Profile[i].Pct > r.Profile[j].Pct
		}
		return r.Profile[i].Symbol < r.Profile[j].Symbol
	})
	r.Notes = l.notes()
	if r.Degenerate = report.Degenerate(r); r.Degenerate != "" {
		r.Notes = append([]string{r.Degenerate}, r.Notes...)
	}
	return r
}

// rxMissed is the driver's frames dropped for want of a posted RX buffer.
func (l *Lab) rxMissed() int64 {
	if l.drv == nil {
		return 0
	}
	return l.drv.Missed
}

// allocFailures is the NULL returns of page_pool_alloc_pages over the pools.
func (l *Lab) allocFailures() int64 {
	var n int64
	for _, p := range l.reg.Pools() {
		n += p.AllocFailures()
	}
	return n
}

// notes: each broken rule whose check never decided anything in this run
// (the scenario never reaches a state where the rule matters), and a
// machine too small for the driver's RX ring.
func (l *Lab) notes() []string {
	var out []string
	if n := l.statsEraNote(); n != "" {
		out = append(out, n)
	}
	if l.drv != nil && l.drv.RingSize() > l.a.NumPages() {
		out = append(out, fmt.Sprintf("the machine has %d pages (node_pages × numa_nodes), fewer than %s's %d RX descriptors: the ring never fills, the run measures memory exhaustion",
			l.a.NumPages(), l.spec.Name, l.drv.RingSize()))
	}
	if l.drv != nil && l.spec.TPA { // bnxt: which of its RX paths ran
		switch {
		case l.drv.Agg():
			// its default from 6.6 (hardware GRO): said by the driver's doc
		case l.drv.Mode == drivers.HeadFrags:
			copies := fmt.Sprintf("a frame over the copybreak (%d bytes) built over it, one within it copied and its buffer reused", l.spec.Copybreak(l.m.Era))
			if l.spec.Copybreak(l.m.Era) == 0 {
				copies = "every frame built over it (rx_copybreak is 0 in this era: nothing is copied)"
			}
			out = append(out, fmt.Sprintf("%s ran its normal RX path without an aggregation ring (hardware GRO off, from 6.13): every RX buffer a %d-byte page_pool fragment, %s; no XDP program",
				l.spec.Name, l.drv.BufSize(), copies))
		case workload.AttachesXDP(l.scenario.Name, &l.m.Knobs):
			out = append(out, fmt.Sprintf("%s ran XDP page mode: the scenario's XDP program puts it there (GRO_HW off, a page_pool page per buffer)", l.spec.Name))
		default:
			out = append(out, fmt.Sprintf("%s ran XDP page mode, with an XDP_PASS program on every frame (a page_pool page per buffer): in %s the RX buffers of its normal path here are memory the pool never sees (the pool feeds that path from 6.6 with hardware GRO, from 6.13 without), so page mode stands for it", l.spec.Name, l.m.Era.Name))
		}
	}
	if l.drv != nil && l.scenario.Name == workload.WTCPStream && !l.spec.GRO && l.m.Knobs[sim.KnobGRO] != 0 {
		out = append(out, fmt.Sprintf("%s hands its skbs to netif_receive_skb, not napi_gro_receive: no GRO, every segment goes up the stack alone", l.spec.Name))
	}
	if sys := l.reg.SystemPools(); sys != nil {
		var st sim.Stats
		for _, p := range sys {
			own := p.Stats() // alloc counters: per pool
			st.Add(&own)
		}
		rec := l.reg.SystemRecycleStats()
		st.Add(&rec)
		out = append(out, fmt.Sprintf("the run used the per-CPU system page_pools (6.9; pools %d..%d, one per CPU: alloc fast %d, slow %d; recycle cached %d, ring %d): the totals above count them — the model's view, since the kernel shows a system pool in neither ethtool -S nor netlink, and page_pool_get_stats on any one of them returns the recycle counters of all of them together (pp_system_recycle_stats)",
			sys[0].ID, sys[len(sys)-1].ID, st[sim.StatAllocFast], st[sim.StatAllocSlow], st[sim.StatRecycleCached], st[sim.StatRecycleRing]))
	}
	decided := l.m.Decided()
	for _, r := range sim.AllRules() {
		if !l.m.Rules.Broken(r) || decided.Broken(r) {
			continue
		}
		where := "nowhere with the other rules intact"
		if sc := RuleExercisedIn[r.String()]; len(sc) > 0 {
			where = strings.Join(sc, ", ")
		}
		out = append(out, fmt.Sprintf("rule %s is broken, but it never decided anything in this run: %s in era %s never reaches a state it guards (it decides in: %s)",
			r, l.scenario.Name, l.m.Era.Name, where))
	}
	return out
}

// measuredDelivered is the packets delivered (completed, not lost) in the
// measured window: what the rate counts.
func (l *Lab) measuredDelivered() int64 {
	_, delivered := l.run.measured(l)
	return delivered
}

// measuredPackets is the packets completed in the measured window.
func (l *Lab) measuredPackets() int64 {
	completed, _ := l.run.measured(l)
	return completed
}

// FrameBytes is the frame size of a driver scenario's packets (0 otherwise).
func (l *Lab) FrameBytes() int { return l.run.frameBytes() }

// linkKpps is the link's packet rate for the scenario's frames, 0 without a
// driver.
func (l *Lab) linkKpps() float64 {
	if f := l.FrameBytes(); f > 0 {
		return l.m.Platform.LinkPPS(f) / 1e3
	}
	return 0
}

// ProfileName is the symbol a profile of this run shows for s: the
// driver's name, else the platform's, else the era's (sim.Sym.ProfileIn).
func (l *Lab) ProfileName(s sim.Sym) string {
	if l.spec != nil {
		return l.spec.ProfileName(l.m.Platform, l.m.Era, s)
	}
	return l.m.Platform.ProfileNameIn(s, l.m.Era)
}

// measuredSpentPS is the picoseconds cpu spent in s in the measured window.
func (l *Lab) measuredSpentPS(cpu int, s sim.Sym) int64 {
	v := l.m.SpentPS(cpu, s)
	if l.startSpent != nil {
		v -= l.startSpent[cpu][s]
	}
	return v
}

// spentBySymbol is the picoseconds spent per profile symbol over all CPUs in
// the measured window.
func (l *Lab) spentBySymbol() map[string]int64 {
	out := map[string]int64{}
	for c := range l.m.CPUs {
		for s := sim.Sym(1); s < sim.NumSyms; s++ {
			if v := l.measuredSpentPS(c, s); v > 0 {
				out[l.ProfileName(s)] += v
			}
		}
	}
	return out
}

// SymbolNS is the nanoseconds per measured packet spent per profile symbol
// over all CPUs (what a system-wide perf top attributes to each symbol).
func (l *Lab) SymbolNS() map[string]float64 {
	n := l.measuredPackets()
	out := map[string]float64{}
	if n <= 0 {
		return out
	}
	for name, v := range l.spentBySymbol() {
		out[name] = float64(v) / sim.PSPerNS / float64(n)
	}
	return out
}

// symNS is the nanoseconds per measured packet spent in each modelled
// function over all CPUs: the callers behind one profile symbol, apart.
func (l *Lab) symNS() map[sim.Sym]float64 {
	n := l.measuredPackets()
	out := map[sim.Sym]float64{}
	if n <= 0 {
		return out
	}
	for c := range l.m.CPUs {
		for s := sim.Sym(1); s < sim.NumSyms; s++ {
			if v := l.measuredSpentPS(c, s); v > 0 {
				out[s] += float64(v) / sim.PSPerNS / float64(n)
			}
		}
	}
	return out
}
