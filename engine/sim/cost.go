package sim

import (
	"fmt"
	"math"
)

// Cost is what one call of a symbol costs on a platform, in CPU cycles: a fixed
// part per call and a part per unit (bytes for copies and cache maintenance,
// pages for bulk operations). PerUnitMilli is in thousandths of a cycle.
type Cost struct {
	Fixed        int64
	PerUnitMilli int64
}

// Platform is a machine: CPU clock, cache line, DMA coherence, link speed,
// the symbol names its profiles show, and per-symbol costs in cycles.
type Platform struct {
	Name      string
	Doc       string
	MHz       int64
	CacheLine int // bytes (ptr_ring batch = 2*CacheLine/PtrBytes)
	PtrBytes  int // pointer size (8 on 64-bit, 4 on 32-bit)
	// DMAMinAlign is ARCH_DMA_MINALIGN where the architecture's kernel
	// defines it, what dma_get_cache_alignment() returns and
	// page_pool_alloc_frag rounds every fragment up to (size =
	// ALIGN(size, dma_get_cache_alignment()), from the frag API's
	// 53e0961da1c7, v5.15, to today's page_pool_alloc_frag_netmem); 0: the
	// architecture defines none (x86), and it returns 1. It does not depend
	// on the device's coherence: arm64 defines 128 for every system
	// (arch/arm64/include/asm/cache.h: "aligned to the maximum *known*
	// cache line size on ARMv8 systems"), ARM32 L1_CACHE_BYTES
	// (arch/arm/include/asm/cache.h: 1 << CONFIG_ARM_L1_CACHE_SHIFT, 64 on
	// a v7 Cortex-A15), MIPS 128 unless the kernel is built for coherent
	// DMA only (arch/mips/include/asm/mach-generic/kmalloc.h, "#ifndef
	// CONFIG_DMA_COHERENT ... Set this one if any device in the system
	// might do non-coherent DMA"). The platform's own kernel config, so the
	// coherent knob leaves it alone.
	DMAMinAlign int
	// PageOffset is a 32-bit kernel's PAGE_OFFSET (the start of the kernel's
	// linear map: 0xC0000000 with ARM's 3G/1G split, 0x80000000 on MIPS32);
	// 0 on 64-bit, where POISON_POINTER_DELTA decides instead. It sizes
	// PP_DMA_INDEX_BITS (docs/eras-after-6.8.md §4.2).
	PageOffset uint64
	// Coherent: I/O-coherent DMA (syncs are no-op calls); otherwise the CPU
	// invalidates/cleans the synced bytes (SymCacheMaint per byte).
	Coherent bool
	// InlineSpinLock: spin_lock is inlined into its caller (arm64 selects
	// ARCH_INLINE_SPIN_LOCK without PREEMPTION), so the ptr_ring producer
	// lock shows up inside page_pool_put_page in a profile.
	InlineSpinLock bool
	LinkMbps       int64 // the NIC's line rate
	// Names: symbols a profile on this platform shows under another name
	// (cache maintenance functions differ per architecture).
	Names map[Sym]string
	// NamesFrom: names that hold from an era on (a later one wins), over
	// Names: an architecture function a release renamed.
	NamesFrom []NamesFrom
	// Source says where the cycle table comes from (calibration provenance).
	Source string
	Cycles [NumSyms]Cost
}

// LinkPPS is the platform link's packet rate for frames of frame bytes:
// preamble, FCS and inter-frame gap add 24 bytes per frame.
func (p *Platform) LinkPPS(frame int) float64 {
	return float64(p.LinkMbps) * 1e6 / float64((frame+24)*8)
}

// ProfileName is the symbol a perf profile on this platform shows for s in
// the eras up to 6.8 (ProfileNameIn with no era): the names engine/perf's
// calibration and predictions match the shipped listings with.
func (p *Platform) ProfileName(s Sym) string { return p.ProfileNameIn(s, nil) }

