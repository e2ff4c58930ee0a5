"""Leak test (acceptance): a vault whose every secret is a unique canary string is built
into the whole demo site; no output file, log or cache may contain any canary.

Secrets in the sense of the report: passwords, entry descriptions, note text, custom
fields, TOTP seeds, card data, password history, credentials and tokens inside website
URLs, and the local part of usernames (shown masked). Titles and websites are not secrets (the report shows them).
"""
import json
import pathlib
import re
import secrets
import subprocess

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]


def canary(kind, store):
    c = f"CANARY{kind.upper()}{secrets.token_hex(6)}"
    store.append(c)
    return c


def bitwarden_export(canaries):
    items = []
    for k in range(12):
        items.append({
            "id": f"00000000-0000-4000-8000-{k:012d}", "type": 1, "name": f"Site {k}",
            "notes": canary("notes", canaries),
            "fields": [{"name": "pin", "value": canary("field", canaries), "type": 1},
                       {"name": "plan", "value": canary("plainfield", canaries), "type": 0}],
            "login": {"username": canary("user", canaries).lower() + "@example.com",
                      "password": canary("pw", canaries) + ("!Aa1" if k % 2 else ""),
                      "totp": canary("totp", canaries),
                      "uris": [{"match": None, "uri": f"{'http' if k % 3 == 0 else 'https'}://site{k}.example.com" if k % 4
                                else f"https://u:{canary('urlpw', canaries)}@site{k}.example.com/login?token={canary('urltoken', canaries)}"},
                               {"match": None, "uri": f"https://v:{canary('uri2pw', canaries)}@alt{k}.example.com/?k={canary('uri2tok', canaries)}#{canary('uri2frag', canaries)}"}]},
            "passwordHistory": [{"password": canary("hist", canaries), "lastUsedDate": "2020-01-01T00:00:00.000Z"}],
            "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2023-01-01T00:00:00.000Z",
        })
    reused = canary("reused", canaries)
    for k in range(3):
        items.append({"id": f"00000000-0000-4000-9000-{k:012d}", "type": 1, "name": f"Reuse {k}", "notes": None,
                      "login": {"username": "", "password": reused, "uris": []},
                      "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2021-01-01T00:00:00.000Z"})
    for k in range(3):
        items.append({"id": f"00000000-0000-4000-a000-{k:012d}", "type": 2, "name": f"Note {k}",
                      "notes": canary("note", canaries) + "\nsecond line " + canary("note2", canaries),
                      "secureNote": {"type": 0},
                      "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2021-01-01T00:00:00.000Z"})
    items.append({"id": "00000000-0000-4000-b000-000000000001", "type": 3, "name": "Card", "notes": canary("cardnote", canaries),
                  "card": {"number": canary("card", canaries), "code": canary("cvv", canaries)},
                  "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2021-01-01T00:00:00.000Z"})
    return {"encrypted": False, "folders": [], "items": items}


