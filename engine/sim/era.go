package sim

import "fmt"

// SkbRecycling says how (and whether) an era lets pages inside sk_buffs return to
// their page_pool.
type SkbRecycling uint8

const (
	// SkbRecycleNone: the driver calls page_pool_release_page() when it builds an
	// skb; the skb free path put_page()s into the page allocator (5.12, 5.13).
	SkbRecycleNone SkbRecycling = iota
	// SkbRecycleRFC: the first series ("[PATCH net-next 0/6] page_pool: recycle
	// buffers", 22 Mar 2021, <20210322170301.26017-1-mcroce@linux.microsoft.com>):
	// page->signature, the pool found through an xdp_mem_info stored in
	// page->private and returned through __xdp_return.
	SkbRecycleRFC
	// SkbRecycleMerged: pp_magic signature and page->pp (5.14 and later).
	SkbRecycleMerged
)

// CoalesceForm is the historical form of the page_pool test in skb_try_coalesce
// (net/core/skbuff.c). Used by engine/skb.
type CoalesceForm uint8

const (
	CoalescePlain       CoalesceForm = iota // v5.14 (6a5bcd84e886): to->pp_recycle != from->pp_recycle
	Coalesce2022                            // 1effe8ca4e34: to->pp_recycle != (from->pp_recycle && !skb_cloned(from))
	Coalesce2023                            // 0646dc31ca88: also refuses from->pp_recycle && skb_cloned(from)
	CoalescePlainPPRefs                     // v6.8 (f7dc3248dcfb): plain inequality, pp refs taken from cloned sources
)

