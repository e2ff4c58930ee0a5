"""docs/vault-import.md (KeePass 2.x XML, 1PUX) and docs/vault-kdbx.md, from the docs alone.

A hand-written KeePass XML export and 1PUX zip, and KDBX 4 databases written by pykeepass
(Argon2 cost lowered so the suite stays fast), are imported; the vault is decrypted by the
documented reader in test_doc_vault_format.py and compared with the documented mapping.
"""
import base64
import datetime
import io
import json
import shutil
import uuid
import zipfile

import pytest

from test_doc_vault_format import MASTER, dv, live, read_vault, write_vault  # noqa: F401
from test_doc_vault_format_import import LEFT_OUT, ms, run_import

KDBX_PW = "kdbx-Master-Pw-8812"


def b64(u):
    return base64.b64encode(u.bytes).decode()


def xml_entry(uid, title, password="", extra="", history="", times=""):
    return (f"<Entry><UUID>{b64(uid)}</UUID>{extra}<Times>{times}</Times>"
            f"<String><Key>Title</Key><Value>{title}</Value></String>"
            f"<String><Key>Password</Key><Value ProtectInMemory=\"True\">{password}</Value></String>"
            f"{history}</Entry>")


def hist(password, when):
    return (f"<Entry><UUID>{b64(uuid.uuid4())}</UUID><Times><LastModificationTime>{when}</LastModificationTime>"
            f"</Times><String><Key>Password</Key><Value>{password}</Value></String></Entry>")


def keepass_xml(main, excluded, binned, bin_group):
    history = ("<History>" + hist("old1", "2019-01-01T00:00:00Z") + hist("cur &amp; &lt;", "2020-01-01T00:00:00Z")
               + hist("old1", "2020-06-01T00:00:00Z") + hist("", "2020-07-01T00:00:00Z")
               + hist("older0", "2018-01-01T00:00:00Z") + "</History>")
    extra = ("<Tags>a; b,c</Tags><QualityCheck>False</QualityCheck>"
             "<String><Key>UserName</Key><Value>xu</Value></String>"
             "<String><Key>URL</Key><Value>https://x.example</Value></String>"
             "<String><Key>Notes</Key><Value>n1\nn2</Value></String>"
             "<String><Key>TOTP Seed</Key><Value>SEEDOLD</Value></String>"
             "<String><Key>otp</Key><Value>otpauth://totp/x?secret=AA</Value></String>"
             "<String><Key>KP2A_URL_1</Key><Value>https://k1.example</Value></String>"
             "<String><Key>KP2A_URL</Key><Value>https://k0.example</Value></String>"
             "<String><Key>Secret Q</Key><Value ProtectInMemory=\"True\">sq</Value></String>"
             "<String><Key>Plain</Key><Value>pv</Value></String>"
             "<Binary><Key>file.txt</Key><Value Ref=\"0\"/></Binary>"
             "<CustomData><Item><Key>KPXC_BROWSER_x</Key><Value>1</Value></Item>"
             "<Item><Key>Dossier.Favorite</Key><Value>true</Value></Item></CustomData>")
    times = ("<CreationTime>2020-01-02T03:04:05Z</CreationTime>"
             "<LastModificationTime>2021-01-02T03:04:05Z</LastModificationTime>"
             "<ExpiryTime>2030-01-01T00:00:00Z</ExpiryTime><Expires>True</Expires>")
    kb = "<CustomData><Item><Key>KnownBad</Key><Value>true</Value></Item></CustomData>"
    return ('<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n<KeePassFile><Meta>'
            f"<RecycleBinEnabled>True</RecycleBinEnabled><RecycleBinUUID>{b64(bin_group)}</RecycleBinUUID></Meta>"
            f"<Root><Group><UUID>{b64(uuid.uuid4())}</UUID><Name>Root</Name>"
            + xml_entry(main, "XmlEntry", "cur &amp; &lt;", extra, history, times)
            + f"<Group><UUID>{b64(uuid.uuid4())}</UUID><Name>Work</Name>"
            + xml_entry(excluded, "Known bad", "kb", kb) + "</Group>"
            + f"<Group><UUID>{b64(bin_group)}</UUID><Name>Trash</Name>" + xml_entry(binned, "Binned", "b") + "</Group>"
            + f"<Group><UUID>{b64(uuid.uuid4())}</UUID><Name>Recycle Bin</Name>"
            + xml_entry(uuid.uuid4(), "NotBin", "nb") + "</Group>"
            + "</Group></Root></KeePassFile>\n")


