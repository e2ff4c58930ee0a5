"""docs/xml.md, from the document alone, through `dossier vault import` of KeePass 2.x XML.

vault-import.md: a document the XML reader refuses is `XML error: <reason>` with its line
(printed `file:line: XML error: …`), exit 1, nothing imported; an accepted one is read
into the vault, whose `vault list --json --reveal` shows the decoded text.
"""
import json
import re
import shutil

import pytest

from test_doc_readers import run

XNS = "http://www.w3.org/XML/1998/namespace"


def doc(value="x", before="", inside="", after="", decl='<?xml version="1.0" encoding="UTF-8"?>\n'):
    return (decl + before + "<KeePassFile>\n<Root>\n<Group>\n<Name>Root</Name>\n<Entry>\n"
            "<String><Key>Title</Key><Value>T</Value></String>\n"
            f"<String><Key>Password</Key><Value>{value}</Value></String>\n"
            f"</Entry>\n</Group>\n</Root>\n{inside}</KeePassFile>\n{after}")


@pytest.fixture(scope="module")
def empty_vault(tmp_path_factory):
    d = tmp_path_factory.mktemp("xvault")
    r = run("vault", "init", "--kdf", "pbkdf2", d / "v.dvault")
    assert r.returncode == 0, r.stderr
    return d / "v.dvault"


