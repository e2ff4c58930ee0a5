"""Study-wide recall tables (docs/recall-study-data.md) read with pandas, and the
per-string table recomputed independently from entries.csv."""
import re
import json
import math
import pathlib
import shutil

import pytest

pd = pytest.importorskip("pandas")

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "Tests" / "RecallStudyTests" / "Fixtures"


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    import subprocess
    root = tmp_path_factory.mktemp("study")
    logs = root / "data" / "logs"
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", "8", "--seed", "5", "--out", str(logs)], check=True,
                   capture_output=True)
    shutil.move(str(logs / "strings.txt"), root / "data" / "strings.txt")
    # The same participant number twice, from two files: source_file tells them apart.
    text = (logs / "S003.jsonl").read_text(encoding="utf-8")
    (logs / "S009.jsonl").write_text(text, encoding="utf-8")
    (root / "dossier.yml").write_text("title: Study data\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n", encoding="utf-8")
    subprocess.run([dossier_bin, "build", str(root)], check=True, capture_output=True)
    return root / "_site" / "recall"


NUMERIC = {
    "entries.csv": ["string", "field", "order", "start_ms", "end_ms", "duration_ms", "keystrokes", "backspaces", "final_text_length"],
    "recall.csv": ["field", "text_length", "edit_distance", "nearest_string"],
    "strings.csv": ["string", "length", "participants_reached", "n_entries", "mean_entry_ms", "sd_entry_ms", "median_entry_ms",
                    "iqr_entry_ms", "incorrect_entries", "incorrect_rate", "rekeys", "rekey_rate", "verify_attempts",
                    "verify_not_ok", "verify_not_ok_rate", "recall_participants", "recalled", "recall_rate"],
    "study-table.csv": [f"s{n}" for n in range(1, 11)],
    "study-strings.csv": ["string", "length", "appendix_b_position"],
    "participants.csv": ["session_total_ms", "last_event_ms", "entries", "median_hold_ms", "median_dd_ms"],
}


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_each_table_loads_with_numeric_dtypes(site, name):
    df = pd.read_csv(site / name)
    assert len(df) > 0
    for col in NUMERIC[name]:
        assert pd.api.types.is_numeric_dtype(df[col]), (name, col, df[col].dtype)
    if "correct" in df.columns:
        assert df["correct"].dtype == bool
    json_path = (site / name).with_suffix(".json")
    if json_path.exists():
        rows = json.loads(json_path.read_text(encoding="utf-8"))
        assert len(rows) == len(df) and list(rows[0].keys()) == sorted(df.columns)


def test_per_string_table_matches_a_recomputation_from_entries(site):
    e = pd.read_csv(site / "entries.csv")
    assert e["one_tap"].dtype == bool
    e = e[~e["one_tap"]]   # one-tap entries have no entry time (docs/recall-measures.md)
    s = pd.read_csv(site / "strings.csv").set_index("string")
    for n, g in e.groupby("string"):
        d = g["duration_ms"].astype(float)
        row = s.loc[n]
        assert row["n_entries"] == len(g)
        assert math.isclose(row["mean_entry_ms"], d.mean(), rel_tol=1e-9)
        assert math.isclose(row["sd_entry_ms"], d.std(), rel_tol=1e-9)
        assert math.isclose(row["median_entry_ms"], d.median(), rel_tol=1e-9)
        assert math.isclose(row["iqr_entry_ms"], d.quantile(0.75) - d.quantile(0.25), rel_tol=1e-9, abs_tol=1e-9)
        assert row["incorrect_entries"] == (~g["correct"]).sum()
        assert math.isclose(row["incorrect_rate"], (~g["correct"]).mean(), rel_tol=1e-9)
        assert row["rekeys"] == g["rekey"].sum()
    # The tidy study table holds each participant's mean entry time per string (s, 2 decimals).
    t = pd.read_csv(site / "study-table.csv")
    for (pid, src), g in e.groupby(["participant", "source_file"]):
        mine = t[(t["participant"] == pid) & (t["source_file"] == src)]
        assert len(mine) == 1
        for n, gg in g.groupby("string"):
            assert round(gg["duration_ms"].mean() / 1000, 2) == pytest.approx(mine[f"s{n}"].iloc[0], abs=0.0051)


def test_duplicate_participant_numbers_stay_apart_by_source_file(site):
    p = pd.read_csv(site / "participants.csv")
    dup = p[p["participant"] == p[p["source_file"].str.endswith("S003.jsonl")]["participant"].iloc[0]]
    assert sorted(dup["source_file"].str.rsplit("/", n=1).str[-1]) == ["S003.jsonl", "S009.jsonl"]


def test_keystroke_dynamics_in_the_cmu_layout(site):
    checked = 0
    for n in range(1, 11):
        df = pd.read_csv(site / "dynamics" / f"string-{n}.csv")
        assert list(df.columns[:3]) == ["subject", "sessionIndex", "rep"] and df.columns[-1] == "source_file"
        keys = [c[2:] for c in df.columns if c.startswith("H.")]
        assert len(keys) >= 1
        for a, b in zip(keys, keys[1:]):
            dd, ud = df[f"DD.{a}.{b}"], df[f"UD.{a}.{b}"]
            # H + UD = DD, in seconds.
            assert ((df[f"H.{a}"] + ud - dd).abs() < 1e-9).all()
            checked += len(df)
    assert checked > 100


def test_every_mean_on_the_summary_page_has_n_and_sd(site):
    html = (site / "index.html").read_text(encoding="utf-8")
    # the design system marks numeric columns (class="num"); the header pairs stay adjacent
    assert len(re.findall(r"<th[^>]*>mean entry \(s\)</th><th[^>]*>SD \(s\)</th>", html)) == 2
    assert re.search(r"<th[^>]*>entries \(n\)</th>", html)
