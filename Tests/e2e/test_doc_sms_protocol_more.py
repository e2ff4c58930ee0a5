"""Continues test_doc_sms_protocol.py: the refusals of docs/securesms-protocol.md §2, §3,
§4.1, §4.3 and §6 (tampered, replayed, truncated, foreign, badly padded messages; bad key
messages), resynchronisation (§6), all checked against the independent client in
doc_sms_impl.py and the keystore payload as docs/securesms-keystore.md defines it.
"""
import base64
import os
import subprocess

import pytest

import doc_sms_impl as s
from doc_sms_driver import PASSWORD, Peer, alice, b64, pair  # noqa: F401 (fixtures)

VERIFY_FAILED = "not from this contact, or damaged (verification failed; nothing was changed)"


def refused(alice, message, expected):
    """Decrypting `message` fails with `expected` and leaves the keystore's bytes alone."""
    before = alice.keystore.read_bytes()
    rc, out, err = alice.decrypt("Pat", message, check=False)
    assert rc == 1 and out == "", err
    assert expected in err
    assert alice.keystore.read_bytes() == before, "a failed decryption writes nothing"
    return err


def other_char(ch):
    return s.SAFE[(s.SAFE_INDEX[ch] + 1) % 118]


def test_tampered_messages_fail_verification_and_change_nothing(pair):
    alice, peer = pair
    msg = peer.chain.send("pay 20 to account 7")
    for pos in (4, 80, 125, 151, 159):  # ciphertext digits and the tag's digits
        refused(alice, msg[:pos] + other_char(msg[pos]) + msg[pos + 1:], VERIFY_FAILED)
    # a changed counter steps the chain to another key: damage, not a skipped key
    refused(alice, msg[:3] + other_char(msg[3]) + msg[4:], VERIFY_FAILED)
    c = alice.contact("Pat")
    assert c["receive"]["next"] == 0 and c["receive"].get("skipped", []) == []
    assert alice.decrypt("Pat", msg)[1] == "pay 20 to account 7"


def test_message_of_another_contact_fails_verification(alice):
    pat, quinn = Peer(alice, "Pat"), Peer(alice, "Quinn")
    refused(alice, quinn.chain.send("for Quinn's chain"), VERIFY_FAILED)
    assert alice.decrypt("Quinn", quinn.message_at(0, "for Quinn's chain"))[1] == "for Quinn's chain"
    assert pat.receiver.receive(alice.encrypt("Pat", "ok")[0]) == "ok"


def test_replayed_message_is_refused_as_replayed(pair):
    alice, peer = pair
    msg = peer.chain.send("once")
    assert alice.decrypt("Pat", msg)[1] == "once"
    refused(alice, msg, "message #0 was already decrypted or its key was discarded; "
                        "a replayed message is rejected")
    refused(alice, " ".join(msg[i:i + 20] for i in range(0, 160, 20)), "message #0 was already decrypted")


def test_body_value_too_large_is_damage(pair):
    """§2: a body ≥ 2^1072 cannot come from a sender: verification failure."""
    alice, peer = pair
    msg = peer.chain.send("x")
    big = msg[:4] + s.to_digits(2 ** 1072, 156)
    refused(alice, big, VERIFY_FAILED)
    refused(alice, msg[:4] + "à" * 156, VERIFY_FAILED)


@pytest.mark.parametrize("version,suffix", [(3, False), (117, False), (1, True), (0, True)])
def test_other_versions_are_refused_by_name(pair, version, suffix):
    alice, peer = pair
    msg = s.seal_block(s.message_key(peer.send_ck0), 0, s.pack(s.pad(s.to_septets("v"))), version=version)
    err = refused(alice, msg, f"message format version {version} is not supported (this program speaks version 2)")
    assert ("; the sender runs an older dossier and must update" in err) == suffix


