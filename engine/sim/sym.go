package sim

// Sym names a modelled kernel function: the unit of cost accounting, of events
// and of the perf-top style profile.
type Sym uint16

const (
	SymNone Sym = iota
	// page_pool (net/core/page_pool.c)
	SymPoolCreate       // page_pool_create
	SymAllocPages       // page_pool_alloc_pages (+ __page_pool_get_cached, inlined)
	SymRefillAllocCache // page_pool_refill_alloc_cache (fixed per call, per page consumed)
	SymAllocPagesSlow   // __page_pool_alloc_pages_slow
	SymAllocPageOrder   // __page_pool_alloc_page_order
	SymPoolDMAMap       // page_pool_dma_map
	SymSetPPInfo        // page_pool_set_pp_info
	SymPutPage          // page_pool_put_page / __page_pool_put_page
	SymRecycleInCache   // page_pool_recycle_in_cache (inlined into page_pool_put_page)
	SymRecycleInRing    // page_pool_recycle_in_ring (inlined into page_pool_put_page)
	SymPutPageBulk      // page_pool_put_page_bulk
	SymReleasePage      // page_pool_release_page
	SymReturnPage       // page_pool_return_page
	SymReturnSkbPage    // page_pool_return_skb_page
	SymXDPReturn        // __xdp_return (rfc-v1 return path, rhashtable lookup inlined)
	SymAllocFrag        // page_pool_alloc_frag
	SymDrainFrag        // page_pool_drain_frag
	SymPoolDestroy      // page_pool_destroy
	SymPoolRelease      // page_pool_release
	SymReleaseRetry     // page_pool_release_retry
	SymUpdateNid        // page_pool_update_nid
	SymProducerLock     // spin lock/unlock of ring->producer_lock
	SymConsumerLock     // spin lock/unlock of ring->consumer_lock (refill, before v5.17)
	SymPtrRingProduce   // __ptr_ring_produce
	// mm
	SymAllocPagesBulk // __alloc_pages_bulk (per call + per page)
	SymAllocPagesNode // __alloc_pages (alloc_pages_node)
	SymFreePage       // free_unref_page / __free_pages (the last put_page)
	SymGetPage        // get_page (page refcount ++)
	SymPutPageRef     // put_page that is not the last reference
	SymDMAMapPage     // dma_map_page_attrs
	SymDMAUnmapPage   // dma_unmap_page_attrs
	SymIOMMUMap       // IOMMU mapping (iommu_dma_map_page)
	SymIOMMUUnmap     // IOMMU unmapping (iommu_dma_unmap_page)
	SymSyncForDevice  // dma_sync_single_range_for_device (fixed + per byte)
	SymSyncForCPU     // dma_sync_single_range_for_cpu (fixed + per byte)
	SymSlabAlloc      // kmem_cache_alloc
	SymSlabFree       // kmem_cache_free
	// sk_buff (net/core/skbuff.c)
	SymBuildSKB         // build_skb / napi_build_skb (head over a page fragment)
	SymAllocSKB         // __alloc_skb / napi_alloc_skb (kmalloc'ed head)
	SymMarkForRecycle   // skb_mark_for_recycle (inline)
	SymAddRxFrag        // skb_add_rx_frag
	SymKfreeSKB         // kfree_skb / consume_skb / __kfree_skb
	SymNapiConsumeSKB   // napi_consume_skb
	SymReleaseHeadState // skb_release_head_state
	SymReleaseData      // skb_release_data
	SymFreeHead         // skb_free_head
	SymFragUnref        // __skb_frag_unref (napi_frag_unref in v6.4–v6.9)
	SymKfreeSkbmem      // kfree_skbmem (the struct sk_buff)
	SymNapiSkbCachePut  // napi_skb_cache_put (+ kmem_cache_free_bulk of half when full)
	SymNapiSkbCacheGet  // napi_skb_cache_get (+ kmem_cache_alloc_bulk when empty)
	SymSkbClone         // skb_clone
	SymPskbExpandHead   // pskb_expand_head
	SymSkbTryCoalesce   // skb_try_coalesce
	SymSkbShift         // skb_shift
	SymKfreeSkbPartial  // kfree_skb_partial
	SymMemcpy           // memcpy (per byte)
	SymPageFragFree     // page_frag_free (skb_free_frag of a head that is not recycled)
	SymDeferFree        // skb_attempt_defer_free (queue the free to the skb's alloc CPU, v5.19+)
	// the receive/transmit path around page_pool (per packet)
	SymDrvRx            // the driver's RX poll function (per frame), named per driver
	SymDrvXmit          // the driver's ndo_start_xmit, named per driver
	SymDrvTxClean       // the driver's TX completion (per frame), named per driver
	SymEthTypeTrans     // eth_type_trans
	SymGroReceive       // dev_gro_receive (+ the protocol's gro_receive)
	SymNetifReceive     // __netif_receive_skb_core
	SymIPRcv            // ip_rcv + routing lookup
	SymIPForward        // ip_forward + NAT (nf_conntrack, nf_nat) + ip_output
	SymDevQueueXmit     // __dev_queue_xmit + qdisc
	SymTCPRcv           // tcp_v4_rcv + tcp_rcv_established + tcp_queue_rcv
	SymTCPRecvmsg       // tcp_recvmsg (the application's read: per skb, and per byte its datagram iteration)
	SymCopyToUser       // skb_copy_datagram_iter → copy to user (per byte)
	SymXDPRun           // bpf_prog_run_xdp (the driver's XDP program)
	SymXDPRedirect      // xdp_do_redirect + xdp_do_flush (to a veth)
	SymVethXDPRcv       // veth_xdp_rcv: the peer's NAPI turns the frame into an skb (XDP_PASS)
	SymXDPConvert       // xdp_convert_buff_to_frame / __xdp_build_skb_from_frame
	SymStackRest        // the rest of the stack (calibrated per platform from the profile's unlisted remainder)
	SymCacheMaint       // the CPU's cache maintenance for non-coherent DMA (per byte), named per platform
	SymTxDMAMap         // dma_map_single of a frame for transmit (the TX side's mapping)
	SymTxDMAUnmap       // dma_unmap_single on TX completion
	SymDeferFlush       // skb_defer_free_flush (net_rx_action: take the CPU's defer list)
	SymDeferIPI         // smp_call_function_single_async: the defer list's IPI kick, sent by the freeing CPU
	SymTriggerRxSoftirq // trigger_rx_softirq: the defer IPI's handler on the list's CPU (raises NET_RX_SOFTIRQ)
	SymSkbGroReceive    // skb_gro_receive: merge a segment into the flow's GRO skb
	SymAppWork          // the application's own work per segment it reads (the read_ns knob)
	SymNapiComplete     // napi_complete_done: a poll that did less than its budget ends (no cost of its own)
	// the eras after 6.8 (docs/eras-after-6.8.md)
	SymPoolCreatePercpu // page_pool_create_percpu (v6.9: the system pools, pool->cpuid)
	SymNapiLocal        // page_pool_napi_local (v6.10: locality decided in the pool)
	SymDMAIndexAlloc    // page_pool_register_dma_index: xa_alloc into pool->dma_mapped (v6.16)
	SymDMAIndexRelease  // the xa_cmpxchg of __page_pool_unmap_netmem_dma: only the slot's winner unmaps (v6.16)
	SymPoolScrub        // page_pool_scrub: the unmap of every still-mapped page at destroy (v6.16; before, the cache and ring only)
	SymSynchronizeNet   // synchronize_net (page_pool_scrub with dma_sync, v6.16)
	SymMPAllocNetmems   // mp_ops->alloc_netmems of a dma-buf binding (mp_dmabuf_devmem_alloc_netmems)
	SymMPReleaseNetmem  // mp_ops->release_netmem (the provider takes its net_iov back instead of put_page)
	SymGenericXDP       // netif_receive_generic_xdp (do_xdp_generic: skb-mode XDP)
	SymSkbPPCowData     // skb_pp_cow_data (copy an skb into page_pool pages for XDP, v6.9)
	SymSkbCopyBits      // skb_copy_bits (refuses unreadable frags: -EFAULT, v6.12)
	SymDevmemRecvmsg    // tcp_recvmsg_dmabuf (recvmsg(MSG_SOCK_DEVMEM): frag tokens, no copy)
	SymDevmemDontneed   // sock_devmem_dontneed (setsockopt SO_DEVMEM_DONTNEED: the user gives tokens back)
	SymZcrxRefill       // io_zcrx_ring_refill (io_uring zero-copy RX: the user's refill queue back into the alloc cache)
	SymDeviceUnbind     // device_release_driver: the driver's remove ends and the device is unbound (no DMA API call on it afterwards)
	// SymPutUnrefed is the out-of-line function behind the inline
	// page_pool_put_page of the era (page_pool_put_defragged_page from
	// v5.18, page_pool_put_unrefed_page from v6.8, _netmem from v6.11): a
	// profile's symbol for the put path from 6.9 on (ProfileIn). The model
	// charges its parts (SymPutPage, SymRecycleInCache, SymRecycleInRing,
	// SymPtrRingProduce, SymNapiLocal), never the symbol itself.
	SymPutUnrefed
	// SymNapiBuildSKB names napi_build_skb where the model narrates it
	// apart from build_skb (skb_pp_cow_data's copy); the cost is
	// SymBuildSKB's, which covers both.
	SymNapiBuildSKB
	// SymZcAllocNetmems and SymZcReleaseNetmem are io_uring zero-copy RX's
	// memory_provider_ops (io_uring/zcrx.c, v6.15): an io_uring pool's
	// alloc_netmems and release_netmem, where a dma-buf pool runs
	// SymMPAllocNetmems and SymMPReleaseNetmem.
	SymZcAllocNetmems
	SymZcReleaseNetmem
	// SymStoreMemInfo is page_pool_store_mem_info(page, pp) (v5.14 only,
	// include/net/page_pool.h: page->pp = pp), which skb_mark_for_recycle
	// calls for the head and a driver for each frag; from v5.15 page->pp is
	// set at allocation. An inline store: no cost of its own.
	SymStoreMemInfo
	NumSyms
)

