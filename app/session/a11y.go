package session

import (
	"fmt"
	"slices"
	"strconv"

	"pplab/engine/lab"
)

// For every reader: the figures' text equivalents (tables of the machine's
// places and counts, the charts' data) and the sentence the page's live
// region says. The tables are built only while their <details> is open
// (OpenTable): a closed one costs a step nothing.

// The text tables a page can open.
const (
	TableMachine = iota // the machine's places and counts
	TableCharts         // the charts' data
	TableYNL            // the run's pools as ynl shows them (ynl.go)
	numTextTables
)

// TextTable is one table of text: a caption, column heads and rows of
// cells (each row as long as Head).
type TextTable struct {
	ID      string
	Caption string
	Head    []string
	Rows    [][]string
	Empty   string // said instead of the rows when there are none
}

// PlaceLegend names the places a page can be, in the order the legend
// and the tables show them.
var PlaceLegend = []struct{ Place, Text string }{
	{"cache", "pool alloc cache"}, {"ring", "pool ptr_ring"}, {"nic-ring", "NIC RX descriptor"},
	{"skb", "in an skb (stack)"}, {"socket", "socket / tap queue"}, {"tx-ring", "TX ring"},
	{"xdp-frame", "XDP frame"}, {"driver", "held by the caller"}, {"driver-cache", "the driver's own RX page cache (mlx5e_rx_cache, before 6.4)"},
	{"slab", "slab page"}, {"user", "a net_iov the application holds (dma-buf token, devmem)"},
}

// SKBGroups are the places an skb can be, in the order the machine and
// the tables show them.
var SKBGroups = []struct{ Where, Text string }{
	{"stack", "being processed (driver, GRO, protocols)"}, {"socket", "socket receive queue"},
	{"tx-ring", "TX ring, awaiting completion"}, {"tap", "AF_PACKET tap queue (clones)"}, {"defer-list", "defer list (skb_attempt_defer_free)"},
}

// OpenTable opens or closes text table which (TableMachine, TableCharts).
func (s *Session) OpenTable(which int, open bool) {
	if which < 0 || which >= numTextTables {
		return
	}
	if s.tablesOpen[which] != open {
		s.tablesOpen[which], s.dirty = open, true
	}
}

func (s *Session) a11yView(v *View) {
	v.Live = s.liveText()
	if s.tablesOpen[TableMachine] {
		v.MachineTables = MachineTables(&s.snap)
	}
	if s.tablesOpen[TableCharts] {
		cmpName := ""
		if s.cmp != nil {
			cmpName = v.Charts.CmpName
		}
		v.ChartTables = ChartTables(s.series, "era "+s.snap.Era, s.results.Profile, s.cmpSeries, cmpName, s.cmpResult.Profile)
	}
}

// liveText is the live region's sentence: the operation shown, once per
// step taken by hand; while playing only that it plays (the same text on
// every frame, so that nothing is announced until play stops).
func (s *Session) liveText() string {
	if s.playing {
		return "playing at " + Speeds[s.speed].Label + "; pause (Space) to hear where it is"
	}
	op := s.snap.Op
	var t string
	switch {
	case op == 0:
		t = "op 0: nothing run yet"
	case s.hasRec && s.rec.Op.Index+1 == op:
		r := &s.rec
		t = fmt.Sprintf("op %d on cpu%d: %s — %s", op, r.Op.CPU, lab.Source(s.snap.Era, s.driver(), r.Op.Func).Name, r.Op.Label)
		if n := len(r.Moves); n > 0 {
			t += fmt.Sprintf("; %d page move(s)", n)
		}
		if n := len(r.Violations); n > 0 {
			t += fmt.Sprintf("; %d violation(s) found", n)
		}
	default:
		t = fmt.Sprintf("at op %d, %d packets", op, s.snap.Packets)
	}
	if s.snap.Done {
		t += "; the run is complete"
	}
	return t
}

