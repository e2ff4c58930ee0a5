"""Independent re-implementation of the recall study's documented numbers and files.

Written from docs/recall-measures.md ("The walk", per-string/Recall/Session measures, keystroke
dynamics, study summary), docs/recall-study-data.md (entries/recall/strings/study-table/
participants CSV + JSON) and docs/recall-events.md (native log rules, the autocorrect rule),
without reading the program's sources. Hand-written logs hit the edge cases the docs name
(re-keys, backspaces, one-tap pastes, autocorrect taps, grapheme clusters, NFC, late releases,
abandoned sessions, events after close, duplicate participant numbers), plus simulated logs;
every number is recomputed here and compared with what `dossier build` writes.
"""
import csv
import io
import json
import math
import statistics
import subprocess
import unicodedata
from fractions import Fraction

import pytest
import regex

STRINGS = ["abc", "x y", "\u00e41", "\U0001F44D\U0001F3FDz", "-ab", "ab,c", "e\u0301Q", "12345", "k", "mn"]
FIELDS = {"memorize": 1, "verify": 1, "entry": 10, "recall": 10}


def glen(s):
    return len(regex.findall(r"\X", s))


def same(a, b):
    return unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def num(v):
    """docs/json-and-csv.md number format."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    if isinstance(v, bool):
        return "True" if v else "False"
    if float(v).is_integer() and abs(v) < 2 ** 53:
        return str(int(v))
    return "%.10g" % v


def q7(xs, p):
    xs = sorted(xs)
    pos = (len(xs) - 1) * p
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def dynamics(evs):
    """Killourhy & Maxion latencies of one entry's (t, label, action) events."""
    ks = []
    for t, lab, act in evs:
        if act in ("down", "tap"):
            ks.append({"d": t, "u": None, "lab": lab, "open": act == "down"})
        else:
            for k in ks:
                if k["open"] and k["lab"] == lab:
                    k["u"], k["open"] = t, False
                    break
    ks.sort(key=lambda k: k["d"])
    h = [k["u"] - k["d"] for k in ks if k["u"] is not None]
    dd = [b["d"] - a["d"] for a, b in zip(ks, ks[1:])]
    ud = [b["d"] - a["u"] for a, b in zip(ks, ks[1:]) if a["u"] is not None]
    uu = [b["u"] - a["u"] for a, b in zip(ks, ks[1:]) if a["u"] is not None and b["u"] is not None]
    return {"H": h, "DD": dd, "UD": ud, "UU": uu, "keys": ks}