// Era is a named set of kernel behaviours. One engine, switched by era.
// Fields are features; the engine tests features, never names.
type Era struct {
	Name    string
	Summary string
	Order   int    // chronological position: the index in Eras (set when the table is built), for "since" comparisons
	Tag     string // the kernel release whose source the era follows (rfc-v1: its v5.12-rc base)

	// GROPPRecycleCheck: skb_gro_receive refuses to splice an skb whose
	// pp_recycle differs from the aggregate's (-ETOOMANYREFS): "skb: Do mix
	// page pool and page referenced frags in GRO" (Duyck, Message-Id
	// <167475990764.1934330.11960904198087757911.stgit@localhost.localdomain>,
	// Fixes 53e0961da1c7; 7d2c89b32587, read in its stable backport's
	// "Upstream commit" line), merged for v6.2 and backported to the 5.15
	// and 6.1 stable series; the eras follow the releases, so 5.15 lacks it.
	GROPPRecycleCheck bool `commit:"7d2c89b32587" rule:"skb_gro_receive refuses to mix pp_recycle skbs"`
	// BulkAlloc: the slow path refills the alloc cache with alloc_pages_bulk
	// (64 pages per call) instead of one alloc_pages_node() per call:
	// be5dba25b4b2 "net: page_pool: use alloc_pages_bulk in refill code path"
	// (Brouer, in Mel Gorman's bulk allocator series), v5.13.
	BulkAlloc bool `commit:"be5dba25b4b2" rule:"the slow path refills with alloc_pages_bulk"`
	// SkbRecycle: how pages inside skbs find their pool: not at all
	// (5.12, 5.13), the RFC's page->signature (rfc-v1), or the merged
	// series' pp_magic and skb_mark_for_recycle (6a5bcd84e886, v5.14).
	SkbRecycle SkbRecycling `commit:"1=- 2=6a5bcd84e886" rule:"pages in skbs return to their page_pool"`
	// MaskedSignature: the signature test masks the low two bits of pp_magic
	// (~0x3UL) so the pfmemalloc bit survives. Merged for v5.14-rc6 as commit
	// 0fa32ca438b4 "page_pool: mask the page->signature before the checking";
	// the RFC compared its signature word plainly.
	MaskedSignature bool `commit:"0fa32ca438b4" rule:"the pp_magic test masks its low two bits"`
	// PPSetAtAlloc: page->pp and pp_magic are set once when the pool allocates
	// the page (page_pool_set_pp_info, 57f05bc2ab24 "page_pool: keep pp info as
	// long as page pool owns the page", v5.15); before, 5.14 set page->pp in
	// skb_mark_for_recycle / page_pool_store_mem_info and cleared it on return.
	PPSetAtAlloc bool `commit:"57f05bc2ab24" rule:"page->pp is set when the pool allocates"`
	// FragAPI: page_pool_alloc_frag and pp_frag_count (Yunsheng Lin's v5.15
	// series: 0e9d2a0a3a83 "page_pool: add interface to manipulate frag count
	// in page pool", 53e0961da1c7 "page_pool: add frag page recycling support
	// in page pool").
	FragAPI bool `commit:"53e0961da1c7" rule:"page_pool_alloc_frag splits pages"`
	// FragFlag: the frag API needs PP_FLAG_PAGE_FRAG (v5.15–v6.6, from
	// 53e0961da1c7); from v6.7 the flag is gone (09d96ee5674a: an unknown
	// flag, -EINVAL) and every pool may hand out frags.
	FragFlag bool `commit:"true=53e0961da1c7 false=09d96ee5674a" rule:"frags need PP_FLAG_PAGE_FRAG"`
	// PPRefCount: every page carries pp_ref_count = 1 from allocation and every
	// put goes through page_pool_unref_page (58d53d8f7da6 "page_pool: unify
	// frag_count handling in page_pool_is_last_frag()", v6.7; renamed by
	// 0a149ab78ee2 "page_pool: transition to reference count management after
	// page draining", v6.8).
	PPRefCount bool `commit:"58d53d8f7da6" rule:"every page carries pp_ref_count"`
	// BiasMax is BIAS_MAX: LONG_MAX up to v6.7, LONG_MAX>>1 from v6.8
	// (aaf153aecef1 "page_pool: halve BIAS_MAX for multiple user references of
	// a fragment").
	BiasMax int64 `commit:"aaf153aecef1" rule:"BIAS_MAX (halved from 6.8)"`
	// NAPIDirect: skb frees in the pool's own NAPI context recycle straight
	// into the alloc cache (8c48eea3adf3 "page_pool: allow caching from safely
	// localized NAPI", v6.4); page_pool_destroy unlinks the NAPI.
	NAPIDirect bool `commit:"8c48eea3adf3" rule:"skb frees in the pool's NAPI recycle to the cache"`
	// RefillConsumerLock: page_pool_refill_alloc_cache takes
	// ring->consumer_lock (removed by 07b17f0f7485 "page_pool: remove spinlock
	// in page_pool_refill_alloc_cache()", v5.17). A cost, not a behaviour.
	RefillConsumerLock bool `commit:"true=- false=07b17f0f7485" rule:"the cache refill takes the ring's consumer lock"`
	// ReleaseDataClearsPPRecycle: skb_release_data clears skb->pp_recycle when
	// this skb did not drop the last dataref (2cc3aeb5eccc "skbuff: Fix a
	// potential race while recycling page_pool packets", v5.14-rc2). Used by
	// engine/skb.
	ReleaseDataClearsPPRecycle bool `commit:"2cc3aeb5eccc" rule:"skb_release_data clears pp_recycle on shared data"`
	// Coalesce is the skb_try_coalesce pp rule of the era (CoalesceForm:
	// 6a5bcd84e886's plain inequality in v5.14, 1effe8ca4e34's and
	// 0646dc31ca88's cloned-source tests, f7dc3248dcfb's pp refs taken from
	// cloned sources in v6.8). Used by engine/skb.
	Coalesce CoalesceForm `commit:"0=6a5bcd84e886 1=1effe8ca4e34 2=0646dc31ca88 3=f7dc3248dcfb" rule:"skb_try_coalesce's pp_recycle test"`
	// NoReleasePageAPI: drivers can no longer call page_pool_release_page
	// (the series "net: page_pool: remove page_pool_release_page()", net-next
	// July 2023, v6.6: 535b9c61bdef "net: page_pool: hide
	// page_pool_release_page()" and 07e0c7d3179d "net: page_pool: merge
	// page_pool_release_page() with page_pool_return_page()", per the
	// series' patchwork-bot reply): the drivers that called it mark their
	// skbs instead; the pool still releases pages internally
	// (page_pool_return_page).
	NoReleasePageAPI bool `commit:"535b9c61bdef" rule:"page_pool_release_page gone: drivers mark skbs"`
	// BulkNid: the bulk refill allocates on pool->p.nid
	// (alloc_pages_bulk_array_node: d810d367ec40 "net: page_pool: optimize
	// page pool page allocation in NUMA scenario", Jie Wang, v6.0);
	// before, alloc_pages_bulk_array took the local node (numa_mem_id()),
	// whatever nid the pool prefers, so a pool with a remote nid waives the
	// pages it allocated at every refill from its ring.
	BulkNid bool `commit:"d810d367ec40" rule:"the bulk refill allocates on pool->p.nid"`
	// Stats: CONFIG_PAGE_POOL_STATS exists (Joe Damato's series, 8610037e8106
	// "page_pool: Add allocation stats" and ad6fa1e1ab1b "page_pool: Add
	// recycle stats", v5.18); before, the
	// counters are what a stats-enabled pool would count.
	Stats bool `commit:"8610037e8106" rule:"CONFIG_PAGE_POOL_STATS"`
	// XDPFrameSkbRecycle: __xdp_build_skb_from_frame marks an skb built
	// from a page_pool-backed XDP frame for recycling instead of releasing
	// the page from its pool ("xdp: recycle Page Pool backed skbs built from
	// XDP frames", 9c94bbf9a87b, v6.4).
	XDPFrameSkbRecycle bool `commit:"9c94bbf9a87b" rule:"skbs built from XDP frames recycle"`
	// SoftirqDirect (4a36d0180c45 "net: skbuff: always try to recycle PP
	// pages directly when in softirq", v6.6): napi_pp_put_page lets any skb free in softirq on the
	// CPU that owns the pool's NAPI recycle into the alloc cache, not only
	// NAPI-safe ones (`napi_safe || in_softirq()`, v6.6): kfree_skb of a
	// dropped frame in the NAPI poll goes to the cache.
	SoftirqDirect bool `commit:"4a36d0180c45" rule:"any skb free in softirq on the NAPI CPU goes to the cache"`
	// DeferFree: tcp_recvmsg frees consumed skbs with skb_attempt_defer_free
	// (68822bdf76f1 "net: generalize skb freeing deferral to per-cpu
	// lists", v5.19): the free is queued to the CPU that allocated the skb and runs
	// in its net_rx_action, with napi_consume_skb(skb, 1) (2db60eed1a95,
	// 5.19); from v6.4 napi_consume_skb passes its budget down as napi_safe
	// (b07a2d97ba5e), so the pages are NAPI-local there for a pool with
	// pp.napi. Not in the 5.14/5.15 eras.
	DeferFree bool `commit:"68822bdf76f1" rule:"tcp_recvmsg frees through skb_attempt_defer_free"`
	// TracePFNHex: page_pool_state_hold / page_pool_state_release print
	// `pfn=0x%lx`; before, `pfn=%lu` (decimal). Changed by 53d884a6675b
	// "mm, tracing: unify PFN format strings" (Vincent Whitchurch, posted 2
	// Jun 2021 <20210602092608.1493-1-vincent.whitchurch@axis.com>, merged
	// through the -mm tree for v5.14).
	TracePFNHex bool `commit:"53d884a6675b" rule:"the tracepoints print pfn in hex"`
	// TraceNetmem: page_pool_state_hold / page_pool_state_release take a
	// netmem_ref and print `netmem=%p is_net_iov=%lu` where older kernels
	// print `page=%p`; their entry field is `unsigned long netmem` instead
	// of `const struct page * page` (v6.11: the netmem conversion, Mina
	// Almasry's "page_pool: convert to use netmem", 4dec64c52e24; v6.12: is_net_iov, the
	// devmem TCP series, with netmem_pfn_trace printing pfn 0 for a
	// net_iov). The hold format carries a stray comma after is_net_iov
	// (`is_net_iov=%lu, pfn=`), the release format none. The model's first
	// era with either is 6.12 (testdata/tracepoints.tsv has the sources).
	TraceNetmem bool `commit:"4dec64c52e24" rule:"the tracepoints print netmem= and is_net_iov="`
	// PoolNetlink: page_pool introspection (Jakub Kicinski's series,
	// v6.8, from f17c69649c69 "net: page_pool: id the page pools", which
	// creates page_pool_user.c): a pool created with pp_params.netdev is listed on that netdev
	// for the netdev netlink family (page_pool_user.c: page-pool-get,
	// page-pool-stats-get), gets an id from xa_alloc_cyclic
	// (page_pool_list, every pool), moves to lo when its netdev
	// unregisters (page_pool_unreg_netdev: its ifindex is no longer
	// reported), and page_pool_release_retry's periodic "stalled pool
	// shutdown" warning is muted for it ("net: page_pool: mute the periodic
	// warning for visible page pools", be0096676e23: only `!netdev || netdev ==
	// NET_PTR_POISON` warns, now with the pool's id).
	PoolNetlink bool `commit:"f17c69649c69" rule:"pools listed over netdev netlink"`
	// SystemPool: the per-CPU system page_pools (2b0cfa6e4956 "net: add
	// generic percpu page_pool allocator", v6.9): net_dev_init creates one
	// pool per CPU with page_pool_create_percpu(params, cpuid), which
	// stores pool->cpuid; napi_pp_put_page adds `allow_direct |=
	// READ_ONCE(pp->cpuid) == cpuid` (in softirq), and
	// page_pool_disable_direct_recycling clears cpuid at destroy
	// (56ef27e3abe6, v6.9). Generic XDP copies frags-capable programs'
	// skbs into them (e6d5dbdd20aa, skb_cow_data_for_xdp).
	SystemPool bool `commit:"2b0cfa6e4956" rule:"the per-CPU system page_pools"`
	// PoolNapiLocal: the pool decides locality itself (4a96a4e807c3
	// "page_pool: check for PP direct cache locality later", v6.10):
	// page_pool_put_unrefed_page runs page_pool_napi_local() whenever the
	// caller passed allow_direct = false — driver puts and xdp_return_frame
	// included, not only skb frees — and the napi_safe plumbing in skbuff.c
	// is gone; page_pool_put_page_bulk tries the alloc cache first when the
	// pool is local (39806b96c89a "page_pool: try direct bulk recycling");
	// the system pools are pinned to their CPU's node (341ee1a584c8).
	PoolNapiLocal bool `commit:"4a96a4e807c3" rule:"page_pool_napi_local decides every put"`
	// DMASkipSync: the DMA API skips a sync that would do nothing before
	// calling it: dma_sync_single_for_{cpu,device} are inline and test
	// dma_dev_need_sync(dev) first, false for a device whose DMA is
	// I/O-coherent without bounce buffering (dev->dma_skip_sync, set by
	// dma_setup_need_sync), and page_pool_dma_sync_for_device tests it too
	// (Alexander Lobakin's "dma: skip calling no-op sync ops when
	// possible": f406c8e4b770 "dma: avoid redundant calls for sync
	// operations" and 4321de4497b2 "page_pool: check for DMA sync shortcut
	// earlier", v6.10). Before, the call was made and dma-direct returned
	// from it on a coherent device.
	DMASkipSync bool `commit:"4321de4497b2" rule:"no DMA sync call on a coherent device"`
	// RetryStopsNegative: page_pool_release_retry no longer reschedules
	// itself when inflight went negative (a driver bug: more pages released
	// than held), where before it retried, and warned, forever (43130d02baa1
	// "page_pool: avoid infinite loop to schedule delayed worker",
	// <20250213052150.18392-1-kerneljasonxing@gmail.com>, v6.15).
	RetryStopsNegative bool `commit:"43130d02baa1" rule:"release retry stops at negative inflight"`
	// MemProvider is the era's memory-provider form: none before 6.12; the
	// dma-buf provider's functions called by the pool directly from 6.12
	// (0f9214046893); through pool->mp_ops from 6.15 (57afb4830157).
	MemProvider MemProviderForm `commit:"1=0f9214046893 2=57afb4830157" rule:"memory providers"`
	// DMATracking: the pool tracks its DMA-mapped pages in the dma_mapped
	// xarray, the id in pp_magic's PP_DMA_INDEX_MASK bits; an unmap
	// xa_cmpxchg's the slot (only the winner unmaps), and page_pool_scrub
	// turns dma_sync off, synchronize_net()s and unmaps every still-mapped
	// page at destroy, so a late return skips the unmap (ee62ce7a1d90
	// "page_pool: Track DMA-mapped pages and unmap them when destroying the
	// pool", net-next 15 Apr 2025, v6.16). Before it a page returned after
	// the driver unbound is unmapped on a device that is gone.
	DMATracking bool `commit:"ee62ce7a1d90" rule:"DMA-mapped pages tracked, unmapped at destroy"`
	// ReleaseProducerBarrier: page_pool_release takes and drops the ring's
	// producer lock before it frees the pool, and page_pool_recycle_in_ring
	// counts its stat inside the lock (271683bb2cf3 "page_pool: Fix
	// use-after-free in page_pool_recycle_in_ring", v6.16, CVE-2025-38129).
	ReleaseProducerBarrier bool `commit:"271683bb2cf3" rule:"page_pool_release waits for ring producers"`
	// BulkStatAfterUnlock: the bulk put's ring stat is counted after the
	// producer lock is dropped. page_pool_put_page_bulk counted
	// recycle_stat_add(pool, ring, i) inside the lock, before
	// page_pool_producer_unlock (from the stats series, ad6fa1e1ab1b,
	// v5.18, to 6.13); "page_pool: allow mixing PPs within one bulk"
	// (fcc680a647ba, <20241211172649.761483-2-aleksander.lobakin@intel.com>,
	// v6.14) moved the produce loop into page_pool_recycle_ring_bulk, whose
	// recycle_stat_add follows the unlock: a CPU there has left the lock
	// but still writes into the pool, the window page_pool_release's 6.16
	// barrier does not cover, until "net: page_pool: fix use-after-free in
	// page_pool_recycle_ring_bulk()" (bdea4980182e, net 29 Sep 2026,
	// v7.3-rc6, backported to 7.2.10), which counts the stat before the
	// unlock again (read in Debian's 7.3.4 and 7.2.13 source,
	// docs/era-7.3.md). The model's eras with it are 6.15 to 7.1.
	BulkStatAfterUnlock bool `commit:"true=fcc680a647ba false=bdea4980182e" rule:"the bulk put counts its ring stat after unlock"`
	// NapiLocalRT: page_pool_napi_local returns false on a PREEMPT_RT
	// kernel ("net: page_pool: Don't recycle into cache on PREEMPT_RT",
	// 32471b2f481d, <20250512092736.229935-2-bigeasy@linutronix.de>,
	// v6.16): with preemptible softirqs the consumer can be preempted while
	// an skb is returned. Only the puts the pool decides about change;
	// callers that pass allow_direct themselves keep the cache. Before it
	// no release tests RT (the preempt_rt knob is refused there).
	NapiLocalRT bool `commit:"32471b2f481d" rule:"no NAPI-local recycling on PREEMPT_RT"`
	// FragStatPerPage: page_pool_alloc_frag counts alloc_fast only for a
	// frag page it takes (the page allocation's own count) and for the
	// current page it drains and reuses from offset 0, which it also counts
	// as recycle_cached; a further fragment of the current page counts
	// nothing ("net: page_pool: do not count normal frag allocation in
	// stats", ef04d290c013, <20241109023303.3366500-1-kuba@kernel.org>,
	// v6.13: the return stats count pages, not frags, so a frag driver's
	// recycling rate read wrong). Before it every fragment counted
	// alloc_fast (0f6deac3a079, v5.19).
	FragStatPerPage bool `commit:"ef04d290c013" rule:"frag allocations counted per page"`
	// DeferCountFirst: skb_attempt_defer_free increments the owner's
	// defer_count before it compares it with skb_defer_max (an atomic
	// count on a lockless list, per owner CPU and NUMA node: 9c94ae6bb0b2,
	// 844c9db7f7f5, 5628f3fe3b16, v6.18), so a list holds at most
	// skb_defer_max − 1 skbs; before, the count was compared first and a
	// list held skb_defer_max. The kick is at the same point (the list
	// reaching half).
	DeferCountFirst bool `commit:"9c94ae6bb0b2" rule:"defer lists count first (skb_defer_max - 1)"`
	// ConsumeAlienDefers: napi_consume_skb (with a budget) hands an skb
	// allocated on another CPU, and not shared, to skb_attempt_defer_free
	// after skb_release_head_state, so a TX completion returns the RX
	// pages to the CPU that received them ("net: fix napi_consume_skb()
	// with alien skbs", e20dfbad8aab,
	// <20251106202935.1776179-3-edumazet@google.com>, v6.19).
	ConsumeAlienDefers bool `commit:"e20dfbad8aab" rule:"napi_consume_skb defers an alien skb to its CPU"`
	// SkbDeferMaxDefault is net.core.skb_defer_max's default (the
	// skb_defer_max knob when a run does not set it): 64 from 5.19
	// (39564c3fdc66), 128 from 6.19 ("net: increase skb_defer_max default
	// to 128", b61785852ed0, <20251106202935.1776179-4-edumazet@google.com>).
	SkbDeferMaxDefault int64 `commit:"64=39564c3fdc66 128=b61785852ed0" rule:"net.core.skb_defer_max's default"`
	// DeferRefusedNapiCache: skb_attempt_defer_free frees an skb it does
	// not defer (this CPU allocated it, or the owner's list is full) with
	// kfree_skb_napi_cache: local_bh_disable, __napi_kfree_skb (a NAPI-safe
	// release in softirq, the struct to the NAPI skb cache), where before
	// it was __kfree_skb: 7cb31c46b9cc "net: cache for same cpu
	// skb_attempt_defer_free" (Pavel Begunkov, net-next v4
	// <a887463fb219d973ec5ad275e31194812571f1f5.1712711977.git.asml.silence@gmail.com>,
	// pushed to net-next in April 2024, so v6.10 by its date; the 6.10
	// pull was not read). Read in Debian's 6.12.118, 7.2.13 and 7.3.4
	// net/core/skbuff.c and the 6.19 cycle's (docs/era-6.13-6.19.md M1).
	DeferRefusedNapiCache bool `commit:"7cb31c46b9cc" rule:"a refused defer frees NAPI-safe"`
	// DeferSkipsZerocopy: skb_attempt_defer_free frees a zero-copy skb
	// (skb_zcopy: SKBFL_ZEROCOPY_ENABLE, SKB.Zerocopy) at once, as it
	// frees one it does not defer, "zero copy notifications should not be
	// delayed": 0943404b1f3b "net: do not delay zero-copy skbs in
	// skb_attempt_defer_free()" (Eric Dumazet,
	// <20260216193653.627617-1-edumazet@google.com>, Fixes: e20dfbad8aab;
	// pushed to net on 18 Feb 2026, so v7.0, and carried to 6.19.y), its
	// diff read in the 6.19-stable review. v6.19 itself defers them
	// (docs/era-6.13-6.19.md M5).
	DeferSkipsZerocopy bool `commit:"0943404b1f3b" rule:"zero-copy skbs are not deferred"`
	// RingClamp: page_pool_init clamps pool_size to 16384
	// (min(pool->p.pool_size, 16384), a1b501a8c6a8 "page_pool: Clamp pool
	// size to max 16K pages", <20250926131605.2276734-2-dtatulea@nvidia.com>,
	// v6.18); before,
	// a ring above 32768 was refused with -E2BIG.
	RingClamp bool `commit:"a1b501a8c6a8" rule:"pool_size clamped to 16384"`
	// PageType: the pool marks its pages with the PGTY_netpp page type and
	// the signature check is PageNetpp() (db359fccf212 "mm: introduce a new
	// page type for page pool in page type", v7.1-rc1), instead of
	// (pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE. Reverted in 7.1-rc6
	// (54cf41c969da): v7.1 checks pp_magic again.
	PageType bool `commit:"true=db359fccf212 false=54cf41c969da" rule:"pool pages carry the PGTY_netpp page type"`
	// LTS: the release is a longterm kernel (kernel.org's releases page:
	// 5.15, 6.1, 6.6, 6.12, 6.18).
	LTS bool
	// PreRelease: the era follows a release candidate (7.1-rc1), not a
	// release: never the newest stable era (NewestStableEra).
	PreRelease bool
	// ProfileNames: a perf profile of the era shows the era's own names
	// of the functions the work runs in (Sym.ProfileIn): set from 5.15
	// (page_pool_put_defragged_page in 6.1 and 6.4, napi_pp_put_page from
	// 6.6, page_pool_put_unrefed_page in 6.8: the names a listing of that
	// kernel shows, which engine/perf's what-if infers the era from). The
	// eras of the shipped listings' kernels (5.12, 5.13, rfc-v1, 5.14)
	// keep the names of the model's first profiles (Sym.Profile), which
	// engine/perf's calibration fits those listings with.
	ProfileNames bool
	// Names are the era's own names for the modelled functions whose
	// kernel name changed, or that did not exist yet, in the release the
	// era follows (Tag); a symbol not listed keeps Sym.Name (Sym.NameIn).
	// An era after 6.8 takes the names of the era before it and changes
	// what its step says (eraStep.names, eraStep.unnamed). The defining
	// file of every name is in engine/lab's per-era identifier table
	// (internal/kernelsrc/idents.tsv); where each rename comes from is
	// said above Eras and above laterEras.
	Names map[Sym]string
	// Branch is the era this one branches off, for an era that is not a
	// release of the mainline ("" for a release or a pre-release): rfc-v1
	// is the first skb-recycling RFC applied to its v5.12 base. Order
	// still places a branch among the releases for "since" comparisons
	// (rfc-v1 after 5.13: the drivers that marked skbs in the RFC mark them
	// from 5.14 on); a range of eras (idents.tsv) runs along the mainline
	// and names a branch on its own. A pre-release (7.1-rc1) is on the
	// mainline, before its release. Base resolves it.
	Branch string
	base   int // 1 + the index in Eras of Branch's era (0: on the mainline); set by init

	// Naming is the name family the era's kernel gives the pool's
	// functions and the memory they hand out: "page" up to 6.10, "netmem"
	// from the netmem conversion (Mina Almasry's series, v6.11:
	// page_pool_return_page → page_pool_return_netmem and friends over
	// netmem_ref), "netmem_desc" once the pool's fields live in struct
	// netmem_desc (v6.17). A rename, not a behaviour.
	Naming string
}

