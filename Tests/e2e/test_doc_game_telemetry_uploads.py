"""docs/game-telemetry.md, "Encrypted uploads", "Signed uploads" and "Ingest from a WebDAV
drop folder": uploads sealed and signed here, with Python's `cryptography`, as the doc
describes, and what `dossier game ingest` stores, skips and rejects (reasons as printed)."""
import base64
import contextlib
import hashlib
import json
import os
import sqlite3
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from webdav_server import WebDAVServer, env
from conftest import dossier_path  # noqa: E402

BIN = dossier_path()   # (DOSSIER_BIN, else the built one)
SURVEY = '{"type":"survey","player":"%s","complete":true,"diagnosed":false,"age":30,"gender":"female"}'
SESSION = ('{"type":"session","player":"%s","session":%d,"start":1000,"end":11000,"score":%d,'
           '"obstacles":[[2000,2000,"crate"]],"taps":[2400],"jumps":[2400],"collisions":[],"volume":[],"errors":[]}')


def b64(b):
    return base64.b64encode(b).decode()


class Device:
    def __init__(self, player):
        self.player, self.key = player, ed25519.Ed25519PrivateKey.generate()

    def pub(self):
        return self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    def plain(self, body: bytes, result_key=None, player=None, sign_body=None, fields=None):
        rk = b64(result_key or os.urandom(32))
        msg = b"RocketMouse upload v2\n" + self.player.encode() + b"\n" + rk.encode() + b"\n" + (sign_body or body)
        rec = {"type": "device", "player": player or self.player, "signing_key": b64(self.pub()), "result_key": rk,
               "signature": b64(self.key.sign(msg))}
        rec.update(fields or {})
        return json.dumps(rec, separators=(",", ":")).encode() + b"\n" + body


def body(player, sessions=(1,), score=5, survey=True):
    lines = ([SURVEY % player] if survey else []) + [SESSION % (player, s, score) for s in sessions]
    return ("\n".join(lines) + "\n").encode()