@pytest.mark.parametrize("cut", ["short", "long", "at", "underscore", "space-only", "not-gsm", "quote"])
def test_not_the_layout_is_named(pair, cut):
    """§2 reading: NFC, drop whitespace, exactly 160 characters of the safe alphabet."""
    alice, peer = pair
    msg = peer.chain.send("layout")
    bad = {"short": msg[:159], "long": msg + msg[5], "at": msg[:50] + "@" + msg[51:],
           "underscore": msg[:50] + "_" + msg[51:], "space-only": " " * 160,
           "not-gsm": msg[:50] + "á" + msg[51:], "quote": msg[:9] + '"' + msg[10:]}[cut]
    err = refused(alice, bad, "not a SecureSMS message: ")
    if cut in ("at", "not-gsm"):
        assert bad[50] not in err.split(":", 1)[1], "the error names the position, never the character"


def test_whitespace_and_nfc_in_the_paste_are_ignored(pair):
    alice, peer = pair
    msg = peer.chain.send("wrapped by an app")
    pasted = "\n".join(msg[i:i + 33] for i in range(0, 160, 33)) + " \t\u00a0\u2003"
    assert alice.decrypt("Pat", "  " + pasted + "\r\n")[1] == "wrapped by an app"


@pytest.mark.parametrize("tail", [[0x1B, 0x01], [0x1B, 0x00, 0x00, 0x20], [0x1B, 0x0A], [0x1B, 0x1B]])
def test_verified_but_non_canonical_padding_is_refused(pair, tail):
    """§3/§6: after verification, anything but zeros after the terminator is refused."""
    alice, peer = pair
    septets = s.to_septets("hi") + tail
    septets += [0] * (144 - len(septets))
    msg = s.seal_block(s.message_key(peer.send_ck0), 0, s.pack(septets))
    refused(alice, msg, "the decrypted message has malformed padding (sender bug)")
    assert alice.contact("Pat")["receive"]["next"] == 0


@pytest.mark.parametrize("text", ["a" * 143, "a" * 142 + "€", "b" * 141 + "~a", "end with zeros@@", "@" * 144, "@"])
def test_canonical_edge_blocks_decrypt(pair, text):
    """§3: a 143-septet text ends in a lone ESC; 144 septets have no terminator."""
    alice, peer = pair
    assert alice.decrypt("Pat", peer.chain.send(text))[1] == text
    assert peer.receiver.receive(alice.encrypt("Pat", text)[0]) == text


def start_quinn(alice):
    """A pending contact Quinn in alice's keystore: (her key message, her pending private key)."""
    km = alice.key_message("Quinn")
    priv = s.private_from_bytes(base64.b64decode(alice.contact("Quinn")["pending_key"]))
    alice.remember(s.raw_private(priv))
    assert s.parse_key_message(km) == s.raw_public(priv)
    return km, priv


