"""A vault save that cannot be written (a full disk, here simulated by a file-size limit
with SIGXFSZ ignored, so the write fails with EFBIG as ENOSPC would) stops with the
system's reason and leaves the vault file as it was: no temporary file left, the master
password nowhere in the output (docs/vault-format.md, "Saving"). Before, the message was
a bare "cannot write the file", with no reason."""
import hashlib
import os
import resource
import signal
import subprocess

import pytest
from vault_helpers import skip_without_vault

MASTER = "e2e disk-full master phrase"


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    skip_without_vault(dossier_bin)


def run(dossier_bin, *args, fsize=None, cwd=None):
    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run([dossier_bin, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "DOSSIER_VAULT_PASSWORD": MASTER}, timeout=120,
                          preexec_fn=limited if fsize else None)


def test_a_save_past_the_disk_stops_with_its_reason_and_keeps_the_vault(dossier_bin, tmp_path):
    vault = tmp_path / "v.dvault"
    assert run(dossier_bin, "vault", "init", vault).returncode == 0
    assert run(dossier_bin, "vault", "add", vault, "--title", "Mail", "--username", "jo", "--generate").returncode == 0
    before = hashlib.sha256(vault.read_bytes()).hexdigest()
    p = run(dossier_bin, "vault", "add", vault, "--title", "Bank", "--username", "j" * 300, "--generate",
            fsize=vault.stat().st_size + 16)
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"{vault}: cannot write the file: the file is too large for this file system or for the size limit set " \
        "for this process (`ulimit -f`); write it to another disk or raise the limit; the file on disk is as it was" \
        in p.stderr, p.stderr
    assert MASTER not in p.stdout + p.stderr
    assert hashlib.sha256(vault.read_bytes()).hexdigest() == before
    assert sorted(f.name for f in tmp_path.iterdir()) == ["v.dvault", "v.dvault.lock"]   # no temporary file
    listed = run(dossier_bin, "vault", "list", vault)
    assert listed.returncode == 0 and "Mail" in listed.stdout and "Bank" not in listed.stdout
    # With room again, the same add goes through.
    assert run(dossier_bin, "vault", "add", vault, "--title", "Bank", "--username", "j", "--generate").returncode == 0
    assert "Bank" in run(dossier_bin, "vault", "list", vault).stdout


def test_a_new_vault_that_cannot_be_written_leaves_nothing(dossier_bin, tmp_path):
    p = run(dossier_bin, "vault", "init", tmp_path / "new.dvault", fsize=64)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "cannot write the file: the file is too large" in p.stderr, p.stderr
    # No vault and no temporary file; only the vault's lock file (docs/vault-cli.md,
    # "One command at a time"), which is never removed.
    assert [f.name for f in tmp_path.iterdir()] == ["new.dvault.lock"]
