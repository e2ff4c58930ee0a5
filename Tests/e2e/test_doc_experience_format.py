"""Oracle for docs/experience-format.md: an independent reading of the experience file format.

Written from the docs alone (docs/experience-format.md, docs/json-lines.md,
docs/experience-analysis.md for which commands read the format). A small validator below
(`doc_issues`) states every rule of the format's tables, the media path and media content
rules, and the collection rules; generated valid and hostile files are given to
`dossier experiences validate` and its exit status and `file:line:` messages compared
with what the validator says. The generated cases are in test_doc_experience_format_cases.py,
JSON syntax, collections and folders in ..._more.py, the build, slugs and import in ..._build.py.
"""
import json
import pathlib
import re
import struct
import subprocess

import pytest

from conftest import dossier_path

# MARK: - Writing a file with known lines


class Raw:
    """A value written verbatim into the JSON text (numbers such as `-0`, `1e400`)."""

    def __init__(self, text, value=None):
        self.text, self.value = text, value


def emit(obj):
    """(text, lines): pretty JSON with one member per line; lines maps a path (tuple of
    keys and list indexes) to the line of its key (members) or of its `{`/`[` (items)."""
    out, where = [], {}

    def put(v, path, depth, prefix):
        where[path] = len(out) + 1
        pad = "  " * (depth + 1)
        if isinstance(v, dict) and v:
            out.append(prefix + "{")
            items = list(v.items())
            for i, (k, x) in enumerate(items):
                put(x, path + (k,), depth + 1, pad + json.dumps(k, ensure_ascii=False) + ": ")
                out[-1] += "," if i < len(items) - 1 else ""
            out.append("  " * depth + "}")
        elif isinstance(v, list) and v:
            out.append(prefix + "[")
            for i, x in enumerate(v):
                put(x, path + (i,), depth + 1, pad)
                out[-1] += "," if i < len(v) - 1 else ""
            out.append("  " * depth + "]")
        elif isinstance(v, Raw):
            out.append(prefix + v.text)
        else:
            out.append(prefix + json.dumps(v, ensure_ascii=False))

    put(obj, (), 0, "")
    return "\n".join(out) + "\n", where


# MARK: - Media that pass (and fail) the content check


def jpeg(width=256, height=128):
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + sof + b"\xff\xd9"


def png(width=256, height=128):
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0"


def wav():
    data = struct.pack("<8h", 0, 900, -900, 400, 0, 900, -900, 400)
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


FTYP = b"\0\0\0\x18ftypisom\0\0\0\0"
GOOD_MEDIA = {  # name -> bytes whose first bytes match the extension (the doc's list)
    "a.jpg": jpeg(), "b.jpeg": jpeg(), "c.png": png(),
    "s.wav": wav(), "id3.mp3": b"ID3\x04\0\0\0\0\0\0", "sync.mp3": b"\xff\xfb\x90\x64" + b"\0" * 12,
    "s.m4a": FTYP, "adts.aac": b"\xff\xf1\x50\x80\x02\x1f\xfc" + b"\0" * 8, "mp4.aac": FTYP,
    "s.ogg": b"OggS\0\x02" + b"\0" * 10, "s.oga": b"OggS\0\x02" + b"\0" * 10,
    "s.opus": b"OggS\0\x02" + b"\0" * 10, "s.flac": b"fLaC\0\0\0\x22" + b"\0" * 8,
    "v.mp4": FTYP, "v.m4v": FTYP, "v.webm": b"\x1a\x45\xdf\xa3" + b"\0" * 12,
}
BAD_MEDIA = {  # name -> bytes that do not match the extension
    "bad.jpg": png(), "bad.png": jpeg(), "bad.jpeg": b"GIF89a" + b"\0" * 10,
    "bad.wav": b"RIFF\0\0\0\0AVI LIST", "bad.mp3": b"OggS" + b"\0" * 12, "bad.ogg": b"fLaC" + b"\0" * 12,
    "bad.flac": b"OggS" + b"\0" * 12, "bad.webm": FTYP, "bad.mp4": b"\x1a\x45\xdf\xa3" + b"\0" * 12,
    "bad.m4a": b"RIFF\0\0\0\0WAVE", "bad.opus": b"ID3\x04" + b"\0" * 12, "empty.wav": b"",
}
IMAGE_EXT = {".jpg", ".jpeg", ".png"}
SOUND_EXT = {".wav", ".mp3", ".m4a", ".aac", ".ogg", ".oga", ".opus", ".flac"}
VIDEO_EXT = {".mp4", ".m4v", ".webm"}


