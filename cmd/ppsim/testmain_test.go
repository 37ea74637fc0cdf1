package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain: this package's tests run the engine thousands of times (the
// golden corpus, the fast-forward comparisons), each run a fresh machine of
// pages; at the default pace (GOGC=100) the garbage collector took about a
// fifth of their CPU time. A heap goal of 4× the live heap (GOGC=400, a few
// hundred MB here) cuts that; a GOGC in the environment is kept as set.
// Only the collector's pace changes: no output depends on it.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