def analyze(text, strings=STRINGS):
    """recall-measures.md for one native log; returns a dict of the documented measures."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    head, evs = json.loads(lines[0]), []
    for ln in lines[1:]:
        evs.append(json.loads(ln))
        if evs[-1]["type"] == "close":
            break
    S = {n: {"n": n, "target": strings[n - 1], "reached": False, "mem": [], "ver": [], "att": [], "practice": [],
             "entries": [], "estart": None, "eend": None, "done": False, "completed": False, "final": None}
         for n in range(1, 11)}
    R = {"complete": False, "recall_reached": False, "rstart": None, "rlast": None, "rleave": None, "rfields": None,
         "start": None, "last": evs[-1]["t"] if evs else 0, "participant": head["participant"]}
    pg = None

    def close_seg():
        seg = pg and pg["seg"]
        if seg:
            pg["seg"] = None
            seg["text"] = pg["texts"][seg["field"]]
            st = S[pg["string"]] if pg["string"] else None
            if pg["kind"] == "entry":
                had = any(e["field"] == seg["field"] for e in st["entries"])
                seg["rekey"], seg["order"] = had, len(st["entries"]) + 1
                seg["correct"] = same(seg["text"], st["target"])
                st["entries"].append(seg)
            elif pg["kind"] in ("memorize", "verify"):
                seg["correct"] = same(seg["text"], st["target"])
                st["practice"].append(seg)

    def leave(t, end_of_log=False):
        close_seg()
        k, st = pg["kind"], S.get(pg["string"])
        texts = pg["fieldsev"] or [pg["texts"][i] for i in range(1, FIELDS.get(k, 0) + 1)]
        if k in ("memorize", "verify"):
            v = {"start": pg["t0"], "end": t, "dur": t - pg["t0"], "text": texts[0],
                 "tolast": None if pg["lastpress"] is None else pg["lastpress"] - pg["t0"]}
            st["mem" if k == "memorize" else "ver"].append(v)
        elif k == "entry":
            if not st["done"]:
                st["eend"] = t
            st["completed"] = st["completed"] or st["done"] or not end_of_log
            st["final"] = texts
        elif k == "recall":
            R["rleave"], R["rfields"] = t, texts

    for e in evs:
        t, ty = e["t"], e["type"]
        if ty == "page":
            if pg:
                leave(t)
            k = e["page"]
            pg = {"kind": k, "string": e.get("string") if k in ("memorize", "verify", "entry") else None, "t0": t,
                  "texts": {i: "" for i in range(1, 11)}, "focus": None, "seg": None, "fieldsev": None,
                  "lastpress": None, "held": {}}
            if pg["string"]:
                S[pg["string"]]["reached"] = True
            if k == "memorize" and R["start"] is None:
                R["start"] = t
            if k == "entry" and S[pg["string"]]["estart"] is None:
                S[pg["string"]]["estart"] = t
            if k == "recall":
                R["recall_reached"], R["rstart"] = True, t
            if k == "thankyou":
                R["complete"] = True
        elif pg is None or pg["kind"] not in FIELDS:
            continue
        elif ty == "focus":
            if pg["seg"] and pg["seg"]["field"] != e["field"]:
                close_seg()
            pg["focus"] = e["field"]
        elif ty == "button":
            close_seg()
            st = S.get(pg["string"])
            if e["button"] == "verify" and pg["kind"] == "verify":
                st["att"].append({"t": t, "text": pg["texts"][1], "ok": same(pg["texts"][1], st["target"])})
            if e["button"] == "done" and pg["kind"] == "entry" and not st["done"]:
                st["done"], st["eend"] = True, t
        elif ty == "fields":
            pg["fieldsev"] = list(e["values"])
        elif ty == "key":
            act, lab = e.get("action", "tap"), e["key"]
            f = e.get("field") or pg["focus"] or 1
            before = pg["texts"][f]
            if act == "up":
                if "text" in e:
                    pg["texts"][f] = e["text"]
                if pg["seg"] and pg["seg"]["field"] == f:
                    pg["seg"]["dyn"].append((t, lab, "up"))
                for g, h in pg["held"].items():
                    if h == lab:
                        pg["held"][g] = None
                continue
            new, held = e["text"], pg["held"].get(f)
            if act == "tap" and held is not None:
                ch = " " if held == "space" else held
                rep = new == before + ch or (held == "\u232b" and regex.findall(r"\X", before)[:-1] ==
                                             regex.findall(r"\X", new) and before != "")
                if not rep:
                    pg["texts"][f] = new
                    continue
            if "field" in e:
                pg["focus"] = f
            if pg["seg"] and pg["seg"]["field"] != f:
                close_seg()
            if not pg["seg"]:
                pg["seg"] = {"field": f, "start": t, "keystrokes": 0, "deletions": 0, "onetap": False, "dyn": [],
                             "page": pg["kind"]}
            seg = pg["seg"]
            seg["end"] = t
            seg["keystrokes"] += 1
            seg["deletions"] += glen(new) < glen(before)
            seg["onetap"] = seg["onetap"] or glen(new) - glen(before) >= 2
            seg["dyn"].append((t, lab, act))
            pg["texts"][f], pg["lastpress"] = new, t
            if pg["kind"] == "recall":
                R["rlast"] = t
            pg["held"][f] = lab if act == "down" and (glen(lab) == 1 or lab == "space") else None
    if pg:
        leave(R["last"], end_of_log=True)
    for st in S.values():
        for en in st["entries"] + st["practice"]:
            en["dur"] = en["end"] - en["start"]
            en["dynamics"] = dynamics(en["dyn"])
        timed = [en["dur"] for en in st["entries"] if not en["onetap"]]
        st["mean"] = sum(timed) / len(timed) / 1000 if timed else None
    fields = [(i + 1, x) for i, x in enumerate(R["rfields"] or []) if x != ""]
    R["recall"] = [(i, x, next((n for n in range(1, 11) if same(x, strings[n - 1])), None)) for i, x in fields]
    R["recalled"] = sorted({m for _, _, m in R["recall"] if m})
    if R["complete"]:
        R["end"] = R["rlast"] if R["rlast"] is not None else R["rleave"]
    else:
        R["end"] = R["last"]
    R["total"] = R["end"] - R["start"] if R["start"] is not None else None
    R["strings"] = S
    return R


class Log:
    """Builds a native log line by line."""

    def __init__(self, participant, strings=STRINGS):
        self.lines = [json.dumps({"type": "session", "format": "dossier-recall/1", "participant": participant,
                                  "strings": strings}, ensure_ascii=False)]
        self.t = 0

    def ev(self, dt=0, **kw):
        self.t += dt
        self.lines.append(json.dumps({"t": self.t, **kw}, ensure_ascii=False))
        return self

    def page(self, dt, page, string=None):
        return self.ev(dt, type="page", page=page, **({"string": string} if string else {}))

    def key(self, dt, key, action="tap", text=None, field=None):
        opt = {k: v for k, v in (("text", text), ("field", field)) if v is not None}
        return self.ev(dt, type="key", key=key, action=action, **opt)

    def typed(self, word, field=None, gap=110, hold=None, start=""):
        """Types word's characters (graphemes) from text `start`, as down/up (hold ms) or taps."""
        text = start
        for i, ch in enumerate(regex.findall(r"\X", word)):
            text += ch
            self.key(gap, ch, "down" if hold else "tap", text, field if i == 0 else None)
            if hold:
                self.key(hold, ch, "up")
        return self

    def text(self):
        return "\n".join(self.lines) + "\n"


