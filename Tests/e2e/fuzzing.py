"""A seeded mutation fuzzer that drives the real `dossier` binary (docs/fuzzing.md).

Each *target* is one parser reached through the CLI: it copies seed inputs from the demo
project and the test fixtures into a fresh folder, mutates one file, runs a command
under a CPU, memory and wall-clock limit, and checks the outcome:

- no crash: the process exits (no signal: no trap, abort or segfault);
- no hang: it finishes within the per-run timeout;
- exit status 0 or 1 (2 is a usage error: the harness's fault);
- on status 1, the error names the mutated file, or another input of the case when
  the problem is a disagreement between two inputs.

`python3 Tests/e2e/fuzzing.py [--seconds N] [--seed S] [TARGET…]` runs a longer campaign
(`make fuzz`); `test_fuzz.py` runs a fixed number of cases per target in `make test`.
Every failing case is saved under artifacts/fuzz/<target>/ with the command to replay it.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from conftest import REPO, dossier_path  # noqa: E402  (the binary is found as every e2e test finds it)
import fuzz_sealed  # noqa: E402

DEMO = REPO / "Examples" / "demo"
FIXTURES = REPO / "Tests"
TIMEOUT = float(os.environ.get("FUZZ_TIMEOUT", "20"))
MEMORY = int(os.environ.get("FUZZ_MEMORY_MB", "3072")) << 20

INTERESTING = [
    b"\x00", b"\xff", b"\xc3\x28", b"\xef\xbb\xbf", b"\"", b"\\", b"'", b"{", b"}", b"[", b"]", b",", b":",
    b"\n", b"\r\n", b"\t", b"-", b"0", b"-1", b"1e309", b"-1e309", b"NaN", b"-nan(SUM)", b"-inf", b"0x1p4",
    b"9223372036854775807", b"9223372036854775808", b"-9223372036854775809", b"18446744073709551616",
    b"4294967296", b"2147483648", b"99999999999999999999999999999999", b"1e-400", b"0.0000001",
    b"&a", b"*a", b"&a [*a, *a, *a]", b"<<: *a", b"!!binary", b"%YAML 1.1\n", b"---\n", b"...\n",
    b"<script>alert(1)</script>", b"javascript:alert(1)", b"../../etc/passwd", b"/", b"%2e%2e", b"\xe2\x80\xae",
    b"true", b"false", b"null", b"{}", b"[]", b"\"\"",
]


def limits(seconds: float) -> Callable[[], None]:
    """preexec_fn: address space, CPU seconds, no core file, own session."""
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        cpu = int(seconds) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.setsid()
    return apply


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four random edits: byte flips, interesting tokens, numbers swapped for
    extreme ones, chunks deleted, duplicated or truncated, lines swapped."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        n = len(b)
        if op == 0 and n:
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(n)] ^= 1 << rng.randrange(8)
        elif op == 1:
            i = rng.randint(0, n)
            b[i:i] = rng.choice(INTERESTING)
        elif op == 2:
            nums = [m.span() for m in re.finditer(rb"-?\d+(\.\d+)?", bytes(b))]
            if nums:
                s, e = rng.choice(nums)
                b[s:e] = rng.choice([t for t in INTERESTING if re.match(rb"^[-0-9.e+xNnai(SUMf)p]+$", t)])
        elif op == 3 and n:
            s = rng.randrange(n)
            del b[s:s + rng.randint(1, max(1, n // 8))]
        elif op == 4 and n:
            s = rng.randrange(n)
            chunk = b[s:s + rng.randint(1, 64)]
            b[s:s] = chunk * rng.choice([2, 16, 1000])
        elif op == 5 and n:
            del b[rng.randint(0, n):]
        elif op == 6:
            lines = bytes(b).split(b"\n")
            if len(lines) > 2:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                b = bytearray(b"\n".join(lines))
        else:
            i = rng.randint(0, n)
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(b)


@dataclasses.dataclass
class Target:
    """One parser: `setup(folder)` copies seeds and returns (file to mutate, argv after
    `dossier`, extra environment)."""
    name: str
    setup: Callable[[pathlib.Path], tuple[pathlib.Path, list[str], dict[str, str]]]
    weight: float = 1.0          # relative share of the runs (slow targets — KDFs, strength
                                 # estimation in a debug build — get less)
    slow: float = 1.0            # timeout multiplier (a debug build's scrypt takes seconds)
    after: Callable[[pathlib.Path, random.Random], None] | None = None   # turns the mutated file into the input


def _copy(src: pathlib.Path, dst: pathlib.Path) -> pathlib.Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dst)
    return dst


def _recall_project(root: pathlib.Path, logs: int = 2) -> pathlib.Path:
    proj = root / "p"
    (proj / "content").mkdir(parents=True)
    (proj / "content" / "index.md").write_text("# Fuzz study\n\nSee [methods](methods.md).\n")
    (proj / "content" / "methods.md").write_text(
        "---\ntitle: Methods\nsummary: How.\nweight: 2\ntoc: true\n---\n# Methods\n\n## One\n\nSee [home](index.md).\n\n## Two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    data = proj / "data"
    _copy(DEMO / "data" / "recall" / "strings.txt", data / "strings.txt")
    _copy(DEMO / "data" / "recall" / "nist-desktop-2011.csv", data / "cohort.csv")
    for log in sorted((DEMO / "data" / "recall" / "logs").glob("*.jsonl"))[:logs]:
        _copy(log, data / "logs" / log.name)
    _copy(FIXTURES / "RecallStudyTests" / "Fixtures" / "desktop-raw-appendix-a.csv", data / "logs" / "D001.csv")
    (proj / "dossier.yml").write_text(
        "# fuzz seed\ntitle: Fuzz study\ndescription: seed\nbase_url: https://example.org/s/\noutput: _site\n"
        "markdown:\n  smart: true\ncsv:\n  bom: true\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n"
        "  desktop_cohorts: data/cohort.csv\n  heatmap_rows: 20\n")
    return proj


def t_manifest(d):
    p = _recall_project(d, logs=1)
    return p / "dossier.yml", ["check", str(p), "-q"], {}


def t_front_matter(d):
    p = _recall_project(d, logs=1)
    return p / "content" / "methods.md", ["check", str(p), "-q"], {}


def t_recall_log(d):
    p = _recall_project(d)
    return sorted((p / "data" / "logs").glob("*.jsonl"))[0], ["check", str(p), "-q"], {}


def t_desktop_raw(d):
    f = _copy(FIXTURES / "RecallStudyTests" / "Fixtures" / "desktop-raw-appendix-a.csv", d / "raw.csv")
    return f, ["recall", "import-desktop", str(f), "--out", str(d / "out.jsonl")], {}


def t_desktop_cohort(d):
    p = _recall_project(d, logs=1)
    return p / "data" / "cohort.csv", ["check", str(p), "-q"], {}


def t_strings(d):
    p = _recall_project(d, logs=1)
    return p / "data" / "strings.txt", ["check", str(p), "-q"], {}


def t_experience(d):
    f = _copy(DEMO / "data" / "experiences" / "dentist.json", d / "dentist.json")
    shutil.copytree(DEMO / "data" / "experiences" / "media", d / "media")
    return f, ["experiences", "validate", str(f)], {}


def t_pannellum(d):
    f = _copy(FIXTURES / "ExperiencesTests" / "Fixtures" / "pannellum-tour.json", d / "tour.json")
    return f, ["experiences", "import", "pannellum", str(f), "--output", str(d / "out.json")], {}


def t_marzipano(d):
    f = _copy(FIXTURES / "ExperiencesTests" / "Fixtures" / "marzipano-data.js", d / "data.js")
    return f, ["experiences", "import", "marzipano", str(f), "--output", str(d / "out.json")], {}


def _vault_export(name):
    def setup(d):
        f = _copy(FIXTURES / "VaultTests" / "Fixtures" / "import" / name, d / name)
        return f, ["vault", "report", "--export", str(f)], {}
    return setup


def t_vault_file(d):
    f = _copy(DEMO / "data" / "vault" / "demo.dvault", d / "demo.dvault")
    pw = (DEMO / "data" / "vault" / "demo-password.txt").read_text().strip()
    return f, ["vault", "list", str(f)], {"DOSSIER_VAULT_PASSWORD": pw}


def t_keystore(d):
    f = _copy(DEMO / "data" / "sms" / "alice.keystore", d / "alice.keystore")
    pw = (DEMO / "data" / "sms" / "demo.password").read_text().strip()
    return f, ["sms", "contact", "list", "--keystore", str(f)], {"DOSSIER_SMS_PASSWORD": pw}


def _game_lines(n=4) -> bytes:
    lines = (DEMO / "data" / "game" / "cohort.jsonl").read_bytes().split(b"\n")
    # The first players' lines: enough for every record type, small enough to be fast.
    ids = []
    out = []
    for line in lines:
        m = re.search(rb'"player"\s*:\s*"([^"]+)"', line)
        if m and m.group(1) not in ids:
            if len(ids) == n:
                continue
            ids.append(m.group(1))
        if m is None or m.group(1) in ids:
            out.append(line)
    return b"\n".join(out) + b"\n"


def t_game_jsonl(d):
    f = d / "cohort.jsonl"
    f.write_bytes(_game_lines())
    return f, ["game", "analyze", str(f)], {}


t_sqlite, t_sealed_upload = fuzz_sealed.game_targets(_game_lines)
t_recall_sealed, t_recall_plaintext, after_recall_plaintext = fuzz_sealed.recall_targets()


TARGETS = [
    Target("manifest", t_manifest),
    Target("front-matter", t_front_matter),
    Target("recall-log", t_recall_log),
    Target("recall-strings", t_strings),
    Target("desktop-raw-csv", t_desktop_raw),
    Target("desktop-cohort-csv", t_desktop_cohort),
    Target("experience-json", t_experience),
    Target("tour-pannellum", t_pannellum),
    Target("tour-marzipano", t_marzipano),
    Target("vault-bitwarden-json", _vault_export("bitwarden.json"), weight=0.34, slow=3),
    Target("vault-bitwarden-csv", _vault_export("bitwarden.csv"), weight=0.34, slow=3),
    Target("vault-keepass-xml", _vault_export("keepass.xml"), weight=0.34, slow=3),
    Target("vault-keepassxc-csv", _vault_export("keepassxc.csv"), weight=0.34, slow=3),
    Target("vault-1password-csv", _vault_export("onepassword.csv"), weight=0.34, slow=3),
    Target("vault-chrome-csv", _vault_export("chrome.csv"), weight=0.34, slow=3),
    Target("vault-firefox-csv", _vault_export("firefox.csv"), weight=0.34, slow=3),
    Target("vault-file", t_vault_file, weight=0.34, slow=4),
    Target("sms-keystore", t_keystore, weight=0.5, slow=4),
    Target("game-jsonl", t_game_jsonl),
    Target("game-sqlite", t_sqlite),
    Target("game-sealed-upload", t_sealed_upload),
    Target("recall-sealed-upload", t_recall_sealed),
    Target("recall-upload-plaintext", t_recall_plaintext, after=after_recall_plaintext),
]


@dataclasses.dataclass
class Finding:
    target: str
    case: int
    problem: str
    command: list[str]
    stderr: str
    saved: pathlib.Path | None = None

    def __str__(self):
        return f"{self.target} case {self.case}: {self.problem}\n  replay: {' '.join(self.command)}\n  saved: {self.saved}\n  stderr: {self.stderr[:400]}"


def names_an_input(err: str, folder: pathlib.Path) -> bool:
    """Whether `err` names one of the case's input files (an error about consistency
    between two inputs may be reported at the other one: a log that disagrees with a
    mutated strings file)."""
    return any(p.is_file() and p.name in err for p in folder.rglob("*"))


def run_case(target: Target, seed: int, case: int, work: pathlib.Path, save: pathlib.Path | None) -> Finding | None:
    """Runs mutation `case` of `target` (deterministic for a seed); a Finding on failure."""
    rng = random.Random(f"{seed}/{target.name}/{case}")
    folder = work / f"{target.name}-{case}"
    folder.mkdir(parents=True)
    file, args, env = target.setup(folder)
    if case >= 0:                      # case -1: the seed as it is, which must pass
        file.write_bytes(mutate(file.read_bytes(), rng))
    if target.after:
        target.after(file, rng)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_")}
    full_env.update(env)
    cmd = [dossier_path(), *args]
    problem = None
    try:
        p = subprocess.run(cmd, capture_output=True, env=full_env, timeout=TIMEOUT * target.slow,
                           preexec_fn=limits(TIMEOUT * target.slow), cwd=folder)
        err = p.stderr.decode("utf-8", "replace")
        if case < 0 and p.returncode != 0:
            problem = f"the unmutated seed fails (exit {p.returncode})"
        elif p.returncode < 0:
            problem = f"crashed with signal {signal.Signals(-p.returncode).name}"
        elif p.returncode not in (0, 1):
            problem = f"exit status {p.returncode}"
        elif p.returncode == 1 and file.name not in err and not names_an_input(err, folder):
            problem = f"the error names no file (not even {file.name})"
    except subprocess.TimeoutExpired as e:
        err = (e.stderr or b"").decode("utf-8", "replace")
        problem = f"no answer within {TIMEOUT * target.slow:.0f} s"
    if problem is None:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    saved = None
    if save is not None:
        saved = save / target.name / f"case-{case}-{file.name}"
        saved.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(file, saved)
    return Finding(target.name, case, problem, cmd, err, saved)


def campaign(targets: list[Target], seed: int, runs: int | None = None, seconds: float | None = None,
             save: pathlib.Path | None = None) -> list[Finding]:
    """`runs` cases per target (times its weight), or as many as fit in `seconds` in all."""
    findings: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="dossier-fuzz-") as tmp:
        work = pathlib.Path(tmp)
        for t in targets:
            f = run_case(t, seed, -1, work, save)
            if f:
                findings.append(f)
        if runs is not None:
            for t in targets:
                for case in range(max(1, round(runs * t.weight))):
                    f = run_case(t, seed, case, work, save)
                    if f:
                        findings.append(f)
        else:
            deadline = time.monotonic() + (seconds or 60)
            case = 0
            while time.monotonic() < deadline:
                for t in targets:
                    if time.monotonic() >= deadline:
                        break
                    if t.weight < 1 and case % round(1 / t.weight):
                        continue
                    f = run_case(t, seed, case, work, save)
                    if f:
                        findings.append(f)
                        print(f, flush=True)
                case += 1
            print(f"{case} rounds over {len(targets)} targets", flush=True)
    return findings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("FUZZ_SECONDS", "600")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", str(int(time.time())))))
    ap.add_argument("targets", nargs="*", help="target names (default: all): " + ", ".join(t.name for t in TARGETS))
    a = ap.parse_args()
    chosen = [t for t in TARGETS if not a.targets or t.name in a.targets]
    print(f"fuzzing {len(chosen)} targets for {a.seconds:.0f} s, seed {a.seed}", flush=True)
    findings = campaign(chosen, a.seed, seconds=a.seconds, save=REPO / "artifacts" / "fuzz")
    print(f"{len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
