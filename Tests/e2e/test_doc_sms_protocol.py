"""Re-implements docs/securesms-protocol.md (alphabets §1, layout §2, padding §3, key
messages, chains and safety number §4, SIV encryption §5, receiving §6) and the payload
of docs/securesms-keystore.md from the docs alone (doc_sms_impl.py), then checks that
this second client and `dossier sms` (docs/securesms-cli.md) interoperate both ways.

More of the same (refusals, resync, the keystore envelope) is in
test_doc_sms_protocol_more.py.
"""
import base64
import fcntl
import hashlib
import json
import pathlib
import re
import unicodedata

import pytest

import doc_sms_impl as s
from doc_sms_driver import Dossier, Peer, alice, b64, pair  # noqa: F401 (fixtures)

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def doc_vectors():
    text = (DOCS / "securesms-protocol.md").read_text()
    return json.loads(re.search(r"<!-- vectors:begin -->\n```json\n(.*?)\n```", text, re.S).group(1))


def test_doc_vectors_agree_with_the_doc_text():
    """§9's vectors, recomputed from §1–§5 (a check of the doc against itself)."""
    v = doc_vectors()
    privs = {}
    for k in v["keys"]:
        priv = s.private_from_bytes(hashlib.sha256(b"vector key " + k["name"].encode()).digest())
        pub = s.raw_public(priv)
        assert pub.hex() == k["public"]
        assert s.key_message(pub) == k["key_message"] and len(k["key_message"]) == 54
        assert s.safety_half(pub) == k["safety_half"]
        privs[k["name"]] = priv
    pub_a, pub_b = s.raw_public(privs["A"]), s.raw_public(privs["B"])
    assert s.safety_number(pub_a, pub_b) == s.safety_number(pub_b, pub_a) == v["safety_number"]
    send, recv = s.initial_chains(privs["A"], pub_b)
    assert (send.hex(), recv.hex()) == (v["chains"]["A_to_B"], v["chains"]["B_to_A"])
    assert s.initial_chains(privs["B"], pub_a) == (recv, send)
    for m in v["messages"]:
        mk = s.Chain(send if m["from"] == "A" else recv).key_at(m["counter"])
        assert mk.hex() == m["message_key"]
        assert s.seal(mk, m["counter"], m["plaintext"]) == m["message"]
        assert len(s.to_septets(m["plaintext"])) == m["septets"]
    assert s.pack([0x7F, 0x01] + [0] * 142)[:2] == bytes.fromhex("fe04")


def test_safe_alphabet_is_the_documented_one(alice):
    """§1: 118 characters in GSM code order, £ first, à last; one SMS of 160."""
    _, out, _ = alice.run("alphabet", "--json", keystore=False)
    tables = json.loads(out)
    assert [chr(int(u[2:], 16)) for u in tables["safe"]] == s.SAFE
    assert (len(s.SAFE), s.SAFE[0], s.SAFE[1], s.SAFE[2], s.SAFE[117]) == (118, "£", "$", "¥", "à")
    assert tables["max_plain_septets"] == 144 and tables["message_length"] == 160
    ext = {chr(int(e["scalar"][2:], 16)): e["code"] for e in tables["extension"]}
    assert ext == s.EXTENSION


def test_key_exchange_agrees_the_documented_chains(alice):
    """§4.1–4.3 and the keystore payload: pending key, then x25519 chains at 0."""
    key_msg = alice.key_message("Pat")
    assert len(key_msg) == 54
    pending = alice.contact("Pat")
    assert set(pending) & {"send", "receive"} == set()
    priv = s.private_from_bytes(base64.b64decode(pending["pending_key"]))
    alice.remember(s.raw_private(priv))
    assert s.key_message(s.raw_public(priv)) == key_msg
    assert alice.key_message("Pat") == key_msg, "the key message stays the same until the exchange completes"
    peer = Peer(alice)
    assert f"Safety number: {peer.number}" in peer.shown
    assert s.initial_chains(priv, peer.pub) == (peer.recv_ck0, peer.send_ck0)
    c = alice.contact("Pat")
    assert "pending_key" not in c and c["key_agreement"] == "x25519"
    assert c["send"] == {"chain_key": b64(peer.recv_ck0), "next": 0}
    assert c["receive"]["chain_key"] == b64(peer.send_ck0) and c["receive"]["next"] == 0
    assert c["receive"].get("skipped", []) == []


