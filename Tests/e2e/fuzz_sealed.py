"""Fuzz targets for sealed uploads (docs/fuzzing.md): the game's and the recall kit's
`RMU1` uploads as `game ingest` and `recall ingest` open them.

Mutating a sealed file only reaches the envelope (any changed byte fails authentication),
so the recall targets also mutate the **plaintext** — the signed record line and the log
— and then seal it properly (docs/recall-upload.md, written here from that page alone):
the record's signature is made again over the mutated values when they can be read, and
the upload is named as its record says, so the mutation reaches the record, signature,
name and log checks behind the envelope."""
from __future__ import annotations

import base64
import json
import os
import pathlib
import random
import re
import subprocess
import tempfile

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from conftest import dossier_path

DEMO = pathlib.Path(__file__).resolve().parents[2] / "Examples" / "demo"
CONTEXT = b"Dossier recall upload v1\n"
SAFE_UPLOAD = re.compile(rb"[A-Za-z0-9_-][A-Za-z0-9._-]{0,115}\.rcu")
_CACHE: dict[str, pathlib.Path] = {}


def _dossier(*args):
    return subprocess.run([dossier_path(), *map(str, args)], capture_output=True, timeout=300)


def _copy(src: pathlib.Path, dst: pathlib.Path) -> pathlib.Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(src.read_bytes())
    return dst


# MARK: - the game

def _game_fixtures(game_lines) -> pathlib.Path:
    """A key pair, a small database and one sealed upload, made once per process."""
    if "game" not in _CACHE:
        d = pathlib.Path(tempfile.mkdtemp(prefix="dossier-fuzz-game-"))
        (d / "in.jsonl").write_bytes(game_lines(2))
        _dossier("game", "keygen", "--out", d / "study", "--bits", "2048")
        pub = next(d.glob("study*pub*"), None) or next(p for p in d.glob("study*") if "pem" in p.name and "priv" not in p.name)
        _dossier("game", "seal", "--public", pub, "--out", d / "up", d / "in.jsonl")
        key = next(p for p in d.glob("study*") if p != pub)
        _dossier("game", "ingest", "--key", key, "--db", d / "study.db", d / "up")
        _CACHE["game"] = d
    return _CACHE["game"]


def _private_key(d: pathlib.Path) -> pathlib.Path:
    pubs = [p for p in d.glob("study*") if "pub" in p.name]
    return next(p for p in d.glob("study*") if p not in pubs)


def game_targets(game_lines):
    def t_sqlite(d):
        f = _copy(_game_fixtures(game_lines) / "study.db", d / "study.db")
        return f, ["game", "analyze", "--db", str(f)], {}

    def t_sealed_upload(d):
        g = _game_fixtures(game_lines)
        up = sorted((g / "up").glob("*"))[0]
        f = _copy(up, d / "up" / up.name)
        return f, ["game", "ingest", "--key", str(_private_key(g)), "--db", str(d / "fresh.db"), str(f)], {}
    return t_sqlite, t_sealed_upload


# MARK: - the recall kit

def seal(plain: bytes, public_pem: bytes, rng: random.Random) -> bytes:
    """docs/recall-upload.md, "The envelope" (key and nonce from `rng`: a case replays)."""
    pub = serialization.load_pem_public_key(public_pem)
    k, nonce = rng.randbytes(32), rng.randbytes(12)
    w = pub.encrypt(k, padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
    header = b"RMU1" + len(w).to_bytes(2, "big") + w
    return header + nonce + AESGCM(k).encrypt(nonce, plain, header)


def signed_plaintext(device_key: Ed25519PrivateKey, device: str, upload: str, log: str, body: bytes) -> bytes:
    """docs/recall-upload.md, "The plaintext": the record line and the body."""
    raw = device_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    rec = {"type": "recall-session", "device": device, "upload": upload, "log": log,
           "signing_key": base64.b64encode(raw).decode(), "signature": ""}
    rec["signature"] = _signature(device_key, device, upload, log, body)
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n" + body


def _signature(device_key, device, upload, log, body) -> str:
    msg = CONTEXT + f"{device}\n{upload}\n{log}\n".encode("utf-8", "surrogatepass") + body
    return base64.b64encode(device_key.sign(msg)).decode()


def _recall_keys() -> pathlib.Path:
    if "recall" not in _CACHE:
        d = pathlib.Path(tempfile.mkdtemp(prefix="dossier-fuzz-recall-"))
        _dossier("recall", "keygen", "--output", d / "study", "--bits", "2048")
        _CACHE["recall"] = d
    return _CACHE["recall"]


def _device_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def _recall_case(d: pathlib.Path, plain: bytes, rng: random.Random) -> None:
    """Seals `plain` (re-signed where its record can be read) into d/drop/."""
    nl = plain.find(b"\n")
    record, body = (plain[:nl], plain[nl + 1:]) if nl >= 0 else (plain, b"")
    try:
        rec = json.loads(record)
    except ValueError:
        rec = None
    upload = b"rc-000000000000000000000000.rcu"
    if isinstance(rec, dict):
        vals = [rec.get(m) for m in ("device", "upload", "log")]
        if all(isinstance(v, str) for v in vals):
            sig = _signature(_device_key(), *vals, body)
            record = re.sub(rb'"signature":"[^"]*"', b'"signature":"' + sig.encode() + b'"', record, count=1)
            if SAFE_UPLOAD.fullmatch(vals[1].encode("utf-8", "surrogatepass")):
                upload = vals[1].encode()
    drop = d / "drop"
    for old in drop.glob("*"):
        old.unlink()
    drop.mkdir(exist_ok=True)
    sealed = seal(record + (b"\n" + body if nl >= 0 else b""), (_recall_keys() / "study.pub").read_bytes(), rng)
    (drop / upload.decode()).write_bytes(sealed)


def recall_targets():
    def command(d):
        (d / "logs").mkdir(exist_ok=True)
        return ["recall", "ingest", "--key", str(_recall_keys() / "study.key"), "--from", str(d / "drop"),
                "--logs", str(d / "logs")]

    def seed_plaintext() -> bytes:
        log = sorted((DEMO / "data" / "recall" / "logs").glob("*.jsonl"))[0].read_bytes()
        return signed_plaintext(_device_key(), "0123456789abcdef0123456789abcdef", "rc-0123456789abcdef01234567.rcu",
                                "recall-P1-20261129T120000.jsonl", log)

    def t_sealed(d):
        d.mkdir(parents=True, exist_ok=True)
        _recall_case(d, seed_plaintext(), random.Random(0))
        f = next((d / "drop").glob("*.rcu"))
        return f, command(d), {}

    def t_plaintext(d):
        f = d / "plaintext.bin"
        f.write_bytes(seed_plaintext())
        return f, command(d), {}

    def after_plaintext(f: pathlib.Path, rng: random.Random):
        _recall_case(f.parent, f.read_bytes(), rng)
    return t_sealed, t_plaintext, after_plaintext


if __name__ == "__main__":                     # one case by hand: seals a plaintext file into a drop
    import sys
    _recall_case(pathlib.Path(sys.argv[1]).parent, pathlib.Path(sys.argv[1]).read_bytes(), random.Random(os.getpid()))
