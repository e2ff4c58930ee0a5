"""Prints the SecureSMS test vectors (JSON) from the Python reference implementation.

Run: python3 Tests/e2e/test_sms_support/gen_vectors.py   (the output is pasted into docs/securesms-protocol.md)
"""
import hashlib
import json
import sys

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sms_reference as ref  # noqa: E402

priv = {n: hashlib.sha256(b"vector key " + n.encode()).digest() for n in "AB"}
keys = {n: X25519PrivateKey.from_private_bytes(p) for n, p in priv.items()}
pub = {n: ref.public_bytes(k) for n, k in keys.items()}
shared = keys["A"].exchange(keys["B"].public_key())
ab, ba = ref.initial_chains(keys["A"], pub["B"])
assert ref.initial_chains(keys["B"], pub["A"]) == (ba, ab)

steps = []
ck = ab
for _ in range(3):
    mk, nxt = ref.step(ck)
    steps.append({"chain_key": ck.hex(), "message_key": mk.hex(), "next_chain_key": nxt.hex()})
    ck = nxt

mk0 = ref.step(ab)[0]
enc, mac = ref.message_keys(mk0)

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
# the same counter and key with another plaintext (a restored backup): another IV, another keystream
text = "A different text, same counter 0"
messages.append({"from": "A", "counter": 0, "plaintext": text, "septets": len(ref.septets(text)),
                 "message_key": ref.message_key_at(ab, 0).hex(), "message": ref.seal(text, 0, ref.message_key_at(ab, 0))})
text = "Got it. See you there."
messages.append({"from": "B", "counter": 0, "plaintext": text, "septets": len(ref.septets(text)),
                 "message_key": ref.message_key_at(ba, 0).hex(), "message": ref.seal(text, 0, ref.message_key_at(ba, 0))})

out = {
    "keys": [
        {"name": n, "private": priv[n].hex(), "public": pub[n].hex(), "key_message": ref.key_message(pub[n]),
         "safety_half": ref.safety_half(pub[n])}
        for n in "AB"
    ],
    "shared_secret": shared.hex(),
    "safety_number": ref.safety_number(pub["A"], pub["B"]),
    "chains": {"A_to_B": ab.hex(), "B_to_A": ba.hex()},
    "chain_steps_A_to_B": steps,
    "message_keys_A_to_B_0": {"encryption": enc.hex(), "mac": mac.hex()},
    "messages": messages,
}
print(json.dumps(out, indent=2, ensure_ascii=False))
