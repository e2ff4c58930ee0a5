"""Helpers of the doc-oracle tests for docs/archive.md and docs/json-lines.md.

Everything here is rebuilt from the two documents' words (BagIt layout, bag-info.txt,
Bag-Size, the zip's bytes, the pretty JSON writer), never from the Swift sources.
"""
import hashlib
import json
import os
import pathlib
import struct
import subprocess
import zlib

from conftest import dossier_path

BIN = dossier_path()
DEAD_PID = 999999999  # above any pid_max: kill(pid, 0) fails with ESRCH
VERSION = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.strip()


def dossier(*args, cwd=None, env=None, timeout=120, preexec_fn=None, input=None):
    """Run dossier; `out` is stdout + stderr decoded leniently."""
    full = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "DOSSIER_FAULT_AT")}
    if env:
        full.update(env)
    proc = subprocess.run([BIN, *map(str, args)], cwd=cwd, env=full, capture_output=True,
                          timeout=timeout, preexec_fn=preexec_fn, input=input)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    proc.out = proc.stdout + proc.stderr
    return proc


def ok(*args, **kw):
    proc = dossier(*args, **kw)
    assert proc.returncode == 0, f"dossier {args} exited {proc.returncode}:\n{proc.out}"
    return proc


def project(tmp_path, name="study", title="Study", archive_block="", static=None):
    """A built project: `dossier new`, a dossier.yml of ours, optional static files."""
    root = tmp_path / name
    ok("new", root, "-q")
    (root / "dossier.yml").write_text(f"title: {json.dumps(title)}\n" + archive_block)
    for rel, data in (static or {}).items():
        p = root / "static" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    ok("build", "-q", root)
    return root


def site_manifest(files: dict) -> bytes:
    """The site manifest of files (path -> bytes), as docs/output-manifest.md shows it."""
    entries = [{"path": rel, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
               for rel, data in files.items()]
    entries.sort(key=lambda e: e["path"].encode())
    manifest = {"dossier": VERSION, "files": entries, "inputs": []}
    return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()


def hand_site(folder: pathlib.Path, files: dict, name="site"):
    """A site folder and `<folder>.manifest.json` written by hand (docs/output-manifest.md)."""
    site = folder / name
    site.mkdir(parents=True)
    for rel, data in files.items():
        p = site / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (folder / f"{name}.manifest.json").write_bytes(site_manifest(files))
    return site


def tree(folder: pathlib.Path) -> dict:
    """Relative path (str) -> bytes of every regular file under folder."""
    out = {}
    for dirpath, _dirs, files in os.walk(folder):
        for f in files:
            p = pathlib.Path(dirpath) / f
            out[str(p.relative_to(folder))] = p.read_bytes()
    return out


def encode_path(p: str) -> str:
    """RFC 8493 §2.1.3 as docs/archive.md line 40 words it."""
    return p.replace("%", "%25").replace("\n", "%0A").replace("\r", "%0D")


def manifest_text(files: dict, alg: str) -> str:
    """`<hex>  <path>` lines sorted by path in byte order (files: path -> bytes)."""
    paths = sorted(files, key=lambda s: s.encode("utf-8", "surrogateescape"))
    return "".join(f"{hashlib.new(alg, files[p]).hexdigest()}  {encode_path(p)}\n" for p in paths)


def bag_size(n: int) -> str:
    """docs/archive.md lines 35-38."""
    if n < 1000:
        return "1 byte" if n == 1 else f"{n} bytes"
    value, units = n / 1000, ["kB", "MB", "GB", "TB"]
    i = 0
    while float("%.1f" % value) >= 1000.0 and i < len(units) - 1:
        value /= 1000
        i += 1
    return "%.1f %s" % (value, units[i])


def dos_date(iso: str) -> int:
    y, m, d = (int(x) for x in iso.split("-"))
    if not (1980 <= y <= 2107):
        return 0x0021
    return (y - 1980) << 9 | m << 5 | d


def zip_bytes(top: str, files: dict, date: str) -> bytes:
    """docs/archive.md "The zip's bytes" for entries below 4 GiB (no ZIP64)."""
    date_word = dos_date(date)
    names = sorted((f"{top}/{p}" for p in files), key=lambda s: s.encode())
    body, central = bytearray(), bytearray()
    for name in names:
        data = files[name[len(top) + 1:]]
        c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY)
        packed = c.compress(data) + c.flush(zlib.Z_FINISH)
        method = 8
        if len(packed) >= len(data):
            packed, method = data, 0
        crc, raw = zlib.crc32(data) & 0xFFFFFFFF, name.encode()
        offset = len(body)
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x0800, method, 0, date_word, crc,
                            len(packed), len(data), len(raw), 0) + raw + packed
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, 0x0800, method, 0,
                               date_word, crc, len(packed), len(data), len(raw), 0, 0, 0, 0,
                               0x81A40000, offset) + raw
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(names), len(names), len(central), len(body), 0)
    return bytes(body + central + end)


# MARK: - docs/json-lines.md "Writing" (pretty)

def jstring(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return "".join(out) + '"'


def pretty(v, level=0) -> str:
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(v, dict):
        if not v:
            return "{\n\n" + pad + "}"
        keys = sorted(v, key=lambda k: k.encode())
        return "{" + ",".join(f"\n{inner}{jstring(k)} : {pretty(v[k], level + 1)}" for k in keys) + "\n" + pad + "}"
    if isinstance(v, list):
        if not v:
            return "[\n\n" + pad + "]"
        return "[" + ",".join(f"\n{inner}{pretty(x, level + 1)}" for x in v) + "\n" + pad + "]"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return jstring(v)
    raise AssertionError(f"unexpected value {v!r}")


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
