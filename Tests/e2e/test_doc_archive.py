"""docs/archive.md, "The bag" and "`archive:` in dossier.yml", re-implemented from the page.

Every expected byte is computed here from the doc's words (hashlib, the doc's Bag-Size
rule, RFC 8493 path encoding) and compared with what `dossier archive` writes; the
`bagit` PyPI package validates the bags as an independent oracle.
"""
import hashlib
import json
import subprocess
import sys

import pytest

from archive_oracle import (VERSION, bag_size, dossier, encode_path, hand_site, manifest_text, ok,
                            project, site_manifest, tree)


def payload_of(root, site="_site"):
    """What the doc says the payload is: every file the site manifest lists, plus the manifest."""
    raw = (root / f"{site}.manifest.json").read_bytes()
    listed = json.loads(raw)["files"]
    files = {f"data/site/{e['path']}": (root / site / e["path"]).read_bytes() for e in listed}
    files["data/site.manifest.json"] = raw
    return files


def bagit_validate(bag):
    return subprocess.run([sys.executable, "-m", "bagit", "--validate", str(bag)], capture_output=True, text=True)


def test_layout_bagit_txt_and_payload_manifest_are_exactly_the_docs(tmp_path):
    """"<name>/bagit.txt … <name>/data/site/<every file the site manifest lists>
    <name>/data/site.manifest.json"; bagit.txt is exactly
    `BagIt-Version: 1.0\\nTag-File-Character-Encoding: UTF-8\\n`; manifest-sha256.txt is
    `<hex>  data/<path>` sorted by path (byte order)."""
    root = project(tmp_path)
    (root / "_site" / "stray.txt").write_text("not in the manifest\n")
    ok("archive", root, "--output", tmp_path / "bag")
    bag = tmp_path / "bag"
    got = tree(bag)
    payload = payload_of(root)
    tags = {"bagit.txt", "bag-info.txt", "manifest-sha256.txt", "tagmanifest-sha256.txt"}
    assert set(got) == set(payload) | tags  # no sha512 files by default, no stray file
    assert got["bagit.txt"] == b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
    assert all(got[p] == b for p, b in payload.items())
    assert got["manifest-sha256.txt"].decode() == manifest_text(payload, "sha256")
    tag_files = {k: got[k] for k in ("bagit.txt", "bag-info.txt", "manifest-sha256.txt")}
    assert got["tagmanifest-sha256.txt"].decode() == manifest_text(tag_files, "sha256")
    v = bagit_validate(bag)
    assert v.returncode == 0, v.stderr


def test_bag_info_fields_in_the_documented_order(tmp_path):
    """bag-info.txt "in this order": Bag-Software-Agent, Bagging-Date, Dossier-Version,
    Source (project folder name), External-Description (title), the archive: fields in the
    order Source-Organization, Contact-Name, Contact-Email, External-Identifier,
    Bag-Group-Identifier, then Bag-Size and Payload-Oxum (the manifest file included)."""
    block = ("archive:\n"  # written in the reverse of the documented order on purpose
             "  bag_group_identifier: memory-2026\n"
             "  external_identifier: memory-2026-wave-1\n"
             "  contact_email: jo@example.org\n"
             "  contact_name: '  Jo Doe  '\n"
             "  source_organization: University of Somewhere, Memory Lab\n")
    root = project(tmp_path, name="my-study", title="Memory study", archive_block=block)
    ok("archive", root, "--output", tmp_path / "bag", "--date", "2026-03-04")
    payload = payload_of(root)
    size = sum(len(b) for b in payload.values())
    expected = (f"Bag-Software-Agent: Dossier {VERSION}\n"
                "Bagging-Date: 2026-03-04\n"
                f"Dossier-Version: {VERSION}\n"
                "Source: my-study\n"
                "External-Description: Memory study\n"
                "Source-Organization: University of Somewhere, Memory Lab\n"
                "Contact-Name: Jo Doe\n"
                "Contact-Email: jo@example.org\n"
                "External-Identifier: memory-2026-wave-1\n"
                "Bag-Group-Identifier: memory-2026\n"
                f"Bag-Size: {bag_size(size)}\n"
                f"Payload-Oxum: {size}.{len(payload)}\n")
    assert (tmp_path / "bag" / "bag-info.txt").read_text() == expected


