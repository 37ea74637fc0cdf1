package perf

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"pplab/engine/sim"
)

// The measured perf profiles pplab ships (copied from the project's data:
// calibration pairs and stock inputs). The what-if page offers them as
// examples; calibration reads them.
//
//go:embed profiles/*.txt
var profileFS embed.FS

// ProfileLine is one line of a parsed listing: what the listing said, with the
// symbol normalised.
type ProfileLine struct {
	Line   int     // 1-based line number in the listing
	Pct    float64 // self overhead, percent
	Object string  // shared object ("[kernel]", "[mvpp2]"), may be empty
	Symbol string  // normalised: compiler suffixes (.part.0, .isra.0, .constprop.0, .cold) removed
	Raw    string  // the symbol as printed
}

// MeasuredRate is a rate stated in a profile header ("rate: 962 kpps", "TCP 566 mbps").
type MeasuredRate struct {
	Label string // "" or e.g. "TCP"
	Value float64
	Unit  string // kpps, pps or mbps
}

// Profile is a parsed `perf top` listing with its header facts.
type Profile struct {
	Name      string
	Driver    string
	Platform  string
	Test      string
	Recycling string
	Bulk      string // a "bulk:" or "bulk refill:" header's words
	Kernel    string // a "kernel:" (or "uname -r:", "release:") header's words
	Rates     []MeasuredRate
	Lines     []ProfileLine

	shares map[string]float64 // summed share per symbol (built on first use)
}

// frameRe finds a frame size in a test description: "64B", "64 B",
// "64-byte", "1500 bytes".
var frameRe = regexp.MustCompile(`(?i)(?:^|[^\w.])(\d{2,5})[ -]?(?:B|bytes?)\b`)

// Frame is the frame size in bytes the header's test states, or 0.
func (p *Profile) Frame() int {
	m := frameRe.FindStringSubmatch(p.Test)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 60 || n > 9216 {
		return 0
	}
	return n
}

// Total is the sum of the listed shares; the rest is the unlisted remainder
// of the stack.
func (p *Profile) Total() float64 {
	var t float64
	for _, l := range p.Lines {
		t += l.Pct
	}
	return t
}

// Share returns the summed share of a (normalised) symbol. The sums are
// built once: callers ask for every listed symbol, and a loop over the lines
// per question made predict quadratic in the listing's length.
func (p *Profile) Share(symbol string) float64 {
	if p.shares == nil {
		p.shares = make(map[string]float64, len(p.Lines))
		for _, l := range p.Lines {
			p.shares[l.Symbol] += l.Pct
		}
	}
	return p.shares[symbol]
}

// Floor is the smallest share the listing shows (0 for an empty one): a
// symbol it does not list took less (a perf listing is sorted and cut).
func (p *Profile) Floor() float64 {
	f := 0.0
	for _, l := range p.Lines {
		if l.Pct > 0 && (f == 0 || l.Pct < f) {
			f = l.Pct
		}
	}
	return f
}

// MaxProfileBytes bounds what ReadProfile reads: a real `perf top` listing
// is a few KiB.
const MaxProfileBytes = 1 << 20

// ReadProfile reads a listing from r through the size limit and parses it.
// A larger input (a wrong file, /dev/zero), one that is not text (a NUL
// byte, invalid UTF-8: /dev/urandom, a binary) is refused with what was
// found and the limit; a UTF-8 byte-order mark is skipped.
func ReadProfile(r io.Reader) (*Profile, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxProfileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxProfileBytes {
		return nil, fmt.Errorf("more than %d bytes (the limit is 1 MiB; a perf top listing is a few KiB)", MaxProfileBytes)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return nil, fmt.Errorf("not text: a NUL byte at offset %d (want a perf top listing)", i)
	}
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, n := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return nil, fmt.Errorf("not text: invalid UTF-8 at offset %d (want a perf top listing)", off)
	}
	return ParseProfile(string(b))
}

// ProfileNames lists the shipped profiles.
func ProfileNames() []string {
	ents, _ := profileFS.ReadDir("profiles")
	out := sim.Names(ents, func(e fs.DirEntry) string { return strings.TrimSuffix(e.Name(), ".txt") })
	sort.Strings(out)
	return out
}

// ShippedProfile returns a shipped profile, parsed, and its text.
func ShippedProfile(name string) (*Profile, string, error) {
	b, err := profileFS.ReadFile(path.Join("profiles", name+".txt"))
	if err != nil || strings.ContainsAny(name, "/.") {
		return nil, "", fmt.Errorf("unknown profile %q (shipped: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	p, err := ParseProfile(string(b))
	if err != nil {
		return nil, "", fmt.Errorf("profile %s: %w", name, err)
	}
	p.Name = name
	return p, string(b), nil
}

// compiler-generated suffixes perf shows on kernel symbols.
var symbolSuffixes = []string{".part.", ".isra.", ".constprop.", ".cold", ".llvm."}

// NormalizeSymbol strips compiler clone suffixes: "kmem_cache_free.part.0" →
// "kmem_cache_free".
func NormalizeSymbol(s string) string {
	for {
		cut := -1
		for _, suf := range symbolSuffixes {
			if i := strings.Index(s, suf); i > 0 && (cut < 0 || i < cut) {
				cut = i
			}
		}
		if cut < 0 {
			return s
		}
		s = s[:cut]
	}
}

// ParseProfile parses a `perf top` / `perf report --stdio` listing, tolerating
// the real format's variations: comment and header lines, blank lines, one or
// two percentage columns (Children/Self: the last is self), a missing shared
// object column, missing [k]/[.] markers, compiler suffixes. A line it cannot
// read is an error naming the line number; so are an empty listing and shares
// over 100 % in total.
func ParseProfile(text string) (*Profile, error) {
	text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark from an editor or a chat paste
	p := &Profile{}
	var total float64
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if err := p.header(strings.TrimSpace(strings.TrimPrefix(line, "#")), n); err != nil {
				return nil, err
			}
			continue
		}
		f := strings.Fields(line)
		if w := strings.TrimSuffix(f[0], ":"); w == "Overhead" || w == "Children" || w == "Samples" || w == "PerfTop" || strings.Trim(w, "-") == "" {
			continue // column headers and separators
		}
		pl, err := parseProfileLine(f, n)
		if err != nil {
			return nil, err
		}
		total += pl.Pct
		if total > 100.0001 {
			return nil, fmt.Errorf("line %d: the shares add up to %.2f%%, over 100%%", n, total)
		}
		p.Lines = append(p.Lines, pl)
	}
	if len(p.Lines) == 0 {
		return nil, fmt.Errorf("no profile lines found (want lines like \"  7.36%%  [kernel]  [k] page_pool_put_page\")")
	}
	return p, nil
}

