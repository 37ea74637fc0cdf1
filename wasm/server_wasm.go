//go:build wasm

package main

// serve is native only; the browser build never reaches it.
func serve() {}
