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

.PHONY: all deps build release install demo test test-swift test-e2e fuzz bench bench-quick bench-compare clean serve-demo privacy-utility soak

all: build

## deps: install missing Debian and PyPI packages listed in scripts/deps/
deps:
	@bash scripts/install-deps.sh

## build: compile the dossier command (debug)
build: deps
	$(SWIFT) build

# Release builds carry the Swift runtime and Foundation inside the binary: start-up
# then loads a handful of system libraries, not ~30 shared Swift ones (issue #20).
# libcurl and libvips are loaded at run time by the commands that need them.
STATIC_STDLIB = $(if $(filter release,$(CONFIG)),--static-swift-stdlib,)

## release: compile an optimised, self-contained dossier (.build/release/dossier)
release:
	$(SWIFT) build -c release --product dossier --static-swift-stdlib

## install: build (release) and copy the one file that is Dossier to $(PREFIX)/bin
install:
	$(SWIFT) build -c $(CONFIG) --product dossier $(STATIC_STDLIB)
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$$($(SWIFT) build -c $(CONFIG) --show-bin-path)/dossier" "$(DESTDIR)$(PREFIX)/bin/dossier"

## demo: build the demo project in Examples/demo and say where the site is
demo: $(if $(DOSSIER_GIVEN),,build)
	$(DOSSIER) build Examples/demo
	@echo
	@echo "The demo site is in $(CURDIR)/Examples/demo/_site — open $(CURDIR)/Examples/demo/_site/index.html"
	@echo "or preview it with: $(DOSSIER) serve Examples/demo"

## test: every test — Swift unit tests, then end-to-end tests against the built binary
## (the release build is made once, for the one-binary install tests of test_product.py)
test: build release test-swift test-e2e

# (the PostgreSQL store's unit tests run against a server started for them: Tests/e2e/pg_server.py)
test-swift:
	python3 Tests/e2e/pg_server.py --run $(SWIFT) test

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

## bench-quick: a few seconds of each benchmark, to keep the harness working
bench-quick: build
	bash Benchmarks/run.sh --quick

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
		Tests/e2e/test_doc_webdav_faults.py

## privacy-utility: the public game site's error over 100 keys (a report; docs/game-privacy.md)
privacy-utility: build
	DOSSIER_PRIVACY_REPORT=$(CURDIR)/Benchmarks/game-privacy-utility.md swift test --filter GamePrivacyUtilityTests

serve-demo: $(if $(DOSSIER_GIVEN),,build)
	$(DOSSIER) serve Examples/demo

clean:
	rm -rf .build Examples/demo/_site Examples/demo/_site.manifest.json Examples/demo/.dossier
