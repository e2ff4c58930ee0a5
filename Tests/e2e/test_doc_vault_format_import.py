"""docs/vault-import.md: CSV and JSON importers, from the docs alone.

Hand-written exports with the edge cases the doc names (BOM, CRLF, quoted line breaks,
`""` escapes, trimmed case-insensitive headers, extra columns, empty titles, skipped and
not-kept data) are imported into a vault written by the documented writer; the vault is
then decrypted by the documented reader and compared with the documented field mapping.
"""
import datetime
import json
import re
import uuid

import pytest

from test_doc_vault_format import MASTER, dv, live, read_vault, write_vault  # noqa: F401

LEFT_OUT = "left out on purpose (deleted or archived, not items in use)"
NOT_SUPPORTED = "not supported (the vault holds logins and notes only)"


def names_line(stderr, n):
    return f"line {n}" in stderr or f":{n}:" in stderr


def run_import(dv, tmp_path, content, name="export.csv", ok=True):
    src = tmp_path / name
    src.write_bytes(content.encode() if isinstance(content, str) else content)
    vault = write_vault(tmp_path / "v.dvault", [])
    before = vault.read_bytes()
    proc = dv("import", vault, src, ok=ok)
    if proc.returncode != 0:
        assert vault.read_bytes() == before, "a failed read writes nothing"
        return proc, {}
    items = live(read_vault(vault)[1])
    return proc, {i["title"]: i for i in items}


def ms(text):
    return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def test_bitwarden_csv(tmp_path, dv):
    rows = [
        "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp",
        'Work/Sub,1,login,Mail,"line1\nline2",' + '"pin: 1234\nflag",true,'
        '"https://mail.example.com/login,https://alt.example.com",jo,"pw,with""quote",JBSWY3DPEHPK3PXP',
        ",,note,Wifi,ssid: home,,0,,,,",
        ",,card,Visa,,,,,,,",
        "",
    ]
    proc, got = run_import(dv, tmp_path, "\ufeff" + "\r\n".join(rows))
    mail = got["Mail"]
    assert mail["kind"] == "entry" and mail["folder"] == "Work/Sub" and mail["username"] == "jo"
    assert mail["password"] == 'pw,with"quote' and mail["details"] == "line1\nline2"
    assert mail["website"] == "https://mail.example.com/login" and mail["uris"] == ["https://alt.example.com"]
    assert mail["totp"] == "JBSWY3DPEHPK3PXP"
    assert mail["fields"] == [{"hidden": False, "name": "pin", "value": "1234"},
                              {"hidden": False, "name": "flag", "value": ""}]
    assert mail.get("favorite") is True and mail.get("reprompt") is True
    assert got["Wifi"]["kind"] == "note" and got["Wifi"]["text"] == "ssid: home"
    assert "Visa" not in got
    assert f"skipped 1 card item(s): {NOT_SUPPORTED}" in proc.stdout + proc.stderr
    dv.assert_no_leak('pw,with"quote', "JBSWY3DPEHPK3PXP", "line1", MASTER)


def test_chrome_csv_headers_trimmed_extra_columns_and_untitled(tmp_path, dv):
    text = (" Name , URL ,Username,PASSWORD,note,extra\n"
            ",https://jo:urlpw@Shop.Example.com/path?q=1#frag,jo,pw1,a note,x\n"
            ",,nobody,pw2,,y\n"
            "\n"
            "Named,https://n.example,u,pw3,,z\n"
            "Zürich 日本,,ü,pä,,\n"
            ",News.Example.COM/login,n,pw4,,\n")
    _, got = run_import(dv, tmp_path, text)
    assert set(got) == {"shop.example.com", "(untitled)", "Named", "Zürich 日本", "news.example.com"}
    assert got["Zürich 日本"]["username"] == "ü" and got["Zürich 日本"]["password"] == "pä"
    shop = got["shop.example.com"]
    assert shop["website"] == "https://jo:urlpw@Shop.Example.com/path?q=1#frag"
    assert shop["username"] == "jo" and shop["password"] == "pw1" and shop["details"] == "a note"
    assert got["(untitled)"]["password"] == "pw2"


@pytest.mark.parametrize("braces", [False, True])
def test_firefox_csv(tmp_path, dv, braces):
    guid = "5ec0d12f-e194-4279-ae1b-d7d281bb8f1d"
    written = "{" + guid + "}" if braces else guid
    text = ('"url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed",'
            '"timePasswordChanged"\n'
            f'"https://www.mozilla.org/en/","fox","fx-Pass","","https://www.mozilla.org","{written}",'
            '"1500000000000","1700000000000","1600000000000"\n')
    _, got = run_import(dv, tmp_path, text)
    (item,) = got.values()
    assert item["title"] == "www.mozilla.org" and item["username"] == "fox" and item["password"] == "fx-Pass"
    assert item["website"] == "https://www.mozilla.org/en/"
    assert item["id"] == guid.upper()
    assert item["created"] == 1500000000000 and item["passwordChanged"] == 1600000000000


