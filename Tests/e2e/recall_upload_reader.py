"""An independent reader of sealed recall uploads, written from docs/recall-upload.md
alone (Python's `cryptography`; no Dossier code). `Reader(private_pem).read(name, data)`
opens and verifies one upload and returns (record, body), or raises Refused with the
reason; it remembers what it accepted (device pins, stored logs by SHA-256 and by name),
as an ingest does, so replays and conflicts are refused too."""
import base64
import binascii
import hashlib
import json
import re

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

CONTEXT = b"Dossier recall upload v1\n"
MEMBERS = {"type", "device", "upload", "log", "signing_key", "signature"}
NAME = re.compile(r"^[A-Za-z0-9._-]+$")


class Refused(Exception):
    pass


def open_envelope(data: bytes, private_key) -> bytes:
    """docs/recall-upload.md, "The envelope"."""
    if len(data) < 6 or data[:4] != b"RMU1":
        raise Refused("not sealed: the first bytes are not RMU1")
    n = int.from_bytes(data[4:6], "big")
    if len(data) < 6 + n + 12 + 16:
        raise Refused("truncated")
    header = data[:6 + n]
    try:
        key = private_key.decrypt(data[6:6 + n], padding.OAEP(mgf=padding.MGF1(hashes.SHA256()),
                                                              algorithm=hashes.SHA256(), label=None))
    except ValueError:
        raise Refused("wrong key: the data key does not unwrap")
    if len(key) != 32:
        raise Refused("the data key is not 32 bytes")
    try:
        return AESGCM(key).decrypt(data[6 + n:6 + n + 12], data[6 + n + 12:], header)
    except InvalidTag:
        raise Refused("altered or truncated: AES-GCM does not authenticate")


def b64(s: str, size: int, what: str) -> bytes:
    try:
        raw = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        raise Refused(f"{what} is not base64")
    if len(raw) != size:
        raise Refused(f"{what} is not {size} bytes")
    return raw


def open_plaintext(plain: bytes):
    """docs/recall-upload.md, "The plaintext": (record, body) once the signature verifies."""
    nl = plain.find(b"\n")
    if nl < 0:
        raise Refused("no signed record line")
    pairs = json.loads(plain[:nl].decode("utf-8"), object_pairs_hook=lambda p: p)
    if not isinstance(pairs, list):
        raise Refused("the record is not a JSON object")
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise Refused("a member appears twice")
    rec = dict(pairs)
    if rec.get("type") != "recall-session":
        raise Refused("not a recall-session record")
    if set(rec) != MEMBERS or not all(isinstance(v, str) for v in rec.values()):
        raise Refused("the record needs exactly the six string members")
    if not re.fullmatch(r"[0-9a-f]{32}", rec["device"]):
        raise Refused("bad device id")
    for member, ending, most in (("upload", ".rcu", 120), ("log", ".jsonl", 200)):
        v = rec[member]
        if not (NAME.match(v) and v.endswith(ending) and len(v) > len(ending) and len(v.encode()) <= most
                and not v.startswith(".")):
            raise Refused(f"bad {member} name")
    pk = Ed25519PublicKey.from_public_bytes(b64(rec["signing_key"], 32, "signing_key"))
    sig = b64(rec["signature"], 64, "signature")
    body = plain[nl + 1:]
    msg = CONTEXT + "".join(rec[m] + "\n" for m in ("device", "upload", "log")).encode("utf-8") + body
    try:
        pk.verify(sig, msg)
    except InvalidSignature:
        raise Refused("the signature does not verify")
    return rec, body


class Reader:
    def __init__(self, private_pem: bytes):
        self.key = serialization.load_pem_private_key(private_pem, password=None)
        self.pins = {}      # device → signing_key
        self.stored = {}    # sha256 → log name
        self.names = {}     # log name → sha256

    def read(self, name: str, data: bytes):
        """Checks one upload found in a drop under `name`; returns (record, body, 'stored' |
        'already stored') or raises Refused."""
        rec, body = open_plaintext(open_envelope(data, self.key))
        if rec["upload"] != name:
            raise Refused("replayed: the file name differs from the signed upload name")
        if not body.endswith(b"\n"):
            raise Refused("the log does not end with a line feed")
        body.decode("utf-8")
        first = json.loads(body.split(b"\n", 1)[0])
        if first.get("type") != "session" or first.get("format") != "dossier-recall/1":
            raise Refused("the body is not a dossier-recall/1 log")
        pinned = self.pins.get(rec["device"])
        if pinned is not None and pinned != rec["signing_key"]:
            raise Refused("the device is pinned to another signing key")
        digest = hashlib.sha256(body).hexdigest()
        if digest in self.stored:
            return rec, body, "already stored"
        if rec["log"] in self.names:
            raise Refused("conflict: another log of that name is stored")
        self.pins.setdefault(rec["device"], rec["signing_key"])
        self.stored[digest] = rec["log"]
        self.names[rec["log"]] = digest
        return rec, body, "stored"
