package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Knob is a tunable of a run (--set name=value).
type Knob uint8

const (
	KnobPoolSize Knob = iota
	KnobOrder
	KnobNid
	KnobNumaNodes
	KnobNodePages
	KnobCPUs
	KnobDMAMap
	KnobDMASyncDev
	KnobMaxLen
	KnobOffset
	KnobDMASyncSize
	KnobCoherent
	KnobIOMMU
	KnobAllocFailPPM
	KnobDMAMapFailPPM
	KnobPfmemallocPPM
	KnobBulk
	KnobSoftirq
	KnobCheckEvery
	KnobFrame
	KnobTapEvery
	KnobTxCPU
	KnobRxDescs
	KnobBulkRefill
	KnobVethCPU
	KnobSkbDeferMax
	KnobGRO
	KnobReadNS
	KnobRcvbuf
	KnobFastForward
	KnobHWGRO
	KnobXDPFrags
	KnobReleaseRace
	KnobProvider
	KnobDmabufPages
	KnobRedirectTo
	KnobHeld
	KnobPreemptRT
	KnobSRSO
	KnobPPNapi
	NumKnobs
)

// KnobSpec describes a knob: its default and accepted range (inclusive).
type KnobSpec struct {
	Name     string
	Default  int64
	Min, Max int64
	Doc      string
}

