"""docs/recall-measures.md, "Output files" and "Study summary": participant.json bytes, rolled-up.csv, raw.csv,
the Appendix B study table and summary.md, recomputed with recall_oracle.py."""
import json

import pytest

from recall_oracle import (STRINGS, Log, analyze, build, check_participant, check_rolled, full_session, glen,
                           num, pdir, pjson, read_csv, rolled, rows_as_dicts, same, text_cell, write_project)


def doc_json(v):
    """participant.json bytes as recall-measures.md describes them: sorted keys, compact, shortest doubles
    without a trailing .0, `"` and `\\` escaped, \\b \\f \\n \\r \\t, \\u00xx lower-case, the rest raw UTF-8."""
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-8"))
        return "{" + ",".join(doc_json(k) + ":" + doc_json(v[k]) for k in keys) + "}"
    if isinstance(v, list):
        return "[" + ",".join(doc_json(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return r[:-2] if r.endswith(".0") else r
    names = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(names.get(c) or ("\\u%04x" % ord(c) if ord(c) < 0x20 else c) for c in v) + '"'


def rich_log(participant="P1"):
    """Practice typing, a failed Verify, re-keys, a paste, an abandoned last string."""
    log = Log(participant).page(20, "ready").page(100, "memorize", 1)
    log.typed(400, "ab", field=1, hold=80)
    log.page(1500, "verify", 1)
    log.typed(1600, "abd", field=1)
    log.ev(2000, "button", button="verify", result="ok")                 # the app disagrees: Not OK here
    log.page(2100, "memorize", 1).page(3000, "verify", 1)
    log.typed(3100, "abc", field=1)
    log.ev(3500, "button", button="verify", result="ok").page(3600, "entry", 1)
    t = log.typed(3700, "abx", field=1, gap=130, hold=90)
    log.key(t + 50, "\u232b", "down", "ab").key(t + 120, "\u232b", "up").key(t + 200, "c", "tap", "abc")
    t = log.typed(t + 500, "abc", field=2, gap=97) + 11
    t = log.typed(t, "", field=3)
    log.key(t + 10, "v", "tap", "abc", 3)
    log.key(t + 300, "a", "tap", "a", 2).ev(t + 400, "fields", values=["abc", "a", "abc"] + [""] * 7)
    log.ev(t + 400, "button", button="done").page(t + 500, "memorize", 2).page(t + 900, "verify", 2)
    log.typed(t + 1000, "x y", field=1)
    log.ev(t + 1400, "button", button="verify", result="ok").page(t + 1500, "entry", 2)
    log.typed(t + 1600, "-x", field=1)
    return log


def test_participant_json_bytes_follow_the_documented_encoder(tmp_path, dossier_bin):
    """"keys in ascending byte order, no whitespace, nil optionals left out; integers in decimal; doubles as Swift's
    shortest round-trip form with a trailing .0 dropped (2, 12.345, 1e-05); strings ... \\u00xx (lower-case hex)
    for the other controls below U+0020, everything else — / and non-ASCII included — as UTF-8"."""
    log = Log('a/b"\\\u00e9\u2028').page(10, "memorize", 1).page(100, "verify", 1)
    log.key(150, "a", "tap", "a\u0001\b\f\n\r\t\u001f/\u00e9\u2028", 1).page(200, "entry", 1)
    log.key(300, "a", "tap", "a", 1).key(301, "b", "tap", "ab")
    for i in range(99):                                                  # mean 1 ms / 100 entries = 1e-05 s
        log.key(400 + i, "a", "tap", "a" * (i // 9 + 1), 2 + i % 9)
    write_project(tmp_path, {"A.jsonl": log.text()})
    build(dossier_bin, tmp_path)
    raw = (pdir(tmp_path, "A") / "participant.json").read_bytes()
    pj = json.loads(raw)
    assert pj["strings"][0]["meanEntrySeconds"] == 1e-05
    assert raw.decode("utf-8") == doc_json(pj)
    assert b'"meanEntrySeconds":1e-05' in raw and b"a/b" in raw and b"\\u0001" in raw


def test_rich_session_every_number_and_rolled_up_row(tmp_path, dossier_bin):
    """"`rolled-up.csv` — every measure above, one row per item" (views, attempts, practice entries, entries,
    fields at turn, Entry total with `done`/`not done`, Memorize → last entry key, Recall, session total), and
    participant.json's numbers (failed Verify: "Dossier's comparison is the one used")."""
    text = rich_log().text()
    write_project(tmp_path, {"A.jsonl": text})
    proc = build(dossier_bin, tmp_path)
    R = analyze(text)
    pj = pjson(tmp_path, "A")
    check_participant(pj, R)
    check_rolled(rolled(tmp_path, "A"), R)
    s1 = pj["strings"][0]
    assert (s1["verifyFailures"], len(s1["memorizeViews"]), s1["rekeys"]) == (1, 2, 1)
    assert "data/logs/A.jsonl:" in proc.stdout + proc.stderr


def test_csv_numbers_and_formula_prefix(tmp_path, dossier_bin):
    """"a string such as `-abc` therefore reads `'-abc` in the CSV (the JSON keeps it verbatim)"; numbers "with
    C's `%.10g`": the Entry `mean_entry` duration (mean in ms) of 100/3 ms."""
    strings = ["-ab"] + STRINGS[1:]
    log = Log("=1").page(10, "memorize", 1).page(20, "entry", 1)
    log.key(100, "-", "tap", "-", 1).key(200, "a", "tap", "-a").key(300, "x", "tap", "x", 2)
    log.key(400, "-", "tap", "-", 3).key(400, "b", "tap", "-b")
    write_project(tmp_path, {"A.jsonl": log.text()}, strings)
    build(dossier_bin, tmp_path)
    rows = rolled(tmp_path, "A")
    (m,) = [r for r in rows if r["item"] == "mean_entry"]
    assert m["duration_ms"] == "%.10g" % (100 / 3) == "33.33333333"
    assert {r["target"] for r in rows if r["string"] == "1"} == {"'-ab"}
    assert {r["participant"] for r in rows} == {"'=1"}
    assert [r["text"] for r in rows if r["item"] == "entry"] == ["'-a", "x", "'-b"]
    pj = pjson(tmp_path, "A")
    assert pj["participant"] == "=1" and pj["strings"][0]["target"] == "-ab"


def test_raw_csv_key_rows_in_time_order(tmp_path, dossier_bin):
    """raw.csv: "one row per event, in time order ... `E key` (label as logged), `F entered` (field text after the
    event), `G target` ..., `H target_typed_correctly` (True/False: F = G ...)", `K event` down/up/tap."""
    text = rich_log().text()
    write_project(tmp_path, {"A.jsonl": text})
    build(dossier_bin, tmp_path)
    rows = read_csv(pdir(tmp_path, "A") / "raw.csv")
    body = [dict(zip(rows[0], r)) for r in rows[1:]]
    times = [int(r["A time_ms"]) for r in body]
    assert times == sorted(times)
    keys = [r for r in body if r["K event"] in ("down", "up", "tap")]
    events = [json.loads(ln) for ln in text.splitlines()[1:]]
    want, texts = [], {}
    for e in events:
        if e["type"] == "page":
            texts, page, string = {}, e["page"], e.get("string")
        if e["type"] != "key":
            continue
        f = e.get("field") or texts.get("focus") or 1
        if e.get("action", "tap") != "up" and "field" in e:
            texts["focus"] = f
        texts[f] = e.get("text", texts.get(f, ""))
        target = STRINGS[string - 1] if string else ""
        want.append([str(e["t"]), text_cell(e["key"]), text_cell(texts[f]), target, num(same(texts[f], target)),
                     e.get("action", "tap")])
    assert [[r["A time_ms"], r["E key"], r["F entered"], r["G target"], r["H target_typed_correctly"],
             r["K event"]] for r in keys] == want


def units_for_study(tmp_path):
    strings = ["a\u0301bc", "\U0001F44D\U0001F3FDx", "k", "mn", "12", "q", "w", "e", "r", "t"]
    logs = {}
    for name, pid, abandon in (("b2.jsonl", "B", False), ("a1.jsonl", "A", True), ("c3.jsonl", "C", False)):
        log = full_session(Log(pid), strings, thankyou=not abandon)
        logs[name] = log.text()
    write_project(tmp_path, logs, strings)
    return strings, logs


def c2(v):
    s = ("%.2f" % v).rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def test_appendix_b_study_table_layout(tmp_path, dossier_bin):
    """"columns are the strings ordered by length, ties by presentation order, with `order`, `string` and
    `string length` rows; one row per participant with `meanEntrySeconds` rounded to two decimals ...; complete
    participants, then `section,incomplete` and the incomplete ones; participants in unit (file name) order"."""
    strings, logs = units_for_study(tmp_path)
    build(dossier_bin, tmp_path)
    cols = sorted(range(1, 11), key=lambda n: (glen(strings[n - 1]), n))
    res = {name: analyze(text, strings) for name, text in sorted(logs.items())}
    want = [["label"] + ["s%d" % i for i in range(1, 11)], ["order"] + [str(n) for n in cols],
            ["string"] + [text_cell(strings[n - 1]) for n in cols],
            ["string length"] + [str(glen(strings[n - 1])) for n in cols], ["section", "complete"] + [""] * 9]
    rows_for = lambda R: [R["participant"]] + [c2(R["strings"][n]["mean"]) for n in cols]
    want += [rows_for(R) for R in res.values() if R["complete"]]
    want += [["section", "incomplete"] + [""] * 9] + [rows_for(R) for R in res.values() if not R["complete"]]
    assert read_csv(tmp_path / "_site" / "recall" / "study-table-appendix-b.csv") == want


def test_summary_md_cells(tmp_path, dossier_bin):
    """summary.md: "one row per participant (complete, then a `**incomplete**` row and the incomplete ones), one
    column per string headed `` `string` (order N, length L) ``, right-aligned, each mean entry time in seconds
    as `%.2f`"."""
    strings, logs = units_for_study(tmp_path)
    build(dossier_bin, tmp_path)
    md = (tmp_path / "_site" / "recall" / "summary.md").read_text(encoding="utf-8")
    cols = sorted(range(1, 11), key=lambda n: (glen(strings[n - 1]), n))
    head = [ln for ln in md.splitlines() if ln.startswith("| participant")][0]
    assert [c.strip() for c in head.strip("|").split("|")][1:] == \
        ["`%s` (order %d, length %d)" % (strings[n - 1], n, glen(strings[n - 1])) for n in cols]
    res = {name: analyze(text, strings) for name, text in sorted(logs.items())}
    body = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| participant")]
    want = [[R["participant"]] + ["%.2f" % R["strings"][n]["mean"] for n in cols]
            for R in res.values() if R["complete"]]
    want += [["**incomplete**"]] + [[R["participant"]] + ["%.2f" % R["strings"][n]["mean"] for n in cols]
                                    for R in res.values() if not R["complete"]]
    got = [[c.strip() for c in ln.strip("|").split("|")] for ln in body]
    got = [g if g[0] != "**incomplete**" else ["**incomplete**"] for g in got]
    assert got == want


def test_participant_json_keeps_no_key_labels_and_recall_csv_no_text(tmp_path, dossier_bin):
    """participant.json: "Each entry's `dynamics` keeps the four medians, holdCount and pairCount, not every latency
    or key label"; recall.csv `text_length`: "characters typed (the text itself stays in the participant's
    files)"."""
    log = Log().page(10, "memorize", 1).page(20, "entry", 1)
    log.key(100, "KEYLABELZQ", "down", "a", 1).key(150, "KEYLABELZQ", "up")
    log.page(200, "recall").key(300, "x", "tap", "SECRETRECALL", 1).page(400, "thankyou")
    write_project(tmp_path, {"A.jsonl": log.text()})
    build(dossier_bin, tmp_path)
    assert b"KEYLABELZQ" not in (pdir(tmp_path, "A") / "participant.json").read_bytes()
    assert b"KEYLABELZQ" in (pdir(tmp_path, "A") / "raw.csv").read_bytes()
    site = tmp_path / "_site" / "recall"
    for f in ("recall.csv", "recall.json", "entries.csv", "entries.json", "participants.csv", "strings.csv"):
        assert b"SECRETRECALL" not in (site / f).read_bytes(), f
    (r,) = rows_as_dicts(site / "recall.csv")
    assert r["text_length"] == "12"


def test_half_cent_means_round_as_printf(tmp_path, dossier_bin):
    """"`meanEntrySeconds` | mean of the Entry entries' `durationMs`, ÷ 1000"; the table rounds "as C's `%.2f`
    rounds the mean (so a mean of 45 ms is `0.04`...)" (recall-study-data.md), summary.md "as `%.2f`"."""
    durations = {1: [40, 50], 2: [5], 3: [1005], 4: [15], 5: [2675], 6: [125, 126], 7: [0]}
    log = Log().page(10, "memorize", 1)
    t = 100
    for n, ds in durations.items():
        log.page(t, "entry", n)
        for f, d in enumerate(ds, 1):
            log.key(t + 10, "a", "tap", "a", f).key(t + 10 + d, "b", "tap", "ab", f)
            t += d + 20
        t += 50
    log.page(t, "recall").page(t + 10, "thankyou")
    write_project(tmp_path, {"A.jsonl": log.text()})
    build(dossier_bin, tmp_path)
    R = analyze(log.text())
    pj = pjson(tmp_path, "A")
    check_participant(pj, R)
    means = {n: (sum(ds) / len(ds)) / 1000 for n, ds in durations.items()}
    assert {n: pj["strings"][n - 1]["meanEntrySeconds"] for n in durations} == means
    tab = read_csv(tmp_path / "_site" / "recall" / "study-table-appendix-b.csv")
    order = [int(x) for x in tab[1][1:]]
    got = dict(zip(order, tab[5][1:]))
    assert {n: got[n] for n in durations} == {n: c2(m) for n, m in means.items()}
    assert got[1] == "0.04" and got[3] == "1"