def test_keepass_xml_mapping(tmp_path, dv):
    main, excluded, binned, bin_group = (uuid.uuid4() for _ in range(4))
    proc, got = run_import(dv, tmp_path, keepass_xml(main, excluded, binned, bin_group), name="kp.xml")
    assert set(got) == {"XmlEntry", "Known bad", "NotBin"}
    x = got["XmlEntry"]
    assert x["id"] == str(main).upper() and x["folder"] == "" and x["username"] == "xu"
    assert x["password"] == "cur & <" and x["website"] == "https://x.example" and x["details"] == "n1\nn2"
    assert x["totp"] == "otpauth://totp/x?secret=AA"
    assert x["uris"] == ["https://k1.example", "https://k0.example"]
    assert x["fields"] == [{"hidden": False, "name": "TOTP Seed", "value": "SEEDOLD"},
                           {"hidden": True, "name": "Secret Q", "value": "sq"},
                           {"hidden": False, "name": "Plain", "value": "pv"}]
    assert x["tags"] == ["a", "b", "c"] and x.get("excludeFromReports") is True and x.get("favorite") is True
    assert x["created"] == ms("2020-01-02T03:04:05Z")
    assert x["modified"] == ms("2021-01-02T03:04:05Z") == x["passwordChanged"]
    assert x["expires"] == ms("2030-01-01T00:00:00Z")
    assert x["history"] == [{"changed": ms("2018-01-01T00:00:00Z"), "password": "older0"},
                            {"changed": ms("2019-01-01T00:00:00Z"), "password": "old1"}]
    assert got["Known bad"]["folder"] == "Work" and got["Known bad"].get("excludeFromReports") is True
    assert got["NotBin"]["folder"] == "Recycle Bin"
    out = proc.stdout + proc.stderr
    for line in (f"skipped 1 recycle bin item(s): {LEFT_OUT}", "not kept: 5 history version (only its password kept)",
                 "not kept: 1 attachment", "attachment not kept: XmlEntry / file.txt",
                 "not kept: 1 entry custom data item"):
        assert line in out, line


@pytest.mark.parametrize("text", [
    '<?xml version="1.0"?><!DOCTYPE KeePassFile [<!ENTITY x "y">]><KeePassFile><Root/></KeePassFile>',
    "<KeePassFile><Meta/></KeePassFile>",
    "<KeePassFile><Root><Group><Name>Root</Name>",
    "<NotKeePass/>",
])
def test_keepass_xml_refusals(tmp_path, dv, text):
    proc, _ = run_import(dv, tmp_path, text, name="kp.xml", ok=1)
    if text == "<KeePassFile><Meta/></KeePassFile>":   # well-formed, no Root (docs/vault-import.md)
        assert "kp.xml:1: not a KeePass document: no KeePassFile/Root element" in proc.stderr, proc.stderr
    elif "KeePassFile" in text:
        assert "XML error:" in proc.stderr, proc.stderr


