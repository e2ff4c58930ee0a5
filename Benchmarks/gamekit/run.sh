#!/usr/bin/env bash
# The game kit's input latency (Benchmarks/gamekit/latency.py, docs/game-kit.md "Timing").
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 Benchmarks/gamekit/latency.py --presses "${GAMEKIT_PRESSES:-300}"
