package app

import ga "github.com/maxence-charriere/go-app/v10/pkg/app"

// The glossary: the terms the machine view abbreviates, each a tooltip
// where it appears (hover or keyboard focus) and an entry of the legend's
// "what the marks mean".
const (
	glossNid      = "nid: the NUMA node the pool allocates from. -1 is NUMA_NO_NODE: the pool follows the node of the CPU that refills it (page_pool_update_nid moves it)."
	glossInflight = "hold counts the pages the pool took from the page allocator (pages_state_hold_cnt), release those that came back to the page allocator (pages_state_release_cnt); inflight = hold − release: pages the pool still answers for, wherever they are."
	glossMarks    = "On a ptr_ring, P is the producer (the next put writes here) and C is consumer_head (the next refill takes here). On a NIC RX ring, N is the next descriptor the NIC fills and F the next one the driver refills."
	glossBias     = "B−n on a tile: the page's pp_frag_count (pp_ref_count from 6.8) is n below BIAS_MAX, the large bias the frag API starts from so that each user subtracts its share."
	glossStale    = "A hatched ring slot is stale: ptr_ring consumed its page but zeroes slots lazily, in batches, so the slot still points at the old page. It is not ring contents."
	glossUsers    = "users (in the page inspector): how many live skbs and posted RX descriptors use the page; a page with users must never be back in a pool or the page allocator."
)

// glossary is the legend's list of what the marks mean; prefix is the
// machine's id prefix (Machine.ID: "" for the playground's #glossary).
func glossary(prefix string) ga.UI {
	items := []struct{ term, text string }{
		{"nid -1", glossNid}, {"hold / release / inflight", glossInflight}, {"P C N F", glossMarks},
		{"B−n", glossBias}, {"stale slot", glossStale}, {"users", glossUsers},
	}
	var lis []ga.UI
	for _, it := range items {
		lis = append(lis, ga.Li().Body(ga.Dfn().Text(it.term), ga.Text(": "+it.text)))
	}
	return ga.Details().ID(prefix+"glossary").Class("glossary").Body(
		ga.Summary().Text("what the marks mean"),
		ga.Ul().Class("plain").Body(lis...),
	)
}

// gloss is a term with its explanation as a tooltip that also shows on
// keyboard focus (app.css: abbr.gloss:focus::after).
func gloss(term, text string) ga.UI {
	return ga.Abbr().Class("gloss").Title(text).TabIndex(0).Text(term)
}
