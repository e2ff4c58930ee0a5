"""Errors that say what to do next (issue 43, item 7), each from the built binary:

- `experiences validate FOLDER` checks the folder's experience files as the build reads
  them; a folder without any, a missing path, each says what to give instead;
- `build` before `vault init` names the `dossier vault init …` command that makes the vault;
- a bad image path in an experience file blames the experiences section's input (that file),
  not dossier.yml, and says where the file is looked for;
- `serve --port` on a busy port says so before building anything.
(`sms encrypt` with curly quotes and its `--normalize` hint: test_sms_usability.py.)
"""
import json
import shutil
import socket
import subprocess

from conftest import REPO

DEMO = REPO / "Examples" / "demo" / "data" / "experiences"


def run(dossier_bin, *args, cwd=None, timeout=120):
    return subprocess.run([dossier_bin, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_validate_takes_a_folder_and_says_what_to_give(dossier_bin, tmp_path):
    p = run(dossier_bin, "experiences", "validate", DEMO)
    assert p.returncode == 0, p.stderr
    assert [l.split(": ok: ")[0].rsplit("/", 1)[1] for l in p.stdout.splitlines()] == ["dentist.json", "park-walk.json"]
    empty = tmp_path / "nothing"
    empty.mkdir()
    p = run(dossier_bin, "experiences", "validate", empty)
    assert p.returncode == 1
    assert "a folder with no experience file (*.json) directly inside; give the folder that holds them" in p.stderr
    p = run(dossier_bin, "experiences", "validate", tmp_path / "nope.json")
    assert p.returncode == 1 and "nope.json: no such file: check the path" in p.stderr


def test_build_before_vault_init_names_the_command(dossier_bin, tmp_path):
    assert run(dossier_bin, "new", "safe", "--with", "vault", cwd=tmp_path).returncode == 0
    p = run(dossier_bin, "build", "safe", cwd=tmp_path)
    assert p.returncode == 1
    assert "vault.vault: file not found: data/vault/my.dvault; create the vault with " \
           "`dossier vault init safe/data/vault/my.dvault`" in p.stderr, p.stderr
    assert not (tmp_path / "safe" / "_site").exists()


def test_a_bad_image_path_blames_the_experience_file_not_dossier_yml(dossier_bin, tmp_path):
    data = tmp_path / "p" / "data" / "experiences"
    (data / "media").mkdir(parents=True)
    shutil.copy(DEMO / "media" / "hall.jpg", data / "media" / "hall.jpg")
    (data / "visit.json").write_text(json.dumps({"title": "A visit", "panoramas": [
        {"id": "a", "title": "Hall", "image": "media/hal.jpg"}]}, indent=2))
    (tmp_path / "p" / "dossier.yml").write_text("title: P\nexperiences:\n  input: data/experiences\n")
    p = run(dossier_bin, "build", "p", cwd=tmp_path)
    assert p.returncode == 1
    assert 'data/experiences/visit.json:7: image "media/hal.jpg" does not exist in the folder of this file; ' \
           "correct the path, or put the file at media/hal.jpg beside it" in p.stderr, p.stderr
    assert "build failed at step [1/9] Read dossier.yml and section inputs, in the experiences section's input " \
           "data/experiences/visit.json;" in p.stderr, p.stderr
    # A mistake in dossier.yml itself is still blamed on dossier.yml alone.
    (tmp_path / "p" / "dossier.yml").write_text("title: P\nexperiences:\n  input: data/nowhere\n")
    p = run(dossier_bin, "build", "p", cwd=tmp_path)
    assert p.returncode == 1 and "build failed at step [1/9] Read dossier.yml and section inputs;" in p.stderr, p.stderr


def test_serve_on_a_busy_port_says_so_before_building(dossier_bin, tmp_path):
    assert run(dossier_bin, "new", "site", cwd=tmp_path).returncode == 0
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        p = run(dossier_bin, "serve", "site", "--port", port, cwd=tmp_path, timeout=60)
    assert p.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: the port is already in use; choose another --port" in p.stderr
    assert "[1/" not in p.stdout + p.stderr   # no build step was started
    assert not (tmp_path / "site" / ".dossier" / "preview").exists()
