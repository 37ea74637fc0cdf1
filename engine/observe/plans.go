package observe

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

const srcPP = "net/core/page_pool.c"

func tpCmd(text, shows, source string) Command {
	return Command{Kind: Bpftrace, Text: text, Run: runBpftrace, Shows: shows, Validated: validTP, Source: source}
}

func kfCmd(text, shows, source string) Command {
	return Command{Kind: Bpftrace, Text: text, Run: runBpftrace, Shows: shows, Validated: validKfunc, Source: source}
}

func drgnCmd(text, shows, source string) Command {
	return Command{Kind: Drgn, Text: text, Run: runDrgn, Shows: shows, Validated: validDrgn, Source: source}
}

func stalledCmd(e *sim.Era) Command {
	pat, format := stalledLine(e)
	shows := "the warning page_pool_release_retry prints every 60 s while a destroyed pool still has pages out (\"" + format + "\")"
	if e.PoolNetlink {
		shows += "; from 6.8 only for a pool netlink cannot show (no netdev): a visible pool is seen with page-pool-get instead (detach-time set, inflight > 0)"
	}
	if e.RetryStopsNegative {
		shows += "; a negative inflight (more returns than holds: a driver bug) stops the retries (43130d02baa1, 6.15)"
	}
	return Command{Kind: Dmesg, Text: "dmesg -w | grep -E '" + pat + "'", Shows: shows, Validated: validDmesg,
		Source: srcPP + ": page_pool_release_retry (" + e.Tag + ")"}
}

func poolGetCmd(e *sim.Era) Command {
	shows := "every pool with a netdev: id, ifindex (gone once the netdev unregistered), napi-id, inflight, inflight-mem, and detach-time once page_pool_destroy ran: a detached pool with inflight > 0 is a zombie"
	if e.MemProvider != sim.MPNone {
		shows += "; dmabuf for a pool bound to a dma-buf (devmem, 6.12)"
	}
	if e.MemProvider == sim.MPOps {
		shows += "; io-uring (an empty nest) for io_uring zero-copy RX (6.15)"
	}
	return Command{Kind: YNL, Text: ynlCmd("page-pool-get"), Run: ynlRun(e, "page-pool-get"), Shows: shows, Validated: validYNL,
		Source: "net/core/page_pool_user.c: page_pool_nl_fill (" + e.Tag + "); Documentation/netlink/specs/netdev.yaml"}
}

func ynltoolCmd(what string) Command {
	return Command{Kind: Ynltool, Text: "ynltool page-pool stats" + what,
		Shows:     "per device: page pools and zombies (detached pools), refs and bytes in flight, and recycling % = (ring + cache) / (fast + slow), alloc slow:fast, recycle ring:cache",
		Validated: "the command and its output format as tools/net/ynl/ynltool (6.19, <20251104232348.1954349-4-kuba@kernel.org>); not run",
		Source:    "tools/net/ynl/ynltool page-pool stats (v6.19)"}
}

// destroyPlan: page_pool_destroy → page_pool_release → (inflight > 0)
// page_pool_release_retry every second, "stalled pool shutdown" every
// 60 s, netlink's detach-time (net/core/page_pool.c,
// net/core/page_pool_user.c).
func destroyPlan(e *sim.Era) Plan {
	p := Plan{Tracepoint: true,
		Note: "page_pool_release traces every release attempt of a destroyed pool with its inflight; page_pool_state_release shows each page that comes back after."}
	p.Commands = append(p.Commands, tpCmd(releaseScript(e),
		"each attempt to free a destroyed pool (inflight = hold − release; cnt = destroy_cnt, 1 at page_pool_destroy, then one per retry) and each page returned after it; the pool is freed after the line with inflight=0",
		srcPP+": page_pool_release, page_pool_inflight (trace_page_pool_release); include/trace/events/page_pool.h"))
	p.Commands = append(p.Commands, stalledCmd(e))
	rec := tpCmd(RecordScript(e),
		"every page_pool event of every pool, one line each: replay it with ppsim replay FILE or the page's replay — pools, pages owned, inflight over time, the destroy and its retries",
		"include/trace/events/page_pool.h (the four TRACE_EVENTs' entries); engine/replay reads the lines")
	rec.Run = runRecord
	p.Commands = append(p.Commands, rec)
	if e.PoolNetlink {
		p.Commands = append(p.Commands, poolGetCmd(e))
		if HasYnltool(e) {
			p.Commands = append(p.Commands, ynltoolCmd(" group-by pp"))
		}
	} else {
		p.Note += " No netlink page-pool objects before 6.8: the dmesg line and the tracepoint are the only live views."
	}
	p.Commands = append(p.Commands, drgnCmd(drgnPool(e), "a pool's inflight and destroy_cnt from its address (the pool=0x… the record script or perf script prints: the tracefs file prints %p hashed, which drgn cannot use)"+map[bool]string{true: "; every pool in netlink's xarray with its id and detach_time", false: ""}[e.PoolNetlink], srcPP+": page_pool_inflight"))
	if s := drgnScan(e); s != "" {
		p.Commands = append(p.Commands, drgnCmd(s, "the pages still out of a pool: each page whose page->pp is the pool and whose pp_magic carries the signature, with its refcount (who holds them: a socket's unread queue, a driver leak)", "include/linux/mm_types.h (page->pp, pp_magic); drgn contrib/pp_leak"))
	}
	return p
}

