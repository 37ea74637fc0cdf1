# pplab — the two commands a fresh machine needs:
#   make run    the playground: builds the wasm, fetches ECharts (npm, checked
#               by sha256) and serves on http://127.0.0.1:8000/
#   make test   everything: format, vet, import rules, unit + scenario tests,
#               fuzz seed corpora, the engine's wasm build and its tests under
#               Node.js, and the end-to-end tests in headless Chromium against
#               the static site (installs nodejs, chromium and ECharts if missing)
#   make check  the inner loop (under a minute warm): format, vet, import rules and
#               the native tests under -short (a sample of the golden corpus;
#               no wasm, no browser); make test before a push
GO ?= go
# The engine: sim, mm, pagepool, skb, drivers, workload, lab, perf (the
# what-if) and diagnose (the counter diagnosis), both above lab;
# engine/lab/arch_test.go holds the layer order.
ENGINE_PKGS = ./engine/...
ADDR ?= 127.0.0.1:8000
PREFIX ?=
# The service worker caches the app per version: a commit's builds share its
# version, a build of uncommitted changes gets a new one each time.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
ifneq ($(filter %-dirty dev,$(VERSION)),)
VERSION := $(VERSION)-$(shell date +%s)
endif
# The model's build id (lab.BuildID: `ppsim version`, the page's footer
# and every netdev text print it): the commit, 12 hex digits, "-dirty"
# when git status lists a change — what go build stamps (vcs.revision,
# vcs.modified), so a ppsim from go build or go install prints the same.
BUILD_ID ?= $(shell git rev-parse -q --verify HEAD >/dev/null 2>&1 && { git rev-parse --short=12 HEAD; [ -z "$$(git status --porcelain 2>/dev/null)" ] || echo -dirty; } | tr -d '\n' || echo dev)
BUILD_LDFLAGS = -X pplab/engine/lab.build=$(BUILD_ID)
export PPLAB_BUILD_ID = $(BUILD_ID)
ECHARTS_VERSION = 6.1.0
ECHARTS_SHA256 = b66b25aeb4df84e33199dc21694014d336d222cbd9deb0e5a7c14bd6aa0d0fd0
WASM_LDFLAGS = -s -w -X main.version=$(VERSION) $(BUILD_LDFLAGS)

.PHONY: ppsim live perf xdp-tools pgo run site test check fmt-check vet imports unit bench-once wasm-engine wasm-test golden wasm-app e2e bench-ui bench fuzz node chromium poppler bpftrace size

run: web/echarts.min.js wasm-app
	$(GO) run -ldflags "-X main.version=$(VERSION) $(BUILD_LDFLAGS)" ./wasm -addr $(ADDR)

# A static site any file server serves: make site, or make site PREFIX=/pplab
# for hosting under a sub-path; BASE=https://example.org/pplab (the site's
# absolute URL, its path the PREFIX) adds the link-preview tags og:url and
# og:image, which need it.
BASE ?=
site: web/echarts.min.js wasm-app
	rm -rf site
	$(GO) run -ldflags "-X main.version=$(VERSION) $(BUILD_LDFLAGS)" ./wasm -gen site -prefix "$(PREFIX)" -base "$(BASE)"

# ppsim with the build id the page shows (bin/ppsim).
ppsim:
	$(GO) build -ldflags "$(BUILD_LDFLAGS)" -o bin/ppsim ./cmd/ppsim

test: fmt-check vet imports bpftrace perf xdp-tools unit bench-once wasm-engine wasm-test e2e
	@echo "make test: all checks passed"

# The inner loop: what make test checks natively, with go test -short
# (TestGolden compares a sample of the corpus that reaches every scenario,
# driver and era,
# the fast-forward comparisons at 10^5–10^6 packets are skipped, the long
# matrices run a sample that rotates through them, the runs that check
# every page after every operation run on a smaller machine) and the test
# cache kept, so a package nothing changed in is not run again.
check: fmt-check vet imports
	$(GO) test -short ./...
	@echo "make check: passed (make test runs everything)"

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags e2e ./e2e
	$(GO) vet -tags "e2e benchui" ./e2e
	GOOS=js GOARCH=wasm $(GO) vet ./app ./wasm