def test_python_messages_decrypt_in_dossier(pair):
    alice, peer = pair
    texts = ["Hello Alice! Meet at 6.", "Price: €20 [cash] {x} ~ a|b \\ ^", "trailing spaces   ",
             "two\nlines\rand CR", "Über Ñoño ΔΦΓΛΩΠΨΣΘΞ @£$¥", ""]
    for n, text in enumerate(texts):
        msg = peer.chain.send(text)
        assert s.split_message(msg)[1] == n
        assert alice.decrypt("Pat", msg)[1] == text
    c = alice.contact("Pat")
    assert c["receive"]["next"] == len(texts) and c["received_count"] == len(texts)
    chain = s.Chain(peer.send_ck0)
    assert c["receive"]["chain_key"] == b64(peer.chain_keys(chain.ck, len(texts) + 1)[-1])
    assert "last_received_at" in c


def test_input_normalisation_c_cedilla_and_nfc(pair):
    """§1: ç is accepted as 0x09 and decrypts as Ç; text is NFC-normalised."""
    alice, peer = pair
    msg, _ = alice.encrypt("Pat", "ça e\u0301")
    assert peer.receiver.receive(msg) == "Ça é"
    decomposed = unicodedata.normalize("NFD", peer.chain.send("café"))
    assert alice.decrypt("Pat", decomposed)[1] == "café"


def test_dossier_messages_decrypt_in_python(pair):
    alice, peer = pair
    texts = ["Got it.", "x" * 144, "€" * 72, "tab-free text with ç", "CR\r and LF\n  ", "@@ @"]
    for n, text in enumerate(texts):
        msg, err = alice.encrypt("Pat", text)
        assert len(msg) == 160 and msg[0] == "¥" and s.from_digits(msg[1:4]) == n
        used = len(s.to_septets(text))
        assert f"{used} of 144 septets used, {144 - used} left; message #{n} to Pat" in err
        assert peer.receiver.receive(msg) == unicodedata.normalize("NFC", text).replace("ç", "Ç")
        assert alice.run("count", text, keystore=False)[1].strip() == f"{used} septets used, {144 - used} left (of 144)"
    c = alice.contact("Pat")
    assert c["send"]["next"] == len(texts) and c["sent_count"] == len(texts)
    assert c["send"]["chain_key"] == b64(peer.chain_keys(peer.recv_ck0, len(texts) + 1)[-1])


def test_encrypt_via_stdin_drops_one_line_end(pair):
    alice, peer = pair
    _, out, _ = alice.run("encrypt", "Pat", input="line one\n\n")
    assert peer.receiver.receive(out.strip()) == "line one\n"


@pytest.mark.parametrize("text,ok", [
    ("a" * 144, True), ("a" * 145, False),
    ("€" * 72, True), ("€" * 72 + "a", False),
    ("a" * 142 + "{", True), ("a" * 143 + "{", False),
    ("ç" * 144, True), ("a" * 10 + "á", False), ("a" * 10 + "😀", False),
    ("a" * 10 + "\x1b", False), ("a" * 10 + "\x0c", False), ("e\u0301" * 144, True), ("a" * 10 + "\u00a0", False),
], ids=lambda v: repr(v)[:24] if isinstance(v, str) else str(v))
def test_one_sms_limits(pair, text, ok):
    """§1/§3: at most 144 septets; extension characters cost two; non-GSM refused by position."""
    alice, peer = pair
    rc, out, err = alice.run("encrypt", "Pat", text, check=False)
    crc, cout, cerr = alice.run("count", text, keystore=False, check=False)
    text = unicodedata.normalize("NFC", text)
    if ok:
        assert rc == 0 and crc == 0
        assert peer.receiver.receive(out.strip()) == text.replace("ç", "Ç")
        assert cout.strip() == "144 septets used, 0 left (of 144)"
        assert alice.decrypt("Pat", peer.chain.send(text))[1] == text.replace("ç", "Ç")
    else:
        assert rc == 1 and crc == 1 and out == ""
        if text[-1] not in "a{\x1b\x0c":
            assert text[-1] not in err + cerr, "the error must not quote the character"
            assert "11" in err and "11" in cerr, "the error names the position"
        assert alice.contact("Pat")["send"]["next"] == 0


