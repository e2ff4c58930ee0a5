"""Input files written after the plan stamped them and before their unit finished reading
them (docs/incremental.md, "A file written while its unit is built"). The build is held
just before the unit is built (`DOSSIER_PAUSE_AT=unit-build:1`, debug builds), the file is
written, and the build goes on: the unit reads the new bytes, while its key and the
manifest's digest were made from the old ones. Such a build is refused, naming the file,
with exit status 1; the live site and manifest stay as they were; the next build succeeds
and describes the new bytes.

Each project has one section with one unit, so the first unit built is the one whose
file is written. The exception is a game's database, which the unit reads in one
snapshot while an ingest may write it: that build goes on."""
import hashlib
import os
import pathlib
import shutil
import subprocess

import pytest

from test_input_written_during_build import held_build, manifest_input, refused
from test_recall_incremental import tree

REPO = pathlib.Path(__file__).resolve().parents[2]
DEMO = REPO / "Examples" / "demo"


def needs(dossier_bin, domain):
    if subprocess.run([dossier_bin, domain, "--help"], capture_output=True).returncode != 0:
        pytest.skip(f"this dossier was built without the {domain} domain")


def build(dossier_bin, root):
    subprocess.run([dossier_bin, "build", "--quiet", str(root)], check=True, capture_output=True)


def refused_and_kept(dossier_bin, tmp_path, root, written, planned, new_bytes):
    """Builds `root`, writes `planned` to `written` (relative to root) so that the next
    build rebuilds its unit, holds that build before the unit, writes `new_bytes`: the
    held build is refused and changes nothing; the next build records the new bytes."""
    build(dossier_bin, root)
    site, manifest = tree(root / "_site"), (root / "_site.manifest.json").read_bytes()
    target = root / written
    target.write_bytes(planned)
    assert new_bytes != planned
    pause = tmp_path / "pause"
    held = held_build(dossier_bin, root, pause, at="unit-build:1")
    target.write_bytes(new_bytes)
    pause.touch()
    refused(held, written)
    assert tree(root / "_site") == site
    assert (root / "_site.manifest.json").read_bytes() == manifest
    assert not [p.name for p in root.iterdir() if "staging" in p.name]
    build(dossier_bin, root)
    assert manifest_input(root, written)["sha256"] == hashlib.sha256(new_bytes).hexdigest()


def test_a_vault_export_written_while_its_unit_is_built(dossier_bin, tmp_path):
    needs(dossier_bin, "vault")
    root = tmp_path / "imp"
    (root / "data").mkdir(parents=True)
    export = root / "data" / "export.csv"
    export.write_text("name,url,username,password\nMail,https://mail.example.org,ana,correct horse battery\n",
                      encoding="utf-8")
    (root / "dossier.yml").write_text("title: Import\nbase_url: https://example.org/v/\n"
                                      "vault:\n  import: data/export.csv\n  as_of: 2026-01-01\n", encoding="utf-8")
    more = export.read_bytes() + b"Bank,https://bank.example.org,ana,hunter2\n"
    refused_and_kept(dossier_bin, tmp_path, root, "data/export.csv", more, more + b"Shop,,ana,tr0ub4dor\n")


def test_an_experience_media_file_written_while_its_unit_is_built(dossier_bin, tmp_path):
    root = tmp_path / "exp"
    shutil.copytree(DEMO / "data" / "experiences", root / "data" / "experiences")
    (root / "data" / "experiences" / "dentist.json").unlink()     # one experience, one unit
    (root / "dossier.yml").write_text("title: Experiences\nbase_url: https://example.org/e/\n"
                                      "experiences:\n  input: data/experiences\n", encoding="utf-8")
    gate = root / "data" / "experiences" / "media" / "park-gate.jpg"
    refused_and_kept(dossier_bin, tmp_path, root, "data/experiences/media/park-gate.jpg", gate.read_bytes() + b"\0",
                     gate.read_bytes() + b"\0\0")


def test_a_desktop_log_written_while_its_unit_is_built(dossier_bin, tmp_path):
    needs(dossier_bin, "recall")
    root = tmp_path / "desk"
    (root / "data" / "logs").mkdir(parents=True)
    shutil.copy(DEMO / "data" / "recall" / "strings.txt", root / "data" / "strings.txt")
    log = root / "data" / "logs" / "D001.csv"
    shutil.copy(REPO / "Tests" / "RecallStudyTests" / "Fixtures" / "desktop-raw-appendix-a.csv", log)
    (root / "dossier.yml").write_text("title: Desktop\nbase_url: https://example.org/d/\n"
                                      "recall:\n  strings: data/strings.txt\n  logs: data/logs\n", encoding="utf-8")
    lf = log.read_bytes().replace(b"\r\n", b"\n")
    crlf = lf.replace(b"\n", b"\r\n")
    refused_and_kept(dossier_bin, tmp_path, root, "data/logs/D001.csv", lf + b"\n", crlf)


