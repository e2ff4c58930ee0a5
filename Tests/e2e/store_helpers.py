"""Helpers for the tests of a shared PostgreSQL study store (not a test itself).

- ``open_rmu(data, key_pem)``: an independent reader of a sealed game upload, written
  from docs/game-telemetry.md ("Encrypted uploads", "Signed uploads") with Python's
  `cryptography` — it gives the upload's body, whose SHA-256 is the idempotency key the
  store keeps in ``uploads.content_sha256``.
- ``HeldSession``: a second client (psql, the test side's own) kept open on one
  connection, so a test can hold a transaction or a lock for as long as it likes and
  let go of it at a chosen moment.
- ``wait_until(pg, db, sql)``: polls the server's own catalogue (``pg_stat_activity``,
  ``pg_locks``) until a query answers true: how a test learns, without sleeping for a
  guessed time, that another process is waiting where the test holds it.
"""
import hashlib
import json
import os
import shutil
import subprocess
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def open_rmu(data: bytes, key_pem: bytes):
    """(player, body bytes) of a sealed, signed game upload; raises ValueError when it
    does not open. Signature checks are left to the ingest under test: this reader only
    names the content, to compare what the store kept with what the drops held."""
    if data[:4] != b"RMU1" or len(data) < 6:
        raise ValueError("not a RocketMouse upload")
    n = int.from_bytes(data[4:6], "big")
    header, rest = data[:6 + n], data[6 + n:]
    key = serialization.load_pem_private_key(key_pem, password=None)
    aes = key.decrypt(header[6:], padding.OAEP(mgf=padding.MGF1(hashes.SHA256()),
                                               algorithm=hashes.SHA256(), label=None))
    plain = AESGCM(aes).decrypt(rest[:12], rest[12:], header)
    first, _, body = plain.partition(b"\n")
    device = json.loads(first)
    if device.get("type") != "device":
        raise ValueError("unsigned upload")
    return device["player"], body


def content_sha256(data: bytes, key_pem: bytes) -> str:
    return hashlib.sha256(open_rmu(data, key_pem)[1]).hexdigest()


class HeldSession:
    """One psql process on one connection: ``run(sql)`` sends SQL and waits until psql
    has carried it out (it prints a marker after it); the connection — and any
    transaction or lock it holds — stays open until ``close()``."""

    def __init__(self, pg, db):
        env = dict(os.environ)
        env.update(pg.client_env(db))
        psql = shutil.which("psql") or str(pg.bin / "psql")
        self.proc = subprocess.Popen([psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
        self.n = 0

    def run(self, sql, timeout=60):
        """Runs `sql`; returns what it printed (rows, tab-free unaligned lines)."""
        self.n += 1
        mark = f"HELD-SESSION-MARK-{self.n}"
        self.proc.stdin.write(f"{sql}\n\\echo {mark}\n")
        self.proc.stdin.flush()
        out = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise RuntimeError(f"psql ended: {self.proc.stderr.read()}")
            if line.rstrip("\n") == mark:
                return "".join(out)
            out.append(line)
            if time.monotonic() > deadline:
                raise TimeoutError(sql)

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def wait_until(pg, db, sql, timeout=120, proc=None):
    """Polls `sql` (one boolean) until it answers `t`. A process `proc` that ends first
    fails the wait at once (it did not stop where the test holds it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pg.psql(db, sql).strip() == "t":
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process ended (status {proc.returncode}) before: {sql}")
        time.sleep(0.05)
    raise TimeoutError(sql)


WAITING_ON_LOCK = ("select exists(select 1 from pg_stat_activity where datname = current_database() "
                   "and wait_event_type = 'Lock' and pid <> pg_backend_pid())")
