"""docs/archive.md, "Verification (`--verify`)" and "Reading a zip": bags made by Dossier
and by the `bagit` PyPI package, damaged on purpose, and hostile zips written here."""
import shutil
import struct
import subprocess
import sys
import zipfile

import pytest

from archive_oracle import dossier, hand_site, ok, project


def bagit_valid(bag) -> bool:
    return subprocess.run([sys.executable, "-m", "bagit", "--validate", str(bag)],
                          capture_output=True).returncode == 0


@pytest.fixture
def bag(tmp_path):
    site = hand_site(tmp_path / "w", {"index.html": b"<p>hello</p>\n", "a/b.txt": b"bee\n"})
    ok("archive", "--site", site, "--output", tmp_path / "bag")
    return tmp_path / "bag"


def problem_lines(out):
    return [line for line in out.splitlines() if line.strip()]


def test_a_valid_bag_and_a_project_name_the_bag_checked(tmp_path):
    """"the message names the bag checked (`my-study/_site-bag: valid bag`)"; a project means
    `<output>-bag`, "or `<output>-bag.zip` when only that exists"."""
    root = project(tmp_path, name="my-study")
    ok("archive", root, "--zip")
    p = ok("archive", "--verify", "my-study", cwd=tmp_path)
    assert "my-study/_site-bag.zip: valid bag" in p.out
    ok("archive", root)
    p = ok("archive", "--verify", "my-study", cwd=tmp_path)
    assert "my-study/_site-bag: valid bag" in p.out


def test_dossier_verifies_a_bag_the_bagit_package_wrote_folder_and_zip(tmp_path):
    """The doc's checks are RFC 8493's: a bag made by `bagit.make_bag` (sha256 and sha512
    manifests, its own bag-info) is valid, as a folder and zipped under one top folder."""
    import bagit
    folder = tmp_path / "theirs"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "x.txt").write_text("payload\n")
    (folder / "y.bin").write_bytes(bytes(range(256)))
    bagit.make_bag(str(folder), {"Contact-Name": "Jo"}, checksums=["sha256", "sha512"])
    ok("archive", "--verify", folder)
    shutil.make_archive(str(tmp_path / "theirs"), "zip", tmp_path, "theirs")
    ok("archive", "--verify", tmp_path / "theirs.zip")


def test_all_problems_are_reported_together(bag):
    """"Checks, all reported together (exit 1 when any fails, `path: problem` per line)":
    a changed payload byte, an unlisted file under data/, a fetch.txt and a wrong
    Payload-Oxum, each on its own line naming its path; bagit.py agrees it is invalid."""
    target = bag / "data" / "site" / "index.html"
    target.write_bytes(b"<p>hellO</p>\n")
    (bag / "data" / "extra.txt").write_text("x")
    (bag / "fetch.txt").write_text("http://e.org/x 1 data/x\n")
    p = dossier("archive", "--verify", bag)
    assert p.returncode == 1, p.out
    for path in ("data/site/index.html", "data/extra.txt", "fetch.txt", "bag-info.txt"):
        assert any(f"{bag}/{path}: " in line for line in problem_lines(p.out)), (path, p.out)
    assert not bagit_valid(bag)


@pytest.mark.parametrize("damage", ["bagit-extra-line", "no-bagit", "no-manifest", "tag-file", "dotdot",
                                    "outside-data", "missing-file", "bad-line", "oxum"])
def test_each_documented_check_fails_a_damaged_bag(bag, damage):
    """Checks 1–5: bagit.txt is the two declaration lines; at least one payload manifest;
    every line `checksum<space(s)>path`, the path inside the bag and under `data/`, the file
    exists; tag manifests match; Payload-Oxum equals the payload."""
    man = bag / "manifest-sha256.txt"
    if damage == "bagit-extra-line":
        with open(bag / "bagit.txt", "a") as f:
            f.write("Extra: 1\n")
    elif damage == "no-bagit":
        (bag / "bagit.txt").unlink()
    elif damage == "no-manifest":
        man.unlink()
    elif damage == "tag-file":
        with open(bag / "bag-info.txt", "a") as f:
            f.write("Contact-Name: Mallory\n")
    elif damage == "dotdot":
        (bag.parent / "secret.txt").write_text("s")
        digest = __import__("hashlib").sha256(b"s").hexdigest()
        with open(man, "a") as f:
            f.write(f"{digest}  data/../../secret.txt\n")
    elif damage == "outside-data":
        digest = __import__("hashlib").sha256((bag / "bagit.txt").read_bytes()).hexdigest()
        with open(man, "a") as f:
            f.write(f"{digest}  bagit.txt\n")
    elif damage == "missing-file":
        (bag / "data" / "site" / "a" / "b.txt").unlink()
    elif damage == "bad-line":
        with open(man, "a") as f:
            f.write("not-a-manifest-line\n")
    elif damage == "oxum":
        info = (bag / "bag-info.txt").read_text()
        head, _, _ = info.rpartition("Payload-Oxum: ")
        (bag / "bag-info.txt").write_text(head + "1.1\n")
    p = dossier("archive", "--verify", bag)
    assert p.returncode == 1, (damage, p.out)
    assert "valid bag" not in p.out.replace("not a valid bag", "")
    assert any(line.startswith(f"{bag}/") or f" {bag}/" in line or line.startswith(f"{bag}:")
               for line in problem_lines(p.out)), p.out


def write_zip(path, entries, method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)


