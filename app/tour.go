package app

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
	"pplab/app/tour"
	"pplab/engine/lab"
)

// Tour is the guided tour's page (/tour/ and /tour/<chapter>/), its one
// stateful component: it holds the Session whose run the figure shows —
// the playground's own machine view, narration and counters, driven by the
// engine's run of the chapter's preset — turns the page's events into the
// Session's actions, and renders the chapter (TourProse and the other
// tour* components, pure functions of their props) beside the figure.
//
// The tour's own links (a sentence's preset, previous/next, the chapter
// list) are followed here, not by go-app's router (onTourLink says why);
// the "try it" link to the playground is an ordinary go-app navigation.
type Tour struct {
	ga.Compo

	ctx     ga.Context
	slug    string // the chapter shown ("" for the index)
	known   bool   // slug names a chapter (or the index)
	query   string // the figure's state as the page's URL gave it (encoded)
	s       *session.Session
	view    session.View
	focusH1 bool // after a chapter change: focus its heading once rendered
	mounted bool // OnMount ran (the browser, not the prerender)
	// subject is what the figure is about: the active preset's subject
	// (tour.Preset.SubjectOf), else the first page the last step moved.
	subject tour.Subject
	// brought counts the times a link brought its subject into view (the
	// tests wait for it).
	brought int
	// presenting: presenter mode (present.go); presentAt the stop of the
	// chapter's Sequence it went to last.
	presenting bool
	presentAt  int

	fullscreen ga.Func

	keydown, popstate ga.Func
}

// actTourGo (value string: an href) follows a tour link.
const actTourGo = "pp-tour-go"

func (t *Tour) Render() (ui ga.UI) {
	defer guardRender(&ui, "Tour")
	c, idx, ok := tour.BySlug(t.slug)
	main := ga.Main().ID("tour").Class("tour").DataSet("chapter", t.slug)
	if t.mounted {
		main = main.DataSet("mounted", "1")
	}
	if t.presenting {
		main = main.Class("presenting")
	}
	nav := &TourNav{Current: t.slug, Prefix: rootPrefix()}
	switch {
	case t.slug == "":
		return main.Body(nav, &TourIndex{Prefix: rootPrefix()})
	case !ok:
		return main.Body(nav, ga.Article().Class("tour-prose").Body(
			ga.H1().ID("tour-title").TabIndex(-1).Text("No such chapter"),
			ga.P().Body(ga.Text("There is no chapter “"+t.slug+"”. "), ga.A().Href(rootPrefix()+tour.IndexPath).Text("All chapters")),
		))
	}
	active := t.activePreset(c)
	para, stop := -1, 0
	if t.presenting {
		stop = t.stop(c)
		para = c.Sequence()[stop].Para
	}
	var figure ga.UI
	if t.s == nil {
		figure = ga.Section().ID("tour-figure").Class("tour-figure").Aria("label", "the figure").Body(
			ga.P().ID("loading").Text("Loading the engine (WebAssembly)…"))
	} else {
		v := &t.view
		figure = ga.Section().ID("tour-figure").Class("tour-figure").Aria("label", "the figure: the playground's machine at this chapter's state").Body(
			&TourCaption{Caption: captionOf(c, active), Subject: subjectWords(t.subject), Presenting: t.presenting, Op: v.Timeline.Op, Done: v.Timeline.Done, Try: rootPrefix() + "/?" + v.Link},
			ga.If(t.subject.Place != "", func() ga.UI { return &TourStrip{V: v.Machine, S: t.subject} }),
			&Banner{Items: v.Banner},
			&Narration{V: v.Narration, NoPlay: true},
			&Machine{V: v.Machine},
			ga.Details().Class("tour-more").Body(
				ga.Summary().Text("the page inspector, the counters and the violations"),
				&Inspector{V: v.Inspector},
				&StatsPanel{V: v.Stats},
				&Violations{V: v.Violations},
			),
			&TourKeys{},
		)
	}
	return main.Body(
		nav,
		ga.If(t.presenting, func() ga.UI { return &PresentBar{At: stop, Of: len(c.Sequence())} }),
		ga.Div().Class("tour-layout").Body(
			&TourProse{Slug: c.Slug, Index: idx, Active: active, Prefix: rootPrefix(), Present: para},
			figure,
		),
	)
}

