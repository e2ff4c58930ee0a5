"""A CLI that guides (issue #33): typos in help, one spelling per option, `-q`, commands
that say what they wrote, `dossier new --with`, `archive --verify PROJECT`, and the
styled 404 page `serve` answers with.
"""
import json
import re
import urllib.error
import urllib.request

import pytest

from test_foundation import serving_new_project


def test_help_with_a_typo_suggests_and_exits_2(run_dossier):
    p = run_dossier("help", "biuld", check=False)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "'biuld' is not a dossier command" in p.stderr and "Did you mean 'build'?" in p.stderr, p.stderr
    sub = run_dossier("help", "game", "simulat", check=False)
    assert sub.returncode == 2 and "Did you mean 'simulate'?" in sub.stderr, sub.stderr
    ok = run_dossier("help", "build")
    assert "dossier build" in ok.stdout


def test_one_spelling_per_option_old_ones_still_work(run_dossier, tmp_path):
    helptext = run_dossier("game", "simulate", "--help").stdout
    assert "--output" in helptext and not re.search(r"--out\b(?!put)", helptext), helptext
    new = tmp_path / "new.jsonl"
    old = tmp_path / "old.jsonl"
    eq = tmp_path / "eq.jsonl"
    run_dossier("game", "simulate", "--players", "5", "--output", new)
    run_dossier("game", "simulate", "--players", "5", "--out", old)
    run_dossier("game", "simulate", "--players", "5", f"--out={eq}")
    assert new.read_bytes() == old.read_bytes() == eq.read_bytes()


def test_game_simulate_says_what_it_wrote_and_q_silences_it(run_dossier, tmp_path):
    out = tmp_path / "c.jsonl"
    p = run_dossier("game", "simulate", "--players", "7", "--seed", "3", "--output", out)
    players = {json.loads(line)["player"] for line in out.read_text().splitlines() if "player" in json.loads(line)}
    assert f"wrote {out}: {len(players)} players" in p.stderr and "(seed 3)" in p.stderr, p.stderr
    q = run_dossier("game", "simulate", "--players", "7", "--seed", "3", "--output", out, "-q", "--force")
    assert q.stdout == "" and q.stderr == ""


@pytest.mark.parametrize("kind, page", [("recall-kit", "recall/kit/index.html"), ("game", "game/index.html"),
                                        ("experiences", "experiences/editor/index.html")])
def test_new_with_a_section_builds_that_section(run_dossier, tmp_path, kind, page):
    proj = tmp_path / "p"
    made = run_dossier("new", proj, "--with", kind)
    assert f"Next: dossier build {proj}" in made.stderr, made.stderr
    run_dossier("build", proj, "-q")
    assert (proj / "_site" / page).is_file()
    yml = (proj / "dossier.yml").read_text()
    # every other section is there as a commented example
    for key in ("recall", "experiences", "vault", "sms", "game", "archive"):
        assert re.search(rf"^(# )?{key}:$", yml, re.M), (key, yml)


def test_plain_new_builds_and_comments_every_section(run_dossier, tmp_path):
    proj = tmp_path / "p"
    run_dossier("new", proj)
    yml = (proj / "dossier.yml").read_text()
    for key in ("recall", "experiences", "vault", "sms", "game", "archive"):
        assert f"\n# {key}:\n" in yml, (key, yml)
    assert "kit: true" in yml
    run_dossier("build", proj, "-q")


def test_archive_verify_finds_the_bag_archive_wrote_and_q_is_silent(run_dossier, tmp_path):
    proj = tmp_path / "my-study"
    run_dossier("new", proj)
    run_dossier("build", proj, "-q")
    q = run_dossier("archive", proj, "-q")
    assert q.stdout == "" and q.stderr == ""
    v = run_dossier("archive", "--verify", proj)
    assert v.stdout.strip() == f"{proj}/_site-bag: valid bag", v.stdout
    (proj / "_site-bag" / "data" / "site" / "index.html").write_text("changed")
    bad = run_dossier("archive", "--verify", proj, check=False)
    assert bad.returncode == 1 and "index.html" in bad.stderr