def import_xml(tmp_path, vault, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    p = tmp_path / "export.xml"
    p.write_bytes(data)
    v = tmp_path / "v.dvault"
    shutil.copy(vault, v)
    return run("vault", "import", v, p), str(p), v


def refused(tmp_path, vault, data, line, reason=None):
    r, p, v = import_xml(tmp_path, vault, data)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 1, f"accepted; the document refuses it: {data!r}"
    m = re.search(re.escape(p) + r":(\d+): XML error: (.*)", err)
    assert m, err
    assert int(m.group(1)) == line, err
    if reason:
        assert reason in m.group(2), err
    return m.group(2)


def accepted_password(tmp_path, vault, data):
    r, p, v = import_xml(tmp_path, vault, data)
    assert r.returncode == 0, r.stderr
    items = json.loads(run("vault", "list", "--json", "--reveal", v).stdout)
    assert len(items) == 1
    return items[0]["password"]


# Line 1 is the declaration; doc() puts the Password value on line 8, `inside` on line 12,
# `after` on line 13 (when `inside` is empty).
REFUSALS = [
    (doc(before="<!DOCTYPE KeePassFile>\n"), 2, "a DOCTYPE declaration is refused"),
    (doc(before='<!DOCTYPE k [\n<!ENTITY a "aaaa">\n<!ENTITY b "&a;&a;&a;">\n]>\n', value="&b;"), 2, "DOCTYPE"),
    (doc(inside="<!DOCTYPE x>\n"), 12, "DOCTYPE"),
    (doc(value="&foo;"), 8, "undefined entity"),
    (doc(value="a & b"), 8, None), (doc(value="&amp"), 8, None), (doc(value="&#X41;"), 8, None),
    (doc(value="&#x;"), 8, None), (doc(value="&#0;"), 8, None), (doc(value="&#xD800;"), 8, None),
    (doc(value="&#xFFFE;"), 8, None), (doc(value="&#x110000;"), 8, None), (doc(value="a]]>b"), 8, None),
    (doc(value="\x01"), 8, None), (doc(value="\ufffe"), 8, None), (doc(value="\uffff"), 8, None),
    (doc(decl='<?xml version="1.0" encoding="ISO-8859-1"?>\n'), 1, None),
    (doc(decl='<?xml version="2.0"?>\n'), 1, None), (doc(decl='<?xml version="1."?>\n'), 1, None),
    (doc(decl='<?xml version="1.0" standalone="maybe"?>\n'), 1, None),
    (doc(decl='<?xml encoding="UTF-8" version="1.0"?>\n'), 1, None),
    (doc(decl='<?xml version=1.0?>\n'), 1, None),
    (doc(decl='\n<?xml version="1.0"?>\n'), 2, None), (doc(inside='<?XmL x?>\n'), 12, None),
    (doc(inside="<!-- a -- b -->\n"), 12, None), (doc(inside="<!-- a --->\n"), 12, None),
    (doc(after="<![CDATA[x]]>"), 13, None), (doc(after="text"), 13, None), (doc(after="<KeePassFile/>"), 13, None),
    (doc(inside='<X a=1/>\n'), 12, None), (doc(inside='<X a="<"/>\n'), 12, None),
    (doc(inside='<X a="1" a="2"/>\n'), 12, None), (doc(inside='<X a="1"b="2"/>\n'), 12, None),
    (doc(inside='<X xmlns:p="u" xmlns:q="u" p:a="1" q:a="2"/>\n'), 12, None),
    (doc(inside="<X></Y>\n"), 12, None), (doc(inside="<p:X/>\n"), 12, None), (doc(inside="<a:b:c/>\n"), 12, None),
    (doc(inside="<1X/>\n"), 12, None), (doc(inside='<X xmlns:xmlns="u"/>\n'), 12, None),
    (doc(inside='<X xmlns:p=""/>\n'), 12, None), (doc(inside=f'<X xmlns:p="{XNS}"/>\n'), 12, None),
    (doc(inside='<X xmlns:p="http://www.w3.org/2000/xmlns/"/>\n'), 12, None),
    (doc(inside='<X xmlns:xml="urn:other"/>\n'), 12, None),
    (doc(inside="<!ELEMENT x ANY>\n"), 12, None), (doc(inside="<![CDATA[x]]\n"), 14, "truncated"),
]


@pytest.mark.parametrize("data,line,reason", REFUSALS, ids=[str(k) for k in range(len(REFUSALS))])
def test_refused_at_the_documented_line(tmp_path, empty_vault, data, line, reason):
    refused(tmp_path, empty_vault, data, line, reason)


NOT_UTF8 = [(b"\xc0\x80", "0xC0"), (b"\xed\xa0\x80", "0xED"), (b"\xf4\x90\x80\x80", "0xF4"), (b"\xff", "0xFF"),
            (b"\x80", "0x80"), (b"\xe2\x82", "0xE2")]
PASSWORD_LINE = "<String><Key>Password</Key><Value>"
# vault-import.md 0c: whatever the format (JSON, XML or CSV; detected by content, so each is written to
# export.xml); (bytes with @ where the bad bytes go, line, the line's text before them)
UTF8_FORMATS = {
    "xml": (doc(value="@").encode(), 8, PASSWORD_LINE),
    "json": (b'{"items": [],\n  "note": "@"}\n', 2, '  "note": "'),
    "csv": (b"name,url,username,password\nx,https://a.example,@,p\n", 2, "x,https://a.example,"),
}


@pytest.mark.parametrize("fmt", sorted(UTF8_FORMATS))
@pytest.mark.parametrize("raw,hexa", NOT_UTF8, ids=[h for _, h in NOT_UTF8])
def test_bytes_that_are_not_utf8_are_refused_with_their_line(tmp_path, empty_vault, raw, hexa, fmt):
    """vault-import.md 0c: any file but KDBX and zip must be UTF-8 throughout, checked before its format is
    read: `FILE:LINE: byte C of the line (0xXX) is not UTF-8; save the file as UTF-8` (C the byte column)."""
    data, line, before = UTF8_FORMATS[fmt]
    r, p, v = import_xml(tmp_path, empty_vault, data.replace(b"@", raw))
    assert r.returncode == 1, r.stdout
    want = f"{p}:{line}: byte {len(before.encode()) + 1} of the line ({hexa}) is not UTF-8; save the file as UTF-8"
    assert want in r.stderr.decode("utf-8", "replace").splitlines(), r.stderr
    assert v.read_bytes() == empty_vault.read_bytes()


def test_bytes_that_are_not_utf8_or_not_chars_are_refused(tmp_path, empty_vault):
    for raw in (b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff"):
        r, _, _ = import_xml(tmp_path, empty_vault, doc(value="@").encode().replace(b"@", raw))
        assert r.returncode == 1, raw
    refused(tmp_path, empty_vault, doc(value="@").encode().replace(b"@", b"\x00"), 8)


@pytest.mark.parametrize("prefix", [b"\xfe\xff", b"\xff\xfe", b"\x00<", b"<\x00"])
def test_utf16_and_utf32_are_refused(tmp_path, empty_vault, prefix):
    r, p, _ = import_xml(tmp_path, empty_vault, prefix + doc(decl="").encode())
    assert r.returncode == 1


def test_no_root_element(tmp_path, empty_vault):
    refused(tmp_path, empty_vault, '<?xml version="1.0"?>\n<!-- <KeePassFile> -->\n', 3, "no root element")


def test_truncated_input_is_named_at_its_end(tmp_path, empty_vault):
    refused(tmp_path, empty_vault, doc().split("</Root>")[0], 11, "truncated")


def test_nesting_deeper_than_256_is_refused(tmp_path, empty_vault):
    refused(tmp_path, empty_vault, doc(inside="<X>" * 256 + "\n" + "</X>" * 256 + "\n"), 12)


def test_cr_lf_and_lone_cr_count_as_line_breaks(tmp_path, empty_vault):
    data = doc(value="&nope;").replace("\n", "\r\n")
    refused(tmp_path, empty_vault, data, 8, "undefined entity")
    data = doc(value="&nope;").replace("\n", "\r")
    refused(tmp_path, empty_vault, data, 8, "undefined entity")


TEXTS = [
    ("A&lt;&gt;&amp;&quot;&apos;B", "A<>&\"'B"), ("&#65;&#x42;&#x1F600;&#xe9;", "AB\U0001F600\u00e9"),
    ("<![CDATA[<&amp;]]>", "<&amp;"), ("a<!-- c -->b<?pi x?>c", "abc"), ("a\r\nb\rc&#13;d", "a\nb\nc\rd"),
    ("\u00e9\U0001F600\ue000\ufffd\U0010FFFD", "\u00e9\U0001F600\ue000\ufffd\U0010FFFD"), ("&#x9;&#xA;", "\t\n"),
]
INSIDE = [
    f'<X xmlns:xml="{XNS}" xml:lang="en"/>', '<p:X xmlns:p="u"><p:Y xmlns:p="v"/></p:X>',
    '<X xmlns="u"><Y xmlns=""/></X>', "<X a='1'\tb = \"2\" ></X >", "<X\u00b7-.9 \u00c0:a=\"1\" xmlns:\u00c0=\"u\"/>",
    '<p:X p:a="1" xmlns:p="u"/>', "<X>" * 255 + "</X>" * 255,   # with KeePassFile: 256 levels
]


def test_accepted_text_and_elements_read_as_documented(tmp_path, empty_vault):
    entries = "".join(f"<Entry><String><Key>Title</Key><Value>t{k}</Value></String><String><Key>Password</Key>"
                      f"<Value>{v}</Value></String></Entry>\n" for k, (v, _) in enumerate(TEXTS))
    data = ('<?xml version="1.0"?>\n<KeePassFile>\n<Root>\n<Group>\n<Name>Root</Name>\n' + entries +
            "</Group>\n</Root>\n" + "\n".join(INSIDE) + "\n</KeePassFile>\n")
    r, p, v = import_xml(tmp_path, empty_vault, data)
    assert r.returncode == 0, r.stderr
    got = {i["title"]: i["password"] for i in json.loads(run("vault", "list", "--json", "--reveal", v).stdout)}
    assert got == {f"t{k}": e for k, (_, e) in enumerate(TEXTS)}


@pytest.mark.parametrize("decl", [
    "\ufeff<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n",
    '<?xml version = "1.12"  encoding = "us-ascii"?>\n<!-- c -->\n<?pi?>\n', '<?xml version="1.0" encoding="ASCII"?>',
])
def test_accepted_prologs(tmp_path, empty_vault, decl):
    assert accepted_password(tmp_path, empty_vault, doc(decl=decl)) == "x"
