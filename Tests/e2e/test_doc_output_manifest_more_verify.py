"""docs/archive.md, "Verification (`--verify`)" and "Reading a zip", from the docs alone:
bags Dossier writes, bags bagit.py writes, damaged and hostile bags and zips (each must
fail in Dossier and, where bagit.py reads the same rule, in bagit.py too), hostile site
manifests. Helpers come from test_doc_output_manifest.py and test_doc_output_manifest_more.py.
"""
import os
import warnings
import zipfile

import bagit
import pytest

from test_doc_output_manifest import dossier, make_project, manifest_text, ok, regular_files, tree_state
from test_doc_output_manifest_more import (DATE, assert_folder_bag, bagit_valid, digest_lines, expected_bag,
                                           info_for)


# MARK: - --verify

def test_verify_folder_zip_and_project(tmp_path):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi\n"})
    ok("build", project, "-q")
    ok("archive", project, "--zip", "--date", DATE)
    proc = ok("archive", "--verify", "p", cwd=tmp_path)
    assert "p/_site-bag.zip: valid bag" in proc.out  # only the zip exists
    ok("archive", project, "--date", DATE)
    proc = ok("archive", "--verify", "p", cwd=tmp_path)
    assert "p/_site-bag: valid bag" in proc.out


def _tamper_payload(bag):
    page = bag / "data" / "site" / "index.html"
    data = bytearray(page.read_bytes())
    data[10] ^= 1
    page.write_bytes(bytes(data))


def _tamper_tag(bag):
    with open(bag / "bag-info.txt", "a") as f:
        f.write("Extra: 1\n")


def _fetch(bag):
    (bag / "fetch.txt").write_text("https://e.org/x 1 data/x\n")


def _extra_payload(bag):
    (bag / "data" / "site" / "stray.txt").write_text("stray")


def _oxum(bag):
    info = (bag / "bag-info.txt").read_text().splitlines()
    info = [line if not line.startswith("Payload-Oxum: ") else "Payload-Oxum: 1.1" for line in info]
    (bag / "bag-info.txt").write_text("\n".join(info) + "\n")
    want = {n: (bag / n).read_bytes() for n in ("bag-info.txt", "bagit.txt", "manifest-sha256.txt")}
    (bag / "tagmanifest-sha256.txt").write_bytes(digest_lines(want, "sha256"))


def _outside(bag):
    with open(bag / "manifest-sha256.txt", "a") as f:
        f.write(f"{'0' * 64}  data/../bagit.txt\n")


@pytest.mark.parametrize("damage", [_tamper_payload, _tamper_tag, _fetch, _extra_payload, _oxum, _outside])
def test_verify_reports_a_damaged_bag_like_bagit_py(tmp_path, damage):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi there, a page\n"})
    ok("build", project, "-q")
    ok("archive", project, "--date", DATE)
    bag = project / "_site-bag"
    damage(bag)
    proc = dossier("archive", "--verify", bag)
    assert proc.returncode == 1, proc.out
    if damage not in (_fetch, _outside):
        assert not bagit_valid(bag)


def test_verify_accepts_a_bag_bagit_py_made_and_its_zip(tmp_path):
    folder = tmp_path / "pybag"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.txt").write_text("hello")
    (folder / "b b.txt").write_bytes(b"")
    bagit.make_bag(str(folder), checksums=["sha256", "md5"])
    proc = ok("archive", "--verify", folder)
    assert "valid bag" in proc.out
    z = tmp_path / "pybag.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as out:
        for rel, data in regular_files(folder):
            out.writestr("pybag/" + rel, data)
    ok("archive", "--verify", z)
    damaged = bytearray(z.read_bytes())
    at = damaged.index(b"pybag/data/sub/a.txt") + len(b"pybag/data/sub/a.txt")
    damaged[at] ^= 0xFF
    z.write_bytes(bytes(damaged))
    assert dossier("archive", "--verify", z).returncode == 1


@pytest.mark.parametrize("damage", ["bagit version", "no payload manifest", "two top folders", "file at the top",
                                    "bad crc"])
def test_verify_refuses_what_is_not_a_complete_bag(tmp_path, damage):
    project = make_project(tmp_path / "p", content={"index.md": "# Hi there, a page of words\n"})
    ok("build", project, "-q")
    ok("archive", project, "--date", DATE)
    bag = project / "_site-bag"
    target = bag
    if damage == "bagit version":
        (bag / "bagit.txt").write_text("BagIt-Version: 0.97\nTag-File-Character-Encoding: UTF-8\n")
    elif damage == "no payload manifest":
        (bag / "manifest-sha256.txt").unlink()
        (bag / "tagmanifest-sha256.txt").unlink()
    else:
        target = tmp_path / "bag.zip"
        files = {rel: data for rel, data in regular_files(bag)}
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
            for rel, data in files.items():
                z.writestr("b/" + rel, data)
            if damage == "two top folders":
                z.writestr("c/x.txt", "x")
            elif damage == "file at the top":
                z.writestr("x.txt", "x")
        if damage == "bad crc":
            raw = bytearray(target.read_bytes())
            name = b"b/data/site/index.html"
            at = raw.index(name) + len(name)  # the first bytes of the deflated page
            raw[at + 5] ^= 0x55
            target.write_bytes(bytes(raw))
    proc = dossier("archive", "--verify", target)
    assert proc.returncode == 1, proc.out
    if damage == "bad crc":
        assert "damaged" in proc.out


