package diagnose

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The formats Parse detects.
const (
	FormatEthtool = "ethtool -S"
	FormatTable   = "table"                   // hand-made, one column per run
	FormatYNL     = "ynl"                     // page-pool-stats-get and/or page-pool-get dumps
	FormatYnltool = "ynltool page-pool stats" // plain, -j, group-by pp
)

// Line uses.
const (
	UseCounter = "counter" // a page_pool counter the diagnosis reads
	UseKept    = "kept"    // understood, not a page_pool counter (another driver counter, a pool attribute)
	UseHeader  = "header"  // a header, a command line, a blank line
	UseGrey    = "grey"    // not understood: shown, not used
	// UseAside: understood as something else than counters (a perf top
	// listing pasted with them) and set aside: never read as counters nor
	// as evidence of the machine (Paste.Aside says which lines).
	UseAside = "aside"
)

// Line is one line of the paste and what the parser made of it.
type Line struct {
	N    int    `json:"line"`
	Text string `json:"text"`
	Use  string `json:"use"`
	Why  string `json:"why,omitempty"`
}

// Counters are the page_pool counters a source gives: Has says which it
// shows. FastHasRefill: alloc_fast holds alloc-fast + alloc-refill
// (ynltool's "fast"), and alloc_refill is unknown. Wrapped: the value
// shown is above 2^63, no count but a counter that went below zero
// (Underflowed): shown, and left out of every ratio and comparison.
type Counters struct {
	V             sim.Stats
	Has           [sim.NumStats]bool
	Wrapped       [sim.NumStats]bool
	FastHasRefill bool
	// Cache: the driver's RX page cache's counters (mlx5's rx_cache_*,
	// before 6.4), when HasCache: the paste shows them.
	Cache    CacheStats
	HasCache bool
}

// MarshalJSON gives the counters present, by ppsim's names.
func (c Counters) MarshalJSON() ([]byte, error) {
	m := map[string]uint64{}
	for i := sim.Stat(0); i < sim.NumStats; i++ {
		if c.Has[i] {
			m[i.String()] = c.V[i]
		}
	}
	return json.Marshal(m)
}

// Any reports whether any counter is present.
func (c Counters) Any() bool {
	for _, h := range c.Has {
		if h {
			return true
		}
	}
	return false
}

func (c *Counters) set(s sim.Stat, v uint64) {
	c.V[s], c.Has[s], c.Wrapped[s] = v, true, Underflowed(v)
}

func (c *Counters) add(o Counters) {
	for i := range c.V {
		if o.Has[i] {
			c.V[i] += o.V[i]
			c.Has[i] = true
			c.Wrapped[i] = c.Wrapped[i] || o.Wrapped[i]
		}
	}
	c.FastHasRefill = c.FastHasRefill || o.FastHasRefill
}

// Ring is one RX ring's own counters (mlx5's rx<N>_pp_*).
type Ring struct {
	Ring     int      `json:"ring"`
	Counters Counters `json:"counters"`
}

// Pool is one page pool as netlink or ynltool shows it. Has* say which
// attributes the paste gives (netlink leaves out ifindex for an orphaned
// pool, napi-id without one, detach-time until destroy).
type Pool struct {
	Line                    int      `json:"line"`
	ID                      uint64   `json:"id"`
	Ifindex                 uint64   `json:"ifindex,omitempty"`
	HasIfindex              bool     `json:"has_ifindex"`
	Ifname                  string   `json:"ifname,omitempty"`
	NapiID                  uint64   `json:"napi_id,omitempty"`
	Inflight                uint64   `json:"inflight"`
	InflightMem             uint64   `json:"inflight_mem"`
	HasInflight, HasMem     bool     `json:"-"`
	DetachTime              uint64   `json:"detach_time,omitempty"`
	Detached                bool     `json:"detached"`
	Dmabuf                  uint64   `json:"dmabuf,omitempty"`
	HasDmabuf, IOUring      bool     `json:"-"`
	Stats                   Counters `json:"stats"`
	HasStats, HasPoolFields bool     `json:"-"`
}

// Device is one device of `ynltool page-pool stats` (group-by device).
type Device struct {
	Line                    int      `json:"line"`
	Ifname                  string   `json:"ifname"`
	Ifindex                 uint64   `json:"ifindex"`
	PagePools, Zombies      uint64   `json:"-"`
	LiveRefs, LiveBytes     uint64   `json:"-"`
	ZombieRefs, ZombieBytes uint64   `json:"-"`
	Stats                   Counters `json:"stats"`
}

