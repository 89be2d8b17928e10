# gpu-advisor: `make serve` builds and serves the app, `make test` runs every test.
# Both install whatever is missing first (tools/install.sh is idempotent and pinned).

SHELL := /bin/bash
TOOLS_BIN := $(HOME)/.cache/gpu-advisor/tools/bin
export PATH := $(CURDIR)/node_modules/.bin:$(TOOLS_BIN):$(HOME)/.cargo/bin:$(PATH)
export TRUNK_OFFLINE := true
export TRUNK_SKIP_VERSION_CHECK := true
export CHROMEDRIVER := /usr/bin/chromedriver
export WASM_BINDGEN_TEST_TIMEOUT := 120

.PHONY: all install install-build serve dist single-file test test-native test-wasm test-e2e test-e2e-sub size bench-web clippy clean check-data fuzz accuracy accuracy-check

all: dist

install:
	@tools/install.sh all

install-build:
	@tools/install.sh build

## serve: build and serve at http://127.0.0.1:8080 with live reload
serve: install-build
	trunk serve --offline

## dist: release bundle in dist/ (wasm-opt -Oz), with its CSP, service worker list and one-file copy.
## -Zlocation-detail=none (the release wasm only): a panic in the web app does not carry its source
## file and line: 2.8 KB brotli of path strings less; the crash panel keeps the message.
## -Zfmt-debug=none: `{:?}` prints nothing in the web app (only the catalog's build-time checks
## use it, natively), and its Debug code goes: 0.1 KB brotli.
## They are unstable flags, hence RUSTC_BOOTSTRAP=1 on the stable toolchain (as `make fuzz` does);
## Trunk's post_build hook drops it again for its native build.
## The pre-render needs a browser: Debian's Chromium is installed when it is missing (without apt
## the build goes on, with the bare frame, and tools/prerender.mjs says so).
dist: install-build
	-@tools/install.sh chromium
	RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zlocation-detail=none -Zfmt-debug=none" \
	  trunk build --release --offline --dist dist
	node tools/postbuild.mjs dist
	node tools/single_file.mjs dist dist-single/gpu-advisor.html

## single-file: dist-single/gpu-advisor.html, the whole app in one file that works from file://
single-file: dist

## Two size guards (tools/size.mjs). The first result, what a visitor loads before the answer is on
## screen, is the page with the default answer pre-rendered in it, its stylesheet and its icon: the
## app loads after the answer has painted; its budget is 150 KB brotli. The app (page, loader, glue
## and wasm: what it takes until the inputs respond) keeps a guard of 267 KB, which the pre-rendered
## answer's HTML (about 6 KB) counts toward: 280 KB until the wasm read numbers and took powers
## with the browser's own code (src/fmath.rs: Rust's f64 parser and its power-of-five tables,
## libm's pow and cbrt, 16 KB brotli less), which paid for the prefill/decode split (1.7 KB) and
## left the app at 265.6 KB. It stops further growth; it is not the goal.
## test: native cargo tests, wasm-bindgen tests in headless Chromium, Playwright end to end
test: install
	$(MAKE) --no-print-directory test-native
	$(MAKE) --no-print-directory accuracy-check
	$(MAKE) --no-print-directory clippy
	$(MAKE) --no-print-directory test-wasm
	$(MAKE) --no-print-directory dist
	node tools/size.mjs dist --budget-kb 150 --app-budget-kb 267
	$(MAKE) --no-print-directory test-e2e

test-native:
	cargo test --locked

## accuracy: the engine scored on every calibration row (nested cross-validation: every fitted
## constant refitted inside each fold; leave one GPU family, source and hardware generation out;
## bands set out of fold). Writes docs/ACCURACY.md, docs/accuracy/*.svg, data/accuracy.toml (the
## app's accuracy page), src/model/bands.rs and src/model/llm/calibrated.rs (the shipped bands and
## constants). `accuracy-check` (part of `make test`) fails when any of them differs. It runs twice:
## the "shipped" column is scored with the constants compiled in, so after a change that moves them
## the second run, built with the calibrated.rs the first wrote, brings the report to rest.
accuracy:
	cargo run --locked --quiet --profile accuracy --bin accuracy
	cargo run --locked --quiet --profile accuracy --bin accuracy

accuracy-check:
	cargo run --locked --quiet --profile accuracy --bin accuracy -- --check

test-wasm:
	cargo test --locked --target wasm32-unknown-unknown --test web

test-e2e:
	node --test --test-reporter=spec e2e/
	$(MAKE) --no-print-directory test-e2e-sub

