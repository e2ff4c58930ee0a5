"""docs/game-privacy.md, "The release ledger" and "One key and one ledger per database",
for a release built from a study database: the seal and database checks before upload,
the database's ledger and its text copy, the budget over both, and two projects on one
database."""
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess

import pytest

import test_doc_game_privacy_impl as dp
from test_doc_game_privacy_ledger import HEADER, LINE, other, served
from webdav_server import WebDAVServer, env


def run(*args, cwd=None):
    e = dict(os.environ)
    e.update(env())
    return subprocess.run([dp.BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=e, timeout=300)


@contextlib.contextmanager
def db(path):
    c = sqlite3.connect(path)
    try:
        with c:
            yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("ldb") / "p"
    (root / "data").mkdir(parents=True)
    assert run("game", "simulate", "--players", "10", "--seed", "6", "--db", root / "data/study.sqlite", "-q").returncode == 0
    (root / "dossier.yml").write_text('title: "t"\ngame:\n  database: data/study.sqlite\n')
    p = run("build", root, "-q")
    assert p.returncode == 0, p.stderr
    return root


@pytest.fixture(scope="module")
def dav(tmp_path_factory):
    with WebDAVServer(tmp_path_factory.mktemp("davdb") / "root") as server:
        yield server


@pytest.fixture
def proj(template, tmp_path):
    dst = tmp_path / "p"
    shutil.copytree(template, dst)
    return dst


def rel(proj):
    return json.loads((proj / "_site/game/privacy.json").read_text())["release"]


def rows(proj):
    with db(proj / "data/study.sqlite") as c:
        return c.execute("SELECT release, epsilon, delta, section, published, seq FROM privacy_ledger ORDER BY seq").fetchall()


def add_row(proj, release, eps, seq):
    with db(proj / "data/study.sqlite") as c:
        c.execute("INSERT INTO privacy_ledger VALUES (?, ?, '0', 'game', '2026-01-02T03:04:05Z', ?)", (release, eps, seq))


def text_lines(proj):
    return [l for l in (proj / "privacy-ledger.txt").read_text().splitlines() if not l.startswith("#")]


def edit_site_file(proj, path, data):
    (proj / "_site" / path).write_bytes(data)
    man = json.loads((proj / "_site.manifest.json").read_text())
    for f in man["files"]:
        if f["path"] == path:
            f["sha256"], f["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (proj / "_site.manifest.json").write_text(json.dumps(man, indent=2))


def test_publish_adds_a_row_and_rewrites_the_text_copy(proj, dav):
    add_row(proj, "00000000000000aa", "2.5", 4)
    p = run("publish", proj, "--to", f"{dav.url}rows/")
    assert p.returncode == 0, p.stderr
    r = rel(proj)
    assert p.stdout.rstrip("\n").splitlines()[-1] == f"privacy: recorded release {r}, ε = 6 (total ε = 8.5)"
    got = rows(proj)
    assert [(x[0], x[1], x[2], x[3], x[5]) for x in got] == [("00000000000000aa", "2.5", "0", "game", 4), (r, "6", "0", "game", 5)]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", got[1][4])
    lines = text_lines(proj)
    assert [LINE.fullmatch(l).group(1, 2) for l in lines] == [("00000000000000aa", "2.5"), (r, "6")]
    assert (proj / "privacy-ledger.txt").read_text().startswith("#")


def test_releases_only_the_text_ledger_holds_count_and_move_into_the_database(proj, dav):
    (proj / "privacy-ledger.txt").write_text(HEADER + other("12.001", "00000000000000cc") + "\n")
    p = run("publish", proj, "--to", f"{dav.url}textonly/")
    assert p.returncode == 1
    assert served(dav, "textonly") == [] and rows(proj) == []
    (proj / "privacy-ledger.txt").write_text(HEADER + other("11", "00000000000000cc") + "\n")
    p = run("publish", proj, "--to", f"{dav.url}textonly/")
    assert p.returncode == 0, p.stderr
    assert "(total ε = 17)" in p.stdout
    assert {x[0] for x in rows(proj)} == {"00000000000000cc", rel(proj)}


def test_the_database_ledger_sets_the_budget(proj, dav):
    add_row(proj, "00000000000000dd", "12.001", 1)
    p = run("publish", proj, "--to", f"{dav.url}dbbudget/")
    assert p.returncode == 1
    assert "study.sqlite" in p.stderr
    assert served(dav, "dbbudget") == [] and len(rows(proj)) == 1
    assert not (proj / "privacy-ledger.txt").exists()


def test_a_deleted_text_copy_is_written_again_without_a_new_spend(proj, dav):
    assert run("publish", proj, "--to", f"{dav.url}copy/").returncode == 0
    (proj / "privacy-ledger.txt").unlink()
    p = run("publish", proj, "--to", f"{dav.url}copy/")
    assert p.returncode == 0, p.stderr
    assert "is already in the ledger (no new spend; total ε = 6)" in p.stdout
    assert [LINE.fullmatch(l).group(1) for l in text_lines(proj)] == [rel(proj)]
    assert len(rows(proj)) == 1


@pytest.mark.parametrize("field, value", [("seal", "0" * 64), ("epsilon", "1"), ("lifetimeEpsilon", "100")])
def test_a_hand_edited_release_file_is_refused(proj, dav, field, value):
    pj = json.loads((proj / "_site/game/privacy.json").read_text())
    pj[field] = value
    edit_site_file(proj, "game/privacy.json", json.dumps(pj, indent=2, sort_keys=True).encode())
    p = run("publish", proj, "--to", f"{dav.url}edited/")
    assert p.returncode == 1, p.stdout
    assert "seal" in p.stderr
    assert served(dav, "edited") == [] and rows(proj) == []


def test_a_release_from_another_database_is_refused(proj, dav):
    with db(proj / "data/study.sqlite") as c:
        c.execute("UPDATE privacy_key SET database_id = ?", ("ab" * 16,))
    p = run("publish", proj, "--to", f"{dav.url}otherdb/")
    assert p.returncode == 1, p.stdout
    assert "(dossier publish PROJECT --site SITE --to URL)" in p.stderr
    assert served(dav, "otherdb") == [] and rows(proj) == []


def test_a_site_without_its_project_is_refused(proj, dav, tmp_path):
    out = tmp_path / "elsewhere"
    out.mkdir()
    shutil.copytree(proj / "_site", out / "_site")
    shutil.copy(proj / "_site.manifest.json", out / "_site.manifest.json")
    p = run("publish", "--site", out / "_site", "--to", f"{dav.url}noproj/", cwd=out)
    assert p.returncode == 1
    assert "publish it with the project whose study database made it (dossier publish PROJECT --site SITE --to URL)" \
        in p.stderr
    assert served(dav, "noproj") == []
    p = run("publish", proj, "--site", out / "_site", "--to", f"{dav.url}noproj/", cwd=out)
    assert p.returncode == 0, p.stderr
    assert [x[0] for x in rows(proj)] == [rel(proj)]
    assert (proj / "privacy-ledger.txt").exists()


def test_two_projects_on_one_database_share_key_release_and_ledger(proj, dav, tmp_path):
    second = tmp_path / "second"
    second.mkdir()
    (second / "dossier.yml").write_text(f'title: "other"\ngame:\n  database: {proj / "data/study.sqlite"}\n')
    p = run("build", second, "-q")
    assert p.returncode == 0, p.stderr
    assert (second / "_site/game/privacy.json").read_bytes() == (proj / "_site/game/privacy.json").read_bytes()
    assert run("publish", proj, "--to", f"{dav.url}two-a/").returncode == 0
    p = run("publish", second, "--to", f"{dav.url}two-b/")
    assert p.returncode == 0, p.stderr
    assert f"privacy: release {rel(proj)} is already in the ledger (no new spend; total ε = 6)" in p.stdout
    assert len(rows(proj)) == 1
    assert [LINE.fullmatch(l).group(1) for l in text_lines(second)] == [rel(proj)]


def test_exceed_flag_records_past_the_budget_in_the_database(proj, dav):
    add_row(proj, "00000000000000ee", "13", 1)
    p = run("publish", proj, "--to", f"{dav.url}exceed/", "--exceed-privacy-budget")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines()[-1] == f"privacy: recorded release {rel(proj)}, ε = 6 (total ε = 19)"
    assert [x[5] for x in rows(proj)] == [1, 2]


def test_a_release_file_that_is_not_utf8_fails_closed(proj, dav):
    raw = (proj / "_site/game/privacy.json").read_bytes()
    edit_site_file(proj, "game/privacy.json", raw.replace(b'"game"', b'"g\xe9me"'))
    p = run("publish", proj, "--to", f"{dav.url}latin/")
    assert p.returncode == 1
    assert "privacy.json: not UTF-8 text; " in p.stderr, p.stderr
    assert served(dav, "latin") == [] and rows(proj) == []


def test_the_database_ledger_is_read_again_once_the_lock_is_held(proj, dav):
    fd = os.open(proj / "privacy-ledger.txt.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        e = dict(os.environ)
        e.update(env())
        proc = subprocess.Popen([dp.BIN, "publish", str(proj), "--to", f"{dav.url}dblock/"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=e)
        line = proc.stderr.readline()
        assert "to finish with this privacy ledger (one publish at a time reads and adds to it)" in line, line
        add_row(proj, "00000000000000ff", "12.5", 1)
    finally:
        os.close(fd)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, out
    assert served(dav, "dblock") == [] and len(rows(proj)) == 1
