"""Every rejection of docs/game-telemetry.md's ingest tables, from the docs alone.

"Encrypted uploads" (envelope checks, malformed content with the device record as line 1,
one player per upload, conflicts) and "Signed uploads" (the device record, its fields,
the signature, the records' player, the pin): each bad upload is rejected with the
documented reason on standard error, exit status 1, and the database is unchanged.
Sealer and helpers: test_doc_sealed_uploads.py and test_doc_sealed_uploads_game.py.
"""
import json
import os
import re

import pytest

from test_doc_sealed_uploads import b64, seal
from test_doc_sealed_uploads_game import (PLAYER, GameDevice, game, game_keys, jl, session,  # noqa: F401
                                          survey)
from test_doc_sealed_uploads import other_keys  # noqa: F401


def flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1:]


def assert_rejected(game, path, pattern):
    before = game.dump()
    proc = game.ingest(path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    prefix = f"{path}: rejected: "
    hits = [x for x in proc.stderr.splitlines() if x.startswith(prefix)]
    assert len(hits) == 1, proc.stdout + proc.stderr
    reason = hits[0][len(prefix):]
    assert re.search(pattern, reason), (pattern, reason)
    if before is None:  # the first ingest may make the database, but stores no row of the upload
        assert not game.db.exists() or all(
            game.rows(f"SELECT count(*) FROM {t}") == [(0,)] for t in ("surveys", "sessions", "events", "uploads",
                                                                        "devices"))
    else:
        assert game.dump() == before
    assert path.exists()
    return reason


def good(game, body=None, player=PLAYER):
    return seal(game.pub, GameDevice().plaintext(player, body or jl(session(player=player))))


# MARK: - the envelope

@pytest.mark.parametrize("data", [b"RMU2" + b"\0" * 600, b"\0" * 600, b"{}\n"], ids=["rmu2", "zeros", "json"])
def test_not_rmu1_is_not_a_rocketmouse_upload(game, data):
    assert_rejected(game, game.put(data), r"^not a RocketMouse upload \(the first bytes are not RMU1\)$")


@pytest.mark.parametrize("cut", ["length", "header", "nonce", "tag-1"])
def test_too_short_for_header_nonce_and_tag_is_truncated(game, cut):
    data = good(game)
    w = int.from_bytes(data[4:6], "big")
    keep = {"length": 6, "header": 6 + w, "nonce": 6 + w + 12, "tag-1": 6 + w + 27}[cut]
    assert_rejected(game, game.put(data[:keep]), r"^the upload is truncated$")


@pytest.mark.parametrize("keep", [4, 5])
def test_only_the_magic_is_truncated(game, keep):
    """A file that starts with RMU1 but is shorter than header, nonce and tag is truncated, not another format."""
    assert_rejected(game, game.put(good(game)[:keep]), r"^the upload is truncated$")


def test_another_study_key_cannot_be_unwrapped(game, other_keys):
    data = seal(other_keys[1], GameDevice().plaintext(PLAYER, jl(session())))
    assert_rejected(game, game.put(data), r"^cannot unwrap the data key: the upload was sealed to a different study "
                                          r"key, or its key block was altered$")


def test_an_altered_key_block_cannot_be_unwrapped(game):
    assert_rejected(game, game.put(flip(good(game), 10)), r"^cannot unwrap the data key: ")


@pytest.mark.parametrize("size", [16, 31])
def test_a_short_data_key_has_the_wrong_length(game, size):
    data = seal(game.pub, GameDevice().plaintext(PLAYER, jl(session())), data_key=os.urandom(size))
    assert_rejected(game, game.put(data), r"^the wrapped data key has the wrong length$")


@pytest.mark.parametrize("where", ["nonce", "ciphertext", "tag", "cut"])
def test_an_altered_nonce_ciphertext_or_tag_fails_authentication(game, where):
    data = good(game)
    w = int.from_bytes(data[4:6], "big")
    data = data[:-1] if where == "cut" else flip(data, {"nonce": 6 + w, "ciphertext": 6 + w + 14,
                                                        "tag": len(data) - 1}[where])
    assert_rejected(game, game.put(data), r"^authentication failed: the upload was altered or truncated$")


def test_a_file_over_256_mib_is_rejected_unread(game):
    path = game.uploads / "big.rmu"
    with open(path, "wb") as f:
        f.truncate(268_435_457)
    assert_rejected(game, path, r"^the file is longer than 268435456 bytes \(256 MiB\), more than any upload may "
                                r"be; not read further$")


def test_a_folder_named_like_an_upload_cannot_be_read(game):
    path = game.uploads / "dir.rmu"
    path.mkdir()
    proc = game.ingest(game.uploads)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{path}: rejected: cannot read the file" in proc.stderr.splitlines()


# MARK: - the device record

def put_plain(game, plain: bytes):
    return game.put(seal(game.pub, plain))


@pytest.mark.parametrize("first", [json.dumps(session()), "not json", '{"type":"recall-session"}'])
def test_a_first_line_that_is_not_a_device_record_is_unsigned(game, first):
    path = put_plain(game, first.encode() + b"\n" + jl(session()))
    assert_rejected(game, path, r"^unsigned upload: the first record must be the device record")


FIELD_CASES = [
    ("player", lambda r: r.update(player="bad id!")), ("player", lambda r: r.update(player="x" * 65)),
    ("signing_key", lambda r: r.update(signing_key=b64(os.urandom(31)))),
    ("result_key", lambda r: r.update(result_key=b64(os.urandom(33)))),
    ("signature", lambda r: r.update(signature=b64(os.urandom(63)))),
    ("result_key", lambda r: r.pop("result_key")), ("extra", lambda r: r.update(extra="x")),
]


@pytest.mark.parametrize("field,edit", FIELD_CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(FIELD_CASES)])
def test_a_bad_device_record_field_is_named(game, field, edit):
    path = put_plain(game, GameDevice().plaintext(PLAYER, jl(session()), edit=edit))
    reason = assert_rejected(game, path, ".")
    if field == "extra":  # naming the five fields it needs counts as naming the field
        assert "extra" in reason or re.search(r"needs exactly .*type.*player.*signing_key.*result_key.*signature",
                                              reason), reason
    else:
        assert field in reason


