"""More of docs/vault-sync.md, read independently: cost, deletions, interrupted and concurrent syncs, a server that
shows a write late, and every documented refusal (message and exit status). Helpers: test_doc_vault_sync.py."""
import json
import os
import pathlib
import subprocess
import threading

import pytest

from test_doc_vault_sync import (CANARY, MASTER, T0, _conflict_lines, copies_by_source, conflict_copy_id, dav,  # noqa
                                 dossier_path, edit_items, folder, item, items_of, manifest_bytes, new_vault,
                                 pair, read_vault, run, server_files, sync, tombstone, writes)


def test_one_change_costs_five_requests_here_and_two_elsewhere(pair, dav):
    a, b, url, root, its = pair
    mail = its["Mail"]
    old = json.loads((root / "manifest.json").read_bytes())
    assert run("vault", "edit", a, mail["id"], "--username", "jo2").returncode == 0
    assert sync(a, url).returncode == 0
    log = dav.take()
    new = json.loads((root / "manifest.json").read_bytes())
    assert new["version"] == old["version"] + 1
    assert {i: r for i, r in new["items"].items() if i != mail["id"]} == {
        i: r for i, r in old["items"].items() if i != mail["id"]}
    get_tag = log[0]["etag"]
    assert [(e["method"], e["path"].rsplit("/", 1)[-1]) for e in log] == [
        ("GET", "manifest.json"), ("PUT", f"{mail['id']}-{new['items'][mail['id']]}.item"),
        ("PUT", "manifest.pending.json"), ("PUT", "manifest.json"),
        ("DELETE", f"{mail['id']}-{old['items'][mail['id']]}.item")]
    assert log[3]["if_match"] == get_tag and log[1]["if_none_match"] == "*"
    assert sync(b, url, "bob").returncode == 0
    log = dav.take()
    assert [(e["method"], e["path"].rsplit("/", 1)[-1]) for e in log] == [
        ("GET", "manifest.json"), ("GET", f"{mail['id']}-{new['items'][mail['id']]}.item")]
    assert items_of(b)[mail["id"]]["username"] == "jo2"


def test_edits_of_different_items_and_a_deletion_all_reach_both_devices(pair, dav):
    a, b, url, root, its = pair
    assert run("vault", "edit", a, its["Mail"]["id"], "--username", "from-a").returncode == 0
    assert run("vault", "edit", b, its["Bank"]["id"], "--username", "from-b").returncode == 0
    assert run("vault", "rm", b, its["Shop"]["id"]).returncode == 0
    for dev, user in ((a, "alice"), (b, "bob"), (a, "alice")):
        proc = sync(dev, url, user)
        assert proc.returncode == 0 and not _conflict_lines(proc.stdout + proc.stderr), proc.stderr
    ia, ib = items_of(a), items_of(b)
    assert ia == ib
    assert ia[its["Mail"]["id"]]["username"] == "from-a" and ia[its["Bank"]["id"]]["username"] == "from-b"
    shop = ia[its["Shop"]["id"]]
    assert shop["deleted"] and shop["title"] == "" and shop["password"] == ""
    assert len(ia) == 4
    listed = json.loads(run("vault", "list", a, "--json").stdout)
    assert sorted(x["title"] for x in listed) == ["Bank", "Mail", "Memo"]
    man = json.loads((root / "manifest.json").read_bytes())
    blobs = sorted(p.name for p in (root / "items").iterdir())
    assert blobs == sorted(f"{i}-{r}.item" for i, r in man["items"].items())
    assert {p.stat().st_size for p in (root / "items").iterdir()} == {580}


def test_the_conflict_copy_id_is_derived_from_the_losing_versions_json(pair):
    a, b, url, root, its = pair
    mail = its["Mail"]
    a_mail = dict(mail, username="a-side", modified=T0 + 10)
    edit_items(a, a_mail)
    edit_items(b, dict(mail, username="b-side", modified=T0 + 20))
    assert sync(a, url).returncode == 0
    assert sync(b, url, "bob").returncode == 0
    assert conflict_copy_id(a_mail, pathlib.Path(b)) in items_of(b)


