// Package replay reads page_pool tracepoints as people capture them and
// replays who owns which page: the tracefs `trace` file, `trace-cmd
// report`, `perf script` (each era's TP_printk: `page=` or `netmem=` and
// `pfn=` in decimal up to v5.13, hex after; hashed or raw pointers; with or
// without the task/CPU/timestamp columns), and bpftrace output that prints
// the events' names and fields as key=value or key:value.
//
// What a replay shows and what it cannot: the four tracepoints carry pool
// ownership — page_pool_state_hold when a page enters a pool from the page
// allocator (or a memory provider), page_pool_state_release when it leaves
// for good, each with the pool's running pages_state_hold_cnt /
// pages_state_release_cnt, and page_pool_release while a destroyed pool
// waits for its pages. They do not say where an owned page is (alloc
// cache, ptr_ring, NIC ring, an skb): recycling is invisible to them, so a
// replay has pages owned or not, never placed. `kmem:mm_page_free` lines in
// the same capture are read too: a page the allocator frees while a pool
// owns it is the leak the xdp-project's page_pool scripts hunt.
//
// Size envelope: Parse refuses input of more than its maxLines lines (the
// CLI reads 10^7, the page 10^6) with an error naming the limit; nothing
// else is fatal — a line it cannot read is counted and kept (the first
// MaxKeptUnknown of them) as unknown.
package replay

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is a replayed event's kind.
type Kind uint8

const (
	Hold        Kind = iota + 1 // page_pool_state_hold
	Release                     // page_pool_state_release
	PoolRelease                 // page_pool_release (page_pool_inflight before v5.5)
	UpdateNid                   // page_pool_update_nid
	PageFree                    // kmem:mm_page_free (the page allocator freed a page)
)

var kindNames = [...]string{Hold: "page_pool_state_hold", Release: "page_pool_state_release",
	PoolRelease: "page_pool_release", UpdateNid: "page_pool_update_nid", PageFree: "mm_page_free"}

func (k Kind) String() string { return kindNames[k] }

// Accepted says what a capture may be, for the messages that refuse one.
const Accepted = "page_pool:* tracepoint lines as the tracefs trace file, trace-cmd report, perf script or a bpftrace printf of the events prints them (page_pool_state_hold, page_pool_state_release, page_pool_release, page_pool_update_nid)"

// Limits: the page reads at most PageMaxLines lines, ppsim replay
// CLIMaxLines.
const (
	PageMaxLines   = 1_000_000
	CLIMaxLines    = 10_000_000
	MaxKeptUnknown = 200
	maxLineBytes   = 64 << 10
)

// Event is one tracepoint line, as read.
type Event struct {
	Line     int // 1-based line number in the input
	Kind     Kind
	CPU      int     // -1: the line had no CPU column
	TimeUS   float64 // -1: the line had no timestamp
	Pool     string  // the pool pointer as printed, normalised (no 0x, no leading zeros); one string per pool
	PFN      uint64
	HasPFN   bool
	NetIov   bool
	Hold     uint32 // hold= (pages_state_hold_cnt after the hold; page_pool_release's too)
	Release  uint32 // release= (pages_state_release_cnt)
	Inflight int64  // page_pool_release
	Cnt      uint64 // page_pool_release's destroy_cnt
	Nid      int32  // page_pool_update_nid: pool_nid, new_nid
	NewNid   int32
}

// Lost is a mark of dropped events: the line and how many.
type Lost struct {
	Line   int `json:"line"`
	Events int `json:"events"`
}

// Unknown is a line Parse could not read.
type Unknown struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Trace is a parsed capture.
type Trace struct {
	Events       []Event
	Lines        int            // lines read
	Headers      int            // comment and header lines (tracefs's #, trace-cmd's cpus=, bpftrace's Attaching)
	Unknown      []Unknown      // the first MaxKeptUnknown unknown lines
	UnknownCount int            // all of them
	Formats      map[string]int // how many events in each format: ftrace, perf, bpftrace, bare
	// DecimalPFN: some pfn= was printed without 0x (the decimal of kernels
	// before v5.14).
	DecimalPFN bool
	// Binary counts lines that are not text (a NUL byte, or not UTF-8).
	Binary int
	// Lost are the trace buffer's own marks of events it dropped
	// (tracefs and trace-cmd: "CPU:1 [LOST 17 EVENTS]").
	Lost []Lost

	pools map[string]string // interned pool pointers
	sink  func(*Event)      // Stream's: each event as it is read
}

