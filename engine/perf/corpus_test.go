package perf

import (
	"fmt"
	"os"
	"path/filepath"
	"pplab/engine/sim"
	"strconv"
	"strings"
	"testing"
)

// The corpus of realistic listings (testdata/listings): perf top output as
// machines print it (no pplab header; the shipped listings also with their
// header stripped), per modelled driver and era family, with bad inputs.
// Each listing's expected answer was written from the kernel sources
// before the what-if read listings this way, in testdata/listings/EXPECT:
// stanzas "== file" with driver, platform, eras, workload, rate and a
// "change X:" line per change (refuse <kind> | faster <lo>-<hi> | same).

type corpusCase struct {
	file     string
	fields   map[string]string
	changes  map[string]string
	line     int
	mentions []string
}

func readCorpusExpect(t *testing.T, path string) []corpusCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the corpus's expectations: %v", err)
	}
	var out []corpusCase
	var cur *corpusCase
	for i, raw := range strings.Split(string(b), "\n") {
		line := raw
		if j := strings.Index(line, " #"); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if f, ok := strings.CutPrefix(line, "== "); ok {
			out = append(out, corpusCase{file: strings.TrimSpace(f), fields: map[string]string{}, changes: map[string]string{}, line: i + 1})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			t.Fatalf("%s:%d: a line before the first stanza: %q", path, i+1, raw)
		}
		sep := ":"
		if strings.HasPrefix(line, "change ") {
			sep = ": " // a change's name may hold a colon: "change era:6.4: ratio 0.9-1.1"
		}
		k, v, ok := strings.Cut(line, sep)
		if !ok {
			continue // a continuation of why:
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case strings.HasPrefix(k, "change "):
			cur.changes[strings.TrimPrefix(k, "change ")] = v
		case k == "error-mentions":
			for _, w := range strings.Split(v, ",") {
				if w = strings.TrimSpace(w); w != "" {
					cur.mentions = append(cur.mentions, w)
				}
			}
		default:
			cur.fields[k] = v
		}
	}
	return out
}

// refusalKind classifies a refusal's message by the expectation's kinds.
func refusalKind(msg string) string {
	switch {
	case strings.Contains(msg, "already applied"):
		return "already"
	case strings.Contains(msg, "does not apply to") && strings.Contains(msg, "napi"):
		return "no-pp-napi"
	case strings.Contains(msg, "is a function the model runs"):
		return "unknown-symbols"
	case strings.Contains(msg, "no era of the model leads") || strings.Contains(msg, "before the model's") || strings.Contains(msg, "a move of era") ||
		strings.Contains(msg, "a move goes to a later era") || strings.Contains(msg, "a move starts from") || strings.Contains(msg, "moves it to a kernel that has"):
		return "era"
	case strings.Contains(msg, "the listing's header names"):
		return "header"
	}
	return "other"
}

