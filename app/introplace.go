package app

import (
	"math"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The reader's place in the intro when the playground mounts. The loading
// page (Playground.Render before the session exists) shows the header and
// SiteIntro — what pplab is, the tour's chapters — for the seconds app.wasm
// takes to download; go-app's first render then replaces the prerendered
// document with new nodes, and the mounted playground follows. A reader
// who had scrolled down to the chapter list, or tabbed into it, lost the
// text mid-read. Now the mounted page keeps the intro (IntroFold), open
// when the reader was in it, and puts the part of it the reader had on
// screen back where it was, and the focus on the link that had it.

// introPlace is what readIntroPlace saw of the prerendered intro.
type introPlace struct {
	open  bool    // the reader was in the intro: the mounted page keeps it open
	block int     // the anchor: its index among the intro's blocks (introBlocks), -1 for none
	top   float64 // the anchor's top in the window (CSS px) before the mount
	focus int     // the index among the intro's links of the one that had the focus, -1 for none
}

// introBlocks are the intro's blocks, in the page's order: the anchor is
// one of them (the same SiteIntro renders them in both pages).
const introBlocks = "#intro > p, #intro h2, #intro li"

// readIntroPlace reads the document as it is — in Playground.OnInit, the
// prerendered one, before go-app's first render replaces it. The reader
// was in the intro when the window is scrolled (at all) and the intro is
// on screen, or when the focus or a text selection is inside it. A window
// at the top is a reader who has not moved: the intro folds and the
// playground's controls take the first screen. Nothing outside the
// browser, or when the document has no intro (a navigation from another
// page of the site).
func readIntroPlace() introPlace {
	pl := introPlace{block: -1, focus: -1}
	if !ga.IsClient {
		return pl
	}
	defer func() {
		if r := recover(); r != nil {
			ga.Logf("pplab: reading the reader's place in the intro: %v", r)
			pl = introPlace{block: -1, focus: -1}
		}
	}()
	w := ga.Window()
	doc := w.Get("document")
	intro := doc.Call("getElementById", "intro")
	if !intro.Truthy() {
		return pl
	}
	active := doc.Get("activeElement")
	inside := active.Truthy() && intro.Call("contains", active).Bool()
	if inside {
		links := intro.Call("querySelectorAll", "a")
		for i := range links.Length() {
			if links.Index(i).Equal(active) {
				pl.focus = i
			}
		}
	}
	selected := false
	if sel := w.Call("getSelection"); sel.Truthy() && !sel.Get("isCollapsed").Bool() {
		selected = intro.Call("contains", sel.Get("anchorNode")).Bool()
	}
	h := w.Get("innerHeight").Float()
	onScreen := func(el ga.Value) (top float64, ok bool) {
		r := el.Call("getBoundingClientRect")
		top = r.Get("top").Float()
		return top, top < h && r.Get("bottom").Float() > 0
	}
	_, introOn := onScreen(intro)
	scrolled := w.Get("scrollY").Float() > 0
	if !inside && !selected && !(scrolled && introOn) {
		return pl
	}
	pl.open = true
	// The anchor: the block holding the focused link when it is on screen;
	// else the first block that begins on screen; else the first that
	// shows a part (its top above the window).
	blocks := doc.Call("querySelectorAll", introBlocks)
	partial := -1
	var partialTop float64
	for i := range blocks.Length() {
		b := blocks.Index(i)
		top, ok := onScreen(b)
		if !ok {
			continue
		}
		if inside && b.Call("contains", active).Bool() {
			pl.block, pl.top = i, top
			return pl
		}
		if top >= 0 && pl.block < 0 {
			pl.block, pl.top = i, top
		}
		if partial < 0 {
			partial, partialTop = i, top
		}
	}
	if pl.block < 0 {
		pl.block, pl.top = partial, partialTop
	}
	return pl
}

// keep puts the reader back, once the mounted page is drawn: the anchor
// block at the top it had (the window scrolls by the difference: the
// mounted page's header and fold summary are not the loading page's
// heading and loading line), and the focus back on the intro's link that
// had it (without scrolling), unless something else has the focus by
// then. Nothing when the reader was not in the intro.
func (pl introPlace) keep(ctx ga.Context) {
	if !pl.open {
		return
	}
	ctx.Defer(func(ga.Context) {
		defer func() {
			if r := recover(); r != nil {
				ga.Logf("pplab: keeping the reader's place in the intro: %v", r)
			}
		}()
		w := ga.Window()
		doc := w.Get("document")
		shift := 0.0
		if pl.block >= 0 {
			if blocks := doc.Call("querySelectorAll", introBlocks); pl.block < blocks.Length() {
				top := blocks.Index(pl.block).Call("getBoundingClientRect").Get("top").Float()
				if shift = top - pl.top; math.Abs(shift) >= 0.5 {
					w.Call("scrollBy", map[string]any{"top": shift, "left": 0, "behavior": "instant"})
				}
			}
		}
		// For the console and the e2e tests: what was kept, and by how
		// much the window scrolled to keep it.
		w.Set("__pplabIntro", map[string]any{"open": pl.open, "block": pl.block, "top": pl.top, "focus": pl.focus, "shift": shift})
		if pl.focus >= 0 {
			active := doc.Get("activeElement")
			if links := doc.Call("querySelectorAll", "#intro a"); pl.focus < links.Length() && (!active.Truthy() || active.Equal(doc.Get("body"))) {
				links.Index(pl.focus).Call("focus", map[string]any{"preventScroll": true})
			}
		}
	})
}

// watchIntro keeps the attribute data-intro-on-screen on the document's
// root element while the mounted page's intro is open and in the lower 40 %
// of the window: on a phone the narration is a bottom sheet over the last
// third of the window (web/app.css), which covered the end of the text a
// reader had been reading when the engine mounted; while the intro runs
// there, the sheet shows its heading only, and it comes up once the intro
// is scrolled up out of it or folded. stop ends the watch (the
// playground's OnDismount).
func watchIntro() (stop func()) {
	w := ga.Window()
	ioc, intro := w.Get("IntersectionObserver"), w.GetElementByID("intro")
	if !ioc.Truthy() || !intro.Truthy() {
		return func() {}
	}
	root := w.Get("document").Get("documentElement")
	fn := ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		defer recoverListener("intro on screen")
		if entries := args[0]; entries.Length() > 0 {
			root.Call("toggleAttribute", "data-intro-on-screen", entries.Index(entries.Length()-1).Get("isIntersecting").Bool())
		}
		return nil
	})
	io := ioc.New(fn, map[string]any{"rootMargin": "-60% 0px 0px 0px"})
	io.Call("observe", intro)
	return func() {
		io.Call("disconnect")
		fn.Release()
		root.Call("removeAttribute", "data-intro-on-screen")
	}
}
