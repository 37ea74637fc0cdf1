//go:build !wasm

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// The static site is served as files: a host that can send a file's
// pre-compressed twin (nginx gzip_static / brotli_static, Caddy's
// precompressed, Apache with a rewrite) saves the compressing per request
// and gets brotli at its best quality, which no host runs on the fly.
// precompress writes X.br and X.gz beside each large compressible file X.

// minPrecompress: files under it are sent as they are (a compressed twin
// saves less than a packet).
const minPrecompress = 1024

// precompressExts are the kinds of file worth compressing (the PNG icons
// are compressed already).
var precompressExts = map[string]bool{
	".html": true, ".js": true, ".css": true, ".wasm": true,
	".webmanifest": true, ".svg": true, ".json": true,
}

// brotliQuality and brotliWindow: the best brotli (quality 11, a 16 MiB
// window, enough for app.wasm in one) — what `brotli -q 11 -w 24` writes,
// byte for byte (andybalholm/brotli is a port of the reference encoder).
const (
	brotliQuality = 11
	brotliWindow  = 24
)

// precompressKey names the encoder and its settings in the cache keys: a
// change of either makes new entries.
const precompressKey = "andybalholm/brotli v1.3.0 q11 w24; compress/gzip 9"

// minCached: compressed twins of files at least this large are kept in the
// cache directory, by the hash of their content (app.wasm takes about 40 s
// at quality 11 on one core; the e2e tests generate the site twice).
const minCached = 64 << 10

// precompressible says whether the file at path (of size bytes) gets its
// compressed twins.
func precompressible(path string, size int64) bool {
	return size >= minPrecompress && precompressExts[strings.ToLower(filepath.Ext(path))]
}

// precompress writes X.br and X.gz beside every precompressible file X under
// dir and returns the files it compressed (relative to dir, sorted). cache is
// a directory of earlier results ("" for none); a cache that cannot be
// written is not an error.
func precompress(dir, cache string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if precompressible(p, info.Size()) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The largest first: app.wasm's brotli runs while the rest are done.
	sort.Slice(files, func(i, j int) bool { return fileSize(files[i]) > fileSize(files[j]) })
	jobs := make(chan string)
	errs := make(chan error, len(files))
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				errs <- compressFile(p, cache)
			}
		}()
	}
	for _, p := range files {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return nil, err
		}
	}
	rel := make([]string, len(files))
	for i, p := range files {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return nil, err
		}
		rel[i] = filepath.ToSlash(r)
	}
	sort.Strings(rel)
	return rel, nil
}

func fileSize(p string) int64 {
	info, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return info.Size()
}

// compressFile writes p.br and p.gz, with p's modification time.
func compressFile(p, cache string) error {
	src, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	for _, enc := range []struct {
		ext      string
		compress func([]byte) ([]byte, error)
	}{{".br", brotliBytes}, {".gz", gzipBytes}} {
		out, err := cached(cache, src, enc.ext, enc.compress)
		if err != nil {
			return fmt.Errorf("compressing %s: %w", p, err)
		}
		if err := os.WriteFile(p+enc.ext, out, 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(p+enc.ext, info.ModTime(), info.ModTime()); err != nil {
			return err
		}
	}
	return nil
}

// cached is compress(src), from the cache when it holds it.
func cached(cache string, src []byte, ext string, compress func([]byte) ([]byte, error)) ([]byte, error) {
	if cache == "" || len(src) < minCached {
		return compress(src)
	}
	h := sha256.New()
	h.Write([]byte(precompressKey))
	h.Write([]byte{0})
	h.Write(src)
	name := filepath.Join(cache, hex.EncodeToString(h.Sum(nil))+ext)
	if b, err := os.ReadFile(name); err == nil {
		return b, nil
	}
	out, err := compress(src)
	if err != nil {
		return nil, err
	}
	if os.MkdirAll(cache, 0o755) == nil {
		if tmp, err := os.CreateTemp(cache, "tmp-*"); err == nil {
			_, werr := tmp.Write(out)
			cerr := tmp.Close()
			if werr != nil || cerr != nil || os.Rename(tmp.Name(), name) != nil {
				os.Remove(tmp.Name())
			}
		}
	}
	return out, nil
}

func brotliBytes(src []byte) ([]byte, error) {
	var b bytes.Buffer
	w := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: brotliQuality, LGWin: brotliWindow})
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func gzipBytes(src []byte) ([]byte, error) {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// defaultPrecompressCache is the user's cache directory's pplab/precompressed
// ("" when there is none).
func defaultPrecompressCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "pplab", "precompressed")
}

// precompressCache is -cache: where the generator keeps the compressed twins
// of large files between runs.
var precompressCache = flag.String("cache", defaultPrecompressCache(), "with -gen: a directory keeping the brotli and gzip twins of large files between runs (\"\" for none)")

// finishSite is the generator's last step: the compressed twins.
func finishSite(dir string) error {
	_, err := precompress(dir, *precompressCache)
	return err
}