// rulePlan is the commands for rule r in era e.
func rulePlan(r sim.Rule, e *sim.Era) Plan {
	info := r.Info()
	fn := info.Enforcer.NameIn(e)
	var p Plan
	kinds := make([]string, len(info.Kinds))
	for i, k := range info.Kinds {
		kinds[i] = k.String()
	}
	proxy := " Breaking it shows as " + strings.Join(kinds, ", ") + "."
	switch r {
	case sim.RuleCoalescePPGuard, sim.RuleCoalesceClonedGuard, sim.RuleSignatureCheck, sim.RuleLastDataref:
		if e.SkbRecycle == sim.SkbRecycleNone {
			p.Note = "Era " + e.Name + " has no skb recycling (drivers release the page from the pool when they build an skb): the rule has nothing to guard."
			return p
		}
	case sim.RuleFragCount:
		if !e.FragAPI {
			p.Note = "Era " + e.Name + " has no frag API (5.15): no pool page is split, so no frag count to test."
			return p
		}
	case sim.RuleNAPILocality:
		if !e.NAPIDirect {
			p.Note = "Era " + e.Name + " recycles skb pages into the ptr_ring only (direct recycling from the skb free path is 6.4): only XDP in the driver's own NAPI poll touches the alloc cache."
			return p
		}
	case sim.RuleBulkMapError, sim.RuleBulkDMAUnmap:
		if !e.BulkAlloc {
			p.Note = "Era " + e.Name + " refills one page per call (the bulk refill is 5.13): no bulk path to observe."
			return p
		}
	case sim.RuleDMAMappedCmpxchg:
		if !e.DMATracking {
			p.Note = "Era " + e.Name + " does not track DMA-mapped pages (6.16): a page returned after the driver unbound is unmapped on a device that is gone; only DMA-API debugging or an IOMMU fault in dmesg shows it."
			p.Commands = append(p.Commands, Command{Kind: Dmesg, Text: "dmesg -w | grep -E 'DMA-API|DMAR|AMD-Vi|IO_PAGE_FAULT'", Shows: "CONFIG_DMA_API_DEBUG's reports and IOMMU faults: an unmap of a mapping the device no longer has", Validated: "a grep pattern; not run", Source: "kernel/dma/debug.c"}, tpCmd(releaseScript(e), "pages returned to a destroyed pool: each is unmapped on return in this era, after the driver may have unbound", srcPP+": page_pool_return_page"))
			return p
		}
	case sim.RuleFragsReadable:
		if e.MemProvider == sim.MPNone {
			p.Note = "Era " + e.Name + " has no memory providers (devmem TCP, 6.12): every frag is readable."
			return p
		}
	}
	switch r {
	case sim.RuleCoalescePPGuard:
		p.Note = "No tracepoint sees skb_try_coalesce: a kretfunc does." + proxy + " Proxy on a live kernel: a pool that never reaches inflight 0 at destroy (the destroy story) and releases of pages the pool never held (page_pool_state_release)."
		p.Commands = append(p.Commands,
			kfCmd(kfuncScript(e, "skb_try_coalesce between an skb of pool pages and one of plain pages: refused (retval 0) while the rule holds", "kretfunc", fn,
				"if (args->to->pp_recycle != args->from->pp_recycle) {\n\t@mixed_pp_recycle[retval] = count();\n}\n@all[retval] = count();\n"),
				"coalesce attempts whose skbs differ in pp_recycle, by result: with the rule intact every one returns 0 (refused); a merge (1) would hand plain pages to a pool or pool pages to put_page", "net/core/skbuff.c: skb_try_coalesce ("+e.Tag+")"),
			tpCmd(ledgerScript(e), "releases of pages the pool was not seen to hold: what a plain page given to a pool looks like when it leaves", srcPP+": page_pool_return_page; include/trace/events/page_pool.h"))
	case sim.RuleCoalesceClonedGuard:
		held := "returns 0 for a cloned page_pool `from`"
		if e.Coalesce == sim.CoalescePlainPPRefs {
			held = "may merge a cloned page_pool `from` (6.8: `to` takes a pp reference on each frag)"
		}
		p.Note = "No tracepoint sees skb_try_coalesce: a kretfunc does." + proxy + " In " + e.Name + " the intact kernel " + held + "."
		p.Commands = append(p.Commands,
			kfCmd(kfuncScript(e, "skb_try_coalesce with a cloned skb on either side, by result", "kretfunc", fn,
				"if (args->to->cloned) {\n\t@cloned_to[retval] = count();\n}\nif (args->from->cloned && args->from->pp_recycle) {\n\t@cloned_pp_from[retval] = count();\n}\n"),
				"coalesce attempts with a cloned to (always refused: 0) or a cloned page_pool from, by result ("+held+")", "net/core/skbuff.c: skb_try_coalesce ("+e.Tag+")"),
			drgnCmd(drgnPage(e), "one page's refcount and frag/pp reference count: a clone and the queue's skb both dropping the same reference shows as a count one too low", "include/linux/mm_types.h"))
	case sim.RuleSignatureCheck:
		p.Note = "No tracepoint sees the signature test: a kretfunc on " + fn + " counts the pages it refused (not a page_pool page: put_page'd)." + proxy + " Proxy: page_pool_state_release of a pfn the pool never held, and a negative inflight at destroy (\"Negative(%d) inflight packet-pages\" WARN)."
		p.Commands = append(p.Commands,
			kfCmd(kfuncScript(e, fn+": a page without the page_pool signature is refused (retval 0) and put_page'd by the caller", "kretfunc", fn, "@by_result[retval] = count();\n"),
				"skb pages offered back to a pool, by result: 0 for a page whose pp_magic lacks PP_SIGNATURE (not a pool page), 1 for a recycled or released pool page", "net/core/skbuff.c / "+srcPP+": "+fn+" ("+e.Tag+")"),
			tpCmd(ledgerScript(e), "releases of pages the pool was not seen to hold", srcPP+"; include/trace/events/page_pool.h"),
			drgnCmd(drgnPage(e), "the page's signature as the era's test reads it", "include/linux/mm_types.h; include/net/page_pool/types.h (PP_SIGNATURE, PP_MAGIC_MASK)"))
	case sim.RuleLastDataref:
		p.Note = "No tracepoint sees skb_release_data: a kfunc reads the shared info's dataref." + proxy + " No counter moves on a double recycle; a KASAN kernel reports the use after recycle."
		p.Commands = append(p.Commands,
			kfCmd(kfuncScript(e, "skb_release_data: dataref of the shared data when an skb of pool pages is freed (only the last reference recycles)", "kfunc", fn,
				"$sh = (struct skb_shared_info *)(args->skb->head + args->skb->end);\nif (args->skb->pp_recycle) {\n\t@dataref[$sh->dataref.counter] = count();\n}\n"),
				"how often a freed pool skb still shares its data (dataref > 1: a clone, which must only drop its reference)", "net/core/skbuff.c: skb_release_data ("+e.Tag+")"),
			Command{Kind: Dmesg, Text: "dmesg -w | grep -E 'KASAN|Bad page state'", Shows: "a KASAN kernel's use-after-free report, or the page allocator's bad page state: what a page recycled twice turns into", Validated: "a grep pattern; not run", Source: "mm/kasan/report.c; mm/page_alloc.c: bad_page"})
	case sim.RuleRefcntCheck, sim.RulePfmemallocCheck:
		what := "page_ref_count(page) != 1"
		if r == sim.RulePfmemallocCheck {
			what = "page_is_pfmemalloc(page)"
		}
		p.Tracepoint = true
		p.Note = "__page_pool_put_page is inline: the page it gives up (" + what + ") shows as a page_pool_state_release while the pool is alive." + proxy + " Counter: recycle_released_refcnt (5.18+, CONFIG_PAGE_POOL_STATS)."
		p.Commands = append(p.Commands,
			tpCmd(ledgerScript(e), "pages released while their pool lives (given_up_while_live): the pages __page_pool_put_page gave up ("+what+"), and those the ring had no room for or a NUMA waive let go; a destroy's first releases count too (page_pool_scrub empties the cache and ring before the first page_pool_release marks the pool destroying)", srcPP+": __page_pool_put_page, page_pool_return_page; include/trace/events/page_pool.h"),
			drgnCmd(drgnPage(e), "the page's refcount and pfmemalloc bit: what the test reads", "include/linux/mm_types.h; include/linux/mm.h: page_is_pfmemalloc"))
		p.Commands = append(p.Commands, counterCommands(sim.StatRecycleReleasedRefcnt, e)...)
	case sim.RuleFragCount:
		field := "pp_frag_count"
		if e.PPRefCount {
			field = "pp_ref_count"
		}
		p.Note = "No tracepoint sees " + field + ": drgn reads it." + proxy + " No counter moves when a split page is recycled early; the other half is overwritten by the NIC (corrupt data, not a crash)."
		p.Commands = append(p.Commands,
			drgnCmd(drgnPage(e), "the page's "+field+": each user of a split page holds one, and only the last one recycles", "include/linux/mm_types.h; include/net/page_pool/helpers.h: page_pool_unref_page"),
			tpCmd(ledgerScript(e), "the pool's hold/release ledger (a frag page is held and released once, however many users)", "include/trace/events/page_pool.h"))
	case sim.RuleNAPILocality:
		put := sim.SymPutUnrefed.NameIn(e)
		p.Note = "No tracepoint sees the locality test: a kfunc on " + put + " compares the CPU with the pool's NAPI owner." + proxy + " Counter proxy: recycle_cached (direct) against recycle_ring."
		p.Commands = append(p.Commands,
			kfCmd(kfuncScript(e, put+": puts by caller's allow_direct and whether this CPU owns the pool's NAPI (napi->list_owner)", "kfunc", put,
				"if (args->pool->p.napi != 0) {\n\t@put[args->allow_direct, args->pool->p.napi->list_owner == cpu] = count();\n}\n"),
				"puts of pages of a pool with pp.napi, keyed by allow_direct and by owner-CPU: a direct put (1) from a CPU that is not the owner (0) is the race the rule prevents", srcPP+": "+put+" ("+e.Tag+"); net/core/skbuff.c"))
		p.Commands = append(p.Commands, counterCommands(sim.StatRecycleCached, e)...)
	case sim.RuleBulkMapError:
		p.Note = "No tracepoint sees the refill's result: a kretfunc on " + fn + " does; each page it mapped shows as a page_pool_state_hold." + proxy + " Counter: alloc_slow (one per successful refill)."
		p.Commands = append(p.Commands,
			kfCmd(kfuncScript(e, fn+": refills that return no page", "kretfunc", fn, "@refill_returned_null[retval == 0] = count();\n"),
				"slow-path refills by result: NULL only when no page could be mapped; a NULL while pages were cached is the bug", srcPP+": "+fn+" ("+e.Tag+")"),
			tpCmd(ledgerScript(e), "pages held per pool (each page the refill mapped and kept)", "include/trace/events/page_pool.h"))
	case sim.RuleBulkDMAUnmap:
		p.Note = "The broken form (an unbounded bulk list put_page'ing mapped pages) never shipped; no tracepoint sees a leaked DMA mapping. Proxy: page_pool_state_hold per refill stays ≤ the cache's room (64), and CONFIG_DMA_API_DEBUG reports pending mappings at unbind." + proxy
		p.Commands = append(p.Commands,
			tpCmd(ledgerScript(e), "pages held per pool: each is mapped and has a slot in the alloc cache", "include/trace/events/page_pool.h"),
			Command{Kind: Dmesg, Text: "dmesg -w | grep -E 'DMA-API.*pending DMA allocations'", Shows: "CONFIG_DMA_API_DEBUG at driver unbind: mappings never unmapped (\"device driver has pending DMA allocations while released from device\")", Validated: "a grep pattern; not run", Source: "kernel/dma/debug.c: dma_debug_device_change"})
	case sim.RuleReleaseProducerBarrier:
		p.Tracepoint = true
		p.Note = "page_pool_release traces the last attempt (inflight=0) after which the pool is freed; the use after free itself shows only on a KASAN kernel (CVE-2025-38129: \"slab-use-after-free in page_pool_recycle_in_ring\")." + proxy
		if e.ReleaseProducerBarrier {
			p.Note += " In " + e.Name + " page_pool_release takes and drops the producer lock first (271683bb2cf3)."
		}
		p.Commands = append(p.Commands,
			tpCmd(releaseScript(e), "the destroyed pool's last release attempt (inflight=0: freed right after) and the late returns before it: a return racing the free is the window", srcPP+": page_pool_release ("+e.Tag+")"),
			Command{Kind: Dmesg, Text: "dmesg -w | grep -E 'KASAN.*page_pool'", Shows: "a KASAN report of a page_pool function touching a freed pool", Validated: "a grep pattern; not run", Source: "mm/kasan/report.c"})
	case sim.RuleDMAMappedCmpxchg:
		p.Tracepoint = true
		p.Note = "page_pool_scrub unmaps at destroy; a kfunc on " + fn + " counts the unmaps that still come after (late returns), which must find the slot empty." + laterNamesNote(info.Enforcer, e) + proxy
		p.Commands = append(p.Commands,
			tpCmd(releaseScript(e), "pages returned to a destroyed pool: each finds its dma_mapped slot empty and skips the unmap", srcPP+": page_pool_scrub, "+fn),
			kfCmd(kfuncScript(e, fn+": dma_mapped releases, after page_pool_release started", "kfunc", fn, "@release_dma_index[comm] = count();\n"),
				"the xarray releases of DMA indexes (one per unmap while the pool lives; at destroy page_pool_scrub's)", srcPP+": "+fn+" ("+e.Tag+")"))
	case sim.RuleFragsReadable:
		p.Note = "No tracepoint sees skb_copy_bits' refusal: a kretfunc counts -EFAULT returns on unreadable skbs." + proxy
		p.Commands = append(p.Commands,
			kfCmd(kfuncScript(e, fn+" on an skb with unreadable (net_iov) frags: -EFAULT (-14) while the rule holds", "kretfunc", fn, "if (args->skb->unreadable) {\n\t@unreadable[retval] = count();\n}\n"),
				"copies from skbs with device-memory frags, by result: -14 (-EFAULT) is the rule holding", "net/core/skbuff.c: skb_copy_bits ("+e.Tag+")"))
		if e.PoolNetlink {
			p.Commands = append(p.Commands, poolGetCmd(e))
		}
	}
	return p
}

