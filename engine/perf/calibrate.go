package perf

import (
	"fmt"
	"math"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
	"pplab/engine/workload"
)

// Calibration is code: Calibrate derives every platform's cycle table from
// the shipped profiles (profiles/*.txt), the kernel bench figures (bench-x86)
// and documented platform factors; the tables in engine/sim/calibrated.go
// are its output, and TestCalibration fails if they drift.
//
// The method, per platform:
//
//  1. Cycle factor F: trained platforms measure page_pool_put_page per packet
//     in the after profile (with recycling, one put per packet; on arm64 the
//     producer spin lock is inlined into it). F = those cycles / the bench
//     machine's cycles for the same work (page_pool_put_page + ptr_ring
//     produce + producer lock = 41). Every cost not measured on the platform
//     is the bench machine's × F (the pool's own operations are the kernel
//     bench's, scaled). Platforms without a training pair take F (and the
//     tail below) from a reference platform of the same class.
//  2. Listed symbols: the model runs the profile's workload in the profile's
//     era; each listed symbol the model knows has its functions' costs scaled
//     so that the run spends exactly the measured ns per packet (share × time
//     per packet). The after profile does the same for symbols only it lists
//     (page_pool_put_page, __xdp_return, page_pool_refill_alloc_cache, …).
//  3. The unlisted remainder: a training pair has two unknowns left — the
//     rest of the stack (per packet, the same before and after) and a factor
//     on the page allocator path's functions the listing does not show
//     (__page_pool_alloc_pages_slow, dma_map/unmap_page_attrs,
//     page_frag_free, …: what recycling removes besides the listed ones) —
//     and two equations (before and after time per packet). A platform with
//     only a before profile keeps its reference's path costs and solves the
//     rest of the stack.
type calibSpec struct {
	Platform         string
	Driver, Scenario string
	Before, After    string // shipped profile names
	BeforeEra        string
	AfterEra         string
	Rate             string  // the profile rate label to use ("" = the first)
	Ref              string  // reference platform (same CPU class) for F and the tail
	RefScale         float64 // cycles = ref cycles × RefScale / F(ref) (0: keep ref's cycles, same class)
	// Cited are costs measured on the platform's class of machine and
	// published, which replace whatever the steps above derive.
	Cited []citedCost
}

// citedCost is one symbol's cost from a published measurement: the cycles
// and where they come from (the measurement and the arithmetic).
type citedCost struct {
	Sym    sim.Sym
	Cost   sim.Cost
	Source string
}

// x86Receive are a TCP receiver's costs on an x86 server, from Eric
// Dumazet's perf top of the CPU that runs recvmsg() for one flow at
// 96 Gbit/s (12 GB/s of payload on one saturated core; "Re: [PATCH
// net-next 17/20] tcp: defer skb freeing after socket lock is released",
// 16 Nov 2021, <CANn89iJ5kWdq+agqif+72mrvkBSyHovphrHOUxb2rj-vg5EL8w@mail.gmail.com>):
// copy_user_enhanced_fast_string 81.06 %, __skb_datagram_iter 2.50 %,
// _copy_to_iter 2.25 %, tcp_recvmsg_locked 1.45 %. A share × 1 s / 12 GB is
// the time per byte, in cycles at the model's 3.6 GHz; tcp_recvmsg_locked
// per ~64 KB GRO skb (183 k skbs/s). The copy agrees with two other
// measurements (68822bdf76f1's profile, 81.35 % at 73 Gbit/s, ~11 GB/s per
// core; 93ab6cc69162's mmap before/after, 13–15 GB/s). The rest of that core
// (about 10 %: tcp_rcv_established, skb_try_coalesce, tcp_queue_rcv and
// __release_sock, the socket backlog the reader processes while it owns
// the socket; sock_rfree) is work the model does on the NAPI CPU (it has
// no socket backlog) or not at all.
var x86Receive = []citedCost{
	{sim.SymCopyToUser, sim.Cost{Fixed: 20, PerUnitMilli: 243}, "measured: 81.06 % of the recvmsg() CPU at 12 GB/s (Dumazet, <CANn89iJ5kWdq+agqif+72mrvkBSyHovphrHOUxb2rj-vg5EL8w@mail.gmail.com>): 67.5 ps per byte; the per-call part an x86 default"},
	{sim.SymTCPRecvmsg, sim.Cost{Fixed: 285, PerUnitMilli: 14}, "measured: tcp_recvmsg_locked 1.45 % (79 ns per 64 KB skb) and __skb_datagram_iter + _copy_to_iter 4.75 % (4.0 ps per byte) of the recvmsg() CPU at 12 GB/s (Dumazet, <CANn89iJ5kWdq+agqif+72mrvkBSyHovphrHOUxb2rj-vg5EL8w@mail.gmail.com>)"},
}

