"""Tests for test_doc_recall_data.py's re-implementation of docs/recall-measures.md,
docs/recall-study-data.md and docs/recall-events.md: the hand-written logs, the study build and every
comparison of its CSV/JSON files with the numbers recomputed from the docs alone."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from test_doc_recall_data import (STRINGS, Log, analyze, b2, dynamics, expected_tables, num, read_csv, same,
                                  text_cell, write_project)

BIN = os.environ.get("DOSSIER_BIN") or str(pathlib.Path(__file__).resolve().parents[2] / ".build/debug/dossier")
def verify_ok(lg, n, dt=300):
    return lg.page(dt, "verify", n).typed(STRINGS[n - 1], field=1).ev(200, type="button", button="verify",
                                                                      result="ok").ev(50, type="button",
                                                                                      button="start-test")


def main_log():
    """Participant "007": every edge case of "The walk" in one complete session."""
    lg = Log("007").page(0, "welcome").page(500, "ready").ev(100, type="button", button="begin")
    lg.page(339, "memorize", 1).ev(400, type="focus", field=1).typed("ab", hold=90)
    lg.page(2000, "verify", 1).typed("abd", field=1).ev(100, type="button", button="verify", result="not-ok")
    lg.ev(50, type="button", button="memorize").page(10, "memorize", 1).page(1500, "verify", 1)
    lg.typed("abc", field=1).ev(100, type="button", button="verify", result="not-ok")  # app disagrees
    lg.ev(40, type="button", button="start-test").page(60, "entry", 1).ev(100, type="focus", field=1)
    lg.key(200, "a", "down", "a", 1).key(60, "b", "down", "ab").key(30, "a", "up").key(40, "c", "down", "abc")
    lg.key(70, "b", "up").ev(10, type="focus", field=2).key(15, "c", "up")  # late release: no entry, no pull back
    lg.typed("abx", hold=80).key(120, "\u232b", "down", "ab").key(70, "\u232b", "up").typed("c", hold=80, start="ab")
    lg.ev(100, type="focus", field=3).typed("abd", hold=95).typed("abc", field=4, gap=90)
    lg.key(300, "\u232b", "tap", "ab", 3).key(100, "c", "tap", "abc")  # re-key of field 3
    for f in range(5, 11):
        lg.typed("abc", field=f, gap=100 + 7 * f, hold=60 + f)
    lg.ev(200, type="fields", values=["abc", "abc", "abc", "abc"] + ["abc"] * 6).ev(0, type="button", button="done")
    # string 2 "x y": autocorrect at the space bar, then auto-repeat of a held ⌫
    lg.page(300, "memorize", 2)
    verify_ok(lg, 2).page(80, "entry", 2)
    lg.typed("xz", field=1, hold=70).key(100, "space", "down", "xz ").key(3, "\u232b", "tap", "")
    lg.key(1, "space", "tap", "x ").key(86, "space", "up").key(100, "y", "down", "x y").key(80, "y", "up")
    lg.typed("x yy", field=2).key(120, "\u232b", "down", "x y").key(500, "\u232b", "tap", "x ")
    lg.key(40, "\u232b", "up").key(100, "y", "tap", "x y")
    for f in range(3, 11):
        lg.typed("x y", field=f, gap=150)
    lg.ev(100, type="button", button="done")
    # string 3 "ä1" typed decomposed (NFC-equal); field 2 pasted: a one-tap entry
    lg.page(300, "memorize", 3)
    verify_ok(lg, 3).page(80, "entry", 3).key(300, "a", "tap", "a", 1).key(100, "\u00a8", "tap", "a\u0308")
    lg.key(100, "1", "tap", "a\u03081").key(500, "Paste", "tap", "\u00e41", 2)
    for f in range(3, 11):
        lg.typed("\u00e41", field=f, gap=200 + f)
    lg.ev(100, type="button", button="done")
    # string 4: an emoji modifier keeps one character; one tap adding one two-code-point character
    lg.page(300, "memorize", 4)
    verify_ok(lg, 4).page(80, "entry", 4).key(300, "\U0001F44D", "tap", "\U0001F44D", 1)
    lg.key(100, "\U0001F3FD", "tap", "\U0001F44D\U0001F3FD").key(100, "z", "tap", "\U0001F44D\U0001F3FDz")
    for f in range(2, 11):
        lg.typed("\U0001F44D\U0001F3FDz", field=f, gap=130)
    lg.ev(100, type="button", button="done")
    for n in (5, 6, 7, 9, 10):
        lg.page(300, "memorize", n)
        verify_ok(lg, n).page(80, "entry", n)
        for f in range(1, 11):
            lg.typed(STRINGS[n - 1] if f != 4 else STRINGS[n - 1] + "!", field=f, gap=100 + 13 * f + n)
        lg.ev(100, type="button", button="done")
        if n == 7:  # string 8: every entry pasted, so no mean entry time
            lg.page(300, "memorize", 8)
            verify_ok(lg, 8).page(80, "entry", 8)
            for f in range(1, 11):
                lg.key(400, "Paste", "tap", "12345", f)
            lg.ev(100, type="button", button="done")
    lg.page(300, "recall")
    for f, w in enumerate([" abc", "ABC", "x y", "", "x y", "a\u03081", "kn", "mn"], 1):
        if w:
            lg.typed(w, field=f, gap=140)
    lg.ev(900, type="button", button="done").page(0, "thankyou")
    return lg.text()


def abandoned_log():
    """Participant "True": string 1 left without Done, string 2 open when the app closes."""
    lg = Log("True").page(250, "memorize", 1).page(1000, "verify", 1).typed("abc", field=1, hold=50)
    lg.ev(10, type="button", button="verify", result="ok").page(100, "entry", 1)
    for f in (1, 2, 3):
        lg.typed("abc" if f != 2 else "ab", field=f, gap=210, hold=100)
    lg.page(400, "memorize", 2).page(900, "verify", 2).page(500, "entry", 2).typed("x", field=1, hold=40)
    lg.typed("x y", field=2, gap=90).ev(300, type="close").typed("zzz", field=3)  # after close: ignored
    return lg.text()


def redisplay_log():
    """A second "007": Entry page shown twice (re-key across displays), no Done, empty Recall."""
    lg = Log("007").page(0, "memorize", 1).page(700, "verify", 1).typed("abc", field=1)
    lg.ev(50, type="button", button="verify", result="ok").page(50, "entry", 1).typed("abc", field=1, gap=300)
    lg.typed("ab", field=2, gap=250).page(400, "verify", 1).page(300, "entry", 1).typed("abc", field=2, gap=200)
    lg.typed("abc", field=1, gap=170).page(600, "memorize", 2).page(500, "recall").ev(700, type="button",
                                                                                   button="done")
    lg.page(0, "thankyou")
    return lg.text()


def odd_id_log():
    """A participant id that is a formula in CSV and holds U+2028 (escaped in the study JSON only); a pasted
    practice entry; string 9's mean entry time exactly 0.045 s."""
    lg = Log("-3\u2028\u00e9").page(90, "memorize", 1).typed("ab", field=1, hold=30).key(50, "Paste", "tap", "abcd")
    return lg.page(500, "entry", 9).typed("kk", field=1, gap=90).typed("k", field=2).text()  # mean 0.045 s


