// Command wasm is pplab's playground. Compiled for the browser (GOOS=js
// GOARCH=wasm) it runs the UI; natively it serves the playground or writes
// it as a static site (server.go, not linked into the browser build).
package main

import (
	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app"
	"pplab/app/tour"
)

// version is the build's version (the git commit), set with -ldflags
// "-X main.version=…"; the service worker's cache is named after it.
var version = ""

// registerRoutes registers the pages: every native process that serves or
// generates the site must call it (go-app answers 404 otherwise).
func registerRoutes() {
	ga.Route("/", func() ga.Composer { return &app.Playground{} })
	ga.RouteWithRegexp("^/rules/?$", func() ga.Composer { return &app.RulesPage{} })
	ga.RouteWithRegexp("^/whatif/?$", func() ga.Composer { return &app.WhatIfPage{} })
	ga.RouteWithRegexp("^/diagnose/?$", func() ga.Composer { return &app.DiagnosePage{} })
	ga.RouteWithRegexp("^/replay/?$", func() ga.Composer { return &app.ReplayPage{} })
	ga.RouteWithRegexp("^/compare/?$", func() ga.Composer { return &app.ComparePage{} })
	for _, p := range tourPaths() {
		ga.Route(p, func() ga.Composer { return &app.Tour{} })
	}
}

// tourPaths are the guided tour's pages: its index and one per chapter,
// each a directory path (/tour/<chapter>/), so that the static site's
// tour/<chapter>/index.html is what any file server answers for it.
func tourPaths() []string {
	paths := []string{tour.IndexPath}
	for _, c := range tour.Chapters() {
		paths = append(paths, c.Path())
	}
	return paths
}

func main() {
	registerRoutes()
	ga.RunWhenOnBrowser() // in the browser: runs the UI and never returns
	serve()               // natively: flags decide (server.go)
}
