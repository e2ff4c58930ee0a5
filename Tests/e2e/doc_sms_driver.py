"""Drives `dossier sms` for test_doc_sms_protocol*.py (docs/securesms-cli.md) and pairs it
with the independent client of doc_sms_impl.py. Every output is recorded so that a test
can check no secret ever appears in it."""
import base64
import os
import subprocess

import pytest

import doc_sms_impl as s

PASSWORD = "Quartz-Lantern-Orbit-7319-mauve!"


class Dossier:
    """One dossier keystore (the local account) in a temp folder."""

    def __init__(self, binary, folder, account="alice"):
        self.binary, self.folder = binary, folder
        self.keystore = folder / f"{account}.keystore"
        self.outputs = []
        self.secrets = [PASSWORD.encode()]
        self.run("init", "--account", account, "--kdf-log2n", "10")

    def run(self, *args, input=None, env=None, keystore=True, check=True):
        full_env = dict(os.environ, DOSSIER_SMS_PASSWORD=PASSWORD)
        for k in ("DOSSIER_SMS_KEY", "DOSSIER_SMS_CONFIRM", "DOSSIER_SMS_KEYSTORE"):
            full_env.pop(k, None)
        full_env.update(env or {})
        cmd = [self.binary, "sms", *args]
        if keystore:
            cmd += ["--keystore", str(self.keystore)]
        proc = subprocess.run(cmd, input=None if input is None else input.encode(), env=full_env,
                              capture_output=True, timeout=60)
        out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
        self.outputs.append(proc.stdout + proc.stderr)
        if check:
            assert proc.returncode == 0, f"dossier sms {args[:2]} exited {proc.returncode}: {err}"
        return proc.returncode, out, err

    def payload(self):
        return s.open_keystore(self.keystore, PASSWORD)[1]

    def contact(self, name):
        found = [c for c in self.payload()["contacts"] if c["name"] == name]
        assert len(found) == 1
        return found[0]

    def key_message(self, name, verb="add"):
        """`contact add|resync NAME --later`: the key message dossier prints."""
        _, out, _ = self.run("contact", verb, name, "--later")
        lines = [ln for ln in out.splitlines() if ln.startswith(s.KEY_PREFIX)]
        assert len(lines) == 1, out
        return lines[0]

    def encrypt(self, name, text):
        _, out, err = self.run("encrypt", name, text)
        return out.strip(), err

    def decrypt(self, name, message, check=True):
        rc, out, err = self.run("decrypt", name, input=message, check=check)
        return rc, out[:-1] if out.endswith("\n") else out, err

    def remember(self, *secrets):
        """Record secrets in the forms a program could print them (raw, hex, base64)."""
        for sec in secrets:
            self.secrets += [sec.hex().encode(), base64.b64encode(sec), sec.hex().upper().encode()]

    def leaked(self):
        return [sec for sec in self.secrets for out in self.outputs if sec in out]


class Peer:
    """The Python side of a pair: own X25519 key, send chain, receiver (§4, §6)."""

    def __init__(self, dossier, name="Pat", verb="add"):
        self.dossier, self.name = dossier, name
        self.private = s.new_private()
        self.pub = s.raw_public(self.private)
        self.their_key_message = dossier.key_message(name, verb)
        self.their_pub = s.parse_key_message(self.their_key_message)
        self.number = s.safety_number(self.pub, self.their_pub)
        _, out, _ = dossier.run("contact", verb, name, "--key", s.key_message(self.pub), "--confirm", self.number)
        self.shown = out
        send_ck, recv_ck = s.initial_chains(self.private, self.their_pub)
        self.send_ck0, self.recv_ck0 = send_ck, recv_ck
        self.chain = s.Chain(send_ck)
        self.receiver = s.Receiver(recv_ck)
        dossier.remember(s.raw_private(self.private), send_ck, recv_ck,
                         *[s.message_key(c) for c in self.chain_keys(send_ck, 5) + self.chain_keys(recv_ck, 5)])

    @staticmethod
    def chain_keys(ck, n):
        out = []
        for _ in range(n):
            out.append(ck)
            ck = s.next_chain(ck)
        return out

    def message_at(self, counter, text):
        """A message sealed with MK(counter) of our send chain (for reordering)."""
        return s.seal(s.Chain(self.send_ck0).key_at(counter), counter, text)


def b64(raw):
    return base64.b64encode(raw).decode()


@pytest.fixture
def alice(dossier_bin, tmp_path):
    """A fresh dossier keystore; afterwards, no recorded secret may be in any output."""
    d = Dossier(dossier_bin, tmp_path)
    yield d
    assert not d.leaked(), "a secret appeared in dossier's output"


@pytest.fixture
def pair(alice):
    """alice (dossier) paired with a Python peer named Pat in her keystore."""
    return alice, Peer(alice)