// activePreset is the id of the chapter's preset the figure is at ("" when
// the reader stepped away from every preset).
func (t *Tour) activePreset(c tour.Chapter) string {
	if t.s == nil {
		return ""
	}
	q := t.s.Query()
	q.Del("speed")
	for _, p := range c.Presets {
		if pq, err := p.Query(); err == nil && tour.SameState(pq, q) {
			return p.ID
		}
	}
	return ""
}

func captionOf(c tour.Chapter, active string) string {
	if p, ok := c.Preset(active); ok {
		return p.Caption
	}
	return "Your own step: the links in the text bring the figure back to their state."
}

// OnPreRender: the server's (and the static site's) page carries the
// chapter's prose; the figure comes with the wasm.
func (t *Tour) OnPreRender(ctx ga.Context) {
	t.slug, _ = tourSlug(ctx.Page().URL().Path)
}

func (t *Tour) OnMount(ctx ga.Context) {
	t.ctx, t.mounted = ctx, true
	// A step's moved page comes into view and travels its path, as a
	// link's subject does.
	follow := func(fn func()) func(ga.Action) {
		return func(ga.Action) {
			fn()
			// The address follows the figure: a reload or a shared link
			// shows this state.
			if c, _, ok := tour.BySlug(t.slug); ok && t.s.Changed() {
				ga.Window().Get("history").Call("replaceState", nil, "", rootPrefix()+c.Path()+"?"+t.s.Query().Encode())
			}
			t.ctx.Defer(func(ga.Context) { t.bringSubject("") })
		}
	}
	t.handle(ctx, actStep, follow(func() { t.s.Step() }))
	t.handle(ctx, actBack, follow(func() { t.s.Back() }))
	t.handle(ctx, actPacket, follow(func() { t.s.Packet() }))
	t.handle(ctx, actReset, follow(func() { t.s.Reset() }))
	t.handle(ctx, actPresent, func(a ga.Action) {
		on, ok := a.Value.(bool)
		if !ok {
			on = !t.presenting
		}
		t.present(on)
	})
	t.handle(ctx, actPresentGo, func(a ga.Action) {
		if d, ok := a.Value.(int); ok && t.presenting {
			t.presentGo(d)
		}
	})
	t.handle(ctx, actSelect, func(a ga.Action) { t.s.Select(a.Value.(int32)) })
	t.handle(ctx, actJump, func(a ga.Action) { j := a.Value.(jump); t.s.Jump(j.Op, j.PFN) })
	t.handle(ctx, actDismiss, func(a ga.Action) { t.s.Dismiss(a.Value.(int)) })
	ctx.Handle(actTourGo, func(ctx ga.Context, a ga.Action) {
		href := a.Value.(string)
		t.act("link "+href, func() {
			u, err := url.Parse(href)
			if err != nil {
				return
			}
			ga.Window().Get("history").Call("pushState", nil, "", href)
			t.load(u, href)
		})
	})
	t.listen(ctx)
	figureNav.listen() // the arrow keys inside a figure go from tile to tile (a11y.go)
}

// OnNav: the page was opened (or go-app navigated to it): the URL says the
// chapter and the figure's state.
func (t *Tour) OnNav(ctx ga.Context) {
	t.ctx = ctx
	t.act("navigation", func() { t.load(ctx.Page().URL(), "") })
}

func (t *Tour) OnDismount() {
	doc := ga.Window().Get("document")
	if t.keydown != nil {
		doc.Call("removeEventListener", "keydown", t.keydown)
		t.keydown.Release()
		t.keydown = nil
	}
	if t.fullscreen != nil {
		doc.Call("removeEventListener", "fullscreenchange", t.fullscreen)
		t.fullscreen.Release()
		t.fullscreen = nil
	}
	if t.popstate != nil {
		ga.Window().Call("removeEventListener", "popstate", t.popstate)
		t.popstate.Release()
		t.popstate = nil
	}
}

