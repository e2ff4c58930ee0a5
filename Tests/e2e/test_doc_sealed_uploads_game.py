"""Sealed game uploads (`RMU1`, signed device record), from docs/game-telemetry.md alone.

"Encrypted uploads", "Signed uploads (trust on first use)" and the SQLite schema: the
program's `game seal` output is opened and verified with an independent reader; uploads
sealed here are ingested with `dossier game ingest` and the stored rows (sessions, events,
surveys, uploads, devices) compared with what was sealed; idempotency, the pin and the
result key of the latest upload. The rejection tables: test_doc_sealed_uploads_game_more.py.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import sqlite3
import stat

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from test_doc_sealed_uploads import b64, dossier, make_keys, open_upload, raw_public, seal

PLAYER = "3fa0c2d19e44"


def jl(*records) -> bytes:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()


def survey(player=PLAYER, complete=True, **kw):
    rec = {"type": "survey", "player": player, "complete": complete}
    if complete:
        rec.update({"diagnosed": True, "medicated": False, "age": 24, "gender": "female"})
    rec.update(kw)
    return rec


def session(player=PLAYER, number=1, score=481, **kw):
    rec = {"type": "session", "player": player, "session": number, "start": 7305113, "end": 7418113,
           "score": score, "obstacles": [[2000, 2000, "crate"], [3000, 1000, "bird"]], "taps": [2391, 3322],
           "jumps": [2391, 3322], "collisions": [], "volume": [[5230, 0]],
           "errors": [[90211, "audio session interrupted"]]}
    rec.update(kw)
    return rec


def signed_message(player: str, result_key_b64: str, body: bytes) -> bytes:
    return b"RocketMouse upload v2\n" + player.encode() + b"\n" + result_key_b64.encode() + b"\n" + body


class GameDevice:
    def __init__(self, private=None):
        self.private = private or ed25519.Ed25519PrivateKey.generate()

    def plaintext(self, player: str, body: bytes, result_key: bytes = None, edit=None, raw=None,
                  signed_body=None) -> bytes:
        rk = b64(result_key if result_key is not None else os.urandom(32))
        sig = self.private.sign(signed_message(player, rk, body if signed_body is None else signed_body))
        record = {"type": "device", "player": player, "signing_key": b64(raw_public(self.private)),
                  "result_key": rk, "signature": b64(sig)}
        if edit:
            edit(record)
        line = raw if raw is not None else json.dumps(record, separators=(",", ":"))
        return line.encode() + b"\n" + body


class GameStudy:
    def __init__(self, tmp_path, keys):
        self.priv, self.pub, self.key_path = keys
        self.uploads = tmp_path / "uploads"
        self.uploads.mkdir()
        self.db = tmp_path / "study.sqlite"
        self.count = 0

    def put(self, data: bytes, name=None):
        self.count += 1
        path = self.uploads / (name or f"u{self.count:03d}.rmu")
        path.write_bytes(data)
        return path

    def put_sealed(self, dev: GameDevice, player: str, body: bytes, **kw):
        return self.put(seal(self.pub, dev.plaintext(player, body, **kw)))

    def ingest(self, *inputs):
        return dossier("game", "ingest", "--key", self.key_path, "--db", self.db, *(inputs or [self.uploads]))

    def rows(self, sql, *args):
        con = sqlite3.connect(self.db)
        try:
            return con.execute(sql, args).fetchall()
        finally:
            con.close()

    def dump(self):
        if not self.db.exists():
            return None
        con = sqlite3.connect(self.db)
        try:
            return [x for x in con.iterdump()]
        finally:
            con.close()


@pytest.fixture(scope="module")
def game_keys(tmp_path_factory):
    return make_keys(tmp_path_factory.mktemp("game-keys"), "study", kind="game")


@pytest.fixture
def game(tmp_path, game_keys):
    return GameStudy(tmp_path, game_keys)


def line_of(proc, path, what):
    text = proc.stdout  # stored and duplicate lines; only rejections go to standard error
    hits = [x for x in text.splitlines() if x.startswith(f"{path}: {what}")]
    assert len(hits) == 1, text
    return hits[0]


# MARK: - keys and the program's sealer

def test_game_keygen_with_the_documented_out_option(tmp_path):
    proc = dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    assert proc.returncode == 0, proc.stderr
    key = tmp_path / "study.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    priv = serialization.load_pem_private_key(key.read_bytes(), None)
    assert isinstance(priv, rsa.RSAPrivateKey) and priv.key_size == 2048
    pub = serialization.load_pem_public_key((tmp_path / "study.pub").read_bytes())
    assert pub.public_numbers() == priv.public_key().public_numbers()
    assert key.read_text() not in proc.stdout + proc.stderr


def test_game_seal_output_opens_verifies_and_derives_its_result_key(tmp_path, game_keys):
    priv, pub, _ = game_keys
    pub_path = tmp_path / "study.pub"
    pub_path.write_bytes(pub.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    records = [survey(), session(seed=12345), survey("bbbbbbbbbbbb", complete=False)]
    cohort = tmp_path / "cohort.jsonl"
    cohort.write_bytes(jl(*records))
    out = tmp_path / "out"
    proc = dossier("game", "seal", "--public", pub_path, "--out", out, cohort)
    assert proc.returncode == 0, proc.stderr
    uploads = sorted(out.iterdir())
    assert len(uploads) == 2
    players = set()
    for path in uploads:
        plain = open_upload(priv, path.read_bytes())
        first, body = plain.split(b"\n", 1)
        rec = json.loads(first)
        assert set(rec) == {"type", "player", "signing_key", "result_key", "signature"} and rec["type"] == "device"
        player = rec["player"]
        players.add(player)
        dev_file = tmp_path / "out-devices" / f"{player}.device.json"
        assert stat.S_IMODE(dev_file.stat().st_mode) == 0o600
        dev = json.loads(dev_file.read_text())
        assert set(dev) == {"signing_key", "result_key"}
        raw = base64.b64decode(dev["signing_key"])
        signer = ed25519.Ed25519PrivateKey.from_private_bytes(raw)
        assert rec["signing_key"] == b64(raw_public(signer))
        signer.public_key().verify(base64.b64decode(rec["signature"]), signed_message(player, rec["result_key"], body))
        expected_rk = hmac.new(raw, b"RocketMouse seal result key v1\n" + body, hashlib.sha256).digest()
        assert base64.b64decode(rec["result_key"]) == expected_rk
        assert dev["result_key"] == rec["result_key"]
        got = [json.loads(x) for x in body.decode().splitlines() if x.strip()]
        assert got == [r for r in records if r["player"] == player]  # seed kept, one player
    assert players == {PLAYER, "bbbbbbbbbbbb"}


def test_game_seal_of_unchanged_data_keeps_the_result_key_and_changed_data_gets_a_new_one(tmp_path, game_keys):
    priv, pub, _ = game_keys
    pub_path = tmp_path / "study.pub"
    pub_path.write_bytes(pub.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    cohort = tmp_path / "cohort.jsonl"

    def sealed_record(records, out):
        cohort.write_bytes(jl(*records))
        assert dossier("game", "seal", "--public", pub_path, "--output", tmp_path / out, "--devices",
                       tmp_path / "devs", cohort).returncode == 0
        (path,) = list((tmp_path / out).iterdir())
        return json.loads(open_upload(priv, path.read_bytes()).split(b"\n", 1)[0])

    a = sealed_record([survey()], "a")
    b = sealed_record([survey()], "b")
    c = sealed_record([survey(), session()], "c")
    assert a["signing_key"] == b["signing_key"] == c["signing_key"]
    assert a["result_key"] == b["result_key"] != c["result_key"]


# MARK: - storing

def test_an_upload_sealed_from_the_docs_is_stored_as_rows(game):
    dev = GameDevice()
    body = jl(survey(), session())
    rk = os.urandom(32)
    path = game.put_sealed(dev, PLAYER, body, result_key=rk)
    proc = game.ingest()
    assert proc.returncode == 0, proc.stderr
    line_of(proc, path, "stored")
    assert game.rows("SELECT * FROM surveys") == [(PLAYER, 1, 1, 0, 24, "female")]
    assert game.rows("SELECT * FROM sessions") == [(PLAYER, 1, 7305113, 7418113, 481)]
    events = game.rows("SELECT kind, seq, t_ms, interval_ms, obstacle_kind, volume_on, message FROM events "
                       "WHERE player=? AND session=1 ORDER BY kind, seq", PLAYER)
    assert sorted(events) == sorted([
        ("obstacle", 0, 2000, 2000, "crate", None, None), ("obstacle", 1, 3000, 1000, "bird", None, None),
        ("tap", 0, 2391, None, None, None, None), ("tap", 1, 3322, None, None, None, None),
        ("jump", 0, 2391, None, None, None, None), ("jump", 1, 3322, None, None, None, None),
        ("volume", 0, 5230, None, None, 0, None), ("error", 0, 90211, None, None, None, "audio session interrupted")])
    assert game.rows("SELECT player, signing_key, result_key FROM devices") == [
        (PLAYER, b64(raw_public(dev.private)), b64(rk))]
    assert game.rows("SELECT player, sessions FROM uploads") == [(PLAYER, 1)]


def test_the_upload_hash_is_the_sha256_of_the_body(game):
    dev = GameDevice()
    body = jl(session())
    plain = dev.plaintext(PLAYER, body)
    game.put(seal(game.pub, plain))
    assert game.ingest().returncode == 0
    assert game.rows("SELECT content_sha256 FROM uploads") == [(hashlib.sha256(body).hexdigest(),)]


def test_idempotency_is_keyed_by_the_body_not_the_plaintext(game):
    """game-telemetry.md Idempotency: keyed by the SHA-256 of the body (the JSON Lines after the signed
    device record), so the same body under another device record is a duplicate that changes nothing."""
    dev = GameDevice()
    body = jl(session())
    first = dev.plaintext(PLAYER, body, result_key=b"\x01" * 32)
    game.put(seal(game.pub, first))
    assert game.ingest().returncode == 0
    assert game.rows("SELECT content_sha256 FROM uploads") == [(hashlib.sha256(body).hexdigest(),)]
    assert hashlib.sha256(first).hexdigest() != hashlib.sha256(body).hexdigest()
    before = game.dump()
    second = dev.plaintext(PLAYER, body, result_key=b"\x02" * 32)
    assert second != first
    again = game.put(seal(game.pub, second))
    proc = game.ingest(again)
    assert proc.returncode == 0, proc.stderr
    line_of(proc, again, "duplicate")
    assert game.dump() == before


def test_a_retry_sealed_again_is_a_duplicate_and_changes_nothing(game):
    dev = GameDevice()
    plain = dev.plaintext(PLAYER, jl(survey(), session()))
    game.put(seal(game.pub, plain))
    assert game.ingest().returncode == 0
    before = game.dump()
    again = game.put(seal(game.pub, plain))  # new AES key and nonce: other bytes, the same content
    proc = game.ingest(again)
    assert proc.returncode == 0, proc.stderr
    line_of(proc, again, "duplicate")
    assert game.dump() == before


def test_a_replayed_old_upload_does_not_roll_the_result_key_back(game):
    dev = GameDevice()
    old = game.put_sealed(dev, PLAYER, jl(session(number=1)), result_key=b"\x01" * 32)
    assert game.ingest(old).returncode == 0
    new = game.put_sealed(dev, PLAYER, jl(session(number=2)), result_key=b"\x02" * 32)
    assert game.ingest(new).returncode == 0
    assert game.rows("SELECT result_key FROM devices") == [(b64(b"\x02" * 32),)]
    proc = game.ingest(old)
    assert proc.returncode == 0
    line_of(proc, old, "duplicate")
    assert game.rows("SELECT result_key FROM devices") == [(b64(b"\x02" * 32),)]
    assert game.rows("SELECT count(*) FROM uploads") == [(2,)]


def test_identical_sessions_are_skipped_and_a_complete_survey_replaces_an_incomplete_one(game):
    dev = GameDevice()
    assert game.ingest(game.put_sealed(dev, PLAYER, jl(survey(complete=False, age=30), session()))).returncode == 0
    proc = game.ingest(game.put_sealed(dev, PLAYER, jl(survey(), session(), session(number=2))))
    assert proc.returncode == 0, proc.stderr
    assert game.rows("SELECT * FROM surveys") == [(PLAYER, 1, 1, 0, 24, "female")]
    assert game.rows("SELECT session FROM sessions ORDER BY session") == [(1,), (2,)]
    assert sorted(game.rows("SELECT sessions FROM uploads")) == [(1,), (1,)]
    proc = game.ingest(game.put_sealed(dev, PLAYER, jl(survey(complete=False))))
    assert proc.returncode == 0, proc.stderr
    assert game.rows("SELECT * FROM surveys") == [(PLAYER, 1, 1, 0, 24, "female")]


def test_a_rejected_upload_pins_nothing(game):
    first = GameDevice()
    bad = game.put_sealed(first, PLAYER, jl(session(score=-1)))
    assert game.ingest(bad).returncode == 1
    assert game.rows("SELECT count(*) FROM devices") == [(0,)]
    second = GameDevice()
    assert game.ingest(game.put_sealed(second, PLAYER, jl(session()))).returncode == 0
    assert game.rows("SELECT signing_key FROM devices") == [(b64(raw_public(second.private)),)]


def test_a_rejected_upload_does_not_stop_the_others(game):
    dev = GameDevice()
    good = game.put_sealed(dev, PLAYER, jl(session()))
    bad = game.put(b"RMU2" + b"\0" * 600)
    proc = game.ingest()
    assert proc.returncode == 1
    line_of(proc, good, "stored")
    assert re.search(rf"^{re.escape(str(bad))}: rejected: ", proc.stderr, re.M)
    assert game.rows("SELECT count(*) FROM sessions") == [(1,)]


@pytest.mark.parametrize("player", ["a", "A-z_09" + "x" * 58])
def test_player_ids_of_1_to_64_allowed_characters_are_stored(game, player):
    assert len(player) in (1, 64)
    path = game.put_sealed(GameDevice(), player, jl(session(player=player)))
    proc = game.ingest()
    assert proc.returncode == 0, proc.stderr
    line_of(proc, path, "stored")
    assert game.rows("SELECT player FROM devices") == [(player,)]
