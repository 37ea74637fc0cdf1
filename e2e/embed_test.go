//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"pplab/engine/lab"
)

// Embed mode (?embed=1) as a docs page uses it: inside a real <iframe> on a
// page from another origin (the host is served on localhost, the site on
// 127.0.0.1: another site, so Chromium runs the frame out of process).

// host is the second origin: it serves the host pages the tests register.
var host struct {
	once  sync.Once
	url   string // http://localhost:PORT/
	pages sync.Map
}

// hostPage serves body as a host page and returns its URL.
func hostPage(t *testing.T, name, body string) string {
	t.Helper()
	host.once.Do(func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, ok := host.pages.Load(strings.TrimPrefix(r.URL.Path, "/"))
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, b)
		}))
		s.Listener.Close()
		s.Listener = ln
		s.Start() // closed with the test binary
		host.url = "http://localhost:" + fmt.Sprint(ln.Addr().(*net.TCPAddr).Port) + "/"
	})
	host.pages.Store(name, body)
	return host.url + name
}

// hostHTML is a docs page around snippet (the embed snippet as the
// playground copies it) that records every pplab:height message.
func hostHTML(snippet string) string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,"><title>a docs page</title><style>body{font-family:sans-serif;margin:16px;max-width:960px}</style></head><body>
<h1>A docs page</h1><p>Some prose about page_pool, then the figure:</p>
<script>window.__heights = []; addEventListener("message", e => { if (e.data && e.data.type === "pplab:height")
	window.__heights.push({height: e.data.height, origin: e.origin, fromFrame: e.source === document.querySelector("iframe").contentWindow}) });</script>
