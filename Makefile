# Dossier — the two commands that matter: `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
# DOSSIER=/path/to/dossier (environment or command line): `make demo` uses that binary and builds nothing
DOSSIER ?= .build/debug/dossier
DOSSIER_GIVEN := $(filter environment command line,$(origin DOSSIER))
PYTEST ?= python3 -m pytest
# install: where (`make install PREFIX=~/.local`), and which build (release unless CONFIG=debug)
PREFIX ?= /usr/local
CONFIG ?= release
# Debug builds (`make build`, `make test`) compile C — BoringSSL's scrypt, AES and SHA-256
# among it — at -O2 instead of SwiftPM's -O0: one scrypt unlock of a vault or keystore then
# costs 0.5 s instead of 4 s, and the end-to-end suite unlocks thousands of times. Swift code
# is unaffected (the numeric cores are optimised in Package.swift). A plain `swift build`
# works too; switching between the two rebuilds everything once.
DEBUG_FLAGS ?= -Xcc -O2
CONFIG_FLAGS = $(if $(filter debug,$(CONFIG)),$(DEBUG_FLAGS),)

.PHONY: all deps build release install demo test test-release test-swift test-e2e fuzz bench bench-quick bench-compare clean serve-demo privacy-utility soak

all: build

## deps: install missing Debian and PyPI packages listed in scripts/deps/
deps:
	@bash scripts/install-deps.sh

## build: compile the dossier command (debug)
build: deps
	$(SWIFT) build $(DEBUG_FLAGS)

# Release builds carry the Swift runtime and Foundation inside the binary: start-up
# then loads a handful of system libraries, not ~30 shared Swift ones (issue #20).
# libcurl and libvips are loaded at run time by the commands that need them.
STATIC_STDLIB = $(if $(filter release,$(CONFIG)),--static-swift-stdlib,)

## release: compile an optimised, self-contained dossier (.build/release/dossier)
release:
	$(SWIFT) build -c release --product dossier --static-swift-stdlib

## install: build (release) and copy the one file that is Dossier to $(PREFIX)/bin
install:
	$(SWIFT) build -c $(CONFIG) $(CONFIG_FLAGS) --product dossier $(STATIC_STDLIB)
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$$($(SWIFT) build -c $(CONFIG) $(CONFIG_FLAGS) --show-bin-path)/dossier" "$(DESTDIR)$(PREFIX)/bin/dossier"

## demo: build the demo project in Examples/demo and say where the site is
demo: $(if $(DOSSIER_GIVEN),,build)
	$(DOSSIER) build Examples/demo
	@echo
	@echo "The demo site is in $(CURDIR)/Examples/demo/_site — open $(CURDIR)/Examples/demo/_site/index.html"
	@echo "or preview it with: $(DOSSIER) serve Examples/demo"

## test: every test — Swift unit tests, then end-to-end tests against the debug build
## (the release binary's own checks — one self-contained file, no ICU, libcurl loaded at
## run time — need a release build, 20 minutes on two cores: `make test-release`)
test: build test-swift test-e2e

## test-release: build the static release binary, then run the tests that check it
RELEASE_TESTS = Tests/e2e/test_product.py Tests/e2e/test_release_links.py Tests/e2e/test_sms_unlock.py
test-release: release
	DOSSIER_RELEASE_BIN=$(CURDIR)/.build/release/dossier $(PYTEST) -q $(RELEASE_TESTS)

# (the PostgreSQL store's unit tests run against a server started for them: Tests/e2e/pg_server.py)
test-swift:
	python3 Tests/e2e/pg_server.py --run $(SWIFT) test $(DEBUG_FLAGS)

# (Tests/e2e/test_fuzz.py is the seeded fuzz step: FUZZ_RUNS cases per parser, about a minute.)
# (E2E_JOBS: how many pytest workers; every test is independent — own temp folders, own ports.)
E2E_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test-e2e:
	DOSSIER_RELEASE_BIN=$${DOSSIER_RELEASE_BIN:-$$(test -x .build/release/dossier && echo $(CURDIR)/.build/release/dossier)} $(PYTEST) -q $$(python3 -c 'import xdist' 2>/dev/null && echo "-n $(E2E_JOBS)") --durations=15 Tests/e2e

## fuzz: the mutation fuzzer over every parser for FUZZ_SECONDS (default 600); findings in artifacts/fuzz/
FUZZ_SECONDS ?= 600
fuzz: build
	python3 Tests/e2e/fuzzing.py --seconds $(FUZZ_SECONDS)

## bench: the side-by-side benchmarks (slow); results in Benchmarks/RESULTS.md
bench: build
	bash Benchmarks/run.sh

## bench-quick: a few seconds of each benchmark, to keep the harness working, then the harness's own slow tests
BENCH_TESTS = Tests/e2e/test_bench_compare.py Tests/e2e/test_bench_store.py
bench-quick: build
	bash Benchmarks/run.sh --quick
	DOSSIER_BENCH_TESTS=1 $(PYTEST) -q $(BENCH_TESTS)

## bench-compare: BASE=<rev> [HEAD=<rev>]: each benchmark row, head against base, run alternately (docs/benchmarks.md)
# Builds each side's static release binary (Benchmarks/build_rev.sh; one build at a time,
# cached in Benchmarks/work/bins/<commit>/); no HEAD: the working tree's .build-release.
# COMPARE_ARGS: more options of Benchmarks/compare.py (e.g. --quick, --rows pages,study).
bench-compare:
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<rev> [HEAD=<rev>] [COMPARE_ARGS=...]" >&2; exit 2; }
	base=$$(bash Benchmarks/build_rev.sh "$(BASE)") && \
	head=$$(bash Benchmarks/build_rev.sh $(if $(HEAD),"$(HEAD)",--working-tree)) && \
	python3 Benchmarks/compare.py --base "$$base" --head "$$head" --base-label "$(BASE)" \
		--head-label "$(or $(HEAD),working tree)" --out Benchmarks/work/compare.md $(COMPARE_ARGS)

## soak: the long campaigns (SOAK_RUNS runs each, default 150): publish and two-device vault sync on a faulty and on a lagging server; two publishers at every pair of steps; a 3 GB static file; every byte of a KDBX 3.1 file's last 64 flipped; two game and two recall ingests from two drops into one PostgreSQL, killed at random points
SOAK_RUNS ?= 150
soak: build
	DOSSIER_SOAK_RUNS=$(SOAK_RUNS) $(PYTEST) -q -x Tests/e2e/test_campaign_publish.py Tests/e2e/test_campaign_sync.py \
		Tests/e2e/test_campaign_lag.py Tests/e2e/test_publish_lease.py Tests/e2e/test_large_files.py \
		Tests/e2e/test_vault_limits.py Tests/e2e/test_pg_campaign.py \
		Tests/e2e/test_doc_webdav_faults.py Tests/e2e/test_doc_multi_site.py Tests/e2e/test_doc_multi_site_recall.py \
		Tests/e2e/test_doc_store_pg.py Tests/e2e/test_doc_store_pg_server.py

## privacy-utility: the public game site's error over 100 keys (a report; docs/game-privacy.md)
privacy-utility: build
	DOSSIER_PRIVACY_REPORT=$(CURDIR)/Benchmarks/game-privacy-utility.md swift test --filter GamePrivacyUtilityTests

serve-demo: $(if $(DOSSIER_GIVEN),,build)
	$(DOSSIER) serve Examples/demo

clean:
	rm -rf .build Examples/demo/_site Examples/demo/_site.manifest.json Examples/demo/.dossier
