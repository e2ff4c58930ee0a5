"""docs/archive.md, re-implemented from the page alone and compared with `dossier archive`.

Every bag is rebuilt here from the site, its manifest and the documented rules (payload
and tag manifests, bag-info.txt's fields and order, Bag-Size, Payload-Oxum, `%`/LF/CR
escapes) and compared file by file; zips are rebuilt byte for byte from "The zip's bytes".
bagit.py (PyPI `bagit`) is the independent validator; refusals must exit 1, say what the
page says and change nothing. Helpers come from test_doc_output_manifest.py.
"""
import datetime
import hashlib
import json
import os
import pathlib
import struct
import zipfile
import zlib

import bagit
import pytest

from test_doc_output_manifest import (HOSTILE_CONTENT, HOSTILE_STATIC, VERSION, dossier, make_project, manifest_text,
                                      ok, regular_files, tree_state)

DATE = "2026-01-02"
BAGIT_TXT = b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"


def bag_size(n: int) -> str:
    if n < 1000:
        return "1 byte" if n == 1 else f"{n} bytes"
    value, units = n / 1000, ["kB", "MB", "GB", "TB"]
    i = 0
    while float(f"{value:.1f}") >= 1000.0 and i < len(units) - 1:
        value, i = value / 1000, i + 1
    return f"{value:.1f} {units[i]}"


def enc(path: str) -> str:
    return path.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D")


def bkey(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def digest_lines(files: dict, alg: str) -> bytes:
    lines = [f"{hashlib.new(alg, files[p]).hexdigest()}  {enc(p)}\n" for p in sorted(files, key=bkey)]
    return "".join(lines).encode("utf-8", "surrogateescape")


def expected_bag(site: pathlib.Path, manifest: pathlib.Path, info, sha512=False) -> dict:
    """path in the bag -> bytes, as archive.md describes the bag of `site`."""
    listed = json.loads(manifest.read_bytes())["files"]
    payload = {"data/site.manifest.json": manifest.read_bytes()}
    for entry in listed:
        payload["data/site/" + entry["path"]] = (site / entry["path"]).read_bytes()
    total = sum(len(b) for b in payload.values())
    lines = list(info) + [("Bag-Size", bag_size(total)), ("Payload-Oxum", f"{total}.{len(payload)}")]
    bag = dict(payload)
    bag["bagit.txt"] = BAGIT_TXT
    bag["bag-info.txt"] = "".join(f"{k}: {v}\n" for k, v in lines).encode("utf-8", "surrogateescape")
    algs = ["sha256"] + (["sha512"] if sha512 else [])
    for alg in algs:
        bag[f"manifest-{alg}.txt"] = digest_lines(payload, alg)
    tagged = {k: bag[k] for k in bag if k in ("bag-info.txt", "bagit.txt") or k.startswith("manifest-")}
    for alg in algs:
        bag[f"tagmanifest-{alg}.txt"] = digest_lines(tagged, alg)
    return bag


def info_for(project: pathlib.Path, title: str, date: str = DATE, extra=()):
    return [("Bag-Software-Agent", f"Dossier {VERSION}"), ("Bagging-Date", date), ("Dossier-Version", VERSION),
            ("Source", project.name.replace("\n", " ")), ("External-Description", title), *extra]


def assert_folder_bag(bag: pathlib.Path, want: dict):
    got = dict(regular_files(bag))
    assert sorted(got, key=bkey) == sorted(want, key=bkey)
    for name in want:
        assert got[name] == want[name], f"{name}:\nprogram {got[name][:400]!r}\ndocs    {want[name][:400]!r}"
    assert not [p for p in bag.rglob("*") if p.is_symlink()]


def dos_date(date: str) -> int:
    y, m, d = map(int, date.split("-"))
    return ((y - 1980) << 9 | m << 5 | d) if 1980 <= y <= 2107 else 0x0021


def expected_zip(top: str, files: dict, date: str) -> bytes:
    out, central = bytearray(), bytearray()
    names = sorted((f"{top}/{p}" for p in files), key=bkey)
    for name in names:
        data, raw = files[name[len(top) + 1:]], bkey(name)
        crc, packed = zlib.crc32(data), zlib.compress(data, 6, wbits=-15)
        method = 8
        if len(packed) >= len(data):
            method, packed = 0, data
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x0800, method, 0, dos_date(date), crc, len(packed),
                           len(data), len(raw), 0) + raw + packed
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, 0x0800, method, 0, dos_date(date), crc,
                               len(packed), len(data), len(raw), 0, 0, 0, 0, 0x81A40000, offset) + raw
    start = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(names), len(names), len(central), start, 0)
    return bytes(out)


