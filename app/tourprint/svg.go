// Package tourprint draws a tour preset's figure as a standalone SVG: the
// static picture a printed chapter shows in place of the live figure. The
// site generator (wasm/server.go) writes one per preset at
// tour.Chapter.FigPath, and the live server answers the same paths; the
// chapter's prose links each after the paragraph that links its preset
// (app/tourview.go), shown only in print (web/app.css).
//
// The picture is the state of the preset's step, computed natively by the
// engine exactly as the live figure computes it (session.New(query).View()):
// the preset's caption; the subject its sentence is about
// (tour.Preset.SubjectOf), marked and named; the machine's structures —
// the page allocator, each pool's alloc cache (its top slots), frag page
// and ptr_ring, the NIC RX ring, the skbs and the pages held elsewhere —
// as tiles coloured by place with the playground's light-theme colours
// (web/app.css), each labelled with the page's refcount as the live tiles
// are, the pages the step moved outlined; then the step's narration and
// its first events. Every structure is labelled and the subject carries a
// thick frame and a pointer, so that it reads in black and white too.
package tourprint

import (
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"pplab/app/session"
	"pplab/app/tour"
	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The picture's geometry, in SVG user units (CSS pixels at 1:1).
const (
	width    = 800.0
	margin   = 10.0
	tileW    = 20.0
	pitch    = 24.0 // a tile and the gap after it
	pad      = 6.0  // inside a block's frame
	blockGap = 8.0
	maxRow   = 32 // tiles in one row of a block
	marksH   = 11.0
	ptrH     = 10.0
	// cacheShown is how many of the alloc cache's top slots are drawn.
	cacheShown = 16
	// ringShown is the window drawn of a ring larger than 2×maxRow slots.
	ringShown = 32
	// skbsShown bounds the skb cards drawn per group, framesShown the
	// pages of one block of pages held elsewhere.
	skbsShown  = 6
	fragsShown = 16
	heldShown  = 32
	// eventsShown is how many of the step's events are listed.
	eventsShown = 6
)

// The font sizes: text (and the structures' headings), the muted notes,
// the events, the caption and the subject's line. A printed figure is the
// column's width (about 18 cm for 800 units): 12 units print at 7.6 pt.
const (
	fsText  = 12.0
	fsMeta  = 10.5
	fsEvent = 11.0
	fsCap   = 15.0
	fsSub   = 12.5
)

// Place colours: web/app.css's light theme (:root's --cache, --ring …, and
// the .place-* rules); TestColours_AreThePlaygrounds checks them.
var placeFill = map[string]string{
	"cache": "#009E73", "ring": "#56B4E9", "nic-ring": "#E69F00", "skb": "#CC79A7",
	"socket": "#0072B2", "tx-ring": "#D55E00", "xdp-frame": "#F0E442", "slab": "#9a9a9a",
	"driver": "#ffffff", "driver-cache": "#ffffff", "user": "#ffffff", "buddy": "#ffffff",
}

// PlaceFill is the colour the picture fills a tile of place with ("#rrggbb";
// ok false for a place it has none for).
func PlaceFill(place string) (string, bool) {
	c, ok := placeFill[place]
	return c, ok
}

// whiteText: the places whose tiles carry white labels (.place-socket,
// .place-tx-ring).
var whiteText = map[string]bool{"socket": true, "tx-ring": true}

// style is the picture's stylesheet. The classes of the place fills are
// p-<place>.
func style() string {
	var b strings.Builder
	fmt.Fprintf(&b, `text{font-family:"DejaVu Sans","Liberation Sans",Arial,Helvetica,sans-serif;font-size:%gpx;fill:#1b1b1b}`+
		`.h{font-weight:700}.m{fill:#5c5c5c;font-size:%gpx}.cap{font-size:%gpx;font-weight:700}.sub{font-size:%gpx;font-weight:700}`+
		`.ev{font-size:%gpx}`, fsText, fsMeta, fsCap, fsSub, fsEvent)
	b.WriteString(`.warn{fill:#b00020}` +
		`.t{stroke:#000;stroke-opacity:.35}.l{font-size:11px;font-weight:700;text-anchor:middle}.w{fill:#fff}` +
		`.fc{font-size:7px;font-weight:600;text-anchor:middle}.fcb{fill:#fff;stroke:#d6d6d6}` +
		`.e{fill:none;stroke:#b0b0b0;stroke-dasharray:2 2}.st{fill:url(#hatch);stroke:#56B4E9}` +
		`.mk{font-size:10px;font-weight:700}.lb{fill:#5c5c5c;font-size:10px}` +
		`.mv{fill:none;stroke:#000;stroke-width:2}.sj{fill:none;stroke:#000;stroke-width:3}.ptr{fill:#000}` +
		`.bx{fill:none;stroke:#d6d6d6}.bxs{fill:none;stroke:#000;stroke-width:3}.card{fill:none;stroke:#d6d6d6}` +
		`.rule{stroke:#d6d6d6}`)
	places := make([]string, 0, len(placeFill))
	for p := range placeFill {
		places = append(places, p)
	}
	slices.Sort(places)
	for _, p := range places {
		fmt.Fprintf(&b, ".p-%s{fill:%s}", p, placeFill[p])
	}
	// The tiles with a border of their own (.place-driver-cache, .place-user,
	// a page just freed: .box.freed .tile.place-buddy).
	b.WriteString(`.p-driver-cache{stroke:#009E73;stroke-width:2;stroke-opacity:1}.p-user{stroke:#0072B2;stroke-width:2;stroke-dasharray:3 2;stroke-opacity:1}` +
		`.p-buddy{stroke:#1b1b1b;stroke-width:2;stroke-dasharray:3 2;stroke-opacity:1}.p-other{fill:#ececec}`)
	return b.String()
}

// Figure is what the picture shows of one preset's state.
type Figure struct {
	Caption string
	Subject tour.Subject
	snap    *lab.Snapshot
	narr    session.NarrationView
	moved   map[int32]bool
}

// New runs preset p of chapter c to its step, as the live figure does.
func New(c tour.Chapter, p tour.Preset) (*Figure, error) {
	q, err := p.Query()
	if err != nil {
		return nil, err
	}
	s := session.New(q, nil)
	v := s.View()
	for _, n := range v.Banner {
		return nil, fmt.Errorf("%s/%s: the state does not build as written: %s", c.Slug, p.ID, n.Text)
	}
	f := &Figure{Caption: p.Caption, snap: &v.Machine.Snap, narr: v.Narration, moved: map[int32]bool{}}
	for _, pfn := range v.Machine.Changed {
		f.moved[pfn] = true
	}
	f.Subject = p.SubjectOf(v.Narration.Rec, f.snap)
	return f, nil
}

// SVG draws preset p of chapter c.
func SVG(c tour.Chapter, p tour.Preset) ([]byte, error) {
	f, err := New(c, p)
	if err != nil {
		return nil, err
	}
	return f.SVG(), nil
}

// Each draws every preset of every chapter, in order, and hands fn its
// path (tour.Chapter.FigPath) and picture.
func Each(fn func(path string, svg []byte) error) error {
	for _, c := range tour.Chapters() {
		for _, p := range c.Presets {
			b, err := SVG(c, p)
			if err != nil {
				return err
			}
			if err := fn(c.FigPath(p), b); err != nil {
				return err
			}
		}
	}
	return nil
}

// ByPath draws the preset whose figure path is path (ok false: none).
func ByPath(path string) (svg []byte, ok bool, err error) {
	for _, c := range tour.Chapters() {
		for _, p := range c.Presets {
			if c.FigPath(p) == path {
				b, err := SVG(c, p)
				return b, true, err
			}
		}
	}
	return nil, false, nil
}

// ---- drawing ----

// canvas is the SVG body being written.
type canvas struct {
	b      strings.Builder
	f      *Figure
	places map[string]bool // the place colours used (the legend)
	// the legend's other entries: a stale ptr_ring slot, the ring marks
	stale, ringMarks, nicMarks bool
}

// cellKind is what one cell of a row is.
type cellKind uint8

const (
	cPage  cellKind = iota // a page's tile (an empty slot when the page is free)
	cEmpty                 // a slot with no page
	cStale                 // a ptr_ring slot still pointing at a consumed page
	cFreed                 // the subject page, just freed to the page allocator
	cLabel                 // words between tiles ("head", "frags", "…")
)

type cell struct {
	kind cellKind
	pfn  int32
	mark string // P, C (ptr_ring), N, F (NIC ring)
	text string // cLabel
}

func (c cell) width() float64 {
	if c.kind == cLabel {
		return textW(c.text, 10, false) + 6
	}
	return pitch
}

// item is one piece of a block: a line of text, a row of cells, a flow of
// skb cards.
type item interface {
	size(f *Figure) (w, h float64)
	draw(cv *canvas, x, y float64)
}

type textLine struct {
	s, cls string
	px     float64
	bold   bool
}

func (t textLine) size(*Figure) (float64, float64) { return textW(t.s, t.px, t.bold), t.px + 4 }
func (t textLine) draw(cv *canvas, x, y float64) {
	cv.text(x, y+t.px, t.cls, t.s)
}

// headLine is a bold name and words after it, on one line.
type headLine struct{ bold, rest string }

func (t headLine) size(*Figure) (float64, float64) {
	return textW(t.bold, fsText, true) + textW(t.rest, fsMeta, false), fsText + 4
}
func (t headLine) draw(cv *canvas, x, y float64) {
	fmt.Fprintf(&cv.b, `<text x="%s" y="%s"><tspan class="h">`, n(x), n(y+fsText))
	xml.EscapeText(&cv.b, []byte(t.bold))
	cv.b.WriteString(`</tspan><tspan class="m">`)
	xml.EscapeText(&cv.b, []byte(t.rest))
	cv.b.WriteString(`</tspan></text>`)
}

type tileRow struct{ cells []cell }

func (r tileRow) size(f *Figure) (float64, float64) {
	w, marks, subj := 0.0, false, false
	for _, c := range r.cells {
		w += c.width()
		marks = marks || c.mark != ""
		subj = subj || f.isSubject(c)
	}
	h := tileW + 8 // room above for a frag count's badge, below for a frame
	if marks {
		h += marksH
	}
	if subj {
		h += ptrH
	}
	return w - (pitch - tileW), h
}

func (r tileRow) draw(cv *canvas, x, y float64) {
	marks := false
	for _, c := range r.cells {
		marks = marks || c.mark != ""
	}
	y += 5
	for _, c := range r.cells {
		cv.cell(c, x, y, marks)
		x += c.width()
	}
}

// cardFlow lays skb cards out left to right within a width.
type cardFlow struct {
	cards []*block
	maxW  float64
}

func (fl cardFlow) size(f *Figure) (float64, float64) {
	_, w, h := flow(f, fl.cards, fl.maxW, 6)
	return w, h
}

func (fl cardFlow) draw(cv *canvas, x, y float64) {
	pos, _, _ := flow(cv.f, fl.cards, fl.maxW, 6)
	for i, b := range fl.cards {
		b.draw(cv, x+pos[i][0], y+pos[i][1])
	}
}

// block is a framed structure: its heading and its items; strong frames
// it thickly (the structure the subject is).
type block struct {
	items  []item
	strong bool
	card   bool // an skb card: a lighter frame
}

func (b *block) size(f *Figure) (w, h float64) {
	for i, it := range b.items {
		iw, ih := it.size(f)
		w = math.Max(w, iw)
		h += ih
		if i > 0 {
			h += 2
		}
	}
	p := pad
	if b.card {
		p = 4
	}
	return w + 2*p, h + 2*p
}

func (b *block) draw(cv *canvas, x, y float64) {
	w, h := b.size(cv.f)
	cls := "bx"
	switch {
	case b.strong:
		cls = "bxs"
	case b.card:
		cls = "card"
	}
	fmt.Fprintf(&cv.b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s" rx="5"/>`, cls, n(x), n(y), n(w), n(h))
	p := pad
	if b.card {
		p = 4
	}
	cy := y + p
	for _, it := range b.items {
		_, ih := it.size(cv.f)
		it.draw(cv, x+p, cy)
		cy += ih + 2
	}
}

// flow places blocks left to right, wrapping at maxW: their positions and
// the size of the whole.
func flow(f *Figure, bs []*block, maxW, gap float64) (pos [][2]float64, w, h float64) {
	x, y, rowH := 0.0, 0.0, 0.0
	for _, b := range bs {
		bw, bh := b.size(f)
		if x > 0 && x+bw > maxW {
			x, y, rowH = 0, y+rowH+gap, 0
		}
		pos = append(pos, [2]float64{x, y})
		w = math.Max(w, x+bw)
		rowH = math.Max(rowH, bh)
		x += bw + gap
	}
	return pos, w, y + rowH
}

// isSubject: cell c draws the subject page.
func (f *Figure) isSubject(c cell) bool {
	return f.Subject.PFN >= 0 && c.pfn == f.Subject.PFN && (c.kind == cPage || c.kind == cFreed)
}

func (cv *canvas) cell(c cell, x, y float64, marks bool) {
	f := cv.f
	page, ok := f.snap.Page(c.pfn)
	kind := c.kind
	if kind == cPage && !ok {
		kind = cEmpty
	}
	switch kind {
	case cLabel:
		cv.text(x+1, y+14, "lb", c.text)
		return
	case cEmpty:
		fmt.Fprintf(&cv.b, `<rect class="e" x="%s" y="%s" width="%s" height="%s" rx="3"/>`, n(x+.5), n(y+.5), n(tileW-1), n(tileW-1))
	case cStale:
		cv.stale = true
		fmt.Fprintf(&cv.b, `<rect class="st" x="%s" y="%s" width="%s" height="%s" rx="3"/>`, n(x+.5), n(y+.5), n(tileW-1), n(tileW-1))
	case cPage, cFreed:
		place := page.Place
		if kind == cFreed {
			place, page = "buddy", lab.PageView{PFN: c.pfn}
		}
		cls := "p-" + place
		if _, known := placeFill[place]; !known {
			cls = "p-other"
		}
		cv.places[place] = true
		fmt.Fprintf(&cv.b, `<rect class="t %s" x="%s" y="%s" width="%s" height="%s" rx="3"/>`, cls, n(x), n(y), n(tileW), n(tileW))
		lc := "l"
		if whiteText[place] {
			lc = "l w"
		}
		cv.text(x+tileW/2, y+14, lc, strconv.Itoa(int(page.Ref)))
		switch {
		case f.isSubject(c):
			fmt.Fprintf(&cv.b, `<rect class="sj" x="%s" y="%s" width="%s" height="%s" rx="4"/>`, n(x-1.5), n(y-1.5), n(tileW+3), n(tileW+3))
			py := y + tileW + 4
			if marks {
				py += marksH
			}
			fmt.Fprintf(&cv.b, `<path class="ptr" d="M%s %sl5 8h-10z"/>`, n(x+tileW/2), n(py))
		case f.moved[c.pfn] && kind == cPage:
			fmt.Fprintf(&cv.b, `<rect class="mv" x="%s" y="%s" width="%s" height="%s" rx="4"/>`, n(x-1), n(y-1), n(tileW+2), n(tileW+2))
		}
		// The frag count over the frame, as the live tile's badge.
		if fc := lab.FragText(page.FragCount); fc != "" && page.FragCount != 1 {
			bw := textW(fc, 7, true) + 4
			fmt.Fprintf(&cv.b, `<rect class="fcb" x="%s" y="%s" width="%s" height="9" rx="3"/>`, n(x+tileW-bw+3), n(y-5), n(bw))
			cv.text(x+tileW-bw/2+3, y+2, "fc", fc)
		}
		if page.Pfmemalloc {
			cv.text(x+3, y+8, "fc", "!")
		}
	}
	if c.mark != "" {
		cv.text(x, y+tileW+marksH, "mk", c.mark)
		cv.ringMarks = cv.ringMarks || strings.ContainsAny(c.mark, "PC")
		cv.nicMarks = cv.nicMarks || strings.ContainsAny(c.mark, "NF")
	}
}

func (cv *canvas) text(x, y float64, cls, s string) {
	fmt.Fprintf(&cv.b, `<text x="%s" y="%s"`, n(x), n(y))
	if cls != "" {
		fmt.Fprintf(&cv.b, ` class="%s"`, cls)
	}
	cv.b.WriteByte('>')
	xml.EscapeText(&cv.b, []byte(s))
	cv.b.WriteString(`</text>`)
}

// n formats a coordinate.
func n(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// textW is an estimate of a text's width, on the safe side for DejaVu
// Sans, the widest of the fonts the picture names (measured in Chromium:
// about 0.5 em a character for the figure's words, 0.58 em bold).
func textW(s string, px float64, bold bool) float64 {
	k := 0.55
	if bold {
		k = 0.62
	}
	return float64(utf8.RuneCountInString(s)) * px * k
}

// wrap breaks s into lines of at most max characters, at spaces.
func wrap(s string, max int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= max:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
		for utf8.RuneCountInString(line) > max { // a word longer than a line
			r := []rune(line)
			lines = append(lines, string(r[:max]))
			line = string(r[max:])
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// charsPerLine is how many characters of size px fit the picture's width.
func charsPerLine(px float64, bold bool) int {
	return int((width - 2*margin) / textW("x", px, bold))
}

// ---- the picture ----

// SVG is the picture.
func (f *Figure) SVG() []byte {
	cv := &canvas{f: f, places: map[string]bool{}}
	inner := width - 2*margin
	y := margin
	// The caption, the subject, the run.
	for _, l := range wrap(f.Caption, charsPerLine(fsCap, true)) {
		cv.text(margin, y+fsCap, "cap", l)
		y += fsCap + 4
	}
	y += 2
	subj := "The subject: " + f.Subject.Words()
	for i, l := range wrap(subj, charsPerLine(fsSub, true)-3) {
		if i == 0 {
			fmt.Fprintf(&cv.b, `<path class="ptr" d="M%s %sl5 8h-10z"/>`, n(margin+5), n(y+fsSub-8))
		}
		cv.text(margin+14, y+fsSub, "sub", l)
		y += fsSub + 4
	}
	run := fmt.Sprintf("kernel %s · scenario %s", f.snap.Era, f.snap.Scenario)
	if f.snap.Driver != "" {
		run += " · driver " + f.snap.Driver
	}
	run += fmt.Sprintf(" · the state after op %d", f.snap.Op)
	cv.text(margin, y+fsMeta+1, "m", run)
	y += fsMeta + 8
	// The machine.
	blocks := f.blocks(inner)
	pos, _, h := flow(f, blocks, inner, blockGap)
	for i, b := range blocks {
		b.draw(cv, margin+pos[i][0], y+pos[i][1])
	}
	y += h + 10
	// The step.
	fmt.Fprintf(&cv.b, `<line class="rule" x1="%s" y1="%s" x2="%s" y2="%s"/>`, n(margin), n(y), n(width-margin), n(y))
	y += 4
	for _, l := range f.narration() {
		for i, w := range wrap(l.s, charsPerLine(l.px, l.bold)) {
			if i == 2 && l.cls != "h" { // an event's line: two lines at most
				break
			}
			x := margin
			if i > 0 {
				x += 12
			}
			cv.text(x, y+l.px+2, l.cls, w)
			y += l.px + 4
		}
	}
	y += 6
	y = cv.legend(y)
	var out strings.Builder
	h = math.Ceil(y + margin)
	fmt.Fprintf(&out, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-labelledby="fig-title fig-desc">`,
		n(width), n(h), n(width), n(h))
	out.WriteString(`<title id="fig-title">`)
	xml.EscapeText(&out, []byte(f.Caption))
	out.WriteString(`</title><desc id="fig-desc">`)
	xml.EscapeText(&out, []byte(subj+". "+run+"."))
	out.WriteString(`</desc><style>`)
	out.WriteString(style())
	out.WriteString(`</style><defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="1.2" height="4" fill="#56B4E9"/></pattern></defs>`)
	fmt.Fprintf(&out, `<rect width="%s" height="%s" fill="#fff"/>`, n(width), n(h))
	out.WriteString(cv.b.String())
	out.WriteString("</svg>\n")
	return []byte(out.String())
}

// legend draws the colours used, the moved outline and the subject's
// mark, from y; it returns the y below it.
func (cv *canvas) legend(y float64) float64 {
	type entry struct{ place, text string }
	var es []entry
	for _, l := range session.PlaceLegend {
		if cv.places[l.Place] {
			es = append(es, entry{l.Place, l.Text})
			delete(cv.places, l.Place)
		}
	}
	for _, p := range []string{"buddy", "other"} {
		if cv.places[p] {
			es = append(es, entry{p, map[string]string{"buddy": "just freed to the page allocator", "other": "another place"}[p]})
		}
	}
	es = append(es, entry{"moved", "moved in this step"}, entry{"subject", "the subject (thick frame, ▲ under it)"}, entry{"empty", "empty slot"})
	if cv.stale {
		es = append(es, entry{"stale", "ptr_ring slot consumed, not yet zeroed"})
	}
	if cv.ringMarks {
		es = append(es, entry{"", "P / C: the ptr_ring's producer and consumer"})
	}
	if cv.nicMarks {
		es = append(es, entry{"", "N / F: the next descriptor the NIC fills, the driver refills"})
	}
	x := margin
	for _, e := range es {
		w := 18 + textW(e.text, fsMeta, false) + 14
		if x+w > width-margin {
			x, y = margin, y+18
		}
		switch e.place {
		case "moved":
			fmt.Fprintf(&cv.b, `<rect class="t p-driver" x="%s" y="%s" width="12" height="12" rx="2"/><rect class="mv" x="%s" y="%s" width="14" height="14" rx="3"/>`, n(x), n(y+2), n(x-1), n(y+1))
		case "subject":
			fmt.Fprintf(&cv.b, `<rect class="t p-driver" x="%s" y="%s" width="12" height="12" rx="2"/><rect class="sj" x="%s" y="%s" width="15" height="15" rx="3"/>`, n(x), n(y+2), n(x-1.5), n(y+.5))
		case "empty":
			fmt.Fprintf(&cv.b, `<rect class="e" x="%s" y="%s" width="12" height="12" rx="2"/>`, n(x), n(y+2))
		case "stale":
			fmt.Fprintf(&cv.b, `<rect class="st" x="%s" y="%s" width="12" height="12" rx="2"/>`, n(x), n(y+2))
		case "":
			x -= 18
		default:
			cls := "p-" + e.place
			if _, ok := placeFill[e.place]; !ok {
				cls = "p-other"
			}
			fmt.Fprintf(&cv.b, `<rect class="t %s" x="%s" y="%s" width="12" height="12" rx="2"/>`, cls, n(x), n(y+2))
		}
		cv.text(x+18, y+12, "m", e.text)
		x += w
	}
	return y + 18
}

// ---- the structures ----

// blocks are the machine's structures at the state, in the live machine's
// order.
func (f *Figure) blocks(inner float64) []*block {
	s := f.snap
	sub := f.Subject
	structure := func(place string) bool { return sub.PFN < 0 && sub.SKB == 0 && sub.Place == place }
	var bs []*block
	// The page allocator.
	alloc := &block{strong: structure("buddy")}
	alloc.items = append(alloc.items, textLine{s: "page allocator" + subjectMark(f, "buddy"), cls: "h", px: fsText, bold: true})
	for node, free := range s.FreePerNode {
		alloc.items = append(alloc.items, textLine{s: fmt.Sprintf("node %d: %d free pages", node, free), px: fsText})
	}
	if sub.PFN >= 0 && sub.Place == "buddy" {
		alloc.items = append(alloc.items, tileRow{cells: []cell{{kind: cFreed, pfn: sub.PFN}, {kind: cLabel, text: fmt.Sprintf("pfn %#x just went back", sub.PFN)}}})
	}
	bs = append(bs, alloc)
	for _, p := range s.Pools {
		bs = append(bs, f.cache(p, structure("cache")))
		if p.FragPFN >= 0 {
			bs = append(bs, &block{strong: structure("frag"), items: []item{
				textLine{s: fmt.Sprintf("pool #%d frag_page", p.ID) + subjectMark(f, "frag"), cls: "h", px: fsText, bold: true},
				textLine{s: "the next fragments", cls: "m", px: fsMeta},
				tileRow{cells: []cell{{kind: cPage, pfn: p.FragPFN}}},
			}})
		}
		bs = append(bs, f.ring(p, structure("ring")))
	}
	if s.NIC != nil {
		bs = append(bs, f.nic(s.NIC, structure("nic-ring")))
	}
	bs = append(bs, f.skbs(inner)...)
	bs = append(bs, f.elsewhere()...)
	return bs
}

// subjectMark is the words a structure's heading gets when the subject
// page is drawn in it (the tile carries the frame and the pointer).
func subjectMark(f *Figure, place string) string {
	sub := f.Subject
	switch {
	case sub.PFN >= 0 && sub.Place == place:
		return fmt.Sprintf(" — ▲ the subject, pfn %#x", sub.PFN)
	case sub.PFN < 0 && sub.SKB == 0 && sub.Place == place:
		return " — the subject"
	}
	return ""
}

func (f *Figure) cache(p lab.PoolView, strong bool) *block {
	name := fmt.Sprintf("pool #%d alloc cache: %d / 128", p.ID, len(p.Cache))
	b := &block{strong: strong, items: []item{textLine{s: name + subjectMark(f, "cache"), cls: "h", px: fsText, bold: true}}}
	meta := fmt.Sprintf("pool #%d: inflight %d = hold %d − release %d", p.ID, p.Inflight, p.Hold, p.Release)
	switch {
	case p.Freed:
		meta += " · destroyed and freed"
	case p.Destroyed:
		meta += " · destroyed, waiting"
	}
	if p.System {
		meta += fmt.Sprintf(" · cpu%d's system pool", p.CPUID)
	}
	if p.Provider != "" {
		meta += fmt.Sprintf(" · %s memory provider, %d net_iovs free", p.Provider, p.ProviderFree)
	}
	b.items = append(b.items, textLine{s: meta, cls: "m", px: fsMeta})
	if len(p.Cache) == 0 {
		b.items = append(b.items, textLine{s: "empty", cls: "m", px: fsMeta})
		return b
	}
	lo := max(0, len(p.Cache)-cacheShown)
	var cells []cell
	if i := slices.Index(p.Cache, f.Subject.PFN); f.Subject.PFN >= 0 && i >= 0 && i < lo {
		cells = append(cells, cell{kind: cPage, pfn: p.Cache[i]}, cell{kind: cLabel, text: "…"})
		lo++
	}
	for i := lo; i < len(p.Cache); i++ {
		c := cell{kind: cPage, pfn: p.Cache[i]}
		if i == len(p.Cache)-1 {
			c.mark = "top"
		}
		cells = append(cells, c)
	}
	if lo > 0 {
		cells = append([]cell{{kind: cLabel, text: fmt.Sprintf("%d below …", lo)}}, cells...)
	}
	b.items = append(b.items, tileRow{cells: cells})
	return b
}

// window is the part [lo, lo+k) of an n-slot ring drawn: all of a ring of
// up to 2×maxRow slots; else ringShown slots from a little before at,
// moved to take in slot must (-1: none).
func window(n, at, must int) (lo, k int) {
	if n <= 2*maxRow {
		return 0, n
	}
	lo = at - 8
	if must >= 0 && (must-lo+n)%n >= ringShown {
		lo = must - ringShown/2
	}
	return lo, ringShown
}

// rows splits cells into rows of maxRow.
func rows(cells []cell) []item {
	var out []item
	for len(cells) > maxRow {
		out = append(out, tileRow{cells: cells[:maxRow]})
		cells = cells[maxRow:]
	}
	return append(out, tileRow{cells: cells})
}

func (f *Figure) ring(p lab.PoolView, strong bool) *block {
	nslots := len(p.Ring)
	b := &block{strong: strong, items: []item{textLine{s: fmt.Sprintf("pool #%d ptr_ring: %d / %d queued", p.ID, p.RingCount, nslots) + subjectMark(f, "ring"), cls: "h", px: fsText, bold: true}}}
	live := false
	must := -1
	for i, r := range p.Ring {
		live = live || r.PFN >= 0
		if r.PFN >= 0 && !r.Stale && r.PFN == f.Subject.PFN {
			must = i
		}
	}
	if !live {
		b.items = append(b.items, textLine{s: "empty", cls: "m", px: fsMeta})
		return b
	}
	lo, k := window(nslots, p.ConsumerHead, must)
	var cells []cell
	for j := lo; j < lo+k; j++ {
		i := ((j % nslots) + nslots) % nslots
		r := p.Ring[i]
		c := cell{kind: cEmpty, pfn: r.PFN}
		switch {
		case r.PFN >= 0 && !r.Stale:
			c.kind = cPage
		case r.PFN >= 0:
			c.kind = cStale
		}
		if i == p.Producer {
			c.mark += "P"
		}
		if i == p.ConsumerHead {
			c.mark += "C"
		}
		cells = append(cells, c)
	}
	if k < nslots {
		b.items = append(b.items, textLine{s: fmt.Sprintf("slots %d…%d of %d shown", ((lo%nslots)+nslots)%nslots, ((lo+k-1)%nslots+nslots)%nslots, nslots), cls: "m", px: fsMeta})
	}
	b.items = append(b.items, rows(cells)...)
	return b
}

func (f *Figure) nic(nv *lab.NICView, strong bool) *block {
	size := len(nv.Descs)
	what := "NIC RX ring"
	if nv.Agg {
		what = "NIC aggregation ring"
	}
	b := &block{strong: strong, items: []item{
		textLine{s: fmt.Sprintf("%s (%s): %d of %d posted", what, nv.Driver, nv.Posted, size) + subjectMark(f, "nic-ring"), cls: "h", px: fsText, bold: true},
	}}
	must := -1
	for i, d := range nv.Descs {
		if (d.Posted || d.Reuse) && d.PFN == f.Subject.PFN && f.Subject.PFN >= 0 {
			must = i
		}
	}
	lo, k := window(size, nv.Fill, must)
	var cells []cell
	for j := lo; j < lo+k; j++ {
		i := ((j % size) + size) % size
		d := nv.Descs[i]
		c := cell{kind: cEmpty, pfn: -1}
		if d.Posted || d.Reuse {
			c = cell{kind: cPage, pfn: d.PFN}
		}
		if i == nv.Next {
			c.mark += "N"
		}
		if i == nv.Fill {
			c.mark += "F"
		}
		cells = append(cells, c)
	}
	if k < size {
		b.items = append(b.items, textLine{s: fmt.Sprintf("descriptors %d…%d of %d shown", ((lo%size)+size)%size, ((lo+k-1)%size+size)%size, size), cls: "m", px: fsMeta})
	}
	b.items = append(b.items, rows(cells)...)
	return b
}

// skbPlace is the place of the pages of an skb where it is (the subject's
// structure words).
func skbPlace(where string) string {
	switch where {
	case "socket", "tx-ring":
		return where
	}
	return "skb"
}

func (f *Figure) skbs(inner float64) []*block {
	sub := f.Subject
	var bs []*block
	for _, g := range session.SKBGroups {
		var group []lab.SKBView
		for _, k := range f.snap.SKBs {
			if k.Where == g.Where {
				group = append(group, k)
			}
		}
		if len(group) == 0 {
			continue
		}
		shown := group[:min(len(group), skbsShown)]
		if i := slices.IndexFunc(group, func(k lab.SKBView) bool { return k.ID == sub.SKB }); sub.SKB != 0 && i >= len(shown) {
			shown = append(slices.Clip(shown[:len(shown)-1]), group[i])
		}
		head := fmt.Sprintf("sk_buffs %s (%d)", g.Text, len(group))
		switch {
		case sub.PFN < 0 && sub.SKB != 0 && sub.Where == g.Where:
			head += fmt.Sprintf(" — the subject, skb#%d", sub.SKB)
		case sub.PFN >= 0 && sub.SKB != 0 && sub.Where == g.Where:
			head += fmt.Sprintf(" — ▲ the subject, pfn %#x", sub.PFN)
		case sub.PFN < 0 && sub.SKB == 0 && sub.Place == skbPlace(g.Where):
			head += " — the subject"
		}
		b := &block{strong: sub.PFN < 0 && sub.SKB == 0 && sub.Place == skbPlace(g.Where), items: []item{textLine{s: head, cls: "h", px: fsText, bold: true}}}
		var cards []*block
		for _, k := range shown {
			cards = append(cards, f.skbCard(k))
		}
		b.items = append(b.items, cardFlow{cards: cards, maxW: inner - 2*pad})
		if len(group) > len(shown) {
			b.items = append(b.items, textLine{s: fmt.Sprintf("… and %d more skbs here, not drawn", len(group)-len(shown)), cls: "m", px: fsMeta})
		}
		bs = append(bs, b)
	}
	return bs
}

func (f *Figure) skbCard(k lab.SKBView) *block {
	flags := []string{fmt.Sprintf("len %d", k.Len)}
	if k.PPRecycle {
		flags = append(flags, "pp_recycle")
	}
	if k.Cloned {
		flags = append(flags, fmt.Sprintf("cloned, dataref %d", k.Dataref))
	}
	if len(k.FragList) > 0 {
		flags = append(flags, fmt.Sprintf("frag_list of %d", len(k.FragList)))
	}
	if k.InList != 0 {
		flags = append(flags, fmt.Sprintf("on skb#%d's frag_list", k.InList))
	}
	cells := []cell{{kind: cLabel, text: "head"}}
	switch {
	case k.HeadPFN < 0:
		cells = append(cells, cell{kind: cLabel, text: "stolen"})
	case k.SlabHead:
		cells = append(cells, cell{kind: cLabel, text: "kmalloc'ed"})
	default:
		cells = append(cells, cell{kind: cPage, pfn: k.HeadPFN})
	}
	if len(k.Frags) > 0 {
		cells = append(cells, cell{kind: cLabel, text: "frags"})
		for i, fr := range k.Frags {
			if i == fragsShown {
				cells = append(cells, cell{kind: cLabel, text: fmt.Sprintf("+%d", len(k.Frags)-fragsShown)})
				break
			}
			cells = append(cells, cell{kind: cPage, pfn: fr.PFN})
		}
	}
	return &block{card: true, strong: f.Subject.PFN < 0 && f.Subject.SKB == k.ID, items: []item{
		headLine{bold: fmt.Sprintf("skb#%d", k.ID), rest: " " + strings.Join(flags, " · ")},
		tileRow{cells: cells},
	}}
}

// elsewhere: the pages the live machine draws in its "elsewhere" box, one
// block per place.
func (f *Figure) elsewhere() []*block {
	kinds := []struct {
		place, text string
		is          func(p lab.PageView) bool
	}{
		{"driver", "held by the driver or the caller", func(p lab.PageView) bool { return p.Place == "driver" }},
		{"xdp-frame", "in an XDP frame", func(p lab.PageView) bool { return p.Place == "xdp-frame" }},
		{"driver-cache", "the driver's own RX page cache", func(p lab.PageView) bool { return p.Place == "driver-cache" }},
		{"slab", "slab pages (kmalloc'ed skb heads)", func(p lab.PageView) bool { return p.Place == "slab" }},
		{"nic-ring", "net_iovs posted for payload", func(p lab.PageView) bool { return p.Place == "nic-ring" && p.NetIov }},
		{"user", "net_iovs the application holds", func(p lab.PageView) bool { return p.Place == "user" }},
	}
	var bs []*block
	for _, k := range kinds {
		var cells []cell
		total := 0
		for _, p := range f.snap.Pages {
			if !k.is(p) {
				continue
			}
			total++
			if len(cells) < heldShown || p.PFN == f.Subject.PFN {
				cells = append(cells, cell{kind: cPage, pfn: p.PFN})
			}
		}
		if total == 0 {
			continue
		}
		mark := ""
		if k.place != "nic-ring" {
			mark = subjectMark(f, k.place)
		}
		b := &block{strong: k.place != "nic-ring" && f.Subject.PFN < 0 && f.Subject.SKB == 0 && f.Subject.Place == k.place,
			items: []item{textLine{s: fmt.Sprintf("%s (%d)", k.text, total) + mark, cls: "h", px: fsText, bold: true}}}
		b.items = append(b.items, rows(cells)...)
		if total > len(cells) {
			b.items = append(b.items, textLine{s: fmt.Sprintf("%d more not drawn", total-len(cells)), cls: "m", px: fsMeta})
		}
		bs = append(bs, b)
	}
	return bs
}

// ---- the step ----

// narration is the step's text: the headline, the first events, the
// counters it moved and the violations it found.
func (f *Figure) narration() []textLine {
	nv := f.narr
	if !nv.Has {
		return []textLine{{s: "No operation recorded at this state.", cls: "h", px: fsText, bold: true}}
	}
	r := nv.Rec
	out := []textLine{{s: fmt.Sprintf("op %d on cpu%d: %s — %s", r.Op.Index+1, r.Op.CPU, lab.Source(nv.Era, nv.Driver, r.Op.Func).Name, r.Op.Label), cls: "h", px: fsText, bold: true}}
	for i, e := range r.Events {
		if i == eventsShown {
			out = append(out, textLine{s: fmt.Sprintf("… and %d more events", len(r.Events)-eventsShown), cls: "m", px: fsMeta})
			break
		}
		cls := "ev"
		if e.Kind == sim.EvViolation || e.Kind == sim.EvWarn {
			cls = "ev warn"
		}
		out = append(out, textLine{s: "· " + eventText(e, nv.Era, nv.Driver), cls: cls, px: fsEvent})
	}
	var counters []string
	for st := sim.Stat(0); st < sim.NumStats; st++ {
		if d := r.Stats[st] - r.StatsBefore[st]; d != 0 {
			counters = append(counters, fmt.Sprintf("%s +%d", lab.EthtoolName(nv.Driver, st, -1), d))
		}
	}
	if len(counters) > 0 {
		out = append(out, textLine{s: "counters: " + strings.Join(counters, " · "), cls: "m", px: fsMeta})
	}
	for i, v := range r.Violations {
		if i == 2 {
			out = append(out, textLine{s: fmt.Sprintf("… and %d more violations", len(r.Violations)-2), cls: "ev warn", px: fsEvent})
			break
		}
		rule := ""
		if v.Rule != "" {
			rule = " (rule " + v.Rule + " is broken)"
		}
		out = append(out, textLine{s: fmt.Sprintf("⚠ violation %s on pfn %#x%s: %s", v.Kind, v.PFN, rule, v.Detail), cls: "ev warn", px: fsEvent})
	}
	return out
}

// eventText is one event as the narration lists it (app's eventItem).
func eventText(e sim.Event, era, driver string) string {
	text := lab.Source(era, driver, e.Func).Name + ": "
	if e.SKB != 0 {
		text += fmt.Sprintf("skb#%d: ", e.SKB)
	}
	switch e.Kind {
	case sim.EvStateHold, sim.EvStateRelease, sim.EvPoolRelease, sim.EvUpdateNid:
		text += "tracepoint " + e.TracePayload()
	default:
		if e.Page >= 0 {
			text += fmt.Sprintf("pfn %#x ", e.Page)
		}
		if e.From != sim.PlaceNone || e.To != sim.PlaceNone {
			text += fmt.Sprintf("(%s → %s) ", e.From, e.To)
		}
		text += e.Why
	}
	if e.Stat != sim.StatNone && e.Stat < sim.NumStats {
		text += " [" + lab.EthtoolName(driver, e.Stat, -1) + "++]"
	}
	return text
}