def test_serve_answers_a_missing_page_with_the_sites_404(dossier_bin, tmp_path):
    with serving_new_project(dossier_bin, tmp_path / "p") as base:
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(base + "deep/er/missing.html", timeout=10)
        assert e.value.code == 404
        page = e.value.read().decode()
        assert '<html lang="en">' in page and 'name="viewport"' in page and '<base href="/">' in page
        assert "Page not found" in page and 'href="index.html"' in page and "assets/dossier.css" in page


def test_vault_import_of_a_kdbx_uses_password_file_and_a_plain_export_refuses_it(run_dossier, tmp_path):
    """`vault: import: my.kdbx` with `password_file:` opens the database with that file
    (first-hour issue #33); beside an unencrypted export, `password_file:` is an error
    at its line, since there is no password to use. The password is in no output."""
    import pathlib
    import sys
    pytest.importorskip("pykeepass")
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts" / "vault"))
    import make_kdbx
    secret = "kdbx first hour wörd"
    proj = tmp_path / "v"
    run_dossier("new", proj)
    make_kdbx.make(proj / "my.kdbx", 4, "argon2id", "aes256", password=secret)
    (proj / "pw.txt").write_text(secret + "\n")
    yml = proj / "dossier.yml"
    base = yml.read_text()
    yml.write_text(base + "vault:\n  import: my.kdbx\n  password_file: pw.txt\n  as_of: 2026-01-01\n")
    ok = run_dossier("build", proj)
    assert (proj / "_site" / "vault" / "index.html").is_file()
    assert secret not in ok.stdout + ok.stderr
    (proj / "export.csv").write_text("name,url,username,password\nMail,https://mail.example.org,me,hunter22x\n")
    yml.write_text(base + "vault:\n  import: export.csv\n  password_file: pw.txt\n")
    bad = run_dossier("build", proj, check=False)
    line = base.count("\n") + 3
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert f"dossier.yml:{line}: vault.password_file:" in bad.stderr and "unencrypted export" in bad.stderr, bad.stderr
    assert secret not in bad.stdout + bad.stderr and "hunter22x" not in bad.stdout + bad.stderr


CODE = re.compile(r"\b(FRQ|REQ|NFR)\d+\b|\(seed [A-Z]\d+\)|\bseed \d+[a-z]\.\d+|\(F\d+\)")


def test_no_requirement_codes_in_any_help(run_dossier, dossier_bin):
    """Internal requirement codes (FRQ6, REQ2, "seed F20") are for docs, never for users."""
    def commands(path):
        out = run_dossier(*path, "--help").stdout
        assert not CODE.search(out), (path, CODE.search(out).group(0))
        if "SUBCOMMANDS:" in out:
            for name in re.findall(r"^ {2}([a-z][a-z-]*) ", out.split("SUBCOMMANDS:")[1], re.M):
                if name != "help":
                    commands(path + [name])
    commands([])


def test_a_vault_password_file_that_cannot_be_read_is_named_not_called_empty(run_dossier, tmp_path):
    """A `password_file:` that is a folder or not UTF-8 is an error naming the file and
    saying it cannot be read (it was reported as "empty"); exit 1, no site."""
    import os
    proj = tmp_path / "v"
    run_dossier("new", proj)
    env = {**os.environ, "DOSSIER_VAULT_PASSWORD": "unreadable pw test ünï"}
    run_dossier("vault", "init", proj / "my.dvault", env=env)
    yml = proj / "dossier.yml"
    base = yml.read_text()
    for make in (lambda p: p.mkdir(), lambda p: p.write_bytes(b"\xff\xfe not utf-8\n")):
        pw = proj / "pw"
        if pw.is_dir():
            pw.rmdir()
        elif pw.exists():
            pw.unlink()
        make(pw)
        yml.write_text(base + "vault:\n  vault: my.dvault\n  password_file: pw\n")
        bad = run_dossier("build", proj, check=False)
        assert bad.returncode == 1, bad.stdout + bad.stderr
        assert "pw: the password file cannot be read as UTF-8 text" in bad.stderr, bad.stderr
        assert not (proj / "_site" / "vault").exists()