def test_an_edit_that_loses_to_a_deletion_is_kept_and_reported(pair, dav):
    a, b, url, root, its = pair
    mail, bank = its["Mail"], its["Bank"]
    b_mail = dict(mail, username="edited-before-delete", modified=T0 + 100)
    edit_items(b, b_mail)
    edit_items(a, tombstone(mail, T0 + 200))
    b_bank = dict(bank, username="edited-after-delete", modified=T0 + 400)
    edit_items(b, b_bank)
    edit_items(a, tombstone(bank, T0 + 300))
    assert sync(a, url).returncode == 0
    pb = sync(b, url, "bob")
    assert pb.returncode == 0, pb.stderr
    assert sync(a, url).returncode == 0
    ia, ib = items_of(a), items_of(b)
    assert ia == ib
    assert ia[mail["id"]]["deleted"] and ia[bank["id"]] == b_bank
    cid = copies_by_source(ia)[("Mail (conflict copy)", b_mail["modified"], b_mail["username"], "")]
    assert ia[cid] == dict(b_mail, id=cid, title="Mail (conflict copy)")
    assert len(ia) == 5
    short = mail["id"][:8].lower()
    lines = [x for x in _conflict_lines(pb.stdout + pb.stderr) if x.startswith(f"conflict: item {short} ")]
    assert len(lines) == 1 and cid[:8].lower() in lines[0], pb.stdout + pb.stderr


def _names(log):
    return [(e["method"], e["path"].rsplit("/", 1)[-1]) for e in log]


@pytest.mark.parametrize("target", ["blob", "pending", "manifest"])
def test_a_sync_stopped_by_a_failing_request_converges_when_run_again(pair, dav, target):
    a, b, url, root, its = pair
    assert run("vault", "edit", b, its["Bank"]["id"], "--username", "b-first").returncode == 0
    assert sync(b, url, "bob").returncode == 0
    assert run("vault", "edit", a, its["Mail"]["id"], "--username", "a-edit").returncode == 0
    a_bytes, state = a.read_bytes(), (a.parent / "v.dvault.sync.json").read_bytes()
    before = json.loads((root / "manifest.json").read_bytes())
    suffix = {"blob": ".item", "pending": "manifest.pending.json", "manifest": "/manifest.json"}[target]
    dav.rules.append(lambda e: {"status": 507} if e["method"] == "PUT" and e["path"].endswith(suffix) else None)
    proc = sync(a, url)
    assert proc.returncode == 1, proc.stderr
    assert "the server is out of space (HTTP 507)" in proc.stderr
    assert a.read_bytes() == a_bytes and (a.parent / "v.dvault.sync.json").read_bytes() == state
    assert json.loads((root / "manifest.json").read_bytes()) == before
    dav.rules.clear()
    for dev, user in ((a, "alice"), (b, "bob")):
        proc = sync(dev, url, user)
        assert proc.returncode == 0 and not _conflict_lines(proc.stdout + proc.stderr), proc.stdout + proc.stderr
    ia, ib = items_of(a), items_of(b)
    assert ia == ib and len(ia) == 4
    assert ia[its["Mail"]["id"]]["username"] == "a-edit" and ia[its["Bank"]["id"]]["username"] == "b-first"
    man = json.loads((root / "manifest.json").read_bytes())
    assert sorted(p.name for p in (root / "items").iterdir()) == sorted(
        f"{i}-{r}.item" for i, r in man["items"].items())


