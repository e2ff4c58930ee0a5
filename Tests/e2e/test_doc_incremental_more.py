"""docs/incremental.md and docs/output-manifest.md, continued: damaged blobs and states,
records of an older form, racy and future stamps, the patch's marker and link check."""
import os
import struct
import subprocess
import time

import pytest

from test_doc_incremental import (DEMO_LOGS, Reader, check_study_files, assert_blobs_match_state, assert_patch_rules,
                                  assert_same_as_clean, blob_dir, build, clean_build_of,
                                  hashes, make_project, settle, snapshot, state_of, tree,
                                  write_log)
from test_doc_incremental_seams import Paused


@pytest.fixture(scope="module")
def settled_projects(tmp_path_factory):
    made = [make_project(tmp_path_factory.mktemp("more") / "p") for _ in range(20)]
    settle(*made)
    return made


@pytest.fixture
def project(settled_projects):
    return settled_projects.pop()
def test_a_zeroed_blob_is_rebuilt_from_its_log(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    keys = hashes(project)
    blob = blob_dir(project) / keys["recall/p-S001"]
    blob.write_bytes(b"\0" * blob.stat().st_size)
    write_log(project, "S003", "S005")  # another unit changes, so the summary reads every blob
    build(dossier_bin, project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))


@pytest.mark.parametrize("damage", ["delete", "truncate"])
def test_a_missing_or_short_blob_rebuilds_its_unit(dossier_bin, project, damage):
    build(dossier_bin, project)
    before, keys = snapshot(project), hashes(project)
    blob = blob_dir(project) / keys["recall/p-S002"]
    if damage == "delete":
        blob.unlink()
    else:
        blob.write_bytes(before["blobs"][blob.name][:100])
    build(dossier_bin, project)
    assert hashes(project) == keys
    assert blob.read_bytes() == before["blobs"][blob.name], "same inputs: same bytes under the same name"
    assert_patch_rules(before["site"], tree(project / "_site"))
    assert_blobs_match_state(project)


def _with_header(data, version=None, dossier=None, output=None):
    r = Reader(data)
    r.take(14)
    v, d, o = r.u32(), r.text(), r.text()
    v, d, o = version or v, dossier or d, output or o
    enc = lambda s: struct.pack("<I", len(s.encode())) + s.encode()
    return b"DOSSIER-STATE\n" + struct.pack("<I", v) + enc(d) + enc(o) + data[r.o:]


