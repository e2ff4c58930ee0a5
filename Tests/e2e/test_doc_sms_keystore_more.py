"""docs/securesms-keystore.md, the seams: lockout with the test clock, the try counted
before the slow check (process killed there), saves after encrypt/decrypt, one writer at
a time (the lock held here as another command would), a keystore replaced while a
command waits, leftovers, read-only folders, and no secret anywhere but the keystore."""
import base64
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

import pytest

import doc_sms_impl as s
import sms_keystore_oracle as o
from test_doc_sms_keystore import ks, sms  # noqa: F401 (fixtures)

NOW = "2026-01-01T10:00:00Z"
WRONG = {"DOSSIER_SMS_PASSWORD": "not-the-password-1234"}


def lockout(ks):
    return o.read_env(ks)["lockout"]


def test_third_wrong_try_locks_until_now_plus_lock_seconds(sms, ks):
    """Step 2: 'when that reaches max_failures (3), with failures = 0 and locked_until = now +
    lock_seconds' (e.g. "2026-01-01T10:02:00Z" for lock_seconds 120 at 10:00:00)."""
    o.write_keystore(ks, o.payload(), lockout={"failures": 2, "max_failures": 3, "lock_seconds": 120})
    _, _, err = sms.run("contact", "list", env={**WRONG, "DOSSIER_SMS_NOW": NOW}, rc=1)
    assert f"{ks}: wrong password" in err
    assert lockout(ks) == {"failures": 0, "max_failures": 3, "lock_seconds": 120,
                           "locked_until": "2026-01-01T10:02:00Z"}


@pytest.mark.parametrize("now,opens", [("2026-01-01T10:01:59Z", False), ("2026-01-01T10:02:00Z", True),
                                       ("2026-01-01T11:00:00Z", True)])
def test_lock_in_the_future_refuses_a_lapsed_one_is_cleared(sms, ks, now, opens):
    """Step 1: 'If locked_until is in the future: refuse without looking at the password. (A
    locked_until in the past is a lapsed lock: cleared by step 4.)'"""
    o.write_keystore(ks, o.payload(o.contact("Bob")),
                     lockout={"failures": 0, "max_failures": 3, "lock_seconds": 120, "locked_until": "2026-01-01T10:02:00Z"})
    before = ks.read_bytes()
    if opens:
        _, out, _ = sms.run("contact", "list", env={"DOSSIER_SMS_NOW": now})
        assert out.startswith("Bob\t") and lockout(ks) == {"failures": 0, "max_failures": 3, "lock_seconds": 120}
    else:
        for env in ({}, WRONG):   # the password is not looked at: a wrong one is not counted either
            _, _, err = sms.run("contact", "list", env={**env, "DOSSIER_SMS_NOW": now}, rc=1)
            assert str(ks) in err and "2026-01-01T10:02:00Z" in err
        assert ks.read_bytes() == before


def test_tries_left_count_down_from_the_files_max_failures(sms, ks):
    """Step 3: 'report the wrong password (and how many tries are left)' — with the file's
    lockout.max_failures (here 4), not the default 3."""
    o.write_keystore(ks, o.payload(), lockout={"failures": 0, "max_failures": 4, "lock_seconds": 60})
    lefts = []
    for i in range(3):
        _, _, err = sms.run("contact", "list", env=WRONG, rc=1)
        lefts.append([int(w) for w in err.replace("(", " ").split() if w.isdigit()])
        assert lockout(ks)["failures"] == i + 1
    assert lefts == [[3], [2], [1]]
    sms.run("contact", "list", env=WRONG, rc=1)
    assert lockout(ks)["failures"] == 0 and "locked_until" in lockout(ks)


