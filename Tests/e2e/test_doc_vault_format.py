"""docs/vault-format.md and docs/vault-cli.md, re-implemented from the docs alone.

A reader and a writer of the `.dvault` file built only from the documented layout (magic,
big-endian header length, sorted header JSON, HMAC-SHA256 header MAC, AES-256-GCM body,
scrypt / PBKDF2 / Argon2id + HKDF-SHA256 subkeys) decrypt what the program writes, write
vaults the program must open, and tamper bytes to check the documented refusals. The
helpers here are shared by test_doc_vault_format_more.py and test_doc_vault_format_import.py.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import struct
import subprocess
import time
import unicodedata
import uuid

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from conftest import dossier_path

MAGIC = b"DOSSIERV"
MASTER = "Quokka-Lantern-Mosaic-91-ziggurat"
WEAK_SCRYPT = {"algorithm": "scrypt", "logN": 10, "p": 1, "r": 8, "rounds": 0}
UUID_RE = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
ITEM_KEYS = {"id", "kind", "created", "modified", "passwordChanged", "deleted", "title", "username",
             "website", "folder", "password", "details", "text"}
OPTIONAL_KEYS = {"totp", "fields", "uris", "history", "tags", "expires", "favorite", "reprompt",
                 "excludeFromReports"}


def canon(obj) -> bytes:
    """Keys sorted, no whitespace, UTF-8 (the documented header / payload encoding)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def derive_master(password: str, kdf: dict, nfc: bool = True) -> bytes:
    pw = (unicodedata.normalize("NFC", password) if nfc else password).encode()
    salt = base64.b64decode(kdf["salt"])
    alg = kdf["algorithm"]
    if alg == "scrypt":
        n, r, p = 2 ** kdf["logN"], kdf["r"], kdf["p"]
        return hashlib.scrypt(pw, salt=salt, n=n, r=r, p=p, maxmem=256 * n * r + (1 << 20), dklen=32)
    if alg == "pbkdf2-sha256":
        return hashlib.pbkdf2_hmac("sha256", pw, salt, kdf["rounds"], 32)
    if alg == "argon2id":
        from argon2.low_level import Type, hash_secret_raw
        return hash_secret_raw(pw, salt, time_cost=kdf["iterations"], memory_cost=kdf["memoryKiB"],
                               parallelism=kdf["p"], hash_len=32, type=Type.ID, version=0x13)
    raise AssertionError(f"unknown kdf {alg}")


def subkeys(master: bytes) -> dict:
    out = {}
    for name in ("header", "body", "item"):
        out[name] = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                         info=f"dossier-vault/{name}/v1".encode()).derive(master)
    return out


def split_file(data: bytes):
    """(header bytes, header dict, mac, body) following the documented layout."""
    assert data[:8] == MAGIC
    n = struct.unpack(">I", data[8:12])[0]
    assert 1 <= n <= 65536
    header = data[12:12 + n]
    return header, json.loads(header), data[12 + n:44 + n], data[44 + n:]


def decrypt(data: bytes, password: str = MASTER, nfc: bool = True):
    """Documented reader: returns (header dict, payload dict, payload bytes)."""
    header, hdr, mac, body = split_file(data)
    keys = subkeys(derive_master(password, hdr["kdf"], nfc))
    n = len(header)
    assert hmac.compare_digest(hmac.new(keys["header"], data[:12 + n], hashlib.sha256).digest(), mac), "header MAC"
    plain = AESGCM(keys["body"]).decrypt(body[:12], body[12:], data[:44 + n])
    return hdr, json.loads(plain), plain


def read_vault(path, password: str = MASTER):
    return decrypt(path.read_bytes(), password)


