"""docs/recall-measures.md, recomputed independently (recall_oracle.py) and compared with `dossier build`.

Hand-written native logs hit the walk's edges ("Focus", "Individual entry", one-tap entries, the autocorrect
rule of recall-events.md, re-keys, Entry pages shown twice, abandoned sessions, events after `close`), the
dynamics' ties and overlaps, and grapheme clusters; every number of participant.json is recomputed.
"""
import pytest

from recall_oracle import (STRINGS, Log, analyze, build, check_participant, full_session, glen, pdir, pjson,
                           rolled, rows_as_dicts, write_project)


def run(tmp_path, dossier_bin, log, strings=STRINGS, name="A"):
    text = log if isinstance(log, str) else log.text()
    write_project(tmp_path, {name + ".jsonl": text}, strings)
    proc = build(dossier_bin, tmp_path)
    R = analyze(text, strings)
    pj = pjson(tmp_path, name)
    check_participant(pj, R)
    return R, pj, proc


def entry_log():
    return Log().page(10, "memorize", 1).page(100, "verify", 1).page(200, "entry", 1)


def test_full_session_with_down_up_keys(tmp_path, dossier_bin):
    """"Every number Dossier computes for a participant ... precisely enough to recompute it": a complete
    session typed with key down/up (overlapping holds), every string and field."""
    log = Log().page(50, "ready")
    t = 100
    for n, s in enumerate(STRINGS, 1):
        log.page(t, "memorize", n)
        t = log.typed(t + 300, s, field=1, gap=90, hold=130) + 200
        log.page(t, "verify", n)
        t = log.typed(t + 100, s, field=1, gap=80, hold=60)
        log.ev(t, "button", button="verify", result="ok").page(t + 10, "entry", n)
        t += 50
        for f in range(1, 11):
            t = log.typed(t, s, field=f, gap=70 + f, hold=95 + n) + 33
        log.ev(t, "button", button="done")
        t += 40
    log.page(t, "recall")
    log.typed(t + 500, "mn", field=1, hold=120)
    log.page(t + 2000, "thankyou")
    R, pj, _ = run(tmp_path, dossier_bin, log)
    assert R["complete"] and pj["sessionTotalMs"] == R["total"]


def test_focus_follows_presses_not_releases(tmp_path, dossier_bin):
    """"A release (`up`) never moves the focus ... A key without `field` goes to the focused field, else field 1.
    ... every `page` event starts with no focused field"; "A focus on another field without keys makes no
    entry"; the release of the Tab key that moved the focus makes "no entry with 0 keystrokes"."""
    log = entry_log()
    log.key(300, "a", "down", "a", 1).key(400, "Tab", "down", "a", 1).ev(410, "focus", field=2)
    log.key(450, "a", "up").key(460, "Tab", "up")                      # late releases: field 2 focused
    log.key(500, "b", "down", "b").key(550, "b", "up", field=2)
    log.ev(600, "focus", field=3).ev(700, "focus", field=2).key(800, "c", "tap", "bc")
    log.ev(900, "button", button="done").page(1000, "memorize", 2).page(1100, "entry", 2)
    log.key(1200, "z", "tap", "z").key(1300, "y", "tap", "zy")         # no field on a new page: field 1
    R, pj, _ = run(tmp_path, dossier_bin, log)
    e1 = pj["strings"][0]["entries"]
    assert [(e["field"], e["keystrokes"]) for e in e1] == [(1, 2), (2, 1), (2, 1)]
    assert [e["rekey"] for e in e1] == [False, False, True]
    assert [(e["field"], e["text"]) for e in pj["strings"][1]["entries"]] == [(1, "zy")]