// counterPlan: ethtool -S (5.19 through the driver's generic helper),
// ynl page-pool-stats-get (6.8), ynltool (6.19), and the tracepoint proxy
// where one exists.
func counterPlan(s sim.Stat, e *sim.Era) Plan {
	p := Plan{}
	if !e.Stats {
		p.Note = "Era " + e.Name + " has no page_pool stats (CONFIG_PAGE_POOL_STATS is 5.18): the kernel counts nothing; the model counts what a stats-enabled pool would."
	} else {
		p.Note = "Counted only with CONFIG_PAGE_POOL_STATS=y (default off; check grep PAGE_POOL_STATS /boot/config-$(uname -r))."
	}
	switch s {
	case sim.StatAllocSlow, sim.StatAllocSlowHighOrder, sim.StatRecycleRingFull, sim.StatRecycleReleasedRefcnt, sim.StatAllocWaive:
		p.Tracepoint = true
		p.Note += " Tracepoint proxy: page_pool_state_hold counts pages from the page allocator (alloc_slow counts refills, up to 64 pages each); page_pool_state_release while the pool lives counts pages given up (released_refcnt, ring_full, waive)."
		p.Commands = append(p.Commands, tpCmd(ledgerScript(e), "pages each pool holds and gives up while alive: the page-level counterpart of the counter", "include/trace/events/page_pool.h; "+srcPP))
	default:
		p.Note += " No tracepoint counts it (the alloc cache and the ptr_ring are not traced)."
	}
	p.Commands = append(p.Commands, counterCommands(s, e)...)
	return p
}