// Named is a counter the diagnosis does not read (rx_packets, …), kept.
type Named struct {
	Line  int     `json:"line"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Snapshot is one reading: one ethtool -S output, one table column, one
// ynl dump (both dumps when both are pasted), one ynltool output.
type Snapshot struct {
	Label string `json:"label,omitempty"`
	Line  int    `json:"line"`
	// Device is the device's counters: ethtool's own totals (the sum over
	// the device's pools), a table column, or the sum the parser makes of
	// the pools (ynl) or devices (ynltool) pasted.
	Device  Counters `json:"device"`
	Rings   []Ring   `json:"rings,omitempty"`
	Pools   []Pool   `json:"pools,omitempty"`
	Devices []Device `json:"devices,omitempty"`
	Other   []Named  `json:"other,omitempty"`
	// Sleep is the seconds of a `sleep N` line between the previous
	// snapshot and this one (0: none).
	Sleep float64 `json:"sleep_s,omitempty"`
}

// Paste is what Parse read.
type Paste struct {
	Format     string `json:"format"`
	Variant    string `json:"variant"`
	Provenance string `json:"provenance"`
	// Columns: the snapshots are runs side by side (a table), not readings
	// over time.
	Columns   bool       `json:"columns"`
	Snapshots []Snapshot `json:"snapshots"`
	Lines     []Line     `json:"lines"`
	Notes     []string   `json:"notes,omitempty"`
	// Aside are the runs of lines set aside (UseAside): a perf top
	// listing pasted with the counters.
	Aside []Aside `json:"set_aside,omitempty"`
	// Underflows are the counters whose value is no count (Underflowed),
	// in the order of the paste.
	Underflows []Underflow `json:"underflows,omitempty"`

	// names are the page_pool counter names as the paste writes them
	// (ethtool -S and tables), with the first line each is on: which
	// driver's names they are says which driver printed them
	// (candidates.go).
	names []nameAt
}

type nameAt struct {
	name string
	line int
}

func (p *Paste) noteName(name string, line int) {
	for _, n := range p.names {
		if n.name == name {
			return
		}
	}
	p.names = append(p.names, nameAt{name, line})
}

// Underflow is a counter the paste shows above 2^63: no counter gets
// there by counting (at 10^9 a second it would take 292 years), but a
// difference or a decrement that went below zero does (2^64 − 1 is −1
// read as unsigned): in the driver, or in whatever printed it.
type Underflow struct {
	Line  int    `json:"line"`
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// Underflowed reports whether v is an underflowed counter: above 2^63
// (which takes in every value within 2^32 of 2^64).
func Underflowed(v uint64) bool { return v > 1<<63 }

// noteUnderflow records name's value v on line when it underflowed.
func (p *Paste) noteUnderflow(name string, line int, v uint64) {
	if !Underflowed(v) {
		return
	}
	for _, u := range p.Underflows {
		if u.Name == name && u.Line == line {
			return
		}
	}
	p.Underflows = append(p.Underflows, Underflow{Line: line, Name: name, Value: v})
}

// UnderflowLine says in one line which counters underflowed and what the
// diagnosis does with them ("" for none).
func (p *Paste) UnderflowLine() string {
	if len(p.Underflows) == 0 {
		return ""
	}
	var each []string
	for _, u := range p.Underflows {
		below := -u.Value // 2^64 − Value, in uint64 arithmetic
		how := "above 2^63"
		if below <= 1<<32 {
			how = fmt.Sprintf("2^64 − %d", below)
		}
		each = append(each, fmt.Sprintf("%s (line %d) is %d = %s", u.Name, u.Line, u.Value, how))
	}
	what := "a counter that went below zero (a difference or a decrement past 0, read as unsigned), not a count"
	if len(each) > 1 {
		what = "counters that went below zero (a difference or a decrement past 0, read as unsigned), not counts"
	}
	return strings.Join(each, "; ") + ": " + what + " — left out of the ratios and the comparison"
}

// Aside is a run of lines set aside, From to To (1-based, inclusive):
// What they are (AsidePerf).
type Aside struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	What string `json:"what"`
}

// AsidePerf is what a perf top listing's lines are (Aside.What).
const AsidePerf = "a perf top listing"

// Lines says which lines: "line 7" or "lines 29–40".
func (a Aside) Lines() string {
	if a.From == a.To {
		return fmt.Sprintf("line %d", a.From)
	}
	return fmt.Sprintf("lines %d–%d", a.From, a.To)
}

// Sentence says what the lines are and that they were set aside, naming
// reader, what reads them (the CLI's `ppsim predict`, the page's what-if
// page): "lines 29–40 are a perf top listing, not counters: set aside
// (ppsim predict reads listings)".
func (a Aside) Sentence(reader string) string {
	verb := "are"
	if a.From == a.To {
		verb = "is"
	}
	return fmt.Sprintf("%s %s %s, not counters: set aside (%s reads listings)", a.Lines(), verb, a.What, reader)
}

// AsideText is the lines a set aside, as a listing reader reads them: the
// mail quote taken off each, one per line.
func (p *Paste) AsideText(a Aside) string {
	var b strings.Builder
	for n := a.From; n <= a.To && n <= len(p.Lines); n++ {
		t := p.Lines[n-1].Text
		if q := quoteRe().FindString(t); q != "" {
			t = t[len(q):]
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return b.String()
}

// Grey lists the lines the parser did not understand.
func (p *Paste) Grey() []Line {
	var out []Line
	for _, l := range p.Lines {
		if l.Use == UseGrey {
			out = append(out, l)
		}
	}
	return out
}

// ParseError is bad input: the line and what was expected.
type ParseError struct {
	Line int
	Text string
	Msg  string
	// PerfListing: the input is a perf top listing (the what-if's input,
	// `ppsim predict`), not counters; Msg says so in the CLI's words, and
	// Listing is the listing's lines (Paste.AsideText), for the what-if.
	PerfListing bool
	Listing     string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	t := e.Text
	if len(t) > 60 {
		t = t[:57] + "..."
	}
	return fmt.Sprintf("line %d %q: %s", e.Line, t, e.Msg)
}

// Accepted says what Parse accepts, for an error message.
const Accepted = "ethtool -S output (rx_pp_* or a driver's per-ring rx<N>_pp_* counters, with or without the NIC statistics: header, mail-quoted with > or |), a table of such counters with one column per run, ynl --family netdev --dump page-pool-stats-get or page-pool-get (Python literals or --output-json), or ynltool page-pool stats (plain, -j, group-by pp)"

// MaxBytes bounds a paste.
const MaxBytes = 1 << 20

// statNames maps every spelling of a counter the formats use to it: the
// generic helper's ethtool strings (pp_stats[]), each model driver's
// (lab.EthtoolName), the netlink attribute names (page-pool-stats), the
// struct fields and ppsim's JSON keys.
var statNames = map[string]sim.Stat{}

// lazyRegexp compiles pattern on its first use, not at start-up (a ppsim
// run or the playground's first load parses no paste).
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// ringSuffix maps a per-ring counter's suffix (rx<N>_pp_<suffix>) to it.
var ringSuffix = map[string]sim.Stat{}

var ringRe = lazyRegexp(`^rx(\d+)_pp_(\w+)$`)

// statNamesOnce builds statNames and ringSuffix on the first look-up, not
// at start-up: a ppsim run that reads no counters does not pay for them
// (lab.List describes every scenario in every era).
var statNamesOnce sync.Once

func buildStatNames() {
	drivers := lab.List().Drivers
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		statNames[s.Ethtool()] = s
		statNames[s.String()] = s
		statNames["rx_pp_"+s.String()] = s
		statNames[lab.YNLStatKey(s)] = s
		for _, d := range drivers {
			statNames[lab.EthtoolName(d, s, -1)] = s
			if n := lab.EthtoolName(d, s, 0); n != "" {
				if m := ringRe().FindStringSubmatch(n); m != nil {
					ringSuffix[m[2]] = s
				}
			}
		}
	}
	// The struct page_pool_recycle_stats field is released_refcnt.
	statNames["released_refcnt"] = sim.StatRecycleReleasedRefcnt
}

// StatByName normalises a counter's name: the counter, the RX ring for a
// per-ring name (-1: the device's), ok false for a name that is no
// page_pool counter.
func StatByName(name string) (s sim.Stat, ring int, ok bool) {
	statNamesOnce.Do(buildStatNames)
	if s, ok := statNames[name]; ok {
		return s, -1, true
	}
	if m := ringRe().FindStringSubmatch(name); m != nil {
		if s, ok := ringSuffix[m[2]]; ok {
			r, err := strconv.Atoi(m[1])
			if err == nil {
				return s, r, true
			}
		}
	}
	return 0, 0, false
}

var (
	quoteRe   = lazyRegexp(`^[ \t]*(?:[>|][ \t]?)+`)
	promptRe  = lazyRegexp(`^(?:\S*[$#%]\s+|\$)(.*)$`)
	sleepRe   = lazyRegexp(`(?:^|[;&\s])sleep\s+(\d+(?:\.\d+)?)\s*(s|m)?\b`)
	commandRe = lazyRegexp(`(?:^|\s|/)(?:ethtool|ynl|cli\.py|ynltool|sleep|watch|date)\b`)
)

// Parse reads a paste: it detects the format, normalises the counter
// names, keeps every line (the ones it does not understand are grey, with
// why) and returns a *ParseError for bad input.
func Parse(text string) (*Paste, error) {
	if len(text) > MaxBytes {
		return nil, &ParseError{Msg: fmt.Sprintf("%d bytes: the limit is %d", len(text), MaxBytes)}
	}
	if strings.ContainsRune(text, 0) {
		return nil, &ParseError{Msg: "binary input (a NUL byte): want text"}
	}
	text = strings.TrimPrefix(text, "\ufeff")
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(raw) > 0 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	p := &Paste{}
	body := make([]string, len(raw)) // dequoted
	quoted := false
	for i, t := range raw {
		t = strings.TrimRight(t, "\r")
		p.Lines = append(p.Lines, Line{N: i + 1, Text: t})
		if q := quoteRe().FindString(t); q != "" {
			quoted = true
			t = t[len(q):]
		}
		body[i] = t
	}
	// Blank and command lines first, and a perf top listing pasted with
	// the counters.
	p.setAsidePerf(body)
	var first string
	firstN := 0
	for i, t := range body {
		s := strings.TrimSpace(t)
		switch {
		case p.Lines[i].Use == UseAside:
		case s == "":
			p.Lines[i].Use = UseHeader
		case isCommand(s):
			p.Lines[i].Use = UseHeader
			p.Lines[i].Why = "a command line"
		case first == "":
			first, firstN = s, i+1
		}
	}
	if first == "" {
		if err := p.perfOnly(); err != nil {
			return nil, err
		}
		return nil, &ParseError{Msg: "no input: want " + Accepted}
	}
	var err error
	switch {
	case strings.HasPrefix(first, "[") || strings.HasPrefix(first, "{") || p.literalStarts(body):
		err = parseLiteral(p, body) // (prose or a comment before a dump is grey)
	case anyMatch(body, ynltoolDevRe()) || anyMatch(body, ynltoolPoolRe()):
		err = parseYnltool(p, body)
	default:
		err = parseEthtool(p, body)
	}
	if err != nil {
		return nil, err
	}
	if quoted {
		p.Variant = strings.TrimPrefix(p.Variant+", mail-quoted", ", ")
	}
	for i := range p.Lines {
		if p.Lines[i].Use == "" {
			p.Lines[i].Use, p.Lines[i].Why = UseGrey, "not a counter line of the "+p.Format+" format"
		}
	}
	if len(p.Snapshots) == 0 || !p.anyData() {
		if !p.driverCountersOnly() {
			if err := p.perfOnly(); err != nil {
				return nil, err
			}
			return nil, &ParseError{Line: firstN, Text: first, Msg: "no page_pool counter or pool found: want " + Accepted}
		}
		p.Variant = "a driver's own counters, no page_pool counter"
		p.Notes = append(p.Notes, "no page_pool counter in the paste (a kernel before 5.18, CONFIG_PAGE_POOL_STATS off, or a driver that prints none): the candidates are the runs the driver's own counters point to")
	}
	p.sleeps(body)
	return p, nil
}

// perfOnly is the error for a paste with no counters that has a perf top
// listing (nil without one).
func (p *Paste) perfOnly() *ParseError {
	if len(p.Aside) == 0 {
		return nil
	}
	a := p.Aside[0]
	return &ParseError{Line: a.From, Text: p.Lines[a.From-1].Text, PerfListing: true, Listing: p.AsideText(a),
		Msg: "a perf top listing, not page_pool counters: ppsim predict --profile FILE --rate VALUE --unit kpps|pps|mbps --change … (the /whatif/ page) reads it; here, want " + Accepted}
}

// driverCountersOnly reports whether an ethtool -S paste without a
// page_pool counter has counters that name its driver (mlx5's rx_cache_*
// or ch_*, the Marvell MIB counters: ownNames), which the candidates
// can still be drawn from.
func (p *Paste) driverCountersOnly() bool {
	if p.Format != FormatEthtool || len(p.Snapshots) == 0 {
		return false
	}
	for _, on := range ownNames {
		if hasOther(p, on.re()) {
			return true
		}
	}
	return false
}

// literalStarts reports whether a line that is not a command opens a ynl
// dump (a Python or JSON list or dict of pools: "[{", "{'", "{\"", or a
// bracket alone), so that a note or a "#" comment pasted above the dump
// does not make the paste read as ethtool -S. A dmesg line's "[12.3]"
// does not open one.
func (p *Paste) literalStarts(body []string) bool {
	for i, t := range body {
		if p.Lines[i].Use == "" && literalStartRe().MatchString(t) {
			return true
		}
	}
	return false
}

// A perf top (or perf report --stdio) listing's lines: a symbol's line
// "<pct>%  [<pct>%]  [<command>]  <dso>  [k|.]  <symbol>", the "Samples: N
// of event 'E'" and "Event count" lines, the column header ("Overhead
// Shared Object  Symbol", "Children  Self  Command …"), perf report's "#"
// comment lines.
var (
	perfLineRe    = lazyRegexp(`^\s*\d+(?:\.\d+)?%(?:\s+\d+(?:\.\d+)?%)?(?:\s+\S+){1,2}\s+\[[k.gu]\]\s+\S`)
	perfHeadRe    = lazyRegexp(`^\s*#?\s*(?:Samples:\s+\S+\s+of event\b|Event count \(approx\.\):|(?:Children\s+Self|Overhead)\s+.*\bSymbol\s*$)`)
	perfCommentRe = lazyRegexp(`^\s*#(?:\s*$|\s+(?:To display the perf\.data header info|Total Lost Samples:|Samples:|Event count|Overhead|Children|\.{3,})|\s*\.{3,})`)
)

// setAsidePerf marks the lines of a perf top listing (its symbol lines
// and, around them, its header and comment lines and the blank lines
// between) UseAside, and records each run of them (Paste.Aside). A header
// alone, with no symbol line, is no listing.
func (p *Paste) setAsidePerf(body []string) {
	perf := make([]bool, len(body))
	any := false
	for i, t := range body {
		switch {
		case perfLineRe().MatchString(t):
			perf[i], any = true, true
		case perfHeadRe().MatchString(t) || perfCommentRe().MatchString(t):
			perf[i] = true
		}
	}
	if !any {
		return
	}
	blank := func(i int) bool { return strings.TrimSpace(body[i]) == "" }
	for i := 0; i < len(body); {
		if !perf[i] {
			i++
			continue
		}
		// A run: perf lines, and the blank lines between two of them.
		j, sym := i, false
		for k := i; k < len(body) && (perf[k] || blank(k)); k++ {
			if perf[k] {
				j = k
				sym = sym || perfLineRe().MatchString(body[k])
			}
		}
		if sym {
			for k := i; k <= j; k++ {
				p.Lines[k].Use, p.Lines[k].Why = UseAside, AsidePerf+", not counters: set aside"
			}
			p.Aside = append(p.Aside, Aside{From: i + 1, To: j + 1, What: AsidePerf})
		}
		i = j + 1
	}
}

var literalStartRe = lazyRegexp(`^\s*[\[{]\s*($|[\[{'"])`)

func (p *Paste) anyData() bool {
	for _, s := range p.Snapshots {
		if s.Device.Any() || len(s.Pools) > 0 || len(s.Rings) > 0 || len(s.Devices) > 0 {
			return true
		}
	}
	return false
}

// sleeps attaches each `sleep N` command line to the snapshot after it.
func (p *Paste) sleeps(body []string) {
	for i, t := range body {
		if p.Lines[i].Use != UseHeader {
			continue
		}
		m := sleepRe().FindStringSubmatch(t)
		if m == nil {
			continue
		}
		sec, _ := strconv.ParseFloat(m[1], 64)
		if m[2] == "m" {
			sec *= 60
		}
		for j := range p.Snapshots {
			if p.Snapshots[j].Line > i+1 {
				p.Snapshots[j].Sleep += sec
				break
			}
		}
	}
}

func isCommand(s string) bool {
	if m := promptRe().FindStringSubmatch(s); m != nil && commandRe().MatchString(m[1]) {
		return true
	}
	return strings.HasPrefix(s, "sleep ") || strings.HasPrefix(s, "ethtool ") || strings.HasPrefix(s, "ynl ") || strings.HasPrefix(s, "ynltool ") || strings.Contains(s, "cli.py ")
}

func anyMatch(lines []string, re *regexp.Regexp) bool {
	for _, l := range lines {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

func parseU64(s string) (uint64, bool) {
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// ---- ethtool -S and tables ----

var headerRe = lazyRegexp(`^(?i)NIC statistics:?$`)

func parseEthtool(p *Paste, body []string) error {
	p.Format, p.Variant = FormatEthtool, "generic rx_pp_* names"
	cur := -1
	newSnap := func(line int) {
		p.Snapshots = append(p.Snapshots, Snapshot{Line: line})
		cur = len(p.Snapshots) - 1
	}
	seen := map[string]bool{}
	type row struct {
		line   int
		name   string
		fields []string
	}
	var rows []row
	var header []string
	headerLine := -1
	for i, t := range body {
		n := i + 1
		if p.Lines[i].Use != "" {
			continue
		}
		s := strings.TrimSpace(t)
		if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
			p.Lines[i].Use, p.Lines[i].Why = UseHeader, "a note in parentheses"
			continue
		}
		if headerRe().MatchString(s) {
			p.Lines[i].Use = UseHeader
			if cur < 0 || p.Snapshots[cur].Device.Any() || len(p.Snapshots[cur].Rings) > 0 || len(p.Snapshots[cur].Other) > 0 {
				newSnap(n)
				seen = map[string]bool{}
			}
			continue
		}
		if strings.Contains(s, ":") {
			used := false
			for _, seg := range strings.Split(s, " / ") {
				name, val, ok := strings.Cut(seg, ":")
				name, val = strings.TrimSpace(name), strings.TrimSpace(val)
				if !ok || name == "" || strings.ContainsAny(name, " \t") {
					continue
				}
				st, ring, isPP := StatByName(name)
				v, okv := parseU64(val)
				if isPP && !okv {
					return &ParseError{Line: n, Text: t, Msg: fmt.Sprintf("%s: want an unsigned 64-bit integer, found %q", name, val)}
				}
				if !okv {
					f, err := strconv.ParseFloat(val, 64)
					if err != nil {
						continue
					}
					if cur < 0 {
						newSnap(n)
					}
					p.Snapshots[cur].Other = append(p.Snapshots[cur].Other, Named{Line: n, Name: name, Value: f})
					used = true
					continue
				}
				if cur < 0 || seen[name] {
					newSnap(n)
					seen = map[string]bool{}
				}
				seen[name] = true
				sn := &p.Snapshots[cur]
				used = true
				p.noteUnderflow(name, n, v)
				if !isPP {
					if !Underflowed(v) { // no count: named in UnderflowLine, read nowhere
						sn.Other = append(sn.Other, Named{Line: n, Name: name, Value: float64(v)})
					}
					continue
				}
				p.noteName(name, n)
				if ring >= 0 {
					p.Variant = "mlx5 names with per-ring rx<N>_pp_*"
					sn.ring(ring).set(st, v)
				} else {
					if name != st.Ethtool() && strings.HasPrefix(name, "rx_pp_") {
						p.Variant = "mlx5 names (rx_pp_alloc_slow_high_order)"
					}
					sn.Device.set(st, v)
				}
				if p.Lines[i].Use != UseCounter {
					p.Lines[i].Use = UseCounter
				}
			}
			if used {
				if p.Lines[i].Use == "" {
					p.Lines[i].Use = UseKept
				}
				continue
			}
		}
		// A table row: a name, then one value per column.
		f := strings.Fields(s)
		if len(f) >= 2 {
			if allNumbers(f[1:]) {
				rows = append(rows, row{line: n, name: f[0], fields: f[1:]})
				continue
			}
			if len(rows) == 0 && !anyNumber(f) {
				header, headerLine = f, i
				continue
			}
		}
	}
	if len(rows) > 0 {
		hasPP := false
		for _, r := range rows {
			if _, _, ok := StatByName(r.name); ok {
				hasPP = true
			}
		}
		if hasPP && !(len(p.Snapshots) > 0 && p.anyData()) {
			if headerLine >= 0 && len(header) >= len(rows[0].fields) {
				p.Lines[headerLine].Use, p.Lines[headerLine].Why = UseHeader, "column labels"
			} else {
				header = nil
			}
			return parseTable(p, rows2(rows, func(r row) (int, string, []string) { return r.line, r.name, r.fields }), header, body)
		}
		for _, r := range rows {
			p.Lines[r.line-1].Use, p.Lines[r.line-1].Why = UseGrey, "a table row in an ethtool -S listing"
		}
	}
	// The ring totals stand in for a device total the paste lacks.
	for i := range p.Snapshots {
		sn := &p.Snapshots[i]
		if !sn.Device.Any() && len(sn.Rings) > 0 {
			for _, r := range sn.Rings {
				sn.Device.add(r.Counters)
			}
			p.Notes = append(p.Notes, fmt.Sprintf("snapshot %d has per-ring counters only: the device total is their sum", i+1))
		}
	}
	p.Provenance = "ethtool -S: the driver's own totals — the generic helper (page_pool_ethtool_stats_get, net/core/page_pool.c) and mlx5's rx_pp_* sum page_pool_get_stats over the device's pools (one per RX queue); mlx5's rx<N>_pp_* are one RX ring's pool"
	return nil
}

type tableRow struct {
	line   int
	name   string
	fields []string
}

func rows2[T any](in []T, f func(T) (int, string, []string)) []tableRow {
	out := make([]tableRow, len(in))
	for i, r := range in {
		out[i].line, out[i].name, out[i].fields = f(r)
	}
	return out
}

func parseTable(p *Paste, rows []tableRow, header []string, body []string) error {
	p.Format, p.Variant, p.Columns = FormatTable, "one column per run", true
	p.Snapshots = nil
	cols := len(rows[0].fields)
	for _, r := range rows {
		if len(r.fields) != cols {
			return &ParseError{Line: r.line, Text: body[r.line-1], Msg: fmt.Sprintf("want %d values (one per column, as on line %d), found %d", cols, rows[0].line, len(r.fields))}
		}
	}
	for c := 0; c < cols; c++ {
		label := fmt.Sprintf("column %d", c+1)
		if len(header) >= cols {
			label = header[len(header)-cols+c]
		}
		p.Snapshots = append(p.Snapshots, Snapshot{Label: label, Line: rows[0].line})
	}
	for _, r := range rows {
		st, ring, ok := StatByName(r.name)
		for c, f := range r.fields {
			sn := &p.Snapshots[c]
			if !ok {
				v, _ := strconv.ParseFloat(f, 64)
				if u, okU := parseU64(f); okU && Underflowed(u) {
					p.noteUnderflow(r.name, r.line, u)
					continue
				}
				sn.Other = append(sn.Other, Named{Line: r.line, Name: r.name, Value: v})
				continue
			}
			v, okv := parseU64(f)
			if !okv {
				return &ParseError{Line: r.line, Text: body[r.line-1], Msg: fmt.Sprintf("%s, column %d: want an unsigned 64-bit integer, found %q", r.name, c+1, f)}
			}
			p.noteUnderflow(r.name, r.line, v)
			if ring >= 0 {
				sn.ring(ring).set(st, v)
			} else {
				sn.Device.set(st, v)
			}
		}
		if ok {
			p.Lines[r.line-1].Use = UseCounter
			p.noteName(r.name, r.line)
		} else {
			p.Lines[r.line-1].Use = UseKept
		}
	}
	p.Provenance = "a hand-made table of ethtool -S counters, one column per run: each column is the device's totals (summed over its pools) at the end of a run, as the poster selected them"
	return nil
}

func (s *Snapshot) ring(r int) *Counters {
	for i := range s.Rings {
		if s.Rings[i].Ring == r {
			return &s.Rings[i].Counters
		}
	}
	s.Rings = append(s.Rings, Ring{Ring: r})
	return &s.Rings[len(s.Rings)-1].Counters
}

func allNumbers(f []string) bool {
	for _, s := range f {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return false
		}
	}
	return true
}

func anyNumber(f []string) bool {
	for _, s := range f {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return true
		}
	}
	return false
}

// ---- ynltool page-pool stats, plain ----

var (
	ynltoolDevRe    = lazyRegexp(`^\s*(?:(\S*?)\[(\d+)\]|(<orphan>))\s+page pools: (\d+) \(zombies: (\d+)\)\s*$`)
	ynltoolRefsRe   = lazyRegexp(`^\s*refs: (\d+) bytes: (\d+) \(refs: (\d+) bytes: (\d+)\)\s*$`)
	ynltoolRecycRe  = lazyRegexp(`^\s*recycling: (\d+(?:\.\d+)?)% \(alloc: (\d+):(\d+) recycle: (\d+):(\d+)\)\s*$`)
	ynltoolPoolRe   = lazyRegexp(`^\s*pool id: (\d+)(?:\s+dev: (\S+?))?(?:\[(\d+)\])?(?:\s+napi: (\d+))?\s*$`)
	ynltoolInfRe    = lazyRegexp(`^\s*inflight:(?: (\d+) pages)?(?: (\d+) bytes)?\s*$`)
	ynltoolDetachRe = lazyRegexp(`^\s*detached: (\d+)\s*$`)
	ynltoolDmabufRe = lazyRegexp(`^\s*dmabuf: (\d+)\s*$`)
)

func u(s string) uint64 { v, _ := strconv.ParseUint(s, 10, 64); return v }

// ynltoolCounters are the four counters ynltool's recycling line shows.
func ynltoolCounters(m []string) Counters {
	var c Counters
	c.set(sim.StatAllocSlow, u(m[2]))
	c.set(sim.StatAllocFast, u(m[3]))
	c.set(sim.StatRecycleRing, u(m[4]))
	c.set(sim.StatRecycleCached, u(m[5]))
	c.FastHasRefill = true
	return c
}

const ynltoolProvenance = "derived by ynltool from the page-pool-get and page-pool-stats-get dumps (tools/net/ynl/ynltool/page-pool.c, aggregate_device_stats): per device, alloc fast = alloc-fast + alloc-refill, slow = alloc-slow (high order not counted), recycle ring:cache; the other counters are not shown"

func parseYnltool(p *Paste, body []string) error {
	p.Format = FormatYnltool
	cur := -1
	var dev *Device
	var pool *Pool
	seen := map[string]bool{}
	snap := func(n int, key string) *Snapshot {
		if cur < 0 || seen[key] {
			p.Snapshots = append(p.Snapshots, Snapshot{Line: n})
			cur = len(p.Snapshots) - 1
			seen = map[string]bool{}
		}
		seen[key] = true
		return &p.Snapshots[cur]
	}
	for i, t := range body {
		n := i + 1
		if p.Lines[i].Use != "" {
			continue
		}
		use := UseKept
		switch {
		case ynltoolDevRe().MatchString(t):
			m := ynltoolDevRe().FindStringSubmatch(t)
			p.Variant = "plain (group-by device)"
			d := Device{Line: n, Ifname: m[1], Ifindex: u(m[2]), PagePools: u(m[4]), Zombies: u(m[5])}
			if m[3] != "" {
				d.Ifname = "<orphan>"
			}
			sn := snap(n, "dev"+m[2]+m[3])
			sn.Devices = append(sn.Devices, d)
			dev, pool = &sn.Devices[len(sn.Devices)-1], nil
		case ynltoolPoolRe().MatchString(t):
			m := ynltoolPoolRe().FindStringSubmatch(t)
			p.Variant = "group-by pp"
			pl := Pool{Line: n, ID: u(m[1]), Ifname: m[2], Ifindex: u(m[3]), HasIfindex: m[3] != "", NapiID: u(m[4]), HasPoolFields: true}
			sn := snap(n, "pool"+m[1])
			sn.Pools = append(sn.Pools, pl)
			pool, dev = &sn.Pools[len(sn.Pools)-1], nil
		case ynltoolRefsRe().MatchString(t) && dev != nil:
			m := ynltoolRefsRe().FindStringSubmatch(t)
			dev.LiveRefs, dev.LiveBytes, dev.ZombieRefs, dev.ZombieBytes = u(m[1]), u(m[2]), u(m[3]), u(m[4])
		case ynltoolRecycRe().MatchString(t) && (dev != nil || pool != nil):
			m := ynltoolRecycRe().FindStringSubmatch(t)
			c := ynltoolCounters(m)
			for i, what := range []string{"alloc slow", "alloc fast", "recycle ring", "recycle cache"} {
				p.noteUnderflow(what, n, u(m[i+2]))
			}
			use = UseCounter
			if dev != nil {
				dev.Stats = c
			} else {
				pool.Stats, pool.HasStats = c, true
			}
		case ynltoolInfRe().MatchString(t) && pool != nil:
			m := ynltoolInfRe().FindStringSubmatch(t)
			pool.Inflight, pool.HasInflight = u(m[1]), m[1] != ""
			pool.InflightMem, pool.HasMem = u(m[2]), m[2] != ""
		case ynltoolDetachRe().MatchString(t) && pool != nil:
			pool.Detached, pool.DetachTime = true, u(ynltoolDetachRe().FindStringSubmatch(t)[1])
		case ynltoolDmabufRe().MatchString(t) && pool != nil:
			pool.Dmabuf, pool.HasDmabuf = u(ynltoolDmabufRe().FindStringSubmatch(t)[1]), true
		case ynltoolRecycRe().MatchString(t):
			return &ParseError{Line: n, Text: t, Msg: "a recycling line before any device or pool line: want the device line (\"eth0[2]\tpage pools: N (zombies: M)\") or \"pool id: N\" first"}
		default:
			continue
		}
		p.Lines[i].Use = use
	}
	for i := range p.Snapshots {
		sn := &p.Snapshots[i]
		for _, d := range sn.Devices {
			sn.Device.add(d.Stats)
		}
		for _, pl := range sn.Pools {
			sn.Device.add(pl.Stats)
		}
	}
	p.Provenance = ynltoolProvenance
	return nil
}
