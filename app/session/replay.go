package session

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	rp "pplab/engine/replay"
	"pplab/engine/replay/examples"
)

// The trace replay page (/replay/): a page_pool tracepoint capture opened,
// pasted or picked from the examples, replayed by engine/replay — its
// summary (the text `ppsim replay FILE` prints), each pool's counters and
// pages at the step shown, a step control, the inflight chart with the
// step marked, and the findings, each a step to its line. ReplayState is
// the page's state in plain Go (tested natively); the component in
// package app only wires the inputs to it and renders its ReplayView. A
// replay has no URL state: the capture is the user's, never sent anywhere.

// The examples are engine/replay/examples' captures (embedded there).
var replayFS = examples.FS

// ReplayExample is one capture the page offers.
type ReplayExample struct {
	Name  string // the file's name without .txt
	Label string
	// Synthetic: a model run printed in an era's format (the file name
	// says so), not recorded on a machine.
	Synthetic bool
	Short     string // the era and the tool ("6.18, perf script"), for a list under a heading
}

var eraInName = regexp.MustCompile(`^(.*?)-(\d+)\.(\d+)(?:-(.*))?$`)

// replayTools names the capture's tool from the end of its file name.
var replayTools = map[string]string{"capture": "the tracefs trace file", "ftrace": "the tracefs trace file",
	"trace-cmd": "trace-cmd report", "perf": "perf script", "perf-script": "perf script", "bpftrace": "bpftrace", "bare": "bare event lines"}

var replayToolsShort = map[string]string{"capture": "tracefs", "ftrace": "tracefs", "trace-cmd": "trace-cmd",
	"perf": "perf script", "perf-script": "perf script", "bpftrace": "bpftrace", "bare": "bare lines"}

// ReplayExamples lists the embedded captures: the ones recorded on a
// machine first, then the synthetic ones, each by era and name. A file is
// named KIND-ERA-TOOL (veth-6.18-capture, synthetic-5.12-ftrace).
func ReplayExamples() []ReplayExample {
	ents, _ := replayFS.ReadDir(".")
	type key struct{ major, minor int }
	var out []ReplayExample
	keys := map[string]key{}
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".txt")
		ex := ReplayExample{Name: name, Synthetic: strings.Contains(name, "synthetic")}
		m := eraInName.FindStringSubmatch(name)
		if m == nil {
			ex.Label, ex.Short = name, name
			if ex.Synthetic {
				ex.Label = "synthetic (a model run, not a machine's): " + name
			}
			out = append(out, ex)
			continue
		}
		kind, era, tool := m[1], m[2]+"."+m[3], m[4]
		maj, _ := strconv.Atoi(m[2])
		minr, _ := strconv.Atoi(m[3])
		keys[name] = key{maj, minr}
		how := ""
		if t, ok := replayTools[tool]; ok {
			how = " (" + t + ")"
		} else if tool != "" {
			how = " (" + tool + ")"
		}
		ex.Short = era
		if t, ok := replayToolsShort[tool]; ok {
			ex.Short += ", " + t
		} else if tool != "" {
			ex.Short += ", " + tool
		}
		if ex.Synthetic {
			ex.Label = fmt.Sprintf("synthetic: the model's destroy run in %s's format%s", era, how)
		} else {
			ex.Label = fmt.Sprintf("a %s pool from creation to destroy, recorded on a %s machine%s", kind, era, how)
		}
		out = append(out, ex)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Synthetic != b.Synthetic {
			return !a.Synthetic
		}
		if ka, kb := keys[a.Name], keys[b.Name]; ka != kb {
			return ka.major < kb.major || ka.major == kb.major && ka.minor < kb.minor
		}
		return a.Name < b.Name
	})
	return out
}

// ReplayExampleText is example name's capture.
func ReplayExampleText(name string) (string, bool) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return "", false
	}
	b, err := replayFS.ReadFile(name + ".txt")
	if err != nil {
		return "", false
	}
	return string(b), true
}

