"""docs/json-and-csv.md (with docs/recall-study-data.md and recall-measures.md on numbers) re-implemented and
compared with the program: a Python writer that follows the docs against the recall section's side outputs, byte for
byte, fed with hostile strings, ids, file names, key texts, a desktop cohort and huge times."""
import csv
import io
import json
import math
import re
import subprocess
from pathlib import PurePath

import pytest

# ---------------------------------------------------------------- Part 1: the doc's writers
BOM = "\ufeff"
PLAIN = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")
APPB = re.compile(r"-?[0-9]+(\.[0-9]+)?\Z")   # input text in the two Appendix B tables: a number only like this
CTRL = {*range(0, 9), 11, 12, *range(14, 32), 0x7F, *range(0x80, 0xA0)}

class Tok(float):  # a number read back: with 10 significant digits it may be a rounded fraction
    def __new__(cls, text):
        self = super().__new__(cls, text)
        self.rounded = len(re.sub(r"^[-0.]*|[eE].*$|\.", "", text)) >= 10
        return self
def num(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "null"
    if x == int(x) and abs(x) < 2 ** 53 and not getattr(x, "rounded", False):
        return str(int(x))
    mant, _, exp = ("%.10g" % x).partition("e")  # %.10g already drops trailing zeros; the doc says so again
    return (mant.rstrip("0").rstrip(".") if "." in mant else mant) + ("e" + exp if exp else "")
def jstr(s):
    names = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(names.get(c) or ("\\u%04x" % ord(c) if ord(c) < 0x20 or c in "\u2028\u2029" else c)
                         for c in s) + '"'
def pjstr(s):  # participant.json: JSONEncoder's bytes (recall-measures.md)
    names = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(names.get(c) or ("\\u%04x" % ord(c) if ord(c) < 0x20 else c) for c in s) + '"'
def pjdump(v):  # sorted keys (byte order), compact, doubles shortest round-trip without a trailing .0
    if v is None or isinstance(v, bool):
        return {None: "null", True: "true", False: "false"}[v]
    if isinstance(v, (int, float)):
        return re.sub(r"\.0$", "", repr(v)) if isinstance(v, float) else str(v)
    if isinstance(v, str):
        return pjstr(v)
    if isinstance(v, list):
        return "[" + ",".join(map(pjdump, v)) + "]"
    return "{" + ",".join(pjstr(k) + ":" + pjdump(v[k]) for k in sorted(v, key=lambda k: k.encode())) + "}"
def secs(v):  # Appendix B: %.2f, trailing zeros and a bare point dropped, -0 written 0
    s = ("%.2f" % v).rstrip("0").rstrip(".")
    return "0" if s == "-0" else s
def appb_text(s):
    return s if APPB.match(s) else csv_text(s)
def jdump(v, ind=""):
    if v is None or isinstance(v, bool):
        return {None: "null", True: "true", False: "false"}[v]
    if isinstance(v, (int, float)):
        return num(v)
    if isinstance(v, str):
        return jstr(v)
    inner = ind + "  "
    if isinstance(v, list):
        return "[\n" + ",\n".join(inner + jdump(x, inner) for x in v) + "\n" + ind + "]" if v else "[]"
    keys = sorted(v, key=lambda k: k.encode("utf-8"))
    body = ",\n".join(f"{inner}{jstr(k)}: {jdump(v[k], inner)}" for k in keys)
    return "{\n" + body + "\n" + ind + "}" if v else "{}"
def quote(s):
    if any(c in s for c in ',"\r\n') or s[:1] == " " or s[-1:] == " ":
        return '"' + s.replace('"', '""') + '"'
    return s
def csv_text(s):
    s = "".join("\ufffd" if ord(c) in CTRL else c for c in s)
    return quote("'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s)
def csv_cell(v):
    if v is None or isinstance(v, bool):
        return {None: "", True: "True", False: "False"}[v]
    return num(v) if isinstance(v, (int, float)) else csv_text(v)
def csv_file(rows, bom=True):
    return (BOM if bom else "") + "".join(",".join(r) + "\r\n" for r in rows)

# ---------------------------------------------------------------- Part 1: a hostile study
STRINGS = ["=1+2", "-a`b|c", "-1e5", "@SUM(A1)", 'a,b"c', " lead", "trail ", "\u202eabc\u200f",
           "\U0001F469\u200d\U0001F469\u200d\U0001F467x", "a\u2028b\u2029"]
IDS = ["-3", "1e5", "=x\u202e", 'a"b,c', "*a*_b_", "[x](y)", "1. li", "<!--&", "007"]
NAMES = ['=a,"b".jsonl', " sp\u2028x.jsonl", "q\tz.jsonl", "d\x7fe.jsonl"]
KEY_TEXTS = ["=cmd|' /C calc'!A0", "+1", "-2", "@x", "\tTAB", "\rCR", "a\nb", "c\r\nd", 'q"uo,te', "nul\x00x",
             "bel\x07\x1f", "del\x7f", "c1\x80\x85\x9f", "\u2028\u2029", "\u200f\u202eRTL", " sp ",
             "\U0001F469\u200d\U0001F467", "Z" * 3000 + '"' + "Z" * 3000, "-0", "1e21", "\ufeffbom", "\x1b[31m"]
COHORT = ["label,s1,s2,s3,s4,s5,s6,s7,s8,s9,s10", "order,1,2,3,4,5,6,7,8,9,10",
          'string,"=a,b","+q""x",-1,@h,"x\r\ny"," sp","tab\tx",\u202eR,e\u2028f,plain',
          "string length,4,4,2,2,3,3,5,2,3,5", "section,complete,,,,,,,,,",
          "=cmd,1,2,3,4,5,6,7,8,9,10", "-3,1,,,,,,,,,0.5", '"a,""b",1,,,,,,,,,', "section,incomplete,,,,,,,,,"]
COHORT_NUMBERS = ["1,0,-0,1e-7,1e21,0.30000000000000004,12345678901234567890,007,1.10,2.5e0,9007199254740993",
                  "2,0.004,2.675,1.005,0.125,5.00,1.30,1e5,2.5,0.994999,0.005"]
PAGE_TURN = "b\x08f\x0cu\u2028/\x1f\u2029"
TABLES = ["entries", "recall", "strings", "study-table", "study-strings", "participants"]

def run(binary, *args, **kw):
    return subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=300, **kw)

def make_study(binary, root, cohort_rows=COHORT, bom=True, names=NAMES, ids=IDS):
    logs = root / "data" / "logs"
    (root / "data").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    assert run(binary, "recall", "simulate", "--participants", len(ids), "--seed", 57, "--output", logs,
               "--strings", root / "data" / "strings.txt", "--abandon-rate", 0, "-q").returncode == 0
    for k, log in enumerate(sorted(logs.glob("*.jsonl"))):
        ev = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        ev[0]["participant"] = ids[k]
        if k == 0:  # hostile key texts on Recall field 10; hostile page-turn values for participant.json
            at = next(i for i, e in enumerate(ev) if e.get("page") == "recall")
            ev[at + 1:at + 1] = [{"t": ev[at]["t"] + 1 + j, "type": "key", "key": h[:3] or "k", "action": "tap",
                                  "text": h, "field": 10} for j, h in enumerate(KEY_TEXTS)]
            ev[max(i for i, e in enumerate(ev) if e["type"] == "fields")]["values"][9] = PAGE_TURN
        if k == 1:  # one entry lasting 10^12 ms: computed numbers of 10^10 and more
            ent = next(i for i, e in enumerate(ev) if e.get("page") == "entry")
            downs = [i for i, e in enumerate(ev) if i > ent and e.get("action") in ("down", "tap")]
            for e in ev[downs[1]:]:
                e["t"] += 10 ** 12 + 7
        body = "\n".join(json.dumps(e, ensure_ascii=False) for e in ev) + "\n"
        log.unlink()
        (logs / (names[k] if k < len(names) else log.name)).write_text(body, encoding="utf-8")
    (root / "data" / "desk.csv").write_bytes("\r\n".join(cohort_rows).encode() + b"\r\n")
    (root / "static").mkdir()
    for name, data in (("plain.csv", b"=1,x\n"), ("bom.csv", BOM.encode() + b"-2,y\r\n")):
        (root / "static" / name).write_bytes(data)
    (root / "dossier.yml").write_text("title: Hostile\n" + ("csv:\n  bom: false\n" if not bom else "") +
                                      "recall:\n  strings: data/strings.txt\n  logs: data/logs\n"
                                      "  desktop_cohorts: data/desk.csv\n", encoding="utf-8")
    return run(binary, "build", root, "-q")

@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    proc = make_study(dossier_bin, root := tmp_path_factory.mktemp("h"), COHORT[:5] + COHORT_NUMBERS + COHORT[5:])
    assert proc.returncode == 0, proc.stderr
    return root / "_site"

def csv_str(path):
    return path.read_bytes().decode("utf-8")

@pytest.mark.parametrize("name", TABLES)
def test_json_is_the_doc_writer_and_csv_is_the_doc_writer_fed_with_the_json(site, name):
    raw, text = csv_str(site / "recall" / f"{name}.json"), csv_str(site / "recall" / f"{name}.csv")
    rows = json.loads(raw, parse_float=Tok)
    assert raw == jdump(rows) + "\n"
    header = text[len(BOM):text.index("\r\n")].split(",")
    assert rows and all(set(r) == set(header) for r in rows)
    assert text == csv_file([header] + [[csv_cell(r[h]) for h in header] for r in rows])

def test_every_csv_has_bom_crlf_minimal_quotes_and_no_live_formula(site):
    csvs = [p for p in site.rglob("*.csv") if p.parent != site]
    assert len(csvs) > 20
    for path in csvs:
        text = csv_str(path)
        assert text.startswith(BOM) and text.endswith("\r\n"), path
        rows = list(csv.reader(io.StringIO(text[1:], newline="")))
        assert csv_file([[quote(c) for c in r] for r in rows]) == text, path
        for cell in (c for r in rows for c in r):
            assert not any(ord(ch) in CTRL for ch in cell), (path, cell)
            assert cell[:1] not in ("=", "+", "@", "\t", "\r") and (cell[:1] != "-" or PLAIN.match(cell)), cell
    assert (site / "plain.csv").read_bytes() == b"=1,x\n"  # static/ files are copied unchanged
    assert (site / "bom.csv").read_bytes() == BOM.encode() + b"-2,y\r\n"

def test_key_texts_in_raw_csv_follow_the_text_cell_rules(site):
    raw = "".join(csv_str(p) for p in site.glob("recall/participants/*/raw.csv"))
    for h in KEY_TEXTS:
        assert f",Recall 10,{csv_text(h[:3] or 'k')},{csv_text(h)},," in raw, repr(h[:40])

def test_huge_times_give_10_significant_digits_with_exponent(site):
    entries = json.loads(csv_str(site / "recall" / "entries.json"))
    s1 = [e["duration_ms"] for e in entries if e["string"] == 1 and not e["one_tap"]]
    mean = sum(s1) / len(s1)
    assert mean > 1e10 and "e+" in num(mean)
    row = f"\r\n1,{csv_text(STRINGS[0])},4,{len(IDS)},{len(s1)},{num(mean)},"
    assert row in csv_str(site / "recall" / "strings.csv")

def test_numbers_take_an_exponent_from_1e10_and_below_1e_4(site):
    assert [num(12048195520.4), num(0.00001), num(2.0 ** 53), num(-12.0)] == ["1.204819552e+10", "1e-05",
                                                                             "9.007199255e+15", "-12"]
    tokens = [t for name in TABLES for t in re.findall(r'": (-?[0-9][^,\n]*),?$',
                                                       csv_str(site / "recall" / f"{name}.json"), re.M)]
    assert len(tokens) > 1000 and any("e+" in t for t in tokens)
    for t in tokens:
        v = abs(float(t))
        assert v >= 1e10 or v < 1e-4 if "e" in t else "." not in t and v < 2 ** 53 or 1e-4 <= v < 1e10, t

def test_cohort_text_cells_follow_the_rules(site):
    lines = csv_str(site / "recall" / "cohorts" / "desk.csv")[1:].split("\r\n")
    for row in list(csv.reader(io.StringIO("\r\n".join(COHORT[5:8]), newline=""))):
        expect = [appb_text(row[0])] + ["" if c == "" else secs(float(c)) for c in row[1:]]
        assert ",".join(expect) in lines, row
    strings = next(csv.reader(io.StringIO(COHORT[2], newline="")))
    expect = ",".join(map(appb_text, strings))
    assert csv_str(site / "recall" / "cohorts" / "desk.csv").count("\r\n" + expect + "\r\n") == 1

def test_cohort_seconds_are_rounded_to_two_decimals(site):
    lines = csv_str(site / "recall" / "cohorts" / "desk.csv")[1:].split("\r\n")
    for row in (r.split(",") for r in COHORT_NUMBERS):
        assert ",".join([row[0]] + [secs(float(c)) for c in row[1:]]) in lines, row

def test_appendix_b_table_layout_and_cells(site):
    rec = site / "recall"
    strings, table, entries = (json.loads(csv_str(rec / f"{n}.json"))
                               for n in ("study-strings", "study-table", "entries"))
    cols = sorted(strings, key=lambda s: s["appendix_b_position"])
    mean = lambda p, k: sum(d := [e["duration_ms"] for e in entries  # noqa: E731
                                  if (e["participant"], e["string"], e["one_tap"]) == (p, k, False)]) / len(d) / 1000
    rows = [["label"] + [f"s{k + 1}" for k in range(len(cols))], ["order"] + [str(s["string"]) for s in cols],
            ["string"] + [appb_text(s["target"]) for s in cols], ["string length"] + [str(s["length"]) for s in cols]]
    for done in (True, False):
        rows += [["section", "complete" if done else "incomplete"] + [""] * (len(cols) - 1)]
        rows += [[appb_text(r["participant"])] + [secs(mean(r["participant"], s["string"])) for s in cols]
                 for r in table if r["complete"] is done]
    assert csv_str(rec / "study-table-appendix-b.csv") == csv_file(rows)
    text = csv_str(rec / "study-table-appendix-b.csv")
    assert "\r\n-3," in text and "\r\n007," in text and ",'-1e5," in text   # the doc's examples

def test_participant_json_is_the_json_encoders_bytes(site):
    blobs = {p: csv_str(p) for p in site.glob("recall/participants/*/participant.json")}
    assert pjstr(PAGE_TURN) in "".join(blobs.values()) and jstr(PAGE_TURN) not in "".join(blobs.values())
    for path, blob in blobs.items():
        assert blob.rstrip("\n") == pjdump(json.loads(blob)), path

def test_bom_false_drops_every_bom_but_static_files_stay(tmp_path, dossier_bin):
    assert make_study(dossier_bin, tmp_path, bom=False).returncode == 0
    out = [p.read_bytes() for p in (tmp_path / "_site").rglob("*.csv") if p.parent != tmp_path / "_site"]
    assert out and not any(b.startswith(BOM.encode()) for b in out)
    assert (tmp_path / "_site" / "bom.csv").read_bytes() == BOM.encode() + b"-2,y\r\n"

def test_participant_id_with_a_control_character_is_refused(tmp_path, dossier_bin):
    proc = make_study(dossier_bin, tmp_path, names=["P001.jsonl"], ids=["S\x07"] + IDS[1:])
    assert proc.returncode == 1, proc.stderr
    msg = "data/logs/P001.jsonl:1: participant id 'S\\u{7}' holds a control character (U+0007); ids may not"
    assert msg in proc.stderr.splitlines()

def folder_of(name):  # a log's folder: its file name without extension, outside A–Z a–z 0–9 . _ - turned into -
    return re.sub(r"[^A-Za-z0-9._-]", "-", PurePath(name).stem)

def test_log_file_names_map_to_folder_names(site):
    logs = sorted(p.name for p in (site.parent / "data" / "logs").iterdir())
    assert sorted(p.name for p in (site / "recall" / "participants").iterdir()) == sorted(map(folder_of, logs))

def test_log_name_with_a_control_character_is_not_refused(tmp_path, dossier_bin):
    assert make_study(dossier_bin, tmp_path, names=["S\x7f1.jsonl"]).returncode == 0
    rec = tmp_path / "_site" / "recall"
    assert (rec / "participants" / folder_of("S\x7f1.jsonl") / "participant.json").is_file()
    assert f"\r\n'-3,{csv_text('data/logs/S' + chr(0x7F) + '1.jsonl')},native," in csv_str(rec / "participants.csv")
    assert f'"source_file": {jstr("data/logs/S" + chr(0x7F) + "1.jsonl")}' in csv_str(rec / "participants.json")