// load shows the chapter and state of URL u: the query's state, or the
// chapter's first preset when the query has none. link is the href of the
// preset link that asked for it ("" for none): it stays in view.
func (t *Tour) load(u *url.URL, link string) {
	slug, ok := tourSlug(u.Path)
	if slug != t.slug || !t.known {
		t.focusH1 = t.known // the first page load keeps the browser's focus
		t.ctx.Defer(func(ga.Context) { t.afterChapterChange() })
	}
	t.slug, t.known = slug, ok
	c, _, found := tour.BySlug(slug)
	if !found {
		t.s, t.query = nil, ""
		t.publish()
		return
	}
	q := u.Query()
	if len(q) == 0 {
		q, _ = c.Presets[0].Query()
	}
	// A new run of the state, also for the link just followed again: the
	// reader may have stepped away from it since.
	t.query = q.Encode()
	t.s = session.New(q, now)
	t.view = t.s.View()
	// A query with a bad field falls back, in the session, to the
	// playground's defaults field by field: on a chapter the figure shows
	// the chapter's opening state instead, and says why.
	var bad []string
	for _, n := range t.view.Banner {
		if strings.HasPrefix(n.Text, "URL: ") && !strings.Contains(n.Text, "past the end of the run") {
			bad = append(bad, n.Text)
		}
	}
	if pq, err := c.Presets[0].Query(); len(bad) > 0 && err == nil {
		t.s = session.New(pq, now)
		for _, b := range bad {
			t.s.Notify("notice", b+" — the chapter's opening state is shown")
		}
		ga.Window().Get("history").Call("replaceState", nil, "", rootPrefix()+c.Link(c.Presets[0]))
		t.query = pq.Encode()
		t.view = t.s.View()
	}
	t.subject = tour.Subject{PFN: -1}
	for i, st := range c.Sequence() {
		if st.Preset == t.activePreset(c) {
			t.presentAt = i
		}
	}
	if p, ok := c.Preset(t.activePreset(c)); ok && t.view.Narration.Has {
		// The link's subject: its page selected (the machine marks it,
		// the inspector shows it) and brought into view once drawn.
		t.subject = p.SubjectOf(t.view.Narration.Rec, &t.view.Machine.Snap)
		if t.subject.PFN >= 0 {
			t.s.Select(t.subject.PFN)
			t.view = t.s.View()
		}
		t.ctx.Defer(func(ga.Context) { t.bringSubject(link) })
	}
	t.publish()
}

// stepSubject is the subject after a step away from the presets: the
// first page the step moved (none when it moved none).
func (t *Tour) stepSubject() {
	t.subject = tour.Subject{PFN: -1}
	if c, _, ok := tour.BySlug(t.slug); ok {
		if p, ok := c.Preset(t.activePreset(c)); ok && t.view.Narration.Has {
			t.subject = p.SubjectOf(t.view.Narration.Rec, &t.view.Machine.Snap)
			return
		}
	}
	if r := t.view.Narration.Rec; t.view.Narration.Has && len(r.Moves) > 0 {
		t.subject = tour.PageSubject(r.Moves[0].PFN, r, &t.view.Machine.Snap)
	}
}

// bringSubject brings the subject into view once the figure is drawn: in
// the two-column layout the figure scrolls (never the page: the link the
// reader followed stays where it is) until the subject's tile is in its
// visible part, below its sticky caption; in the one-column layout the
// sheet shows the caption and the strip, and the page scrolls the link
// above the sheet if the sheet covers it.
//
// It runs once the drawing is whole: the rows a render mounts are empty
// until their OnMount (which go-app dispatches later) draws their tiles,
// and a figure scrolled before then put a subject below half-drawn rows
// out of view. So it waits until the subject's place has stayed the same
// for two looks 20 ms apart (at most ~0.5 s).
func (t *Tour) bringSubject(link string) {
	cancelMoves() // a flight still under way would be measured mid-air
	t.bringWhenDrawn(link, 0, math.NaN())
}

func (t *Tour) bringWhenDrawn(link string, tries int, last float64) {
	top := math.NaN()
	doc := ga.Window().Get("document")
	for _, s := range subjectSelectors(t.subject) {
		if el := doc.Call("querySelector", s); el.Truthy() {
			top = el.Call("getBoundingClientRect").Get("top").Float()
			break
		}
	}
	if tries < 25 && (math.IsNaN(top) || top != last) {
		t.ctx.After(20*time.Millisecond, func(ctx ga.Context) {
			t.bringWhenDrawn(link, tries+1, top)
			ctx.PreventUpdate()
		})
		return
	}
	t.bringNow(link)
}