def build(root, check=True):
    p = subprocess.run([BIN, "build", str(root), "-q"], capture_output=True, text=True, timeout=120)
    if check:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    logs = {"a.jsonl": main_log(), "b.jsonl": abandoned_log(), "c.jsonl": redisplay_log(), "d.jsonl": odd_id_log()}
    write_project(root, logs)
    sim = root / "sim"
    for extra in ([], ["--taps", "--first", "5"]):
        subprocess.run([BIN, "recall", "simulate", "--participants", "4", "--seed", "11", "--out", str(sim),
                        "--strings", str(root / "data/strings.txt"), "--abandon-rate", "0.4", "-q", *extra],
                       check=True, capture_output=True, timeout=60)
    for f in sorted(sim.glob("S*.jsonl")):
        logs["s" + f.name[1:]] = f.read_text(encoding="utf-8")
        shutil.copy(f, root / "data/logs" / ("s" + f.name[1:]))
    build(root)
    units = [("data/logs/" + n, analyze(logs[n])) for n in sorted(logs)]
    return root / "_site" / "recall", units, logs


TABLES = ["entries.csv", "recall.csv", "participants.csv", "strings.csv", "study-table.csv", "study-strings.csv",
          "study-table-appendix-b.csv"]


@pytest.mark.parametrize("name", TABLES)
def test_study_table_matches_docs(study, name):
    out, units, _ = study
    want, got = expected_tables(units)[name], read_csv(out / name)
    assert got[0] == want[0], "header"
    assert len(got) == len(want), f"{name}: {len(got) - 1} rows, the docs give {len(want) - 1}"
    for w, g in zip(want, got):
        assert [x for x, y in zip(g, w) if y != "*"] == [y for y in w if y != "*"], f"{name}: row {g[:3]}"