def test_out_of_order_skipped_keys_and_replay(pair):
    """§6: reorder, kept skipped keys, each used once, replays refused by name."""
    alice, peer = pair
    msgs = [peer.chain.send(f"message {n}") for n in range(5)]
    for n in (3, 0):
        assert alice.decrypt("Pat", msgs[n])[1] == f"message {n}"
    c = alice.contact("Pat")
    keys = [s.message_key(ck) for ck in peer.chain_keys(peer.send_ck0, 5)]
    assert c["receive"]["next"] == 4
    assert c["receive"]["skipped"] == [{"counter": n, "key": b64(keys[n])} for n in (1, 2)]
    for n in (3, 0):
        rc, out, err = alice.decrypt("Pat", msgs[n], check=False)
        assert rc == 1 and out == ""
        assert (f"message #{n} was already decrypted or its key was discarded; "
                "a replayed message is rejected") in err
    for n in (4, 1, 2):
        assert alice.decrypt("Pat", msgs[n])[1] == f"message {n}"
    c = alice.contact("Pat")
    assert c["receive"]["next"] == 5 and c["receive"].get("skipped", []) == []


def test_max_skip_and_max_stored(pair):
    """§6: n − next > 100 is refused; more than 100 kept keys drop the oldest."""
    alice, peer = pair
    rc, _, err = alice.decrypt("Pat", peer.message_at(101, "too far"), check=False)
    assert rc == 1
    assert ("message #101 is 101 ahead of the next expected #0; at most 100 missing messages are "
            "tolerated — resynchronise with this contact") in err
    assert alice.decrypt("Pat", peer.message_at(100, "just in reach"))[1] == "just in reach"
    assert len(alice.contact("Pat")["receive"]["skipped"]) == 100
    assert alice.decrypt("Pat", peer.message_at(201, "again"))[1] == "again"
    c = alice.contact("Pat")
    assert [k["counter"] for k in c["receive"]["skipped"]] == list(range(101, 201))
    assert c["discarded_keys"] == 100 and c["receive"]["next"] == 202
    rc, _, err = alice.decrypt("Pat", peer.message_at(99, "discarded"), check=False)
    assert rc == 1 and "message #99 was already decrypted or its key was discarded" in err
    assert alice.decrypt("Pat", peer.message_at(150, "kept"))[1] == "kept"


def test_python_receiver_handles_dossier_reordering(pair):
    alice, peer = pair
    msgs = [alice.encrypt("Pat", f"n{n}")[0] for n in range(4)]
    assert [peer.receiver.receive(msgs[n]) for n in (2, 0, 3, 1)] == ["n2", "n0", "n3", "n1"]


def test_paste_is_nfc_normalised_before_the_alphabet_check(pair):
    """§2 reading: NFC first, so the Ohm sign (U+2126) and Ångström sign (U+212B) read as Ω and Å."""
    alice, peer = pair
    n = next(i for i in range(500) if set(peer.message_at(0, f"t{i}")) & {"Ω", "Å"})
    msg = peer.message_at(0, f"t{n}")
    pasted = msg.replace("Ω", "\u2126").replace("Å", "\u212b")
    assert pasted != msg and alice.decrypt("Pat", pasted)[1] == f"t{n}"


