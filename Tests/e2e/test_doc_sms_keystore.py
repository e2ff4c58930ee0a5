"""docs/securesms-keystore.md, checked like an independent implementation would: the file
is written and read here from the doc alone (sms_keystore_oracle.py), then dossier must
read ours and write what the doc says. Complements Tests/e2e/test_doc_sms_protocol_keystore.py
(which checks the fields, the AAD example, bounds by field name, lockout with a real clock,
passwd's salt/cost, weak passwords, leftovers, version-1 contacts): here the exact bytes,
nonces, the AAD from the reading side, exact messages, hostile files and the path rules."""
import base64
import json
import os
import unicodedata

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import doc_sms_impl as s
import sms_keystore_oracle as o


@pytest.fixture
def ks(tmp_path):
    path = tmp_path / "k.keystore"
    o.write_keystore(path, o.payload(o.contact("Bob")))
    return path


@pytest.fixture
def sms(dossier_bin, ks):
    return o.Sms(dossier_bin, ks)


def rewrite(ks, change):
    env = o.read_env(ks)
    change(env)
    ks.write_bytes(o.dossier_json(env))
    return ks.read_bytes()


def test_envelope_bytes_are_sorted_pretty_json_with_final_newline(sms, ks):
    """'UTF-8 JSON, keys sorted, pretty-printed (two-space indent, "key" : value …), final
    newline, file mode 0600' — byte for byte, also while a lock is set (locked_until)."""
    sms.run("contact", "edit", "Bob", "--name", "Rob")
    raw = ks.read_bytes()
    assert raw == o.dossier_json(json.loads(raw))
    rewrite(ks, lambda e: e["lockout"].__setitem__("failures", 2))
    sms.run("contact", "list", env={"DOSSIER_SMS_PASSWORD": "not-it", "DOSSIER_SMS_NOW": "2026-01-01T10:00:00Z"}, rc=1)
    raw = ks.read_bytes()
    assert raw == o.dossier_json(json.loads(raw)) and b'"locked_until" : "2026-01-01T10:05:00Z"' in raw
    assert os.stat(ks).st_mode & 0o777 == 0o600


def test_every_save_seals_with_a_fresh_random_nonce(sms, ks):
    """'payload = AES-256-GCM(key, random 96-bit nonce, …)': saves under the same key never
    reuse a nonce; the stored payload is nonce (12) ‖ ciphertext ‖ tag (16)."""
    env = o.read_env(ks)
    nonces, salts = {base64.b64decode(env["payload"])[:12]}, {env["kdf"]["salt"]}
    for old, new in (("Bob", "Rob"), ("Rob", "Bobby")):
        sms.run("contact", "edit", old, "--name", new)
        env = o.read_env(ks)
        blob = base64.b64decode(env["payload"])
        nonces.add(blob[:12])
        salts.add(env["kdf"]["salt"])
        _, key, aad = s.keystore_keys(env, o.PW)
        assert json.loads(AESGCM(key).decrypt(blob[:12], blob[12:], aad))["contacts"][0]["name"] == new
    assert len(nonces) == 3 and len(salts) == 1


@pytest.mark.parametrize("variant", ["as documented", "no final space", "salt as base64 text", "no salt"])
def test_associated_data_is_checked_when_reading(sms, ks, variant):
    """'associated data = "securesms-keystore/1 scrypt <log2n> <r> <p> " ‖ salt … the salt's
    raw bytes … not their base64 text': a payload sealed with any other AAD does not open."""
    env = o.read_env(ks)
    _, key, aad = s.keystore_keys(env, o.PW)
    salt, text = base64.b64decode(env["kdf"]["salt"]), env["kdf"]["salt"].encode()
    assert aad == b"securesms-keystore/1 scrypt 10 8 1 " + salt
    used = {"as documented": aad, "no final space": aad[:34] + salt,
            "salt as base64 text": aad[:35] + text, "no salt": aad[:35]}[variant]
    nonce = os.urandom(12)
    env["payload"] = o.b64(nonce + AESGCM(key).encrypt(nonce, json.dumps(o.payload(o.contact("Zed"))).encode(), used))
    ks.write_bytes(o.dossier_json(env))
    rc, out, err = sms.run("contact", "list", rc=None)
    if variant == "as documented":
        assert rc == 0 and out.startswith("Zed\t")
    else:
        assert rc == 1 and str(ks) in err and out == ""


@pytest.mark.parametrize("field,value,allowed", [
    ("p", 1000000, "1…16"), ("r", -9223372036854775808, "1…32")])
