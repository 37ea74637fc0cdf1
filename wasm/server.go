//go:build !wasm

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/tourprint"
	"pplab/engine/diagnose"
)

// webFiles are the files of web/ the page needs; a site is not complete
// without each of them.
var webFiles = []string{"app.wasm", "echarts.min.js", "app.css", "icon.svg", "icon-192.png", "icon-512.png"}

// newHandler is the go-app handler of the playground. prefix is a sub-path
// the static site is hosted under ("" for the root): only for generating,
// never for the live server: go-app's PrefixedLocation on a live Handler
// leaves its embedded file handler nil, so a request for /web/... panics
// (a live server under a sub-path would strip the prefix in front of a
// default Handler instead).
func newHandler(prefix string) *ga.Handler {
	h := &ga.Handler{
		Name:        "pplab",
		ShortName:   "pplab",
		Title:       "pplab — page_pool recycling, step by step",
		Description: "An interactive model of the Linux kernel's page_pool and sk_buff recycling: every page, every rule, every counter.",
		Author:      "pplab",
		Lang:        "en",
		Icon:        ga.Icon{Default: "/web/icon-192.png", Large: "/web/icon-512.png", SVG: "/web/icon.svg"},
		Styles:      []string{"/web/app.css"},
		// echarts.min.js is not a page script: the charts load it after the
		// first render (app/chart.go), so its 0.3 MB (brotli) is off the
		// first load's path; the service worker still caches it for offline.
		// The diagnosis page's model runs (sweepFile): cached too, so the
		// page diagnoses offline without running the model.
		CacheableResources: []string{"/web/echarts.min.js", "/web/" + diagnose.SweepFileName},
		Version:            version,
		LoadingLabel:       "Loading the pplab engine (WebAssembly) {progress}%",
		BackgroundColor:    "#ffffff",
		ThemeColor:         "#0072B2",
	}
	if prefix != "" {
		h.Resources = ga.PrefixedLocation(prefix)
	}
	return h
}

func serve() {
	addr := flag.String("addr", "127.0.0.1:8000", "address to serve the playground on (loopback by default)")
	gen := flag.String("gen", "", "write the static site to this directory instead of serving")
	prefix := flag.String("prefix", "", "with -gen: the sub-path the site is hosted under, e.g. /pplab")
	base := flag.String("base", "", "with -gen: the site's absolute https URL (e.g. https://example.org/pplab): the pages then carry og:url and og:image for link previews; without it they carry none")
	web := flag.String("web", "web", "the directory holding app.wasm, echarts.min.js, app.css and the icons")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected argument %q (flags: -addr, -gen, -prefix, -web, -cache)", flag.Arg(0)))
	}
	if err := checkWeb(*web); err != nil {
		fail(err)
	}
	if *gen != "" {
		if err := generate(*gen, *prefix, *base, *web); err != nil {
			fail(err)
		}
		fmt.Printf("pplab: static site written to %s (prefix %q)\n", *gen, *prefix)
		return
	}
	if *prefix != "" {
		fail(errors.New("-prefix is for -gen (the live server serves at /; put it behind a prefix-stripping proxy for a sub-path)"))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fail(fmt.Errorf("-addr %s: %w", *addr, err))
	}
	fmt.Printf("pplab: the playground is at http://%s/ (Ctrl-C stops it)\n", ln.Addr())
	go sweepJSON() // made while the server starts: the first request finds it
	log.Fatal(http.Serve(ln, withTourFigs(withSweep(withLoader(newHandler(""), *web)))))
}

// sweepJSON is the diagnosis page's model runs in the file's form
// (diagnose.WriteSweep), made once per process: the page fetches
// web/diagnose-sweep.json instead of running the model for seconds in the
// browser. The live server answers it from memory (web/ holds the built
// files only); the generated site carries it as a file (generate). Either
// way it is what this build's model computes: fresh by construction.
var sweepJSON = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	if err := diagnose.WriteSweep(&b); err != nil {
		log.Printf("pplab: the diagnosis sweep: %v", err)
		return nil
	}
	return b.Bytes()
})

// withSweep answers web/diagnose-sweep.json with sweepJSON, and every
// other request with h.
func withSweep(h http.Handler) http.Handler {
	path := "/web/" + diagnose.SweepFileName
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			h.ServeHTTP(w, r)
			return
		}
		b := sweepJSON()
		if b == nil {
			http.Error(w, "the sweep failed (see the server's log)", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, diagnose.SweepFileName, time.Time{}, bytes.NewReader(b))
	})
}

// writeSweep writes the sweep file into the site's web/ directory.
func writeSweep(dir string) error {
	b := sweepJSON()
	if b == nil {
		return fmt.Errorf("the diagnosis sweep failed")
	}
	return os.WriteFile(filepath.Join(dir, "web", diagnose.SweepFileName), b, 0o644)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pplab:", err)
	os.Exit(2)
}

// checkWeb: the served page needs every web file (go-app serves /web from
// the working directory's web/).
func checkWeb(dir string) error {
	for _, f := range webFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("%s is missing (run `make run`, which builds app.wasm and fetches echarts.min.js)", filepath.Join(dir, f))
		}
	}
	return nil
}

