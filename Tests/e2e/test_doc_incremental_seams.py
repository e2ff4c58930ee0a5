"""docs/incremental.md "Each log read once", "A log written while the build reads it", "A
file parsed early …", "A file written while its unit is built" and "Kill safety", held at
the documented pause points (DOSSIER_PAUSE_AT / DOSSIER_PAUSE_FILE, docs/store.md; debug
builds) and the fault point (DOSSIER_FAULT_AT, docs/vault-sync.md): files are written
between two steps, never raced."""
import hashlib
import json
import os
import pathlib
import subprocess
import time

import pytest

from test_doc_incremental import (DEMO_LOGS, assert_blobs_match_state, assert_patch_rules,
                                  assert_same_as_clean, blob_dir, build, clean_build_of,
                                  hashes, make_project, settle, snapshot, state_of, tree,
                                  write_log)

CHANGED = "changed while the build was reading it (is it still being written?); nothing was " \
          "written: build again once it is complete"


class Paused:
    """A build started with a pause point; `reached()` waits until the build is there
    or has ended (a condition, not a timer)."""

    def __init__(self, bin_, project, label, tmp, n=1):
        self.flag = tmp / f"pause-{label.replace(' ', '_')}-{n}"
        env = dict(os.environ, DOSSIER_PAUSE_AT=f"{label}:{n}", DOSSIER_PAUSE_FILE=str(self.flag))
        self.proc = subprocess.Popen([bin_, "build", str(project)], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.out = self.err = None

    def reached(self, timeout=120):
        marker = pathlib.Path(str(self.flag) + ".reached")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if marker.exists():
                return True
            if self.proc.poll() is not None:
                self.out, self.err = self.proc.communicate()
                return False
            time.sleep(0.02)
        self.proc.kill()
        raise AssertionError("the build neither paused nor ended")

    def release(self):
        self.flag.touch()
        self.out, self.err = self.proc.communicate(timeout=300)
        return self.proc.returncode

    def kill(self):
        self.proc.kill()
        self.proc.communicate()


@pytest.fixture(scope="module")
def settled_projects(tmp_path_factory):
    made = [make_project(tmp_path_factory.mktemp("seam") / "p", extra=("desktop-p2.csv",)) for _ in range(18)]
    settle(*made)
    return made


@pytest.fixture
def project(settled_projects):
    return settled_projects.pop()


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest_input(project, rel):
    inputs = json.loads((project / "_site.manifest.json").read_text())["inputs"]
    return [(i["sha256"], i["size"]) for i in inputs if i["path"] == rel]


def unchanged(before, project):
    after = snapshot(project)
    assert {p: v for p, v in after["site"].items()} == before["site"]
    assert (after["manifest"], after["manifest_ino"]) == (before["manifest"], before["manifest_ino"])
    assert after["state"] == before["state"]
    assert not list(project.parent.glob("._site.staging-*")), "the staging folder is removed"


# MARK: - each log read once

def test_a_new_log_is_not_read_by_the_plan_and_a_changed_one_only_once(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    write_log(project, "S004", "S004")
    b = Paused(dossier_bin, project, "plan-read", tmp_path)
    assert not b.reached(), "a unit the state does not know is not read by the plan"
    assert b.proc.returncode == 0, b.err
    settle(project / "data")
    build(dossier_bin, project)
    write_log(project, "S002", "S005")
    first = Paused(dossier_bin, project, "plan-read", tmp_path, n=1)
    assert first.reached(), "the changed log is read by the plan"
    assert first.release() == 0, first.err
    write_log(project, "S002", "S006")
    second = Paused(dossier_bin, project, "plan-read", tmp_path, n=2)
    assert not second.reached(), "unchanged logs are stat-ed, not read"
    assert second.proc.returncode == 0, second.err


def test_a_log_written_after_the_units_read_is_built_as_read_then_redone(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    log = project / "data/recall/logs/S002.jsonl"
    write_log(project, "S002", "S004")
    parsed = log.read_bytes()
    b = Paused(dossier_bin, project, "own-read", tmp_path)
    assert b.reached()
    write_log(project, "S002", "S005")
    assert b.release() == 0, b.err
    assert manifest_input(project, "data/recall/logs/S002.jsonl") == [(hashlib.sha256(parsed).hexdigest(), len(parsed))]
    newer = log.read_bytes()
    log.write_bytes(parsed)  # the clean build of the bytes the unit parsed
    clean = clean_build_of(dossier_bin, project, tmp_path)
    log.write_bytes(newer)
    assert_same_as_clean(project, clean)
    build(dossier_bin, project)  # the write after the read reaches the next build
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))


def test_a_same_size_write_with_the_mtime_put_back_reaches_the_next_build(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    log = project / "data/recall/logs/S002.jsonl"
    write_log(project, "S002", "S004")
    b = Paused(dossier_bin, project, "own-read", tmp_path)
    assert b.reached()
    st = log.stat()
    data = log.read_bytes()
    i = data.index(b'"device":"') + len(b'"device":"')
    log.write_bytes(data[:i] + (b"X" if data[i:i + 1] != b"X" else b"Y") + data[i + 1:])
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert log.stat().st_size == st.st_size
    assert b.release() == 0, b.err
    assert manifest_input(project, "data/recall/logs/S002.jsonl") == [(hashlib.sha256(data).hexdigest(), len(data))]
    build(dossier_bin, project)
    assert manifest_input(project, "data/recall/logs/S002.jsonl") == [(sha(log), len(data))]
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))