def write_project(root, logs, strings=STRINGS, extra=""):
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(strings) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("title: t\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n" + extra)
    for name, text in logs.items():
        (root / "data" / "logs" / name).write_bytes(text.encode("utf-8"))


def read_csv(path):
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), f"{path.name}: no byte-order mark"
    body = raw[3:].decode("utf-8")
    assert body.endswith("\r\n") and "\n" not in body.replace("\r\n", ""), f"{path.name}: not CRLF records"
    return list(csv.reader(io.StringIO(body, newline="")))


def text_cell(s):  # recall-measures.md "Output files": formula prefix on text cells
    return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s



def lev(a, b):
    a, b = (regex.findall(r"\X", unicodedata.normalize("NFC", x)) for x in (a, b))  # characters compare canonically
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def b2(v):
    """recall-study-data.md: seconds as C's %.2f, trailing zeros and a bare point dropped, -0 as 0."""
    s = ("%.2f" % v).rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def half_cent(st):
    """The mean is exactly x.xx5 s, where C's %.2f (binary value) and decimal half-up rounding can differ; such
    cells are checked by test_half_cent_mean_uses_printf_rounding alone."""
    d = [en["dur"] for en in st["entries"] if not en["onetap"]]
    return bool(d) and (Fraction(sum(d), len(d) * 10) % 1) == Fraction(1, 2)


def cell2(st, fmt):
    return "" if st["mean"] is None else "*" if half_cent(st) else fmt(st["mean"])


def pooled(entries, k):
    xs = [x for en in entries for x in en["dynamics"][k]]
    return statistics.median(xs) if xs else None