type symInfo struct {
	name    string // the kernel function this models
	profile string // the symbol perf shows up to 6.8 (inlined functions show as their caller; ProfileIn)
}

var syms = [NumSyms]symInfo{
	SymNone:             {"-", "-"},
	SymPoolCreate:       {"page_pool_create", "page_pool_create"},
	SymAllocPages:       {"page_pool_alloc_pages", "page_pool_alloc_pages"},
	SymRefillAllocCache: {"page_pool_refill_alloc_cache", "page_pool_refill_alloc_cache"},
	SymAllocPagesSlow:   {"__page_pool_alloc_pages_slow", "__page_pool_alloc_pages_slow"},
	SymAllocPageOrder:   {"__page_pool_alloc_page_order", "__page_pool_alloc_pages_slow"},
	SymPoolDMAMap:       {"page_pool_dma_map", "__page_pool_alloc_pages_slow"},
	SymSetPPInfo:        {"page_pool_set_pp_info", "__page_pool_alloc_pages_slow"},
	SymPutPage:          {"page_pool_put_page", "page_pool_put_page"},
	SymRecycleInCache:   {"page_pool_recycle_in_cache", "page_pool_put_page"},
	SymRecycleInRing:    {"page_pool_recycle_in_ring", "page_pool_put_page"},
	SymPutPageBulk:      {"page_pool_put_page_bulk", "page_pool_put_page_bulk"},
	SymReleasePage:      {"page_pool_release_page", "page_pool_release_page"},
	SymReturnPage:       {"page_pool_return_page", "page_pool_release_page"},
	SymReturnSkbPage:    {"page_pool_return_skb_page", "page_pool_return_skb_page"},
	SymXDPReturn:        {"__xdp_return", "__xdp_return"},
	SymAllocFrag:        {"page_pool_alloc_frag", "page_pool_alloc_frag"},
	SymDrainFrag:        {"page_pool_drain_frag", "page_pool_alloc_frag"},
	SymPoolDestroy:      {"page_pool_destroy", "page_pool_destroy"},
	SymPoolRelease:      {"page_pool_release", "page_pool_release"},
	SymReleaseRetry:     {"page_pool_release_retry", "page_pool_release_retry"},
	SymUpdateNid:        {"page_pool_update_nid", "page_pool_update_nid"},
	SymProducerLock:     {"spin_lock(producer_lock)", "_raw_spin_lock"},
	SymConsumerLock:     {"spin_lock(consumer_lock)", "_raw_spin_lock"},
	SymPtrRingProduce:   {"__ptr_ring_produce", "page_pool_put_page"},
	SymAllocPagesBulk:   {"__alloc_pages_bulk", "__alloc_pages_bulk"},
	SymAllocPagesNode:   {"__alloc_pages", "get_page_from_freelist"},
	SymFreePage:         {"free_unref_page", "free_unref_page"},
	SymGetPage:          {"get_page", "get_page"},
	SymPutPageRef:       {"put_page", "put_page"},
	SymDMAMapPage:       {"dma_map_page_attrs", "dma_map_page_attrs"},
	SymDMAUnmapPage:     {"dma_unmap_page_attrs", "dma_unmap_page_attrs"},
	SymIOMMUMap:         {"iommu_dma_map_page", "iommu_dma_map_page"},
	SymIOMMUUnmap:       {"iommu_dma_unmap_page", "iommu_dma_unmap_page"},
	SymSyncForDevice:    {"dma_sync_single_range_for_device", "dma_sync_single_for_device"},
	SymSyncForCPU:       {"dma_sync_single_range_for_cpu", "dma_sync_single_for_cpu"},
	SymSlabAlloc:        {"kmem_cache_alloc", "kmem_cache_alloc"},
	SymSlabFree:         {"kmem_cache_free", "kmem_cache_free"},
	SymBuildSKB:         {"build_skb", "build_skb"},
	SymAllocSKB:         {"__alloc_skb", "__alloc_skb"},
	SymMarkForRecycle:   {"skb_mark_for_recycle", "build_skb"},
	SymAddRxFrag:        {"skb_add_rx_frag", "skb_add_rx_frag"},
	SymKfreeSKB:         {"kfree_skb", "kfree_skb"},
	SymNapiConsumeSKB:   {"napi_consume_skb", "napi_consume_skb"},
	SymReleaseHeadState: {"skb_release_head_state", "skb_release_head_state"},
	SymReleaseData:      {"skb_release_data", "skb_release_data"},
	SymFreeHead:         {"skb_free_head", "skb_release_data"},
	SymFragUnref:        {"__skb_frag_unref", "skb_release_data"},
	SymKfreeSkbmem:      {"kfree_skbmem", "kmem_cache_free"},
	SymNapiSkbCachePut:  {"napi_skb_cache_put", "napi_skb_cache_put"},
	SymNapiSkbCacheGet:  {"napi_skb_cache_get", "napi_build_skb"},
	SymSkbClone:         {"skb_clone", "skb_clone"},
	SymPskbExpandHead:   {"pskb_expand_head", "pskb_expand_head"},
	SymSkbTryCoalesce:   {"skb_try_coalesce", "skb_try_coalesce"},
	SymSkbShift:         {"skb_shift", "skb_shift"},
	SymKfreeSkbPartial:  {"kfree_skb_partial", "kfree_skb_partial"},
	SymMemcpy:           {"memcpy", "memcpy"},
	SymPageFragFree:     {"page_frag_free", "page_frag_free"},
	SymDeferFree:        {"skb_attempt_defer_free", "skb_attempt_defer_free"},
	SymDrvRx:            {"driver RX poll", "driver_rx"},
	SymDrvXmit:          {"driver ndo_start_xmit", "driver_start_xmit"},
	SymDrvTxClean:       {"driver TX completion", "driver_tx_clean"},
	SymEthTypeTrans:     {"eth_type_trans", "eth_type_trans"},
	SymGroReceive:       {"dev_gro_receive", "dev_gro_receive"},
	SymNetifReceive:     {"__netif_receive_skb_core", "__netif_receive_skb_core"},
	SymIPRcv:            {"ip_rcv", "ip_rcv"},
	SymIPForward:        {"ip_forward", "ip_forward"},
	SymDevQueueXmit:     {"__dev_queue_xmit", "__dev_queue_xmit"},
	SymTCPRcv:           {"tcp_v4_rcv", "tcp_v4_rcv"},
	SymTCPRecvmsg:       {"tcp_recvmsg", "tcp_recvmsg"},
	SymCopyToUser:       {"skb_copy_datagram_iter", "__arch_copy_to_user"},
	SymXDPRun:           {"bpf_prog_run_xdp", "bpf_prog_run_xdp"},
	SymXDPRedirect:      {"xdp_do_redirect", "xdp_do_redirect"},
	SymVethXDPRcv:       {"veth_xdp_rcv", "veth_xdp_rcv"},
	SymXDPConvert:       {"__xdp_build_skb_from_frame", "__xdp_build_skb_from_frame"},
	SymStackRest:        {"rest of the stack", RestProfile},
	SymCacheMaint:       {"cache maintenance (non-coherent DMA)", "dcache_inval_poc"},
	SymTxDMAMap:         {"dma_map_single (TX)", "dma_map_page_attrs"},
	SymTxDMAUnmap:       {"dma_unmap_single (TX)", "dma_unmap_page_attrs"},
	SymDeferFlush:       {"skb_defer_free_flush", "net_rx_action"},
	SymDeferIPI:         {"smp_call_function_single_async", "smp_call_function_single_async"},
	SymTriggerRxSoftirq: {"trigger_rx_softirq", "trigger_rx_softirq"},
	SymSkbGroReceive:    {"skb_gro_receive", "skb_gro_receive"},
	SymAppWork:          {"the application's work", "[application]"},
	SymNapiComplete:     {"napi_complete_done", "napi_complete_done"},
	SymPoolCreatePercpu: {"page_pool_create_percpu", "page_pool_create_percpu"},
	SymNapiLocal:        {"page_pool_napi_local", "page_pool_put_unrefed_netmem"},
	SymDMAIndexAlloc:    {"page_pool_register_dma_index", "page_pool_dma_map"},
	SymDMAIndexRelease:  {"__page_pool_unmap_netmem_dma", "__page_pool_release_netmem_dma"},
	SymPoolScrub:        {"page_pool_scrub", "page_pool_release"},
	SymSynchronizeNet:   {"synchronize_net", "synchronize_net"},
	SymMPAllocNetmems:   {"mp_ops->alloc_netmems", "mp_dmabuf_devmem_alloc_netmems"},
	SymMPReleaseNetmem:  {"mp_ops->release_netmem", "mp_dmabuf_devmem_release_page"},
	SymGenericXDP:       {"netif_receive_generic_xdp", "do_xdp_generic"},
	SymSkbPPCowData:     {"skb_pp_cow_data", "skb_pp_cow_data"},
	SymSkbCopyBits:      {"skb_copy_bits", "skb_copy_bits"},
	SymDevmemRecvmsg:    {"tcp_recvmsg_dmabuf", "tcp_recvmsg_locked"},
	SymDevmemDontneed:   {"sock_devmem_dontneed", "sk_setsockopt"},
	SymZcrxRefill:       {"io_zcrx_ring_refill", "io_pp_zc_alloc_netmems"},
	SymDeviceUnbind:     {"device_release_driver", "device_release_driver"},
	SymPutUnrefed:       {"page_pool_put_unrefed_page", "page_pool_put_unrefed_page"},
	SymNapiBuildSKB:     {"napi_build_skb", "napi_build_skb"},
	SymZcAllocNetmems:   {"io_pp_zc_alloc_netmems", "io_pp_zc_alloc_netmems"},
	SymZcReleaseNetmem:  {"io_pp_zc_release_netmem", "io_pp_zc_release_netmem"},
	SymStoreMemInfo:     {"page_pool_store_mem_info", "build_skb"},
}