def test_try_is_counted_before_the_slow_check_and_survives_a_kill(sms, ks):
    """Step 2: 'Count the try before checking it … A process killed during the slow check
    below therefore leaves its try counted.' (right password; scrypt work 2^17)"""
    o.write_keystore(ks, o.payload(), log2n=12, r=8, p=4)
    before = ks.read_bytes()
    proc = sms.start("contact", "list")
    while ks.read_bytes() == before and proc.poll() is None:
        time.sleep(0.001)   # polling for the first save, not timing
    still_running = proc.poll() is None
    proc.kill()
    proc.wait()
    assert still_running, "the first save came only after the check"
    assert lockout(ks)["failures"] == 1
    sms.run("contact", "list")
    assert lockout(ks)["failures"] == 0, "the next right password resets the count"


def test_decrypt_saves_and_the_used_message_key_is_gone(sms, ks):
    """'A save follows every successful encrypt or decrypt, so a used message key is gone
    from disk once the command returns.' (skipped keys of protocol §6)"""
    rck, sck = os.urandom(32), os.urandom(32)
    o.write_keystore(ks, o.payload(o.contact("Bob", send_ck=sck, recv_ck=rck)))
    keys = [s.Chain(rck).key_at(n) for n in range(3)]
    _, out, _ = sms.run("decrypt", "Bob", s.seal(keys[2], 2, "third"), env={"DOSSIER_SMS_NOW": NOW})
    assert out == "third\n" and o.open_payload(ks)["contacts"][0]["last_received_at"] == NOW
    recv = o.open_payload(ks)["contacts"][0]["receive"]
    assert [(k["counter"], base64.b64decode(k["key"])) for k in recv["skipped"]] == [(0, keys[0]), (1, keys[1])]
    sms.run("decrypt", "Bob", s.seal(keys[0], 0, "first"))
    c = o.open_payload(ks)["contacts"][0]
    assert [k["counter"] for k in c["receive"]["skipped"]] == [1] and c["received_count"] == 2
    assert c["receive"]["next"] == 3
    assert base64.b64decode(c["receive"]["chain_key"]) == s.next_chain(s.next_chain(s.next_chain(rck)))
    _, msg, _ = sms.run("encrypt", "Bob", "reply")
    assert s.open_message(s.message_key(sck), msg.strip()) == "reply"
    assert base64.b64decode(o.open_payload(ks)["contacts"][0]["send"]["chain_key"]) == s.next_chain(sck)


def test_a_failed_decryption_writes_nothing(sms, ks):
    """'A failed decryption writes nothing.'"""
    before = ks.read_bytes()
    _, _, err = sms.run("decrypt", "Bob", s.seal(os.urandom(32), 0, "forged"), rc=1)
    assert "verification failed" in err and ks.read_bytes() == before


def test_lock_wait_0_fails_at_once_with_the_documented_message(sms, ks):
    """'… unless `--lock-wait` is 0, … then exits 1 with "KEYSTORE is in use by another
    `dossier sms` command (waited N s); try again when it has finished"'."""
    held = o.HeldLock(ks, f"{os.getpid()} sms encrypt\n")
    before = ks.read_bytes()
    _, out, err = sms.run("decrypt", "Bob", "x", "--lock-wait", "0", rc=1)
    held.release()
    assert out == "" and "waiting" not in err
    assert f"{ks} is in use by another `dossier sms` command (waited 0 s); try again when it has finished" in err
    assert ks.read_bytes() == before


def test_waiting_line_names_the_holder_even_with_quiet(sms, ks):
    """'prints one line on standard error, also with `--quiet` — `waiting for dossier sms
    encrypt (pid 4242) to finish with this keystore …`', retries up to `--lock-wait` seconds."""
    held = o.HeldLock(ks, f"{os.getpid()} sms encrypt\n")
    _, _, err = sms.run("contact", "list", "--lock-wait", "1", "-q", rc=1)
    held.release()
    assert err.splitlines() == [
        f"waiting for dossier sms encrypt (pid {os.getpid()}) to finish with this keystore …",
        f"error: {ks} is in use by another `dossier sms` command (waited 1 s); try again when it has finished"]


