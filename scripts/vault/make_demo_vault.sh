#!/usr/bin/env bash
# Rebuild the demo vault Examples/demo/data/vault/demo.dvault from scripts/vault/demo-export.json
# (synthetic data) with the demo master password in Examples/demo/data/vault/demo-password.txt.
# Usage: scripts/vault/make_demo_vault.sh [path/to/dossier]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-.build/debug/dossier}"
DIR=Examples/demo/data/vault
rm -f "$DIR/demo.dvault"
export DOSSIER_VAULT_PASSWORD="$(head -n1 "$DIR/demo-password.txt")"
"$BIN" vault init "$DIR/demo.dvault"
"$BIN" vault import "$DIR/demo.dvault" scripts/vault/demo-export.json