// Limits of the page: replay.PageMaxLines lines (the CLI reads
// replay.CLIMaxLines), and a file of more than ReplayMaxBytes is refused
// before it is read (a tracefs line is about 190 bytes: 10^6 of them fit).
const (
	ReplayMaxBytes = 256 << 20
	// ReplayTiles is how many of a pool's pages are drawn as tiles.
	ReplayTiles = 512
	// replayContext is how many lines the current line's context shows
	// on each side of it.
	replayContext = 2
)

// ReplayAccepted says what the page reads (every refusal ends with it).
var ReplayAccepted = fmt.Sprintf("The page reads text captures of the page_pool tracepoints (page_pool_state_hold, page_pool_state_release, page_pool_release, page_pool_update_nid; kmem:mm_page_free too): the tracefs trace file or trace-cmd report, perf script output, bpftrace output that prints the events' fields as key=value, or the bare event lines, in any kernel era's format — at most %s lines (ppsim replay FILE reads %s).",
	thousands(rp.PageMaxLines), thousands(rp.CLIMaxLines))

func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ReplayState is the page's replay: the capture loaded (or the message
// saying why none is), and the step shown.
type ReplayState struct {
	source  string // the capture replayed
	refused string // the input msg refuses ("" when msg is "")
	msg     string
	text    string
	starts  []uint32 // offset of each line's start in text
	r       *rp.Replay
	summary string
	pages   []poolPages // per pool (index-1)
	t0      float64     // the first event's time (µs) when timed
	chart   [2]string   // the chart's option around the marker's x
	dirty   bool
}

// poolPages is a pool's pages as the capture shows them: each pfn it
// held, by pfn, the event (index) of its first hold, and those first
// holds sorted (how many pages the pool has held before a step).
type poolPages struct {
	pfns   []uint64
	first  []int
	firsts []int
}

// NewReplayState is the page before anything is loaded.
func NewReplayState() *ReplayState { return &ReplayState{dirty: true} }

// Changed says whether the view changed since the last View.
func (s *ReplayState) Changed() bool { return s.dirty }

// Loaded says whether a capture is replayed.
func (s *ReplayState) Loaded() bool { return s.r != nil }

// Refuse shows msg (a file refused before it was read: too large, not
// readable); a capture replayed before stays.
func (s *ReplayState) Refuse(source, msg string) { s.refuse(source, msg+" "+ReplayAccepted) }

func (s *ReplayState) refuse(source, msg string) {
	s.refused, s.msg, s.dirty = source, msg, true
}

// Load replays text (source names it: "the file x.txt", "the pasted
// text", "the example …"). Anything it cannot replay leaves a message and
// the capture replayed before, if any; nothing panics out of it.
func (s *ReplayState) Load(source, text string) {
	n := &ReplayState{source: source, dirty: true}
	defer func() {
		if r := recover(); r != nil {
			s.refuse(source, fmt.Sprintf("The replay failed (%v): this is a bug of pplab's, not your capture's. ", r)+ReplayAccepted)
		}
	}()
	if msg := n.load(text); msg != "" {
		s.refuse(source, msg)
		return
	}
	*s = *n
}

