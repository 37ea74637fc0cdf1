package app

import (
	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// OnNav: a navigation inside the playground (a link to another state of
// it, e.g. a rule's "show it where it does", or the browser's back
// button) keeps the component — go-app updates a page of the same type in
// place — so the session is built again from the new URL, unless the URL
// is the one it was built from or a state the page itself wrote (go-app
// also calls OnNav for a link to a fragment, #machine, with the address
// bar's query, which may lag the state shown by up to urlEveryMS).
func (p *Playground) OnNav(ctx ga.Context) {
	if p.s == nil {
		return
	}
	q := ctx.Page().URL().RawQuery
	if q == p.builtFrom || q == p.written || q == p.view.Link {
		return
	}
	p.act("navigation", func() {
		p.builtFrom = q
		p.s = session.New(ctx.Page().URL().Query(), now)
		p.s.SetPageURL(pageURL())
	})
}

// OnMount brings the selected tile into view when the page opens on a
// jump (a rule's "show me" lands on its violation): OnUpdate does it for
// the jumps after.
func (m *Machine) OnMount(ctx ga.Context) { m.OnUpdate(ctx) }