def test_a_device_record_field_twice_is_named(game):
    plain = GameDevice().plaintext(PLAYER, jl(session()))
    first, body = plain.split(b"\n", 1)
    path = put_plain(game, first[:-1] + b',"player":"' + PLAYER.encode() + b'"}\n' + body)
    reason = assert_rejected(game, path, ".")
    assert "player" in reason and "twice" in reason


def test_a_changed_body_does_not_verify(game):
    plain = GameDevice().plaintext(PLAYER, jl(session()), signed_body=jl(session(score=482)))
    assert_rejected(game, put_plain(game, plain), r"^the signature does not verify with the upload's signing key: "
                                                  r"the content was altered or forged$")


def test_a_changed_result_key_does_not_verify(game):
    plain = GameDevice().plaintext(PLAYER, jl(session()), edit=lambda r: r.update(result_key=b64(os.urandom(32))))
    assert_rejected(game, put_plain(game, plain), r"^the signature does not verify")


def test_records_for_another_player_than_the_device_record(game):
    plain = GameDevice().plaintext(PLAYER, jl(session(player="ffffffffffff")))
    assert_rejected(game, put_plain(game, plain), rf"^the records are for player ffffffffffff but the device "
                                                  rf"record names {PLAYER}$")


def test_two_players_in_one_upload_are_rejected_whole(game):
    plain = GameDevice().plaintext(PLAYER, jl(session(), session(player="ffffffffffff")))
    reason = assert_rejected(game, put_plain(game, plain), ".")
    assert (reason.startswith("the upload holds records for 2 players")
            or reason == f"the records are for player ffffffffffff but the device record names {PLAYER}"), reason


def test_another_key_for_a_pinned_player(game):
    assert game.ingest(game.put(good(game))).returncode == 0
    path = game.put(seal(game.pub, GameDevice().plaintext(PLAYER, jl(session(number=2)))))
    assert_rejected(game, path, rf"^player {PLAYER} is pinned to another device's signing key \(trust on first "
                                rf"use\): this upload is signed by a different key$")


