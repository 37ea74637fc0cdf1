package replay

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParse_EachToolsLine reads one hold as each tool prints it.
func TestParse_EachToolsLine(t *testing.T) {
	tests := []struct{ name, line, format string }{
		{"tracefs 6.18", "         python3-7046    [001] ..s1. 33723.211814: page_pool_state_hold: page_pool=00000000899a4a90 netmem=00000000f4f3e916 is_net_iov=0, pfn=0x158379 hold=65", "ftrace"},
		{"trace-cmd report, no flags", "  python3-7046  [001] 33723.211814: page_pool_state_hold: page_pool=0xffff888100001000 netmem=0xffffea0000000000 is_net_iov=0, pfn=0x158379 hold=65", "ftrace"},
		{"perf script", "         python3  7046 [001] 33723.211814: page_pool:page_pool_state_hold: page_pool=0xffff888100001000 netmem=0xffffea0000000000 is_net_iov=0, pfn=0x158379 hold=65", "perf"},
		{"6.8 page=", "<idle>-0 [001] ..s1. 33723.211814: page_pool_state_hold: page_pool=00000000899a4a90 page=00000000f4f3e916 pfn=0x158379 hold=65", "ftrace"},
		{"bare", "page_pool_state_hold: page_pool=00000000899a4a90 netmem=00000000f4f3e916 is_net_iov=0, pfn=0x158379 hold=65", "bare"},
		{"bpftrace key=value", "tracepoint:page_pool:page_pool_state_hold pool=0xffff888100001000 pfn=0x158379 hold=65", "bpftrace"},
		{"key:value with no head", "page_pool_state_hold pool:0xffff888100001000 pfn:0x158379 hold:65", "bare"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ParseString(tc.line, 10)
			if err != nil || len(tr.Events) != 1 || tr.Formats[tc.format] != 1 {
				t.Fatalf("%v %+v", err, tr)
			}
			e := tr.Events[0]
			if e.Kind != Hold || e.PFN != 0x158379 || e.Hold != 65 || e.Pool == "" {
				t.Errorf("%+v", e)
			}
			if strings.Contains(tc.line, "[001]") && e.CPU != 1 {
				t.Errorf("cpu %d", e.CPU)
			}
		})
	}
	tr, _ := ParseString("page_pool_state_release: page_pool=00000000899a4a90 page=00000000f4f3e916 pfn=1410937 release=3", 10)
	if len(tr.Events) != 1 || tr.Events[0].PFN != 1410937 || !tr.DecimalPFN {
		t.Errorf("decimal pfn (before v5.14): %+v", tr)
	}
}

// TestReplay_FindsWhatBreaksTheRules: a page freed while owned (by
// mm_page_free, or held again without a release), lost holds, a destroy
// still waiting.
func TestReplay_FindsWhatBreaksTheRules(t *testing.T) {
	in := `# tracer: nop
page_pool_state_hold: page_pool=a page=1 pfn=0x10 hold=1
page_pool_state_hold: page_pool=a page=2 pfn=0x11 hold=2
mm_page_free: page=00000000aa pfn=0x10 order=0
page_pool_state_hold: page_pool=b page=2 pfn=0x11 hold=1
page_pool_state_hold: page_pool=a page=3 pfn=0x12 hold=5
page_pool_release: page_pool=a inflight=3 hold=5 release=0 cnt=1
something else entirely
`
	tr, err := ParseString(in, 100)
	if err != nil {
		t.Fatal(err)
	}
	r := New(tr)
	kinds := map[string]int{}
	for _, f := range r.Findings {
		kinds[f.Kind]++
	}
	if kinds["freed-while-owned"] != 1 || kinds["held-while-owned"] != 1 || kinds["lost-events"] != 1 || kinds["destroy-stalled"] != 1 {
		t.Errorf("findings %v", r.Findings)
	}
	if tr.UnknownCount != 1 || tr.Headers != 1 || r.FreedWhileOwned() != 2 {
		t.Errorf("unknown %d headers %d freed %d", tr.UnknownCount, tr.Headers, r.FreedWhileOwned())
	}
	if !strings.Contains(r.Summary(), "pages freed while owned: 2") {
		t.Error(r.Summary())
	}
}