def bagit_valid(path: pathlib.Path) -> bool:
    try:
        bagit.Bag(str(path)).validate()
        return True
    except (bagit.BagError, bagit.BagValidationError):
        return False


# bagit.py 1.9 reads '%' literally and splits manifest lines at U+2028 (RFC 8493 does neither): those
# names are checked by test_percent_lf_cr_names_are_escaped_in_the_manifests (a backslash is refused by build)
NO_PERCENT = {k: v for k, v in HOSTILE_STATIC.items() if not set(k) & set("%\\\u2028")}


@pytest.fixture
def built(tmp_path):
    project = make_project(tmp_path / "hostile stüdy", yml="title: Hostile ü\n", content=HOSTILE_CONTENT,
                           static=NO_PERCENT)
    ok("build", project, "-q")
    return project


# MARK: - the bag

def test_folder_bag_is_the_documented_one_and_bagit_py_validates_it(built):
    before = tree_state(built / "_site")
    ok("archive", built, "--date", DATE)
    bag = built / "_site-bag"
    want = expected_bag(built / "_site", built / "_site.manifest.json", info_for(built, "Hostile ü"))
    assert_folder_bag(bag, want)
    assert bagit_valid(bag)
    assert tree_state(built / "_site") == before
    assert not [n for n in os.listdir(built) if ".tmp-" in n]
    ok("archive", "--verify", bag)


def test_percent_lf_cr_names_are_escaped_in_the_manifests(tmp_path):
    static = {"100%.txt": b"p", "%0A.txt": b"literal", "a\nb.txt": b"lf", "c\rd.txt": b"cr", "a b.txt": b"s",
              "u\u2028v.txt": b"ls"}
    project = make_project(tmp_path / "p", static=static)
    ok("build", project, "-q")
    ok("archive", project, "--date", DATE)
    want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "T"))
    assert_folder_bag(project / "_site-bag", want)
    assert b"data/site/%250A.txt\n" in want["manifest-sha256.txt"]
    proc = ok("archive", "--verify", project / "_site-bag")
    assert "valid bag" in proc.out


def test_a_backslash_static_name_is_refused_by_build_so_the_archive_keeps_the_previous_site(tmp_path):
    """manifest.md: a static name holding '\\' is refused at build ('the site could not be archived');
    output-manifest.md: a failed build leaves the site byte-identical, so the bag is the previous site's."""
    project = make_project(tmp_path / "p", static={"ok.txt": b"ok"})
    ok("build", project, "-q")
    (project / "static" / "b\\s.txt").write_bytes(b"backslash")
    proc = dossier("build", project, "-q")
    assert proc.returncode == 1, proc.out
    assert ("static/b\\s.txt: static file names may not contain '\\' (a folder separator in zip files and on "
            "Windows: the site could not be archived); rename the file") in proc.stderr.splitlines(), proc.out
    ok("archive", project, "--date", DATE)
    want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "T"))
    assert "data/site/ok.txt" in want and not [k for k in want if "\\" in k]
    assert_folder_bag(project / "_site-bag", want)


