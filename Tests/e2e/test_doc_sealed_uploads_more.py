"""Every refusal of docs/recall-upload.md's "Ingest" table, from the docs alone.

Each test builds one bad upload with the independent sealer of test_doc_sealed_uploads.py
(envelope damage at each boundary, a wrong or short data key, records that are not
`recall-session`, members twice or missing, malformed members, a forged signature, a
renamed file, a log that is not valid UTF-8 / `dossier-recall/1`, an oversized file) and
checks the reason printed, exit status 1, that the upload stays in the drop and that the
logs folder is unchanged. Where two checks fail at once, the table's order decides.
"""
import json
import os
import re

import pytest

from test_doc_sealed_uploads import (LOG_NAME, Device, Study, assert_refused, b64, recall_keys,  # noqa: F401
                                     other_keys, recall_log, recall_plaintext, seal, study, summary, upload_name)

NOT_SEALED = re.escape("not a sealed upload (the first bytes are not RMU1)")
TRUNCATED = re.escape("the upload is truncated (shorter than its header, nonce and tag)") + "$"
UNWRAP = r"^cannot unwrap the data key: .*sealed to a different study key, or its key block was altered"
AUTH = re.escape("authentication failed: the upload was altered or truncated")


def good_upload(study: Study, name: str, body=None) -> bytes:
    return seal(study.pub, recall_plaintext(Device(), name, LOG_NAME, body or recall_log()))


def flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1:]


# MARK: - the envelope

@pytest.mark.parametrize("data", [b"", b"RMU", b"RMU2" + b"\0" * 600, b"rmu1" + b"\0" * 600, b"PK\x03\x04zip"])
def test_not_rmu1_is_not_a_sealed_upload(study, data):
    name = upload_name()
    study.put(name, data)
    assert_refused(study, name, "^" + NOT_SEALED + "$")


def test_a_changed_magic_byte_of_a_good_upload(study):
    name = upload_name()
    study.put(name, flip(good_upload(study, name), 3))
    assert_refused(study, name, "^" + NOT_SEALED + "$")


@pytest.mark.parametrize("cut", ["magic", "half-length", "length", "half-key", "header", "nonce", "tag-1"])
def test_truncation_before_nonce_and_tag_is_truncated(study, cut):
    name = upload_name()
    data = good_upload(study, name)
    w = int.from_bytes(data[4:6], "big")
    keep = {"magic": 4, "half-length": 5, "length": 6, "half-key": 6 + w // 2, "header": 6 + w,
            "nonce": 6 + w + 12, "tag-1": 6 + w + 12 + 15}[cut]
    study.put(name, data[:keep])
    assert_refused(study, name, "^" + TRUNCATED)


def test_the_truncated_reason_is_exactly_the_documented_text(study):
    name = upload_name()
    study.put(name, good_upload(study, name)[:100])
    assert_refused(study, name, "^" + TRUNCATED)


def test_a_length_field_larger_than_the_file_is_truncated(study):
    name = upload_name()
    data = good_upload(study, name)
    study.put(name, data[:4] + (0xFFFF).to_bytes(2, "big") + data[6:])
    assert_refused(study, name, "^" + TRUNCATED)


@pytest.mark.parametrize("cut", [1, 16, 40])
def test_a_cut_off_tail_long_enough_for_the_header_fails_authentication(study, cut):
    name = upload_name()
    data = good_upload(study, name)
    study.put(name, data[:-cut])
    assert_refused(study, name, "^" + AUTH + "$")


def test_exactly_header_nonce_and_tag_is_not_truncated_but_fails_authentication(study):
    name = upload_name()
    data = good_upload(study, name)
    w = int.from_bytes(data[4:6], "big")
    study.put(name, data[:6 + w + 12] + data[-16:])
    assert_refused(study, name, "^" + AUTH + "$")


@pytest.mark.parametrize("where", ["key-first", "key-last", "length-smaller"])
def test_an_altered_key_block_cannot_be_unwrapped(study, where):
    name = upload_name()
    data = good_upload(study, name)
    w = int.from_bytes(data[4:6], "big")
    if where == "length-smaller":
        data = data[:4] + (w - 1).to_bytes(2, "big") + data[6:]
    else:
        data = flip(data, 6 if where == "key-first" else 6 + w - 1)
    study.put(name, data)
    assert_refused(study, name, UNWRAP)


