#!/usr/bin/env bash
# Dossier's side-by-side benchmarks (issue #8): `make bench` runs this, `make bench-quick`
# runs it with --quick. See docs/benchmarks.md.
#
#   bash Benchmarks/run.sh           # every benchmark at full size (release build;
#                                    # tens of minutes), results in Benchmarks/RESULTS.md,
#                                    # then every Benchmarks/<other>/run.sh
#   bash Benchmarks/run.sh --quick   # tiny sizes, one run each (a few seconds): checks the
#                                    # harness runs and that the pandas peer and Dossier
#                                    # agree on the numbers; results in Benchmarks/work/
#
# DOSSIER_BENCH_BIN=path   time this binary instead (full mode builds
#                          `swift build -c release --static-swift-stdlib --scratch-path
#                          .build-release`, the binary `make install` ships: a plain
#                          release build loads the shared Foundation and its ICU);
#                          quick mode uses $DOSSIER_BIN or .build/debug/dossier).
# Generated data lives in Benchmarks/work/ (git-ignored; delete it to regenerate).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1

for tool in hugo cmark-gfm python3 cc pkg-config; do
  command -v "$tool" >/dev/null || { echo "bench: '$tool' is missing (make deps installs it)" >&2; exit 1; }
done
python3 -c "import pandas, polars" 2>/dev/null || { echo "bench: pandas or polars is missing (make deps installs them)" >&2; exit 1; }

if [[ $quick == 1 ]]; then
  bin="${DOSSIER_BENCH_BIN:-${DOSSIER_BIN:-.build/debug/dossier}}"
  [[ -x "$bin" ]] || { echo "bench: no dossier binary at $bin (run swift build)" >&2; exit 1; }
  export DOSSIER_BENCH_BIN="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
  export BENCH_RESULTS="$PWD/Benchmarks/work/results-quick"
  rm -rf "$BENCH_RESULTS"
  python3 Benchmarks/bench.py agree --participants 6
  python3 Benchmarks/bench.py agree --participants 6 --peer polars
  python3 Benchmarks/bench.py pages --pages 100 --runs 1
  python3 Benchmarks/bench.py failing --pages 100 --runs 1
  python3 Benchmarks/site_size.py --pages 200
  python3 Benchmarks/bench.py markdown --mb 1 --runs 1
  python3 Benchmarks/bench.py study --participants 8 --runs 1
  python3 Benchmarks/bench.py incremental --participants 4,8 --runs 1
  python3 Benchmarks/bench.py startup --runs 3
  python3 Benchmarks/bench.py memory --participants 4,8 --runs 1
  python3 Benchmarks/bench.py report --out Benchmarks/work/RESULTS-quick.md
  python3 Benchmarks/store/bench_store.py --quick   # SQLite vs PostgreSQL (Benchmarks/store/)
  exit 0
fi

if [[ -z "${DOSSIER_BENCH_BIN:-}" ]]; then
  swift build -c release --static-swift-stdlib --scratch-path .build-release
  export DOSSIER_BENCH_BIN="$PWD/.build-release/release/dossier"
fi
echo "Machine: $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 Benchmarks/bench.py agree --participants 12
python3 Benchmarks/bench.py agree --participants 12 --peer polars
python3 Benchmarks/bench.py markdown --mb 20 --runs 15
python3 Benchmarks/bench.py pages --pages 10000 --runs 5
python3 Benchmarks/bench.py failing --pages 10000 --runs 5
python3 Benchmarks/site_size.py --pages 2000
python3 Benchmarks/site_size.py --pages 20000
python3 Benchmarks/bench.py startup --runs 101
python3 Benchmarks/bench.py study --participants 10000 --runs 1 --tuned-only
python3 Benchmarks/bench.py study --participants 500 --runs 3 --tuned-only
python3 Benchmarks/bench.py study --participants 2000 --runs 3
python3 Benchmarks/bench.py incremental --participants 500,1000,2000 --runs 5
python3 Benchmarks/bench.py memory --participants 500,1000,2000
python3 Benchmarks/bench.py report

# Benchmarks other engineers add (Benchmarks/<name>/run.sh): full mode only; a missing
# one is fine, a failing one is reported and does not stop the others.
failed=()
for extra in Benchmarks/*/run.sh; do
  [[ -e "$extra" ]] || continue
  [[ "$extra" == Benchmarks/work/* || "$extra" == Benchmarks/peers/* ]] && continue
  echo "== $extra"
  DOSSIER_BIN="$DOSSIER_BENCH_BIN" bash "$extra" || failed+=("$extra")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "bench: these benchmarks failed or missed their goal: ${failed[*]}" >&2
  exit 1
fi
