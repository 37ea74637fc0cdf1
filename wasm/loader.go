//go:build !wasm

package main

import (
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app"
)

// The loading screen is go-app's own: app.js fetches app.wasm, counts the
// bytes of the body as it streams into WebAssembly.instantiateStreaming and
// writes the percentage into #app-wasm-loader-label (LoadingLabel's
// {progress}); web/app.css shows the loader as a bar over the prerendered
// page instead of go-app's full-screen cover.
//
// go-app divides the bytes read by the response's Content-Length unless
// WasmContentLength is set. From a host that compresses, Content-Length is
// the compressed size while the body is read decompressed, and the label
// ran to 540 % (9.6 MB of wasm over 1.77 MB of brotli); withLoader sets the
// uncompressed size, which is what the body counts on every host.
//
// The page's <head> also preloads app.wasm: go-app's app.js is a deferred
// script, and while echarts.min.js was a blocking script in the head its
// fetch of app.wasm started 1.2–1.4 s after the navigation at 10 Mbit/s;
// preloaded, the download starts as the head is parsed, and app.js's fetch
// (same URL, mode cors, credentials same-origin: what
// crossorigin="anonymous" asks for) takes the preloaded response. The
// charts now load echarts.min.js themselves after the first render
// (app/chart.go), so it no longer shares the link with the wasm either.
func withLoader(h *ga.Handler, web string) *ga.Handler {
	if info, err := os.Stat(filepath.Join(web, "app.wasm")); err == nil {
		h.WasmContentLength = strconv.FormatInt(info.Size(), 10)
	}
	root := "/"
	if h.Resources != nil {
		root = strings.TrimSuffix(h.Resources.Resolve("/web/app.wasm"), "web/app.wasm")
	}
	h.RawHeaders = append(h.RawHeaders, wasmPreload(h), app.EarlyKeysJS(root), app.EarlySubmitJS())
	return h
}

// wasmPreload is the <link> that preloads app.wasm, at the handler's prefix.
func wasmPreload(h *ga.Handler) string {
	u := "/web/app.wasm"
	if h.Resources != nil {
		u = h.Resources.Resolve(u)
	}
	return `<link rel="preload" href="` + html.EscapeString(u) + `" as="fetch" type="application/wasm" crossorigin="anonymous">`
}
