"""docs/incremental.md and docs/output-manifest.md (the build state, unit blobs, patch vs
swap) checked from the docs alone: what a second build after a given change rebuilds,
what it leaves byte-identical (same inode, same mtime), and that the result is the
clean build's. Helpers here are shared by test_doc_incremental_seams.py."""
import hashlib
import json
import os
import pathlib
import shutil
import struct
import subprocess
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DEMO_LOGS = REPO / "Examples" / "demo" / "data" / "recall" / "logs"
DEMO_STRINGS = REPO / "Examples" / "demo" / "data" / "recall" / "strings.txt"
TABLES = ["entries", "recall", "study-table", "participants"]
YML = "title: Small\nrecall:\n  strings: data/recall/strings.txt\n  logs: data/recall/logs\n"


# MARK: - the project and the builds

def make_project(root: pathlib.Path, logs=("S001", "S002", "S003"), extra=()):
    (root / "data/recall/logs").mkdir(parents=True)
    (root / "content").mkdir()
    shutil.copy(DEMO_STRINGS, root / "data/recall/strings.txt")
    for name in logs:
        shutil.copy(DEMO_LOGS / f"{name}.jsonl", root / f"data/recall/logs/{name}.jsonl")
    for name in extra:
        shutil.copy(DEMO_LOGS / name, root / f"data/recall/logs/{name}")
    (root / "dossier.yml").write_text(YML)
    (root / "content/index.md").write_text("# Home\n\nHello.\n")
    (root / "content/methods.md").write_text("---\ntitle: Methods\n---\n# Methods\n\nSee [home](index.md).\n")
    return root


def settle(*roots):
    """Wait until every file under the roots has mtime and ctime more than one second in
    the past (docs/output-manifest.md "Input stamps": only then may the next build take
    their SHA-256 from its stamp). A wait for a documented condition, not for a race."""
    newest = 0
    for root in roots:
        for p in pathlib.Path(root).rglob("*"):
            st = p.lstat()
            newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
    while time.time_ns() <= newest + 1_150_000_000:
        time.sleep(0.05)


