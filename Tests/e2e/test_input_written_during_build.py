"""Input files written while a build reads them (docs/incremental.md, "Each log read
once"). First a participant's log written while a build holds its bytes (also
docs/output-manifest.md, "Input stamps"). The build is held just after its
participant unit read the log (`DOSSIER_PAUSE_AT=own-read:1`, debug builds), the log is
rewritten — another session of a different size, or the same size with one byte changed
and its modification time put back — and the build goes on. That build describes what it
parsed (the manifest records the SHA-256 of the bytes read, not of the file as it ends
up); the next build must see the change, rebuild that participant and write exactly the
site a clean build of the new log writes.

The same for a log the plan hashed to learn it changed (`DOSSIER_PAUSE_AT=plan-read:1`,
an incremental build): the log is written again before the unit reads it. The unit takes
its key from the bytes it parses, so that build already describes the new log and the
next one reuses everything.

The write is made older than the one-second "racily clean" window before the build goes
on (the clock is read, nothing waits on luck), so the test fails if the unit stamped the
file as it found it after the read rather than as it was before: that stamp would match
the new file and hide its change from the next build."""
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import time

import pytest

from test_recall_incremental import clean_build, simulate, tree
from test_recall_ingest_folder_race import wait_until_held


def project(tmp_path, dossier_bin):
    p = subprocess.run([dossier_bin, "recall", "simulate", "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip("this dossier was built without the recall domain")
    root = tmp_path / "study"
    logs = root / "data" / "logs"
    simulate(dossier_bin, logs, 1, 1, seed=4)
    shutil.move(str(logs / "strings.txt"), root / "data" / "strings.txt")
    (root / "dossier.yml").write_text("title: Late writes\nbase_url: https://example.org/s/\n"
                                      "recall:\n  strings: data/strings.txt\n  logs: data/logs\n", encoding="utf-8")
    return root, logs / "S001.jsonl"


def held_build(dossier_bin, root, pause, at="own-read:1"):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOSSIER_FAULT", "DOSSIER_PAUSE"))}
    env.update({"DOSSIER_PAUSE_AT": at, "DOSSIER_PAUSE_FILE": str(pause)})
    p = subprocess.Popen([dossier_bin, "build", "--quiet", str(root)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until_held(p, pause.with_name(pause.name + ".reached"))
    return p


def refused(build, name):
    """The held build, let go, stopped on `name` written during it."""
    out, err = build.communicate(timeout=300)
    assert build.returncode == 1, out + err
    assert name in err and "changed while the build was reading it" in err, err


def past_racy_window(path):
    """Returns once the clock is more than 1.2 s past the file's last change (ctime), so a
    stamp taken now would be trusted by the next build."""
    changed = os.stat(path).st_ctime_ns
    while time.time_ns() < changed + 1_200_000_000:
        time.sleep(0.05)


def manifest_input(root, name):
    m = json.loads((root / "_site.manifest.json").read_text())
    return next(i for i in m["inputs"] if i["path"] == name)


def other_session(dossier_bin, tmp_path, log):
    simulate(dossier_bin, tmp_path / "other", 1, 1, seed=99)
    return (tmp_path / "other" / "S001.jsonl").read_bytes()


def same_size_one_byte(dossier_bin, tmp_path, log):
    old = log.read_bytes()
    new = old.replace(b"simulated iPhone", b"simulated iPhonf", 1)
    assert new != old and len(new) == len(old)
    return new


@pytest.mark.parametrize("rewrite", [other_session, same_size_one_byte])
def test_a_log_rewritten_while_the_build_holds_it_is_built_again_next_time(dossier_bin, tmp_path, rewrite):
    root, log = project(tmp_path, dossier_bin)
    read = log.read_bytes()
    new = rewrite(dossier_bin, tmp_path, log)
    before = os.stat(log)
    pause = tmp_path / "pause"
    build = held_build(dossier_bin, root, pause)
    log.write_bytes(new)
    if len(new) == len(read):
        os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))   # only the change time tells
    past_racy_window(log)
    pause.touch()
    out, err = build.communicate(timeout=300)
    assert build.returncode == 0, out + err
    # The build describes the bytes it parsed.
    recorded = manifest_input(root, "data/logs/S001.jsonl")
    assert recorded["sha256"] == hashlib.sha256(read).hexdigest()
    assert recorded["size"] == len(read)
    # The next build sees the change, rebuilds that participant, and equals a clean build.
    p = subprocess.run([dossier_bin, "build", "--verbose", str(root)], check=True, capture_output=True, text=True)
    assert re.search(r"1 units?, 0 unchanged", p.stdout + p.stderr), p.stdout + p.stderr
    assert manifest_input(root, "data/logs/S001.jsonl")["sha256"] == hashlib.sha256(new).hexdigest()
    theirs, manifest = clean_build(dossier_bin, root, tmp_path, "clean")
    ours = tree(root / "_site")
    differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    assert differ == [], f"the build after the late write differs from a clean build in {differ[:10]}"
    assert (root / "_site.manifest.json").read_bytes() == manifest


def test_a_log_rewritten_after_the_plan_hashed_it_is_built_as_the_unit_read_it(dossier_bin, tmp_path):
    root, log = project(tmp_path, dossier_bin)
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
    planned = other_session(dossier_bin, tmp_path, log)
    log.write_bytes(planned)
    latest = planned.replace(b"simulated iPhone", b"simulated iPhonf", 1)
    assert latest != planned
    # Only the log is read by the plan: every other input's stamp is trusted.
    for f in (root / "dossier.yml", root / "data" / "strings.txt"):
        past_racy_window(f)
    pause = tmp_path / "pause"
    build = held_build(dossier_bin, root, pause, at="plan-read:1")
    log.write_bytes(latest)
    past_racy_window(log)
    pause.touch()
    out, err = build.communicate(timeout=300)
    assert build.returncode == 0, out + err
    # That build describes the bytes its unit parsed, and is the clean build of them.
    assert manifest_input(root, "data/logs/S001.jsonl")["sha256"] == hashlib.sha256(latest).hexdigest()
    theirs, manifest = clean_build(dossier_bin, root, tmp_path, "clean")
    ours = tree(root / "_site")
    differ = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    assert differ == [], f"the build with the late write differs from a clean build in {differ[:10]}"
    assert (root / "_site.manifest.json").read_bytes() == manifest
    # The next build has nothing to do.
    p = subprocess.run([dossier_bin, "build", "--verbose", str(root)], check=True, capture_output=True, text=True)
    assert re.search(r"1 units?, 1 unchanged", p.stdout + p.stderr), p.stdout + p.stderr


def test_a_strings_file_written_between_its_parse_and_the_plan_fails_the_build_and_loses_nothing(dossier_bin, tmp_path):
    """The strings file is parsed when the section is made and hashed by the plan: a write
    between the two would build every participant from one version under the key of the
    other (and the next build would trust that key). Such a build is refused, naming the
    file, and leaves the site as it was; the next build succeeds."""
    root, log = project(tmp_path, dossier_bin)
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
    site, manifest = tree(root / "_site"), (root / "_site.manifest.json").read_bytes()
    strings = root / "data" / "strings.txt"
    crlf = strings.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    assert crlf != strings.read_bytes()
    pause = tmp_path / "pause"
    build = held_build(dossier_bin, root, pause, at="sections-read:1")
    strings.write_bytes(crlf)          # the same strings, other bytes
    pause.touch()
    refused(build, "data/strings.txt")
    assert tree(root / "_site") == site
    assert (root / "_site.manifest.json").read_bytes() == manifest
    assert sorted(p.name for p in root.iterdir()) == ["._site.lock", ".dossier", "_site", "_site.manifest.json", "data",
                                                      "dossier.yml"]   # (the lock: one command at a time)
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
    assert manifest_input(root, "data/strings.txt")["sha256"] == hashlib.sha256(crlf).hexdigest()
    theirs, clean_manifest = clean_build(dossier_bin, root, tmp_path, "clean")
    assert tree(root / "_site") == theirs
    assert (root / "_site.manifest.json").read_bytes() == clean_manifest


def test_an_experience_written_between_its_parse_and_the_plan_fails_the_build(dossier_bin, tmp_path):
    """The same rule for the experiences section, which parses every experience file when
    it is made (Section.inputsReadEarly)."""
    demo = pathlib.Path(__file__).resolve().parents[2] / "Examples" / "demo" / "data" / "experiences"
    root = tmp_path / "exp"
    shutil.copytree(demo, root / "data" / "experiences")
    (root / "dossier.yml").write_text("title: Experiences\nbase_url: https://example.org/e/\n"
                                      "experiences:\n  input: data/experiences\n", encoding="utf-8")
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
    site = tree(root / "_site")
    park = root / "data" / "experiences" / "park-walk.json"
    spaced = park.read_bytes() + b"\n\n"
    pause = tmp_path / "pause"
    build = held_build(dossier_bin, root, pause, at="sections-read:1")
    park.write_bytes(spaced)           # the same experience, other bytes
    pause.touch()
    refused(build, "data/experiences/park-walk.json")
    assert tree(root / "_site") == site
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
    assert manifest_input(root, "data/experiences/park-walk.json")["sha256"] == hashlib.sha256(spaced).hexdigest()


@pytest.mark.parametrize("written", ["data/vault/demo.dvault", "data/sms/alice.keystore"])
def test_a_vault_or_keystore_written_after_it_was_opened_fails_the_build(dossier_bin, tmp_path, written):
    """The vault and the keystores are opened while the sections list their units, before
    the plan hashes them (Section.inputStampsReadEarly): a write in between (here the same
    bytes written again: only the file's times show it) stops the build, naming the file,
    and the site stays as it was; the next build succeeds."""
    for domain in ("vault", "sms"):
        if subprocess.run([dossier_bin, domain, "--help"], capture_output=True).returncode != 0:
            pytest.skip(f"this dossier was built without the {domain} domain")
    demo = pathlib.Path(__file__).resolve().parents[2] / "Examples" / "demo"
    root = tmp_path / "demo"
    shutil.copytree(demo, root, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
    site, manifest = tree(root / "_site"), (root / "_site.manifest.json").read_bytes()
    target = root / written
    pause = tmp_path / "pause"
    # Held once the section that opened the file has listed its units (the sections
    # list theirs in the order of dossier.yml's top-level keys).
    lines = (root / "dossier.yml").read_text().splitlines()
    sections = [l.split(":")[0] for l in lines if l and not l[0].isspace() and l.endswith(":")]
    n = sections.index("vault" if "vault" in written else "sms") + 1
    build = held_build(dossier_bin, root, pause, at=f"units-listed:{n}")
    target.write_bytes(target.read_bytes())
    pause.touch()
    refused(build, written)
    assert tree(root / "_site") == site
    assert (root / "_site.manifest.json").read_bytes() == manifest
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)
