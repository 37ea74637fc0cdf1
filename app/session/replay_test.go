package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	rp "pplab/engine/replay"
)

func TestReplayExamples_RealCaptureFirst(t *testing.T) {
	ex := ReplayExamples()
	if len(ex) == 0 || ex[0].Name != "veth-6.18-capture" || ex[0].Synthetic || !strings.Contains(ex[0].Label, "recorded on a 6.18 machine") {
		t.Fatalf("examples: %+v", ex)
	}
	for _, e := range ex {
		if strings.Contains(e.Name, "synthetic") != e.Synthetic || e.Synthetic && !strings.Contains(e.Label, "synthetic") {
			t.Errorf("%s labelled %q (synthetic %v)", e.Name, e.Label, e.Synthetic)
		}
	}
}

// TestReplay_SummaryIsTheCLIs: for every example the page's summary is
// replay.New(…).Summary(), the text ppsim replay FILE prints
// (replay.Stream(…).Summary()), and the
// page starts at step 0.
func TestReplay_SummaryIsTheCLIs(t *testing.T) {
	for _, e := range ReplayExamples() {
		text, _ := ReplayExampleText(e.Name)
		tr, err := rp.ParseString(text, rp.PageMaxLines)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		streamed, err := rp.Stream(strings.NewReader(text), rp.CLIMaxLines)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		want := streamed.Summary() // what ppsim replay prints
		if st := rp.New(tr).Summary(); st != want {
			t.Fatalf("%s: the steppable replay's summary is not the CLI's:\n%s\n%s", e.Name, st, want)
		}
		s := NewReplayState()
		s.Load("the example "+e.Label, text)
		v := s.View()
		if v.Msg != "" || !v.Loaded {
			t.Fatalf("%s: %s", e.Name, v.Msg)
		}
		if v.Summary != want {
			t.Errorf("%s: the page's summary\n%s\nppsim replay's\n%s", e.Name, v.Summary, want)
		}
		if v.At != 0 || v.Events != len(tr.Events) {
			t.Errorf("%s: at %d of %d, want 0 of %d", e.Name, v.At, v.Events, len(tr.Events))
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(v.Chart), &m); err != nil {
			t.Errorf("%s: the chart option is not JSON: %v", e.Name, err)
		}
		if s := m["series"].([]any); len(s) != len(v.Pools) {
			t.Errorf("%s: %d series for %d pools", e.Name, len(s), len(v.Pools))
		}
	}
}

// TestReplay_SeekBackIsSeekStraight: stepping to n and back to m shows
// what stepping straight to m does (owned pages, each pool's view), at
// several points of every example.
func TestReplay_SeekBackIsSeekStraight(t *testing.T) {
	for _, e := range ReplayExamples() {
		text, _ := ReplayExampleText(e.Name)
		walk, fresh := NewReplayState(), NewReplayState()
		walk.Load("a", text)
		n := walk.Events()
		points := []int{0, 1, n / 7, n / 3, n / 2, n - 2, n - 1, n}
		for _, m := range points {
			m = min(max(m, 0), n)
			for _, far := range []int{n, m + 5, m - 3} {
				walk.Seek(far)
				walk.Seek(m)
				fresh.Load("b", text)
				for i := 0; i < m; i++ {
					fresh.Step(1) // one step at a time, as → does
				}
				if !reflect.DeepEqual(walk.OwnedPages(), fresh.OwnedPages()) {
					t.Fatalf("%s: via %d back to %d: owned pages differ from stepping straight to it", e.Name, far, m)
				}
				a, b := walk.View(), fresh.View()
				if !reflect.DeepEqual(a.Pools, b.Pools) || a.Chart != b.Chart || a.Now != b.Now {
					t.Fatalf("%s: via %d back to %d: the view differs:\n%+v\n%+v", e.Name, far, m, a.Pools, b.Pools)
				}
			}
		}
	}
}

