"""Dossier's XML reader (docs/xml.md) through `dossier vault import`: damaged KeePass XML,
DTDs and entity tricks are clear errors naming the file and line, nothing is imported,
and no external file is ever read."""
import os
import shutil
import subprocess

import pytest

MASTER = {"DOSSIER_VAULT_PASSWORD": "e2e master pass phrase"}

GOOD_ENTRY = "<Entry><String><Key>Title</Key><Value>Mail</Value></String></Entry>"

CASES = {
    # name: (document, line, words in the message)
    "mismatched": ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<KeePassFile>\n<Root><Group><Name>R</Name>\n"
                   + GOOD_ENTRY + "\n<Entry><String><Key>Title</Key><Value>x</Key></String></Entry>\n"
                   "</Group></Root></KeePassFile>\n", 5, "does not match"),
    "truncated": ("<KeePassFile>\r\n<Root>\r\n<Group>\r\n" + GOOD_ENTRY + "\r\n<Entry><String>", 5, "truncated"),
    "billion-laughs": ("<?xml version=\"1.0\"?>\n<!DOCTYPE KeePassFile [\n<!ENTITY a \"aaaaaaaaaa\">\n"
                       + "".join(f"<!ENTITY {c} \"{('&' + p + ';') * 10}\">\n" for p, c in zip("abcdefgh", "bcdefghi"))
                       + "]>\n<KeePassFile><Root><Group><Entry><String><Key>Title</Key><Value>&i;</Value></String>"
                       "</Entry></Group></Root></KeePassFile>\n", 2, "DOCTYPE"),
    "external-entity": ("<?xml version=\"1.0\"?>\n\n<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
                        "<KeePassFile><Root><Group>" + GOOD_ENTRY.replace("Mail", "&x;") + "</Group></Root></KeePassFile>",
                        3, "DOCTYPE"),
    "undefined-entity": ("<KeePassFile>\n<Root>\n<Group>\n" + GOOD_ENTRY.replace("Mail", "&nbsp;") +
                         "</Group></Root></KeePassFile>", 4, "undefined entity"),
    "latin1": ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<KeePassFile><Root/></KeePassFile>", 1, "encoding"),
}


@pytest.fixture(scope="module")
def empty_vault(dossier_bin, tmp_path_factory):
    """One empty vault, created once; each test works on a copy."""
    if "vault" not in subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout:
        pytest.skip("built without the vault domain")
    v = tmp_path_factory.mktemp("xml") / "empty.dvault"
    subprocess.run([dossier_bin, "vault", "init", str(v), "--kdf", "pbkdf2"], env={**os.environ, **MASTER},
                   check=True, capture_output=True)
    return v


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_keepass_xml_names_file_and_line(run_dossier, empty_vault, tmp_path, name):
    doc, line, words = CASES[name]
    v = tmp_path / "v.dvault"
    shutil.copy(empty_vault, v)
    before = v.read_bytes()
    src = tmp_path / f"{name}.xml"
    src.write_bytes(doc.encode("utf-8"))
    r = run_dossier("vault", "import", v, src, env=MASTER, check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{name}.xml:{line}:" in r.stderr and words in r.stderr, r.stderr
    assert "root:" not in r.stdout + r.stderr          # /etc/passwd never read
    assert v.read_bytes() == before                     # nothing imported, nothing half-written
    assert "Mail" not in run_dossier("vault", "list", v, env=MASTER).stdout


def test_bom_crlf_cdata_and_references_in_keepass_xml_still_import(run_dossier, empty_vault, tmp_path):
    v = tmp_path / "v.dvault"
    shutil.copy(empty_vault, v)
    src = tmp_path / "ok.xml"
    src.write_bytes(("\ufeff<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\r\n<!-- exported -->\r\n"
                     "<KeePassFile><Root><Group><Name>R</Name><Entry><String><Key>Title</Key>"
                     "<Value><![CDATA[Caf\u00e9 & <Bar>]]></Value></String><String><Key>UserName</Key>"
                     "<Value>jo&#64;example.com</Value></String></Entry></Group></Root></KeePassFile>\r\n").encode())
    run_dossier("vault", "import", v, src, env=MASTER)
    listed = run_dossier("vault", "list", v, env=MASTER).stdout
    assert "Caf\u00e9 & <Bar>" in listed and "jo@example.com" in listed, listed