var knobSpecs = [NumKnobs]KnobSpec{
	KnobPoolSize:      {"pool_size", 0, 0, 65536, "page_pool_params.pool_size: ptr_ring size (0 = the driver's value, or the kernel default 1024; above 32768 page_pool_create fails with -E2BIG; from 6.18 a pool_size above 16384 is clamped to 16384 instead)"},
	KnobOrder:         {"order", 0, 0, 4, "page_pool_params.order: pages per pool page are PAGE_SIZE<<order (order > 0 skips the bulk path)"},
	KnobNid:           {"nid", -1, -1, 3, "page_pool_params.nid: preferred NUMA node (-1 = NUMA_NO_NODE: the allocating CPU's node)"},
	KnobNumaNodes:     {"numa_nodes", 1, 1, 4, "NUMA nodes in the simulated machine (CPUs are spread over them)"},
	KnobNodePages:     {"node_pages", 16384, 256, 1 << 20, "4 KiB pages of memory per NUMA node"},
	KnobCPUs:          {"cpus", 2, 1, 8, "CPUs in the simulated machine (cpu0 runs NAPI)"},
	KnobDMAMap:        {"dma_map", 0, 0, 1, "PP_FLAG_DMA_MAP for the pool-* scenarios (the kernel bench uses none); driver pools always map"},
	KnobDMASyncDev:    {"dma_sync_dev", -1, -1, 1, "PP_FLAG_DMA_SYNC_DEV: the pool syncs for the device on recycle (-1 = the driver's choice; off for the pool-* scenarios)"},
	KnobMaxLen:        {"max_len", 0, 0, 65536, "page_pool_params.max_len: most bytes synced for the device (0 = the driver's value; PAGE_SIZE << order without a driver)"},
	KnobOffset:        {"offset", 0, 0, 4095, "page_pool_params.offset: where the pool's sync for the device starts in the page (needs dma_sync_dev; offset + max_len within the page)"},
	KnobDMASyncSize:   {"dma_sync_size", -1, -1, 65536, "dma_sync_size passed by the put (-1 = full page, clamped to max_len)"},
	KnobCoherent:      {"coherent", -1, -1, 1, "1 = I/O-coherent DMA (sync is a no-op call), 0 = non-coherent (the CPU invalidates/cleans per byte), -1 = the platform's"},
	KnobIOMMU:         {"iommu", 0, 0, 1, "1 = DMA goes through an IOMMU (map/unmap cost more)"},
	KnobAllocFailPPM:  {"alloc_fail_ppm", 0, 0, 1000000, "page allocator failure injection, per million page allocations"},
	KnobDMAMapFailPPM: {"dma_map_fail_ppm", 0, 0, 1000000, "DMA mapping failure injection, per million mappings"},
	KnobPfmemallocPPM: {"pfmemalloc_ppm", 0, 0, 1000000, "pages that come from emergency reserves (pfmemalloc), per million"},
	KnobBulk:          {"bulk", 64, 1, 256, "pages requested per alloc_pages_bulk call (the kernel uses PP_ALLOC_CACHE_REFILL = 64); at most 128, the alloc cache, unless bulk-dma-unmap is broken"},
	KnobSoftirq:       {"softirq", 1, 0, 1, "pool-* scenarios: 1 = the benchmark runs in softirq (a tasklet, as the kernel bench's numbers), 0 = process context (driver scenarios: each operation runs in its own context, NAPI polls in softirq, readers in process context)"},
	KnobCheckEvery:    {"check_every", 65536, 1, 1 << 30, "batch mode runs the full invariant checker every N operations (and always at the end); the default is per 16384 pages: a larger machine is checked fully every 65536 × pages/16384 operations"},
	KnobFrame:         {"frame", 0, 0, 9018, "frame size in bytes on the wire, 60 (the Ethernet minimum) or more (0 = the workload's: 64 for drop, 1514 for TCP, 1512 for UDP); frames larger than an RX buffer use several (multi-buffer drivers)"},
	KnobTapEvery:      {"tap_every", 0, 0, 1024, "an AF_PACKET tap (tcpdump) clones every Nth received packet in tcp-stream and forward (0 = no tap); clone-tap uses 4 when 0"},
	KnobTxCPU:         {"tx_cpu", 0, 0, 7, "forward, and xdp-redirect and destroy with a second port (redirect_to=1, held=1): the CPU whose NAPI runs TX completion (0 = the RX NAPI's CPU; another CPU, below cpus, when XPS or the TX queue's IRQ affinity puts it elsewhere)"},
	KnobBulkRefill:    {"bulk_refill", -1, -1, 1, "1 = the slow path refills the alloc cache with alloc_pages_bulk (bulk pages per call, v5.13), 0 = one alloc_pages_node per call (before), -1 = the era's; so recycling with and without bulk refill can be compared in any era"},
	KnobVethCPU:       {"veth_cpu", -1, -1, 7, "xdp-redirect: the CPU the veth's NAPI runs on (-1 = the redirecting CPU: __veth_xdp_flush napi_schedule()s the peer where it runs; another CPU, below cpus, as RPS or threaded NAPI would move it)"},
	KnobSkbDeferMax:   {"skb_defer_max", 64, 0, 4096, "sysctl net.core.skb_defer_max (v5.19): skbs a CPU's defer list holds (from 6.18 one less) before skb_attempt_defer_free frees on the reader's CPU instead; an IPI kicks the owning CPU when the list reaches half (0 = never defer); default 64, 128 from 6.19 (a run that does not set it has its era's)"},
	KnobGRO:           {"gro", 1, 0, 1, "tcp-stream: 1 = GRO aggregates a flow's segments (skb_gro_receive: heads stolen into frags, then frag_list, up to 64 KB), 0 = ethtool -K gro off: every segment goes up the stack alone"},
	KnobReadNS:        {"read_ns", 0, 0, 1000000, "tcp-stream: what the application does with each 1448-byte segment it reads besides the copy, in ns (0 = nothing): a reader slower than the NIC fills the receive window and the NAPI goes idle"},
	KnobRcvbuf:        {"rcvbuf", 6291456, 65536, 1 << 28, "tcp-stream: the socket's receive buffer in bytes of truesize (sk_rcvbuf; tcp_rmem[2] = 6 MB is what autotuning reaches): a full window stops the sender"},
	KnobHWGRO:         {"hw_gro", -1, -1, 1, "bnxt: 1 = the normal RX path (no XDP program) with hardware GRO (TPA: the NIC aggregates a TCP flow, headers in a head buffer — not a pool page before 6.13, a pool fragment from 6.13 — and the payload in page_pool pages of the aggregation ring; 6.6, and 6.4 as the core its NAPI-local recycling was measured with), 0 = hardware GRO off: before 6.13 XDP page mode (a program attached: GRO_HW off, a pool page per buffer; a frame of at most 256 bytes copied and its buffer reused), from 6.13 the normal path without an aggregation ring (no program: every RX buffer a 2112-byte pool fragment, a frame over the copybreak — 256 bytes, 0 in 7.3 — built over it, one under it copied and its buffer reused: the pool idle), -1 = the driver's default (1 from 6.6 — GRO_HW is on by default — 0 before, when page mode is the only path whose buffers are page_pool pages); XDP scenarios always run page mode"},
	KnobFastForward:   {"fast_forward", 1, 0, 1, "batch runs skip whole cycles once the run repeats itself exactly (a verified steady state: counters, costs and clock advance by whole cycles, the tail runs for real; the results are byte-identical): 0 = simulate every operation"},
	KnobXDPFrags:      {"xdp_frags", 1, 0, 1, "generic-xdp: 1 = the XDP program was loaded with frags support (BPF_F_XDP_HAS_FRAGS, prog->aux->xdp_has_frags): from 6.9 skb_cow_data_for_xdp copies an skb that is cloned, non-linear or short of 256 bytes of headroom into the CPU's system page_pool (e6d5dbdd20aa); 0 = a frags-unaware program: the skb is linearized with pskb_expand_head + skb_linearize, as before 6.9, and the system pool is not used"},
	KnobReleaseRace:   {"release_race", 0, 0, 1, "destroy: 1 = the last late put stops in its producer window, right after producing the pool's last page into the ptr_ring, while the next page_pool_release_retry runs: the reader's last free inside page_pool_recycle_in_ring (the use-after-free 271683bb2cf3 fixed in 6.16: the release waits on the producer lock; before, it frees the pool under the producer); with held=1 the second port's last completion — a bulk put (mvpp2, mvneta, mlx5) inside the producer lock up to 6.13 and, from 6.14 (page_pool_recycle_ring_bulk), after the unlock before recycle_stat_add, which the 6.16 barrier does not wait for (bdea4980182e, 7.3); bnxt's xdp_return_frame inside page_pool_recycle_in_ring"},
	KnobProvider:      {"provider", 0, 0, 1, "devmem-rx: the memory provider bound to the RX queue: 0 = a dma-buf (devmem TCP, v6.12: buffers come back with SO_DEVMEM_DONTNEED), 1 = io_uring zero-copy RX (v6.15: buffers come back through the refill queue)"},
	KnobDmabufPages:   {"dmabuf_pages", 2048, 256, 16384, "devmem-rx: PAGE_SIZE chunks (net_iovs) in the dma-buf binding or io_uring area bound to the RX queue"},
	KnobRedirectTo:    {"redirect_to", 0, 0, 1, "xdp-redirect: where the XDP program redirects: 0 = a veth (XDP_PASS there builds an skb), 1 = a second port of the same driver (its own device) through its ndo_xdp_xmit: the frame is DMA-mapped for transmit, waits on that port's TX ring, and its TX completion (in that port's NAPI, on tx_cpu) unmaps it and returns the page the driver's way (mvpp2, mvneta, mlx5: xdp_return_frame_bulk; bnxt: xdp_return_frame) — into the ptr_ring before 6.10, from 6.10 into the alloc cache when page_pool_napi_local finds the source pool's NAPI scheduled on that CPU (mlx5, bnxt)"},
	KnobHeld:          {"held", 0, 0, 1, "destroy: what holds the pool's pages at the unload: 0 = skbs a socket keeps (its reader frees one a second), 1 = XDP frames redirected to a second port (redirect_to=1's target) whose TX is stalled by its link partner's flow control: 32 wait on its TX ring and, after the unload, its TX completion returns one a second (the last after 90 s) through the driver's xdp_return_frame_bulk (page_pool_put_page_bulk) or xdp_return_frame; the unload runs from process context on cpu1 (an unbind from a shell there), so the pool's release work runs on cpu1 while the completions run on tx_cpu"},
	KnobPreemptRT:     {"preempt_rt", 0, 0, 1, "1 = a PREEMPT_RT kernel (CONFIG_PREEMPT_RT): from 6.16 page_pool_napi_local answers not local, so no put the pool decides about recycles into the alloc cache (32471b2f481d: on RT a softirq can be preempted by the pool's consumer); explicit direct puts (an XDP_DROP's, page_pool_recycle_direct) still may. Refused before 6.16: no release before it tests RT in page_pool, so there an RT kernel recycles into the cache exactly as a non-RT one does (the race 32471b2f481d closed), and the knob would change nothing"},
	KnobSRSO:          {"srso", 0, 0, 2, "x86 platforms: the page_pool's own costs as an AMD EPYC 9684X (Zen 4) measured them under the SRSO mitigation (Speculative Return Stack Overflow): 1 = the kernel's default mitigation, the fast path, ptr_ring and slow path 21.3 / 46.7 / 139.4 ns per alloc and recycle; 2 = booted with spec_rstack_overflow=ibpb, 5.6 / 12.4 / 37.6 ns (bench_page_pool_simple in a tasklet, 6.13-rc6; Brouer, xdp-project areas/mem/page_pool08_bench_AMD.org); every other cost the platform's own; 0 = the platform's own"},
	KnobPPNapi:        {"pp_napi", -1, -1, 1, "page_pool_params.napi (v6.4, 8c48eea3adf3): 1 = the driver ties its pool to its RX NAPI, so an skb page freed in that NAPI's softirq on its CPU recycles into the lockless alloc cache instead of the ptr_ring; 0 = it does not; -1 = the driver's choice (bnxt and mlx5 from 6.4; mvpp2, mvneta, cpsw, hns3 and lunar never set it). Refused before 6.4, whose page_pool_params has no napi"},
	KnobRxDescs:       {"rx_descs", 0, 0, 4096, "NIC RX descriptors of the driver's queue (0 = the driver's count, e.g. 1024 for mvpp2, 511 for bnxt; ethtool -G rx N; even when the driver splits pages); the pool's ptr_ring follows it unless pool_size is set"},
}