var calibSpecs = []calibSpec{
	{Platform: "macchiatobin", Driver: "mvpp2", Scenario: workload.WDrop, Before: "mvpp2-v1-before", After: "mvpp2-v1-after", BeforeEra: "5.12", AfterEra: "rfc-v1"},
	{Platform: "espressobin", Driver: "mvneta", Scenario: workload.WDrop, Before: "mvneta-v1-before", After: "mvneta-v1-after", BeforeEra: "5.12", AfterEra: "rfc-v1"},
	// Cortex-A15 is out-of-order: A72 class.
	{Platform: "ti-cpsw", Driver: "cpsw", Scenario: workload.WTCPStream, Before: "cpsw-before", BeforeEra: "5.13", Ref: "macchiatobin"},
	// an in-order MIPS core: A53 class. The profile is NAT forwarding of UDP.
	{Platform: "lunar-mips", Driver: "lunar", Scenario: workload.WForward, Before: "lunar-baseline", BeforeEra: "5.12", Rate: "UDP", Ref: "espressobin"},
	// no profiles: the bench machine's cycles (F = 1), the A72 calibration
	// of what the bench does not measure brought back to bench cycles.
	{Platform: "x86-server", Ref: "macchiatobin", RefScale: 1, Cited: x86Receive},
	{Platform: "arm64-server", Ref: "macchiatobin"},
}

// Calibrated is one platform's derived table.
type Calibrated struct {
	Platform string
	F        float64 // cycle factor vs the bench machine
	Cycles   [sim.NumSyms]sim.Cost
	Source   string
	// Prov says, per symbol, where its cost comes from: "bench" (the kernel
	// bench's measured sums, × F on another CPU), "x86 default" (an
	// order-of-magnitude x86 figure, × F), "measured: PROFILE (era)" (fitted
	// to a listed symbol), "fitted: …" (solved from a training pair),
	// "derived: …", or "from REF: …" (carried over from the reference
	// platform of the same CPU class).
	Prov [sim.NumSyms]string
}

// benchMeasured are the functions the kernel bench's three measured sums
// cover (cost.go: fast, ring and slow; the split between them is ours).
var benchMeasured = map[sim.Sym]bool{sim.SymAllocPages: true, sim.SymPutPage: true, sim.SymRecycleInCache: true,
	sim.SymRecycleInRing: true, sim.SymRefillAllocCache: true, sim.SymProducerLock: true, sim.SymPtrRingProduce: true,
	sim.SymGetPage: true, sim.SymReleasePage: true, sim.SymPutPageRef: true, sim.SymFreePage: true,
	sim.SymAllocPagesSlow: true, sim.SymAllocPagesBulk: true}

// platformDMA are the costs that hold DMA-API or cache-maintenance work,
// which depends on the platform (coherence, IOMMU, the DMA ops): they never
// carry over from one platform's measurement to another's. On the A72
// (macchiatobin) page_pool_release_page also holds the DMA unmap it
// inlines, which a platform with its own dma_unmap_page_attrs cost would
// count twice.
var platformDMA = map[sim.Sym]bool{sim.SymPoolDMAMap: true, sim.SymDMAMapPage: true, sim.SymDMAUnmapPage: true,
	sim.SymIOMMUMap: true, sim.SymIOMMUUnmap: true, sim.SymSyncForDevice: true, sim.SymSyncForCPU: true,
	sim.SymCacheMaint: true, sim.SymTxDMAMap: true, sim.SymTxDMAUnmap: true, sim.SymReleasePage: true}

// benchProv is where the bench table's cost of s comes from.
func benchProv(s sim.Sym) string {
	if benchMeasured[s] {
		return "bench"
	}
	return "x86 default"
}

// calibPackets is the measured length of a calibration run.
const calibPackets = 20_000

