"""docs/game-privacy.md, "The release ledger", for a release built from JSON Lines
telemetry: privacy-ledger.txt, the budget, when the spend is recorded, what a publish
says, failing closed, and one publish at a time."""
import datetime
import fcntl
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

import test_doc_game_privacy_impl as dp
from test_doc_game_privacy_release import build, make_project
from webdav_server import WebDAVServer, env

KEY = hashlib.sha256(b"doc-game-privacy-ledger").digest()
HEADER = ("# Dossier privacy ledger (docs/game-privacy.md). One line per published release;\n"
          "# the total spent is the sum of epsilon (basic composition). Commit this file.\n")
LINE = re.compile(r"release=([0-9a-f]{16}) epsilon=([0-9.]+) delta=0 section=game "
                  r"published=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("ledger") / "p", players=10, seed=2, key=KEY)
    build(root)
    return root


@pytest.fixture(scope="module")
def dav(tmp_path_factory):
    with WebDAVServer(tmp_path_factory.mktemp("davroot") / "root") as server:
        yield server


@pytest.fixture
def proj(template, tmp_path):
    dst = tmp_path / "p"
    shutil.copytree(template, dst)
    return dst


def release(proj):
    return json.loads((proj / "_site/game/privacy.json").read_text())["release"]


def publish(proj, dav, folder, *extra, password=None):
    e = dict(os.environ)
    e.update(env(password) if password else env())
    return subprocess.run([dp.BIN, "publish", str(proj), "--to", f"{dav.url}{folder}/", *extra],
                          capture_output=True, text=True, env=e, timeout=120)


def served(dav, folder):
    return sorted(p.relative_to(dav.root / folder).as_posix() for p in (dav.root / folder).rglob("*")
                  if p.is_file()) if (dav.root / folder).exists() else []


def prior(proj, *lines):
    (proj / "privacy-ledger.txt").write_text(HEADER + "".join(l + "\n" for l in lines), encoding="utf-8")


def other(eps, rel="00000000000000aa"):
    return f"release={rel} epsilon={eps} delta=0 section=game published=2026-01-02T03:04:05Z"


def test_first_publish_records_one_line_and_says_so(proj, dav):
    start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    p = publish(proj, dav, "first")
    assert p.returncode == 0, p.stderr
    r = release(proj)
    assert p.stdout.rstrip("\n").splitlines()[-1] == f"privacy: recorded release {r}, ε = 6 (total ε = 6)"
    text = (proj / "privacy-ledger.txt").read_text(encoding="utf-8")
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    assert len(lines) == 1
    m = LINE.fullmatch(lines[0])
    assert m and m.group(1) == r and m.group(2) == "6"
    when = datetime.datetime.strptime(m.group(3), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    assert start <= when <= datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=1)
    assert "game/privacy.json" in served(dav, "first")


def test_publishing_the_same_release_again_spends_nothing(proj, dav):
    assert publish(proj, dav, "again").returncode == 0
    before = (proj / "privacy-ledger.txt").read_bytes()
    p = publish(proj, dav, "again2")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines()[-1] == \
        f"privacy: release {release(proj)} is already in the ledger (no new spend; total ε = 6)"
    assert (proj / "privacy-ledger.txt").read_bytes() == before


def test_a_budget_reached_exactly_is_allowed(proj, dav):
    prior(proj, other("7"), other("5", "00000000000000bb"))
    p = publish(proj, dav, "exact")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines()[-1] == f"privacy: recorded release {release(proj)}, ε = 6 (total ε = 18)"
    text = (proj / "privacy-ledger.txt").read_text()
    assert text.startswith(HEADER + other("7") + "\n" + other("5", "00000000000000bb") + "\n")
    assert len([l for l in text.splitlines() if LINE.fullmatch(l)]) == 3


def test_the_total_is_the_sum_of_epsilon_over_the_ledgers_lines(proj, dav):
    # "the total spent is the sum of epsilon"; "(Σ ledger ε) + ε exceeds lifetimeEpsilon"
    prior(proj, other("1"), other("9", rel="00000000000000bb"))
    p = publish(proj, dav, "sum")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines()[-1] == f"privacy: recorded release {release(proj)}, ε = 6 (total ε = 16)"


def test_a_release_listed_twice_counts_once_or_is_malformed(proj, dav):
    # "A release listed on two lines counts once when both lines agree … with another value it is malformed"
    prior(proj, other("1"), other("1"))
    p = publish(proj, dav, "twice")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines()[-1] == f"privacy: recorded release {release(proj)}, ε = 6 (total ε = 7)"
    prior(proj, other("1"), other("9"))
    before = (proj / "privacy-ledger.txt").read_bytes()
    p = publish(proj, dav, "contradiction")
    assert p.returncode == 1
    header_lines = HEADER.count("\n")
    assert f"privacy-ledger.txt:{header_lines + 2}: release 00000000000000aa is listed again with another epsilon, " \
        f"delta or section (first at line {header_lines + 1})" in p.stderr, p.stderr
    assert served(dav, "contradiction") == []
    assert (proj / "privacy-ledger.txt").read_bytes() == before


def test_a_budget_passed_by_a_thousandth_is_refused_and_nothing_uploaded(proj, dav):
    prior(proj, other("12.001"))
    before = (proj / "privacy-ledger.txt").read_bytes()
    p = publish(proj, dav, "over")
    assert p.returncode == 1
    assert "privacy-ledger.txt" in p.stderr
    assert served(dav, "over") == []
    assert (proj / "privacy-ledger.txt").read_bytes() == before


def test_exceed_privacy_budget_publishes_and_records(proj, dav):
    prior(proj, other("12.001"))
    p = publish(proj, dav, "exceed", "--exceed-privacy-budget")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines()[-1] == \
        f"privacy: recorded release {release(proj)}, ε = 6 (total ε = 18.001)"


def test_a_recorded_release_publishes_even_at_a_full_budget(proj, dav):
    prior(proj, other("12"), f"release={release(proj)} epsilon=6 delta=0 section=game published=2026-01-02T03:04:05Z")
    p = publish(proj, dav, "full")
    assert p.returncode == 0, p.stderr
    assert "no new spend; total ε = 18)" in p.stdout


def test_comments_are_ignored(proj, dav):
    prior(proj, "# a comment with release=ffffffffffffffff epsilon=100", other("1"))
    p = publish(proj, dav, "comments")
    assert p.returncode == 0, p.stderr
    assert "(total ε = 7)" in p.stdout


@pytest.mark.parametrize("bad", [
    "release=00000000000000aa epsilon=0.0001 delta=0 section=game published=2026-01-02T03:04:05Z",
    "release=00000000000000aa epsilon=six delta=0 section=game published=2026-01-02T03:04:05Z",
    "release=00000000000000aa",
    "just some words",
    "release=00000000000000aa epsilon=-6 delta=0 section=game published=2026-01-02T03:04:05Z",
    "release=00000000000000aa epsilon=1 delta=0 section=game",
    # "published (UTC, ISO 8601)": a line whose time is not one is malformed too
    "release=00000000000000aa epsilon=1 delta=0 section=game published=yesterday",
])
def test_a_malformed_ledger_line_stops_with_file_and_line(proj, dav, bad):
    prior(proj, other("1"), bad)
    before = (proj / "privacy-ledger.txt").read_bytes()
    p = publish(proj, dav, "malformed")
    assert p.returncode == 1, p.stdout
    assert re.search(r"privacy-ledger\.txt:4\b", p.stderr), p.stderr
    assert served(dav, "malformed") == []
    assert (proj / "privacy-ledger.txt").read_bytes() == before


def test_a_dry_run_records_nothing(proj, dav):
    p = publish(proj, dav, "dry", "--dry-run")
    assert p.returncode == 0, p.stderr
    assert not (proj / "privacy-ledger.txt").exists()


def test_a_ledger_that_is_not_utf8_fails_closed(proj, dav):
    (proj / "privacy-ledger.txt").write_bytes(HEADER.encode() + b"# caf\xe9\n" + other("1").encode() + b"\n")
    before = (proj / "privacy-ledger.txt").read_bytes()
    p = publish(proj, dav, "latin1")
    assert p.returncode == 1
    assert "privacy-ledger.txt: not UTF-8 text; " in p.stderr
    assert (proj / "privacy-ledger.txt").read_bytes() == before and served(dav, "latin1") == []


def test_a_ledger_that_is_a_folder_fails_closed(proj, dav):
    (proj / "privacy-ledger.txt").mkdir()
    p = publish(proj, dav, "folder")
    assert p.returncode == 1
    assert "privacy-ledger.txt: is a folder, not a privacy file" in p.stderr
    assert served(dav, "folder") == []


def test_a_refused_login_records_nothing(proj, dav):
    p = publish(proj, dav, "login", password="wrong horse")
    assert p.returncode == 1
    assert not (proj / "privacy-ledger.txt").exists()
    assert "wrong horse" not in p.stderr + p.stdout


def test_an_unreachable_server_records_nothing(proj):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    e = dict(os.environ)
    e.update(env())
    p = subprocess.run([dp.BIN, "publish", str(proj), "--to", f"http://127.0.0.1:{port}/x/"], capture_output=True,
                       text=True, env=e, timeout=120)
    assert p.returncode == 1
    assert not (proj / "privacy-ledger.txt").exists()


def test_a_publish_cut_after_its_first_change_keeps_the_release(proj, tmp_path):
    with WebDAVServer(tmp_path / "cut", die_before="PUT:2") as server:
        p = publish(proj, server, "site")
    assert p.returncode != 0
    r = release(proj)
    assert (f"privacy: release {r} stays in the ledger (privacy-ledger.txt): some of its files may already be public; "
            "publishing it again spends nothing more") in p.stderr
    assert [LINE.fullmatch(l).group(1) for l in (proj / "privacy-ledger.txt").read_text().splitlines()
            if LINE.fullmatch(l)] == [r]


def test_a_server_that_holds_the_site_already_records_it(proj, dav):
    assert publish(proj, dav, "held").returncode == 0
    (proj / "privacy-ledger.txt").unlink()
    p = publish(proj, dav, "held")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines()[-1] == f"privacy: recorded release {release(proj)}, ε = 6 (total ε = 6)"


def test_with_site_the_ledger_is_next_to_the_site_folder(proj, dav, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    shutil.copytree(proj / "_site", out / "_site")
    shutil.copy(proj / "_site.manifest.json", out / "_site.manifest.json")
    e = dict(os.environ)
    e.update(env())
    p = subprocess.run([dp.BIN, "publish", "--site", str(out / "_site"), "--to", f"{dav.url}bysite/"],
                       capture_output=True, text=True, env=e, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (out / "privacy-ledger.txt").exists()
    assert not (proj / "privacy-ledger.txt").exists()


def test_a_second_publish_waits_for_the_ledger_lock_and_sees_the_first_spend(proj, dav):
    lock = proj / "privacy-ledger.txt.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        e = dict(os.environ)
        e.update(env())
        proc = subprocess.Popen([dp.BIN, "publish", str(proj), "--to", f"{dav.url}locked/"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=e)
        line = proc.stderr.readline()
        assert line.startswith("waiting for ") and \
            "to finish with this privacy ledger (one publish at a time reads and adds to it)" in line, line
        prior(proj, other("12.5"))  # what the holder spent meanwhile
    finally:
        os.close(fd)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, out
    assert "privacy-ledger.txt" in err
    assert served(dav, "locked") == []


def test_quiet_publish_prints_no_privacy_line_but_records(proj, dav):
    p = publish(proj, dav, "quiet", "-q")
    assert p.returncode == 0, p.stderr
    assert "privacy:" not in p.stdout
    assert [LINE.fullmatch(l).group(1) for l in (proj / "privacy-ledger.txt").read_text().splitlines()
            if LINE.fullmatch(l)] == [release(proj)]
