//go:build e2e

package e2e

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// openReplay opens the replay page and waits for it to mount.
func (p *page) openReplay(base string) {
	p.t.Helper()
	p.navigate(chromedp.Navigate(base+"replay/"), `window.__pplab !== undefined && window.__pplab.page === 'replay' && window.__pplab.mounted === true`)
}

// pickReplayExample clicks example name and waits for its replay.
func (p *page) pickReplayExample(name string) {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`button[data-example=%q]`, name))))
	p.wait(`window.__pplab.loaded === true && window.__pplab.busy === '' && document.querySelector('#replay-pool-1') !== null`, 30*time.Second)
}

// TestReplay_The618Capture: the replay page wires the session's replay
// (every example's summary, seeking back and forth, bad inputs: natively,
// app/session TestReplay_*): the real 6.18 capture picked, stepped with
// the keys to its end, shows its pool with one page still owned and its
// destroy waiting, the inflight chart with a series; a finding steps to
// its line; garbage pasted gets the message naming what is read; a phone
// fits the page.
func TestReplay_The618Capture(t *testing.T) {
	p := newPage(t, 1280, 800)
	start := time.Now()
	p.openReplay(rootURL)
	opened := time.Since(start)
	p.pickReplayExample("veth-6.18-capture")
	var st struct {
		At, Events              int
		LoadMS, StepMS, ParseMS float64
		MaxStepMS               float64
	}
	p.eval(`({At: __pplab.at, Events: __pplab.events, LoadMS: __pplab.loadMS, ParseMS: __pplab.parseMS})`, &st)
	if st.At != 0 || st.Events < 600 {
		t.Fatalf("after the pick: step %d of %d", st.At, st.Events)
	}
	t.Logf("opened in %v; the 6.18 capture (%d events) replayed in %.1f ms, drawn (ECharts loaded) in %.1f ms", opened.Round(time.Millisecond), st.Events, st.ParseMS, st.LoadMS)
	p.shot("replay-desktop-start")

	// → three times (the focus is on the example's button, not a form
	// control), then End.
	for i := 0; i < 3; i++ {
		p.do(chromedp.KeyEvent(kb.ArrowRight))
	}
	p.wait(`__pplab.at === 3 && document.querySelector('#replay-line .rp-cur') !== null`, 10*time.Second)
	if got := p.text("#replay-pool-1-owned"); got != "3" {
		t.Errorf("after 3 holds: %s pages owned", got)
	}
	p.do(chromedp.KeyEvent(kb.End))
	p.wait(`__pplab.at === __pplab.events`, 10*time.Second)
	if got := p.text("#replay-pool-1-owned"); got != "1" {
		t.Errorf("at the end: %s pages owned, want 1", got)
	}
	var end struct {
		Waiting, Destroy, Inflight, Line string
		OwnedTiles                       int
	}
	p.eval(`({Waiting: document.querySelector('#replay-pool-1-destroy').dataset.waiting,
		Destroy: document.querySelector('#replay-pool-1-destroy').textContent,
		Inflight: document.querySelector('#replay-pool-1-inflight').textContent,
		Line: document.querySelector('#replay-line .rp-cur').textContent,
		OwnedTiles: document.querySelectorAll('#replay-pool-1 .rp-tile.rp-owned').length})`, &end)
	if end.Waiting != "true" || !strings.Contains(end.Destroy, "destroy waiting") || !strings.Contains(end.Destroy, "inflight=1") {
		t.Errorf("the destroy at the end: waiting %q: %q", end.Waiting, end.Destroy)
	}
	if end.OwnedTiles != 1 || !strings.HasPrefix(end.Inflight, "1 /") || !strings.Contains(end.Line, "page_pool_release:") {
		t.Errorf("the end: %d owned tiles, inflight %q, line %q", end.OwnedTiles, end.Inflight, end.Line)
	}
	p.waitChart("replay-chart")
	var chart struct{ Series, Points, Marks int }
	p.eval(`(function(){ const o = echarts.getInstanceByDom(document.getElementById('replay-chart')).getOption();
		return {Series: o.series.length, Points: o.series[0].data.length, Marks: ((o.series[0].markLine || {}).data || []).length}; })()`, &chart)
	if chart.Series != 1 || chart.Points < 600 || chart.Marks != 1 {
		t.Errorf("the chart: %+v, want one series of every event and the step's line", chart)
	}
	p.shot("replay-desktop-end")

	// Step latency: ← twenty times, each waited for.
	for i := 1; i <= 20; i++ {
		p.do(chromedp.KeyEvent(kb.ArrowLeft))
		p.wait(fmt.Sprintf(`__pplab.at === __pplab.events - %d`, i), 10*time.Second)
	}
	p.eval(`({StepMS: __pplab.stepMS, MaxStepMS: __pplab.maxStepMS})`, &st)
	t.Logf("a step with its render: last %.1f ms, at most %.1f ms (the 6.18 capture)", st.StepMS, st.MaxStepMS)

	// The destroy-stalled finding steps to the destroy's first check.
	p.do(chromedp.Click(chromedp.CSS(`li.rp-finding[data-kind="destroy-stalled"] button`)))
	p.wait(`document.querySelector('#replay-pool-1-destroy') !== null && document.querySelector('#replay-line .rp-cur').textContent.includes('page_pool_release:') && __pplab.at < __pplab.events`, 10*time.Second)

	// Garbage pasted: the message, and the replay before stays where it was.
	var at, now int
	var loaded bool
	p.eval(`__pplab.at`, &at)
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('replay-text').value = 'hello\nthis is no trace\n\x01\x02 at all'`),
		chromedp.Click(chromedp.CSS(`#replay-go`)))
	p.wait(`document.querySelector('#replay-msg') !== null`, 10*time.Second)
	msg := p.text("#replay-msg")
	if !strings.Contains(msg, "No page_pool tracepoint line") || !strings.Contains(msg, "The page reads text captures") || !strings.Contains(msg, "1 000 000 lines") || !strings.Contains(msg, "stays below") {
		t.Errorf("the message for garbage: %q", msg)
	}
	p.eval(`__pplab.loaded`, &loaded)
	p.eval(`__pplab.at`, &now)
	if !loaded || now != at {
		t.Errorf("a refused paste: loaded %v at %d, was at %d", loaded, now, at)
	}
	p.shot("replay-desktop-garbage")

	// A file opened: a capture in perf script's format, replayed; a binary
	// file refused with its conversion named.
	dir := t.TempDir()
	perf := dir + "/perf.txt"
	bin := dir + "/trace.dat"
	if err := os.WriteFile(perf, []byte("# perf script\n"+
		"  swapper     0 [001] 100.000100: page_pool:page_pool_state_hold: page_pool=0xffff888100002000 page=0xffffea0004000000 pfn=0x100000 hold=1\n"+
		"  swapper     0 [001] 100.000200: page_pool:page_pool_state_hold: page_pool=0xffff888100002000 page=0xffffea0004000040 pfn=0x100001 hold=2\n"+
		"  swapper     0 [001] 100.000300: page_pool:page_pool_state_release: page_pool=0xffff888100002000 page=0xffffea0004000000 pfn=0x100000 release=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("\x17\x08\x44tracing6\x00\x00\x00\x00\x10\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`#replay-file`), []string{perf}))
	p.wait(`__pplab.loaded === true && __pplab.events === 3 && __pplab.busy === ''`, 10*time.Second)
	if src := p.text("#replay-source"); !strings.Contains(src, "perf.txt") {
		t.Errorf("the file's replay: %q", src)
	}
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`#replay-file`), []string{bin}))
	p.wait(`__pplab.loaded === true && __pplab.events === 3 && document.querySelector('#replay-msg') !== null`, 10*time.Second)
	if msg := p.text("#replay-msg"); !strings.Contains(msg, "trace-cmd report") || !strings.Contains(msg, "trace.dat") {
		t.Errorf("a binary file: %q", msg)
	}
	p.noErrors()

	t.Run("sub-path", func(t *testing.T) {
		q := p.sub(t)
		q.openReplay(subURL)
		q.pickReplayExample("synthetic-6.18-perf")
		q.do(chromedp.KeyEvent(kb.End))
		q.wait(`__pplab.at === __pplab.events && __pplab.at > 0`, 10*time.Second)
		q.waitChart("replay-chart")
		if href := q.text("#replay-to-playground"); href == "" {
			t.Error("no link to the playground")
		}
		var to string
		q.eval(`document.querySelector('#replay-to-playground').getAttribute('href')`, &to)
		if to != "/pplab/" {
			t.Errorf("the playground link under /pplab/: %q", to)
		}
		q.noErrors()
	})

	t.Run("phone", func(t *testing.T) {
		q := newPage(t, 390, 844)
		q.openReplay(rootURL)
		q.pickReplayExample("veth-6.18-capture")
		q.do(chromedp.Click(chromedp.CSS(`#replay-last`)))
		q.wait(`__pplab.at === __pplab.events`, 10*time.Second)
		var w struct{ Scroll, Inner int }
		q.eval(`({Scroll: document.documentElement.scrollWidth, Inner: window.innerWidth})`, &w)
		if w.Scroll > w.Inner {
			t.Errorf("the page is %d px wide in a %d px window", w.Scroll, w.Inner)
		}
		q.shot("replay-phone-end")
		q.noErrors()
	})
}