// counterCommands are the counter's own views in era e.
func counterCommands(s sim.Stat, e *sim.Era) []Command {
	if !e.Stats {
		return nil
	}
	var out []Command
	names := []string{s.Ethtool()}
	var drv []string
	for _, d := range driverNames() {
		if n := lab.EthtoolName(d, s, -1); n != "" && n != s.Ethtool() && !contains(names, n) {
			names = append(names, n)
			drv = append(drv, d+": "+n)
		}
	}
	shows := "the device's " + s.Ethtool() + " (the sum over its pools: page_pool_ethtool_stats_get)"
	if len(drv) > 0 {
		shows += "; driver names: " + strings.Join(drv, ", ") + " (per ring rx<N>_pp_* on mlx5)"
	}
	out = append(out, Command{Kind: Ethtool, Text: "ethtool -S eth0 | grep -E '(" + strings.Join(names, "|") + ")'", Shows: shows, Validated: validEth,
		Source: srcPP + ": pp_stats[] (" + e.Tag + ")"})
	if e.PoolNetlink {
		out = append(out, Command{Kind: YNL, Text: ynlCmd("page-pool-stats-get"), Run: ynlRun(e, "page-pool-stats-get"), Shows: fmt.Sprintf("per pool (info: id, ifindex): %s", ynlKey(s)), Validated: validYNL,
			Source: "net/core/page_pool_user.c: page_pool_nl_stats_fill (" + e.Tag + ")"})
	}
	if HasYnltool(e) {
		switch s {
		case sim.StatAllocFast, sim.StatAllocRefill, sim.StatAllocSlow, sim.StatRecycleRing, sim.StatRecycleCached:
			out = append(out, ynltoolCmd(""))
		}
	}
	return out
}