def expected_tables(units, strings=STRINGS):
    """units: [(source_file, R)] in unit order -> {file name: rows (header first)} of recall-study-data.md."""
    t = {}
    ent = [["participant", "source_file", "string", "field", "order", "start_ms", "end_ms", "duration_ms",
            "keystrokes", "backspaces", "correct", "rekey", "final_text_length", "one_tap"]]
    rec = [["participant", "source_file", "field", "text_length", "matched_string", "correct", "edit_distance",
            "nearest_string", "case_insensitive_match"]]
    par = [["participant", "source_file", "source", "complete", "session_total_ms", "last_event_ms", "warnings",
            "entries", "incorrect_entries", "rekeys", "deletions", "verify_failures", "recall_fields",
            "strings_recalled", "median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms"]]
    tab = [["participant", "source_file", "complete"] + ["s%d" % n for n in range(1, 11)]]
    for src, R in units:
        p, S = text_cell(R["participant"]), R["strings"]
        alle = [en for st in S.values() for en in st["entries"]]
        for st in S.values():
            for en in st["entries"]:
                ent.append([p, src] + [num(x) for x in (st["n"], en["field"], en["order"], en["start"], en["end"],
                           en["dur"], en["keystrokes"], en["deletions"], en["correct"], en["rekey"],
                           glen(en["text"]), en["onetap"])])
        for f, x, m in R["recall"]:
            d = [lev(x, s) for s in strings]
            ci = next((n for n in range(1, 11) if same(x.lower(), strings[n - 1].lower())), None)
            rec.append([p, src] + [num(v) for v in (f, glen(x), m, m is not None, min(d), d.index(min(d)) + 1, ci)])
        par.append([p, src, "native", num(R["complete"]), num(R["total"]), num(R["last"]), "*", num(len(alle)),
                    num(sum(not en["correct"] for en in alle)), num(sum(en["rekey"] for en in alle)),
                    num(sum(en["deletions"] for en in alle)),
                    num(sum(not a["ok"] for st in S.values() for a in st["att"])), num(len(R["recall"])),
                    "[%s]" % ", ".join(map(str, R["recalled"])) if R["recalled"] else ""]
                   + [num(pooled(alle, k)) for k in ("H", "DD", "UD", "UU")])
        tab.append([p, src, num(R["complete"])] + [cell2(S[n], lambda v: num(float("%.2f" % v)))
                                                   for n in range(1, 11)])
    t["entries.csv"], t["recall.csv"], t["participants.csv"], t["study-table.csv"] = ent, rec, par, tab
    rs = [R for _, R in units if R["recall_reached"]]
    srows = [["string", "target", "length", "participants_reached", "n_entries", "mean_entry_ms", "sd_entry_ms",
              "median_entry_ms", "iqr_entry_ms", "incorrect_entries", "incorrect_rate", "rekeys", "rekey_rate",
              "verify_attempts", "verify_not_ok", "verify_not_ok_rate", "recall_participants", "recalled",
              "recall_rate"]]

    def rate(a, b):
        return num(a / b) if b else ""
    for n in range(1, 11):
        es = [en for _, R in units for en in R["strings"][n]["entries"] if not en["onetap"]]
        d = [en["dur"] for en in es]
        att = [a for _, R in units for a in R["strings"][n]["att"]]
        inc, rk, bad = sum(not en["correct"] for en in es), sum(en["rekey"] for en in es), sum(not a["ok"] for a in att)
        got = sum(n in R["recalled"] for R in rs)
        srows.append([num(n), text_cell(strings[n - 1]), num(glen(strings[n - 1])),
                      num(sum(R["strings"][n]["reached"] for _, R in units)), num(len(d)),
                      num(statistics.mean(d)) if d else "", num(statistics.stdev(d)) if len(d) > 1 else "",
                      num(statistics.median(d)) if d else "", num(q7(d, .75) - q7(d, .25)) if d else "", num(inc),
                      rate(inc, len(d)), num(rk), rate(rk, len(d)), num(len(att)), num(bad), rate(bad, len(att)),
                      num(len(rs)), num(got), rate(got, len(rs))])
    t["strings.csv"] = srows
    order = sorted(range(1, 11), key=lambda n: (glen(strings[n - 1]), n))
    t["study-strings.csv"] = [["column", "string", "target", "length", "appendix_b_position"]] + [
        ["s%d" % n, num(n), text_cell(strings[n - 1]), num(glen(strings[n - 1])), num(order.index(n) + 1)]
        for n in range(1, 11)]
    ab = [["label"] + ["s%d" % i for i in range(1, 11)], ["order"] + [num(n) for n in order],
          ["string"] + [text_cell(strings[n - 1]) for n in order],
          ["string length"] + [num(glen(strings[n - 1])) for n in order]]
    for flag, name in ((True, "complete"), (False, "incomplete")):
        ab.append(["section", name] + [""] * 9)
        ab += [[text_cell(R["participant"]) if not regex.fullmatch(r"-?\d+(\.\d+)?", R["participant"])
                else R["participant"]] + [cell2(R["strings"][n], b2) for n in order]
               for _, R in units if R["complete"] == flag]
    t["study-table-appendix-b.csv"] = ab
    return t


