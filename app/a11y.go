package app

import (
	"strconv"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// For every reader: the live region, the text equivalents of the figures,
// the skip link's landing, and the keyboard inside the machine drawing.
//
// The machine's tiles are not tab stops (tabindex -1): each figure — a
// pool's alloc cache, its ptr_ring, the NIC RX ring, the sk_buffs, the
// pages elsewhere — is one (its container carries data-figure and
// tabindex 0), and the arrow keys move between its tiles. Tab onto a
// figure lands on the tile last focused in it (the first the first time);
// Tab from a tile goes on to the next figure, Shift+Tab to what comes
// before the figure. Two listeners on the document do all of it
// (figureNav), so a step costs nothing beyond drawing the tiles: no
// tabindex moves while the run changes, and no handler per tile.

// Actions of this file.
const (
	actTable     = "pp-table"      // value tableToggle: a text table opened or closed
	actCopyEmbed = "pp-copy-embed" // copy the embed snippet of the state (embed.go)
)

// tableToggle is a text table's <details> opening or closing.
type tableToggle struct {
	Which int // session.TableMachine, session.TableCharts
	Open  bool
}

// figureKeysID is the element that says how the keys work in a figure
// (each figure's aria-describedby).
const figureKeysID = "figure-keys"

// figureAttrs makes el one figure of the machine drawing: a tab stop
// named label whose tiles the arrow keys move between.
func figureAttrs[T interface {
	TabIndex(int) T
	DataSet(string, any) T
	Role(string, ...any) T
	Aria(string, any) T
}](el T, name, label string) T {
	return el.TabIndex(0).DataSet("figure", name).Role("group").Aria("label", label).Aria("describedby", figureKeysID)
}

// LiveRegion is the page's one live region: it says the operation shown
// once per step taken by hand, nothing while playing (its text stays the
// same frame after frame), and where play stopped. The narration panel
// itself is not live: it changes on every drawn frame.
type LiveRegion struct {
	ga.Compo
	Text string
}

func (c *LiveRegion) Render() (ui ga.UI) {
	defer guardRender(&ui, "LiveRegion")
	return ga.Div().Class("visually-hidden").Body(
		ga.P().ID("live").Role("status").Aria("live", "polite").Aria("atomic", "true").Text(c.Text),
		ga.P().ID(figureKeysID).Text("Arrow keys move between the pages of this figure, Home and End to its first and last; Enter opens a page; Tab goes on to the next figure."),
	)
}

// TextTables is a figure's text equivalent: a <details> whose tables are
// drawn only while it is open (Tables is nil while closed).
type TextTables struct {
	ga.Compo
	ID      string
	Which   int // session.TableMachine or session.TableCharts
	Summary string
	Tables  []session.TextTable
}

func (c *TextTables) Render() (ui ga.UI) {
	defer guardRender(&ui, "TextTables")
	var body []ga.UI
	body = append(body, ga.Summary().Text(c.Summary))
	for _, t := range c.Tables {
		body = append(body, textTable(t))
	}
	return detailsOpen(ga.Details().ID(c.ID).Class("text-tables").DataSet("table", c.Which), c.Tables != nil).OnToggle(onTableToggle).Body(body...)
}

func textTable(t session.TextTable) ga.UI {
	head := make([]ga.UI, len(t.Head))
	for i, h := range t.Head {
		head[i] = ga.Th().Scope("col").Text(h)
	}
	rows := make([]ga.UI, 0, len(t.Rows)+1)
	for _, r := range t.Rows {
		cells := make([]ga.UI, len(r))
		for i, v := range r {
			if i == 0 {
				cells[i] = ga.Th().Scope("row").Text(v)
			} else {
				cells[i] = ga.Td().Text(v)
			}
		}
		rows = append(rows, ga.Tr().Body(cells...))
	}
	if len(t.Rows) == 0 {
		rows = append(rows, ga.Tr().Body(ga.Td().ColSpan(max(len(t.Head), 1)).Class("meta").Text(t.Empty)))
	}
	return ga.Table().ID(t.ID).Class("stats-table text-table").Body(
		ga.Caption().Text(t.Caption),
		ga.THead().Body(ga.Tr().Body(head...)),
		ga.TBody().Body(rows...),
	)
}

// onTableToggle: a text table's <details> opened or closed (data-table
// names which; the open property says which way).
func onTableToggle(ctx ga.Context, e ga.Event) {
	el := ctx.JSSrc()
	which, err := strconv.Atoi(dataset(el, "table"))
	if err != nil {
		return
	}
	ctx.NewActionWithValue(actTable, tableToggle{Which: which, Open: el.Get("open").Truthy()})
}

// onSkip: the skip link lands the focus on the machine drawing (the
// fragment alone only scrolls: a section is not focusable).
func onSkip(ctx ga.Context, e ga.Event) {
	if m := ga.Window().GetElementByID("machine"); m.Truthy() {
		m.Call("focus")
	}
}

// mountA11y registers this file's actions and the figure keyboard.
func (p *Playground) mountA11y(ctx ga.Context) {
	p.handle(ctx, actTable, func(a ga.Action) { t := a.Value.(tableToggle); p.s.OpenTable(t.Which, t.Open) })
	p.handle(ctx, actCopyEmbed, func(a ga.Action) { p.copyEmbed() })
	figureNav.listen()
	p.mountEmbed(ctx)
	ctx.Defer(func(ga.Context) { watchStickyTop() })
}

// watchStickyTop keeps the CSS variable --sticky-top at the timeline's
// height plus a margin: on a phone the timeline is sticky at the top, and
// web/app.css pads the page's scrolling by it, so that what is scrolled
// into view or jumped to ("skip to the machine") lands below it, not
// under it (a trial: the machine's heading hid under the 242-px timeline).
func watchStickyTop() {
	w := ga.Window()
	tl, ro := w.GetElementByID("timeline"), w.Get("ResizeObserver")
	if stickyTopFn != nil || !tl.Truthy() || !ro.Truthy() {
		return
	}
	root := w.Get("document").Get("documentElement").Get("style")
	stickyTopFn = ga.FuncOf(func(ga.Value, []ga.Value) any {
		defer recoverListener("sticky top")
		h := tl.Call("getBoundingClientRect").Get("height").Float()
		root.Call("setProperty", "--sticky-top", strconv.Itoa(int(h)+8)+"px")
		return nil
	})
	ro.New(stickyTopFn).Call("observe", tl)
}

var stickyTopFn ga.Func

// figureNav is the keyboard inside the machine's figures: a keydown and a
// focusin listener on the document, both in the capture phase, so that an
// arrow key a figure takes never reaches the page's shortcuts (→ steps
// elsewhere). It remembers per figure the index of the tile last focused.
var figureNav = &figureKeys{last: map[string]int{}}

type figureKeys struct {
	keydown, focusin, pointerdown ga.Func
	last                          map[string]int
	tileFig                       string // the figure whose tile has the focus, "" when none has
}

func (f *figureKeys) listen() {
	if f.keydown != nil {
		return // one page, one pair of listeners
	}
	doc := ga.Window().Get("document")
	f.keydown = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		defer recoverListener("figure keys")
		f.onKey(args[0])
		return nil
	})
	f.focusin = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		defer recoverListener("figure focus")
		f.onFocus(args[0])
		return nil
	})
	// A press outside the figures (on the prose, the page's background)
	// leaves them: no focus event says so when the focus falls to the
	// body, and restore would bring it back to the tile at the next redraw.
	f.pointerdown = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		defer recoverListener("figure pointer")
		if fig, _ := figureOf(args[0].Get("target")); !fig.Truthy() {
			f.tileFig = ""
		}
		return nil
	})
	doc.Call("addEventListener", "keydown", f.keydown, true)
	doc.Call("addEventListener", "focusin", f.focusin, true)
	doc.Call("addEventListener", "pointerdown", f.pointerdown, true)
}

