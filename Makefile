# pplab — the two commands a fresh machine needs:
#   make run    the playground (until the UI lands: ppsim on the default scenario)
#   make test   everything: format, vet, import rules, unit + scenario tests,
#               fuzz seed corpora, and the engine's wasm build
GO ?= go
SCENARIO ?= pool-ring
ENGINE_PKGS = ./engine/...

.PHONY: run test fmt-check vet imports unit wasm-engine wasm-test bench fuzz

run:
	$(GO) run ./cmd/ppsim run --scenario $(SCENARIO)

test: fmt-check vet imports unit wasm-engine wasm-test
	@echo "make test: all checks passed"

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The engine must never import syscall/js or go-app: no engine package, nor any
# non-standard package it depends on, may import them (the standard library
# itself uses syscall/js on js/wasm). It must also build for the browser.
imports:
	@bad=$$(GOOS=js GOARCH=wasm $(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}: {{join .Imports " "}}{{end}}' $(ENGINE_PKGS) \
		| grep -E '(^| )(syscall/js|github.com/maxence-charriere/go-app[^ ]*)( |$$)' || true); \
	if [ -n "$$bad" ]; then echo "engine imports forbidden packages:"; echo "$$bad"; exit 1; fi
	@echo "imports: no engine package imports syscall/js or go-app"

# go test replays every fuzz target's seed corpus (testdata/fuzz) as unit tests.
unit:
	$(GO) test -count=1 ./...

wasm-engine:
	GOOS=js GOARCH=wasm $(GO) build $(ENGINE_PKGS)
	GOOS=js GOARCH=wasm $(GO) vet $(ENGINE_PKGS)

# The engine's tests again, compiled to WebAssembly and run under Node.js: the
# browser build must behave as the native one. Node comes from Debian (nodejs).
WASM_EXEC = $(shell $(GO) env GOROOT)/lib/wasm/go_js_wasm_exec
wasm-test:
	@command -v node >/dev/null || { echo "installing nodejs (apt)"; apt-get update -qq && apt-get install -y -qq nodejs >/dev/null; }
	GOOS=js GOARCH=wasm $(GO) test -count=1 -short -exec="$(WASM_EXEC)" $(ENGINE_PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./engine/...

# Explore beyond the seed corpora (not part of make test).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzPool -fuzztime=$(FUZZTIME) ./engine/pagepool
	$(GO) test -run='^$$' -fuzz=FuzzSkb -fuzztime=$(FUZZTIME) ./engine/skb
