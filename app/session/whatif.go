package session

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"pplab/engine/perf"
	"pplab/engine/sim"
)

// The what-if page (/whatif/) as plain Go: a pasted `perf top`
// listing, its measured rate and a change go through the same perf.Predict
// `ppsim predict` calls, read as the CLI reads a --profile file
// (perf.ReadProfile), so that the page's numbers are what `ppsim predict
// --json` prints. Nothing here is computed for the page alone: the table and
// the chart are the listing's shares and the prediction's profile_after.

// WhatIfInput is the what-if form as the user left it. It is what the page
// keeps across navigation (browser storage) and, when short, in the URL.
type WhatIfInput struct {
	Text     string `json:"text"`
	Rate     string `json:"rate"`
	Unit     string `json:"unit"`
	Change   string `json:"change"`
	Platform string `json:"platform,omitempty"` // "" = the profile's
	// Previous is a paste an example replaced: one click restores it, so
	// that trying an example never loses the user's own listing.
	Previous string `json:"previous,omitempty"`
	// NoSuchProfile is a link's profile= that names no shipped profile
	// (the view says so; never stored).
	NoSuchProfile string `json:"-"`
}

// WhatIfUnits are the rate units Predict accepts (the CLI's --unit).
var WhatIfUnits = []string{"kpps", "pps", "mbps"}

// WhatIfError is why no prediction could be made, placed next to the
// field it is about: the line of the listing (1-based, 0 for none) and the
// line's text when it is about one.
type WhatIfError struct {
	Field    string `json:"field"` // text, rate, unit, change, platform
	Line     int    `json:"line,omitempty"`
	LineText string `json:"line_text,omitempty"`
	Msg      string `json:"msg"`
}

// WhatIfExample is one shipped profile offered as an example.
type WhatIfExample struct {
	Name, Driver, Platform, Test, Recycling string
	Rate, Unit                              string // the header's first stated rate
}

// WhatIfRow is one symbol of the before/after table: its share of the CPU
// time in the measured listing and in the predicted profile, and how its
// time per packet changes (predicted time / measured time, when the
// listing shows it).
type WhatIfRow struct {
	Symbol      string
	Measured    float64
	HasMeasured bool
	Predicted   float64
	Scale       float64 // meaningful when HasMeasured (0: the change takes the symbol off)
}

// WhatIfView is everything the page shows.
type WhatIfView struct {
	Input    WhatIfInput
	Example  string // the shipped profile the text is, "" for a paste of one's own
	Examples []WhatIfExample
	Changes  []string
	// ChangeMarks: a short mark for each change the listing cannot take
	// (perf.Applies refuses it): "already" for one its kernel has, "✕"
	// for the others; the reason shows when it is chosen.
	ChangeMarks map[string]string
	Units       []string
	// Platforms the override accepts ("" first: the profile's own).
	Platforms []string

	Lines  int // listing lines read (symbols)
	Listed float64
	Header []string // the facts the listing's header states
	Err    *WhatIfError

	Pred    *perf.Prediction
	JSON    string // exactly what `ppsim predict … --json` prints
	Command string // that command line
	Rows    []WhatIfRow
	Chart   string // the before/after bar chart (ECharts option JSON)
	Query   string // the URL query of this state: "" when the text is too long for a URL
}

// whatIfURLMax bounds a pasted listing kept in the URL (encoded): a link
// stays a link; longer pastes live in the browser's storage only.
const whatIfURLMax = 600

// WhatIfExamples lists the shipped profiles with their header facts.
func WhatIfExamples() []WhatIfExample {
	var out []WhatIfExample
	for _, n := range perf.ProfileNames() {
		p, _, err := perf.ShippedProfile(n)
		if err != nil {
			continue
		}
		e := WhatIfExample{Name: n, Driver: p.Driver, Platform: p.Platform, Test: p.Test, Recycling: p.Recycling}
		if len(p.Rates) > 0 {
			e.Rate, e.Unit = strconv.FormatFloat(p.Rates[0].Value, 'g', -1, 64), p.Rates[0].Unit
		}
		out = append(out, e)
	}
	return out
}

