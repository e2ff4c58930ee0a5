"""The project side of the doc-oracle tests for the recall docs: writing projects, building
them, and checking participant.json and rolled-up.csv against the reference walk of
recall_oracle_model.py (written from docs/recall-measures.md and recall-events.md alone).
"""
import csv
import io
import json
import math
import subprocess

from recall_oracle_model import *  # noqa: F401,F403 (the tests import the walk from here)
from recall_oracle_model import STRINGS, glen, median, num, text_cell


def full_session(log, strings=STRINGS, t=100, recall=("abc",), thankyou=True):
    """A plain complete session: every string memorized, verified, keyed into all ten fields."""
    log.page(t, "ready")
    for n in range(1, 11):
        s = strings[n - 1]
        log.page(t + 10, "memorize", n)
        log.page(t + 1000, "verify", n)
        t2 = log.typed(t + 1100, s, field=1)
        log.ev(t2, "button", button="verify", result="ok")
        log.page(t2 + 50, "entry", n)
        tt = t2 + 100
        for f in range(1, 11):
            tt = log.typed(tt, s, field=f, gap=50 + 10 * n) + 40
        log.ev(tt, "button", button="done")
        t = tt + 10
    log.page(t + 10, "recall")
    tt = t + 100
    for i, s in enumerate(recall, 1):
        tt = log.typed(tt, s, field=i) + 30
    if thankyou:
        log.page(tt + 200, "thankyou")
    return log


# MARK: - projects and outputs

def write_project(root, logs, strings=STRINGS, extra=""):
    (root / "data" / "logs").mkdir(parents=True, exist_ok=True)
    (root / "data" / "strings.txt").write_text("\n".join(strings) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("title: t\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n" + extra)
    for name, text in logs.items():
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        (root / "data" / "logs" / name).write_bytes(data)
    return root


def build(dossier_bin, root, ok=True):
    p = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=300)
    if ok:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def read_csv(path):
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), f"{path.name}: no byte-order mark"
    body = raw[3:].decode("utf-8")
    assert body.endswith("\r\n"), f"{path.name}: not CRLF-terminated"
    return list(csv.reader(io.StringIO(body, newline="")))


def rows_as_dicts(path):
    rows = read_csv(path)
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def pdir(root, name):
    return root / "_site" / "recall" / "participants" / name


def pjson(root, name):
    return json.loads((pdir(root, name) / "participant.json").read_text(encoding="utf-8"))


def rolled(root, name):
    return rows_as_dicts(pdir(root, name) / "rolled-up.csv")


def item(rows, phase, it, string="", index=None, field=None):
    out = [r for r in rows if r["phase"] == phase and r["item"] == it and r["string"] == string
           and (index is None or r["index"] == str(index)) and (field is None or r["field"] == str(field))]
    return out