// Spec returns the knob's description.
func (k Knob) Spec() KnobSpec { return knobSpecs[k] }

func (k Knob) String() string { return knobSpecs[k].Name }

// AllKnobs lists all knob specs in order.
func AllKnobs() []KnobSpec { return append([]KnobSpec(nil), knobSpecs[:]...) }

// Knobs holds one value per knob.
type Knobs [NumKnobs]int64

// DefaultKnobs returns every knob at its default.
func DefaultKnobs() Knobs {
	var k Knobs
	for i := range k {
		k[i] = knobSpecs[i].Default
	}
	return k
}

// DefaultKnobsIn returns every knob at its default in era e: a sysctl
// whose default a release changed has that era's (Era.SkbDeferMaxDefault).
// A nil era is DefaultKnobs.
func DefaultKnobsIn(e *Era) Knobs {
	k := DefaultKnobs()
	if e != nil {
		k[KnobSkbDeferMax] = e.SkbDeferMaxDefault
	}
	return k
}

// Get returns a knob's value.
func (k *Knobs) Get(n Knob) int64 { return k[n] }

// Set parses "name=value" and sets the knob, or returns an error that names the
// input and what is accepted.
func (k *Knobs) Set(assign string) error {
	name, val, ok := strings.Cut(assign, "=")
	if !ok || name == "" {
		return &FieldError{Field: "set", Value: assign, Msg: fmt.Sprintf("want knob=value (knobs: %s)", strings.Join(knobNames(), ", "))}
	}
	for i := range knobSpecs {
		s := &knobSpecs[i]
		if s.Name != name {
			continue
		}
		return k.SetValue(Knob(i), val)
	}
	return &FieldError{Field: "set", Value: assign, Msg: fmt.Sprintf("unknown knob %q (knobs: %s)", name, strings.Join(knobNames(), ", "))}
}

// SetValue parses val as the value of knob n, or returns a FieldError naming
// the knob, the value and the accepted range.
func (k *Knobs) SetValue(n Knob, val string) error {
	s := &knobSpecs[n]
	v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	if err != nil || v < s.Min || v > s.Max {
		return &FieldError{Field: s.Name, Value: val, Msg: fmt.Sprintf("want an integer from %d to %d", s.Min, s.Max), Knob: true}
	}
	k[n] = v
	return nil
}

// KnobByName resolves a knob name.
func KnobByName(name string) (Knob, bool) {
	for i := range knobSpecs {
		if knobSpecs[i].Name == name {
			return Knob(i), true
		}
	}
	return 0, false
}

func knobNames() []string {
	out := make([]string, len(knobSpecs))
	for i := range knobSpecs {
		out[i] = knobSpecs[i].Name
	}
	return out
}
