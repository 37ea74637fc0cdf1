package perf

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// lineErr: a listing's error names its line, or is one of the errors about
// the whole input.
var lineErr = regexp.MustCompile(`^(line \d+: |no profile lines found|more than \d+ bytes|not text: )`)

// FuzzParseProfile: arbitrary bytes never panic the reader; an error names
// a line (or the whole input); a listing that parses has shares from 0 to
// 100 % adding up to at most 100 %, one line per listed symbol at most.
func FuzzParseProfile(f *testing.F) {
	for _, name := range ProfileNames() {
		_, text, err := ShippedProfile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(text))
	}
	for _, s := range []string{"", "\ufeff  1.00%  [k] kfree_skb\n", "  abc%  [k] x\n", "# rate: lots kpps\n", "  60%  a\n  50%  b\n",
		"Overhead  Symbol\n---\n  7.36%  [kernel]  [k] page_pool_put_page.part.0\n", "ok\x00x", "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadProfile(bytes.NewReader(b))
		if err != nil {
			if !lineErr.MatchString(err.Error()) {
				t.Fatalf("error names no line: %v", err)
			}
			return
		}
		if len(p.Lines) == 0 || len(p.Lines) > strings.Count(string(b), "\n")+1 {
			t.Fatalf("%d lines from %d input lines", len(p.Lines), strings.Count(string(b), "\n")+1)
		}
		var total float64
		for _, l := range p.Lines {
			if l.Pct < 0 || l.Pct > 100 || l.Symbol == "" {
				t.Fatalf("line %d: %+v", l.Line, l)
			}
			total += l.Pct
		}
		if total > 100.0001 {
			t.Fatalf("shares add up to %.4f", total)
		}
	})
}

// BenchmarkParseProfile shows the parse (and the share lookups predict
// makes, one per listed symbol) linear in the listing's lines: compare the
// ns/line of the sizes.
func BenchmarkParseProfile(b *testing.B) {
	for _, n := range []int{1000, 30_000} {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteString("  0.001%  [kernel]  [k] sym_")
			sb.WriteString(strings.Repeat("x", i%7))
			sb.WriteString(string(rune('a' + i%26)))
			sb.WriteString("\n")
		}
		text := sb.String()
		b.Run("lines="+strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := ParseProfile(text)
				if err != nil {
					b.Fatal(err)
				}
				for _, l := range p.Lines {
					_ = p.Share(l.Symbol)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		})
	}
}
