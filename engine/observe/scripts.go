package observe

import (
	"fmt"
	"strings"

	"pplab/engine/sim"
)

const tpPrefix = "tracepoint:page_pool:"

func header(e *sim.Era, what string) string {
	return fmt.Sprintf("// %s (kernel %s)\n", what, e.Tag)
}

// releaseScript prints every page_pool_release (page_pool_inflight's
// trace in page_pool_release(): at destroy and at each retry, every second
// until inflight is 0; the pool is freed after the one that shows 0) and
// every page returned to a pool after it (a late return: the next retry
// drains it). net/core/page_pool.c: page_pool_release, page_pool_inflight,
// page_pool_release_retry.
func releaseScript(e *sim.Era) string {
	f := PageField(e)
	return header(e, "page_pool_release: a pool destroyed with pages in flight, and the pages that come back after") +
		tpPrefix + EvRelease + "\n{\n" +
		"\tprintf(\"%lu ms pool=0x%lx inflight=%d hold=%u release=%u cnt=%lu\\n\", nsecs / 1000000, (uint64)args->pool, args->inflight, args->hold, args->release, args->cnt);\n" +
		"\t@destroying[args->pool] = 1;\n" +
		"\t@inflight[args->pool] = args->inflight;\n}\n" +
		tpPrefix + EvStateRelease + "\n/@destroying[args->pool]/\n{\n" +
		"\tprintf(\"late return pool=0x%lx " + f + "=0x%lx pfn=" + PFNFormat(e) + " release=%u\\n\", (uint64)args->pool, (uint64)args->" + f + ", args->pfn, args->release);\n" +
		"\t@late[args->pool] = count();\n}\n"
}

// ledgerScript keeps the pool's own ledger from its state tracepoints
// (page_pool_state_hold: a page enters the pool's accounting when the
// pool allocates it from the page allocator or a provider; _release: it
// leaves, page_pool_return_page / __page_pool_release_netmem_dma) and
// prints a release of a page the ledger never saw held — a page the pool
// never allocated, or one allocated before the script started — and the
// releases while the pool is alive (given up: refcount, pfmemalloc, ring
// full, NUMA waive).
func ledgerScript(e *sim.Era) string {
	return header(e, "the pool's hold/release ledger: releases while the pool lives, and releases of pages it was not seen to hold") +
		tpPrefix + EvStateHold + "\n{\n" +
		"\t@held[args->pool, args->pfn] = 1;\n" +
		"\t@holds[args->pool] = count();\n}\n" +
		tpPrefix + EvRelease + "\n{\n" +
		"\t@destroying[args->pool] = 1;\n}\n" +
		tpPrefix + EvStateRelease + "\n{\n" +
		"\t@releases[args->pool] = count();\n" +
		"\tif (@destroying[args->pool] == 0) {\n" +
		"\t\t@given_up_while_live[args->pool] = count();\n\t}\n" +
		"\tif (@held[args->pool, args->pfn] == 0) {\n" +
		"\t\tprintf(\"pool=0x%lx releases pfn=" + PFNFormat(e) + " not seen held (foreign, or held before the script)\\n\", (uint64)args->pool, args->pfn);\n\t}\n" +
		"\tdelete(@held[args->pool, args->pfn]);\n}\n" +
		"END\n{\n\tclear(@held);\n}\n"
}

// kfuncScript wraps a body for one kfunc/kretfunc probe of function fn.
func kfuncScript(e *sim.Era, what, probe, fn, body string) string {
	return header(e, what) + probe + ":" + fn + "\n{\n" + indent(body) + "}\n"
}

func indent(body string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		b.WriteString("\t" + l + "\n")
	}
	return b.String()
}