@pytest.mark.parametrize("where", ["nonce", "ciphertext", "tag"])
def test_an_altered_nonce_ciphertext_or_tag_fails_authentication(study, where):
    name = upload_name()
    data = good_upload(study, name)
    w = int.from_bytes(data[4:6], "big")
    index = {"nonce": 6 + w + 5, "ciphertext": 6 + w + 12 + 3, "tag": len(data) - 2}[where]
    study.put(name, flip(data, index))
    assert_refused(study, name, "^" + AUTH + "$")


def test_an_upload_sealed_to_another_study_key_cannot_be_unwrapped(study, other_keys):
    name = upload_name()
    study.put(name, seal(other_keys[1], recall_plaintext(Device(), name, LOG_NAME, recall_log())))
    assert_refused(study, name, UNWRAP)


@pytest.mark.parametrize("size", [0, 16, 31, 33, 64])
def test_a_data_key_that_is_not_32_bytes_has_the_wrong_length(study, size):
    name = upload_name()
    study.put(name, seal(study.pub, recall_plaintext(Device(), name, LOG_NAME, recall_log()),
                         data_key=os.urandom(size)))
    assert_refused(study, name, "^" + re.escape("the wrapped data key has the wrong length") + "$")


def test_a_file_over_256_mib_is_refused_unread(study):
    name = upload_name()
    with open(study.drop / name, "wb") as f:
        f.write(b"RMU1")
        f.truncate(268_435_457)
    assert_refused(study, name, "^" + re.escape("the file is longer than 268435456 bytes (256 MiB), more than "
                                                "any upload may be; not read further") + "$")


# MARK: - the signed record

def put_plain(study: Study, name: str, plaintext: bytes):
    study.put(name, seal(study.pub, plaintext))


@pytest.mark.parametrize("first", [
    "not json", "[1,2]", '"recall-session"', '{"type":"device","player":"x"}',
    '{"type":"recall-session","device":1,"upload":"a.rcu","log":"a.jsonl","signing_key":"x","signature":"y"}',
])
def test_a_first_line_that_is_not_a_recall_record(study, first):
    name = upload_name()
    put_plain(study, name, first.encode() + b"\n" + recall_log())
    assert_refused(study, name, r"^not a recall upload: ")


def test_a_game_upload_is_not_a_recall_upload(study):
    dev = Device()
    name = upload_name()
    body = b'{"type":"survey","player":"abc","complete":false}\n'
    rk = b64(os.urandom(32))
    sig = dev.private.sign(b"RocketMouse upload v2\nabc\n" + rk.encode() + b"\n" + body)
    record = {"type": "device", "player": "abc", "signing_key": dev.public_b64, "result_key": rk,
              "signature": b64(sig)}
    put_plain(study, name, json.dumps(record, separators=(",", ":")).encode() + b"\n" + body)
    assert_refused(study, name, r"^not a recall upload: ")


def test_a_member_twice_is_named(study):
    dev = Device()
    name = upload_name()
    good = recall_plaintext(dev, name, LOG_NAME, recall_log())
    line, body = good.split(b"\n", 1)
    twice = line[:-1] + b',"log":"' + LOG_NAME.encode() + b'"}'
    put_plain(study, name, twice + b"\n" + body)
    assert_refused(study, name, r"^the signed record has the field 'log' twice$")


@pytest.mark.parametrize("edit", ["missing", "extra"])
def test_not_exactly_the_six_members(study, edit):
    def change(record):
        if edit == "missing":
            del record["signing_key"]
        else:
            record["note"] = "x"
    name = upload_name()
    put_plain(study, name, recall_plaintext(Device(), name, LOG_NAME, recall_log(), record_edit=change))
    assert_refused(study, name, r"^the signed record needs exactly ")


BAD_MEMBERS = [
    ("device", "ABCDEF0123456789ABCDEF0123456789"), ("device", "0" * 31), ("device", "0" * 33),
    ("device", "g" * 32), ("signing_key", b64(os.urandom(31))), ("signing_key", "not base64!"),
    ("signing_key", b64(os.urandom(32)).rstrip("=")), ("signature", b64(os.urandom(63))),
    ("signature", b64(os.urandom(64)).rstrip("=")), ("signature", ""),
]