// Calibrate derives every platform's table, in calibSpecs order (references
// first).
func Calibrate() ([]Calibrated, error) {
	done := map[string]Calibrated{}
	var out []Calibrated
	for _, cs := range calibSpecs {
		c, err := calibrate(cs, done)
		if err != nil {
			return nil, fmt.Errorf("calibrating %s: %w", cs.Platform, err)
		}
		done[cs.Platform] = c
		out = append(out, c)
	}
	return out, nil
}

// benchPutCycles is the bench machine's cost of one put into the ptr_ring:
// page_pool_put_page + page_pool_recycle_in_ring + __ptr_ring_produce +
// the producer lock.
func benchPutCycles() int64 {
	c := &sim.BenchX86.Cycles
	return c[sim.SymPutPage].Fixed + c[sim.SymRecycleInRing].Fixed + c[sim.SymPtrRingProduce].Fixed + c[sim.SymProducerLock].Fixed
}

func scaled(src [sim.NumSyms]sim.Cost, k float64) [sim.NumSyms]sim.Cost {
	var out [sim.NumSyms]sim.Cost
	for s := range src {
		out[s] = sim.Cost{Fixed: int64(math.Round(float64(src[s].Fixed) * k)), PerUnitMilli: int64(math.Round(float64(src[s].PerUnitMilli) * k))}
	}
	return out
}

