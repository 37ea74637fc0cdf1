//go:build !wasm

package main

import (
	"bytes"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pplab/app/tour"
)

// A boolean attribute is true by being there: no prerendered page writes
// one as ="false" (go-app's Selected(false) did: the what-if page's selects
// showed their last option and two tour chapters an open <details> until
// the app was up), and none has a checkbox (app/boolattr.go).
func TestGenerate_NoFalseBooleanAttributes(t *testing.T) {
	dir, _ := genSite(t, "")
	re := regexp.MustCompile(`\s(selected|checked|open|hidden|disabled|readonly|required|multiple|autofocus)="false"`)
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if m := re.FindAllString(string(b), 3); m != nil {
			t.Errorf("%s: %q", strings.TrimPrefix(path, dir), m)
		}
		if strings.Contains(string(b), `type="checkbox"`) {
			t.Errorf("%s: a prerendered checkbox (its checked=\"false\" would read as checked)", strings.TrimPrefix(path, dir))
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("%d pages read: %v", n, err)
	}
}

// The page's text is in the HTML before any wasm runs: the title, what
// pplab is, and the tour's chapter list with a link to each chapter (the
// playground's page and the tour's), at the root and under a sub-path.
func TestGenerate_PrerenderedText(t *testing.T) {
	for _, prefix := range []string{"", "/pplab"} {
		dir, wasmSize := genSite(t, prefix)
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		index := read("index.html")
		wants := []string{
			"<title>pplab — page_pool recycling, step by step</title>",
			"A model of the Linux kernel&#39;s page_pool and sk_buff recycling rules.",
			"pplab runs a Go model of the kernel&#39;s page_pool",
			`id="intro-tour"`,
			`href="` + prefix + `/tour/"`,
			`href="` + prefix + `/rules/"`,
			// The loader and the preload of app.wasm at the site's prefix.
			`id="app-wasm-loader-label"`,
			`<link rel="preload" href="` + prefix + `/web/app.wasm" as="fetch" type="application/wasm" crossorigin="anonymous">`,
		}
		for _, c := range tour.Chapters() {
			wants = append(wants, `<a href="`+prefix+c.Path()+`">`+html.EscapeString(c.Title)+`</a>`, html.EscapeString(c.Lede))
		}
		for _, w := range wants {
			if !strings.Contains(index, w) {
				t.Errorf("prefix %q: index.html lacks %s", prefix, w)
			}
		}
		tourIndex := read("tour/index.html")
		for _, c := range tour.Chapters() {
			if !strings.Contains(tourIndex, `href="`+prefix+c.Path()+`"`) {
				t.Errorf("prefix %q: tour/index.html does not link %s", prefix, c.Path())
			}
		}
		// The loader counts the decompressed bytes against app.wasm's own
		// size, whatever the host's Content-Length.
		if js := read("app.js"); !strings.Contains(js, `const goappWasmContentLength = "`+strconv.Itoa(wasmSize)+`";`) {
			t.Errorf("prefix %q: app.js does not carry app.wasm's size %d for the loader's percentage", prefix, wasmSize)
		}
	}
}

// A link preview needs the site's address: without make site's -base the
// pages carry no og:url or og:image (go-app wrote "https://", which breaks
// every shared link's preview); with it, both are absolute URLs of the site.
func TestGenerate_OpenGraphOnlyWithABaseURL(t *testing.T) {
	dir, _ := genSite(t, "/pplab")
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `property="og:url"`) || strings.Contains(string(b), `property="og:image"`) {
		t.Errorf("a site without -base carries og:url or og:image")
	}
	// go-app writes a tag's attributes in any order: the removal must not
	// depend on it.
	for _, tag := range []string{`<meta property="og:url" content="https://">`, `<meta content="https://" property="og:image">`} {
		if got := ogURLMeta.ReplaceAllString("  "+tag+"\n", ""); got != "" {
			t.Errorf("%s is left as %q", tag, got)
		}
	}
	if !strings.Contains(string(b), `property="og:title"`) {
		t.Errorf("the title preview went too")
	}
	dir, _ = genSiteAt(t, "/pplab", "https://example.org/pplab")
	b, err = os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	metaURL := regexp.MustCompile(`<meta [^>]*property="og:url"[^>]*>`).Find(b)
	metaImg := regexp.MustCompile(`<meta [^>]*property="og:image"[^>]*>`).Find(b)
	if !strings.Contains(string(metaURL), `content="https://example.org/pplab"`) || !strings.Contains(string(metaImg), `content="https://example.org/pplab/web/icon-512.png"`) {
		head := string(b)
		if i := strings.Index(head, "</head>"); i > 0 {
			head = head[:i]
		}
		t.Errorf("with -base the og:url is not the site's: %s\n(the page's head: %.3000s)", regexp.MustCompile(`<meta property="og:[^>]*>`).FindAll(b, -1), head)
	}
	for _, bad := range []string{"http://example.org/pplab", "https://example.org/other", "example.org/pplab", "https://example.org/pplab?x=1"} {
		if err := generate(t.TempDir(), "/pplab", bad, "../web"); err == nil || !strings.Contains(err.Error(), "-base") {
			t.Errorf("-base %s: %v", bad, err)
		}
	}
}

