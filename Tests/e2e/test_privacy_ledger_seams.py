"""The privacy ledger at its seams (docs/game-privacy.md, "The release ledger"), each made
to happen by a held server request (fault_dav.py `hold`) or a failing one, never by luck.

- Two publishes of one project at once, each with another release (an older copy of the
  site and the new build) and a lifetime budget with room for one: the first holds the
  ledger's lock from before it reads the ledger, so the second waits, then sees the
  first's spend and is refused. Before, both read the same empty ledger, both published,
  and the one that finished last wrote the ledger without the other's line: two releases
  public, one counted.
- A publish of a site edited after its build is refused before any change: nothing
  spent, no marker left.
- A publish that fails after its first change on the server keeps its spend in the
  ledger (some of its files may be public); publishing the same release again spends
  nothing more. A publish that fails before any change records nothing.
"""
import json
import os
import shutil
import subprocess
import time

from webdav_server import PASSWORD, USER, WebDAVServer


def project(run_dossier, tmp_path, lifetime):
    proj = tmp_path / "p"
    proj.mkdir()
    data = tmp_path / "cohort.jsonl"
    (proj / "dossier.yml").write_text(f"title: Game\noutput: _site\ngame:\n  telemetry: {data}\n"
                                      f"  privacy:\n    epsilon: 4\n    lifetime_epsilon: {lifetime}\n")

    def release(seed):
        run_dossier("game", "simulate", "--players", "30", "--seed", str(seed), "--out", data, "--force")
        run_dossier("build", proj)
        return json.loads((proj / "_site" / "game" / "privacy.json").read_text())["release"]
    return proj, release


def ledger_releases(proj):
    path = proj / "privacy-ledger.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    return [l.split()[0].removeprefix("release=") for l in lines if l and not l.startswith("#")]


def publish(dossier_bin, proj, url, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
    env.update({"DOSSIER_WEBDAV_PASSWORD": PASSWORD, "DOSSIER_WEBDAV_USER": USER})
    return subprocess.Popen([dossier_bin, "publish", str(proj), "--to", url, "--jobs", "1", *extra], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def until_held(dav, gate, proc):
    """Waits for the request to be held (or the process to end), never a fixed time."""
    deadline = time.monotonic() + 120
    while not any(k == "hold:" + gate for _, _, k in dav.faults_fired()) and proc.poll() is None:
        assert time.monotonic() < deadline, "the publish was neither held nor done"
        time.sleep(0.005)
    assert proc.poll() is None, proc.communicate()


def test_two_releases_published_at_once_meet_one_budget(run_dossier, dossier_bin, tmp_path):
    proj, release = project(run_dossier, tmp_path, lifetime=6)   # room for one release of ε = 4
    first = release(1)
    shutil.copytree(proj / "_site", proj / "_old")
    shutil.copy(proj / "_site.manifest.json", proj / "_old.manifest.json")
    second = release(2)
    assert first != second
    rules = tmp_path / "rules" / "faults.json"
    rules.parent.mkdir()
    rules.write_text(json.dumps({"rules": [{"host": "127.0.0.1", "fault": "hold", "gate": "A", "times": 1}]}))
    with WebDAVServer(tmp_path / "srv", faults=rules) as dav:
        port = dav.url.rsplit(":", 1)[1]
        a = publish(dossier_bin, proj, dav.url + "old/", "--site", str(proj / "_old"))
        until_held(dav, "A", a)   # A has read the ledger and waits for the server's first answer
        b = publish(dossier_bin, proj, "http://localhost:" + port + "new/")
        line = b.stderr.readline()   # an old binary does not wait here: B publishes at once
        assert line.startswith("waiting for ") and f"dossier publish (pid {a.pid})" in line, line
        assert "privacy ledger" in line and b.poll() is None
        (rules.parent / "A.go").touch()
        out_a, err_a = a.communicate(timeout=300)
        assert a.returncode == 0, err_a
        out_b, err_b = b.communicate(timeout=300)
        assert b.returncode == 1 and "lifetime budget" in err_b and "nothing was published" in err_b, out_b + err_b
        assert not (tmp_path / "srv" / "new" / "game").exists()
    assert ledger_releases(proj) == [first]


def test_a_publish_that_fails_after_its_first_change_keeps_its_spend(run_dossier, dossier_bin, tmp_path):
    proj, release = project(run_dossier, tmp_path, lifetime=12)
    first = release(1)
    rules = tmp_path / "rules" / "faults.json"
    rules.parent.mkdir()
    # Nothing can be stored: the publish fails before any change, and records nothing.
    rules.write_text(json.dumps({"rules": [{"method": "GET", "fault": "500"}]}))
    with WebDAVServer(tmp_path / "srv", faults=rules) as dav:
        p = publish(dossier_bin, proj, dav.url + "s/")
        out, err = p.communicate(timeout=300)
        assert p.returncode == 1 and ledger_releases(proj) == [], out + err
        # Its first change is made, then every upload fails: the spend stays recorded.
        rules.write_text(json.dumps({"rules": [{"method": "PUT", "path": "game/", "fault": "507"}]}))
        p = publish(dossier_bin, proj, dav.url + "s/")
        out, err = p.communicate(timeout=300)
        assert p.returncode == 1, out + err
        assert ledger_releases(proj) == [first]
        assert f"release {first} stays in the ledger" in err and "may already be public" in err
        rules.write_text(json.dumps({"rules": []}))
        p = publish(dossier_bin, proj, dav.url + "s/")
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and "already in the ledger" in out, out + err
    assert ledger_releases(proj) == [first]


def test_an_edited_site_is_refused_before_any_change_or_spend(run_dossier, dossier_bin, tmp_path):
    """docs/publish.md, "Inputs": every file to upload is checked before the dirty marker.
    Before, the check came file by file during the upload: the release's ε was spent and
    the server kept a dirty marker with this machine's lease, which stopped every other
    publisher until it ran out."""
    proj, release = project(run_dossier, tmp_path, lifetime=12)
    first = release(1)
    page = proj / "_site" / "game" / "index.html"
    page.write_text(page.read_text() + "<!-- edited by hand -->\n")
    with WebDAVServer(tmp_path / "srv") as dav:
        p = publish(dossier_bin, proj, dav.url + "s/")
        out, err = p.communicate(timeout=300)
        assert p.returncode == 1 and "changed since the site manifest was written" in err, out + err
        assert "game/index.html" in err
        assert ledger_releases(proj) == []                        # no ε spent on it
        assert not (tmp_path / "srv" / "s" / ".dossier-manifest.json").exists()   # no marker, no lease
        assert not list((tmp_path / "srv").rglob("*.dossier-upload"))
        run_dossier("build", "--clean", proj)   # the advice
        p = publish(dossier_bin, proj, dav.url + "s/")
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, out + err
    assert ledger_releases(proj) == [first]
