"""Zipped bags against Python's `zipfile` and `bagit` as independent oracles (docs/archive.md,
"The zip's bytes" and "Reading a zip"): the zip Dossier writes is the one the document
describes byte for byte (rebuilt here from the bag folder by a reimplementation of that
section), Python reads it, Dossier verifies zips Python writes (deflate, stored, ZIP64,
folder entries), and hostile zips are refused with a message naming what is wrong."""
import pathlib
import struct
import zipfile
import zlib

from test_archive import bagit_validate
from webdav_server import make_site

DAY = "2026-11-22"


def dos_date(day: str) -> int:
    y, m, d = map(int, day.split("-"))
    return (y - 1980) << 9 | m << 5 | d


def zip_as_documented(folder: pathlib.Path, top: str, day: str) -> bytes:
    """The bytes docs/archive.md defines for the bag in `folder` (no ZIP64: small files)."""
    files = sorted((f"{top}/{p.relative_to(folder).as_posix()}", p.read_bytes())
                   for p in folder.rglob("*") if p.is_file())
    files.sort(key=lambda f: f[0].encode())
    out, central = bytearray(), bytearray()
    for name, data in files:
        c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY)
        packed = c.compress(data) + c.flush()
        method, body = (8, packed) if len(packed) < len(data) else (0, data)
        crc, raw = zlib.crc32(data), name.encode()
        fields = struct.pack("<HHHHHIIIHH", 20, 0x800, method, 0, dos_date(day), crc, len(body), len(data), len(raw), 0)
        central += b"PK\x01\x02" + struct.pack("<H", 0x0314) + fields + struct.pack("<HHHII", 0, 0, 0, 0x81A40000,
                                                                                      len(out)) + raw
        out += b"PK\x03\x04" + fields + raw + body
    start = len(out)
    out += central
    out += b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(files), len(files), len(central), start, 0)
    return bytes(out)


def test_the_zip_is_the_documented_bytes_and_python_reads_it(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=3)
    folder, z = tmp_path / "study", tmp_path / "study.zip"
    run_dossier("archive", "--site", site, "--output", folder, "--date", DAY)
    run_dossier("archive", "--site", site, "--output", z, "--date", DAY)
    assert z.read_bytes() == zip_as_documented(folder, "study", DAY)
    with zipfile.ZipFile(z) as zf:
        assert zf.testzip() is None
        infos = zf.infolist()
        assert {i.compress_type for i in infos} == {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
        assert all(i.date_time == (2026, 11, 22, 0, 0, 0) and i.flag_bits & 0x800 for i in infos)
        zf.extractall(tmp_path / "unzipped")
    assert bagit_validate(tmp_path / "unzipped" / "study").returncode == 0
    # Written again: the same bytes.
    run_dossier("archive", "--site", site, "--output", z, "--date", DAY, "--force")
    assert z.read_bytes() == zip_as_documented(folder, "study", DAY)


def python_zip(folder: pathlib.Path, z: pathlib.Path, top: str, **kw):
    with zipfile.ZipFile(z, "w", kw.get("method", zipfile.ZIP_DEFLATED)) as zf:
        if kw.get("folders"):
            zf.writestr(top + "/", b"")
        for p in sorted(folder.rglob("*")):
            name = f"{top}/{p.relative_to(folder).as_posix()}"
            if p.is_dir():
                if kw.get("folders"):
                    zf.writestr(name + "/", b"")
                continue
            with zf.open(name, "w", force_zip64=kw.get("zip64", False)) as f:
                f.write(p.read_bytes())


def test_zips_python_writes_verify(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=2)
    folder = tmp_path / "bag"
    run_dossier("archive", "--site", site, "--output", folder)
    for k, kw in enumerate([{}, {"method": zipfile.ZIP_STORED}, {"zip64": True}, {"folders": True}]):
        z = tmp_path / f"p{k}.zip"
        python_zip(folder, z, "bag", **kw)
        r = run_dossier("archive", "--verify", z, check=False)
        assert r.returncode == 0, (kw, r.stdout, r.stderr)


def refused(run_dossier, z, words):
    r = run_dossier("archive", "--verify", z, check=False)
    assert r.returncode == 1, r.stdout
    assert words in r.stdout + r.stderr, r.stdout + r.stderr


def test_hostile_zips_are_refused_with_what_is_wrong(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=1)
    folder = tmp_path / "bag"
    run_dossier("archive", "--site", site, "--output", folder)
    good = tmp_path / "good.zip"
    python_zip(folder, good, "bag", method=zipfile.ZIP_STORED)

    # A name that leaves the folder: nothing is written outside.
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("bag/bagit.txt", "BagIt-Version: 1.0\n")
        zf.writestr("../../escaped.txt", "x")
    refused(run_dossier, evil, "its path leaves the folder")
    assert not list(tmp_path.parent.parent.glob("escaped.txt"))

    # One byte of a stored file changed: its CRC fails.
    data = bytearray(good.read_bytes())
    at = data.index(b"BagIt-Version")
    data[at] ^= 0x20
    bad = tmp_path / "crc.zip"
    bad.write_bytes(bytes(data))
    refused(run_dossier, bad, "CRC-32 does not match")

    # A size of 3 GB claimed for a few bytes (a bomb's header).
    data = bytearray(good.read_bytes())
    cd = data.index(b"PK\x01\x02")
    data[cd + 10:cd + 12] = struct.pack("<H", 8)        # deflate
    data[cd + 24:cd + 28] = struct.pack("<I", 3_000_000_000)
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(bytes(data))
    refused(run_dossier, bomb, "a zip bomb?")

    # Two central records pointing at one entry.
    data = bytearray(good.read_bytes())
    second = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 4)
    data[second + 42:second + 46] = struct.pack("<I", 0)
    overlap = tmp_path / "overlap.zip"
    overlap.write_bytes(bytes(data))
    refused(run_dossier, overlap, "overlaps another entry")

    # Cut short.
    short = tmp_path / "short.zip"
    short.write_bytes(good.read_bytes()[:-30])
    refused(run_dossier, short, "not a zip")