// load replays text into a new state; the message is why it cannot ("" if
// it did).
func (s *ReplayState) load(text string) string {
	if m := replayRefusal(text); m != "" {
		return m + " " + ReplayAccepted
	}
	if n := strings.Count(text, "\n"); n+1 > rp.PageMaxLines && (n > rp.PageMaxLines || !strings.HasSuffix(text, "\n")) {
		// over the limit: said before parsing a million lines
		return fmt.Sprintf("Too large: %v. The page reads at most %s lines; ppsim replay FILE reads %s. ", &rp.TooLarge{Max: rp.PageMaxLines}, thousands(rp.PageMaxLines), thousands(rp.CLIMaxLines)) + ReplayAccepted
	}
	tr, err := rp.ParseString(text, rp.PageMaxLines)
	if err != nil {
		var tl *rp.TooLarge
		if errors.As(err, &tl) {
			return fmt.Sprintf("Too large: %v. The page reads at most %s lines; ppsim replay FILE reads %s. ", err, thousands(rp.PageMaxLines), thousands(rp.CLIMaxLines)) + ReplayAccepted
		}
		return fmt.Sprintf("Not a trace: %v. ", err) + ReplayAccepted
	}
	if len(tr.Events) == 0 && tr.Binary > 0 {
		return fmt.Sprintf("Not text: %d of %d lines have a NUL byte or are not UTF-8. ", tr.Binary, tr.Lines) + ReplayAccepted
	}
	if len(tr.Events) == 0 {
		msg := fmt.Sprintf("No page_pool tracepoint line in %s (%s, %s not understood", Plural(tr.Lines, "line"), Plural(tr.Headers, "header or comment line"), Plural(tr.UnknownCount, "line"))
		if len(tr.Unknown) > 0 {
			msg += fmt.Sprintf("; the first, line %d: %q", tr.Unknown[0].Line, cut(tr.Unknown[0].Text, 80))
		}
		return msg + "). " + ReplayAccepted
	}
	s.text = text
	s.starts = lineStarts(text)
	s.r = rp.New(tr)
	s.summary = s.r.Summary()
	s.index()
	s.chart = s.chartOption()
	s.r.Seek(0)
	return ""
}