def test_firefox_nan_time_is_error_with_line(tmp_path, dv):
    text = ("url,username,password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged\n"
            f"https://a.example,a,p,,,{uuid.uuid4()},1500000000000,1,1600000000000\n"
            f"https://b.example,b,p,,,{uuid.uuid4()},NaN,1,1600000000000\n")
    proc, _ = run_import(dv, tmp_path, text, ok=1)
    assert names_line(proc.stderr, 3), proc.stderr


def test_keepassxc_csv(tmp_path, dv):
    text = ('"Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created","Tags"\r\n'
            '"Root/Work/Sub","Git","gu","gp","https://git.example","n1","otpauth://totp/g?secret=AB","0",'
            '"2023-05-01T10:20:30Z","2020-01-02T03:04:05Z","a,b"\r\n'
            '"Root","Top","tu","tp","","","","0","","",""\r\n'
            '"Root/Recycle Bin","Trash","x","y","","","","0","","",""\r\n'
            '"Root/Old/Recycle Bin/Deep","Trash2","x","y","","","","0","","",""\r\n')
    proc, got = run_import(dv, tmp_path, text)
    assert set(got) == {"Git", "Top"}
    git = got["Git"]
    assert git["folder"] == "Work/Sub" and git["totp"] == "otpauth://totp/g?secret=AB" and git["details"] == "n1"
    assert git["modified"] == ms("2023-05-01T10:20:30Z") == git["passwordChanged"]
    assert git["created"] == ms("2020-01-02T03:04:05Z") and git["tags"] == ["a", "b"]
    assert got["Top"]["folder"] == ""
    assert f"skipped 2 recycle bin item(s): {LEFT_OUT}" in proc.stdout + proc.stderr


def test_onepassword8_csv(tmp_path, dv):
    text = ("Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes\n"
            'Bank,https://bank.example,bu,bp,,true,false,"money,main",hi\n'
            'Memo,,,,,false,false,private,"the memo"\n'
            "Old,https://old.example,ou,op,,false,true,,\n")
    proc, got = run_import(dv, tmp_path, text)
    assert set(got) == {"Bank", "Memo"}
    bank = got["Bank"]
    assert bank["kind"] == "entry" and bank["tags"] == ["money", "main"] and bank.get("favorite") is True
    assert bank["details"] == "hi" and bank["website"] == "https://bank.example"
    memo = got["Memo"]
    assert memo["kind"] == "note" and memo["text"] == "the memo" and memo["tags"] == ["private"]
    assert f"skipped 1 archived item(s): {LEFT_OUT}" in proc.stdout + proc.stderr


def test_lastpass_csv(tmp_path, dv):
    text = ("url,username,password,totp,extra,name,grouping,fav\n"
            "https://lp.example,lu,lp-Pass,JBSWY3DP,extra text,LP,Personal\\Bank,1\n"
            "http://sn,,,,secure note body,SN,Notes\\Deep,0\n")
    _, got = run_import(dv, tmp_path, text)
    lp = got["LP"]
    assert lp["kind"] == "entry" and lp["folder"] == "Personal/Bank" and lp["details"] == "extra text"
    assert lp["totp"] == "JBSWY3DP" and lp.get("favorite") is True and lp["website"] == "https://lp.example"
    sn = got["SN"]
    assert sn["kind"] == "note" and sn["text"] == "secure note body" and sn["folder"] == "Notes/Deep"
    assert sn.get("favorite", False) is False


def test_csv_errors(tmp_path, dv):
    header = "name,url,username,password\n"
    proc, _ = run_import(dv, tmp_path, "what,is,this\n1,2,3\n", ok=1)
    assert "unrecognised export" in proc.stderr and names_line(proc.stderr, 1), proc.stderr
    proc, _ = run_import(dv, tmp_path, header + "a,b,c,d\nx,y,z\n", ok=1)
    assert names_line(proc.stderr, 3), proc.stderr
    proc, _ = run_import(dv, tmp_path, header + 'a,b,c,d\n"x\n\n,y,z,w\n', ok=1)
    assert names_line(proc.stderr, 3), proc.stderr
    proc, _ = run_import(dv, tmp_path, header + 'a,"b\r\nmore",c,d\r\nx,y,z\n', ok=1)
    assert names_line(proc.stderr, 4), proc.stderr