// recoverListener keeps a panic in a listener from ending the program
// (a panic in a js.Func callback would exit the wasm).
func recoverListener(what string) {
	if r := recover(); r != nil {
		ga.Logf("pplab: panic in the %s listener: %v", what, r)
	}
}

// figureOf is the figure element el is in (or is), and whether el is a
// tile of it.
func figureOf(el ga.Value) (fig ga.Value, tile bool) {
	if !el.Truthy() || el.Get("closest").IsUndefined() {
		return ga.Null(), false
	}
	fig = el.Call("closest", "[data-figure]")
	if !fig.Truthy() {
		return ga.Null(), false
	}
	return fig, el.Call("matches", "button.tile").Bool()
}

func (f *figureKeys) onFocus(e ga.Value) {
	t := e.Get("target")
	fig, tile := figureOf(t)
	f.tileFig = ""
	if !fig.Truthy() {
		return
	}
	name := dataset(fig, "figure")
	tiles := fig.Call("querySelectorAll", "button.tile")
	n := tiles.Length()
	if tile {
		f.tileFig = name
		for i := 0; i < n; i++ {
			if tiles.Index(i).Equal(t) {
				f.last[name] = i
				break
			}
		}
		return
	}
	if !t.Equal(fig) || n == 0 {
		return
	}
	// Tabbed onto the figure from outside it: land on its tile.
	if from := e.Get("relatedTarget"); from.Truthy() && fig.Call("contains", from).Bool() {
		return // Shift+Tab from one of its tiles: stay, the browser moves on
	}
	tiles.Index(min(f.last[name], n-1)).Call("focus")
}

