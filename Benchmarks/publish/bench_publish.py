"""Publish benchmark: a generated N-file site published to a local wsgidav server by
`dossier publish`, then re-published after one change — side by side with `rclone sync`
of the same tree to the same server. Requests are counted on the server side.

    python3 Benchmarks/publish/bench_publish.py --files 10000 --out Benchmarks/publish/RESULTS.md
"""
import argparse
import hashlib
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))
from webdav_server import PASSWORD, USER, WebDAVServer, write_manifest  # noqa: E402


def generate(site: pathlib.Path, files: int):
    """files/100 folders of 100 pages each (1–3 KB of HTML), deterministic."""
    if site.exists():
        shutil.rmtree(site)
    per = 100
    for i in range(files):
        d = site / f"section-{i // per:03d}"
        d.mkdir(parents=True, exist_ok=True)
        body = f"<h1>Page {i}</h1>\n" + ("<p>" + hashlib.sha256(str(i).encode()).hexdigest() + "</p>\n") * (10 + i % 30)
        (d / f"page-{i:05d}.html").write_text(body)
    write_manifest(site)


def timed(cmd, env):
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--out")
    args = ap.parse_args()
    dossier = os.environ.get("DOSSIER_BIN") or str(REPO / ".build" / "debug" / "dossier")
    rclone = shutil.which("rclone")
    work = REPO / "Benchmarks" / "work" / "publish"
    work.mkdir(parents=True, exist_ok=True)
    site = work / "_site"
    generate(site, args.files)
    root = work / "dav"
    if root.exists():
        shutil.rmtree(root)
    env = dict(os.environ, DOSSIER_WEBDAV_PASSWORD=PASSWORD, DOSSIER_WEBDAV_USER=USER)
    rows = []
    with WebDAVServer(root, log=work / "requests.log", lifetime=3600) as dav:
        def run(label, cmd, tool):
            dav.clear_log()
            dt = timed(cmd, env)
            reqs = dav.requests()
            puts = sum(1 for m, p in reqs if m == "PUT" and not p.endswith(".dossier-manifest.json"))
            rows.append((tool, label, dt, len(reqs), puts))
            print(f"{tool:8} {label:28} {dt:8.2f} s {len(reqs):7} requests {puts:6} content PUTs", flush=True)

        pub = [dossier, "publish", "--site", str(site), "--to", dav.url + "dossier/", "--jobs", str(args.jobs)]
        run("first publish", pub, "dossier")
        if rclone:
            obscured = subprocess.run([rclone, "obscure", PASSWORD], capture_output=True, text=True).stdout.strip()
            env.update(RCLONE_CONFIG_DAV_TYPE="webdav", RCLONE_CONFIG_DAV_URL=dav.url, RCLONE_CONFIG_DAV_VENDOR="other",
                       RCLONE_CONFIG_DAV_USER=USER, RCLONE_CONFIG_DAV_PASS=obscured)
            sync = [rclone, "sync", str(site), "dav:rclone", "--transfers", str(args.jobs), "--checkers", "8"]
            run("first sync", sync, "rclone")
        # One page changes (its size too, so rclone's size check sees it).
        page = site / "section-000" / "page-00007.html"
        page.write_text(page.read_text() + "<p>revised</p>\n")
        write_manifest(site)
        run("after one change", pub, "dossier")
        if rclone:
            run("after one change", sync, "rclone")
        run("nothing changed", pub, "dossier")
        if rclone:
            run("nothing changed", sync, "rclone")
        same = all((root / "dossier" / p.relative_to(site)).read_bytes() == p.read_bytes() for p in site.rglob("*") if p.is_file())
        print("dossier tree identical to the site:", same)
    if args.out:
        lines = [f"# Publish benchmark ({args.files} files)", "",
                 f"Machine: {os.cpu_count()} cores, {platform.platform()}; server: wsgidav on 127.0.0.1 (Basic auth); "
                 f"dossier `--jobs {args.jobs}`, rclone `--transfers {args.jobs}`"
                 + (f" ({subprocess.run([rclone, 'version'], capture_output=True, text=True).stdout.splitlines()[0]})" if rclone else " (rclone not installed)")
                 + f"; dossier binary: `{pathlib.Path(dossier).relative_to(REPO) if pathlib.Path(dossier).is_relative_to(REPO) else dossier}`.", "",
                 "| tool | run | seconds | requests | content PUTs |", "|---|---|---:|---:|---:|"]
        lines += [f"| {t} | {l} | {dt:.2f} | {n} | {p} |" for t, l, dt, n, p in rows]
        lines += ["", "Requests are counted by the server. Dossier finds changes from its manifest (one GET), "
                  "rclone lists every remote folder (PROPFIND) and compares sizes.", "",
                  "Reading: the first upload is bound by the server (wsgidav on the same machine); Dossier sends a PUT "
                  "to a temporary name and a MOVE per file, rclone a PUT plus PROPFIND/PROPPATCH traffic. After one "
                  "change Dossier's cost does not depend on the site's size: GET manifest, PUT dirty marker, PUT "
                  "content, PROPFIND, MOVE, PROPFIND folder, PUT clean manifest (docs/publish.md, \"Requests\"); "
                  "rclone's grows with the number of folders (a PROPFIND each). "
                  "Re-run: `bash Benchmarks/publish/run.sh` (or `--quick`, 300 files).", ""]
        pathlib.Path(args.out).write_text("\n".join(lines))


if __name__ == "__main__":
    main()