@pytest.mark.parametrize("content", ["dead", "garbage"])
def test_a_lock_file_naming_no_running_process_says_another_command(sms, ks, content):
    """'(`another dossier command` when the file names no running process)'; the waiting
    command goes on once the lock is released."""
    held = o.HeldLock(ks, f"{o.dead_pid()} sms encrypt\n" if content == "dead" else "4242 Sms; rm -rf\n")
    proc = sms.start("contact", "list")
    line = proc.stderr.readline().decode()
    held.release()
    out, err = proc.communicate(timeout=30)
    assert line == "waiting for another dossier command to finish with this keystore …\n"
    assert proc.returncode == 0 and out.decode().startswith("Bob\t")


def test_lock_wait_outside_0_to_600_is_a_usage_error(sms):
    """'`--lock-wait` … (default 10, 0…600)'; cli.md: 'Exit status … 2 usage error'."""
    _, _, err = sms.run("contact", "list", "--lock-wait", "601", rc=2)
    assert "0…600" in err


def test_a_command_reads_the_keystore_replaced_while_it_waited(sms, ks):
    """'first takes an exclusive flock … then reads, changes and saves the keystore': what it
    reads is the file as it is when it has the lock (here replaced by rename meanwhile)."""
    rck = os.urandom(32)
    o.write_keystore(ks, o.payload(o.contact("Bob", recv_ck=rck)))
    held = o.HeldLock(ks, f"{os.getpid()} sms decrypt\n")
    proc = sms.start("decrypt", "Bob", s.seal(s.message_key(rck), 0, "first"))
    assert proc.stderr.readline().startswith(b"waiting for dossier sms decrypt")
    newer = ks.parent / "newer"
    o.write_keystore(newer, o.payload(o.contact("Bob", receive={"chain_key": o.b64(s.next_chain(rck)), "next": 1,
                                                                "skipped": []})))
    os.rename(newer, ks)
    held.release()
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and out == b"" and b"replayed" in err
    assert o.open_payload(ks)["contacts"][0]["receive"]["next"] == 1


def test_queued_writers_lose_no_change(sms, ks):
    """'Parallel `encrypt`s therefore get distinct counters, and an `encrypt` racing a
    `decrypt` loses neither's change'."""
    rck, sck = os.urandom(32), os.urandom(32)
    o.write_keystore(ks, o.payload(o.contact("Bob", send_ck=sck, recv_ck=rck)))
    held = o.HeldLock(ks, f"{os.getpid()} sms encrypt\n")
    procs = [sms.start("encrypt", "Bob", "one"), sms.start("encrypt", "Bob", "two"),
             sms.start("decrypt", "Bob", s.seal(s.message_key(rck), 0, "in"))]
    for p in procs:
        assert p.stderr.readline().startswith(b"waiting for dossier sms encrypt")
    held.release()
    outs = [p.communicate(timeout=30)[0].decode().strip() for p in procs]
    assert all(p.returncode == 0 for p in procs) and outs[2] == "in"
    counters = sorted(s.split_message(m)[1] for m in outs[:2])
    assert counters == [0, 1]
    c = o.open_payload(ks)["contacts"][0]
    assert (c["send"]["next"], c["sent_count"], c["receive"]["next"], c["received_count"]) == (2, 2, 1, 1)


def test_lock_file_holds_pid_and_command_words(sms, ks, dossier_bin, tmp_path):
    """'a command writes `<pid> <command>\\n` into the lock file (… its words after
    `dossier`, e.g. `4242 sms encrypt`; `build` and `check` for their read-only opens)',
    mode 0600, never removed."""
    proc = sms.start("contact", "edit", "Bob", "--name", "Rob")
    proc.communicate(timeout=30)
    lock = ks.parent / (ks.name + ".lock")
    assert lock.read_text() == f"{proc.pid} sms contact edit\n" and os.stat(lock).st_mode & 0o777 == 0o600
    proj = tmp_path / "proj"
    pks = o.project(proj)
    rc, log, pid = o.check(dossier_bin, proj)
    assert rc == 0, log
    assert (pks.parent / "a.keystore.lock").read_text() == f"{pid} check\n"


