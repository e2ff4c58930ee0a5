#!/usr/bin/env bash
# Publish benchmark: `dossier publish` vs `rclone sync` of a 10,000-file site to a local
# wsgidav server, then after one change (docs/publish.md). Results: Benchmarks/publish/RESULTS.md.
#   bash Benchmarks/publish/run.sh            # 10,000 files
#   bash Benchmarks/publish/run.sh --quick    # 300 files, results in Benchmarks/work/
# DOSSIER_BIN=path picks the binary (default .build/debug/dossier).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c "import wsgidav, cheroot" 2>/dev/null || pip install -q wsgidav cheroot
command -v rclone >/dev/null || { apt-get install -y -q rclone >/dev/null 2>&1 || echo "publish bench: rclone not available; dossier only" >&2; }
if [[ "${1:-}" == "--quick" ]]; then
  python3 Benchmarks/publish/bench_publish.py --files 300 --out Benchmarks/work/publish-RESULTS-quick.md
else
  python3 Benchmarks/publish/bench_publish.py --files 10000 --out Benchmarks/publish/RESULTS.md
fi
