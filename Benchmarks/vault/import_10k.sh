#!/bin/sh
# Times `dossier vault import` of a generated 10,000-item Bitwarden JSON export (every
# item with creation and revision dates) into a PBKDF2 vault (docs/vault-import.md).
# Usage: Benchmarks/vault/import_10k.sh   (DOSSIER_BIN overrides .build/release/dossier)
set -eu
BIN=${DOSSIER_BIN:-.build/release/dossier}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 - "$T/bw.json" <<'PY'
import json, sys, uuid
items = [{"id": str(uuid.UUID(int=k + 1)), "type": 1, "name": f"Site {k}", "notes": f"n{k}",
          "login": {"username": f"u{k}", "password": f"p{k}-x", "uris": [{"uri": f"https://s{k}.example.com"}]},
          "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2023-05-06T07:08:09.123Z"} for k in range(10000)]
json.dump({"encrypted": False, "folders": [], "items": items}, open(sys.argv[1], "w"))
# the same with every field the item model keeps since issue #17's fidelity work
for k, it in enumerate(items):
    it["login"].update(totp=f"otpauth://totp/s{k}?secret=JBSWY3DPEHPK3PXP", uris=it["login"]["uris"] + [{"uri": f"https://m.s{k}.example.com"}])
    it.update(favorite=k % 2 == 0, reprompt=k % 3 == 0,
              fields=[{"name": "PIN", "value": f"{k:04d}", "type": 1}, {"name": "plan", "value": "gold", "type": 0}],
              passwordHistory=[{"lastUsedDate": "2022-01-01T00:00:00.000Z", "password": f"old{k}"}])
json.dump({"encrypted": False, "folders": [], "items": items}, open(sys.argv[1].replace("bw.json", "bw-rich.json"), "w"))
PY
export DOSSIER_VAULT_PASSWORD="benchmark master phrase 10k"
"$BIN" vault init "$T/v.dvault" --kdf pbkdf2 >/dev/null
"$BIN" vault init "$T/rich.dvault" --kdf pbkdf2 >/dev/null
python3 - "$BIN" "$T" <<'PY'
import resource, subprocess, sys, time
bin, t = sys.argv[1], sys.argv[2]
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def run(*args):
    c0, w0 = cpu(), time.monotonic()
    subprocess.run([bin, "vault", *args], check=True, capture_output=True)
    return cpu() - c0, time.monotonic() - w0
unlock = run("list", f"{t}/v.dvault")
full = run("import", f"{t}/v.dvault", f"{t}/bw.json")
print(f"10,000-item Bitwarden JSON import: {full[0]:.2f} s CPU ({full[1]:.2f} s wall); "
      f"of which unlock + process start ≈ {unlock[0]:.2f} s CPU")
rich = run("import", f"{t}/rich.dvault", f"{t}/bw-rich.json")
print(f"the same with TOTP, 2 fields, 2 URIs, history and flags per item: {rich[0]:.2f} s CPU ({rich[1]:.2f} s wall)")
PY
