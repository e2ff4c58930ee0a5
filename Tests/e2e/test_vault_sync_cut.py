"""Vault sync against a server that keeps cut uploads under their final name (issue #34).

wsgidav writes a PUT body straight into the target file, so an upload cut short leaves
a partial file at the real name, and the client's retry with `If-None-Match: *` answers
412. fault_dav.py cuts chosen PUTs; each test failed before the fix named in its doc.
"""
import json
import os
import subprocess

import pytest

from test_vault_sync_faults import ENV, listing, needs_vault_sync, synced_devices, v  # noqa: F401  (fixture)
from webdav_server import WebDAVServer


def rules(path, *items, seed=1):
    path.write_text(json.dumps({"seed": seed, "rules": list(items)}))
    # A different size each time, so the middleware sees the change even within one
    # mtime tick.
    return path


def cut(path_part, offset=None, times=1):
    r = {"method": "PUT", "path": path_part, "fault": "cut", "times": times}
    if offset is not None:
        r["offset"] = offset
    return r


def sync_an_edit_through_a_cut(dossier_bin, dav, faults, a, username, server_path, offset):
    """Device `a` sets Mail's user name to `username` and syncs while the server cuts its
    upload of `server_path` after `offset` bytes: that cut, and only it, happens."""
    v(dossier_bin, "edit", a, "Mail", "--username", username)
    rules(faults, cut(server_path, offset=offset))
    v(dossier_bin, "sync", a)
    assert [k for _, _, k in dav.faults_fired()] == ["cut"]


def test_a_cut_blob_upload_is_checked_and_repaired(dossier_bin, tmp_path):
    """Before: the retried PUT got 412, was taken as "already uploaded", the manifest
    named the partial blob, and the other device printed "skipped … truncated" on every
    sync and never got the edit."""
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    faults = rules(tmp_path / "faults.json")
    with WebDAVServer(tmp_path / "srv", faults=faults) as dav:
        url = dav.url + "v/"
        synced_devices(dossier_bin, url, a, b)
        sync_an_edit_through_a_cut(dossier_bin, dav, faults, a, "jo-edited", "/v/items/", 40)
        # Every blob the manifest names is whole: its name carries its hash.
        import hashlib
        m = json.loads((tmp_path / "srv" / "v" / "manifest.json").read_text())
        for key, rev in m["items"].items():
            blob = (tmp_path / "srv" / "v" / "items" / f"{key}-{rev}.item").read_bytes()
            assert hashlib.sha256(blob).hexdigest().startswith(rev)
        out = v(dossier_bin, "sync", b)
        assert "skipped" not in out.stdout + out.stderr
        assert listing(dossier_bin, b) == [("Mail", "jo-edited")]


def test_a_cut_header_upload_is_replaced_so_a_new_device_can_join(dossier_bin, tmp_path):
    """Before: the first sync reported success over a partial vault.header, and every
    new device failed with "the vault file is truncated"."""
    a, c = tmp_path / "a.dvault", tmp_path / "c.dvault"
    faults = rules(tmp_path / "faults.json", cut("/v/vault.header", offset=20))
    with WebDAVServer(tmp_path / "srv", faults=faults) as dav:
        url = dav.url + "v/"
        synced_devices(dossier_bin, url, a)
        assert [k for _, _, k in dav.faults_fired()] == ["cut"]
        v(dossier_bin, "sync", c, "--to", url)
        assert listing(dossier_bin, c) == [("Mail", "jo")]


def test_a_cut_manifest_upload_is_recovered_not_a_permanent_block(dossier_bin, tmp_path):
    """Before: a partial manifest.json made every sync of every device fail with "not a
    Dossier vault sync manifest" until someone deleted it on the server by hand."""
    a, b, c = tmp_path / "a.dvault", tmp_path / "b.dvault", tmp_path / "c.dvault"
    faults = rules(tmp_path / "faults.json")
    with WebDAVServer(tmp_path / "srv", faults=faults) as dav:
        url = dav.url + "v/"
        synced_devices(dossier_bin, url, a, b)
        sync_an_edit_through_a_cut(dossier_bin, dav, faults, a, "jo-2", "/v/manifest.json", 30)
        v(dossier_bin, "add", b, "--title", "Bank", "--username", "bo")
        v(dossier_bin, "sync", b)
        v(dossier_bin, "sync", a)
        v(dossier_bin, "sync", c, "--to", url)
        for device in (a, b, c):
            assert listing(dossier_bin, device) == [("Bank", "bo"), ("Mail", "jo-2")], device


def test_a_partial_manifest_left_by_a_dead_sync_is_rebuilt_from_the_devices(dossier_bin, tmp_path):
    """A cut manifest with no usable pending copy (a server from before the fix): the
    next sync rebuilds it from this device's items, and every other device pushes what
    the rebuilt manifest lacks — nothing is lost, a new device can join."""
    a, b, c = tmp_path / "a.dvault", tmp_path / "b.dvault", tmp_path / "c.dvault"
    srv = tmp_path / "srv"
    with WebDAVServer(srv) as dav:
        url = dav.url + "v/"
        synced_devices(dossier_bin, url, a, b)
        v(dossier_bin, "add", b, "--title", "Bank", "--username", "bo")
        v(dossier_bin, "sync", b)
        whole = (srv / "v" / "manifest.json").read_bytes()
        (srv / "v" / "manifest.json").write_bytes(whole[:len(whole) // 2])
        (srv / "v" / "manifest.pending.json").unlink()
        v(dossier_bin, "add", a, "--title", "Shop", "--username", "sh")
        v(dossier_bin, "sync", a)
        v(dossier_bin, "sync", b)
        v(dossier_bin, "sync", a)
        v(dossier_bin, "sync", c, "--to", url)
        for device in (a, b, c):
            assert listing(dossier_bin, device) == [("Bank", "bo"), ("Mail", "jo"), ("Shop", "sh")], device


def test_a_foreign_manifest_is_still_refused(dossier_bin, tmp_path):
    """Only a cut Dossier manifest is recovered; another program's manifest.json stops
    the sync as before, with nothing written."""
    a = tmp_path / "a.dvault"
    srv = tmp_path / "srv"
    (srv / "v").mkdir(parents=True)
    (srv / "v" / "manifest.json").write_text('{"name": "somebody else\'s"}')
    with WebDAVServer(srv) as dav:
        v(dossier_bin, "init", "--kdf", "pbkdf2", a)
        p = v(dossier_bin, "sync", a, "--to", dav.url + "v/", check=False)
        assert p.returncode == 1 and "not a Dossier vault sync manifest" in p.stderr
        assert not any(m == "PUT" for m, _ in dav.requests())
