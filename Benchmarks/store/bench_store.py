#!/usr/bin/env python3
"""The study store on SQLite and on PostgreSQL, side by side (docs/benchmarks.md, "The
study store"; docs/multi-site.md, "Capacity"):

1. **ingest throughput** — `dossier game ingest` of U sealed uploads, one game each (what
   the game kit sends), into a fresh SQLite file, into a fresh PostgreSQL database, and
   into PostgreSQL by two ingests at once (half the uploads each, as two sites would):
   uploads per second;
2. **a cohort build** — `dossier build --clean` of a game study of N players (the public
   site, with its privacy key) from SQLite and from PostgreSQL holding the same rows
   (`dossier db copy`); the two sites must be byte-identical.

Runs alternate (SQLite, PostgreSQL, PostgreSQL × 2, SQLite, …) so all see the same load;
medians of wall-clock time and the dossier processes' CPU time (the PostgreSQL server's
own CPU is not in it: it is another process). The server is the Debian `postgresql`
package's, started in a temp folder by Tests/e2e/pg_server.py, but **durable** like a
production one (`fsync`, `synchronous_commit` and `full_page_writes` on; the test
server turns them off), on the same machine, over TCP on 127.0.0.1.

    python3 Benchmarks/store/bench_store.py --players 500,5000 --uploads 500 --runs 3 --out Benchmarks/store/RESULTS.md
    python3 Benchmarks/store/bench_store.py --quick     # 30 uploads, 60 players, one run

Dossier is $DOSSIER_BENCH_BIN, else $DOSSIER_BIN, else .build/debug/dossier.
"""
import argparse
import filecmp
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(REPO / "Tests" / "e2e"))
from bench_common import RESULTS, WORK, alternate, machine, summary  # noqa: E402


def dossier():
    b = os.environ.get("DOSSIER_BENCH_BIN") or os.environ.get("DOSSIER_BIN") or str(REPO / ".build/debug/dossier")
    if not pathlib.Path(b).exists():
        sys.exit(f"store bench: no dossier binary at {b}")
    return b


def run(*args, env=None):
    p = subprocess.run([dossier(), *map(str, args)], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"store bench: dossier {' '.join(map(str, args))} failed:\n{p.stderr[-2000:]}")
    return p.stdout


