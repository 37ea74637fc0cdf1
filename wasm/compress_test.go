//go:build !wasm

package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"

	"pplab/app/tour"
)

// fakeWasm is a compressible stand-in for app.wasm (the tests never need
// the real build): 100 KB of shuffled words.
func fakeWasm() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"page_pool", "alloc", "cache", "ptr_ring", "recycle", "skb", "\x00\x01\x02", "napi", "frag"}
	var b bytes.Buffer
	for b.Len() < 100<<10 {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(byte(r.IntN(256)))
	}
	return b.Bytes()
}

func unbrotli(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("brotli: %v", err)
	}
	return out
}

func ungzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return out
}

// checkTwins: p has p.br and p.gz, each smaller than p and decompressing to
// it.
func checkTwins(t *testing.T, p string) {
	t.Helper()
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []struct {
		ext    string
		decode func(*testing.T, []byte) []byte
	}{{".br", unbrotli}, {".gz", ungzip}} {
		b, err := os.ReadFile(p + enc.ext)
		if err != nil {
			t.Errorf("%s has no %s twin: %v", p, enc.ext, err)
			continue
		}
		if len(b) >= len(orig) {
			t.Errorf("%s%s is %d B, the file %d B", p, enc.ext, len(b), len(orig))
		}
		if got := enc.decode(t, b); !bytes.Equal(got, orig) {
			t.Errorf("%s%s does not decompress to %s (%d B, want %d)", p, enc.ext, p, len(got), len(orig))
		}
	}
}

func TestPrecompress_TwinsDecompressToTheOriginal(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	page := bytes.Repeat([]byte("<p>page_pool recycling, step by step</p>\n"), 60)
	files := map[string][]byte{
		"web/app.wasm":         fakeWasm(),
		"index.html":           page,
		"tour/x/a.html":        page,
		"app.js":               bytes.Repeat([]byte("console.log('x');\n"), 100),
		"small.js":             []byte("var x = 1;\n"),                // under minPrecompress
		"web/icon.png":         bytes.Repeat([]byte{0x89, 'P'}, 2000), // not a compressible kind
		"web/app.css":          bytes.Repeat([]byte("a { color: red; }\n"), 100),
		"manifest.webmanifest": bytes.Repeat([]byte(`{"name":"pplab"}`), 80),
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := precompress(dir, cache)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app.js", "index.html", "manifest.webmanifest", "tour/x/a.html", "web/app.css", "web/app.wasm"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("compressed %q, want %q", got, want)
	}
	for _, name := range want {
		checkTwins(t, filepath.Join(dir, filepath.FromSlash(name)))
	}
	for _, name := range []string{"small.js", "web/icon.png"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)) + ".br"); err == nil {
			t.Errorf("%s got a .br twin", name)
		}
	}
	// The large file's twins are cached (the smaller ones are not), and a
	// second run reads them back: the same bytes.
	entries, _ := os.ReadDir(cache)
	if len(entries) != 2 {
		t.Errorf("the cache holds %d files, want app.wasm's .br and .gz", len(entries))
	}
	first, _ := os.ReadFile(filepath.Join(dir, "web", "app.wasm.br"))
	if _, err := precompress(dir, cache); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(filepath.Join(dir, "web", "app.wasm.br"))
	if !bytes.Equal(first, second) {
		t.Errorf("the cached twin differs from the one compressed")
	}
	// The generator's own twins are not compressed again.
	if got2, _ := precompress(dir, ""); strings.Join(got2, " ") != strings.Join(want, " ") {
		t.Errorf("second run compressed %q, want %q", got2, want)
	}
}

var routesOnce sync.Once

// sites are the sites genSite generated, by prefix: the tests only read
// them, and a generation costs seconds (brotli at quality 11 on every
// page), so each prefix is generated once per process. TestMain removes
// them.
var sites = map[string]struct {
	dir      string
	wasmSize int
}{}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range sites {
		os.RemoveAll(s.dir)
	}
	os.Exit(code)
}

// genSite generates the static site from a web directory holding the
// project's committed web files and a stand-in app.wasm and echarts.min.js
// (once per prefix: sites).
func genSite(t *testing.T, prefix string) (dir string, wasmSize int) {
	t.Helper()
	return genSiteAt(t, prefix, "")
}

// genSiteAt is genSite with make site's -base (the site's absolute URL).
func genSiteAt(t *testing.T, prefix, base string) (dir string, wasmSize int) {
	t.Helper()
	key := prefix + "|" + base
	if s, ok := sites[key]; ok {
		return s.dir, s.wasmSize
	}
	routesOnce.Do(registerRoutes)
	web := t.TempDir()
	for _, f := range webFiles {
		var b []byte
		var err error
		switch f {
		case "app.wasm":
			b = fakeWasm()
		case "echarts.min.js":
			b = bytes.Repeat([]byte("window.echarts = window.echarts || {init: function () {}};\n"), 200)
		default:
			b, err = os.ReadFile(filepath.Join("..", "web", f))
			if err != nil {
				t.Fatal(err)
			}
		}
		if f == "app.wasm" {
			wasmSize = len(b)
		}
		if err := os.WriteFile(filepath.Join(web, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := *precompressCache
	*precompressCache = t.TempDir()
	defer func() { *precompressCache = old }()
	dir, err := os.MkdirTemp("", "pplab-site-")
	if err != nil {
		t.Fatal(err)
	}
	if err := generate(dir, prefix, base, web); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	sites[key] = struct {
		dir      string
		wasmSize int
	}{dir, wasmSize}
	return dir, wasmSize
}

func TestGenerate_EveryLargeAssetHasItsTwins(t *testing.T) {
	dir, _ := genSite(t, "")
	assets := []string{"web/app.wasm", "web/echarts.min.js", "app.js", "wasm_exec.js", "web/app.css", "app-worker.js", "index.html", "rules/index.html", "tour/index.html"}
	for _, c := range tour.Chapters() {
		assets = append(assets, strings.TrimPrefix(c.Path(), "/")+"index.html")
	}
	for _, a := range assets {
		checkTwins(t, filepath.Join(dir, filepath.FromSlash(a)))
	}
	// Every compressible file of 1 KiB or more has them, none is left out.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, _ := d.Info()
		if precompressible(p, info.Size()) {
			if _, err := os.Stat(p + ".br"); err != nil {
				t.Errorf("%s (%d B) has no .br", p, info.Size())
			}
			if _, err := os.Stat(p + ".gz"); err != nil {
				t.Errorf("%s (%d B) has no .gz", p, info.Size())
			}
		}
		return nil
	})
}
