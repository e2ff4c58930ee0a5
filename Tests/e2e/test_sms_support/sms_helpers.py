"""Helpers shared by the SecureSMS end-to-end tests: a scripted pair of keystores."""
import re

import sms_reference as ref

KEY_RE = re.compile(r"^(SecureSMS-key:\S{40})$", re.M)
NUMBER_RE = re.compile(r"Safety number: ([0-9 ]{47})")
STRONG = "plover quartz minnow 7 lantern"   # scores 4 of 4


class Party:
    def __init__(self, run_dossier, path, password=STRONG, now=None):
        self.run_dossier = run_dossier
        self.path = str(path)
        self.password = password
        self.now = now

    def env(self, **extra):
        e = {"DOSSIER_SMS_PASSWORD": self.password}
        if self.now:
            e["DOSSIER_SMS_NOW"] = self.now
        e.update(extra)
        return e

    def sms(self, *args, check=True, input=None, **env):
        return self.run_dossier("sms", *args, "--keystore", self.path, env=self.env(**env), check=check, input=input)

    def init(self, account, *extra):
        # the smallest scrypt cost, by the explicit option (the file records it)
        return self.run_dossier("sms", "init", "--keystore", self.path, "--account", account, "--kdf-log2n", "10",
                                *extra, env=self.env())

    def add_later(self, name, command="add"):
        """Opens an exchange; returns this party's key message."""
        out = self.sms("contact", command, name, "--later").stdout
        return KEY_RE.search(out).group(1)

    def finish(self, name, their_key, number, command="add", check=True):
        return self.sms("contact", command, name, "--key", their_key, "--confirm", number, check=check)

    def encrypt(self, name, text):
        return self.sms("encrypt", name, input=text).stdout.rstrip("\n")

    def decrypt(self, name, message, check=True):
        return self.sms("decrypt", name, input=message, check=check)


def connect(a, a_name_for_b, b, b_name_for_a, command="add"):
    """Runs the key exchange between two keystores; returns (key message a, key message b)."""
    ka = a.add_later(b_name_for_a, command)
    kb = b.add_later(a_name_for_b, command)
    # the safety number both compare, computed independently (Python reference)
    number = ref.safety_number(ref.parse_key_message(ka), ref.parse_key_message(kb))
    out_b = b.finish(a_name_for_b, ka, number, command).stdout
    out_a = a.finish(b_name_for_a, kb, number, command).stdout
    assert NUMBER_RE.search(out_a).group(1) == NUMBER_RE.search(out_b).group(1) == number
    return ka, kb


def make_pair(run_dossier, tmp_path):
    """Alice and Bob, connected; returns (alice, bob, key message of alice, key message of bob)."""
    alice = Party(run_dossier, tmp_path / "alice.keystore")
    bob = Party(run_dossier, tmp_path / "bob.keystore", password=STRONG + " b")
    alice.init("alice")
    bob.init("bob")
    ka, kb = connect(alice, "Alice", bob, "Bob")
    return alice, bob, ka, kb
