package sim

// SignatureCheck is the test the era's kernel uses to tell a page_pool page
// from any other page (the skb free path's check before it hands a page to
// its pool; the page inspector and the narration show it), derived from the
// era's flags; "" when the era's pages carry no page_pool mark (5.12, 5.13:
// no skb recycling, so nothing tests for one).
//   - rfc-v1: the RFC's own word, compared plainly (page->signature; "[PATCH
//     net-next 0/6] page_pool: recycle buffers",
//     <20210322170301.26017-1-mcroce@linux.microsoft.com>).
//   - 5.14 … 6.15: pp_magic with its low two bits masked, so the
//     pfmemalloc bit does not hide the signature (0fa32ca438b4 "page_pool:
//     mask the page->signature before the checking", v5.14-rc6).
//   - 6.16 on: PP_MAGIC_MASK = ~(PP_DMA_INDEX_MASK | 0x3) also masks the
//     DMA index that ee62ce7a1d90 stores in pp_magic; cd3c93167da0
//     "page_pool: Move pp_magic check into helper functions" (v6.16) put
//     the test into netmem_is_pp()/page_pool_page_is_pp().
//   - 7.1-rc1: the page type, PageNetpp() (PGTY_netpp, db359fccf212);
//     reverted in 7.1-rc6 (54cf41c969da), so 7.1 tests pp_magic again.
func (e *Era) SignatureCheck() string {
	switch {
	case e.SkbRecycle == SkbRecycleNone:
		return ""
	case e.SkbRecycle == SkbRecycleRFC:
		return "page->signature == PP_SIGNATURE"
	case e.PageType:
		return "PageNetpp(page)"
	case e.DMATracking:
		return "(page->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE"
	case e.MaskedSignature:
		return "(page->pp_magic & ~0x3UL) == PP_SIGNATURE"
	}
	return "page->pp_magic == PP_SIGNATURE"
}
