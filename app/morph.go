package app

import (
	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Drawing a row of tiles in one call.
//
// While playing at max speed nearly every tile of the machine changes
// between two redraws. Through go-app each changed attribute of each tile
// is a call into JavaScript (~17 µs in the browser, and 200 tiles of four
// attributes each): a redraw took more than a frame. Replacing a row's
// markup whole (innerHTML) costs one call but makes the browser build,
// style and lay out every element again (~850 elements a redraw: 10–25 ms
// of layout alone), and loses the keyboard's focus.
//
// So a row is drawn by morphRow: Go writes the row's markup (writeCell,
// the same markup the server side renders), and one JavaScript function
// parses it into an inert template and brings the live row to it: an
// element of another tag is replaced, an attribute or a text that differs
// is set, the rest is left alone. go-app owns the row's element and
// nothing under it (the row renders as an empty element), so its own diff
// never meets the tiles.

// morphJS makes the live element el match the markup html of one element
// of the same tag (its attributes and its children, recursively); it also
// installs tileTitle.
const morphJS = `
const t = document.createElement("template");
function attrs(a, b) {
  for (const at of b.attributes) if (a.getAttribute(at.name) !== at.value) a.setAttribute(at.name, at.value);
  for (let i = a.attributes.length - 1; i >= 0; i--) {
    const n = a.attributes[i].name;
    if (b.hasAttribute(n)) continue;
    if (n === "title" && b.nodeName === "BUTTON") { const l = b.getAttribute("aria-label"); if (a.title !== l) a.title = l; } // tileTitle's
    else a.removeAttribute(n);
  }
}
function morph(a, b) {
  if (a.nodeType !== 1) { if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue; return; }
  attrs(a, b);
  let x = a.firstChild, y = b.firstChild;
  while (y) {
    const ny = y.nextSibling;
    if (!x) a.appendChild(y);
    else if (x.nodeName !== y.nodeName) { const nx = x.nextSibling; a.replaceChild(y, x); x = nx; }
    else { morph(x, y); x = x.nextSibling; }
    y = ny;
  }
  while (x) { const nx = x.nextSibling; a.removeChild(x); x = nx; }
}
// tileTitle: a tile's tooltip is its label, set when the pointer comes
// over it (the markup carries the label once).
document.addEventListener("mouseover", e => {
  const t = e.target.closest ? e.target.closest("button.tile[aria-label]") : null;
  if (t && t.title !== t.getAttribute("aria-label")) t.title = t.getAttribute("aria-label");
}, true);
return function (el, html) {
  t.innerHTML = html;
  const b = t.content.firstElementChild;
  if (b) morph(el, b);
  t.innerHTML = "";
};
`

var morphFn ga.Value

// morphRow brings the live element el to the markup html (one element of
// el's tag, with its children). Only in the browser.
func morphRow(el ga.Value, html string) {
	if !ga.IsClient || el == nil || !el.Truthy() {
		return
	}
	if morphFn == nil {
		morphFn = ga.Window().Get("Function").New(morphJS).Invoke()
	}
	morphFn.Invoke(el, html)
}
