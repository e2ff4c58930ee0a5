"""docs/game-privacy.md with a study database: one key and one ledger per database, the
seal, the rows digest, the release id, and the result files (real and decoys)."""
import base64
import contextlib
import hashlib
import hmac
import json
import pathlib
import re
import shutil
import sqlite3
import subprocess

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import test_doc_game_privacy_impl as dp

OLD_KEY = hashlib.sha256(b"doc-game-privacy-db-old-key").digest()


def run(*args, cwd=None):
    return subprocess.run([dp.BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


def project(root, players=12, seed=5, extra=""):
    (root / "data").mkdir(parents=True)
    assert run("game", "simulate", "--players", players, "--seed", seed, "--db", root / "data/study.sqlite", "-q").returncode == 0
    (root / "dossier.yml").write_text(f'title: "t"\ngame:\n  database: data/study.sqlite\n{extra}', encoding="utf-8")
    return root


@contextlib.contextmanager
def db(root, name="study.sqlite"):
    c = sqlite3.connect(root / "data" / name)
    try:
        with c:
            yield c
    finally:
        c.close()


def key_row(root):
    with db(root) as c:
        return c.execute("SELECT key, database_id, lifetime_milli FROM privacy_key").fetchone()


def privacy_json(root):
    return json.loads((root / "_site/game/privacy.json").read_text())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = project(tmp_path_factory.mktemp("db") / "p")
    assert run("check", root).returncode == 0
    with db(root) as c:
        assert c.execute("SELECT count(*) FROM privacy_key").fetchone()[0] == 0, "check wrote a key"
    p = run("build", root, "-q")
    assert p.returncode == 0, p.stderr
    return root


def test_the_key_row_is_made_by_the_first_build(built):
    key, dbid, life = key_row(built)
    assert re.fullmatch(r"[0-9a-f]{64}|[0-9A-F]{64}", key) and re.fullmatch(r"[0-9a-f]{32}", dbid)
    assert life == 18000
    assert len(set(bytes.fromhex(key))) >= 12
    assert not (built / ".dossier/privacy.key").exists()


def test_release_id_is_keyed_on_the_rows_digest(built):
    key = bytes.fromhex(key_row(built)[0])
    with db(built) as c:
        digest = dp.digest_db(dp.unit_salt(), dp.rows_digest(c))
    assert privacy_json(built)["release"] == dp.release_id(key, digest)


def test_privacy_json_names_the_database_and_is_sealed(built):
    key, dbid, _ = key_row(built)
    pj = privacy_json(built)
    assert pj["database"] == dbid
    assert pj["seal"] == dp.seal(bytes.fromhex(key), pj)


def test_decoys_fill_the_results_folder_to_its_capacity(built):
    key = bytes.fromhex(key_row(built)[0])
    rel = privacy_json(built)["release"]
    files = {p.name: p.read_bytes() for p in (built / "_site/game/results").iterdir()}
    assert len(files) == 256
    for i in range(256):
        name, data = dp.decoy(key, rel, i)
        assert files.get(name) == data, f"decoy {i}"


def test_a_copy_or_vacuum_of_the_database_keeps_the_release(built, tmp_path):
    other = tmp_path / "q"
    shutil.copytree(built, other, ignore=shutil.ignore_patterns("_site*", ".dossier"))
    with db(other) as c:
        c.execute("VACUUM")
    for suffix in ("", "-wal", "-shm"):
        if (other / f"data/study.sqlite{suffix}").exists():
            shutil.move(other / f"data/study.sqlite{suffix}", other / f"data/moved.sqlite{suffix}")
    (other / "dossier.yml").write_text('title: "t"\ngame:\n  database: data/moved.sqlite\n')
    assert run("build", other, "-q").returncode == 0
    assert privacy_json(other) == privacy_json(built)
    for f in (built / "_site/game").rglob("*"):
        if f.is_file() and f.suffix != ".html":
            assert (other / "_site/game" / f.relative_to(built / "_site/game")).read_bytes() == f.read_bytes(), f


def test_an_older_projects_key_file_is_moved_into_the_database(tmp_path):
    root = project(tmp_path / "p", extra="  privacy:\n    lifetime_epsilon: 12\n")
    (root / ".dossier").mkdir()
    (root / ".dossier/privacy.key").write_text(OLD_KEY.hex() + "\n")
    p = run("build", root, "-q")
    assert p.returncode == 0, p.stderr
    assert "moved the privacy key from" in p.stderr and "into the study database" in p.stderr
    assert OLD_KEY.hex() not in p.stderr + p.stdout
    assert not (root / ".dossier/privacy.key").exists()
    key, _, life = key_row(root)
    assert bytes.fromhex(key) == OLD_KEY and life == 12000
    with db(root) as c:
        digest = dp.digest_db(dp.unit_salt(6000, "0", 12000), dp.rows_digest(c))
    assert privacy_json(root)["release"] == dp.release_id(OLD_KEY, digest)


@pytest.mark.parametrize("configured, effective", [("30", "12"), ("7", "7")])
def test_the_lifetime_is_the_smaller_of_the_setting_and_the_database(tmp_path, configured, effective):
    root = project(tmp_path / "p", extra="  privacy:\n    lifetime_epsilon: 12\n")
    assert run("build", root, "-q").returncode == 0
    (root / "dossier.yml").write_text(f'title: "t"\ngame:\n  database: data/study.sqlite\n  privacy:\n'
                                      f'    lifetime_epsilon: {configured}\n')
    assert run("build", root, "-q").returncode == 0
    assert privacy_json(root)["lifetimeEpsilon"] == effective
    assert key_row(root)[2] == 12000


@pytest.mark.parametrize("weak", ["00" * 32, bytes(i % 11 for i in range(32)).hex(), "g" * 64, "ab" * 33])
def test_a_weak_key_in_the_database_is_refused(tmp_path, weak):
    root = project(tmp_path / "p")
    with db(root) as c:
        c.execute("CREATE TABLE IF NOT EXISTS privacy_key(id INTEGER PRIMARY KEY CHECK(id = 1), key TEXT NOT NULL, "
                  "database_id TEXT NOT NULL, lifetime_milli INTEGER NOT NULL)")
        c.execute("INSERT INTO privacy_key VALUES (1, ?, ?, 18000)", (weak, "ab" * 16))
    p = run("build", root, "-q")
    assert p.returncode == 1, "built with a weak key"
    assert not (root / "_site/game/privacy.json").exists()
    assert weak not in p.stderr + p.stdout


@pytest.mark.parametrize("where", ["text", "database"])
def test_a_missing_key_for_released_data_stops_the_build(tmp_path, where):
    root = project(tmp_path / "p")
    assert run("build", root, "-q").returncode == 0
    shutil.rmtree(root / "_site")
    with db(root) as c:
        c.execute("DELETE FROM privacy_key")
        if where == "database":
            c.execute("INSERT INTO privacy_ledger(release, epsilon, delta, section, published, seq) "
                      "VALUES ('0123456789abcdef', '6', '0', 'game', '2026-01-01T00:00:00Z', 1)")
    if where == "text":
        (root / "privacy-ledger.txt").write_text(
            "release=0123456789abcdef epsilon=6 delta=0 section=game published=2026-01-01T00:00:00Z\n")
    p = run("build", root, "-q")
    assert p.returncode == 1
    assert "study.sqlite" in p.stderr
    assert not (root / "_site").exists()
    with db(root) as c:
        assert c.execute("SELECT count(*) FROM privacy_key").fetchone()[0] == 0


# MARK: - result files of players with a result key

@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    root = tmp_path_factory.mktemp("res") / "p"
    (root / "data").mkdir(parents=True)
    assert run("game", "keygen", "--output", root / "study", "--bits", "2048", "-q").returncode == 0
    assert run("game", "simulate", "--players", "6", "--seed", "9", "--output", root / "c.jsonl", "-q").returncode == 0
    assert run("game", "seal", "--public", root / "study.pub", "--output", root / "up", root / "c.jsonl", "-q").returncode == 0
    p = run("game", "ingest", "--key", root / "study.key", root / "up", "--db", root / "data/study.sqlite")
    assert p.returncode == 0, p.stderr
    (root / "dossier.yml").write_text('title: "t"\ngame:\n  database: data/study.sqlite\n  results_capacity: 9\n')
    p = run("build", root, "-q")
    assert p.returncode == 0, p.stderr
    return root


def result_keys(root):
    with db(root) as c:
        return {p: base64.b64decode(k) for p, k in c.execute("SELECT player, result_key FROM devices")}


def test_every_player_with_a_result_key_has_a_padded_result(sealed):
    keys = result_keys(sealed)
    assert len(keys) == 6
    for player, k in keys.items():
        e = hmac.new(k, b"RocketMouse result key v1", hashlib.sha256).digest()
        name = hmac.new(k, b"RocketMouse result name v1", hashlib.sha256).digest()[:16].hex() + ".rmr"
        data = (sealed / "_site/game/results" / name).read_bytes()
        assert len(data) == 8224 and data[:4] == b"RMR1"
        plain = AESGCM(e).decrypt(data[4:16], data[16:], b"RMR1")
        assert len(plain) == 8192
        assert data[4:16] == hmac.new(e, plain, hashlib.sha256).digest()[:12]
        body = plain.rstrip(b" ")
        assert set(plain[len(body):]) <= {0x20}
        obj = json.loads(plain)
        assert sorted(obj) == ["ageBand", "group", "likelihood", "measures", "norms", "player"]
        assert obj["player"] == player
        assert [obj["measures"][k] for k in ("perSession", "blocks", "hitRTs")] == [[], [], []]
        assert body == json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_the_folder_holds_capacity_files_the_rest_decoys(sealed):
    with db(sealed) as c:
        key = bytes.fromhex(c.execute("SELECT key FROM privacy_key").fetchone()[0])
    rel = privacy_json(sealed)["release"]
    files = {p.name: p.read_bytes() for p in (sealed / "_site/game/results").iterdir()}
    assert len(files) == 9 and {len(v) for v in files.values()} == {8224}
    for i in range(3):
        name, data = dp.decoy(key, rel, i)
        assert files.get(name) == data, f"decoy {i}"
    assert dp.decoy(key, rel, 3)[0] not in files
    for player in result_keys(sealed):
        for f in files.values():
            assert player.encode() not in f


def test_more_players_than_the_capacity_stop_the_build(sealed, tmp_path):
    other = tmp_path / "q"
    shutil.copytree(sealed, other, ignore=shutil.ignore_patterns("_site*", ".dossier"))
    (other / "dossier.yml").write_text('title: "t"\ngame:\n  database: data/study.sqlite\n  results_capacity: 5\n')
    p = run("build", other, "-q")
    assert p.returncode == 1
    assert "results_capacity" in p.stderr
    assert not (other / "_site").exists()


def test_capacity_exactly_the_number_of_players_has_no_decoy(sealed, tmp_path):
    other = tmp_path / "q"
    shutil.copytree(sealed, other, ignore=shutil.ignore_patterns("_site*", ".dossier"))
    (other / "dossier.yml").write_text('title: "t"\ngame:\n  database: data/study.sqlite\n  results_capacity: 6\n')
    p = run("build", other, "-q")
    assert p.returncode == 0, p.stderr
    assert len(list((other / "_site/game/results").iterdir())) == 6


def test_front_page_mentions_the_encrypted_results_without_a_number(sealed):
    html = (sealed / "_site/game/index.html").read_text(encoding="utf-8")
    assert "decoy" in html
    text = re.sub(r"<[^>]+>", " ", html)
    for n in ("6", "9", "3"):
        assert not re.search(rf"\b{n}\b[^.]{{0,60}}(result|decoy|file)", text), n


@pytest.mark.parametrize("ledger", [b"garbage\n", b"# caf\xe9\n"])
def test_an_unreadable_text_ledger_is_never_taken_as_no_release(tmp_path, ledger):
    root = project(tmp_path / "p")
    (root / "privacy-ledger.txt").write_bytes(ledger)
    p = run("build", root, "-q")
    assert p.returncode == 1
    assert "privacy-ledger.txt" in p.stderr
    with db(root) as c:
        assert c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'privacy_key'").fetchone()[0] == 0 or \
            c.execute("SELECT count(*) FROM privacy_key").fetchone()[0] == 0


def test_two_builds_at_once_agree_on_one_key(tmp_path):
    root = project(tmp_path / "p")
    second = tmp_path / "second"
    second.mkdir()
    (second / "dossier.yml").write_text(f'title: "t"\ngame:\n  database: {root / "data/study.sqlite"}\n')
    procs = [subprocess.Popen([dp.BIN, "build", str(r), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in (root, second)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    with db(root) as c:
        assert c.execute("SELECT count(*) FROM privacy_key").fetchone()[0] == 1
    assert privacy_json(root) == privacy_json(second)


def test_a_private_site_writes_one_unpadded_full_result_per_player(sealed, tmp_path):
    other = tmp_path / "q"
    shutil.copytree(sealed, other, ignore=shutil.ignore_patterns("_site*", ".dossier"))
    (other / "dossier.yml").write_text('title: "t"\ngame:\n  database: data/study.sqlite\n  private_site: true\n')
    p = run("build", other, "-q")
    assert p.returncode == 0, p.stderr
    files = list((other / "_site/game/results").iterdir())
    assert len(files) == 6
    for player, k in result_keys(other).items():
        e = hmac.new(k, b"RocketMouse result key v1", hashlib.sha256).digest()
        name = hmac.new(k, b"RocketMouse result name v1", hashlib.sha256).digest()[:16].hex() + ".rmr"
        data = (other / "_site/game/results" / name).read_bytes()
        plain = AESGCM(e).decrypt(data[4:16], data[16:], b"RMR1")
        assert not plain.endswith(b" ")
        obj = json.loads(plain)
        assert obj["player"] == player and obj["measures"]["perSession"] and obj["measures"]["hitRTs"]
