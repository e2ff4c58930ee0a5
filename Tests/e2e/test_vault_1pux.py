"""1Password 1PUX import (issue #17): a zip with export.data written here, imported by
`dossier vault import`, every kept field compared and what is not kept counted."""
import json
import re
import subprocess
import zipfile

import pytest

MASTER = {"DOSSIER_VAULT_PASSWORD": "onepux e2e master phrase"}


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+vault\b", out, re.M):
        pytest.skip("this dossier binary was built without the vault domain")


def export_data():
    login = {
        "uuid": "aaaa", "favIndex": 1, "createdAt": 1600000000, "updatedAt": 1700000000, "state": "active", "categoryUuid": "001",
        "overview": {"title": "Mail", "url": "https://mail.example.com", "tags": ["work"],
                     "urls": [{"label": "", "url": "https://mail.example.com"}, {"label": "alt", "url": "https://m.example.com"}]},
        "details": {"loginFields": [{"value": "jo@example.com", "name": "username", "fieldType": "T", "designation": "username"},
                                    {"value": "op-Pass-ü1", "name": "password", "fieldType": "P", "designation": "password"}],
                    "notesPlain": "first\nsecond",
                    "sections": [{"title": "", "fields": [{"title": "one-time password", "id": "TOTP_1", "value": {"totp": "otpauth://totp/x?secret=AAAA"}},
                                                          {"title": "PIN", "id": "pin", "value": {"concealed": "1234"}}]}],
                    "passwordHistory": [{"value": "old-pw", "time": 1650000000}],
                    "documentAttributes": {"fileName": "scan.pdf", "documentId": "d1"}},
    }
    note = {"uuid": "bbbb", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000500, "state": "active", "categoryUuid": "003",
            "overview": {"title": "Wifi"}, "details": {"notesPlain": "wpa: secret-note-text"}}
    card = {"uuid": "cccc", "state": "active", "categoryUuid": "002", "overview": {"title": "Card"}, "details": {}}
    archived = dict(login, uuid="dddd", state="archived")
    return {"accounts": [{"attrs": {"name": "Jo"}, "vaults": [{"attrs": {"uuid": "v1", "name": "Private"},
                                                               "items": [login, note, card, archived]}]}]}


def test_1pux_imports_and_counts_what_it_does_not_keep(run_dossier, tmp_path):
    pux = tmp_path / "export.1pux"
    with zipfile.ZipFile(pux, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("export.attributes", json.dumps({"version": 3}))
        z.writestr("export.data", json.dumps(export_data()))
    v = tmp_path / "v.dvault"
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", env=MASTER)
    out = run_dossier("vault", "import", v, pux, env=MASTER).stdout
    assert "1password-1pux: imported 2 new" in out
    for line in ["skipped 1 archived item(s)", "skipped 1 credit card item(s)", "not kept: 1 attachment",
                 "attachment not kept: Mail / scan.pdf"]:
        assert line in out, out
    assert out.count("not kept:") == 2, out   # TOTP, fields, URLs, history, tags, favourite are kept
    items = {i["title"]: i for i in json.loads(run_dossier("vault", "list", v, "--reveal", "--json", env=MASTER).stdout)}
    mail, wifi = items["Mail"], items["Wifi"]
    assert (mail["kind"], mail["username"], mail["password"], mail["website"], mail["details"], mail["folder"]) == \
        ("entry", "jo@example.com", "op-Pass-ü1", "https://mail.example.com", "first\nsecond", "Private")
    assert mail["created"].startswith("2020-09-13T12:26:40") and mail["modified"].startswith("2023-11-14T22:13:20")
    assert (wifi["kind"], wifi["text"], wifi["folder"]) == ("note", "wpa: secret-note-text", "Private")
    assert mail["totp"] == "otpauth://totp/x?secret=AAAA" and mail["uris"] == ["https://m.example.com"]
    assert mail["fields"] == [{"name": "PIN", "hidden": True, "value": "1234"}]
    assert [h["password"] for h in mail["history"]] == ["old-pw"] and mail["history"][0]["changed"].startswith("2022-04-15")
    assert mail["tags"] == ["work"] and mail["favorite"] and not wifi["favorite"]


def test_damaged_1pux_is_a_clear_error(run_dossier, tmp_path):
    pux = tmp_path / "export.1pux"
    with zipfile.ZipFile(pux, "w") as z:
        z.writestr("export.data", "{not json")
    v = tmp_path / "v.dvault"
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", env=MASTER)
    r = run_dossier("vault", "import", v, pux, env=MASTER, check=False)
    assert r.returncode == 1 and "not 1PUX JSON" in r.stderr and str(pux) in r.stderr