// MachineTables are the machine drawing as text: its structures with
// their counts, and the pages by place.
func MachineTables(snap *lab.Snapshot) []TextTable {
	st := TextTable{ID: "table-structures", Caption: "the machine's structures", Head: []string{"structure", "count", "of"}}
	add := func(what string, n int, of string) {
		st.Rows = append(st.Rows, []string{what, strconv.Itoa(n), of})
	}
	for node, free := range snap.FreePerNode {
		add(fmt.Sprintf("page allocator, node %d: free pages", node), free, "")
	}
	for _, p := range snap.Pools {
		stale := 0
		for _, r := range p.Ring {
			if r.PFN >= 0 && r.Stale {
				stale++
			}
		}
		add(fmt.Sprintf("page_pool #%d alloc cache: pages", p.ID), len(p.Cache), "128 slots")
		add(fmt.Sprintf("page_pool #%d ptr_ring: pages queued", p.ID), p.RingCount,
			fmt.Sprintf("%d slots; producer %d, consumer %d; %d stale slots", len(p.Ring), p.Producer, p.ConsumerHead, stale))
		add(fmt.Sprintf("page_pool #%d in flight", p.ID), int(p.Inflight), fmt.Sprintf("hold %d − release %d", p.Hold, p.Release))
		if p.FragPFN >= 0 {
			add(fmt.Sprintf("page_pool #%d frag page (pool->frag_page)", p.ID), 1, fmt.Sprintf("pfn %#x: the next fragment comes from it", p.FragPFN))
		}
	}
	if n := snap.NIC; n != nil {
		ring, slots := "RX ring", "descriptors"
		if n.Agg {
			ring, slots = "aggregation ring", "buffers"
		}
		add(fmt.Sprintf("NIC %s (%s): %s posted", ring, n.Driver, slots), n.Posted,
			fmt.Sprintf("%d %s; the NIC fills %d next, the driver refills %d next", len(n.Descs), slots, n.Next, n.Fill))
	}
	if c := snap.RxCache; c != nil {
		add("the driver's RX page cache: pages", len(c.Pages), fmt.Sprintf("%d slots", c.Size-1))
	}
	for _, g := range SKBGroups {
		n, refs := 0, 0
		for _, k := range snap.SKBs {
			if k.Where == g.Where {
				n++
				refs += len(k.Frags)
				if k.HeadPFN >= 0 && !k.SlabHead {
					refs++
				}
			}
		}
		if n > 0 {
			add("sk_buffs "+g.Text, n, fmt.Sprintf("%d page references", refs))
		}
	}
	counts := map[string]int{}
	for _, p := range snap.Pages {
		counts[p.Place]++
	}
	pl := TextTable{ID: "table-places", Caption: "pages by place (every page not free)", Head: []string{"place", "pages"}, Empty: "no page is out of the page allocator"}
	for _, l := range PlaceLegend {
		if n := counts[l.Place]; n > 0 {
			pl.Rows = append(pl.Rows, []string{l.Text, strconv.Itoa(n)})
			delete(counts, l.Place)
		}
	}
	var rest []string
	for place := range counts {
		rest = append(rest, place)
	}
	slices.Sort(rest)
	for _, place := range rest {
		pl.Rows = append(pl.Rows, []string{place, strconv.Itoa(counts[place])})
	}
	return []TextTable{st, pl}
}

// ChartTables are the charts' data as tables: the throughput points (the
// run's, then the comparison's), the recycle-path mix per window (merged
// as the chart merges them) and the cost breakdown.
func ChartTables(main []lab.SeriesPoint, mainName string, mainProf []lab.ProfileEntry, cmp []lab.SeriesPoint, cmpName string, cmpProf []lab.ProfileEntry) []TextTable {
	const noWindow = "no measured window yet"
	tp := func(id, name string, s []lab.SeriesPoint) TextTable {
		t := TextTable{ID: id, Caption: "throughput over simulated time: " + name, Head: []string{"simulated µs", "packets", "kpps"}, Empty: noWindow}
		for _, p := range s {
			t.Rows = append(t.Rows, []string{strconv.FormatFloat(float64(p.TimeNS)/1000, 'f', 1, 64), strconv.FormatInt(p.Packets, 10), strconv.FormatFloat(round1(p.Kpps), 'f', 1, 64)})
		}
		return t
	}
	out := []TextTable{tp("table-throughput", mainName, main)}
	if cmpName != "" {
		out = append(out, tp("table-throughput-cmp", cmpName, cmp))
	}
	mix := TextTable{ID: "table-mix", Caption: "recycle-path mix per window (pages): cached + ring + released; cache_full ⊂ ring, ring_full ⊂ released",
		Head: []string{"packets", "cached", "ring", "released", "cache_full", "ring_full"}, Empty: noWindow}
	for _, p := range mergeWindows(main, mixBars) {
		u := func(n uint64) string { return strconv.FormatUint(n, 10) }
		mix.Rows = append(mix.Rows, []string{strconv.FormatInt(p.Packets, 10), u(p.Mix.Cached), u(p.Mix.Ring), u(p.Mix.Released), u(p.Mix.CacheFull), u(p.Mix.RingFull)})
	}
	out = append(out, mix)
	prof := TextTable{ID: "table-profile", Caption: "cost breakdown (perf top): share of simulated CPU time per symbol, %", Head: []string{"symbol", mainName}, Empty: noWindow}
	if cmpName != "" {
		prof.Head = append(prof.Head, cmpName)
	}
	if len(main) > 0 { // before the first window the profile is set-up only (as the chart)
		const top = 12
		cmpPct := map[string]float64{}
		for _, e := range cmpProf {
			cmpPct[e.Symbol] = e.Pct
		}
		for i, e := range mainProf {
			if i == top {
				break
			}
			row := []string{e.Symbol, strconv.FormatFloat(e.Pct, 'f', 2, 64)}
			if cmpName != "" {
				row = append(row, strconv.FormatFloat(cmpPct[e.Symbol], 'f', 2, 64))
			}
			prof.Rows = append(prof.Rows, row)
		}
	}
	return append(out, prof)
}