// RestProfile names the calibrated pseudo-symbol of a profile: the rest of
// the stack (what a listing leaves unlisted and the model does not model).
const RestProfile = "[rest of stack]"

// Name is the kernel function the symbol models.
func (s Sym) Name() string {
	if s >= NumSyms {
		return "?"
	}
	return syms[s].name
}

// NameIn is the name the kernel of era e gives the function the symbol
// models (Name when the era's release uses the model's name; Name for a nil
// era).
func (s Sym) NameIn(e *Era) string {
	if e != nil {
		if n, ok := e.Names[s]; ok {
			return n
		}
	}
	return s.Name()
}

// Profile is the symbol a perf profile shows for it (inlined functions are
// attributed to their caller) in the eras up to 6.8: the names of the
// model's first profiles, kept as they were (ProfileIn).
func (s Sym) Profile() string {
	if s >= NumSyms {
		return "?"
	}
	return syms[s].profile
}

// ProfileIn is the symbol a perf profile of era e shows for s.
//
// In an era without ProfileNames (up to 6.8) and for a nil era it is
// Profile, unchanged: engine/perf fits
// the model to perf-top listings of 5.12–5.14 kernels and predicts into
// eras up to 6.4 by matching these names, so they stay as the profiles
// were written — also where the 6.x kernels named the function otherwise
// (page_pool_put_page, page_pool_return_skb_page and page_pool_release_page
// in 6.6 and 6.8, whose kernels run page_pool_put_defragged_page /
// page_pool_put_unrefed_page, napi_pp_put_page and page_pool_return_page).
//
// In an era with ProfileNames (from 6.9) it is the era's own name (NameIn:
// the era's Names) of the function s runs in: s itself, or, for a function
// inlined into another (Profile names the caller), that caller, followed
// until an out-of-line one; a Profile that names no modelled function
// (get_page_from_freelist, _raw_spin_lock, a cache-maintenance routine)
// stays. Where the 6.x kernels compile a function into another than the
// first profiles said, profileFolds says so.
func (s Sym) ProfileIn(e *Era) string {
	if s >= NumSyms {
		return "?"
	}
	if e == nil || !e.ProfileNames {
		return syms[s].profile
	}
	if t := s.outOfLine(e); t != SymNone {
		if n := profileRename(t, e); n != "" {
			return n
		}
		return t.NameIn(e)
	}
	return syms[s].profile
}