// TooLarge is the error of an input longer than the limit.
type TooLarge struct{ Max int }

func (e *TooLarge) Error() string {
	return fmt.Sprintf("more than %d lines: the replay reads at most %d (trim the capture, e.g. with head -n %d, or filter it to one pool with grep)", e.Max, e.Max, e.Max)
}

// Parse reads a capture of at most maxLines lines. Only an input over the
// limit or a read error is an error.
func Parse(r io.Reader, maxLines int) (*Trace, error) { return parse(r, maxLines, nil) }

// parse reads the capture; each event goes to sink if there is one (and
// is not kept), else into Trace.Events.
func parse(r io.Reader, maxLines int, sink func(*Event)) (*Trace, error) {
	t := &Trace{Formats: map[string]int{}, pools: map[string]string{}, sink: sink}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	for sc.Scan() {
		t.Lines++
		if t.Lines > maxLines {
			return nil, &TooLarge{Max: maxLines}
		}
		t.line(sc.Text())
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("line %d is longer than %d bytes: not a trace", t.Lines+1, maxLineBytes)
		}
		return nil, err
	}
	return t, nil
}

// ParseString parses s (the page's pasted or opened file).
func ParseString(s string, maxLines int) (*Trace, error) {
	return Parse(strings.NewReader(s), maxLines)
}

func (t *Trace) unknown(text string) {
	t.UnknownCount++
	if len(t.Unknown) < MaxKeptUnknown {
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		t.Unknown = append(t.Unknown, Unknown{t.Lines, text})
	}
}

