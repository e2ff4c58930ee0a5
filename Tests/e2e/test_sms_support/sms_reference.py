"""An independent Python implementation of the SecureSMS v1 message format.

Written from docs/securesms-protocol.md, on other primitives than the Swift code:
the GSM 03.38 table comes from the `gsm0338` codec, ChaCha20/HKDF from `cryptography`,
HMAC from the standard library, and base conversion from Python integers. The tests
check the documented vectors (and the Swift CLI) against it.
"""
import hashlib
import hmac

import gsm0338  # noqa: F401  (registers the gsm03.38 codec)
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

EXCLUDED = {0x00, 0x09, 0x0A, 0x0D, 0x11, 0x1B, 0x20, 0x22, 0x27, 0x2A}
SAFE = [bytes([c]).decode("gsm03.38") for c in range(128) if c not in EXCLUDED]
N = len(SAFE)
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def septets(text: str) -> list:
    # gsm03.38 encodes extension characters as ESC + code, one byte per septet
    return list(text.encode("gsm03.38"))


def pad(sep: list) -> list:
    assert len(sep) <= 144
    return sep if len(sep) == 144 else sep + [0x1B] + [0] * (143 - len(sep))


def pack(sep: list) -> bytes:
    v = 0
    for s in sep:
        v = (v << 7) | s
    v <<= 126 * 8 - 7 * len(sep)
    return v.to_bytes(126, "big")


def hkdf(ikm: bytes, salt, info: bytes, n: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=n, salt=salt, info=info).derive(ikm)


def code_bytes(random8: bytes) -> bytes:
    return random8 + hashlib.sha256(b"SecureSMS code v1" + random8).digest()[:2]


def code_text(b: bytes) -> str:
    v = int.from_bytes(b, "big")
    chars = "".join(CROCKFORD[(v >> (75 - 5 * i)) & 31] for i in range(16))
    return "-".join(chars[i:i + 4] for i in range(0, 16, 4))


def initial_chains(code_a: bytes, code_b: bytes):
    """(chain A→B, chain B→A)."""
    ikm = min(code_a, code_b) + max(code_a, code_b)

    def chain(x, y):
        return hkdf(ikm, b"SecureSMS v1 pair", b"SecureSMS v1 chain" + x + y, 32)

    return chain(code_a, code_b), chain(code_b, code_a)


def step(ck: bytes):
    return hmac.new(ck, b"\x01", "sha256").digest(), hmac.new(ck, b"\x02", "sha256").digest()


def message_keys(mk: bytes):
    okm = hkdf(mk, None, b"SecureSMS v1 message", 76)
    return okm[:32], okm[32:64], okm[64:76]


def seal(text: str, counter: int, mk: bytes) -> str:
    enc, mac, nonce = message_keys(mk)
    p = pack(pad(septets(text)))
    ks = Cipher(algorithms.ChaCha20(enc, b"\x00\x00\x00\x00" + nonce), mode=None).encryptor()
    c = ks.update(p)
    header = bytes([1]) + counter.to_bytes(4, "big")
    tag = hmac.new(mac, header + c, "sha256").digest()[:8]
    v = int.from_bytes(c + tag, "big")
    body = []
    for _ in range(156):
        v, d = divmod(v, N)
        body.append(d)
    assert v == 0
    head = [1, counter // (N * N), (counter // N) % N, counter % N]
    return "".join(SAFE[d] for d in head + body[::-1])


def message_key_at(chain_key: bytes, counter: int) -> bytes:
    ck = chain_key
    for _ in range(counter):
        ck = step(ck)[1]
    return step(ck)[0]