// TestReplay_The618Capture: the real capture at its end: one pool, one
// page still owned, its destroy waiting; at its start nothing held.
func TestReplay_The618Capture(t *testing.T) {
	text, ok := ReplayExampleText("veth-6.18-capture")
	if !ok {
		t.Fatal("no 6.18 capture")
	}
	s := NewReplayState()
	s.Load("x", text)
	v := s.View()
	if len(v.Pools) != 1 || v.Cur.N != 0 || v.Pools[0].Owned != 0 || v.Pools[0].Seen != 0 {
		t.Fatalf("step 0: %+v", v.Pools)
	}
	for _, tl := range v.Pools[0].Tiles {
		if tl.State != TileNever {
			t.Fatalf("step 0: tile %+v", tl)
		}
	}
	s.Seek(s.Events())
	v = s.View()
	p := v.Pools[0]
	if p.Owned != 1 || p.Inflight != 1 || !p.Waiting || p.Holds != 320 || p.Releases != 319 || p.Pages != len(p.Tiles) || p.More != 0 {
		t.Errorf("the end: %+v", p)
	}
	owned := 0
	for _, tl := range p.Tiles {
		if tl.State == TileOwned {
			owned++
		}
	}
	if owned != 1 {
		t.Errorf("%d owned tiles, want 1", owned)
	}
	if !strings.Contains(v.Cur.Text, "page_pool_release:") || !v.Cur.Cur || !strings.Contains(v.Now, "ms after the first event") {
		t.Errorf("the current line at the end: %+v (%s)", v.Cur, v.Now)
	}
	var stalled *ReplayFinding
	for i := range v.Findings {
		if v.Findings[i].Kind == "destroy-stalled" {
			stalled = &v.Findings[i]
		}
	}
	if stalled == nil {
		t.Fatalf("no destroy-stalled finding: %+v", v.Findings)
	}
	s.Seek(0)
	s.StepToLine(stalled.Line)
	v = s.View()
	if v.Cur.N != stalled.Line || !v.Pools[0].Waiting {
		t.Errorf("the finding's step: line %d, waiting %v; want line %d, waiting", v.Cur.N, v.Pools[0].Waiting, stalled.Line)
	}
	if s.Step(-1); s.View().Pools[0].Waiting {
		t.Errorf("one step before the destroy: waiting already")
	}
}

// TestReplay_BadInputSaysWhatIsAccepted: empty, binary, too large, no
// page_pool line: one message each, naming what the page reads, no
// capture; never a panic.
func TestReplay_BadInputSaysWhatIsAccepted(t *testing.T) {
	many := strings.Repeat("x\n", rp.PageMaxLines+1)
	// exactly the limit is read: a capture of PageMaxLines lines, with or
	// without its last line's end
	for _, limit := range []string{strings.Repeat("x\n", rp.PageMaxLines-1) + "x", strings.Repeat("x\n", rp.PageMaxLines)} {
		s := NewReplayState()
		s.Load("t", limit)
		if v := s.View(); !strings.Contains(v.Msg, "No page_pool tracepoint line in 1000000 lines") {
			t.Errorf("%d lines: %q", rp.PageMaxLines, cut(v.Msg, 200))
		}
	}
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "empty"},
		{"blank", "  \n\n\t\n", "empty"},
		{"binary", "\x17\x08Dtracing6\x00\x00\x00\x01\x02", "trace-cmd report"},
		{"perf.data", "PERFILE2\x00\x00\x00\x00\x68", "perf script"},
		{"garbage", "hello world\nthis is not a trace\n", "No page_pool tracepoint line in 2 lines"},
		{"too many lines", many, "1 000 000"},
		{"too many lines, no last line end", strings.TrimSuffix(many, "\n"), "more than 1000000 lines"},
		{"a long line", strings.Repeat("a", 70<<10), "Not a trace"},
	} {
		s := NewReplayState()
		s.Load("t", c.text)
		v := s.View()
		if v.Loaded || !strings.Contains(v.Msg, c.want) || !strings.Contains(v.Msg, "The page reads text captures") {
			t.Errorf("%s: loaded %v, message %q (want %q and what is accepted)", c.name, v.Loaded, v.Msg, c.want)
		}
		s.Step(1)
		s.Seek(5)
		s.StepToLine(3)
	}
	if !strings.Contains(ReplayAccepted, "1 000 000") || !strings.Contains(ReplayAccepted, "10 000 000") {
		t.Errorf("ReplayAccepted names no limits: %s", ReplayAccepted)
	}
}