def test_autocorrect_example_is_one_keystroke(tmp_path, dossier_bin):
    """recall-events.md: the space bar held from 5000 to 5090 ms with two taps in between "is one keystroke (the
    `down` at 5000) and leaves the field holding `the `"."""
    log = entry_log()
    log.key(5000, "space", "down", "teh ", 2).key(5003, "\u232b", "tap", "", 2)
    log.key(5004, "space", "tap", "the ", 2).key(5090, "space", "up", field=2)
    R, pj, _ = run(tmp_path, dossier_bin, log)
    (e,) = pj["strings"][0]["entries"]
    assert (e["keystrokes"], e["deletions"], e["text"], e["start"], e["end"]) == (1, 0, "the ", 5000, 5000)


def test_auto_repeat_and_modifier_paste_stay_keystrokes(tmp_path, dossier_bin):
    """"a `tap` whose text is the text before it with the held key's character appended once ... or one character
    shorter while `⌫` is held, is the key repeating and stays a keystroke. ... a paste with Control+V stays one
    `tap`"."""
    log = entry_log()
    log.key(300, "a", "down", "a", 1).key(350, "a", "tap", "aa", 1).key(400, "a", "tap", "aaa", 1)
    log.key(450, "a", "up", field=1)
    log.key(500, "\u232b", "down", "aa", 1).key(550, "\u232b", "tap", "a", 1).key(600, "\u232b", "up", field=1)
    log.key(700, "Control", "down", "a", 1).key(710, "v", "tap", "abc", 1).key(800, "Control", "up", field=1)
    R, pj, _ = run(tmp_path, dossier_bin, log)
    (e,) = pj["strings"][0]["entries"]
    assert (e["keystrokes"], e["deletions"], e["oneTap"], e["text"]) == (7, 2, True, "abc")


def test_one_tap_entries_left_out_of_the_mean(tmp_path, dossier_bin):
    """"A one-tap entry is kept in `entries` ... counted in `keystrokes`, `incorrectEntries`, `rekeys` and
    `deletions`, but left out of `meanEntrySeconds` ... Each one-tap entry gives a warning ... naming the log's
    line of the press: `string N, field F: one key press entered several characters at once ...`. A string whose
    entries are all one-tap has no `meanEntrySeconds`."""
    log = entry_log()
    log.key(300, "a", "tap", "a", 1).key(420, "b", "tap", "ab").key(530, "c", "tap", "abc")
    log.key(900, "v", "tap", "abx", 2)                                   # line 8: a paste, wrong
    log.key(1000, "\u232b", "tap", "ab", 2).key(1100, "c", "tap", "abc", 2)
    log.ev(1200, "button", button="done").page(1300, "memorize", 2).page(1400, "entry", 2)
    log.key(1500, "v", "tap", "x y", 1)                                  # line 14: all one-tap
    R, pj, proc = run(tmp_path, dossier_bin, log)
    s1, s2 = pj["strings"][0], pj["strings"][1]
    assert s1["meanEntrySeconds"] == pytest.approx(0.23) and s1["oneTapEntries"] == 1
    assert (s1["incorrectEntries"], s1["deletions"]) == (0, 1)
    assert "meanEntrySeconds" not in s2 and s2["oneTapEntries"] == 1
    msg = "one key press entered several characters at once (a paste, a drop or dictation): " \
          "this entry is left out of the entry times"
    out = proc.stdout + proc.stderr
    assert f"data/logs/A.jsonl:8: warning: string 1, field 2: {msg}" in out
    assert f"data/logs/A.jsonl:14: warning: string 2, field 1: {msg}" in out
    html = (pdir(tmp_path, "A") / "index.html").read_text(encoding="utf-8")
    assert "string 2, field 1: one key press entered several characters at once" in html
    ent = rows_as_dicts(tmp_path / "_site" / "recall" / "entries.csv")
    assert [r["one_tap"] for r in ent] == ["False", "True", "True"]