## test-e2e-sub: the end-to-end suite against dist/ served under /gpu-advisor/ (GitHub Pages)
test-e2e-sub:
	rm -rf dist-sub && mkdir -p dist-sub && cp -r dist dist-sub/gpu-advisor
	E2E_SERVE_ROOT=$(CURDIR)/dist-sub E2E_BASE_PATH=gpu-advisor/ node --test --test-reporter=spec e2e/

## size: raw, gzip and brotli bytes of every file in dist/, then the ten largest items of the app's
## wasm by name (twiggy on a build with its names kept, in target/size; the shipped one is stripped)
size:
	@test -d dist || $(MAKE) --no-print-directory dist
	@node tools/size.mjs dist
	@tools/install.sh twiggy
	@RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zlocation-detail=none -Zfmt-debug=none" CARGO_PROFILE_RELEASE_STRIP=false \
	  CARGO_TARGET_DIR=target/size cargo build --quiet --locked --release --target wasm32-unknown-unknown --bin gpu-advisor-web
	@echo "the ten largest items of the wasm (bytes before wasm-opt and compression):"
	@twiggy top -n 40 target/size/wasm32-unknown-unknown/release/gpu-advisor-web.wasm | grep -v -E "custom section|function names|\.\.\. and|Σ" | sed -E 's/\[[0-9a-f]{16}\]//g' | cut -c1-160 | head -12

## bench-web: first load (transfer, FCP, ready, also at 4× CPU throttle, long tasks, CLS), of the
## plain address, of a shared link with other inputs and of a Russian reader's first visit, and,
## per input, input → next frame and input → answer painted (the first frame after the ranked
## options changed, the typing rest included; 2 s without a change counts as missing),
## unthrottled and at 4× CPU throttle, medians of 5 cold runs beside a static 12-line page;
## a benchmark, not a test (no timing is asserted; not part of `make test`). PEER_DIR=<a peer's
## static build> or PEER_URL=<a peer served locally> adds another calculator; JSON in
## target/bench-web.json.
bench-web: install dist
	PEER_DIR="$(PEER_DIR)" PEER_URL="$(PEER_URL)" node tools/bench-web.mjs

clippy:
	cargo clippy --locked --all-targets -- -D warnings

clean:
	cargo clean
	rm -rf dist dist-single

## check-data: list cards and models missing any optional field
check-data:
	@cargo run --quiet --locked --release --bin check-data

## fuzz: cargo-fuzz on the URL state parser, the config.json parser and the job parser (the advisor's
## key → value map and the CLI flags), FUZZ_SECONDS each (not in CI).
## New inputs go to fuzz/corpus/<target> (ignored); fuzz/seeds/<target> is the committed start.
## Crashes land in fuzz/artifacts/<target>/; replay one with
##   RUSTC_BOOTSTRAP=1 cargo fuzz run -s none <target> fuzz/artifacts/<target>/crash-...
## FUZZ_RUNS=10000000 runs each target to that many executions instead of for FUZZ_SECONDS.
## The crate has no `unsafe` code (tests/layering.rs checks), so AddressSanitizer would find
## nothing Rust's own checks miss and only cut the executions per second by about 3.5× (830 against
## 4,400 on url_state on the 2-core machine); FUZZ_SANITIZER=address turns it back on.
FUZZ_SECONDS ?= 120
FUZZ_RUNS ?=
FUZZ_SANITIZER ?= none
FUZZ_TARGETS := url_state config_json job_params
FUZZ_LIMIT = $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS))
fuzz:
	@tools/install.sh fuzz
	@mkdir -p fuzz/artifacts; status=0; \
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus/$$t; \
	  echo "[fuzz] $$t: $(FUZZ_LIMIT)"; \
	  RUSTC_BOOTSTRAP=1 cargo fuzz run -s $(FUZZ_SANITIZER) $$t fuzz/corpus/$$t fuzz/seeds/$$t -- \
	    $(FUZZ_LIMIT) -print_final_stats=1 > fuzz/artifacts/$$t.log 2>&1 \
	    || { status=1; echo "[fuzz] $$t FAILED:"; grep -E -A30 'panicked|ERROR: (libFuzzer|AddressSanitizer)' fuzz/artifacts/$$t.log | head -60; }; \
	done; \
	for t in $(FUZZ_TARGETS); do \
	  runs=$$(grep -E '^stat::number_of_executed_units' fuzz/artifacts/$$t.log | awk '{print $$2}'); \
	  done_line=$$(grep -E '^(Done [0-9]+ runs|#[0-9]+ *DONE)' fuzz/artifacts/$$t.log | tail -1); \
	  echo "[fuzz] $$t: $${runs:-?} executions ($${done_line:-no summary; see fuzz/artifacts/$$t.log})"; \
	done; \
	exit $$status
