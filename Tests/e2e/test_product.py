"""Dossier as a product: one self-contained binary, `make install`, CLI suggestions,
`dossier version`, help written as paragraphs (issue #13).

The binary under test is `$DOSSIER_RELEASE_BIN`, else `.build/release/dossier` when it
exists and is not older than the debug build, else the debug build (`make test-release`
builds release first and runs these tests on it; `make test` runs them on the debug build).
"""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import REPO, dossier_path

SECTIONS = ["recall", "experiences", "vault", "sms", "game"]


def product_binary() -> str:
    env = os.environ.get("DOSSIER_RELEASE_BIN")
    if env:
        return env
    release = REPO / ".build" / "release" / "dossier"
    debug = pathlib.Path(dossier_path())
    if release.exists() and (not debug.exists() or release.stat().st_mtime >= debug.stat().st_mtime):
        return str(release)
    return str(debug)


def clean_env(home: pathlib.Path) -> dict:
    """An environment with an empty HOME and no developer override."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
    env["HOME"] = str(home)
    env["PATH"] = "/usr/bin:/bin"
    return env


def copy_demo(dst: pathlib.Path) -> pathlib.Path:
    shutil.copytree(REPO / "Examples" / "demo", dst, ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    return dst


def assert_full_site(site: pathlib.Path):
    for key in SECTIONS:
        assert (site / key / "index.html").is_file(), f"{key}/index.html missing"
    # the style sheet and script are the built-in ones, byte for byte
    assert (site / "assets" / "dossier.css").read_bytes() == (REPO / "Site" / "dossier.css").read_bytes()
    assert (site / "assets" / "tables.js").read_bytes() == (REPO / "Site" / "tables.js").read_bytes()
    assert (site / "assets" / "experiences" / "viewer.js").is_file()
    vault = (site / "vault" / "index.html").read_text()
    assert "table-scroll" in vault


def test_lone_binary_builds_the_demo_with_every_section(tmp_path):
    """Only the binary, copied into an empty folder, with an empty HOME."""
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy2(product_binary(), lone / "dossier")
    home = tmp_path / "home"
    home.mkdir()
    demo = copy_demo(tmp_path / "demo")
    env = clean_env(home)
    proc = subprocess.run([str(lone / "dossier"), "build", str(demo)], cwd=lone, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert_full_site(demo / "_site")
    assert sorted(p.name for p in lone.iterdir()) == ["dossier"], "the build wrote beside the binary"
    # the strength estimator's word lists are inside the binary too: a dictionary word
    # scores 0, a long random string high (with no lists every word would look strong)
    score = subprocess.run([str(lone / "dossier"), "vault", "score", "--stdin"], input="password\nqX7#vL9!mR2$wK4@\n",
                           cwd=lone, env=env, capture_output=True, text=True, timeout=60)
    assert score.returncode == 0, score.stderr
    assert score.stdout.split() == ["0", "4"], score.stdout


def test_make_install_puts_a_working_dossier_in_prefix_bin(tmp_path):
    prefix = tmp_path / "prefix"
    binary = product_binary()
    config = "release" if "/release/" in binary else "debug"
    env = dict(os.environ)
    proc = subprocess.run(["make", "-s", "install", f"PREFIX={prefix}", f"CONFIG={config}"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    installed = prefix / "bin" / "dossier"
    assert installed.is_file() and os.access(installed, os.X_OK)
    assert sorted(p.name for p in prefix.iterdir()) == ["bin"], "install wrote more than bin/dossier"
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home)
    # a new project (the full demo is built by the lone-binary test above)
    for args in (["new", "study"], ["build", "study"]):
        proc = subprocess.run([str(installed), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    site = tmp_path / "study" / "_site"
    assert (site / "index.html").is_file()
    assert (site / "assets" / "dossier.css").read_bytes() == (REPO / "Site" / "dossier.css").read_bytes()


@pytest.fixture
def small_project(tmp_path, run_dossier):
    run_dossier("new", "small", cwd=tmp_path)
    return tmp_path / "small"


def test_developer_override_replaces_the_embedded_resources(tmp_path, run_dossier, small_project):
    demo_copy = small_project
    res = tmp_path / "res"
    shutil.copytree(REPO / "Templates", res / "Templates")
    shutil.copytree(REPO / "Site", res / "Site")
    (res / "Site" / "dossier.css").write_text("/* override */\n")
    layout = res / "Templates" / "layout.mustache"
    layout.write_text(layout.read_text().replace("<body", "<!-- from override -->\n<body"))
    run_dossier("build", demo_copy, env={"DOSSIER_RESOURCES": str(res)})
    assert (demo_copy / "_site" / "assets" / "dossier.css").read_text() == "/* override */\n"
    assert "from override" in (demo_copy / "_site" / "index.html").read_text()
    bad = run_dossier("build", demo_copy, env={"DOSSIER_RESOURCES": str(tmp_path / "nowhere")}, check=False)
    assert bad.returncode == 1 and "DOSSIER_RESOURCES" in bad.stderr


def test_project_templates_still_override_embedded_ones(run_dossier, small_project):
    demo_copy = small_project
    (demo_copy / "templates").mkdir(exist_ok=True)
    (demo_copy / "templates" / "page.mustache").write_text("<article class=\"mine\">{{{content}}}</article>\n")
    run_dossier("build", demo_copy)
    assert "class=\"mine\"" in (demo_copy / "_site" / "methods" / "index.html").read_text()


# MARK: CLI

def test_unknown_subcommand_suggests_the_closest(run_dossier):
    p = run_dossier("buidl", "x", check=False)
    assert p.returncode == 2
    assert "Did you mean 'build'?" in p.stderr, p.stderr
    assert "unexpected argument" not in p.stderr
    p = run_dossier("vault", "reprot", check=False)
    assert p.returncode == 2 and "Did you mean 'report'?" in p.stderr, p.stderr
    p = run_dossier("zzzzzz", check=False)
    assert p.returncode == 2 and "Did you mean" not in p.stderr and "Commands:" in p.stderr, p.stderr


def test_unknown_option_suggests_the_closest(run_dossier, tmp_path):
    p = run_dossier("build", str(tmp_path), "--cleen", check=False)
    assert p.returncode == 2
    assert p.stderr.count("Did you mean '--clean'?") == 1, p.stderr
    p = run_dossier("vault", "generate", "--min-symbols", "2", check=False)
    assert p.returncode == 2
    assert "Did you mean '--min-special'" in p.stderr, p.stderr
    p = run_dossier("vault", "generate", "--lenght", "12", check=False)
    assert p.returncode == 2 and "Did you mean '--length'?" in p.stderr, p.stderr


def test_version_subcommand_prints_what_the_flag_prints(run_dossier):
    a = run_dossier("version").stdout
    b = run_dossier("--version").stdout
    assert a == b and re.match(r"^\d+\.\d+", a.strip()), (a, b)


def help_text(args, columns):
    env = dict(os.environ, COLUMNS=str(columns))
    p = subprocess.run([dossier_path(), *args, "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


HELP_COMMANDS = [[], ["build"], ["check"], ["serve"], ["publish"], ["archive"], ["recall"], ["game"],
                 ["vault", "sync"], ["experiences"]]


@pytest.mark.parametrize("args", HELP_COMMANDS, ids=lambda a: " ".join(a) or "dossier")
def test_help_is_written_as_paragraphs_and_wraps_at_any_width(args):
    narrow = help_text(args, 60)
    # (ArgumentParser's one-line USAGE synopsis and "See 'dossier help …'" footer are not wrapped)
    assert max(len(line) for line in narrow.splitlines()
               if not line.startswith("USAGE:") and not line.strip().startswith("See 'dossier help")) <= 60, narrow
    wide = help_text(args, 300)
    overview = wide.split("USAGE:")[0]
    lines = overview.splitlines()
    for a, b in zip(lines, lines[1:]):
        # A paragraph line may only end where the next word would not have fitted in 300
        # columns; a break before a lower-case continuation that would fit is a hard
        # line break inside a sentence. (Indented lines are examples and keep theirs.)
        # ArgumentParser fills a line to one column less than the width (299 here), so a
        # word that would end exactly at column 300 goes to the next line.
        if a.strip() and b.strip() and not a.startswith(" ") and not b.startswith(" "):
            if re.match(r"[a-z(`]", b) and not a.rstrip().endswith(":"):
                assert len(a) + 1 + len(b.split()[0]) > 299, f"hard break inside a paragraph:\n{a}\n{b}"