@pytest.mark.parametrize("member,value", BAD_MEMBERS, ids=[f"{m}-{i}" for i, (m, _) in enumerate(BAD_MEMBERS)])
def test_a_malformed_member_must_be(study, member, value):
    name = upload_name()
    dev = Device()
    if member == "device":
        dev.id = value  # signed with the bad id: only its form is wrong
        plain = recall_plaintext(dev, name, LOG_NAME, recall_log())
    else:
        plain = recall_plaintext(dev, name, LOG_NAME, recall_log(), record_edit=lambda r: r.update({member: value}))
    put_plain(study, name, plain)
    assert_refused(study, name, rf"^{member} must be ")


BAD_NAMES = [
    ("upload", "u" * 117 + ".rcu"), ("upload", "rc-abc.rcu.txt"), ("upload", "a/b.rcu"), ("upload", ".rcu"),
    ("upload", "sp ace.rcu"), ("upload", "é.rcu"), ("log", "l" * 195 + ".jsonl"), ("log", "../x.jsonl"),
    ("log", ".hidden.jsonl"), ("log", "x.csv"), ("log", "a b.jsonl"), ("log", ""),
]


@pytest.mark.parametrize("member,value", BAD_NAMES, ids=[f"{m}-{i}" for i, (m, _) in enumerate(BAD_NAMES)])
def test_upload_and_log_are_checked_as_file_names(study, member, value):
    name = upload_name()
    upload = value if member == "upload" else name
    log = value if member == "log" else LOG_NAME
    put_plain(study, name, recall_plaintext(Device(), upload, log, recall_log()))
    assert_refused(study, name, rf"^{member} must be ")


def test_a_changed_body_does_not_verify(study):
    name = upload_name()
    put_plain(study, name, recall_plaintext(Device(), name, LOG_NAME, recall_log(),
                                            signed_body=recall_log(close_at=201)))
    assert_refused(study, name, r"^the signature does not verify.*: the content was altered or forged$")


@pytest.mark.parametrize("member", ["device", "upload", "log"])
def test_each_signed_member_is_covered_by_the_signature(study, member):
    name = upload_name()
    replacement = {"device": os.urandom(16).hex(), "upload": name, "log": "other.jsonl"}[member]
    signed_upload = upload_name() if member == "upload" else name
    plain = recall_plaintext(Device(), signed_upload, LOG_NAME, recall_log(),
                             record_edit=lambda r: r.update({member: replacement}))
    put_plain(study, name, plain)
    assert_refused(study, name, r"^the signature does not verify")


def test_a_signature_by_another_key_does_not_verify(study):
    name = upload_name()
    dev, other = Device(), Device()
    plain = recall_plaintext(dev, name, LOG_NAME, recall_log(), record_edit=lambda r: r.update(
        {"signing_key": other.public_b64}))
    put_plain(study, name, plain)
    assert_refused(study, name, r"^the signature does not verify")


def test_a_well_signed_upload_under_another_file_name(study):
    name, sealed_as = upload_name(), upload_name()
    put_plain(study, name, recall_plaintext(Device(), sealed_as, LOG_NAME, recall_log()))
    assert_refused(study, name, "^" + re.escape(f"the file is named {name} but was sealed as {sealed_as}: "
                                                "a copied or replayed upload") + "$")


def test_the_name_check_comes_before_the_log_check(study):
    name, sealed_as = upload_name(), upload_name()
    put_plain(study, name, recall_plaintext(Device(), sealed_as, LOG_NAME, b"\xff\xfe\n"))
    assert_refused(study, name, r"^the file is named ")


# MARK: - the body

OPEN = b"".join(recall_log().splitlines(keepends=True)[:3])  # header, ready, begin: no close yet
BAD_BODIES = [
    ("not-utf8", OPEN + b'{"t":300,"type":"touch","x":1,"y":2,"target":"\xc3"}\n', 4),
    ("overlong", OPEN + b'{"t":300,"type":"touch","x":1,"y":2,"target":"\xc0\xaf"}\n', 4),
    ("unknown-page", OPEN + b'{"t":300,"type":"page","page":"nowhere"}\n', 4),
    ("backwards", OPEN + b'{"t":50,"type":"page","page":"recall"}\n', 4),
    ("not-json", OPEN + b"not json\n", 4),
    ("dup-key", b'{"type":"session","participant":"P","participant":"Q"}\n', 1),
    ("no-participant", b'{"type":"session","format":"dossier-recall/1"}\n', 1),
]


