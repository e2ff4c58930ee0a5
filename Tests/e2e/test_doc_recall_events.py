"""docs/recall-events.md: the native log's errors (file, line, what is wrong; exit 1; no site written),
its warnings, and the byte-level edges (BOM, CRLF, cut-off lines, invalid UTF-8, NUL, huge lines)."""
import json

import pytest

from recall_oracle import STRINGS, Log, analyze, build, check_participant, full_session, pjson, write_project

H = '{"type":"session","participant":"P1"}\n'
MEM = '{"t":5,"type":"page","page":"memorize","string":1}\n'
ENTRY = '{"t":5,"type":"page","page":"entry","string":1}\n'

ERRORS = [
    # (log bytes, line, text the message must hold)
    (H + MEM + '{"t":3,"type":"key","key":"a","text":"a"}\n', 3, "event time 3 goes backwards (previous 5 on line 2)"),
    (H + '{"t":5,"type":"key","key":"a","text":"\xc3('.encode("latin-1").decode("utf-8", "surrogateescape")
     + '"}\n', 2, "byte 39 of the line (0xC3) is not UTF-8"),
    (H + '{"t":-5,"type":"page","page":"welcome"}\n', 2, "negative"),
    (H + '{"t":5,"type":"page","page":"memorize","string":11}\n', 2, "11"),
    (H + '{"t":5,"type":"page","page":"memorize","string":0}\n', 2, "0"),
    (H + ENTRY + '{"t":6,"type":"focus","field":11}\n', 3, "11"),
    (H + MEM + '{"t":6,"type":"key","key":"a","text":"a","field":2}\n', 3, "2"),
    (H + ENTRY + '{"t":6,"type":"fields","values":["a"]}\n', 3, "1"),
    (H + H, 2, "header"),
    (H + '{"t":5,"type":"page","page":"welcomeX"}\n', 2, "welcomeX"),
    (H + '{"t":5,"type":"swipe"}\n', 2, "swipe"),
    (H + MEM + '{"t":6,"type":"button","button":"fly"}\n', 3, "fly"),
    (H + MEM + '{"t":6,"type":"key","key":"a","action":"hold","text":"a"}\n', 3, "hold"),
    (H + MEM + '{"t":6,"type":"button","button":"verify","result":"maybe"}\n', 3, "maybe"),
    (H + '{"t":5.5,"type":"page","page":"welcome"}\n', 2, '"t"'),
    (H + '{"type":"page","page":"welcome"}\n', 2, '"t"'),
    (H + '{"t":01,"type":"page","page":"welcome"}\n', 2, "01"),
    (H + '{"t":5,"t":6,"type":"page","page":"welcome"}\n', 2, "appears twice"),
    (H + '{"t":5,"type":"key","key":"a","text":"a\x00"}\n', 2, "U+0000"),
    ('{"type":"session","participant":"1234567890123"}\n', 1, "13"),
    ('{"type":"session","participant":"\\u0085\\ufeff \\u3000\\u2029"}\n', 1, "only white space"),
    ('{"type":"session","participant":""}\n', 1, "participant"),
    ('{"type":"session"}\n', 1, "participant"),
    ('{"type":"session","participant":"P","format":"dossier-recall/2"}\n', 1, "dossier-recall/2"),
    ('{"type":"session","participant":"P","strings":' + json.dumps(STRINGS[:9] + ["T"]) + '}\n', 1, "T"),
    ("\n\n" + H + '[1]\n', 4, "array"),
    (H + "\ufeff" + MEM, 2, "U+FEFF"),
    (MEM + H, 1, "header"),
    (H + '{"t":5,"type":"page","page":"welcome","pad":"' + "x" * (4 * 1024 * 1024) + '"}\n', 2, "4 MiB"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_log_errors_name_file_and_line_and_write_no_site(tmp_path, dossier_bin, case):
    """"Errors name the file and line and stop the build" (recall-events.md "Errors and warnings"); recall-section.md:
    "Errors (the build stops, `file:line: message`, exit status 1)"."""
    text, line, what = ERRORS[case]
    data = text.encode("utf-8", "surrogateescape")
    write_project(tmp_path, {"A.jsonl": data})
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    msg = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.startswith(f"data/logs/A.jsonl:{line}:")]
    assert msg and what in msg[0], proc.stdout + proc.stderr
    assert not (tmp_path / "_site").exists()


def test_failed_build_leaves_the_previous_site(tmp_path, dossier_bin):
    """recall-section.md: an error stops the build; `dossier build --help`: "the new site replaces the old one only
    when the whole build succeeded"."""
    write_project(tmp_path, {"A.jsonl": full_session(Log()).text()})
    build(dossier_bin, tmp_path)
    before = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "_site").rglob("*") if p.is_file()}
    (tmp_path / "data" / "logs" / "B.jsonl").write_text(H + MEM + '{"t":1,"type":"page","page":"recall"}\n')
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1 and "data/logs/B.jsonl:3:" in proc.stdout + proc.stderr
    after = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "_site").rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("_site")) == \
        sorted(p.name for p in tmp_path.iterdir() if p.name in ("_site", "_site.manifest.json"))