# The engine must never import syscall/js or go-app: no engine package, nor any
# non-standard package it depends on, may import them (the standard library
# itself uses syscall/js on js/wasm). It must also build for the browser. The
# what-if (engine/perf) reads runs through lab, never the other way round.
imports:
	@bad=$$(GOOS=js GOARCH=wasm $(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}: {{join .Imports " "}}{{end}}' $(ENGINE_PKGS) \
		| grep -E '(^| )(syscall/js|github.com/maxence-charriere/go-app[^ ]*)( |$$)' || true); \
	if [ -n "$$bad" ]; then echo "engine imports forbidden packages:"; echo "$$bad"; exit 1; fi
	@if $(GO) list -deps ./engine/lab | grep -qx 'pplab/engine/perf'; then echo "engine/lab depends on engine/perf: the what-if sits above the lab (perf → lab)"; exit 1; fi
	@if $(GO) list -deps ./engine/lab | grep -qx 'pplab/engine/diagnose'; then echo "engine/lab depends on engine/diagnose: the diagnosis sits above the lab (diagnose → lab)"; exit 1; fi
	@if $(GO) list -deps ./engine/lab | grep -qx 'pplab/engine/traceevent'; then echo "engine/lab depends on engine/traceevent: the trace writer sits above the lab (traceevent → lab)"; exit 1; fi
	@echo "imports: no engine package imports syscall/js or go-app; engine/lab depends on none of engine/perf, engine/diagnose, engine/traceevent"

# Every benchmark once (-benchtime 1x): a benchmark checks what it measures
# (the recycling path, no allocation), and one that nothing runs rots.
bench-once:
	$(GO) test -count=1 -run='^$$' -bench=. -benchtime=1x ./...

# go test replays every fuzz target's seed corpus (testdata/fuzz) as unit tests.
unit:
	$(GO) test -count=1 -timeout 20m ./...

wasm-engine:
	GOOS=js GOARCH=wasm $(GO) build $(ENGINE_PKGS)
	GOOS=js GOARCH=wasm $(GO) vet $(ENGINE_PKGS)

# Node.js runs the wasm tests; on a machine without it, Debian's package.
node:
	@command -v node >/dev/null || { echo "installing nodejs (apt)"; apt-get update -qq && apt-get install -y -qq nodejs >/dev/null; }

# The browser build must behave as the native one, byte for byte. Compiled
# to WebAssembly and run under Node.js: TestGolden hashes its wasm sample of
# the golden corpus (a sample of about 90 configurations across every scenario, driver
# and era; cmd/ppsim/golden_test.go) and compares them with
# cmd/ppsim/testdata/golden.txt; and engine/lab's tests (-short) of the
# paths only the playground takes, which the corpus's batch and traced runs
# do not: Seek and its keyframes, step records, snapshots, the
# per-operation checking of a seekable run with a rule broken, play in
# slices with the fast-forward on. The rest of the engine's tests run
# natively (make unit).
WASM_EXEC = $(shell $(GO) env GOROOT)/lib/wasm/go_js_wasm_exec
WASM_TESTS = ^(TestGolden|TestViolationLog_SameOnEveryPath|TestSeek_.*|TestEnableSeek_.*|TestReplayTo_.*|TestStepRecord_.*|TestStep_EqualsBatch|TestRecord_.*|TestClone_.*|TestSnapshot_.*|TestFastForward_SeekAndSlices)$$
wasm-test: node
	GOOS=js GOARCH=wasm $(GO) test -count=1 -short -timeout 20m -exec="$(WASM_EXEC)" -run '$(WASM_TESTS)' ./cmd/ppsim ./engine/lab

# Regenerate the golden corpus (cmd/ppsim/testdata/golden.txt) after a
# change that changes the model's outputs on purpose; prints how many
# configurations changed per scenario and era and which counters moved, for
# the commit message.
golden:
	cd cmd/ppsim && $(GO) test -count=1 -timeout 20m -run '^TestGolden$$' -update

# The playground's wasm (the UI and the engine), built against go-app with a
# few files patched (third_party/go-app/README.md): engine.go.patched renders
# right after an event instead of one 120 Hz frame later; http.go (the
# server's Handler) is native only and resource.go no longer needs net/http,
# so the browser build links no HTTP server, TLS or x509 (−1.65 MB raw).
# The patched copy of the module is made at build time in .build/ from the
# module cache (go.sum-verified), and the wasm build alone uses it, through
# an alternate go.mod (-modfile) that adds the replace. A go.mod naming a
# go-app other than the patched version stops the build instead of silently
# dropping the patch.
GOAPP_MODULE = github.com/maxence-charriere/go-app/v10
GOAPP_PATCHED = v10.1.11
wasm-app:
	@ver=$$($(GO) list -m -f '{{.Version}}' $(GOAPP_MODULE)); \
	[ "$$ver" = "$(GOAPP_PATCHED)" ] || { echo "go.mod has go-app $$ver; third_party/go-app patches $(GOAPP_PATCHED): port the patch first"; exit 1; }; \
	dir=$$($(GO) mod download -json $(GOAPP_MODULE)@$(GOAPP_PATCHED) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	[ -f "$$dir/pkg/app/engine.go" ] || { echo "go-app's engine.go not found under '$$dir'"; exit 1; }; \
	rm -rf .build/go-app && mkdir -p .build/go-app && cp -R "$$dir/go.mod" "$$dir/LICENSE" "$$dir/pkg" .build/go-app/ && chmod -R u+w .build/go-app \
	&& cp third_party/go-app/engine.go.patched .build/go-app/pkg/app/engine.go \
	&& ! grep -q '^//go:build' .build/go-app/pkg/app/http.go \
	&& { printf '//go:build !wasm\n\n'; cat "$$dir/pkg/app/http.go"; } > .build/go-app/pkg/app/http.go \
	&& cp third_party/go-app/resource.go.patched .build/go-app/pkg/app/resource.go \
	&& for f in resource_http resource_wasm handler_wasm; do cp third_party/go-app/$$f.go.add .build/go-app/pkg/app/$$f.go; done \
	&& { cat go.mod; echo; echo "replace $(GOAPP_MODULE) => $(CURDIR)/.build/go-app"; } > .build/go.wasm.mod && cp go.sum .build/go.wasm.sum
	@if GOOS=js GOARCH=wasm $(GO) list -modfile=.build/go.wasm.mod -deps ./wasm | grep -qx 'net/http'; then echo "the browser build links net/http (a server package: ~1.6 MB of app.wasm); see third_party/go-app/README.md"; exit 1; fi
	GOOS=js GOARCH=wasm $(GO) build -trimpath -modfile=.build/go.wasm.mod -ldflags="$(WASM_LDFLAGS)" -o web/app.wasm ./wasm

# ECharts from the npm registry (never a CDN), checked against its sha256.
web/echarts.min.js: | node
	@command -v npm >/dev/null || { echo "installing npm (apt)"; apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
	@tmp=$$(mktemp -d) && (cd $$tmp && npm pack --silent echarts@$(ECHARTS_VERSION) >/dev/null && tar xzf echarts-$(ECHARTS_VERSION).tgz) \
		&& cp $$tmp/package/dist/echarts.min.js web/echarts.min.js.tmp && rm -rf $$tmp
	@echo "$(ECHARTS_SHA256)  web/echarts.min.js.tmp" | sha256sum -c --quiet - || { rm -f web/echarts.min.js.tmp; echo "echarts.min.js: sha256 mismatch"; exit 1; }
	@mv web/echarts.min.js.tmp web/echarts.min.js
	@echo "web/echarts.min.js: echarts@$(ECHARTS_VERSION), sha256 ok"

# Debian's Chromium for the end-to-end tests.
chromium:
	@command -v chromium >/dev/null || { echo "installing chromium (apt)"; apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

# Debian's bpftrace for engine/observe's TestBpftrace_618: the 6.18 era's
# scripts attach to the running kernel when it is a 6.18 and the tests run
# as root (skipped, saying why, otherwise).
bpftrace:
	@command -v bpftrace >/dev/null || { echo "installing bpftrace (apt)"; apt-get update -qq && apt-get install -y -qq bpftrace >/dev/null; }

# Debian's perf (linux-perf) and xdp-tools for the live captures
# (live/live_test.go: perf record -e 'page_pool:*' and perf script; the
# allow-all XDP program capture.sh loads with xdp-filter).
perf:
	@command -v perf >/dev/null || { echo "installing linux-perf (apt)"; apt-get update -qq && apt-get install -y -qq linux-perf >/dev/null; }
xdp-tools:
	@command -v xdp-filter >/dev/null || { echo "installing xdp-tools (apt)"; apt-get update -qq && apt-get install -y -qq xdp-tools >/dev/null; }

# Debian's poppler-utils for the print test (e2e/print_test.go): pdftoppm
# renders the printed chapter's pages, pdftotext reads their text.
poppler:
	@command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null || { echo "installing poppler-utils (apt)"; apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null; }

# End-to-end: the static site (root and sub-path) in headless Chromium, one
# browser for the package and a fresh profile per test; the browser proves
# the wiring, the matrices are checked natively (e2e/e2e_test.go).
e2e: web/echarts.min.js wasm-app chromium poppler
	$(GO) test -count=1 -timeout 25m -tags e2e ./e2e

# The budgets in the browser (e2e/bench_test.go, build tag benchui): opening
# the page, one step key → DOM, max-speed play, the first load throttled to
# 10 Mbit/s + 40 ms from a brotli, a gzip and a plain host. The table is
# printed, never asserted.
bench-ui: web/echarts.min.js wasm-app chromium
	@mkdir -p .build && rm -f .build/bench-ui.txt
	@PPLAB_BENCHUI=$(CURDIR)/.build/bench-ui.txt $(GO) test -count=1 -timeout 25m -tags 'e2e benchui' -run '^TestBenchUI$$' ./e2e; rc=$$?; \
	cat .build/bench-ui.txt 2>/dev/null || echo "bench-ui: no table (TestBenchUI did not run to its end)"; exit $$rc

# The wasm's size: raw, and as the site's pre-compressed twins (make site
# writes them: brotli quality 11, gzip level 9); budget 2.3 MB brotli (goal 2.0).
size: site
	@raw=$$(stat -c %s site/web/app.wasm); gz=$$(stat -c %s site/web/app.wasm.gz); br=$$(stat -c %s site/web/app.wasm.br); \
	echo "app.wasm: $$raw B raw, $$gz B gzip (level 9), $$br B brotli (quality 11)"

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./engine/...

# Regenerate the PGO profiles the CLI and the wasm build use (default.pgo in
# each main package: go build picks it up): a CPU profile of the engine's
# batch runs, seeks, snapshots and recorded steps.
pgo:
	$(GO) test -run='^$$' -bench='DriverScenarios|PoolDirect|PoolRing|PoolSlow|Seek$$|Snapshot|StepRecord' -benchtime=1s -cpuprofile=/tmp/pplab-pgo.pprof ./engine/lab
	cp /tmp/pplab-pgo.pprof cmd/ppsim/default.pgo
	cp /tmp/pplab-pgo.pprof wasm/default.pgo

# Explore beyond the seed corpora (not part of make test).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzPool -fuzztime=$(FUZZTIME) ./engine/pagepool
	$(GO) test -run='^$$' -fuzz=FuzzSkb -fuzztime=$(FUZZTIME) ./engine/skb
	$(GO) test -run='^$$' -fuzz=FuzzParseProfile -fuzztime=$(FUZZTIME) ./engine/perf

# Records real page_pool:* tracepoints on this machine's kernel (root: a
# veth pair, a namespace, an XDP program, a 4 MiB TCP transfer; traffic
# stays inside the pair and stops by itself), replays the capture and
# compares its shape with the model's veth transfer (live/capture.sh,
# ppsim replay --compare-veth). make test runs the same (live/live_test.go).
live:
	@mkdir -p .build
	bash live/capture.sh .build/live-capture.txt 4
	$(GO) run ./cmd/ppsim replay .build/live-capture.txt --compare-veth 4 --era 6.18