def one_pux():
    iid = uuid.uuid4().hex
    login = {
        "uuid": iid, "favIndex": 1, "createdAt": 1600000000, "updatedAt": 1650000000, "state": "active",
        "categoryUuid": "001",
        "overview": {"title": "GitHub", "url": "https://github.com",
                     "urls": [{"url": "https://github.com"}, {"url": "https://gist.github.com"}], "tags": ["dev"]},
        "details": {
            "loginFields": [{"value": "octo", "id": "u", "name": "username", "fieldType": "T",
                             "designation": "username"},
                            {"value": "1p-Pass", "id": "p", "name": "password", "fieldType": "P",
                             "designation": "password"},
                            {"value": "77", "id": "pin-id", "name": "", "fieldType": "P"}],
            "notesPlain": "1p notes", "passwordHistory": [{"value": "1p-old", "time": 1550000000}],
            "sections": [{"title": "S", "fields": [
                {"title": "one-time", "id": "t", "value": {"totp": "otpauth://totp/g?secret=QQ"}},
                {"title": "api", "id": "a", "value": {"concealed": "api-key"}},
                {"title": "n", "id": "n", "value": {"number": 5}},
                {"title": "flag", "id": "f", "value": {"boolean": True}},
                {"title": "doc", "id": "d", "value": {"file": {"fileName": "a.pdf"}}}]}]},
    }
    memo = {"uuid": uuid.uuid4().hex, "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1600000000,
            "state": "active", "categoryUuid": "003", "overview": {"title": "Memo", "tags": []},
            "details": {"notesPlain": "memo text", "loginFields": [], "sections": []}}
    card = dict(memo, uuid=uuid.uuid4().hex, categoryUuid="002", overview={"title": "Card"})
    gone = dict(memo, uuid=uuid.uuid4().hex, state="archived", overview={"title": "Old"})
    data = {"accounts": [{"attrs": {"name": "me"}, "vaults": [{"attrs": {"name": "Private"},
                                                               "items": [login, memo, card, gone]}]}]}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("export.attributes", "{}")
        z.writestr("export.data", json.dumps(data))
    return buf.getvalue(), iid


def test_1pux_mapping(tmp_path, dv):
    data, iid = one_pux()
    proc, got = run_import(dv, tmp_path, data, name="x.1pux")
    assert set(got) == {"GitHub", "Memo"}
    g = got["GitHub"]
    assert g["username"] == "octo" and g["password"] == "1p-Pass" and g["folder"] == "Private"
    assert g["website"] == "https://github.com" and g["uris"] == ["https://gist.github.com"]
    assert g["details"] == "1p notes" and g["tags"] == ["dev"] and g.get("favorite") is True
    assert g["created"] == 1600000000000 and g["modified"] == 1650000000000
    assert g["history"] == [{"changed": 1550000000000, "password": "1p-old"}]
    assert g["totp"] == "otpauth://totp/g?secret=QQ"
    assert g["fields"] == [{"hidden": True, "name": "pin-id", "value": "77"},
                           {"hidden": True, "name": "api", "value": "api-key"},
                           {"hidden": False, "name": "n", "value": "5"},
                           {"hidden": False, "name": "flag", "value": "1"}]
    assert got["Memo"]["kind"] == "note" and got["Memo"]["text"] == "memo text"
    out = proc.stdout + proc.stderr
    assert "attachment not kept: GitHub / a.pdf" in out and "skipped 1 credit card item(s)" in out
    assert "skipped 1 archived item(s)" in out


@pytest.fixture(scope="module")
def kdbx_base(tmp_path_factory):
    from pykeepass import create_database
    path = tmp_path_factory.mktemp("kdbx") / "base.kdbx"
    kp = create_database(str(path), password=KDBX_PW)
    params = kp.kdbx.header.value.dynamic_header.kdf_parameters.data.dict
    params["I"].value, params["M"].value, params["P"].value = 1, 1 << 20, 1
    kp.kdbx.body.transformed_key = None
    work = kp.add_group(kp.root_group, "Work")
    sub = kp.add_group(work, "Sub")
    e = kp.add_entry(sub, "KdbxOne", "ku", "kdbx-Entry-Pw", url="https://k.example/x", notes="kn",
                     tags=["t1", "t2"])
    e.set_custom_property("hiddenprop", "hv", protect=True)
    e.set_custom_property("plainprop", "pv")
    e.otp = "otpauth://totp/k?secret=KK"
    trashed = kp.add_entry(kp.root_group, "Trashed", "tu", "tp")
    kp.trash_entry(trashed)
    kp.save()
    return path