def test_bounds_message_names_path_field_and_value(sms, ks, field, value, allowed):
    """'a file outside these bounds is refused with its path and the field
    (`…/k.keystore: kdf.p = 1000000 is outside 1…16`)' — exit 1, before any work (not counted)."""
    before = rewrite(ks, lambda e: e["kdf"].__setitem__(field, value))
    _, _, err = sms.run("contact", "list", rc=1)
    assert f"{ks}: kdf.{field} = {value} is outside {allowed}" in err
    assert ks.read_bytes() == before


@pytest.mark.parametrize("literal", ["9223372036854775808", "-9223372036854775809"])
def test_number_beyond_int64_is_refused_without_a_field(sms, ks, literal):
    """'A number that … does not fit a signed 64-bit integer (… `9223372036854775808`) is
    reported as "not a SecureSMS keystore" without a field'."""
    raw = ks.read_bytes().replace(b'"failures" : 0', b'"failures" : ' + literal.encode())
    ks.write_bytes(raw)
    _, _, err = sms.run("contact", "list", rc=1)
    assert err.strip().endswith(f"{ks}: not a SecureSMS keystore") and "failures" not in err
    assert ks.read_bytes() == raw


@pytest.mark.parametrize("key,value,word", [
    ("locked_until", 12345, "is not valid"), ("locked_until", "tomorrow", "is not valid"),
    ("max_failures", "three", "is not valid"), ("lock_seconds", None, "is missing")])
def test_wrong_type_or_missing_names_the_files_own_field_path(sms, ks, key, value, word):
    """'A field of the wrong type or a missing field is reported as "not a SecureSMS keystore
    (FIELD is not valid)" / "(FIELD is missing)", FIELD its path such as `kdf.log2n`' — the
    path of the file's keys (lockout.locked_until), not another spelling of them."""
    def change(env):
        if value is None:
            del env["lockout"][key]
        else:
            env["lockout"][key] = value
    rewrite(ks, change)
    _, _, err = sms.run("contact", "list", rc=1)
    assert f"{ks}: not a SecureSMS keystore (lockout.{key} {word})" in err, err


