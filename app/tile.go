package app

import (
	"fmt"
	"strconv"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/engine/lab"
)

// tile renders one page as a small square: its colour says where the page
// is (the legend names the places), its badge its refcount and, when it is
// split, its frag count. It is a button: Enter or a click opens the page in
// the inspector.
func tile(p lab.PageView, changed, selected bool, note string) ga.UI {
	cls := "tile place-" + p.Place
	if changed {
		cls += " changed"
	}
	if selected {
		cls += " selected"
	}
	if p.Pfmemalloc {
		cls += " pfmemalloc"
	}
	label := fmt.Sprintf("page pfn %#x: %s (%s %d), refcount %d", p.PFN, p.Place, p.Holder.Kind, p.Holder.ID, p.Ref)
	if fc := fragText(p.FragCount); fc != "" {
		label += ", frag count " + fc
	}
	if note != "" {
		label += ", " + note
	}
	if changed {
		label += " — moved in the last step"
	}
	pfn := p.PFN
	kids := []ga.UI{ga.Span().Class("ref").Text(strconv.Itoa(int(p.Ref)))}
	if fc := fragText(p.FragCount); fc != "" && p.FragCount != 1 {
		kids = append(kids, ga.Span().Class("frag").Text(fc))
	}
	return ga.Button().Class(cls).Title(label).Aria("label", label).DataSet("pfn", pfn).
		OnClick(func(ctx ga.Context, e ga.Event) { ctx.NewActionWithValue(actSelect, pfn) }).Body(kids...)
}

// emptySlot is a slot with no page.
func emptySlot(what string) ga.UI {
	return ga.Span().Class("slot").Title(what).Aria("hidden", "true")
}

// staleSlot is a ptr_ring slot that still points at a consumed page (lazy
// zeroing): not ring contents.
func staleSlot(pfn int32) ga.UI {
	return ga.Span().Class("slot stale").Title(fmt.Sprintf("stale slot: still points at pfn %#x, consumed, not yet zeroed (ptr_ring zeroes in batches)", pfn))
}

// fragText shows pp_frag_count / pp_ref_count readably: small counts as
// numbers, counts near BIAS_MAX as "B−n".
func fragText(c int64) string {
	switch {
	case c == 0:
		return ""
	case c < 1<<20:
		return strconv.FormatInt(c, 10)
	}
	// BIAS_MAX is LONG_MAX (or LONG_MAX>>1 from 6.8): show the distance.
	for _, bias := range []int64{int64(^uint64(0) >> 1), int64(^uint64(0) >> 2)} {
		if d := bias - c; d >= 0 && d < 1<<20 {
			return "B−" + strconv.FormatInt(d, 10)
		}
	}
	return strconv.FormatInt(c, 10)
}

// pageIndex maps PFNs to their views.
func pageIndex(s []lab.PageView) map[int32]lab.PageView {
	m := make(map[int32]lab.PageView, len(s))
	for _, p := range s {
		m[p.PFN] = p
	}
	return m
}