@pytest.mark.parametrize("bad", ["b/../evil.txt", "/abs.txt", "b\\x.txt", "C:/x.txt", "b//x.txt", "b/./x.txt",
                                 "b/data/twice.txt"])
def test_zip_reader_refuses_hostile_entry_names_naming_them(tmp_path, bad):
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "f.txt").write_text("f")
    bagit.make_bag(str(folder), checksums=["sha256"])
    target = tmp_path / "bag.zip"
    with zipfile.ZipFile(target, "w") as z:
        for rel, data in regular_files(folder):
            z.writestr("b/" + rel, data)
        z.writestr(bad, "x")
        if bad.endswith("twice.txt"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                z.writestr(bad, "y")
    before = sorted(os.listdir(tmp_path))
    proc = dossier("archive", "--verify", target)
    assert proc.returncode == 1, proc.out
    assert bad in proc.out
    assert sorted(os.listdir(tmp_path)) == before


def test_external_description_defaults_to_the_folder_name(tmp_path):
    project = make_project(tmp_path / "Folder Tïtle", yml="description: d\n")
    ok("build", project, "-q")
    ok("archive", project, "--date", DATE)
    want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "Folder Tïtle"))
    assert_folder_bag(project / "_site-bag", want)


def _pybag(folder):
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.txt").write_text("hello")
    (folder / "b.txt").write_text("b")
    bagit.make_bag(str(folder), checksums=["sha256"])
    return folder


def _retag(bag):
    names = ("bag-info.txt", "bagit.txt", "manifest-sha256.txt")
    (bag / "tagmanifest-sha256.txt").write_bytes(digest_lines({n: (bag / n).read_bytes() for n in names}, "sha256"))


@pytest.mark.parametrize("every", [False, True], ids=["manifest", "every-tag-file"])
@pytest.mark.parametrize("ending", [b"\r\n", b"\r", b"\n"], ids=["crlf", "cr", "lf"])
def test_verify_accepts_manifest_lines_ending_in_crlf_or_cr(tmp_path, ending, every):
    """RFC 8493 tag files may end their lines in LF, CR or CRLF; bagit.py accepts each, so must --verify."""
    bag = _pybag(tmp_path / "b")
    for name in ("manifest-sha256.txt",) + (("bagit.txt", "bag-info.txt") if every else ()):
        (bag / name).write_bytes((bag / name).read_bytes().replace(b"\n", ending))
    _retag(bag)
    if every:
        tm = bag / "tagmanifest-sha256.txt"
        tm.write_bytes(tm.read_bytes().replace(b"\n", ending))
    assert bagit_valid(bag)
    proc = dossier("archive", "--verify", bag)
    assert proc.returncode == 0, proc.out
    (bag / "data" / "b.txt").write_text("c")  # a changed file is still found with these line ends
    proc = dossier("archive", "--verify", bag)
    assert proc.returncode == 1 and "data/b.txt" in proc.out, proc.out


def test_verify_without_payload_oxum_checks_the_rest(tmp_path):
    bag = _pybag(tmp_path / "b")
    info = [ln for ln in (bag / "bag-info.txt").read_text().splitlines() if not ln.startswith("Payload-Oxum")]
    (bag / "bag-info.txt").write_text("\n".join(info) + "\n")
    _retag(bag)
    ok("archive", "--verify", bag)
    (bag / "data" / "b.txt").write_text("c")
    assert dossier("archive", "--verify", bag).returncode == 1


@pytest.mark.parametrize("listed", [("../secret.txt", b"secret\n"), ("./a.txt", b"a\n"), ("a.txt", b"a\n", 2)])
def test_a_hostile_site_manifest_never_puts_outside_files_in_a_bag(tmp_path, listed):
    (tmp_path / "pub" / "site").mkdir(parents=True)
    (tmp_path / "pub" / "secret.txt").write_text("secret\n")
    (tmp_path / "pub" / "site" / "a.txt").write_text("a\n")
    (tmp_path / "pub" / ".site.lock").write_bytes(b"")
    entries = [listed[:2]] * (listed[2] if len(listed) > 2 else 1)
    (tmp_path / "pub" / "site.manifest.json").write_bytes(manifest_text(entries, []))
    before = tree_state(tmp_path)
    proc = dossier("archive", "--site", tmp_path / "pub" / "site", "--date", DATE)
    assert proc.returncode == 1, proc.out
    assert tree_state(tmp_path) == before
