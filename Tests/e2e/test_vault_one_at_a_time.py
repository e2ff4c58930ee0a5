"""One command at a time on a vault (docs/vault-cli.md, "One command at a time").

The seam is made to happen: a first `vault add` is held after it has read the vault and
before it saves, by giving it the entry's password through a pipe (`DOSSIER_ENTRY_PASSWORD_FD`)
that the test writes only later. A second command on the same vault — reached by another
path, through a symbolic link to its folder — says whom it waits for and is seen still
running; then the first is let go. Before the lock, the second saved its change and the
first then saved the vault it had read over it: the second's entry was lost.
"""
import fcntl
import json
import os
import subprocess

import pytest

from vault_helpers import skip_without_vault

MASTER = "one at a time master phrase"


def env(**more):
    e = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
    e.update({"DOSSIER_VAULT_PASSWORD": MASTER}, **more)
    return e


def vault(dossier_bin, tmp_path):
    skip_without_vault(dossier_bin)
    v = tmp_path / "my.dvault"
    r = subprocess.run([dossier_bin, "vault", "init", str(v), "--kdf", "pbkdf2"], env=env(), capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    (tmp_path / "link").symlink_to(tmp_path)
    return v


def held_add(dossier_bin, v, title):
    """`vault add` holding the vault, waiting for its entry password on a pipe; returns it and
    the pipe's writing end."""
    read, write = os.pipe()
    p = subprocess.Popen([dossier_bin, "vault", "add", str(v), "--title", title, "--username", "ana"],
                         env=env(DOSSIER_ENTRY_PASSWORD_FD=str(read)), pass_fds=(read,),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(read)
    return p, write


def wait_until_locked(p, lock):
    """Returns once process `p` holds a flock on `lock` (/proc/locks names its pid and the
    file's inode): it has taken the vault's lock, so it reads the vault after no one else."""
    inode = None
    while True:
        if inode is None and lock.exists():
            inode = os.stat(lock).st_ino
        if inode is not None:
            for line in open("/proc/locks"):
                f = line.split()
                if f[1] == "FLOCK" and f[4] == str(p.pid) and f[5].split(":")[-1] == str(inode):
                    return
        assert p.poll() is None, p.stderr.read()
        try:
            p.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass


def says_it_waits(p, holder):
    line = p.stderr.readline()   # an old binary does not wait: it finishes, and this meets the end
    assert line.startswith("waiting for ") and holder in line and "this vault" in line, line
    assert p.poll() is None


def finished(p):
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, out + err
    assert "correct horse" not in out + err and MASTER not in out + err   # the wait names no secret
    return out


def titles(dossier_bin, v):
    r = subprocess.run([dossier_bin, "vault", "list", str(v), "--json"], env=env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return sorted(i["title"] for i in json.loads(r.stdout))


@pytest.mark.parametrize("second", ["add", "rm"])
def test_a_second_command_waits_and_nothing_is_lost(dossier_bin, tmp_path, second):
    v = vault(dossier_bin, tmp_path)
    other = tmp_path / "link" / "my.dvault"   # the same vault by another path
    base = subprocess.run([dossier_bin, "vault", "add", str(v), "--title", "Old", "--username", "u"],
                          env=env(DOSSIER_ENTRY_PASSWORD="correct horse old"), capture_output=True, text=True)
    assert base.returncode == 0, base.stderr
    first, pipe = held_add(dossier_bin, v, "Mail")
    wait_until_locked(first, tmp_path / "my.dvault.lock")
    args = {"add": ["add", str(other), "--title", "Bank", "--username", "bo"], "rm": ["rm", str(other), "Old"]}[second]
    p = subprocess.Popen([dossier_bin, "vault", *args], env=env(DOSSIER_ENTRY_PASSWORD="correct horse two"),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    says_it_waits(p, f"dossier vault add (pid {first.pid})")
    os.write(pipe, b"correct horse one\n")
    os.close(pipe)
    finished(first)
    finished(p)
    expected = {"add": ["Bank", "Mail", "Old"], "rm": ["Mail"]}[second]
    assert titles(dossier_bin, v) == expected


def test_two_inits_of_one_vault_make_one_and_refuse_the_other(dossier_bin, tmp_path):
    skip_without_vault(dossier_bin)
    v = tmp_path / "new.dvault"
    lock = tmp_path / "new.dvault.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)   # held as another command would: both inits wait
    inits = [subprocess.Popen([dossier_bin, "vault", "init", str(v), "--kdf", "pbkdf2"], env=env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in inits:
        says_it_waits(p, "another dossier command")
    os.close(fd)
    results = sorted(p.wait(timeout=300) for p in inits)
    assert results == [0, 1]
    assert any("already exists; not overwritten" in p.stderr.read() for p in inits)
    assert titles(dossier_bin, v) == []
