"""How a site's size and build time grow with its pages (issue #34): builds a project of
N one-line content pages with `dossier build --clean --quiet` and reports the build's wall
time, the site's total bytes and the bytes per page. Before the navigation was bounded,
every page listed every top-level page twice: 2,000 pages made 433 MB.

    python3 Benchmarks/site_size.py --pages 20000      # `make bench`
    python3 Benchmarks/site_size.py --pages 200        # `make bench-quick`

Writes <BENCH_RESULTS>/site-size-<N>.json and prints one line.
"""
import argparse
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("BENCH_WORK") or HERE / "work")
RESULTS = Path(os.environ.get("BENCH_RESULTS") or WORK / "results")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=20000)
    a = ap.parse_args()
    binary = os.environ.get("DOSSIER_BENCH_BIN") or str(HERE.parent / ".build" / "debug" / "dossier")
    root = WORK / f"site-size-{a.pages}"
    shutil.rmtree(root, ignore_errors=True)
    (root / "content").mkdir(parents=True)
    (root / "dossier.yml").write_text("title: Site size\noutput: _site\n")
    for i in range(a.pages):
        (root / "content" / f"page-{i:05d}.md").write_text(f"# Page {i}\n\nOne line of text.\n")
    start = time.monotonic()
    subprocess.run([binary, "build", "--clean", "--quiet", str(root)], check=True)
    seconds = time.monotonic() - start
    size = sum(p.stat().st_size for p in (root / "_site").rglob("*") if p.is_file())
    result = {"pages": a.pages, "seconds": round(seconds, 2), "site_bytes": size, "bytes_per_page": round(size / a.pages, 1)}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"site-size-{a.pages}.json").write_text(json.dumps(result, indent=2, sort_keys=True))
    print(f"site size: {a.pages} one-line pages built in {seconds:.2f} s: {size / 1e6:.1f} MB, {size / a.pages:.0f} bytes a page")
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
