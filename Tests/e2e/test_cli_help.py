"""`dossier <command> --help` for every command:

- every command is found from the binary itself, never from a list here: the SUBCOMMANDS
  of each `--help`, and ArgumentParser's `--experimental-dump-help` tree, which also holds
  the commands `--help` does not show (tools for tests and benchmarks); a command added
  later is walked without changing this file;
- every line fits 80 columns (COLUMNS=80, the width ArgumentParser also uses when the
  output is not a terminal), but for ArgumentParser's own USAGE synopsis, which it
  never wraps;
- every example is one complete line: the line as written (seen with COLUMNS=1000, where
  nothing is wrapped) is a line of the 80-column help unchanged, so it copies and pastes
  whole — ArgumentParser wraps a longer line and puts its tail at column 0; and an
  example is never inside a paragraph (`… Example: dossier …`), where it is wrapped too;
- every example is a command (`dossier …`, maybe after `echo … |`) that splits like a
  shell line, and run in a temporary project (`dossier new my-study`, HOME there) it is
  not a usage error (exit status 2): the command, its options and its arguments exist.
  Commands that would serve or reach the network are not run (NOT_RUN): their options
  must be options their `--help` lists.

The long help texts themselves are the files of Help/ (Help/README.md).
`test_the_checks_fail_on_*` show that each check fails on a bad help text.
"""
import json
import os
import re
import shlex
import subprocess
import time

import pytest

# Examples not run: a server that runs until stopped, uploads to a remote host, a copy
# into a remote database, and benchmarks (seconds of work by design; `make bench` runs them).
NOT_RUN = {("serve",), ("publish",), ("vault", "sync"), ("game", "ingest"), ("recall", "ingest"), ("vault", "bench"),
           ("sms", "bench"), ("db", "copy")}
ANNOTATION = re.compile(r"\s{2,}(#|\(|→).*$")
WIDTH = 80


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


