package mm

import "pplab/engine/sim"

// DMADir is enum dma_data_direction, with the kernel's values.
type DMADir uint8

const (
	DMABidirectional DMADir = 0
	DMAToDevice      DMADir = 1
	DMAFromDevice    DMADir = 2
	DMANone          DMADir = 3
)

func (d DMADir) String() string {
	return [...]string{"DMA_BIDIRECTIONAL", "DMA_TO_DEVICE", "DMA_FROM_DEVICE", "DMA_NONE"}[d&3]
}

// DMA models the DMA API for one device. Costs: a fixed cost per call; on a
// non-coherent platform sync costs per byte (cache invalidate/clean); with an
// IOMMU, map and unmap also program the IOMMU.
type DMA struct {
	m        *sim.Machine
	Coherent bool
	IOMMU    bool
	FailPPM  int64

	failNext int     // injected failures for the next map calls (tests)
	failPFN  []int32 `pp:"pfn"` // injected failures for mapping these pages, once each
	nextIOVA uint64

	Maps, Unmaps, MapFailures   int64 `pp:"counter"`
	SyncDevCalls, SyncDevBytes  int64 `pp:"counter"`
	SyncCPUCalls, SyncCPUBytes  int64 `pp:"counter"`
	TxMapped                    int64 // TX mappings outstanding
	Leaked                      int64 // mappings lost: their pages were freed and reused while mapped
	LastSyncDevLen, LastSyncOff int   // the most recent sync-for-device range (for tests and the UI)

	// SkipSync is dev->dma_skip_sync: from 6.10 (sim.Era.DMASkipSync,
	// f406c8e4b770) dma_setup_need_sync sets it for an I/O-coherent device
	// (no bounce buffering in the model), and the inline
	// dma_sync_single_for_{cpu,device} and page_pool_dma_sync_for_device
	// test dma_dev_need_sync() before they call anything: no call, no cost,
	// nothing that names the device.
	SkipSync bool

	// Unbound: the device's driver has unbound (Unbind); no DMA API call may
	// name the device from then on.
	Unbound bool
	// AfterUnbind counts the DMA API calls (unmaps and syncs) made on the
	// device after it was unbound.
	AfterUnbind int64 `pp:"counter"`
}

// Device returns the DMA API of another device on the same platform: the
// same coherence (and dma_skip_sync), IOMMU and mapping-failure rate, its
// own mappings, counters and unbind. A second NIC port on a device of its
// own (the target of an XDP redirect) maps its transmits there, and the
// first device's unbind does not touch them.
func (d *DMA) Device() *DMA {
	return &DMA{m: d.m, Coherent: d.Coherent, SkipSync: d.SkipSync, IOMMU: d.IOMMU, FailPPM: d.FailPPM}
}

// Unbind models the end of the driver's remove (device_release_driver): the
// driver has torn its queues down (page_pool_destroy included) and the
// device is unbound. From here a dma_unmap_page_attrs or a sync that names
// the device uses a device whose driver is gone: the DMA API's contract is
// broken, whatever happens next. Yonglong Liu's hns3 report ("[BUG
// REPORT]net: page_pool: kernel crash at iommu_get_dma_domain+0xc/0x20",
// <8743264a-9700-4227-a556-5f931c720211@huawei.com>, 30 Jul 2024) is the
// worst case: the VF had been removed (sriov_numvfs back to 0), its IOMMU
// domain with it, and page_pool_release_retry's page_pool_return_page →
// dma_unmap_page_attrs dereferenced a NULL domain; ee62ce7a1d90 fixed it in
// 6.16 by unmapping every pool page at destroy
// (<20250409-page-pool-track-dma-v9-0-6a9ef2e0cba8@redhat.com>). After a
// plain unbind the device and its domain may still be there, so a crash is
// possible, not certain. The checker reports each such call as
// dma-unmap-after-unbind (afterUnbind).
func (d *DMA) Unbind(cpu int) {
	cost := d.m.Charge(cpu, sim.SymDeviceUnbind, 0)
	d.Unbound = true
	d.ev(cpu, sim.SymDeviceUnbind, nil, cost,
		"the driver's remove is done and the device is unbound: no DMA API call may use it any more (pages still in flight keep their pool alive, not the device)")
}

