package app

import (
	"fmt"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// moveAnimationID names the Web Animation of a moved page (the tests find
// it by this id).
const moveAnimationID = "pp-move"

// animateMove makes the tile selector finds travel its path: from the
// middle of the first place's box, through each place it passed in the
// step, to where it is drawn now (boxes: a selector per place on the path,
// the last being where it is; a place the page left is drawn as its box).
// Off under prefers-reduced-motion, and when the tile or a box is not
// drawn. The tile keeps its place in the layout: only a transform moves,
// the page does not reflow.
func animateMove(tile string, boxes []string) {
	w := ga.Window()
	if len(boxes) < 2 || w.Call("matchMedia", "(prefers-reduced-motion: reduce)").Get("matches").Bool() {
		return
	}
	doc := w.Get("document")
	el := doc.Call("querySelector", tile)
	if !el.Truthy() || el.Get("animate").IsUndefined() {
		return
	}
	centre := func(v ga.Value) (float64, float64) {
		r := v.Call("getBoundingClientRect")
		return (r.Get("left").Float() + r.Get("right").Float()) / 2, (r.Get("top").Float() + r.Get("bottom").Float()) / 2
	}
	tx, ty := centre(el)
	// The path stays inside the part of the figure on screen (under its
	// sticky caption): a place drawn out of view is passed at the edge
	// nearest to it, so the page is seen to go that way and come back.
	left, top, right, bottom := 0.0, 0.0, w.Get("innerWidth").Float(), w.Get("innerHeight").Float()
	if fig := doc.Call("getElementById", "tour-figure"); fig.Truthy() {
		r := fig.Call("getBoundingClientRect")
		left, right = max(left, r.Get("left").Float()), min(right, r.Get("right").Float())
		top, bottom = max(top, r.Get("top").Float()), min(bottom, r.Get("bottom").Float())
		if c := fig.Call("querySelector", ".tour-caption"); c.Truthy() {
			top = max(top, c.Call("getBoundingClientRect").Get("bottom").Float())
		}
	}
	const edge = 16 // half a tile and a margin
	var frames []any
	for _, b := range boxes[:len(boxes)-1] {
		box := doc.Call("querySelector", b)
		if !box.Truthy() {
			return
		}
		x, y := centre(box)
		if left+edge < right-edge && top+edge < bottom-edge {
			x, y = min(max(x, left+edge), right-edge), min(max(y, top+edge), bottom-edge)
		}
		frames = append(frames, map[string]any{"transform": fmt.Sprintf("translate(%.0fpx, %.0fpx) scale(1.6)", x-tx, y-ty)})
	}
	frames = append(frames, map[string]any{"transform": "none"})
	cancelMoves() // one page travels at a time
	ms := min(350*len(frames), 1400)
	anim := el.Call("animate", frames, map[string]any{"duration": ms, "easing": "ease-in-out"})
	anim.Set("id", moveAnimationID)
}

// cancelMoves ends every page's flight: the tiles are where the layout
// puts them (what the figure measures to bring a subject into view).
func cancelMoves() {
	doc := ga.Window().Get("document")
	if doc.Get("getAnimations").IsUndefined() {
		return
	}
	all := doc.Call("getAnimations")
	for i := 0; i < all.Length(); i++ {
		if a := all.Index(i); a.Get("id").String() == moveAnimationID {
			a.Call("cancel")
		}
	}
}