func TestCorpus_RealisticListings(t *testing.T) {
	dir := filepath.Join("testdata", "listings")
	cases := readCorpusExpect(t, filepath.Join(dir, "EXPECT"))
	if len(cases) < 20 {
		t.Fatalf("%d listings in the corpus, want at least 20", len(cases))
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			prof, perr := ReadProfile(f)
			rate, unit := 1000.0, "kpps"
			if r := strings.Fields(c.fields["rate"]); len(r) == 2 {
				rate, _ = strconv.ParseFloat(r[0], 64)
				unit = r[1]
			}
			platform := ""
			if p := c.fields["platform"]; p != "" && p != "ask" {
				platform = p
			}
			for change, want := range c.changes {
				w := strings.Fields(want)
				if len(w) == 0 {
					t.Errorf("change %s: no expectation", change)
					continue
				}
				if perr != nil {
					if w[0] != "refuse" || w[1] != "bad-input" {
						t.Errorf("change %s: the listing is refused (%v), want %s", change, perr, want)
					}
					checkMentions(t, perr.Error(), c.mentions)
					continue
				}
				// The platform is given only where the listing cannot tell.
				in := PredictInput{Profile: prof, Rate: rate, Unit: unit, Change: change}
				pr, err := Predict(in)
				if err != nil && strings.Contains(err.Error(), "say which platform") && platform != "" && w[0] != "ask" {
					if c.fields["platform"] != "ask" && c.fields["driver"] != "ask" {
						t.Errorf("change %s: asked for the platform, which the listing tells (%s): %v", change, platform, err)
					}
					in.Platform = platform
					pr, err = Predict(in)
				}
				switch w[0] {
				case "ask":
					if err == nil || !strings.Contains(err.Error(), "say which platform") {
						t.Errorf("change %s: %v, want the platform asked for", change, err)
					}
				case "refuse":
					if err == nil {
						t.Errorf("change %s: predicted ×%.3f (%s → %s), want refused (%s); notes %q", change, pr.Speedup, pr.EraBefore, pr.EraAfter, want, pr.Notes)
						continue
					}
					if len(w) > 1 && w[1] != "bad-input" && refusalKind(err.Error()) != w[1] {
						t.Errorf("change %s: refused as %s (%v), want %s", change, refusalKind(err.Error()), err, w[1])
					}
					checkMentions(t, err.Error(), c.mentions)
				case "faster", "same", "ratio":
					if err != nil {
						t.Errorf("change %s: refused (%v), want %s", change, err, want)
						continue
					}
					lo, hi := 0.98, 1.02
					if (w[0] == "faster" || w[0] == "ratio") && len(w) > 1 {
						if _, err := fmt.Sscanf(w[1], "%g-%g", &lo, &hi); err != nil {
							t.Fatalf("change %s: range %q: %v", change, w[1], err)
						}
					}
					if pr.Speedup < lo || pr.Speedup > hi {
						t.Errorf("change %s: ×%.3f (%s → %s), want %s; notes %q", change, pr.Speedup, pr.EraBefore, pr.EraAfter, want, pr.Notes)
					}
					if d := c.fields["driver"]; d != "" && d != "ask" && pr.Driver != d {
						t.Errorf("change %s: driver %s, want %s", change, pr.Driver, d)
					}
					if wl := c.fields["workload"]; wl != "" && pr.Workload != wl {
						t.Errorf("change %s: workload %s, want %s", change, pr.Workload, wl)
					}
					if es := c.fields["eras"]; es != "" && !inEras(t, pr.EraBefore, es) {
						t.Errorf("change %s: predicted from era %s, outside the listing's eras %s; notes %q", change, pr.EraBefore, es, pr.Notes)
					}
				default:
					t.Fatalf("change %s: unknown expectation %q", change, want)
				}
			}
		})
	}
}

// inEras reports whether era lies in an expectation's eras: "A-B", "A-",
// "-B", one release, or "rfc-v1".
func inEras(t *testing.T, era, spec string) bool {
	t.Helper()
	if era == spec {
		return true
	}
	e, err := sim.EraByName(era)
	if err != nil {
		t.Fatalf("era %q: %v", era, err)
	}
	if e.Branch != "" {
		return false // a branch era is only in a range that names it
	}
	v, _ := eraVersion(era)
	lo, hi, isRange := strings.Cut(spec, "-")
	if !isRange {
		hi = lo
	}
	ok := true
	if lo != "" {
		l, good := eraVersion(lo)
		if !good {
			t.Fatalf("eras %q: %q is no release", spec, lo)
		}
		ok = ok && v >= l
	}
	if hi != "" {
		h, good := eraVersion(hi)
		if !good {
			t.Fatalf("eras %q: %q is no release", spec, hi)
		}
		ok = ok && v <= h
	}
	return ok
}

func checkMentions(t *testing.T, msg string, words []string) {
	t.Helper()
	if strings.Contains(msg, "\n") {
		t.Errorf("a refusal of more than one line: %q", msg)
	}
	for _, w := range words {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(w)) {
			t.Errorf("the message %q does not mention %q", msg, w)
		}
	}
}