@pytest.mark.parametrize("damage", ["truncated", "trailing-byte", "version-1", "other-version", "other-output"])
def test_a_damaged_or_foreign_state_gives_a_full_build(dossier_bin, project, tmp_path, damage):
    build(dossier_bin, project)
    path = project / ".dossier/state-_site.bin"
    data = path.read_bytes()
    bad = {"truncated": lambda: data[:len(data) // 2],
           "trailing-byte": lambda: data + b"\0",
           "version-1": lambda: _with_header(data, version=1),
           "other-version": lambda: _with_header(data, dossier="0.0.9"),
           "other-output": lambda: _with_header(data, output=str(tmp_path / "elsewhere/_site"))}[damage]()
    path.write_bytes(bad)
    ino = (project / "_site").stat().st_ino
    build(dossier_bin, project)
    assert (project / "_site").stat().st_ino != ino, "a full build swaps in a new folder"
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    st = state_of(project)
    assert st["version"] == 2 and st["output"] == str(project / "_site")
    assert_blobs_match_state(project)


def test_a_removed_site_folder_gives_a_full_build(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    import shutil
    shutil.rmtree(project / "_site")
    build(dossier_bin, project)
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    assert_blobs_match_state(project)


def test_a_stray_file_in_the_blob_folder_goes_with_the_next_saved_state(dossier_bin, project):
    build(dossier_bin, project)
    stray = blob_dir(project) / ("0" * 64)
    stray.write_bytes(b"left by a killed build")
    write_log(project, "S003", "S005")
    build(dossier_bin, project)
    assert not stray.exists()
    assert_blobs_match_state(project)


def test_a_record_of_an_older_form_asks_for_clean(dossier_bin, project):
    """output-manifest.md: records 0x01-0x03 are refused with "run with --clean"."""
    build(dossier_bin, project)
    path = project / ".dossier/state-_site.bin"
    data = bytearray(path.read_bytes())
    st = state_of(project)
    unit = next(u for u in st["units"] if u["key"] == "recall/p-S001")
    at = bytes(data).index(unit["record"])
    assert data[at] == 0x04
    data[at] = 0x02
    path.write_bytes(bytes(data))
    before = snapshot(project)
    write_log(project, "S003", "S005")  # the summary decodes every record
    proc = build(dossier_bin, project, check=False)
    assert proc.returncode == 1
    assert "run with --clean" in proc.stderr
    after = snapshot(project)
    assert after["site"] == before["site"] and after["manifest"] == before["manifest"]


def test_an_input_whose_mtime_is_in_the_future_is_read_by_every_plan(dossier_bin, project, tmp_path):
    """Stamps are trusted only when mtime and ctime were over a second older than the
    moment the stamp was taken: a future mtime never is."""
    log = project / "data/recall/logs/S001.jsonl"
    future = time.time_ns() + 3600 * 10**9
    os.utime(log, ns=(future, future))
    build(dossier_bin, project)
    for _ in range(2):
        b = Paused(dossier_bin, project, "plan-read", tmp_path)
        assert b.reached(), "a stamp that is not older than a second is not trusted"
        assert b.release() == 0, b.err


def test_a_settled_no_change_build_reads_no_input(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    b = Paused(dossier_bin, project, "plan-read", tmp_path)
    assert not b.reached()
    assert b.proc.returncode == 0, b.err


def test_a_patch_that_writes_no_file_makes_no_marker(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    log = project / "data/recall/logs/S001.jsonl"
    st = log.stat()
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))
    b = Paused(dossier_bin, project, "site-committed", tmp_path)
    reached = b.reached()
    if reached:
        marker = (project / "_site.manifest.json.incomplete").exists()
        assert b.release() == 0, b.err
        assert not marker, "a patch that writes no file creates no marker"
    else:
        assert b.proc.returncode == 0, b.err


def test_a_patch_that_removes_a_file_checks_every_pages_links(dossier_bin, project):
    (project / "static").mkdir()
    (project / "static/x.txt").write_text("x\n")
    methods = project / "content/methods.md"
    methods.write_text("---\ntitle: Methods\n---\n# Methods\n\nSee [x](../x.txt).\n")
    build(dossier_bin, project)
    before = snapshot(project)
    (project / "static/x.txt").unlink()
    proc = build(dossier_bin, project, check=False)
    assert proc.returncode == 1
    assert "content/methods.md:6" in proc.stderr and "../x.txt" in proc.stderr
    after = snapshot(project)
    assert after["site"] == before["site"] and after["manifest"] == before["manifest"]


def test_a_change_of_a_dynamics_tables_most_common_sequence_and_back(dossier_bin, project, tmp_path):
    """incremental.md: a change that alters a table's most common key sequence is handled
    like any other (four sessions whose key `5` is labelled `five` outweigh three)."""
    build(dossier_bin, project)
    first = (project / "_site/recall/dynamics/string-1.csv").read_bytes()
    text = (DEMO_LOGS / "S001.jsonl").read_text().replace('"key":"5"', '"key":"five"')
    for n in range(4, 8):
        (project / f"data/recall/logs/X00{n}.jsonl").write_text(text)
    build(dossier_bin, project)
    assert (project / "_site/recall/dynamics/string-1.csv").read_bytes().split(b"\r\n")[0] != first.split(b"\r\n")[0]
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    check_study_files(project)
    for n in range(4, 8):
        (project / f"data/recall/logs/X00{n}.jsonl").unlink()
    build(dossier_bin, project)
    assert (project / "_site/recall/dynamics/string-1.csv").read_bytes() == first
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
    check_study_files(project)


def test_a_changed_content_page_rebuilds_that_page_only(dossier_bin, project, tmp_path):
    build(dossier_bin, project)
    before, keys = tree(project / "_site"), hashes(project)
    (project / "content/methods.md").write_text("---\ntitle: Methods\n---\n# Methods\n\nOther words.\n")
    build(dossier_bin, project)
    keys2 = hashes(project)
    assert [k for k in keys if keys2[k] != keys[k]] == ["content/methods.md"]
    after = tree(project / "_site")
    assert_patch_rules(before, after)
    assert [p for p in after if after[p][0] != before[p][0]] == ["methods/index.html"]
    assert_same_as_clean(project, clean_build_of(dossier_bin, project, tmp_path))