func calibrate(cs calibSpec, done map[string]Calibrated) (Calibrated, error) {
	meta, err := sim.PlatformByName(cs.Platform)
	if err != nil {
		return Calibrated{}, err
	}
	p := *meta
	c := Calibrated{Platform: cs.Platform}
	var src []string
	switch {
	case cs.Ref != "":
		ref, ok := done[cs.Ref]
		if !ok {
			return c, fmt.Errorf("reference %s is not calibrated yet", cs.Ref)
		}
		c.F = ref.F
		p.Cycles = ref.Cycles
		if cs.RefScale > 0 {
			c.F = cs.RefScale
			p.Cycles = scaled(ref.Cycles, cs.RefScale/ref.F)
		}
		bench := scaled(sim.BenchX86.Cycles, c.F)
		timesF := ""
		if c.F != 1 {
			timesF = " × F"
		}
		for s := range p.Cycles {
			c.Prov[s] = "from " + cs.Ref + ": " + ref.Prov[s]
			switch {
			case platformDMA[sim.Sym(s)]:
				// DMA and cache work is the platform's own: the bench
				// machine's x86 figure × F (or this platform's profile, below).
				p.Cycles[s], c.Prov[s] = bench[s], benchProv(sim.Sym(s))+timesF
			case cs.RefScale > 0 && benchMeasured[sim.Sym(s)]:
				// Another CPU class: the pool's own operations are the
				// kernel bench's, not the reference's fit.
				p.Cycles[s], c.Prov[s] = bench[s], "bench"+timesF
			}
		}
		src = append(src, fmt.Sprintf("cycle factor %.3f and the CPU work the bench does not measure from %s; DMA and cache work from the bench's x86 figures", c.F, cs.Ref))
		if cs.RefScale > 0 {
			src[len(src)-1] += ", the pool's operations from the bench's measured sums"
		}
	default:
		after, _, err := ShippedProfile(cs.After)
		if err != nil {
			return c, err
		}
		tA, err := profileNS(after, cs.Rate, cs.Scenario)
		if err != nil {
			return c, err
		}
		putNS := after.Share("page_pool_put_page") / 100 * tA
		c.F = putNS * float64(p.MHz) / 1000 / float64(benchPutCycles())
		p.Cycles = scaled(sim.BenchX86.Cycles, c.F)
		for s := range c.Prov {
			c.Prov[s] = benchProv(sim.Sym(s)) + " × F"
		}
		src = append(src, fmt.Sprintf("cycle factor %.3f = page_pool_put_page in %s (%.1f ns) / the bench's 41 cycles", c.F, cs.After, putNS))
	}
	for _, ct := range cs.Cited {
		p.Cycles[ct.Sym], c.Prov[ct.Sym] = ct.Cost, ct.Source
	}
	if len(cs.Cited) > 0 {
		src = append(src, fmt.Sprintf("%d receive costs measured on x86 (cited per symbol)", len(cs.Cited)))
	}
	if cs.Before == "" {
		c.Cycles = p.Cycles
		c.Source = strings.Join(src, "; ")
		return c, nil
	}
	fitted := func(syms []sim.Sym, prov string) {
		for _, s := range syms {
			c.Prov[s] = prov
		}
	}
	before, _, err := ShippedProfile(cs.Before)
	if err != nil {
		return c, err
	}
	p.Cycles[sim.SymStackRest] = sim.Cost{}
	// 2. listed symbols
	listedB, syms, err := fitListed(&p, cs, cs.BeforeEra, before, nil)
	if err != nil {
		return c, err
	}
	fitted(syms, fmt.Sprintf("measured: %s (%s)", cs.Before, cs.BeforeEra))
	src = append(src, fmt.Sprintf("%d listed symbols of %s (era %s)", listedB, cs.Before, cs.BeforeEra))
	var after *Profile
	if cs.After != "" {
		after, _, _ = ShippedProfile(cs.After)
		n, syms, err := fitListed(&p, cs, cs.AfterEra, after, before)
		if err != nil {
			return c, err
		}
		fitted(syms, fmt.Sprintf("measured: %s (%s)", cs.After, cs.AfterEra))
		src = append(src, fmt.Sprintf("%d symbols only %s lists (era %s)", n, cs.After, cs.AfterEra))
	}
	if n, err := capUnlisted(&p, &c, cs, before, after); err != nil {
		return c, err
	} else if n != "" {
		src = append(src, n)
	}
	if before.Share(p.ProfileName(sim.SymAllocPagesBulk)) == 0 && before.Share(p.ProfileName(sim.SymAllocPagesNode)) > 0 {
		// The bulk allocator's cost follows the platform's measured
		// single-page allocation.
		p.Cycles[sim.SymAllocPagesBulk] = bulkFromSingle(&p)
		c.Prov[sim.SymAllocPagesBulk] = "derived: from the measured get_page_from_freelist and the bench's per-call/per-page ratio"
		src = append(src, "__alloc_pages_bulk from the measured get_page_from_freelist (the bench's per-call and per-page ratios)")
	}
	// 3. the page allocator path's unlisted functions and the rest of the stack
	tB, err := profileNS(before, cs.Rate, cs.Scenario)
	if err != nil {
		return c, err
	}
	tB *= 1 - idleShare(before)/100
	mB, uB, err := pathProbe(&p, cs, cs.BeforeEra, before)
	if err != nil {
		return c, err
	}
	alpha := 1.0
	if after != nil {
		tA, _ := profileNS(after, cs.Rate, cs.Scenario)
		tA *= 1 - idleShare(after)/100
		mA, uA, err := pathProbe(&p, cs, cs.AfterEra, before)
		if err != nil {
			return c, err
		}
		if uB-uA <= 0 {
			return c, fmt.Errorf("the change does not remove unlisted page allocator work (%.1f → %.1f ns per packet)", uB, uA)
		}
		alpha = 1 + ((tB-mB)-(tA-mA))/(uB-uA)
		if alpha < 0 {
			return c, fmt.Errorf("calibration out of range: the unlisted page allocator path would cost %.2f× the model's", alpha)
		}
		for _, sym := range allocatorPath {
			if sym == sim.SymAllocPagesBulk {
				continue // derived from the measured single-page allocation below
			}
			if before.Share(p.ProfileName(sym)) == 0 {
				p.Cycles[sym] = sim.Cost{Fixed: int64(math.Round(float64(p.Cycles[sym].Fixed) * alpha)), PerUnitMilli: int64(math.Round(float64(p.Cycles[sym].PerUnitMilli) * alpha))}
				c.Prov[sym] = fmt.Sprintf("fitted: the unlisted page allocator path, %s/%s (×%.3f)", cs.Before, cs.After, alpha)
			}
		}
		src = append(src, fmt.Sprintf("the page allocator path's unlisted functions × %.3f (%.1f ns per packet in %s) and the rest of the stack solved from both rates", alpha, alpha*uB, cs.BeforeEra))
	} else {
		src = append(src, "the rest of the stack solved from the rate")
	}
	rest := tB - mB - (alpha-1)*uB
	if rest < 0 {
		return c, fmt.Errorf("calibration out of range: rest of the stack %.1f ns per packet", rest)
	}
	p.Cycles[sim.SymStackRest] = sim.Cost{Fixed: int64(math.Round(rest * float64(p.MHz) / 1000))}
	c.Prov[sim.SymStackRest] = "fitted: the rest of the stack, from " + cs.Before + "'s rate"
	c.Cycles = p.Cycles
	c.Source = strings.Join(src, "; ")
	return c, nil
}