// afterUnbind reports a DMA API call (what: its name) on the unbound device
// about page p (nil: a buffer the model does not track). The kernel would
// unmap through a device whose driver is gone; the model counts the call
// and goes on.
func (d *DMA) afterUnbind(p *Page, what string) {
	d.AfterUnbind++
	k := sim.KindDMAUnmapAfterUnbind
	iommu := ""
	if d.IOMMU {
		iommu = " (behind an IOMMU: if the device was removed with its domain, as the hns3 VF of the report was, the kernel oopses here on a NULL IOMMU domain; after a plain unbind a crash is possible, not certain)"
	}
	if p == nil {
		d.m.Report(k, -1, d.m.RuleFor(k), "%s on a device whose driver has unbound%s", what, iommu)
		return
	}
	p.ReportOnce(d.m, k, d.m.RuleFor(k), "%s on a device whose driver has unbound%s", what, iommu)
}

// InjectMapFailures makes the next n mapping attempts fail (deterministic
// failure injection for tests and guided scenarios).
func (d *DMA) InjectMapFailures(n int) { d.failNext = n }

// InjectMapFailureFor makes the next mapping of each given page fail once.
func (d *DMA) InjectMapFailureFor(pfns ...int32) { d.failPFN = append(d.failPFN, pfns...) }

// MapPage models dma_map_page_attrs(dev, page, 0, size, dir, attrs): it returns
// the DMA address, or ok=false on a mapping error (dma_mapping_error).
func (d *DMA) MapPage(cpu int, p *Page, size int, dir DMADir) (addr uint64, ok bool) {
	cost := d.m.Charge(cpu, sim.SymDMAMapPage, 0)
	if d.IOMMU {
		cost += d.m.Charge(cpu, sim.SymIOMMUMap, 0)
	}
	if d.injectedFailure(p) || d.m.Rand.Chance(d.FailPPM) {
		d.MapFailures++
		d.ev(cpu, sim.SymDMAMapPage, p, cost, "dma_mapping_error: the mapping failed")
		return 0, false
	}
	d.Maps++
	if d.IOMMU {
		d.nextIOVA += uint64(size)
		addr = 0xfff00000 - d.nextIOVA%0xfff00000
	} else {
		addr = uint64(p.PFN) << PageShift
	}
	p.DMAAddr, p.Mapped = addr, true
	d.ev(cpu, sim.SymDMAMapPage, p, cost, "maps the page for the device")
	return addr, true
}

func (d *DMA) injectedFailure(p *Page) bool {
	if d.failNext > 0 {
		d.failNext--
		return true
	}
	for i, pfn := range d.failPFN {
		if pfn == p.PFN {
			d.failPFN = append(d.failPFN[:i], d.failPFN[i+1:]...)
			return true
		}
	}
	return false
}

func (d *DMA) ev(cpu int, fn sim.Sym, p *Page, cost int64, why string) {
	if d.m.Tracing() {
		d.evSlow(cpu, fn, p, cost, why)
	}
}

func (d *DMA) evSlow(cpu int, fn sim.Sym, p *Page, cost int64, why string) {
	ev := sim.Event{CPU: cpu, Func: fn, Page: -1, CostPS: cost, Stat: sim.StatNone, Why: why}
	if p != nil { // nil: a kmalloc'ed buffer, not a page the model tracks
		ev.Page, ev.From, ev.To = p.PFN, p.Place, p.Place
	}
	d.m.Emit(ev)
}

// UnmapPage models dma_unmap_page_attrs.
func (d *DMA) UnmapPage(cpu int, p *Page, size int, dir DMADir) {
	cost := d.m.Charge(cpu, sim.SymDMAUnmapPage, 0)
	if d.IOMMU {
		cost += d.m.Charge(cpu, sim.SymIOMMUUnmap, 0)
	}
	if d.Unbound {
		d.afterUnbind(p, "dma_unmap_page_attrs")
	}
	d.Unmaps++
	p.Mapped = false
	p.DMAAddr = 0
	d.ev(cpu, sim.SymDMAUnmapPage, p, cost, "unmaps the page: the device may no longer write to it")
}

