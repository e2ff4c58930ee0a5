"""Health-report checks of issue #17 through the real binary: the section's
`expiring_days` / `missing_totp` options and `vault report --expiring-days /
--no-missing-totp`, with an excluded entry that appears nowhere (docs/vault-report.md)."""
import base64
import json
import re
import subprocess
import uuid

import pytest


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+vault\b", out, re.M):
        pytest.skip("this dossier binary was built without the vault domain")


def entry(k, title, expiry=None, totp=False, excluded=False):
    u = base64.b64encode(uuid.UUID(int=k).bytes).decode()
    times = f"<ExpiryTime>{expiry}</ExpiryTime><Expires>True</Expires>" if expiry else ""
    otp = "<String><Key>otp</Key><Value>otpauth://totp/x?secret=JBSWY3DPEHPK3PXP</Value></String>" if totp else ""
    return (f"<Entry><UUID>{u}</UUID>{'<QualityCheck>False</QualityCheck>' if excluded else ''}"
            f"<Times><LastModificationTime>2025-12-01T00:00:00Z</LastModificationTime>{times}</Times>"
            f"<String><Key>Title</Key><Value>{title}</Value></String><String><Key>UserName</Key><Value>jo</Value></String>"
            f"<String><Key>Password</Key><Value>Unique-{k}-Passphrase-Zq8!</Value></String>"
            f"<String><Key>URL</Key><Value>https://s{k}.example.com</Value></String>{otp}</Entry>")


def keepass(path):
    es = [entry(1, "Past", expiry="2025-12-20T00:00:00Z", totp=True), entry(2, "In ten days", expiry="2026-01-11T00:00:00Z", totp=True),
          entry(3, "No TOTP"), entry(4, "Excluded one", expiry="2025-01-01T00:00:00Z", excluded=True)]
    path.write_text('<?xml version="1.0"?><KeePassFile><Root><Group><Name>Root</Name>' + "".join(es)
                    + "</Group></Root></KeePassFile>", encoding="utf-8")


def test_section_options_and_report_flags(run_dossier, tmp_path):
    (tmp_path / "data").mkdir()
    keepass(tmp_path / "data" / "kp.xml")
    (tmp_path / "dossier.yml").write_text("title: T\nbase_url: https://e.org/\noutput: _site\nvault:\n  import: data/kp.xml\n"
                                          "  as_of: 2026-01-01\n  expiring_days: 5\n  missing_totp: false\n", encoding="utf-8")
    run_dossier("build", tmp_path)
    h = json.loads((tmp_path / "_site" / "vault" / "health.json").read_text(encoding="utf-8"))
    c = h["counts"]
    assert (c["entries"], c["excluded"], c["expired"], c["expiring"], c["missingTOTP"]) == (3, 1, 1, 0, 0)
    assert [r["title"] for r in h["problems"]] == ["Past"] and h["problems"][0]["severity"] == "high"
    site = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "_site").rglob("*") if p.suffix in (".html", ".csv", ".json"))
    assert "Excluded one" not in site
    assert "expires" in (tmp_path / "_site" / "vault" / "health.csv").read_text(encoding="utf-8-sig").splitlines()[0]

    r = json.loads(run_dossier("vault", "report", tmp_path / "data" / "kp.xml", "--export", "--as-of", "2026-01-01",
                               "--expiring-days", "30", "--json").stdout)
    assert (r["counts"]["expiring"], r["counts"]["missingTOTP"]) == (1, 1)
    assert [x["title"] for x in r["problems"]] == ["Past", "In ten days", "No TOTP"]
    assert [x["severity"] for x in r["problems"]] == ["high", "medium", "low"]
    r = json.loads(run_dossier("vault", "report", tmp_path / "data" / "kp.xml", "--export", "--as-of", "2026-01-01",
                               "--no-missing-totp", "--json").stdout)
    assert r["counts"]["missingTOTP"] == 0 and "Excluded one" not in json.dumps(r)
    bad = run_dossier("vault", "report", tmp_path / "data" / "kp.xml", "--export", "--expiring-days", "-1", check=False)
    assert bad.returncode != 0 and "expiring-days" in bad.stderr


def test_edit_sets_expiry_tags_and_the_exclude_flag(run_dossier, tmp_path):
    env = {"DOSSIER_VAULT_PASSWORD": "checks e2e master phrase 42", "DOSSIER_ENTRY_PASSWORD": "Unique-Edit-Passphrase-Zq8!"}
    vault = tmp_path / "v.dvault"
    run_dossier("vault", "init", vault, "--kdf", "pbkdf2", env=env)
    for t in ("Kept", "Hidden"):
        run_dossier("vault", "add", vault, "--title", t, "--username", "jo", "--website", f"https://{t.lower()}.example.com", env=env)
    run_dossier("vault", "edit", vault, "Kept", "--expires", "2026-01-10", "--tags", "a, b;a", "--favorite", "true", env=env)
    run_dossier("vault", "edit", vault, "Hidden", "--exclude-from-reports", "true", env=env)
    items = {i["title"]: i for i in json.loads(run_dossier("vault", "list", vault, "--json", env=env).stdout)}
    assert items["Kept"]["expires"].startswith("2026-01-10T00:00:00") and items["Kept"]["tags"] == ["a", "b"]
    assert items["Kept"]["favorite"] and items["Hidden"]["excludeFromReports"]
    r = json.loads(run_dossier("vault", "report", vault, "--as-of", "2026-01-01", "--json", env=env).stdout)
    assert r["counts"]["entries"] == 1 and r["counts"]["excluded"] == 1 and r["counts"]["expiring"] == 1
    run_dossier("vault", "edit", vault, "Kept", "--expires", "never", env=env)
    assert "expires" not in {i["title"]: i for i in json.loads(run_dossier("vault", "list", vault, "--json", env=env).stdout)}["Kept"]
