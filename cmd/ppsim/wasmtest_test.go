package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWasmTest_RunsTestsThatExist: make wasm-test runs, under Node.js, the
// tests its WASM_TESTS pattern names (go test -run); a pattern that matches
// no test (a test renamed) would pass silently, so each alternative must
// match a test of cmd/ppsim or engine/lab, and TestGolden (the wasm
// sample of the corpus) must be one.
func TestWasmTest_RunsTestsThatExist(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^WASM_TESTS = \^\((.*)\)\$\$$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no line WASM_TESTS = ^(...)$$")
	}
	var tests []string
	for _, dir := range []string{".", "../../engine/lab"} {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, fn := range regexp.MustCompile(`(?m)^func (Test\w*)\(t \*testing\.T\)`).FindAllSubmatch(src, -1) {
				tests = append(tests, string(fn[1]))
			}
		}
	}
	alts := strings.Split(string(m[1]), "|")
	for _, alt := range alts {
		re, err := regexp.Compile("^(" + alt + ")$")
		if err != nil {
			t.Errorf("WASM_TESTS: %q: %v", alt, err)
			continue
		}
		var hit []string
		for _, name := range tests {
			if re.MatchString(name) {
				hit = append(hit, name)
			}
		}
		if len(hit) == 0 {
			t.Errorf("WASM_TESTS: %q matches no test of cmd/ppsim or engine/lab", alt)
		}
		t.Logf("%s: %s", alt, strings.Join(hit, " "))
	}
	if !strings.Contains("|"+string(m[1])+"|", "|TestGolden|") {
		t.Errorf("WASM_TESTS does not run TestGolden (the wasm sample of the golden corpus)")
	}
}
