package diagnose

import (
	"fmt"
	"regexp"
	"strings"

	"pplab/engine/sim"
)

// Advice is what to look at next, derived from the shape.
type Advice struct {
	// Signal is what in the counters calls for it, with the numbers.
	Signal string `json:"signal"`
	// Means is what the kernel does that produces it.
	Means string `json:"means"`
	// Look lists what to check, in order (the kernel's own triage where it
	// documents one).
	Look []string `json:"look"`
}

func ratio(rs []Ratio, name string) (float64, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r.Value, true
		}
	}
	return 0, false
}

// Thresholds of the advice: a share above these is called out.
const (
	releasedShareCallout  = 0.0001 // 0.01 % of the returned pages released for refcnt (a recycling pool releases none)
	ringFullShareCallout  = 0.001  // 0.1 % of the ring puts failed
	cacheFullShareCallout = 0.01
	lowRecyclingPct       = 50.0
	// Before 6.4 every mlx5 pool allocation follows an RX cache miss
	// (about 1 per allocation): below this the two kinds of counter
	// disagree.
	rxCacheMissesCallout = 0.5
)

func advise(p *Paste, run *Run) []Advice {
	var out []Advice
	v := run.c.V
	if run.c.Any() {
		any := false
		for i := range v {
			any = any || v[i] > 0 || run.c.Wrapped[i]
		}
		if !any {
			out = append(out, Advice{Signal: "every counter is 0",
				Means: "the pool allocated nothing: no traffic on this queue in the interval, or the counters are of another device",
				Look:  []string{"check the traffic reaches this device and queue (ethtool -S rx_packets, the RSS indirection table: ethtool -x)"}})
		}
	}
	if a, ok := lossAdvice(run.other); ok {
		out = append(out, a)
	}
	if s, ok := ratio(run.Ratios, "released_refcnt share"); ok && s > releasedShareCallout {
		out = append(out, Advice{Signal: fmt.Sprintf("recycle_released_refcnt is %.2f %% of the pages that came back (%d)", 100*s, v[sim.StatRecycleReleasedRefcnt]),
			Means: "__page_pool_put_page found page_ref_count != 1 (or a pfmemalloc page): something else still held a reference to the page when the last pp user put it, so the pool unmapped it and let it go — every such page is a slow-path allocation later",
			Look: []string{
				"which skbs hold page references: a packet tap or clone (tcpdump, AF_PACKET: skb_clone shares the data, and a clone that is modified — pskb_expand_head, skb_shift, skb_split — takes get_page on the frags, never a pp reference)",
				"a driver that still splits pages by page_ref_inc (its own RX page cache or half-page flip) instead of the frag API (page_pool_alloc_frag / pp_ref_count)",
				"memory pressure: pfmemalloc pages (emergency reserves) are never recycled and are counted here too (check /proc/meminfo, vm.min_free_kbytes)",
				"in the playground: the clone-tap and pfmemalloc scenarios show this shape"}})
	}
	if s, ok := ratio(run.Ratios, "ring_full share"); ok && s > ringFullShareCallout {
		out = append(out, Advice{Signal: fmt.Sprintf("recycle_ring_full %d (%.2f %% of the ring puts)", v[sim.StatRecycleRingFull], 100*s),
			Means: "page_pool_recycle_in_ring found the ptr_ring full: pages came back faster than the NAPI's refills took them out, and each one went back to the page allocator (page_pool_return_page)",
			Look: []string{
				"the ring is too small for the free burst: the ptr_ring is pool_size, which drivers take from their RX ring size — raise it (ethtool -G <dev> rx N)",
				"what frees in bursts: TX completion of forwarded or XDP_REDIRECTed frames (page_pool_put_page_bulk counts ring_full once per call), a socket reader freeing a backlog at once, the defer list flush",
				"a stalled consumer: the NAPI that refills from the ring ran less often (it completes while the reader is slow)"}})
	}
	if pct, ok := ratio(run.Ratios, "recycling %"); ok && pct < lowRecyclingPct && allocs(v) > 0 {
		out = append(out, Advice{Signal: fmt.Sprintf("recycling %.1f %%: most allocations are not matched by a page coming back", pct),
			Means: "pages leave the pool instead of returning: the slow path refills from the page allocator (alloc_slow, up to 64 pages a call) and every page is mapped again",
			Look: []string{
				"does the driver mark its skbs for recycling (skb_mark_for_recycle, 5.14 on; before 6.6 some drivers still call page_pool_release_page when they build an skb)",
				"XDP_PASS or XDP_REDIRECT frames turned into skbs: before 6.4 (9c94bbf9a87b) such an skb cannot give its page back",
				"pages held a long time: socket receive queues (Recv-Q in ss -tanp), a slow reader, GRO held packets",
				"compare alloc_slow × 64 with the packets: the pages the allocator handed out"}})
	}
	if m, ok := ratio(run.Ratios, "RX cache misses per alloc"); ok && m < rxCacheMissesCallout && allocs(v) >= 1000 {
		cv := run.c.Cache
		out = append(out, Advice{Signal: fmt.Sprintf("rx_cache_empty + rx_cache_busy %d against %d page_pool allocations (%.4f per allocation)", cv[cacheEmpty]+cv[cacheBusy], allocs(v), m),
			Means: "before 6.4 mlx5's RX refill asks its own page cache first (mlx5e_page_alloc_pool → mlx5e_rx_cache_get) and takes a page from the pool only when the cache is empty or its head page busy, so every page_pool allocation follows one of those misses; here the pool allocated without them: these rx_cache_* and rx_pp_* counters are not of one kernel's listing (from 6.4 mlx5 prints no rx_cache_*), and no model run can have printed both — the candidates' distances say how far each is",
			Look: []string{
				"the kernel (uname -r): before 6.4 the rx_cache_* counters count every page; from 6.4 they are gone, and a listing with them is another kernel's",
				"whether the listing was put together from two snapshots, machines or kernels (a script's output, a hand edit)",
				"paste the whole ethtool -S output of one machine at one time"}})
	}
	if v[sim.StatAllocWaive] > 0 {
		out = append(out, Advice{Signal: fmt.Sprintf("alloc_waive %d", v[sim.StatAllocWaive]),
			Means: "page_pool_refill_alloc_cache met ring pages of another NUMA node than the pool's and released them: the pool's node changed (page_pool_nid_changed → page_pool_update_nid when the NAPI runs on another node) or the pages were allocated remote",
			Look: []string{"the NIC IRQs' CPUs against the NIC's node (cat /sys/class/net/<dev>/device/numa_node, /proc/irq/*/smp_affinity_list): pin them to the NIC's node",
				"in the playground: numa-migrate"}})
	}
	if s, ok := ratio(run.Ratios, "cache_full share"); ok && s > cacheFullShareCallout {
		out = append(out, Advice{Signal: fmt.Sprintf("recycle_cache_full %d (%.1f %% of the direct recycles)", v[sim.StatRecycleCacheFull], 100*s),
			Means: "a direct recycle found the 128-slot alloc cache full: more pages came back in the NAPI context than it allocated before the next refill; they went to the ptr_ring instead (correct, but one producer lock each)",
			Look:  []string{"a poll that frees more than it allocates: XDP_TX / redirect completions in the same NAPI, a large GRO flush; usually harmless"}})
	}
	if cs, ok := ratio(run.Ratios, "cached share"); ok && cs == 0 && v[sim.StatRecycleRing] > 0 {
		out = append(out, Advice{Signal: "recycle_cached 0: every recycled page went through the ptr_ring",
			Means: "no free ran in a context allowed to recycle directly: before 6.4 skb frees always take the ring; from 6.4 only an skb freed in the pool's NAPI context on its CPU goes to the cache, and only if the driver set pp.napi",
			Look: []string{"the kernel: 6.4 or later for NAPI-local recycling (8c48eea3adf3)",
				"the driver: does it set page_pool_params.napi (bnxt, mlx5 do from 6.4; many SoC drivers never do)",
				"where the frees run: the application on another CPU than the IRQ (RFS/RPS, the reader's CPU) frees off the NAPI CPU — from 5.19 the deferred free (skb_attempt_defer_free) brings TCP frees back to it"}})
	}
	// A pool's or device's own advice goes with its device's run.
	mine := func(key string) bool { return len(run.keys) == 0 || contains(run.advised, key) }
	for _, sn := range p.Snapshots[len(p.Snapshots)-1:] {
		for _, pl := range sn.Pools {
			if !mine(poolKey(pl)) {
				continue
			}
			switch {
			case pl.Detached && pl.HasInflight && pl.Inflight > 0:
				out = append(out, Advice{Signal: fmt.Sprintf("pool %d is a zombie: detached at %d s (detach-time) with %d pages in flight", pl.ID, pl.DetachTime, pl.Inflight),
					Means: "page_pool_destroy could not free the pool: pages it handed out have not come back (page_pool_release_retry retries every second; up to 6.7 dmesg says \"page_pool_release_retry() stalled pool shutdown N inflight S sec\" every 60 s, from 6.8 only for pools netlink cannot show, <20231122034420.1158898-13-kuba@kernel.org>)",
					Look: []string{
						"first, a socket holding unread packets: Recv-Q in ss -tanp / netstat -tapenu (the netdev maintainers' first question); closing it returns the pages",
						"if no socket holds them, a driver leak is more likely (a page neither put nor released on some error or teardown path)",
						"drgn's contrib/pp_leak scripts scan the pages whose pool is detached (which holder, which skb)",
						"in the playground: destroy (a socket holds 32 skbs; the last returns after 90 s)"}})
			case pl.HasPoolFields && !pl.HasIfindex && pl.Ifname == "":
				out = append(out, Advice{Signal: fmt.Sprintf("pool %d has no ifindex: orphaned", pl.ID),
					Means: "its netdev was unregistered while the pool lived on: page_pool_unreg_netdev moved it to lo, and netlink leaves the ifindex out",
					Look:  []string{"a pool that outlives its netdev waits for pages in flight: see its inflight and detach-time"}})
			}
		}
		for _, d := range sn.Devices {
			if d.Zombies > 0 && d.ZombieRefs > 0 && mine(deviceKey(d)) {
				verb := "hold"
				if d.Zombies == 1 {
					verb = "holds"
				}
				out = append(out, Advice{Signal: fmt.Sprintf("%s[%d]: %s %s %d pages (%d bytes)", d.Ifname, d.Ifindex, plural(d.Zombies, "zombie pool"), verb, d.ZombieRefs, d.ZombieBytes),
					Means: "detached pools whose pages have not come back (ynltool counts a pool with detach-time as a zombie)",
					Look:  []string{"ynltool page-pool stats zombies (or ynl --dump page-pool-get) for their ids and detach-time", "then as for a zombie pool: Recv-Q of the sockets, else a driver leak; drgn contrib/pp_leak"}})
			}
		}
	}
	if len(out) == 0 && run.c.Any() {
		out = append(out, Advice{Signal: "nothing stands out", Means: "the pages come back and are reused; no ring_full, no released pages above the thresholds",
			Look: []string{"compare with the nearest scenarios' runs in the playground"}})
	}
	return out
}