// MemProviderForm says whether and how a pool can take its memory from a
// memory provider bound to its RX queue instead of the page allocator.
type MemProviderForm uint8

const (
	// MPNone: every pool allocates pages.
	MPNone MemProviderForm = iota
	// MPDevmem: devmem TCP (8ab79ed50cf1 "page_pool: devmem support",
	// 0f9214046893 "memory-provider: dmabuf devmem memory provider", v6.12):
	// a pool created with PP_FLAG_ALLOW_UNREADABLE_NETMEM on a queue bound
	// to a dma-buf takes net_iovs from the binding (pool->mp_priv, direct
	// mp_dmabuf_devmem_* calls); the provider refuses a pool with
	// PP_FLAG_DMA_SYNC_DEV (-EOPNOTSUPP).
	MPDevmem
	// MPOps: the generic memory_provider_ops (57afb4830157, v6.15) with the
	// dma-buf and io_uring zero-copy RX providers; from b400f4b87430 (v6.14)
	// the core requires PP_FLAG_DMA_SYNC_DEV of a provider pool and the
	// provider turns dma_sync off itself.
	MPOps
)

const (
	longMax = int64(^uint64(0) >> 1)
)

// Eras lists every era, oldest first. The rfc-v1 era is the first
// skb-recycling series (22 Mar 2021) on its v5.12-rc base: the single-page
// slow path, which the RFC patched at its skip_dma_map: label; bulk refill
// (be5dba25b4b2) arrived in the 5.13 merge window (the bulk_refill knob adds
// it to any era).
//
// Their names (Names) up to 6.8:
//   - v5.12 (5.12, and rfc-v1 on its v5.12-rc base): __page_pool_alloc_page_order
//     and page_pool_dma_map were split out of __page_pool_alloc_pages_slow by
//     the bulk-refill series (be5dba25b4b2 and its "refactor dma_map into own
//     function", v5.13), so the slow path does both itself; the page
//     allocator's entry point is __alloc_pages_nodemask (renamed __alloc_pages
//     in v5.13, include/linux/gfp.h of v5.12 only wraps it).
//   - up to v5.14 the slow path marks the page itself (5.14: pp_magic |=
//     PP_SIGNATURE; rfc-v1: page->signature): page_pool_set_pp_info is
//     v5.15 (57f05bc2ab24).
//   - v6.6: the skb free path's page_pool_return_skb_page moved to
//     net/core/skbuff.c as napi_pp_put_page (Lobakin's "don't include
//     <net/page_pool/types.h> to <linux/skbuff.h>" series); page_pool_release_page
//     was removed ("net: page_pool: remove page_pool_release_page()"), and the
//     pool's release of a page is page_pool_return_page, which unmaps the
//     page itself (net/core/page_pool.c of a 6.6 tree,
//     eclipse-oniro-mirrors/kernel_linux_6.6).
//   - v6.8: that DMA half is its own function, __page_pool_release_page_dma.
//   - the put behind page_pool_put_page (SymPutUnrefed): page_pool_put_page
//     itself, exported from net/core/page_pool.c, up to v5.17; from v5.18 an
//     inline over page_pool_put_defragged_page (52cc6ffc0ab2 "page_pool:
//     Refactor page_pool to enable fragmenting after allocation", Duyck,
//     net-next 3 Feb 2022, patchwork-bot
//     <164389020903.26884.1681096827552466800.git-patchwork-notify@kernel.org>);
//     renamed page_pool_put_unrefed_page by Liang Chen's "page_pool: Rename
//     pp_frag_count to pp_ref_count" (v4
//     <20231129031201.32014-2-liangchen.linux@gmail.com>, net-next for v6.8,
//     its diff read).
//   - v6.4 to v6.9: a frag's unref is napi_frag_unref(frag, recycle,
//     napi_safe), an inline of include/linux/skbuff.h: skb_release_data
//     calls it with its napi_safe, __skb_frag_unref with false (8c48eea3adf3
//     "page_pool: allow caching from safely localized NAPI", v6.4, its RFC v2
//     <20230405232100.103392-3-kuba@kernel.org> read). Mina Almasry's "net:
//     remove napi_frag_unref" (v4 <20240403152844.4061814-4-almasrymina@google.com>,
//     net-next before 10 Apr 2024, so v6.10) makes skb_release_data call
//     __skb_frag_unref(frag, recycle) again, which f6d827b180bd moves to
//     include/linux/skbuff_ref.h (also v6.10).
var Eras = withLater([]Era{
	{Name: "5.12", Tag: "v5.12", Summary: "no skb recycling: drivers call page_pool_release_page() when they build an skb; slow path allocates one page per call",
		RefillConsumerLock: true, BiasMax: longMax, Coalesce: CoalescePlain, Naming: "page",
		Names: map[Sym]string{SymAllocPageOrder: "__page_pool_alloc_pages_slow", SymPoolDMAMap: "__page_pool_alloc_pages_slow", SymAllocPagesNode: "__alloc_pages_nodemask", SymSetPPInfo: "__page_pool_alloc_pages_slow", SymPutUnrefed: "page_pool_put_page"}},
	{Name: "5.13", Tag: "v5.13", Summary: "as 5.12, plus bulk refill with alloc_pages_bulk (64 pages per call)",
		BulkAlloc: true, RefillConsumerLock: true, BiasMax: longMax, Coalesce: CoalescePlain, Naming: "page",
		Names: map[Sym]string{SymSetPPInfo: "__page_pool_alloc_pages_slow", SymPutUnrefed: "page_pool_put_page"}},
	{Name: "rfc-v1", Tag: "v5.12", Branch: "5.12", Summary: "first skb-recycling series: page->signature, pool found via xdp_mem_info in page->private, returned through __xdp_return",
		SkbRecycle: SkbRecycleRFC, RefillConsumerLock: true, BiasMax: longMax, Coalesce: CoalescePlain, Naming: "page",
		Names: map[Sym]string{SymAllocPageOrder: "__page_pool_alloc_pages_slow", SymPoolDMAMap: "__page_pool_alloc_pages_slow", SymAllocPagesNode: "__alloc_pages_nodemask", SymSetPPInfo: "__page_pool_alloc_pages_slow", SymPutUnrefed: "page_pool_put_page"}},
	{Name: "5.14", Tag: "v5.14", Summary: "skb recycling as merged: pp_magic, page->pp set by skb_mark_for_recycle; skb frees always go to the ptr_ring",
		BulkAlloc: true, SkbRecycle: SkbRecycleMerged, MaskedSignature: true, RefillConsumerLock: true,
		ReleaseDataClearsPPRecycle: true, BiasMax: longMax, Coalesce: CoalescePlain, TracePFNHex: true, Naming: "page",
		Names: map[Sym]string{SymSetPPInfo: "__page_pool_alloc_pages_slow", SymPutUnrefed: "page_pool_put_page"}},
	// 5.15 carries the 2022 coalesce fix (1effe8ca4e34 "skbuff: fix coalescing
	// for page_pool fragment recycling", "Fixes:" the v5.15 frag support
	// 53e0961da1c7, so it is in the 5.15.y stable series whose skbuff.c the era
	// follows): without it, split pages are not safe against coalescing from
	// clones.
	{Name: "5.15", ProfileNames: true, Tag: "v5.15", LTS: true, Summary: "page->pp set at allocation; frag API (PP_FLAG_PAGE_FRAG, pp_frag_count): split pages become safe",
		BulkAlloc: true, SkbRecycle: SkbRecycleMerged, MaskedSignature: true, PPSetAtAlloc: true, FragAPI: true, FragFlag: true,
		RefillConsumerLock: true, ReleaseDataClearsPPRecycle: true, BiasMax: longMax, Coalesce: Coalesce2022, TracePFNHex: true, Naming: "page",
		Names: map[Sym]string{SymPutUnrefed: "page_pool_put_page"}},
	// 6.1 (LTS): the deferred free of 5.19 without NAPI-direct recycling —
	// the NAPI CPU frees what the reader handed back, but every skb page still
	// goes through the ptr_ring; page_pool_release_page still exists, the
	// coalesce rule is 2022's (1effe8ca4e34), CONFIG_PAGE_POOL_STATS (5.18) and the
	// bulk refill on pool->p.nid (6.0) are in. GRO's pp_recycle guard is
	// v6.2 (backported to 6.1.y; the era follows the release).
	{Name: "6.1", ProfileNames: true, Tag: "v6.1", LTS: true, Summary: "LTS: the deferred skb free (5.19: the reader hands the skb back to the NAPI CPU's defer list), page_pool stats (5.18), but no direct recycling from the skb free path: every skb page goes through the ptr_ring",
		BulkAlloc: true, SkbRecycle: SkbRecycleMerged, MaskedSignature: true, PPSetAtAlloc: true, FragAPI: true, FragFlag: true,
		BulkNid: true, Stats: true, DeferFree: true, ReleaseDataClearsPPRecycle: true, BiasMax: longMax, Coalesce: Coalesce2022, TracePFNHex: true, Naming: "page",
		Names: map[Sym]string{SymPutUnrefed: "page_pool_put_defragged_page"}},
	{Name: "6.4", ProfileNames: true, Tag: "v6.4", Summary: "skb frees in the pool's own NAPI context recycle straight into the alloc cache, for pools whose driver sets pp.napi (bnxt, mlx5); skbs built from page_pool XDP frames are marked for recycling",
		BulkAlloc: true, SkbRecycle: SkbRecycleMerged, MaskedSignature: true, PPSetAtAlloc: true, FragAPI: true, FragFlag: true,
		NAPIDirect: true, XDPFrameSkbRecycle: true, BulkNid: true, Stats: true, DeferFree: true, ReleaseDataClearsPPRecycle: true, BiasMax: longMax, Coalesce: Coalesce2023, TracePFNHex: true,
		GROPPRecycleCheck: true, Naming: "page",
		Names: map[Sym]string{SymFragUnref: "napi_frag_unref", SymPutUnrefed: "page_pool_put_defragged_page"}},
	// 6.6 (LTS), read against a 6.6 tree's net/core/page_pool.c
	// (eclipse-oniro-mirrors/kernel_linux_6.6):
	// napi_pp_put_page in skbuff.c admits `napi_safe || in_softirq()`
	// (4a36d0180c45, Lobakin); page_pool_release_page is gone ("net:
	// page_pool: remove page_pool_release_page()", Kicinski, July 2023): a
	// driver that built skbs from pool pages marks them instead, and the
	// pool's own release is page_pool_return_page, which unmaps inline;
	// PP_FLAG_PAGE_FRAG and pp_frag_count for split pages only, BIAS_MAX
	// LONG_MAX, the 2023 coalesce rule (0646dc31ca88 "skbuff: Fix a race
	// between coalescing and releasing SKBs").
	{Name: "6.6", ProfileNames: true, Tag: "v6.6", LTS: true, Summary: "LTS: any skb free in softirq on the CPU of the pool's NAPI (pp.napi) recycles into the alloc cache (napi_safe || in_softirq()); page_pool_release_page removed, so every driver marks its skbs; bnxt's pool feeds its aggregation ring (and every buffer in XDP page mode) and maps and syncs its pages",
		BulkAlloc: true, SkbRecycle: SkbRecycleMerged, MaskedSignature: true, PPSetAtAlloc: true, FragAPI: true, FragFlag: true,
		NAPIDirect: true, XDPFrameSkbRecycle: true, BulkNid: true, Stats: true, SoftirqDirect: true, DeferFree: true, ReleaseDataClearsPPRecycle: true, BiasMax: longMax, Coalesce: Coalesce2023,
		NoReleasePageAPI: true, TracePFNHex: true, GROPPRecycleCheck: true, Naming: "page",
		Names: map[Sym]string{SymReturnSkbPage: "napi_pp_put_page", SymReleasePage: "page_pool_return_page", SymFragUnref: "napi_frag_unref", SymPutUnrefed: "page_pool_put_defragged_page"}},
	// 6.8 keeps 6.6 and adds what the model shows of 6.7 and 6.8: every page
	// carries pp_ref_count (6.7: 58d53d8f7da6; 6.8: the rename, 0a149ab78ee2)
	// and PP_FLAG_PAGE_FRAG is gone (09d96ee5674a), BIAS_MAX is halved
	// (aaf153aecef1), and skb_try_coalesce takes pp refs from cloned sources,
	// plain inequality again (f7dc3248dcfb "skbuff: Optimization of SKB
	// coalescing for page pool"; Liang Chen's series, Dec 2023).
	{Name: "6.8", ProfileNames: true, Tag: "v6.8", Summary: "as 6.6, plus pp_ref_count for every page (PP_FLAG_PAGE_FRAG gone, BIAS_MAX halved) and skb_try_coalesce taking pp refs from cloned skbs",
		BulkAlloc: true, SkbRecycle: SkbRecycleMerged, MaskedSignature: true, PPSetAtAlloc: true, FragAPI: true,
		PPRefCount: true, NAPIDirect: true, XDPFrameSkbRecycle: true, BulkNid: true, Stats: true, SoftirqDirect: true, DeferFree: true, ReleaseDataClearsPPRecycle: true, BiasMax: longMax >> 1, Coalesce: CoalescePlainPPRefs,
		NoReleasePageAPI: true, TracePFNHex: true, GROPPRecycleCheck: true, PoolNetlink: true, Naming: "page",
		Names: map[Sym]string{SymReturnSkbPage: "napi_pp_put_page", SymReleasePage: "__page_pool_release_page_dma", SymFragUnref: "napi_frag_unref"}},
}, laterEras)