def keepass_export(canaries):
    """An entry excluded from reports (its title too must appear nowhere in reports) and
    one expiring, with a TOTP, a hidden and a plain field and a history password."""
    def entry(uuid, title, quality, expiry):
        return f"""<Entry><UUID>{uuid}</UUID>{quality}
  <Times><CreationTime>2021-01-01T00:00:00Z</CreationTime><LastModificationTime>2025-01-01T00:00:00Z</LastModificationTime>
   <ExpiryTime>{expiry}</ExpiryTime><Expires>True</Expires></Times>
  <String><Key>Title</Key><Value>{title}</Value></String><String><Key>UserName</Key><Value>kp</Value></String>
  <String><Key>Password</Key><Value>{canary("kppw", canaries)}</Value></String>
  <String><Key>URL</Key><Value>https://kp.example.com</Value></String>
  <String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/k?secret={canary("kptotp", canaries)}</Value></String>
  <String><Key>PIN</Key><Value ProtectInMemory="True">{canary("kphidden", canaries)}</Value></String>
  <String><Key>Plan</Key><Value>{canary("kpplain", canaries)}</Value></String>
  <History><Entry><UUID>{uuid}</UUID><Times><LastModificationTime>2024-01-01T00:00:00Z</LastModificationTime></Times>
   <String><Key>Password</Key><Value>{canary("kphist", canaries)}</Value></String></Entry></History>
 </Entry>"""
    excluded_title = canary("excludedtitle", canaries)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<KeePassFile><Root><Group><UUID>AQAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Root</Name>
{entry("AgAAAAAAAAAAAAAAAAAAAA==", excluded_title, "<QualityCheck>False</QualityCheck>", "2025-05-01T00:00:00Z")}
{entry("AwAAAAAAAAAAAAAAAAAAAA==", "Expiring KP", "", "2025-06-10T00:00:00Z")}
</Group></Root></KeePassFile>
"""


def test_no_canary_leaves_the_vault(run_dossier, dossier_bin, demo_copy, tmp_path):
    # the whole demo needs every domain: a binary built with DOSSIER_ONLY cannot build it
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    if not all(re.search(rf"^\s+{d}\b", out, re.M) for d in ["recall", "experiences", "vault", "sms", "game"]):
        pytest.skip("this dossier binary was built without every domain (DOSSIER_ONLY)")
    canaries = []
    master = canary("master", canaries)
    export = tmp_path / "export.json"
    export.write_text(json.dumps(bitwarden_export(canaries)), encoding="utf-8")
    vault_dir = demo_copy / "data" / "vault"
    vault_dir.mkdir(parents=True, exist_ok=True)
    vault = vault_dir / "canary.dvault"
    env = {"DOSSIER_VAULT_PASSWORD": master}
    kp = tmp_path / "keepass.xml"
    kp.write_text(keepass_export(canaries), encoding="utf-8")
    logs = [run_dossier("vault", "init", vault, env=env), run_dossier("vault", "import", vault, export, env=env),
            run_dossier("vault", "import", vault, kp, env=env)]
    # list and show without --reveal, and an export's own messages (not its file)
    # (they show titles and usernames as stored, by design: docs/vault-cli.md)
    listings = [run_dossier("vault", "list", vault, env=env), run_dossier("vault", "list", vault, "--json", env=env),
                run_dossier("vault", "show", vault, "Site 0", env=env), run_dossier("vault", "show", vault, "Expiring KP", env=env)]
    logs.append(run_dossier("vault", "export", vault, "--format", "bitwarden-json", "--output", tmp_path / "out.json", "--yes", env=env))
    excluded_title = next(c for c in canaries if c.startswith("CANARYEXCLUDEDTITLE"))
    # the excluded entry's title is not a secret: it may be listed by `list`, not in reports
    report_only = [excluded_title]

    manifest = demo_copy / "dossier.yml"
    config = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    config["vault"] = {"vault": "data/vault/canary.dvault", "password_env": "CANARY_VAULT_PASSWORD", "as_of": "2025-06-01"}
    manifest.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    logs.append(run_dossier("build", demo_copy, env={"CANARY_VAULT_PASSWORD": master}))
    logs.append(run_dossier("vault", "report", vault, "--json", env=env))

    site = demo_copy / "_site"
    assert (site / "vault" / "index.html").exists()
    health = json.loads((site / "vault" / "health.json").read_text(encoding="utf-8"))
    assert health["counts"]["entries"] == 16           # the excluded KeePass entry is not counted …
    assert health["counts"]["excluded"] == 1           # … only this says it exists
    assert health["counts"]["reuseGroups"] == 1
    assert health["counts"]["expiring"] == 1 and [r["title"] for r in health["expiring"]] == ["Expiring KP"]

    texts = {f"log {k}": p.stdout + p.stderr for k, p in enumerate(logs)}
    secrets_only = [c for c in canaries if c not in report_only]
    shown_by_list = [c for c in secrets_only if not c.startswith("CANARYUSER")]
    for k, p in enumerate(listings):
        found = [c for c in shown_by_list if c.lower() in (p.stdout + p.stderr).lower()]
        assert not found, (k, found[:5])
    for root in [site, demo_copy / ".dossier"]:
        if root.exists():
            for f in root.rglob("*"):
                if f.is_file():
                    texts[str(f)] = f.read_bytes().decode("utf-8", errors="replace")
    for f in demo_copy.glob("_site*.json"):
        texts[str(f)] = f.read_text(encoding="utf-8", errors="replace")
    assert len(texts) > 5
    leaks = [(c, name) for name, text in texts.items() for c in secrets_only
             if c in text or c.lower() in text.lower()]
    assert not leaks, leaks[:5]
    reports = {n: t for n, t in texts.items() if not n.startswith("log ")} | {"vault report": logs[-1].stdout}
    listed = [(c, n) for n, t in reports.items() for c in report_only if c.lower() in t.lower()]
    assert not listed, listed[:5]