// generate writes the static site: go-app's pages (index.html, app.js, the
// worker, the manifest) and a copy of the web files.
func generate(dir, prefix, base, web string) error {
	if prefix != "" && (!strings.HasPrefix(prefix, "/") || strings.HasSuffix(prefix, "/")) {
		return fmt.Errorf("-prefix %q: want a path like /pplab (a leading slash, no trailing one)", prefix)
	}
	h := newHandler(prefix)
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || strings.TrimSuffix(u.Path, "/") != prefix {
			return fmt.Errorf("-base %q: want the site's absolute https URL, its path the -prefix (%q), e.g. https://example.org%s", base, prefix, prefix)
		}
		h.Domain = u.Host // go-app writes og:url and og:image as https://Domain/path
		h.Image = "/web/icon-512.png"
	}
	if err := ga.GenerateStaticWebsite(dir, withLoader(h, web), sitePages...); err != nil {
		return err
	}
	if base == "" {
		// Without the site's address go-app's og:url and og:image read
		// "https://": a preview that breaks every shared link. No tags
		// beat broken ones.
		if err := dropOGURLs(dir); err != nil {
			return err
		}
	}
	if err := pageDirs(dir); err != nil {
		return err
	}
	// GenerateStaticWebsite writes a 404 page with no error when no route
	// is registered: check that the page is the playground.
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !strings.Contains(string(index), `id="playground"`) {
		return fmt.Errorf("%s/index.html is not the playground (routes not registered?)", dir)
	}
	if err := placeTourPages(dir); err != nil {
		return err
	}
	if err := writeTourFigs(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "web"), 0o755); err != nil {
		return err
	}
	for _, f := range webFiles {
		if err := copyFile(filepath.Join(web, f), filepath.Join(dir, "web", f)); err != nil {
			return err
		}
	}
	if err := writeSweep(dir); err != nil {
		return err
	}
	return finishSite(dir)
}

// sitePages are the pages besides the playground (routes with a pattern,
// which go-app does not list itself). Each is also written as
// <page>/index.html, which any static host serves at <page>/.
var sitePages = []string{"/rules", "/whatif", "/diagnose", "/replay", "/compare"}

// pageDirs copies each of sitePages' <page>.html to <page>/index.html.
func pageDirs(dir string) error {
	for _, p := range sitePages {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			return err
		}
		if err := copyFile(filepath.Join(dir, p+".html"), filepath.Join(dir, p, "index.html")); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// placeTourPages moves each tour page to <path>/index.html: go-app writes
// the route /tour/<chapter>/ as tour/<chapter>.html, which a plain file
// server does not answer for /tour/<chapter>/ (GitHub Pages would, a
// python or Go file server would not). Each page must be the tour's.
func placeTourPages(dir string) error {
	for _, p := range tourPaths() {
		from := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, "/"))+".html")
		to := filepath.Join(dir, filepath.FromSlash(p), "index.html")
		b, err := os.ReadFile(from)
		if err != nil {
			return fmt.Errorf("the tour page %s was not generated: %v", p, err)
		}
		if !strings.Contains(string(b), `id="tour"`) {
			return fmt.Errorf("%s is not a tour page (routes not registered?)", from)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.Rename(from, to); err != nil {
			return err
		}
	}
	return nil
}

// tourFigDir is where the tour's static figures are (tour.Chapter.FigPath).
const tourFigDir = "/tour/fig/"

// writeTourFigs writes each tour preset's static figure, the picture a
// printed chapter shows after the paragraph that links it (app/tourprint,
// drawn from the engine's run of the preset: what this build's model
// computes).
func writeTourFigs(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(tourFigDir)), 0o755); err != nil {
		return err
	}
	return tourprint.Each(func(path string, svg []byte) error {
		if !strings.HasPrefix(path, tourFigDir) {
			return fmt.Errorf("the tour figure %s is not under %s", path, tourFigDir)
		}
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(path)), svg, 0o644)
	})
}

// withTourFigs answers the tour's figures (the live server: the site has
// them as files), drawn on the first request for each.
func withTourFigs(h http.Handler) http.Handler {
	var figs sync.Map // path -> []byte
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, tourFigDir) {
			h.ServeHTTP(w, r)
			return
		}
		b, ok := figs.Load(r.URL.Path)
		if !ok {
			svg, found, err := tourprint.ByPath(r.URL.Path)
			switch {
			case !found:
				http.NotFound(w, r)
				return
			case err != nil:
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			b, _ = figs.LoadOrStore(r.URL.Path, svg)
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b.([]byte)))
	})
}

// ogURLMeta is go-app's og:url and og:image tags (the ones that need the
// site's address).
var ogURLMeta = regexp.MustCompile(`[ \t]*<meta [^>]*property="og:(?:url|image)"[^>]*>\n?`) // go-app writes the attributes in any order

// dropOGURLs removes og:url and og:image from every HTML page under dir.
func dropOGURLs(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if out := ogURLMeta.ReplaceAll(b, nil); len(out) != len(b) {
			return os.WriteFile(path, out, 0o644)
		}
		return nil
	})
}
