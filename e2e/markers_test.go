//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"pplab/engine/lab"
)

// Timeline markers and export.

// markerDOM is one marker of the page's list.
type markerDOM struct {
	Op   uint64 `json:"op"`
	Kind string `json:"kind"`
	PFN  int32  `json:"pfn"`
	Text string `json:"text"`
}

func (p *page) markers() []markerDOM {
	p.t.Helper()
	var out []markerDOM
	p.eval(`[...document.querySelectorAll('#markers .marker-item')].map(b => ({op: Number(b.dataset.op), kind: b.dataset.kind, pfn: Number(b.dataset.pfn), text: b.textContent}))`, &out)
	return out
}

func (p *page) op() uint64 {
	p.t.Helper()
	var op float64
	p.eval(`window.__pplab.op`, &op)
	return uint64(op)
}

// narrates is what the narration of a marker's operation must show (a
// counter it incremented, the function, the violation).
var narrates = map[string]string{
	"slow":            "alloc_slow",
	"ring_full":       "recycle_ring_full",
	"cache_full":      "recycle_cache_full",
	"released_refcnt": "recycle_released_ref",
	"retry":           "page_pool_release",
	"stalled":         "stalled pool shutdown",
	"freed":           "page_pool_release",
	"violation":       "violations found",
}

// TestMarkers_ClickJumpsToTheMarkedOperation: a tick under the scrubber
// and an entry of the list each jump to the marked operation, and the
// narration shows the marked event.
func TestMarkers_ClickJumpsToTheMarkedOperation(t *testing.T) {
	t.Parallel()
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?v=1&scenario=drop&rx_descs=16&pool_size=32&step=2000")
	p.wait(`document.querySelectorAll('#marker-bar .marker').length > 0`, 10*time.Second)
	ms := p.markers()
	if len(ms) == 0 || ms[0].Op != 1 || ms[0].Kind != "slow" {
		t.Fatalf("markers %+v: want the first at op 1 (ndo_open's slow-path fill)", ms)
	}
	byOp := map[uint64][]string{}
	for _, m := range ms {
		byOp[m.Op] = append(byOp[m.Op], m.Kind)
	}
	// A tick: the one the mouse lands on (ticks close together overlap).
	p.do(chromedp.Click(chromedp.CSS("#marker-bar .marker.mk-ring_full")))
	p.wait(`window.__pplab.op !== 2000`, 10*time.Second)
	op := p.op()
	kinds, ok := byOp[op]
	if !ok {
		t.Fatalf("the tick jumped to op %d, which no marker names (%v)", op, byOp)
	}
	p.wait(fmt.Sprintf(`document.querySelector('#narration-text').textContent.startsWith('op %d ')`, op), 10*time.Second)
	for _, k := range kinds {
		if got := p.text("#narration"); !strings.Contains(got, narrates[k]) {
			t.Errorf("op %d (%s): the narration does not show %q: %s", op, k, narrates[k], got)
		}
	}
	// An entry of the list (open it first): the first marker, the slow-path fill.
	p.do(chromedp.Click(chromedp.CSS("#markers > summary")))
	p.do(chromedp.Click(chromedp.CSS(`#markers .marker-item[data-kind="slow"]`)))
	p.waitOp(1)
	if got := p.text("#narration"); !strings.Contains(got, "alloc_slow") {
		t.Errorf("op 1: the narration shows no slow-path allocation: %s", got)
	}
	if n := len(p.markers()); n != len(ms) {
		t.Errorf("after the jump back %d markers, before %d (the run's furthest op keeps them)", n, len(ms))
	}
	p.do(chromedp.Click(chromedp.CSS(`#markers .marker-item[data-kind="ring_full"]`)))
	p.waitOp(ms[firstOf(ms, "ring_full")].Op)
	if got := p.text("#narration"); !strings.Contains(got, "recycle_ring_full") {
		t.Errorf("ring_full marker: the narration shows %s", got)
	}
	p.shot("markers-1280")
	p.noErrors()
}

func firstOf(ms []markerDOM, kind string) int {
	for i, m := range ms {
		if m.Kind == kind {
			return i
		}
	}
	return -1
}