def one_game_uploads(work, count):
    """`count` sealed uploads, each one player's first game (80 obstacles), study key 3072 bits."""
    up = work / f"uploads-{count}"
    if (up / "done").exists():
        return up
    shutil.rmtree(up, ignore_errors=True)
    up.mkdir(parents=True)
    run("game", "keygen", "--output", up / "study", "-q")
    run("game", "simulate", "--players", count, "--seed", 5, "--output", up / "cohort.jsonl", "-q")
    firsts, seen = [], set()
    for line in (up / "cohort.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["type"] == "session":
            if rec["player"] in seen:
                continue
            seen.add(rec["player"])
        firsts.append(line)
    (up / "games.jsonl").write_text("\n".join(firsts) + "\n")
    run("game", "seal", "--public", up / "study.pub", "--output", up / "all", up / "games.jsonl", "-q")
    names = sorted(p.name for p in (up / "all").glob("*.rmu"))
    for half, part in (("a", names[0::2]), ("b", names[1::2])):
        (up / half).mkdir()
        for n in part:
            os.link(up / "all" / n, up / half / n)
    (up / "done").write_text("")
    return up


def bench_ingest(pg, work, count, runs):
    up = one_game_uploads(work, count)
    env = dict(os.environ, **pg.client_env())
    key = up / "study.key"
    state = {}

    def prepare(name, i):
        if name == "sqlite":
            db = work / "ingest.sqlite"
            for p in work.glob("ingest.sqlite*"):
                p.unlink()
            state[name] = str(db)
        else:
            state[name] = pg.url(pg.create_database())
            run("db", "migrate", "--database", state[name], env=env)   # not timed: the schema exists

    def ingest(name, folders):
        def go():
            from bench_common import timed
            cmd = " & ".join(f"{dossier()} game ingest -q --key {key} {f} --db '{state[name]}'" for f in folders)
            return timed(cmd + " & wait" if len(folders) > 1 else cmd, env=env)
        return go

    print(f"ingest: {count} one-game uploads, {runs} alternating runs (SQLite, PostgreSQL, PostgreSQL × 2)")
    res = alternate(runs, [("sqlite", ingest("sqlite", [up / "all"])), ("postgres", ingest("postgres", [up / "all"])),
                           ("postgres2", ingest("postgres2", [up / "a", up / "b"]))], prepare)
    stored = pg.psql(state["postgres2"].rsplit("/", 1)[1], "select count(*) from uploads").strip()
    assert int(stored) == count, f"two ingests stored {stored} of {count}"
    return {k: dict(summary(v), uploads_per_s=count / summary(v)["median_s"]) for k, v in res.items()}


def project(folder, database):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dossier.yml").write_text(f"title: Game\noutput: _site\ngame:\n  database: {database}\n")
    return folder


def bench_build(pg, work, players, runs):
    env = dict(os.environ, **pg.client_env())
    root = work / f"build-{players}"
    shutil.rmtree(root, ignore_errors=True)
    a = project(root / "sqlite", "study.sqlite")
    run("game", "simulate", "--players", players, "--seed", 7, "--db", a / "study.sqlite", "-q")
    run("build", "-q", a)                                  # makes the privacy key, then copied with the rows
    db = pg.create_database()
    run("db", "copy", a / "study.sqlite", pg.url(db), env=env)
    b = project(root / "postgres", pg.url(db))
    run("build", "-q", b, env=env)
    print(f"cohort build: {players} players, {runs} alternating runs (SQLite, PostgreSQL)")

    def build(folder):
        from bench_common import timed
        return lambda: timed([dossier(), "build", "--clean", "-q", str(folder)], env=env)

    res = alternate(runs, [("sqlite", build(a)), ("postgres", build(b))])
    same = not differing(a / "_site", b / "_site")
    assert same, f"the sites differ: {differing(a / '_site', b / '_site')[:5]}"
    return {"players": players, "sqlite": summary(res["sqlite"]), "postgres": summary(res["postgres"]),
            "identical_sites": same}


def differing(x, y):
    cmp = filecmp.dircmp(x, y)
    out = cmp.left_only + cmp.right_only + cmp.diff_files
    for sub in cmp.common_dirs:
        out += [f"{sub}/{d}" for d in differing(x / sub, y / sub)]
    return out


def durable_server():
    from pg_server import PgServer, missing_reason
    reason = missing_reason()
    if reason:
        return None, reason
    srv = PgServer()
    with open(srv.data / "postgresql.conf", "a", encoding="utf-8") as conf:
        conf.write("\n# benchmark: durable, as in production\nfsync = on\nsynchronous_commit = on\n"
                   "full_page_writes = on\nshared_buffers = 128MB\n")
    return srv.start(), None


def write_markdown(data, out):
    m = data["machine"]
    lines = [f"# The study store: SQLite and PostgreSQL side by side ({'quick' if data['quick'] else 'full'})", "",
             f"Machine: {m['cores']} cores, {m['platform']}; load average {m['load_at_start']} when the run began "
             f"({m['when']}); PostgreSQL {data['server']} on the same machine (127.0.0.1, durable: fsync and "
             "synchronous_commit on); dossier binary: `" + data["binary"] + "`.", "",
             f"**Ingest**: {data['uploads']} sealed one-game uploads (3072-bit study key, 80 obstacles a game), "
             "`dossier game ingest` from a folder into an empty database; median of "
             f"{data['runs']} alternating runs. CPU is the dossier processes' (user + system), not the server's.", "",
             "| store | wall | uploads/s | dossier CPU |", "|---|---:|---:|---:|"]
    names = {"sqlite": "SQLite file", "postgres": "PostgreSQL, one ingest", "postgres2": "PostgreSQL, two ingests at once"}
    for k in ("sqlite", "postgres", "postgres2"):
        r = data["ingest"][k]
        lines.append(f"| {names[k]} | {r['median_s']:.2f} s | **{r['uploads_per_s']:.0f}** | {r['cpu_median_s']:.2f} s |")
    i = data["ingest"]
    lines += ["", f"PostgreSQL ÷ SQLite (wall): **{i['postgres']['median_s'] / i['sqlite']['median_s']:.2f}**; "
              f"two ingests at once ÷ one: {i['postgres2']['median_s'] / i['postgres']['median_s']:.2f}.", "",
              "**Cohort build**: `dossier build --clean` of the public game site (measures, norms, the model, "
              "the private release), the same rows in both stores; the two sites are byte-identical.", "",
              "| players | SQLite (wall, cpu) | PostgreSQL (wall, cpu) | PostgreSQL ÷ SQLite (wall) | runs |",
              "|---:|---:|---:|---:|---:|"]
    for r in data["build"]:
        s, p = r["sqlite"], r["postgres"]
        lines.append(f"| {r['players']:,} | {s['median_s']:.2f} s, {s['cpu_median_s']:.2f} s | {p['median_s']:.2f} s, "
                     f"{p['cpu_median_s']:.2f} s | **{p['median_s'] / s['median_s']:.2f}** | {s['runs']} |")
    lines += ["", "Reproduce: `bash Benchmarks/store/run.sh` (or `--quick`).", ""]
    pathlib.Path(out).write_text("\n".join(lines), encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", default="500,5000")
    ap.add_argument("--uploads", type=int, default=500)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="30 uploads, 60 players, one run")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.quick:
        a.players, a.uploads, a.runs = "60", 30, 1
        a.out = a.out or str(WORK / "store-RESULTS-quick.md")
    work = WORK / "store"
    work.mkdir(parents=True, exist_ok=True)
    # A terminated run still stops its server (the `finally` below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    srv, reason = durable_server()
    if srv is None:
        print(f"store bench: skipped: {reason}")
        return
    try:
        data = {"quick": a.quick, "uploads": a.uploads, "runs": a.runs, "binary": dossier(),
                "server": srv.psql("postgres", "show server_version").strip()}
        data["ingest"] = bench_ingest(srv, work, a.uploads, a.runs)
        data["build"] = [bench_build(srv, work, int(n), a.runs) for n in a.players.split(",")]
    finally:
        srv.close()
    data["machine"] = machine()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "store.json").write_text(json.dumps(data, indent=2, sort_keys=True))
    if a.out:
        write_markdown(data, a.out)
        print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
