"""Signed uploads (trust on first use) and per-player results encrypted with the
device's result key — checked with an independent Python implementation (cryptography)."""
import base64
import hashlib
import hmac
import json
import os
import struct

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

SURVEY = {"type": "survey", "player": "p1", "complete": True, "diagnosed": False, "age": 30, "gender": "female"}


def session(k):
    return {"type": "session", "player": "p1", "session": k, "start": 0, "end": 60000, "score": 10,
            "obstacles": [[1000, 1000, "crate"], [3000, 2000, "bird"]], "taps": [1300, 3350]}


def seal(pub_pem: bytes, plain: bytes) -> bytes:
    """docs/game-telemetry.md, "Encrypted uploads"."""
    pub = serialization.load_pem_public_key(pub_pem)
    key = os.urandom(32)
    wrapped = pub.encrypt(key, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
    header = b"RMU1" + struct.pack(">H", len(wrapped)) + wrapped
    nonce = os.urandom(12)
    return header + nonce + AESGCM(key).encrypt(nonce, plain, header)


def signed(body: bytes, player: str, sk: Ed25519PrivateKey, result_key: bytes, sign_body: bytes = None) -> bytes:
    """docs/game-telemetry.md, "Signed uploads"."""
    rk = base64.b64encode(result_key).decode()
    msg = b"RocketMouse upload v2\n" + player.encode() + b"\n" + rk.encode() + b"\n" + (sign_body if sign_body is not None else body)
    pk = sk.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    dev = {"type": "device", "player": player, "signing_key": base64.b64encode(pk).decode(),
           "result_key": rk, "signature": base64.b64encode(sk.sign(msg)).decode()}
    return json.dumps(dev).encode() + b"\n" + body


def jsonl(*recs):
    return "".join(json.dumps(r) + "\n" for r in recs).encode()


def ingest(run_dossier, tmp_path, name, data):
    f = tmp_path / "in" / name
    f.parent.mkdir(exist_ok=True)
    for old in f.parent.glob("*.rmu"):
        old.unlink()
    f.write_bytes(data)
    return run_dossier("game", "ingest", "--key", tmp_path / "study.key", f.parent, "--db", tmp_path / "s.sqlite", check=False)


def test_first_key_is_pinned_and_forgeries_are_refused(run_dossier, tmp_path):
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    pub = (tmp_path / "study.pub").read_bytes()
    device, forger = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    # 1. Unsigned (the old format: JSON Lines only) is refused.
    p = ingest(run_dossier, tmp_path, "a.rmu", seal(pub, jsonl(SURVEY, session(1))))
    assert p.returncode == 1 and "unsigned upload" in p.stderr
    # 2. The first signed upload pins the device key.
    p = ingest(run_dossier, tmp_path, "b.rmu", seal(pub, signed(jsonl(SURVEY, session(1)), "p1", device, os.urandom(32))))
    assert p.returncode == 0 and "1 stored" in p.stdout, p.stderr
    # 3. A forger with the public study key and their own signing key is refused.
    p = ingest(run_dossier, tmp_path, "c.rmu", seal(pub, signed(jsonl(session(2)), "p1", forger, os.urandom(32))))
    assert p.returncode == 1 and "pinned to another device's signing key" in p.stderr
    # 4. A signature over different content (the body swapped after signing) is refused.
    p = ingest(run_dossier, tmp_path, "d.rmu", seal(pub, signed(jsonl(session(2)), "p1", device, os.urandom(32),
                                                                sign_body=jsonl(session(3)))))
    assert p.returncode == 1 and "signature does not verify" in p.stderr
    # 5. A device record naming another player than the records is refused.
    p = ingest(run_dossier, tmp_path, "e.rmu", seal(pub, signed(jsonl(session(2)), "p2", forger, os.urandom(32))))
    assert p.returncode == 1 and "device record names p2" in p.stderr
    # 6. The pinned device adds session 2; nothing the forger sent was stored.
    p = ingest(run_dossier, tmp_path, "f.rmu", seal(pub, signed(jsonl(session(2)), "p1", device, os.urandom(32))))
    assert p.returncode == 0 and "(1 new sessions)" in p.stdout
    a = json.loads(run_dossier("game", "analyze", "--json", "--db", tmp_path / "s.sqlite").stdout)
    assert [s["index"] for s in a["players"][0]["measures"]["perSession"]] == [1, 2]


def open_result(site, result_key: bytes):
    name = hmac.new(result_key, b"RocketMouse result name v1", hashlib.sha256).digest()[:16].hex() + ".rmr"
    data = (site / "game" / "results" / name).read_bytes()
    assert data[:4] == b"RMR1"
    ek = hmac.new(result_key, b"RocketMouse result key v1", hashlib.sha256).digest()
    return json.loads(AESGCM(ek).decrypt(data[4:16], data[16:], b"RMR1"))


def test_each_player_reads_only_their_own_encrypted_result(run_dossier, tmp_path):
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    cohort = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "12", "--seed", "21", "--out", cohort)
    up, dev = tmp_path / "up", tmp_path / "dev"
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", up, "--devices", dev, cohort)
    run_dossier("game", "ingest", "--key", tmp_path / "study.key", up, "--db", tmp_path / "s.sqlite")
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "dossier.yml").write_text(f"title: G\noutput: _site\ngame:\n  database: {tmp_path / 's.sqlite'}\n")
    run_dossier("build", proj)
    site = proj / "_site"
    results = list((site / "game" / "results").glob("*.rmr"))
    # The 12 results among decoys: 256 files of one size (docs/game-privacy.md, "Result files").
    assert len(results) == 256 and {f.stat().st_size for f in results} == {8224}
    analysis = json.loads(run_dossier("game", "analyze", "--json", cohort).stdout)
    expected = {p["id"]: p for p in analysis["players"]}
    for f in dev.glob("*.device.json"):
        player = f.name.split(".")[0]
        key = base64.b64decode(json.loads(f.read_text())["result_key"])
        r = open_result(site, key)
        assert r["player"] == player
        assert r["likelihood"] == expected[player]["likelihood"]
        assert r["measures"]["hits"] == expected[player]["measures"]["hits"]
        # The lists whose length would tell how much the player played are left out.
        assert r["measures"]["perSession"] == r["measures"]["hitRTs"] == r["measures"]["blocks"] == []
    # A wrong key finds no file, and a file cannot be opened with another player's key.
    import pytest
    with pytest.raises(FileNotFoundError):
        open_result(site, os.urandom(32))
    data = results[0].read_bytes()
    from cryptography.exceptions import InvalidTag
    other = base64.b64decode(json.loads(next(dev.glob("*.device.json")).read_text())["result_key"])
    ek = hmac.new(other, b"RocketMouse result key v1", hashlib.sha256).digest()
    name = hmac.new(other, b"RocketMouse result name v1", hashlib.sha256).digest()[:16].hex() + ".rmr"
    if results[0].name != name:
        with pytest.raises(InvalidTag):
            AESGCM(ek).decrypt(data[4:16], data[16:], b"RMR1")
    # No player id appears in clear anywhere in the published site.
    for f in site.rglob("*"):
        if f.is_file():
            text = f.read_bytes()
            for pid in expected:
                assert pid.encode() not in text, (f, pid)