def test_bag_manifest_lines_are_in_byte_order_for_nfd_names(tmp_path):
    project = make_project(tmp_path / "p", static={"e\u0301x.txt": b"nfd", "f.txt": b"f"})
    ok("build", project, "-q")
    ok("archive", project, "--date", DATE)
    want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "T"))
    assert (project / "_site-bag" / "manifest-sha256.txt").read_bytes() == want["manifest-sha256.txt"]


def test_zip_of_nfd_names_is_in_byte_order(tmp_path):
    project = make_project(tmp_path / "p", static={"e\u0301x.txt": b"nfd", "f.txt": b"f"})
    ok("build", project, "-q")
    ok("archive", project, "--zip", "--date", DATE)
    names = [i.filename for i in zipfile.ZipFile(project / "_site-bag.zip").infolist()]
    assert names == sorted(names, key=bkey)


@pytest.mark.parametrize("how", ["flag", "yml"])
def test_sha512_manifests_and_tag_manifests(tmp_path, how):
    yml = "title: S\n" + ("archive:\n  sha512: true\n" if how == "yml" else "")
    project = make_project(tmp_path / "p", yml=yml, content={"index.md": "# Hi\n"}, static={"e.txt": b""})
    ok("build", project, "-q")
    ok("archive", project, "--date", DATE, *(["--sha512"] if how == "flag" else []))
    want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "S"), sha512=True)
    assert_folder_bag(project / "_site-bag", want)
    tags = want["tagmanifest-sha256.txt"]
    assert b"tagmanifest" not in tags and b"manifest-sha512.txt" in tags
    assert bagit_valid(project / "_site-bag")


def test_archive_block_fields_in_documented_order_trimmed_and_title_line_breaks(tmp_path):
    yml = ('title: "Line one\\nline two"\narchive:\n  bag_group_identifier: grp-1\n  contact_email: jo@example.org\n'
           '  external_identifier: "  ext  "\n  contact_name: Jo Doe\n  source_organization: "Uni, Lab ü"\n')
    project = make_project(tmp_path / "pro\nject", yml=yml)
    ok("build", project, "-q")
    ok("archive", project, "--date", DATE)
    extra = [("Source-Organization", "Uni, Lab ü"), ("Contact-Name", "Jo Doe"), ("Contact-Email", "jo@example.org"),
             ("External-Identifier", "ext"), ("Bag-Group-Identifier", "grp-1")]
    want = expected_bag(project / "_site", project / "_site.manifest.json",
                        info_for(project, "Line one line two", extra=extra))
    assert_folder_bag(project / "_site-bag", want)


@pytest.mark.parametrize("block,line,needle", [
    ("archive:\n  contact_email: x\n", 3, "dossier.yml:3: archive.contact_email: 'x' is not an e-mail address"),
    ("archive:\n  contact_email: jo doe@x.org\n", 3, "archive.contact_email"),
    ("archive:\n  contact_nmae: Jo\n", 3, "contact_nmae"),
    ("archive:\n  contact_name: \"\"\n", 3, "archive.contact_name"),
    ("archive:\n  contact_name: \"a\\nb\"\n", 3, "archive.contact_name"),
    ("archive:\n  source_organization: \"   \"\n", 3, "archive.source_organization"),
])
def test_archive_block_errors_name_the_line_and_write_nothing(tmp_path, block, line, needle):
    project = make_project(tmp_path / "p")
    ok("build", project, "-q")
    (project / "dossier.yml").write_text("title: T\n" + block)
    before = tree_state(tmp_path)
    proc = dossier("archive", project, "--date", DATE)
    assert proc.returncode == 1, proc.out
    assert needle in proc.out and f"dossier.yml:{line}:" in proc.out
    assert tree_state(tmp_path) == before