// profileRenames are the out-of-line functions a profile shows for a
// modelled function whose kernel name (the narration's) became an inline
// wrapper: kfree_skb is an inline over kfree_skb_reason from v5.17
// (c504e5c2f964; 6.1.192 skbuff.c:885 defines kfree_skb_reason), which is
// in turn an inline over sk_skb_reason_drop from v6.11 (ba8de796baf4;
// 6.12.118 skbuff.c:1234). Each entry holds from its era on (the first era
// at or after the release): 6.1 for 5.17, 6.12 for 6.11 (the 6.10 era
// follows v6.10). The model charges a reader's consume (consume_skb,
// __kfree_skb) to the same function: those show under this name too, where
// a kernel's profile would name them apart.
var profileRenames = map[Sym][]struct{ from, name string }{
	SymKfreeSKB: {{"6.1", "kfree_skb_reason"}, {"6.12", "sk_skb_reason_drop"}},
}

// profileRename is the name profileRenames gives t in era e ("" for none).
func profileRename(t Sym, e *Era) string {
	n := ""
	for _, r := range profileRenames[t] {
		if f, err := EraByName(r.from); err == nil && e.Order >= f.Order && (e.Branch == "" || f.Branch != "") {
			n = r.name
		}
	}
	return n
}

// outOfLine is the modelled function s's work runs in, in the eras from
// 6.9 (SymNone: Profile names a function the model does not have).
func (s Sym) outOfLine(e *Era) Sym {
	for range NumSyms { // a fold chain is short; the bound only guards a cycle
		if t, ok := profileFolds[s]; ok && foldsIn(s, e) {
			if t == s {
				return s
			}
			s = t
			continue
		}
		p := syms[s].profile
		if p == syms[s].name {
			return s
		}
		t, ok := symByName[p]
		if !ok {
			return SymNone
		}
		s = t
	}
	return SymNone
}