// eraStep is an era after 6.8 as what it changes in the era before it:
// its behaviour (change) and its names (names: a symbol's new name in this
// era; unnamed: a symbol back to Sym.Name).
type eraStep struct {
	name, tag, summary string
	change             func(e *Era)
	names              map[Sym]string
	unnamed            []Sym
}

// laterEras are the eras after 6.8 (docs/eras-after-6.8.md has the
// sources), each the era before it plus its own change: later eras include
// earlier ones' behaviour unless a later change removes it (7.1 removes the
// page type of 7.1-rc1). Each follows its release; the stable series carry
// several of these changes back (6.12.y has the DMA tracking, the 16K clamp
// and the mp_ops hooks), so an LTS kernel of today behaves more like a later
// era than its tag.
//
// Their names (their rows in idents.tsv say where each was read):
//   - v6.10: the memory allocation profiling series (Suren Baghdasaryan)
//     renames the allocators the pool calls: __alloc_pages_bulk →
//     alloc_pages_bulk_noprof, __alloc_pages → __alloc_pages_noprof,
//     kmem_cache_alloc → kmem_cache_alloc_noprof (the old names become
//     alloc_hooks() macros).
//   - v6.12: page_pool_put_unrefed_netmem does the put (the netmem
//     conversion, v6.11); page_pool_put_unrefed_page is its wrapper (read
//     in 6.12.y, atmark-techno/linux-6.12-at @0f3f95aa1299).
//   - v6.12: the dma-buf provider's functions, called directly by the pool
//     (0f9214046893); from v6.15 the same functions through
//     pool->mp_ops (57afb4830157). io_uring zero-copy RX's provider is
//     the other mp_ops of 6.15 on, with symbols of its own
//     (SymZcAllocNetmems, SymZcReleaseNetmem).
//   - v6.15: page_pool_put_page_bulk(pool, data, count) is
//     page_pool_put_netmem_bulk(data, count) (fcc680a647ba, ≈v6.14).
//   - v6.15: the page allocator frees an order-0 page through
//     free_frozen_pages (free_unref_page's successor, ≈v6.14, not pinned).
//   - v6.16: ee62ce7a1d90 does the xa_alloc inline in page_pool_dma_map
//     and the xa_cmpxchg inline in __page_pool_release_page_dma; "page_pool:
//     Fix PP_MAGIC_MASK to avoid crashing on some 32-bit arches" (Toke
//     Høiland-Jørgensen, net, Sep 2025: v1
//     <20250926113841.376461-1-toke@redhat.com> moves both into
//     page_pool_register_dma_index / page_pool_release_dma_index, read in
//     its diff; v2 <20250930114331.675412-1-toke@redhat.com>), so v6.18 has
//     the helpers; __page_pool_unmap_netmem_dma (the model's name) is a
//     later fix's (commit not pinned; 7.1-rc1 and 7.1 use it, not verified
//     per tag).
//   - v6.18: Byungchul Park's v6.17 renames (61a332475335, 4ad125ae380b,
//     b56ce8684622): page_pool_return_netmem, __page_pool_release_netmem_dma,
//     __page_pool_alloc_netmems_slow; and the IOMMU's page mapping is
//     iommu_dma_map_phys / iommu_dma_unmap_phys (Leon Romanovsky's
//     dma-mapping series, posted Aug 2025; v6.18 not verified).
var laterEras = []eraStep{
	{name: "6.9", tag: "v6.9", summary: "as 6.8, plus the per-CPU system page_pools (page_pool_create_percpu, pool->cpuid): an skb page of a pool whose cpuid is this CPU recycles directly when freed in softirq; generic XDP copies a frags-capable program's skbs into them",
		change: func(e *Era) { e.SystemPool = true }},
	{name: "6.10", tag: "v6.10", summary: "as 6.9, plus locality decided in the pool (page_pool_napi_local on every put without allow_direct, driver and XDP returns included), direct bulk recycling in page_pool_put_page_bulk, no DMA sync call at all on an I/O-coherent device (dma_dev_need_sync), and an skb the defer list refuses freed NAPI-safe (kfree_skb_napi_cache, 7cb31c46b9cc)",
		change: func(e *Era) { e.PoolNapiLocal, e.DMASkipSync, e.DeferRefusedNapiCache = true, true, true },
		names:  map[Sym]string{SymAllocPagesBulk: "alloc_pages_bulk_noprof", SymAllocPagesNode: "__alloc_pages_noprof", SymSlabAlloc: "kmem_cache_alloc_noprof"}, unnamed: []Sym{SymFragUnref}},
	{name: "6.12", tag: "v6.12", summary: "LTS: as 6.10 (netmem names from 6.11), plus devmem TCP: a queue bound to a dma-buf gets a pool of net_iovs (PP_FLAG_ALLOW_UNREADABLE_NETMEM), unreadable payload frags, SO_DEVMEM_DONTNEED returns",
		change: func(e *Era) { e.MemProvider, e.Naming, e.LTS, e.TraceNetmem = MPDevmem, "netmem", true, true },
		names:  map[Sym]string{SymMPAllocNetmems: "mp_dmabuf_devmem_alloc_netmems", SymMPReleaseNetmem: "mp_dmabuf_devmem_release_page", SymPutUnrefed: "page_pool_put_unrefed_netmem"}},
	{name: "6.13", tag: "v6.13", summary: "as 6.12, plus frag allocations counted per page, not per fragment (ef04d290c013: a further fragment of the current frag page is no alloc_fast), and bnxt's RX heads taken from its page_pool (7ed816be35ab)",
		change: func(e *Era) { e.FragStatPerPage = true }},
	{name: "6.15", tag: "v6.15", summary: "as 6.13, plus the generic memory_provider_ops and io_uring zero-copy RX (its refill queue); provider pools must ask for PP_FLAG_DMA_SYNC_DEV (6.14), which the dma-buf provider turns off (io_uring syncs each niov itself)",
		change: func(e *Era) { e.MemProvider, e.RetryStopsNegative, e.BulkStatAfterUnlock = MPOps, true, true },
		names:  map[Sym]string{SymPutPageBulk: "page_pool_put_netmem_bulk", SymFreePage: "free_frozen_pages"}},
	{name: "6.16", tag: "v6.16", summary: "as 6.15, plus DMA-mapped pages tracked in an xarray and unmapped at destroy (a page returned after the driver unbound skips the unmap), page_pool_release waiting for ring producers, and no NAPI-local recycling on PREEMPT_RT (32471b2f481d)",
		change: func(e *Era) { e.DMATracking, e.ReleaseProducerBarrier, e.NapiLocalRT = true, true, true },
		names:  map[Sym]string{SymDMAIndexAlloc: "page_pool_dma_map", SymDMAIndexRelease: "__page_pool_release_page_dma"}},
	{name: "6.18", tag: "v6.18", summary: "LTS: as 6.16 (struct netmem_desc from 6.17), plus pool_size clamped to 16384 instead of refused above 32768, and the defer lists lockless with the count taken first (a list holds skb_defer_max − 1 skbs)",
		change: func(e *Era) { e.RingClamp, e.DeferCountFirst, e.Naming, e.LTS = true, true, "netmem_desc", true },
		names: map[Sym]string{SymDMAIndexAlloc: "page_pool_register_dma_index", SymDMAIndexRelease: "page_pool_release_dma_index", SymAllocPagesSlow: "__page_pool_alloc_netmems_slow", SymReturnPage: "page_pool_return_netmem", SymReleasePage: "__page_pool_release_netmem_dma",
			SymIOMMUMap: "iommu_dma_map_phys", SymIOMMUUnmap: "iommu_dma_unmap_phys"}},
	{name: "6.19", tag: "v6.19", summary: "as 6.18, plus the free path of alien skbs (e20dfbad8aab: napi_consume_skb hands an skb allocated on another CPU back to it through the defer list), skb_defer_max 128 by default (b61785852ed0) and bnxt's TX completion through napi_consume_skb (362a161b2582)",
		change: func(e *Era) { e.ConsumeAlienDefers, e.SkbDeferMaxDefault = true, 128 }},
	{name: "7.1-rc1", tag: "v7.1-rc1", summary: "as 6.19, plus the page type: pool pages carry PGTY_netpp and the signature check is PageNetpp() (reverted in 7.1-rc6); and, from 7.0, skb_attempt_defer_free frees a zero-copy skb at once (0943404b1f3b)",
		change:  func(e *Era) { e.PageType, e.PreRelease, e.DeferSkipsZerocopy = true, true, true },
		unnamed: []Sym{SymDMAIndexRelease}},
	{name: "7.1", tag: "v7.1", summary: "as 7.1-rc1 without its page type, which 7.1-rc6 reverted (54cf41c969da): 7.1 checks (pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE again",
		change: func(e *Era) { e.PageType = false }},
	{name: "7.3", tag: "v7.3", summary: "as 7.1, plus the bulk put's ring stat counted inside the producer lock (bdea4980182e, 7.3-rc6): a pool destroyed while an XDP bulk return is in flight is no longer used after its free; and, read in its source, bnxt copying no frame (rx_copybreak 0: every head a pool fragment)",
		// Read in Debian's 7.3.4 source (docs/era-7.3.md): page_pool.c's
		// page_pool_recycle_ring_bulk does recycle_stat_add(pool, ring, i)
		// before page_pool_producer_unlock. Every other flag as 7.1's.
		change: func(e *Era) { e.BulkStatAfterUnlock = false }},
}