def magic_ok(ext, data):
    """docs/experience-format.md, *Media paths*: the first bytes must match the extension."""
    ftyp = data[4:8] == b"ftyp"
    if ext in (".jpg", ".jpeg"):
        return data[:3] == b"\xff\xd8\xff" or data[:2] == b"\xff\xd8" and data[2:3] == b"\xff"
    if ext == ".png":
        return data[:8] == b"\x89PNG\r\n\x1a\n"
    if ext == ".wav":
        return data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    if ext in (".mp4", ".m4a", ".m4v"):
        return ftyp
    if ext in (".ogg", ".oga", ".opus"):
        return data[:4] == b"OggS"
    if ext == ".flac":
        return data[:4] == b"fLaC"
    if ext == ".webm":
        return data[:4] == b"\x1a\x45\xdf\xa3"
    if ext == ".mp3":
        return data[:3] == b"ID3" or len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0
    if ext == ".aac":
        return ftyp or len(data) > 1 and data[0] == 0xFF and data[1] & 0xF6 == 0xF0
    return False


def write_media(folder):
    media = pathlib.Path(folder) / "media"
    media.mkdir(parents=True, exist_ok=True)
    for name, data in {**GOOD_MEDIA, **BAD_MEDIA}.items():
        (media / name).write_bytes(data)
    (media / "folder.wav").mkdir(exist_ok=True)
    (pathlib.Path(folder) / "outside.jpg").write_bytes(jpeg())


# MARK: - The validator, from the doc's tables

ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
PATH_RE = re.compile(r"[A-Za-z0-9_./-]+\Z")
EXP_KEYS = {"title", "description", "kind", "owner", "firstPanorama", "finalPanorama", "panoramas"}
PANO_KEYS = {"id", "title", "image", "triggers", "startYaw", "startPitch"}
TRIG_KEYS = {"id", "kind", "yaw", "pitch", "size", "label", "media", "target", "targetYaw", "targetPitch", "text"}


def num(v):
    if isinstance(v, Raw):
        return v.value
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def blank(s):
    return s.strip(" ") == ""


def media_issue(folder, path, allowed):
    """None when the path is a good media file for these extensions, else a word."""
    if not isinstance(path, str):
        return "type"
    parts = path.split("/")
    if path.startswith("/") or not PATH_RE.match(path) or any(p in ("", ".", "..") for p in parts):
        return "path"
    ext = pathlib.PurePosixPath(path).suffix.lower()
    if ext not in allowed:
        return "extension"
    full = pathlib.Path(folder) / path
    if not full.is_file():
        return "missing"
    if not magic_ok(ext, full.read_bytes()[:16]):
        return "content"
    return None


def doc_issues(exp, folder):
    """Every error the doc's rules give for one experience: a list of (path, what); path
    is where it is (the key, or the object a required key is missing from)."""
    out = []

    def err(path, what):
        out.append((path, what))

    if not isinstance(exp, dict):
        return [((), "top")]
    for k in exp:
        if k not in EXP_KEYS:
            err((k,), "unknown key")
    title = exp.get("title")
    if title is not None and not (isinstance(title, str) and blank(title)):
        if not isinstance(title, str) or not 4 <= len(title) <= 16:
            err(("title",), "title")
    if "description" in exp:
        d = exp["description"]
        if not isinstance(d, str) or len(d) > 128:
            err(("description",), "description")
    kind = exp.get("kind", "premade")
    if kind not in ("premade", "custom"):
        err(("kind",), "kind")
    if "owner" in exp and not isinstance(exp["owner"], str):
        err(("owner",), "owner type")
    if kind == "custom" and not isinstance(exp.get("owner"), str):
        err(("kind",), "custom needs owner")
    panos = exp.get("panoramas")
    ids = []
    if not isinstance(panos, list) or not panos:
        err(("panoramas",) if "panoramas" in exp else (), "panoramas")
        panos = []
    for i, p in enumerate(panos):
        pp = ("panoramas", i)
        if not isinstance(p, dict):
            err(pp, "panorama type")
            ids.append(None)
            continue
        pid = p.get("id", f"p{i + 1}")
        if not isinstance(pid, str) or not ID_RE.match(pid):
            err(pp + ("id",), "panorama id")
        elif pid in ids:
            err(pp + ("id",), "duplicate panorama id")
        ids.append(pid)
    for key in ("firstPanorama", "finalPanorama"):
        if key in exp and exp[key] not in [x for x in ids if x is not None]:
            err((key,), key)
    for i, p in enumerate(panos):
        if isinstance(p, dict):
            out.extend(pano_issues(p, ("panoramas", i), ids, folder))
    return out