// TestSeek_BackAndForthEqualsStraight: any walk of Seek ends in the state
// a straight replay to the same step has (the page's stepping).
func TestSeek_BackAndForthEqualsStraight(t *testing.T) {
	b, err := os.ReadFile("examples/veth-6.18-capture.txt")
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := ParseString(string(b), PageMaxLines)
	walk, straight := New(tr), New(tr)
	rng := rand.New(rand.NewSource(1))
	n := len(tr.Events)
	for i := 0; i < 200; i++ {
		to := rng.Intn(n + 1)
		walk.Seek(to)
		straight.Seek(0)
		straight.Seek(to)
		if a, b := walk.OwnedPages(), straight.OwnedPages(); len(a) != len(b) {
			t.Fatalf("at %d: %d owned after a walk, %d straight", to, len(a), len(b))
		}
		for j := range walk.Pools {
			p, q := walk.Pools[j], straight.Pools[j]
			if p.Inflight != q.Inflight || p.Owned != q.Owned || p.HoldCnt != q.HoldCnt || p.ReleaseCnt != q.ReleaseCnt {
				t.Fatalf("at %d: pool %d %+v vs %+v", to, j, p, q)
			}
		}
	}
}

// TestReplay_ThisMachinesCapture: the real 6.18 capture (testdata) reads
// whole: one veth pool created in it, bulk refills, a destroy.
func TestReplay_ThisMachinesCapture(t *testing.T) {
	b, err := os.ReadFile("examples/veth-6.18-capture.txt")
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := ParseString(string(b), PageMaxLines)
	r := New(tr)
	s := r.ShapeOf(r.Busiest())
	if tr.UnknownCount != 0 || len(r.Pools) != 1 || !s.Created || !s.AllBulk || s.Holds != 320 || s.DestroyChecks != 2 || s.FinalInflight != 1 {
		t.Errorf("%+v\n%s", s, r.Summary())
	}
}

// TestReplay_AReusedPoolAddressIsANewPool: the kernel reuses a freed
// pool's memory; a hold after the destroy finished (or a hold=1 again) is
// a new pool at the same pointer.
func TestReplay_AReusedPoolAddressIsANewPool(t *testing.T) {
	in := `page_pool_state_hold: page_pool=a pfn=0x10 hold=1
page_pool_state_release: page_pool=a pfn=0x10 release=1
page_pool_release: page_pool=a inflight=0 hold=1 release=1 cnt=1
page_pool_state_hold: page_pool=a pfn=0x20 hold=1
page_pool_state_hold: page_pool=a pfn=0x21 hold=2
page_pool_state_hold: page_pool=a pfn=0x30 hold=1
`
	tr, _ := ParseString(in, 100)
	r := New(tr)
	if len(r.Pools) != 3 || r.Pools[1].Again != 1 || r.Pools[2].Again != 2 || r.Pools[1].Holds != 2 || r.PoolOf(3) != r.Pools[1] {
		t.Fatalf("%d pools: %s", len(r.Pools), r.Summary())
	}
	if len(r.Findings) != 0 {
		t.Errorf("findings %v", r.Findings)
	}
	r.Seek(2)
	r.Seek(6)
	if r.Pools[1].Owned != 2 || r.Pools[0].Owned != 0 {
		t.Errorf("owned after seeking: %d %d", r.Pools[0].Owned, r.Pools[1].Owned)
	}
}

// TestSparkline_KeepsEveryPeak: a one-event spike in a long series shows
// at its height, and the series' thinning keeps it.
func TestSparkline_KeepsEveryPeak(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20000; i++ {
		b.WriteString("page_pool_state_hold: page_pool=a pfn=" + itoa(i) + " hold=" + itoa(i) + "\n")
		b.WriteString("page_pool_state_release: page_pool=a pfn=" + itoa(i) + " release=" + itoa(i) + "\n")
	}
	tr, _ := ParseString(b.String(), PageMaxLines)
	r := New(tr)
	p := r.Pools[0]
	if p.MaxInflight != 1 || len(p.Series) > maxSeries {
		t.Fatalf("max %d, %d points", p.MaxInflight, len(p.Series))
	}
	if s := r.Summary(); !strings.Contains(s, "████████") || !strings.Contains(s, "(0 … 1)") {
		t.Errorf("a series alternating 0/1 draws %s", s)
	}
}

