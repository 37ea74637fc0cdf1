package session

import (
	"bufio"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pplab/app/tour"
)

// Links that last: every link the project has handed out — each tour
// preset, every link in the README and in the tests, the embed corpus —
// opens the same resolved config at the same position after the URL form
// changes (testdata/links-v1.txt, taken with the v=1 reader: the query,
// then the ppsim line of the config it opened, its op and comparison).

var updateLinks = flag.Bool("update-links", false, "rewrite testdata/links-v1.txt from the sources (only while v=1 is the current form)")

// linkState is what a link opens, as a line of the corpus.
func linkState(q string) string {
	vals, err := url.ParseQuery(q)
	if err != nil {
		return "bad query: " + err.Error()
	}
	s := New(vals, nil)
	return fmt.Sprintf("%s | op %d | cmp %q", strings.Join(s.CLIArgs(), " "), s.Lab().Ops(), s.cmpMode)
}

// corpusSources are the links written in the project's files.
func corpusSources(t *testing.T) []string {
	lit := regexp.MustCompile("[\"`?(]((?:[A-Za-z0-9_.:%+-]+=[A-Za-z0-9_.:%+-]*&)*v=1(?:&[A-Za-z0-9_.:%+-]+=[A-Za-z0-9_.:%+-]*)*)[\"`)]")
	var out []string
	for _, glob := range []string{"../../README.md", "../../e2e/*.go", "*_test.go", "../*_test.go", "../../docs/*.md"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
				out = append(out, m[1])
			}
		}
	}
	for _, c := range tour.Chapters() {
		for _, p := range c.Presets {
			if q, err := p.Query(); err == nil {
				out = append(out, q.Encode())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestLinks_OldLinksOpenTheSameState(t *testing.T) {
	if *updateLinks {
		var b strings.Builder
		b.WriteString("# Links in the URL form v=1 as the project handed them out (tour presets, README,\n# tests), each with the state the v=1 reader opened: ppsim line | op | comparison.\n# A later URL form must keep opening each the same (TestLinks_OldLinksOpenTheSameState).\n")
		for _, q := range corpusSources(t) {
			fmt.Fprintf(&b, "%s\t%s\n", q, linkState(q))
		}
		if err := os.WriteFile("testdata/links-v1.txt", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open("testdata/links-v1.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("line %q: want QUERY<TAB>STATE", line)
		}
		n++
		if got := linkState(q); got != want {
			t.Errorf("%s\n\topens  %s\n\twas    %s", q, got, want)
		}
	}
	if n < 50 {
		t.Errorf("%d links in testdata/links-v1.txt", n)
	}
}