def jdoc(rows):
    """recall-study-data.md JSON layout: [, one object per row at 2/4 spaces, sorted keys, ], final newline."""
    def js(s):
        out = ""
        for c in s:
            o = ord(c)
            out += {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c) or (
                "\\u%04x" % o if o < 0x20 or o in (0x2028, 0x2029) else c)
        return '"' + out + '"'

    def jv(v):
        return "null" if v is None else ("true" if v else "false") if isinstance(v, bool) else (
            js(v) if isinstance(v, str) else num(v))
    if not rows:
        return "[]\n"
    objs = ["  {\n" + ",\n".join("    %s: %s" % (js(k), jv(r[k])) for k in sorted(r, key=lambda k: k.encode()))
            + "\n  }" for r in rows]
    return "[\n" + ",\n".join(objs) + "\n]\n"


BOOLS = {"correct", "rekey", "complete", "one_tap"}
TEXTS = {"participant", "source_file", "target", "strings_recalled", "column", "source"}


@pytest.mark.parametrize("name", [n for n in TABLES if n != "study-table-appendix-b.csv"])
def test_json_twin_mirrors_csv(study, name):
    out, _, _ = study
    rows = read_csv(out / name)
    raw = (out / name.replace(".csv", ".json")).read_text(encoding="utf-8")
    data = json.loads(raw)
    assert [sorted(o) for o in data] == [sorted(rows[0])] * (len(rows) - 1)
    for obj, row in zip(data, rows[1:]):
        for k, cell in zip(rows[0], row):
            v = obj[k]
            if k in TEXTS:
                assert v is None if k == "strings_recalled" and cell == "" else isinstance(v, str), (k, v)
            if k in BOOLS:
                assert isinstance(v, bool), (k, v)
            shown = "" if v is None else text_cell(v) if isinstance(v, str) else num(v)
            assert shown == cell, (name, k, v, cell)
    assert raw == jdoc(data), f"{name}: not the documented JSON layout"


def name_key(lab):
    special = {".": "period", ",": "comma", " ": "space", "space": "space", "Shift": "Shift", "ShiftKey": "Shift",
               "Return": "Return", "Enter": "Return", "Back": "Back", "\u232b": "Back", "Backspace": "Back"}
    if lab in special:
        return special[lab]
    if lab.isascii() and lab.isalnum():
        return lab
    return "".join("u%04X" % ord(c) for c in lab)


def test_dynamics_files_cmu_layout(study):
    out, units, _ = study
    for n in range(1, 11):
        cand = []
        for src, R in units:
            for en in R["strings"][n]["entries"]:
                ks = dynamics(en["dyn"])["keys"]
                released = all(not k["open"] for k in ks)  # every down has its up inside the entry
                if en["correct"] and en["deletions"] == 0 and released:
                    cand.append((tuple(k["lab"] for k in ks), ks, en, R["participant"], src))
        seqs = [c[0] for c in cand]
        best = max(seqs, key=lambda s: (seqs.count(s), -seqs.index(s))) if seqs else ()
        names, seen = [], {}
        for lab in best:
            k = name_key(lab)
            seen[k] = seen.get(k, 0) + 1
            names.append(k if seen[k] == 1 else "%s#%d" % (k, seen[k]))
        head = ["subject", "sessionIndex", "rep"]
        for i, k in enumerate(names):
            head += ["H." + k] + (["DD.%s.%s" % (k, names[i + 1]), "UD.%s.%s" % (k, names[i + 1])]
                                  if i + 1 < len(names) else [])
        want = [head + ["source_file"]]
        for seq, ks, en, p, src in cand:
            if seq != best:
                continue
            row = [text_cell(p), "1", num(en["order"])]
            for i, k in enumerate(ks):
                sec = lambda ms: "" if ms is None else num(ms / 1000)  # noqa: E731
                row.append(sec(None if k["u"] is None else k["u"] - k["d"]))
                if i + 1 < len(ks):
                    nx = ks[i + 1]
                    row += [sec(nx["d"] - k["d"]), sec(None if k["u"] is None else nx["d"] - k["u"])]
            want.append(row + [src])
        assert read_csv(out / "dynamics" / f"string-{n}.csv") == want, f"string-{n}.csv"


def folder(out, src):
    return out / "participants" / pathlib.Path(src).stem