def test_a_log_written_between_the_plans_read_and_the_units_read_is_built_as_the_unit_read_it(
        dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    write_log(project, "S002", "S004")
    b = Paused(dossier_bin, project, "plan-read", tmp_path)
    assert b.reached()
    write_log(project, "S002", "S005")
    assert b.release() == 0, b.err
    log = project / "data/recall/logs/S002.jsonl"
    assert manifest_input(project, "data/recall/logs/S002.jsonl") == [(sha(log), log.stat().st_size)]
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    before, keys = tree(project / "_site"), hashes(project)
    build(dossier_bin, project)  # nothing to redo: the file did not change after the unit's read
    assert hashes(project) == keys
    assert_patch_rules(before, tree(project / "_site"))
    assert {p: v[1:] for p, v in tree(project / "_site").items()} == {p: v[1:] for p, v in before.items()}


# MARK: - files parsed early, files written while their unit is built

def test_a_strings_file_written_after_the_sections_read_it_stops_the_build(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    before = snapshot(project)
    strings = project / "data/recall/strings.txt"
    b = Paused(dossier_bin, project, "sections-read", tmp_path)
    assert b.reached()
    strings.write_bytes(strings.read_bytes().replace(b"\n", b"\r\n"))
    assert b.release() == 1
    assert f"data/recall/strings.txt: {CHANGED}" in b.err.splitlines(), b.err
    unchanged(before, project)
    build(dossier_bin, project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))


def test_a_desktop_log_written_while_its_unit_is_built_stops_the_build(dossier_bin, project, tmp_path):
    desktop = project / "data/recall/logs/desktop-p2.csv"
    data = desktop.read_bytes()
    desktop.unlink()
    build(dossier_bin, project)
    before = snapshot(project)
    desktop.write_bytes(data)  # a new unit: built in the next build
    b = Paused(dossier_bin, project, "unit-build", tmp_path)
    assert b.reached()
    desktop.write_bytes(data)  # its own bytes again: only its times show the write
    assert b.release() == 1
    assert f"data/recall/logs/desktop-p2.csv: {CHANGED}" in b.err.splitlines(), b.err
    unchanged(before, project)
    build(dossier_bin, project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    assert manifest_input(project, "data/recall/logs/desktop-p2.csv") == [(sha(desktop), len(data))]


# MARK: - kill safety

POINTS = ["sections-read", "units-listed", "plan-read", "unit-build", "own-read", "site-committed"]


@pytest.mark.parametrize("point", POINTS + ["fault:1"])
def test_a_build_killed_at_any_point_is_followed_by_a_clean_one(dossier_bin, project, tmp_path, point):
    build(dossier_bin, project)
    before = snapshot(project)
    write_log(project, "S002", "S004")
    if point.startswith("fault:"):
        proc = build(dossier_bin, project, env={"DOSSIER_FAULT_AT": point[6:]}, check=False)
        assert proc.returncode == 86, proc.stderr
        assert "fault injected: kill at write point 1 (build: the site manifest)" in proc.stderr
    else:
        b = Paused(dossier_bin, project, point, tmp_path)
        assert b.reached(), f"{point} not reached: {b.err}"
        b.kill()
    state = project / ".dossier/state-_site.bin"
    if state.exists():
        assert state.read_bytes() == before["state"], "the previous state, or none"
        for u in state_of(project)["units"]:
            if u["blob_size"] is not None:
                assert (blob_dir(project) / u["hash"]).stat().st_size == u["blob_size"]
    incomplete = project / "_site.manifest.json.incomplete"
    build(dossier_bin, project)
    assert not incomplete.exists()
    assert not list(project.parent.glob("._site.staging-*")), "debris of the killed build removed"
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    assert_blobs_match_state(project)


def test_a_kill_inside_the_patch_leaves_the_marker_and_no_state(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    write_log(project, "S002", "S004")
    b = Paused(dossier_bin, project, "site-committed", tmp_path)
    assert b.reached()
    b.kill()
    assert (project / "_site.manifest.json.incomplete").exists()
    assert not (project / ".dossier/state-_site.bin").exists(), "deleted just before the patch"
    ino = (project / "_site").stat().st_ino
    build(dossier_bin, project)
    assert (project / "_site").stat().st_ino != ino, "no state: the next build is a full one"


def test_a_first_build_killed_before_its_manifest_leaves_a_folder_the_next_build_takes(dossier_bin, tmp_path):
    p = make_project(tmp_path / "first")
    proc = build(dossier_bin, p, env={"DOSSIER_FAULT_AT": "1"}, check=False)
    assert proc.returncode == 86
    build(dossier_bin, p)
    assert_same_as_clean(p, clean_build_of(dossier_bin, p, tmp_path))


def test_a_failed_manifest_write_says_the_site_was_partly_replaced(dossier_bin, project, tmp_path):
    """output-manifest.md, "How a build replaces the site": a failure after the first live
    file was replaced (here the one write point of a build, the site manifest, fails:
    DOSSIER_FAULT_MODE=fail) leaves the .incomplete marker and says the site was partly
    replaced (before, it said "the previous site is unchanged", which was false); the next
    build finishes the job."""
    build(dossier_bin, project)
    write_log(project, "S002", "S004")
    proc = build(dossier_bin, project, env={"DOSSIER_FAULT_AT": "1", "DOSSIER_FAULT_MODE": "fail"}, check=False)
    assert proc.returncode == 1
    assert "fault injected: fail at write point 1 (build: the site manifest)" in proc.stderr
    assert "the site was partly replaced; run dossier build again to finish it" in proc.stderr, proc.stderr
    assert "the previous site is unchanged" not in proc.stderr
    assert (project / "_site.manifest.json.incomplete").exists()
    build(dossier_bin, project)
    assert not (project / "_site.manifest.json.incomplete").exists()
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))


def experiences_project(root):
    src = DEMO_LOGS.parents[1] / "experiences"
    (root / "content").mkdir(parents=True)
    (root / "data/experiences/media").mkdir(parents=True)
    (root / "data/experiences/park-walk.json").write_bytes((src / "park-walk.json").read_bytes())
    for name in ("park-gate.jpg", "park-pond.jpg"):
        (root / f"data/experiences/media/{name}").write_bytes((src / "media" / name).read_bytes())
    (root / "dossier.yml").write_text("title: E\nexperiences:\n  input: data/experiences\n")
    (root / "content/index.md").write_text("# Home\n")
    return root


@pytest.mark.parametrize("point,rel", [("sections-read", "data/experiences/park-walk.json"),
                                       ("unit-build", "data/experiences/media/park-gate.jpg")])
def test_an_experience_or_its_media_written_during_the_build_stops_it(dossier_bin, tmp_path, point, rel):
    p = experiences_project(tmp_path / "e")
    build(dossier_bin, p)
    before = snapshot(p)
    exp = p / "data/experiences/park-walk.json"
    exp.write_bytes(exp.read_bytes() + b"\n")  # other bytes: its unit is built
    b = Paused(dossier_bin, p, point, tmp_path)
    assert b.reached()
    f = p / rel
    f.write_bytes(f.read_bytes() + (b"\n\n" if rel.endswith(".json") else b""))
    assert b.release() == 1
    assert f"{rel}: {CHANGED}" in b.err.splitlines(), b.err
    unchanged(before, p)
    build(dossier_bin, p)
    assert_same_as_clean(p, clean_build_of(dossier_bin, p, tmp_path))
