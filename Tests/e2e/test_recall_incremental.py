"""Issue #20: an incremental build of a study after adding, changing or removing one
participant's log writes exactly the site a clean build of the same inputs writes —
the study summary page and every study-wide CSV/JSON included, byte for byte
(docs/incremental.md). Each step also checks that the build really was incremental:
one participant unit rebuilt, the others reused."""
import os
import re
import shutil
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
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-add")
    assert b"S008" in (study / "_site/recall/participants.csv").read_bytes()
    # Change S003: another simulated session of the same participant.
    before = (study / "_site/recall/strings.csv").read_bytes()
    simulate(dossier_bin, tmp_path / "other", 3, 1, seed=99)
    shutil.copy(tmp_path / "other" / "S003.jsonl", logs / "S003.jsonl")
    out = incremental(dossier_bin, study)
    assert re.search(r"8 units, 7 unchanged", out), out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-change")
    assert (study / "_site/recall/strings.csv").read_bytes() != before   # the change reached the study table
    # Remove S005.
    (logs / "S005.jsonl").unlink()
    out = incremental(dossier_bin, study)
    assert re.search(r"7 units, 7 unchanged", out), out
    assert_same_as_clean(dossier_bin, study, tmp_path, "after-remove")
    assert b"S005" not in (study / "_site/recall/participants.csv").read_bytes()