// ProfileNameIn is the symbol a perf profile of era e on this platform
// shows for s (Sym.ProfileIn, after the platform's own names).
func (p *Platform) ProfileNameIn(s Sym, e *Era) string {
	if e != nil {
		for i := len(p.NamesFrom) - 1; i >= 0; i-- {
			nf := p.NamesFrom[i]
			if n, ok := nf.Names[s]; ok {
				if f, err := EraByName(nf.From); err == nil && e.Order >= f.Order && e.Branch == "" {
					return n
				}
			}
		}
	}
	if n, ok := p.Names[s]; ok {
		return n
	}
	if s == SymProducerLock && p.InlineSpinLock {
		return SymPutPage.ProfileIn(e)
	}
	return s.ProfileIn(e)
}

// NamesFrom are a platform's profile names from era From on
// (Platform.NamesFrom).
type NamesFrom struct {
	From  string
	Names map[Sym]string
}

// costPS is a platform's table compiled to picoseconds. Its arrays hold
// 256 entries so that a Sym (a uint8) indexes them without a bounds check.
type costPS struct {
	fixed   [symSlots]int64
	perUnit [symSlots]int64 // ps per unit, in thousandths
}

// symSlots is every value a Sym can hold.
const symSlots = 256

func (p *Platform) compile() costPS {
	var c costPS
	for s := range p.Cycles {
		c.fixed[s] = p.Cycles[s].Fixed * 1_000_000 / p.MHz
		c.perUnit[s] = p.Cycles[s].PerUnitMilli * 1_000_000 / p.MHz
	}
	return c
}

// SRSO is the srso knob's measurement: bench_page_pool_simple's three sums
// (tasklet_page_pool01_fast_path, 02_ptr_ring, 03_slow) on an AMD EPYC
// 9684X, kernel 6.13.0-rc6, in ns (the bench's TSC cycles at its 2.55 GHz
// TSC: 54 / 118 / 354 cycles with the default SRSO mitigation, 14 / 31 / 95
// booted with spec_rstack_overflow=ibpb), from Jesper Brouer's notes
// "Benchmark page_pool on AMD CPU" (xdp-project,
// areas/mem/page_pool08_bench_AMD.org, read at commit 0102598d3df7). The
// same notes give the Intel E5-1650 baseline as 19 / 54 / 238 cycles: the
// gap is the mitigation's (docs.kernel.org admin-guide/hw-vuln/srso).
var SRSO = [3]struct{ Fast, Ring, Slow float64 }{
	{},
	{Fast: 21.256, Ring: 46.668, Slow: 139.400},
	{Fast: 5.555, Ring: 12.389, Slow: 37.607},
}

// X86 reports whether the platform is an x86 machine (the srso knob's).
func (p *Platform) X86() bool { return p.Name == BenchX86.Name || p.Name == X86Server.Name }

// The symbols of bench_page_pool_simple's three loops (BenchX86's doc):
// the fast path's, what the ptr_ring loop adds, what the slow loop adds.
var (
	srsoFast = []Sym{SymAllocPages, SymPutPage, SymRecycleInCache}
	srsoRing = []Sym{SymRefillAllocCache, SymRecycleInRing, SymProducerLock, SymPtrRingProduce}
	srsoSlow = []Sym{SymGetPage, SymReleasePage, SymReturnPage, SymPutPageRef, SymFreePage, SymAllocPagesSlow, SymAllocPagesBulk, SymSetPPInfo}
)

// benchSums are the three loops' cycles on a cost table, as
// TestBenchX86_ReproducesKernelBenchmark sums them (a refill of 64 pages
// per 64 loops).
func benchSums(c *[NumSyms]Cost) (fast, ring, slow float64) {
	perPage := func(s Sym) float64 { return float64(c[s].PerUnitMilli) / 1000 }
	fast = float64(c[SymAllocPages].Fixed + c[SymPutPage].Fixed + c[SymRecycleInCache].Fixed)
	ring = float64(c[SymAllocPages].Fixed) + (float64(c[SymRefillAllocCache].Fixed)+64*perPage(SymRefillAllocCache))/64 +
		float64(c[SymPutPage].Fixed+c[SymRecycleInRing].Fixed+c[SymProducerLock].Fixed+c[SymPtrRingProduce].Fixed)
	slow = float64(c[SymAllocPages].Fixed+c[SymGetPage].Fixed+c[SymPutPage].Fixed+c[SymReleasePage].Fixed+c[SymReturnPage].Fixed+
		c[SymPutPageRef].Fixed+c[SymFreePage].Fixed) +
		float64(2+c[SymAllocPagesSlow].Fixed+c[SymAllocPagesBulk].Fixed+c[SymSetPPInfo].Fixed*64)/64 + perPage(SymAllocPagesBulk)
	return fast, ring, slow
}

