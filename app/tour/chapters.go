package tour

// The chapters. Every preset's step was chosen by running the engine (the
// tests check each Expect against the narration of that step, natively and
// in the browser); every identifier links into its era's release through
// the engine's table; every commit id and Message-Id below is the one the
// engine's own comments cite (engine/sim/era.go, engine/pagepool,
// engine/skb, engine/drivers/spec.go).

const (
	urlSeries1 = "https://lore.kernel.org/netdev/20210322170301.26017-1-mcroce@linux.microsoft.com/"
	urlSeries8 = "https://lore.kernel.org/netdev/20210607190240.36900-1-mcroce@linux.microsoft.com/"
)

// commit links a commit id on git.kernel.org.
func commit(id string) string { return "https://git.kernel.org/torvalds/c/" + id }

var chapters = []Chapter{
	{
		Slug: "pool-basics", Title: "Pool basics: the alloc cache, the ptr_ring and the slow path",
		Lede: "Where a page_pool keeps its pages, how a driver gets one and gives it back, and what happens when both stores are empty.",
		Era:  "6.8",
		Presets: []Preset{
			{ID: "open", Q: "scenario=drop&step=1", Caption: "op 1: ndo_open fills the 16 RX descriptors; the pool is empty, so the slow path bulk-allocates", Expect: "open: fill the RX ring"},
			{ID: "fast", Q: "scenario=drop&step=2", Caption: "op 2: the RX poll refills its descriptor from the top of the alloc cache (fast path)", Expect: "fast path"},
			{ID: "ring", Q: "scenario=drop&step=3", Caption: "op 3: kfree_skb of the dropped frame: the page goes into the ptr_ring", Expect: "into the ptr_ring under the producer spinlock"},
			{ID: "xdpdrop", Q: "scenario=xdp-drop&step=2", Caption: "xdp-drop, op 2: XDP_DROP in the NAPI poll puts the page straight back on the alloc cache", Expect: "rx_pp_recycle_cached"},
			{ID: "ringfull", Q: "scenario=drop&step=67", Caption: "op 67: the 32-slot ptr_ring is full: the page is released to the page allocator", Expect: "rx_pp_recycle_ring_full"},
			{ID: "refill", Q: "scenario=drop&step=98", Caption: "op 98: the alloc cache is empty: a refill moves a batch from the ptr_ring", Expect: "moved a batch of up to 64 pages from the ptr_ring"},
			{ID: "single", Q: "scenario=drop&era=5.12&step=1", Caption: "5.12, op 1: no bulk allocator: one page per slow-path call, 16 calls", Expect: "no bulk allocator before 5.13"},
		},
		Paras: []string{
			"A NIC needs a fresh buffer on its receive ring for every frame. A `page_pool` — one per RX queue, made by {page_pool_create} — keeps pages the driver has already mapped for the device, so that a page it gets back skips the page allocator and the DMA mapping. The figure is the engine's machine at teaching sizes: an mvpp2 NIC with 16 RX descriptors, its pool with a 32-slot ptr_ring, 2048 pages of memory, and 64-byte frames that the stack drops (the `drop` scenario, kernel 6.8).",
			"A driver allocates with {page_pool_alloc_pages}. [When the interface opens](open) both of the pool's stores are empty, so the first call takes the slow path, {__page_pool_alloc_pages_slow}: one {__alloc_pages_bulk} call brings 64 pages, each is mapped and counted as held (`hold`), one is handed out, and the next 15 descriptors are filled from the cache. The counters say so: one `slow`, one `empty`, 15 `fast`.",
			"The alloc cache is an array of 128 page pointers used as a stack, with no lock and no atomic: only the pool's own NAPI context may touch it. [The RX poll's refill](fast) pops its top — the page recycled last, still warm in the cache.",
			"A page comes back through {page_pool_put_page}. If its refcount is 1 and it is not a pfmemalloc page (`page_ref_count(page) == 1 && !page_is_pfmemalloc(page)` in `__page_pool_put_page`) it can be recycled, and where it goes depends on who calls. A caller running in the pool's NAPI context may pass `allow_direct` and push it straight onto the alloc cache ({page_pool_recycle_in_cache}), as a driver does when its XDP program [drops the frame](xdpdrop) (`cached`). Everyone else produces it into the ptr_ring under the ring's producer spinlock ({page_pool_recycle_in_ring}): here the stack's [kfree_skb of the dropped frame](ring) (`ring`). mvpp2 links no NAPI to its pool, so in every era its skb pages take the ring; chapter 7 is about the pools that may skip it.",
			"The ring has as many slots as the driver asked for, here 32. When it is full the page is [released instead](ringfull): unmapped, no longer counted by the pool (`release`), and handed back to the page allocator (`ring_full`). When the alloc cache runs empty, {page_pool_refill_alloc_cache} [moves a batch](refill) of up to 64 pages from the ring into it (`refill`); only when the ring is empty too does the slow path run again.",
			"The slow path was not always a bulk call: before 5.13 it took [one page per call](single) from `alloc_pages_node()`, so opening the interface cost 16 calls (16 `slow` in the model's counters, which count what a stats-enabled pool would: the kernel's page_pool stats only exist from 5.18). Chapter 6 is about the bulk refill and the two bugs its review found; chapter 2 about the skbs that, before 5.14, never brought their pages back at all.",
		},
	},
	{
		Slug: "skb-recycling", Title: "skb recycling, 5.12 → 5.14",
		Lede: "How an skb learned to give its page back to the pool, and the throughput that bought on the first drivers that used it.",
		Era:  "5.14",
		Presets: []Preset{
			{ID: "release", Q: "scenario=drop&era=5.12&step=2", Caption: "5.12, op 2: mvpp2 releases the page from its pool as it builds the skb", Expect: "page_pool_release_page"},
			{ID: "free512", Q: "scenario=drop&era=5.12&step=3", Caption: "5.12, op 3: the skb's free puts the page back in the page allocator", Expect: "the page goes back to the page allocator"},
			{ID: "mark", Q: "scenario=drop&era=5.14&step=2", Caption: "5.14, op 2: mvpp2 marks the skb for recycling instead", Expect: "skb_mark_for_recycle"},
			{ID: "free514", Q: "scenario=drop&era=5.14&step=3", Caption: "5.14, op 3: the skb's free returns the page to its pool through the ptr_ring", Expect: "page_pool_return_skb_page"},
			{ID: "rfc", Q: "scenario=drop&era=rfc-v1&step=3", Caption: "rfc-v1, op 3: the first version of the series, on its v5.12 base", Expect: "into the ptr_ring under the producer spinlock"},
		},
		Paras: []string{
			"Until 5.14 a page_pool page that went up the stack inside an skb was lost to its pool. In 5.12 [mvpp2's receive path](release) wraps the frame with {build_skb@5.12}, refills the descriptor (`mvpp2_rx_refill`: since no page ever comes back, a new page from the page allocator, `slow`) and then calls {page_pool_release_page@5.12}: the page is unmapped and the pool stops counting it (`release`). When the stack [frees the skb](free512), {skb_free_head@5.12} puts the head page and it goes back to the page allocator.",
			"The skb-recycling series by Matteo Croce and Ilias Apalodimas ([v1](" + urlSeries1 + "), March 2021; [v8](" + urlSeries8 + "), June 2021, merged for 5.14 by [dc8cf7550a70](" + commit("dc8cf7550a70") + "); its core patch is Ilias Apalodimas's \"page_pool: Allow drivers to hint on SKB recycling\", [6a5bcd84e886](" + "https://git.kernel.org/torvalds/c/6a5bcd84e886" + ")) lets a driver mark the skb instead. [In 5.14](mark) mvpp2 calls {skb_mark_for_recycle}: it sets `skb->pp_recycle` and, through `page_pool_store_mem_info`, points `page->pp` at the pool. The page keeps its DMA mapping, and `pp_magic` carries the page_pool signature.",
			"[When the skb is freed](free514), {skb_release_data} finds `pp_recycle` set, and {page_pool_return_skb_page} checks the signature (masked with `~0x3UL` so the pfmemalloc bit survives, [0fa32ca438b4](" + "https://git.kernel.org/torvalds/c/0fa32ca438b4" + ")), finds the pool in `page->pp`, clears it, and puts the page with {page_pool_put_full_page} — with `allow_direct` false: the skb free path cannot know that it runs in the pool's NAPI context, so every skb page goes through the ptr_ring. The first version of the series ([rfc-v1](rfc)) found the pool through an `xdp_mem_info` kept in `page->private` and returned the page through {__xdp_return@rfc-v1}; its names link the RFC patch.",
			"What that bought was measured on the series' first version with 64-byte drops: on a MacchiatoBIN (mvpp2, Armada 8040) sent \"64 byte ethernet frames with an invalid ethertype, so the packets are dropped early in the RX path\", and with mausezahn sending \"64 byte raw ethernet frames\" to mvneta (the patches' words, v1 5/6 and 6/6; the mvneta patch names no board, its arm64 profile fits the Armada 3720 of the model's EspressoBIN). The model's platform tables are calibrated on exactly these pairs (engine/perf/calibrate.go: each listed symbol's cost from the perf profiles, the rest of the stack solved from both rates), so it reproduces them; the tour's tests recompute every model number below from the engine. mvneta gains far less: its DMA is not coherent, and the cache invalidation each frame needs, which recycling does not remove, is its largest cost (`__pi___inval_dcache_area`, 21.78 % of the profile before and 24.10 % after).",
		},
		Numbers: []Number{
			{What: "mvpp2, drop 64 B, no skb recycling (5.12)", Check: "rate drop mvpp2 5.12", Measured: "962 kpps", Model: "961.5 kpps", Source: "mvpp2-v1-before"},
			{What: "mvpp2, drop 64 B, skb recycling (rfc-v1)", Check: "rate drop mvpp2 rfc-v1", Measured: "2047 kpps", Model: "2046.1 kpps", Source: "mvpp2-v1-after"},
			{What: "mvneta, drop 64 B, no skb recycling (5.12)", Check: "rate drop mvneta 5.12", Measured: "269 kpps", Model: "269.1 kpps", Source: "mvneta-v1-before"},
			{What: "mvneta, drop 64 B, skb recycling (rfc-v1)", Check: "rate drop mvneta rfc-v1", Measured: "296 kpps", Model: "296.0 kpps", Source: "mvneta-v1-after"},
			{What: "mvpp2, drop 64 B, 5.14: skb recycling and bulk refill", Check: "rate drop mvpp2 5.14", Measured: "2128 kpps", Model: "2353.6 kpps", Source: "v8 4/5 \"mvpp2: recycle buffers\" <20210607190240.36900-5-mcroce@linux.microsoft.com>, its rate after (no profile of it is shipped; not fitted)"},
		},
		NumbersNote: "Measured: the rate in the header of each perf profile shipped in engine/perf/profiles (the series' first version, before and after), and the rate after the series' v8 mvpp2 patch states (1110 → 2128 Kpps, on a net-next base with the bulk refill). Model: ppsim run --scenario drop at the kernel's sizes, 10^6 packets.",
	},
	{
		Slug: "clones", Title: "Clones and the last dataref",
		Lede: "Two skbs share one page: only the one that drops the last reference may give it back.",
		Era:  "5.14",
		Presets: []Preset{
			{ID: "clone", Q: "scenario=clone-tap&driver=mvpp2&era=5.14&step=3", Caption: "op 3: the tap clones skb#1, then the original is consumed: dataref 2 → 1, nothing is freed", Expect: "not the last reference to the shared data"},
			{ID: "last", Q: "scenario=clone-tap&driver=mvpp2&era=5.14&step=17", Caption: "op 17: the tap reader frees the old clone, the last user: its page goes back to the pool", Expect: "last reference to the data"},
			{ID: "broken", Q: "scenario=clone-tap&driver=mvpp2&era=5.14&break=last-dataref&step=3", Caption: "last-dataref broken, op 3: the original's free recycles the page the clone still uses", Expect: "use-after-recycle"},
			{ID: "double", Q: "scenario=clone-tap&driver=mvpp2&era=5.14&break=last-dataref&step=17", Caption: "last-dataref broken, op 17: the clone's free returns the same page a second time", Expect: "double-recycle"},
			{ID: "refcnt", Q: "scenario=forward&driver=mvneta&era=5.14&tap_every=4&frame=6000&step=17", Caption: "mvneta forwarding jumbo frames, op 17: a page with a second reference is released, not recycled", Expect: "rx_pp_recycle_released_ref"},
			{ID: "refcntbroken", Q: "scenario=forward&driver=mvneta&era=5.14&tap_every=4&frame=6000&break=refcnt-check&step=17", Caption: "refcnt-check broken, op 17: the page is recycled while the tapped skb still uses it", Expect: "use-after-recycle"},
		},
		Paras: []string{
			"An AF_PACKET tap (tcpdump) sees a packet through a clone: {skb_clone} makes a second `sk_buff` that shares the first one's head and frags. Nothing is copied and no page reference is taken; the shared `skb_shared_info` counts its users in `dataref`, and the clone copies `pp_recycle`. In the `clone-tap` scenario [every 4th packet is cloned](clone): the original is consumed in NAPI context at once ({napi_consume_skb}), and the tap reader frees the clone 8 packets later.",
			"Only the skb that drops the last dataref frees the data. The original's {skb_release_data} only takes `dataref` from 2 to 1 and leaves head and frags to the clone; [the clone's free](last) is the last one, and only then is the page offered to its pool. Since [2cc3aeb5eccc](" + "https://git.kernel.org/torvalds/c/2cc3aeb5eccc" + ") (v5.14-rc2, \"skbuff: Fix a potential race while recycling page_pool packets\") {skb_release_data} also clears `pp_recycle` on an skb that was not the last: the bit is copied on clone, so the last skb alone is responsible for the recycle.",
			"Break the `last-dataref` rule and [the original's free recycles the page](broken) while the clone still points into it: a use-after-recycle — the pool could hand the page to the NIC for the next frame while the tap still reads it. [When the clone is freed too](double) the page is returned a second time while it sits in the ring (a double recycle; 5.14 cleared `page->pp` on the first return, so the kernel would oops).",
			"A clone is not the only way to share a page. Whoever takes a page reference of their own — {get_page}, a frag reference taken by {pskb_expand_head} when it copies a cloned skb's header — leaves the page with a refcount above 1 when the pool's last user puts it. {page_pool_put_page} then does not recycle it: it releases the page from the pool (`released_refcnt`) and the other reference frees it later. mvneta forwarding 6000-byte frames with a tap shows both: `skb_cow` on a tapped skb takes references on its frags, and [the page is released](refcnt) rather than recycled; with `refcnt-check` broken [it is recycled under the tapped skb](refcntbroken).",
		},
	},
	{
		Slug: "coalescing", Title: "Coalescing and its guards: four historical forms",
		Lede: "Merging skbs in a receive queue moves pages between skbs; four versions of one test in skb_try_coalesce keep pool pages and clones apart.",
		Era:  "5.14",
		Presets: []Preset{
			{ID: "refused", Q: "scenario=coalesce-mixed&era=5.14&step=7", Caption: "op 7: a page_pool skb and a loopback skb: skb_try_coalesce refuses (v5.14 form)", Expect: "differ in pp_recycle"},
			{ID: "stolen", Q: "scenario=coalesce-mixed&era=5.14&step=9", Caption: "op 9: two page_pool skbs: from's head is stolen as a frag of to", Expect: "head is stolen as a frag"},
			{ID: "ppbroken", Q: "scenario=coalesce-mixed&era=5.14&break=coalesce-pp-guard&step=14", Caption: "coalesce-pp-guard broken, op 14: a pool page freed under a loopback skb: an inflight leak", Expect: "inflight-leak"},
			{ID: "foreign", Q: "scenario=coalesce-mixed&era=5.14&break=coalesce-pp-guard&break=signature-check&step=27", Caption: "coalesce-pp-guard and signature-check broken, op 27: a loopback page taken for a pool page", Expect: "foreign-page-in-pool"},
			{ID: "form2022", Q: "scenario=tcp-stream&driver=hns3&era=5.15&tap_every=2&gro=0&read_ns=2000&step=11", Caption: "hns3, 5.15 (the 2022 form), op 11: a cloned page_pool skb is refused", Expect: "cloned page_pool skb"},
			{ID: "clonedbroken", Q: "scenario=tcp-stream&driver=hns3&era=5.15&tap_every=2&gro=0&read_ns=2000&break=coalesce-cloned-guard&step=15", Caption: "coalesce-cloned-guard broken, op 15: a frag page is recycled while a clone still uses it", Expect: "use-after-recycle"},
			{ID: "form2023", Q: "scenario=tcp-stream&driver=hns3&era=6.4&tap_every=2&gro=0&read_ns=2000&step=11", Caption: "hns3, 6.4 (the 2023 form), op 11: refused, the clone still uses the pages", Expect: "the clone still uses its pages"},
			{ID: "form68", Q: "scenario=tcp-stream&driver=hns3&era=6.8&tap_every=2&gro=0&read_ns=2000&step=11", Caption: "hns3, 6.8, op 11: coalesced, to takes a pp reference on each frag", Expect: "pp reference"},
		},
		Paras: []string{
			"A socket's receive queue merges small skbs: {skb_try_coalesce} appends `from` to the queue's tail `to` — copying bytes that fit `to`'s tailroom, stealing `from`'s head page as a frag of `to`, moving `from`'s frags — and the caller frees what is left of `from` with {kfree_skb_partial} (in TCP, `tcp_data_queue` once `tcp_try_coalesce` succeeded). Once pages can go back to a pool, that merge must not mix memory: a page in `to`'s frags is freed by `to`'s free, under `to`'s `pp_recycle`. In the `coalesce-mixed` scenario skbs from mvpp2 (page_pool pages) and from loopback (page_frag heads) meet in one queue, two of each in turn.",
			"The test has had four forms. v5.14's ([6a5bcd84e886](" + "https://git.kernel.org/torvalds/c/6a5bcd84e886" + ")) refuses when `to->pp_recycle != from->pp_recycle`: [a loopback skb behind a page_pool one is refused](refused), while [two page_pool skbs merge](stolen). Break `coalesce-pp-guard` and the mix goes through: a pool page ends up in a loopback skb, whose free [puts it back in the page allocator](ppbroken) still mapped and still counted by its pool — an inflight leak, a pool that can never be destroyed. The other way round, with the signature check broken as well, [a page the pool never allocated is taken for a pool page](foreign).",
			"Clones came next. hns3 (chapter 5) carries page_pool memory in frags, each with a `pp_frag_count`; when a tapped, cloned skb was coalesced into the queue tail, {skb_try_coalesce@5.15} gave `to` a page reference (`__skb_frag_ref`) where it should have raised `pp_frag_count`, so the clone's free and `to`'s free each dropped a `pp_frag_count` and the page was freed while an RX descriptor still held its other half (the commit message's walkthrough). Jean-Philippe Brucker's fix ([1effe8ca4e34](" + "https://git.kernel.org/torvalds/c/1effe8ca4e34" + "), 2022, in the 5.15 stable series) made the test `to->pp_recycle != (from->pp_recycle && !skb_cloned(from))`: [a cloned page_pool `from` is refused](form2022). The figure takes GRO off and reads slowly, so that segments without a frag_list meet a queue tail, as in that walkthrough (the skb goes up through `netif_receive_skb`). Break `coalesce-cloned-guard` (the function's clone tests go) and [a frag page is recycled while a clone still uses it](clonedbroken).",
			"Liang Chen's \"skbuff: Fix a race between coalescing and releasing SKBs\" ([0646dc31ca88](" + "https://git.kernel.org/torvalds/c/0646dc31ca88" + "), v6.3, and backported to the 5.15 stable series in April 2023; the 6.4 era here, while the 5.15 and 6.1 eras keep the 2022 form) refuses whenever the kinds differ and also [whenever `from` is a cloned page_pool skb](form2023). 6.8's ([f7dc3248dcfb](" + "https://git.kernel.org/torvalds/c/f7dc3248dcfb" + ")) went back to the plain inequality, because by then every page carries a `pp_ref_count`: `to` [takes a pp reference on each of a cloned `from`'s frags](form68), and the clone and `to` each drop their own. Its motivation, from the series: NetworkManager may register an extra packet_type, and with it received skbs are cloned.",
		},
	},
	{
		Slug: "split-pages", Title: "Split pages: the 5.14 caveat and the 5.15 frag API",
		Lede: "Two RX buffers in one page: in 5.14 freeing one half recycles the whole page; 5.15 counts the fragments.",
		Era:  "5.15",
		Presets: []Preset{
			{ID: "half", Q: "scenario=split-page&era=5.14&step=2", Caption: "5.14, op 2: the frame lands in one half of a page; the skb is marked for recycling", Expect: "half page"},
			{ID: "caveat", Q: "scenario=split-page&era=5.14&step=3", Caption: "5.14, op 3: the reader frees it and the whole page is recycled — the other half is still posted (no rule broken)", Expect: "use-after-recycle"},
			{ID: "frag", Q: "scenario=split-page&driver=hns3&era=5.15&step=34", Caption: "hns3, 5.15, op 34: the poll refills its descriptors with 2 KiB fragments from page_pool_alloc_frag", Expect: "new frag page"},
			{ID: "notlast", Q: "scenario=split-page&driver=hns3&era=5.15&step=3", Caption: "op 3: the first half's free only drops pp_frag_count", Expect: "not the last user"},
			{ID: "lastfrag", Q: "scenario=split-page&driver=hns3&era=5.15&step=5", Caption: "op 5: the last user's free recycles the page", Expect: "into the ptr_ring under the producer spinlock"},
			{ID: "fragbroken", Q: "scenario=split-page&driver=hns3&era=5.15&break=frag-count&step=3", Caption: "frag-count broken, op 3: the first free recycles the page under the other half", Expect: "use-after-recycle"},
		},
		Paras: []string{
			"A 1500-byte frame fills less than half of a 4 KB page, so drivers long split each page into two RX buffers and flip between the halves (Intel's `page_offset ^= truesize`), reusing a page only while they own it alone. skb recycling did not account for that: the comment in {page_pool_return_skb_page@5.14} says \"This will *not* work for NIC using a split-page memory model. The page will be returned to the pool here regardless of the 'flipped' fragment being in use or not.\"",
			"The figure shows that caveat in 5.14 on a split-page driver (the model's construction on mlx5's RX path, not mlx5's code: mlx5 split its pages behind its own RX page cache and did not mark skbs then). [Each frame lands in one half](half) of a page and its skb is marked; [when the reader frees it](caveat) the whole page goes into the ptr_ring while the NIC's descriptor still owns the other half. That is a use-after-recycle with no rule broken: 5.14's own failure, as its comment warns (rfc-v1 has it too).",
			"5.15 fixed it in the pool (Yunsheng Lin's series: [0e9d2a0a3a83](" + "https://git.kernel.org/torvalds/c/0e9d2a0a3a83" + ") and [53e0961da1c7](" + "https://git.kernel.org/torvalds/c/53e0961da1c7" + "), after [57f05bc2ab24](" + "https://git.kernel.org/torvalds/c/57f05bc2ab24" + "), which sets `page->pp` once, at allocation, in {page_pool_set_pp_info}). A pool created with `PP_FLAG_PAGE_FRAG` hands out sub-page buffers with {page_pool_alloc_frag}: a new frag page starts with `pp_frag_count` = `BIAS_MAX`, each buffer handed out is one user, and the bias not handed out is subtracted when the page is done ({page_pool_drain_frag}). hns3 was its first user: [it fills its ring with 2 KiB fragments](frag), copies frames up to 256 bytes and adds the buffers of larger ones as frags of a small marked skb.",
			"{page_pool_put_page} now first drops the page's `pp_frag_count`, and only the last user goes on: [the first half's free only drops the count](notlast), [the last user's free](lastfrag) recycles the page. Break `frag-count` and the put skips that test: [the first free recycles the page under the other half](fragbroken). From 6.7 every page carries the count (`pp_ref_count` from 6.8) and `PP_FLAG_PAGE_FRAG` is gone ([09d96ee5674a](" + "https://git.kernel.org/torvalds/c/09d96ee5674a" + ")): any pool may hand out fragments.",
		},
	},
	{
		Slug: "bulk-refill", Title: "Bulk refill (5.13) and its two review bugs",
		Lede: "One page allocator call for 64 pages — and the two mistakes in the patch as first posted, as rules you can break.",
		Era:  "5.13",
		Presets: []Preset{
			{ID: "single", Q: "scenario=drop&era=5.12&step=1", Caption: "5.12, op 1: 16 descriptors, 16 calls to the page allocator", Expect: "no bulk allocator before 5.13"},
			{ID: "bulk", Q: "scenario=drop&era=5.13&step=1", Caption: "5.13, op 1: one bulk call of 64 pages fills the cache", Expect: "bulk allocation"},
			{ID: "mapfail", Q: "scenario=drop&era=5.13&dma_map_fail_ppm=200000&step=80", Caption: "one DMA mapping in five fails, op 80: the refill frees the page that failed and goes on", Expect: "the mapping failed"},
			{ID: "mapfailbroken", Q: "scenario=drop&era=5.13&dma_map_fail_ppm=200000&break=bulk-map-error&step=1104", Caption: "bulk-map-error broken, op 1104: the refill returns NULL with pages in the cache", Expect: "alloc-failure-with-cache"},
			{ID: "unmap", Q: "scenario=xdp-redirect&driver=mvpp2&era=5.13&bulk=256&break=bulk-dma-unmap&step=1", Caption: "bulk-dma-unmap broken, bulk=256, op 1: pages beyond the cache's room are freed still mapped", Expect: "dma-leak"},
		},
		Paras: []string{
			"Before 5.13 the slow path took [one page per call](single) from the page allocator (`alloc_pages_node()`, under a \"FUTURE development\" comment: \"This code need bulk allocation support from the page allocator code\"), and a driver whose pages never came back — every driver before skb recycling — paid that call for every packet. Mel Gorman's series added a bulk page allocator, {__alloc_pages_bulk}, and Jesper Brouer's patch in it ([be5dba25b4b2](" + "https://git.kernel.org/torvalds/c/be5dba25b4b2" + ")) made {__page_pool_alloc_pages_slow} [fetch 64 pages in one call](bulk) (`PP_ALLOC_CACHE_REFILL`), map each ({page_pool_dma_map}) and keep them in the alloc cache: one `slow` per 64 pages. High-order pools still take one compound page per call ({__page_pool_alloc_page_order}).",
			"The patch as posted in Mel Gorman's series on 12 March 2021 ([PATCH 7/7](https://lore.kernel.org/r/20210312154331.32229-8-mgorman@techsingularity.net/); Brouer's [RFC V2](https://lore.kernel.org/r/161460539281.3031322.4594417056131578057.stgit@firesoul/) of 1 March had the same loop) had two bugs, found in Alexander Duyck's [review](https://lore.kernel.org/r/CAKgT0UebK=mMwDV+UH8CqBRt0E0Koc7EB42kwgf0hYHDT_2OfQ@mail.gmail.com/). The model keeps both as rules you can break. First: it took the first page off the list to hand out, mapped the others into the cache and that one last, and if its mapping failed it returned NULL although the cache now held pages. With one DMA mapping in five failing (`dma_map_fail_ppm=200000`) [the merged code frees the page that failed and goes on](mapfail); with `bulk-map-error` broken, the first refill whose first page fails to map [returns NULL](mapfailbroken) with pages in the cache, and the driver counts an allocation failure it did not need.",
			"Second: the list was not bounded by the room left in the cache. When the cache filled up, the remaining pages — already mapped — went back with `put_page` and were never unmapped. The merged code (Brouer's array variant, which Gorman squashed into the patch) lets `alloc_pages_bulk_array` fill the cache array itself, at most `PP_ALLOC_CACHE_REFILL` pages into an empty cache, so it cannot overflow (and the `bulk` knob refuses more than 128 pages unless the rule is broken). With `bulk=256` and `bulk-dma-unmap` broken, [the first refill leaks DMA mappings](unmap): pages back in the page allocator, still mapped for the device.",
			"The bulk refill pays most where pages do not come back. In the model's 5.13 drop run (no skb recycling yet) mvpp2 does 1096.1 kpps against 961.5 in 5.12; a later version of the skb-recycling series measured 1110 kpps on its bulk-refill base (chapter 8).",
		},
	},
	{
		Slug: "napi-local", Title: "NAPI-local recycling: 6.4, 6.6's in_softirq(), 6.10's test in the pool",
		Lede: "Which frees may skip the ptr_ring and push the page straight onto the lockless alloc cache, which pools get it, and how 6.9 and 6.10 widened it.",
		Era:  "6.4",
		Presets: []Preset{
			{ID: "ring64", Q: "scenario=drop&driver=mlx5&era=6.4&step=3", Caption: "mlx5, 6.4, op 3: kfree_skb in the poll is not NAPI-safe: the page takes the ring", Expect: "not NAPI-safe"},
			{ID: "complete", Q: "scenario=tcp-stream&driver=mlx5&era=6.4&step=72", Caption: "mlx5 TCP, 6.4, op 72: the flush after napi_complete_done (list_owner = -1) uses the ring", Expect: "list_owner = -1"},
			{ID: "local", Q: "scenario=tcp-stream&driver=mlx5&era=6.4&step=74", Caption: "op 74: the flush before the next poll runs on the NAPI's CPU: 16 pages into the cache", Expect: "rx_pp_recycle_cached"},
			{ID: "nonapi", Q: "scenario=drop&era=6.6&step=3", Caption: "mvpp2, 6.6, op 3: no pp.napi: the page takes the ring", Expect: "into the ptr_ring under the producer spinlock"},
			{ID: "cache66", Q: "scenario=drop&driver=mlx5&era=6.6&step=3", Caption: "mlx5, 6.6, op 3: a free in softirq on the NAPI's CPU: into the alloc cache", Expect: "in_softirq"},
			{ID: "txcpu", Q: "scenario=forward&driver=mlx5&era=6.4&tx_cpu=1&step=34", Caption: "mlx5 forwarding, TX completion on cpu1, op 34: not the pool's CPU: the ring", Expect: "rx_pp_recycle_ring"},
			{ID: "race", Q: "scenario=forward&driver=mlx5&era=6.4&tx_cpu=1&break=napi-locality&step=34", Caption: "napi-locality broken, op 34: two CPUs touch the lockless alloc cache", Expect: "cache-race"},
			{ID: "sys69", Q: "scenario=generic-xdp&era=6.9&step=5", Caption: "generic XDP on lunar, 6.9, op 5: the copy's page is freed in softirq on its system pool's CPU: into the cache", Expect: "pp->cpuid == cpuid"},
			{ID: "bench69", Q: "scenario=pool-direct&era=6.9&softirq=0&step=130", Caption: "the kernel bench in process context, 6.9, op 130: page_pool_recycle_direct, not in softirq: the ring", Expect: "not in softirq"},
			{ID: "bench610", Q: "scenario=pool-direct&era=6.10&softirq=0&step=130", Caption: "the same, 6.10, op 130: allow_direct is trusted: the cache", Expect: "in process context"},
		},
		Paras: []string{
			"Until 6.4 every page an skb brought back took the ptr_ring and its producer spinlock, even when the free ran on the very CPU, in the very softirq, that allocates from the pool. Jakub Kicinski's \"page_pool: allow caching from safely localized NAPI\" ([8c48eea3adf3](" + "https://git.kernel.org/torvalds/c/8c48eea3adf3" + "), v6.4) lets a driver link its pool to its NAPI instance (`pp.napi`), and {page_pool_return_skb_page} then recycles into the alloc cache when the free is NAPI-safe and runs on the CPU that owns that NAPI now: `napi_safe && napi->list_owner == smp_processor_id()`.",
			"Which pools get it is the driver's choice: bnxt ([294e39e0d034](" + "https://git.kernel.org/torvalds/c/294e39e0d034" + ")) and mlx5 ([a880f814739c](" + commit("a880f814739c") + ")) set `pp.napi` from 6.4; mvpp2, mvneta, cpsw and hns3 do not, in any release modelled here, so [their skb pages take the ring](nonapi), in 6.6 as in 5.14. Which frees are NAPI-safe is the caller's: {napi_consume_skb} with a non-zero budget, and the deferred free's flush ({skb_defer_free_flush}, which calls `napi_consume_skb(skb, 1)`). A plain {kfree_skb} of a dropped frame is not, so in 6.4 [mlx5's drop still takes the ring](ring64).",
			"`list_owner` is set when the NAPI is scheduled and reset to -1 by {napi_complete_done}: locality holds only while the NAPI runs. In a TCP stream the reader on cpu1 hands each consumed skb back to the NAPI CPU's defer list ({skb_attempt_defer_free}, from 5.19). The flush that follows a completing poll [finds `list_owner` = -1 and uses the ring](complete); [the flush before the next poll](local), with the NAPI scheduled again, recycles all 16 pages into the cache. Eric Dumazet's deferred free is what makes this pay for TCP: it brings the free back to the allocating CPU, in softirq, next to the pool.",
			"6.6 widened the test in {napi_pp_put_page@6.6} to `napi_safe || in_softirq()` ([4a36d0180c45](" + "https://git.kernel.org/torvalds/c/4a36d0180c45" + "), Alexander Lobakin): any free in softirq on the NAPI's CPU qualifies, and [mlx5's kfree_skb in the poll now recycles into the cache](cache66). The CPU test is what keeps the lockless cache single-CPU: with mlx5's TX completion moved to cpu1 (`tx_cpu=1`, as XPS can map a TX queue elsewhere) [its frees take the ring](txcpu); break `napi-locality` and [both CPUs touch the cache](race).",
			"Two later releases moved the line. 6.9 gave the per-CPU system page_pools ({page_pool_create_percpu@6.9}, [2b0cfa6e4956](" + commit("2b0cfa6e4956") + ")) the CPU they belong to, `pool->cpuid`, and {napi_pp_put_page@6.9} also recycles directly when the free runs in softirq on that CPU: [generic XDP's copies go back into their system pool's cache](sys69). 6.10 moved the decision into the pool ([4a96a4e807c3](" + commit("4a96a4e807c3") + "), Lobakin): {page_pool_napi_local@6.10} runs on every put that arrives without `allow_direct`, a driver's own puts and `xdp_return_frame` included, and a bulk put tries the cache first ([39806b96c89a](" + commit("39806b96c89a") + ")): the TX completion of frames redirected to a second mlx5 port (`redirect_to=1` in `xdp-redirect`) returns its batch through the ptr_ring in 6.9 and asks page_pool_napi_local in 6.10, which says local while the first port's poll is still running on that CPU. At the driver's own ring sizes (`ppsim run --scenario xdp-redirect --driver mlx5 --set redirect_to=1`, 20000 frames) that is 19968 pages into the ring in 6.9 and 19968 into the alloc cache in 6.10; at the tour's small rings the poll completes before the completion runs (`list_owner` = -1), and the batch takes the ring in 6.10 too; the `napi_safe` argument left skbuff.c. In exchange `__page_pool_put_page` stopped testing `in_softirq()` itself: `allow_direct = true` is the caller's promise. [The kernel bench run in process context](bench69) recycled through the ring in 6.9 and [into the cache in 6.10](bench610) — safe there, because nothing else touches its pool.",
		},
	},
	{
		Slug: "drivers", Title: "Drivers and their numbers",
		Lede: "The seven driver models, the measurements the model was calibrated on, and what it predicts.",
		Era:  "6.8",
		Presets: []Preset{
			{ID: "mvpp2", Q: "scenario=drop&era=rfc-v1&step=2", Caption: "mvpp2 (MacchiatoBIN), rfc-v1, op 2: the first skb-recycling driver", Expect: "mvpp2_rx"},
			{ID: "mvneta", Q: "scenario=drop&driver=mvneta&era=5.14&step=2", Caption: "mvneta (EspressoBIN), 5.14, op 2", Expect: "mvneta_rx_swbm"},
			{ID: "cpsw", Q: "scenario=tcp-stream&driver=cpsw&era=5.14&step=2", Caption: "cpsw (TI SoC), TCP receive, 5.14, op 2", Expect: "cpsw_rx_handler"},
			{ID: "lunar", Q: "scenario=forward&driver=lunar&era=5.14&step=3", Caption: "lunar (a MIPS SoC driver out of tree), NAT forwarding, 5.14, op 3", Expect: "ip_forward"},
			{ID: "mlx5", Q: "scenario=xdp-redirect&era=6.8&step=3", Caption: "mlx5, XDP_REDIRECT to a veth, 6.8, op 3: the skb built from the frame recycles", Expect: "__xdp_build_skb_from_frame"},
			{ID: "bnxt", Q: "scenario=tcp-stream&era=6.6&step=2", Caption: "bnxt, 6.6, op 2: hardware GRO over a page_pool-fed aggregation ring", Expect: "TPA"},
			{ID: "hns3", Q: "scenario=tcp-stream&driver=hns3&era=5.15&step=2", Caption: "hns3 (Kunpeng), TCP receive, 5.15, op 2", Expect: "hns3_clean_rx_ring"},
		},
		Paras: []string{
			"Seven driver models run the same page_pool and skb core, each fed as its kernel driver feeds it (engine/drivers/spec.go says what each takes from its driver). The two Marvell drivers were the first users of skb recycling: [mvpp2](mvpp2) on the Armada 8040 refills one page per frame in {mvpp2_rx}; [mvneta](mvneta) on the Armada 3720 ({mvneta_rx_swbm@5.14}) adds multi-buffer frames as frags and has non-coherent DMA, where cache invalidation dominates. TI's [cpsw](cpsw) ({cpsw_rx_handler@5.14}) receives through its spinlock-heavy CPDMA channel and calls `netif_receive_skb` (no GRO). [lunar](lunar) is a work-in-progress 1G driver for a 32-bit MIPS SoC, outside the kernel tree; the model forwards NAT traffic through it.",
			"Three server NICs complete the set. [mlx5](mlx5) kept its own RX page cache in front of the pool until 6.4, when Dragos Tatulea's series removed it ([08c9b61b071c](" + commit("08c9b61b071c") + ")), let the pool map the pages ([4a5c5e25008f](" + "https://git.kernel.org/torvalds/c/4a5c5e25008f" + ")), marked skbs for recycling ([6f5742846053](" + "https://git.kernel.org/torvalds/c/6f5742846053" + ")) and set `pp.napi` ([a880f814739c](" + commit("a880f814739c") + ")); an XDP_REDIRECT into a veth builds its skb from the frame with {__xdp_build_skb_from_frame}, which recycles from 6.4 ([9c94bbf9a87b](" + "https://git.kernel.org/torvalds/c/9c94bbf9a87b" + ")). [bnxt](bnxt) used page_pool only in XDP page mode before 6.6; from 6.6 its pool feeds an aggregation ring that hardware GRO fills, in the model 33 segments to an skb without a frag_list (engine/drivers/spec.go derives the number from `bnxt_hwrm_vnic_set_tpa`). [hns3](hns3) ({hns3_clean_rx_ring@5.15}) is the frag API's first user (chapter 5).",
			"The model's costs are calibrated, not guessed: engine/perf/calibrate.go derives each platform's cycle table from measured perf profiles (the profile's listed symbols at their measured share, the rest of the stack solved from the rates) and Jesper Brouer's page_pool micro-benchmark (`bench_page_pool_simple`, an out-of-tree module in his prototype-kernel repository). The training pairs come out as measured by construction; the 5.13 rows check the model against profiles it was not fitted to (a later version of the series, measured before its change on a bulk-refill base); the last rows are `ppsim predict`: the model's run before and after the change, carried over to a profile measured without it. For cpsw the patch that made the change also measured its result, 742 Mbit/s (the sender's figure, as in the profile): less than the model predicts. The tour's tests recompute every model number in the table from the engine.",
		},
		Numbers: []Number{
			{What: "page_pool bench 01_fast_path (alloc + page_pool_recycle_direct), per pair", Check: "pair pool-direct", Measured: "4.041 ns", Model: "3.89 ns", Source: "Brouer 2023, E5-1650 v4, tasklet"},
			{What: "page_pool bench 02_ptr_ring (alloc + put through the ring), per pair", Check: "pair pool-ring", Measured: "13.622 ns", Model: "13.61 ns", Source: "Brouer 2023, E5-1650 v4, tasklet"},
			{What: "page_pool bench 03_slow (every page from the page allocator), per pair", Check: "pair pool-slow", Measured: "45.198 ns", Model: "44.99 ns", Source: "Brouer 2023, E5-1650 v4, tasklet"},
			{What: "mvpp2, drop 64 B, 5.12 → rfc-v1 (training pair)", Check: "rate drop mvpp2 5.12 rfc-v1", Measured: "962 → 2047 kpps", Model: "961.5 → 2046.1 kpps", Source: "mvpp2-v1-before, mvpp2-v1-after"},
			{What: "mvneta, drop 64 B, 5.12 → rfc-v1 (training pair)", Check: "rate drop mvneta 5.12 rfc-v1", Measured: "269 → 296 kpps", Model: "269.1 → 296.0 kpps", Source: "mvneta-v1-before, mvneta-v1-after"},
			{What: "mvpp2, drop 64 B, bulk refill without skb recycling (5.13)", Check: "rate drop mvpp2 5.13", Measured: "1110 kpps", Model: "1096.1 kpps", Source: "mvpp2-v7-before (not fitted)"},
			{What: "mvneta, drop 64 B, bulk refill without skb recycling (5.13)", Check: "rate drop mvneta 5.13", Measured: "296 kpps", Model: "280.2 kpps", Source: "mvneta-v7-before (not fitted)"},
			{What: "cpsw, iperf3 TCP receive, adding skb recycling (5.13 → 5.14)", Check: "predict cpsw-before 732 mbps skb-recycle", Measured: "732 Mbit/s before, 742 after", Model: "774.2 Mbit/s predicted", Source: "cpsw-before; after: Bianconi's \"net: ti: add pp skb recycling support\" <fa2ec166605fc2a60d9ed5e74bc349bd1e322b8d.1623763509.git.lorenzo@kernel.org>; ppsim predict --change skb-recycle"},
			{What: "lunar, NAT forwarding (UDP), adding skb recycling (5.12 → 5.14)", Check: "predict lunar-baseline 615 mbps skb-recycle", Measured: "615 Mbit/s before", Model: "660.9 Mbit/s predicted", Source: "lunar-baseline; ppsim predict --change skb-recycle"},
		},
		NumbersNote: "Measured: bench_page_pool_simple's figures as Jesper Brouer posted them (Jun 2023, <b28b0e3e-87e4-5a02-c172-2d1424405a5a@redhat.com>), and the rates in the headers of the perf profiles shipped in engine/perf/profiles. Model: ppsim run at the kernel's sizes, 10^6 packets (the bench rows: ns per alloc + free pair), and ppsim predict from the named profile.",
	},
}
