package app

import (
	"net/url"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// benchPage renders a session's view as the Playground does (its Render is
// the Playground's: the same tree), so that go-app's update of one step can
// be measured natively (the DOM calls are stubs there: this is the Go side
// of a UI step, the diff; the browser adds the DOM work).
type benchPage struct {
	ga.Compo
	V session.View // what changes per step (the Playground renders it)
	p *Playground
}

func (b *benchPage) Render() ga.UI { b.p.view = b.V; return b.p.Render() }

// BenchmarkUIStep: a single step, its view and go-app's update of the page.
func BenchmarkUIStep(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"teaching/tcp-stream", "v=1&scenario=tcp-stream&rx_descs=16&pool_size=32&step=200"},
		{"kernel/tcp-stream", "v=1&scenario=tcp-stream&step=200"},
		{"kernel/drop", "v=1&scenario=drop&step=2000"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q, _ := url.ParseQuery(bc.q)
			p := &Playground{s: session.New(q, nil)}
			p.view = p.s.View()
			page := &benchPage{V: p.view, p: p}
			e := ga.NewTestEngine()
			if err := e.Load(page); err != nil {
				b.Fatal(err)
			}
			e.ConsumeAll()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.s.Step()
				p.view = p.s.View()
				if err := e.Load(&benchPage{V: p.view, p: p}); err != nil {
					b.Fatal(err)
				}
				e.ConsumeAll()
			}
		})
	}
}

// BenchmarkMachineRender: the machine drawing of one step (cells and
// rows), without the update.
func BenchmarkMachineRender(b *testing.B) {
	q, _ := url.ParseQuery("v=1&scenario=tcp-stream&step=200")
	s := session.New(q, nil)
	v := s.View()
	m := &Machine{V: v.Machine}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.Render()
	}
}
