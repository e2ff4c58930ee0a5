"""Keystore state that can never repeat a keystream: one writer at a time (flock), and
messages whose nonce is a MAC of the plaintext (SIV), so a restored backup reveals at
most that two messages are equal."""
import fcntl
import os
import pathlib
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
import sms_reference as ref  # noqa: E402
from sms_helpers import make_pair  # noqa: E402


def counter_of(message):
    d = [ref.SAFE.index(c) for c in message[:4]]
    return (d[1] * ref.N + d[2]) * ref.N + d[3]


def run_many(dossier_bin, jobs):
    """Starts every (args, env, input) job at once; returns the CompletedProcess list."""
    def one(job):
        args, env, inp = job
        return subprocess.run([dossier_bin, *args], input=inp, capture_output=True, text=True,
                              env=dict(os.environ, **env), timeout=120)
    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(one, jobs))


def test_eight_parallel_encrypts_get_eight_distinct_counters(run_dossier, dossier_bin, tmp_path):
    alice, bob, _, _ = make_pair(run_dossier, tmp_path)
    jobs = [(["sms", "encrypt", "Bob", f"parallel {i}", "--keystore", alice.path, "--lock-wait", "60"], alice.env(), None)
            for i in range(8)]
    results = run_many(dossier_bin, jobs)
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    messages = [r.stdout.strip() for r in results]
    assert sorted(counter_of(m) for m in messages) == list(range(8))
    # the keystore moved on by exactly 8, and Bob reads every one
    assert counter_of(alice.encrypt("Bob", "next")) == 8
    assert sorted(bob.decrypt("Alice", m).stdout for m in messages) == sorted(f"parallel {i}\n" for i in range(8))


def test_encrypt_racing_decrypt_loses_no_state(run_dossier, dossier_bin, tmp_path):
    alice, bob, _, _ = make_pair(run_dossier, tmp_path)
    incoming = [bob.encrypt("Alice", f"from bob {i}") for i in range(4)]
    jobs = []
    for i in range(4):
        jobs.append((["sms", "encrypt", "Bob", f"from alice {i}", "--keystore", alice.path, "--lock-wait", "60"], alice.env(), None))
        jobs.append((["sms", "decrypt", "Bob", "--keystore", alice.path, "--lock-wait", "60"], alice.env(), incoming[i]))
    results = run_many(dossier_bin, jobs)
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    listing = alice.sms("contact", "list").stdout
    assert "Bob\tactive\tsent 4\treceived 4\tskipped 0" in listing
    assert counter_of(alice.encrypt("Bob", "after the race")) == 4
    for m in incoming:  # every incoming key was used exactly once: a replay is refused
        assert alice.decrypt("Bob", m, check=False).returncode == 1


def test_a_held_lock_is_reported_clearly(run_dossier, tmp_path):
    alice, _, _, _ = make_pair(run_dossier, tmp_path)
    before = pathlib.Path(alice.path).read_bytes()
    with open(alice.path + ".lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        r = alice.sms("encrypt", "Bob", "blocked", "--lock-wait", "0", check=False)
    assert r.returncode == 1 and "in use by another `dossier sms` command" in r.stderr
    assert pathlib.Path(alice.path).read_bytes() == before
    assert alice.sms("encrypt", "Bob", "free again").returncode == 0


def body(message):
    b = ref.from_digits(message[4:], 134)
    return b[:126], b[126:]


def test_restored_backup_does_not_reuse_keystream(run_dossier, tmp_path):
    alice, bob, _, _ = make_pair(run_dossier, tmp_path)
    backup = tmp_path / "alice.backup"
    shutil.copy(alice.path, backup)
    p1, p2 = "Meet at the north gate at six.", "The money is under the blue stone."
    m1 = alice.encrypt("Bob", p1)
    shutil.copy(backup, alice.path)            # restore: the send counter is 0 again
    m2 = alice.encrypt("Bob", p2)
    assert counter_of(m1) == counter_of(m2) == 0
    (c1, t1), (c2, t2) = body(m1), body(m2)
    assert t1 != t2                            # different synthetic IVs
    pad1, pad2 = (ref.pack(ref.pad(ref.septets(p))) for p in (p1, p2))
    keystream1 = bytes(a ^ b for a, b in zip(c1, pad1))
    # with a shared keystream, C2 XOR (C1 XOR P1) would be P2
    assert bytes(a ^ b for a, b in zip(c2, keystream1)) != pad2
    assert bytes(a ^ b for a, b in zip(c1, c2)) != bytes(a ^ b for a, b in zip(pad1, pad2))
    # only equality shows: the same text under the same counter gives the same message
    shutil.copy(backup, alice.path)
    assert alice.encrypt("Bob", p1) == m1
    assert bob.decrypt("Alice", m2).stdout == p2 + "\n"
    assert bob.decrypt("Alice", m1, check=False).returncode == 1   # counter 0 already used
