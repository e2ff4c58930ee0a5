#!/usr/bin/env bash
# The study store on SQLite vs PostgreSQL: ingest throughput and a cohort build at 500 and
# 5,000 players, side by side (Benchmarks/store/bench_store.py, docs/benchmarks.md).
#   bash Benchmarks/store/run.sh            # results in Benchmarks/store/RESULTS.md
#   bash Benchmarks/store/run.sh --quick    # tiny sizes, results in Benchmarks/work/
# DOSSIER_BIN=path picks the binary (Benchmarks/run.sh passes its release build).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ "${1:-}" == "--quick" ]]; then
  python3 Benchmarks/store/bench_store.py --quick
else
  python3 Benchmarks/store/bench_store.py --players 500,5000 --uploads 1000 --runs 3 --out Benchmarks/store/RESULTS.md
fi
