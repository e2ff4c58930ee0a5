"""Sealed recall uploads, re-implemented from docs/recall-upload.md alone.

An independent sealer and reader (Python `cryptography`) follow the page byte for byte:
the `RMU1` envelope (RSA-OAEP-SHA-256 wrapping an AES-256-GCM key, header as additional
data), the signed `recall-session` record (Ed25519 over "Dossier recall upload v1\\n" ‖
device ‖ upload ‖ log ‖ body) and the body. Keys come from `dossier recall keygen`;
uploads are ingested with `dossier recall ingest --logs`, and every refusal of the
page's table is checked for its reason, its exit status and that nothing is half-stored.
Helpers shared with test_doc_sealed_uploads_more.py (the game's uploads) live here.
"""
import base64
import json
import os
import pathlib
import re
import stat
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from conftest import dossier_path

MAGIC = b"RMU1"
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


# MARK: - envelope (docs/recall-upload.md "The envelope" = docs/game-telemetry.md "Encrypted uploads")

def seal(pub, plaintext: bytes, data_key: bytes = None, nonce: bytes = None) -> bytes:
    key = os.urandom(32) if data_key is None else data_key
    wrapped = pub.encrypt(key, OAEP)
    header = MAGIC + len(wrapped).to_bytes(2, "big") + wrapped
    nonce = os.urandom(12) if nonce is None else nonce
    if len(key) == 32:
        sealed = AESGCM(key).encrypt(nonce, plaintext, header)
    else:  # a data key of the wrong length: the AES part is never reached
        sealed = AESGCM(os.urandom(32)).encrypt(nonce, plaintext, header)
    return header + nonce + sealed