def test_leftovers_go_only_with_the_lock_and_only_by_their_pattern(sms, ks, tmp_path):
    """'every open that holds the keystore's lock first removes each
    `.<name>.<digits>.<digits>.tmp` beside it (`<name>` the keystore's file name); a running
    save's file cannot be among them, as its writer holds the lock.'"""
    outside = tmp_path / "outside.txt"
    outside.write_text("not a leftover")
    mine, other, link = (tmp_path / f".{ks.name}.123.456.tmp", tmp_path / ".other.keystore.1.2.tmp",
                         tmp_path / f".{ks.name}.7.8.tmp")
    mine.write_bytes(ks.read_bytes())
    other.write_bytes(b"x")
    link.symlink_to(outside)
    held = o.HeldLock(ks, f"{os.getpid()} sms encrypt\n")
    sms.run("contact", "list", "--lock-wait", "0", rc=1)
    assert mine.exists() and os.path.lexists(link), "removed without holding the lock"
    held.release()
    sms.run("contact", "list")
    assert not mine.exists() and not os.path.lexists(link) and other.exists()
    assert outside.read_text() == "not a leftover"


def test_sms_command_in_a_folder_it_cannot_write_names_the_lock_files_error(dossier_bin):
    """'The `dossier sms` commands always write, so they need a writable folder and fail
    there with the lock file's or the save's error, naming the file.' (run as nobody, in a
    root-owned 0755 folder it can reach but not write: creating the lock file is EACCES)"""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run as another user")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="sms-ro-"))   # pytest's tmp_path is 0700 for root only
    try:
        os.chmod(folder, 0o755)
        ks = folder / "k.keystore"
        o.write_keystore(ks, o.payload(o.contact("Bob")))
        os.chown(ks, 65534, 65534)
        before = ks.read_bytes()
        # A copy nobody may run: a fresh clone's .build can sit inside a private folder (mktemp -d).
        binary = pathlib.Path(tempfile.mkdtemp(prefix="sms-bin-")) / "dossier"
        binary.parent.chmod(0o755)
        shutil.copy(dossier_bin, binary)
        binary.chmod(0o755)
        p = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", str(binary), "sms",
                            "contact", "list", "--keystore", str(ks)], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "DOSSIER_SMS_PASSWORD": o.PW})
        assert p.returncode == 1 and f"{ks}.lock" in p.stderr and p.stdout == ""
        assert ks.read_bytes() == before and not (folder / "k.keystore.lock").exists()
        assert "ermission denied" in p.stderr, p.stderr   # not "No such file or directory"
    finally:
        shutil.rmtree(folder)
        if "binary" in locals():
            shutil.rmtree(binary.parent)


@pytest.fixture
def ro_project(tmp_path):
    proj = tmp_path / "proj"
    pks = o.project(proj, lockout={"failures": 1, "max_failures": 3, "lock_seconds": 300})
    leftover = pks.parent / ".a.keystore.11.22.tmp"
    leftover.write_bytes(b"older copy")
    os.chmod(pks.parent, 0o555)
    yield proj, pks, leftover
    os.chmod(pks.parent, 0o755)


