"""Re-implements docs/securesms-keystore.md (envelope, scrypt → verifier and key, AES-256-GCM
payload with its associated data, bounds, lockout, passwd, temporary leftovers) from the
doc alone (doc_sms_impl.py) and checks dossier's keystore file against it — both
reading what dossier wrote and making dossier read a keystore written here.
"""
import base64
import datetime
import json
import os
import pathlib
import re
import stat
import time
import unicodedata

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import doc_sms_impl as s
from doc_sms_driver import PASSWORD, Dossier, alice, pair  # noqa: F401 (fixtures)

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def envelope(d):
    return json.loads(d.keystore.read_text())


def sorted_everywhere(pairs):
    keys = [k for k, _ in pairs]
    assert keys == sorted(keys), keys
    return dict(pairs)


def test_envelope_and_payload_are_as_documented(pair):
    alice, peer = pair
    alice.decrypt("Pat", peer.chain.send("hi"))
    raw = alice.keystore.read_bytes()
    assert raw.endswith(b"\n") and b"\n  " in raw, "pretty-printed, final newline"
    assert stat.S_IMODE(os.stat(alice.keystore).st_mode) == 0o600
    env = json.loads(raw.decode("utf-8"), object_pairs_hook=sorted_everywhere)
    assert env["format"] == "securesms-keystore" and env["version"] == 1
    kdf = env["kdf"]
    assert (kdf["algorithm"], kdf["log2n"], kdf["r"], kdf["p"]) == ("scrypt", 10, 8, 1)
    salt = base64.b64decode(kdf["salt"])
    assert len(salt) == 16
    assert env["lockout"] == {"failures": 0, "max_failures": 3, "lock_seconds": 300}
    verifier, key, aad = s.keystore_keys(env, PASSWORD)
    alice.remember(verifier, key)
    assert base64.b64decode(env["verifier"]) == verifier
    assert aad == b"securesms-keystore/1 scrypt 10 8 1 " + salt and len(aad) == 35 + 16
    blob = base64.b64decode(env["payload"])
    payload = json.loads(AESGCM(key).decrypt(blob[:12], blob[12:], aad))
    with pytest.raises(InvalidTag):  # the salt's raw bytes, not its base64 text
        AESGCM(key).decrypt(blob[:12], blob[12:], aad[:35] + kdf["salt"].encode())
    assert payload["account"] == "alice" and ISO_Z.match(payload["created_at"])
    assert payload.get("password_changed_at") is None
    (c,) = payload["contacts"]
    for field in ("added_at", "last_received_at"):
        assert ISO_Z.match(c[field])
    assert (c["sent_count"], c["received_count"], c["discarded_keys"]) == (0, 1, 0)
    assert None not in c.values(), "absent optional values are absent keys, not null"
    lock = alice.keystore.parent / (alice.keystore.name + ".lock")
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    # the last holder: "<pid> <command>\n" (keystore.md "One writer at a time")
    assert re.fullmatch(r"[1-9][0-9]* sms [a-z ]+\n", lock.read_text()), lock.read_text()


def test_doc_aad_example_byte_count():
    """keystore.md 'Password, verifier and key': the example's text and its length as the doc states them."""
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "securesms-keystore.md").read_text(encoding="utf-8")
    text = b"securesms-keystore/1 scrypt 17 8 1 "
    assert f"the {len(text)} bytes `{text.decode()}`" in doc
    assert f"({len(text) + 16} bytes in all)" in doc


def test_init_options_are_stored(dossier_bin, tmp_path):
    d = Dossier(dossier_bin, tmp_path)
    other = tmp_path / "other.keystore"
    d.run("init", "--keystore", str(other), "--lock-seconds", "77", "--kdf-log2n", "11", keystore=False)
    env = json.loads(other.read_text())
    assert env["kdf"]["log2n"] == 11 and env["lockout"]["lock_seconds"] == 77
    assert s.open_keystore(other, PASSWORD)[1]["account"] == "me", "--account defaults to me"


def write_own_keystore(path, payload, password, log2n=11, r=4, p=2, salt_len=32, extra=None):
    """A keystore written by this file, in its own JSON layout (compact, unsorted)."""
    salt = os.urandom(salt_len)
    env = {"version": 1, "format": "securesms-keystore", "payload": "",
           "lockout": {"max_failures": 5, "lock_seconds": 60, "failures": 0},
           "kdf": {"salt": base64.b64encode(salt).decode(), "p": p, "r": r, "log2n": log2n,
                   "algorithm": "scrypt"}}
    env.update(extra or {})
    verifier, key, aad = s.keystore_keys(env, password)
    nonce = os.urandom(12)
    env["verifier"] = base64.b64encode(verifier).decode()
    env["payload"] = base64.b64encode(nonce + AESGCM(key).encrypt(nonce, json.dumps(payload).encode(), aad)).decode()
    path.write_bytes(json.dumps(env, separators=(",", ":")).encode())
    os.chmod(path, 0o600)


