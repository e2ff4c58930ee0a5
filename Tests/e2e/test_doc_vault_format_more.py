"""docs/vault-format.md (refusals, NFC, saving) and docs/vault-import.md "Export", from the docs alone.

Bytes of vaults written by the documented writer in test_doc_vault_format.py are flipped and
cut; the refusals must come in the documented order with the documented words. Exports are
parsed and compared with the documented Bitwarden JSON / KeePass XML layout.
"""
import base64
import datetime
import json
import re
import resource
import signal
import struct
import subprocess
import uuid
import xml.etree.ElementTree as ET

import pytest

from conftest import dossier_path
from test_doc_vault_format import (MASTER, canon, decrypt, dv, encode_vault, listed, make_item,  # noqa: F401
                                   read_vault, split_file, write_vault)

WRONG = "wrong master password (or the vault header was altered)"
DAMAGED = "damaged or was altered"


def small_vault(tmp_path):
    return write_vault(tmp_path / "v.dvault", [make_item(title="T", password="tamper-Pass-1")])


def refused(dv, vault, text, password=MASTER):
    before = vault.read_bytes()
    proc = dv("list", vault, ok=1, password=password)
    assert text in proc.stderr, proc.stderr
    assert vault.read_bytes() == before
    return proc


def test_wrong_password(tmp_path, dv):
    refused(dv, small_vault(tmp_path), WRONG, password="Not-The-Master-Password-5")


def test_bad_magic(tmp_path, dv):
    vault = small_vault(tmp_path)
    vault.write_bytes(b"DOSSIERX" + vault.read_bytes()[8:])
    refused(dv, vault, "not a Dossier vault file")


def test_truncation_points(tmp_path, dv):
    vault = small_vault(tmp_path)
    data = vault.read_bytes()
    n = struct.unpack(">I", data[8:12])[0]
    for cut in (10, 12 + n - 1, 12 + n + 31, 44 + n + 27):
        vault.write_bytes(data[:cut])
        refused(dv, vault, "truncated")


@pytest.mark.parametrize("where", ["header", "mac"])
def test_header_or_mac_flip_is_wrong_password(tmp_path, dv, where):
    vault = small_vault(tmp_path)
    data = bytearray(vault.read_bytes())
    header, hdr, _, _ = split_file(bytes(data))
    if where == "header":
        pos = 12 + header.index(hdr["vaultID"].encode()) + 3
        data[pos] = ord("A") if data[pos] != ord("A") else ord("B")
    else:
        data[12 + len(header) + 5] ^= 0x01
    vault.write_bytes(bytes(data))
    refused(dv, vault, WRONG)


@pytest.mark.parametrize("change", ["nonce", "ciphertext", "tag", "extra"])
def test_body_changes_are_damaged(tmp_path, dv, change):
    vault = small_vault(tmp_path)
    data = bytearray(vault.read_bytes())
    n = struct.unpack(">I", data[8:12])[0]
    if change == "extra":
        data += b"\x00"
    else:
        data[{"nonce": 44 + n + 3, "ciphertext": 44 + n + 20, "tag": len(data) - 1}[change]] ^= 0x80
    vault.write_bytes(bytes(data))
    refused(dv, vault, DAMAGED)


@pytest.mark.parametrize("field,value", [("format", 2), ("cipher", "AES-128-GCM")])
def test_unknown_header_version_or_cipher_refused(tmp_path, dv, field, value):
    header = {"cipher": "AES-256-GCM", "format": 1, "vaultID": str(uuid.uuid4()).upper(),
              "kdf": {"algorithm": "scrypt", "logN": 10, "p": 1, "r": 8, "rounds": 0,
                      "salt": base64.b64encode(b"s" * 32).decode()}}
    header[field] = value
    vault = tmp_path / "v.dvault"
    vault.write_bytes(encode_vault([make_item(title="X")], header=header))
    proc = dv("list", vault, ok=1)
    assert WRONG not in proc.stderr, "header JSON and version are checked before the MAC"


NFC_PW = "Caf\u00e9-Lantern-Mosaic-91-ziggurat"
NFD_PW = "Cafe\u0301-Lantern-Mosaic-91-ziggurat"