def test_rekeys_and_order_over_two_displays(tmp_path, dossier_bin):
    """"`rekey` = the field already had an entry on this page (this string's Entry page: all displays together).
    `order` = 1-based position among the entries of the same page kind and string"; Entry total without Done is
    "display → leaving the page (... if the page is shown again, its last leaving)"."""
    log = entry_log()
    log.key(300, "a", "tap", "a", 1).key(400, "b", "tap", "ab", 2).page(500, "verify", 1)
    log.page(600, "entry", 1).key(700, "a", "tap", "a", 2).key(800, "a", "tap", "a", 3)
    log.key(900, "x", "tap", "x", 2).page(1000, "memorize", 2)
    R, pj, _ = run(tmp_path, dossier_bin, log)
    s1 = pj["strings"][0]
    assert [(e["field"], e["order"], e["rekey"]) for e in s1["entries"]] == \
        [(1, 1, False), (2, 2, False), (2, 3, True), (3, 4, False), (2, 5, True)]
    assert (s1["entryTotalMs"], s1["rekeys"], s1["completed"]) == (1000 - 200, 2, True)


def test_abandoned_on_the_entry_page(tmp_path, dossier_bin):
    """"only an Entry page still open when the log ends (an abandoned session) is not completed"; Entry total
    `end_ms` "for a page left without Done ... else the log's last event"; incomplete session end = "the last
    event"."""
    log = entry_log().key(300, "a", "tap", "a", 1).key(400, "b", "tap", "ab").ev(650, "touch", x=3, y=4)
    R, pj, _ = run(tmp_path, dossier_bin, log)
    s1 = pj["strings"][0]
    assert (s1["completed"], s1["entryTotalMs"], pj["complete"], pj["sessionTotalMs"]) == (False, 450, False, 640)
    (tot,) = [r for r in rolled(tmp_path, "A") if r["phase"] == "Entry" and r["item"] == "total"]
    assert (tot["text"], tot["start_ms"], tot["end_ms"], tot["duration_ms"]) == ("not done", "200", "650", "450")


def test_events_after_close_count_for_nothing(tmp_path, dossier_bin):
    """"`close` stops the walk: events after it are ignored entirely (a warning each) — they count for nothing
    and do not move the end of the session or of the page"."""
    log = entry_log().key(300, "a", "tap", "a", 1).key(400, "b", "tap", "ab").ev(450, "close")
    log.key(500, "c", "tap", "abc").page(900, "recall").page(950, "thankyou")
    R, pj, proc = run(tmp_path, dossier_bin, log)
    assert (pj["complete"], pj["sessionTotalMs"], pj["strings"][0]["entryTotalMs"]) == (False, 440, 250)
    out = proc.stdout + proc.stderr
    assert all(f"data/logs/A.jsonl:{n}: warning" in out for n in (8, 9, 10))


def test_recall_exact_matching(tmp_path, dossier_bin):
    """"each with `matches` = the number of the first string it equals exactly (spaces count: `" abc123"` is
    False)"; NFC forms are equal; "case, a space anywhere, compatibility forms (`ﬁ` ≠ `fi`, fullwidth `Ｑ` ≠ `Q`)"
    differ; "`stringsRecalled`: the distinct string numbers matched (a string typed twice counts once)"."""
    strings = ["\u00e41", "fi", "Q", "abc", "e\u0301", "x", "y", "z", "w", "v"]
    log = Log().page(10, "memorize", 1).page(100, "recall")
    for f, txt in enumerate([" abc", "ABC", "a\u03081", "\ufb01", "\uff31", "abc", "\u00e9", "\u00e41", "abc "], 1):
        log.key(100 + 10 * f, "k", "tap", txt, f)
    log.page(400, "thankyou")
    R, pj, _ = run(tmp_path, dossier_bin, log, strings)
    assert [f.get("matches") for f in pj["recall"]["fields"]] == [None, None, 1, None, None, 4, 5, 1, None]
    assert sorted(pj["recall"]["stringsRecalled"]) == [1, 4, 5]
    assert (pj["recall"]["totalMs"], pj["sessionTotalMs"]) == (190 - 100, 190 - 10)


