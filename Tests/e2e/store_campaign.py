"""The moving parts of the multi-site ingest campaign (Tests/e2e/test_pg_campaign.py):
the uploads a study's sites collect, the two drops they land in, and ingest processes
killed where a seeded schedule says. Not a test itself.

Kill plans (each one of the schedule's choices for one process):

- ``("commit", k)``: the process stops at its k-th commit point (`DOSSIER_PAUSE_AT=commit:k`:
  inside the transaction, every row of the upload written, nothing committed) and is
  killed there with SIGKILL;
- ``("write", k)``: `DOSSIER_FAULT_AT=k`: it ends itself (status 86) before its k-th
  WebDAV write — the DELETE that follows a commit, so the upload is stored and still in
  the drop;
- ``("line", k)``: SIGKILL as soon as it has printed its k-th outcome line (an upload
  committed; its DELETE may or may not have been sent);
- ``None``: not killed.
"""
import json
import os
import pathlib
import signal
import subprocess
import threading
import time

KILLED_BY_FAULT = 86


def split_cohort(cohort: pathlib.Path, out: pathlib.Path):
    """Two JSON Lines files from one cohort: part 1 holds each player's survey and odd
    sessions, part 2 the even sessions — so a player sends two uploads, in either order."""
    one, two = [], []
    for line in cohort.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        (two if rec.get("type") == "session" and rec.get("session", 1) % 2 == 0 else one).append(line)
    out.mkdir(parents=True, exist_ok=True)
    (out / "part1.jsonl").write_text("\n".join(one) + "\n", encoding="utf-8")
    (out / "part2.jsonl").write_text("\n".join(two) + "\n", encoding="utf-8") if two else None
    return [out / "part1.jsonl"] + ([out / "part2.jsonl"] if two else [])


class Killable:
    """One ingest process run under a kill plan (module docstring)."""

    def __init__(self, argv, env, plan, workdir: pathlib.Path, name):
        self.name, self.plan = name, plan
        env = dict(env)
        self.pause_file = workdir / f"pause-{name}"
        for p in (self.pause_file, pathlib.Path(str(self.pause_file) + ".reached")):
            p.unlink(missing_ok=True)
        if plan and plan[0] == "commit":
            env.update(DOSSIER_PAUSE_AT=f"commit:{plan[1]}", DOSSIER_PAUSE_FILE=str(self.pause_file))
        if plan and plan[0] == "write":
            env.update(DOSSIER_FAULT_AT=str(plan[1]), DOSSIER_FAULT_MODE="kill")
        self.err_path = workdir / f"{name}.err"
        self.err = open(self.err_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=self.err, text=True)
        self.lines = []
        self.killed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.watcher = None
        if plan and plan[0] == "commit":
            self.watcher = threading.Thread(target=self._kill_when_paused, daemon=True)
            self.watcher.start()

    def _kill(self):
        if self.proc.poll() is None:
            self.killed = True
            self.proc.send_signal(signal.SIGKILL)

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            if self.plan and self.plan[0] == "line" and len(self.lines) >= self.plan[1]:
                self._kill()

    def _kill_when_paused(self):
        reached = pathlib.Path(str(self.pause_file) + ".reached")
        while self.proc.poll() is None:
            if reached.exists():
                self._kill()
                return
            time.sleep(0.02)

    def wait(self, timeout=600):
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._kill()
            self.proc.wait()
            raise AssertionError(f"{self.name} did not finish in {timeout} s: {self.stderr()}")
        self.reader.join(30)
        if self.watcher:
            self.watcher.join(30)
        self.err.close()
        self.proc.stdout.close()
        return code

    def stdout(self):
        return "".join(self.lines)

    def stderr(self):
        return self.err_path.read_text(encoding="utf-8", errors="replace")


def run_together(specs, workdir, timeout=600):
    """Starts every (name, argv, env, plan) at once; returns {name: (status, stdout, stderr, killed)}."""
    procs = [Killable(argv, env, plan, workdir, name) for name, argv, env, plan in specs]
    out = {}
    for k in procs:
        code = k.wait(timeout)
        out[k.name] = (code, k.stdout(), k.stderr(), k.killed)
    return out


def files_in(folder: pathlib.Path, suffix):
    return sorted(p.name for p in folder.iterdir() if p.is_file() and p.name.endswith(suffix)) if folder.exists() else []


def scrub_environment():
    """The variables of a fault or pause that must not leak from the test's own environment."""
    env = dict(os.environ)
    for k in ("DOSSIER_FAULT_AT", "DOSSIER_FAULT_MODE", "DOSSIER_PAUSE_AT", "DOSSIER_PAUSE_FILE"):
        env.pop(k, None)
    return env
