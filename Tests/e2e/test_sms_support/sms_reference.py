"""An independent Python implementation of the SecureSMS v2 message format and key exchange.

Written from docs/securesms-protocol.md, on other primitives than the Swift code:
the GSM 03.38 table comes from the `gsm0338` codec, ChaCha20/HKDF/X25519 from
`cryptography`, HMAC and SHA-2 from the standard library, and base conversion from Python integers. The tests
check the documented vectors (and the Swift CLI) against it.
"""
import hashlib
import hmac

import gsm0338  # noqa: F401  (registers the gsm03.38 codec)
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
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


KEY_PREFIX = "SecureSMS-key:"
VERSION = 2


def to_digits(b: bytes, count: int) -> list:
    v = int.from_bytes(b, "big")
    out = []
    for _ in range(count):
        v, d = divmod(v, N)
        out.append(d)
    assert v == 0
    return out[::-1]


def from_digits(chars: str, nbytes: int) -> bytes:
    v = 0
    for c in chars:
        v = v * N + SAFE.index(c)
    return v.to_bytes(nbytes, "big")


def public_bytes(private: X25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_message(public: bytes) -> str:
    check = hashlib.sha256(b"SecureSMS key v2" + public).digest()[:2]
    return KEY_PREFIX + "".join(SAFE[d] for d in to_digits(public + check, 40))


def parse_key_message(text: str) -> bytes:
    text = "".join(c for c in text if not c.isspace())
    assert text.startswith(KEY_PREFIX) and len(text) == len(KEY_PREFIX) + 40
    b = from_digits(text[len(KEY_PREFIX):], 34)
    assert hashlib.sha256(b"SecureSMS key v2" + b[:32]).digest()[:2] == b[32:]
    return b[:32]


def initial_chains(own: X25519PrivateKey, theirs: bytes):
    """(send chain, receive chain) of the owner of `own`."""
    shared = own.exchange(X25519PublicKey.from_public_bytes(theirs))
    mine = public_bytes(own)

    def chain(x, y):
        return hkdf(shared, b"SecureSMS v2 pair", b"SecureSMS v2 chain" + x + y, 32)

    return chain(mine, theirs), chain(theirs, mine)


def safety_half(public: bytes) -> str:
    h = hashlib.sha512(b"SecureSMS v2 safety number" + public).digest()
    return "".join("%05d" % (int.from_bytes(h[5 * i:5 * i + 5], "big") % 100000) for i in range(4))


def safety_number(a: bytes, b: bytes) -> str:
    digits = "".join(sorted([safety_half(a), safety_half(b)]))
    return " ".join(digits[i:i + 5] for i in range(0, 40, 5))


def step(ck: bytes):
    return hmac.new(ck, b"\x01", "sha256").digest(), hmac.new(ck, b"\x02", "sha256").digest()


def message_keys(mk: bytes):
    okm = hkdf(mk, None, b"SecureSMS v2 message", 64)
    return okm[:32], okm[32:64]


def chacha(key: bytes, tag: bytes, data: bytes) -> bytes:
    # cryptography's ChaCha20 takes a 16-byte nonce: 4-byte block counter (LE) ‖ 12-byte nonce
    return Cipher(algorithms.ChaCha20(key, b"\x00\x00\x00\x00" + tag + b"\x00\x00\x00\x00"), mode=None).encryptor().update(data)


def seal(text: str, counter: int, mk: bytes) -> str:
    enc, mac = message_keys(mk)
    p = pack(pad(septets(text)))
    header = bytes([VERSION]) + counter.to_bytes(4, "big")
    tag = hmac.new(mac, header + p, "sha256").digest()[:8]   # the synthetic IV
    c = chacha(enc, tag, p)
    head = [VERSION, counter // (N * N), (counter // N) % N, counter % N]
    return "".join(SAFE[d] for d in head + to_digits(c + tag, 156))


def open_message(message: str, mk: bytes) -> str:
    message = "".join(ch for ch in message if not ch.isspace())
    d = [SAFE.index(ch) for ch in message]
    assert len(d) == 160 and d[0] == VERSION
    counter = (d[1] * N + d[2]) * N + d[3]
    body = from_digits(message[4:], 134)
    c, tag = body[:126], body[126:]
    enc, mac = message_keys(mk)
    p = chacha(enc, tag, c)
    header = bytes([VERSION]) + counter.to_bytes(4, "big")
    if not hmac.compare_digest(hmac.new(mac, header + p, "sha256").digest()[:8], tag):
        raise ValueError("verification failed")
    v = int.from_bytes(p, "big") >> (126 * 8 - 144 * 7)
    sep = [(v >> (7 * (143 - i))) & 0x7F for i in range(144)]
    i = 0
    while i < 144:
        if sep[i] == 0x1B and (i + 1 == 144 or sep[i + 1] == 0):
            assert all(x == 0 for x in sep[i + 1:])
            sep = sep[:i]
            break
        i += 2 if sep[i] == 0x1B else 1
    return bytes(sep).decode("gsm03.38")


def message_key_at(chain_key: bytes, counter: int) -> bytes:
    ck = chain_key
    for _ in range(counter):
        ck = step(ck)[1]
    return step(ck)[0]