// WhatIfLoadExample fills the form with a shipped profile: its text, the
// header's rate and unit, and the first change that applies to it (the
// changes Predict refuses for a profile — bulk on one that already bulk
// allocates, skb-recycle on one that recycles — are tried first and
// skipped). A paste of the user's own that it replaces is kept in Previous.
func WhatIfLoadExample(name string, cur WhatIfInput) (WhatIfInput, error) {
	p, text, err := perf.ShippedProfile(name)
	if err != nil {
		return cur, err
	}
	in := WhatIfInput{Text: text, Unit: "kpps", Platform: "", Previous: cur.Previous}
	if strings.TrimSpace(cur.Text) != "" && whatIfShipped(cur.Text) == "" {
		in.Previous = cur.Text
	}
	if len(p.Rates) > 0 {
		in.Rate, in.Unit = strconv.FormatFloat(p.Rates[0].Value, 'g', -1, 64), p.Rates[0].Unit
	}
	in.Change = perf.Changes[0]
	if v, err := strconv.ParseFloat(in.Rate, 64); err == nil {
		for _, c := range perf.Changes {
			if err := perf.Applies(perf.PredictInput{Profile: p, Rate: v, Unit: in.Unit, Change: c}); err == nil {
				in.Change = c
				break
			}
		}
	}
	return in, nil
}

// changeMarks marks the changes the listing cannot take (perf.Applies):
// "already" where its kernel has the change, "✕" where it does not apply
// otherwise; none when the listing cannot be read at all (the platform
// asked for: every change waits on it).
func changeMarks(in perf.PredictInput) map[string]string {
	out := map[string]string{}
	for _, c := range whatIfChanges() {
		in.Change = c
		err := perf.Applies(in)
		switch {
		case err == nil:
		case strings.Contains(err.Error(), "is already applied"), strings.Contains(err.Error(), "is the listing's kernel already"), strings.Contains(err.Error(), "may run"):
			out[c] = "already"
		case strings.Contains(err.Error(), "say which platform"), strings.Contains(err.Error(), "none of the listing's"):
			return nil
		default:
			out[c] = "✕"
		}
	}
	return out
}

// whatIfChanges are the changes the form offers: perf.Changes, then the
// moves to each era (perf.EraChanges).
func whatIfChanges() []string {
	return append(slices.Clone(perf.Changes), perf.EraChanges()...)
}

// WhatIfRestore puts the paste an example replaced back in the form.
func WhatIfRestore(cur WhatIfInput) WhatIfInput {
	if cur.Previous == "" {
		return cur
	}
	cur.Text, cur.Previous = cur.Previous, ""
	return cur
}

// WhatIfDefault is the form a first visit opens with: the first example.
func WhatIfDefault() WhatIfInput {
	in, err := WhatIfLoadExample("mvpp2-v1-before", WhatIfInput{})
	if err != nil {
		return WhatIfInput{Unit: "kpps", Change: perf.Changes[0]}
	}
	return in
}