// unlistedCapped are the costs a platform's measured listing bounds when
// it does not list them: the cache maintenance of a non-coherent platform
// (r4k_dma_cache_inv on lunar's MIPS) carries the bench's x86 figure × F
// (there is no per-line measurement), and a listing that shows none of it
// says it took less than the smallest share it lists.
var unlistedCapped = []sim.Sym{sim.SymCacheMaint}

// capUnlisted lowers each unlistedCapped cost that neither listing of the
// training pair shows so that its share of the before era's calibration
// run is at most the before listing's smallest share: an agreement with
// the measurement (TestCalibration_UnlistedCostsStayUnderTheListing), not
// a measurement of the cost, which stays an upper bound. It names what it
// capped ("" for nothing).
func capUnlisted(p *sim.Platform, c *Calibrated, cs calibSpec, before, after *Profile) (string, error) {
	floor := before.Floor()
	if floor <= 0 {
		return "", nil
	}
	m, err := calibRun(p, cs, cs.BeforeEra)
	if err != nil {
		return "", err
	}
	t, err := profileNS(before, cs.Rate, cs.Scenario)
	if err != nil {
		return "", err
	}
	var capped []string
	for _, s := range unlistedCapped {
		name := p.ProfileName(s)
		if before.Share(name) > 0 || (after != nil && after.Share(name) > 0) {
			continue
		}
		share := m.SymbolNS[name] / t * 100
		if share <= floor {
			continue
		}
		k := floor / share
		p.Cycles[s] = sim.Cost{Fixed: int64(math.Round(float64(p.Cycles[s].Fixed) * k)), PerUnitMilli: int64(math.Round(float64(p.Cycles[s].PerUnitMilli) * k))}
		c.Prov[s] = fmt.Sprintf("capped: %s is not in %s's listing, so under its smallest share (%.2f %%): the bench's x86 figure × F × %.3f, an upper bound", name, cs.Before, floor, k)
		capped = append(capped, fmt.Sprintf("%s capped at %s's smallest listed share (%.2f %%; the model gave %.1f %%)", name, cs.Before, floor, share))
	}
	return strings.Join(capped, "; "), nil
}

// bulkFromSingle derives __alloc_pages_bulk's cost on platform p from its
// single-page allocation (get_page_from_freelist, which a 5.12 profile
// measures): __alloc_pages_bulk takes the pcp list once per call and then
// does rmqueue_pcplist's work per page without __alloc_pages' per-call
// entry, so the bench machine's split (126 cycles per call + 53 per page
// against 110 for one alloc_pages_node) carries over. A training pair has
// no bulk call in either era, so it cannot scale it (the pre-bulk and the
// rfc-v1 run both take one page per call).
func bulkFromSingle(p *sim.Platform) sim.Cost {
	b, n := sim.BenchX86.Cycles[sim.SymAllocPagesBulk], sim.BenchX86.Cycles[sim.SymAllocPagesNode].Fixed
	single := float64(p.Cycles[sim.SymAllocPagesNode].Fixed)
	return sim.Cost{Fixed: int64(math.Round(single * float64(b.Fixed) / float64(n))), PerUnitMilli: int64(math.Round(single * float64(b.PerUnitMilli) / float64(n)))}
}

// allocatorPath are the functions of one page's round trip through the page
// allocator and the DMA API besides the ones profiles list by name: what
// recycling removes. A training pair scales the unlisted ones together
// (step 3 of the method).
var allocatorPath = []sim.Sym{sim.SymAllocPagesSlow, sim.SymAllocPageOrder, sim.SymPoolDMAMap, sim.SymSetPPInfo,
	sim.SymDMAMapPage, sim.SymDMAUnmapPage, sim.SymReturnPage, sim.SymPageFragFree, sim.SymAllocPagesBulk,
	sim.SymAllocPagesNode, sim.SymFreePage}

