package sim

// Rule is a kernel rule that a run may break on purpose (--break) to see the
// failure it prevents (`ppsim list` names each rule and its violation kinds).
type Rule uint8

const (
	RuleNone Rule = iota
	RuleCoalescePPGuard
	RuleCoalesceClonedGuard
	RuleSignatureCheck
	RuleLastDataref
	RuleRefcntCheck
	RuleFragCount
	RuleNAPILocality
	RulePfmemallocCheck
	RuleBulkMapError
	RuleBulkDMAUnmap
	RuleReleaseProducerBarrier
	RuleDMAMappedCmpxchg
	RuleFragsReadable
	NumRules
)

// RuleInfo describes a breakable rule.
type RuleInfo struct {
	Name     string
	Prevents string
	Kinds    []Kind // the violation kinds breaking it produces
	Layer    string // the engine package that enforces it
	// Enforcer is the modelled kernel function whose test the rule is (its
	// name and file per era: Sym.NameIn, and lab.Source's links).
	Enforcer Sym
	// Intact says what the kernel does at that test when the rule holds:
	// what would have happened instead of the violation.
	Intact string
}

var ruleInfo = [NumRules]RuleInfo{
	RuleNone:                   {Name: "none"},
	RuleCoalescePPGuard:        {"coalesce-pp-guard", "mixing page_pool and non-page_pool memory in one skb via skb_try_coalesce", []Kind{KindInflightLeak, KindForeignPageInPool}, "skb", SymSkbTryCoalesce, "skb_try_coalesce would have refused to merge the two skbs, because their pp_recycle bits differ (to->pp_recycle != from->pp_recycle): each skb is freed by its own rules, so no page_pool page is put_page'd behind the pool's back and no plain page is handed to a pool"},
	RuleCoalesceClonedGuard:    {"coalesce-cloned-guard", "coalescing into/from cloned skbs", []Kind{KindUseAfterRecycle, KindDoubleRecycle}, "skb", SymSkbTryCoalesce, "skb_try_coalesce would have refused: a cloned `to` is never extended, and from 1effe8ca4e34 (5.15.y) a cloned page_pool `from` is refused too (0646dc31ca88, v6.3, tightened it), and from 6.8 (f7dc3248dcfb) `to` instead takes a pp reference on each frag of a cloned page_pool `from`, so no page's frag count or reference is dropped twice, once by the clone and once by the queue's skb"},
	RuleSignatureCheck:         {"signature-check", "recycling a page the pool never allocated", []Kind{KindForeignPageInPool}, "pagepool", SymReturnSkbPage, "the skb free path would have checked the page's page_pool signature ((pp_magic & ~0x3) == PP_SIGNATURE; from 6.16 PP_MAGIC_MASK also masks the DMA index bits; PageNetpp(page) in 7.1-rc1; page->signature in the RFC) and, finding none, returned false, and the page would have been put_page'd like any page the pool never allocated"},
	RuleLastDataref:            {"last-dataref", "two clones both recycling the shared head", []Kind{KindDoubleRecycle, KindUseAfterRecycle}, "skb", SymReleaseData, "skb_release_data would have dropped only this clone's reference to the shared data (shinfo->dataref) and returned while another clone still used it: only the last reference unrefs the frags and frees or recycles the head, once"},
	RuleRefcntCheck:            {"refcnt-check", "recycling a page someone still holds a reference to", []Kind{KindUseAfterRecycle}, "pagepool", SymPutPage, "__page_pool_put_page would have seen page_ref_count(page) != 1, someone else still holding the page, and given it up instead of recycling it: unmapped, released from the pool's accounting (pages_state_release_cnt; the released_refcnt counter from 5.18) and put_page'd, so the other holder keeps a page the NIC will not write into"},
	RuleFragCount:              {"frag-count", "recycling a split page while the other half is still in use", []Kind{KindUseAfterRecycle}, "pagepool", SymPutPage, "page_pool_put_page would have dropped this user from the page's pp_frag_count (the frag API, 5.15; pp_ref_count, on every page, from 6.8) and stopped there while the other half was still in use: only the page's last user recycles it"},
	RuleNAPILocality:           {"napi-locality", "two CPUs touching the lockless alloc cache", []Kind{KindCacheRace}, "pagepool", SymReturnSkbPage, "the skb free path would have allowed direct recycling only on the CPU that owns the pool's NAPI (napi->list_owner == smp_processor_id(), v6.4): a free on another CPU goes through the ptr_ring under its producer lock and never touches the lockless alloc cache"},
	RulePfmemallocCheck:        {"pfmemalloc-check", "keeping emergency-reserve pages in the pool", []Kind{KindReservePageRetained}, "pagepool", SymPutPage, "__page_pool_put_page would have seen page_is_pfmemalloc(page) and given the page up instead of recycling it: an emergency-reserve page goes back to the page allocator, never into the pool's cache or ring"},
	RuleBulkMapError:           {"bulk-map-error", "slow path returning NULL after a mapping failure although pages were cached", []Kind{KindAllocFailureWithCache}, "pagepool", SymAllocPagesSlow, "the merged bulk refill (__page_pool_alloc_pages_slow, v5.13) maps each page in its loop, put_page's one whose mapping failed and goes on, then returns a page from the alloc cache: NULL only when no page could be mapped"},
	RuleBulkDMAUnmap:           {"bulk-dma-unmap", "freeing a still-mapped page when the cache is full during bulk refill", []Kind{KindDMALeak}, "pagepool", SymAllocPagesSlow, "the merged bulk refill lets alloc_pages_bulk_array fill the alloc cache itself, with at most the room it has, so every page it maps has a slot: the patch Alexander Duyck reviewed (12 March 2021) took an unbounded list and put_page'd a page it had mapped when the cache was full, leaving its DMA mapping behind"},
	RuleReleaseProducerBarrier: {"release-producer-barrier", "freeing the pool while a CPU is still inside page_pool_recycle_in_ring", []Kind{KindPoolUseAfterFree}, "pagepool", SymPoolRelease, "page_pool_release would have taken and dropped the ring's producer lock before freeing the pool (271683bb2cf3, v6.16), so a CPU that had just produced the pool's last page into the ring finishes its unlock and its recycle stat first; and that stat is counted inside the lock"},
	RuleDMAMappedCmpxchg:       {"dma-mapped-cmpxchg", "unmapping a page that page_pool_scrub already unmapped at destroy", []Kind{KindDMAUnmapAfterUnbind}, "pagepool", SymDMAIndexRelease, "__page_pool_unmap_netmem_dma would have xa_cmpxchg'ed the page's dma_mapped slot and found it empty, because page_pool_scrub unmapped the page at destroy (ee62ce7a1d90, v6.16): only the winner of the slot unmaps, so a page returned after the driver unbound skips dma_unmap_page_attrs"},
	RuleFragsReadable:          {"frags-readable", "the CPU reading a payload frag that lives in device memory (a net_iov)", []Kind{KindUnreadableRead}, "skb", SymSkbCopyBits, "skb_copy_bits (and tcp_recvmsg without MSG_SOCK_DEVMEM) would have seen !skb_frags_readable(skb) and returned -EFAULT (65249feb6b3d, v6.12): an unreadable frag is handed to the user as a dma-buf token, never copied"},
}

