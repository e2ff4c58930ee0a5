#!/bin/sh
# Writes legacy-v1.dvault: a vault made by the code BEFORE the item model gained TOTP,
# custom fields, extra URIs, history, tags, expiry and flags (main at bc24902).
# Kept so VaultFileTests.legacyVaultOpens proves that such a file still opens and keeps
# every item. Run it with a `dossier` binary built from that commit:
#   git worktree add /tmp/legacy bc24902 && (cd /tmp/legacy && swift build --product dossier)
#   DOSSIER=/tmp/legacy/.build/debug/dossier sh make-legacy-vault.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${DOSSIER:?set DOSSIER to a dossier binary built from bc24902}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export DOSSIER_VAULT_PASSWORD='legacy fixture: correct horse battery staple'
v="$tmp/legacy-v1.dvault"
"$bin" vault init "$v"
DOSSIER_ENTRY_PASSWORD='legacy-Pass-1' "$bin" vault add "$v" --title 'Legacy mail' --username jo@example.com --website https://mail.example.com
DOSSIER_ENTRY_PASSWORD='legacy-Pass-2' "$bin" vault add "$v" --title 'Gone' --username x
"$bin" vault rm "$v" Gone
printf 'legacy note text' | "$bin" vault note "$v" --title 'Legacy note'
cat > "$tmp/bw.json" <<'JSON'
{"encrypted": false, "folders": [{"id": "f1", "name": "Work"}],
 "items": [{"id": "0f8e1a52-2d4b-4a3e-9c1d-7a0b3c4d5e99", "type": 1, "name": "Legacy import", "folderId": "f1",
            "notes": "legacy details", "creationDate": "2024-01-02T03:04:05.678Z", "revisionDate": "2024-02-03T04:05:06.789Z",
            "login": {"username": "imp", "password": "legacy-Pass-3", "uris": [{"uri": "http://old.example.org"}]}}]}
JSON
"$bin" vault import "$v" "$tmp/bw.json"
cp "$v" "$here/legacy-v1.dvault"
echo "wrote $here/legacy-v1.dvault"