@pytest.mark.parametrize("pub", [bytes(32), b"\x01" + bytes(31),
                                 bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")])
def test_low_order_key_refused_before_a_safety_number(alice, pub):
    """§4.1: refused at once, when the key message is read."""
    start_quinn(alice)
    before = alice.contact("Quinn")
    rc, out, err = alice.run("contact", "add", "Quinn", "--key", s.key_message(pub), check=False)
    assert rc == 1 and "Safety number" not in out + err
    assert "not a usable SecureSMS key message: the key is not usable (a low-order point)" in err
    assert alice.contact("Quinn") == before


@pytest.mark.parametrize("kind", ["own", "damaged", "too-large", "prefix-case", "39-digits"])
def test_bad_key_messages_are_refused(alice, kind):
    own, _ = start_quinn(alice)
    other = s.key_message(s.raw_public(s.new_private()))
    i = len(s.KEY_PREFIX) + 20
    damaged = other[:i] + other_char(other[i]) + other[i + 1:]
    if kind == "damaged":
        with pytest.raises(AssertionError):
            s.parse_key_message(damaged)  # our own reading catches it too (else pick another digit)
    bad = {"own": own, "damaged": damaged, "too-large": s.KEY_PREFIX + "à" * 40,
           "prefix-case": "securesms-key:" + other[len(s.KEY_PREFIX):], "39-digits": other[:-1]}[kind]
    before = alice.contact("Quinn")
    rc, out, _ = alice.run("contact", "add", "Quinn", "--key", bad, "--confirm", "0" * 40, check=False)
    assert rc == 1 and "Safety number" not in out
    assert alice.contact("Quinn") == before


def test_safety_number_mismatch_agrees_nothing_and_separators_are_ignored(alice):
    """§4.3: only ASCII digits are compared; a mismatch stores nothing."""
    km, priv = start_quinn(alice)
    peer_priv = s.new_private()
    peer_pub = s.raw_public(peer_priv)
    number = s.safety_number(peer_pub, s.raw_public(priv))
    before = alice.keystore.read_bytes()
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    rc, out, err = alice.run("contact", "add", "Quinn", "--key", " " + s.key_message(peer_pub) + "\n",
                             "--confirm", wrong, check=False)
    assert rc == 1 and "the safety numbers differ" in out + err
    assert f"Safety number: {number}" in out
    assert alice.keystore.read_bytes() == before and "pending_key" in alice.contact("Quinn")
    alice.run("contact", "add", "Quinn", "--key", s.key_message(peer_pub), "--confirm", number.replace(" ", "-"))
    c = alice.contact("Quinn")
    send, recv = s.initial_chains(peer_priv, s.raw_public(priv))
    assert c["send"]["chain_key"] == b64(recv) and c["receive"]["chain_key"] == b64(send)
    assert alice.key_message("Zed") != km, "each exchange has its own key pair"


def test_resync_restarts_chains_and_old_chains_work_until_it_completes(pair):
    """§6 Resynchronising: new key pairs, new number, chains at 0, skipped keys erased."""
    alice, peer = pair
    old = [peer.chain.send(f"old {n}") for n in range(3)]
    assert alice.decrypt("Pat", old[1])[1] == "old 1"
    assert [k["counter"] for k in alice.contact("Pat")["receive"]["skipped"]] == [0]
    resync_km = alice.key_message("Pat", "resync")
    assert resync_km != s.key_message(peer.their_pub)
    new_priv = s.private_from_bytes(base64.b64decode(alice.contact("Pat")["pending_key"]))
    alice.remember(s.raw_private(new_priv))
    assert s.raw_public(new_priv) == s.parse_key_message(resync_km)
    assert alice.decrypt("Pat", old[2])[1] == "old 2", "old chains keep working until it completes"
    assert peer.receiver.receive(alice.encrypt("Pat", "still old")[0]) == "still old"
    fresh = Peer(alice, "Pat", verb="resync")
    assert fresh.their_pub == s.raw_public(new_priv)
    assert f"Safety number: {fresh.number}" in fresh.shown and fresh.number != peer.number
    c = alice.contact("Pat")
    assert "pending_key" not in c and c["key_agreement"] == "x25519" and c.get("resynced_at")
    assert c["send"] == {"chain_key": b64(fresh.recv_ck0), "next": 0}
    assert c["receive"]["chain_key"] == b64(fresh.send_ck0) and c["receive"]["next"] == 0
    assert c["receive"].get("skipped", []) == []
    refused(alice, old[0], VERIFY_FAILED)
    assert alice.decrypt("Pat", fresh.chain.send("new 0"))[1] == "new 0"
    msg, _ = alice.encrypt("Pat", "new back")
    assert s.from_digits(msg[1:4]) == 0 and fresh.receiver.receive(msg) == "new back"


def test_failures_at_a_skipped_counter_keep_the_key(pair):
    """§6 step 1 + 'a failure of any kind changes no state'."""
    alice, peer = pair
    msgs = [peer.chain.send(f"m{n}") for n in range(3)]
    assert alice.decrypt("Pat", msgs[2])[1] == "m2"
    refused(alice, msgs[0][:100] + other_char(msgs[0][100]) + msgs[0][101:], VERIFY_FAILED)
    septets = s.to_septets("x") + [0x1B, 0x05] + [0] * 141
    refused(alice, s.seal_block(s.Chain(peer.send_ck0).key_at(1), 1, s.pack(septets)), "malformed padding")
    assert [k["counter"] for k in alice.contact("Pat")["receive"]["skipped"]] == [0, 1]
    assert [alice.decrypt("Pat", msgs[n])[1] for n in (1, 0)] == ["m1", "m0"]


def test_max_skip_is_counted_from_next(pair):
    alice, peer = pair
    for n in range(5):
        alice.decrypt("Pat", peer.chain.send(f"m{n}"))
    refused(alice, peer.message_at(106, "far"), "message #106 is 101 ahead of the next expected #5; at most 100 "
                                               "missing messages are tolerated")
    assert alice.decrypt("Pat", peer.message_at(105, "edge"))[1] == "edge"


def test_parallel_encrypts_get_distinct_counters(pair):
    """keystore.md 'One writer at a time'."""
    alice, peer = pair
    env = dict(os.environ, DOSSIER_SMS_PASSWORD=PASSWORD)
    procs = [subprocess.Popen([alice.binary, "sms", "encrypt", "Pat", f"p{i}", "--keystore", str(alice.keystore)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(4)]
    outs = [p.communicate(timeout=60) for p in procs]
    alice.outputs += [o + e for o, e in outs]
    msgs = [o.decode().strip() for o, _ in outs]
    assert sorted(s.from_digits(m[1:4]) for m in msgs) == [0, 1, 2, 3]
    assert sorted(peer.receiver.receive(m) for m in msgs) == ["p0", "p1", "p2", "p3"]
    assert alice.contact("Pat")["send"]["next"] == 4


def test_resync_with_a_wrong_number_keeps_the_old_chains(pair):
    """§4.3: on a mismatch the contact stays active on the old chains; nothing is stored."""
    alice, peer = pair
    km = alice.key_message("Pat", "resync")
    new_priv = s.new_private()
    number = s.safety_number(s.raw_public(new_priv), s.parse_key_message(km))
    before = alice.keystore.read_bytes()
    wrong = "1" + number[1:] if number[0] != "1" else "2" + number[1:]
    rc, out, err = alice.run("contact", "resync", "Pat", "--key", s.key_message(s.raw_public(new_priv)),
                             "--confirm", wrong, check=False)
    assert rc == 1 and "the safety numbers differ" in out + err and alice.keystore.read_bytes() == before
    assert alice.decrypt("Pat", peer.chain.send("old chain"))[1] == "old chain"
    assert peer.receiver.receive(alice.encrypt("Pat", "old back")[0]) == "old back"
    assert alice.key_message("Pat", "resync") == km, "the open exchange keeps its key message"


def test_inputs_from_environment_and_file_descriptors(alice):
    """cli.md: password from DOSSIER_SMS_PASSWORD_FD (first line), key and number from DOSSIER_SMS_KEY/CONFIRM;
    a run with a key but no number agrees nothing and keeps its key message."""
    priv = s.new_private()
    mine = s.key_message(s.raw_public(priv))
    rc, out, _ = alice.run("contact", "add", "Rae", "--key", mine)
    (theirs,) = [ln for ln in out.splitlines() if ln.startswith(s.KEY_PREFIX)]
    number = s.safety_number(s.raw_public(priv), s.parse_key_message(theirs))
    assert f"Safety number: {number}" in out and "pending_key" in alice.contact("Rae")
    r, w = os.pipe()
    os.write(w, (PASSWORD + "\nnot the password\n").encode())
    os.close(w)
    env = dict(os.environ, DOSSIER_SMS_PASSWORD_FD=str(r), DOSSIER_SMS_KEY=mine, DOSSIER_SMS_CONFIRM=number)
    env.pop("DOSSIER_SMS_PASSWORD", None)
    proc = subprocess.run([alice.binary, "sms", "contact", "add", "Rae", "--keystore", str(alice.keystore)],
                          env=env, pass_fds=(r,), capture_output=True, timeout=60)
    os.close(r)
    alice.outputs.append(proc.stdout + proc.stderr)
    assert proc.returncode == 0 and theirs in proc.stdout.decode()
    c = alice.contact("Rae")
    assert "pending_key" not in c and c["key_agreement"] == "x25519"
    assert c["receive"]["chain_key"] == b64(s.initial_chains(priv, s.parse_key_message(theirs))[0])
