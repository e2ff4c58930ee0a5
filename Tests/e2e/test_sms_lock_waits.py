"""A `dossier sms` command that finds another one holding the keystore says whom it waits for
(docs/securesms-keystore.md, "One command at a time"), as `build`, `publish` and the vault do
(Sources/ProcessLocks/CommandLock.swift), by a schedule, not by luck:

`sms passwd` is held with the keystore locked — its new password comes from a pipe the test
keeps open — while `sms contact list` starts: its first line on standard error names
`dossier sms passwd` and its pid, also with `--quiet`. Once the pipe gives the password,
passwd finishes and the waiting command goes on with the new password. With `--lock-wait 1`
it gives up after the wait with the documented message, and with `--lock-wait 0` it says
nothing before giving up.
"""
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
from sms_helpers import make_pair  # noqa: E402

NEW = "harbor velvet 93 quince lantern"


def start(dossier_bin, args, env, **kw):
    return subprocess.Popen([dossier_bin, "sms", *args], env=dict(os.environ, **env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def held_passwd(dossier_bin, alice):
    """`sms passwd` holding the keystore's lock, reading its new password from a pipe."""
    r, w = os.pipe()
    p = start(dossier_bin, ["passwd", "--keystore", alice.path],
              alice.env(DOSSIER_SMS_NEW_PASSWORD_FD=str(r)), pass_fds=(r,))
    os.close(r)
    lock = pathlib.Path(alice.path + ".lock")
    deadline = 600
    while f"{p.pid} sms passwd" not in (lock.read_text() if lock.exists() else ""):   # the lock is taken
        assert p.poll() is None, p.communicate()
        deadline -= 1
        assert deadline > 0, "passwd never took the lock"
        subprocess.run(["sleep", "0.05"])
    return p, w


def test_a_waiting_sms_command_names_the_holder_and_goes_on(run_dossier, dossier_bin, tmp_path):
    alice, _, _, _ = make_pair(run_dossier, tmp_path)
    passwd, w = held_passwd(dossier_bin, alice)
    waiter = start(dossier_bin, ["contact", "list", "--keystore", alice.path, "--lock-wait", "120", "--quiet"],
                   alice.env(DOSSIER_SMS_PASSWORD=NEW))
    line = waiter.stderr.readline()
    assert line == f"waiting for dossier sms passwd (pid {passwd.pid}) to finish with this keystore …\n", line
    assert waiter.poll() is None
    os.write(w, (NEW + "\n").encode())
    os.close(w)
    out, err = passwd.communicate(timeout=120)
    assert passwd.returncode == 0, err
    out, err = waiter.communicate(timeout=120)
    assert waiter.returncode == 0, err
    assert "Bob" in out


def test_a_bounded_wait_gives_up_with_the_documented_message(run_dossier, dossier_bin, tmp_path):
    alice, _, _, _ = make_pair(run_dossier, tmp_path)
    before = pathlib.Path(alice.path).read_bytes()
    passwd, w = held_passwd(dossier_bin, alice)
    try:
        one = alice.sms("encrypt", "Bob", "hello", "--lock-wait", "1", check=False)
        assert one.returncode == 1, one.stderr
        lines = one.stderr.splitlines()
        assert lines[0] == f"waiting for dossier sms passwd (pid {passwd.pid}) to finish with this keystore …"
        assert "is in use by another `dossier sms` command (waited 1 s)" in one.stderr
        zero = alice.sms("encrypt", "Bob", "hello", "--lock-wait", "0", check=False)
        assert zero.returncode == 1 and "waiting for" not in zero.stderr, zero.stderr
        assert "is in use by another `dossier sms` command (waited 0 s)" in zero.stderr
    finally:
        os.close(w)   # passwd reads no password: it stops, the keystore as it was
        passwd.communicate(timeout=120)
    assert pathlib.Path(alice.path).read_bytes() == before