// TestReplay_ABigCapture (PPLAB_REPLAY_BIG=1): a capture of 10^6 lines
// (holds and releases of one pool, cycling 4096 pages, with tracefs's
// columns) opened as a file: its load and step latencies and the memory
// it takes, printed; a file one line over gets the limit's message.
func TestReplay_ABigCapture(t *testing.T) {
	if os.Getenv("PPLAB_REPLAY_BIG") == "" {
		t.Skip("PPLAB_REPLAY_BIG=1 measures a 10^6-line capture")
	}
	dir := t.TempDir()
	write := func(name string, n int) string {
		f, err := os.Create(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		h, r := 0, 0
		for i := 0; i < n; i++ {
			pfn := 0x100000 + (i>>1)%4096
			ts := 100 + float64(i)/1e6
			if i&1 == 0 {
				h++
				fmt.Fprintf(w, "          <idle>-0       [001] ..s1. %.6f: page_pool_state_hold: page_pool=00000000aaaa0000 netmem=0000000011110000 is_net_iov=0, pfn=%#x hold=%d\n", ts, pfn, h)
			} else {
				r++
				fmt.Fprintf(w, "          <idle>-0       [001] ..s1. %.6f: page_pool_state_release: page_pool=00000000aaaa0000 netmem=0000000011110000 is_net_iov=0 pfn=%#x release=%d\n", ts, pfn, r)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return dir + "/" + name
	}
	big, over := write("big.txt", 1_000_000), write("over.txt", 1_000_001)
	fi, _ := os.Stat(big)
	p := newPage(t, 1280, 800)
	p.openReplay(rootURL)
	start := time.Now()
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`#replay-file`), []string{big}))
	p.wait(`__pplab.loaded === true && __pplab.busy === ''`, 5*time.Minute)
	var st struct {
		Events                  int
		LoadMS, StepMS, ParseMS float64
		HeapMB, SysMB           float64
	}
	p.eval(`({Events: __pplab.events, LoadMS: __pplab.loadMS, ParseMS: __pplab.parseMS, HeapMB: __pplab.heapMB, SysMB: __pplab.sysMB})`, &st)
	t.Logf("10^6 lines (%d MB): %d events replayed in %.0f ms, drawn in %.0f ms (%v from the upload); Go heap %.0f MB, the Go runtime's memory %.0f MB",
		fi.Size()>>20, st.Events, st.ParseMS, st.LoadMS, time.Since(start).Round(time.Millisecond), st.HeapMB, st.SysMB)
	p.do(chromedp.Click(chromedp.CSS(`#replay-next`)))
	p.wait(`__pplab.at === 1`, time.Minute)
	for i := 2; i <= 11; i++ {
		p.do(chromedp.KeyEvent(kb.ArrowRight))
		p.wait(fmt.Sprintf(`__pplab.at === %d`, i), time.Minute)
	}
	p.eval(`({StepMS: __pplab.stepMS})`, &st)
	t.Logf("10^6 lines: a step with its render %.1f ms", st.StepMS)
	p.do(chromedp.KeyEvent(kb.End))
	p.wait(`__pplab.at === __pplab.events`, time.Minute)
	p.eval(`({StepMS: __pplab.stepMS})`, &st)
	t.Logf("10^6 lines: End (10^6 events applied) with its render %.0f ms", st.StepMS)
	p.shot("replay-desktop-big")
	start = time.Now()
	p.do(chromedp.SetUploadFiles(chromedp.CSS(`#replay-file`), []string{over}))
	p.wait(`__pplab.loaded === false && document.querySelector("#replay-msg") !== null`, 5*time.Minute)
	t.Logf("10^6+1 lines: refused %v after the upload", time.Since(start).Round(time.Millisecond))
	if msg := p.text("#replay-msg"); !strings.Contains(msg, "more than 1000000 lines") {
		t.Errorf("one line over: %q", msg)
	}
	p.noErrors()
}