def pano_issues(p, pp, ids, folder):
    out = []
    for k in p:
        if k not in PANO_KEYS:
            out.append((pp + (k,), "unknown key"))
    t = p.get("title")
    if not isinstance(t, str) or not 1 <= len(t) <= 60:
        out.append((pp + ("title",) if "title" in p else pp, "panorama title"))
    if "image" not in p:
        out.append((pp, "image missing"))
    elif media_issue(folder, p["image"], IMAGE_EXT):
        out.append((pp + ("image",), "image " + media_issue(folder, p["image"], IMAGE_EXT)))
    for key, lim in (("startYaw", 180), ("startPitch", 90)):
        if key in p and (num(p[key]) is None or abs(num(p[key])) > lim):
            out.append((pp + (key,), key))
    trigs = p.get("triggers", [])
    if not isinstance(trigs, list):
        return out + [(pp + ("triggers",), "triggers type")]
    tids = []
    for j, t in enumerate(trigs):
        tp = pp + ("triggers", j)
        if not isinstance(t, dict):
            out.append((tp, "trigger type"))
            continue
        tid = t.get("id", f"t{j + 1}")
        if not isinstance(tid, str) or not ID_RE.match(tid):
            out.append((tp + ("id",), "trigger id"))
        elif tid in tids:
            out.append((tp + ("id",), "duplicate trigger id"))
        tids.append(tid)
        out.extend(trigger_issues(t, tp, ids, folder))
    return out


def trigger_issues(t, tp, ids, folder):
    out = []

    def err(key, what):
        out.append((tp + (key,) if key in t else tp, what))

    for k in t:
        if k not in TRIG_KEYS:
            err(k, "unknown key")
    kind = t.get("kind")
    if kind not in ("sound", "video", "door", "note"):
        err("kind", "trigger kind")
    for key, lim in (("yaw", 180), ("pitch", 90)):
        if num(t.get(key)) is None or abs(num(t[key])) > lim:
            err(key, key)
    if "size" in t and (num(t["size"]) is None or not 0.5 <= num(t["size"]) <= 3):
        err("size", "size")
    lab = t.get("label")
    if not isinstance(lab, str) or not 1 <= len(lab) <= 40 or blank(lab):
        err("label", "label")
    if kind in ("sound", "video"):
        if "media" not in t:
            err("media", "media missing")
        elif media_issue(folder, t["media"], SOUND_EXT if kind == "sound" else VIDEO_EXT):
            err("media", "media " + media_issue(folder, t["media"], SOUND_EXT if kind == "sound" else VIDEO_EXT))
    if kind == "door":
        if "media" in t:
            err("media", "media on a door")
        if "target" not in t:
            err("target", "target missing")
        elif t["target"] not in [x for x in ids if x is not None]:
            err("target", "door target")
        for key, lim in (("targetYaw", 180), ("targetPitch", 90)):
            if key in t and (num(t[key]) is None or abs(num(t[key])) > lim):
                err(key, key)
    elif kind in ("sound", "video", "note"):
        for key in ("target", "targetYaw", "targetPitch"):
            if key in t:
                err(key, key + " not on a door")
    if kind == "note":
        x = t.get("text")
        if not isinstance(x, str) or not 1 <= len(x) <= 500 or blank(x):
            err("text", "note text")
    elif kind in ("sound", "video", "door") and "text" in t:
        err("text", "text only on a note")
    return out