def test_nfc_password_forms_open_the_same_vault(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault", [make_item(title="Nfc")], password=NFC_PW)
    for typed in (NFC_PW, NFD_PW):
        proc = dv("list", vault, "--json", password=typed)
        assert [r["title"] for r in json.loads(proc.stdout)] == ["Nfc"]


def test_program_keys_from_nfc(tmp_path, dv):
    vault = tmp_path / "v.dvault"
    dv("init", vault, "--kdf", "pbkdf2", password=NFD_PW)
    _, payload, _ = decrypt(vault.read_bytes(), NFC_PW, nfc=False)
    assert payload == {"format": 1, "items": []}


def test_legacy_typed_bytes_vault_still_opens(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault", [make_item(title="Legacy")], password=NFD_PW, nfc=False)
    proc = dv("list", vault, "--json", password=NFD_PW)
    assert [r["title"] for r in json.loads(proc.stdout)] == ["Legacy"]


def test_lock_file_names_holder(tmp_path, dv):
    vault = small_vault(tmp_path)
    dv("add", vault, "--title", "L", env={"DOSSIER_ENTRY_PASSWORD": "l-1"})
    lock = tmp_path / "v.dvault.lock"
    assert re.fullmatch(r"\d+ vault add\n", lock.read_text())
    assert (lock.stat().st_mode & 0o777) == 0o600


def _limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (600, 600))


def test_failed_save_leaves_file_as_it_was(tmp_path):
    vault = small_vault(tmp_path)
    before = vault.read_bytes()
    assert len(before) < 600
    env = {"DOSSIER_VAULT_PASSWORD": MASTER}
    proc = subprocess.run([dossier_path(), "vault", "note", str(vault), "--title", "Big"], input="x" * 5000,
                          env=env, capture_output=True, text=True, timeout=60, preexec_fn=_limit_file_size)
    assert proc.returncode == 1, proc.stderr
    assert re.search(r"cannot write the file: .+; the file on disk is as it was", proc.stderr), proc.stderr
    assert vault.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.dvault", "v.dvault.lock"]


# MARK: - export


def pretty(value, level=0) -> str:
    """docs/json-lines.md "Writing", pretty form."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{\n\n" + pad + "}"
        members = [inner + json.dumps(k, ensure_ascii=False) + " : " + pretty(value[k], level + 1)
                   for k in sorted(value, key=lambda k: k.encode())]
        return "{\n" + ",\n".join(members) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[\n\n" + pad + "]"
        return "[\n" + ",\n".join(inner + pretty(v, level + 1) for v in value) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


def iso_ms(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def export_items():
    full = make_item(title="Beta", username="bu", website="https://beta.example/", folder="Work/Sub",
                     password="beta-Pass-1", details="", totp="otpauth://totp/b?secret=JBSWY3DPEHPK3PXP",
                     fields=[{"hidden": True, "name": "pin", "value": "11"},
                             {"hidden": False, "name": "", "value": "e"},
                             {"hidden": False, "name": "otp", "value": "o"},
                             {"hidden": False, "name": "pin", "value": "2"},
                             {"hidden": False, "name": "KP2A_URL_7", "value": "k"}],
                     uris=["https://b2.example/", "https://b3.example/"],
                     history=[{"changed": 1500000000000, "password": "h-old"},
                              {"changed": 1600000000000, "password": "h-new"}],
                     tags=["x", "y"], expires=4102444800000, favorite=True, reprompt=True,
                     excludeFromReports=True, created=1400000000000, modified=1700000000000,
                     passwordChanged=1650000000000)
    alpha = make_item(title="Alpha", password="alpha-Pass-2", details="desc", folder="Home",
                      totp="JBSWY3DPEHPK3PXP", created=1400000000000, modified=1400000000000,
                      passwordChanged=1400000000000)
    note = make_item("note", title="Gamma", text="note text", created=1400000000000, modified=1400000000000,
                     passwordChanged=1400000000000)
    return full, alpha, note


def test_export_bitwarden_json(tmp_path, dv):
    full, alpha, note = export_items()
    vault = write_vault(tmp_path / "v.dvault", [full, alpha, note])
    proc = dv("export", vault, "--format", "bitwarden-json", "--output", "-", "--yes")
    doc = json.loads(proc.stdout)
    assert proc.stdout.rstrip("\n") == pretty(doc), "pretty-printed, keys sorted (docs/json-lines.md)"
    assert doc["encrypted"] is False
    assert doc["folders"] == [{"id": "00000000-0000-4000-8000-000000000001", "name": "Home"},
                              {"id": "00000000-0000-4000-8000-000000000002", "name": "Work/Sub"}]
    items = doc["items"]
    assert [i["name"] for i in items] == ["Alpha", "Beta", "Gamma"]
    a, b, g = items
    for item, src in ((a, alpha), (b, full), (g, note)):
        assert item["id"] == src["id"].lower()
        assert item["organizationId"] is None and item["collectionIds"] is None
    assert a["folderId"] == doc["folders"][0]["id"] and g["folderId"] is None
    assert a["type"] == 1 and a["notes"] == "desc" and a["login"]["totp"] == "JBSWY3DPEHPK3PXP"
    assert a["passwordHistory"] is None and a["reprompt"] == 0 and a["login"]["uris"] == []
    assert b["notes"] is None and b["reprompt"] == 1 and b["favorite"] in (True, 1)
    assert b["creationDate"] == "2014-05-13T16:53:20.000Z" and b["revisionDate"] == "2023-11-14T22:13:20.000Z"
    login = b["login"]
    assert (login["username"], login["password"]) == ("bu", "beta-Pass-1")
    assert login["passwordRevisionDate"] == iso_ms(1650000000000)
    assert login["uris"] == [{"match": None, "uri": u} for u in
                             ("https://beta.example/", "https://b2.example/", "https://b3.example/")]
    assert b["passwordHistory"] == [{"lastUsedDate": "2020-09-13T12:26:40.000Z", "password": "h-new"},
                                    {"lastUsedDate": "2017-07-14T02:40:00.000Z", "password": "h-old"}]
    assert b["fields"][0] == {"name": "pin", "value": "11", "type": 1, "linkedId": None}
    assert [f["type"] for f in b["fields"]] == [1, 0, 0, 0, 0]
    assert g["type"] == 2 and g["notes"] == "note text" and g["secureNote"] == {"type": 0}
    assert "not written (bitwarden-json has no place for it): tags of 1 item(s)" in proc.stderr
    assert len(re.findall(r"not written \(bitwarden-json has no place for it\): .+ of 1 item\(s\)",
                          proc.stderr)) == 3


def test_export_keepass_xml(tmp_path, dv):
    full, alpha, note = export_items()
    vault = write_vault(tmp_path / "v.dvault", [full, alpha, note])
    out = tmp_path / "out.xml"
    dv("export", vault, "--format", "keepass-xml", "--output", out, "--yes")
    assert (out.stat().st_mode & 0o777) == 0o600
    root = ET.parse(out).getroot()
    assert root.tag == "KeePassFile"
    top = root.find("Root/Group")
    assert top.findtext("Name") == "Root"
    assert [g.findtext("Name") for g in top.findall("Group")] == ["Home", "Work"]
    sub = top.find("Group[Name='Work']/Group[Name='Sub']")
    for group in root.iter("Group"):
        assert group.findtext("UUID")
    (entry,) = sub.findall("Entry")
    assert base64.b64decode(entry.findtext("UUID")) == uuid.UUID(full["id"]).bytes
    assert entry.findtext("Tags") == "x;y" and entry.findtext("QualityCheck") == "False"
    assert entry.findtext("Times/Expires") == "True"
    assert entry.findtext("Times/ExpiryTime").startswith("2100-01-01T00:00:00")
    strings = [(s.findtext("Key"), s.findtext("Value") or "", s.find("Value").get("ProtectInMemory"))
               for s in entry.findall("String")]
    assert [k for k, _, _ in strings] == ["Title", "UserName", "Password", "URL", "Notes", "otp", "KP2A_URL",
                                          "KP2A_URL_1", "pin", "Field 2", "Field otp", "pin (2)",
                                          "Field KP2A_URL_7"]
    by = {k: (v, p) for k, v, p in strings}
    assert by["Password"] == ("beta-Pass-1", "True") and by["otp"][1] == "True" and by["pin"] == ("11", "True")
    assert by["KP2A_URL"][0] == "https://b2.example/" and by["KP2A_URL_1"][0] == "https://b3.example/"
    data = {i.findtext("Key"): i.findtext("Value") for i in entry.findall("CustomData/Item")}
    assert data == {"Dossier.Favorite": "true", "Dossier.Reprompt": "true"}
    hist = entry.findall("History/Entry")
    assert [h.find("String[Key='Password']/Value").text for h in hist] == ["h-old", "h-new"]
    assert hist[0].findtext("Times/LastModificationTime").startswith("2017-07-14T02:40:00")
    alpha_entry = top.find("Group[Name='Home']/Entry")
    keys = [s.findtext("Key") for s in alpha_entry.findall("String")]
    assert "TimeOtp-Secret-Base32" in keys and "otp" not in keys
    (gamma,) = top.findall("Entry")
    assert gamma.find("String[Key='Notes']/Value").text == "note text"


def test_export_refusals(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault", [make_item(title="R", password="r-Pass-1")])
    out = tmp_path / "o.json"
    proc = dv("export", vault, "--format", "bitwarden-json", "--output", out, ok=None)
    assert proc.returncode != 0 and not out.exists()
    out.write_text("keep")
    proc = dv("export", vault, "--format", "bitwarden-json", "--output", out, "--yes", ok=None)
    assert proc.returncode != 0 and out.read_text() == "keep"
    dv.assert_no_leak("r-Pass-1")


def test_export_keepass_xml_round_trips(tmp_path, dv):
    full, alpha, note = export_items()
    vault = write_vault(tmp_path / "v.dvault", [full, alpha, note])
    out = tmp_path / "out.xml"
    dv("export", vault, "--format", "keepass-xml", "--output", out, "--yes")
    again = write_vault(tmp_path / "w.dvault", [])
    dv("import", again, out)
    got = {i["id"]: i for i in read_vault(again)[1]["items"]}
    back = got[full["id"]]
    for key in ("title", "username", "website", "folder", "password", "totp", "uris", "tags", "expires",
                "favorite", "reprompt", "excludeFromReports", "created", "modified"):
        assert back.get(key) == full[key], key
    assert back["history"] == full["history"]
    assert got[note["id"]]["kind"] == "entry" and got[note["id"]]["details"] == "note text"