def encode_vault(items, password: str = MASTER, kdf=None, vault_id=None, payload_format=None,
                 settings=None, header=None, nfc=True, salt=None) -> bytes:
    """Documented writer. `header` (a dict) replaces the whole header JSON when given."""
    if header is None:
        kdf = dict(kdf or WEAK_SCRYPT)
        kdf.setdefault("salt", base64.b64encode(salt or os.urandom(32)).decode())
        header = {"cipher": "AES-256-GCM", "format": 1, "kdf": kdf,
                  "vaultID": vault_id or str(uuid.uuid4()).upper()}
    hb = canon(header)
    keys = subkeys(derive_master(password, header["kdf"], nfc))
    pre = MAGIC + struct.pack(">I", len(hb)) + hb
    pre += hmac.new(keys["header"], pre, hashlib.sha256).digest()
    payload = {"format": payload_format or (2 if settings else 1),
               "items": sorted(items, key=lambda i: i["id"])}
    if settings is not None:
        payload["settings"] = settings
    nonce = os.urandom(12)
    return pre + nonce + AESGCM(keys["body"]).encrypt(nonce, canon(payload), pre)


def make_item(kind="entry", **kw):
    now = int(time.time() * 1000) - 60_000
    item = {"id": str(uuid.uuid4()).upper(), "kind": kind, "created": now, "modified": now,
            "passwordChanged": now, "deleted": False, "title": "", "username": "", "website": "",
            "folder": "", "password": "", "details": "", "text": ""}
    item.update(kw)
    return item


def write_vault(path, items=(), **kw):
    path.write_bytes(encode_vault(list(items), **kw))
    return path


class Runner:
    """Runs the binary with no controlling terminal, remembering every output for leak checks."""

    def __init__(self):
        self.outputs = []

    def __call__(self, *args, env=None, input=None, ok=True, password=MASTER):
        full = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
        full["DOSSIER_VAULT_PASSWORD"] = password
        full.update(env or {})
        proc = subprocess.run([dossier_path(), "vault", *map(str, args)], env=full, input=input,
                              capture_output=True, text=True, timeout=120, start_new_session=True)
        self.outputs.append(proc.stdout + proc.stderr)
        if ok is True:
            assert proc.returncode == 0, f"{args}: {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        elif ok is not None:
            assert proc.returncode == ok, f"{args}: {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        return proc

    def assert_no_leak(self, *secrets):
        for out in self.outputs:
            for s in secrets:
                assert s not in out, f"secret {s!r} printed"


@pytest.fixture
def dv():
    return Runner()


def listed(dv, path, reveal=False):
    args = ["list", path, "--json"] + (["--reveal"] if reveal else [])
    return json.loads(dv(*args).stdout)


def live(payload):
    return [i for i in payload["items"] if not i["deleted"]]


# MARK: - what the program writes


@pytest.mark.parametrize("kdf,expect", [
    (None, {"algorithm": "scrypt", "logN": 17, "r": 8, "p": 1}),
    ("pbkdf2", {"algorithm": "pbkdf2-sha256", "rounds": 600000}),
    ("argon2id", {"algorithm": "argon2id", "memoryKiB": 65536, "iterations": 3, "p": 1}),
])
def test_init_header_and_empty_body(tmp_path, dv, kdf, expect):
    vault = tmp_path / "v.dvault"
    dv("init", vault, *(["--kdf", kdf] if kdf else []))
    data = vault.read_bytes()
    header, hdr, _, body = split_file(data)
    assert header == canon(hdr), "header JSON: keys sorted, no whitespace"
    assert set(hdr) == {"cipher", "format", "kdf", "vaultID"}
    assert hdr["cipher"] == "AES-256-GCM" and hdr["format"] == 1
    assert uuid.UUID(hdr["vaultID"])
    for key, value in expect.items():
        assert hdr["kdf"][key] == value
    assert len(base64.b64decode(hdr["kdf"]["salt"])) == 32
    has_argon_keys = {"memoryKiB", "iterations"} <= set(hdr["kdf"])
    assert has_argon_keys == (kdf == "argon2id")
    if kdf is None:
        assert set(hdr["kdf"]) == {"algorithm", "logN", "p", "r", "rounds", "salt"}
    _, payload, plain = decrypt(data)
    assert payload == {"format": 1, "items": []} and plain == canon(payload)
    assert len(body) == 12 + len(plain) + 16
    assert (vault.stat().st_mode & 0o777) == 0o600


def test_salt_fresh_per_vault(tmp_path, dv):
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    dv("init", a, "--kdf", "pbkdf2")
    dv("init", b, "--kdf", "pbkdf2")
    ha, hb = split_file(a.read_bytes())[1], split_file(b.read_bytes())[1]
    assert ha["kdf"]["salt"] != hb["kdf"]["salt"] and ha["vaultID"] != hb["vaultID"]


