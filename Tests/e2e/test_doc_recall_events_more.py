"""docs/recall-events.md "Errors and warnings" (the warning list) and "1. The strings file"."""
import html

import pytest

from recall_oracle import STRINGS, Log, analyze, build, check_participant, full_session, pdir, pjson, write_project


def base():
    return Log().page(10, "ready").page(20, "memorize", 1)


WARNINGS = {
    # name: (log, line of the warning)
    "key on Ready": (Log().page(10, "ready").key(20, "a", "tap", "a").page(30, "memorize", 1), 3),
    "key on Thank You": (base().page(25, "recall").page(30, "thankyou").key(40, "a", "tap", "a"), 6),
    "Verify outside Verify": (base().ev(30, "button", button="verify", result="ok"), 4),
    "Verify result disagrees": (base().page(30, "verify", 1).key(40, "x", "tap", "x", 1)
                                .ev(50, "button", button="verify", result="ok"), 6),
    "Start Test without correct Verify": (base().page(30, "verify", 1).key(40, "x", "tap", "x", 1)
                                          .ev(50, "button", button="verify", result="not-ok")
                                          .ev(60, "button", button="start-test"), 7),
    "Done with empty fields": (base().page(30, "entry", 1).key(40, "a", "tap", "a", 1)
                               .ev(50, "button", button="done"), 6),
    "fields differ from keys": (base().key(30, "a", "tap", "a", 1).ev(40, "fields", values=["zz"])
                                .page(50, "verify", 1), 5),
    "strings out of order": (base().page(30, "memorize", 3).page(40, "memorize", 2), 5),
    "Entry shown twice": (base().page(30, "entry", 1).page(40, "verify", 1).page(50, "entry", 1), 6),
    "Recall shown twice": (base().page(30, "recall").page(40, "verify", 1).page(50, "recall"), 6),
    "event after close": (base().ev(30, "close").ev(40, "touch", x=1, y=1), 5),
    "reached without Entry": (base().page(30, "recall").page(40, "thankyou"), None),
}


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_warnings_keep_the_data_and_reach_the_report(tmp_path, dossier_bin, name):
    """"Warnings keep the data and are shown on the participant's report (and in the build log)": each listed case
    gives a `file:line: warning` in the build log, the same text on the participant page, exit status 0, and the
    numbers are those of the walk without the ignored events."""
    log, line = WARNINGS[name]
    text = log.text()
    write_project(tmp_path, {"A.jsonl": text})
    proc = build(dossier_bin, tmp_path)
    out = proc.stdout + proc.stderr
    warns = [ln for ln in out.splitlines() if ln.startswith("data/logs/A.jsonl:") and ": warning: " in ln]
    assert warns, out
    if line is not None:
        assert any(w.startswith(f"data/logs/A.jsonl:{line}: warning: ") for w in warns), warns
    page = html.unescape((pdir(tmp_path, "A") / "index.html").read_text(encoding="utf-8"))
    for w in warns:
        assert w.split(": warning: ", 1)[1][:40] in page, w
    check_participant(pjson(tmp_path, "A"), analyze(text))


def test_page_turn_contents_win_over_key_texts(tmp_path, dossier_bin):
    """"`fields` contents differing from the text after the field's last key (the page-turn contents are used for
    'text at turn')"."""
    log = base().key(30, "a", "tap", "a", 1).ev(40, "fields", values=["abc"]).page(50, "verify", 1)
    write_project(tmp_path, {"A.jsonl": log.text()})
    build(dossier_bin, tmp_path)
    (v,) = pjson(tmp_path, "A")["strings"][0]["memorizeViews"]
    assert (v["textAtTurn"], v["durationMs"], v["toLastKeyMs"]) == ("abc", 30, 10)


def strings_project(tmp_path, raw):
    write_project(tmp_path, {"A.jsonl": full_session(Log()).text()})
    (tmp_path / "data" / "strings.txt").write_bytes(raw)


def test_strings_file_bom_crlf_spaces_commas(tmp_path, dossier_bin):
    """"Lines end in LF or CRLF (the CR is dropped); a final line ending is optional; a leading BOM is ignored.
    Lines are not trimmed: spaces belong to the string"; "1–14 characters (Unicode characters, not bytes) of any
    kind, commas included"."""
    strings = [" ab", "x,y", "\U0001F468\u200d\U0001F469\u200d\U0001F467" * 14, "mn", "12", "q", "w", "e", "r", "t "]
    write_project(tmp_path, {"A.jsonl": full_session(Log(), strings).text()}, strings)
    (tmp_path / "data" / "strings.txt").write_bytes(b"\xef\xbb\xbf" + "\r\n".join(strings).encode())
    build(dossier_bin, tmp_path)
    pj = pjson(tmp_path, "A")
    assert [s["target"] for s in pj["strings"]] == strings
    assert [s["length"] for s in pj["strings"]] == [3, 3, 14, 2, 2, 1, 1, 1, 1, 2]
    check_participant(pj, analyze(full_session(Log(), strings).text(), strings))


STRING_ERRORS = [
    ("\n".join(STRINGS[:4] + [""] + STRINGS[5:]) + "\n", 5),
    ("\n".join(STRINGS[:2] + ["123456789012345"] + STRINGS[3:]) + "\n", 3),
    ("\n".join(STRINGS[:6] + ["a\tb"] + STRINGS[7:]) + "\n", 7),
    ("\n".join(STRINGS[:9]) + "\n", None),
    ("\n".join(STRINGS + ["extra"]) + "\n", 11),
    ("\n".join(STRINGS[:2]).encode() + b"\n\xff\n" + "\n".join(STRINGS[3:]).encode() + b"\n", 3),
]


@pytest.mark.parametrize("case", range(len(STRING_ERRORS)))
def test_strings_file_errors_name_the_line(tmp_path, dossier_bin, case):
    """"Errors (file and line): an empty line, a line over 14 characters, a control character, fewer or more than
    10 lines (the line number is the 11th line when there are too many)"; invalid UTF-8: "`strings.txt:3: byte 2
    of the line (0xFF) is not UTF-8; save the file as UTF-8`" (here byte 1)."""
    raw, line = STRING_ERRORS[case]
    strings_project(tmp_path, raw if isinstance(raw, bytes) else raw.encode())
    proc = build(dossier_bin, tmp_path, ok=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert ("data/strings.txt:%s:" % line if line else "data/strings.txt") in out, out
    if isinstance(raw, bytes):
        assert "data/strings.txt:3: byte 1 of the line (0xFF) is not UTF-8; save the file as UTF-8" in out
    assert not (tmp_path / "_site").exists()