def test_read_only_folder_check_writes_nothing_and_counts_nothing(dossier_bin, ro_project):
    """'Where not … the open writes nothing: it takes no lock and creates no lock file … and
    it does not count the try' — 2: 'wrong password (not counted: the keystore's folder
    cannot be written, so tries are not recorded there)'; a right one resets nothing."""
    proj, pks, leftover = ro_project
    before = pks.read_bytes()
    rc, log, _ = o.check(dossier_bin, proj, password="not-the-password")
    assert rc == 1 and ("wrong password (not counted: the keystore's folder cannot be written, so tries are not "
                        "recorded there)") in log
    rc, log, _ = o.check(dossier_bin, proj)
    assert rc == 0, log
    assert pks.read_bytes() == before and leftover.exists()
    assert sorted(p.name for p in pks.parent.iterdir()) == [".a.keystore.11.22.tmp", "a.keystore"]


def test_read_only_folder_still_honours_a_set_lock(dossier_bin, tmp_path):
    """Read-only folders, 1: 'If locked_until is in the future: refuse, as in step 1'."""
    proj = tmp_path / "proj"
    pks = o.project(proj, lockout={"failures": 0, "max_failures": 3, "lock_seconds": 300,
                                   "locked_until": "2999-01-01T00:00:00Z"})
    os.chmod(pks.parent, 0o555)
    try:
        rc, log, _ = o.check(dossier_bin, proj)
    finally:
        os.chmod(pks.parent, 0o755)
    assert rc == 1 and "2999-01-01T00:00:00Z" in log and "a.keystore" in log


def test_writable_folder_check_counts_and_resets_like_every_open(dossier_bin, tmp_path):
    """'Reports (`dossier build`, `dossier check`) open keystores read only … but count and
    reset tries like every open'."""
    proj = tmp_path / "proj"
    pks = o.project(proj, lockout={"failures": 1, "max_failures": 3, "lock_seconds": 300})
    rc, log, _ = o.check(dossier_bin, proj, password="not-the-password")
    assert rc == 1 and lockout(pks)["failures"] == 2
    rc, log, _ = o.check(dossier_bin, proj)
    assert rc == 0 and lockout(pks)["failures"] == 0


def test_no_secret_outside_the_keystore(dossier_bin, tmp_path):
    """'The password is never stored'; keys and message text live only inside the payload:
    a whole exchange, messages, a passwd and failures leave no secret in any other file of
    the folder nor in any output (decrypt's own text excepted) or error."""
    ks = tmp_path / "k.keystore"
    sms = o.Sms(dossier_bin, ks)
    sms.run("init", "--kdf-log2n", "10", "--allow-weak")
    km = [ln for ln in sms.run("contact", "add", "Pat", "--later")[1].splitlines() if ln.startswith(s.KEY_PREFIX)][0]
    secrets = o.keystore_secrets(ks)
    peer = s.new_private()
    send_ck, recv_ck = s.initial_chains(peer, s.parse_key_message(km))
    sms.run("contact", "add", "Pat", "--key", s.key_message(s.raw_public(peer)),
            "--confirm", s.safety_number(s.raw_public(peer), s.parse_key_message(km)))
    secrets += o.keystore_secrets(ks) + [s.raw_private(peer), send_ck, recv_ck]
    text = "Meet at the north gate at 6, Zyx-Quill"
    _, msg, _ = sms.run("encrypt", "Pat", input=text)
    reply = s.seal(s.message_key(send_ck), 0, "Reply-Text-Vxq answer")
    _, out, _ = sms.run("decrypt", "Pat", reply)
    assert out == "Reply-Text-Vxq answer\n" and s.open_message(s.message_key(recv_ck), msg.strip()) == text
    sms.outputs.pop(-2)   # decrypt's stdout is the text, as asked
    sms.run("decrypt", "Pat", reply, rc=1)
    sms.run("contact", "list", env=WRONG, rc=1)
    new = "Second-Passphrase-Kelp-9031"
    sms.run("passwd", "--allow-weak", env={"DOSSIER_SMS_NEW_PASSWORD": new})
    secrets += o.keystore_secrets(ks, new) + [new.encode(), text.encode(), b"Reply-Text-Vxq"]
    assert sms.leaks([x for x in secrets if len(x) >= 8], tmp_path) == []