// TestMarkers_Destroy: a link to destroy at op 156, in one tab: the
// markers walk with the keys, and fit a phone.
func TestMarkers_Destroy(t *testing.T) {
	t.Parallel()
	const state = "?v=1&scenario=destroy&rx_descs=16&pool_size=32&step=156"
	p := newPage(t, 1280, 800)
	p.open(rootURL + state)
	t.Run("NextAndPreviousKeys", func(t *testing.T) { markersNextAndPreviousKeys(t, p.sub(t)) })
	t.Run("Phone", func(t *testing.T) {
		p := p.sub(t)
		p.do(chromedp.EmulateViewport(390, 844))
		t.Cleanup(func() { _ = chromedp.Do(p.tab, chromedp.EmulateViewport(1280, 800)) })
		p.open(rootURL + state)
		markersPhone(t, p)
	})
}

// markersNextAndPreviousKeys: ] and [ walk the markers in order (the
// destroy's retries, the stalled warning, the pool freed), and the buttons
// do the same. (With a broken rule, where a violation selects its page:
// TestPlayground_ABrokenRule.)
func markersNextAndPreviousKeys(t *testing.T, p *page) {
	ms := p.walkMarkers()
	kinds := map[string]bool{}
	for _, m := range ms {
		kinds[m.Kind] = true
	}
	if !kinds["retry"] || !kinds["stalled"] || !kinds["freed"] {
		t.Errorf("destroy's markers %v: want retries, the stalled warning and the pool freed", kinds)
	}
	p.noErrors()
}

// walkMarkers: from op 0, ] walks the page's markers in order (up to 12
// operations), each narrated (a violation selects its page); [ and the
// buttons go back and forth; the footer documents the keys. It returns
// the markers.
func (p *page) walkMarkers() []markerDOM {
	t := p.t
	t.Helper()
	p.wait(`document.querySelectorAll('#markers .marker-item').length > 0`, 10*time.Second)
	ms := p.markers()
	var ops []uint64
	for _, m := range ms {
		if len(ops) == 0 || ops[len(ops)-1] != m.Op {
			ops = append(ops, m.Op)
		}
	}
	p.keys("r", 1)
	p.waitOp(0)
	for i, want := range ops {
		if i == 12 {
			break
		}
		p.keys("]", 1)
		p.waitOp(want)
		p.wait(fmt.Sprintf(`document.querySelector('#narration-text').textContent.startsWith('op %d ')`, want), 10*time.Second)
		narr := p.text("#narration")
		selected := false
		for _, m := range ms {
			if m.Op == want && !strings.Contains(narr, narrates[m.Kind]) {
				t.Errorf("op %d (%s): the narration does not show %q: %s", want, m.Kind, narrates[m.Kind], narr)
			}
			// An operation with violations on several pages (destroy
			// before 6.16: one late return's unmap and the next one's
			// sync, both after the unbind) selects the first one's page.
			if m.Op == want && m.Kind == "violation" && !selected {
				selected = true
				p.wait(fmt.Sprintf(`document.querySelector('#inspected-pfn') !== null && document.querySelector('#inspected-pfn').textContent === 'pfn %#x'`, m.PFN), 10*time.Second)
			}
		}
	}
	last := min(len(ops), 12) - 1
	if last >= 1 {
		p.keys("[", 1)
		p.waitOp(ops[last-1])
		p.do(chromedp.Click(chromedp.CSS("#markers > summary")), chromedp.Click(chromedp.CSS("#btn-next-marker")))
		p.waitOp(ops[last])
		p.do(chromedp.Click(chromedp.CSS("#btn-prev-marker")))
		p.waitOp(ops[last-1])
	}
	if foot := p.text(".foot"); !strings.Contains(foot, "] next marker") || !strings.Contains(foot, "[ previous marker") {
		t.Errorf("the footer does not document the marker keys: %s", foot)
	}
	return ms
}

var (
	ppsimBuilt = make(chan struct{}) // closed when buildPpsim has run
	ppsimBin   string
	ppsimErr   error
)

// buildIDFlags are the go build flags that give a binary the build id
// make gives app.wasm (PPLAB_BUILD_ID, which the Makefile exports): the
// page, the generator's prerendered HTML and ppsim then name the same
// build, as they do when make builds them. Without it (go test run by
// hand) the binaries carry what go build stamps.
func buildIDFlags() []string {
	if id := os.Getenv("PPLAB_BUILD_ID"); id != "" {
		return []string{"-ldflags", "-X pplab/engine/lab.build=" + id}
	}
	return nil
}

// buildPpsim builds cmd/ppsim into dir (TestMain runs it beside the
// site's generation).
func buildPpsim(repo, dir string) {
	defer close(ppsimBuilt)
	ppsimBin = filepath.Join(dir, "ppsim")
	cmd := exec.Command("go", append(append([]string{"build"}, buildIDFlags()...), "-o", ppsimBin, "./cmd/ppsim")...)
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		ppsimErr = fmt.Errorf("building ppsim: %v\n%s", err, out)
	}
}

