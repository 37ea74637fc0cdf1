package session

import (
	"strconv"
	"strings"
	"testing"
)

// cell is the value of the row whose first cell starts with what, column col.
func cell(t *testing.T, tb TextTable, what string, col int) string {
	t.Helper()
	for _, r := range tb.Rows {
		if len(r) != len(tb.Head) {
			t.Fatalf("%s: row %q has %d cells, the head %d", tb.ID, r, len(r), len(tb.Head))
		}
		if strings.HasPrefix(r[0], what) {
			return r[col]
		}
	}
	t.Fatalf("%s: no row %q in %q", tb.ID, what, tb.Rows)
	return ""
}

// The machine's text equivalent says what the drawing shows: every
// structure's count and every page by place; it is built only while open.
func TestA11y_TheMachineAsTables(t *testing.T) {
	s := New(query(t, "v=1&scenario=tcp-stream&era=6.4&rx_descs=16&pool_size=32&node_pages=2048&step=137"), nil)
	if v := s.View(); v.MachineTables != nil || v.ChartTables != nil {
		t.Fatal("closed tables are built")
	}
	s.OpenTable(TableMachine, true)
	v := verify(t, s, "machine table open")
	if len(v.MachineTables) != 2 {
		t.Fatalf("%d machine tables", len(v.MachineTables))
	}
	snap := s.Lab().Snapshot()
	st, pl := v.MachineTables[0], v.MachineTables[1]
	p := snap.Pools[0]
	if got := cell(t, st, "page_pool #1 alloc cache", 1); got != strconv.Itoa(len(p.Cache)) {
		t.Errorf("alloc cache %s, want %d", got, len(p.Cache))
	}
	if got := cell(t, st, "page_pool #1 ptr_ring", 1); got != strconv.Itoa(p.RingCount) {
		t.Errorf("ptr_ring %s, want %d", got, p.RingCount)
	}
	if got := cell(t, st, "page_pool #1 in flight", 1); got != strconv.Itoa(int(p.Inflight)) {
		t.Errorf("inflight %s, want %d", got, p.Inflight)
	}
	if got := cell(t, st, "NIC RX ring", 1); got != strconv.Itoa(snap.NIC.Posted) {
		t.Errorf("NIC posted %s, want %d", got, snap.NIC.Posted)
	}
	if got := cell(t, st, "page allocator, node 0", 1); got != strconv.Itoa(snap.FreePerNode[0]) {
		t.Errorf("free %s, want %d", got, snap.FreePerNode[0])
	}
	sum, byPlace := 0, map[string]int{}
	for _, pg := range snap.Pages {
		byPlace[pg.Place]++
	}
	for _, r := range pl.Rows {
		n, _ := strconv.Atoi(r[1])
		sum += n
	}
	if sum != len(snap.Pages) {
		t.Errorf("pages by place sum to %d, the run has %d pages out", sum, len(snap.Pages))
	}
	if got := cell(t, pl, "pool alloc cache", 1); got != strconv.Itoa(byPlace["cache"]) {
		t.Errorf("pages in the cache %s, want %d", got, byPlace["cache"])
	}
	s.OpenTable(TableMachine, false)
	if v := s.View(); v.MachineTables != nil {
		t.Error("a closed table is still built")
	}
}

// The charts' data as tables: a row per throughput point (the run's and
// the comparison's), the mix per window and the profile's top symbols.
func TestA11y_TheChartsAsTables(t *testing.T) {
	s := New(query(t, "v=1&scenario=drop&rx_descs=16&pool_size=32&node_pages=2048&step=3000&cmp=era%3A5.12"), nil)
	s.CompareSlice(0) // the comparison runs in the background: one slice
	s.OpenTable(TableCharts, true)
	v := s.View()
	ids := map[string]TextTable{}
	for _, tb := range v.ChartTables {
		ids[tb.ID] = tb
	}
	tp, cmp, mix, prof := ids["table-throughput"], ids["table-throughput-cmp"], ids["table-mix"], ids["table-profile"]
	if len(tp.Rows) == 0 || len(tp.Rows) != len(s.series) {
		t.Errorf("throughput: %d rows for %d points", len(tp.Rows), len(s.series))
	}
	if len(cmp.Rows) == 0 || !strings.Contains(cmp.Caption, "5.12") {
		t.Errorf("comparison throughput: %d rows, caption %q", len(cmp.Rows), cmp.Caption)
	}
	if last := s.series[len(s.series)-1]; tp.Rows[len(tp.Rows)-1][1] != strconv.FormatInt(last.Packets, 10) {
		t.Errorf("the last throughput row %q, the last point at %d packets", tp.Rows[len(tp.Rows)-1], last.Packets)
	}
	if len(mix.Rows) == 0 || len(mix.Rows) > mixBars {
		t.Errorf("mix: %d rows", len(mix.Rows))
	}
	if len(prof.Rows) == 0 || len(prof.Head) != 3 || prof.Rows[0][0] != s.results.Profile[0].Symbol {
		t.Errorf("profile: head %q, rows %q", prof.Head, prof.Rows)
	}
	// Before the first window the tables say so.
	s = New(nil, nil)
	s.OpenTable(TableCharts, true)
	for _, tb := range s.View().ChartTables {
		if len(tb.Rows) != 0 || tb.Empty == "" {
			t.Errorf("%s at op 0: %d rows, empty text %q", tb.ID, len(tb.Rows), tb.Empty)
		}
	}
}

// The live region's sentence: each step taken by hand, once; while
// playing the same text frame after frame; where play stopped.
func TestA11y_TheLiveRegionSaysAStepOnce(t *testing.T) {
	s := New(nil, nil)
	if v := s.View(); v.Live != "op 0: nothing run yet" {
		t.Errorf("at op 0: %q", v.Live)
	}
	s.Step()
	if v := s.View(); !strings.HasPrefix(v.Live, "op 1 on cpu0: ") || !strings.Contains(v.Live, v.Narration.Rec.Op.Label) {
		t.Errorf("after a step: %q", v.Live)
	}
	s.TogglePlay(1)
	playing := s.View().Live
	texts := map[string]bool{}
	ts := 1.0
	for i := 0; i < 60; i++ {
		ts += 16.7
		if r := s.Frame(ts); r.Draw {
			texts[s.View().Live] = true
		}
	}
	if s.Lab().Ops() < 3 {
		t.Fatalf("play ran to op %d", s.Lab().Ops())
	}
	if len(texts) != 1 || !texts[playing] || !strings.HasPrefix(playing, "playing at ") {
		t.Errorf("while playing the live text was %v (at the start %q)", texts, playing)
	}
	s.TogglePlay(ts)
	if v := s.View(); !strings.HasPrefix(v.Live, "op "+strconv.FormatUint(s.Lab().Ops(), 10)+" ") && !strings.HasPrefix(v.Live, "at op "+strconv.FormatUint(s.Lab().Ops(), 10)) {
		t.Errorf("paused at op %d: %q", s.Lab().Ops(), v.Live)
	}
}