// whatIfShipped names the shipped profile a text is ("" for none).
func whatIfShipped(text string) string {
	norm := func(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")) }
	t := norm(text)
	for _, n := range perf.ProfileNames() {
		if _, s, err := perf.ShippedProfile(n); err == nil && norm(s) == t {
			return n
		}
	}
	return ""
}

var lineErr = regexp.MustCompile(`^line (\d+): `)
var nulErr = regexp.MustCompile(`offset (\d+)`)

// WhatIf reads the form and predicts: the view of the page. It never
// panics on input (a panic would be a bug in the engine: the caller
// recovers and shows it).
func WhatIf(in WhatIfInput) WhatIfView {
	v := WhatIfView{Input: in, Examples: WhatIfExamples(), Changes: whatIfChanges(), Units: WhatIfUnits,
		Platforms: append([]string{""}, sim.PlatformNames()...)}
	v.Example = whatIfShipped(in.Text)
	v.Query = WhatIfQuery(in, v.Example)
	if strings.TrimSpace(in.Text) == "" {
		v.Err = &WhatIfError{Field: "text", Msg: "paste a perf top listing (lines like \"  7.36%  [kernel]  [k] page_pool_put_page\"), or pick an example"}
		if in.NoSuchProfile != "" {
			v.Err.Msg = fmt.Sprintf("the link's profile %q is none of the examples (%s): %s", in.NoSuchProfile, strings.Join(perf.ProfileNames(), ", "), v.Err.Msg)
		}
		return v
	}
	prof, err := perf.ReadProfile(strings.NewReader(in.Text))
	if err != nil {
		v.Err = textError(in.Text, err.Error())
		return v
	}
	v.Lines, v.Listed = len(prof.Lines), prof.Total()
	v.Header = headerFacts(prof)
	rateText := strings.TrimSpace(in.Rate)
	rate, err := strconv.ParseFloat(rateText, 64)
	if err != nil || !(rate > 0) || math.IsInf(rate, 0) {
		v.Err = &WhatIfError{Field: "rate", Msg: fmt.Sprintf("rate %q: want a positive number (the rate measured with this listing)", in.Rate)}
		return v
	}
	if !contains(WhatIfUnits, in.Unit) {
		v.Err = &WhatIfError{Field: "unit", Msg: fmt.Sprintf("unit %q: accepted: %s", in.Unit, strings.Join(WhatIfUnits, ", "))}
		return v
	}
	v.ChangeMarks = changeMarks(perf.PredictInput{Profile: prof, Rate: rate, Unit: in.Unit, Platform: in.Platform})
	pr, err := perf.Predict(perf.PredictInput{Profile: prof, Rate: rate, Unit: in.Unit, Change: in.Change, Platform: in.Platform})
	if err != nil {
		v.Err = predictError(in.Text, err.Error())
		return v
	}
	b, err := json.Marshal(pr)
	if err != nil {
		v.Err = &WhatIfError{Msg: err.Error()}
		return v
	}
	v.Pred, v.JSON = pr, string(b)+"\n" // the CLI: fmt.Fprintf(stdout, "%s\n", b)
	v.Command = WhatIfCommand(in, v.Example)
	v.Rows = whatIfRows(prof, pr)
	v.Chart = whatIfChart(v.Rows, in.Change)
	return v
}

// WhatIfCommand is the `ppsim predict` command line that prints the same
// JSON: a shipped example by name, a paste of one's own as a file.
func WhatIfCommand(in WhatIfInput, example string) string {
	prof := "listing.txt"
	if example != "" {
		prof = example
	}
	cmd := fmt.Sprintf("ppsim predict --profile %s --rate %s --unit %s --change %s", prof, shellWord(strings.TrimSpace(in.Rate)), in.Unit, shellWord(in.Change))
	if in.Platform != "" {
		cmd += " --platform " + shellWord(in.Platform)
	}
	return cmd + " --json"
}

func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// textError places a reading error of the listing on its line.
func textError(text, msg string) *WhatIfError {
	e := &WhatIfError{Field: "text", Msg: msg}
	if m := lineErr.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
	} else if strings.HasPrefix(msg, "not text:") {
		if m := nulErr.FindStringSubmatch(msg); m != nil {
			off, _ := strconv.Atoi(m[1])
			off = min(off, len(text))
			e.Line = strings.Count(text[:off], "\n") + 1
		}
	}
	e.LineText = lineOf(text, e.Line)
	return e
}

// predictError places one of Predict's refusals: the field its flag names
// (--rate, --change, --platform); a listing's header fact on the header
// line that states it.
func predictError(text, msg string) *WhatIfError {
	e := &WhatIfError{Field: "text", Msg: msg}
	switch {
	case strings.HasPrefix(msg, "--rate"):
		e.Field = "rate"
	case strings.HasPrefix(msg, "--change"), strings.HasPrefix(msg, "skb-recycle "), strings.HasPrefix(msg, "bulk "), strings.HasPrefix(msg, "bulk:"), strings.HasPrefix(msg, "napi-direct "), strings.HasPrefix(msg, "pp-napi"), strings.HasPrefix(msg, "era:"):
		e.Field = "change"
	case strings.HasPrefix(msg, "kernel \""):
		e.Line = headerLine(text, "kernel:")
	case strings.HasPrefix(msg, "--platform"), strings.HasPrefix(msg, "platform"), strings.HasPrefix(msg, "the listing shows no driver's functions"):
		e.Field = "platform"
	case strings.HasPrefix(msg, "the listing's header names platform"):
		e.Line = headerLine(text, "platform:")
	case strings.HasPrefix(msg, "the listing's header names driver"):
		e.Line = headerLine(text, "driver:")
	case strings.HasPrefix(msg, "driver ") && strings.Contains(msg, "workload"):
		e.Line = headerLine(text, "test:")
	}
	e.Msg = pageWords(e.Msg)
	e.LineText = lineOf(text, e.Line)
	return e
}

// ChangeLabel is a change as the page names it: an era move "move to
// era 6.4" (the CLI's era:6.4).
func ChangeLabel(c string) string {
	if e, ok := strings.CutPrefix(c, "era:"); ok {
		return "move to era " + e
	}
	return c
}