// TestGenerate_TheDiagnosisPageBeforeTheApp: until app.wasm is up the
// diagnosis page shows its empty answer ("Nothing yet: paste your
// counters…"), not an empty diagnosis's ("() — 0 lines, 0 read as
// page_pool counters … 0 snapshot(s)"), and no attribute reads a literal
// "\n" (go-app writes attributes with strconv.Quote).
func TestGenerate_TheDiagnosisPageBeforeTheApp(t *testing.T) {
	dir, _ := genSite(t, "")
	b, err := os.ReadFile(filepath.Join(dir, "diagnose", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, `id="diag-empty"`) || strings.Contains(page, "snapshot(s)") {
		t.Error("diagnose/index.html does not show the empty answer")
	}
	if m := regexp.MustCompile(`="[^"]*\\n[^"]*"`).FindString(page); m != "" {
		t.Errorf("diagnose/index.html: an attribute with a literal \\n: %s", m)
	}
}

// TestGenerate_TheComparisonPage: compare/index.html is in the site (at
// the root and under a sub-path), its text before the app: the heading,
// the two cases as links to the page with their two-run query,
// and what it waits for.
func TestGenerate_TheComparisonPage(t *testing.T) {
	for _, prefix := range []string{"", "/pplab"} {
		dir, _ := genSite(t, prefix)
		b, err := os.ReadFile(filepath.Join(dir, "compare", "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, w := range []string{"two kernels side by side", `id="cmp-example-1"`, `id="cmp-example-2"`, "with.era=6.10", "with.era=6.19", `id="cmp-loading"`} {
			if !strings.Contains(page, w) {
				t.Errorf("prefix %q: compare/index.html lacks %s", prefix, w)
			}
		}
	}
}

// TestGenerate_EveryPrintFigureIsInTheSite: each tour chapter's page
// carries, after the paragraphs, a print figure for every preset its
// paragraphs link (each once), whose picture is in the generated site at
// the address the page gives (at the root and under a sub-path), an SVG
// that loads with the page (no lazy loading: a print must find it). What
// the pictures draw: app/tourprint's TestSVG_EveryPresetDrawsItsStateAndSubject.
func TestGenerate_EveryPrintFigureIsInTheSite(t *testing.T) {
	// go-app writes the attributes in any order, and a '>' in a value as it is.
	figRe := regexp.MustCompile(`<figure (?:[^>"]|"[^"]*")*class="print-fig"(?:[^>"]|"[^"]*")*>\s*<img ((?:[^>"]|"[^"]*")*)>`)
	srcRe := regexp.MustCompile(`(?:^|\s)src="([^"]*)"`)
	for _, prefix := range []string{"", "/pplab"} {
		dir, _ := genSite(t, prefix)
		n := 0
		for _, c := range tour.Chapters() {
			b, err := os.ReadFile(filepath.Join(dir, "tour", c.Slug, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, para := range c.Paras {
				for _, in := range tour.MustParse(para, c.Era) {
					if pr, ok := c.Preset(in.Preset); in.Kind == tour.KindPreset && ok && !slices.Contains(want, prefix+c.FigPath(pr)) {
						want = append(want, prefix+c.FigPath(pr))
					}
				}
			}
			var got []string
			for _, m := range figRe.FindAllStringSubmatch(string(b), -1) {
				if strings.Contains(m[1], "loading=") {
					t.Errorf("prefix %q, %s: a print figure loads lazily: <img %s>", prefix, c.Slug, m[1])
				}
				s := srcRe.FindStringSubmatch(m[1])
				if s == nil {
					t.Errorf("prefix %q, %s: <img %s> has no src", prefix, c.Slug, m[1])
					continue
				}
				got = append(got, html.UnescapeString(s[1]))
			}
			if !slices.Equal(got, want) {
				t.Errorf("prefix %q, %s: the print figures are\n%q\nwant (one per linked preset, in the order of the links)\n%q", prefix, c.Slug, got, want)
			}
			for _, src := range got {
				rel, ok := strings.CutPrefix(src, prefix+"/")
				svg, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
				if !ok || err != nil || !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg ")) {
					t.Errorf("prefix %q, %s: the picture %s is not an SVG of the site: %v", prefix, c.Slug, src, err)
				}
				n++
			}
		}
		if n < len(tour.Chapters()) {
			t.Errorf("prefix %q: %d print figures in all", prefix, n)
		}
	}
}

// The live server (make run) answers the tour's figures as the site has
// them: an SVG at each preset's path, 404 for another name under
// tour/fig/, and every other path from the page's handler.
func TestServe_TheTourFigures(t *testing.T) {
	c := tour.Chapters()[0]
	srv := httptest.NewServer(withTourFigs(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	})))
	defer srv.Close()
	for _, tc := range []struct {
		path string
		code int
	}{{c.FigPath(c.Presets[0]), 200}, {c.FigPath(c.Presets[0]), 200}, {"/tour/fig/no-such.svg", 404}, {c.Path(), http.StatusTeapot}} {
		res, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.code {
			t.Errorf("%s: %d, want %d", tc.path, res.StatusCode, tc.code)
		}
		if tc.code == 200 && (res.Header.Get("Content-Type") != "image/svg+xml" || !bytes.Contains(b, []byte("<svg "))) {
			t.Errorf("%s: %s, %.80q", tc.path, res.Header.Get("Content-Type"), b)
		}
	}
}