def seal(plain, pub, key_len=32):
    k = os.urandom(key_len)
    w = pub.encrypt(k, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
    header = b"RMU1" + len(w).to_bytes(2, "big") + w
    nonce = os.urandom(12)
    aes = AESGCM(k if key_len == 32 else os.urandom(32))
    return header + nonce + aes.encrypt(nonce, plain, header)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    d = tmp_path_factory.mktemp("study")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    (d / "study.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
    return d / "study.key", key.public_key()


def ingest(study, db, *paths):
    return subprocess.run([BIN, "game", "ingest", "--key", str(study[0]), *map(str, paths), "--db", str(db)],
                          capture_output=True, text=True, timeout=120)


@contextlib.contextmanager
def opened(path):
    c = sqlite3.connect(path)
    try:
        yield c
    finally:
        c.close()


def reasons(proc):
    """{file name: what ingest said about it}"""
    out = {}
    for l in (proc.stdout + proc.stderr).splitlines():
        name, sep, rest = l.partition(": ")
        if sep and name.endswith(".rmu"):
            out[os.path.basename(name)] = rest
    return out


def test_a_stored_upload_pins_the_device_and_logs_the_body_hash(study, tmp_path):
    dev = Device("alice_01")
    b, rk = body("alice_01", (1, 2)), os.urandom(32)
    (tmp_path / "u.rmu").write_bytes(seal(dev.plain(b, rk), study[1]))
    p = ingest(study, tmp_path / "s.sqlite", tmp_path / "u.rmu")
    assert p.returncode == 0, p.stderr
    assert reasons(p)["u.rmu"].startswith("stored")
    with opened(tmp_path / "s.sqlite") as c:
        assert c.execute("SELECT content_sha256, player, sessions FROM uploads").fetchall() == \
            [(hashlib.sha256(b).hexdigest(), "alice_01", 2)]
        assert c.execute("SELECT player, signing_key, result_key FROM devices").fetchall() == \
            [("alice_01", b64(dev.pub()), b64(rk))]


def test_a_resealed_old_upload_is_a_duplicate_and_keeps_the_latest_result_key(study, tmp_path):
    dev = Device("bob")
    b1, rk1 = body("bob", (1,)), os.urandom(32)
    b2, rk2 = body("bob", (1, 2)), os.urandom(32)
    (tmp_path / "1.rmu").write_bytes(seal(dev.plain(b1, rk1), study[1]))
    (tmp_path / "2.rmu").write_bytes(seal(dev.plain(b2, rk2), study[1]))
    assert ingest(study, tmp_path / "s.sqlite", tmp_path / "1.rmu", tmp_path / "2.rmu").returncode == 0
    (tmp_path / "3.rmu").write_bytes(seal(dev.plain(b1, rk1), study[1]))
    p = ingest(study, tmp_path / "s.sqlite", tmp_path / "3.rmu")
    assert p.returncode == 0, p.stderr
    assert "duplicate" in reasons(p)["3.rmu"] and "rejected" not in p.stderr
    with opened(tmp_path / "s.sqlite") as c:
        assert c.execute("SELECT result_key FROM devices").fetchone()[0] == b64(rk2)
        assert c.execute("SELECT count(*) FROM uploads").fetchone()[0] == 2
        assert c.execute("SELECT count(*) FROM sessions").fetchone()[0] == 2


def test_rejection_reasons_in_the_order_of_the_checks(study, tmp_path):
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    dev, pub = Device("carol"), study[1]
    good = dev.plain(body("carol"))
    files = {
        "a.rmu": b"RMUX" + seal(good, pub)[4:],
        "b.rmu": b"RMU1\x00\x10" + b"x" * 20,
        "c.rmu": seal(good, other),
        "d.rmu": seal(good, pub, key_len=16),
        "e.rmu": (lambda u: u[:-1] + bytes([u[-1] ^ 1]))(seal(good, pub)),
        "f.rmu": seal(body("carol"), pub),
        "g.rmu": seal(dev.plain(body("carol"), sign_body=body("carol", score=6)), pub),
        "h.rmu": seal(Device("dave").plain(body("erin")), pub),
        "i.rmu": seal(Device("fay").plain(b'{"type":"survey","player":"fay","complete":tru}\n'), pub),
        "j.rmu": seal(Device("gus").plain(SURVEY.encode() % b"gus" + b"\n" +
                                          b'{"type":"survey","player":"gus","complete":false,"x":"caf\xe9"}\n'), pub),
        "k.rmu": seal(dev.plain(body("carol"), fields={"extra": "1"}), pub),
        "l.rmu": seal(dev.plain(body("carol"), fields={"signing_key": b64(dev.pub()[:31])}), pub),
        "m.rmu": seal(dev.plain(body("carol"), fields={"result_key": b64(b"r" * 31)}), pub),
        "n.rmu": seal(dev.plain(body("carol"), fields={"signature": b64(b"s" * 63)}), pub),
        "z.rmu": seal(Device("zed").plain(body("zed")), pub),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    col = len('{"type":"survey","player":"fay","complete":') + 1
    byte = len(b'{"type":"survey","player":"gus","complete":false,"x":"caf') + 1
    p = ingest(study, tmp_path / "s.sqlite", tmp_path)
    assert p.returncode == 1
    r = reasons(p)
    want = {
        "a.rmu": "rejected: not a RocketMouse upload (the first bytes are not RMU1)",
        "b.rmu": "rejected: the upload is truncated",
        "c.rmu": "rejected: cannot unwrap the data key: the upload was sealed to a different study key, or its key block was altered",
        "d.rmu": "rejected: the wrapped data key has the wrong length",
        "e.rmu": "rejected: authentication failed: the upload was altered or truncated",
        "g.rmu": "rejected: the signature does not verify with the upload's signing key: the content was altered or forged",
        "h.rmu": "rejected: the records are for player erin but the device record names dave",
        "j.rmu": f"rejected: malformed content: line 3: byte {byte} of the line (0xE9) is not UTF-8; save the file as UTF-8",
    }
    for name, text in want.items():
        assert r.get(name) == text, (name, r.get(name))
    assert r["f.rmu"].startswith("rejected: unsigned upload: the first record must be the device record")
    assert r["i.rmu"].startswith(f"rejected: malformed content: line 2, column {col}: "), r["i.rmu"]
    assert r["k.rmu"].startswith("rejected: ")
    for name, field in (("l.rmu", "signing_key"), ("m.rmu", "result_key"), ("n.rmu", "signature")):
        assert r[name].startswith("rejected: ") and field in r[name], r[name]
    assert r["z.rmu"].startswith("stored")
    with opened(tmp_path / "s.sqlite") as c:
        assert [x[0] for x in c.execute("SELECT player FROM devices")] == ["zed"]


def test_pins_and_conflicts_reject_the_whole_upload(study, tmp_path):
    dev = Device("hal")
    (tmp_path / "1.rmu").write_bytes(seal(dev.plain(body("hal", (1,))), study[1]))
    assert ingest(study, tmp_path / "s.sqlite", tmp_path / "1.rmu").returncode == 0
    (tmp_path / "2.rmu").write_bytes(seal(Device("hal").plain(body("hal", (2,), survey=False)), study[1]))
    (tmp_path / "3.rmu").write_bytes(seal(dev.plain(body("hal", (1, 2), score=9, survey=False)), study[1]))
    diff = SURVEY.replace("female", "male").encode() % b"hal" + b"\n"
    (tmp_path / "4.rmu").write_bytes(seal(dev.plain(diff), study[1]))
    p = ingest(study, tmp_path / "s.sqlite", tmp_path / "2.rmu", tmp_path / "3.rmu", tmp_path / "4.rmu")
    assert p.returncode == 1
    r = reasons(p)
    assert r["2.rmu"] == ("rejected: player hal is pinned to another device's signing key (trust on first use): "
                          "this upload is signed by a different key")
    assert r["3.rmu"] == "rejected: player hal session 1: different data is already stored"
    assert r["4.rmu"] == "rejected: player hal: a different complete survey is already stored"
    with opened(tmp_path / "s.sqlite") as c:
        assert c.execute("SELECT session, score FROM sessions").fetchall() == [(1, 5)]
        assert c.execute("SELECT count(*) FROM uploads").fetchone()[0] == 1


def test_seal_writes_device_files_and_derives_the_result_key(tmp_path):
    subprocess.run([BIN, "game", "keygen", "--output", str(tmp_path / "study"), "-q"], check=True)
    key = serialization.load_pem_private_key((tmp_path / "study.key").read_bytes(), None)
    assert key.key_size == 3072 and (tmp_path / "study.key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "study.key").read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert (tmp_path / "study.pub").read_text().startswith("-----BEGIN PUBLIC KEY-----")
    (tmp_path / "c.jsonl").write_bytes(body("ivy"))
    cmd = [BIN, "game", "seal", "--public", str(tmp_path / "study.pub"), "--output", str(tmp_path / "up"),
           str(tmp_path / "c.jsonl"), "-q"]
    subprocess.run(cmd, check=True)
    dev_file = tmp_path / "up-devices" / "ivy.device.json"
    assert dev_file.stat().st_mode & 0o777 == 0o600
    dev = json.loads(dev_file.read_text())
    assert sorted(dev) == ["result_key", "signing_key"]
    from store_helpers import open_rmu
    player, sealed_body = open_rmu((tmp_path / "up/ivy.rmu").read_bytes(), (tmp_path / "study.key").read_bytes())
    sk = base64.b64decode(dev["signing_key"])
    want = hashlib.new("sha256")
    import hmac
    rk = hmac.new(sk, b"RocketMouse seal result key v1\n" + sealed_body, hashlib.sha256).digest()
    assert player == "ivy" and base64.b64decode(dev["result_key"]) == rk
    subprocess.run(cmd, check=True)
    assert json.loads(dev_file.read_text()) == dev
    (tmp_path / "c.jsonl").write_bytes(body("ivy", (1, 2)))
    subprocess.run(cmd, check=True)
    again = json.loads(dev_file.read_text())
    assert again["signing_key"] == dev["signing_key"] and again["result_key"] != dev["result_key"]


def test_local_files_too_large_or_unreadable_are_rejected_unread(study, tmp_path):
    up = tmp_path / "up"
    up.mkdir()
    with open(up / "big.rmu", "wb") as f:
        f.truncate(268435457)  # sparse: nothing is written
    (up / "dir.rmu").mkdir()
    os.mkfifo(up / "pipe.rmu")
    (up / "ok.rmu").write_bytes(seal(Device("jo").plain(body("jo")), study[1]))
    p = ingest(study, tmp_path / "s.sqlite", up)
    assert p.returncode == 1
    r = reasons(p)
    assert r["pipe.rmu"] == "rejected: cannot read the file"
    assert r["big.rmu"] == ("rejected: the file is longer than 268435456 bytes (256 MiB), more than any upload may be; "
                            "not read further")
    assert r["dir.rmu"] == "rejected: cannot read the file"
    assert r["ok.rmu"].startswith("stored")


def test_drop_folder_deletes_after_commit_and_keeps_rejected(study, tmp_path):
    with WebDAVServer(tmp_path / "dav") as dav:
        drop = dav.root / "drop"
        drop.mkdir()
        for name in ("a", "b"):
            (drop / f"{name}.rmu").write_bytes(seal(Device(name).plain(body(name)), study[1]))
        (drop / "c.rmu").write_bytes(b"not an upload")
        (drop / "notes.txt").write_text("left alone")
        e = dict(os.environ)
        e.update(env())
        p = subprocess.run([BIN, "game", "ingest", "--key", str(study[0]), "--from", f"{dav.url}drop/", "--db",
                            str(tmp_path / "s.sqlite"), "--move-to", "done"], capture_output=True, text=True, env=e,
                           timeout=120)
        assert p.returncode == 1
        assert sorted(x.name for x in drop.iterdir()) == ["c.rmu", "done", "notes.txt"]
        assert sorted(x.name for x in (drop / "done").iterdir()) == ["a.rmu", "b.rmu"]
        assert "correct horse" not in p.stdout + p.stderr
    with opened(tmp_path / "s.sqlite") as c:
        assert sorted(x[0] for x in c.execute("SELECT player FROM devices")) == ["a", "b"]