def test_line_breaks_in_a_value_become_spaces(tmp_path):
    """"one `Label: value` per line (line breaks in values become spaces)" — the title
    is External-Description's value."""
    root = project(tmp_path, title="Two\nlines")
    ok("archive", root, "--output", tmp_path / "bag")
    lines = (tmp_path / "bag" / "bag-info.txt").read_text().split("\n")
    assert "External-Description: Two lines" in lines


@pytest.mark.parametrize("epoch,day", [("0", "1970-01-01"), ("1709251199", "2024-02-29")])
def test_bagging_date_is_the_utc_day_of_source_date_epoch(tmp_path, epoch, day):
    """"`Bagging-Date: YYYY-MM-DD` (`--date`, else the UTC day of `SOURCE_DATE_EPOCH` when
    set, else today in UTC)"."""
    root = project(tmp_path)
    ok("archive", root, "--output", tmp_path / "bag", env={"SOURCE_DATE_EPOCH": epoch, "TZ": "Pacific/Kiritimati"})
    assert f"Bagging-Date: {day}\n" in (tmp_path / "bag" / "bag-info.txt").read_text()
    ok("archive", root, "--output", tmp_path / "bag2", "--date", "2001-02-03", env={"SOURCE_DATE_EPOCH": epoch})
    assert "Bagging-Date: 2001-02-03\n" in (tmp_path / "bag2" / "bag-info.txt").read_text()


@pytest.mark.parametrize("date", ["2026-02-30", "2026-13-01", "0000-00-00"])
def test_a_date_that_is_no_calendar_day_is_a_usage_error(tmp_path, date):
    """`--date YYYY-MM-DD` is the Bagging-Date (RFC 8493 §2.2.2: an ISO 8601 date) and the
    zip's MS-DOS date "(year − 1980) << 9 | month << 5 | day": a month 13 or a 30 February
    is no date; the exit status for a usage error is 2 (`dossier --help`)."""
    root = project(tmp_path)
    p = dossier("archive", root, "--output", tmp_path / "bag", "--date", date)
    assert p.returncode == 2, p.out
    assert not (tmp_path / "bag").exists()


@pytest.mark.parametrize("total", [999, 1000, 1049, 1050, 12345, 999949, 999950, 1234567])
def test_bag_size_and_payload_oxum_from_the_payload_bytes(tmp_path, total):
    """"`Bag-Size` is the same byte count in decimal units: `N bytes` below 1,000; otherwise
    the value divided by 1,000 (then by 1,000 again while it would print as 1000.0 or more)
    with one decimal, `%.1f` rounding"; `Payload-Oxum: <bytes>.<files>` with the manifest
    file included. The payload is sized here to land on the rounding edges."""
    n = total - 200
    for _ in range(10):  # the manifest's length depends on the digits of n only
        n = total - len(site_manifest({"f.bin": b"x" * n}))
    assert n + len(site_manifest({"f.bin": b"x" * n})) == total
    site = hand_site(tmp_path / "w", {"f.bin": b"x" * n})
    ok("archive", "--site", site, "--output", tmp_path / "bag")
    info = (tmp_path / "bag" / "bag-info.txt").read_text().splitlines()
    assert f"Bag-Size: {bag_size(total)}" in info
    assert f"Payload-Oxum: {total}.2" in info


def test_site_bags_carry_the_site_folder_name_and_no_project_fields(tmp_path):
    """"`Source: <project folder name>` (with `--site`: the site folder's name)",
    "`External-Description: <project title>` (projects only)", "`--site DIR` bags (no
    project) carry none of these fields"."""
    site = hand_site(tmp_path / "w", {"index.html": b"<p>hi</p>\n"}, name="public")
    ok("archive", "--site", site, "--output", tmp_path / "bag", "--date", "2026-01-02")
    labels = [line.split(":")[0] for line in (tmp_path / "bag" / "bag-info.txt").read_text().splitlines()]
    assert labels == ["Bag-Software-Agent", "Bagging-Date", "Dossier-Version", "Source", "Bag-Size", "Payload-Oxum"]
    assert "Source: public\n" in (tmp_path / "bag" / "bag-info.txt").read_text()