// TestReplay_UntimedAndUnknownLines: bare lines (no timestamps) step by
// event index, and lines not understood are counted and listed, never
// fatal.
func TestReplay_UntimedAndUnknownLines(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("page_pool_state_hold: page_pool=00000000aaaa0000 netmem=0000000011110000 is_net_iov=0, pfn=0x1000 hold=1\n")
	b.WriteString("some noise here\n")
	b.WriteString("page_pool_state_hold: page_pool=00000000aaaa0000 netmem=0000000011110001 is_net_iov=0, pfn=0x1001 hold=2\n")
	b.WriteString("page_pool_state_release: page_pool=00000000aaaa0000 netmem=0000000011110000 is_net_iov=0 pfn=0x1000 release=1\n")
	s := NewReplayState()
	s.Load("t", b.String())
	v := s.View()
	if !v.Loaded || v.Timed || v.UnknownN != 1 || len(v.Unknown) != 1 || v.Unknown[0].Line != 2 {
		t.Fatalf("%+v", v)
	}
	s.Seek(2)
	v = s.View()
	if v.Cur.N != 3 || len(v.Context) != 4 || v.Context[1].Event || !v.Context[2].Cur || strings.Contains(v.Now, "ms") {
		t.Errorf("step 2: %+v %+v %s", v.Cur, v.Context, v.Now)
	}
	s.Seek(3)
	tiles := s.View().Pools[0].Tiles
	if len(tiles) != 2 || tiles[0].State != TileReleased || !tiles[0].Changed || tiles[1].State != TileOwned {
		t.Errorf("step 3 tiles: %+v", tiles)
	}
}

// TestReplay_TilesCapped: a pool of more pages than ReplayTiles draws
// ReplayTiles and says how many more, and how many of those are owned.
func TestReplay_TilesCapped(t *testing.T) {
	var b strings.Builder
	n := ReplayTiles + 100
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "page_pool_state_hold: page_pool=ffff888100001000 page=ffffea0000000000 pfn=%#x hold=%d\n", 0x1000+i, i)
	}
	s := NewReplayState()
	s.Load("t", b.String())
	s.Seek(s.Events())
	p := s.View().Pools[0]
	if len(p.Tiles) != ReplayTiles || p.More != 100 || p.MoreOwned != 100 || p.Owned != n {
		t.Errorf("tiles %d, more %d (%d owned), owned %d", len(p.Tiles), p.More, p.MoreOwned, p.Owned)
	}
}

// TestReplay_AReusedPointerIsANewPool: a pool destroyed to inflight 0
// whose address a new pool takes is two pools (engine/replay's PoolOf),
// each with its own pages.
func TestReplay_AReusedPointerIsANewPool(t *testing.T) {
	text := "page_pool_state_hold: page_pool=00000000aaaa0000 page=0000000011110000 pfn=0x1000 hold=1\n" +
		"page_pool_state_release: page_pool=00000000aaaa0000 page=0000000011110000 pfn=0x1000 release=1\n" +
		"page_pool_release: page_pool=00000000aaaa0000 inflight=0 hold=1 release=1 cnt=1\n" +
		"page_pool_state_hold: page_pool=00000000aaaa0000 page=0000000011110001 pfn=0x2000 hold=1\n"
	s := NewReplayState()
	s.Load("t", text)
	s.Seek(s.Events())
	v := s.View()
	if len(v.Pools) != 2 {
		t.Fatalf("%d pools: %+v", len(v.Pools), v.Pools)
	}
	a, b := v.Pools[0], v.Pools[1]
	if len(a.Tiles) != 1 || a.Tiles[0].PFN != 0x1000 || a.Tiles[0].State != TileReleased || a.Touched {
		t.Errorf("the first pool: %+v", a)
	}
	if len(b.Tiles) != 1 || b.Tiles[0].PFN != 0x2000 || b.Tiles[0].State != TileOwned || !b.Tiles[0].Changed || !b.Touched {
		t.Errorf("the second pool: %+v", b)
	}
}