// replayRefusal is why text is refused before parsing: empty, binary, too
// many bytes; "" if it is not.
func replayRefusal(text string) string {
	if strings.TrimSpace(text) == "" {
		return "Nothing to replay: the text is empty."
	}
	if len(text) > ReplayMaxBytes {
		return fmt.Sprintf("Too large: %d MB, over the page's %d MB (it reads at most %s lines).", len(text)>>20, ReplayMaxBytes>>20, thousands(rp.PageMaxLines))
	}
	head := text[:min(len(text), 64<<10)]
	if strings.Contains(head, "\x00") || strings.Count(head, "\uFFFD") > len(head)/100 {
		what := "a binary file"
		switch {
		case strings.Contains(head[:min(len(head), 16)], "tracing"):
			what = "trace-cmd's binary trace.dat (convert it: trace-cmd report > trace.txt)"
		case strings.HasPrefix(head, "PERFILE"):
			what = "perf's binary perf.data (convert it: perf script > trace.txt)"
		}
		return "Not text: this is " + what + "."
	}
	return ""
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func lineStarts(text string) []uint32 {
	out := make([]uint32, 0, strings.Count(text, "\n")+1)
	for i := 0; ; {
		out = append(out, uint32(i))
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 || i+j+1 >= len(text) {
			return out
		}
		i += j + 1
	}
}

// line is line n's text (1-based), without its line end.
func (s *ReplayState) line(n int) string {
	if n < 1 || n > len(s.starts) {
		return ""
	}
	from := int(s.starts[n-1])
	to := len(s.text)
	if n < len(s.starts) {
		to = int(s.starts[n])
	}
	return strings.TrimRight(s.text[from:to], "\r\n")
}

// index lists each pool's pages, by pfn, with their first hold.
func (s *ReplayState) index() {
	s.pages = make([]poolPages, len(s.r.Pools))
	firsts := make([]map[uint64]int, len(s.r.Pools))
	for i := range firsts {
		firsts[i] = map[uint64]int{}
	}
	ev := s.r.Trace.Events
	if s.r.Timed {
		s.t0 = ev[0].TimeUS
	}
	for i := range ev {
		e := &ev[i]
		if e.Kind != rp.Hold && e.Kind != rp.Release {
			continue
		}
		p := s.r.PoolOf(i) // a pointer reused after a destroy is a new pool
		if p == nil {
			continue
		}
		pi := p.Index - 1
		if _, seen := firsts[pi][e.PFN]; !seen {
			first := i
			if e.Kind == rp.Release {
				first = -1 // held before the capture: the pool's from the start
			}
			firsts[pi][e.PFN] = first
		}
	}
	for pi, m := range firsts {
		pp := &s.pages[pi]
		for pfn := range m {
			pp.pfns = append(pp.pfns, pfn)
		}
		sort.Slice(pp.pfns, func(i, j int) bool { return pp.pfns[i] < pp.pfns[j] })
		pp.first = make([]int, len(pp.pfns))
		for i, pfn := range pp.pfns {
			pp.first[i] = m[pfn]
		}
		pp.firsts = append([]int(nil), pp.first...)
		sort.Ints(pp.firsts)
	}
}

// Events is the number of events the capture has (the last step).
func (s *ReplayState) Events() int {
	if s.r == nil {
		return 0
	}
	return len(s.r.Trace.Events)
}

// At is the step shown: the number of events applied.
func (s *ReplayState) At() int {
	if s.r == nil {
		return 0
	}
	return s.r.At()
}

// Seek shows step n (clamped to 0 … Events).
func (s *ReplayState) Seek(n int) {
	if s.r == nil {
		return
	}
	n = min(max(n, 0), s.Events())
	if n != s.r.At() {
		s.r.Seek(n)
		s.dirty = true
	}
}

// Step moves d events forward (back when d < 0).
func (s *ReplayState) Step(d int) { s.Seek(s.At() + d) }

// StepToLine shows the step that applies the event on line n (a finding's
// line); a line with no event: the step before the next event.
func (s *ReplayState) StepToLine(n int) {
	if s.r == nil {
		return
	}
	ev := s.r.Trace.Events
	i := sort.Search(len(ev), func(i int) bool { return ev[i].Line >= n })
	if i < len(ev) && ev[i].Line == n {
		i++
	}
	s.Seek(i)
}

// OwnedPages are the pages owned at the step shown.
func (s *ReplayState) OwnedPages() []rp.OwnedPage {
	if s.r == nil {
		return nil
	}
	return s.r.OwnedPages()
}

// ReplayView is what the page shows.
type ReplayView struct {
	Loaded   bool
	Source   string
	Msg      string // why the last input (MsgFrom) was not replayed ("" when it was); a capture replayed before stays
	MsgFrom  string
	Summary  string // replay.Replay.Summary of the whole capture: what ppsim replay prints
	Lines    int
	Events   int
	At       int // events applied
	Timed    bool
	Now      string       // the step in words: "event 12 of 653 · 0.312 ms"
	Cur      ReplayLine   // the event last applied (Line 0 at step 0)
	Context  []ReplayLine // the lines around Cur
	Pools    []ReplayPool
	Findings []ReplayFinding
	Headers  int
	Unknown  []rp.Unknown // the first replay.MaxKeptUnknown lines not understood
	UnknownN int
	Chart    string // the inflight chart's option, the step marked
	// HeldBefore counts releases of pages held before the capture began.
	HeldBefore int
}

// ReplayLine is one line of the capture.
type ReplayLine struct {
	N     int
	Text  string
	Event bool // a page_pool (or mm_page_free) event line
	Cur   bool
	Kind  string // the event's kind
}

// ReplayPool is one pool at the step shown.
type ReplayPool struct {
	Index                int
	Ptr                  string
	Holds, Releases      int // in the whole capture
	Hold, Release        uint32
	Inflight, Max        int64
	Owned                int
	FromCreation         bool
	ReleaseSeen          bool
	Destroy              string // the destroy at this step in words, "" before it
	Waiting              bool   // destroyed and its last page_pool_release printed inflight > 0
	Pages                int    // pages the capture shows it hold
	Seen                 int    // of them, held by this step
	Tiles                []ReplayTile
	More, MoreOwned      int // pages not drawn (ReplayTiles drawn), and how many of them are owned now
	Touched              bool
	FirstLine, LastCheck int
}

// Tile states.
const (
	TileNever    = "never"    // not held yet at this step
	TileOwned    = "owned"    // the pool owns it
	TileReleased = "released" // held earlier, released (page_pool_state_release)
	TileOther    = "other"    // owned by another pool now
)

// ReplayTile is one of a pool's pages.
type ReplayTile struct {
	PFN     uint64
	State   string
	Changed bool // the current event's page
}

// ReplayFinding is a finding and the step that shows it.
type ReplayFinding struct {
	Line int
	Kind string
	Text string
}

// View is the page's state.
func (s *ReplayState) View() ReplayView {
	s.dirty = false
	v := ReplayView{Source: s.source, Msg: s.msg, MsgFrom: s.refused}
	if s.r == nil {
		return v
	}
	r, t := s.r, s.r.Trace
	v.Loaded, v.Summary, v.Lines, v.Events, v.At, v.Timed = true, s.summary, t.Lines, len(t.Events), r.At(), r.Timed
	v.Headers, v.Unknown, v.UnknownN, v.HeldBefore = t.Headers, t.Unknown, t.UnknownCount, r.HeldBefore
	var cur *rp.Event
	if at := r.At(); at > 0 {
		cur = &t.Events[at-1]
		v.Cur = ReplayLine{N: cur.Line, Text: s.line(cur.Line), Event: true, Cur: true, Kind: cur.Kind.String()}
		v.Context = s.context(cur.Line)
	}
	v.Now = s.nowText(cur)
	for _, f := range r.Findings {
		v.Findings = append(v.Findings, ReplayFinding{Line: f.Line, Kind: f.Kind, Text: f.Text})
	}
	for i, p := range r.Pools {
		v.Pools = append(v.Pools, s.poolView(p, &s.pages[i], cur))
	}
	v.Chart = s.chart[0]
	if s.chart[1] != "" {
		v.Chart += strconv.FormatFloat(s.x(cur), 'f', -1, 64) + s.chart[1]
	}
	return v
}

func (s *ReplayState) nowText(cur *rp.Event) string {
	n := len(s.r.Trace.Events)
	if cur == nil {
		return fmt.Sprintf("step 0 of %d: before the first event", n)
	}
	out := fmt.Sprintf("step %d of %d: line %d", s.r.At(), n, cur.Line)
	if s.r.Timed {
		out += fmt.Sprintf(" · %.3f ms after the first event", (cur.TimeUS-s.t0)/1000)
	}
	return out
}

// x is the chart's x of the step shown (ms since the first event, or the
// event's index).
func (s *ReplayState) x(cur *rp.Event) float64 {
	if cur == nil {
		return 0
	}
	if s.r.Timed {
		return round3((cur.TimeUS - s.t0) / 1000)
	}
	return float64(s.r.At() - 1)
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// context is the lines around line n.
func (s *ReplayState) context(n int) []ReplayLine {
	ev := s.r.Trace.Events
	var out []ReplayLine
	for l := max(1, n-replayContext); l <= min(len(s.starts), n+replayContext); l++ {
		i := sort.Search(len(ev), func(i int) bool { return ev[i].Line >= l })
		rl := ReplayLine{N: l, Text: s.line(l), Cur: l == n}
		if i < len(ev) && ev[i].Line == l {
			rl.Event, rl.Kind = true, ev[i].Kind.String()
		}
		out = append(out, rl)
	}
	return out
}

func (s *ReplayState) poolView(p *rp.Pool, pp *poolPages, cur *rp.Event) ReplayPool {
	v := ReplayPool{Index: p.Index, Ptr: p.Ptr, Holds: p.Holds, Releases: p.Releases, Hold: p.HoldCnt, Release: p.ReleaseCnt,
		Inflight: p.Inflight, Max: p.MaxInflight, Owned: p.Owned, FromCreation: p.FromCreation, ReleaseSeen: p.ReleaseSeen,
		Pages: len(pp.pfns), FirstLine: p.FirstLine}
	at := s.r.At()
	v.Seen = sort.SearchInts(pp.firsts, at)
	touched := uint64(0)
	hasTouch := false
	if cur != nil && s.r.PoolOf(at-1) == p {
		v.Touched = true
		if cur.Kind == rp.Hold || cur.Kind == rp.Release {
			touched, hasTouch = cur.PFN, true
		}
	}
	switch {
	case p.DestroyChecks == 0:
	case p.DestroyInflight > 0:
		v.Waiting = true
		v.Destroy = fmt.Sprintf("destroy waiting: page_pool_release check %d printed inflight=%d (page_pool_release_retry tries again every second)", p.DestroyChecks, p.DestroyInflight)
	case p.Owned > 0:
		v.Destroy = fmt.Sprintf("destroyed: page_pool_release check %d printed inflight=0 (the pool's counters balance), yet %s this capture saw it hold never came back: see the findings", p.DestroyChecks, Plural(p.Owned, "page"))
	default:
		v.Destroy = fmt.Sprintf("destroyed: page_pool_release check %d printed inflight=0, every page returned", p.DestroyChecks)
	}
	n := min(len(pp.pfns), ReplayTiles)
	v.Tiles = make([]ReplayTile, n)
	drawnOwned := 0
	for i := 0; i < n; i++ {
		pfn := pp.pfns[i]
		t := ReplayTile{PFN: pfn, State: TileNever, Changed: hasTouch && pfn == touched}
		switch o := s.r.Owner(pfn); {
		case o == p.Index:
			t.State = TileOwned
			drawnOwned++
		case pp.first[i] < at && o != 0:
			t.State = TileOther
		case pp.first[i] < at:
			t.State = TileReleased
		}
		v.Tiles[i] = t
	}
	v.More = len(pp.pfns) - n
	if v.More > 0 {
		v.MoreOwned = max(0, p.Owned-drawnOwned)
	}
	return v
}

// chartOption is the inflight chart: each pool's inflight after each
// event (its series as replay keeps it: thinned to at most a few thousand
// points on a long capture, its maximum exact), over ms since the first
// event or over the event index, with a vertical line at the step shown.
// The option is returned split around the line's x.
func (s *ReplayState) chartOption() [2]string {
	const marker = -7.0e-300 // stands for the step's x in the JSON
	xName := "event"
	if s.r.Timed {
		xName = "ms since the first event"
	}
	line := charts.NewLine()
	line.SetGlobalOptions(frame("inflight pages per pool", "hold − release after each event; the line marks the step shown", palette,
		opts.Grid{Top: "90", Left: "60", Right: "30", Bottom: "60"},
		opts.XAxis{Type: "value", Name: xName, NameLocation: "middle", NameGap: 28}, opts.YAxis{Type: "value", Name: "pages"},
		opts.DataZoom{Type: "inside", XAxisIndex: []int{0}})...)
	for i, p := range s.r.Pools {
		data := make([]opts.LineData, 0, len(p.Series))
		for _, pt := range p.Series {
			x := pt.T
			if s.r.Timed {
				x = round3((pt.T - s.t0) / 1000)
			}
			data = append(data, opts.LineData{Value: []any{x, pt.Inflight}})
		}
		so := []charts.SeriesOpts{charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(len(data) < 24), Step: "end"})}
		if i == 0 {
			so = append(so, charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: "step", XAxis: marker}),
				charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"}, Label: &opts.Label{Show: opts.Bool(false)}}))
		}
		line.AddSeries("pool "+p.Name(), data, so...)
	}
	line.Validate()
	js := optionJSON(line)
	m := strconv.FormatFloat(marker, 'g', -1, 64)
	before, after, ok := strings.Cut(js, m)
	if !ok {
		return [2]string{js, ""} // cannot happen: the marker is in the option
	}
	return [2]string{before, after}
}

// Summary is the capture's summary (replay.Replay.Summary at its end).
func (s *ReplayState) Summary() string { return s.summary }

// Plural is "1 line", "2 lines" (engine/replay's, for the page's own text).
func Plural(n int, noun string) string { return rp.Plural(n, noun) }
