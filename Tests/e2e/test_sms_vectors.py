"""Test vectors in docs/securesms-protocol.md, checked against the independent Python
implementation (sms_reference.py), and the CLI checked against that implementation."""
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey  # noqa: E402

import sms_reference as ref  # noqa: E402
from sms_helpers import Party  # noqa: E402

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "securesms-protocol.md"


def vectors():
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- vectors:begin -->\s*```json\n(.*?)```\s*<!-- vectors:end -->", text, re.S).group(1)
    return json.loads(block)


def test_doc_vectors_match_reference():
    v = vectors()
    keys = {k["name"]: X25519PrivateKey.from_private_bytes(bytes.fromhex(k["private"])) for k in v["keys"]}
    for k in v["keys"]:
        pub = ref.public_bytes(keys[k["name"]])
        assert pub.hex() == k["public"]
        assert ref.key_message(pub) == k["key_message"] and ref.parse_key_message(k["key_message"]) == pub
        assert ref.safety_half(pub) == k["safety_half"]
    pa, pb = (ref.public_bytes(keys[n]) for n in "AB")
    assert keys["A"].exchange(keys["B"].public_key()).hex() == v["shared_secret"]
    assert ref.safety_number(pa, pb) == ref.safety_number(pb, pa) == v["safety_number"]
    ab, ba = ref.initial_chains(keys["A"], pb)
    assert (ab.hex(), ba.hex()) == (v["chains"]["A_to_B"], v["chains"]["B_to_A"])
    assert ref.initial_chains(keys["B"], pa) == (ba, ab)
    ck = ab
    for s in v["chain_steps_A_to_B"]:
        mk, nxt = ref.step(ck)
        assert (ck.hex(), mk.hex(), nxt.hex()) == (s["chain_key"], s["message_key"], s["next_chain_key"])
        ck = nxt
    enc, mac = ref.message_keys(ref.step(ab)[0])
    assert v["message_keys_A_to_B_0"] == {"encryption": enc.hex(), "mac": mac.hex()}
    for m in v["messages"]:
        chain = ab if m["from"] == "A" else ba
        mk = ref.message_key_at(chain, m["counter"])
        assert mk.hex() == m["message_key"]
        assert len(m["plaintext"].encode("gsm03.38")) == m["septets"]
        msg = ref.seal(m["plaintext"], m["counter"], mk)
        assert msg == m["message"]
        assert ref.open_message(msg, mk) == m["plaintext"]
        assert len(msg) == 160 and len(msg.encode("gsm03.38")) == 160


def test_cli_interoperates_with_reference(run_dossier, tmp_path):
    """The CLI's messages are byte for byte the reference's, for chains the reference derives
    from the CLI's key messages and a Python-held private key."""
    alice = Party(run_dossier, tmp_path / "a.keystore")
    alice.init("alice")
    ka = alice.add_later("Bob")
    bob = X25519PrivateKey.generate()
    kb = ref.key_message(ref.public_bytes(bob))
    alice.finish("Bob", kb, ref.safety_number(ref.parse_key_message(ka), ref.public_bytes(bob)))
    bob_send, bob_receive = ref.initial_chains(bob, ref.parse_key_message(ka))
    for i, t in enumerate(["Hello from the CLI", "Preis: €5 [ca.] {x}", ""]):
        m = alice.encrypt("Bob", t)
        assert ref.open_message(m, ref.message_key_at(bob_receive, i)) == t
        assert m == ref.seal(t, i, ref.message_key_at(bob_receive, i))
    reply = "Reply written by Python, counter 1"
    assert alice.decrypt("Bob", ref.seal(reply, 1, ref.message_key_at(bob_send, 1))).stdout.rstrip("\n") == reply
    # a version-1 message is refused with a clear word
    old = ref.SAFE[1] + ref.seal("x", 0, ref.message_key_at(bob_send, 0))[1:]
    r = alice.decrypt("Bob", old, check=False)
    assert r.returncode == 1 and "version 1 is not supported" in r.stderr and "must update" in r.stderr