def test_dossier_opens_a_keystore_written_from_the_doc(pair):
    alice, peer = pair
    payload = alice.payload()
    new_password = "Ünïcode-Pässwörd-4711-quokka"
    write_own_keystore(alice.keystore, payload, new_password)
    before = alice.keystore.read_bytes()
    nfd = {"DOSSIER_SMS_PASSWORD": unicodedata.normalize("NFD", new_password)}
    _, out, _ = alice.run("contact", "list", env=nfd)
    assert "Pat" in out
    assert alice.keystore.read_bytes() == before, "nothing to reset: the file's own bytes are kept"
    _, out, _ = alice.run("decrypt", "Pat", input=peer.chain.send("via my keystore"), env=nfd)
    assert out == "via my keystore\n"
    env, payload2 = s.open_keystore(alice.keystore, new_password)
    assert (env["kdf"]["log2n"], env["kdf"]["r"], env["kdf"]["p"]) == (11, 4, 2)
    assert env["lockout"]["max_failures"] == 5 and payload2["contacts"][0]["receive"]["next"] == 1


def test_locked_until_null_is_accepted(pair):
    alice, _ = pair
    write_own_keystore(alice.keystore, alice.payload(), PASSWORD,
                       extra={"lockout": {"max_failures": 3, "lock_seconds": 300, "failures": 0,
                                          "locked_until": None}})
    assert "Pat" in alice.run("contact", "list")[1]


@pytest.mark.parametrize("path,value,field", [
    (("kdf", "p"), 1000000, "kdf.p"), (("kdf", "log2n"), 21, "kdf.log2n"), (("kdf", "log2n"), 9, "kdf.log2n"),
    (("kdf", "r"), 0, "kdf.r"), (("kdf", "r"), 33, "kdf.r"), (("kdf", "algorithm"), "argon2", "kdf.algorithm"),
    (("kdf", "salt"), base64.b64encode(bytes(15)).decode(), "kdf.salt"),
    (("kdf", "salt"), base64.b64encode(bytes(65)).decode(), "kdf.salt"),
    (("lockout", "max_failures"), 0, "lockout.max_failures"), (("lockout", "max_failures"), 101, "max_failures"),
    (("lockout", "lock_seconds"), 604801, "lockout.lock_seconds"), (("lockout", "lock_seconds"), 0, "lock_seconds"),
    (("lockout", "failures"), 3, "lockout.failures"), (("verifier",), base64.b64encode(bytes(31)).decode(), "verifier"),
    (("kdf", "log2n"), "ten", "kdf.log2n is not valid"), (("kdf", "r"), None, "kdf.r is missing"),
    # keystore.md Bounds: a number beyond Int64 (or not whole) is refused without naming a field.
    (("kdf", "log2n"), 2 ** 70, "not a SecureSMS keystore"), (("lockout", "failures"), 2 ** 64,
                                                               "not a SecureSMS keystore"),
    (("kdf", "log2n"), 10.5, "not a SecureSMS keystore"),
])
def test_envelope_bounds_are_checked_first(alice, path, value, field):
    env = envelope(alice)
    target = env
    for k in path[:-1]:
        target = target[k]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    alice.keystore.write_text(json.dumps(env))
    t0 = time.monotonic()
    rc, _, err = alice.run("contact", "list", check=False)
    assert rc == 1 and field in err and alice.keystore.name in err
    if value in (2 ** 70, 2 ** 64, None, "ten"):
        assert "not a SecureSMS keystore" in err
    assert envelope(alice) == env and time.monotonic() - t0 < 5


@pytest.mark.parametrize("log2n,r,p", [(20, 32, 1), (17, 8, 16)])
def test_memory_and_work_bounds(alice, log2n, r, p):
    """memory 128·r·2^log2n ≤ 1 GiB; work p·r·2^log2n ≤ 2²³."""
    env = envelope(alice)
    env["kdf"].update(log2n=log2n, r=r, p=p)
    alice.keystore.write_text(json.dumps(env))
    rc, _, err = alice.run("contact", "list", check=False)
    assert rc == 1 and alice.keystore.name in err and "kdf" in err


