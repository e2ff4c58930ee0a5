"""The default game site is aggregate-only with small cells suppressed; a private site
(per-player pages) is refused by `dossier publish` unless forced."""
import csv
import json

import numpy as np
from scipy.optimize import linprog


def _project(root, block):
    root.mkdir(parents=True, exist_ok=True)
    (root / "dossier.yml").write_text("title: Game\noutput: _site\ngame:\n" + block)
    return root


def _counts(site):
    with open(site / "game" / "group-counts.csv", newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def _check_suppression(rows, true_counts):
    """No published cell under 5, and no suppressed cell can be worked out from the others:
    for every suppressed cell, the smallest and largest values consistent with every
    published total (primary cells 0…4, complementary ≥ 5) differ."""
    for r in rows:
        if r["n"] not in ("<5", "suppressed"):
            assert int(r["n"]) >= 5, r
    for table in ("age_band", "gender"):
        t = [r for r in rows if r["table"] == table]
        keys = [(r["group"], r["column"]) for r in t]
        idx = {k: i for i, k in enumerate(keys)}
        hidden = [k for k in keys if t[idx[k]]["n"] in ("<5", "suppressed")]
        if not hidden:
            continue
        hv = {k: j for j, k in enumerate(hidden)}
        groups = sorted({g for g, _ in keys if g != "all"})
        cols = sorted({c for _, c in keys if c != "all"})
        A, b = [], []

        def eq(parts, total):
            row = np.zeros(len(hidden))
            rhs = 0.0
            for k in parts:
                if k in hv:
                    row[hv[k]] += 1
                else:
                    rhs -= int(t[idx[k]]["n"])
            if total in hv:
                row[hv[total]] -= 1
            else:
                rhs += int(t[idx[total]]["n"])
            A.append(row)
            b.append(rhs)

        for g in groups + ["all"]:
            eq([(g, c) for c in cols], (g, "all"))
        for c in cols + ["all"]:
            eq([(g, c) for g in groups], ("all", c))
        bounds = [(0, 4) if t[idx[k]]["n"] == "<5" else (5, None) for k in hidden]
        for j, k in enumerate(hidden):
            c = np.zeros(len(hidden))
            c[j] = 1
            lo = linprog(c, A_eq=A, b_eq=b, bounds=bounds, method="highs")
            hi = linprog(-c, A_eq=A, b_eq=b, bounds=bounds, method="highs")
            assert lo.status == 0 and hi.status == 0, (table, k)
            assert -hi.fun - lo.fun > 0.5, f"{table} {k} is determined: {lo.fun}"
        # The published numbers are the true counts.
        for k in keys:
            if t[idx[k]]["n"] not in ("<5", "suppressed"):
                assert int(t[idx[k]]["n"]) == true_counts[table].get(k, 0), k


def _true_counts(players):
    out = {"age_band": {}, "gender": {}}
    bands = {"3–12", "13–17", "18–29", "30–44", "45+"}
    for p in players:
        band = p["ageBand"] or "unknown"
        gender = (p["survey"] or {}).get("gender") or "unknown"
        for table, col in (("age_band", band), ("gender", gender)):
            for key in ((p["group"], col), (p["group"], "all"), ("all", col), ("all", "all")):
                out[table][key] = out[table].get(key, 0) + 1
    return out


def test_default_site_is_aggregate_only_with_small_cells_suppressed(run_dossier, tmp_path):
    data = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "45", "--seed", "7", "--out", data)
    proj = _project(tmp_path / "p", f"  telemetry: {data}\n")
    run_dossier("build", proj)
    site = proj / "_site"
    game = site / "game"
    assert not (game / "players").exists()
    assert not (game / "players.csv").exists() and not (game / "players.json").exists()
    assert not (site / "PRIVATE-SITE.txt").exists()
    analysis = json.loads(run_dossier("game", "analyze", "--json", data).stdout)
    rows = _counts(site)
    assert any(r["n"] == "<5" for r in rows), "this cohort has small cells to suppress"
    _check_suppression(rows, _true_counts(analysis["players"]))
    # No player id anywhere in the site.
    ids = [p["id"] for p in analysis["players"]]
    for f in site.rglob("*"):
        if f.is_file():
            body = f.read_bytes()
            assert not any(i.encode() in body for i in ids), f
    # Comparisons publish no group of fewer than 5.
    with open(game / "comparisons.csv", newline="", encoding="utf-8-sig") as f:
        for r in csv.DictReader(f):
            for col in ("n_a", "n_b"):
                assert r[col] == "suppressed" or int(r[col]) >= 5, r
    html = (game / "cohort" / "index.html").read_text()
    assert "The cohort is simulated" not in html


def test_private_site_has_player_pages_and_publish_refuses_it(run_dossier, tmp_path):
    data = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "20", "--seed", "9", "--out", data)
    proj = _project(tmp_path / "p", f"  telemetry: {data}\n  private_site: true\n")
    run_dossier("build", proj)
    site = proj / "_site"
    assert len(list((site / "game" / "players").iterdir())) == 20
    assert (site / "game" / "players.csv").exists()
    assert (site / "PRIVATE-SITE.txt").exists()
    proc = run_dossier("publish", proj, "--to", "http://127.0.0.1:9/site/", check=False,
                       env={"DOSSIER_WEBDAV_USER": "u", "DOSSIER_WEBDAV_PASSWORD": "p"})
    assert proc.returncode == 1
    assert "private site" in proc.stderr and "--force-private" in proc.stderr
    forced = run_dossier("publish", proj, "--to", "http://127.0.0.1:9/site/", "--force-private", check=False,
                         env={"DOSSIER_WEBDAV_USER": "u", "DOSSIER_WEBDAV_PASSWORD": "p"})
    assert "private site" not in forced.stderr   # it got past the check (and then found no server)