def dump_tree(dossier_bin):
    """Every command of ArgumentParser's own description of the tree, hidden ones too."""
    p = subprocess.run([dossier_bin, "--experimental-dump-help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    found = []

    def walk(command, path):
        found.append(path)
        for sub in command.get("subcommands", []):
            if sub["commandName"] != "help":
                walk(sub, path + (sub["commandName"],))

    walk(json.loads(p.stdout)["command"], ())
    return found


def all_commands(dossier_bin):
    """Every command and group, as word tuples: the tree `--help` shows, walked from the
    top, and every command of the dumped tree (hidden ones)."""
    found, todo = [], [()]
    while todo:
        path = todo.pop(0)
        found.append(path)
        todo += [path + (s,) for s in subcommands(help_text(dossier_bin, path, 1000)) if s != "help"]
    dumped = dump_tree(dossier_bin)
    assert set(found) <= set(dumped), set(found) - set(dumped)
    return found + [p for p in dumped if p not in found]


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


def help_problems(narrow, wide):
    """What is wrong with one command's help, given at 80 and at 1000 columns: lines over
    80 columns, examples wrapped or continued, examples inside a paragraph."""
    problems = [f"too long ({len(line)}): {line}" for line in narrow.splitlines()
                if len(line) > WIDTH and not line.startswith("USAGE: ")]
    lines = set(line.rstrip() for line in narrow.splitlines())
    for raw, _ in examples(wide):
        if raw not in lines or raw.endswith("\\"):   # wrapped, or continued on the next line
            problems.append(f"example broken over lines: {raw.strip()}")
    for line in wide.splitlines():
        if re.search(r"\S.*\bExamples?:\s*(echo .*\| *)?dossier ", line):
            problems.append(f"example inside a paragraph (it is wrapped with it): {line.strip()}")
    return problems


def test_every_help_fits_80_columns_and_keeps_its_examples_whole(dossier_bin, commands):
    assert len(commands) >= 40, commands
    problems, counted = [], 0
    for path in commands:
        wide = help_text(dossier_bin, path, 1000)
        counted += len(examples(wide))
        problems += [f"dossier {' '.join(path)}: {p}" for p in help_problems(help_text(dossier_bin, path, WIDTH), wide)]
    assert not problems, "\n".join(problems)
    assert counted >= 40, counted


def test_the_checks_fail_on_a_long_line_and_on_a_broken_example():
    wide = ("OVERVIEW: x\n\nWrites the file. Example: dossier build my-study\n\nExamples:\n"
            "  dossier vault add my.dvault --title Mail --username jo@example.com --generate --length 30\n"
            "  dossier check my-study\n")
    narrow = ("OVERVIEW: x\n\nWrites the file. Example: dossier build my-study\n\nExamples:\n"
              "  dossier vault add my.dvault --title Mail --username jo@example.com --generate\n"
              "--length 30\n  dossier check my-study\n" + "x" * 81 + "\n")
    problems = help_problems(narrow, wide)
    assert any(p.startswith("too long (81)") for p in problems), problems
    assert any("broken over lines: dossier vault add" in p for p in problems), problems
    assert any("inside a paragraph" in p for p in problems), problems
    assert len(problems) == 3, problems
    assert help_problems(wide.split("Example: ")[0] + "\n", wide.split("Example: ")[0] + "\n") == []


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


def example_problem(dossier_bin, commands, args, given, work, env):
    """Why one example's dossier arguments are not a complete command, or None. A NOT_RUN
    command's options must be listed by its `--help`; any other command is run, and a usage
    error (exit status 2: an unknown command or option, a missing argument) is a problem."""
    if any(tuple(args[:len(n)]) == n for n in NOT_RUN):
        path = max((c for c in commands if tuple(args[:len(c)]) == c), key=len)
        listed = set(re.findall(r"--[a-z0-9][a-z0-9-]*", help_text(dossier_bin, path, 1000)))
        unknown = [a.split("=")[0] for a in args if a.startswith("--") and a.split("=")[0] not in listed]
        return f"not an option of `dossier {' '.join(path)}`: {', '.join(unknown)}" if unknown else None
    p = subprocess.run([dossier_bin, *args], cwd=work, env=env, input=given or "", capture_output=True,
                       text=True, timeout=120)
    return " / ".join(p.stderr.strip().splitlines()[:2]) if p.returncode == 2 else None


@pytest.fixture
def project(dossier_bin, tmp_path):
    """A folder holding `my-study` (from `dossier new`), and an environment whose HOME is
    beside it and which sets no DOSSIER_ variable."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"))
    for k in [k for k in env if k.startswith("DOSSIER_")]:
        env.pop(k)
    subprocess.run([dossier_bin, "new", "my-study"], cwd=work, env=env, check=True, capture_output=True, timeout=60)
    return work, env


def test_every_example_is_a_complete_command(dossier_bin, commands, project):
    work, env = project
    usage, run, slow = [], 0, []
    seen = set()
    for path in commands:
        for raw, command in examples(help_text(dossier_bin, path, 1000)):
            if command in seen:
                continue
            seen.add(command)
            for args, given in split(command):
                began = time.monotonic()
                problem = example_problem(dossier_bin, commands, args, given, work, env)
                run += 1
                slow.append((round(time.monotonic() - began, 1), command))
                if problem:
                    usage.append((command, problem))
    print(sorted(slow)[-5:])
    assert not usage, "\n".join(f"{c}: {e}" for c, e in usage)
    assert run >= 40, run


def test_the_checks_fail_on_an_example_that_is_not_a_complete_command(dossier_bin, commands, project):
    work, env = project
    bad = ["dossier vault add my.dvault --colour red",       # no such option
           "dossier recall import-desktop",                  # its file argument is missing
           "dossier vault frobnicate my.dvault",             # no such command
           "dossier serve my-study --no-such-flag"]          # not run, but its options are checked
    for command in bad:
        (args, given), = split(command)
        assert example_problem(dossier_bin, commands, args, given, work, env), command
    (args, given), = split("dossier serve my-study --port 0")
    assert example_problem(dossier_bin, commands, args, given, work, env) is None
