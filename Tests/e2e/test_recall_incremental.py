"""Issue #20: an incremental build of a study after adding, changing or removing one
participant's log writes exactly the site a clean build of the same inputs writes —
the study summary page and every study-wide CSV/JSON included, byte for byte
(docs/incremental.md). Each step also checks that the build really was incremental:
one participant unit rebuilt, the others reused."""
import json
import os
import re
import shutil
import signal
import subprocess

import pytest


def simulate(dossier_bin, out, first, count, seed):
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", str(count), "--first", str(first),
                    "--seed", str(seed), "--out", str(out)], check=True, capture_output=True)


def tree(folder):
    out = {}
    for dirpath, _, names in os.walk(folder):
        for n in names:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, folder)] = open(p, "rb").read()
    return out


def clean_build(dossier_bin, project, tmp_path, name):
    """The same inputs built from nothing in another folder."""
    other = tmp_path / name
    shutil.copytree(project, other, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    subprocess.run([dossier_bin, "build", "--clean", "--quiet", str(other)], check=True, capture_output=True)
    return tree(other / "_site"), (other / "_site.manifest.json").read_bytes() if (other / "_site.manifest.json").exists() else None


def incremental(dossier_bin, project):
    p = subprocess.run([dossier_bin, "build", "--verbose", str(project)], check=True, capture_output=True, text=True)
    return p.stdout + p.stderr


@pytest.fixture
def study(tmp_path, dossier_bin):
    p = subprocess.run([dossier_bin, "recall", "simulate", "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip("this dossier was built without the recall domain")
    root = tmp_path / "study"
    logs = root / "data" / "logs"
    simulate(dossier_bin, logs, 1, 7, seed=4)
    shutil.move(str(logs / "strings.txt"), root / "data" / "strings.txt")
    (root / "dossier.yml").write_text("title: Incremental study\nbase_url: https://example.org/s/\n"
                                      "recall:\n  strings: data/strings.txt\n  logs: data/logs\n", encoding="utf-8")
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
    return root


def assert_same_as_clean(dossier_bin, study, tmp_path, name):
    ours = tree(study / "_site")
    theirs, manifest = clean_build(dossier_bin, study, tmp_path, name)
    differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    assert differ == [], f"incremental build differs from a clean build in {differ[:10]}"
    for key in ("recall/index.html", "recall/entries.csv", "recall/participants.json", "recall/strings.csv",
                "recall/study-table.csv"):
        assert key in ours
    if manifest is not None:
        assert (study / "_site.manifest.json").read_bytes() == manifest


def test_adding_changing_and_removing_a_participant_equals_a_clean_build(study, tmp_path, dossier_bin):
    logs = study / "data" / "logs"
    # Add S008.
    simulate(dossier_bin, tmp_path / "more", 8, 1, seed=4)
    shutil.copy(tmp_path / "more" / "S008.jsonl", logs / "S008.jsonl")
    out = incremental(dossier_bin, study)
    assert re.search(r"8 units, 7 unchanged", out), out
    assert to_build(out) == ["recall/p-S008"], out   # --verbose names the unit it builds
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-add")
    assert b"S008" in (study / "_site/recall/participants.csv").read_bytes()
    # Change S003: another simulated session of the same participant.
    before = (study / "_site/recall/strings.csv").read_bytes()
    simulate(dossier_bin, tmp_path / "other", 3, 1, seed=99)
    shutil.copy(tmp_path / "other" / "S003.jsonl", logs / "S003.jsonl")
    out = incremental(dossier_bin, study)
    assert re.search(r"8 units, 7 unchanged", out), out
    assert to_build(out) == ["recall/p-S003"], out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-change")
    assert (study / "_site/recall/strings.csv").read_bytes() != before   # the change reached the study table
    # Remove S005.
    (logs / "S005.jsonl").unlink()
    out = incremental(dossier_bin, study)
    assert re.search(r"7 units, 7 unchanged", out), out
    assert to_build(out) is None, out   # nothing to build: no list
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-remove")
    assert b"S005" not in (study / "_site/recall/participants.csv").read_bytes()
    # Ten new participants: the first eight are named, then how many more.
    simulate(dossier_bin, tmp_path / "ten", 10, 10, seed=4)
    for n in range(10, 20):
        shutil.copy(tmp_path / "ten" / f"S{n:03}.jsonl", logs / f"S{n:03}.jsonl")
    out = incremental(dossier_bin, study)
    assert re.search(r"17 units, 7 unchanged", out), out
    assert to_build(out) == [f"recall/p-S{n:03}" for n in range(10, 17)] + ["recall/p-S017 and 2 more"], out


def to_build(out):
    """The unit keys of `--verbose`'s `to build:` line (None: no such line)."""
    m = re.search(r"^ *to build: (.*)$", out, re.M)
    return m.group(1).split(", ") if m else None


def dynamics_headers(site):
    return [(site / f"recall/dynamics/string-{n}.csv").read_bytes().split(b"\r\n", 1)[0] for n in range(1, 11)]


def test_removing_the_first_and_the_last_participant_equals_a_clean_build(study, tmp_path, dossier_bin):
    logs = study / "data" / "logs"
    (logs / "S001.jsonl").unlink()
    (logs / "S007.jsonl").unlink()
    out = incremental(dossier_bin, study)
    assert re.search(r"5 units, 5 unchanged", out), out
    assert_same_as_clean(dossier_bin, study, tmp_path, "without-ends")
    rows = (study / "_site/recall/participants.csv").read_bytes()
    assert b"S001" not in rows and b"S007" not in rows and b"S002" in rows and b"S006" in rows


def test_a_change_of_a_dynamics_tables_key_sequence_equals_a_clean_build(study, tmp_path, dossier_bin):
    """Copies of a session whose key "5" is labelled "five" (same text typed) outweigh
    everyone else: the most common key sequence of every string with a 5 — the dynamics
    table's columns — becomes theirs; removing the copies brings the old columns back."""
    logs = study / "data" / "logs"
    before = dynamics_headers(study / "_site")
    odd = (logs / "S001.jsonl").read_text().replace('"key":"5"', '"key":"five"')
    assert '"key":"five"' in odd
    for i in range(12):
        (logs / f"S9{i:02d}.jsonl").write_text(odd)
    out = incremental(dossier_bin, study)
    assert re.search(r"19 units, 7 unchanged", out), out
    assert_same_as_clean(dossier_bin, study, tmp_path, "copies")
    after = dynamics_headers(study / "_site")
    assert after != before and any(b"H.five" in h for h in after)
    for i in range(12):
        (logs / f"S9{i:02d}.jsonl").unlink()
    incremental(dossier_bin, study)
    assert_same_as_clean(dossier_bin, study, tmp_path, "copies-gone")
    assert dynamics_headers(study / "_site") == before


def blobs(study):
    return sorted((study / ".dossier" / "units-_site").iterdir())


def test_a_corrupt_or_older_state_means_a_full_build(study, tmp_path, dossier_bin):
    state = study / ".dossier" / "state-_site.bin"
    good = state.read_bytes()
    assert good.startswith(b"DOSSIER-STATE\n")
    # Damaged: cut in the middle.
    state.write_bytes(good[: len(good) // 2])
    out = incremental(dossier_bin, study)
    assert "no usable previous build: full build" in out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-corrupt")
    # An older format version (1: records carried every row).
    good = state.read_bytes()
    state.write_bytes(good[:14] + (1).to_bytes(4, "little") + good[18:])
    out = incremental(dossier_bin, study)
    assert "no usable previous build: full build" in out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-old")
    assert len(blobs(study)) == 7   # one per participant, no leftovers


def test_a_damaged_or_missing_blob_is_rebuilt_and_the_site_equals_a_clean_build(study, tmp_path, dossier_bin):
    logs = study / "data" / "logs"
    assert len(blobs(study)) == 7
    b = [x for x in blobs(study) if b"S004" not in x.read_bytes()]   # not the blob of the log changed below
    assert len(b) == 6
    # Same size, wrong bytes: found when the summary reads it, rebuilt from the log.
    b[0].write_bytes(b"\0" * b[0].stat().st_size)
    # Truncated: its unit is rebuilt at planning.
    b[1].write_bytes(b[1].read_bytes()[:100])
    simulate(dossier_bin, tmp_path / "other", 4, 1, seed=99)
    shutil.copy(tmp_path / "other" / "S004.jsonl", logs / "S004.jsonl")
    out = incremental(dossier_bin, study)
    assert re.search(r"7 units, 5 unchanged", out), out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-damage")
    # A missing blob: its unit is rebuilt.
    blobs(study)[2].unlink()
    out = incremental(dossier_bin, study)
    assert re.search(r"7 units, 6 unchanged", out), out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-missing")


def kill_when(dossier_bin, study, ready):
    """Starts an incremental build and SIGKILLs it as soon as `ready()` holds (polling the
    file system, not timing anything). Returns whether it was killed before it finished."""
    p = subprocess.Popen([dossier_bin, "build", "-q", str(study)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed = False
    while p.poll() is None:
        if ready():
            p.send_signal(signal.SIGKILL)
            killed = True
            break
    p.wait()
    return killed


def test_a_build_killed_at_its_write_points_is_followed_by_one_equal_to_a_clean_build(study, tmp_path, dossier_bin):
    logs = study / "data" / "logs"
    units = study / ".dossier" / "units-_site"
    state = study / ".dossier" / "state-_site.bin"
    triggers = {
        "a new blob": lambda known: lambda: set(units.iterdir()) - known,
        "the staging folder": lambda known: lambda: any(study.glob("._site.staging-*/recall")),
        "the state removed for the patch": lambda known: lambda: not state.exists(),
    }
    kills = 0
    for round, (name, make) in enumerate(triggers.items()):
        simulate(dossier_bin, tmp_path / f"k{round}", 2 + round, 1, seed=50 + round)
        shutil.copy(tmp_path / f"k{round}" / f"S00{2 + round}.jsonl", logs / f"S00{2 + round}.jsonl")
        kills += kill_when(dossier_bin, study, make(set(units.iterdir())))
        r = subprocess.run([dossier_bin, "build", "-q", str(study)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert_same_as_clean(dossier_bin, study, tmp_path, f"after-kill-{round}")
        assert len(blobs(study)) == 7, name
    assert kills >= 2


def wait_out_the_stamp_window(folder):
    """Input stamps are trusted only for files whose ctime is over one second older than
    the stamp (docs/output-manifest.md, "racily clean"): wait until that holds for every
    file under `folder`, so the next build's stamps are reusable by the one after."""
    import time
    newest = max(os.stat(os.path.join(d, n)).st_ctime for d, _, ns in os.walk(folder) for n in ns)
    while time.time() < newest + 1.1:
        time.sleep(0.05)


def test_a_build_that_changes_nothing_keeps_the_state_and_a_touched_input_rewrites_it(study, tmp_path, dossier_bin):
    state = study / ".dossier" / "state-_site.bin"
    wait_out_the_stamp_window(study / "data")
    incremental(dossier_bin, study)   # takes stamps that the next builds trust
    before, before_bytes = state.stat(), state.read_bytes()
    out = incremental(dossier_bin, study)
    assert "the build state is kept as it is" in out, out
    after = state.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-nothing")
    # Same bytes, new ctime: the log is read again and its new stamp must be saved.
    log = study / "data" / "logs" / "S005.jsonl"
    log.write_bytes(log.read_bytes())
    out = incremental(dossier_bin, study)
    assert re.search(r"7 units, 7 unchanged", out), out
    assert "the build state is kept as it is" not in out, out
    # Rewritten with the log's new stamp. (Not told by the inode: a patch deletes the old
    # state before it saves the new one, and the file system may hand the freed inode
    # number to the new file.)
    assert state.read_bytes() != before_bytes
    # A site file deleted by hand: its unit is rebuilt, the state saved again.
    (study / "_site/recall/participants/S002/raw.csv").unlink()
    out = incremental(dossier_bin, study)
    assert re.search(r"7 units, 6 unchanged", out), out
    assert "the build state is kept as it is" not in out, out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-deleted-file")
    out = incremental(dossier_bin, study)
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-rebuilt-file")


WAVE2 = ["Kp2#vx", "t7&Lm0qZ", "aa9!Bc", "Zr4(wq=1", "h3Hh;pQ8", "N0v%2y", "c8)Jk4Ls@1", "w5^Te", "Y6~ug2Rk", "e1*Db7Xz"]


def test_a_two_set_study_changed_incrementally_equals_a_clean_build(tmp_path, dossier_bin):
    """Each set's dynamics tables take their key sequences from that set's participants
    only (the summary folds them per set as it decodes the records): copies of a session
    whose key "5" is labelled "five" change the columns of wave1's tables, not wave2's."""
    p = subprocess.run([dossier_bin, "recall", "simulate", "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip("this dossier was built without the recall domain")
    root = tmp_path / "waves"
    data = root / "data"
    simulate(dossier_bin, data / "w1", 1, 3, seed=5)
    (data / "w1" / "strings.txt").rename(data / "wave1.txt")
    (data / "wave2.txt").write_text("\n".join(WAVE2) + "\n", encoding="utf-8")
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", "2", "--first", "10", "--seed", "6",
                    "--strings", str(data / "wave2.txt"), "--out", str(data / "w2")], check=True, capture_output=True)
    for log, name in [(data / "w1" / "S001.jsonl", "wave1"), (data / "w2" / "S010.jsonl", "wave2"),
                      (data / "w2" / "S011.jsonl", "wave2")]:
        lines = log.read_text(encoding="utf-8").split("\n")
        head = json.loads(lines[0])
        head["set"] = name
        lines[0] = json.dumps(head, ensure_ascii=False)
        log.write_text("\n".join(lines), encoding="utf-8")
    (root / "dossier.yml").write_text("title: Two waves\nrecall:\n  strings:\n    wave1: data/wave1.txt\n"
                                      "    wave2: data/wave2.txt\n  logs: [data/w1, data/w2]\n", encoding="utf-8")
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)

    def headers(name):
        return [(root / f"_site/recall/sets/{name}/dynamics/string-{n}.csv").read_bytes().split(b"\r\n", 1)[0]
                for n in range(1, 11)]

    def same_as_clean(tag):
        ours = tree(root / "_site")
        theirs, manifest = clean_build(dossier_bin, root, tmp_path, tag)
        differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
        assert differ == [], f"incremental build differs from a clean build in {differ[:10]}"
        assert (root / "_site.manifest.json").read_bytes() == manifest

    w1, w2 = headers("wave1"), headers("wave2")
    odd = (data / "w1" / "S002.jsonl").read_text().replace('"key":"5"', '"key":"five"')
    assert '"key":"five"' in odd
    for i in range(6):
        (data / "w1" / f"S9{i:02d}.jsonl").write_text(odd)
    out = incremental(dossier_bin, root)
    assert re.search(r"11 units, 5 unchanged", out), out
    same_as_clean("waves-copies")
    assert headers("wave1") != w1 and any(b"H.five" in h for h in headers("wave1"))
    assert headers("wave2") == w2
    # A changed wave2 log, then the copies gone: the old columns come back.
    simulate_other = tmp_path / "w2-other"
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", "1", "--first", "10", "--seed", "60",
                    "--strings", str(data / "wave2.txt"), "--out", str(simulate_other)], check=True, capture_output=True)
    lines = (simulate_other / "S010.jsonl").read_text(encoding="utf-8").split("\n")
    head = json.loads(lines[0]); head["set"] = "wave2"; lines[0] = json.dumps(head, ensure_ascii=False)
    (data / "w2" / "S010.jsonl").write_text("\n".join(lines), encoding="utf-8")
    for i in range(6):
        (data / "w1" / f"S9{i:02d}.jsonl").unlink()
    out = incremental(dossier_bin, root)
    assert re.search(r"5 units, 4 unchanged", out), out
    same_as_clean("waves-back")
    assert headers("wave1") == w1


def test_a_build_that_changes_nothing_leaves_the_manifest_file_alone(study, tmp_path, dossier_bin):
    """The manifest is rewritten only when its bytes change: a second hard link pins the
    old file's inode, so a rewrite (a new file renamed into place) cannot get its number."""
    manifest = study / "_site.manifest.json"
    pin = tmp_path / "manifest-pin"
    incremental(dossier_bin, study)
    os.link(manifest, pin)
    incremental(dossier_bin, study)
    assert manifest.stat().st_ino == pin.stat().st_ino, "an unchanged manifest was written again"
    # One changed log: the manifest is a new file with the log's new hash.
    log = study / "data" / "logs" / "S004.jsonl"
    log.write_bytes(log.read_bytes() + b"\n")
    out = incremental(dossier_bin, study)
    assert re.search(r"7 units, 6 unchanged", out), out
    assert manifest.stat().st_ino != pin.stat().st_ino
    assert manifest.read_bytes() != pin.read_bytes()
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-change")


def test_a_logs_folder_lists_its_files_only(study, tmp_path, dossier_bin):
    """`logs: data/logs` takes every non-hidden file of the folder with a log extension,
    symbolic links to files in the project followed (a link out of the project is refused:
    docs/limits.md); sub-folders (even named like a log), hidden files and other
    extensions are not participants."""
    logs = study / "data" / "logs"
    simulate(dossier_bin, tmp_path / "more", 8, 2, seed=4)
    shutil.copy(tmp_path / "more" / "S008.jsonl", tmp_path / "S008-elsewhere.jsonl")
    os.symlink(tmp_path / "S008-elsewhere.jsonl", logs / "S008.jsonl")
    refused = subprocess.run([dossier_bin, "build", str(study)], capture_output=True, text=True)
    assert refused.returncode == 1 and "S008.jsonl: links outside the project" in refused.stderr, refused.stderr
    (logs / "S008.jsonl").unlink()
    (study / "elsewhere").mkdir()
    shutil.copy(tmp_path / "more" / "S008.jsonl", study / "elsewhere" / "S008.jsonl")
    os.symlink(study / "elsewhere" / "S008.jsonl", logs / "S008.jsonl")
    (logs / "S009.jsonl").mkdir()                               # a folder named like a log
    shutil.copy(tmp_path / "more" / "S009.jsonl", logs / "S009.jsonl" / "S009.jsonl")
    shutil.copy(tmp_path / "more" / "S009.jsonl", logs / ".S010.jsonl")
    shutil.copy(tmp_path / "more" / "S009.jsonl", logs / "S011.txt")
    out = incremental(dossier_bin, study)
    assert re.search(r"8 units, 7 unchanged", out), out
    people = sorted(p.name for p in (study / "_site/recall/participants").iterdir())
    assert people == [f"S00{i}" for i in range(1, 9)], people