// driverNames are the model's drivers (lab.List is built once).
var driverNames = sync.OnceValue(func() []string { return lab.List().Drivers })

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// CountersPlan is every page_pool counter at once in era e (the stats
// panel's view): ethtool -S's rx_pp_* lines (5.18 with
// CONFIG_PAGE_POOL_STATS; mlx5's per-ring rx<N>_pp_*), ynl's
// page-pool-stats-get (6.8), ynltool's derived line (6.19), and the
// tracepoint ledger, the page-level proxy of the slow-path and give-up
// counters.
func CountersPlan(e *sim.Era) Plan {
	p := Plan{Target: "counters", Era: e.Name, Tracepoint: true}
	if !e.Stats {
		p.Note = "Era " + e.Name + " has no page_pool stats (CONFIG_PAGE_POOL_STATS is 5.18): the kernel counts nothing; the tracepoints count pages held and given up."
	} else {
		p.Note = "Counted only with CONFIG_PAGE_POOL_STATS=y (default off; grep PAGE_POOL_STATS /boot/config-$(uname -r)). No tracepoint sees the alloc cache or the ptr_ring: the tracepoints count pages held and given up."
		p.Commands = append(p.Commands, Command{Kind: Ethtool, Text: "ethtool -S eth0 | grep -E 'rx[0-9]*_pp_'", Shows: "every page_pool counter of the device (the sum over its pools), and mlx5's per-ring copies", Validated: validEth, Source: srcPP + ": pp_stats[] (" + e.Tag + ")"})
		if e.PoolNetlink {
			p.Commands = append(p.Commands, Command{Kind: YNL, Text: ynlCmd("page-pool-stats-get"), Run: ynlRun(e, "page-pool-stats-get"), Shows: "every counter per pool (info: id, ifindex), for pools with a netdev", Validated: validYNL, Source: "net/core/page_pool_user.c: page_pool_nl_stats_fill (" + e.Tag + ")"})
		}
		if HasYnltool(e) {
			p.Commands = append(p.Commands, ynltoolCmd(""))
		}
	}
	p.Commands = append(p.Commands, tpCmd(ledgerScript(e), "pages each pool holds (from the page allocator: alloc_slow's pages) and gives up while alive (released_refcnt, ring_full, waive)", "include/trace/events/page_pool.h; "+srcPP))
	if e.PreRelease || e.Branch != "" {
		p.Note += " Era " + e.Name + " follows " + e.Tag + ", not a release: build that tree to run these."
	}
	return p
}

// LaterNames are the names later eras give s where they differ from its
// name in e, oldest first: a stable kernel of e's series may carry a
// later rename (6.18.44 has 7.1's __page_pool_unmap_netmem_dma where
// v6.18 had page_pool_release_dma_index), so a kfunc probe of e's name
// finds nothing there.
func LaterNames(s sim.Sym, e *sim.Era) []string {
	var out []string
	own := s.NameIn(e)
	for i := range sim.Eras {
		l := &sim.Eras[i]
		if l.Order <= e.Order || l.Branch != "" {
			continue
		}
		if n := s.NameIn(l); n != own && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// laterNamesNote says LaterNames in a plan's note ("" when none).
func laterNamesNote(s sim.Sym, e *sim.Era) string {
	names := LaterNames(s, e)
	if len(names) == 0 {
		return ""
	}
	return " A stable kernel of this series may carry a later name (" + strings.Join(names, ", ") + "): where " + s.NameIn(e) + " is not in /proc/kallsyms, probe that instead."
}
