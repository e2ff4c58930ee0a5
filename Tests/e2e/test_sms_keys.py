"""Keys agreed in public: X25519 key messages, a safety number compared by voice, a
substituted key refused, resync as a fresh exchange. (The independent Python peer that
runs the exchange with the CLI is in test_sms_vectors.py.)"""
import json
import pathlib
import sys

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
import sms_reference as ref  # noqa: E402
from sms_helpers import KEY_RE, NUMBER_RE, STRONG, Party, connect, make_pair  # noqa: E402


def test_substituted_key_shows_a_mismatch_and_is_refused(run_dossier, tmp_path):
    alice = Party(run_dossier, tmp_path / "a.keystore")
    bob = Party(run_dossier, tmp_path / "b.keystore", password=STRONG + " b")
    alice.init("alice")
    bob.init("bob")
    ka, kb = alice.add_later("Bob"), bob.add_later("Alice")
    # Mallory intercepts both key messages and forwards her own
    m1 = ref.key_message(ref.public_bytes(X25519PrivateKey.generate()))
    m2 = ref.key_message(ref.public_bytes(X25519PrivateKey.generate()))
    seen_by_alice = NUMBER_RE.search(alice.sms("contact", "add", "Bob", "--key", m1).stdout).group(1)
    seen_by_bob = NUMBER_RE.search(bob.sms("contact", "add", "Alice", "--key", m2).stdout).group(1)
    assert seen_by_alice != seen_by_bob
    before = pathlib.Path(alice.path).read_bytes()
    r = alice.finish("Bob", m1, seen_by_bob, check=False)      # Bob reads out his number: it differs
    assert r.returncode == 1 and "safety numbers differ" in r.stderr
    assert pathlib.Path(alice.path).read_bytes() == before     # nothing agreed, nothing written
    assert "Bob\tpending" in alice.sms("contact", "list").stdout
    r = alice.sms("encrypt", "Bob", "hello", check=False)
    assert r.returncode == 1 and "key exchange" in r.stderr
    # the genuine exchange still works afterwards (the own key message is unchanged)
    assert alice.add_later("Bob") == ka
    number = ref.safety_number(ref.parse_key_message(ka), ref.parse_key_message(kb))
    bob.finish("Alice", ka, number)
    alice.finish("Bob", kb, number)
    assert bob.decrypt("Alice", alice.encrypt("Bob", "genuine")).stdout == "genuine\n"


def test_key_messages_and_errors(run_dossier, tmp_path):
    alice = Party(run_dossier, tmp_path / "a.keystore")
    alice.init("alice")
    ka = alice.add_later("Bob")
    assert len(ka) == len("SecureSMS-key:") + 40
    assert all(c in ref.SAFE for c in ka[len("SecureSMS-key:"):])
    r = alice.sms("contact", "add", "Bob", "--key", ka, check=False)
    assert r.returncode == 1 and "your own key message" in r.stderr
    damaged = ka[:-1] + (ref.SAFE[0] if ka[-1] != ref.SAFE[0] else ref.SAFE[1])
    r = alice.sms("contact", "add", "Bob", "--key", damaged, check=False)
    assert r.returncode == 1 and "damaged or mistyped" in r.stderr
    # line breaks and spaces in the paste are ignored
    other = ref.key_message(ref.public_bytes(X25519PrivateKey.generate()))
    out = alice.sms("contact", "add", "Bob", "--key", other[:20] + "\n " + other[20:]).stdout
    assert NUMBER_RE.search(out)


def test_resync_is_a_fresh_exchange_that_heals_a_stolen_keystore(run_dossier, tmp_path):
    alice, bob, ka, kb = make_pair(run_dossier, tmp_path)
    stolen = tmp_path / "stolen.keystore"
    stolen.write_bytes(pathlib.Path(bob.path).read_bytes())
    thief = Party(run_dossier, stolen, password=bob.password)
    m = alice.encrypt("Bob", "before")
    assert thief.decrypt("Alice", m).stdout == "before\n"          # a stolen copy reads the old chain
    ka2, kb2 = connect(alice, "Alice", bob, "Bob", command="resync")
    assert (ka2, kb2) != (ka, kb)
    after = [alice.encrypt("Bob", t) for t in ("after the resync", "and again")]
    assert [bob.decrypt("Alice", m).stdout for m in after] == ["after the resync\n", "and again\n"]
    # counter 1 is new to the stolen copy too: its old chain does not verify it
    r = thief.decrypt("Alice", after[1], check=False)
    assert r.returncode == 1 and "not from this contact" in r.stderr and "again" not in r.stdout


def test_envelope_records_the_cost_and_omits_an_unset_lock(run_dossier, tmp_path):
    alice, _, _, _ = make_pair(run_dossier, tmp_path)
    env = json.loads(pathlib.Path(alice.path).read_text())
    assert env["version"] == 1 and env["kdf"]["log2n"] == 10 and "locked_until" not in env["lockout"]


def test_a_keystore_of_the_contact_code_era_keeps_working_and_says_to_resync(run_dossier, tmp_path):
    """v1-alice.keystore is the demo keystore as protocol version 1 wrote it (chains from
    contact codes; Carol pending with a code). Password: demo-only-not-a-secret."""
    path = tmp_path / "alice.keystore"
    path.write_bytes((pathlib.Path(__file__).parent / "test_sms_support" / "v1-alice.keystore").read_bytes())
    alice = Party(run_dossier, path, password="demo-only-not-a-secret")
    r = alice.sms("contact", "list")
    assert "Bob\tactive" in r.stdout and "Carol\tpending" in r.stdout
    assert "contact codes" in r.stderr and "resync Bob" in r.stderr
    r = alice.sms("encrypt", "Bob", "still readable by Bob's v1 chain")
    assert len(r.stdout.strip()) == 160 and "resync Bob" in r.stderr
    r = alice.sms("contact", "add", "Carol", "--later")
    assert "Contact codes are no longer used" in r.stderr and KEY_RE.search(r.stdout)
