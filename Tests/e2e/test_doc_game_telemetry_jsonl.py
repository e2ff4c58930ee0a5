"""docs/game-telemetry.md, "JSON Lines format", "Ranges" and "Edge cases" (with the
scanner rules of docs/json-lines.md): what `dossier game analyze` accepts and refuses, and
the messages with file, line and column."""
import json
import os
import re
import subprocess

import pytest
from conftest import dossier_path  # noqa: E402

BIN = dossier_path()   # (DOSSIER_BIN, else the built one)
SURVEY = {"type": "survey", "player": "p1", "complete": True, "diagnosed": False, "age": 30, "gender": "female"}
MAX = 2 ** 53 - 1


def line(d):
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False)


def sess(**kw):
    d = {"type": "session", "player": "p1", "session": 1, "start": 1000, "end": 11000, "score": 5,
         "obstacles": [[2000, 2000, "crate"], [3000, 1000, "bird"]], "taps": [2400, 3500], "jumps": [2400],
         "collisions": [], "volume": [[5000, 0]], "errors": [[6000, "oops"]]}
    d.update(kw)
    return line(d)


def analyze(tmp_path, text, name="cohort.jsonl"):
    (tmp_path / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    p = subprocess.run([BIN, "game", "analyze", "--json", name], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    return p


def refused(tmp_path, text, where, message):
    """Exit 1 and `<file>:<where>: <message>` (the file as given or as an absolute path)."""
    p = analyze(tmp_path, text)
    assert p.returncode == 1, p.stdout[:200]
    m = re.search(r"(\S*cohort\.jsonl):(\d+(?::\d+)?): (.*)", p.stderr)
    assert m, p.stderr
    assert (m.group(2), m.group(3)) == (where, message), p.stderr
    return p


def players(p):
    assert p.returncode == 0, p.stderr
    return {x["id"]: x for x in json.loads(p.stdout)["players"]}


S = line(SURVEY)

# MARK: - the scanner's messages (the table of docs/game-telemetry.md and docs/json-lines.md)


def test_goes_backwards_names_file_line_session_and_tap(tmp_path):
    refused(tmp_path, S + "\n" + sess(taps=[2400, 2300]), "2",
            "session 1 tap 2: time 2300 goes backwards (previous 2400)")


def test_a_negative_time_is_before_the_session_start(tmp_path):
    p = refused(tmp_path, S + "\n" + sess(taps=[-5, 2300]), "2", "session 1 tap 1: time -5 is before the session start")
    assert "backwards" not in p.stderr


@pytest.mark.parametrize("text, where, message", [
    ('{"type":"survey","player":"p2","complete":false,"x":"a\u0000b"}', "1:55",
     "a raw control character U+0000 inside a string (JSON needs it escaped, e.g. \\u0000)"),
    ('{"type":"survey","player":"p2","complete":false,"age":123456789012345678901}', "1:55",
     "the number has 21 digits: too large (at most 20 before a fraction)"),
    ('{"type":"survey","player":"p2","complete":false,"age":1e400}', "1:55",
     "the number is too large for a double ('1e400')"),
    ("[1,2]", "1:1", "not a JSON object: the line is an array (each line must be one {…} record)"),
    ("12", "1:1", "not a JSON object: the line is a number"),
    ('"x"', "1:1", "not a JSON object: the line is a string"),
    ("true", "1:1", "not a JSON object: the line is a bare word"),
    (S + "x", f"1:{len(S) + 1}", "text after the end of the JSON value: 'x'"),
    ('{"type":"survey","player":"p2', "1:30", "a string is not closed before the end of the line"),
    ('{"type":"survey","player":"p2"', "1:31", "the line ends inside an object (a '}' is missing)"),
    ('{"type":"survey","player":"p2","score":1,"score":2}', "1:42", "the field 'score' appears twice"),
    ('{"type":"survey","player":"p2","complete":false,"age":01}', "1:55", "not a valid JSON number ('01')"),
    ('{"type":"survey","player":"p2","ty\\u0070e":"x"}', "1:32", "the field 'type' appears twice"),
    ('{"a":' + "[" * 33 + "]" * 33 + "}", "1:37",
     "values are nested too deeply (at most 32 arrays and objects inside each other)"),
    ('{"type":"survey","player":"p\\ud800","complete":false}', "1:29",
     "a lone surrogate in a \\u escape (a \\uD800–\\uDBFF must be followed by a \\uDC00–\\uDFFF)"),
])
def test_a_line_that_is_not_one_json_object_gets_its_first_problem(tmp_path, text, where, message):
    refused(tmp_path, text, where, message)


def test_columns_count_unicode_characters_not_bytes(tmp_path):
    refused(tmp_path, '{"type":"survey","player":"p","x":"ééé","x":1}', "1:41", "the field 'x' appears twice")


def test_a_byte_that_is_not_utf8_is_named_by_its_byte_column(tmp_path):
    raw = sess(errors=[[6000, "cafX"]]).encode()
    col = raw.index(b"X") + 1
    refused(tmp_path, S.encode() + b"\n" + raw.replace(b"X", b"\xe9"), "2",
            f"byte {col} of the line (0xE9) is not UTF-8; save the file as UTF-8")


def test_nesting_of_exactly_32_levels_passes_the_scanner(tmp_path):
    p = refused(tmp_path, '{"type":"survey","player":"p2","complete":false,"x":' + "[" * 31 + "]" * 31 + "}", "1",
                "unknown field 'x'")
    assert "nested" not in p.stderr


def test_blank_lines_crlf_and_a_leading_bom_are_accepted_and_counted(tmp_path):
    text = "\ufeff" + S + "\r\n \t\r\n\r\n" + sess() + "\r\n"
    assert players(analyze(tmp_path, text))["p1"]["measures"]["sessions"] == 1
    refused(tmp_path, S + "\n \t\n\n" + sess(taps=[5, 1]) + "\n", "4", "session 1 tap 2: time 1 goes backwards (previous 5)")


def test_a_bom_after_the_start_is_refused(tmp_path):
    p = analyze(tmp_path, S + "\n\ufeff" + sess())
    assert p.returncode == 1 and re.search(r"cohort\.jsonl:2:1: ", p.stderr), p.stderr


def test_a_line_of_4_mib_is_read_and_one_byte_more_is_refused(tmp_path):
    limit = 4 * 1024 * 1024
    head = S[:-1]
    ok = head + " " * (limit - len(head) - 1) + "}"
    assert len(ok) == limit
    assert "p1" in players(analyze(tmp_path, ok + "\r\n"))
    p = analyze(tmp_path, head + " " * (limit - len(head)) + "}\n")
    assert p.returncode == 1 and re.search(r"cohort\.jsonl:1(:\d+)?: the line is longer than 4 MiB", p.stderr), p.stderr[:300]


def test_unknown_fields_are_errors_with_file_and_line(tmp_path):
    p = analyze(tmp_path, S + "\n" + sess(colour=1))
    assert p.returncode == 1 and re.search(r"cohort\.jsonl:2(:\d+)?: .*colour", p.stderr), p.stderr


# MARK: - whole numbers, booleans and ranges

@pytest.mark.parametrize("kw", [{"session": 0}, {"session": 100001}, {"start": 10, "end": 9},
                                {"start": 0, "end": 86400001, "obstacles": [], "taps": [], "jumps": [], "volume": [], "errors": []},
                                {"score": -1}, {"score": 1000000001}, {"score": 1.5}, {"score": True},
                                {"start": MAX + 1 - 20000, "end": MAX + 1}, {"start": -1},
                                {"taps": [2400, 10001]}, {"seed": 4294967296}, {"seed": -1},
                                {"obstacles": [[2000, 2000, "crate"], [3000, 999, "bird"]]},
                                {"obstacles": [[2000, 1999, "crate"]]}, {"obstacles": [[2000, 2000, "k" * 33]]},
                                {"obstacles": [[2000, 2000, ""]]}, {"volume": [[10, 2]]}])
def test_values_outside_the_ranges_are_refused_with_file_and_line(tmp_path, kw):
    p = analyze(tmp_path, S + "\n" + sess(**kw))
    assert p.returncode == 1 and re.search(r"cohort\.jsonl:2(:\d+)?: ", p.stderr), p.stderr


@pytest.mark.parametrize("kw", [{"session": 100000}, {"start": MAX - 20000, "end": MAX}, {"score": 1000000000},
                                {"score": 0}, {"taps": [2400, 10000]}, {"taps": [2400, 2400]}, {"seed": 4294967295},
                                {"seed": 0}, {"obstacles": [[2000, 2000, "k" * 32]]},
                                {"start": 0, "end": 86400000, "obstacles": [], "taps": [], "jumps": [], "volume": [], "errors": []}])
def test_values_at_the_edges_of_the_ranges_are_accepted(tmp_path, kw):
    assert players(analyze(tmp_path, S + "\n" + sess(**kw)))["p1"]["measures"]["sessions"] == 1


def test_whole_numbers_may_be_written_1_0_and_2e3(tmp_path):
    text = S.replace('"age":30', '"age":3e1') + "\n" + sess().replace('"session":1', '"session":1.0').replace('"score":5', '"score":2e3')
    p = players(analyze(tmp_path, text))["p1"]
    assert p["survey"]["age"] == 30 and p["measures"]["bestScore"] == 2000


@pytest.mark.parametrize("survey", [
    {"complete": 1}, {"complete": True, "age": 30, "gender": "male"},
    {"complete": True, "diagnosed": True, "age": 30, "gender": "male"},
    {"complete": True, "diagnosed": False, "medicated": True, "age": 30, "gender": "male"},
    {"complete": True, "diagnosed": False, "age": 2, "gender": "male"},
    {"complete": True, "diagnosed": False, "age": 121, "gender": "male"},
    {"complete": True, "diagnosed": False, "age": 30, "gender": "Male"},
    {"complete": True, "diagnosed": False, "gender": "male"},
    {"complete": True, "diagnosed": False, "age": 30},
    {"complete": False, "age": 30, "player": "a" * 65}, {"complete": False, "player": "a.b"}, {"complete": False, "player": ""},
])
def test_survey_rules(tmp_path, survey):
    d = {"type": "survey", "player": "p2", **survey}
    p = analyze(tmp_path, S + "\n" + line(d))
    assert p.returncode == 1 and re.search(r"cohort\.jsonl:2(:\d+)?: ", p.stderr), p.stderr


def test_survey_edges_and_optional_nulls(tmp_path):
    rows = [dict(SURVEY, player="a" * 64, age=3), dict(SURVEY, player="Z_-9", age=120, gender="other"),
            {"type": "survey", "player": "n", "complete": False, "diagnosed": None, "medicated": None, "age": None,
             "gender": None}]
    got = players(analyze(tmp_path, "\n".join(map(line, rows))))
    assert got["a" * 64]["survey"]["age"] == 3 and got["Z_-9"]["survey"]["gender"] == "other"
    assert got["n"]["survey"] == {"complete": False}


def test_survey_sequences(tmp_path):
    incomplete = line({"type": "survey", "player": "p1", "complete": False, "age": 31})
    for text in (incomplete + "\n" + S, S + "\n" + incomplete, S + "\n" + S):
        assert players(analyze(tmp_path, text))["p1"]["survey"] == {k: v for k, v in SURVEY.items() if k not in ("type", "player")}
    p = analyze(tmp_path, S + "\n" + line(dict(SURVEY, gender="male")))
    assert p.returncode == 1 and re.search(r"cohort\.jsonl:2(:\d+)?: ", p.stderr), p.stderr


def test_a_session_twice_only_with_identical_data(tmp_path):
    assert players(analyze(tmp_path, S + "\n" + sess() + "\n" + sess()))["p1"]["measures"]["sessions"] == 1
    p = analyze(tmp_path, S + "\n" + sess() + "\n" + sess(score=6))
    assert p.returncode == 1 and re.search(r"cohort\.jsonl:3(:\d+)?: ", p.stderr), p.stderr


def test_missing_lists_mean_empty(tmp_path):
    text = S + "\n" + line({"type": "session", "player": "p1", "session": 1, "start": 0, "end": 100, "score": 0})
    m = players(analyze(tmp_path, text))["p1"]["measures"]
    assert (m["sessions"], m["encounters"], m["jumps"], m["collisions"], m["volumeToggles"], m["errorLogs"]) == (1, 0, 0, 0, 0, 0)


def test_control_characters_in_text_are_kept(tmp_path):
    text = S + "\n" + sess(errors=[[6000, "a\u0000b\u0007"]], obstacles=[[2000, 2000, "cr\u0001te"]], taps=[], jumps=[])
    assert players(analyze(tmp_path, text))["p1"]["measures"]["errorLogs"] == 1


def test_players_split_over_files_and_errors_name_the_right_file(tmp_path):
    (tmp_path / "a.jsonl").write_text(S + "\n")
    (tmp_path / "b.jsonl").write_text("\n" + sess() + "\n" + sess(session=2, taps=[9, 3]) + "\n")
    p = subprocess.run([BIN, "game", "analyze", "--json", "a.jsonl", "b.jsonl"], cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 1 and re.search(r"\bb\.jsonl:3: session 2 tap 2: time 3 goes backwards \(previous 9\)", p.stderr), p.stderr
    (tmp_path / "b.jsonl").write_text("\n" + sess() + "\n" + sess(session=2) + "\n")
    p = subprocess.run([BIN, "game", "analyze", "--json", "a.jsonl", "b.jsonl"], cwd=tmp_path, capture_output=True, text=True)
    got = players(p)["p1"]
    assert got["measures"]["sessions"] == 2 and got["survey"]["gender"] == "female"
