"""An independent SecureSMS v2 client written from docs/securesms-protocol.md and
docs/securesms-keystore.md alone (no look at Sources/ or at the other sms tests).

Used by test_doc_sms_protocol*.py to talk to `dossier sms` both ways and to open its
keystore file. Section numbers (§) refer to securesms-protocol.md.
"""
import base64
import hashlib
import hmac
import json
import unicodedata

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
from gsm0338.charset import BASIC_CHARACTER_SET

# §1 alphabets, built from the GSM 03.38 character names of the gsm0338 package.
ESC = 0x1B
BASIC = {}
for _code, _name in BASIC_CHARACTER_SET.items():
    if _code == ESC:
        continue
    BASIC[_code] = "\n" if _name == "LINE FEED" else "\r" if _name == "CARRIAGE RETURN" else unicodedata.lookup(_name)
BASIC[0x09] = "\u00c7"  # the doc: 0x09 is Ç (the Unicode mapping file says ç)
EXTENSION = {"^": 0x14, "{": 0x28, "}": 0x29, "\\": 0x2F, "[": 0x3C, "~": 0x3D, "]": 0x3E, "|": 0x40, "€": 0x65}
EXT_CODES = set(EXTENSION.values())
EXCLUDED = {0x00, 0x09, 0x0A, 0x0D, 0x11, 0x1B, 0x20, 0x22, 0x27, 0x2A}
SAFE = [BASIC[c] for c in range(128) if c not in EXCLUDED]
SAFE_INDEX = {ch: i for i, ch in enumerate(SAFE)}
CHAR_TO_CODE = {ch: c for c, ch in BASIC.items()}
CHAR_TO_CODE["\u00e7"] = 0x09  # input ç is accepted as 0x09
CODE_TO_EXT = {v: k for k, v in EXTENSION.items()}

MAX_SEPTETS = 144
MAX_SKIP = 100
MAX_STORED = 100
KEY_PREFIX = "SecureSMS-key:"


