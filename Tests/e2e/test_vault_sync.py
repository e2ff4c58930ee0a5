"""`dossier vault sync`: two vault copies syncing through a real WebDAV server (wsgidav)."""
import json
import subprocess

import pytest

from webdav_server import PASSWORD, USER, WebDAVServer


@pytest.fixture(autouse=True)
def needs_vault_sync(dossier_bin):
    """Skips when the binary was built without the vault domain (DOSSIER_ONLY)."""
    probe = subprocess.run([dossier_bin, "vault", "sync", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("this dossier binary has no `vault sync` (built without the vault domain)")

ENV = {"DOSSIER_VAULT_PASSWORD": "master pw for tests", "DOSSIER_ENTRY_PASSWORD": "entry-pw-1",
       "DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER}


def v(run_dossier, *args, check=True, extra=None):
    env = dict(ENV, **(extra or {}))
    return run_dossier("vault", *args, env=env, check=check, timeout=300)


def listing(run_dossier, path):
    """Sorted (title, username) pairs of the live items."""
    out = v(run_dossier, "list", path).stdout
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 4:
            rows.append((f[2], f[3]))
    return sorted(rows)


def test_two_copies_edit_different_and_same_entries_and_end_equal(run_dossier, tmp_path):
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    with WebDAVServer(tmp_path / "srv") as dav:
        url = dav.url + "vault/"
        v(run_dossier, "init", a)
        for title, user in (("Mail", "jo"), ("Bank", "bo"), ("Shop", "sh"), ("Old", "ol")):
            v(run_dossier, "add", a, "--title", title, "--username", user)
        first = v(run_dossier, "sync", a, "--to", url).stdout
        assert "0 pulled, 4 pushed, 0 conflict(s)" in first
        # B is a new device: its vault file is created from the server's copy.
        v(run_dossier, "sync", b, "--to", url)
        assert listing(run_dossier, b) == listing(run_dossier, a)

        # Different entries on each side, the same entry on both, a deletion, an addition.
        v(run_dossier, "edit", a, "Mail", "--username", "jo-from-a")
        v(run_dossier, "edit", a, "Shop", "--username", "sh-from-a")
        v(run_dossier, "rm", a, "Old")
        v(run_dossier, "edit", b, "Bank", "--username", "bo-from-b")
        v(run_dossier, "edit", b, "Shop", "--username", "sh-from-b")   # later than A's edit
        v(run_dossier, "add", b, "--title", "News", "--username", "nw")

        out_a = v(run_dossier, "sync", a).stdout                        # remembered URL and user
        assert "0 pulled, 3 pushed, 0 conflict(s)" in out_a
        out_b = v(run_dossier, "sync", b).stdout
        assert "1 conflict(s)" in out_b
        assert "edited on both sides; kept the version from this device" in out_b
        v(run_dossier, "sync", a)

        expected = sorted([("Bank", "bo-from-b"), ("Mail", "jo-from-a"), ("News", "nw"),
                           ("Shop", "sh-from-b"), ("Shop (conflict copy)", "sh-from-a")])
        assert listing(run_dossier, a) == expected
        assert listing(run_dossier, b) == expected
        # A further sync of either side changes nothing.
        assert "0 pulled, 0 pushed, 0 conflict(s)" in v(run_dossier, "sync", b).stdout

        # The server holds only ciphertext: no title, user name or password in any file.
        for f in (tmp_path / "srv").rglob("*"):
            if f.is_file():
                data = f.read_bytes()
                for secret in (b"entry-pw-1", b"jo-from-a", b"Shop", b"master pw"):
                    assert secret not in data, f


def test_one_changed_item_costs_a_constant_number_of_requests(run_dossier, tmp_path):
    a = tmp_path / "a.dvault"
    export = tmp_path / "export.csv"
    rows = ["folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp"]
    rows += [f",,login,Site {i},,,,https://s{i}.example,user{i},Pw-{i}-xyz-{i * 7}," for i in range(60)]
    export.write_text("\n".join(rows) + "\n")
    with WebDAVServer(tmp_path / "srv") as dav:
        v(run_dossier, "init", a)
        v(run_dossier, "import", a, export)
        v(run_dossier, "sync", a, "--to", dav.url + "v/")
        assert len(list((tmp_path / "srv" / "v" / "items").iterdir())) == 60
        v(run_dossier, "edit", a, "Site 7", "--username", "changed")
        dav.clear_log()
        out = v(run_dossier, "sync", a).stdout
        assert "0 pulled, 1 pushed" in out
        methods = sorted(m for m, _ in dav.requests())
        # GET manifest, PUT the item's new blob, PUT manifest, DELETE the old blob.
        assert methods == ["DELETE", "GET", "PUT", "PUT"]
        assert len(list((tmp_path / "srv" / "v" / "items").iterdir())) == 60


def test_change_on_the_server_between_read_and_write_is_not_overwritten(run_dossier, tmp_path):
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    root = tmp_path / "srv"
    manifest = root / "v" / "manifest.json"
    with WebDAVServer(root) as dav:
        url = dav.url + "v/"
        port = dav.port
        v(run_dossier, "init", a)
        v(run_dossier, "add", a, "--title", "Mail", "--username", "jo")
        v(run_dossier, "add", a, "--title", "Bank", "--username", "bo")
        v(run_dossier, "sync", a, "--to", url)
        v(run_dossier, "sync", b, "--to", url)
        m1 = manifest.read_text()
        # B syncs an edit: the server's manifest becomes M2 (pointing at B's new blob).
        v(run_dossier, "edit", b, "Mail", "--username", "jo-from-b")
        v(run_dossier, "sync", b)
        m2 = manifest.read_text()
        assert m2 != m1
        # Put M1 back, so A reads M1; M2 reappears just before A writes (B "in between").
        manifest.write_text(m1)
    v(run_dossier, "edit", a, "Bank", "--username", "bo-from-a")
    with WebDAVServer(root, port=port, tamper=f"PUT:/v/manifest.json:v/manifest.json:{m2}") as dav:
        out = v(run_dossier, "sync", a).stdout
        assert "merged again (2 rounds)" in out
        final = json.loads(manifest.read_text())
        mail_id_rev = {k: r for k, r in json.loads(m2)["items"].items() if json.loads(m1)["items"][k] != r}
        # B's change is still on the server, A's is added.
        for k, r in mail_id_rev.items():
            assert final["items"][k] == r
        assert listing(run_dossier, a) == [("Bank", "bo-from-a"), ("Mail", "jo-from-b")]
        v(run_dossier, "sync", b)
        assert listing(run_dossier, b) == [("Bank", "bo-from-a"), ("Mail", "jo-from-b")]


def test_wrong_webdav_password_is_reported_and_nothing_saved(run_dossier, tmp_path):
    a = tmp_path / "a.dvault"
    with WebDAVServer(tmp_path / "srv") as dav:
        v(run_dossier, "init", a)
        bad = v(run_dossier, "sync", a, "--to", dav.url + "v/", check=False,
                extra={"DOSSIER_WEBDAV_PASSWORD": "P@ssw0r21"})
        assert bad.returncode == 1
        assert "HTTP 401" in bad.stderr
        assert not (tmp_path / "a.dvault.sync.json").exists()   # settings saved only once valid
        assert not any(m in ("PUT", "MKCOL") for m, _ in dav.requests())
