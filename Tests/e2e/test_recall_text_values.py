"""Issue #35, recall: text values stay text in the study-wide JSON (a participant numbered
`True`, a string `False`), `strings_recalled` is null when empty, and an Entry page left
without Done has its `end_ms` (docs/recall-study-data.md, docs/recall-measures.md)."""
import csv
import json
import pathlib
import shutil
import subprocess

import pytest


def simulated(dossier_bin, root, seed):
    """Three simulated participants' logs in root/data/logs, their strings file beside
    (root/data/strings.txt): (logs folder, the ten strings)."""
    logs = root / "data" / "logs"
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", "3", "--seed", str(seed), "--out", str(logs)],
                   check=True, capture_output=True)
    shutil.move(str(logs / "strings.txt"), root / "data" / "strings.txt")
    return logs, (root / "data" / "strings.txt").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def study(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("textvalues")
    logs, strings = simulated(dossier_bin, root, 11)
    # String 10 becomes the text `False`, in the list and in every log's header.
    old_tenth = strings[9]
    strings[9] = "False"
    (root / "data" / "strings.txt").write_text("\n".join(strings) + "\n", encoding="utf-8")
    for log in sorted(logs.glob("*.jsonl")):
        lines = log.read_text(encoding="utf-8").splitlines()
        head = json.loads(lines[0])
        head["strings"] = [s if s != old_tenth else "False" for s in head["strings"]]
        if log.name == "S001.jsonl":
            head["participant"] = "True"
        lines[0] = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
        if log.name == "S002.jsonl":
            # Cut in the middle of the third Entry page: never reaches Recall, no Done there.
            starts = [i for i, l in enumerate(lines) if '"page":"entry","string":3' in l]
            lines = lines[:starts[0] + 6]
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("title: Text values\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n",
                                      encoding="utf-8")
    proc = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return root / "_site" / "recall"


def load(site, name):
    return json.loads((site / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["entries.json", "recall.json", "participants.json", "study-table.json"])
def test_a_participant_numbered_True_stays_a_string(study, name):
    rows = load(study, name)
    assert rows, name
    values = {r["participant"] for r in rows}
    assert "True" in values, (name, values)
    assert all(isinstance(v, str) for v in values), (name, values)


def test_a_string_False_stays_a_string_and_booleans_stay_booleans(study):
    rows = load(study, "strings.json")
    assert rows[9]["target"] == "False"
    entries = load(study, "entries.json")
    assert all(isinstance(r["correct"], bool) and isinstance(r["rekey"], bool) for r in entries)
    assert all(isinstance(r["complete"], bool) for r in load(study, "participants.json"))


def test_strings_recalled_is_null_when_empty_and_csv_agrees(study):
    parts = load(study, "participants.json")
    with open(study / "participants.csv", encoding="utf-8-sig", newline="") as f:
        csv_rows = list(csv.DictReader(f))
    assert len(parts) == len(csv_rows)
    cut = [p for p in parts if p["source_file"].endswith("S002.jsonl")]
    assert cut and cut[0]["strings_recalled"] is None
    for p, c in zip(parts, csv_rows):
        if c["strings_recalled"] == "":
            assert p["strings_recalled"] is None
        else:
            assert p["strings_recalled"] == c["strings_recalled"]


def test_entry_total_without_done_has_end_ms(study):
    path = next(study.glob("participants/*S002*/rolled-up.csv"))
    with open(path, encoding="utf-8-sig", newline="") as f:
        totals = [r for r in csv.DictReader(f) if r["phase"] == "Entry" and r["item"] == "total"]
    assert totals and any(r["text"] == "not done" for r in totals)
    for r in totals:
        assert r["end_ms"] != "", r
        assert int(r["end_ms"]) - int(r["start_ms"]) == int(float(r["duration_ms"])), r


def test_strings_recalled_is_text_to_pandas_when_nobody_recalled_two(tmp_path, dossier_bin):
    """Issue #43: with every participant recalling at most one string, pandas still reads
    `strings_recalled` as text (a JSON array per cell), not int64."""
    pd = pytest.importorskip("pandas")
    logs, strings = simulated(dossier_bin, tmp_path, 5)
    for k, log in enumerate(sorted(logs.glob("*.jsonl"))):
        events = [json.loads(l) for l in log.read_text(encoding="utf-8").splitlines()]
        recall_at = max(i for i, e in enumerate(events) if e.get("type") == "page" and e.get("page") == "recall")
        # The Recall page: one field holding string k + 1 (typed as one key per character).
        t = events[recall_at]["t"]
        typed = [{"t": t + 100 * (j + 1), "type": "key", "key": c, "action": "tap", "text": strings[k][: j + 1],
                  "field": 1} for j, c in enumerate(strings[k])]
        end = t + 100 * (len(strings[k]) + 1)
        values = [strings[k]] + [""] * 9
        tail = [{"t": end, "type": "fields", "values": values}, {"t": end, "type": "button", "button": "done"},
                {"t": end, "type": "page", "page": "thankyou"}]
        log.write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in events[: recall_at + 1] + typed + tail) + "\n",
                       encoding="utf-8")
    (tmp_path / "dossier.yml").write_text("title: One each\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n",
                                          encoding="utf-8")
    proc = subprocess.run([dossier_bin, "build", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    df = pd.read_csv(tmp_path / "_site" / "recall" / "participants.csv", encoding="utf-8-sig")
    assert pd.api.types.is_string_dtype(df["strings_recalled"]) and not pd.api.types.is_numeric_dtype(df["strings_recalled"])
    assert [json.loads(v) for v in df["strings_recalled"]] == [[1], [2], [3]]
    js = load(tmp_path / "_site" / "recall", "participants.json")
    assert [r["strings_recalled"] for r in js] == ["[1]", "[2]", "[3]"]
