package session

import (
	"net/url"
	"testing"
)

// BenchmarkStepView: one single step and the view the page renders from
// it, at teaching and at kernel sizes (the session's share of a UI step;
// the browser adds go-app's render and the DOM).
func BenchmarkStepView(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"teaching/tcp-stream", "v=1&scenario=tcp-stream&rx_descs=16&pool_size=32&step=200"},
		{"kernel/tcp-stream", "v=1&scenario=tcp-stream&step=200"},
		{"kernel/drop", "v=1&scenario=drop&step=2000"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q, _ := url.ParseQuery(bc.q)
			s := New(q, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Step()
				_ = s.View()
			}
		})
	}
}