// WithSRSO is the platform with the page_pool's costs of srso mode (1 or
// 2, the srso knob): each loop's own symbols scaled so that the three sums
// are SRSO[mode]'s, in this platform's cycles; every other cost kept.
// Mode 0 is the platform itself. Misuse (another mode, a platform not x86)
// panics: the lab refuses the knob there.
func (p *Platform) WithSRSO(mode int64) *Platform {
	if mode == 0 {
		return p
	}
	if mode < 0 || mode >= int64(len(SRSO)) || !p.X86() {
		panic(fmt.Sprintf("sim: WithSRSO(%d) on platform %s: want 1 or 2 on an x86 platform", mode, p.Name))
	}
	q := *p
	c := &q.Cycles
	want := SRSO[mode]
	cyc := func(ns float64) float64 { return ns * float64(p.MHz) / 1000 }
	scale := func(syms []Sym, f float64) {
		for _, s := range syms {
			c[s].Fixed = int64(math.Round(float64(c[s].Fixed) * f))
			c[s].PerUnitMilli = int64(math.Round(float64(c[s].PerUnitMilli) * f))
		}
	}
	// The loops share AllocPages and PutPage: the fast loop's symbols
	// first, then what the ring and slow loops add on top of the shared
	// pair (the slow loop's 2 cycles per 64 of the refill's empty check
	// are a constant of the sum).
	fast, _, _ := benchSums(c)
	scale(srsoFast, cyc(want.Fast)/fast)
	shared := float64(c[SymAllocPages].Fixed + c[SymPutPage].Fixed)
	_, ring, slow := benchSums(c)
	scale(srsoRing, (cyc(want.Ring)-shared)/(ring-shared))
	scale(srsoSlow, (cyc(want.Slow)-shared-2.0/64)/(slow-shared-2.0/64))
	q.Source = fmt.Sprintf("%s; the page_pool's fast, ptr_ring and slow loops set to an AMD EPYC 9684X's with SRSO mode %d (%.1f / %.1f / %.1f ns: xdp-project areas/mem/page_pool08_bench_AMD.org)", p.Source, mode, want.Fast, want.Ring, want.Slow)
	return &q
}

// Platforms known to the engine: the kernel bench machine and the driver
// platforms (platforms.go; their cycle tables are calibrated, calibrated.go).
var Platforms = []*Platform{&BenchX86}

// PlatformByName resolves a platform name.
func PlatformByName(name string) (*Platform, error) {
	return ByName("platform", "platform", Platforms, platformName, name)
}

// PlatformNames lists the platform names.
func PlatformNames() []string { return Names(Platforms, platformName) }

func platformName(p *Platform) string { return p.Name }