func (t *Tour) bringNow(link string) {
	sel := subjectSelectors(t.subject)
	bringTourSubject(sel, link)
	if s := t.subject; s.PFN >= 0 && len(s.Moved) > 1 && !oneColumn() {
		boxes := make([]string, len(s.Moved))
		for i, p := range s.Moved {
			boxes[i] = "#machine " + placeBox(p, lab.Holder{})
		}
		boxes[len(boxes)-1] = "#machine " + placeBox(s.Place, s.Holder)
		animateMove(sel[0], boxes)
	}
	t.brought++
	t.publish()
}

// oneColumn: the tour's one-column layout (the figure a bottom sheet), as
// the stylesheet's breakpoint says.
func oneColumn() bool {
	return ga.Window().Call("matchMedia", "(max-width: 980px)").Get("matches").Bool()
}

// subjectSelectors are the machine's elements that show subject s, the
// most precise first: its page's tile where it is drawn, its skb's card,
// the structure.
func subjectSelectors(s tour.Subject) []string {
	box := placeBox(s.Place, s.Holder)
	var sel []string
	if s.PFN >= 0 {
		sel = append(sel, fmt.Sprintf(`#machine %s .tile[data-pfn="%d"]`, box, s.PFN), fmt.Sprintf(`#machine .tile[data-pfn="%d"]`, s.PFN))
	}
	if s.SKB != 0 {
		sel = append(sel, fmt.Sprintf(`#machine .skb[data-skb="%d"]`, s.SKB))
	}
	return append(sel, "#machine "+box)
}

// placeBox is the machine's element that draws place (in the holder's
// pool, for a pool's cache or ring; else the first pool's); the page
// allocator is its box (a page freed in the step: the "just freed" box).
func placeBox(place string, h lab.Holder) string {
	box, ok := map[string]string{
		"cache": "figure.cache", "ring": "figure.ring", "nic-ring": ".box.nic", "skb": ".box.skbs", "socket": ".box.skbs",
		"tx-ring": ".box.skbs", "frag": "figure.frag-page", "buddy": ".box.allocator", "driver": ".box.elsewhere",
		"xdp-frame": ".box.elsewhere", "driver-cache": ".box.elsewhere", "slab": ".box.elsewhere", "user": ".box.elsewhere",
	}[place]
	if !ok {
		return ".machine-body"
	}
	if h.Kind == "pool" && (place == "cache" || place == "ring") {
		box = fmt.Sprintf(`.pool[data-pool="%d"] %s`, h.ID, box)
	}
	return box
}

func subjectWords(s tour.Subject) string {
	if s.Place == "" {
		return ""
	}
	return s.Words()
}

// afterChapterChange scrolls to the top and, after a link, moves the focus
// to the chapter's heading (so that Tab goes on through the chapter).
func (t *Tour) afterChapterChange() {
	ga.Window().Call("scrollTo", 0, 0)
	if !t.focusH1 || t.presenting { // a talk's slides do not take the focus ring
		return
	}
	t.focusH1 = false
	if el := ga.Window().GetElementByID("tour-title"); el.Truthy() {
		el.Call("focus", map[string]any{"preventScroll": true})
	}
}

// act runs one action on the session, guarded as the playground's are: a
// panic becomes a banner entry and the page keeps running.
func (t *Tour) act(what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if t.s == nil {
				ga.Logf("pplab: panic in %s before the session existed: %v", what, r)
				return
			}
			ga.Logf("%s", t.s.Recover(what, r))
			t.view = t.s.View()
			t.publish()
		}
	}()
	fn()
	if t.s != nil && t.s.Changed() {
		t.view = t.s.View()
		t.stepSubject()
	}
	t.publish()
}

func (t *Tour) handle(ctx ga.Context, name string, fn func(a ga.Action)) {
	ctx.Handle(name, func(ctx ga.Context, a ga.Action) {
		if t.s == nil {
			return
		}
		t.act(name, func() { fn(a) })
	})
}