// withLater appends each step as a copy of the era before it (LTS aside)
// with the step's change and names, in order, and numbers every era.
func withLater(eras []Era, steps []eraStep) []Era {
	for i := range eras {
		eras[i].Order = i
	}
	for _, st := range steps {
		e := eras[len(eras)-1]
		e.Name, e.Tag, e.Summary, e.Order = st.name, st.tag, st.summary, len(eras)
		e.LTS, e.PreRelease = false, false // a release's own properties, not behaviours a later era inherits
		st.change(&e)
		names := make(map[Sym]string, len(e.Names)+len(st.names))
		for s, n := range e.Names {
			names[s] = n
		}
		for s, n := range st.names {
			names[s] = n
		}
		for _, s := range st.unnamed {
			delete(names, s)
		}
		e.Names = names
		eras = append(eras, e)
	}
	return eras
}

// Base is the era a branch era branches off (Branch), nil for an era of
// the mainline.
func (e *Era) Base() *Era {
	if e.base == 0 {
		return nil
	}
	return &Eras[e.base-1]
}

// FirstEra is the oldest era (by Order) that has, nil if none has: how the
// engine names "the era from which ..." by a feature, never by a name.
func FirstEra(has func(e *Era) bool) *Era {
	for i := range Eras {
		if has(&Eras[i]) {
			return &Eras[i]
		}
	}
	return nil
}