// SyncForDevice models dma_sync_single_range_for_device(dev, addr, offset, size,
// dir): on a non-coherent platform the CPU cleans/invalidates size bytes.
// With SkipSync (6.10+, coherent) the inline dma_dev_need_sync() test
// returns before any call: nothing happens and nothing is charged.
func (d *DMA) SyncForDevice(cpu int, p *Page, offset, size int, dir DMADir) int64 {
	if d.SkipSync {
		return 0
	}
	if d.Unbound {
		d.afterUnbind(p, "dma_sync_single_range_for_device")
	}
	d.SyncDevCalls++
	d.SyncDevBytes += int64(size)
	d.LastSyncDevLen, d.LastSyncOff = size, offset
	cost := d.m.Charge(cpu, sim.SymSyncForDevice, 0) + d.cacheMaint(cpu, size)
	if d.m.Tracing() {
		why := "I/O-coherent DMA: the sync is a no-op call"
		if !d.Coherent {
			why = "non-coherent DMA: the CPU cleans/invalidates the synced bytes from its caches"
		}
		d.ev(cpu, sim.SymSyncForDevice, p, cost, why)
	}
	return cost
}

// SyncForCPU models dma_sync_single_range_for_cpu (nothing with SkipSync,
// as SyncForDevice).
func (d *DMA) SyncForCPU(cpu int, p *Page, offset, size int, dir DMADir) int64 {
	if d.SkipSync {
		return 0
	}
	if d.Unbound {
		d.afterUnbind(p, "dma_sync_single_range_for_cpu")
	}
	d.SyncCPUCalls++
	d.SyncCPUBytes += int64(size)
	cost := d.m.Charge(cpu, sim.SymSyncForCPU, 0) + d.cacheMaint(cpu, size)
	d.ev(cpu, sim.SymSyncForCPU, p, cost, "syncs the received bytes for the CPU")
	return cost
}

// cacheMaint charges the cache invalidation/cleaning of size bytes: on a
// coherent platform the sync is a no-op call (dma-direct checks
// dev_is_dma_coherent), so nothing.
func (d *DMA) cacheMaint(cpu, size int) int64 {
	if d.Coherent || size <= 0 {
		return 0
	}
	return d.m.Charge(cpu, sim.SymCacheMaint, size)
}

// MapTX models dma_map_single(dev, skb->data, len, DMA_TO_DEVICE) in a
// driver's ndo_start_xmit: a streaming mapping of the frame for transmit
// (independent of the pool's RX mapping of the same page); on a non-coherent
// platform the CPU cleans the frame's bytes. ok=false on a mapping error. p
// is the page holding the bytes, nil for a kmalloc'ed head (skb_frag_dma_map
// of a frag is the same call on the frag's page).
func (d *DMA) MapTX(cpu int, p *Page, size int) bool {
	cost := d.m.Charge(cpu, sim.SymTxDMAMap, 0) + d.cacheMaint(cpu, size)
	if d.IOMMU {
		cost += d.m.Charge(cpu, sim.SymIOMMUMap, 0)
	}
	if d.m.Rand.Chance(d.FailPPM) {
		d.MapFailures++
		d.ev(cpu, sim.SymTxDMAMap, p, cost, "dma_mapping_error on transmit: the frame is dropped")
		return false
	}
	d.TxMapped++
	d.ev(cpu, sim.SymTxDMAMap, p, cost, "maps the frame for transmit (DMA_TO_DEVICE)")
	return true
}

// UnmapTX models dma_unmap_single on TX completion.
func (d *DMA) UnmapTX(cpu int, p *Page) {
	cost := d.m.Charge(cpu, sim.SymTxDMAUnmap, 0)
	if d.IOMMU {
		cost += d.m.Charge(cpu, sim.SymIOMMUUnmap, 0)
	}
	if d.Unbound {
		d.afterUnbind(p, "dma_unmap_single")
	}
	d.TxMapped--
	d.ev(cpu, sim.SymTxDMAUnmap, p, cost, "TX completion: unmaps the transmitted frame")
}
