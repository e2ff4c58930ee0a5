"""The study store benchmark (Benchmarks/store/bench_store.py) keeps working in its quick
mode — `make bench-quick` runs it, and this test (only there: a minute of ingests and
builds) — and compares what it claims to: the same cohort
built from SQLite and from PostgreSQL gives byte-identical sites, and two ingests at
once store every upload once. Timings are not checked."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import bench_quick_only

REPO = Path(__file__).resolve().parents[2]


@bench_quick_only("the store benchmark's quick mode")
def test_store_benchmark_quick_mode_reports_ingest_and_build_rows(dossier_bin, tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    import pg_server
    if pg_server.missing_reason():
        pytest.skip(pg_server.missing_reason())
    env = dict(os.environ, DOSSIER_BENCH_BIN=str(Path(dossier_bin).resolve()), BENCH_WORK=str(tmp_path / "work"),
               BENCH_RESULTS=str(tmp_path / "results"))
    out = tmp_path / "store.md"
    p = subprocess.run([sys.executable, str(REPO / "Benchmarks/store/bench_store.py"), "--quick", "--out", str(out)],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads((tmp_path / "results/store.json").read_text())
    assert set(r["ingest"]) == {"sqlite", "postgres", "postgres2"}
    assert all(v["uploads_per_s"] > 0 and v["runs"] == 1 for v in r["ingest"].values())
    assert [b["players"] for b in r["build"]] == [60] and all(b["identical_sites"] for b in r["build"])
    text = out.read_text()
    assert "| SQLite file |" in text and "| PostgreSQL, two ingests at once |" in text and "| 60 |" in text