def build(bin_, project, *extra, env=None, check=True):
    e = dict(os.environ)
    e.update(env or {})
    proc = subprocess.run([bin_, "build", str(project), *extra], capture_output=True, text=True,
                          env=e, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def clean_build_of(bin_, project, where):
    """A --clean build of a copy of the project's inputs (no site, no state)."""
    dst = where / "clean"
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(project, dst, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier", "._site*"))
    build(bin_, dst, "--clean")
    return dst


def tree(site: pathlib.Path):
    out = {}
    for p in sorted(site.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[p.relative_to(site).as_posix()] = (p.read_bytes(), st.st_ino, st.st_mtime_ns)
    return out


def assert_same_as_clean(project, clean):
    got, want = tree(project / "_site"), tree(clean / "_site")
    assert sorted(got) == sorted(want)
    differing = [p for p in want if got[p][0] != want[p][0]]
    assert differing == []
    assert (project / "_site.manifest.json").read_bytes() == (clean / "_site.manifest.json").read_bytes()


def assert_patch_rules(before, after):
    """docs/incremental.md step 4 and output-manifest.md "Patch": a file whose bytes did
    not change keeps its inode and mtime; one whose bytes changed was renamed over it."""
    kept_wrongly, rewritten_wrongly = [], []
    for path, (data, ino, mtime) in after.items():
        if path not in before:
            continue
        old = before[path]
        if old[0] == data and (old[1], old[2]) != (ino, mtime):
            rewritten_wrongly.append(path)
        if old[0] != data and old[1] == ino:
            kept_wrongly.append(path)
    assert rewritten_wrongly == [], "unchanged bytes written again"
    assert kept_wrongly == [], "changed bytes written in place (not renamed over)"


# MARK: - the state and blob formats (docs/output-manifest.md)

class Reader:
    def __init__(self, data):
        self.b, self.o = data, 0

    def take(self, n):
        v = self.b[self.o:self.o + n]
        assert len(v) == n, "truncated"
        self.o += n
        return v

    def u8(self): return self.take(1)[0]
    def u32(self): return struct.unpack("<I", self.take(4))[0]
    def i64(self): return struct.unpack("<q", self.take(8))[0]
    def u64(self): return struct.unpack("<Q", self.take(8))[0]
    def data(self): return self.take(self.u32())
    def text(self): return self.data().decode()

    def opt(self, f):
        flag = self.u8()
        assert flag in (0, 1)
        return f() if flag else None


def parse_state(data):
    r = Reader(data)
    assert r.take(14) == b"DOSSIER-STATE\n"
    st = {"version": r.u32(), "dossier": r.text(), "output": r.text(), "units": []}
    file = lambda: (r.text(), r.text(), r.i64())
    for _ in range(r.u32()):
        u = {"key": r.text(), "hash": r.text()}
        u["files"] = [file() for _ in range(r.u32())]
        u["links"] = [(r.text(), [r.text() for _ in range(r.u32())]) for _ in range(r.u32())]
        u["record"] = r.opt(r.data)
        u["warnings"] = [(r.text(), r.opt(r.text), r.i64(), r.text()) for _ in range(r.u32())]
        u["pages"], u["blurb"], u["blob_size"] = r.i64(), r.opt(r.text), r.opt(r.i64)
        st["units"].append(u)
    st["files"] = [file() for _ in range(r.u32())]
    st["inputs"] = [dict(path=r.text(), size=r.i64(), mtime=r.i64(), ctime=r.i64(), inode=r.u64(),
                         device=r.u64(), taken=r.i64(), sha256=r.text()) for _ in range(r.u32())]
    assert r.take(4) == b"END\n" and r.o == len(data), "state does not end at END"
    return st


def state_of(project):
    return parse_state((project / ".dossier/state-_site.bin").read_bytes())


def hashes(project):
    return {u["key"]: u["hash"] for u in state_of(project)["units"]}


def parse_blob(data):
    r = Reader(data)
    assert r.take(20) == b"DOSSIER-RECALL-ROWS\n"
    assert r.u8() == 2
    tables = [(r.data(), r.data()) for _ in range(4)]
    dyn = []
    for _ in range(r.u32()):
        dyn.append((r.i64(), tuple(r.text() for _ in range(r.u32())), r.data()))
    assert r.take(4) == b"END\n" and r.o == len(data)
    return tables, dyn


def parse_record(data):
    r = Reader(data)
    assert r.u8() == 0x04
    slug, string_set, _summary = r.text(), r.text(), r.data()
    assert r.u8() == 1
    entries = [(r.i64(), r.i64(), r.u8(), r.u8()) for _ in range(r.u32())]
    verify = [r.i64() for _ in range(r.u32())]
    seqs = [(r.i64(), tuple(r.text() for _ in range(r.u32())), r.i64()) for _ in range(r.u32())]
    assert r.o == len(data)
    return dict(slug=slug, set=string_set, entries=entries, verify=verify, seqs=seqs)


def blob_dir(project):
    return project / ".dossier/units-_site"


def assert_blobs_match_state(project):
    """One blob per unit with a blob size, named by the unit's hash, of that size; no
    other file in the folder (removed after each saved state)."""
    st = state_of(project)
    named = {u["hash"]: u["blob_size"] for u in st["units"] if u["blob_size"] is not None}
    on_disk = {p.name: p.stat().st_size for p in blob_dir(project).iterdir()}
    assert on_disk == named


def snapshot(project):
    p = project
    return dict(site=tree(p / "_site"), site_ino=(p / "_site").stat().st_ino,
                manifest=(p / "_site.manifest.json").read_bytes(),
                manifest_ino=(p / "_site.manifest.json").stat().st_ino,
                state=(p / ".dossier/state-_site.bin").read_bytes(),
                state_ino=(p / ".dossier/state-_site.bin").stat().st_ino,
                blobs={q.name: q.read_bytes() for q in blob_dir(p).iterdir()} if blob_dir(p).exists() else {})


@pytest.fixture(scope="module")
def settled_projects(tmp_path_factory):
    """Projects made up front and settled once (one wait of about a second per module)."""
    made = [make_project(tmp_path_factory.mktemp("inc") / "p") for _ in range(9)]
    settle(*made)
    return made


@pytest.fixture
def project(settled_projects):
    return settled_projects.pop()


def write_log(project, name, demo_source):
    (project / f"data/recall/logs/{name}.jsonl").write_bytes((DEMO_LOGS / f"{demo_source}.jsonl").read_bytes())


# MARK: - tests

def test_a_build_that_changes_nothing_leaves_site_manifest_and_state_alone(dossier_bin, project):
    build(dossier_bin, project)
    before = snapshot(project)
    build(dossier_bin, project)
    after = snapshot(project)
    assert_patch_rules(before["site"], after["site"])
    assert {p: v[1:] for p, v in after["site"].items()} == {p: v[1:] for p, v in before["site"].items()}
    assert after["site_ino"] == before["site_ino"], "a patch, not a swap"
    assert (after["manifest"], after["manifest_ino"]) == (before["manifest"], before["manifest_ino"])
    assert (after["state"], after["state_ino"]) == (before["state"], before["state_ino"]), \
        "every unit reused, every SHA-256 from its stamp: the state file is left as it is"
    assert after["blobs"] == before["blobs"]


def test_a_touched_log_is_hashed_again_its_unit_reused_and_the_manifest_left_alone(dossier_bin, project):
    build(dossier_bin, project)
    before, keys = snapshot(project), hashes(project)
    log = project / "data/recall/logs/S001.jsonl"
    st = log.stat()
    new_mtime = st.st_mtime_ns - 5_000_000_000
    os.utime(log, ns=(st.st_atime_ns, new_mtime))
    build(dossier_bin, project)
    after = snapshot(project)
    assert hashes(project) == keys, "same bytes: same unit keys"
    assert {p: v[1:] for p, v in after["site"].items()} == {p: v[1:] for p, v in before["site"].items()}
    assert after["site_ino"] == before["site_ino"]
    assert after["manifest_ino"] == before["manifest_ino"], "manifest bytes equal: left as it is"
    stamp = [i for i in state_of(project)["inputs"] if i["path"].endswith("/S001.jsonl")]
    assert [s["mtime"] for s in stamp] == [new_mtime], "the new stamp is recorded"
    assert_blobs_match_state(project)


def test_one_changed_log_rebuilds_one_participant_and_the_summary_only(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    before, keys = snapshot(project), hashes(project)
    write_log(project, "S002", "S004")
    build(dossier_bin, project)
    after, keys2 = snapshot(project), hashes(project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    assert_patch_rules(before["site"], after["site"])
    assert after["site_ino"] == before["site_ino"]
    changed = sorted(k for k in keys if keys2.get(k) != keys[k])
    assert "recall/p-S002" in changed and "recall/#summary" in changed
    assert [k for k in changed if k.startswith("recall/p-")] == ["recall/p-S002"]
    assert keys[("recall/p-S002")] not in {p for p in os.listdir(blob_dir(project))}, "old blob removed"
    assert_blobs_match_state(project)
    for k in ("recall/p-S001", "recall/p-S003"):
        assert after["blobs"][keys2[k]] == before["blobs"][keys[k]]
    check_study_files(project)


def test_adding_then_removing_a_log_equals_a_clean_build(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    before, keys = snapshot(project), hashes(project)
    write_log(project, "S004", "S004")
    build(dossier_bin, project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    assert_patch_rules(before["site"], tree(project / "_site"))
    keys2 = hashes(project)
    assert {k: keys2[k] for k in ("recall/p-S001", "recall/p-S002", "recall/p-S003")} == \
        {k: keys[k] for k in ("recall/p-S001", "recall/p-S002", "recall/p-S003")}
    assert_blobs_match_state(project)
    mid = tree(project / "_site")
    (project / "data/recall/logs/S001.jsonl").unlink()
    build(dossier_bin, project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    assert_patch_rules(mid, tree(project / "_site"))
    assert not (project / "_site/recall/participants/S001").exists(), "folders left empty are removed"
    assert "recall/p-S001" not in hashes(project)
    assert keys2["recall/p-S001"] not in os.listdir(blob_dir(project))
    assert_blobs_match_state(project)


def test_a_strings_file_with_other_bytes_rebuilds_every_participant(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    before, keys = snapshot(project), hashes(project)
    strings = project / "data/recall/strings.txt"
    strings.write_bytes(strings.read_bytes().replace(b"\n", b"\r\n"))
    build(dossier_bin, project)
    after, keys2 = snapshot(project), hashes(project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    assert_patch_rules(before["site"], after["site"])
    for k in keys:
        if k.startswith("recall/p-"):
            assert keys2[k] != keys[k], f"{k}: its inputs are the log and every strings file"
    assert_blobs_match_state(project)
    assert not set(before["blobs"]) & set(after["blobs"]), "blobs no unit names any more are removed"
    manifest = json.loads(after["manifest"])
    entry = [i for i in manifest["inputs"] if i["path"] == "data/recall/strings.txt"]
    assert entry == [dict(path="data/recall/strings.txt", sha256=hashlib.sha256(strings.read_bytes()).hexdigest(),
                          size=len(strings.read_bytes()))]


def test_state_blobs_and_study_wide_files_agree_as_the_docs_define_them(dossier_bin, project):
    build(dossier_bin, project)
    check_study_files(project)


def check_study_files(project):
    """The state's form; the study-wide files as header + every unit's blob rows in unit
    order; each dynamics table from its most common key sequence (first seen on ties)."""
    st = state_of(project)
    assert st["version"] == 2 and st["output"] == str(project / "_site")
    keys = [u["key"] for u in st["units"]]
    assert keys == sorted(keys)
    assert [i["path"] for i in st["inputs"]] == sorted(i["path"] for i in st["inputs"])
    manifest = json.loads((project / "_site.manifest.json").read_text())
    assert [list(f) for f in st["files"]] == [[f["path"], f["sha256"], f["size"]] for f in manifest["files"]]
    for i in st["inputs"]:
        data = pathlib.Path(i["path"]).read_bytes()
        assert (i["size"], i["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
    assert_blobs_match_state(project)
    units = [u for u in st["units"] if u["key"].startswith("recall/p-")]
    assert [u["key"] for u in units] == sorted(u["key"] for u in units)
    blobs = [parse_blob((blob_dir(project) / u["hash"]).read_bytes()) for u in units]
    records = [parse_record(u["record"]) for u in units]
    site = project / "_site/recall"
    for t, name in enumerate(TABLES):
        csv = (site / f"{name}.csv").read_bytes()
        rows = b"".join(b[0][t][0] for b in blobs)
        assert csv.endswith(rows)
        header = csv[:len(csv) - len(rows)]
        assert header.startswith(b"\xef\xbb\xbf") and header.endswith(b"\r\n") and header.count(b"\r\n") == 1
        blocks = [b[0][t][1] for b in blobs if b[0][t][1]]
        want = b"[" + b",".join(blocks) + b"\n]\n" if blocks else b"[]\n"
        assert (site / f"{name}.json").read_bytes() == want
    for n in range(1, 11):
        counts, first_seen = {}, []
        for rec in records:
            for string, seq, count in rec["seqs"]:
                if string == n:
                    if seq not in counts:
                        first_seen.append(seq)
                    counts[seq] = counts.get(seq, 0) + count
        best = max(counts.values())
        chosen = next(s for s in first_seen if counts[s] == best)
        rows = b"".join(r for b in blobs for (s, keyseq, r) in b[1] if s == n and keyseq == chosen)
        table = (site / f"dynamics/string-{n}.csv").read_bytes()
        assert table.endswith(rows) and table[:len(table) - len(rows)].count(b"\r\n") == 1


def test_a_deleted_site_file_is_written_again_and_a_hand_edit_stays(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    site = project / "_site/recall/participants"
    gone, edited = site / "S001/raw.csv", site / "S002/report.md"
    want = gone.read_bytes()
    gone.unlink()
    edited.write_bytes(b"edited by hand\n")
    before = tree(project / "_site")
    build(dossier_bin, project)
    assert gone.read_bytes() == want
    assert edited.read_bytes() == b"edited by hand\n"
    after = tree(project / "_site")
    assert_patch_rules(before, after)