// Info returns the rule's description.
func (r Rule) Info() RuleInfo { return ruleInfo[r] }

func (r Rule) String() string { return ruleInfo[r].Name }

// AllRules lists the breakable rules (RuleNone excluded).
func AllRules() []Rule {
	out := make([]Rule, 0, NumRules-1)
	for r := RuleNone + 1; r < NumRules; r++ {
		out = append(out, r)
	}
	return out
}

// RuleNames lists the names of the breakable rules.
func RuleNames() []string { return Names(AllRules(), Rule.String) }

// RuleByName resolves a rule name, or returns an error naming the accepted values.
func RuleByName(name string) (Rule, error) {
	return ByName("break", "rule", AllRules(), Rule.String, name)
}

// RuleSet is a set of broken rules.
type RuleSet uint32

// With returns the set with r broken.
func (s RuleSet) With(r Rule) RuleSet { return s | 1<<r }

// Broken reports whether r is broken in this run.
func (s RuleSet) Broken(r Rule) bool { return s&(1<<r) != 0 }

// Names lists the broken rules' names.
func (s RuleSet) Names() []string {
	var out []string
	for _, r := range AllRules() {
		if s.Broken(r) {
			out = append(out, r.String())
		}
	}
	return out
}

// RuleFor returns the broken rule that lists kind among the failures it
// prevents, or RuleNone: lower layers detect a failure without knowing which
// rule was removed, and attribute it this way.
func (m *Machine) RuleFor(kind Kind) Rule {
	for _, r := range AllRules() {
		if !m.Rules.Broken(r) {
			continue
		}
		for _, k := range ruleInfo[r].Kinds {
			if k == kind {
				return r
			}
		}
	}
	return RuleNone
}