def test_a_game_database_ingested_into_while_its_unit_is_built_is_not_refused(dossier_bin, tmp_path):
    """The database is a snapshot input: an ingest that commits (and checkpoints, so the
    database file itself changes) while the unit is built does not stop the build."""
    needs(dossier_bin, "game")
    from test_game_release_data import sealed_players
    study = tmp_path / "study"
    study.mkdir()
    uploads = sealed_players(dossier_bin, study, players=6, seed=23)
    root = tmp_path / "g"
    root.mkdir()
    db = root / "study.sqlite"
    subprocess.run([dossier_bin, "game", "ingest", "--key", str(study / "study.key"), *map(str, uploads[:3]),
                    "--db", str(db)], check=True, capture_output=True)
    (root / "dossier.yml").write_text("title: Game\nbase_url: https://example.org/g/\noutput: _site\n"
                                      "game:\n  database: study.sqlite\n  private_site: true\n", encoding="utf-8")
    build(dossier_bin, root)
    subprocess.run([dossier_bin, "game", "ingest", "--key", str(study / "study.key"), str(uploads[3]),
                    "--db", str(db)], check=True, capture_output=True)     # (the next build has work)
    before = db.stat()
    pause = tmp_path / "pause"
    held = held_build(dossier_bin, root, pause, at="unit-build:1")
    subprocess.run([dossier_bin, "game", "ingest", "--key", str(study / "study.key"), *map(str, uploads[4:]),
                    "--db", str(db)], check=True, capture_output=True)
    after = db.stat()
    assert (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns), "the ingest left the file"
    pause.touch()
    out, err = held.communicate(timeout=300)
    assert held.returncode == 0, out + err


def test_a_keystore_rewritten_while_its_unit_is_built_does_not_stop_the_build(dossier_bin, tmp_path):
    """A keystore is read while the section lists its units, before the plan (checked
    there): its unit does not read it again. Another project's build that opens the same
    keystore meanwhile rewrites it (the same bytes, a new inode); this build goes on."""
    needs(dossier_bin, "sms")
    root = tmp_path / "sms"
    shutil.copytree(DEMO / "data" / "sms", root / "data" / "sms")
    (root / "data" / "sms" / "bob.keystore").unlink()                 # one keystore, one unit
    (root / "dossier.yml").write_text("title: SMS\nbase_url: https://example.org/k/\nsms:\n"
                                      "  keystores: data/sms/*.keystore\n  password_file: data/sms/demo.password\n",
                                      encoding="utf-8")
    store = root / "data" / "sms" / "alice.keystore"
    pause = tmp_path / "pause"
    held = held_build(dossier_bin, root, pause, at="unit-build:1")
    fresh = store.with_name(".alice.tmp")
    fresh.write_bytes(store.read_bytes())
    os.replace(fresh, store)
    pause.touch()
    out, err = held.communicate(timeout=300)
    assert held.returncode == 0, out + err


def test_dossier_yml_edited_during_a_build_is_recorded_as_parsed(dossier_bin, tmp_path):
    """The manifest records the `dossier.yml` bytes the build parsed, not the file as it is
    when the build ends; the next build sees the edit."""
    root = tmp_path / "exp"
    shutil.copytree(DEMO / "data" / "experiences", root / "data" / "experiences")
    yml = root / "dossier.yml"
    yml.write_text("title: Before\nbase_url: https://example.org/e/\nexperiences:\n  input: data/experiences\n",
                   encoding="utf-8")
    parsed = yml.read_bytes()
    pause = tmp_path / "pause"
    held = held_build(dossier_bin, root, pause, at="unit-build:1")
    yml.write_bytes(parsed.replace(b"title: Before", b"title: After"))
    pause.touch()
    out, err = held.communicate(timeout=300)
    assert held.returncode == 0, out + err
    assert manifest_input(root, "dossier.yml")["sha256"] == hashlib.sha256(parsed).hexdigest()
    assert b"Before" in (root / "_site" / "index.html").read_bytes()
    build(dossier_bin, root)
    assert manifest_input(root, "dossier.yml")["sha256"] == hashlib.sha256(yml.read_bytes()).hexdigest()
    assert b"After" in (root / "_site" / "index.html").read_bytes()
