"""`dossier <command> --help` for every command (issue 43, item 7):

- every line fits 80 columns (COLUMNS=80, the width ArgumentParser also uses when the
  output is not a terminal), but for ArgumentParser's own USAGE synopsis, which it
  never wraps;
- every example is one complete line: the line as written (seen with COLUMNS=1000, where
  nothing is wrapped) is a line of the 80-column help unchanged, so it copies and pastes
  whole — ArgumentParser wraps a longer line and puts its tail at column 0;
- every example is a command (`dossier …`, maybe after `echo … |`) that splits like a
  shell line, and run in a temporary project (`dossier new my-study`, HOME there) it is
  not a usage error (exit status 2): the command, its options and its arguments exist.
  Commands that would serve or reach the network are only split, not run (NOT_RUN).
"""
import os
import re
import shlex
import subprocess
import time

import pytest

from quiet_runner import HIDDEN

# Examples not run: a server that runs until stopped, uploads to a remote host, a copy
# into a remote database, and benchmarks (seconds of work by design; `make bench` runs them).
NOT_RUN = {("serve",), ("publish",), ("vault", "sync"), ("game", "ingest"), ("recall", "ingest"), ("vault", "bench"),
           ("sms", "bench"), ("db", "copy")}
ANNOTATION = re.compile(r"\s{2,}(#|\(|→).*$")


def help_text(dossier_bin, path, columns):
    env = dict(os.environ, COLUMNS=str(columns))
    p = subprocess.run([dossier_bin, *path, "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, (path, p.stderr)
    return p.stdout


def subcommands(text):
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("SUBCOMMANDS:"):
            inside = True
            continue
        if inside:
            m = re.match(r"^  ([a-z0-9][a-z0-9-]*)\b", line)
            if not m:
                if line.strip() and not line.startswith("  See "):
                    break
                continue
            out.append(m.group(1))
    return out


def all_commands(dossier_bin):
    """Every command and group, as word tuples: the help tree, and the hidden ones."""
    found, todo = [], [()]
    while todo:
        path = todo.pop(0)
        found.append(path)
        todo += [path + (s,) for s in subcommands(help_text(dossier_bin, path, 1000)) if s != "help"]
    return found + [tuple(h.split()) for h in HIDDEN if tuple(h.split()) not in found]


def examples(text):
    """(line as written, command) for every example line of an unwrapped help text."""
    out = []
    for line in text.splitlines():
        s = re.sub(r"^(Examples?:)\s*", "", line.strip())
        s = re.sub(r"^([A-Z_]+=\S* )+", "", s)   # VARIABLE=value before the command
        if not (s.startswith("dossier ") or re.match(r"^echo .*\| *dossier ", s)):
            continue
        out.append((line.rstrip(), ANNOTATION.sub("", s).strip()))
    return out


@pytest.fixture(scope="module")
def commands(dossier_bin):
    return all_commands(dossier_bin)


def test_every_help_fits_80_columns_and_keeps_its_examples_whole(dossier_bin, commands):
    assert len(commands) >= 40, commands
    long_lines, broken, counted = [], [], 0
    for path in commands:
        narrow = help_text(dossier_bin, path, 80)
        wide = help_text(dossier_bin, path, 1000)
        # The USAGE line is ArgumentParser's own synopsis, which it never wraps.
        long_lines += [(path, l) for l in narrow.splitlines() if len(l) > 80 and not l.startswith("USAGE: ")]
        lines = set(l.rstrip() for l in narrow.splitlines())
        for raw, _ in examples(wide):
            counted += 1
            if raw not in lines or raw.endswith("\\"):   # wrapped, or continued on the next line
                broken.append((" ".join(path), raw))
    problems = [f"{' '.join(p)}: too long: {l}" for p, l in long_lines] + [f"{p}: broken: {l}" for p, l in broken]
    assert not problems, "\n".join(problems)
    assert counted >= 40, counted


def split(command):
    """[(dossier argument list, text for its standard input)] of an example: `a && b` is
    two commands, `echo TEXT |` gives TEXT, `> FILE` and `< FILE` are left to the test."""
    out = []
    for part in command.split(" && "):
        given = None
        if part.startswith("echo "):
            head, part = part.split("|", 1)
            given = shlex.split(head)[1] + "\n"
        words = shlex.split(part)
        for op in (">", "<"):
            if op in words:
                words = words[:words.index(op)]
        assert words[0] == "dossier", command
        out.append((words[1:], given))
    return out


def test_every_example_is_a_complete_command(dossier_bin, commands, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"))
    for k in [k for k in env if k.startswith("DOSSIER_")]:
        env.pop(k)
    subprocess.run([dossier_bin, "new", "my-study"], cwd=work, env=env, check=True, capture_output=True, timeout=60)
    usage, run, slow = [], 0, []
    seen = set()
    for path in commands:
        for raw, command in examples(help_text(dossier_bin, path, 1000)):
            if command in seen:
                continue
            seen.add(command)
            for args, given in split(command):
                if any(tuple(args[:len(n)]) == n for n in NOT_RUN):
                    continue
                began = time.monotonic()
                p = subprocess.run([dossier_bin, *args], cwd=work, env=env, input=given or "", capture_output=True,
                                   text=True, timeout=120)
                run += 1
                slow.append((round(time.monotonic() - began, 1), command))
                if p.returncode == 2:
                    usage.append((command, p.stderr.strip().splitlines()[:2]))
    print(sorted(slow)[-5:])
    assert not usage, "\n".join(f"{c}: {e}" for c, e in usage)
    assert run >= 30, run
