"""`-q` everywhere, and help that teaches (issue #33, CLI; docs/design-system.md, "Command line").

Every command, visible or hidden, is found by walking `dossier --help` and each group's
help (the hidden ones are named in HIDDEN, and must exist). Each must list `-q, --quiet`,
a purpose, its options and an example in its help. Then every one of them is run with
`-q` on temporary data, in the order a user would, and:

- a command whose job is to do something (`build`, `vault add`, `game ingest`, …)
  prints nothing at all on success: empty standard output and standard error;
- a command whose job is to print something (`vault list`, `sms encrypt`, `game
  analyze`, …) prints exactly that on standard output and nothing on standard error —
  for a command whose output is deterministic, the same bytes as without `-q`;
- a failing command still says why on standard error, with the same exit status.

The runs are grouped by domain (test_quiet_*); each group asserts that it ran exactly
the commands QUIET_TABLE gives it, and QUIET_TABLE must cover every command found.
"""
import json
import re
import select
import socket
import subprocess
import time
import urllib.request

import pytest

from conftest import REPO
from quiet_runner import HIDDEN, QUIET_TABLE, make_runner
from webdav_server import WebDAVServer


def help_text(dossier_bin, words):
    p = subprocess.run([dossier_bin, *words, "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, (words, p.stderr)
    return p.stdout


def all_commands(dossier_bin):
    """Every leaf command, as its words ("vault add", "sms contact list", …)."""
    leaves, todo = [], [[]]
    while todo:
        words = todo.pop(0)
        text = help_text(dossier_bin, words)
        if "SUBCOMMANDS:" in text:
            section = text.split("SUBCOMMANDS:")[1]
            todo += [words + [m.group(1)] for m in re.finditer(r"^ {2}([a-z][a-z0-9-]*) ", section, re.M)
                     if m.group(1) != "help"]
        elif words:
            leaves.append(" ".join(words))
    return leaves + HIDDEN


@pytest.fixture(scope="module")
def commands(dossier_bin):
    return all_commands(dossier_bin)


def test_the_table_covers_every_command(commands):
    assert sorted(c for group in QUIET_TABLE.values() for c in group) == sorted(commands)


def test_every_help_teaches_and_lists_quiet(dossier_bin, commands):
    gaps = []
    for c in commands:
        text = help_text(dossier_bin, c.split())
        overview = re.search(r"^OVERVIEW: (\S.*)$", text, re.M)
        for what, ok in [("a one-line purpose", overview is not None), ("-q, --quiet", "-q, --quiet" in text),
                         ("an OPTIONS list", "\nOPTIONS:\n" in text),
                         ("an example", re.search(r"^\s*Examples?:", text, re.M | re.I) is not None
                          and f"dossier {c}" in text)]:
            if not ok:
                gaps.append(f"dossier {c} --help: no {what}")
    assert not gaps, "\n".join(gaps)


@pytest.fixture
def runner(dossier_bin, tmp_path):
    return make_runner(dossier_bin, tmp_path)


def test_quiet_project_commands(runner, tmp_path):
    r = runner
    r.silent("new", "p")
    r.silent("check", "p")
    r.silent("build", "p")
    r.silent("archive", "p")
    # -q may also stand before the command's name
    for words in (["-q", "check", "p"], ["--quiet", "archive", "--verify", "p"],
                  ["recall", "-q", "simulate", "--participants", "1", "--output", "logs-1"]):
        p = r.run(*words)
        assert p.returncode == 0 and p.stdout == p.stderr == "", (words, p.stdout, p.stderr)
    r.silent("archive", "--verify", "p")
    with WebDAVServer(tmp_path / "dav") as dav:
        r.silent("publish", "p", "--to", dav.url + "site/")
        assert (tmp_path / "dav" / "site" / "index.html").is_file()
    r.data("version")
    (tmp_path / "a.md").write_text("# Title\n\nSome *words*.\n")
    assert "<em>words</em>" in r.data("markdown", "a.md", "--smart")
    # serve -q prints its address (the output asked for: with --port 0 it is the only way
    # to learn it) and nothing else
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([r.bin, "serve", "p", "--port", str(port), "-q"], cwd=tmp_path, env=r.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert select.select([proc.stdout], [], [], 120)[0], "serve printed nothing in 120 s"
        line = proc.stdout.readline()
        assert line == f"Serving p at http://127.0.0.1:{port}/ (Ctrl-C to stop)\n", line
        assert b"<main" in urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read()
        (tmp_path / "p" / "content" / "index.md").write_text("---\ntitle: p\n---\n# Changed\n")
        deadline = time.monotonic() + 60
        while b"Changed" not in urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).read():
            assert time.monotonic() < deadline, "serve did not rebuild"
            time.sleep(0.2)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert out == "" and err == "", (out, err)   # the rebuild said nothing either
    r.record(["serve"])
    r.fails_the_same("build", "no-such-project")
    r.done("project")


def test_quiet_db(runner):
    r = runner
    r.silent("recall", "simulate", "--participants", "2", "--seed", "3", "--output", "logs")
    r.ran = []
    r.silent("db", "migrate", "--database", "a.sqlite")
    r.silent("db", "import-logs", "--database", "a.sqlite", "logs")
    r.silent("db", "copy", "a.sqlite", "b.sqlite")
    r.fails_the_same("db", "copy", "a.sqlite", "b.sqlite")   # b.sqlite is no longer empty
    r.done("db")


def test_quiet_recall_and_experiences(runner, tmp_path):
    r = runner
    r.silent("recall", "simulate", "--participants", "2", "--seed", "3", "--output", "logs")
    r.silent("recall", "import-desktop", REPO / "Tests/RecallStudyTests/Fixtures/desktop-raw-appendix-a.csv",
             "--output", "logs/p2.jsonl")
    r.silent("recall", "parse", "logs")
    r.fails_the_same("recall", "parse", "no-such-log.jsonl")
    r.silent("recall", "keygen", "--output", "study", "--bits", "2048")
    r.silent("recall", "seal", "--public", "study.pub", "--output", "drop", "logs/S001.jsonl")
    (tmp_path / "store").mkdir()
    r.silent("recall", "ingest", "--key", "study.key", "--from", "drop", "--logs", "store")
    assert (tmp_path / "store" / "S001.jsonl").read_bytes() == (tmp_path / "logs" / "S001.jsonl").read_bytes()
    r.done("recall")
    r.ran = []
    demo = REPO / "Examples/demo/data/experiences"
    # a tour with nothing the import has to leave out (that would be a warning, printed with -q too)
    tour = {"default": {"firstScene": "a"},
            "scenes": {"a": {"title": "Hall", "panorama": "a.jpg",
                             "hotSpots": [{"type": "scene", "sceneId": "b", "pitch": 0, "yaw": 10}]},
                       "b": {"title": "Garden", "panorama": "b.jpg",
                             "hotSpots": [{"type": "scene", "sceneId": "a", "pitch": 0, "yaw": 190}]}}}
    (tmp_path / "tour.json").write_text(json.dumps(tour))
    r.silent("experiences", "import", "pannellum", "tour.json", "--title", "Quiet tour", "--output", "tour-exp.json")
    printed = r.data("experiences", "import", "pannellum", "tour.json", "--title", "Quiet tour")
    assert printed == (tmp_path / "tour-exp.json").read_text()
    files = sorted(str(p) for p in demo.glob("*.json"))
    r.silent("experiences", "validate", *files)
    r.data("experiences", "validate", "--json", *files)
    r.done("experiences")