def test_participant_json_measures(study):
    """participant.json: JSONEncoder bytes (sorted keys, compact) and the measures of recall-measures.md."""
    out, units, _ = study
    for src, R in units:
        raw = (folder(out, src) / "participant.json").read_text(encoding="utf-8")
        d = json.loads(raw)
        assert raw == json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False), src
        got = {k: d.get(k) for k in ("complete", "lastEventMs", "sessionStart", "sessionEnd", "sessionTotalMs")}
        assert got == {"complete": R["complete"], "lastEventMs": R["last"], "sessionStart": R["start"],
                       "sessionEnd": R["end"], "sessionTotalMs": R["total"]}, src
        if R["recall_reached"]:
            rc = d["recall"]
            assert rc.get("totalMs") == (None if R["rlast"] is None else R["rlast"] - R["rstart"]), src
            assert rc.get("stringsRecalled", []) == R["recalled"], src
            assert [(f["field"], f["text"], f.get("matches")) for f in rc["fields"]] == R["recall"], src
        for sd in d["strings"]:
            st = R["strings"][sd["number"]]
            es = st["entries"]
            first_mem = st["mem"][0]["start"] if st["mem"] else None
            want = {"reached": st["reached"], "meanEntrySeconds": st["mean"],
                    "oneTapEntries": sum(e["onetap"] for e in es),
                    "memorizeTotalMs": sum(v["dur"] for v in st["mem"]),
                    "verifyTotalMs": sum(v["dur"] for v in st["ver"]),
                    "verifyFailures": sum(not a["ok"] for a in st["att"]),
                    "incorrectEntries": sum(not e["correct"] for e in es), "rekeys": sum(e["rekey"] for e in es),
                    "deletions": sum(e["deletions"] for e in es)}
            if st["estart"] is not None:
                want.update(completed=st["completed"], entryTotalMs=st["eend"] - st["estart"],
                            finalEntries=st["final"],
                            finalCorrect=sum(same(x, st["target"]) for x in st["final"]))
            if es and first_mem is not None:
                want["memorizeToLastEntryKeyMs"] = max(e["end"] for e in es) - first_mem
            assert {k: sd.get(k, 0 if k in ("memorizeTotalMs", "verifyTotalMs") else None) for k in want} == want, (
                src, sd["number"])
            views = [(v["start"], v["end"], v["durationMs"], v["textAtTurn"], v.get("toLastKeyMs"))
                     for v in sd.get("memorizeViews", [])]
            assert views == [(v["start"], v["end"], v["dur"], v["text"], v["tolast"]) for v in st["mem"]], src
            assert [(a["t"], a["text"], a["correct"]) for a in sd.get("verifyAttempts", [])] == [
                (a["t"], a["text"], a["ok"]) for a in st["att"]], src
            for e, w in zip(sd["entries"], es):
                dy = dynamics(w["dyn"])
                assert (e["dynamics"]["holdCount"], e["dynamics"]["pairCount"], e["oneTap"]) == (
                    len(dy["H"]), len(dy["DD"]), w["onetap"]), src


def test_rolled_up_entry_and_session_rows(study):
    """rolled-up.csv: Entry `total` (done/not done, end = Done or leaving), `mean_entry`, `session_total`."""
    out, units, _ = study
    for src, R in units:
        rows = read_csv(folder(out, src) / "rolled-up.csv")
        head = rows[0]
        items = [dict(zip(head, r)) for r in rows[1:]]
        tot = [(r["string"], r["start_ms"], r["end_ms"], r["duration_ms"], r["text"]) for r in items
               if r["phase"] == "Entry" and r["item"] == "total"]
        want = [(num(st["n"]), num(st["estart"]), num(st["eend"]), num(st["eend"] - st["estart"]),
                 "done" if st["done"] else "not done" if not st["completed"] else "?")
                for st in R["strings"].values() if st["estart"] is not None]
        # Ambiguous in the docs: a page left without Done is `completed`; "done" there may mean either.
        assert tot == [w[:4] + (t[4] if w[4] == "?" and t[4] in ("done", "not done") else w[4],)
                       for t, w in zip(tot, want)] and len(tot) == len(want), src
        means = [(r["string"], r["duration_ms"]) for r in items if r["item"] == "mean_entry"]
        assert means == [(num(st["n"]), num(st["mean"] * 1000)) for st in R["strings"].values()
                         if st["mean"] is not None], src
        sess = [(r["start_ms"], r["end_ms"], r["duration_ms"], r["text"]) for r in items
                if r["item"] == "session_total"]
        assert sess == [(num(R["start"]), num(R["end"]), num(R["total"]),
                         "complete" if R["complete"] else "incomplete")], src