@pytest.mark.parametrize("how", ["flag", "yaml"])
def test_sha512_manifests_and_the_two_tag_manifests(tmp_path, how):
    """manifest-sha512.txt "with --sha512 or archive.sha512": "the same lines with lower-case
    hex SHA-512"; tagmanifest-sha256.txt lists bag-info.txt, bagit.txt, manifest-sha256.txt
    and manifest-sha512.txt (sorted), tagmanifest-sha512.txt likewise; "Neither tag
    manifest lists the other"."""
    root = project(tmp_path, archive_block="archive:\n  sha512: true\n" if how == "yaml" else "")
    ok("archive", root, "--output", tmp_path / "bag", *(["--sha512"] if how == "flag" else []))
    got = tree(tmp_path / "bag")
    payload = payload_of(root)
    assert got["manifest-sha512.txt"].decode() == manifest_text(payload, "sha512")
    assert got["manifest-sha256.txt"].decode() == manifest_text(payload, "sha256")
    tag = {k: got[k] for k in ("bagit.txt", "bag-info.txt", "manifest-sha256.txt", "manifest-sha512.txt")}
    assert got["tagmanifest-sha256.txt"].decode() == manifest_text(tag, "sha256")
    assert got["tagmanifest-sha512.txt"].decode() == manifest_text(tag, "sha512")
    assert bagit_validate(tmp_path / "bag").returncode == 0


def test_percent_lf_and_cr_in_paths_are_encoded_and_nothing_else(tmp_path):
    """"in paths, `%` → `%25`, LF → `%0A`, CR → `%0D` (RFC 8493 §2.1.3)" — and a space,
    a non-ASCII letter or a `#` are written as they are; lines sorted by byte order."""
    static = {"a%b.txt": b"percent", "nl\nx.txt": b"lf", "cr\rx.txt": b"cr", "sp ace é#.txt": b"",
              "%0A.txt": b"literal"}
    root = project(tmp_path, static=static)
    ok("archive", root, "--output", tmp_path / "bag")
    text = (tmp_path / "bag" / "manifest-sha256.txt").read_text()
    for name, data in static.items():
        assert f"{hashlib.sha256(data).hexdigest()}  data/site/{encode_path(name)}\n" in text
    assert "%250A.txt" in text
    assert text == manifest_text(payload_of(root), "sha256")


@pytest.mark.parametrize("line,yaml,needle", [
    (3, "  contact_email: x\n", "archive.contact_email: 'x' is not an e-mail address"),
    (3, "  contact_email: 'jo doe@example.org'\n", "archive.contact_email"),
    (4, "  contact_name: Jo\n  colour: blue\n", "archive"),
    (3, "  contact_name: '   '\n", "archive.contact_name"),
    (3, "  source_organization: |\n    Lab\n    Two\n", "archive.source_organization"),
])
def test_a_bad_archive_block_names_dossier_yml_and_the_line_and_writes_nothing(tmp_path, line, yaml, needle):
    """"Values are one line of text (trimmed; empty or multi-line is an error),
    `contact_email` must hold `@` and no space, and an unknown key is an error — each
    naming `dossier.yml` and the line (`dossier.yml:2: archive.contact_email: 'x' is not
    an e-mail address`), with nothing written"."""
    root = project(tmp_path)
    (root / "dossier.yml").write_text("title: Study\narchive:\n" + yaml)
    p = dossier("archive", root, "--output", tmp_path / "bag")
    assert p.returncode == 1, p.out
    assert f"dossier.yml:{line}: {needle}" in p.out, p.out
    if needle == "archive":  # the doc gives no wording for an unknown key; it must name it
        assert "colour" in p.out, p.out
    assert not (tmp_path / "bag").exists()
    assert [x.name for x in tmp_path.iterdir() if x.name.startswith(".bag")] == []