func parseProfileLine(f []string, n int) (ProfileLine, error) {
	pl := ProfileLine{Line: n}
	i := 0
	seen := false
	for ; i < len(f) && strings.HasSuffix(f[i], "%"); i++ {
		v, err := strconv.ParseFloat(strings.TrimSuffix(f[i], "%"), 64)
		if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
			return pl, fmt.Errorf("line %d: %q is not a share from 0%% to 100%%", n, f[i])
		}
		pl.Pct, seen = v, true // with Children and Self columns, the last one (Self) counts
	}
	if !seen {
		return pl, fmt.Errorf("line %d: want a share like \"7.36%%\" first, got %q", n, strings.Join(f, " "))
	}
	rest := f[i:]
	if len(rest) > 0 && strings.HasPrefix(rest[0], "[") && rest[0] != "[k]" && rest[0] != "[.]" {
		pl.Object, rest = rest[0], rest[1:]
	} else if len(rest) > 2 && (rest[1] == "[k]" || rest[1] == "[.]") {
		pl.Object, rest = rest[0], rest[1:] // a user-space object such as libc.so.6
	}
	if len(rest) > 0 && (rest[0] == "[k]" || rest[0] == "[.]") {
		rest = rest[1:]
	}
	if len(rest) != 1 {
		return pl, fmt.Errorf("line %d: want one symbol after the share (and optional object and [k]/[.]), got %q", n, strings.Join(f[i:], " "))
	}
	pl.Raw = rest[0]
	pl.Symbol = NormalizeSymbol(rest[0])
	return pl, nil
}

// header reads "key: value" facts from a comment line (fields separated by
// two or more spaces): driver, platform, test, rate, recycling, bulk,
// kernel.
func (p *Profile) header(s string, n int) error {
	for _, part := range splitFields(s) {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "driver":
			p.Driver = firstWord(v)
		case "platform":
			p.Platform = firstWord(v)
		case "test":
			p.Test = v
		case "recycling":
			p.Recycling = v
		case "kernel", "uname", "uname -r", "release", "linux":
			p.Kernel = v
		case "bulk", "bulk refill", "bulk_refill":
			p.Bulk = "bulk refill: " + v
		case "rate":
			rates, err := parseRates(v)
			if err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			p.Rates = rates
		}
	}
	return nil
}

func splitFields(s string) []string {
	var out []string
	for _, part := range strings.Split(s, "  ") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// NormalizeRate puts a rate in one of the units a prediction takes:
// kpps, pps or mbps in any case ("Mbps", "Kpps"), Mbit/s and Gbit/s
// spelled out, and Mpps and Gbps converted (×1000 to kpps and mbps).
func NormalizeRate(v float64, unit string) (float64, string, error) {
	switch strings.ToLower(unit) {
	case "kpps":
		return v, "kpps", nil
	case "pps":
		return v, "pps", nil
	case "mbps", "mbit/s", "mb/s":
		return v, "mbps", nil
	case "mpps":
		return v * 1000, "kpps", nil
	case "gbps", "gbit/s", "gb/s":
		return v * 1000, "mbps", nil
	}
	return v, "", fmt.Errorf("unit %q: accepted: kpps, pps, mbps (Mpps and Gbps are converted)", unit)
}

// parseRates reads "962 kpps", "732 mbps (sender side; …)", "TCP 566 mbps, UDP 615 mbps".
func parseRates(s string) ([]MeasuredRate, error) {
	if i := strings.Index(s, "("); i >= 0 {
		s = s[:i]
	}
	var out []MeasuredRate
	for _, part := range strings.Split(s, ",") {
		f := strings.Fields(part)
		label := ""
		if len(f) == 3 {
			label, f = f[0], f[1:]
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("rate %q: want \"<value> <kpps|pps|mbps>\"", strings.TrimSpace(part))
		}
		v, err := strconv.ParseFloat(f[0], 64)
		unit := ""
		if err == nil {
			v, unit, err = NormalizeRate(v, f[1])
		}
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("rate %q: want a positive value in kpps, pps or mbps (Mpps and Gbps are converted)", strings.TrimSpace(part))
		}
		out = append(out, MeasuredRate{Label: label, Value: v, Unit: unit})
	}
	return out, nil
}
