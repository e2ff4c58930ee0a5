"""`dossier publish` after interruptions on a server that keeps cut uploads (issue #34).

Each test failed before the fix its doc names. fault_dav.py cuts or loses chosen
requests; DOSSIER_FAULT_AT kills the process at a write point (debug builds).
"""
import json
import shutil

from fault_dav import KINDS  # noqa: F401  (the middleware the server loads)
from test_publish_faults import KILLED, assert_published, publish, published, two_versions
from webdav_server import WebDAVServer, make_site, tree, write_manifest

MANIFEST = ".dossier-manifest.json"


def rules(path, *items):
    path.write_text(json.dumps({"seed": 3, "rules": list(items)}))
    return path


def as_site(src, work):
    """`src` (a site and its manifest) copied to `work`/_site: one project folder whose
    site changes between publishes, as in real use (the journal lives beside it)."""
    dst = work / "_site"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    shutil.copy(src.parent / "_site.manifest.json", work / "_site.manifest.json")
    return dst


def verify_finds_nothing(dossier_bin, site, url):
    out = publish(dossier_bin, site, url, "--verify", "--dry-run").stdout
    assert ": 0 difference(s)" in out, out


def test_a_cut_manifest_upload_is_replaced_in_the_same_run(dossier_bin, tmp_path):
    """Before: the retried marker PUT got 412 from the cut manifest and the publish
    stopped with "another publish at the same time?"."""
    v1, _ = two_versions(tmp_path)
    faults = rules(tmp_path / "f.json", {"method": "PUT", "path": "/s/" + MANIFEST, "fault": "cut", "offset": 9, "times": 1})
    with WebDAVServer(tmp_path / "srv", faults=faults) as dav:
        publish(dossier_bin, v1, dav.url + "s/")
        assert [k for _, _, k in dav.faults_fired()] == ["cut"]
        assert_published(tmp_path / "srv" / "s", v1)
        verify_finds_nothing(dossier_bin, v1, dav.url + "s/")