def zipped_bag(bag, top="bag"):
    """(name, bytes) of every file of the bag, under top/."""
    return [(f"{top}/{p.relative_to(bag)}", p.read_bytes()) for p in sorted(bag.rglob("*")) if p.is_file()]


@pytest.mark.parametrize("evil", ["../evil.txt", "/abs/evil.txt", "bag\\evil.txt", "bag/./x.txt",
                                  "bag//x.txt", "C:/evil.txt", "bag/data/site/index.html"])
def test_a_zip_with_a_hostile_or_repeated_name_is_refused_naming_the_entry(tmp_path, bag, evil):
    """ZipReader "refuses, before unpacking anything and with a message naming the entry:
    … a name that is empty, absolute, holds `\\`, NUL, a drive letter …, an empty, `.` or `..`
    part …; a name given twice"."""
    z = tmp_path / "evil.zip"
    write_zip(z, zipped_bag(bag) + [(evil, b"gotcha")])
    p = dossier("archive", "--verify", z, cwd=tmp_path)
    assert p.returncode == 1, p.out
    assert evil in p.out, p.out
    assert not (tmp_path.parent / "evil.txt").exists() and not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize("case", ["truncated", "crc", "encrypted", "method", "two-tops", "empty-file"])
def test_a_damaged_or_unusual_zip_is_refused(tmp_path, bag, case):
    """"no end record (not a zip, or cut short)"; "a zip whose CRC fails is reported as
    damaged"; "encryption; methods other than 0 and 8"; "it must hold exactly one top-level
    folder"."""
    z = tmp_path / "b.zip"
    entries = zipped_bag(bag)
    if case == "two-tops":
        entries.append(("other/readme.txt", b"second top folder"))
    if case == "method":
        write_zip(z, entries, method=zipfile.ZIP_BZIP2)
    else:
        write_zip(z, entries, method=zipfile.ZIP_STORED if case == "crc" else zipfile.ZIP_DEFLATED)
    raw = bytearray(z.read_bytes())
    if case == "truncated":
        raw = raw[:-30]
    elif case == "crc":
        at = raw.index(b"<p>hello</p>")
        raw[at + 3] ^= 0x20  # same size, other bytes: only the CRC tells
    elif case == "encrypted":  # zipfile resets flag bits: set bit 0 (encrypted) in every header
        for sig, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            i = raw.find(sig)
            while i >= 0:
                raw[i + at] |= 0x01
                i = raw.find(sig, i + 4)
    elif case == "empty-file":
        raw = bytearray()
    z.write_bytes(bytes(raw))
    p = dossier("archive", "--verify", z)
    assert p.returncode == 1, p.out
    assert "valid bag" not in p.out.replace("not a valid bag", ""), p.out
    if case == "crc":
        assert "damaged" in p.out, p.out


def test_a_stored_entry_whose_two_sizes_differ_is_refused(tmp_path, bag):
    """"a stored entry whose two sizes differ" is refused, naming the entry."""
    z = tmp_path / "b.zip"
    write_zip(z, zipped_bag(bag), method=zipfile.ZIP_STORED)
    raw = bytearray(z.read_bytes())
    name = b"bag/data/site/a/b.txt"
    cd = raw.index(b"PK\x01\x02" + raw[raw.index(b"PK\x01\x02") + 4:raw.index(b"PK\x01\x02") + 6])
    while True:  # the central record of that entry: make its uncompressed size one larger
        n_len = struct.unpack_from("<H", raw, cd + 28)[0]
        if raw[cd + 46:cd + 46 + n_len] == name:
            struct.pack_into("<I", raw, cd + 24, struct.unpack_from("<I", raw, cd + 24)[0] + 1)
            break
        cd = raw.index(b"PK\x01\x02", cd + 4)
    z.write_bytes(bytes(raw))
    p = dossier("archive", "--verify", z)
    assert p.returncode == 1, p.out
    assert "data/site/a/b.txt" in p.out, p.out


@pytest.mark.parametrize("algs", [["md5"], ["sha1"], ["sha512"]])
def test_any_of_the_four_algorithms_makes_a_payload_manifest(tmp_path, algs):
    """"at least one payload manifest; for every `manifest-<alg>.txt` with alg in sha512,
    sha256, sha1, md5 …" — a bag whose only manifest is md5, sha1 or sha512 is valid, and one
    changed byte makes it invalid."""
    import bagit
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "f.txt").write_text("payload\n")
    bagit.make_bag(str(folder), checksums=algs)
    ok("archive", "--verify", folder)
    (folder / "data" / "f.txt").write_text("pAyload\n")
    p = dossier("archive", "--verify", folder)
    assert p.returncode == 1 and f"{folder}/data/f.txt: " in p.out, p.out


def test_payload_oxum_is_optional_and_spaces_between_columns_may_be_several(bag):
    """"`Payload-Oxum` in `bag-info.txt`, when present"; "every line is
    `checksum<space(s)>path`" — no Oxum, and three spaces, is still a valid bag."""
    import hashlib
    info = bag / "bag-info.txt"
    info.write_text("".join(x for x in info.read_text().splitlines(True) if not x.startswith("Payload-Oxum")))
    man = bag / "manifest-sha256.txt"
    man.write_text(man.read_text().replace("  data/", "   data/"))
    tags = ["bag-info.txt", "bagit.txt", "manifest-sha256.txt"]
    (bag / "tagmanifest-sha256.txt").write_text(
        "".join(f"{hashlib.sha256((bag / t).read_bytes()).hexdigest()}  {t}\n" for t in tags))
    p = ok("archive", "--verify", bag)
    assert "valid bag" in p.out
