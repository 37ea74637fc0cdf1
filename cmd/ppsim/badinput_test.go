package main

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// badInputs is every bad input the CLI is known to get, with the exact
// error it answers: one line on stderr (after "ppsim: "), nothing on stdout,
// exit 2 for bad input (1 for a failing write). In args, ” is an empty
// argument and {dir} the fixtures' directory (fixtures_test.go). Add a row
// for every new way to get it wrong.
var badInputs = []struct {
	name string
	args string
	code int
	want string
}{
	{"no command", "", 2, "ppsim: missing command (accepted: list, run, compare, predict, diagnose, replay, check, version); usage:   ppsim list [--json]   ppsim run [--driver D] --scenario S [--era E] [--packets N] [--ops N] [--seed N]             [--set knob=value ...] [--break rule ...] [--json | --text [--base-url URL]]             [--trace FILE [--trace-format all|tracepoints] [--trace-max BYTES]]             [--trace-event FILE [--trace-event-max BYTES]]   ppsim compare [--driver D] --scenario S [--era E] [--packets N] [--seed N]             [--set knob=value ...] [--break rule ...]             [--with-era E] [--with-driver D] [--with-set knob=value ...] [--with-break rule ...]             [--json | --text] [--base-url URL]   ppsim predict --profile FILE|NAME --rate VALUE --unit kpps|pps|mbps             --change skb-recycle|bulk|napi-direct|pp-napi|era:E [--platform P] [--json]   ppsim diagnose [--file F|-] [--interval SECONDS] [--json]   ppsim replay FILE|- [--json] [--compare-veth MIB [--era E]]   ppsim check RULE|COUNTER|destroy [--era E] [--json] | --list   ppsim version [--json]"},
	{"check: no name", "check", 2, "ppsim: check: give a rule, a counter or destroy (ppsim check --list names them)"},
	{"check: unknown name", "check warp --era 6.18", 2, "ppsim: check: unknown rule or counter \"warp\" (accepted: a rule: " + strings.Join(sim.RuleNames(), ", ") + "; a counter, by ppsim's, ethtool's or netlink's name: alloc_fast, alloc_slow, alloc_slow_high_order, alloc_empty, alloc_refill, alloc_waive, recycle_cached, recycle_cache_full, recycle_ring, recycle_ring_full, recycle_released_refcnt; or destroy)"},
	{"check: unknown era", "check refcnt-check --era 3.0", 2, "ppsim: check: --era: unknown era \"3.0\" (accepted: " + strings.Join(sim.EraNames(), ", ") + ")"},
	{"check: era twice", "check refcnt-check --era 6.8 --era 6.18", 2, "ppsim: check: --era is given twice: give it once"},
	{"check: list with a name", "check --list refcnt-check", 2, "ppsim: check: --list takes no rule or counter (got \"refcnt-check\")"},
	{"check: unknown flag", "check refcnt-check --kernel 6.18", 2, "ppsim: check: unknown flag --kernel (accepted flags: --era, --json, --list)"},
	{"unknown command", "fly", 2, "ppsim: unknown command \"fly\" (accepted: list, run, compare, predict, diagnose, replay, check, version)"},
	{"list: unknown flag", "list --yaml", 2, "ppsim: list: unknown flag --yaml (accepted flags: --json)"},
	{"list: flag twice", "list --json --json", 2, "ppsim: list: --json is given twice: give it once"},
	{"list: stray argument", "list extra", 2, "ppsim: list: unexpected argument \"extra\""},
	{"run: unknown flag", "run --scenario pool-ring --warp", 2, "ppsim: run: unknown flag --warp (accepted flags: --base-url, --break, --driver, --era, --json, --ops, --packets, --scenario, --seed, --set, --text, --trace, --trace-event, --trace-event-max, --trace-format, --trace-max)"},
	{"run: no scenario", "run", 2, "ppsim: no scenario given (accepted: pool-direct, pool-ring, pool-slow, drop, tcp-stream, forward, xdp-redirect, xdp-drop, xdp-tx, split-page, clone-tap, coalesce-mixed, destroy, numa-migrate, pfmemalloc, generic-xdp, devmem-rx)"},
	{"run: unknown scenario", "run --scenario warp", 2, "ppsim: unknown scenario \"warp\" (accepted: pool-direct, pool-ring, pool-slow, drop, tcp-stream, forward, xdp-redirect, xdp-drop, xdp-tx, split-page, clone-tap, coalesce-mixed, destroy, numa-migrate, pfmemalloc, generic-xdp, devmem-rx)"},
	{"run: empty scenario", "run --scenario ''", 2, "ppsim: run: --scenario is empty: give a value or leave the flag out"},
	{"run: scenario twice", "run --scenario drop --scenario pool-ring", 2, "ppsim: run: --scenario is given twice: give it once"},
	{"run: stray scenario name", "run pool-ring", 2, "ppsim: run: unexpected argument \"pool-ring\" (did you mean --scenario pool-ring?)"},
	{"run: stray driver name", "run --scenario drop mvpp2", 2, "ppsim: run: unexpected argument \"mvpp2\" (did you mean --driver mvpp2?)"},
	{"run: stray era name", "run --scenario drop 5.14", 2, "ppsim: run: unexpected argument \"5.14\" (did you mean --era 5.14?)"},
	{"run: stray rule name", "run --scenario pool-ring refcnt-check", 2, "ppsim: run: unexpected argument \"refcnt-check\" (did you mean --break refcnt-check?)"},
	{"run: stray knob assignment", "run --scenario pool-ring pool_size=8", 2, "ppsim: run: unexpected argument \"pool_size=8\" (did you mean --set pool_size=8?)"},
	{"run: stray word", "run --scenario pool-ring extra", 2, "ppsim: run: unexpected argument \"extra\""},
	{"run: unknown driver", "run --scenario drop --driver e1000", 2, "ppsim: unknown driver \"e1000\" (accepted: mvpp2, mvneta, cpsw, lunar, mlx5, bnxt, hns3)"},
	{"run: driver without the scenario", "run --scenario xdp-redirect --driver lunar", 2, "ppsim: driver lunar does not run scenario xdp-redirect (drivers for xdp-redirect: mvpp2, mvneta, mlx5, bnxt)"},
	{"run: driver not in the era", "run --scenario drop --driver hns3 --era 5.14", 2, "ppsim: driver hns3 does not run in era 5.14 (its frag API buffers need 5.15 or later)"},
	{"run: driver on a pool scenario", "run --scenario pool-ring --driver mvpp2", 2, "ppsim: scenario pool-ring runs without a driver (no driver for the pool-* scenarios)"},
	{"run: empty driver", "run --scenario drop --driver ''", 2, "ppsim: run: --driver is empty: give a value or leave the flag out"},
	{"run: scenario not in the era", "run --scenario split-page --era 5.13", 2, "ppsim: scenario split-page does not run in era 5.13 (accepted: " + erasWith(func(e *sim.Era) bool { return e.SkbRecycle != sim.SkbRecycleNone }) + ")"},
	{"run: unknown era", "run --scenario pool-ring --era 3.0", 2, "ppsim: unknown era \"3.0\" (accepted: " + strings.Join(sim.EraNames(), ", ") + ")"},
	{"run: empty era", "run --scenario pool-ring --era ''", 2, "ppsim: run: --era is empty: give a value or leave the flag out"},
	{"run: era twice", "run --scenario pool-ring --era 5.14 --era 6.8", 2, "ppsim: run: --era is given twice: give it once"},
	{"run: ops zero", "run --scenario pool-ring --ops 0", 2, "ppsim: --ops \"0\": want a positive integer (operations)"},
	{"run: ops a word", "run --scenario pool-ring --ops end", 2, "ppsim: --ops \"end\": want a positive integer (operations)"},
	{"run: packets zero", "run --scenario pool-ring --packets 0", 2, "ppsim: --packets \"0\": want an integer from 1 to 1099511627776"},
	{"run: packets a word", "run --scenario pool-ring --packets lots", 2, "ppsim: --packets \"lots\": want an integer from 1 to 1099511627776"},
	{"run: packets negative", "run --scenario pool-ring --packets -5", 2, "ppsim: --packets \"-5\": want an integer from 1 to 1099511627776"},
	{"run: packets beyond the maximum", "run --scenario pool-ring --packets 1099511627777", 2, "ppsim: --packets \"1099511627777\": want an integer from 1 to 1099511627776"},
	{"run: packets in float form", "run --scenario pool-ring --packets 1e6", 2, "ppsim: --packets \"1e6\": want an integer from 1 to 1099511627776"},
	{"run: packets twice", "run --scenario pool-ring --packets 10 --packets 20", 2, "ppsim: run: --packets is given twice: give it once"},
	{"run: seed negative", "run --scenario pool-ring --seed -1", 2, "ppsim: --seed \"-1\": want a non-negative integer"},
	{"run: seed a word", "run --scenario pool-ring --seed x", 2, "ppsim: --seed \"x\": want a non-negative integer"},
	{"run: json twice", "run --scenario pool-ring --json --json", 2, "ppsim: run: --json is given twice: give it once"},
	{"knob: above the range", "run --scenario pool-ring --set order=9", 2, "ppsim: --set order=9: want an integer from 0 to 4"},
	{"knob: unknown", "run --scenario pool-ring --set speed=9", 2, "ppsim: --set \"speed=9\": unknown knob \"speed\" (knobs: pool_size, order, nid, numa_nodes, node_pages, cpus, dma_map, dma_sync_dev, max_len, offset, dma_sync_size, coherent, iommu, alloc_fail_ppm, dma_map_fail_ppm, pfmemalloc_ppm, bulk, softirq, check_every, frame, tap_every, tx_cpu, rx_descs, bulk_refill, veth_cpu, skb_defer_max, gro, read_ns, rcvbuf, fast_forward, hw_gro, xdp_frags, release_race, provider, dmabuf_pages, redirect_to, held, preempt_rt, srso, pp_napi)"},
	{"knob: no value", "run --scenario pool-ring --set pool_size", 2, "ppsim: --set \"pool_size\": want knob=value (knobs: pool_size, order, nid, numa_nodes, node_pages, cpus, dma_map, dma_sync_dev, max_len, offset, dma_sync_size, coherent, iommu, alloc_fail_ppm, dma_map_fail_ppm, pfmemalloc_ppm, bulk, softirq, check_every, frame, tap_every, tx_cpu, rx_descs, bulk_refill, veth_cpu, skb_defer_max, gro, read_ns, rcvbuf, fast_forward, hw_gro, xdp_frags, release_race, provider, dmabuf_pages, redirect_to, held, preempt_rt, srso, pp_napi)"},
	{"knob: no name", "run --scenario pool-ring --set =5", 2, "ppsim: --set \"=5\": want knob=value (knobs: pool_size, order, nid, numa_nodes, node_pages, cpus, dma_map, dma_sync_dev, max_len, offset, dma_sync_size, coherent, iommu, alloc_fail_ppm, dma_map_fail_ppm, pfmemalloc_ppm, bulk, softirq, check_every, frame, tap_every, tx_cpu, rx_descs, bulk_refill, veth_cpu, skb_defer_max, gro, read_ns, rcvbuf, fast_forward, hw_gro, xdp_frags, release_race, provider, dmabuf_pages, redirect_to, held, preempt_rt, srso, pp_napi)"},
	{"knob: not a number", "run --scenario pool-ring --set pool_size=abc", 2, "ppsim: --set pool_size=abc: want an integer from 0 to 65536"},
	{"knob: below the range", "run --scenario pool-ring --set pool_size=-1", 2, "ppsim: --set pool_size=-1: want an integer from 0 to 65536"},
	{"knob: pool_size above the range", "run --scenario pool-ring --set pool_size=70000", 2, "ppsim: --set pool_size=70000: want an integer from 0 to 65536"},
	{"knob: pool_size the kernel refuses", "run --scenario pool-ring --set pool_size=40000", 2, "ppsim: scenario pool-ring: page_pool_create: -E2BIG: pool_size 40000 > 32768 (sanity limit on pinned memory)"},
	{"knob: nid beyond the nodes", "run --scenario pool-ring --set nid=1", 2, "ppsim: --set nid=1: the machine has 1 NUMA node(s) (numa_nodes=1): want -1 to 0"},
	{"knob: more nodes than CPUs", "run --scenario pool-ring --set numa_nodes=4", 2, "ppsim: --set numa_nodes=4: want at most one node per CPU (cpus=2)"},
	{"knob: max_len beyond the page", "run --scenario pool-ring --set max_len=8192", 2, "ppsim: --set max_len=8192: want at most PAGE_SIZE << order = 4096"},
	{"knob: rx_descs odd with split pages", "run --scenario split-page --set rx_descs=15", 2, "ppsim: --set rx_descs=15: want an even number: mlx5's frag-api buffers come two to a page"},
	{"knob: rx_descs one", "run --scenario drop --set rx_descs=1", 2, "ppsim: --set rx_descs=1: want 0 (the driver's count) or a number from 2 to 4096 (even for a driver that splits pages)"},
	{"knob: rx_descs above the range", "run --scenario drop --set rx_descs=5000", 2, "ppsim: --set rx_descs=5000: want an integer from 0 to 4096"},
	{"knob: tx_cpu beyond the CPUs", "run --scenario forward --set tx_cpu=7", 2, "ppsim: --set tx_cpu=7: the machine has 2 CPUs (cpus=2): want 0 to 1"},
	{"knob: tx_cpu equal to cpus", "run --scenario forward --set tx_cpu=2", 2, "ppsim: --set tx_cpu=2: the machine has 2 CPUs (cpus=2): want 0 to 1"},
	{"knob: frame below Ethernet's minimum", "run --scenario drop --set frame=1", 2, "ppsim: --set frame=1: below the Ethernet minimum: want 0 (the workload's size) or 60 to 9018 bytes"},
	{"knob: frame just below the minimum", "run --scenario drop --set frame=59", 2, "ppsim: --set frame=59: below the Ethernet minimum: want 0 (the workload's size) or 60 to 9018 bytes"},
	{"knob: frame above jumbo", "run --scenario drop --set frame=10000", 2, "ppsim: --set frame=10000: want an integer from 0 to 9018"},
	{"knob: bulk zero", "run --scenario pool-slow --set bulk=0", 2, "ppsim: --set bulk=0: want an integer from 1 to 256"},
	{"knob: bulk above the cache", "run --scenario pool-slow --set bulk=200", 2, "ppsim: --set bulk=200: the kernel's bulk call fills the 128-slot alloc cache and cannot ask for more: want 1 to 128 (only the first bulk patch's unbounded list asks for more: --break bulk-dma-unmap)"},
	{"knob: bulk above the range", "run --scenario pool-slow --set bulk=300 --break bulk-dma-unmap", 2, "ppsim: --set bulk=300: want an integer from 1 to 256"},
	{"knob: offset past the page", "run --scenario drop --set offset=4095", 2, "ppsim: --set offset=4095: offset + max_len = 6143 runs past the pool's page (PAGE_SIZE << order = 4096): the sync for the device would cover memory outside it (lower offset or max_len=1)"},
	{"knob: offset without a sync", "run --scenario pool-ring --set offset=8", 2, "ppsim: --set offset=8: page_pool_params.offset only moves where the pool syncs for the device, and this pool does not sync (dma_sync_dev=1 turns it on)"},
	{"knob: offset with max_len past the page", "run --scenario pool-ring --set dma_map=1 --set dma_sync_dev=1 --set offset=8", 2, "ppsim: --set offset=8: offset + max_len = 4104 runs past the pool's page (PAGE_SIZE << order = 4096): the sync for the device would cover memory outside it (lower offset or max_len=4088)"},
	{"knob: sync without a mapping", "run --scenario pool-ring --set dma_sync_dev=1", 2, "ppsim: scenario pool-ring: page_pool_create: -EINVAL: PP_FLAG_DMA_SYNC_DEV needs PP_FLAG_DMA_MAP"},
	{"knob: cpus zero", "run --scenario pool-ring --set cpus=0", 2, "ppsim: --set cpus=0: want an integer from 1 to 8"},
	{"knob: cpus above the range", "run --scenario pool-ring --set cpus=9", 2, "ppsim: --set cpus=9: want an integer from 1 to 8"},
	{"knob: check_every zero", "run --scenario pool-ring --set check_every=0", 2, "ppsim: --set check_every=0: want an integer from 1 to 1073741824"},
	{"knob: coherent two", "run --scenario drop --set coherent=2", 2, "ppsim: --set coherent=2: want an integer from -1 to 1"},
	{"knob: ppm above a million", "run --scenario drop --set alloc_fail_ppm=1000001", 2, "ppsim: --set alloc_fail_ppm=1000001: want an integer from 0 to 1000000"},
	{"knob: numa-migrate on one node", "run --scenario numa-migrate --set numa_nodes=1", 2, "ppsim: scenario numa-migrate: numa-migrate needs numa_nodes >= 2 and cpus >= 2"},
	{"rule: unknown", "run --scenario pool-ring --break gravity", 2, "ppsim: --break: unknown rule \"gravity\" (accepted: coalesce-pp-guard, coalesce-cloned-guard, signature-check, last-dataref, refcnt-check, frag-count, napi-locality, pfmemalloc-check, bulk-map-error, bulk-dma-unmap, release-producer-barrier, dma-mapped-cmpxchg, frags-readable)"},
	{"rule: empty", "run --scenario pool-ring --break ''", 2, "ppsim: --break: unknown rule \"\" (accepted: coalesce-pp-guard, coalesce-cloned-guard, signature-check, last-dataref, refcnt-check, frag-count, napi-locality, pfmemalloc-check, bulk-map-error, bulk-dma-unmap, release-producer-barrier, dma-mapped-cmpxchg, frags-readable)"},
	{"trace: unwritable path", "run --scenario pool-ring --packets 10 --trace /nonexistent/dir/t.txt", 2, "ppsim: --trace /nonexistent/dir/t.txt: open /nonexistent/dir/t.txt: no such file or directory"},
	{"trace: unknown format", "run --scenario pool-ring --trace {dir}/t.txt --trace-format xml", 2, "ppsim: --trace-format \"xml\": accepted: all, tracepoints"},
	{"trace: max zero", "run --scenario pool-ring --trace {dir}/t.txt --trace-max 0", 2, "ppsim: --trace-max \"0\": want a positive number of bytes"},
	{"trace: max a word", "run --scenario pool-ring --trace {dir}/t.txt --trace-max lots", 2, "ppsim: --trace-max \"lots\": want a positive number of bytes"},
	{"trace: max without a trace", "run --scenario pool-ring --trace-max 5", 2, "ppsim: run: --trace-format and --trace-max go with --trace FILE"},
	{"trace: format without a trace", "run --scenario pool-ring --trace-format tracepoints", 2, "ppsim: run: --trace-format and --trace-max go with --trace FILE"},
	{"trace: twice", "run --scenario pool-ring --trace {dir}/a --trace {dir}/b", 2, "ppsim: run: --trace is given twice: give it once"},
	{"trace: empty", "run --scenario pool-ring --trace ''", 2, "ppsim: run: --trace is empty: give a value or leave the flag out"},
	{"trace-event: unwritable path", "run --scenario pool-ring --packets 10 --trace-event /nonexistent/dir/t.json", 2, "ppsim: --trace-event /nonexistent/dir/t.json: open /nonexistent/dir/t.json: no such file or directory"},
	{"trace-event: max too small", "run --scenario pool-ring --trace-event {dir}/t.json --trace-event-max 100", 2, "ppsim: --trace-event-max \"100\": want a number of bytes from 4096"},
	{"trace-event: max a word", "run --scenario pool-ring --trace-event {dir}/t.json --trace-event-max lots", 2, "ppsim: --trace-event-max \"lots\": want a number of bytes from 4096"},
	{"trace-event: max without a trace", "run --scenario pool-ring --trace-event-max 5000", 2, "ppsim: run: --trace-event-max goes with --trace-event FILE"},
	{"trace-event: twice", "run --scenario pool-ring --trace-event {dir}/a --trace-event {dir}/b", 2, "ppsim: run: --trace-event is given twice: give it once"},
	{"trace-event: empty", "run --scenario pool-ring --trace-event ''", 2, "ppsim: run: --trace-event is empty: give a value or leave the flag out"},
	{"trace-event: disk full", "run --scenario pool-ring --packets 2000 --trace-event /dev/full", 1, "ppsim: --trace-event /dev/full: write /dev/full: no space left on device (the trace is incomplete)"},
	{"trace: disk full", "run --scenario pool-ring --packets 2000 --trace /dev/full", 1, "ppsim: --trace /dev/full: write /dev/full: no space left on device (the trace is incomplete)"},
	{"predict: no arguments", "predict", 2, "ppsim: --profile: missing (a perf top listing file, or one of: cpsw-before, lunar-baseline, mvneta-v1-after, mvneta-v1-before, mvneta-v7-before, mvpp2-v1-after, mvpp2-v1-before, mvpp2-v7-before)"},
	{"predict: unknown flag", "predict --profile mvpp2-v1-before --speed 3", 2, "ppsim: predict: unknown flag --speed (accepted flags: --change, --json, --platform, --profile, --rate, --unit)"},
	{"predict: not a file nor shipped", "predict --profile e1000 --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile e1000: no such file, and not a shipped profile (shipped: cpsw-before, lunar-baseline, mvneta-v1-after, mvneta-v1-before, mvneta-v7-before, mvpp2-v1-after, mvpp2-v1-before, mvpp2-v7-before)"},
	{"predict: a directory", "predict --profile {dir}/adir --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/adir: a directory (want a perf top listing file)"},
	{"predict: an endless stream", "predict --profile /dev/zero --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile /dev/zero: more than 1048576 bytes (the limit is 1 MiB; a perf top listing is a few KiB)"},
	{"predict: random bytes", "predict --profile /dev/urandom --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile /dev/urandom: more than 1048576 bytes (the limit is 1 MiB; a perf top listing is a few KiB)"},
	{"predict: over the size limit", "predict --profile {dir}/big.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/big.txt: more than 1048576 bytes (the limit is 1 MiB; a perf top listing is a few KiB)"},
	{"predict: a NUL byte", "predict --profile {dir}/nul.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/nul.txt: not text: a NUL byte at offset 2 (want a perf top listing)"},
	{"predict: invalid UTF-8", "predict --profile {dir}/badutf8.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/badutf8.txt: not text: invalid UTF-8 at offset 24 (want a perf top listing)"},
	{"predict: an empty file", "predict --profile {dir}/empty.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/empty.txt: no profile lines found (want lines like \"  7.36%  [kernel]  [k] page_pool_put_page\")"},
	{"predict: not a listing", "predict --profile {dir}/garbage.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/garbage.txt: line 1: want a share like \"7.36%\" first, got \"hello world\""},
	{"predict: shares over 100%", "predict --profile {dir}/over100.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/over100.txt: line 2: the shares add up to 110.00%, over 100%"},
	{"predict: a share that is not a number", "predict --profile {dir}/badpct.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/badpct.txt: line 1: \"abc%\" is not a share from 0% to 100%"},
	{"predict: a negative share", "predict --profile {dir}/negative.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/negative.txt: line 1: \"-5.00%\" is not a share from 0% to 100%"},
	{"predict: more than one symbol", "predict --profile {dir}/badsym.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/badsym.txt: line 1: want one symbol after the share (and optional object and [k]/[.]), got \"[kernel] [k] kfree_skb extra words\""},
	{"predict: a header rate that is not a rate", "predict --profile {dir}/badrate.txt --rate 1 --unit kpps --change bulk", 2, "ppsim: --profile {dir}/badrate.txt: line 1: rate \"lots kpps\": want a positive value in kpps, pps or mbps (Mpps and Gbps are converted)"},
	{"predict: shares that add up to nothing", "predict --profile {dir}/zero.txt --rate 1 --unit kpps --change skb-recycle --platform macchiatobin", 2, "ppsim: --profile: the listed shares add up to 0.00%: there is no measured cost to scale"},
	{"predict: an all-idle listing", "predict --profile {dir}/idle.txt --rate 100 --unit kpps --change skb-recycle", 2, "ppsim: --profile: every listed symbol is an idle loop (90.00% idle): the CPU was not busy, so a change to the receive path cannot be predicted from it"},
	{"predict: an unknown header platform", "predict --profile {dir}/badplat.txt --rate 100 --unit kpps --change skb-recycle", 2, "ppsim: the listing's header names platform \"vax11\", which the model does not have: unknown platform \"vax11\" (accepted: bench-x86, macchiatobin, espressobin, ti-cpsw, lunar-mips, x86-server, arm64-server)"},
	{"predict: an unknown header driver", "predict --profile {dir}/baddrv.txt --rate 100 --unit kpps --change skb-recycle", 2, "ppsim: the listing's header names driver \"e1000\", which the model does not have: unknown driver \"e1000\" (accepted: mvpp2, mvneta, cpsw, lunar, mlx5, bnxt, hns3)"},
	{"predict: rate negative", "predict --profile mvpp2-v1-before --rate -3 --unit kpps --change bulk", 2, "ppsim: --rate \"-3\": want a positive number"},
	{"predict: rate zero", "predict --profile mvpp2-v1-before --rate 0 --unit kpps --change bulk", 2, "ppsim: --rate \"0\": want a positive number"},
	{"predict: rate NaN", "predict --profile mvpp2-v1-before --rate NaN --unit kpps --change bulk", 2, "ppsim: --rate \"NaN\": want a positive number"},
	{"predict: rate infinite", "predict --profile mvpp2-v1-before --rate Inf --unit kpps --change bulk", 2, "ppsim: --rate \"Inf\": want a positive number"},
	{"predict: rate beyond the link", "predict --profile mvpp2-v1-before --rate 1e308 --unit kpps --change skb-recycle", 2, "ppsim: --rate 1e+308 kpps: more than platform macchiatobin's link carries with the listing's 64-byte frames (14204.5 kpps)"},
	{"predict: 100 Gpps", "predict --profile mvpp2-v1-before --rate 100000000 --unit kpps --change skb-recycle", 2, "ppsim: --rate 1e+08 kpps: more than platform macchiatobin's link carries with the listing's 64-byte frames (14204.5 kpps)"},
	{"predict: rate under one packet a second", "predict --profile mvpp2-v1-before --rate 0.0001 --unit kpps --change skb-recycle", 2, "ppsim: --rate 0.0001 kpps: under one packet per second; a perf top listing of a receive path describes a busy CPU"},
	{"predict: rate twice", "predict --profile mvpp2-v1-before --rate 1 --rate 2 --unit kpps --change bulk", 2, "ppsim: predict: --rate is given twice: give it once"},
	{"predict: unknown unit", "predict --profile mvpp2-v1-before --rate 962 --unit furlongs --change bulk", 2, "ppsim: --unit \"furlongs\": accepted: kpps, pps, mbps (Mpps and Gbps are converted)"},
	{"predict: Gbps converted, then beyond the link", "predict --profile mvpp2-v1-before --rate 962 --unit Gbps --change bulk", 2, "ppsim: --rate 962000 mbps: more than platform macchiatobin's link carries with the listing's 64-byte frames (7272.7 mbps) (the rate given, 962 Gbps, read as 962000 mbps)"},
	{"predict: unknown change", "predict --profile mvpp2-v1-before --rate 962 --unit kpps --change magic", 2, "ppsim: --change \"magic\": accepted: skb-recycle, bulk, napi-direct, pp-napi, or era:E for a move to era E (E one of 5.12, 5.13, 5.14, 5.15, 6.1, 6.4, 6.6, 6.8, 6.9, 6.10, 6.12, 6.13, 6.15, 6.16, 6.18, 6.19, 7.1-rc1, 7.1, 7.3)"},
	{"predict: empty change", "predict --profile mvpp2-v1-before --rate 962 --unit kpps --change ''", 2, "ppsim: predict: --change is empty: give a value or leave the flag out"},
	{"predict: unknown platform", "predict --profile mvpp2-v1-before --rate 962 --unit kpps --change bulk --platform vax", 2, "ppsim: platform: unknown platform \"vax\" (accepted: bench-x86, macchiatobin, espressobin, ti-cpsw, lunar-mips, x86-server, arm64-server)"},
	{"predict: bulk on a bulk profile", "predict --profile mvpp2-v7-before --rate 962 --unit kpps --change bulk", 2, "ppsim: bulk is already applied: the listing already shows bulk allocation (__alloc_pages_bulk, or its header says bulk refill on)"},
	{"predict: recycling on a recycling profile", "predict --profile mvpp2-v1-after --rate 962 --unit kpps --change skb-recycle", 2, "ppsim: skb-recycle is already applied: the listing's pages go back to their pool (it shows page_pool_put_page, __xdp_return, page_pool_refill_alloc_cache, or its header says recycling on)"},
	{"predict: napi-direct for a driver without pp.napi", "predict --profile mvpp2-v1-before --rate 962 --unit kpps --change napi-direct", 2, "ppsim: napi-direct does not apply to mvpp2: its driver never sets page_pool_params.napi, so no era recycles its skbs' pages NAPI-locally (they go through the ptr_ring); the change that would is the driver giving its pool a NAPI: pp-napi"},
	{"predict: stray profile name", "predict mvpp2-v1-before --rate 962 --unit kpps --change bulk", 2, "ppsim: predict: unexpected argument \"mvpp2-v1-before\" (did you mean --profile mvpp2-v1-before?)"},
	{"predict: stray change name", "predict --profile mvpp2-v1-before --rate 962 --unit kpps bulk", 2, "ppsim: predict: unexpected argument \"bulk\" (did you mean --change bulk?)"},
	{"run: flag without its value", "run --scenario", 2, "ppsim: run: --scenario needs a value (accepted flags: --base-url, --break, --driver, --era, --json, --ops, --packets, --scenario, --seed, --set, --text, --trace, --trace-event, --trace-event-max, --trace-format, --trace-max)"},
	{"diagnose: unknown flag", "diagnose --paste x", 2, "ppsim: diagnose: unknown flag --paste (accepted flags: --file, --interval, --json)"},
	{"diagnose: flag twice", "diagnose --file a --file b", 2, "ppsim: diagnose: --file is given twice: give it once"},
	{"diagnose: empty file flag", "diagnose --file ''", 2, "ppsim: diagnose: --file is empty: give a value or leave the flag out"},
	{"diagnose: stray argument", "diagnose counters.txt", 2, "ppsim: diagnose: unexpected argument \"counters.txt\""},
	{"diagnose: no such file", "diagnose --file {dir}/nope.txt", 2, "ppsim: --file {dir}/nope.txt: no such file (want a file with the paste, or - for stdin)"},
	{"diagnose: a directory", "diagnose --file {dir}/adir", 2, "ppsim: --file {dir}/adir: a directory (want a file with the paste, or - for stdin)"},
	{"diagnose: empty file", "diagnose --file {dir}/empty.txt", 2, "ppsim: --file {dir}/empty.txt: no input: want ethtool -S output (rx_pp_* or a driver's per-ring rx<N>_pp_* counters, with or without the NIC statistics: header, mail-quoted with > or |), a table of such counters with one column per run, ynl --family netdev --dump page-pool-stats-get or page-pool-get (Python literals or --output-json), or ynltool page-pool stats (plain, -j, group-by pp)"},
	{"diagnose: prose", "diagnose --file {dir}/garbage.txt", 2, "ppsim: --file {dir}/garbage.txt: line 1 \"hello world\": no page_pool counter or pool found: want ethtool -S output (rx_pp_* or a driver's per-ring rx<N>_pp_* counters, with or without the NIC statistics: header, mail-quoted with > or |), a table of such counters with one column per run, ynl --family netdev --dump page-pool-stats-get or page-pool-get (Python literals or --output-json), or ynltool page-pool stats (plain, -j, group-by pp)"},
	{"diagnose: binary", "diagnose --file {dir}/nul.txt", 2, "ppsim: --file {dir}/nul.txt: binary input (a NUL byte): want text"},
	{"diagnose: not UTF-8", "diagnose --file {dir}/badutf8.txt", 2, "ppsim: --file {dir}/badutf8.txt: not UTF-8 text (want ethtool -S output (rx_pp_* or a driver's per-ring rx<N>_pp_* counters, with or without the NIC statistics: header, mail-quoted with > or |), a table of such counters with one column per run, ynl --family netdev --dump page-pool-stats-get or page-pool-get (Python literals or --output-json), or ynltool page-pool stats (plain, -j, group-by pp))"},
	{"diagnose: too big", "diagnose --file {dir}/big.txt", 2, "ppsim: --file {dir}/big.txt: over 1048576 bytes (want one paste of counters)"},
	{"diagnose: negative counter", "diagnose --file {dir}/ppneg.txt", 2, "ppsim: --file {dir}/ppneg.txt: line 2 \"     rx_pp_alloc_fast: -3\": rx_pp_alloc_fast: want an unsigned 64-bit integer, found \"-3\""},
	{"diagnose: ragged table", "diagnose --file {dir}/ppragged.txt", 2, "ppsim: --file {dir}/ppragged.txt: line 2 \"rx_pp_alloc_slow\\t1\": want 2 values (one per column, as on line 1), found 1"},
	{"diagnose: unclosed ynl dump", "diagnose --file {dir}/ppunclosed.txt", 2, "ppsim: --file {dir}/ppunclosed.txt: line 2 \"  'inflight': 3\": want ',' or '}'"},
	{"diagnose: bad interval", "diagnose --file {dir}/ppok.txt --interval soon", 2, "ppsim: --interval \"soon\": want a positive number of seconds (10, 1.5 or 1.5s)"},
	{"diagnose: zero interval", "diagnose --file {dir}/ppok.txt --interval 0", 2, "ppsim: --interval \"0\": want a positive number of seconds (10, 1.5 or 1.5s)"},
	{"diagnose: negative interval", "diagnose --file {dir}/ppok.txt --interval -5", 2, "ppsim: --interval \"-5\": want a positive number of seconds (10, 1.5 or 1.5s)"},
	{"predict: flag without its value", "predict --profile mvpp2-v1-before --rate", 2, "ppsim: predict: --rate needs a value (accepted flags: --change, --json, --platform, --profile, --rate, --unit)"},
	{"run: text with json", "run --scenario pool-ring --text --json", 2, "ppsim: run: --text and --json are two outputs: give one"},
	{"run: text with ops", "run --scenario pool-ring --text --ops 5", 2, "ppsim: run: --text prints a whole run and the link that opens it; --ops goes without it"},
	{"run: base-url without text", "run --scenario pool-ring --base-url https://example.org/pplab/", 2, "ppsim: run: --base-url goes with --text (the link the text ends with)"},
	{"run: base-url not http", "run --scenario pool-ring --text --base-url ftp://example.org/", 2, "ppsim: --base-url \"ftp://example.org/\": want an absolute http or https URL without a query or fragment, the page's address (e.g. https://example.org/pplab/)"},
	{"compare: no other side", "compare --scenario pool-ring --era 6.1", 2, "ppsim: compare: give the second side: at least one of --with-era E, --with-driver D, --with-set knob=value, --with-break RULE (each changes the first side's config)"},
	{"compare: unknown flag", "compare --scenario pool-ring --with-kernel 6.1", 2, "ppsim: compare: unknown flag --with-kernel (accepted flags: --base-url, --break, --driver, --era, --json, --packets, --scenario, --seed, --set, --text, --with-break, --with-driver, --with-era, --with-set)"},
	{"compare: bad first side", "compare --scenario pool-ring --era 3.0 --with-era 6.1", 2, "ppsim: unknown era \"3.0\" (accepted: " + strings.Join(sim.EraNames(), ", ") + ")"},
	{"compare: unknown with-era", "compare --scenario pool-ring --with-era 4.0", 2, "ppsim: --with-era 4.0: unknown era \"4.0\" (accepted: " + strings.Join(sim.EraNames(), ", ") + ")"},
	{"compare: with-era the driver does not run in", "compare --scenario drop --driver hns3 --era 6.1 --with-era 5.14", 2, "ppsim: --with-era 5.14: driver hns3 does not run in era 5.14 (its frag API buffers need 5.15 or later)"},
	{"compare: with-era twice", "compare --scenario pool-ring --with-era 6.1 --with-era 6.4", 2, "ppsim: compare: --with-era is given twice: give it once"},
	{"compare: empty with-era", "compare --scenario pool-ring --with-era ''", 2, "ppsim: compare: --with-era is empty: give a value or leave the flag out"},
	{"compare: with-driver on a pool scenario", "compare --scenario pool-ring --with-driver mlx5", 2, "ppsim: --with-driver mlx5: scenario pool-ring runs without a driver (no driver for the pool-* scenarios)"},
	{"compare: with-set above the range", "compare --scenario pool-ring --with-set order=9", 2, "ppsim: --with-set order=9: want an integer from 0 to 4"},
	{"compare: with-set unknown knob", "compare --scenario pool-ring --with-set speed=9", 2, "ppsim: --with-set \"speed=9\": unknown knob \"speed\" (knobs: " + strings.Join(knobNames(), ", ") + ")"},
	{"compare: with-set the other knobs contradict", "compare --scenario forward --set tx_cpu=1 --with-set cpus=1", 2, "ppsim: --with-set cpus=1: tx_cpu=1: the machine has 1 CPUs (cpus=1): want 0 to 0"},
	{"compare: with-set the kernel refuses", "compare --scenario pool-ring --with-set pool_size=40000", 2, "ppsim: --with-set pool_size=40000: scenario pool-ring: page_pool_create: -E2BIG: pool_size 40000 > 32768 (sanity limit on pinned memory)"},
	{"compare: unknown with-break", "compare --scenario pool-ring --with-break gravity", 2, "ppsim: --with-break gravity: unknown rule \"gravity\" (accepted: " + strings.Join(sim.RuleNames(), ", ") + ")"},
	{"compare: with-break the first side breaks", "compare --scenario pool-ring --break refcnt-check --with-break refcnt-check", 2, "ppsim: --with-break refcnt-check: the first side breaks it already (--break refcnt-check), or it is given twice: the second side breaks the rules the first does and these"},
	{"compare: text with json", "compare --scenario pool-ring --with-era 6.1 --text --json", 2, "ppsim: compare: --text and --json are two outputs: give one"},
	{"compare: base-url without a scheme", "compare --scenario pool-ring --with-era 6.1 --base-url example.org/pplab", 2, "ppsim: --base-url \"example.org/pplab\": want an absolute http or https URL without a query or fragment, the page's address (e.g. https://example.org/pplab/)"},
	{"compare: base-url with a query", "compare --scenario pool-ring --with-era 6.1 --text --base-url https://example.org/?x=1", 2, "ppsim: --base-url \"https://example.org/?x=1\": want an absolute http or https URL without a query or fragment, the page's address (e.g. https://example.org/pplab/)"},
	{"compare: stray era name", "compare --scenario pool-ring 6.1", 2, "ppsim: compare: unexpected argument \"6.1\" (did you mean --era 6.1?)"},
	{"version: stray argument", "version extra", 2, "ppsim: version: unexpected argument \"extra\""},
	{"version: unknown flag", "version --yaml", 2, "ppsim: version: unknown flag --yaml (accepted flags: --json)"},
}

func TestCLI_BadInputTable(t *testing.T) {
	if len(badInputs) < 80 {
		t.Fatalf("the table has %d rows; it should keep at least 80", len(badInputs))
	}
	dir := fixtureDir(t)
	for _, tc := range badInputs {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			for _, a := range strings.Fields(tc.args) {
				if a == "''" {
					a = ""
				}
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			code, out, errOut := ppsim(args...)
			want := strings.ReplaceAll(tc.want, "{dir}", dir) + "\n"
			if code != tc.code || errOut != want || out != "" {
				t.Errorf("ppsim %s:\n exit %d, want %d\n stderr %q\n want   %q\n stdout %q", tc.args, code, tc.code, errOut, want, out)
			}
		})
	}
}

// knobNames are the knobs' names, as an unknown knob's error lists them.
func knobNames() []string {
	var out []string
	for _, k := range sim.AllKnobs() {
		out = append(out, k.Name)
	}
	return out
}

// erasWith lists, as the CLI does, the eras whose features satisfy has.
func erasWith(has func(*sim.Era) bool) string {
	var out []string
	for i := range sim.Eras {
		if has(&sim.Eras[i]) {
			out = append(out, sim.Eras[i].Name)
		}
	}
	return strings.Join(out, ", ")
}