def test_practice_entries_are_never_one_tap(study):
    out, _, _ = study
    for src in ("data/logs/a.jsonl", "data/logs/d.jsonl"):
        d = json.loads((folder(out, src) / "participant.json").read_text(encoding="utf-8"))
        assert [p["oneTap"] for s in d["strings"] for p in s.get("practice", [])] == [
            False for s in d["strings"] for p in s.get("practice", [])], src


def test_half_cent_mean_uses_printf_rounding(study):
    out, units, _ = study
    R = dict(units)["data/logs/d.jsonl"]
    assert R["strings"][9]["mean"] == 0.045 and "%.2f" % 0.045 == "0.04"
    ab = {r[0]: r for r in read_csv(out / "study-table-appendix-b.csv")}
    assert ab["'-3\u2028\u00e9"][1] == "0.04"  # string 9 ("k") is the shortest: first column
    tidy = {r[1]: r for r in read_csv(out / "study-table.csv")}
    assert tidy["data/logs/d.jsonl"][3 + 8] == "0.04"
    md = [ln for ln in (out / "summary.md").read_text(encoding="utf-8").splitlines() if "\u00e9" in ln]
    assert md and "0.04" in md[0] and "0.05" not in md[0]


def test_cohort_rounding_and_cells(tmp_path):
    """recall-study-data.md: recall/cohorts/<name>.csv keeps the Appendix B layout, seconds as %.2f with trailing
    zeros and a bare point dropped; a text cell that only a number parser would read (`-1e5`) is neutralised."""
    strings = ["abc", "-1e5", "ab", "x,y", "a b", "q", "w", "e", "r", "t"]
    rows = [["label"] + ["s%d" % i for i in range(1, 11)], "order,1,9,3,10,5,6,4,7,2,8".split(","),
            ["string"] + strings, ["string length"] + [str(len(s)) for s in strings],
            ["section", "complete"] + [""] * 9,
            ["1", "1.304", "5.0", "0.004", "2.345", "0.125", "0.375", "1e-07", "", "3", "2.675"],
            ["-2"] + ["1.005"] * 10, ["section", "incomplete"] + [""] * 9, ["007", "", "", "5.38"] + [""] * 7]
    write_project(tmp_path, {"x.jsonl": Log("7").page(5, "memorize", 1).text()},
                  extra="  desktop_cohorts: data/nist.csv\n")
    (tmp_path / "data/nist.csv").write_text("\n".join(",".join('"%s"' % c if "," in c else c for c in r)
                                                      for r in rows) + "\n")
    build(tmp_path)
    want = [r[:1] + ["'" + c if c == "-1e5" else c for c in r[1:]] for r in rows[:5]]
    for r in rows[5:]:
        want.append(r if r[0] == "section" else [r[0]] + [b2(float(c)) if c else "" for c in r[1:]])
    assert read_csv(tmp_path / "_site/recall/cohorts/nist.csv") == want


def test_characters_are_grapheme_clusters(tmp_path):
    """A 14-character string and a 12-character participant number of two code points each are accepted."""
    strings = ["e\u0301" * 14] + STRINGS[1:]
    lg = Log("o\u0308" * 12, strings).page(10, "memorize", 1).typed("e\u0301" * 3, field=1)
    write_project(tmp_path, {"g.jsonl": lg.text()}, strings=strings)
    build(tmp_path)
    st = read_csv(tmp_path / "_site/recall/strings.csv")
    assert st[1][2] == "14"
    assert [r for r in read_csv(tmp_path / "_site/recall/participants.csv")][1][0] == "o\u0308" * 12


def test_non_utf8_log_names_file_line_and_byte(tmp_path):
    write_project(tmp_path, {})
    (tmp_path / "data/logs/p07.jsonl").write_bytes(
        (Log("7").page(5, "memorize", 1).text()).encode() + b'{"t":9,"type":"key","key":"\xc3","text":"a"}\n')
    p = build(tmp_path, check=False)
    assert p.returncode == 1 and "p07.jsonl:3: byte 28 of the line (0xC3) is not UTF-8" in p.stderr, p.stderr


def test_one_tap_warning_names_the_press_line(study):
    out, _, logs = study
    lines = logs["a.jsonl"].split("\n")
    at = next(i for i, ln in enumerate(lines, 1) if '"Paste"' in ln)
    report = (out / "participants/a/report.md").read_text(encoding="utf-8")
    msg = ("string 3, field 2: one key press entered several characters at once (a paste, a drop or dictation): "
           "this entry is left out of the entry times")
    assert msg in report and str(at) in report.split(msg)[0].splitlines()[-1] + report.split(msg)[1].splitlines()[0]