def test_lockout_counts_tries_locks_and_lapses(dossier_bin, tmp_path):
    d = Dossier(dossier_bin, tmp_path)
    d.run("init", "--keystore", str(tmp_path / "l.keystore"), "--kdf-log2n", "10", "--lock-seconds", "3",
          keystore=False)
    d.keystore = tmp_path / "l.keystore"
    wrong = {"DOSSIER_SMS_PASSWORD": "Wrong-Horse-Battery-0000"}
    d.secrets.append(wrong["DOSSIER_SMS_PASSWORD"].encode())
    assert d.run("contact", "list", env=wrong, check=False)[0] == 1
    assert envelope(d)["lockout"]["failures"] == 1
    d.run("contact", "list")
    assert envelope(d)["lockout"]["failures"] == 0 and "locked_until" not in envelope(d)["lockout"]
    for _ in range(3):
        assert d.run("contact", "list", env=wrong, check=False)[0] == 1
    lock = envelope(d)["lockout"]
    assert lock["failures"] == 0 and ISO_Z.match(lock["locked_until"])
    until = datetime.datetime.strptime(lock["locked_until"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    assert abs((until - datetime.datetime.now(datetime.timezone.utc)).total_seconds() - 3) < 3
    before = d.keystore.read_bytes()
    assert d.run("contact", "list", check=False)[0] == 1, "locked: even the right password is refused"
    assert d.keystore.read_bytes() == before
    time.sleep(max(0.0, (until - datetime.datetime.now(datetime.timezone.utc)).total_seconds()) + 1.1)
    d.run("contact", "list")
    assert envelope(d)["lockout"] == {"failures": 0, "max_failures": 3, "lock_seconds": 3}
    assert not d.leaked()


def test_passwd_new_salt_keeps_cost_unless_asked(pair):
    alice, peer = pair
    old = envelope(alice)
    new = "Another-Strong-Passphrase-5521!"
    alice.secrets.append(new.encode())
    alice.run("passwd", env={"DOSSIER_SMS_NEW_PASSWORD": new})
    env, payload = s.open_keystore(alice.keystore, new)
    assert env["kdf"]["salt"] != old["kdf"]["salt"] and env["kdf"]["log2n"] == 10
    assert ISO_Z.match(payload["password_changed_at"])
    assert payload["contacts"] == s.open_keystore(alice.keystore, new)[1]["contacts"]
    with pytest.raises(AssertionError):
        s.open_keystore(alice.keystore, PASSWORD)
    alice.run("passwd", "--kdf-log2n", "11", env={"DOSSIER_SMS_PASSWORD": new, "DOSSIER_SMS_NEW_PASSWORD": PASSWORD})
    assert envelope(alice)["kdf"]["log2n"] == 11
    assert alice.decrypt("Pat", peer.chain.send("after passwd"))[1] == "after passwd"


def test_weak_password_refused_without_quoting_it(dossier_bin, tmp_path):
    d = Dossier(dossier_bin, tmp_path)
    weak = {"DOSSIER_SMS_PASSWORD": "password1"}
    rc, out, err = d.run("init", "--keystore", str(tmp_path / "w.keystore"), "--kdf-log2n", "10",
                         keystore=False, env=weak, check=False)
    assert rc == 1 and "password1" not in out + err and not (tmp_path / "w.keystore").exists()
    d.run("init", "--keystore", str(tmp_path / "w.keystore"), "--kdf-log2n", "10", "--allow-weak",
          keystore=False, env=weak)


def test_temporary_leftovers_are_removed_on_open(pair):
    alice, _ = pair
    folder, name = alice.keystore.parent, alice.keystore.name
    leftover = folder / f".{name}.4242.987654.tmp"
    unrelated = folder / f".{name}.abc.tmp"
    for f in (leftover, unrelated):
        f.write_bytes(alice.keystore.read_bytes())
    alice.run("contact", "list")
    assert not leftover.exists() and unrelated.exists()


def test_version1_contacts_and_the_counter_limit(pair):
    """protocol §4.4 (no key_agreement ⇒ warnings; pending_code ⇒ new exchange) and §2's
    counter range 0…118³−1, on a keystore payload written here."""
    alice, peer = pair
    payload = alice.payload()
    (c,) = payload["contacts"]
    del c["key_agreement"]
    c["send"]["next"] = 118 ** 3 - 1
    c["send"]["chain_key"] = base64.b64encode(peer.recv_ck0).decode()
    c["receive"].update(next=118 ** 3 - 3, chain_key=base64.b64encode(peer.send_ck0).decode())
    payload["contacts"].append({"name": "Old", "added_at": c["added_at"], "sent_count": 0, "received_count": 0,
                                "discarded_keys": 0, "pending_code": base64.b64encode(bytes(range(10))).decode()})
    write_own_keystore(alice.keystore, payload, PASSWORD)
    _, _, err = alice.run("contact", "list")
    assert "contact resync" in err and "Pat" in err
    msg, err = alice.encrypt("Pat", "the last one")
    assert "contact resync" in err and msg[:4] == "¥ààà"
    assert s.open_message(s.message_key(peer.recv_ck0), msg) == "the last one"
    rc, out, err = alice.run("encrypt", "Pat", "one more", check=False)
    assert rc == 1 and out == "" and alice.contact("Pat")["send"]["next"] == 118 ** 3 - 1 + 1
    late = s.seal(s.Chain(peer.send_ck0).key_at(2), 118 ** 3 - 1, "top counter")
    assert alice.decrypt("Pat", late)[1] == "top counter"
    assert [k["counter"] for k in alice.contact("Pat")["receive"]["skipped"]] == [118 ** 3 - 3, 118 ** 3 - 2]
    km = alice.key_message("Old")
    old = alice.contact("Old")
    assert "pending_code" not in old and s.key_message(
        s.raw_public(s.private_from_bytes(base64.b64decode(old["pending_key"])))) == km
    alice.remember(base64.b64decode(old["pending_key"]))
