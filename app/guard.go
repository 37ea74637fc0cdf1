package app

import (
	"fmt"
	"runtime/debug"
	"strings"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"
)

// guardRender turns a panic in a component's Render into a visible error
// box instead of a dead app: use as `defer guardRender(&ui, "Name")` with a
// named result.
func guardRender(ui *ga.UI, name string) {
	if r := recover(); r != nil {
		*ui = ga.Div().Class("render-error").Role("alert").Text(fmt.Sprintf("%s failed to render: %v", name, r))
		ga.Logf("pplab: %s render panic: %v\n%s", name, r, firstLines(string(debug.Stack()), 12))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