def close_num(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# MARK: - comparing with participant.json

MED = {"H": "medianHold", "DD": "medianDownDown", "UD": "medianUpDown", "UU": "medianUpUp"}


def check_meds(obj, med, where):
    for k, name in MED.items():
        assert close_num(obj.get(name), med[k]), f"{where}: {name} {obj.get(name)} != {med[k]}"


def check_entry(got, e, where):
    exp = {"field": e["field"], "start": e["start"], "end": e["end"], "durationMs": e["dur"], "text": e["text"],
           "correct": e["correct"], "rekey": e["rekey"], "keystrokes": e["keystrokes"],
           "deletions": e["deletions"], "oneTap": e["onetap"], "order": e["order"]}
    for k, v in exp.items():
        assert got.get(k) == v, f"{where}: {k} = {got.get(k)!r}, expected {v!r}"
    check_meds(got["dynamics"], medians(e["dyn"]), where + " dynamics")


def check_participant(pj, R):
    """Every documented number of participant.json against the reference walk."""
    assert pj["complete"] == R["complete"]
    assert pj.get("sessionStart") == R["start"]
    assert pj.get("sessionEnd") == R["end"], (pj.get("sessionEnd"), R["end"])
    assert pj.get("sessionTotalMs") == R["total"], (pj.get("sessionTotalMs"), R["total"])
    check_meds(pj, R["med"], "participant")
    for js in pj["strings"]:
        st = R["strings"][js["number"]]
        w = f"string {st['n']}"
        assert js["reached"] == st["reached"], w
        assert js["length"] == st["length"], w
        assert len(js["entries"]) == len(st["entries"]), (w, js["entries"], st["entries"])
        for got, e in zip(js["entries"], st["entries"]):
            check_entry(got, e, f"{w} entry {e['order']}")
        assert len(js["practice"]) == len(st["practice"]), w
        for got, e in zip(js["practice"], st["practice"]):
            check_entry(got, e, f"{w} practice")
        for k, v in (("incorrectEntries", st["incorrect"]), ("rekeys", st["rekeys"]),
                     ("deletions", st["deletions"]), ("oneTapEntries", st["onetaps"]),
                     ("memorizeTotalMs", st["memtotal"]), ("verifyTotalMs", st["vertotal"]),
                     ("verifyFailures", st["verfail"]), ("entryTotalMs", st["etotal"]),
                     ("completed", st["completed"]), ("memorizeToLastEntryKeyMs", st["mem_to_last"])):
            assert js.get(k) == v, f"{w}: {k} = {js.get(k)!r}, expected {v!r}"
        assert close_num(js.get("meanEntrySeconds"), st["mean"]), (w, js.get("meanEntrySeconds"), st["mean"])
        if st["final"] is not None:
            assert js["finalEntries"] == st["final"], w
            assert js["finalCorrect"] == st["final_correct"], w
        for name, views in (("memorizeViews", st["mem"]), ("verifyViews", st["ver"])):
            assert [(v["start"], v["end"], v["durationMs"], v["textAtTurn"]) for v in js[name]] == \
                [(v["start"], v["end"], v["dur"], v["text"]) for v in views], (w, name)
        assert [v.get("toLastKeyMs") for v in js["memorizeViews"]] == [v["tolast"] for v in st["mem"]], w
        assert [(a["t"], a["text"], a["correct"], a["appResult"]) for a in js["verifyAttempts"]] == \
            [(a["t"], a["text"], a["correct"], a["app"]) for a in st["att"]], w
        check_meds(js, st["med"], w)
    rec = pj.get("recall")
    if R["rstart"] is not None:
        assert rec.get("totalMs") == R["rtotal"]
        assert [(f["field"], f["text"], f.get("matches")) for f in rec["fields"]] == R["recall"]
        assert sorted(rec["stringsRecalled"]) == R["recalled"]


# MARK: - rolled-up.csv (recall-measures.md, "Output files")

def expected_rolled(R):
    """{(phase, item): [row dict of the documented columns]} — items whose columns the doc defines."""
    out = {}

    def add(phase, it, **kw):
        out.setdefault((phase, it), []).append({k: num(v) if not isinstance(v, str) else v for k, v in kw.items()})

    def ent(phase, it, st, e):
        add(phase, it, string=str(st["n"]), index=e["order"], field=e["field"], start_ms=e["start"],
            end_ms=e["end"], duration_ms=e["dur"], text=text_cell(e["text"]), correct=e["correct"],
            rekey=e["rekey"], keystrokes=e["keystrokes"], deletions=e["deletions"],
            **dict(zip(("median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms"),
                       (num(v) for v in medians(e["dyn"]).values()))))

    for n, st in R["strings"].items():
        s = str(n)
        for i, v in enumerate(st["mem"], 1):
            add("Memorize", "view", string=s, index=i, start_ms=v["start"], end_ms=v["end"], duration_ms=v["dur"],
                text=text_cell(v["text"]), correct=same(v["text"], st["target"]))
        for i, v in enumerate(st["ver"], 1):
            add("Verify", "view", string=s, index=i, start_ms=v["start"], end_ms=v["end"], duration_ms=v["dur"],
                text=text_cell(v["text"]), correct=same(v["text"], st["target"]))
        for a in st["att"]:
            add("Verify", "attempt", string=s, start_ms=a["t"], text=text_cell(a["text"]), correct=a["correct"])
        for e in st["practice"]:
            ent(e["page"].capitalize(), "practice_entry", st, e)
        for e in st["entries"]:
            ent("Entry", "entry", st, e)
        if st["estart"] is not None:
            add("Entry", "total", string=s, start_ms=st["estart"], end_ms=st["eend"], duration_ms=st["etotal"],
                text="done" if st["completed"] else "not done")
            for f, x in enumerate(st["final"] or [], 1):
                add("Entry", "field_at_turn", string=s, field=f, text=text_cell(x), correct=same(x, st["target"]))
        if st["mem_to_last"] is not None:
            add("Multiple", "memorize_to_last_entry_key", string=s, start_ms=st["mem"][0]["start"],
                end_ms=st["mem"][0]["start"] + st["mem_to_last"], duration_ms=st["mem_to_last"])
    if R["rtotal"] is not None:
        add("Recall", "total", string="", start_ms=R["rstart"], end_ms=R["rlast"], duration_ms=R["rtotal"])
    for f, x, m in R["recall"]:
        add("Recall", "field", string="" if m is None else str(m), field=f, text=text_cell(x), correct=m is not None)
    add("Multiple", "session_total", string="", start_ms=R["start"], end_ms=R["end"], duration_ms=R["total"],
        text="complete" if R["complete"] else "incomplete")
    return out


def check_rolled(rows, R):
    exp = expected_rolled(R)
    for (phase, it), want in exp.items():
        got = [r for r in rows if r["phase"] == phase and r["item"] == it]
        got = [{k: r[k] for k in w} for r, w in zip(got, want)] + got[len(want):]
        assert got == want, f"rolled-up {phase}/{it}:\n got {got}\nwant {want}"