def hd(p="7", **kw):
    return json.dumps({"type": "session", "participant": p, **kw}, ensure_ascii=False)


MEM = '{"t":5,"type":"page","page":"memorize","string":1}'
BAD_LOGS = {  # recall-events.md "Errors and warnings": name -> (log lines, line the error names)
    "white space id": ([hd("\u3000\u00a0"), MEM], 1), "13-character id": ([hd("x" * 12 + "\u00e9"), MEM], 1),
    "control in id": ([hd("S\u0007"), MEM], 1), "unknown page": ([hd(), MEM.replace("memorize", "menu")], 2),
    "string 11": ([hd(), MEM.replace(":1}", ":11}")], 2), "backwards": ([hd(), MEM, MEM.replace("5", "4")], 3),
    "field 2 on Memorize": ([hd(), "", MEM, '{"t":9,"type":"focus","field":2}'], 4),
    "fields count": ([hd(), MEM, '{"t":9,"type":"fields","values":["a","b"]}'], 3),
    "duplicate key": ([hd(), MEM, '{"t":9,"t":9,"type":"close"}'], 3),
    "number 01": ([hd(), '{"t":01,"type":"close"}'], 2), "second header": ([hd(), MEM, hd()], 3),
    "strings disagree": ([hd(strings=["abd"] + STRINGS[1:]), MEM], 1),
    "unknown action": ([hd(), MEM, '{"t":9,"type":"key","key":"a","action":"press","text":"a"}'], 3),
    "unknown result": ([hd(), MEM, '{"t":9,"type":"button","button":"verify","result":"maybe"}'], 3),
}


BAD_STRINGS = {"empty line": (STRINGS[:2] + [""] + STRINGS[3:], 3), "15 characters": (["a" * 15] + STRINGS[1:], 1),
               "tab": (STRINGS[:3] + ["a\tb"] + STRINGS[4:], 4), "11 lines": (STRINGS + ["z"], 11)}


@pytest.mark.parametrize("case", sorted(BAD_LOGS) + ["strings: " + k for k in sorted(BAD_STRINGS)])
def test_bad_input_is_refused_with_file_and_line(tmp_path, dossier_bin, case):
    if case.startswith("strings: "):
        (strings, at), logs, name = BAD_STRINGS[case[9:]], {}, "strings.txt"
    else:
        (lines, at), strings, name = BAD_LOGS[case], STRINGS, "x.jsonl"
        logs = {name: "\n".join(lines) + "\n"}
    write_project(tmp_path, logs, strings=strings)
    p = subprocess.run([dossier_bin, "build", str(tmp_path), "-q"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and f"{name}:{at}:" in p.stderr, p.stderr