def to_septets(text):
    """§1: NFC, then basic codes (one septet) or ESC+code for the nine extension chars."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in EXTENSION:
            out += [ESC, EXTENSION[ch]]
        elif ch in CHAR_TO_CODE:
            out.append(CHAR_TO_CODE[ch])
        else:
            raise ValueError("not GSM")
    return out


def from_septets(septets):
    out, i = [], 0
    while i < len(septets):
        if septets[i] == ESC:
            out.append(CODE_TO_EXT[septets[i + 1]])
            i += 2
        else:
            out.append(BASIC[septets[i]])
            i += 1
    return "".join(out)


def pad(septets):
    """§3 step 2."""
    assert len(septets) <= MAX_SEPTETS
    if len(septets) < MAX_SEPTETS:
        septets = septets + [ESC] + [0] * (MAX_SEPTETS - len(septets) - 1)
    return septets


def unpad(septets):
    """§3: the first ESC not followed by an extension code (or last) ends the text;
    everything after it must be 0x00. Returns None when not canonical."""
    i = 0
    while i < len(septets):
        if septets[i] == ESC:
            if i + 1 < len(septets) and septets[i + 1] in EXT_CODES:
                i += 2
                continue
            if any(septets[i + 1:]):
                return None
            return septets[:i]
        i += 1
    return septets


def pack(septets):
    """§3 step 3: 144 septets → 126 bytes, most significant bit first."""
    assert len(septets) == MAX_SEPTETS
    value = 0
    for s in septets:
        value = (value << 7) | s
    return value.to_bytes(126, "big")


def unpack(block):
    value = int.from_bytes(block, "big")
    return [(value >> (7 * (MAX_SEPTETS - 1 - i))) & 0x7F for i in range(MAX_SEPTETS)]


def to_digits(value, count):
    digits = []
    for _ in range(count):
        value, d = divmod(value, 118)
        digits.append(SAFE[d])
    assert value == 0, "value does not fit"
    return "".join(reversed(digits))


def from_digits(text):
    value = 0
    for ch in text:
        value = value * 118 + SAFE_INDEX[ch]
    return value


# §4 keys
def key_check(pub):
    return hashlib.sha256(b"SecureSMS key v2" + pub).digest()[:2]


def key_message(pub):
    return KEY_PREFIX + to_digits(int.from_bytes(pub + key_check(pub), "big"), 40)


def parse_key_message(msg):
    msg = "".join(ch for ch in unicodedata.normalize("NFC", msg) if not ch.isspace())
    assert msg.startswith(KEY_PREFIX), msg
    raw = from_digits(msg[len(KEY_PREFIX):]).to_bytes(34, "big")
    assert key_check(raw[:32]) == raw[32:], "key check failed"
    return raw[:32]


def raw_public(private):
    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def raw_private(private):
    return private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())


def hkdf(ikm, salt, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def initial_chains(private, other_pub):
    """§4.2: (send chain, receive chain) for the owner of `private`."""
    own = raw_public(private)
    shared = private.exchange(X25519PublicKey.from_public_bytes(other_pub))
    assert shared != bytes(32)

    def ck(x, y):
        return hkdf(shared, b"SecureSMS v2 pair", b"SecureSMS v2 chain" + x + y, 32)
    return ck(own, other_pub), ck(other_pub, own)


def safety_half(pub):
    h = hashlib.sha512(b"SecureSMS v2 safety number" + pub).digest()
    return "".join("%05d" % (int.from_bytes(h[5 * i:5 * i + 5], "big") % 100000) for i in range(4))


def safety_number(pub_a, pub_b):
    digits = "".join(sorted([safety_half(pub_a), safety_half(pub_b)]))
    return " ".join(digits[i:i + 5] for i in range(0, 40, 5))


def hmac256(key, data):
    return hmac.new(key, data, hashlib.sha256).digest()


def message_key(ck):
    return hmac256(ck, b"\x01")


def next_chain(ck):
    return hmac256(ck, b"\x02")


def enc_mac_keys(mk):
    okm = hkdf(mk, None, b"SecureSMS v2 message", 64)
    return okm[:32], okm[32:]


def chacha(key, iv8, data):
    nonce16 = bytes(4) + iv8 + bytes(4)  # LE block counter 0, then 12-byte nonce T ‖ 00000000
    return Cipher(algorithms.ChaCha20(key, nonce16), mode=None).encryptor().update(data)


def seal_block(mk, counter, block, version=2):
    """§5 for a raw 126-byte block P; returns the 160-character message."""
    enc, mac = enc_mac_keys(mk)
    a = bytes([version]) + counter.to_bytes(4, "big")
    tag = hmac256(mac, a + block)[:8]
    c = chacha(enc, tag, block)
    header = SAFE[version] + to_digits(counter, 3)
    return header + to_digits(int.from_bytes(c + tag, "big"), 156)


def seal(mk, counter, text):
    return seal_block(mk, counter, pack(pad(to_septets(text))))


def split_message(msg):
    msg = "".join(ch for ch in unicodedata.normalize("NFC", msg) if not ch.isspace())
    assert len(msg) == 160 and all(ch in SAFE_INDEX for ch in msg), "not the layout"
    version = SAFE_INDEX[msg[0]]
    counter = from_digits(msg[1:4])
    body = from_digits(msg[4:]).to_bytes(134, "big")
    return version, counter, body[:126], body[126:]


def open_message(mk, msg):
    """Verify then decrypt; returns the text or raises ValueError."""
    version, counter, c, tag = split_message(msg)
    enc, mac = enc_mac_keys(mk)
    p = chacha(enc, tag, c)
    if not hmac.compare_digest(hmac256(mac, bytes([version]) + counter.to_bytes(4, "big") + p)[:8], tag):
        raise ValueError("verification failed")
    septets = unpad(unpack(p))
    if septets is None:
        raise ValueError("padding")
    return from_septets(septets)


class Chain:
    """A sending chain (§6, last paragraph), or the pure key stepping of a receive chain."""

    def __init__(self, ck, start=0):
        self.ck, self.next = ck, start

    def key_at(self, n):
        ck = self.ck
        for _ in range(n - self.next):
            ck = next_chain(ck)
        return message_key(ck)

    def send(self, text):
        msg = seal(message_key(self.ck), self.next, text)
        self.ck, self.next = next_chain(self.ck), self.next + 1
        return msg


class Receiver:
    """§6 receiving, with skipped keys, MAX_SKIP and MAX_STORED."""

    def __init__(self, ck):
        self.ck, self.next, self.skipped = ck, 0, []

    def receive(self, msg):
        _, n, _, _ = split_message(msg)
        if n < self.next:
            for i, (cnt, mk) in enumerate(self.skipped):
                if cnt == n:
                    text = open_message(mk, msg)
                    del self.skipped[i]
                    return text
            raise ValueError("replayed")
        if n - self.next > MAX_SKIP:
            raise ValueError("too far")
        ck, new = self.ck, []
        for cnt in range(self.next, n):
            new.append((cnt, message_key(ck)))
            ck = next_chain(ck)
        text = open_message(message_key(ck), msg)
        self.ck, self.next = next_chain(ck), n + 1
        self.skipped = (self.skipped + new)[-MAX_STORED:]
        return text


# docs/securesms-keystore.md
def keystore_keys(envelope, password):
    kdf = envelope["kdf"]
    salt = base64.b64decode(kdf["salt"])
    master = Scrypt(salt=salt, length=32, n=2 ** kdf["log2n"], r=kdf["r"], p=kdf["p"]).derive(
        unicodedata.normalize("NFC", password).encode())
    verifier = hkdf(master, None, b"SecureSMS keystore verifier", 32)
    key = hkdf(master, None, b"SecureSMS keystore key", 32)
    aad = f"securesms-keystore/1 scrypt {kdf['log2n']} {kdf['r']} {kdf['p']} ".encode() + salt
    return verifier, key, aad


def open_keystore(path, password):
    """(envelope, payload dict) of a keystore file, decrypted as the doc says."""
    envelope = json.loads(open(path, "rb").read().decode("utf-8"))
    verifier, key, aad = keystore_keys(envelope, password)
    assert hmac.compare_digest(verifier, base64.b64decode(envelope["verifier"])), "verifier differs"
    blob = base64.b64decode(envelope["payload"])
    payload = AESGCM(key).decrypt(blob[:12], blob[12:], aad)
    return envelope, json.loads(payload)


def new_private():
    return X25519PrivateKey.generate()


def private_from_bytes(raw):
    return X25519PrivateKey.from_private_bytes(raw)
