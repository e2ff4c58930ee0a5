#!/usr/bin/env bash
# Vault benchmark: generate and score 100,000 passwords of length 64; report the mean and
# worst time per password (generate + zxcvbn-style estimate). The seed (SS6) asks for a
# mean under 10 ms and a worst case under 250 ms.
#
# Usage: Benchmarks/vault/run.sh [--quick] [--count N]
#   DOSSIER_BIN=path/to/dossier   use this binary (default: build release with DOSSIER_ONLY=vault)
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNT=100000
if [[ "${1:-}" == "--quick" ]]; then COUNT=2000; shift; fi
if [[ "${1:-}" == "--count" ]]; then COUNT="$2"; shift 2; fi
BIN="${DOSSIER_BIN:-}"
if [[ -z "$BIN" ]]; then
  DOSSIER_ONLY=vault swift build -c release --scratch-path .build-vault-release --product dossier >&2
  BIN=.build-vault-release/release/dossier
fi
OUT=$("$BIN" vault bench --count "$COUNT" --length 64 --json)
echo "$OUT"
python3 - "$OUT" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
ok = r["meanMs"] < 10 and r["worstMs"] < 250
print(f"vault: {r['count']} passwords x {r['length']} chars: mean {r['meanMs']:.3f} ms, worst {r['worstMs']:.3f} ms "
      f"(targets: mean < 10 ms, worst < 250 ms) -> {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
