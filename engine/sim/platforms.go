package sim

// The driver platforms (each driver model's Spec.Platform, engine/drivers).
// Clock, coherence and cache line are documented platform factors; the cycle
// tables are calibrated from the measured profiles by engine/perf
// (calibrate.go) and written to calibrated.go,
// which a test re-derives. Where a clock is an assumption the Doc says so.
var (
	Macchiatobin = Platform{Name: "macchiatobin", MHz: 2000, CacheLine: 64, PtrBytes: 8, DMAMinAlign: 128, Coherent: true, InlineSpinLock: true, LinkMbps: 10_000,
		Doc:       "Marvell Armada 8040 (MacchiatoBIN): 4× Cortex-A72 @ 2.0 GHz, I/O-coherent DMA, 10G (mvpp2)",
		Names:     map[Sym]string{SymCacheMaint: "__pi___inval_dcache_area"},
		NamesFrom: arm64CacheNames}
	Espressobin = Platform{Name: "espressobin", MHz: 1000, CacheLine: 64, PtrBytes: 8, DMAMinAlign: 128, Coherent: false, InlineSpinLock: true, LinkMbps: 1000,
		Doc:       "Marvell Armada 3720 (EspressoBIN): 2× Cortex-A53 @ 1.0 GHz, non-coherent DMA (the CPU invalidates the dcache per byte), 1G (mvneta)",
		Names:     map[Sym]string{SymCacheMaint: "__pi___inval_dcache_area"},
		NamesFrom: arm64CacheNames}
	TICpsw = Platform{Name: "ti-cpsw", MHz: 1500, CacheLine: 64, PtrBytes: 4, DMAMinAlign: 64, PageOffset: 0xC0000000, Coherent: false, LinkMbps: 1000,
		Doc:   "TI ARMv7 SoC with the CPSW switch, non-coherent DMA, 1G (cpsw); the profile does not name the SoC: a Cortex-A15 @ 1.5 GHz (AM57xx class, out-of-order: A72-class cycle factor) is assumed",
		Names: map[Sym]string{SymCacheMaint: "v7_dma_inv_range", SymSyncForCPU: "__dma_page_dev_to_cpu", SymSyncForDevice: "__dma_page_cpu_to_dev"}}
	LunarMIPS = Platform{Name: "lunar-mips", MHz: 880, CacheLine: 32, PtrBytes: 4, DMAMinAlign: 128, PageOffset: 0x80000000, Coherent: false, LinkMbps: 1000,
		Doc:   "32-bit MIPS SoC with a 1G NIC, non-coherent DMA (lunar); the profile does not name the core: an in-order MIPS 1004K @ 880 MHz is assumed (A53-class cycle factor)",
		Names: map[Sym]string{SymCacheMaint: "r4k_dma_cache_inv"}}
	X86Server = Platform{Name: "x86-server", MHz: 3600, CacheLine: 64, PtrBytes: 8, Coherent: true, LinkMbps: 100_000,
		Doc: "x86-64 server, the kernel bench's CPU class (E5-1650 v4 @ 3.6 GHz), I/O-coherent, 100G (mlx5, bnxt); no profile: the A72 calibration scaled to bench cycles",
		// The copy to user space: copy_user_generic's alternative_call_2
		// picks copy_user_enhanced_fast_string on an ERMS CPU
		// (arch/x86/lib/copy_user_64.S up to v6.3; what Dumazet's x86
		// receive profile shows, engine/perf x86Receive); from v6.4
		// (Linus Torvalds' x86 uaccess rewrite, "x86: rewrite
		// 'copy_user_generic()' to use rep_movs_alternative") a CPU
		// without FSRM, as this Broadwell, calls rep_movs_alternative
		// (an FSRM CPU runs rep movsb inline in _copy_to_iter).
		Names:     map[Sym]string{SymCopyToUser: "copy_user_enhanced_fast_string"},
		NamesFrom: []NamesFrom{{From: "6.4", Names: map[Sym]string{SymCopyToUser: "rep_movs_alternative"}}}}
	Arm64Server = Platform{Name: "arm64-server", MHz: 2600, CacheLine: 64, PtrBytes: 8, DMAMinAlign: 128, Coherent: true, InlineSpinLock: true, LinkMbps: 100_000,
		Doc: "HiSilicon Kunpeng 920 arm64 server (TaiShan v110 @ 2.6 GHz, out-of-order: A72-class cycles), I/O-coherent, 100G (hns3); no profile"}
)

// arm64CacheNames: the dcache invalidation arm64's non-coherent DMA
// runs, renamed in v5.15 (fade9c2c6e2c, "arm64: Rename arm64-internal cache
// maintenance functions": __inval_dcache_area → dcache_inval_poc). perf
// shows the position-independent alias the routine is defined as
// (SYM_FUNC_START_PI in 5.10–5.15, SYM_FUNC_START(__pi_dcache_inval_poc)
// in 6.1.192 arch/arm64/mm/cache.S:144): __pi___inval_dcache_area up to
// 5.14, __pi_dcache_inval_poc from 5.15.
var arm64CacheNames = []NamesFrom{{From: "5.15", Names: map[Sym]string{SymCacheMaint: "__pi_dcache_inval_poc"}}}

func init() {
	for _, p := range []*Platform{&Macchiatobin, &Espressobin, &TICpsw, &LunarMIPS, &X86Server, &Arm64Server} {
		c, ok := calibratedCycles[p.Name]
		if !ok {
			c = BenchX86.Cycles // not yet calibrated (bootstrap of calibrated.go)
		}
		p.Cycles = c
		p.Source = calibratedSource[p.Name]
		Platforms = append(Platforms, p)
	}
}
