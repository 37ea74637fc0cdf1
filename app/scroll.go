package app

import (
	"fmt"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// bringIntoView scrolls the element selector names into view, once the
// render is in the page, when it is not wholly on screen: the least move
// (block "nearest"), or its top at the top when it is taller than the
// window. A result the user asked for — the inspector a tile opened, the
// rule "show me" explains, the diagnosis of a paste — must not land off
// screen (on a phone the side column is below the machine).
func bringIntoView(ctx ga.Context, selector string) {
	ctx.Defer(func(ga.Context) { scrollToSelector(selector) })
}

// bringIntoViewOnOpen is bringIntoView for a page that just opened: the
// layout still moves as the charts and fonts arrive, so it scrolls once
// the first frames are in and again a moment later, unless the user has
// scrolled since.
func bringIntoViewOnOpen(ctx ga.Context, selector string) {
	ctx.After(300*time.Millisecond, func(ctx ga.Context) {
		scrollToSelector(selector)
		y := ga.Window().Get("scrollY").Float()
		ctx.After(900*time.Millisecond, func(ctx ga.Context) {
			if ga.Window().Get("scrollY").Float() == y {
				scrollToSelector(selector)
			}
			ctx.PreventUpdate()
		})
		ctx.PreventUpdate()
	})
}

func scrollToSelector(selector string) {
	w := ga.Window()
	doc := w.Get("document")
	if !doc.Truthy() {
		return
	}
	el := doc.Call("querySelector", selector)
	if !el.Truthy() {
		return
	}
	// The part of the window the page's own fixed and sticky panels leave
	// (on a phone: the sticky timeline above, the narration's bottom
	// sheet below).
	top, bottom := 0.0, w.Get("innerHeight").Float()
	if tl := doc.Call("querySelector", "#timeline"); tl.Truthy() && w.Call("getComputedStyle", tl).Get("position").String() == "sticky" {
		// It covers the top only once stuck there (and will be, once the
		// page scrolls down to the element): its height, not its place.
		r := tl.Call("getBoundingClientRect")
		top = max(top, r.Get("bottom").Float()-r.Get("top").Float())
	}
	if nr := doc.Call("querySelector", "#narration"); nr.Truthy() && w.Call("getComputedStyle", nr).Get("position").String() == "fixed" {
		bottom = min(bottom, nr.Call("getBoundingClientRect").Get("top").Float())
	}
	r := el.Call("getBoundingClientRect")
	et, eb := r.Get("top").Float(), r.Get("bottom").Float()
	if et >= top && eb <= bottom {
		return
	}
	root := doc.Get("documentElement").Get("style")
	root.Set("scrollPaddingTop", fmt.Sprintf("%.0fpx", top))
	root.Set("scrollPaddingBottom", fmt.Sprintf("%.0fpx", w.Get("innerHeight").Float()-bottom))
	block := "nearest"
	if eb-et > bottom-top {
		block = "start"
	}
	el.Call("scrollIntoView", map[string]any{"block": block, "inline": "nearest"})
}

// bringTourSubject brings the tour figure's subject into view: the first
// element selectors find. In the two-column layout (the figure a sticky
// column that scrolls on its own) only the figure scrolls, so that the
// subject's middle is in the middle of the figure's visible part under its
// sticky caption — the page does not move, and the link the reader
// followed stays where it was. In the one-column layout the figure is a
// bottom sheet: its strip (#tour-strip, under the caption) is scrolled
// into the sheet, and when the sheet covers the link the reader followed
// (link: its href), the page scrolls the link above it.
func bringTourSubject(selectors []string, link string) {
	w := ga.Window()
	doc := w.Get("document")
	fig := doc.Call("getElementById", "tour-figure")
	if !doc.Truthy() || !fig.Truthy() {
		return
	}
	rect := func(el ga.Value) (top, bottom float64) {
		r := el.Call("getBoundingClientRect")
		return r.Get("top").Float(), r.Get("bottom").Float()
	}
	capBottom := func(top float64) float64 {
		if c := fig.Call("querySelector", ".tour-caption"); c.Truthy() {
			_, b := rect(c)
			return max(top, b)
		}
		return top
	}
	vh := w.Get("innerHeight").Float()
	oneColumn := w.Call("matchMedia", "(max-width: 980px)").Get("matches").Bool()
	if !oneColumn {
		var el ga.Value
		for _, s := range selectors {
			if el = doc.Call("querySelector", s); el.Truthy() {
				break
			}
		}
		if !el.Truthy() {
			return
		}
		ft, fb := rect(fig)
		top, bottom := capBottom(max(ft, 0)), min(fb, vh)
		et, eb := rect(el)
		if et >= top && eb <= bottom {
			return
		}
		mid := (top + bottom) / 2
		if eb-et > bottom-top {
			mid = top + (eb-et)/2 // taller than the room: its top at the top
		}
		fig.Set("scrollTop", fig.Get("scrollTop").Float()+(et+eb)/2-mid)
		return
	}
	if strip := doc.Call("getElementById", "tour-strip"); strip.Truthy() {
		ft, fb := rect(fig)
		st, sb := rect(strip)
		if top := capBottom(ft); st < top || sb > fb {
			fig.Set("scrollTop", fig.Get("scrollTop").Float()+st-top)
		}
	}
	if link == "" {
		return
	}
	a := doc.Call("querySelector", fmt.Sprintf(`#tour a.preset[href=%q]`, link))
	if !a.Truthy() {
		return
	}
	ft, _ := rect(fig)
	at, ab := rect(a)
	const gap = 12
	switch {
	case ab > ft-gap && ft > 0 && ft < vh:
		w.Call("scrollBy", 0, ab-ft+gap)
	case at < 0:
		w.Call("scrollBy", 0, at-gap)
	}
}