# MARK: - the body

BODIES = [
    ("second-body-line", jl(session()) + b'{"type":"survey","player":"' + PLAYER.encode() + b'","complete":"yes"}\n',
     3),
    ("not-utf8", jl(session()) + b'{"type":"survey","player":"\xff"}\n', 3),
    ("after-a-blank-line", jl(session()) + b"\n" + jl(session(number=2, score=-5)), 4),
    ("unknown-field", jl(session(colour="red")), 2),
    ("negative-score", jl(session(score=-1)), 2),
]


@pytest.mark.parametrize("label,body,line", BODIES, ids=[b[0] for b in BODIES])
def test_malformed_content_counts_the_device_record_as_line_1(game, label, body, line):
    path = put_plain(game, GameDevice().plaintext(PLAYER, body))
    assert_rejected(game, path, rf"^malformed content: line {line}[:,]")


# game-telemetry.md ingest table: a byte that is not UTF-8 is named with its byte column in the line
NOT_UTF8 = [("ff", b"\xff", "0xFF"), ("lone-continuation", b"\x80", "0x80"), ("overlong", b"\xc0\x80", "0xC0"),
            ("surrogate", b"\xed\xa0\x80", "0xED"), ("cut-short", b"\xe2\x82", "0xE2")]


@pytest.mark.parametrize("label,bad,hexa", NOT_UTF8, ids=[n[0] for n in NOT_UTF8])
def test_a_byte_that_is_not_utf8_is_named_at_its_line(game, label, bad, hexa):
    prefix = b'{"type":"survey","player":"'
    path = put_plain(game, GameDevice().plaintext(PLAYER, jl(session()) + prefix + bad + b'"}\n'))
    assert_rejected(game, path, rf"^malformed content: line 3: byte {len(prefix) + 1} of the line \({hexa}\) is "
                                r"not UTF-8; save the file as UTF-8$")


def test_a_json_syntax_error_names_line_and_column(game):
    path = put_plain(game, GameDevice().plaintext(PLAYER, jl(session()) + b'{"type":"survey",,}\n'))
    assert_rejected(game, path, r"^malformed content: line 3, column \d+: ")


def test_an_empty_body_is_rejected(game):
    """Not one player's records (game-telemetry.md: 'exactly one player'); the wording is not documented."""
    assert_rejected(game, put_plain(game, GameDevice().plaintext(PLAYER, b"")), ".")


def test_different_data_for_a_stored_session_rejects_the_whole_upload(game):
    dev = GameDevice()
    assert game.ingest(game.put_sealed(dev, PLAYER, jl(session()))).returncode == 0
    path = game.put_sealed(dev, PLAYER, jl(session(number=2), session(score=1)))
    assert_rejected(game, path, rf"^player {PLAYER} session 1: different data is already stored$")
    assert game.rows("SELECT session FROM sessions") == [(1,)]


def test_a_different_complete_survey_is_rejected(game):
    dev = GameDevice()
    assert game.ingest(game.put_sealed(dev, PLAYER, jl(survey()))).returncode == 0
    assert_rejected(game, game.put_sealed(dev, PLAYER, jl(survey(age=25))), r"already stored$")


def test_a_different_complete_survey_has_the_documented_reason(game):
    dev = GameDevice()
    assert game.ingest(game.put_sealed(dev, PLAYER, jl(survey()))).returncode == 0
    path = game.put_sealed(dev, PLAYER, jl(survey(age=25)))
    assert_rejected(game, path, rf"^player {PLAYER}: a different complete survey is already stored$")


def test_a_session_contradicting_the_model_of_its_seed_is_rejected(game):
    path = game.put_sealed(GameDevice(), PLAYER, jl(survey(), session(seed=1)))
    assert_rejected(game, path, r"line 3: session 1 contradicts the game model \(seed 1\): obstacles differ at "
                                r"\w+ 1: recorded .+, the model gives ")
