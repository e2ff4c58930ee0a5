"""`dossier vault sync`: two vault copies syncing through a real WebDAV server (wsgidav)."""
import json
import os
import pathlib
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
        # GET manifest, PUT the item's new blob, PUT the manifest's pending copy, PUT
        # manifest, DELETE the old blob.
        assert methods == ["DELETE", "GET", "PUT", "PUT", "PUT"]
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


# --- Server settings sealed in the vault (UC3) and auto-sync at unlock (UC7) -------------

DAV_CANARY = "dav-Canary-pw-5187"   # the WebDAV password in these tests: must never leak


def vs(dossier_bin, *args, dav_password=None, check=True):
    """Runs `dossier vault …` with no WebDAV user or password in the environment unless
    `dav_password` is given: later commands must use the settings stored in the vault."""
    env = {k: val for k, val in os.environ.items() if not k.startswith("DOSSIER_WEBDAV")}
    env.update({"DOSSIER_VAULT_PASSWORD": ENV["DOSSIER_VAULT_PASSWORD"],
                "DOSSIER_ENTRY_PASSWORD": ENV["DOSSIER_ENTRY_PASSWORD"]})
    if dav_password is not None:
        env["DOSSIER_WEBDAV_PASSWORD"] = dav_password
    p = subprocess.run([dossier_bin, "vault", *map(str, args)], env=env, capture_output=True, text=True,
                       timeout=300, stdin=subprocess.DEVNULL)
    for stream in (p.stdout, p.stderr):
        assert DAV_CANARY not in stream, "the WebDAV password leaked into the output"
    if check and p.returncode != 0:
        raise AssertionError(f"vault {args} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def rows(out):
    return sorted((f[2], f[3]) for f in (l.split("\t") for l in out.splitlines()) if len(f) >= 4)


def no_canary_on_disk(*folders):
    for folder in folders:
        for f in pathlib.Path(folder).rglob("*"):
            if f.is_file():
                assert DAV_CANARY.encode() not in f.read_bytes(), f


def test_configure_checks_the_server_first_and_stores_settings_sealed(dossier_bin, tmp_path):
    a = tmp_path / "dev" / "a.dvault"
    a.parent.mkdir()
    with WebDAVServer(tmp_path / "srv", password=DAV_CANARY) as dav:
        url = dav.url + "v/"
        vs(dossier_bin, "init", a)
        vs(dossier_bin, "add", a, "--title", "Mail", "--username", "jo")
        before = a.read_bytes()
        dav.clear_log()
        # UC3 test case 3.2: right address, wrong password → bad credentials, nothing saved.
        bad = vs(dossier_bin, "sync", a, "--configure", url, "--user", USER, dav_password="P@ssw0r21", check=False)
        assert bad.returncode == 1
        assert "bad credentials" in bad.stderr and "HTTP 401" in bad.stderr
        assert "nothing was saved" in bad.stderr
        assert a.read_bytes() == before
        assert not (a.parent / "a.dvault.sync.json").exists()
        assert {m for m, _ in dav.requests()} == {"PROPFIND"}          # checked, nothing written
        assert not (tmp_path / "srv" / "v").exists()
        # Without stored settings or --to there is nothing to sync with.
        assert vs(dossier_bin, "sync", a, check=False).returncode != 0

        # UC3 test case 3.1: right credentials → checked (PROPFIND, then MKCOL of the missing
        # folder), saved sealed in the vault, and the data syncs.
        dav.clear_log()
        ok = vs(dossier_bin, "sync", a, "--configure", url, "--user", USER, dav_password=DAV_CANARY)
        assert "saved the server settings" in ok.stdout and "auto-sync off" in ok.stdout
        assert "0 pulled, 1 pushed" in ok.stdout
        methods = [m for m, _ in dav.requests()]
        assert methods.index("PROPFIND") < methods.index("MKCOL") < methods.index("PUT")
        raw = a.read_bytes()
        assert raw != before
        for plain in (DAV_CANARY.encode(), b"127.0.0.1", USER.encode()):
            assert plain not in raw                                     # sealed, not readable
        # Later syncs need no URL, user or password: they come from the vault.
        vs(dossier_bin, "add", a, "--title", "Bank", "--username", "bo")
        again = vs(dossier_bin, "sync", a, "--verbose")           # request log: no password either
        assert "0 pulled, 1 pushed" in again.stdout and "PUT" in again.stderr
        # The settings are not an entry or note: not listed, not reported, not uploaded.
        assert rows(vs(dossier_bin, "list", a).stdout) == [("Bank", "bo"), ("Mail", "jo")]
        report = vs(dossier_bin, "report", a, "--json").stdout
        assert "127.0.0.1" not in report and USER not in report
        assert len(list((tmp_path / "srv" / "v" / "items").iterdir())) == 2
        no_canary_on_disk(tmp_path / "srv", a.parent)


def test_auto_sync_at_unlock_and_a_failed_sync_does_not_block(dossier_bin, tmp_path):
    a, b = tmp_path / "a.dvault", tmp_path / "b.dvault"
    root = tmp_path / "srv"
    with WebDAVServer(root, password=DAV_CANARY) as dav:
        url = dav.url + "v/"
        port = dav.port
        vs(dossier_bin, "init", a)
        vs(dossier_bin, "add", a, "--title", "Mail", "--username", "jo")
        vs(dossier_bin, "sync", a, "--configure", url, "--user", USER, "--auto", dav_password=DAV_CANARY)
        # A new device: its vault is created from the server and gets the settings too.
        out_b = vs(dossier_bin, "sync", b, "--configure", url, "--user", USER, "--auto", dav_password=DAV_CANARY)
        assert "auto-sync on" in out_b.stdout

        # UC7: an edit on A reaches B through the unlocks alone, no explicit sync.
        vs(dossier_bin, "edit", a, "Mail", "--username", "jo-from-a")
        la = vs(dossier_bin, "list", a)                  # unlock → sync pushes A's edit
        assert "auto-sync: synced" in la.stderr and "1 pushed" in la.stderr
        dav.clear_log()
        lb = vs(dossier_bin, "list", b)                  # unlock → sync pulls it before listing
        assert "auto-sync: syncing with" in lb.stderr and "1 pulled" in lb.stderr
        assert rows(lb.stdout) == [("Mail", "jo-from-a")]
        assert any(m == "GET" for m, _ in dav.requests())
        shown = vs(dossier_bin, "show", b, "Mail")
        assert "auto-sync: synced" in shown.stderr and "jo-from-a" in shown.stdout
        # With -q the unlock still syncs, silently: an edit on A arrives, no progress lines.
        vs(dossier_bin, "edit", a, "Mail", "--username", "jo-quiet", "-q")
        qa = vs(dossier_bin, "list", a, "-q")
        assert qa.stderr == "" and rows(qa.stdout) == [("Mail", "jo-quiet")], qa.stderr
        dav.clear_log()
        qb = vs(dossier_bin, "list", b, "-q")
        assert qb.stderr == "" and rows(qb.stdout) == [("Mail", "jo-quiet")], qb.stderr
        assert any(m == "GET" for m, _ in dav.requests())

        # Turning it off: the settings stay, unlocking no longer syncs.
        vs(dossier_bin, "sync", b, "--configure", url, "--user", USER, "--no-auto", dav_password=DAV_CANARY)
        dav.clear_log()
        quiet = vs(dossier_bin, "list", b)
        assert "auto-sync" not in quiet.stderr and dav.requests() == []
        assert rows(quiet.stdout) == [("Mail", "jo-quiet")]
    no_canary_on_disk(root, tmp_path / "a.dvault.sync.json", tmp_path / "b.dvault.sync.json")

    # Server gone: A still unlocks, warns, and works on the local copy.
    down = vs(dossier_bin, "list", a)
    assert down.returncode == 0
    assert "warning: auto-sync failed" in down.stderr and "using the local copy" in down.stderr
    assert rows(down.stdout) == [("Mail", "jo-quiet")]
    vs(dossier_bin, "add", a, "--title", "Offline", "--username", "of")
    # Back up: the offline addition goes out at the next unlock.
    with WebDAVServer(root, password=DAV_CANARY, port=port):
        up = vs(dossier_bin, "list", a)
        assert "auto-sync: synced" in up.stderr and "1 pushed" in up.stderr
        assert rows(up.stdout) == [("Mail", "jo-quiet"), ("Offline", "of")]
        # A damaged state file (it holds the rollback protection): the unlock warns, naming
        # it, and works on the local copy; the file is left for the user to restore.
        state = tmp_path / "a.dvault.sync.json"
        kept = state.read_bytes()
        state.write_text("{cut sho")
        damaged = vs(dossier_bin, "list", a)
        assert damaged.returncode == 0
        assert "warning: auto-sync failed: " + str(state) in damaged.stderr, damaged.stderr
        assert "rollback protection" in damaged.stderr and "using the local copy" in damaged.stderr
        assert rows(damaged.stdout) == [("Mail", "jo-quiet"), ("Offline", "of")]
        assert state.read_text() == "{cut sho"
        state.write_bytes(kept)