// BenchX86 is the machine of the page_pool micro-benchmark figures (Brouer's
// out-of-tree bench_page_pool_simple, prototype-kernel)
// the pool's costs are anchored to: Jesper Brouer's 2023 run of
// bench_page_pool_simple in a tasklet on an E5-1650 v4 @ 3.6 GHz (his reply
// in "page pool: not return page to alloc cache during pool destruction", 15
// Jun 2023, <b28b0e3e-87e4-5a02-c172-2d1424405a5a@redhat.com>):
//
//	01_fast_path (alloc + page_pool_recycle_direct)        14 cycles
//	02_ptr_ring  (alloc + page_pool_put_page(..., false))   49 cycles
//	03_slow      (get_page + put + put_page, then alloc)   162 cycles
//
// Only those three sums are measured. The split into functions below is ours,
// anchored where a measured baseline exists: spin lock+unlock 31 cycles and
// atomic_inc 13–14 cycles (Joe Damato's cover letter "[net-next v5 0/2]
// page_pool: Add page_pool stat counters", 14 Feb 2022,
// <1644868949-24506-1-git-send-email-jdamato@fastly.com>). The sums are
// re-derived in sim_test.go (TestBenchX86_ReproducesKernelBenchmark):
//
//	fast = AllocPages + PutPage + RecycleInCache                          = 6 + 6 + 2          = 14
//	ring = AllocPages + (Refill + 64*RefillPerPage)/64 + PutPage
//	       + ProducerLock + PtrRingProduce                                = 6 + 2 + 6 + 31 + 4 = 49
//	slow = AllocPages + GetPage + PutPage + ReleasePage + PutPageRef + FreePage
//	       + (RefillEmptyCheck + AllocPagesSlow + AllocPagesBulk)/64 + BulkPerPage
//	                                       = 6 + 14 + 6 + 16 + 14 + 50 + (2+64+126)/64 + 53 = 162
//
// (the bench pool has flags 0: no DMA map, no sync; the bulk refill includes
// set_pp_info and the hold counter, which we fold into __alloc_pages_bulk's
// per-page cost). DMA, IOMMU, slab and cache-maintenance costs are not part of
// the benchmark; the values below are order-of-magnitude defaults for an x86
// server, NOT calibrated — engine/perf's calibration (calibrate.go) sets them
// per platform from the shipped profiles (calibrated.go).
var BenchX86 = Platform{
	Name: "bench-x86", MHz: 3600, CacheLine: 64, PtrBytes: 8, Coherent: true, LinkMbps: 100_000,
	Source: "pool operations: the kernel bench's three measured sums (Brouer, <b28b0e3e-87e4-5a02-c172-2d1424405a5a@redhat.com>); everything else: order-of-magnitude x86 defaults (not calibrated)",
	Doc:    "Xeon E5-1650 v4 @ 3.6 GHz, I/O-coherent; the page_pool micro-benchmark machine",
	Cycles: [NumSyms]Cost{
		SymPoolCreate:       {Fixed: 2000},
		SymAllocPages:       {Fixed: 6},
		SymRefillAllocCache: {Fixed: 64, PerUnitMilli: 1000},
		SymAllocPagesSlow:   {Fixed: 64},
		SymAllocPageOrder:   {Fixed: 40},
		SymPoolDMAMap:       {Fixed: 4},
		SymSetPPInfo:        {Fixed: 0},
		SymPutPage:          {Fixed: 6},
		SymRecycleInCache:   {Fixed: 2},
		SymRecycleInRing:    {Fixed: 0},
		SymPutPageBulk:      {Fixed: 10, PerUnitMilli: 4000},
		SymReleasePage:      {Fixed: 16},
		SymReturnPage:       {Fixed: 0},
		SymReturnSkbPage:    {Fixed: 6},
		SymXDPReturn:        {Fixed: 30},
		SymAllocFrag:        {Fixed: 10},
		SymDrainFrag:        {Fixed: 14},
		SymPoolDestroy:      {Fixed: 500},
		SymPoolRelease:      {Fixed: 100},
		SymReleaseRetry:     {Fixed: 200},
		SymUpdateNid:        {Fixed: 50},
		SymProducerLock:     {Fixed: 31},
		SymConsumerLock:     {Fixed: 31},
		SymPtrRingProduce:   {Fixed: 4},
		SymAllocPagesBulk:   {Fixed: 126, PerUnitMilli: 53000},
		SymAllocPagesNode:   {Fixed: 110},
		SymFreePage:         {Fixed: 50},
		SymGetPage:          {Fixed: 14},
		SymPutPageRef:       {Fixed: 14},
		SymDMAMapPage:       {Fixed: 30},
		SymDMAUnmapPage:     {Fixed: 20},
		SymIOMMUMap:         {Fixed: 300},
		SymIOMMUUnmap:       {Fixed: 400},
		SymSyncForDevice:    {Fixed: 5},
		SymSyncForCPU:       {Fixed: 5},
		SymSlabAlloc:        {Fixed: 20},
		SymSlabFree:         {Fixed: 20},
		// sk_buff functions: order-of-magnitude defaults, NOT calibrated.
		SymBuildSKB:         {Fixed: 40},
		SymAllocSKB:         {Fixed: 80},
		SymMarkForRecycle:   {Fixed: 1},
		SymAddRxFrag:        {Fixed: 8},
		SymKfreeSKB:         {Fixed: 10},
		SymNapiConsumeSKB:   {Fixed: 10},
		SymReleaseHeadState: {Fixed: 10},
		SymReleaseData:      {Fixed: 10},
		SymFreeHead:         {Fixed: 4},
		SymFragUnref:        {Fixed: 4},
		SymKfreeSkbmem:      {Fixed: 20},
		SymNapiSkbCachePut:  {Fixed: 4, PerUnitMilli: 20000},
		SymNapiSkbCacheGet:  {Fixed: 4, PerUnitMilli: 20000},
		SymSkbClone:         {Fixed: 60},
		SymPskbExpandHead:   {Fixed: 150},
		SymSkbTryCoalesce:   {Fixed: 30},
		SymSkbShift:         {Fixed: 40},
		SymKfreeSkbPartial:  {Fixed: 10},
		SymMemcpy:           {Fixed: 5, PerUnitMilli: 125},
		// the receive path around page_pool: x86 order-of-magnitude defaults,
		// NOT calibrated; the driver platforms calibrate them (calibrated.go).
		SymPageFragFree: {Fixed: 14}, // an atomic dec, as atomic_inc (Damato's baseline above)
		SymDeferFree:    {Fixed: 20},
		SymDrvRx:        {Fixed: 150},
		SymDrvXmit:      {Fixed: 200},
		SymDrvTxClean:   {Fixed: 60},
		SymEthTypeTrans: {Fixed: 30},
		SymGroReceive:   {Fixed: 80},
		SymNetifReceive: {Fixed: 100},
		SymIPRcv:        {Fixed: 150},
		SymIPForward:    {Fixed: 400},
		SymDevQueueXmit: {Fixed: 250},
		SymTCPRcv:       {Fixed: 600},
		SymTCPRecvmsg:   {Fixed: 300},
		SymCopyToUser:   {Fixed: 20, PerUnitMilli: 250},
		SymXDPRun:       {Fixed: 30},
		SymXDPRedirect:  {Fixed: 80},
		SymVethXDPRcv:   {Fixed: 100},
		SymXDPConvert:   {Fixed: 60},
		SymCacheMaint:   {PerUnitMilli: 250},
		SymTxDMAMap:     {Fixed: 30},
		SymTxDMAUnmap:   {Fixed: 20},
		SymDeferFlush:   {Fixed: 30},  // spin_lock + list splice
		SymDeferIPI:     {Fixed: 400}, // an IPI send (the x2APIC ICR write and the csd)
		// the call-function IPI on the receiving CPU: the interrupt's entry and
		// exit around trigger_rx_softirq (the model's estimate, not measured)
		SymTriggerRxSoftirq: {Fixed: 600},
		SymSkbGroReceive:    {Fixed: 40},
		SymAppWork:          {}, // charged in ns from the read_ns knob
		// the eras after 6.8: order-of-magnitude defaults, NOT calibrated.
		SymPoolCreatePercpu: {Fixed: 2000},
		SymNapiLocal:        {Fixed: 2},
		SymDMAIndexAlloc:    {Fixed: 40}, // xa_alloc: a spin_lock and a tree walk
		SymDMAIndexRelease:  {Fixed: 30}, // xa_cmpxchg
		SymPoolScrub:        {Fixed: 100},
		SymSynchronizeNet:   {},          // an RCU grace period the destroyer sleeps through: no CPU cost
		SymMPAllocNetmems:   {Fixed: 60}, // gen_pool_alloc of one chunk
		SymMPReleaseNetmem:  {Fixed: 40}, // gen_pool_free
		SymGenericXDP:       {Fixed: 60},
		SymSkbPPCowData:     {Fixed: 120}, // plus the memcpy per byte, charged as SymMemcpy
		SymSkbCopyBits:      {Fixed: 10},
		SymDevmemRecvmsg:    {Fixed: 300},
		SymDevmemDontneed:   {Fixed: 200, PerUnitMilli: 30000},
		SymZcrxRefill:       {Fixed: 20, PerUnitMilli: 10000},
		SymDeviceUnbind:     {},          // a state change at unload (driver core bookkeeping not modelled): no cost
		SymZcAllocNetmems:   {Fixed: 60}, // the refill queue or freelist check, then a pop from the alloc cache
		SymZcReleaseNetmem:  {Fixed: 40}, // io_zcrx_return_niov_freelist: a spin_lock and a push
	},
}