def test_session_end_when_nothing_typed_on_recall(tmp_path, dossier_bin):
    """"session end | complete: the last Recall keystroke, or, if nothing was typed there, the time the Recall
    page was left (the `t` of the next `page` event — Thank You)"; Recall total "Empty when nothing was typed"."""
    log = Log().page(10, "memorize", 1).page(100, "recall").ev(150, "touch", x=1, y=1).page(300, "thankyou")
    R, pj, _ = run(tmp_path, dossier_bin, log)
    assert (pj["sessionEnd"], pj["sessionTotalMs"], pj["recall"].get("totalMs")) == (300, 290, None)


def test_dynamics_overlap_ties_and_duplicates(tmp_path, dossier_bin):
    """"each `up` closes the earliest open keystroke with the same label (an `up` without one is ignored) ...
    UD negative when keys overlap ... medians (the mean of the two middle values for an even count)"."""
    log = entry_log()
    log.key(300, "Shift", "down", "", 1).key(350, "Q", "down", "Q").key(400, "Shift", "up").key(410, "Q", "up")
    log.key(500, "a", "down", "Qa").key(500, "a", "down", "Qaa")         # a duplicated press, equal times
    log.key(560, "a", "up").key(600, "z", "up").key(601, "a", "up").key(700, "b", "tap", "Qaab")
    R, pj, _ = run(tmp_path, dossier_bin, log)
    dyn = pj["strings"][0]["entries"][0]["dynamics"]
    assert (dyn["medianHold"], dyn["medianUpDown"], dyn["medianDownDown"]) == (80, 20, 100)


def test_zero_duration_entries_and_grapheme_lengths(tmp_path, dossier_bin):
    """"Lengths of texts are in characters = extended grapheme clusters"; a one-key entry has durationMs 0
    (first to last key press); a key that adds one cluster of several code points is not one-tap."""
    fam = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    strings = [fam + "e\u0301\U0001F44D\U0001F3FD"] + STRINGS[1:]
    log = entry_log().key(300, "f", "tap", fam, 1).key(300, "e", "tap", fam + "e\u0301")
    log.key(300, "t", "tap", strings[0]).key(400, "x", "tap", "x", 2).key(500, "\u232b", "tap", "", 2)
    log.key(600, "q", "tap", "q", 3).ev(700, "button", button="done")
    R, pj, _ = run(tmp_path, dossier_bin, log, strings)
    s1 = pj["strings"][0]
    assert s1["length"] == glen(strings[0]) == 3
    assert [(e["durationMs"], e["oneTap"], e["deletions"]) for e in s1["entries"]] == \
        [(0, False, 0), (100, False, 1), (0, False, 0)]
    assert s1["meanEntrySeconds"] == pytest.approx(100 / 3 / 1000)


def test_appendix_a_worked_example(tmp_path, dossier_bin):
    """"Worked example: Appendix A": "12 key downs from 33612 to 46650 ms (entry time 13038 ms); text `5c2'Qe`,
    correct; 2 deletions ...; H median 144 ms, DD median 320 ms, UD median 168 ms, UU median 301 ms ... the
    session is incomplete with total 46330 ms"."""
    import shutil
    strings = (pathlib_root() / "Examples/demo/data/recall/strings.txt").read_text(encoding="utf-8").split("\n")[:10]
    write_project(tmp_path, {}, strings)
    shutil.copy("/work/shared/fixtures/recall/desktop-raw-appendix-a.csv", tmp_path / "data/logs/p2.csv")
    build(dossier_bin, tmp_path)
    pj = pjson(tmp_path, "p2")
    (e,) = pj["strings"][0]["practice"]
    assert (e["keystrokes"], e["start"], e["end"], e["durationMs"], e["text"], e["correct"], e["deletions"]) == \
        (12, 33612, 46650, 13038, "5c2'Qe", True, 2)
    d = e["dynamics"]
    assert (d["medianHold"], d["medianDownDown"], d["medianUpDown"], d["medianUpUp"]) == (144, 320, 168, 301)
    assert (pj["complete"], pj["sessionTotalMs"]) == (False, 46330)


def pathlib_root():
    import pathlib
    return pathlib.Path("/work/main")