def test_key_message_is_read_after_nfc_and_whitespace_removal(alice):
    km = alice.key_message("Quinn")
    their = s.parse_key_message(km)
    priv = s.new_private()
    mine = s.key_message(s.raw_public(priv))
    pasted = unicodedata.normalize("NFD", mine[:30] + "\n  " + mine[30:] + "\u00a0")
    number = s.safety_number(s.raw_public(priv), their)
    alice.run("contact", "add", "Quinn", "--key", pasted, "--confirm", number.replace(" ", ""))
    msg, _ = alice.encrypt("Quinn", "after a wrapped key")
    assert s.Receiver(s.initial_chains(priv, their)[1]).receive(msg) == "after a wrapped key"


def test_quiet_contact_add_prints_key_message_and_number_only(alice):
    rc, out, err = alice.run("contact", "add", "Quinn", "--later", "-q")
    assert out.splitlines() == [out.strip()] and out.startswith(s.KEY_PREFIX) and err == ""
    their = s.parse_key_message(out.strip())
    priv = s.new_private()
    number = s.safety_number(s.raw_public(priv), their)
    _, out, err = alice.run("contact", "add", "Quinn", "--key", s.key_message(s.raw_public(priv)),
                            "--confirm", number, "-q")
    assert out.splitlines() == [s.key_message(their), f"Safety number: {number}"] and err == ""
    msg = alice.run("encrypt", "Quinn", "quiet", "-q")[1]
    assert len(msg.strip()) == 160 and msg.count("\n") == 1


def test_normalize_maps_what_phones_type(pair):
    alice, peer = pair
    _, out, err = alice.run("encrypt", "Pat", "It\u2019s \u2026 \u201cok\u201d \u2013 yes\u00a0no", "--normalize")
    assert peer.receiver.receive(out.strip()) == "It's ... \"ok\" - yes no"
    assert "--normalize changed 6 characters" in err and "\u2019 (U+2019) \u2192 '" in err


def test_rename_and_remove_keep_and_drop_the_keys(pair):
    alice, peer = pair
    alice.run("contact", "edit", "Pat", "--name", "Patricia")
    assert alice.decrypt("Patricia", peer.chain.send("renamed"))[1] == "renamed"
    alice.run("contact", "rm", "Patricia")
    assert alice.payload()["contacts"] == []
    assert alice.decrypt("Patricia", peer.chain.send("gone"), check=False)[0] == 1


def test_keystore_lock_is_a_flock_on_the_side_file(pair):
    """keystore.md 'One writer at a time'."""
    alice, peer = pair
    with open(str(alice.keystore) + ".lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        rc, _, err = alice.run("encrypt", "Pat", "x", "--lock-wait", "0", check=False)
        assert rc == 1 and "is in use by another `dossier sms` command" in err
    assert alice.contact("Pat")["send"]["next"] == 0
    assert peer.receiver.receive(alice.encrypt("Pat", "after the lock")[0]) == "after the lock"


def test_keystore_location_precedence(dossier_bin, tmp_path):
    """keystore.md: --keystore, else $DOSSIER_SMS_KEYSTORE, else $XDG_DATA_HOME/dossier/sms.keystore (absolute,
    and no $HOME/.dossier/sms.keystore), else $HOME/.dossier/sms.keystore."""
    d = Dossier(dossier_bin, tmp_path)
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    env = {"HOME": str(home), "XDG_DATA_HOME": str(xdg)}
    d.run("init", "--kdf-log2n", "10", "--account", "x1", keystore=False, env=env)
    assert s.open_keystore(xdg / "dossier" / "sms.keystore", d.secrets[0].decode())[1]["account"] == "x1"
    d.run("init", "--kdf-log2n", "10", keystore=False, env={**env, "XDG_DATA_HOME": "rel/data"})
    assert (home / ".dossier" / "sms.keystore").exists() and not (home / "rel").exists()
    env_ks = tmp_path / "env.keystore"
    d.run("init", "--kdf-log2n", "10", keystore=False, env={**env, "DOSSIER_SMS_KEYSTORE": str(env_ks)})
    assert env_ks.exists()
    d.run("contact", "add", "Z", "--later", keystore=False, env=env)
    assert [c["name"] for c in s.open_keystore(home / ".dossier" / "sms.keystore", d.secrets[0].decode())[1][
        "contacts"]] == ["Z"], "$HOME/.dossier/sms.keystore wins once it exists"
