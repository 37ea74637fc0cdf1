//go:build !wasm

package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pplab/engine/diagnose"
)

// TestGenerate_TheSweepFile: the generated site carries the diagnosis
// page's model runs as web/diagnose-sweep.json, byte for byte what the
// sweep computes (diagnose.WriteSweep), decodable by this build, with its
// compressed twins; the service worker caches it; the live server answers
// it from memory.
func TestGenerate_TheSweepFile(t *testing.T) {
	var want bytes.Buffer
	if err := diagnose.WriteSweep(&want); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"", "/pplab"} {
		dir, _ := genSite(t, prefix)
		got, err := os.ReadFile(filepath.Join(dir, "web", diagnose.SweepFileName))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("prefix %q: the site's %s (%d bytes) is not the sweep (%d bytes)", prefix, diagnose.SweepFileName, len(got), want.Len())
		}
		if _, err := diagnose.DecodeSweep(got); err != nil {
			t.Error(err)
		}
		for _, twin := range []string{".br", ".gz"} {
			if _, err := os.Stat(filepath.Join(dir, "web", diagnose.SweepFileName+twin)); err != nil {
				t.Errorf("prefix %q: no %s twin: %v", prefix, twin, err)
			}
		}
		worker, err := os.ReadFile(filepath.Join(dir, "app-worker.js"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(worker), `"`+prefix+`/web/`+diagnose.SweepFileName+`"`) {
			t.Errorf("prefix %q: the service worker does not cache %s", prefix, diagnose.SweepFileName)
		}
	}
	srv := httptest.NewServer(withSweep(http.NotFoundHandler()))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/web/" + diagnose.SweepFileName)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" || !bytes.Equal(b, want.Bytes()) {
		t.Errorf("the live server: %s %q, %d bytes", res.Status, res.Header.Get("Content-Type"), len(b))
	}
}