// lossCounters are the driver counters of frames the device received and
// lost before the stack had them (the RX ring had no buffer, the FIFO
// overflowed), and of the refills that found no page: the page_pool
// counters never see those frames, and the model's runs lose none.
var lossCounters = []struct {
	re    func() *regexp.Regexp
	alloc bool // a refill or allocation that failed, not a frame lost at the NIC
}{
	// mvneta, mvpp2 (mvneta_statistics[], mvpp2_ethtool_mib_regs[])
	{lazyRegexp(`^rx_(discard|overrun|fifo_overrun)$`), false},
	// mlx5 (en_stats.c): no receive WQE posted, the port's discards
	{lazyRegexp(`^rx_(out_of_buffer|discards_phy)$`), false},
	// the netdev's own counters, as many drivers print them; bnxt's
	{lazyRegexp(`^rx_(dropped|missed_errors|fifo_errors|over_errors|no_buffer_count|discards|total_discard_pkts|buf_errors)$`), false},
	{lazyRegexp(`^(refill_errors?|skb_alloc_errors?|rx_buff_alloc_err)$`), true},
}

// isLoss reports whether a driver counter counts a loss (lossCounters).
func isLoss(name string) bool {
	for _, l := range lossCounters {
		if l.re().MatchString(name) {
			return true
		}
	}
	return false
}