func isHeader(s string) bool {
	for _, p := range []string{"#", "cpus=", "Attaching ", "CPU:", "version = ", "Lost "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// findEvent finds a tracepoint name as a whole word in line: its kind, the
// start of the name and the end of the name.
func findEvent(line string) (Kind, int, int) {
	for _, c := range []struct {
		name string
		k    Kind
	}{{"page_pool_state_hold", Hold}, {"page_pool_state_release", Release}, {"page_pool_release", PoolRelease},
		{"page_pool_inflight", PoolRelease}, {"page_pool_update_nid", UpdateNid}, {"mm_page_free", PageFree}} {
		from := 0
		for {
			i := strings.Index(line[from:], c.name)
			if i < 0 {
				break
			}
			i += from
			end := i + len(c.name)
			before := i == 0 || !isWord(line[i-1])
			after := end == len(line) || !isWord(line[end])
			if before && after {
				return c.k, i, end
			}
			from = end
		}
	}
	return 0, -1, -1
}

func isWord(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func (t *Trace) line(raw string) {
	if strings.IndexByte(raw, 0) >= 0 || !utf8.ValidString(raw) {
		t.Binary++
		t.unknown(strings.ToValidUTF8(strings.ReplaceAll(raw, "\x00", "\\0"), "?"))
		return
	}
	s := strings.TrimSpace(raw)
	if s == "" {
		return
	}
	if i := strings.Index(s, "[LOST "); i >= 0 && strings.HasSuffix(s, " EVENTS]") {
		if n, err := strconv.Atoi(strings.TrimSuffix(s[i+len("[LOST "):], " EVENTS]")); err == nil {
			t.Lost = append(t.Lost, Lost{t.Lines, n})
			return
		}
	}
	if isHeader(s) {
		t.Headers++
		return
	}
	kind, i, end := findEvent(s)
	if kind == 0 {
		t.unknown(raw)
		return
	}
	e := Event{Line: t.Lines, Kind: kind, CPU: -1, TimeUS: -1}
	head, payload := s[:i], s[end:]
	format := "bare"
	// the head: "comm-pid [cpu] flags secs.usecs: " (tracefs, trace-cmd),
	// "comm pid [cpu] secs.usecs: page_pool:" (perf script), a bpftrace
	// "tracepoint:page_pool:" probe name, or nothing.
	switch {
	case strings.HasSuffix(head, "page_pool:") && strings.Contains(head, "tracepoint:"),
		strings.HasSuffix(head, "kmem:") && strings.Contains(head, "tracepoint:"):
		format = "bpftrace"
	case strings.HasSuffix(head, "page_pool:") || strings.HasSuffix(head, "kmem:"):
		format = "perf"
	case strings.Contains(head, "["):
		format = "ftrace"
	case head != "":
		format = "bpftrace"
	}
	for _, f := range strings.Fields(head) {
		if len(f) >= 3 && f[0] == '[' && f[len(f)-1] == ']' {
			if n, err := strconv.Atoi(f[1 : len(f)-1]); err == nil {
				e.CPU = n
			}
			continue
		}
		f = strings.TrimSuffix(f, ":")
		if dot := strings.IndexByte(f, '.'); dot > 0 && e.TimeUS < 0 {
			if v, err := strconv.ParseFloat(f, 64); err == nil && allDigitsDot(f) {
				e.TimeUS = v * 1e6
			}
		}
	}
	if !t.fields(&e, payload) {
		t.unknown(raw)
		return
	}
	t.Formats[format]++
	if t.sink != nil {
		t.sink(&e)
		return
	}
	t.Events = append(t.Events, e)
}

func allDigitsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// normPtr normalises a pointer as printed: "0xffff888100001000",
// "00000000899a4a90" and "ffff888100001000" keep their digits without
// 0x and leading zeros. ok is false when s is not hex.
func normPtr(s string) (string, bool) {
	s = strings.TrimPrefix(strings.ToLower(s), "0x")
	if s == "" || s == "(null)" {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return "", false
		}
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		s = "0"
	}
	return s, true
}

// fields reads the payload's key=value (or key:value) pairs; false if the
// event's required fields are missing or malformed.
func (t *Trace) fields(e *Event, payload string) bool {
	payload = strings.TrimPrefix(strings.TrimSpace(payload), ":")
	have := map[string]bool{}
	for _, f := range strings.Fields(payload) {
		f = strings.TrimRight(f, ",;")
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			k, v, ok = strings.Cut(f, ":")
		}
		if !ok || v == "" {
			continue
		}
		switch k {
		case "page_pool", "pool", "pp":
			p, ok := normPtr(v)
			if !ok {
				return false
			}
			if in, ok := t.pools[p]; ok {
				p = in
			} else {
				t.pools[p] = p
			}
			e.Pool, have["pool"] = p, true
		case "is_net_iov":
			e.NetIov = v == "1"
		case "pfn":
			var n uint64
			var err error
			if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
				n, err = strconv.ParseUint(v[2:], 16, 64)
			} else {
				n, err = strconv.ParseUint(v, 10, 64)
				t.DecimalPFN = true
			}
			if err != nil {
				return false
			}
			e.PFN, e.HasPFN = n, true
		case "hold", "release":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return false
			}
			if k == "hold" {
				e.Hold = uint32(n)
			} else {
				e.Release = uint32(n)
			}
			have[k] = true
		case "inflight":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return false
			}
			e.Inflight, have["inflight"] = n, true
		case "cnt":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return false
			}
			e.Cnt = n
		case "pool_nid", "new_nid":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return false
			}
			if k == "pool_nid" {
				e.Nid = int32(n)
			} else {
				e.NewNid = int32(n)
			}
			have[k] = true
		}
	}
	switch e.Kind {
	case Hold:
		return have["pool"] && e.HasPFN && have["hold"]
	case Release:
		return have["pool"] && e.HasPFN && have["release"]
	case PoolRelease:
		return have["pool"] && have["inflight"]
	case UpdateNid:
		return have["pool"] && have["new_nid"]
	case PageFree:
		return e.HasPFN
	}
	return false
}