@pytest.mark.parametrize("env,args,date", [
    ({"SOURCE_DATE_EPOCH": "86399"}, [], "1970-01-01"),
    ({"SOURCE_DATE_EPOCH": "1700000000"}, [], "2023-11-14"),
    ({"SOURCE_DATE_EPOCH": "1700000000"}, ["--date", "2001-02-03"], "2001-02-03"),
])
def test_bagging_date_sources(tmp_path, env, args, date):
    project = make_project(tmp_path / "p")
    ok("build", project, "-q")
    ok("archive", project, *args, env=env)
    info = (project / "_site-bag" / "bag-info.txt").read_text().splitlines()
    assert info[1] == f"Bagging-Date: {date}"


def test_bagging_date_defaults_to_today_in_utc(tmp_path):
    project = make_project(tmp_path / "p")
    ok("build", project, "-q")
    days = {datetime.datetime.now(datetime.timezone.utc).date().isoformat()}
    ok("archive", project, env={"TZ": "Pacific/Kiritimati"})
    days.add(datetime.datetime.now(datetime.timezone.utc).date().isoformat())
    assert (project / "_site-bag" / "bag-info.txt").read_text().splitlines()[1] in {f"Bagging-Date: {d}" for d in days}


def _site_of_total(root: pathlib.Path, total: int) -> pathlib.Path:
    """A hand-made site (one file) whose payload (file + manifest) is `total` bytes."""
    site = root / "my site"
    site.mkdir(parents=True)
    size = max(total - 200, 0)
    for _ in range(20):
        mtext = manifest_text([("pad.bin", b"a" * size)], [])
        if size + len(mtext) == total:
            break
        size = total - len(mtext)
    assert size + len(mtext) == total
    (site / "pad.bin").write_bytes(b"a" * size)
    (root / "my site.manifest.json").write_bytes(mtext)
    return site


@pytest.mark.parametrize("total,text", [(999, "999 bytes"), (1000, "1.0 kB"), (1949, "1.9 kB"),
                                        (999_949, "999.9 kB"), (999_950, "1.0 MB"), (1_234_567, "1.2 MB")])
def test_bag_size_of_a_site_bag(tmp_path, total, text):
    site = _site_of_total(tmp_path, total)
    assert bag_size(total) == text  # the reading of the rule itself
    ok("archive", "--site", site, "--date", DATE)
    info = [("Bag-Software-Agent", f"Dossier {VERSION}"), ("Bagging-Date", DATE), ("Dossier-Version", VERSION),
            ("Source", "my site")]
    assert_folder_bag(tmp_path / "my site-bag", expected_bag(site, tmp_path / "my site.manifest.json", info))


# MARK: - the zip

def test_zip_bytes_are_the_documented_ones(built):
    ok("archive", built, "--zip", "--date", DATE)
    want = expected_bag(built / "_site", built / "_site.manifest.json", info_for(built, "Hostile ü"))
    got = (built / "_site-bag.zip").read_bytes()
    assert got == expected_zip("_site-bag", want, DATE)
    ok("archive", built, "--zip", "--date", DATE, "--force")
    assert (built / "_site-bag.zip").read_bytes() == got  # the same bag gives the same zip


@pytest.mark.parametrize("date", ["1979-12-31", "2107-12-31", "2108-01-01", "1980-01-01"])
def test_zip_named_output_top_folder_and_dos_dates(tmp_path, date):
    project = make_project(tmp_path / "p", static={"empty.txt": b"", "rand.bin": os.urandom(3000)})
    ok("build", project, "-q")
    out = tmp_path / "study 2026.zip"
    ok("archive", project, "--output", out, "--date", date)
    want = expected_bag(project / "_site", project / "_site.manifest.json", info_for(project, "T", date=date))
    assert out.read_bytes() == expected_zip("study 2026", want, date)
    with zipfile.ZipFile(out) as z:
        assert z.testzip() is None
        methods = {i.filename.split("/")[-1]: i.compress_type for i in z.infolist()}
    assert methods["empty.txt"] == 0 and methods["rand.bin"] == 0 and methods["index.html"] == 8
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(out).extractall(unpacked)
    assert bagit_valid(unpacked / "study 2026")