// lossAdvice is what to look at when the driver's counters show frames
// lost (other: the run's driver counters); ok false for none.
func lossAdvice(other []Named) (Advice, bool) {
	var lost, failed float64
	var named, allocNamed []string
	for _, o := range other {
		for _, l := range lossCounters {
			if !l.re().MatchString(o.Name) || o.Value <= 0 {
				continue
			}
			if l.alloc {
				failed += o.Value
				allocNamed = append(allocNamed, fmt.Sprintf("%s %s (line %d)", o.Name, human(o.Value), o.Line))
			} else {
				lost += o.Value
				named = append(named, fmt.Sprintf("%s %s (line %d)", o.Name, human(o.Value), o.Line))
			}
			break
		}
	}
	if lost == 0 && failed == 0 {
		return Advice{}, false
	}
	frames, framesWhat := rxFrames(Snapshot{Other: other})
	var sig []string
	if lost > 0 {
		s := strings.Join(named, ", ") + ": " + human(lost) + " frames lost"
		if frames > 0 {
			s += fmt.Sprintf(": %.2g %% of %s received (lost / received)", 100*lost/frames, framesWhat)
		}
		sig = append(sig, s)
	}
	if failed > 0 {
		sig = append(sig, strings.Join(allocNamed, ", ")+": refills or allocations that found no memory")
	}
	a := Advice{Signal: strings.Join(sig, "; "),
		Means: "the device had frames it could not hand to the driver: the RX ring had no free buffer when they came (a discard) or the receive FIFO filled (an overrun) — the NAPI poll did not take frames out and refill the ring as fast as they arrived. The page_pool counters count only the frames that got a buffer, so none of these shows in them, nor in the model's runs, which lose none",
		Look: []string{
			"the CPU that runs the NIC's NAPI: saturated? (mpstat -P ALL 1: %soft near 100; /proc/net/softnet_stat, its third column — time_squeeze — growing: the poll ran out of budget)",
			"the RX ring: ethtool -g <dev>; a larger ring (ethtool -G <dev> rx N) absorbs the bursts (the pool's ptr_ring is sized from it too)",
			"the load spread: more RX queues and RSS (ethtool -l / -L, ethtool -x), the IRQs' CPUs (/proc/irq/*/smp_affinity_list), interrupt coalescing (ethtool -c)",
			"the NAPI budget: net.core.netdev_budget and netdev_budget_usecs",
		}}
	if failed > 0 {
		a.Look = append(a.Look, "the refill's failures: memory pressure (/proc/meminfo, /proc/buddyinfo), and the pool's alloc_slow (each a bulk call to the page allocator)")
	}
	if lost == 0 {
		a.Means = "the driver could not get memory for a refill or an skb: the RX ring ran short of buffers, and the frames that came meanwhile were dropped (or, for an skb, the frame was). The page_pool counters do not count the failures, nor the model's runs, which fail none"
		a.Look = []string{a.Look[len(a.Look)-1], a.Look[1]}
	}
	return a, true
}
