"""Issue #43 item 1, Dossier's side: a log made outside the kit whose Entry field was
filled by one press (a paste, dictation) is flagged and left out — a warning on the
participant page, `one_tap` in entries.csv, and neither the participant's mean entry time
(Appendix B, the study table) nor strings.csv counts it (docs/recall-measures.md,
"One-tap entries")."""
import csv
import json
import shutil
import subprocess


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def test_a_pasted_entry_is_flagged_and_left_out(tmp_path, dossier_bin):
    logs = tmp_path / "data" / "logs"
    subprocess.run([dossier_bin, "recall", "simulate", "--participants", "2", "--seed", "7", "--out", str(logs)],
                   check=True, capture_output=True)
    shutil.move(str(logs / "strings.txt"), tmp_path / "data" / "strings.txt")
    target = (tmp_path / "data" / "strings.txt").read_text(encoding="utf-8").splitlines()[0]
    log = logs / "S001.jsonl"
    events = [json.loads(l) for l in log.read_text(encoding="utf-8").splitlines()]
    start = next(i for i, e in enumerate(events) if e.get("page") == "entry" and e.get("string") == 1)
    end = next(i for i in range(start + 1, len(events)) if events[i]["type"] == "page")
    # Field 1's typing on string 1's Entry page becomes one tap of the whole string.
    # (The simulator's keys go to the focused field: those after `focus 1`, before the next focus.)
    f1 = next(i for i in range(start, end) if events[i]["type"] == "focus" and events[i]["field"] == 1)
    f2 = next(i for i in range(f1 + 1, end) if events[i]["type"] == "focus")
    keys = [i for i in range(f1, f2) if events[i]["type"] == "key"]
    assert len(keys) >= 2 * len(target)
    paste = {"t": events[keys[0]]["t"], "type": "key", "key": target[-1], "action": "tap", "text": target, "field": 1}
    events = events[:keys[0]] + [paste] + [e for i, e in enumerate(events) if i > keys[0] and i not in keys]
    log.write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in events) + "\n", encoding="utf-8")
    pasted_line = keys[0] + 1
    (tmp_path / "dossier.yml").write_text("title: One tap\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n",
                                          encoding="utf-8")
    proc = subprocess.run([dossier_bin, "build", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    site = tmp_path / "_site" / "recall"
    page = next(site.glob("participants/S001*/index.html")).read_text(encoding="utf-8")
    assert f"S001.jsonl:{pasted_line}" in page and "one key press entered several characters at once" in page
    entries = [r for r in read_csv(site / "entries.csv") if r["participant"] == "S001" and r["string"] == "1"]
    flagged = [r for r in entries if r["one_tap"] == "True"]
    assert len(flagged) == 1 and flagged[0]["field"] == "1" and flagged[0]["duration_ms"] == "0"
    timed = [int(r["duration_ms"]) for r in entries if r["one_tap"] == "False"]
    want = round(sum(timed) / len(timed) / 1000, 2)
    row = next(r for r in read_csv(site / "study-table.csv") if r["participant"] == "S001")
    assert abs(float(row["s1"]) - want) < 0.0051, (row["s1"], want)
    strings = {r["string"]: r for r in read_csv(site / "strings.csv")}
    all_s1 = [r for r in read_csv(site / "entries.csv") if r["string"] == "1" and r["one_tap"] == "False"]
    assert int(strings["1"]["n_entries"]) == len(all_s1)
    detail = json.loads(next(site.glob("participants/S001*/participant.json")).read_text(encoding="utf-8"))
    assert detail["strings"][0]["oneTapEntries"] == 1
    assert [e.get("oneTap", False) for e in detail["strings"][0]["entries"]].count(True) == 1