` + snippet + `
<p>Prose after the figure.</p></body></html>`
}

// frame attaches to the out-of-process iframe whose URL has prefix and
// waits for the wasm to mount in it. Its console errors (after the attach)
// are collected into errs.
func (p *page) frame(prefix string) (ctx context.Context, errs func() []string) {
	p.t.Helper()
	var id string
	for try := 0; try < 100 && id == ""; try++ {
		infos, err := chromedp.Targets(p.ctx)
		if err != nil {
			p.t.Fatal(err)
		}
		for _, info := range infos {
			if info.Type == "iframe" && strings.HasPrefix(info.URL, prefix) {
				id = string(info.TargetID)
			}
		}
		if id == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if id == "" {
		p.t.Fatalf("no iframe target at %s", prefix)
	}
	fctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(target.ID(id)))
	p.t.Cleanup(cancel)
	var mu sync.Mutex
	var logs []string
	if err := chromedp.Do(fctx); err != nil {
		p.t.Fatalf("attaching to the iframe: %v", err)
	}
	go func() {
		for m, err := range chromedp.Console(fctx) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				logs = append(logs, m.String())
				mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(fctx, chromedp.Poll[chromedp.Void](`window.__pplab !== undefined && window.__pplab.mounted === true`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		p.t.Fatalf("the embed did not mount in its iframe: %v", err)
	}
	return fctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), logs...) }
}

// feval evaluates expr in ctx (a frame) into out.
func (p *page) feval(ctx context.Context, expr string, out any) {
	p.t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string]("JSON.stringify("+expr+")"))
	if err != nil {
		p.t.Fatalf("evaluate in the frame %s: %v", expr, err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		p.t.Fatalf("evaluate in the frame %s: %v (%s)", expr, err, s)
	}
}

// settledHeights waits until the embed in fctx has sent no height for
// 600 ms and its last report is the height it measures, and returns how
// many reports the host has had.
func (p *page) settledHeights(fctx context.Context) int {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n, last, own int
		p.eval(`window.__heights.length`, &n)
		time.Sleep(600 * time.Millisecond)
		p.eval(`window.__heights.length ? window.__heights[window.__heights.length-1].height : 0`, &last)
		p.feval(fctx, `Math.ceil(document.getElementById('playground').getBoundingClientRect().bottom + scrollY)`, &own)
		var m int
		p.eval(`window.__heights.length`, &m)
		if m == n && last == own {
			return n
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the embed's height reports did not settle in 20 s: %d then %d reports, last %d px, the embed measures %d", n, m, last, own)
		}
	}
}

// stateOf is a link's state: its query without embed.
func stateOf(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Del("embed")
	return q
}

// TestEmbed_InAnIframeOnAnotherOrigin: the full page's "copy embed
// snippet" gives an <iframe>; on a docs page from another origin it shows
// the figure at the state (the machine, the step controls, the narration
// line — not the rest of the playground), reports its height (on load and
// when the host's width changes; the snippet's script sizes the iframe
// from it), and its "open in pplab" link opens the same state in the full
// playground.
func TestEmbed_InAnIframeOnAnotherOrigin(t *testing.T) {
	t.Parallel()
	cfg := teaching(t, lab.Config{Scenario: "tcp-stream", Era: "6.4"})
	q := cfg.Values()
	q.Set("step", "137")
	p := newPage(t, 1280, 800)
	p.open(rootURL + "?" + q.Encode())
	var state string
	p.eval(`window.__pplab.url`, &state)
	p.do(chromedp.Click(chromedp.CSS("#btn-embed")))
	p.wait(`document.querySelector('#banner').textContent.includes('<iframe')`, 10*time.Second)
	banner := p.text("#banner")
	i, j := strings.Index(banner, "<iframe"), strings.LastIndex(banner, "</script>")
	if i < 0 || j < i {
		t.Fatalf("banner %q: no snippet", banner)
	}
	snippet := banner[i : j+len("</script>")]
	for _, want := range []string{`title="pplab: tcp-stream on bnxt, kernel 6.4, op 137"`, `height="`, `embed=1`, `step=137`, `src="` + rootURL + `?`} {
		if !strings.Contains(snippet, want) {
			t.Errorf("snippet %q lacks %q", snippet, want)
		}
	}
	t.Logf("snippet: %s", snippet)

	p.do(chromedp.Navigate(hostPage(t, "docs", hostHTML(snippet))))
	fctx, frameErrs := p.frame(rootURL)
	var op float64
	p.feval(fctx, `window.__pplab.op`, &op)
	if op != 137 {
		t.Errorf("the embed opened at op %v, want 137", op)
	}
	var shown struct {
		Tiles, Steps, Narration, Controls, Charts, Stats int
		Line, Href, Target                               string
	}
	p.feval(fctx, `({Tiles: document.querySelectorAll('#machine .tile').length, Steps: document.querySelectorAll('#timeline #btn-step, #timeline #btn-back, #timeline #btn-play').length,
		Narration: document.querySelectorAll('#narration-text').length, Controls: document.querySelectorAll('#controls').length,
		Charts: document.querySelectorAll('#charts').length, Stats: document.querySelectorAll('#stats').length,
		Line: document.querySelector('#narration-text').textContent, Href: document.querySelector('#open-full').href, Target: document.querySelector('#open-full').target})`, &shown)
	if shown.Tiles == 0 || shown.Steps != 3 || shown.Narration != 1 || !strings.HasPrefix(shown.Line, "op 137 ") {
		t.Errorf("the embed shows %+v: want the machine, the step controls and the narration of op 137", shown)
	}
	if shown.Controls+shown.Charts+shown.Stats != 0 {
		t.Errorf("the embed shows the playground's controls/charts/stats: %+v", shown)
	}
	if shown.Target != "_blank" && shown.Target != "_top" {
		t.Errorf("open in pplab: target %q", shown.Target)
	}

	// Its height, reported to the host on load.
	type msg struct {
		Height    int
		Origin    string
		FromFrame bool
	}
	var hs []msg
	p.wait(`window.__heights.length > 0`, 20*time.Second)
	p.eval(`window.__heights`, &hs)
	origin := strings.TrimSuffix(rootURL, "/")
	last := hs[len(hs)-1]
	if last.Origin != origin || !last.FromFrame || last.Height < 300 {
		t.Errorf("height messages %+v: want the embed's origin %s and a height", hs, origin)
	}
	var own int
	p.feval(fctx, `Math.ceil(document.getElementById('playground').getBoundingClientRect().bottom + scrollY)`, &own)
	var framed int
	p.wait(`document.querySelector('iframe').getBoundingClientRect().height === window.__heights[window.__heights.length-1].height`, 10*time.Second)
	p.eval(`document.querySelector('iframe').getBoundingClientRect().height`, &framed)
	if own != last.Height || framed != last.Height {
		t.Errorf("the embed measures %d px, reported %d, the host sized the iframe %d", own, last.Height, framed)
	}
	t.Logf("height messages on load: %+v; the snippet's first height %s", hs, snippet[strings.Index(snippet, `height="`):][:14])
	p.shot("embed-host-desktop")

	// A narrower host: the embed's layout reflows and it says its new height.
	n0 := len(hs)
	p.do(chromedp.EmulateViewport(600, 800))
	p.wait(fmt.Sprintf(`window.__heights.length > %d && window.__heights[window.__heights.length-1].height !== %d`, n0, last.Height), 20*time.Second)
	p.eval(`window.__heights`, &hs)
	p.feval(fctx, `Math.ceil(document.getElementById('playground').getBoundingClientRect().bottom + scrollY)`, &own)
	p.wait(`document.querySelector('iframe').getBoundingClientRect().height === window.__heights[window.__heights.length-1].height`, 10*time.Second)
	if h := hs[len(hs)-1].Height; h != own {
		t.Errorf("after the resize: reported %d, the embed measures %d", h, own)
	}
	t.Logf("after the host narrowed to 600 px: %+v", hs[n0:])

	// Stepping inside the embed works, and says a new height if it changed.
	p.do(chromedp.EmulateViewport(1280, 800))
	if err := chromedp.Do(fctx, chromedp.Click(chromedp.CSS("#btn-step"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(fctx, chromedp.Poll[chromedp.Void](`window.__pplab.op === 138`, chromedp.WithPollingTimeout(minWait))); err != nil {
		t.Fatalf("a step in the embed: %v", err)
	}
	if errs := frameErrs(); len(errs) > 0 {
		t.Errorf("console errors in the embed: %q", errs)
	}

	// Playing, the embed's height only grows (the narration's line count
	// changes from step to step: its height jittered 1306↔1338 px and the
	// host page jumped at every step). The reports of the host's widening
	// back to 1280 px and of the step come asynchronously (a
	// ResizeObserver, then postMessage): wait until they have stopped and
	// the last one is the embed's own height, so that what is compared is
	// only what came while playing (CI once counted the widening's 2015 →
	// 1829 px as the play's).
	before := p.settledHeights(fctx)
	if err := chromedp.Do(fctx, chromedp.Click(chromedp.CSS("#btn-play"))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	var during []msg
	p.eval(`window.__heights`, &during)
	if err := chromedp.Do(fctx, chromedp.Click(chromedp.CSS("#btn-play"))); err != nil {
		t.Fatal(err)
	}
	for i := before + 1; i < len(during); i++ {
		if during[i].Height < during[i-1].Height {
			t.Errorf("while playing the embed's height went %d → %d (messages %+v)", during[i-1].Height, during[i].Height, during[before:])
			break
		}
	}

	// Open in pplab: the full playground at the same state.
	p.open(shown.Href)
	var full string
	p.eval(`window.__pplab.url`, &full)
	if got, want := stateOf(t, full).Encode(), stateOf(t, state).Encode(); got != want {
		t.Errorf("open in pplab opened %s, want %s", got, want)
	}
	if strings.Contains(shown.Href, "embed=") {
		t.Errorf("open in pplab: %s carries embed", shown.Href)
	}
	var charts int
	p.eval(`document.querySelectorAll('#charts, #controls').length`, &charts)
	if op := p.state()["op"]; op != float64(137) || charts != 2 {
		t.Errorf("open in pplab: op %v, %d of the full page's panels", op, charts)
	}
	p.noErrors()
}

// oldEmbedURLs are the v=1 embed URLs kept in app/session/testdata (the
// native test checks every one's state): each query and its step.
func oldEmbedURLs(t *testing.T) (qs []string, steps []string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "app", "session", "testdata", "embed-v1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, state, _ := strings.Cut(line, " => ")
		qs, steps = append(qs, q), append(steps, strings.Fields(state)[3])
	}
	return qs, steps
}

// TestEmbed_AnOldVersionURLStillLoads: embed URLs in the v=1 form open at
// their step without a notice, in an iframe on another origin and on their
// own. In the browser the first two of app/session/testdata/embed-v1.txt;
// every one natively: app/session TestEmbed_OldVersionURLsKeepTheirState.
func TestEmbed_AnOldVersionURLStillLoads(t *testing.T) {
	t.Parallel()
	qs, steps := oldEmbedURLs(t)
	p := newPage(t, 1280, 800)
	src := rootURL + "?" + qs[0]
	p.do(chromedp.Navigate(hostPage(t, "old", hostHTML(`<iframe src="`+strings.ReplaceAll(src, "&", "&amp;")+`" title="an old embed" width="100%" height="600" style="border:0"></iframe>`))))
	fctx, frameErrs := p.frame(rootURL)
	var got struct {
		Op     float64
		Banner string
		Tiles  int
	}
	p.feval(fctx, `({Op: window.__pplab.op, Banner: document.querySelector('#banner').textContent, Tiles: document.querySelectorAll('#machine .tile').length})`, &got)
	if fmt.Sprint(got.Op) != steps[0] || got.Banner != "" || got.Tiles == 0 {
		t.Errorf("%s in an iframe: %+v, want op %s and no notice", qs[0], got, steps[0])
	}
	if errs := frameErrs(); len(errs) > 0 {
		t.Errorf("console errors in the embed: %q", errs)
	}
	for i, q := range qs[1:2] {
		p.open(rootURL + "?" + q)
		p.eval(`({Op: window.__pplab.op, Banner: document.querySelector('#banner').textContent, Tiles: document.querySelectorAll('#machine .tile').length})`, &got)
		if fmt.Sprint(got.Op) != steps[i+1] || got.Banner != "" || got.Tiles == 0 {
			t.Errorf("%s: %+v, want op %s and no notice", q, got, steps[i+1])
		}
		var embed int
		p.eval(`document.querySelectorAll('main.embed #open-full').length`, &embed)
		if embed != 1 {
			t.Errorf("%s is not shown as an embed", q)
		}
	}
	p.noErrors()
}