// calibRun runs the calibration workload on platform p in era.
func calibRun(p *sim.Platform, cs calibSpec, era string) (lab.Measurement, error) {
	return lab.Measure(lab.Config{Driver: cs.Driver, Scenario: cs.Scenario, Era: era, Packets: calibPackets, Seed: 1}, p)
}

// fitListed scales the model's functions behind each listed symbol of prof
// (skipping those also in skip) to the measured ns per packet.
func fitListed(p *sim.Platform, cs calibSpec, era string, prof, skip *Profile) (int, []sim.Sym, error) {
	m, err := calibRun(p, cs, era)
	if err != nil {
		return 0, nil, err
	}
	t, err := profileNS(prof, cs.Rate, cs.Scenario)
	if err != nil {
		return 0, nil, err
	}
	var syms []sim.Sym
	model := m.SymbolNS
	n := 0
	seen := map[string]bool{}
	for _, line := range prof.Lines {
		g := line.Symbol
		if seen[g] || (skip != nil && skip.Share(g) > 0) || model[g] <= 0 || idleSymbols[g] {
			continue
		}
		seen[g] = true
		k := prof.Share(g) / 100 * t / model[g]
		for s := sim.Sym(1); s < sim.NumSyms; s++ {
			if m.ProfileName[s] == g {
				p.Cycles[s] = sim.Cost{Fixed: int64(math.Round(float64(p.Cycles[s].Fixed) * k)), PerUnitMilli: int64(math.Round(float64(p.Cycles[s].PerUnitMilli) * k))}
				syms = append(syms, s)
			}
		}
		n++
	}
	return n, syms, nil
}

// pathProbe runs the workload in era and returns the ns per packet spent
// and the part of it in allocatorPath functions that prof does not list.
func pathProbe(p *sim.Platform, cs calibSpec, era string, prof *Profile) (float64, float64, error) {
	m, err := calibRun(p, cs, era)
	if err != nil {
		return 0, 0, err
	}
	var total float64
	for _, ns := range m.SymbolNS {
		total += ns
	}
	var path int64
	for _, sym := range allocatorPath {
		if prof.Share(m.ProfileName[sym]) > 0 {
			continue
		}
		path += m.SpentPS[sym]
	}
	return total, float64(path) / sim.PSPerNS / float64(m.Packets), nil
}

// idleSymbols are the idle loop: samples there are not packet work.
var idleSymbols = map[string]bool{
	"r4k_wait_irqoff": true, "r4k_wait": true, "cpuidle_enter_state_coupled": true, "cpuidle_enter_state": true,
	"arch_cpu_idle": true, "default_idle_call": true, "cpu_do_idle": true, "poll_idle": true, "intel_idle": true,
	"mwait_idle": true, "acpi_idle_do_entry": true, "do_idle": true, "cpu_startup_entry": true, "psci_cpu_suspend_enter": true,
}

func idleShare(p *Profile) float64 {
	var t float64
	for _, l := range p.Lines {
		if idleSymbols[l.Symbol] {
			t += l.Pct
		}
	}
	return t
}

// profileNS is the time per packet the profile's measured rate implies.
func profileNS(p *Profile, label, scenario string) (float64, error) {
	if len(p.Rates) == 0 {
		return 0, fmt.Errorf("profile %s states no rate", p.Name)
	}
	r := p.Rates[0]
	for _, x := range p.Rates {
		if label != "" && strings.EqualFold(x.Label, label) {
			r = x
		}
	}
	return rateNS(r.Value, r.Unit, payloadBytes(scenario, r.Label))
}

// payloadBytes is what a Mbit/s rate counts per packet: iperf counts payload.
func payloadBytes(scenario, label string) int {
	switch {
	case strings.EqualFold(label, "TCP"), scenario == workload.WTCPStream:
		return workload.PayloadTCP
	case scenario == workload.WForward:
		return workload.PayloadUDP
	}
	return workload.FrameSmall
}

// rateNS converts a rate to ns per packet.
func rateNS(v float64, unit string, payload int) (float64, error) {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("rate %v: want a positive number", v)
	}
	switch unit {
	case "kpps":
		return 1e6 / v, nil
	case "pps":
		return 1e9 / v, nil
	case "mbps":
		return float64(payload*8) * 1e3 / v, nil
	}
	return 0, fmt.Errorf("unit %q: want kpps, pps or mbps", unit)
}