func itoa(i int) string {
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// TestParse_BinaryIsUnknown: a NUL byte or invalid UTF-8 is counted as not
// text, never fatal.
func TestParse_BinaryIsUnknown(t *testing.T) {
	tr, err := ParseString("\x7fELF\x00\x01\n\xff\xfe\npage_pool_state_hold: page_pool=a pfn=0x1 hold=1\n", 10)
	if err != nil || tr.Binary != 2 || tr.UnknownCount != 2 || len(tr.Events) != 1 {
		t.Errorf("%v %+v", err, tr)
	}
}

// TestStream_SameAsNew: the streamed replay (ppsim replay, which keeps no
// event) reports what the stored one (the page's) does, for every capture
// in examples.
func TestStream_SameAsNew(t *testing.T) {
	files, _ := filepath.Glob("examples/*.txt")
	if len(files) < 5 {
		t.Fatalf("%d captures in examples", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := ParseString(string(b), PageMaxLines)
		stored := New(tr)
		streamed, err := Stream(strings.NewReader(string(b)), PageMaxLines)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := stored.Summary(), streamed.Summary(); a != b {
			t.Errorf("%s:\nstored:\n%s\nstreamed:\n%s", f, a, b)
		}
		a, _ := json.Marshal(stored.JSON())
		c, _ := json.Marshal(streamed.JSON())
		if string(a) != string(c) {
			t.Errorf("%s: the JSON differs", f)
		}
	}
}

// TestSeek_PagesHeldBeforeTheCaptureAreOwnedUntilReleased: a capture cut
// after the pool's first holds shows the pages it releases without having
// seen them held as the pool's from the first step until their release.
func TestSeek_PagesHeldBeforeTheCaptureAreOwnedUntilReleased(t *testing.T) {
	in := `page_pool_state_hold: page_pool=a pfn=0x10 hold=5
page_pool_state_release: page_pool=a pfn=0x1 release=1
page_pool_state_release: page_pool=a pfn=0x2 release=2
page_pool_release: page_pool=a inflight=3 hold=5 release=2 cnt=1
`
	tr, _ := ParseString(in, 100)
	r := New(tr)
	p := r.Pools[0]
	r.Seek(0)
	if p.Owned != 2 || r.Owner(1) != 1 || r.Owner(2) != 1 || r.Owner(0x10) != 0 {
		t.Errorf("step 0: owned %d, pfn 1 %d, pfn 2 %d", p.Owned, r.Owner(1), r.Owner(2))
	}
	r.Seek(2)
	if p.Owned != 2 || r.Owner(1) != 0 || r.Owner(2) != 1 || r.Owner(0x10) != 1 {
		t.Errorf("step 2: owned %d", p.Owned)
	}
	r.Seek(4)
	if p.Owned != 1 || r.HeldBefore != 2 || len(r.Findings) != 1 {
		t.Errorf("end: owned %d, held before %d, findings %v", p.Owned, r.HeldBefore, r.Findings)
	}
	r.Seek(1)
	if p.Owned != 3 {
		t.Errorf("back at step 1: owned %d", p.Owned)
	}
}

// TestParse_LostEventsMarkIsAFinding: the trace buffer's own mark of
// dropped events is reported at its line.
func TestParse_LostEventsMarkIsAFinding(t *testing.T) {
	tr, _ := ParseString("page_pool_state_hold: page_pool=a pfn=0x1 hold=1\nCPU:1 [LOST 17 EVENTS]\npage_pool_state_hold: page_pool=a pfn=0x2 hold=2\n", 10)
	r := New(tr)
	if len(tr.Lost) != 1 || tr.Lost[0] != (Lost{2, 17}) || len(r.Findings) != 1 || r.Findings[0].Kind != "lost-events" || r.Findings[0].Line != 2 {
		t.Errorf("%+v %v", tr.Lost, r.Findings)
	}
}
