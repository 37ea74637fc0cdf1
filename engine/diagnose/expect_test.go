package diagnose

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The corpus of realistic pastes with the answers a correct diagnosis
// gives (testdata/pastes/EXPECT, written beside the pastes; its header
// says what each key means). Every stanza is a subtest: one the diagnosis
// cannot meet is a failure, not a skip.

type expectStanza struct {
	file, line                       string
	run                              string // the run whose label holds it ("": the last)
	format                           string
	drivers, scenarios, not          []string
	driverAny, nonePossible          bool
	eraLo, eraHi                     int // major*100+minor; 0 and 1e6: open
	hasDriver, hasScenarios, hasEras bool
}

func readExpect(t *testing.T, path string) []expectStanza {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectStanza
	var cur *expectStanza
	list := func(v string) []string {
		var l []string
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				l = append(l, x)
			}
		}
		return l
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
			continue
		case strings.HasPrefix(l, "== "):
			out = append(out, expectStanza{file: strings.TrimSpace(l[3:]), line: fmt.Sprint(n), eraHi: 1e6})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			t.Fatalf("EXPECT line %d: %q before any stanza", n, l)
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("EXPECT line %d: %q is no key: value", n, l)
		}
		v = strings.TrimSpace(v)
		switch k {
		case "format":
			cur.format = v
		case "driver":
			cur.hasDriver = true
			switch v {
			case "any":
				cur.driverAny = true
			case "none-possible":
				cur.nonePossible = true
			default:
				cur.drivers = list(v)
			}
		case "scenarios":
			cur.hasScenarios, cur.scenarios = true, list(v)
		case "not":
			cur.not = list(v)
		case "eras":
			cur.hasEras = true
			lo, hi, _ := strings.Cut(v, "-")
			if lo != "" {
				cur.eraLo = kernelOrder(t, lo)
			}
			if hi != "" {
				cur.eraHi = kernelOrder(t, hi)
			}
		case "run":
			cur.run = v
		case "source", "why":
		default:
			t.Fatalf("EXPECT line %d: unknown key %q", n, k)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// kernelOrder is a release's major*100+minor ("7.1-rc1" is 7.1).
func kernelOrder(t *testing.T, v string) int {
	var a, b int
	if n, _ := fmt.Sscanf(v, "%d.%d", &a, &b); n != 2 {
		if t != nil {
			t.Fatalf("EXPECT: release %q", v)
		}
		return -1
	}
	return a*100 + b
}

// top3 are the first three candidates of a run, with every run tied with
// the third (a tie is named whole: its runs are equally near).
func top3(r Run) []MatchRun {
	var out []MatchRun
	for _, m := range r.Nearest {
		if len(out) >= 3 {
			break
		}
		out = append(out, m.Runs...)
	}
	return out
}

// TestExpect runs every stanza of testdata/pastes/EXPECT.
func TestExpect(t *testing.T) {
	stanzas := readExpect(t, filepath.Join("testdata", "pastes", "EXPECT"))
	if len(stanzas) == 0 {
		t.Fatal("no stanza in EXPECT")
	}
	for _, st := range stanzas {
		t.Run(st.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "pastes", st.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Diagnose(string(b), Options{})
			if st.format == "bad-input" {
				if err == nil {
					t.Errorf("EXPECT line %s: bad input read as %s", st.line, rep.Paste.Format)
				}
				return
			}
			if err != nil {
				t.Fatalf("EXPECT line %s: %v", st.line, err)
			}
			if got := rep.Paste.Format; got != st.format && !strings.HasPrefix(got, st.format+" ") {
				t.Errorf("format %q, want %s", got, st.format)
			}
			if st.nonePossible {
				if rep.NonePossible == "" {
					t.Errorf("driver none-possible: the report does not say so; candidates %v; notes %q", names(top3(rep.Runs[0])), rep.Notes)
				}
				return
			}
			if rep.NonePossible != "" {
				t.Errorf("the report says none is possible: %s", rep.NonePossible)
			}
			run := rep.Runs[len(rep.Runs)-1]
			if st.run != "" {
				i := slices.IndexFunc(rep.Runs, func(r Run) bool { return strings.Contains(r.Label, st.run) })
				if i < 0 {
					t.Fatalf("EXPECT line %s: no run %q among %d", st.line, st.run, len(rep.Runs))
				}
				run = rep.Runs[i]
			}
			top := top3(run)
			if len(top) == 0 {
				t.Fatalf("no candidates; constraints %+v; notes %q", rep.Constraints, rep.Notes)
			}
			for _, c := range top {
				if st.hasDriver && !st.driverAny && !slices.Contains(st.drivers, c.Driver) {
					t.Errorf("candidate %s on %q: want a driver of %v (top 3: %v)", c.Scenario, c.Driver, st.drivers, names(top))
				}
				if slices.Contains(st.not, c.Scenario) {
					t.Errorf("candidate %s among the top 3, which must not be", c.Scenario)
				}
				if st.hasEras {
					for _, e := range c.Eras {
						if k := kernelOrder(nil, e); k < st.eraLo || k > st.eraHi {
							t.Errorf("candidate %s on %s: era %s out of the range (top 3: %v)", c.Scenario, c.Driver, e, names(top))
						}
					}
				}
			}
			if st.hasScenarios && !slices.ContainsFunc(top, func(c MatchRun) bool { return slices.Contains(st.scenarios, c.Scenario) }) {
				t.Errorf("none of %v among the top 3: %v", st.scenarios, names(top))
			}
		})
	}
}

func names(rs []MatchRun) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Scenario+"/"+r.Driver+"@"+strings.Join(r.Eras, ","))
	}
	return out
}