// symByName: the modelled function of each kernel name (Sym.Name).
var symByName = map[string]Sym{}

// profileFolds are the functions the kernels from 6.9 on compile into
// another modelled function than the first profiles (Profile) say; a
// symbol mapped to itself is out of line there although Profile names
// another:
//   - page_pool_put_page is an inline of helpers.h over the out-of-line put
//     (SymPutUnrefed: page_pool_put_unrefed_page, _netmem from v6.11), and
//     page_pool_napi_local (v6.10), __page_pool_put_page (static
//     __always_inline) and the recycle helpers run inside that put (read in
//     6.12.y, atmark-techno/linux-6.12-at net/core/page_pool.c @0f3f95aa1299).
//   - page_pool_release_page is gone (v6.6): the release, from v6.8
//     __page_pool_release_page_dma, "static __always_inline" since the
//     patch that split it out (its diff read), runs inside
//     page_pool_return_page (page_pool_return_netmem from v6.17), which is
//     out of line; 6.16's xa_cmpxchg of the DMA index stands in that
//     release (ee62ce7a1d90), and 6.18's page_pool_release_dma_index, a
//     static function with that one caller, is taken as inlined there too
//     (the compiler's choice, not verified against a 6.18 build).
var profileFolds = map[Sym]Sym{
	SymPutPage:         SymPutUnrefed,
	SymNapiLocal:       SymPutUnrefed,
	SymPutUnrefed:      SymPutUnrefed,
	SymReleasePage:     SymReturnPage,
	SymReturnPage:      SymReturnPage,
	SymDMAIndexRelease: SymReturnPage,
}

// profileFoldsFrom: the first era a fold holds in, for a fold that does
// not hold in every era with ProfileNames (5.15 on). page_pool_release_page
// is exported and out of line up to v6.5 (drivers call it when they build
// an skb); v6.6 took it from the API (535b9c61bdef) and the release runs
// inside page_pool_return_page.
var profileFoldsFrom = map[Sym]string{SymReleasePage: "6.6"}

// foldsIn reports whether s's profileFolds entry holds in era e.
func foldsIn(s Sym, e *Era) bool {
	from, ok := profileFoldsFrom[s]
	if !ok || e == nil {
		return true
	}
	f, err := EraByName(from)
	return err == nil && e.Order >= f.Order
}

func init() {
	for s := Sym(1); s < NumSyms; s++ {
		if _, dup := symByName[syms[s].name]; !dup {
			symByName[syms[s].name] = s
		}
	}
}