def hostile(raw):
    return {"empty": b"", "truncated": raw[: len(raw) // 2], "not UTF-8": b"\xff\xfe" + raw[2:],
            "NUL inside": raw.replace(b'"format"', b'"for\x00mat"'),
            "format differs": raw.replace(b"securesms-keystore", b"securesms-vault")}


@pytest.mark.parametrize("case", ["empty", "truncated", "not UTF-8", "NUL inside", "format differs"])
def test_hostile_files_are_refused_unchanged_and_uncounted(sms, ks, case):
    """Bounds: 'every value is checked before any work is done' — a file that is not a
    keystore is 'not a SecureSMS keystore' (exit 1, the path named) and stays as it was."""
    raw = hostile(ks.read_bytes())[case]
    ks.write_bytes(raw)
    rc, out, err = sms.run("contact", "list", rc=1)
    assert out == "" and f"{ks}: not a SecureSMS keystore" in err
    assert ks.read_bytes() == raw


def test_version_2_is_refused_naming_the_file(sms, ks):
    """Envelope `"version": 1`: another version is refused (exit 1, path named), not counted."""
    raw = rewrite(ks, lambda e: e.__setitem__("version", 2))
    _, _, err = sms.run("contact", "list", rc=1)
    assert str(ks) in err and "version" in err and ks.read_bytes() == raw


def test_flipped_payload_byte_is_damage_not_a_wrong_password(sms, ks):
    """Lockout step 4: with the right verifier the count is reset (the file's own bytes),
    'then decrypt the payload' — a flipped ciphertext byte fails there, counting nothing."""
    def flip(env):
        blob = bytearray(base64.b64decode(env["payload"]))
        blob[20] ^= 0x01
        env["payload"] = o.b64(bytes(blob))
    raw = rewrite(ks, flip)
    _, _, err = sms.run("contact", "list", rc=1)
    assert str(ks) in err and "wrong password" not in err
    assert ks.read_bytes() == raw


def test_flipped_verifier_byte_is_a_counted_wrong_password(sms, ks):
    """Step 3: 'Derive the verifier. If it differs, report the wrong password (and how many
    tries are left); the count saved in step 2 stands'."""
    def flip(env):
        v = bytearray(base64.b64decode(env["verifier"]))
        v[31] ^= 0x80
        env["verifier"] = o.b64(bytes(v))
    rewrite(ks, flip)
    _, _, err = sms.run("contact", "list", rc=1)
    assert f"{ks}: wrong password" in err and "2" in err
    assert o.read_env(ks)["lockout"]["failures"] == 1


@pytest.mark.parametrize("body", [b'{"account": "Secret-Account-Text-77", "contacts": [', b"\xffSecret-Account-Text-77"])
def test_unreadable_payload_is_reported_without_quoting_it(sms, ks, body):
    """A payload that decrypts but is not the documented JSON is refused (exit 1, the file
    named) and the error quotes none of its decrypted contents."""
    o.write_keystore(ks, None, raw=body)
    rc, out, err = sms.run("contact", "list", rc=1)
    assert str(ks) in err and "Secret-Account" not in out + err


def test_null_optional_values_are_read_and_written_back_absent(sms, ks):
    """Payload: 'Absent optional values are absent keys, not null … readers accept null too'."""
    c = o.contact("Bob", resynced_at=None, last_sent_at=None, last_received_at=None)
    pl = o.payload(c)
    pl["password_changed_at"] = None
    o.write_keystore(ks, pl)
    sms.run("encrypt", "Bob", "hi")
    after = o.open_payload(ks)
    assert "password_changed_at" not in after
    (c2,) = after["contacts"]
    assert "resynced_at" not in c2 and "last_received_at" not in c2 and c2["send"]["next"] == 1
    assert None not in c2.values()


def test_passwd_keeps_r_p_and_lockout_and_seals_the_nfc_password(sms, ks):
    """'Changing the password … draws a new salt, re-seals, and keeps the keystore's cost';
    'master = scrypt(password as NFC UTF-8, …)' — a new password typed in NFD opens as NFC."""
    o.write_keystore(ks, o.payload(o.contact("Bob")), log2n=11, r=4, p=2,
                     lockout={"failures": 0, "max_failures": 7, "lock_seconds": 99})
    new = "Ünïcödé-Pässphrase-8842-ölm"
    sms.run("passwd", "--allow-weak", env={"DOSSIER_SMS_NEW_PASSWORD": unicodedata.normalize("NFD", new)})
    env, pl = s.open_keystore(ks, new)
    assert (env["kdf"]["log2n"], env["kdf"]["r"], env["kdf"]["p"]) == (11, 4, 2)
    assert env["lockout"] == {"failures": 0, "max_failures": 7, "lock_seconds": 99}
    assert pl["contacts"][0]["name"] == "Bob" and "password_changed_at" in pl


@pytest.mark.parametrize("case", ["flag beats env", "env beats XDG", "XDG when home file missing",
                                  "home file beats XDG", "relative XDG ignored"])
def test_keystore_path_resolution(dossier_bin, tmp_path, case):
    """'`--keystore PATH`, else `$DOSSIER_SMS_KEYSTORE`, else `$XDG_DATA_HOME/dossier/sms.keystore`
    when `XDG_DATA_HOME` is an absolute path and `$HOME/.dossier/sms.keystore` does not exist,
    else `$HOME/.dossier/sms.keystore`'."""
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    env = {"HOME": str(home), "XDG_DATA_HOME": str(xdg)}
    args = []
    home_file = home / ".dossier" / "sms.keystore"
    if case == "flag beats env":
        args, env["DOSSIER_SMS_KEYSTORE"], want = ["--keystore", str(tmp_path / "f.keystore")], str(tmp_path / "e"), \
            tmp_path / "f.keystore"
    elif case == "env beats XDG":
        env["DOSSIER_SMS_KEYSTORE"] = want = tmp_path / "e.keystore"
    elif case == "XDG when home file missing":
        want = xdg / "dossier" / "sms.keystore"
    elif case == "home file beats XDG":
        home_file.parent.mkdir()
        o.write_keystore(home_file, o.payload(o.contact("Home")))
        want = home_file
    else:
        env["XDG_DATA_HOME"], want = "xdg", home_file
    env = {k: str(v) for k, v in env.items()}
    sms = o.Sms(dossier_bin, None)
    if want.exists():
        _, out, _ = sms.run("contact", "list", *args, env=env, keystore=False)
        assert out.startswith("Home\t")
    else:
        _, _, err = sms.run("init", "--kdf-log2n", "10", "--allow-weak", *args, env=env, keystore=False,
                            cwd=tmp_path)
        assert str(want) in err and want.is_file()
        made = [p for p in tmp_path.rglob("*.keystore")] + [p for p in tmp_path.rglob("sms.keystore")]
        assert set(made) == {want}