def session_text():
    return full_session(Log(), recall=("abc", "mn")).text()


def test_bom_crlf_and_blank_lines_read_the_same(tmp_path, dossier_bin):
    """"LF (or CRLF) line ends. Blank lines are ignored"; json-lines.md: "A UTF-8 byte-order mark ... at the very
    start of a file is skipped". The same session three ways gives the same participant.json."""
    text = session_text()
    variants = {"A.jsonl": text, "B.jsonl": "\ufeff" + text.replace("\n", "\r\n"),
                "C.jsonl": text.replace("\n", "\n \t\n")}
    write_project(tmp_path, variants)
    build(dossier_bin, tmp_path)
    pjs = {n: pjson(tmp_path, n) for n in "ABC"}
    check_participant(pjs["A"], analyze(text))
    assert pjs["A"] == pjs["B"] == pjs["C"]


@pytest.mark.parametrize("tail", ['{"t":99999,"type":"key","key":"a","te', '{"t":99999,"type":"key","text":"\xc3'])
def test_cut_off_last_line_is_a_warning(tmp_path, dossier_bin, tail):
    """"a cut-off last line (no final newline and not valid JSON or not valid UTF-8, e.g. cut inside a character)
    — the app was closed while writing; the line is ignored" (a warning, not an error)."""
    text = session_text()
    data = text.encode() + tail.encode("latin-1")
    write_project(tmp_path, {"A.jsonl": data})
    proc = build(dossier_bin, tmp_path)
    n = text.count("\n") + 1
    assert f"data/logs/A.jsonl:{n}: warning" in proc.stdout + proc.stderr
    check_participant(pjson(tmp_path, "A"), analyze(text))


def test_a_cut_line_that_is_not_the_last_is_an_error(tmp_path, dossier_bin):
    """Only the last line may be cut off: a broken line followed by more lines is "a line that is not one JSON
    object" — an error with its line."""
    write_project(tmp_path, {"A.jsonl": H + '{"t":1,"type":"key","ke\n' + MEM})
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1 and "data/logs/A.jsonl:2:" in proc.stdout + proc.stderr


def test_complete_last_line_without_newline_is_read(tmp_path, dossier_bin):
    """A last line without a final newline that *is* valid JSON is not cut off: it counts."""
    text = session_text()
    write_project(tmp_path, {"A.jsonl": text.rstrip("\n")})
    proc = build(dossier_bin, tmp_path)
    assert "warning: the last line" not in proc.stdout + proc.stderr
    check_participant(pjson(tmp_path, "A"), analyze(text))


def test_header_only_and_one_event_logs(tmp_path, dossier_bin):
    """"An abandoned session (no Thank You page) is not an error: every measure up to the last event is computed
    and the participant is marked incomplete" — also with no event or a single one."""
    one = H + '{"t":70,"type":"page","page":"memorize","string":3}\n'
    write_project(tmp_path, {"A.jsonl": H, "B.jsonl": one})
    build(dossier_bin, tmp_path)
    a, b = pjson(tmp_path, "A"), pjson(tmp_path, "B")
    assert a["complete"] is False and "sessionTotalMs" not in a and not any(s["reached"] for s in a["strings"])
    check_participant(b, analyze(one))
    assert (b["sessionTotalMs"], b["strings"][2]["reached"], b["strings"][2]["memorizeTotalMs"]) == (0, True, 0)


def test_empty_log_is_an_error(tmp_path, dossier_bin):
    """The header is required ("`participant` | yes"): an empty file is an error naming the file."""
    write_project(tmp_path, {"A.jsonl": "", "B.jsonl": H})
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1 and "data/logs/A.jsonl:1:" in proc.stdout + proc.stderr


def test_participant_of_twelve_grapheme_clusters_and_unknown_keys(tmp_path, dossier_bin):
    """"participant number ... 1–12 characters" counted as extended grapheme clusters (twelve ZWJ families are
    twelve characters); "Unknown keys are ignored"; a line under 4 MiB is read."""
    fam = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    text = json.dumps({"type": "session", "participant": fam * 12, "x-new": [1]}) + "\n" + \
        json.dumps({"t": 5, "type": "page", "page": "memorize", "string": 1, "pad": "y" * 3_000_000}) + "\n"
    write_project(tmp_path, {"A.jsonl": text})
    build(dossier_bin, tmp_path)
    assert pjson(tmp_path, "A")["participant"] == fam * 12
