"""Independent reference implementation of docs/recall-measures.md and docs/recall-events.md.

Written from the docs alone ("The walk", "Focus", "Individual entry", "One-tap entries", the per-string,
Recall and Session tables, "Exact matching", "Keystroke dynamics", the autocorrect rule of recall-events.md);
the Swift sources were not read. Shared by the test_doc_recall_*.py files.
"""
import csv
import io
import json
import math
import statistics
import subprocess
import unicodedata

import regex

FIELDS = {"memorize": 1, "verify": 1, "entry": 10, "recall": 10}
STRINGS = ["abc", "x y", "k", "mn", "12", "q", "w", "e", "r", "t"]


# MARK: - characters, matching, numbers

def glen(s):
    """Characters = extended grapheme clusters (UAX #29)."""
    return len(regex.findall(r"\X", s))


def same(a, b):
    """Exact matching: equal NFC forms."""
    return unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def median(xs):
    return statistics.median(xs) if xs else None


def num(v):
    """JSON number format of docs/json-and-csv.md as written in CSV cells."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "True" if v else "False"
    if float(v).is_integer() and abs(v) < 2 ** 53:
        return str(int(v))
    return "%.10g" % v


def text_cell(s):
    """Formula prefix on text cells (recall-measures.md, "Output files")."""
    return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s


# MARK: - keystroke dynamics

def dynamics(evs):
    """evs: [(t, label, action)] of one entry -> H, DD, UD, UU lists (ms)."""
    ks = []
    for t, lab, act in evs:
        if act in ("down", "tap"):
            ks.append({"d": t, "u": None, "lab": lab, "open": act == "down"})
        else:  # up closes the earliest open keystroke with the same label
            for k in ks:
                if k["open"] and k["lab"] == lab:
                    k["u"], k["open"] = t, False
                    break
    ks.sort(key=lambda k: k["d"])  # stable: equal down times keep their order
    pairs = list(zip(ks, ks[1:]))
    return {"H": [k["u"] - k["d"] for k in ks if k["u"] is not None],
            "DD": [b["d"] - a["d"] for a, b in pairs],
            "UD": [b["d"] - a["u"] for a, b in pairs if a["u"] is not None],
            "UU": [b["u"] - a["u"] for a, b in pairs if a["u"] is not None and b["u"] is not None]}


def medians(dyn):
    return {k: median(dyn[k]) for k in ("H", "DD", "UD", "UU")}


def pooled(entries):
    return {k: median([x for e in entries for x in e["dyn"][k]]) for k in ("H", "DD", "UD", "UU")}


# MARK: - reading a native log

def parse_log(text):
    """-> (header, [(line_no, event)], warnings). Only well-formed logs (errors are the binary's job)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    cut = not text.endswith("\n")
    header, events, warns = None, [], []
    for i, raw in enumerate(lines, 1):
        ln = raw[:-1] if raw.endswith("\r") else raw
        if not ln.strip(" \t"):
            continue
        try:
            obj = json.loads(ln)
        except ValueError:
            if cut and i == len(lines):
                warns.append((i, "cut-off"))
                continue
            raise
        if header is None:
            header = obj
        else:
            events.append((i, obj))
    return header, events, warns


# MARK: - the walk

class Seg:
    def __init__(self, kind, string, field):
        self.kind, self.string, self.field = kind, string, field
        self.presses, self.evs = [], []  # presses: (t, line, added, shorter)
        self.text = ""


def analyze(text, strings=STRINGS):
    """recall-measures.md for one native log -> dict of the documented measures."""
    header, events, warns = parse_log(text)
    S = {n: {"n": n, "target": strings[n - 1], "length": glen(strings[n - 1]), "reached": False,
             "mem": [], "ver": [], "att": [], "practice": [], "entries": [], "estart": None, "eend": None,
             "done": False, "completed": False, "final": None}
         for n in range(1, 11)}
    R = {"participant": header["participant"], "complete": False, "rstart": None, "rlast": None, "rleave": None,
         "rfields": None, "start": None, "last": None, "warnings": warns, "ignored_after_close": 0}
    P = None  # the current page

    def close_seg():
        seg = P and P["seg"]
        if not seg:
            return
        P["seg"] = None
        seg.text = P["texts"][seg.field]
        st = S.get(P["string"])
        starts = [p[0] for p in seg.presses]
        e = {"field": seg.field, "start": starts[0], "end": starts[-1], "dur": starts[-1] - starts[0],
             "text": seg.text, "keystrokes": len(seg.presses), "deletions": sum(p[3] for p in seg.presses),
             "onetap": P["kind"] == "entry" and any(p[2] >= 2 for p in seg.presses),
             "onetap_line": next((p[1] for p in seg.presses if p[2] >= 2), None),
             "dyn": dynamics(seg.evs), "page": P["kind"]}
        if P["kind"] == "recall":
            e["correct"] = any(same(seg.text, s) for s in strings)
            e["rekey"] = seg.field in P["keyed"]
            P["keyed"].add(seg.field)
            e["order"] = len(R.setdefault("rentries", [])) + 1
            R["rentries"].append(e)
            return
        e["correct"] = same(seg.text, st["target"])
        if P["kind"] == "entry":
            e["rekey"] = any(x["field"] == seg.field for x in st["entries"])
            e["order"] = len(st["entries"]) + 1
            st["entries"].append(e)
        else:
            same_kind = [x for x in st["practice"] if x["page"] == P["kind"]]
            e["rekey"] = seg.field in P["keyed"]  # "on this page": this display (Entry: all displays)
            P["keyed"].add(seg.field)
            e["order"] = len(same_kind) + 1
            st["practice"].append(e)

    def leave(t, end_of_log=False):
        close_seg()
        k, st = P["kind"], S.get(P["string"])
        n = FIELDS.get(k, 0)
        texts = P["fieldsev"] if P["fieldsev"] is not None else [P["texts"][i] for i in range(1, n + 1)]
        if k in ("memorize", "verify"):
            v = {"start": P["t0"], "end": t, "dur": t - P["t0"], "text": texts[0],
                 "tolast": None if P["lastpress"] is None else P["lastpress"] - P["t0"]}
            st["mem" if k == "memorize" else "ver"].append(v)
        elif k == "entry":
            if not st["done"]:
                st["eend"] = t
            if not end_of_log:
                st["completed"] = True
            st["final"] = texts
        elif k == "recall":
            R["rleave"], R["rfields"] = t, texts

    for line, e in events:
        t, ty = e["t"], e["type"]
        if ty == "close":
            R["last"] = t
            R["closed"] = True
            R["ignored_after_close"] = len(events) - [x[0] for x in events].index(line) - 1
            break
        R["last"] = t
        if ty == "page":
            if P:
                leave(t)
            k = e["page"]
            P = {"kind": k, "string": e.get("string") if k in ("memorize", "verify", "entry") else None, "t0": t,
                 "texts": {i: "" for i in range(1, 11)}, "focus": None, "seg": None, "fieldsev": None,
                 "lastpress": None, "held": {}, "keyed": set()}
            if P["string"]:
                S[P["string"]]["reached"] = True
            if k == "memorize" and R["start"] is None:
                R["start"] = t
            if k == "entry" and S[P["string"]]["estart"] is None:
                S[P["string"]]["estart"] = t
            if k == "recall":
                R["rstart"] = t
            if k == "thankyou":
                R["complete"] = True
            continue
        if P is None or P["kind"] not in FIELDS:
            continue
        if ty == "focus":
            if P["seg"] and P["seg"].field != e["field"]:
                close_seg()
            P["focus"] = e["field"]
        elif ty == "fields":
            P["fieldsev"] = list(e["values"])
        elif ty == "button":
            close_seg()
            st = S.get(P["string"])
            if e["button"] == "verify" and P["kind"] == "verify":
                st["att"].append({"t": t, "text": P["texts"][1], "correct": same(P["texts"][1], st["target"]),
                                  "app": e.get("result") == "ok"})
            if e["button"] == "done" and P["kind"] == "entry" and not st["done"]:
                st["done"], st["eend"] = True, t
        elif ty == "key":
            act = e.get("action", "tap")
            f = e.get("field") or P["focus"] or 1
            prev = P["texts"][f]
            new = e.get("text", prev)
            lab = e["key"]
            if act == "up":
                if P["seg"] and P["seg"].field == f:
                    P["seg"].evs.append((t, lab, "up"))
                h = P["held"].get(f)
                if h and h["lab"] == lab:
                    h["released"] = True
                P["texts"][f] = new
                continue
            if "field" in e:
                P["focus"] = f
            h = P["held"].get(f)
            if act == "tap" and h and not h["released"] and (glen(h["lab"]) == 1 or h["lab"] == "space"):
                ch = " " if h["lab"] == "space" else h["lab"]
                repeat = new == prev + ch or (h["lab"] == "\u232b" and glen(new) == glen(prev) - 1)
                if not repeat:  # the held key's own change: not a keystroke
                    P["texts"][f] = new
                    continue
            if P["seg"] and P["seg"].field != f:
                close_seg()
            if not P["seg"]:
                P["seg"] = Seg(P["kind"], P["string"], f)
            seg = P["seg"]
            seg.presses.append((t, line, glen(new) - glen(prev), glen(new) < glen(prev)))
            seg.evs.append((t, lab, act))
            P["texts"][f] = new
            P["lastpress"] = t
            P["held"][f] = {"lab": lab, "released": act != "down"}
            if P["kind"] == "recall":
                R["rlast"] = t
    if P:
        leave(R["last"], end_of_log=True)

    # per string
    for st in S.values():
        en = st["entries"]
        d = [x["dur"] for x in en if not x["onetap"]]
        st["mean"] = sum(d) / len(d) / 1000 if d else None
        st["onetaps"] = sum(x["onetap"] for x in en)
        st["incorrect"] = sum(not x["correct"] for x in en)
        st["rekeys"] = sum(x["rekey"] for x in en)
        st["deletions"] = sum(x["deletions"] for x in en)
        st["memtotal"] = sum(v["dur"] for v in st["mem"])
        st["vertotal"] = sum(v["dur"] for v in st["ver"])
        st["verfail"] = sum(not a["correct"] for a in st["att"])
        st["etotal"] = None if st["estart"] is None else st["eend"] - st["estart"]
        st["completed"] = st["completed"] or st["done"]
        st["final_correct"] = sum(same(x, st["target"]) for x in (st["final"] or []))
        m0 = st["mem"][0]["start"] if st["mem"] else None
        st["mem_to_last"] = None if m0 is None or not en else max(x["end"] for x in en) - m0
        st["med"] = pooled(en)
    # recall
    R["rtotal"] = None if R["rlast"] is None else R["rlast"] - R["rstart"]
    R["recall"] = []
    for i, x in enumerate(R["rfields"] or [], 1):
        if x:
            m = next((n for n in range(1, 11) if same(x, strings[n - 1])), None)
            R["recall"].append((i, x, m))
    R["recalled"] = sorted({m for _, _, m in R["recall"] if m})
    # session
    if R["complete"]:
        end = R["rlast"] if R["rlast"] is not None else R["rleave"]
    else:
        end = R["last"]
    R["end"] = end
    R["total"] = None if R["start"] is None or end is None else end - R["start"]
    R["strings"] = S
    R["med"] = pooled([x for st in S.values() for x in st["entries"]])
    return R


# MARK: - a log writer

class Log:
    """Builds a native log line by line."""

    def __init__(self, participant="P1", **head):
        h = {"type": "session", "participant": participant}
        h.update(head)
        self.lines = [json.dumps(h, ensure_ascii=False)]
        self.t = 0

    def ev(self, t, type_, **kw):
        self.t = t
        d = {"t": t, "type": type_}
        d.update(kw)
        self.lines.append(json.dumps(d, ensure_ascii=False))
        return self

    def page(self, t, page, string=None):
        return self.ev(t, "page", page=page, **({"string": string} if string else {}))

    def key(self, t, key, action, text=None, field=None):
        kw = {"key": key, "action": action}
        if text is not None:
            kw["text"] = text
        if field is not None:
            kw["field"] = field
        return self.ev(t, "key", **kw)

    def typed(self, t, word, field=None, gap=100, hold=None, start=""):
        """Types word's characters from text `start` from time t; returns the time after."""
        text, evs = start, []
        for i, ch in enumerate(regex.findall(r"\X", word)):
            text += ch
            evs.append((t, len(evs), ch, "down" if hold else "tap", text, field if i == 0 else None))
            if hold:
                evs.append((t + hold, len(evs), ch, "up", None, None))
            t += gap
        for te, _, ch, act, txt, f in sorted(evs):
            self.key(te, ch, act, txt, f)
        return max([t] + [e[0] for e in evs])

    def text(self):
        return "\n".join(self.lines) + "\n"