def test_kdbx4_import_matches_pykeepass(tmp_path, dv, kdbx_base):
    from pykeepass import PyKeePass
    src = tmp_path / "db.kdbx"
    shutil.copy(kdbx_base, src)
    oracle = PyKeePass(str(src), password=KDBX_PW).find_entries(title="KdbxOne", first=True)
    vault = write_vault(tmp_path / "v.dvault", [])
    proc = dv("import", vault, src, env={"DOSSIER_IMPORT_PASSWORD": KDBX_PW})
    got = {i["title"]: i for i in live(read_vault(vault)[1])}
    assert set(got) == {"KdbxOne"}
    k = got["KdbxOne"]
    assert k["id"] == str(oracle.uuid).upper() and k["folder"] == "Work/Sub" and k["username"] == "ku"
    assert k["password"] == "kdbx-Entry-Pw" and k["website"] == "https://k.example/x" and k["details"] == "kn"
    assert k["totp"] == "otpauth://totp/k?secret=KK" and k["tags"] == ["t1", "t2"]
    assert sorted((f["name"], f["hidden"], f["value"]) for f in k["fields"]) == [
        ("hiddenprop", True, "hv"), ("plainprop", False, "pv")]
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    assert k["created"] == int((oracle.ctime - epoch).total_seconds() * 1000)
    assert k["modified"] == int((oracle.mtime - epoch).total_seconds() * 1000)
    assert f"skipped 1 recycle bin item(s): {LEFT_OUT}" in proc.stdout + proc.stderr
    dv.assert_no_leak(KDBX_PW, "kdbx-Entry-Pw", "hv")


def test_kdbx_password_file_with_crlf(tmp_path, dv, kdbx_base):
    pwfile = tmp_path / "pw.txt"
    pwfile.write_bytes(KDBX_PW.encode() + b"\r\nsecond line\n")
    vault = write_vault(tmp_path / "v.dvault", [])
    dv("import", vault, kdbx_base, "--import-password-file", pwfile)
    assert [i["title"] for i in live(read_vault(vault)[1])] == ["KdbxOne"]


@pytest.mark.parametrize("damage", ["password", "header", "payload", "truncated"])
def test_kdbx_refusals_write_nothing(tmp_path, dv, kdbx_base, damage):
    data = bytearray(kdbx_base.read_bytes())
    pw = KDBX_PW
    if damage == "password":
        pw = "not-the-password"
    elif damage == "header":
        data[20] ^= 0x01
    elif damage == "payload":
        data[-40] ^= 0x01
    else:
        del data[len(data) // 2:]
    src = tmp_path / "db.kdbx"
    src.write_bytes(bytes(data))
    vault = write_vault(tmp_path / "v.dvault", [])
    before = vault.read_bytes()
    proc = dv("import", vault, src, env={"DOSSIER_IMPORT_PASSWORD": pw}, ok=1)
    assert vault.read_bytes() == before
    if damage == "password":
        assert "wrong password or key file" in proc.stderr
    dv.assert_no_leak(KDBX_PW)


def test_kdbx_key_file_only(tmp_path, dv):
    from pykeepass import create_database
    key = tmp_path / "any.key"
    key.write_bytes(b"not a keepass xml key file, hashed whole\n" * 3)
    db = tmp_path / "k.kdbx"
    kp = create_database(str(db), password=None, keyfile=str(key))
    kp.add_entry(kp.root_group, "KeyOnly", "u", "key-only-Pw")
    kp.save()
    vault = write_vault(tmp_path / "v.dvault", [])
    dv("import", vault, db, "--key-file", key, env={"DOSSIER_IMPORT_PASSWORD": ""})
    (item,) = live(read_vault(vault)[1])
    assert item["title"] == "KeyOnly" and item["password"] == "key-only-Pw" and item["folder"] == ""