def test_a_cut_manifest_left_on_the_server_does_not_block_publishing(dossier_bin, tmp_path):
    """Before: plain publish and --verify both refused it as "not valid JSON", for good."""
    v1, v2 = two_versions(tmp_path)
    srv = tmp_path / "srv"
    work = tmp_path / "proj"
    with published(dossier_bin, as_site(v1, work), srv) as (dav, url):
        whole = (srv / "s" / MANIFEST).read_bytes()
        (srv / "s" / MANIFEST).write_bytes(whole[:len(whole) // 3])
        site = as_site(v2, work)
        p = publish(dossier_bin, site, url)
        assert "cut short" in p.stderr
        assert_published(srv / "s", site)
        verify_finds_nothing(dossier_bin, site, url)


def test_an_interrupted_publish_never_deletes_a_file_it_did_not_publish(dossier_bin, tmp_path):
    """Before: after a killed publish, the next one deleted a colleague's file in the
    folder and said only "N deleted". Now it stays, and every deletion is named."""
    v1, v2 = two_versions(tmp_path)
    srv = tmp_path / "srv"
    with published(dossier_bin, v1, srv) as (dav, url):
        (srv / "s" / "theirs.html").write_text("<p>a colleague's page</p>\n")
        p = publish(dossier_bin, v2, url, fault=(3, "kill"), check=False)
        assert p.returncode == KILLED, p.stderr
        p = publish(dossier_bin, v2, url)
        assert (srv / "s" / "theirs.html").read_text() == "<p>a colleague's page</p>\n"
        gone = sorted(set(tree(v1)) - set(tree(v2)))
        named = sorted(l.split("deleted ", 1)[1] for l in p.stderr.splitlines() if l.startswith("deleted "))
        assert gone and named == gone, (named, gone, p.stderr)
        remote = tree(srv / "s")
        del remote["theirs.html"]
        assert remote == tree(v2)


def test_a_plain_publish_names_every_file_it_deletes(dossier_bin, tmp_path):
    v1, v2 = two_versions(tmp_path)
    with WebDAVServer(tmp_path / "srv") as dav:
        publish(dossier_bin, v1, dav.url + "s/")
        p = publish(dossier_bin, v2, dav.url + "s/")
        gone = sorted(set(tree(v1)) - set(tree(v2)))
        named = sorted(l.split("deleted ", 1)[1] for l in p.stderr.splitlines() if l.startswith("deleted "))
        assert named == gone and f"{len(gone)} deleted" in p.stdout


def test_the_journal_fills_as_files_land_so_a_rerun_reads_nothing_twice(dossier_bin, tmp_path):
    """Before: the journal held only its `base` line until every file was sent, so a
    re-run after a kill fetched every file already uploaded again (N files → N+1 GETs)."""
    site = make_site(tmp_path / "big", pages=120)    # 2 + 240 + 2 files in 122 folders
    files = len(tree(site))
    folders = len({p.rsplit("/", 1)[0] for p in tree(site) if "/" in p}) + 1   # + recall/
    srv = tmp_path / "srv"
    with WebDAVServer(srv) as dav:
        url = dav.url + "s/"
        placed = 230
        # write points: MKCOL s/, the marker, the folders' MKCOLs, then PUT + MOVE per file (--jobs 1).
        p = publish(dossier_bin, site, url, "--jobs", "1", fault=(2 + folders + 2 * placed + 1, "kill"), check=False)
        assert p.returncode == KILLED, p.stderr
        moved = [f for f in tree(srv / "s") if not f.endswith(".dossier-upload")]
        assert len(moved) == placed
        dav.clear_log()
        publish(dossier_bin, site, url)
        gets = dav.count("GET")
        # Only the unconfirmed tail of the last batch (100 files) is read again, plus
        # the manifest; before the fix all 230.
        assert gets <= 1 + placed % 100, gets
        assert_published(srv / "s", site)
        assert files == len(tree(srv / "s"))


def test_folders_left_empty_by_an_interrupted_publish_are_removed(dossier_bin, tmp_path):
    """Before: a publish killed after creating a folder, followed by a publish of the
    earlier site, left the empty folder for good, even after --verify."""
    v1, v2 = two_versions(tmp_path)
    srv = tmp_path / "srv"
    with WebDAVServer(srv) as dav:
        url = dav.url + "s/"
        work = tmp_path / "proj"
        publish(dossier_bin, as_site(v1, work), url)
        # v2: marker (1), MKCOL new (2), first PUT (3) — killed there.
        p = publish(dossier_bin, as_site(v2, work), url, fault=(3, "kill"), check=False)
        assert p.returncode == KILLED and (srv / "s" / "new").is_dir(), p.stderr
        site = as_site(v1, work)
        publish(dossier_bin, site, url)
        assert not (srv / "s" / "new").exists()
        assert_published(srv / "s", site)
        # --verify removes an empty folder the site does not have, too.
        (srv / "s" / "stray").mkdir()
        publish(dossier_bin, site, url, "--verify")
        assert not (srv / "s" / "stray").exists()


def test_a_lost_answer_to_a_manifest_put_is_not_taken_for_another_publish(dossier_bin, tmp_path):
    """Before: the retried PUT got 412 (the first one had landed) and the publish
    stopped with "another publish at the same time?"."""
    v1, v2 = two_versions(tmp_path)
    faults = rules(tmp_path / "f.json")
    with published(dossier_bin, v1, tmp_path / "srv", faults=faults) as (dav, url):
        for after in (0, 1):    # the dirty marker, then the clean manifest
            rules(faults, {"method": "PUT", "path": "/s/" + MANIFEST, "fault": "lose", "after": after, "times": 1})
            site = v2 if after == 0 else v1
            publish(dossier_bin, site, url)
            assert [k for _, _, k in dav.faults_fired()][-1] == "lose"
            assert_published(tmp_path / "srv" / "s", site)


def test_leftovers_of_killed_writes_in_the_journal_folder_are_swept(dossier_bin, tmp_path):
    """Before: Foundation's `.dat.nosync*` temporaries and `.*.tmp-*` folders left in
    .dossier/publish/ by killed runs were never removed. Fresh ones (another run's write
    in progress) stay."""
    import os
    v1, _ = two_versions(tmp_path)
    state = v1.parent / ".dossier" / "publish"
    state.mkdir(parents=True)
    old_file, old_dir = state / ".dat.nosync1a2b", state / ".bag.tmp-4242"
    fresh = state / ".dat.nosync9f9f"
    old_file.write_text("half a journal")
    old_dir.mkdir()
    (old_dir / "x").write_text("x")
    fresh.write_text("being written")
    for p in (old_file, old_dir):
        os.utime(p, (1_000_000_000, 1_000_000_000))
    with WebDAVServer(tmp_path / "srv") as dav:
        publish(dossier_bin, v1, dav.url + "s/")
    assert not old_file.exists() and not old_dir.exists()
    assert fresh.exists()


def test_a_failed_look_at_a_folder_to_remove_is_not_taken_as_done(dossier_bin, tmp_path):
    """Found by `make soak` (run 64): the PROPFIND that checks a folder is empty before
    it is removed failed (a 500), was ignored, and the publish wrote its clean manifest
    and exited 0 — leaving the empty folder for good, since the next publish saw a clean,
    up-to-date manifest. Now the failure stops the publish (exit 1) before the clean
    manifest, so the next run finishes the job."""
    v1, v2 = two_versions(tmp_path)
    faults = rules(tmp_path / "f.json")
    srv = tmp_path / "srv"
    with published(dossier_bin, v1, srv, faults=faults) as (dav, url):
        for kind in ("500", "drop", "lose"):
            # after the look at each file before its DELETE, every attempt (the client
            # retries up to 4 times) at the look at the folder
            rules(faults, {"method": "PROPFIND", "path": "/s/recall/p03", "fault": kind,
                           "after": len(list((v1 / "recall" / "p03").iterdir())), "times": 4})
            p = publish(dossier_bin, v2, url, check=False)
            assert [k for _, _, k in dav.faults_fired()][-1] == kind
            if p.returncode == 0:
                assert not (srv / "s" / "recall" / "p03").exists(), kind
            else:
                assert p.returncode == 1 and p.stderr.strip(), (kind, p.stderr)
            rules(faults)
            publish(dossier_bin, v2, url)
            assert not (srv / "s" / "recall" / "p03").exists(), kind
            assert_published(srv / "s", v2)
            verify_finds_nothing(dossier_bin, v2, url)
            publish(dossier_bin, v1, url)
