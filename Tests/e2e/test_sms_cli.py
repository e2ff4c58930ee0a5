"""SecureSMS through the CLI: contacts, round trips, tampering, replay, loss, lockout."""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
from sms_helpers import Party, connect, make_pair  # noqa: E402


def test_round_trip_tamper_replay_and_reorder(run_dossier, tmp_path):
    alice, bob, _, _ = make_pair(run_dossier, tmp_path)
    m1 = alice.encrypt("Bob", "First: meet at 6.")
    m2 = alice.encrypt("Bob", "Second, with €uro [brackets]")
    m3 = alice.encrypt("Bob", "Third")
    for m in (m1, m2, m3):
        assert len(m) == 160
    # out of order: 3 first, then 1; 2 is "lost" for now
    assert bob.decrypt("Alice", m3).stdout == "Third\n"
    before = (tmp_path / "bob.keystore").read_bytes()
    tampered = m1[:50] + ("A" if m1[50] != "A" else "B") + m1[51:]
    bad = bob.decrypt("Alice", tampered, check=False)
    assert bad.returncode == 1
    assert "not from this contact, or damaged" in bad.stderr
    assert (tmp_path / "bob.keystore").read_bytes() == before  # no state change, not even a re-save
    assert bob.decrypt("Alice", m1).stdout == "First: meet at 6.\n"
    again = bob.decrypt("Alice", m1, check=False)
    assert again.returncode == 1 and "replayed" in again.stderr
    assert bob.decrypt("Alice", m2).stdout == "Second, with €uro [brackets]\n"
    listing = bob.sms("contact", "list").stdout
    assert "Alice\tactive\tsent 0\treceived 3\tskipped 0" in listing
    # a message pasted with line breaks and spaces still decrypts
    m4 = bob.encrypt("Alice", "ok")
    assert alice.decrypt("Bob", m4[:80] + "\n  " + m4[80:] + "\n").stdout == "ok\n"


def test_too_long_and_non_gsm_are_rejected_without_touching_the_keystore(run_dossier, tmp_path):
    alice, _, _, _ = make_pair(run_dossier, tmp_path)
    before = (tmp_path / "alice.keystore").read_bytes()
    r = alice.sms("encrypt", "Bob", "x" * 145, check=False)
    assert r.returncode == 1 and "145 septets" in r.stderr
    r = alice.sms("encrypt", "Bob", "emoji 🙂", check=False)
    assert r.returncode == 1 and "character 7" in r.stderr and "🙂" not in r.stderr
    assert (tmp_path / "alice.keystore").read_bytes() == before


def test_contact_edit_remove_resync(run_dossier, tmp_path):
    alice, bob, _, _ = make_pair(run_dossier, tmp_path)
    old = alice.encrypt("Bob", "before resync")
    alice.sms("contact", "edit", "Bob", "--name", "Robert")
    assert "Robert\tactive" in alice.sms("contact", "list").stdout
    # resync: a fresh key exchange; until it completes the old chains keep working
    alice.add_later("Robert", command="resync")
    assert "Robert\tresyncing" in alice.sms("contact", "list").stdout
    connect(alice, "Alice", bob, "Robert", command="resync")
    assert bob.decrypt("Alice", old, check=False).returncode == 1  # old chain is gone
    assert bob.decrypt("Alice", alice.encrypt("Robert", "after resync")).stdout == "after resync\n"
    alice.sms("contact", "rm", "Robert")
    assert alice.sms("contact", "list").stdout == ""
    r = alice.sms("encrypt", "Robert", "x", check=False)
    assert r.returncode == 1 and "no contact named" in r.stderr


def test_three_wrong_passwords_lock_across_restarts(run_dossier, tmp_path):
    p = Party(run_dossier, tmp_path / "k.keystore", now="2026-01-01T10:00:00Z")
    p.init("me", "--lock-seconds", "120")
    for left in (2, 1):
        r = p.sms("contact", "list", check=False, DOSSIER_SMS_PASSWORD="wrong")
        assert r.returncode == 1 and f"{left} more" in r.stderr
    r = p.sms("contact", "list", check=False, DOSSIER_SMS_PASSWORD="wrong")
    assert r.returncode == 1 and "locked" in r.stderr
    envelope = json.loads((tmp_path / "k.keystore").read_text())
    assert envelope["lockout"]["locked_until"] == "2026-01-01T10:02:00Z"
    # every call is a new process: the right password is refused until the lock ends
    r = p.sms("contact", "list", check=False, DOSSIER_SMS_NOW="2026-01-01T10:01:59Z")
    assert r.returncode == 1 and "locked" in r.stderr and "2026-01-01T10:02:00Z" in r.stderr
    assert p.sms("contact", "list", DOSSIER_SMS_NOW="2026-01-01T10:02:00Z").returncode == 0


def test_keystore_at_rest_holds_no_plain_names_or_keys(run_dossier, tmp_path):
    alice, _, key_a, key_b = make_pair(run_dossier, tmp_path)
    alice.encrypt("Bob", "a very secret sentence")
    raw = (tmp_path / "alice.keystore").read_text()
    for s in ("Bob", "alice", key_a, key_b, "secret sentence", alice.password):
        assert s not in raw
    assert oct((tmp_path / "alice.keystore").stat().st_mode & 0o777) == "0o600"


def test_every_basic_character_survives_the_cli(run_dossier, dossier_bin, tmp_path):
    """All 127 basic characters (CR and LF included) plus the 9 extension ones, as bytes
    through stdin/stdout, over two messages (127 + 18 septets > 144)."""
    import os
    import subprocess

    import gsm0338  # noqa: F401
    alice, bob, _, _ = make_pair(run_dossier, tmp_path)
    basic = "".join(bytes([c]).decode("gsm03.38") for c in range(128) if c != 0x1B)
    for text in (basic, "^{}\\[~]|€"):
        enc = subprocess.run([dossier_bin, "sms", "encrypt", "Bob", "--keystore", alice.path], input=text.encode() + b"\n",
                             capture_output=True, env=dict(os.environ, **alice.env()), check=True).stdout
        dec = subprocess.run([dossier_bin, "sms", "decrypt", "Alice", "--keystore", bob.path], input=enc,
                             capture_output=True, env=dict(os.environ, **bob.env()), check=True).stdout
        assert dec == text.encode() + b"\n"
