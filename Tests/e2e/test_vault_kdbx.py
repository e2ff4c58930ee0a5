"""KeePass KDBX 3.1 and 4 import (issue #17): databases written by pykeepass (the oracle)
in the test, read back by `dossier vault import` and compared field by field with what
pykeepass reads; wrong passwords and damaged files are clear errors that write nothing."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "vault"))
pykeepass = pytest.importorskip("pykeepass")
import make_kdbx  # noqa: E402

MASTER = {"DOSSIER_VAULT_PASSWORD": "kdbx e2e master phrase"}
KDBX_PW = "kdbx pass wörd"


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+vault\b", out, re.M):
        pytest.skip("this dossier binary was built without the vault domain")


def new_vault(run_dossier, path):
    run_dossier("vault", "init", path, "--kdf", "pbkdf2", env=MASTER)
    return path


def expected_items(db):
    """What every live entry should import as, read by pykeepass."""
    out = {}
    bin_uuid = db.recyclebin_group.uuid if db.recyclebin_group else None
    for e in db.entries:
        if e.group.uuid == bin_uuid:
            continue
        title = e.title or re.sub(r"^[a-z]+://([^@/]*@)?([^/:?#]*).*$", r"\2", e.url)
        out[str(e.uuid)] = {
            "title": title, "username": e.username or "", "password": e.password or "",
            "website": e.url or "", "details": e.notes or "",
            "folder": "/".join(e.group.path) if e.group.path else "",
            "created": e.ctime.strftime("%Y-%m-%dT%H:%M:%S"), "modified": e.mtime.strftime("%Y-%m-%dT%H:%M:%S"),
            "totp": e.otp, "hasTOTP": bool(e.otp),
            "fields": [{"name": k, "hidden": e.is_custom_property_protected(k), "value": v}
                       for k, v in e.custom_properties.items() if not k.startswith("KP2A_URL")],
            "uris": [v for k, v in e.custom_properties.items() if k.startswith("KP2A_URL")],
            "tags": e.tags or [],
            "expires": e.expiry_time.strftime("%Y-%m-%dT%H:%M:%S") if e.expires else None,
            "history": [{"changed": h.mtime.strftime("%Y-%m-%dT%H:%M:%S"), "password": h.password} for h in e.history
                        if h.password and h.password != e.password],
            "excludeFromReports": e._element.findtext("QualityCheck") == "False",
            "favorite": False, "reprompt": False,
        }
    return out


def imported_items(run_dossier, vault):
    items = json.loads(run_dossier("vault", "list", vault, "--reveal", "--json", env=MASTER).stdout)
    return {i["id"]: {"title": i["title"], "username": i["username"], "password": i["password"], "website": i["website"],
                      "details": i["details"], "folder": i["folder"], "created": i["created"][:19], "modified": i["modified"][:19],
                      "totp": i.get("totp"), "hasTOTP": i["hasTOTP"], "fields": i["fields"], "uris": i["uris"], "tags": i["tags"],
                      "expires": i.get("expires") and i["expires"][:19],
                      "history": [{"changed": h["changed"][:19], "password": h["password"]} for h in i["history"]],
                      "excludeFromReports": i["excludeFromReports"], "favorite": i["favorite"], "reprompt": i["reprompt"]}
            for i in items}


VARIANTS = [
    (4, "argon2id", "chacha20", "password"),
    (4, "argon2d", "aes256", "password+keyfile"),
    (4, "aes", "aes256", "password"),
    (3, "aes", "aes256", "password+keyfile"),
    (3, "aes", "chacha20", "keyfile"),
]


@pytest.mark.parametrize("version,kdf,cipher,creds", VARIANTS, ids=["-".join(map(str, v)) for v in VARIANTS])
def test_kdbx_imports_every_field(run_dossier, tmp_path, version, kdf, cipher, creds):
    keyfile = None
    if "keyfile" in creds:
        keyfile = tmp_path / "db.key"
        # KDBX 3: a 64-hex-digit key file; KDBX 4: arbitrary bytes (hashed)
        keyfile.write_bytes(os.urandom(32).hex().encode() if version == 3 else os.urandom(100))
    password = KDBX_PW if "password" in creds else None
    path = tmp_path / "db.kdbx"
    make_kdbx.make(path, version, kdf, cipher, password=password, keyfile=keyfile)
    db = pykeepass.PyKeePass(str(path), password=password, keyfile=keyfile and str(keyfile))
    assert db.version == (version, 1 if version == 3 else 0)

    vault = new_vault(run_dossier, tmp_path / "v.dvault")
    args = ["vault", "import", vault, path] + (["--key-file", keyfile] if keyfile else [])
    if password:
        (tmp_path / "pw.txt").write_text(password + "\n", encoding="utf-8")
        args += ["--import-password-file", tmp_path / "pw.txt"]
    else:
        (tmp_path / "empty.txt").write_text("", encoding="utf-8")   # empty password + key file = key file only
        args += ["--import-password-file", tmp_path / "empty.txt"]
    out = run_dossier(*args, env=MASTER).stdout
    assert "kdbx: imported 4 new" in out
    assert "skipped 1 recycle bin item(s)" in out
    # TOTP, custom fields, extra URLs, tags, expiry, history passwords and the quality flag
    # are kept (compared below); what is not kept is listed by kind
    assert "not kept: 1 history version (only its password kept)" in out, out
    for gone in ["custom field", "TOTP", "tags", "expiry date"]:
        assert f"not kept: 1 {gone}" not in out, out
    if version == 4:
        assert "not kept: 1 attachment" in out and "attachment not kept: Mail / note.txt" in out, out
    got, want = imported_items(run_dossier, vault), expected_items(db)
    vpn = next(v for v in want.values() if v["title"] == "VPN")
    assert vpn["totp"] and vpn["fields"] and vpn["uris"] and vpn["tags"] and vpn["expires"] and vpn["history"], vpn
    assert any(v["excludeFromReports"] for v in want.values())
    assert got == want


def test_kdbx_password_from_the_environment(run_dossier, tmp_path):
    path = tmp_path / "db.kdbx"
    make_kdbx.make(path, 4, "argon2id", "aes256")
    vault = new_vault(run_dossier, tmp_path / "v.dvault")
    out = run_dossier("vault", "import", vault, path, env={**MASTER, "DOSSIER_IMPORT_PASSWORD": KDBX_PW}).stdout
    assert "imported 4 new" in out


def test_kdbx_wrong_password_and_damaged_files_are_clear_errors(run_dossier, tmp_path):
    path = tmp_path / "db.kdbx"
    make_kdbx.make(path, 4, "argon2id", "aes256")
    vault = new_vault(run_dossier, tmp_path / "v.dvault")
    before = vault.read_bytes()

    def attempt(file, pw=KDBX_PW):
        return run_dossier("vault", "import", vault, file, env={**MASTER, "DOSSIER_IMPORT_PASSWORD": pw}, check=False)

    r = attempt(path, "not the password")
    assert r.returncode == 1 and "wrong password or key file" in r.stderr and str(path) in r.stderr
    data = path.read_bytes()
    damaged = tmp_path / "damaged.kdbx"
    damaged.write_bytes(data[:-100] + bytes([data[-100] ^ 1]) + data[-99:])
    r = attempt(damaged)
    assert r.returncode == 1 and "damaged" in r.stderr, r.stderr
    truncated = tmp_path / "truncated.kdbx"
    truncated.write_bytes(data[: len(data) // 2])
    r = attempt(truncated)
    assert r.returncode == 1 and "truncated" in r.stderr, r.stderr
    header = tmp_path / "header.kdbx"
    header.write_bytes(data[:20] + bytes([data[20] ^ 1]) + data[21:])
    r = attempt(header)
    assert r.returncode == 1 and ("header" in r.stderr or "damaged" in r.stderr), r.stderr
    # KDBX 3.1 with a wrong password
    v3 = tmp_path / "v3.kdbx"
    make_kdbx.make(v3, 3, "aes", "aes256")
    r = attempt(v3, "nope")
    assert r.returncode == 1 and "wrong password or key file" in r.stderr
    assert vault.read_bytes() == before
    assert "Traceback" not in r.stderr and "Fatal error" not in r.stderr


@pytest.mark.parametrize("cipher", ["aes256", "chacha20"])
def test_kdbx3_damaged_with_the_right_password_is_not_a_wrong_password(run_dossier, tmp_path, cipher):
    """Issue #35: a 3.1 file cut by 1–16 bytes or with its last byte flipped, opened with
    the right password, is "damaged" (KeePassXC says so too), not "wrong password"."""
    v3 = tmp_path / "v3.kdbx"
    make_kdbx.make(v3, 3, "aes", cipher)
    vault = new_vault(run_dossier, tmp_path / "v.dvault")
    before = vault.read_bytes()
    data = v3.read_bytes()
    variants = {f"cut{n}": data[:-n] for n in (1, 7, 15, 16)}
    variants["flip"] = data[:-1] + bytes([data[-1] ^ 1])
    for name, bad in variants.items():
        f = tmp_path / f"{name}.kdbx"
        f.write_bytes(bad)
        r = run_dossier("vault", "import", vault, f, env={**MASTER, "DOSSIER_IMPORT_PASSWORD": KDBX_PW}, check=False)
        assert r.returncode == 1, (name, r.stdout)
        assert "wrong password" not in r.stderr and ("damaged" in r.stderr or "truncated" in r.stderr), (name, r.stderr)
        assert str(f) in r.stderr
        r = run_dossier("vault", "import", vault, f, env={**MASTER, "DOSSIER_IMPORT_PASSWORD": "nope"}, check=False)
        assert r.returncode == 1 and "wrong password or key file" in r.stderr, (name, r.stderr)
    assert vault.read_bytes() == before
