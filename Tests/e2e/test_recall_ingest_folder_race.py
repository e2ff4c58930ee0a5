"""Two `dossier recall ingest` runs into one logs folder at once, from two drops that share
uploads (two sites' staff collecting the same kit's retries). Ingest A is held at its
first store (`DOSSIER_PAUSE_AT=folder-store:1`, debug builds: it has already looked the
log up and not found it) while ingest B stores every log; then A goes on. A must find
B's logs — the same bytes under the same name are "already stored", never "a different
log named … is already stored" — and every log is in the folder once, whole
(docs/recall-upload.md, "Storing")."""
import os
import pathlib
import shutil
import subprocess

from test_recall_ingest_kill import sealed, visible  # noqa: F401  (sealed is a fixture)


def start(dossier_bin, key, drop, logs, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("DOSSIER_FAULT", "DOSSIER_PAUSE"))}
    e.update(env or {})
    return subprocess.Popen([dossier_bin, "recall", "ingest", "--key", str(key), "--from", str(drop),
                             "--logs", str(logs)], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until_held(p, reached):
    while not reached.exists():
        assert p.poll() is None, p.stderr.read()
        try:
            p.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass


def test_an_ingest_held_before_its_store_finds_what_another_stored(dossier_bin, tmp_path, sealed):
    key, up, expected = sealed
    a, b = tmp_path / "drop-a", tmp_path / "drop-b"
    shutil.copytree(up, a)
    shutil.copytree(up, b)
    logs = tmp_path / "logs"
    logs.mkdir()
    pause = tmp_path / "pause-a"
    held = start(dossier_bin, key, a, logs, env={"DOSSIER_PAUSE_AT": "folder-store:1", "DOSSIER_PAUSE_FILE": str(pause)})
    wait_until_held(held, pathlib.Path(str(pause) + ".reached"))
    assert visible(logs) == {}

    other = start(dossier_bin, key, b, logs)
    out_b, err_b = other.communicate(timeout=300)
    assert other.returncode == 0, err_b
    assert "3 stored, 1 already stored, 0 refused" in out_b
    assert visible(logs) == expected

    pause.touch()
    out_a, err_a = held.communicate(timeout=300)
    assert held.returncode == 0, out_a + err_a
    assert "refused" not in err_a
    assert "0 stored, 4 already stored, 0 refused" in out_a, out_a
    assert visible(logs) == expected
    assert not list(a.glob("*.rcu")) and not list(b.glob("*.rcu"))
    assert [f.name for f in logs.iterdir() if f.name.endswith(".partial")] == []
