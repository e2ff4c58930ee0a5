"""Every command of README.md runs as written, in order, from a fresh clone (issue #33).

The README's ```sh blocks are read from the clone; each command line (its `#` comment
dropped) is run in the order it appears, with the built `dossier` first on PATH, in one
working folder, so `dossier new my-study` makes the project the later lines use. How a
line runs is decided by its shape, and a line of no known shape fails the test, so a new
README command cannot go untested:

- `dossier …`: run as written; `dossier serve` is started, must serve the site's home
  page and its 404 page, and is stopped; `<command>` stands for every command `dossier
  --help` lists; a publish URL (`https://dav.example.org/site/`, `https://dav.lab/site/`)
  is replaced by a real WebDAV server on 127.0.0.1 (the `--ca-file` line: https with a
  private CA whose certificate is written where the line names it), credentials in the
  environment as the README says.
- `make …`: a cheap target (`make demo`) is run as written in the clone, with the built
  binary given as `DOSSIER=` in the environment: the Makefile then uses it instead of
  building Dossier again in the clone (a from-scratch build takes many minutes). The
  expensive targets are only checked with `make -n` (the target exists and prints its
  recipe), each for the reason in `DRY_RUN_ONLY`.
- `swift test --filter X`: the suite or test X exists in the clone's Tests/.
- `python3 -m pytest … -k K`: collected (`--collect-only`), at least one test selected.
"""
import os
import pathlib
import re
import shlex
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import REPO
from webdav_server import PASSWORD, USER, WebDAVServer

DAV_URLS = ["https://dav.example.org/site/", "https://dav.lab/site/"]

# make targets that run for real: each must finish in seconds once Dossier is built
RUN = {"demo"}
# make targets checked with `make -n` only, and why they are not run here
DRY_RUN_ONLY = {
    "test": "every Swift and end-to-end test: about 40 minutes on 2 cores",
    "test-release": "a release build (20 minutes on 2 cores), then the tests of the release binary",
    "test-e2e": "the whole end-to-end suite, this test among them",
    "install": "a release build with the static Swift runtime (many minutes) and a copy into PREFIX",
    "soak": "the random-kill campaigns: hundreds of publish and sync runs",
    "bench": "the side-by-side benchmarks: many minutes",
}


def readme_commands(readme: str):
    """(block number, command) for every line of every ```sh block."""
    out = []
    for n, block in enumerate(re.findall(r"```sh\n(.*?)```", readme, re.S)):
        for line in block.splitlines():
            cmd = re.sub(r"\s+#.*$", "", line).strip()
            if cmd:
                out.append((n, cmd))
    return out


def fresh_clone(tmp_path) -> pathlib.Path:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(clone)], check=True, timeout=300)
    return clone


def commands_listed(dossier_bin):
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True, check=True).stdout
    section = out.split("SUBCOMMANDS:")[1]
    names = [m.group(1) for m in re.finditer(r"^ {2}([a-z][a-z-]*) ", section, re.M)]
    assert "build" in names and "archive" in names, section
    return [n for n in names if n != "help"]


def wait_for(url, deadline=60):
    end = time.monotonic() + deadline
    while True:
        try:
            return urllib.request.urlopen(url, timeout=5)
        except urllib.error.HTTPError as e:
            return e
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


