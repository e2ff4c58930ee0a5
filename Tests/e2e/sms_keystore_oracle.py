"""An independent writer/reader of docs/securesms-keystore.md keystores (envelope, scrypt →
HKDF verifier and key, AES-256-GCM payload with its associated data), plus a small runner
for `dossier sms` that records every output so tests can look for leaked secrets.
Computations come from the doc only (doc_sms_impl.keystore_keys is the same re-derivation)."""
import base64
import fcntl
import json
import os
import subprocess

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import doc_sms_impl as s

PW = "Quartz-Lantern-Orbit-7319-mauve!"
T0 = "2026-01-01T10:00:00Z"


def b64(raw):
    return base64.b64encode(raw).decode()


def dossier_json(obj):
    """keystore.md 'Envelope': keys sorted, two-space indent, `"key" : value`, final newline."""
    return (json.dumps(obj, sort_keys=True, indent=2, separators=(",", " : "), ensure_ascii=False) + "\n").encode()


def contact(name, send_ck=None, recv_ck=None, **extra):
    """A payload contact (keystore.md 'Payload') with known chain keys."""
    c = {"name": name, "added_at": T0, "key_agreement": "x25519", "sent_count": 0, "received_count": 0,
         "discarded_keys": 0,
         "send": {"chain_key": b64(send_ck or os.urandom(32)), "next": 0},
         "receive": {"chain_key": b64(recv_ck or os.urandom(32)), "next": 0, "skipped": []}}
    c.update(extra)
    return c


def payload(*contacts, account="alice"):
    return {"account": account, "created_at": T0, "contacts": list(contacts)}


def seal_envelope(body, password, log2n=10, r=8, p=1, salt=None, lockout=None, version=1):
    """The envelope dict for payload bytes `body` (already JSON-encoded)."""
    salt = os.urandom(16) if salt is None else salt
    env = {"format": "securesms-keystore", "version": version,
           "kdf": {"algorithm": "scrypt", "log2n": log2n, "r": r, "p": p, "salt": b64(salt)},
           "lockout": lockout or {"failures": 0, "max_failures": 3, "lock_seconds": 300}}
    verifier, key, aad = s.keystore_keys(env, password)
    nonce = os.urandom(12)
    env["verifier"] = b64(verifier)
    env["payload"] = b64(nonce + AESGCM(key).encrypt(nonce, body, aad))
    return env


def write_keystore(path, pl, password=PW, raw=None, **kw):
    """Writes a keystore in dossier's layout; returns the envelope."""
    env = seal_envelope(json.dumps(pl).encode() if raw is None else raw, password, **kw)
    path.write_bytes(dossier_json(env))
    os.chmod(path, 0o600)
    return env


def read_env(path):
    return json.loads(path.read_bytes())


def open_payload(path, password=PW):
    return s.open_keystore(path, password)[1]


def keystore_secrets(path, password=PW):
    """Every secret of a keystore in the forms a program could print it."""
    env = read_env(path)
    verifier, key, _ = s.keystore_keys(env, password)
    raws = [verifier, key, base64.b64decode(env["kdf"]["salt"])]
    for c in open_payload(path, password)["contacts"]:
        for part in ("send", "receive"):
            if part in c:
                raws.append(base64.b64decode(c[part]["chain_key"]))
                raws += [base64.b64decode(k["key"]) for k in c[part].get("skipped", [])]
        if "pending_key" in c:
            raws.append(base64.b64decode(c["pending_key"]))
    out = [password.encode()]
    for r in raws:
        out += [r, r.hex().encode(), r.hex().upper().encode(), base64.b64encode(r)]
    return out


class Sms:
    """Runs `dossier sms … --keystore KS`; records outputs."""

    def __init__(self, binary, keystore):
        self.binary, self.keystore, self.outputs = binary, keystore, []

    def env(self, extra=None):
        e = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
        e["DOSSIER_SMS_PASSWORD"] = PW
        e.update(extra or {})
        return {k: v for k, v in e.items() if v is not None}

    def run(self, *args, input=None, env=None, keystore=True, rc=0, cwd=None):
        cmd = [self.binary, "sms", *args] + (["--keystore", str(self.keystore)] if keystore else [])
        p = subprocess.run(cmd, input=input.encode() if isinstance(input, str) else input, env=self.env(env),
                           capture_output=True, timeout=60, cwd=cwd)
        self.outputs += [p.stdout, p.stderr]
        out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        if rc is not None:
            assert p.returncode == rc, f"{args} exited {p.returncode}, not {rc}: {err}"
        return p.returncode, out, err

    def start(self, *args, env=None):
        cmd = [self.binary, "sms", *args, "--keystore", str(self.keystore)]
        return subprocess.Popen(cmd, env=self.env(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    def leaks(self, secrets, folder):
        """Secrets found in any output or in any file of `folder` but the keystore itself."""
        found = [sec for sec in secrets for o in self.outputs if sec and sec in o]
        for f in folder.rglob("*"):
            if f.is_file() and f != self.keystore:
                data = f.read_bytes()
                found += [(f.name, sec) for sec in secrets if sec in data]
        return found


class HeldLock:
    """Holds `<keystore>.lock` exclusively as another dossier command would (keystore.md
    'One writer at a time'), with `content` as its text."""

    def __init__(self, keystore, content=None):
        self.fd = os.open(f"{keystore}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        if content is not None:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, content.encode(), 0)

    def release(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def project(folder, keystore_payload=None, **kw):
    """A dossier project whose `sms` block reads data/*.keystore (docs/securesms-report.md)."""
    (folder / "data").mkdir(parents=True)
    (folder / "dossier.yml").write_text("title: t\nsms:\n  keystores: data/*.keystore\n  password_env: SMSPW\n")
    ks = folder / "data" / "a.keystore"
    write_keystore(ks, keystore_payload or payload(contact("Bob")), **kw)
    return ks


def check(binary, proj, password=PW):
    p = subprocess.Popen([binary, "check", str(proj)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(proj.parent), "SMSPW": password})
    out, err = p.communicate(timeout=60)
    return p.returncode, out + err, p.pid