// listen: → step, ← back, Shift+→ a packet, R reset, as in the playground (never
// while a form control has focus); the browser's back and forward buttons
// go through the tour's history entries.
func (t *Tour) listen(ctx ga.Context) {
	t.keydown = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		e := args[0]
		if modified(e) || inFormControl(e, true) {
			return nil
		}
		target := e.Get("target")
		var act string
		switch e.Get("key").String() {
		case "ArrowRight":
			act = actStep
			if e.Get("shiftKey").Bool() {
				act = actPacket
			}
		case "ArrowLeft":
			act = actBack
		case "r", "R":
			if strings.ToLower(target.Get("tagName").String()) == "a" {
				return nil
			}
			act = actReset
		case "p", "P":
			act = actPresent
		case "PageDown", "PageUp", "Escape":
			if !t.presenting {
				return nil // the browser's own (scroll a page)
			}
			e.Call("preventDefault")
			switch e.Get("key").String() {
			case "PageDown":
				ctx.NewActionWithValue(actPresentGo, +1)
			case "PageUp":
				ctx.NewActionWithValue(actPresentGo, -1)
			default:
				ctx.NewActionWithValue(actPresent, false)
			}
			return nil
		default:
			return nil
		}
		e.Call("preventDefault")
		ctx.NewAction(act)
		return nil
	})
	// Full screen left (Esc, the browser's own control): presenter mode
	// with it.
	t.fullscreen = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		if !ga.Window().Get("document").Get("fullscreenElement").Truthy() && t.presenting {
			ctx.NewActionWithValue(actPresent, false)
		}
		return nil
	})
	ga.Window().Get("document").Call("addEventListener", "fullscreenchange", t.fullscreen)
	ga.Window().Get("document").Call("addEventListener", "keydown", t.keydown)
	t.popstate = ga.FuncOf(func(this ga.Value, args []ga.Value) any {
		ctx.Dispatch(func(ctx ga.Context) {
			t.act("history", func() {
				if u, err := url.Parse(ga.Window().Get("location").Get("href").String()); err == nil {
					t.load(u, "")
				}
			})
		})
		return nil
	})
	ga.Window().Call("addEventListener", "popstate", t.popstate)
}

// publish exposes the tour's state for the tests and the console:
// window.__pplabTour.
func (t *Tour) publish() {
	st := map[string]any{"mounted": true, "chapter": t.slug, "query": t.query}
	if t.s != nil {
		st["op"] = float64(t.s.Lab().Ops())
		st["link"] = t.view.Link
		if c, _, ok := tour.BySlug(t.slug); ok {
			st["active"] = t.activePreset(c)
		}
		st["subject"] = map[string]any{"pfn": float64(t.subject.PFN), "skb": float64(t.subject.SKB), "place": t.subject.Place}
		st["brought"] = float64(t.brought)
		st["presenting"] = t.presenting
	}
	ga.Window().Set("__pplabTour", st)
}

// tourSlug is the chapter a path names ("" for the index) and whether the
// path is the tour's at all.
func tourSlug(path string) (string, bool) {
	path = strings.TrimPrefix(path, rootPrefix())
	rest, ok := strings.CutPrefix(path, "/tour")
	if !ok {
		return "", false
	}
	slug := strings.Trim(rest, "/")
	if slug == "" {
		return "", true
	}
	_, _, found := tour.BySlug(slug)
	return slug, found
}

// rootPrefix is the sub-path the site is served under ("" at the root, or
// e.g. "/pplab"): in the browser go-app's GOAPP_ROOT_PREFIX. On the server
// it is "", and go-app's resource resolver prefixes the prerendered links
// (the generator's process has GOAPP_ROOT_PREFIX set too — go-app sets it
// while writing app.js — and the prerendered pages under /pplab linked
// /pplab/pplab/tour/… until the wasm replaced them).
func rootPrefix() string {
	if ga.IsServer {
		return ""
	}
	return strings.TrimSuffix(ga.Getenv("GOAPP_ROOT_PREFIX"), "/")
}

// onTourLink follows a tour link (a sentence's preset, previous/next, the
// chapter list) in the Tour rather than through go-app's router: go-app
// ignores a link to the URL it navigated to last, so a preset link clicked
// again after stepping away would not bring the figure back; and a step
// does not rewrite the address bar. A click with a modifier (a new tab)
// keeps the browser's default.
func onTourLink(ctx ga.Context, e ga.Event) {
	for _, k := range []string{"ctrlKey", "metaKey", "shiftKey", "altKey"} {
		if e.Get(k).Bool() {
			return
		}
	}
	if b := e.Get("button"); b.Truthy() && b.Int() != 0 {
		return
	}
	el := ctx.JSSrc()
	if !el.Truthy() {
		return
	}
	h := el.Call("getAttribute", "href")
	if !h.Truthy() {
		return
	}
	href := h.String()
	e.PreventDefault()
	e.Call("stopPropagation") // go-app's own anchor handler (on the body) must not navigate too
	ctx.NewActionWithValue(actTourGo, href)
}