// drgnPool reads a pool's inflight the way page_pool_inflight computes it
// (hold_cnt − release_cnt as s32, net/core/page_pool.c), from its address
// (the pool=0x… of page_pool_release); from 6.8 it lists every pool of
// the netlink xarray (page_pools, net/core/page_pool_user.c) with its id
// and detach_time.
func drgnPool(e *sim.Era) string {
	s := "# a page_pool's inflight, as page_pool_inflight computes it\nfrom drgn import Object\n\n" +
		"def inflight(pool):\n" +
		"    hold = pool.pages_state_hold_cnt.value_()\n" +
		"    release = pool.pages_state_release_cnt.counter.value_()\n" +
		"    d = (hold - release) & 0xffffffff\n" +
		"    return d - (1 << 32) if d >= 1 << 31 else d\n\n" +
		"POOL = 0x0  # the pool=0x... of page_pool_release\n" +
		"if POOL:\n" +
		"    pool = Object(prog, \"struct page_pool *\", POOL)\n" +
		"    print(\"inflight\", inflight(pool), \"destroy_cnt\", pool.destroy_cnt.value_())\n"
	if e.PoolNetlink {
		s += "\n# every pool netlink knows (page_pool_user.c: page_pools), detached ones included\n" +
			"from drgn.helpers.linux.xarray import xa_for_each\n" +
			"for _, entry in xa_for_each(prog[\"page_pools\"].address_of_()):\n" +
			"    pool = Object(prog, \"struct page_pool *\", entry.value_())\n" +
			"    print(\"id\", pool.user.id.value_(), \"detach_time\", pool.user.detach_time.value_(), \"inflight\", inflight(pool))\n"
	}
	return s
}

// drgnPage prints what the era's recycling tests read in struct page for
// the page at PFN: the signature, page->pp, the refcount, the frag or pp
// reference count, the pfmemalloc bit. include/linux/mm_types.h per era:
// no page_pool fields before 5.14 (the RFC's page->signature), pp_magic
// and pp from 5.14, pp_frag_count 5.15–6.6, pp_ref_count from 6.7, the
// DMA index in pp_magic from 6.16 (PP_MAGIC_MASK), PGTY_netpp in
// page_type in 7.1-rc1 only.
func drgnPage(e *sim.Era) string {
	s := "# the struct page fields the recycling tests read, for one page\n" +
		"from drgn.helpers.linux.mm import pfn_to_page\n\n" +
		"PFN = 0  # a pfn= of page_pool_state_hold / _release\n" +
		"page = pfn_to_page(prog, PFN)\n" +
		"print(\"refcount\", page._refcount.counter.value_())\n"
	switch {
	case e.SkbRecycle == sim.SkbRecycleNone:
		return s + "# no page_pool fields in struct page in this era (no skb recycling)\n"
	case e.SkbRecycle == sim.SkbRecycleRFC:
		return s + "print(\"signature\", hex(page.signature.value_()))  # the RFC's page->signature\n"
	}
	s += "magic = page.pp_magic.value_()\n" +
		"print(\"pp_magic\", hex(magic), \"pp\", hex(page.pp.value_()))\n"
	if e.DMATracking {
		s += "# PP_MAGIC_MASK also masks the DMA index bits (from 6.16): bits 2..6 carry PP_SIGNATURE's 0x40\n" +
			"print(\"page_pool page\", (magic & 0x7c) == 0x40)\n"
	} else {
		s += "# (pp_magic & ~0x3) == PP_SIGNATURE (0x40 + POISON_POINTER_DELTA)\n" +
			"print(\"page_pool page\", (magic & 0xff & ~0x3) == 0x40)\n"
	}
	if e.PageType {
		s += "print(\"page_type\", hex(page.page_type.value_()))  # PageNetpp: PGTY_netpp (7.1-rc1)\n"
	}
	s += "print(\"pfmemalloc\", bool(magic & 0x2))  # page_is_pfmemalloc: bit 1 of lru.next, which pp_magic overlays\n"
	switch {
	case e.PPRefCount:
		s += "print(\"pp_ref_count\", page.pp_ref_count.counter.value_())\n"
	case e.FragAPI:
		s += "print(\"pp_frag_count\", page.pp_frag_count.counter.value_())\n"
	}
	return s
}