def test_two_devices_syncing_at_once_neither_overwrites_the_other(pair, dav):
    a, b, url, root, its = pair
    assert run("vault", "edit", a, its["Mail"]["id"], "--username", "a-concurrent").returncode == 0
    assert run("vault", "note", b, "--title", "New from B", input="note body").returncode == 0
    arrived, release, seen = threading.Event(), threading.Event(), []

    def hold(e):
        if e["user"] == "alice" and e["method"] == "PUT" and e["path"].endswith("/manifest.json") and not seen:
            seen.append(e)
            return {"hold": (arrived, release)}
        return None
    dav.rules.append(hold)
    env = {"DOSSIER_VAULT_PASSWORD": MASTER, "DOSSIER_WEBDAV_PASSWORD": CANARY, "HOME": str(a.parent)}
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DOSSIER_", "NETRC"))}
    full.update(env)
    proc_a = subprocess.Popen([dossier_path(), "vault", "sync", str(a), "--to", url, "--user", "alice"], env=full,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert arrived.wait(60), "device A never reached its manifest PUT"
        pb = sync(b, url, "bob")
        assert pb.returncode == 0, pb.stderr
    finally:
        release.set()
        out, err = proc_a.communicate(timeout=120)
    assert CANARY not in out + err
    assert proc_a.returncode == 0, err
    assert "the server changed during the sync, merged again (2 rounds)" in out + err
    assert seen[0]["status"] == 412
    assert sync(b, url, "bob").returncode == 0
    ia, ib = items_of(a), items_of(b)
    assert ia == ib and len(ia) == 5
    assert ia[its["Mail"]["id"]]["username"] == "a-concurrent"
    assert any(it["title"] == "New from B" and it["text"] == "note body" for it in ia.values())
    man = json.loads((root / "manifest.json").read_bytes())
    assert sorted(p.name for p in (root / "items").iterdir()) == sorted(
        f"{i}-{r}.item" for i, r in man["items"].items())


def test_conflict_lines_go_to_standard_error_with_quiet(pair, dav):
    a, b, url, root, its = pair
    edit_items(a, dict(its["Memo"], text="a", modified=T0 + 1))
    edit_items(b, dict(its["Memo"], text="b", modified=T0 + 2))
    assert sync(a, url).returncode == 0
    proc = sync(b, url, "bob", "-q")
    assert proc.returncode == 0 and proc.stdout == ""
    assert len(_conflict_lines(proc.stderr)) == 1, proc.stderr


def _refused(proc, dav, dev, before, text):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert text in proc.stderr, proc.stderr
    assert not writes(dav.take())
    assert dev.read_bytes() == before[0] and (dev.parent / "v.dvault.sync.json").read_bytes() == before[1]


def _snap(dev):
    return dev.read_bytes(), (dev.parent / "v.dvault.sync.json").read_bytes()


def test_a_rolled_back_manifest_is_refused_before_anything_is_pulled(pair, dav):
    a, b, url, root, its = pair
    old = (root / "manifest.json").read_bytes()
    assert run("vault", "edit", a, its["Mail"]["id"], "--username", "new").returncode == 0
    assert sync(a, url).returncode == 0
    assert sync(a, url).returncode == 0
    new_version = json.loads((root / "manifest.json").read_bytes())["version"]
    (root / "manifest.json").write_bytes(old)
    (root / "manifest.pending.json").write_bytes(old)
    dav.take()
    before = _snap(a)
    proc = sync(a, url)
    v_old = json.loads(old)["version"]
    _refused(proc, dav, a, before, f"/manifest.json: the server's vault is version {v_old}, older than version "
             f"{new_version} this device already synced: the server was rolled back (restored from a backup?), "
             "refusing to pull old items; nothing was changed")


def test_an_altered_manifest_and_a_format_1_one_are_refused(pair, dav):
    a, b, url, root, its = pair
    good = json.loads((root / "manifest.json").read_bytes())
    bad = dict(good, mac="0" * 64)
    (root / "manifest.json").write_bytes(json.dumps(bad, sort_keys=True, separators=(",", ":")).encode())
    dav.take()
    before = _snap(a)
    _refused(sync(a, url), dav, a, before, "/manifest.json: the manifest failed authentication with this vault's key "
             "(altered on the server?); nothing was changed")
    v1 = {"format": 1, "items": good["items"], "vaultID": good["vaultID"]}
    (root / "manifest.json").write_bytes(json.dumps(v1, sort_keys=True, separators=(",", ":")).encode())
    dav.take()
    _refused(sync(a, url), dav, a, before, "/manifest.json: refusing an unauthenticated (format 1) manifest after this "
             f"device synced version {good['version']} here: ")
    (root / "manifest.json").write_bytes(b"<html>not a manifest</html>")
    dav.take()
    _refused(sync(a, url), dav, a, before, "not a Dossier vault sync manifest")


def test_a_version_above_the_devices_goes_on_from_it_and_a_cut_manifest_is_recovered(pair, dav):
    a, b, url, root, its = pair
    header, payload, k = read_vault(a)
    vid = json.loads(header[12:-32])["vaultID"]
    man = json.loads((root / "manifest.json").read_bytes())
    forged = manifest_bytes(man["items"], vid, 41, k["item"])
    (root / "manifest.json").write_bytes(forged)
    assert sync(a, url).returncode == 0
    assert run("vault", "edit", a, its["Mail"]["id"], "--username", "v42").returncode == 0
    assert sync(a, url).returncode == 0
    whole = (root / "manifest.json").read_bytes()
    assert json.loads(whole)["version"] == 42 and (root / "manifest.pending.json").read_bytes() == whole
    (root / "manifest.json").write_bytes(whole[:25])
    proc = sync(b, url, "bob")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((root / "manifest.json").read_bytes())["version"] == 43
    assert items_of(b)[its["Mail"]["id"]]["username"] == "v42"


def test_a_damaged_state_file_or_a_folder_there_stops_before_any_request(pair, dav):
    a, b, url, root, its = pair
    state = a.parent / "v.dvault.sync.json"
    state.write_bytes(state.read_bytes()[:20])
    before = a.read_bytes(), state.read_bytes()
    dav.take()
    proc = sync(a, url)
    assert proc.returncode == 1 and dav.take() == []
    assert f"{state}: not a sync state (damaged, cut short or not JSON): this file holds the device's rollback " \
           "protection, so nothing was synced; restore it from a backup, or delete it" in proc.stderr, proc.stderr
    assert (a.read_bytes(), state.read_bytes()) == before
    state.unlink()
    state.mkdir()
    proc = sync(a, url)
    assert proc.returncode == 1 and dav.take() == []
    assert f"{state}: a folder where the sync state file belongs" in proc.stderr, proc.stderr


def test_a_wrong_master_password_or_another_vaults_server_changes_nothing(pair, dav, tmp_path):
    a, b, url, root, its = pair
    files = server_files(root)
    before = _snap(a)
    proc = sync(a, url, env={"DOSSIER_VAULT_PASSWORD": "not the master password at all"})
    assert proc.returncode == 1 and "wrong master password" in proc.stderr
    assert _snap(a) == before
    newdev = tmp_path / "c" / "v.dvault"
    newdev.parent.mkdir()
    proc = sync(newdev, url, env={"DOSSIER_VAULT_PASSWORD": "not the master password at all"})
    assert proc.returncode == 1 and "wrong master password" in proc.stderr and not newdev.exists()
    other = tmp_path / "other.dvault"
    new_vault(other, [item("Elsewhere")])
    other_bytes = other.read_bytes()
    dav.take()
    proc = sync(other, url)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert not writes(dav.take()) and other.read_bytes() == other_bytes
    assert not (tmp_path / "other.dvault.sync.json").exists()
    assert server_files(root) == files


def test_configure_checks_the_credentials_first_and_stores_them_sealed(tmp_path, folder, dav):
    name, url, root = folder
    vault = tmp_path / "v.dvault"
    new_vault(vault, [item("Mail", password="x")])
    before = vault.read_bytes()
    proc = run("vault", "sync", vault, "--configure", url, "--user", "alice",
               env={"DOSSIER_WEBDAV_PASSWORD": "wrong-pass"}, home=tmp_path)
    assert proc.returncode == 1
    assert (f"bad credentials: {url}: the server rejected the user name or password (HTTP 401); check the "
            "credentials; nothing was saved") in proc.stderr, proc.stderr
    assert vault.read_bytes() == before and not (tmp_path / "v.dvault.sync.json").exists()
    dav.take()
    proc = run("vault", "sync", vault, "--configure", url, "--user", "alice", "--verbose", home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    log = dav.take()
    assert (log[0]["method"], log[0]["depth"], log[0]["status"]) == ("PROPFIND", "0", 404)
    assert log[1]["method"] == "MKCOL" and (root / "manifest.json").exists()
    settings = read_vault(vault)[1]["settings"]
    assert (settings["webdavURL"], settings["webdavUser"], settings["webdavPassword"], settings["autoSync"]) == (
        url, "alice", CANARY, False)
    proc = run("vault", "sync", vault, env={"DOSSIER_WEBDAV_PASSWORD": None}, home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for data in [*server_files(root).values(), (tmp_path / "v.dvault.sync.json").read_bytes()]:
        assert CANARY.encode() not in data


def test_auto_sync_runs_before_use_and_a_failure_falls_back_to_the_local_copy(pair, dav):
    a, b, url, root, its = pair
    assert run("vault", "sync", a, "--configure", url, "--user", "alice", "--auto", home=a.parent).returncode == 0
    assert run("vault", "edit", b, its["Mail"]["id"], "--username", "from-b").returncode == 0
    assert sync(b, url, "bob").returncode == 0
    proc = run("vault", "list", a, env={"DOSSIER_WEBDAV_PASSWORD": None}, home=a.parent)
    assert proc.returncode == 0
    assert f"auto-sync: syncing with {url} before use" in proc.stderr
    assert f"auto-sync: synced with {url}: 1 pulled, 0 pushed, 0 conflict(s)" in proc.stderr
    assert items_of(a)[its["Mail"]["id"]]["username"] == "from-b"
    proc = run("vault", "list", a, "-q", env={"DOSSIER_WEBDAV_PASSWORD": None}, home=a.parent)
    assert proc.returncode == 0 and "auto-sync:" not in proc.stderr
    dav.rules.append(lambda e: {"status": 403} if e["path"].endswith("/manifest.json") else None)
    proc = run("vault", "list", a, env={"DOSSIER_WEBDAV_PASSWORD": None}, home=a.parent)
    assert proc.returncode == 0 and "Mail" in proc.stdout
    assert "warning: auto-sync failed: " in proc.stderr and "; using the local copy" in proc.stderr, proc.stderr


def test_a_blob_write_shown_late_is_read_back_and_one_never_shown_stops_the_sync(pair, dav):
    a, b, url, root, its = pair
    assert run("vault", "edit", a, its["Mail"]["id"], "--username", "late").returncode == 0
    hidden = []

    def late(e):
        if e["method"] == "PUT" and e["path"].endswith(".item"):
            return {"strip_etag": True}
        if e["method"] == "GET" and e["path"].endswith(".item") and len(hidden) < 2:
            hidden.append(e)
            return {"status": 404}
        return None
    dav.rules.append(late)
    proc = sync(a, url)
    assert proc.returncode == 0, proc.stderr
    log = dav.take()
    blob_put = next(i for i, e in enumerate(log) if e["method"] == "PUT" and e["path"].endswith(".item"))
    man_put = next(i for i, e in enumerate(log) if e["method"] == "PUT" and e["path"].endswith("/manifest.json"))
    assert len(hidden) == 2 and sum(1 for e in log[blob_put:man_put] if e["method"] == "GET") >= 3
    dav.rules[:] = [lambda e: {"status": 201} if e["method"] == "PUT" and e["path"].endswith(".item") else None]
    assert run("vault", "edit", a, its["Bank"]["id"], "--username", "dropped").returncode == 0
    before = (a.read_bytes(), (a.parent / "v.dvault.sync.json").read_bytes(), (root / "manifest.json").read_bytes())
    proc = sync(a, url)
    assert proc.returncode == 1
    assert ("the server answered the upload but does not hold its bytes (it dropped the write, or shows it late); "
            "nothing was saved on this device") in proc.stderr, proc.stderr
    assert before == (a.read_bytes(), (a.parent / "v.dvault.sync.json").read_bytes(),
                      (root / "manifest.json").read_bytes())
    dav.rules.clear()
    assert sync(a, url).returncode == 0 and sync(b, url, "bob").returncode == 0
    assert items_of(b)[its["Bank"]["id"]]["username"] == "dropped"