def test_csv_quoted_line_break_in_first_row_of_crlf_file(tmp_path, dv):
    text = 'name,url,username,password,note\r\nFirst,https://f.example,u,p,"a\nb"\r\nSecond,,u2,p2,"c\r\nd"\r\n'
    _, got = run_import(dv, tmp_path, text)
    assert got["First"]["details"] == "a\nb" and got["Second"]["details"] == "c\r\nd"


def bitwarden_json():
    iid, nid = str(uuid.uuid4()), str(uuid.uuid4())
    login = {
        "id": iid, "type": 1, "name": "Acct", "notes": "bw notes", "folderId": "f1", "favorite": 1,
        "reprompt": True, "creationDate": "2021-01-02T03:04:05.678Z", "revisionDate": "2022-02-03T04:05:06Z",
        "login": {"username": "bwu", "password": "bw-Pass", "totp": "otpauth://totp/a?secret=ZZ",
                  "passwordRevisionDate": "2021-06-01T00:00:00Z",
                  "uris": [{"uri": ""}, {"uri": "https://one.example"}, {"uri": "https://two.example"},
                           {"uri": "https://two.example"}, {"uri": ""}, {"uri": "https://three.example"}],
                  "fido2Credentials": [{"credentialId": "c1"}, {"credentialId": "c2"}]},
        "passwordHistory": [{"lastUsedDate": "2021-05-01T00:00:00Z", "password": "bw-h2"},
                            {"lastUsedDate": "2020-05-01T00:00:00Z", "password": "bw-h1"},
                            {"password": "bw-h3"}],
        "fields": [{"name": "t", "value": "tv", "type": 0}, {"name": "h", "value": "hv", "type": 1.0},
                   {"name": "b", "value": "true", "type": 2}, {"name": "l", "value": None, "type": 3,
                                                                "linkedId": 100}],
        "attachments": [{"fileName": "scan.pdf"}, {"fileName": "key.pem"}],
    }
    note = {"id": nid, "type": 2, "name": "BwNote", "notes": "note body", "favorite": False, "reprompt": 0,
            "secureNote": {"type": 0}, "fields": [{"name": "k", "value": "v", "type": 1}]}
    card = {"id": str(uuid.uuid4()), "type": 3, "name": "Card", "card": {"number": "4111"}}
    ident = {"id": str(uuid.uuid4()), "type": 4, "name": "Me"}
    return {"encrypted": False, "folders": [{"id": "f1", "name": "Team/Ops"}],
            "items": [login, note, card, ident]}, iid, nid


def test_bitwarden_json(tmp_path, dv):
    doc, iid, nid = bitwarden_json()
    proc, got = run_import(dv, tmp_path, json.dumps(doc), name="bw.json")
    acct = got["Acct"]
    assert acct["id"] == iid.upper() and acct["kind"] == "entry" and acct["folder"] == "Team/Ops"
    assert acct["details"] == "bw notes" and acct["username"] == "bwu" and acct["password"] == "bw-Pass"
    assert acct["website"] == "https://one.example"
    assert acct["uris"] == ["https://two.example", "https://three.example"]
    assert acct["totp"] == "otpauth://totp/a?secret=ZZ"
    assert acct["created"] == ms("2021-01-02T03:04:05.678Z") and acct["modified"] == ms("2022-02-03T04:05:06Z")
    assert acct["passwordChanged"] == ms("2021-06-01T00:00:00Z")
    assert acct["history"] == [{"changed": ms("2020-05-01T00:00:00Z"), "password": "bw-h1"},
                               {"changed": ms("2021-05-01T00:00:00Z"), "password": "bw-h2"},
                               {"changed": ms("2022-02-03T04:05:06Z"), "password": "bw-h3"}]
    assert acct["fields"] == [{"hidden": False, "name": "t", "value": "tv"},
                              {"hidden": True, "name": "h", "value": "hv"},
                              {"hidden": False, "name": "b", "value": "true"}]
    assert acct.get("favorite") is True and acct.get("reprompt") is True
    note = got["BwNote"]
    assert note["kind"] == "note" and note["text"] == "note body" and note["id"] == nid.upper()
    assert note["fields"] == [{"hidden": True, "name": "k", "value": "v"}]
    out = proc.stdout + proc.stderr
    assert f"skipped 1 card item(s): {NOT_SUPPORTED}" in out and f"skipped 1 identity item(s): {NOT_SUPPORTED}" in out
    for line in ("not kept: 2 attachment", "not kept: 1 linked field", "not kept: 2 passkey",
                 "attachment not kept: Acct / scan.pdf", "attachment not kept: Acct / key.pem"):
        assert line in out, line
    assert set(got) == {"Acct", "BwNote"}
    dv.assert_no_leak("bw-Pass", "bw-h1", "hv", "note body")