@pytest.mark.parametrize("label,body,line", BAD_BODIES, ids=[b[0] for b in BAD_BODIES])
def test_a_malformed_log_names_the_log_and_its_line(study, label, body, line):
    name = upload_name()
    put_plain(study, name, recall_plaintext(Device(), name, LOG_NAME, body))
    assert_refused(study, name, "^" + re.escape(f"malformed log: {LOG_NAME}:{line}:"))


# recall-upload.md Ingest: a byte that is not UTF-8 is named at its line and byte column
TOUCH = b'{"t":300,"type":"touch","x":1,"y":2,"target":"'
NOT_UTF8 = [("cut-short", b"\xc3", "0xC3"), ("overlong", b"\xc0\xaf", "0xC0"), ("ff", b"\xff", "0xFF"),
            ("surrogate", b"\xed\xb0\x80", "0xED"), ("continuation", b"\x80", "0x80")]


@pytest.mark.parametrize("label,bad,hexa", NOT_UTF8, ids=[n[0] for n in NOT_UTF8])
def test_a_byte_that_is_not_utf8_is_named_with_its_column(study, label, bad, hexa):
    name = upload_name()
    put_plain(study, name, recall_plaintext(Device(), name, LOG_NAME, OPEN + TOUCH + bad + b'"}\n'))
    assert_refused(study, name, "^" + re.escape(f"malformed log: {LOG_NAME}:4: byte {len(TOUCH) + 1} of the line "
                                                f"({hexa}) is not UTF-8; save the file as UTF-8") + "$")


CUT = [recall_log()[:-1], recall_log()[:-5], OPEN[:-1], recall_log() + b'{"t":9']


@pytest.mark.parametrize("body", CUT, ids=["no-final-lf", "cut-in-the-last-line", "open", "cut-after-the-close"])
def test_a_body_not_ending_with_a_line_feed_is_malformed(study, body):
    name = upload_name()
    put_plain(study, name, recall_plaintext(Device(), name, LOG_NAME, body))
    last = body.count(b"\n") + 1
    assert_refused(study, name, "^" + re.escape(f"malformed log: {LOG_NAME}:{last}: the log does not end with a line "
                                                "feed (an Export always does: the upload was cut short)") + "$")


@pytest.mark.parametrize("body", [recall_log()[:-1], b"", OPEN + b'{"t":300,"type":"close","x":"\xc3"}\n'],
                         ids=["no-final-lf", "empty", "not-utf8"])
def test_a_body_not_utf8_or_without_final_line_feed_is_refused(study, body):
    name = upload_name()
    put_plain(study, name, recall_plaintext(Device(), name, LOG_NAME, body))
    assert_refused(study, name, ".")


def test_the_log_check_comes_before_the_pin_check(study):
    dev = Device()
    study.put_sealed(dev, recall_log())
    assert study.ingest().returncode == 0
    name = upload_name()
    body = OPEN + b'{"t":300,"type":"page","page":"nowhere"}\n'
    put_plain(study, name, recall_plaintext(Device(dev.id), name, "x.jsonl", body))
    assert_refused(study, name, "^" + re.escape("malformed log: x.jsonl:4:"))


def test_a_plaintext_without_a_line_feed_is_refused(study):
    name = upload_name()
    plain = recall_plaintext(Device(), name, LOG_NAME, b"")
    put_plain(study, name, plain[:-1])
    before = sorted(p.name for p in study.logs.rglob("*"))
    proc = study.ingest()
    assert proc.returncode == 1 and summary(0, 0, 1) in proc.stdout + proc.stderr
    assert sorted(p.name for p in study.logs.rglob("*")) == before


def test_a_folder_named_like_an_upload_counts_as_gone(study):
    (study.drop / "rc-folder.rcu").mkdir()
    study.put_sealed(Device(), recall_log())
    proc = study.ingest()
    assert "1 stored, 0 already stored, 0 refused, 1 gone" in proc.stdout + proc.stderr
    assert (study.logs / LOG_NAME).exists()


def test_an_empty_body_is_malformed_at_a_line(study):
    name = upload_name()
    put_plain(study, name, recall_plaintext(Device(), name, LOG_NAME, b""))
    assert_refused(study, name, "^" + re.escape(f"malformed log: {LOG_NAME}:") + r"\d+: ")