// drgnScan lists the pages whose page->pp is the pool (a pool's pages
// still out, the way drgn's contrib/pp_leak scans): slow, it walks every
// page.
func drgnScan(e *sim.Era) string {
	if e.SkbRecycle == sim.SkbRecycleNone || e.SkbRecycle == sim.SkbRecycleRFC {
		return ""
	}
	return "# the pages that still point at a pool (page->pp), as contrib/pp_leak scans\n" +
		"import drgn\n" +
		"from drgn.helpers.linux.mm import for_each_page, page_to_pfn\n\n" +
		"POOL = 0x0  # the pool=0x... of page_pool_release\n" +
		"n = 0\n" +
		"for page in for_each_page(prog):\n" +
		"    try:\n" +
		"        if page.pp.value_() == POOL and (page.pp_magic.value_() & 0x7c) == 0x40:\n" +
		"            n += 1\n" +
		"            print(\"pfn\", page_to_pfn(page).value_(), \"refcount\", page._refcount.counter.value_())\n" +
		"    except drgn.FaultError:\n" +
		"        pass\n" +
		"print(n, \"pages still out\")\n"
}

// stalledLine is the era's page_pool_release_retry warning as a grep
// pattern, and the format it follows.
func stalledLine(e *sim.Era) (pattern, format string) {
	if e.PoolNetlink {
		return `stalled pool shutdown: id [0-9]+, -?[0-9]+ inflight [0-9]+ sec`, "page_pool_release_retry() stalled pool shutdown: id %u, %d inflight %d sec"
	}
	return `stalled pool shutdown -?[0-9]+ inflight [0-9]+ sec`, "page_pool_release_retry() stalled pool shutdown %d inflight %d sec"
}

// ynlCmd is the installed ynl's invocation of op (make -C tools/net/ynl
// install puts ynl and the specs on the machine: --family netdev); ynlRun
// says how to run the same from the era's kernel tree.
func ynlCmd(op string) string {
	return "ynl --family netdev --dump " + op
}

// ynlRun is the in-tree form of ynlCmd(op) in era e: the Python CLI
// tools/net/ynl/cli.py with the spec file, moved to
// tools/net/ynl/pyynl/cli.py in 6.14 ("tools: ynl: move python code to
// separate sub-directory").
func ynlRun(e *sim.Era, op string) string {
	cli := "./tools/net/ynl/pyynl/cli.py"
	if first, _ := sim.EraByName("6.15"); e.Order < first.Order {
		cli = "./tools/net/ynl/cli.py"
	}
	return "as root; from a " + e.Tag + " kernel tree without an installed ynl: " + cli + " --spec Documentation/netlink/specs/netdev.yaml --dump " + op
}

// RecordScript prints every page_pool tracepoint as a line `ppsim replay`
// and the page's replay read (engine/replay): the CPU, the time in
// seconds.microseconds, the probe and the event's fields as key=value —
// pool, pfn (in the era's own form), hold / release, inflight and cnt,
// the nids. The same capture as the tracefs trace file, with raw pool
// pointers instead of hashed ones (bpftrace reads the entry's fields, not
// the TP_printk).
func RecordScript(e *sim.Era) string {
	pfn := PFNFormat(e)
	head := "\tprintf(\"[%03d] %lu.%06lu: %s pool=0x%lx "
	when := "cpu, nsecs / 1000000000, (nsecs / 1000) % 1000000, probe, (uint64)args->pool"
	return header(e, "every page_pool event, as ppsim replay reads it (ppsim replay FILE, or the page's replay)") +
		tpPrefix + EvStateHold + "\n{\n" + head + "pfn=" + pfn + " hold=%u\\n\", " + when + ", args->pfn, args->hold);\n}\n" +
		tpPrefix + EvStateRelease + "\n{\n" + head + "pfn=" + pfn + " release=%u\\n\", " + when + ", args->pfn, args->release);\n}\n" +
		tpPrefix + EvRelease + "\n{\n" + head + "inflight=%d hold=%u release=%u cnt=%lu\\n\", " + when + ", args->inflight, args->hold, args->release, args->cnt);\n}\n" +
		tpPrefix + EvUpdateNid + "\n{\n" + head + "pool_nid=%d new_nid=%d\\n\", " + when + ", args->pool_nid, args->new_nid);\n}\n"
}