def test_every_readme_command_runs_as_written_from_a_fresh_clone(dossier_bin, tmp_path):
    from test_webdav_private_ca import make_ca
    clone = fresh_clone(tmp_path)
    readme = (clone / "README.md").read_text()
    commands = readme_commands(readme)
    assert len(commands) >= 15, commands

    work = tmp_path / "work"
    work.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dossier").symlink_to(dossier_bin)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", HOME=str(tmp_path / "home"),
               DOSSIER_WEBDAV_USER=USER, DOSSIER_WEBDAV_PASSWORD=PASSWORD)
    (tmp_path / "home").mkdir()
    ran = []

    def sh(cmd, cwd=work, check=True, timeout=600):
        p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        if check:
            assert p.returncode == 0, f"README command failed: {cmd}\n{p.stdout}\n{p.stderr}"
        ran.append(cmd)
        return p

    pki = make_ca(tmp_path / "pki", "lab")
    with WebDAVServer(tmp_path / "dav") as plain, WebDAVServer(tmp_path / "dav-tls", tls=(pki[1], pki[2])) as tls:
        for _, cmd in commands:
            words = shlex.split(cmd)
            while "=" in words[0] and not words[0].startswith("-"):
                words = words[1:]                  # VAR=value before the command
            if words[0] == "make":
                target = next((w for w in words[1:] if "=" not in w), "all")
                if target in RUN:
                    env["DOSSIER"] = dossier_bin
                    try:
                        p = sh(cmd, cwd=clone)
                    finally:
                        del env["DOSSIER"]
                    assert "swift build" not in p.stdout, p.stdout   # the given binary, no new build
                    site = clone / "Examples" / "demo" / "_site"
                    assert f"open {site}/index.html" in p.stdout, p.stdout
                    assert (site / "index.html").is_file() and (site / "404.html").is_file()
                else:
                    assert target in DRY_RUN_ONLY, f"README names `{cmd}`: run it (RUN) or say why not (DRY_RUN_ONLY)"
                    p = sh(f"make -n {shlex.join(words[1:])}", cwd=clone)
                    assert p.stdout.strip(), f"`make -n {target}` printed no recipe"
            elif words[0] == "swift" and words[1] == "test":
                name = words[words.index("--filter") + 1]
                found = subprocess.run(["grep", "-rlF", name, "Tests"], cwd=clone, capture_output=True, text=True)
                assert found.stdout.strip(), f"{cmd}: no test named {name} in Tests/"
                ran.append(cmd)
            elif words[:3] == ["python3", "-m", "pytest"]:
                p = sh(cmd.replace("-q", "-q --collect-only", 1), cwd=clone)
                assert re.search(r"[1-9]\d* tests? collected|^\S+::\S+", p.stdout, re.M), p.stdout
            elif words[0] == "dossier" and words[1] == "serve":
                proc = subprocess.Popen(words, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                try:
                    port = re.search(r"127\.0\.0\.1:(\d+)", cmd) or re.search(r"127\.0\.0\.1:(\d+)", readme)
                    home = wait_for(f"http://127.0.0.1:{port.group(1)}/")
                    assert home.status == 200 and b"<main" in home.read()
                    missing = wait_for(f"http://127.0.0.1:{port.group(1)}/no/such/page.html")
                    assert missing.status == 404 and b"Page not found" in missing.read()
                finally:
                    proc.terminate()
                    proc.wait(timeout=30)
                ran.append(cmd)
            elif words[0] == "dossier" and words[1] == "<command>":
                for name in commands_listed(dossier_bin):
                    p = sh(cmd.replace("<command>", name))
                    assert "Usage" in p.stdout or "USAGE" in p.stdout, p.stdout
            elif words[0] == "dossier" and words[1] == "publish":
                if "--ca-file" in words:
                    (work / words[words.index("--ca-file") + 1]).write_bytes(pathlib.Path(pki[0]).read_bytes())
                    server = tls
                else:
                    server = plain
                url = next(u for u in DAV_URLS if u in cmd)
                sh(cmd.replace(url, server.url + "site/"))
                site = work / "my-study" / "_site"
                sent = sorted(p.relative_to(tmp_path / ("dav-tls" if server is tls else "dav") / "site")
                              for p in (tmp_path / ("dav-tls" if server is tls else "dav") / "site").rglob("*") if p.is_file())
                assert set(p.relative_to(site) for p in site.rglob("*") if p.is_file()) <= set(sent)
            elif words[0] == "dossier":
                sh(cmd)
            else:
                pytest.fail(f"README command of no known shape: {cmd}")
    assert len(ran) >= len(commands), (ran, commands)
    # what the README promises of the commands above
    assert (work / "my-study" / "_site" / "index.html").is_file()
    assert (work / "my-study" / "_site" / "404.html").is_file()
    assert (work / "my-study" / "_site-bag" / "bagit.txt").is_file()