// ppsim is the built cmd/ppsim.
func ppsim(t *testing.T) string {
	t.Helper()
	<-ppsimBuilt
	if ppsimErr != nil {
		t.Fatal(ppsimErr)
	}
	return ppsimBin
}

// beforeLink is a netdev text without its link: the text before the last
// blank line.
func beforeLink(text string) string {
	text = strings.TrimRight(text, "\n")
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		return text[:i]
	}
	return text
}

// downloads makes the page's downloads land in a fresh directory.
func (p *page) downloads() string {
	p.t.Helper()
	dir := p.t.TempDir()
	if _, err := chromedp.CallBrowser(p.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, BrowserContextID: p.browserContextID()}); err != nil {
		p.t.Fatalf("download behaviour: %v", err)
	}
	return dir
}

// download clicks an export button and returns the file it saved.
func (p *page) download(dir, button string) (name string, body []byte) {
	p.t.Helper()
	before := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		before[e.Name()] = true
	}
	// A click that lands while the page is busy can miss the button (the
	// layout moved under it): after 10 s without a file, click again (a
	// second file would be the same download; the first is taken).
	p.do(chromedp.Click(chromedp.CSS(button)))
	deadline, again := time.Now().Add(40*time.Second), time.Now().Add(10*time.Second)
	for time.Now().Before(deadline) {
		if time.Now().After(again) {
			p.t.Logf("%s: no download after 10 s: clicking again", button)
			p.do(chromedp.Click(chromedp.CSS(button)))
			again = again.Add(10 * time.Second)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if n := e.Name(); !before[n] && !strings.HasSuffix(n, ".crdownload") {
				b, err := os.ReadFile(filepath.Join(dir, n))
				if err == nil && len(b) > 0 {
					return n, b
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("%s: no download in %s (console errors %q)", button, dir, p.errors())
	return "", nil
}

// TestExport_JSONIsWhatPpsimPrints: at the run's end the JSON export is
// byte for byte what `ppsim run … --json` prints for the command line the
// page shows (the built CLI); in mid-run it is the results of an equal run
// stopped at the same operation; the CSV, the trace and the ethtool -S
// block download, and the block copies.
func TestExport_JSONIsWhatPpsimPrints(t *testing.T) {
	const q = "v=1&scenario=tcp-stream&driver=mlx5&era=6.1&rx_descs=16&pool_size=32&packets=3000"
	end := ranToEnd(t, q)
	p := newPage(t, 1280, 800)
	dir := p.downloads()
	p.open(rootURL + "?" + q + fmt.Sprintf("&step=%d", end.Ops()))
	p.wait(`document.querySelector('#next-op') && document.querySelector('#next-op').textContent.includes('complete')`, 20*time.Second)
	name, got := p.download(dir, "#export-json")
	if !strings.HasSuffix(name, ".json") || !strings.Contains(name, "tcp-stream") {
		t.Errorf("file name %q", name)
	}
	cli := p.text("#export-cli")
	args := strings.Fields(strings.TrimPrefix(cli, "ppsim "))
	out, err := exec.Command(ppsim(t), args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", cli, err)
	}
	if string(got) != string(out) {
		t.Errorf("the JSON export differs from `%s`:\n got %s\nwant %s", cli, got, out)
	}
	var parsed map[string]any
	if err := json.Unmarshal(got, &parsed); err != nil || parsed["driver_stats"] == nil {
		t.Errorf("the export is not the contract's JSON with mlx5's driver_stats: %v %v", err, parsed)
	}

	// The netdev text at the run's end: 72 columns at most, the page's
	// build id (the footer's), a link to this state on this host, and the
	// rest line for line what `ppsim run --text` prints for the command
	// line the page shows (the CLI links the query alone).
	_, netdev := p.download(dir, "#export-netdev")
	build := p.text("#build-id")
	if build == "" || !strings.Contains(string(netdev), "pplab model "+build+":") {
		t.Errorf("the netdev text does not carry the footer's build id %q:\n%s", build, netdev)
	}
	for i, line := range strings.Split(string(netdev), "\n") {
		if len([]rune(line)) > 72 {
			t.Errorf("netdev text line %d has %d columns: %q", i+1, len([]rune(line)), line)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(string(netdev)), ""), rootURL+"?") {
		t.Errorf("the netdev text does not link this page (%s):\n%s", rootURL, netdev)
	}
	textArgs := append(slices.Clone(args[:len(args)-1]), "--text")
	cliText, err := exec.Command(ppsim(t), textArgs...).Output()
	if err != nil {
		t.Fatalf("ppsim %s: %v", strings.Join(textArgs, " "), err)
	}
	if a, b := beforeLink(string(netdev)), beforeLink(string(cliText)); a != b {
		t.Errorf("the page's netdev text differs from `ppsim %s` before the link:\n page %s\n  cli %s", strings.Join(textArgs, " "), a, b)
	}
	if ver, err := exec.Command(ppsim(t), "version").Output(); err != nil || !strings.Contains(string(ver), " "+build+" ") {
		t.Errorf("ppsim version prints %q (%v), the page's footer %q", ver, err, build)
	}

	// Mid-run: an equal batch run stopped at the same op, as the CLI marshals it.
	p.keys("r", 1)
	p.waitOp(0)
	p.keys("\u0303", 300) // →
	p.waitOp(300)
	_, mid := p.download(dir, "#export-json")
	l, _ := lab.New(end.Config())
	l.RunFor(300)
	l.FinalCheck()
	want, _ := json.Marshal(l.Results())
	if string(mid) != string(want)+"\n" {
		t.Errorf("at op 300:\n got %s\nwant %s", mid, want)
	}

	_, csv := p.download(dir, "#export-csv")
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "packets,time_ns,kpps,delivered,busy_ps,cached,ring,released,cache_full,ring_full,released_refcnt" || len(lines) < 2 {
		t.Errorf("CSV %q", lines)
	}
	_, trace := p.download(dir, "#export-trace")
	if !strings.HasPrefix(string(trace), "# pplab trace: tcp-stream on mlx5") || strings.Count(string(trace), "\n") < 10 {
		t.Errorf("trace %q", trace)
	}
	_, eth := p.download(dir, "#export-ethtool")
	for _, w := range []string{"NIC statistics:\n", "     rx_pp_alloc_fast: ", "     rx_pp_alloc_slow_high_order: ", "     rx0_pp_recycle_ring: ", "     rx_cache_reuse: "} {
		if !strings.Contains(string(eth), w) {
			t.Errorf("the ethtool -S block has no %q:\n%s", w, eth)
		}
	}
	// Copy: with the clipboard granted, the block lands there.
	origin := strings.TrimSuffix(rootURL, "/")
	for _, name := range []string{"clipboard-write", "clipboard-read"} {
		if _, err := chromedp.CallBrowser(p.ctx, browser.SetPermission, browser.SetPermissionParams{Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: origin, BrowserContextID: p.browserContextID()}); err != nil {
			t.Fatalf("permission %s: %v", name, err)
		}
	}
	p.do(chromedp.Click(chromedp.CSS("#copy-ethtool")))
	p.wait(`document.querySelector('.banner') && document.querySelector('.banner').textContent.includes('ethtool -S block')`, 10*time.Second)
	if banner := p.text(".banner"); strings.Contains(banner, "copied the ethtool -S block") {
		var clip string
		p.evalAsync(`navigator.clipboard.readText()`, &clip)
		if clip != string(eth) {
			t.Errorf("the clipboard holds %q, the download %q", clip, eth)
		}
	} else {
		t.Logf("the clipboard refused in this browser: %s", banner)
	}
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#export').scrollIntoView({block: 'center'})`))
	p.shot("export-1280")
	p.noErrors()
}

// markersPhone: on a phone the markers bar and list fit the width (no
// horizontal scroll) and a marker still jumps.
func markersPhone(t *testing.T, p *page) {
	p.wait(`document.querySelectorAll('#markers .marker-item').length > 0`, 10*time.Second)
	// On a phone the timeline sticks to the top once the page scrolls to it
	// (the narration is the bottom sheet).
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#timeline').scrollIntoView()`))
	p.do(chromedp.Click(chromedp.CSS("#markers > summary")))
	p.do(chromedp.Click(chromedp.CSS(`#markers .marker-item[data-kind="stalled"]`)))
	p.wait(`document.querySelector('#narration').textContent.includes('stalled pool shutdown')`, 10*time.Second)
	var scroll bool
	p.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &scroll)
	if scroll {
		t.Error("the page scrolls horizontally on a phone")
	}
	p.shot("markers-390")
	p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#export').scrollIntoView({block: 'start'})`))
	p.shot("export-390")
	p.noErrors()
}

// ranToEnd is the run of the URL query q, run to its end natively.
func ranToEnd(t *testing.T, q string) *lab.Lab {
	t.Helper()
	vals, _ := url.ParseQuery(q)
	cfg, err := lab.ParseConfig(vals)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.Run()
	return l
}