func init() {
	for i := range Eras {
		e := &Eras[i]
		if e.SkbDeferMaxDefault == 0 {
			e.SkbDeferMaxDefault = knobSpecs[KnobSkbDeferMax].Default // 39564c3fdc66 (5.19): 64
		}
		if e.Branch == "" {
			continue
		}
		j, err := indexByName("era", "era", Eras, eraName, e.Branch)
		if err != nil || j >= i || Eras[j].Branch != "" {
			panic(fmt.Sprintf("sim: era %s branches off %q, which is no earlier era of the mainline", e.Name, e.Branch))
		}
		e.base = j + 1
	}
}

// NewestStableEra is the newest era that follows a release of the
// mainline (not a branch, not a pre-release): the playground's era for a
// visit without a link (session.DefaultConfig). A link or a CLI run that
// names no era keeps DefaultEra.
func NewestStableEra() *Era {
	for i := len(Eras) - 1; i >= 0; i-- {
		if e := &Eras[i]; e.Branch == "" && !e.PreRelease {
			return e
		}
	}
	panic("sim: no era follows a release")
}

// DefaultEra is the era a run uses when none is given: a link without an
// era (its meaning does not change when a newer era is added) and ppsim
// without --era (its contract).
const DefaultEra = "6.8"

// EraNames returns the era names, oldest first.
func EraNames() []string { return Names(Eras, eraName) }

// EraByName returns the named era, or an error naming the accepted values.
func EraByName(name string) (*Era, error) {
	// Through a map, not a scan comparing names, nor indexByName's copy of
	// each Era: the drivers ask by name on their per-packet paths
	// (drivers.since), and the scan was 5 % of max-speed play in the
	// browser. The map is checked against the table (a test may have
	// replaced an entry): a stale one falls back to the scan.
	if i, ok := eraIndex[name]; ok && i < len(Eras) && Eras[i].Name == name {
		return &Eras[i], nil
	}
	for i := range Eras {
		if Eras[i].Name == name {
			return &Eras[i], nil
		}
	}
	_, err := indexByName("era", "era", Eras, eraName, name) // its error names the accepted values
	return nil, err
}

func eraName(e Era) string { return e.Name }

// eraIndex maps each era's name to its index in Eras (EraByName).
var eraIndex = func() map[string]int {
	m := make(map[string]int, len(Eras))
	for i := range Eras {
		m[Eras[i].Name] = i
	}
	return m
}()