def test_items_written_by_cli_match_item_table(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault")
    before = int(time.time() * 1000) - 5
    dv("add", vault, "--title", "Mail", "--username", "jo@example.com", "--website", "https://mail.example.com",
       env={"DOSSIER_ENTRY_PASSWORD": "entry-Secret-7731"})
    dv("note", vault, "--title", "Wifi", input="router pass: note-Secret-4410\n")
    dv("add", vault, "--title", "Bank", env={"DOSSIER_ENTRY_PASSWORD": "entry-Secret-0042"})
    after = int(time.time() * 1000) + 5
    hdr, payload, plain = read_vault(vault)
    assert payload["format"] == 1 and plain == canon(payload)
    items = payload["items"]
    assert [i["id"] for i in items] == sorted(i["id"] for i in items)
    for item in items:
        assert UUID_RE.match(item["id"]), item["id"]
        assert set(item) == ITEM_KEYS, "optional keys only when not default"
        for key in ("created", "modified", "passwordChanged"):
            assert isinstance(item[key], int) and before <= item[key] <= after
        assert item["deleted"] is False
    by = {i["title"]: i for i in items}
    assert by["Mail"]["kind"] == "entry" and by["Mail"]["password"] == "entry-Secret-7731"
    assert by["Mail"]["username"] == "jo@example.com" and by["Mail"]["website"] == "https://mail.example.com"
    assert by["Wifi"]["kind"] == "note" and "note-Secret-4410" in by["Wifi"]["text"]
    dv("list", vault)
    dv("show", vault, "Mail")
    dv.assert_no_leak("entry-Secret-7731", "note-Secret-4410", "entry-Secret-0042", MASTER)


def test_fresh_nonce_every_save_and_header_kept(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault")
    header0 = split_file(vault.read_bytes())[0]
    dv("add", vault, "--title", "A", env={"DOSSIER_ENTRY_PASSWORD": "x-1"})
    first = vault.read_bytes()
    dv("rm", vault, "A")
    second = vault.read_bytes()
    assert split_file(first)[0] == header0 == split_file(second)[0]
    assert split_file(first)[3][:12] != split_file(second)[3][:12]
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers == ["v.dvault", "v.dvault.lock"], leftovers


def test_tombstone_empties_text_and_optional_keys(tmp_path, dv):
    item = make_item(title="Gone", username="u", website="https://gone.example", folder="F", password="pw-Gone-1",
                     details="d", totp="JBSWY3DPEHPK3PXP", tags=["t"], favorite=True, uris=["https://x.example"],
                     fields=[{"hidden": True, "name": "pin", "value": "1"}], expires=4102444800000,
                     history=[{"changed": 1, "password": "old"}], reprompt=True, excludeFromReports=True)
    vault = write_vault(tmp_path / "v.dvault", [item])
    dv("rm", vault, item["id"][:8])
    (tomb,) = read_vault(vault)[1]["items"]
    assert tomb["id"] == item["id"] and tomb["deleted"] is True and tomb["created"] == item["created"]
    assert set(tomb) == ITEM_KEYS
    for key in ("title", "username", "website", "folder", "password", "details", "text"):
        assert tomb[key] == "", key
    assert tomb["modified"] > item["modified"]
    assert listed(dv, vault) == []


def test_edit_password_appends_history(tmp_path, dv):
    item = make_item(title="Shop", password="old-Pass-1", history=[{"changed": 1000, "password": "older-0"}])
    vault = write_vault(tmp_path / "v.dvault", [item])
    t0 = int(time.time() * 1000) - 5
    dv("edit", vault, "Shop", "--new-password", env={"DOSSIER_ENTRY_PASSWORD": "new-Pass-2"})
    t1 = int(time.time() * 1000) + 5
    (got,) = read_vault(vault)[1]["items"]
    assert got["password"] == "new-Pass-2"
    assert [h["password"] for h in got["history"]] == ["older-0", "old-Pass-1"]
    assert t0 <= got["history"][1]["changed"] <= t1
    assert got["history"][1]["changed"] == got["modified"] == got["passwordChanged"]


def test_passwd_argon2id_new_header_same_id(tmp_path, dv):
    item = make_item(title="Keep", password="keep-Pass-9")
    vault = write_vault(tmp_path / "v.dvault", [item])
    old = split_file(vault.read_bytes())[1]
    new_pw = "Otter-Ballad-Quartz-77-meridian"
    dv("passwd", vault, "--kdf", "argon2id", env={"DOSSIER_NEW_VAULT_PASSWORD": new_pw})
    hdr, payload, _ = read_vault(vault, new_pw)
    assert hdr["vaultID"] == old["vaultID"] and hdr["kdf"]["salt"] != old["kdf"]["salt"]
    assert hdr["kdf"]["algorithm"] == "argon2id" and hdr["kdf"]["memoryKiB"] == 65536
    assert payload["items"] == [item]
    assert dv("list", vault, ok=1).returncode == 1
    dv.assert_no_leak(new_pw, MASTER, "keep-Pass-9")


# MARK: - what the program must open


def test_program_opens_documented_vault_with_every_optional_key(tmp_path, dv):
    entry = make_item(title="Full", username="fu", website="https://full.example/a", folder="Work/Sub",
                      password="full-Pass-1", details="desc", totp="otpauth://totp/x?secret=JBSWY3DPEHPK3PXP",
                      fields=[{"hidden": True, "name": "pin", "value": "4321"},
                              {"hidden": False, "name": "color", "value": "blue"}],
                      uris=["https://alt.example/"], history=[{"changed": 1600000000000, "password": "hist-1"}],
                      tags=["b", "a"], expires=4102444800000, favorite=True, reprompt=True,
                      excludeFromReports=True, created=1500000000000, modified=1600000000123,
                      passwordChanged=1600000000000)
    note = make_item("note", title="Memo", text="memo text", folder="F")
    vault = write_vault(tmp_path / "v.dvault", [entry, note])
    got = {i["title"]: i for i in listed(dv, vault, reveal=True)}
    full = got["Full"]
    assert full["id"].upper() == entry["id"] and full["kind"] == "entry" and full["folder"] == "Work/Sub"
    assert full["password"] == "full-Pass-1" and full["details"] == "desc" and full["totp"] == entry["totp"]
    assert full["hasTOTP"] is True and full["uris"] == ["https://alt.example/"] and full["tags"] == ["b", "a"]
    assert full["fields"] == [{"name": "pin", "hidden": True, "value": "4321"},
                              {"name": "color", "hidden": False, "value": "blue"}]
    assert full["history"] == [{"changed": "2020-09-13T12:26:40.000Z", "password": "hist-1"}]
    assert full["created"] == "2017-07-14T02:40:00.000Z" and full["modified"] == "2020-09-13T12:26:40.123Z"
    assert full["expires"] == "2100-01-01T00:00:00.000Z"
    assert (full["favorite"], full["reprompt"], full["excludeFromReports"]) == (True, True, True)
    assert got["Memo"]["kind"] == "note" and got["Memo"]["text"] == "memo text"
    assert "expires" not in got["Memo"] and got["Memo"]["hasTOTP"] is False


def test_list_json_without_reveal_has_documented_keys_only(tmp_path, dv):
    entry = make_item(title="K", password="k-Pass-1", totp="JBSWY3DPEHPK3PXP", details="det-Secret",
                      fields=[{"hidden": False, "name": "n", "value": "field-Secret"}],
                      history=[{"changed": 1, "password": "hist-Secret"}])
    vault = write_vault(tmp_path / "v.dvault", [entry])
    (row,) = listed(dv, vault)
    assert set(row) == {"id", "kind", "title", "username", "website", "folder", "created", "modified",
                        "passwordChanged", "uris", "tags", "favorite", "reprompt", "excludeFromReports",
                        "hasTOTP", "fields", "history"}
    assert row["fields"] == [{"name": "n", "hidden": False}]
    assert row["history"] == [{"changed": "1970-01-01T00:00:00.001Z"}]
    dv.assert_no_leak("k-Pass-1", "JBSWY3DPEHPK3PXP", "det-Secret", "field-Secret", "hist-Secret")


def test_payload_format_2_with_settings_opens(tmp_path, dv):
    settings = {"webdavURL": "https://dav.example/v/", "webdavUser": "me", "webdavPassword": "dav-Secret-3",
                "autoSync": False, "modified": 1700000000000}
    vault = write_vault(tmp_path / "v.dvault", [make_item(title="S")], settings=settings)
    assert [r["title"] for r in listed(dv, vault)] == ["S"]
    dv("add", vault, "--title", "T", env={"DOSSIER_ENTRY_PASSWORD": "t-1"})
    _, payload, _ = read_vault(vault)
    assert payload["format"] == 2 and payload["settings"] == settings
    dv.assert_no_leak("dav-Secret-3")


def test_payload_format_3_refused(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault", [], payload_format=3)
    proc = dv("list", vault, ok=1)
    assert "vault payload format 3 is not supported" in proc.stderr


@pytest.mark.parametrize("kdf", [
    {"algorithm": "pbkdf2-sha256", "logN": 0, "p": 0, "r": 0, "rounds": 100000},   # the lowest bound opens
    {"algorithm": "pbkdf2-sha256", "logN": 0, "p": 0, "r": 0, "rounds": 209999},
    {"algorithm": "argon2id", "iterations": 1, "logN": 0, "memoryKiB": 8, "p": 1, "r": 0, "rounds": 0},
    {"algorithm": "argon2id", "iterations": 2, "logN": 0, "memoryKiB": 64, "p": 4, "r": 0, "rounds": 0},
    {"algorithm": "scrypt", "logN": 10, "p": 2, "r": 1, "rounds": 0},
])
def test_weak_but_in_bounds_kdf_opens(tmp_path, dv, kdf):
    vault = write_vault(tmp_path / "v.dvault", [make_item(title="In bounds")], kdf=kdf)
    assert [r["title"] for r in listed(dv, vault)] == ["In bounds"]


def test_salt_of_16_bytes_opens(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault", [make_item(title="Short salt")], salt=os.urandom(16))
    assert [r["title"] for r in listed(dv, vault)] == ["Short salt"]


@pytest.mark.parametrize("kdf", [
    {"algorithm": "scrypt", "logN": 9, "p": 1, "r": 8, "rounds": 0},
    {"algorithm": "scrypt", "logN": 23, "p": 1, "r": 8, "rounds": 0},
    {"algorithm": "scrypt", "logN": 10, "p": 17, "r": 8, "rounds": 0},
    {"algorithm": "scrypt", "logN": 22, "p": 1, "r": 32, "rounds": 0},
    {"algorithm": "pbkdf2-sha256", "logN": 0, "p": 0, "r": 0, "rounds": 99999},
    {"algorithm": "pbkdf2-sha256", "logN": 0, "p": 0, "r": 0, "rounds": 50000001},
    {"algorithm": "argon2id", "iterations": 1, "logN": 0, "memoryKiB": 15, "p": 2, "r": 0, "rounds": 0},
    {"algorithm": "argon2id", "iterations": 65, "logN": 0, "memoryKiB": 64, "p": 1, "r": 0, "rounds": 0},
    {"algorithm": "argon2id", "iterations": 1, "logN": 0, "memoryKiB": 1048577, "p": 1, "r": 0, "rounds": 0},
    {"algorithm": "argon2id", "iterations": 1, "logN": 0, "memoryKiB": 72, "p": 9, "r": 0, "rounds": 0},
])
def test_out_of_bounds_kdf_refused_before_derivation(tmp_path, dv, kdf):
    kdf = dict(kdf, salt=base64.b64encode(os.urandom(32)).decode())
    header = {"cipher": "AES-256-GCM", "format": 1, "kdf": kdf, "vaultID": str(uuid.uuid4()).upper()}
    hb = canon(header)
    data = MAGIC + struct.pack(">I", len(hb)) + hb + os.urandom(32 + 12 + 23 + 16)
    vault = tmp_path / "v.dvault"
    vault.write_bytes(data)
    start = time.monotonic()
    proc = dv("list", vault, ok=1)
    assert time.monotonic() - start < 5
    assert "wrong master password" not in proc.stderr, "bounds are checked before any derivation"