# MARK: - Running validate


def validate(*args, cwd):
    return subprocess.run([dossier_path(), "experiences", "validate", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def error_lines(stderr, name):
    """{line: message} of the errors (not warnings) printed as `name:LINE: message`."""
    found = {}
    for row in stderr.splitlines():
        m = re.match(re.escape(name) + r":(\d+)(?::\d+)?: (.*)", row)
        if m and not m.group(2).startswith("warning:"):
            found.setdefault(int(m.group(1)), []).append(m.group(2))
    return found


def allowed_lines(where, path):
    """The key's line, or the line of an enclosing object (the doc says only "the line")."""
    lines = set()
    while True:
        if path in where:
            lines.add(where[path])
        if not path:
            return lines
        path = path[:-1]


def check_against_doc(exp, folder, name="x.json", strict_lines=True):
    text, where = emit(exp)
    (folder / name).write_text(text, encoding="utf-8")
    before = sorted((p.relative_to(folder), p.stat().st_mtime_ns) for p in folder.rglob("*"))
    proc = validate(name, cwd=folder)
    issues = doc_issues(exp, folder)
    got = error_lines(proc.stderr, name)
    report = f"\n{text}\ndoc: {issues}\nstderr:\n{proc.stderr}"
    assert proc.returncode == (1 if issues else 0), report
    for path, what in issues:
        near = {line for p in [path] for line in allowed_lines(where, p)}
        assert near & set(got), f"no error at {sorted(near)} for {what} {path}{report}"
    if strict_lines:
        every = set().union(*[allowed_lines(where, p) for p, _ in issues]) if issues else set()
        assert set(got) <= every, f"errors where the doc sees none{report}"
    after = sorted((p.relative_to(folder), p.stat().st_mtime_ns) for p in folder.rglob("*"))
    assert before == after, "validate changed files on disk"
    return proc


# MARK: - Tests of the oracle itself and of the doc's media wording


def test_the_validator_sees_the_faults_it_is_given(tmp_path):
    """The oracle can fail: faults the doc names are found, a valid file has none."""
    write_media(tmp_path)
    good = {"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg", "triggers": [
        {"kind": "sound", "yaw": 0, "pitch": 0, "label": "Hi", "media": "media/s.wav"}]}]}
    assert doc_issues(good, tmp_path) == []
    for path, value in ((("title",), "a" * 17), (("panoramas", 0, "id"), "a" * 65),
                        (("panoramas", 0, "triggers", 0, "size"), 3.01),
                        (("panoramas", 0, "triggers", 0, "media"), "media/bad.wav"),
                        (("panoramas", 0, "image"), "../outside.jpg")):
        exp = json.loads(json.dumps(good))
        obj = exp
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
        assert doc_issues(exp, tmp_path), path


@pytest.mark.parametrize("name", sorted(n for n in BAD_MEDIA if n != "empty.wav"))
def test_media_whose_bytes_do_not_match_are_not_a_playable_x_file(name, tmp_path):
    write_media(tmp_path)
    ext = pathlib.PurePosixPath(name).suffix
    trig = {"kind": "video" if ext in VIDEO_EXT else "sound", "yaw": 0, "pitch": 0, "label": "Hi",
            "media": f"media/{name}"}
    pano = {"title": "Hall", "image": f"media/{name}" if ext in IMAGE_EXT else "media/a.jpg"}
    if ext not in IMAGE_EXT:
        pano["triggers"] = [trig]
    text, where = emit({"title": "Abcd", "panoramas": [pano]})
    (tmp_path / "x.json").write_text(text)
    proc = validate("x.json", cwd=tmp_path)
    obj, key = (("panoramas", 0), "image") if ext in IMAGE_EXT else (("panoramas", 0, "triggers", 0), "media")
    lines = {where[obj], where[obj + (key,)]}
    rows = [r for r in proc.stderr.splitlines() if f"not a playable {ext} file" in r]
    assert proc.returncode == 1 and rows, proc.stderr
    assert int(re.match(r"x\.json:(\d+): ", rows[0]).group(1)) in lines, proc.stderr