def open_upload(priv, upload: bytes) -> bytes:
    assert upload[:4] == MAGIC
    length = int.from_bytes(upload[4:6], "big")
    assert len(upload) >= 6 + length + 12 + 16
    header = upload[:6 + length]
    key = priv.decrypt(upload[6:6 + length], OAEP)
    assert len(key) == 32
    nonce = upload[6 + length:6 + length + 12]
    return AESGCM(key).decrypt(nonce, upload[6 + length + 12:], header)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def raw_public(private: ed25519.Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def dossier(*args, cwd=None, timeout=60):
    return subprocess.run([dossier_path(), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def make_keys(folder: pathlib.Path, name: str, kind: str = "recall"):
    """`dossier recall|game keygen` at 2048 bits: (private key, public key, key path)."""
    prefix = folder / name
    proc = dossier(kind, "keygen", "--output", prefix, "--bits", "2048")
    assert proc.returncode == 0, proc.stderr
    key_path = prefix.with_name(name + ".key")
    priv = serialization.load_pem_private_key(key_path.read_bytes(), None)
    pub = serialization.load_pem_public_key(prefix.with_name(name + ".pub").read_bytes())
    return priv, pub, key_path


def tree(folder: pathlib.Path) -> dict:
    """Every file below folder (hidden ones too) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# MARK: - the recall record

LOG_NAME = "recall-P-07-20240101T101010.jsonl"


def recall_log(participant="P-07", close_at=200) -> bytes:
    lines = [{"type": "session", "format": "dossier-recall/1", "participant": participant},
             {"t": 0, "type": "page", "page": "ready"},
             {"t": 100, "type": "button", "button": "begin"},
             {"t": close_at, "type": "close"}]
    return "".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n" for x in lines).encode()


class Device:
    def __init__(self, device_id=None, private=None):
        self.id = device_id or os.urandom(16).hex()
        self.private = private or ed25519.Ed25519PrivateKey.generate()

    @property
    def public_b64(self) -> str:
        return b64(raw_public(self.private))


def upload_name() -> str:
    return "rc-" + os.urandom(12).hex() + ".rcu"


def recall_signed_bytes(device: str, upload: str, log: str, body: bytes) -> bytes:
    return b"Dossier recall upload v1\n" + "\n".join([device, upload, log]).encode() + b"\n" + body


def recall_plaintext(dev: Device, upload: str, log: str, body: bytes, record_edit=None, raw_record=None,
                     signed_body=None) -> bytes:
    signature = dev.private.sign(recall_signed_bytes(dev.id, upload, log, body if signed_body is None
                                                     else signed_body))
    record = {"type": "recall-session", "device": dev.id, "upload": upload, "log": log,
              "signing_key": dev.public_b64, "signature": b64(signature)}
    if record_edit:
        record_edit(record)
    line = raw_record if raw_record is not None else json.dumps(record, separators=(",", ":"))
    return line.encode() + b"\n" + body


class Study:
    """A study key pair, a drop folder and a logs folder in tmp_path."""

    def __init__(self, tmp_path, keys):
        self.priv, self.pub, self.key_path = keys
        self.drop = tmp_path / "drop"
        self.logs = tmp_path / "logs"
        self.drop.mkdir()
        self.logs.mkdir()

    def put(self, name: str, data: bytes) -> pathlib.Path:
        path = self.drop / name
        path.write_bytes(data)
        return path

    def put_sealed(self, dev: Device, body: bytes, log=LOG_NAME, name=None, **kw) -> str:
        name = name or upload_name()
        self.put(name, seal(self.pub, recall_plaintext(dev, name, log, body, **kw)))
        return name

    def ingest(self, *extra):
        return dossier("recall", "ingest", "--key", self.key_path, "--from", self.drop, "--logs", self.logs,
                       *extra)


@pytest.fixture(scope="module")
def recall_keys(tmp_path_factory):
    return make_keys(tmp_path_factory.mktemp("recall-keys"), "study")


@pytest.fixture(scope="module")
def other_keys(tmp_path_factory):
    return make_keys(tmp_path_factory.mktemp("other-keys"), "other")


@pytest.fixture
def study(tmp_path, recall_keys):
    return Study(tmp_path, recall_keys)


def summary(stored, already, refused) -> str:
    return f"{stored} stored, {already} already stored, {refused} refused"


def assert_refused(study: Study, name: str, reason_pattern: str):
    """One upload refused with the documented line and exit 1; it stays, nothing is stored."""
    before_drop = tree(study.drop)
    before_logs = tree(study.logs)
    proc = study.ingest()
    line = f"{name}: refused: "
    assert proc.returncode == 1, proc.stdout + proc.stderr
    hits = [x for x in proc.stderr.splitlines() if x.startswith(line)]
    assert len(hits) == 1, proc.stderr
    assert hits[0].endswith(" (kept in the drop)"), hits[0]
    reason = hits[0][len(line):-len(" (kept in the drop)")]
    assert re.search(reason_pattern, reason), (reason_pattern, reason)
    assert summary(0, 0, 1) in proc.stdout + proc.stderr
    assert tree(study.drop) == before_drop
    assert tree(study.logs) == before_logs
    return reason


# MARK: - keys

def test_recall_keygen_writes_pkcs8_private_0600_and_spki_public_3072_by_default(tmp_path):
    proc = dossier("recall", "keygen", "--output", tmp_path / "s")
    assert proc.returncode == 0, proc.stderr
    key_pem = (tmp_path / "s.key").read_bytes()
    pub_pem = (tmp_path / "s.pub").read_bytes()
    assert key_pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    assert pub_pem.startswith(b"-----BEGIN PUBLIC KEY-----")
    assert stat.S_IMODE((tmp_path / "s.key").stat().st_mode) == 0o600
    priv = serialization.load_pem_private_key(key_pem, None)
    assert isinstance(priv, rsa.RSAPrivateKey) and priv.key_size == 3072
    assert serialization.load_pem_public_key(pub_pem).public_numbers() == priv.public_key().public_numbers()
    assert key_pem.decode() not in proc.stdout + proc.stderr
    assert not [p for p in tmp_path.iterdir() if p.name not in ("s.key", "s.pub")]


# MARK: - the program's sealer opened by this reader

def test_recall_seal_output_opens_with_the_documented_reader(tmp_path, recall_keys):
    priv, _, _ = recall_keys
    pub_path = tmp_path / "study.pub"
    pub_path.write_bytes(recall_keys[1].public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    log = tmp_path / LOG_NAME
    body = recall_log()
    log.write_bytes(body)
    out = tmp_path / "out"
    assert dossier("recall", "seal", "--public", pub_path, "--output", out, log).returncode == 0
    log2 = tmp_path / "second.jsonl"
    log2.write_bytes(recall_log("P-08"))
    assert dossier("recall", "seal", "--public", pub_path, "--output", out, log2).returncode == 0
    device_file = tmp_path / "out-device.json"
    assert stat.S_IMODE(device_file.stat().st_mode) == 0o600
    dev = json.loads(device_file.read_text())
    assert set(dev) == {"device", "signing_key"} and re.fullmatch(r"[0-9a-f]{32}", dev["device"])
    signer = ed25519.Ed25519PrivateKey.from_private_bytes(base64.b64decode(dev["signing_key"], validate=True))
    uploads = sorted(out.iterdir())
    assert len(uploads) == 2
    seen_logs = set()
    for path in uploads:
        assert re.fullmatch(r"rc-[0-9a-f]{24}\.rcu", path.name)
        plain = open_upload(priv, path.read_bytes())
        first, body_bytes = plain.split(b"\n", 1)
        record = json.loads(first)
        assert list(record) == ["type", "device", "upload", "log", "signing_key", "signature"]
        assert first == json.dumps(record, separators=(",", ":")).encode()
        assert record["type"] == "recall-session" and record["device"] == dev["device"]
        assert record["upload"] == path.name
        assert record["signing_key"] == b64(raw_public(signer))
        signer.public_key().verify(base64.b64decode(record["signature"]),
                                   recall_signed_bytes(record["device"], record["upload"], record["log"], body_bytes))
        assert body_bytes == (tmp_path / record["log"]).read_bytes()
        seen_logs.add(record["log"])
    assert seen_logs == {LOG_NAME, "second.jsonl"}


# MARK: - storing

def test_an_upload_sealed_from_the_docs_is_stored_byte_for_byte_and_pins_its_device(study):
    dev = Device()
    body = recall_log()
    name = study.put_sealed(dev, body)
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert f"{name}: stored {LOG_NAME}" in proc.stdout.splitlines()
    assert summary(1, 0, 0) in proc.stdout
    assert (study.logs / LOG_NAME).read_bytes() == body
    assert (study.logs / ".recall-devices" / dev.id).read_text().strip() == dev.public_b64
    assert not list(study.drop.iterdir())
    assert not [p for p in study.logs.rglob("*.partial")]


def test_pin_file_holds_exactly_the_base64_text(study):
    dev = Device()
    study.put_sealed(dev, recall_log())
    assert study.ingest().returncode == 0
    assert (study.logs / ".recall-devices" / dev.id).read_text() == dev.public_b64


def test_members_in_any_order_and_names_as_free_file_names_are_accepted(study):
    dev = Device()
    members = ["signature", "log", "signing_key", "upload", "device", "type"]

    def reorder(record):
        items = dict(record)
        record.clear()
        record.update({k: items[k] for k in members})

    body = recall_log("P-09")
    name = study.put_sealed(dev, body, log="free_name-1.jsonl", name="My.Upload_1.rcu", record_edit=reorder)
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert f"{name}: stored free_name-1.jsonl" in proc.stdout
    assert (study.logs / "free_name-1.jsonl").read_bytes() == body


def test_longest_names_120_and_200_bytes_are_accepted(study):
    name = "u" * 116 + ".rcu"
    log = "l" * 194 + ".jsonl"
    assert len(name) == 120 and len(log) == 200
    study.put_sealed(Device(), recall_log(), log=log, name=name)
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert (study.logs / log).read_bytes() == recall_log()


def test_uploads_are_taken_in_name_order_and_other_or_hidden_files_are_left(study):
    dev = Device()
    names = ["rc-" + c * 24 + ".rcu" for c in "cab"]
    for i, name in enumerate(names):
        study.put_sealed(dev, recall_log(close_at=200 + i), log=f"log{i}.jsonl", name=name)
    study.put("notes.txt", b"hello")
    study.put(".hidden.rcu", b"garbage")
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    stored = [x.split(":")[0] for x in proc.stdout.splitlines() if ": stored " in x]
    assert stored == sorted(names)
    assert summary(3, 0, 0) in proc.stdout
    assert sorted(p.name for p in study.drop.iterdir()) == [".hidden.rcu", "notes.txt"]


def test_move_to_moves_stored_uploads_into_a_folder_of_the_drop(study):
    name = study.put_sealed(Device(), recall_log())
    data = (study.drop / name).read_bytes()
    proc = study.ingest("--move-to", "done/sub")
    assert proc.returncode == 0, proc.stderr
    assert (study.drop / "done" / "sub" / name).read_bytes() == data
    assert not (study.drop / name).exists()


def test_logs_folder_from_the_project_and_a_missing_logs_folder(tmp_path, recall_keys):
    project = tmp_path / "proj"
    (project / "data" / "logs").mkdir(parents=True)
    (project / "dossier.yml").write_text("title: T\nrecall:\n  logs: data/logs\n")
    st = Study(tmp_path, recall_keys)
    st.put_sealed(Device(), recall_log())
    proc = dossier("recall", "ingest", "--key", st.key_path, "--from", st.drop, "--project", project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (project / "data" / "logs" / LOG_NAME).read_bytes() == recall_log()
    st.put_sealed(Device(), recall_log("P-10"))
    proc = dossier("recall", "ingest", "--key", st.key_path, "--from", st.drop, "--logs", tmp_path / "nope")
    assert proc.returncode != 0
    assert len(list(st.drop.iterdir())) == 1 and not (tmp_path / "nope").exists()


def test_a_record_with_spaces_and_json_escapes_is_read_by_its_string_values(study):
    dev = Device()
    name = upload_name()
    plain = recall_plaintext(dev, name, LOG_NAME, recall_log())
    record = json.loads(plain.split(b"\n", 1)[0])
    line = json.dumps(record, indent=None)  # ", " and ": " between members
    line = line.replace('"rc-', '"\\u0072c-').replace("recall-session", "recall\\u002dsession")
    study.put(name, seal(study.pub, line.encode() + b"\n" + recall_log()))
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert (study.logs / LOG_NAME).read_bytes() == recall_log()


def test_a_crlf_log_is_stored_byte_for_byte(study):
    body = recall_log().replace(b"\n", b"\r\n")
    study.put_sealed(Device(), body)
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert (study.logs / LOG_NAME).read_bytes() == body


def test_a_url_safe_base64_signing_key_is_not_rfc4648_base64(study):
    while True:
        dev = Device()
        if "+" in dev.public_b64 or "/" in dev.public_b64:
            break
    urlsafe = dev.public_b64.replace("+", "-").replace("/", "_")
    name = upload_name()
    study.put(name, seal(study.pub, recall_plaintext(dev, name, LOG_NAME, recall_log(),
                                                     record_edit=lambda r: r.update(signing_key=urlsafe))))
    assert_refused(study, name, r"^signing_key must be ")


def test_already_stored_uploads_are_moved_too(study):
    name = study.put_sealed(Device(), recall_log())
    data = (study.drop / name).read_bytes()
    assert study.ingest().returncode == 0
    study.put(name, data)
    proc = study.ingest("--move-to", "done")
    assert proc.returncode == 0 and f"{name}: already stored as {LOG_NAME}" in proc.stdout
    assert (study.drop / "done" / name).read_bytes() == data and not (study.drop / name).exists()