// pageWords is a refusal of perf.Predict in the page's words: the page
// names no command-line flag ("--rate 1000 kpps: …" reads "rate 1000
// kpps: …"; the CLI keeps the flag) and calls an era move what its select
// calls it ("era:6.4" reads "“move to era 6.4”").
func pageWords(msg string) string {
	for _, flag := range []string{"--rate", "--change", "--platform", "--profile"} {
		if strings.HasPrefix(msg, flag) {
			msg = strings.TrimPrefix(flag, "--") + strings.TrimPrefix(msg, flag)
			if flag == "--profile" {
				msg = "listing" + strings.TrimPrefix(msg, "profile")
			}
			break
		}
	}
	msg = strings.Replace(msg, "or era:E for a move to era E (E one of", "or “move to era E” (E one of", 1)
	msg = quotedEraChange.ReplaceAllString(msg, "“move to era $1”") // change "era:9.9" → change “move to era 9.9”
	return eraChange.ReplaceAllString(msg, "“move to era $1”")
}

// eraChange is an era move as the CLI writes it ("era:6.4").
var quotedEraChange = regexp.MustCompile(`"era:([^"]*)"`)

var eraChange = regexp.MustCompile(`\bera:([0-9]+\.[0-9]+(?:-rc[0-9]+)?)`)

// headerLine is the first comment line stating key ("platform:"), 0 for none.
func headerLine(text, key string) int {
	for i, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") && strings.Contains(t, key) {
			return i + 1
		}
	}
	return 0
}

// lineOf is line n of text (1-based), trimmed and cut to 120 characters.
func lineOf(text string, n int) string {
	if n <= 0 {
		return ""
	}
	lines := strings.Split(text, "\n")
	if n > len(lines) {
		return ""
	}
	l := strings.TrimSpace(strings.TrimSuffix(lines[n-1], "\r"))
	if r := []rune(l); len(r) > 120 {
		l = string(r[:119]) + "…"
	}
	return l
}

func headerFacts(p *perf.Profile) []string {
	var out []string
	add := func(k, v string) {
		if v != "" {
			out = append(out, k+": "+v)
		}
	}
	add("driver", p.Driver)
	add("platform", p.Platform)
	add("test", p.Test)
	var rates []string
	for _, r := range p.Rates {
		s := strconv.FormatFloat(r.Value, 'g', -1, 64) + " " + r.Unit
		if r.Label != "" {
			s = r.Label + " " + s
		}
		rates = append(rates, s)
	}
	add("rate", strings.Join(rates, ", "))
	add("recycling", p.Recycling)
	add("bulk", strings.TrimPrefix(p.Bulk, "bulk refill: "))
	add("kernel", p.Kernel)
	return out
}

// whatIfRows: the listed symbols in listing order of their summed share
// (largest first), then the symbols only the prediction has (the model's
// functions the listing does not show, and the rest of the stack, whose
// measured share is the listing's unlisted remainder).
func whatIfRows(p *perf.Profile, pr *perf.Prediction) []WhatIfRow {
	after := map[string]float64{}
	for _, e := range pr.ProfileAfter {
		after[e.Symbol] = e.Pct
	}
	var rows []WhatIfRow
	seen := map[string]bool{}
	for _, l := range p.Lines {
		if seen[l.Symbol] {
			continue
		}
		seen[l.Symbol] = true
		rows = append(rows, WhatIfRow{Symbol: l.Symbol, Measured: round2(p.Share(l.Symbol)), HasMeasured: true, Predicted: after[l.Symbol]})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Measured > rows[j].Measured })
	if rest := 100 - p.Total(); rest > 0.005 && !seen[sim.RestProfile] {
		seen[sim.RestProfile] = true
		rows = append(rows, WhatIfRow{Symbol: sim.RestProfile, Measured: round2(rest), HasMeasured: true, Predicted: after[sim.RestProfile]})
	}
	for _, e := range pr.ProfileAfter {
		if !seen[e.Symbol] {
			rows = append(rows, WhatIfRow{Symbol: e.Symbol, Predicted: e.Pct})
		}
	}
	for i := range rows {
		if r := &rows[i]; r.Measured > 0 && pr.Speedup > 0 {
			r.Scale = math.Round(r.Predicted/pr.Speedup/r.Measured*100) / 100
		}
	}
	return rows
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// whatIfChartTop is how many symbols the chart shows (the table has all).
const whatIfChartTop = 12

