"""Writes KeePass KDBX test databases with pykeepass (the oracle for Dossier's KDBX
import; docs/vault-kdbx.md). Used by Tests/e2e/test_vault_kdbx.py; nothing is committed
as an opaque blob.

    python3 scripts/vault/make_kdbx.py OUT.kdbx --version 4 --kdf argon2id --cipher chacha20 [--keyfile K]

pykeepass creates KDBX 4 databases; a KDBX 3.1 file is made by giving the parsed
database a 3.1 header (AES-KDF transform seed and rounds, protected stream key, stream
start bytes, Salsa20 inner stream) before pykeepass writes it.
"""
import argparse
import base64
import datetime
import os
import struct

from construct import Container
from pykeepass import create_database

KDF_UUIDS = {
    "argon2d": b"\xefcm\xdf\x8c)DK\x91\xf7\xa9\xa4\x03\xe3\n\x0c",
    "argon2id": b"\x9e)\x8b\x19V\xdbGs\xb2=\xfc>\xc6\xf0\xa1\xe6",
    "aes": b"\xc9\xd9\xf3\x9ab\x8aD`\xbft\r\x08\xc1\x8aO\xea",
}
UTC = datetime.timezone.utc


def populate(kp, attachments=True):
    """Entries covering every field the importer reads; returns what each should import as."""
    work = kp.add_group(kp.root_group, "Work")
    deep = kp.add_group(work, "Servers ünï")
    expected = []

    def add(group, title, user, pw, url, notes, **extra):
        e = kp.add_entry(group, title, user, pw, url=url or None, notes=notes or None, force_creation=True)
        for k, v in extra.get("fields", {}).items():
            e.set_custom_property(k, v, protect=True)
        for k, v in extra.get("plain", {}).items():
            e.set_custom_property(k, v, protect=False)
        if extra.get("tags"):
            e.tags = extra["tags"]
        if extra.get("expires"):
            e.expires = True
            e.expiry_time = datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
        e.ctime = datetime.datetime(2020, 5, 6, 7, 8, 9, tzinfo=UTC)
        e.mtime = datetime.datetime(2023, 2, 3, 4, 5, 6, tzinfo=UTC)
        return e

    add(kp.root_group, "Mail", "jo@example.com", "pässwörd-Ω-1!", "https://mail.example.com/login", "line one\nline two")
    e = add(work, "VPN", "jo.doe", "vpn-Secret-2", "https://vpn.example.org", "", fields={"PIN": "4711"}, tags=["work", "net"], expires=True,
            plain={"Plan": "gold", "KP2A_URL": "https://vpn2.example.org"})
    e.otp = "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP"
    e.save_history()
    e.password = "vpn-Secret-3"
    e.mtime = datetime.datetime(2024, 1, 1, tzinfo=UTC)
    db1 = add(deep, "db1", "root", "r00t-<&>\"'", "ssh://db1.example.net:2222", "XML specials <&> here")
    # KeePass 2.48+'s "exclude from quality reports" (pykeepass has no property for it)
    qc = db1._element.makeelement("QualityCheck")
    qc.text = "False"
    db1._element.append(qc)
    add(deep, "", "nobody", "pw-untitled-4", "https://u:secret@untitled.example.com/?t=1", "")
    gone = add(work, "Old", "old", "old-pw-5", "", "")
    kp.trash_entry(gone)
    if attachments:
        bid = kp.add_binary(b"attachment bytes", compressed=False, protected=False)
        kp.find_entries(title="Mail", first=True).add_attachment(bid, "note.txt")
    kp.save()
    return kp


def to_kdbx3(kp, cipher):
    hv = kp.kdbx.header.value
    old = hv.dynamic_header
    item = lambda k, v: Container(id=k, data=v)
    hv.major_version, hv.minor_version = 3, 1
    hv.dynamic_header = Container(
        cipher_id=item("cipher_id", cipher),
        compression_flags=old.compression_flags,
        master_seed=item("master_seed", os.urandom(32)),
        transform_seed=item("transform_seed", os.urandom(32)),
        transform_rounds=item("transform_rounds", 6000),
        encryption_iv=item("encryption_iv", os.urandom(16 if cipher == "aes256" else 12)),
        protected_stream_key=item("protected_stream_key", os.urandom(32)),
        stream_start_bytes=item("stream_start_bytes", os.urandom(32)),
        protected_stream_id=item("protected_stream_id", "salsa20"),
        end=item("end", b"\r\n\r\n"),
    )
    xml = kp.kdbx.body.payload.xml
    # KDBX 3.1 writes times as ISO 8601 text, KDBX 4 as base64 of u64 seconds since year 1
    for el in xml.iter():
        if isinstance(el.tag, str) and el.tag.endswith(("Time", "Changed")) and el.text and el.text.endswith("="):
            secs = struct.unpack("<Q", base64.b64decode(el.text))[0]
            t = datetime.datetime(1, 1, 1, tzinfo=UTC) + datetime.timedelta(seconds=secs)
            el.text = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    kp.kdbx.body = Container(payload=Container(xml=xml))


def make(path, version=4, kdf="argon2id", cipher="aes256", password="kdbx pass wörd", keyfile=None):
    kp = create_database(str(path), password=password, keyfile=keyfile and str(keyfile))
    hv = kp.kdbx.header.value
    hv.dynamic_header.cipher_id.data = cipher
    if version == 4:
        d = hv.dynamic_header.kdf_parameters.data.dict
        d["$UUID"].value = KDF_UUIDS[kdf]
        if kdf == "aes":
            # $UUID, R (u64 rounds), S (seed); each item names the next one's type, 0 at the end
            salt = d["S"].value
            for k in list(d.keys()):
                del d[k]
            d["$UUID"] = Container(type=0x42, key="$UUID", value=KDF_UUIDS["aes"], next_byte=0x05)
            d["R"] = Container(type=0x05, key="R", value=6000, next_byte=0x42)
            d["S"] = Container(type=0x42, key="S", value=salt, next_byte=0)
        else:
            d["I"].value, d["M"].value, d["P"].value = 2, 1 << 20, 2
    populate(kp, attachments=version == 4)
    if version == 3:
        to_kdbx3(kp, cipher)
        kp.save()
    return kp


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--version", type=int, default=4)
    ap.add_argument("--kdf", default="argon2id")
    ap.add_argument("--cipher", default="aes256")
    ap.add_argument("--password", default="kdbx pass wörd")
    ap.add_argument("--keyfile")
    a = ap.parse_args()
    make(a.out, a.version, a.kdf, a.cipher, a.password, a.keyfile)
