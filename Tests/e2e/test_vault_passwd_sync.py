"""`vault passwd` then `vault sync` (issue #17, "Owning the vault"; docs/vault-sync.md,
"After vault passwd"): the server's copy stays under the old key, so a sync from the
re-keyed copy is refused with a clear message that changes nothing; the other device
keeps syncing, then moves to the new folder with `--adopt-server-key` without losing its
edit (an item that differs on the two sides keeps both versions)."""
import subprocess

import pytest

from webdav_server import PASSWORD, USER, WebDAVServer

OLD, NEW = "old master phrase for the passwd test", "new master phrase, changed by vault passwd"
BASE = {"DOSSIER_ENTRY_PASSWORD": "entry-pw-1", "DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER}


@pytest.fixture(autouse=True)
def needs_vault_sync(dossier_bin):
    probe = subprocess.run([dossier_bin, "vault", "sync", "--help"], capture_output=True, text=True)
    if probe.returncode != 0 or "--adopt-server-key" not in probe.stdout:
        pytest.skip("this dossier binary has no `vault sync --adopt-server-key`")


def v(run_dossier, master, *args, check=True, **extra):
    return run_dossier("vault", *args, env=dict(BASE, DOSSIER_VAULT_PASSWORD=master, **extra), check=check, timeout=300)


def titles(run_dossier, master, path):
    out = v(run_dossier, master, "list", path).stdout
    return sorted((f[2], f[3]) for f in (l.split("\t") for l in out.splitlines()) if len(f) >= 4)


def snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_passwd_then_sync_is_refused_clearly_and_the_other_device_moves_without_loss(run_dossier, tmp_path):
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    with WebDAVServer(tmp_path / "srv") as dav:
        old_url, new_url = dav.url + "vault/", dav.url + "vault2/"
        v(run_dossier, OLD, "init", a, "--kdf", "pbkdf2")
        for title, user in (("Mail", "jo"), ("Bank", "bo")):
            v(run_dossier, OLD, "add", a, "--title", title, "--username", user)
        v(run_dossier, OLD, "sync", a, "--to", old_url)
        v(run_dossier, OLD, "sync", b, "--to", old_url)                # B: a second device
        v(run_dossier, OLD, "edit", b, "Bank", "--username", "bo-from-b")   # not synced yet

        out = v(run_dossier, OLD, "passwd", a, "--kdf", "pbkdf2", DOSSIER_NEW_VAULT_PASSWORD=NEW).stdout
        assert "note: this vault syncs with" in out and "--adopt-server-key" in out

        # A's sync is refused: clear message, nothing changed on either side
        server_before, a_before = snapshot(tmp_path / "srv"), a.read_bytes()
        r = v(run_dossier, NEW, "sync", a, check=False)
        assert r.returncode == 1 and "under a different master password" in r.stderr, r.stderr
        assert "Nothing was changed" in r.stderr and "Traceback" not in r.stderr
        assert snapshot(tmp_path / "srv") == server_before and a.read_bytes() == a_before

        # B still syncs with the old folder under the old password: its edit is safe there
        assert "1 pushed" in v(run_dossier, OLD, "sync", b).stdout
        # A publishes under the new password to a new folder
        assert "2 pushed" in v(run_dossier, NEW, "sync", a, "--to", new_url).stdout
        # B moves: a wrong server password changes nothing …
        b_before = b.read_bytes()
        bad = v(run_dossier, OLD, "sync", b, "--to", new_url, "--adopt-server-key", check=False,
                DOSSIER_SERVER_VAULT_PASSWORD="not it")
        assert bad.returncode == 1 and "wrong master password" in bad.stderr and b.read_bytes() == b_before
        # … the right one merges B's items into the new folder; B now opens with NEW only
        moved = v(run_dossier, OLD, "sync", b, "--to", new_url, "--adopt-server-key", DOSSIER_SERVER_VAULT_PASSWORD=NEW).stdout
        assert "adopting the server's master password" in moved and "1 conflict(s)" in moved, moved
        assert v(run_dossier, OLD, "list", b, check=False).returncode == 1
        v(run_dossier, NEW, "sync", a)
        # B's edit is the later version and wins; the server's older one is kept as a copy
        want = [("Bank", "bo-from-b"), ("Bank (conflict copy)", "bo"), ("Mail", "jo")]
        assert titles(run_dossier, NEW, a) == want and titles(run_dossier, NEW, b) == want
        assert "0 pulled, 0 pushed" in v(run_dossier, NEW, "sync", b).stdout