@pytest.mark.parametrize("text,needle", [
    ('{"encrypted": true, "items": []}', None),
    ('{"items": [], "items": []}', None),
    ('{"folders": []}', None),
])
def test_bitwarden_json_refusals(tmp_path, dv, text, needle):
    run_import(dv, tmp_path, text, name="bw.json", ok=1)


def test_zip_refusals(tmp_path, dv):
    import io
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("other.txt", "x")
    proc, _ = run_import(dv, tmp_path, buf.getvalue(), name="a.zip", ok=1)
    assert ("a zip file without export.data: not a 1Password 1PUX export. Export it from 1Password again "
            "(File › Export, format 1PUX) and import the .1pux file as it is, not unpacked and re-zipped"
            ) in proc.stderr


def test_damaged_zip_message(tmp_path, dv):
    proc, _ = run_import(dv, tmp_path, b"PK\x03\x04" + b"\x00" * 40, name="b.1pux", ok=1)
    assert re.search(r"a zip file that cannot be opened \(.+\): export it from 1Password again "
                     r"\(File › Export, format 1PUX\)", proc.stderr), proc.stderr
    assert "not UTF-8 text" not in proc.stderr


# MARK: - docs/vault-cli.md: show, edit, quiet


def test_show_hides_secrets_and_redacts_urls(tmp_path, dv):
    from test_doc_vault_format import make_item
    item = make_item(title="Show Me", username="su", website="https://u:urlpw@s.example/p?q=1#frag",
                     password="sh-Pw-1", details="det-2", totp="JBSWY3DPEHPK3PXP",
                     uris=["https://a:upw@x.example/?k=v"],
                     fields=[{"hidden": True, "name": "pin", "value": "pin-3"}], tags=["t1"], favorite=True,
                     history=[{"changed": 1600000000000, "password": "hist-4"}])
    vault = write_vault(tmp_path / "v.dvault", [item])
    out = dv("show", vault, "show me").stdout
    hidden = "•••••• (use --reveal)"
    assert re.search(r"^field:\s+pin \(hidden\): " + re.escape(hidden) + "$", out, re.M), out
    assert re.search(r"^uri:\s+https://x\.example/\s*$", out, re.M) and re.search(r"^history:", out, re.M)
    assert "favourite" in out and "https://s.example/p" in out
    dv("list", vault)
    dv.assert_no_leak("sh-Pw-1", "det-2", "JBSWY3DPEHPK3PXP", "pin-3", "hist-4", "urlpw", "upw", "q=1", "frag", "k=v")
    revealed = dv("show", vault, item["id"][:4], "--reveal").stdout
    for secret in ("sh-Pw-1", "det-2", "JBSWY3DPEHPK3PXP", "pin-3", "hist-4", "urlpw@s.example/p?q=1#frag"):
        assert secret in revealed, secret


def test_edit_tags_expires_and_refusals(tmp_path, dv):
    from test_doc_vault_format import make_item
    item = make_item(title="Ed", password="e")
    vault = write_vault(tmp_path / "v.dvault", [item])
    dv("edit", vault, "Ed", "--tags", " a, b;a,,c ", "--expires", "2028-02-29", "--favorite", "true")
    (got,) = read_vault(vault)[1]["items"]
    assert got["tags"] == ["a", "b", "c"] and got["expires"] == ms("2028-02-29T00:00:00Z")
    assert got.get("favorite") is True
    for day in ("2026-02-30", "2025-02-29", "2026-04-31", "2026-02-28T10:00"):
        before = vault.read_bytes()
        dv("edit", vault, "Ed", "--expires", day, ok=1)
        assert vault.read_bytes() == before
    dv("edit", vault, "Ed", "--tags", "", "--expires", "never")
    (got,) = read_vault(vault)[1]["items"]
    assert "tags" not in got and "expires" not in got


def test_quiet_prints_nothing_on_success(tmp_path, dv):
    vault = write_vault(tmp_path / "v.dvault", [])
    src = tmp_path / "c.csv"
    src.write_text("name,url,username,password\nQ,https://q.example,qu,qp\n")
    for args in (("add", vault, "--title", "A", "-q"), ("import", vault, src, "--quiet"), ("rm", vault, "A", "-q")):
        proc = dv(*args, env={"DOSSIER_ENTRY_PASSWORD": "a-1"})
        assert proc.stdout == "" and proc.stderr == "", args
    proc = dv("add", vault, "--title", "B", "--generate", "--quiet")
    assert proc.stdout == ""
