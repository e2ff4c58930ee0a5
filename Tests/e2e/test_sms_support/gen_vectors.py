"""Prints the SecureSMS test vectors (JSON) from the Python reference implementation.

Run: python3 Tests/e2e/test_sms_support/gen_vectors.py   (the output is pasted into docs/securesms-protocol.md)
"""
import hashlib
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sms_reference as ref  # noqa: E402

rand_a = hashlib.sha256(b"vector code A").digest()[:8]
rand_b = hashlib.sha256(b"vector code B").digest()[:8]
code_a, code_b = ref.code_bytes(rand_a), ref.code_bytes(rand_b)
ab, ba = ref.initial_chains(code_a, code_b)

steps = []
ck = ab
for _ in range(3):
    mk, nxt = ref.step(ck)
    steps.append({"chain_key": ck.hex(), "message_key": mk.hex(), "next_chain_key": nxt.hex()})
    ck = nxt

mk0 = ref.step(ab)[0]
enc, mac, nonce = ref.message_keys(mk0)

texts = [
    (0, ""),
    (1, "Hello Bob! Meet at 6 by the north gate."),
    (2, "Price: €20 [cash] {not card} ~ a|b \\ ^"),
    (3, "Über Ñoño? Ça va: ÆØÅ æøå ß É ¡¿ §¤ ΔΦΓΛΩΠΨΣΘΞ @£$¥ èéùìò\nnew line"),
    (7, "x" * 144),
]
messages = []
for counter, text in texts:
    messages.append({
        "from": "A", "counter": counter, "plaintext": text, "septets": len(ref.septets(text)),
        "message_key": ref.message_key_at(ab, counter).hex(), "message": ref.seal(text, counter, ref.message_key_at(ab, counter)),
    })
text = "Got it. See you there."
messages.append({"from": "B", "counter": 0, "plaintext": text, "septets": len(ref.septets(text)),
                 "message_key": ref.message_key_at(ba, 0).hex(), "message": ref.seal(text, 0, ref.message_key_at(ba, 0))})

out = {
    "codes": [
        {"name": "A", "random": rand_a.hex(), "bytes": code_a.hex(), "code": ref.code_text(code_a)},
        {"name": "B", "random": rand_b.hex(), "bytes": code_b.hex(), "code": ref.code_text(code_b)},
    ],
    "chains": {"A_to_B": ab.hex(), "B_to_A": ba.hex()},
    "chain_steps_A_to_B": steps,
    "message_keys_A_to_B_0": {"encryption": enc.hex(), "mac": mac.hex(), "nonce": nonce.hex()},
    "messages": messages,
}
print(json.dumps(out, indent=2, ensure_ascii=False))