// restore gives the focus back to the tile at the place last focused in
// its figure when a redraw replaced the row under it (a row is one piece
// of HTML, tile.go: the focused button went with it and the focus fell to
// the body). Called after every update of the machine.
func (f *figureKeys) restore() {
	if f.tileFig == "" || !ga.IsClient {
		return
	}
	doc := ga.Window().Get("document")
	if a := doc.Get("activeElement"); a.Truthy() && !a.Equal(doc.Get("body")) {
		return // still on its tile, or the user moved on
	}
	name := f.tileFig
	fig := doc.Call("querySelector", `[data-figure="`+name+`"]`)
	if !fig.Truthy() {
		f.tileFig = ""
		return
	}
	opt := map[string]any{"preventScroll": true}
	tiles := fig.Call("querySelectorAll", "button.tile")
	if n := tiles.Length(); n > 0 {
		tiles.Index(min(f.last[name], n-1)).Call("focus", opt)
		return
	}
	fig.Call("focus", opt)
}

// modified reports whether a key event carries Ctrl, Meta or Alt: the
// browser's and the system's shortcuts, which the page's keys leave alone.
func modified(e ga.Value) bool {
	return e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool() || e.Get("altKey").Bool()
}

// inFormControl reports whether a key event's target is a form control
// (input, select, textarea), whose keys are its own; Escape there blurs
// it when blurOnEscape, so that the page's keys work again.
func inFormControl(e ga.Value, blurOnEscape bool) bool {
	target := e.Get("target")
	switch strings.ToLower(target.Get("tagName").String()) {
	case "input", "select", "textarea":
		if blurOnEscape && e.Get("key").String() == "Escape" {
			target.Call("blur")
		}
		return true
	}
	return false
}

func (f *figureKeys) onKey(e ga.Value) {
	if modified(e) {
		return
	}
	t := e.Get("target")
	fig, tile := figureOf(t)
	if !fig.Truthy() {
		return
	}
	key := e.Get("key").String()
	if key == "Tab" {
		if tile && e.Get("shiftKey").Bool() {
			// Back out through the figure itself: the browser's Shift+Tab
			// then starts from it and leaves the figure.
			fig.Call("focus")
		}
		return
	}
	if e.Get("shiftKey").Bool() {
		return // Shift+→ steps a packet, wherever the focus is
	}
	tiles := fig.Call("querySelectorAll", "button.tile")
	n := tiles.Length()
	if n == 0 {
		return
	}
	cur := -1
	if tile {
		for i := 0; i < n; i++ {
			if tiles.Index(i).Equal(t) {
				cur = i
				break
			}
		}
	}
	next := -1
	switch key {
	case "ArrowRight":
		next = min(cur+1, n-1)
	case "ArrowLeft":
		next = max(cur-1, 0)
	case "Home":
		next = 0
	case "End":
		next = n - 1
	case "ArrowDown", "ArrowUp":
		next = verticalNeighbour(tiles, n, cur, key == "ArrowDown")
	default:
		return
	}
	e.Call("preventDefault")
	e.Call("stopPropagation")
	if next >= 0 && next < n {
		tiles.Index(next).Call("focus")
	}
}

// verticalNeighbour is the tile in the next drawn row below (down) or
// above the tile at cur, nearest in x; cur itself when there is none (cur
// < 0: the first tile).
func verticalNeighbour(tiles ga.Value, n, cur int, down bool) int {
	if cur < 0 {
		return 0
	}
	rect := func(i int) (x, y float64) {
		r := tiles.Index(i).Call("getBoundingClientRect")
		return r.Get("left").Float() + r.Get("width").Float()/2, r.Get("top").Float() + r.Get("height").Float()/2
	}
	cx, cy := rect(cur)
	best, bestDY, bestDX := cur, 0.0, 0.0
	for i := 0; i < n; i++ {
		x, y := rect(i)
		dy := y - cy
		if !down {
			dy = -dy
		}
		if dy < 4 { // the same row, or the other way
			continue
		}
		dx := x - cx
		if dx < 0 {
			dx = -dx
		}
		if best == cur || dy < bestDY-4 || (dy < bestDY+4 && dx < bestDX) {
			best, bestDY, bestDX = i, dy, dx
		}
	}
	return best
}