// whatIfChart: measured and predicted shares of the top symbols (by the
// larger of the two), largest at the top.
func whatIfChart(rows []WhatIfRow, change string) string {
	top := append([]WhatIfRow(nil), rows...)
	sort.SliceStable(top, func(i, j int) bool {
		return math.Max(top[i].Measured, top[i].Predicted) > math.Max(top[j].Measured, top[j].Predicted)
	})
	if len(top) > whatIfChartTop {
		top = top[:whatIfChartTop]
	}
	names := make([]string, len(top))
	before := make([]opts.BarData, len(top))
	after := make([]opts.BarData, len(top))
	for i, r := range top {
		k := len(top) - 1 - i // category axes draw bottom-up
		names[k] = r.Symbol
		before[k] = opts.BarData{Value: r.Measured}
		after[k] = opts.BarData{Value: r.Predicted}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(frame("measured and predicted profile", "share of CPU time per symbol, before and after "+change, opts.Colors{palette[0], palette[1]},
		opts.Grid{Top: "80", Left: "8", Right: "24", Bottom: "30", ContainLabel: opts.Bool(true)}, opts.XAxis{Type: "value", Name: "%"}, opts.YAxis{Type: "category"},
		opts.DataZoom{Type: "inside", YAxisIndex: []int{0}})...)
	bar.SetXAxis(names)
	bar.AddSeries("measured", before)
	bar.AddSeries("predicted: "+ChangeLabel(change), after)
	bar.XYReversal()
	bar.Validate()
	// Long kernel symbols (mlx5e_skb_from_cqe_mpwrq_linear) would take
	// half a phone's width: the labels are cut at 150 px (the tooltip and
	// the table have them whole). go-echarts' AxisLabel has no width.
	var m map[string]any
	if err := json.Unmarshal([]byte(optionJSON(bar)), &m); err != nil {
		return ""
	}
	// The title at the left: centred, it ran under the toolbox on a phone.
	if ts, ok := m["title"].(map[string]any); ok {
		ts["left"] = 4
	} else if tl, ok := m["title"].([]any); ok && len(tl) > 0 {
		if ts, ok := tl[0].(map[string]any); ok {
			ts["left"] = 4
		}
	}
	if ys, ok := m["yAxis"].([]any); ok {
		for _, y := range ys {
			if ym, ok := y.(map[string]any); ok {
				ym["axisLabel"] = map[string]any{"width": 150, "overflow": "truncate", "fontSize": 11}
			}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}

// WhatIfQuery is the URL query of a form: a shipped example by name (if
// the text is one), else the paste itself when short; "" when the paste is
// too long for a URL (the browser's storage keeps it).
func WhatIfQuery(in WhatIfInput, example string) string {
	q := url.Values{}
	switch {
	case example != "":
		q.Set("profile", example)
	case in.Text == "":
	default:
		q.Set("text", in.Text)
	}
	q.Set("rate", strings.TrimSpace(in.Rate))
	q.Set("unit", in.Unit)
	q.Set("change", in.Change)
	if in.Platform != "" {
		q.Set("platform", in.Platform)
	}
	s := q.Encode()
	if example == "" && len(s) > whatIfURLMax {
		return ""
	}
	return s
}

// WhatIfFromQuery reads a form from a URL query (profile=NAME or
// text=…, rate, unit, change, platform); ok is false when the query holds
// no listing. An unknown profile name leaves the text empty, and the view
// says what to paste.
func WhatIfFromQuery(q url.Values) (in WhatIfInput, ok bool) {
	name, text := q.Get("profile"), q.Get("text")
	if name == "" && text == "" {
		return in, false
	}
	unknown := ""
	if name != "" {
		if _, t, err := perf.ShippedProfile(name); err == nil {
			text = t
		} else if text == "" {
			unknown = name
		}
	}
	in = WhatIfInput{Text: text, Rate: q.Get("rate"), Unit: q.Get("unit"), Change: q.Get("change"), Platform: q.Get("platform"), NoSuchProfile: unknown}
	if in.Unit == "" {
		in.Unit = "kpps"
	}
	if in.Change == "" {
		in.Change = perf.Changes[0]
	}
	return in, true
}

// WhatIfStored encodes a form for the browser's storage; WhatIfLoad reads
// it back (ok false for nothing usable).
func WhatIfStored(in WhatIfInput) string {
	b, _ := json.Marshal(in)
	return string(b)
}

func WhatIfLoad(s string) (WhatIfInput, bool) {
	var in WhatIfInput
	if s == "" || json.Unmarshal([]byte(s), &in) != nil {
		return in, false
	}
	return in, in.Text != "" || in.Previous != ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
