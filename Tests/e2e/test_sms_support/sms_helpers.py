"""Helpers shared by the SecureSMS end-to-end tests: a scripted pair of keystores."""
import re

CODE_RE = re.compile(r"Your code for .*?: ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})")


class Party:
    def __init__(self, run_dossier, path, password="pw-" + "x" * 8, now=None):
        self.run_dossier = run_dossier
        self.path = str(path)
        self.password = password
        self.now = now

    def env(self, **extra):
        e = {"DOSSIER_SMS_PASSWORD": self.password, "DOSSIER_SMS_KDF_LOG2N": "10"}
        if self.now:
            e["DOSSIER_SMS_NOW"] = self.now
        e.update(extra)
        return e

    def sms(self, *args, check=True, input=None, **env):
        return self.run_dossier("sms", *args, "--keystore", self.path, env=self.env(**env), check=check, input=input)

    def init(self, account):
        return self.run_dossier("sms", "init", "--keystore", self.path, "--account", account, env=self.env())

    def add_later(self, name):
        out = self.sms("contact", "add", name, "--later").stdout
        return CODE_RE.search(out).group(1)

    def add_with(self, name, code):
        out = self.sms("contact", "add", name, DOSSIER_SMS_CODE=code).stdout
        return CODE_RE.search(out).group(1)

    def encrypt(self, name, text):
        return self.sms("encrypt", name, input=text).stdout.rstrip("\n")

    def decrypt(self, name, message, check=True):
        return self.sms("decrypt", name, input=message, check=check)


def make_pair(run_dossier, tmp_path):
    """Alice and Bob, connected; returns (alice, bob, code_alice, code_bob)."""
    alice = Party(run_dossier, tmp_path / "alice.keystore", password="alice-pass-1")
    bob = Party(run_dossier, tmp_path / "bob.keystore", password="bob-pass-2")
    alice.init("alice")
    bob.init("bob")
    code_a = alice.add_later("Bob")
    code_b = bob.add_with("Alice", code_a)
    again = alice.add_with("Bob", code_b)
    assert again == code_a
    return alice, bob, code_a, code_b
