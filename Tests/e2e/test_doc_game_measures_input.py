"""Independent check of the telemetry reading rules of docs/game-telemetry.md ("JSON Lines format", `survey`,
`session`, "Ranges", "Edge cases") and docs/json-lines.md ("Lines", "Strictness", "Positions"), from the docs:
every documented refusal exits 1 and names `file:line` (`file:line:column` for JSON syntax), and the accepted
oddities (BOM, CRLF, blank lines, `1.0`/`2e3` integers, repeated identical records, a survey completed later,
players split over files) are read as the docs say, checked through the measures they change.
"""
import subprocess

import pytest

from test_doc_game_measures import analyze, measures, player_of, session, survey, write_jsonl

SURVEY = '{"type":"survey","player":"a","complete":true,"diagnosed":false,"age":20,"gender":"male"}'


def ses(extra="", **over):
    fields = {"session": 1, "start": 0, "end": 5000, "score": 0}
    fields.update(over)
    body = ",".join(f'"{k}":{v}' for k, v in fields.items())
    return '{"type":"session","player":"a",' + body + ("," + extra if extra else "") + "}"


def run(dossier_bin, path):
    return subprocess.run([dossier_bin, "game", "analyze", "--json", "--quiet", str(path)], capture_output=True,
                          text=True, timeout=60)


REFUSED = [
    (ses('"taps":[5,3]'), "time 3 goes backwards (previous 5)"),
    (ses('"taps":[5,-5]'), "time -5 is before the session start"),
    (ses('"taps":[5001]'), None),
    (ses('"obstacles":[[1000,999,"crate"]]'), None),
    (ses('"obstacles":[[1000,1000,""]]'), None),
    (ses('"obstacles":[[1000,1000,"' + "k" * 33 + '"]]'), None),
    (ses('"volume":[[10,2]]'), None),
    (ses('"bogus":1'), None),
    (ses(score="1.5"), None),
    (ses(session="0"), None),
    (ses(session="100001"), None),
    (ses(end="86400001"), None),
    (ses(score="1000000001"), None),
    (ses(start="9007199254740992", end="9007199254740992"), None),
    (ses(start="10", end="5"), None),
    ('{"type":"survey","player":"a","complete":true,"diagnosed":false,"medicated":true,"age":20,"gender":"male"}',
     None),
    ('{"type":"survey","player":"b","complete":true,"diagnosed":false,"age":2,"gender":"male"}', None),
    ('{"type":"survey","player":"b","complete":true,"diagnosed":false,"age":121,"gender":"male"}', None),
    ('{"type":"survey","player":"b","complete":true,"diagnosed":false,"age":30,"gender":"Male"}', None),
    ('{"type":"survey","player":"b","complete":true,"diagnosed":"no","age":30,"gender":"male"}', None),
    ('{"type":"survey","player":"b","complete":true,"age":30,"gender":"male"}', None),
    ('{"type":"survey","player":"b","complete":true,"diagnosed":true,"age":30,"gender":"male"}', None),
    ('{"type":"survey","player":"a","complete":true,"diagnosed":true,"medicated":false,"age":20,"gender":"male"}',
     None),
    ('{"type":"survey","player":"\u00e9","complete":false}', None),
    ('{"type":"survey","player":"' + "a" * 65 + '","complete":false}', None),
    ('{"type":"survey","player":"","complete":false}', None),
]


@pytest.mark.parametrize("line,message", REFUSED, ids=range(len(REFUSED)))
def test_refused_with_file_and_line(tmp_path, dossier_bin, line, message):
    path = tmp_path / "cohort.jsonl"
    path.write_text(SURVEY + "\n\n" + line + "\n", encoding="utf-8")
    proc = run(dossier_bin, path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "cohort.jsonl:3:" in proc.stderr, proc.stderr
    if message:
        assert message in proc.stderr


SYNTAX = [
    ('{"type":"survey","player":"a\u0000', 29, "a raw control character U+0000 inside a string "
     "(JSON needs it escaped, e.g. \\u0000)"),
    ('{"type":"survey","complete":false,"player":"\u00e4\u00e4","complete":false}', 49,
     "the field 'complete' appears twice"),
    ('[1]', 1, "not a JSON object: the line is an array (each line must be one {\u2026} record)"),
    ('{"type":"survey","player":"a","complete":false}x', 48, "text after the end of the JSON value: 'x'"),
    ('{"type":"survey","player":"a","complete":false,"age":123456789012345678901}', 54,
     "the number has 21 digits: too large (at most 20 before a fraction)"),
    ('{"type":"survey","player":"a","complete":false,"age":1e400}', 54,
     "the number is too large for a double ('1e400')"),
    ('{"type":"survey","player":"a","complete":false', None, "the line ends inside an object (a '}' is missing)"),
    ('\ufeff{"type":"survey","player":"b","complete":false}', 1, None),
]


@pytest.mark.parametrize("line,column,message", SYNTAX, ids=range(len(SYNTAX)))
def test_json_syntax_errors_name_the_column(tmp_path, dossier_bin, line, column, message):
    path = tmp_path / "cohort.jsonl"
    path.write_text(SURVEY + "\n\n" + line + "\n", encoding="utf-8")
    proc = run(dossier_bin, path)
    assert proc.returncode == 1
    prefix = "cohort.jsonl:3:" + (f"{column}:" if column else "")
    assert prefix in proc.stderr, proc.stderr
    if message:
        assert message in proc.stderr, proc.stderr


def test_accepted_forms_read_as_documented(tmp_path, dossier_bin):
    """BOM at the start, CRLF, blank and whitespace lines, `1.0`, `2e3`, a null optional survey field, missing lists,
    a kind of 32 non-ASCII characters."""
    kind = "\u00e4" * 32
    lines = [
        "\ufeff" + SURVEY.replace('"age":20', '"medicated":null,"age":20.0'),
        " \t",
        '{"type":"session","player":"a","session":1.0,"start":0,"end":2e3,"score":5,'
        f'"obstacles":[[1000,1000,"{kind}"]],"taps":[1200,1200],"collisions":[],"volume":[[3,1]]}}',
        "",
    ]
    path = tmp_path / "ok.jsonl"
    path.write_bytes("\r\n".join(lines).encode())
    analysis = analyze(dossier_bin, path)
    m = player_of(analysis, "a")["measures"]
    assert (m["playedMs"], m["hits"], m["commissions"], m["hitRTMean"], m["volumeToggles"]) == (2000, 1, 1, 200, 1)
    assert player_of(analysis, "a")["survey"]["age"] == 20


def test_repeats_and_survey_replacement(tmp_path, dossier_bin):
    """Identical session twice: once; an incomplete survey is replaced by a complete one, never the other way."""
    s1 = session("a", 1, 4000, [1000, 2000], [1300, 2500])
    s2 = session("a", 2, 4000, [1000], [1400])
    recs = [survey("a", complete=False, age=40), s1, survey("a", age=31, gender="other"), s1,
            survey("a", complete=False, age=50), s2, survey("a", age=31, gender="other")]
    analysis = analyze(dossier_bin, write_jsonl(tmp_path / "a.jsonl", recs))
    p = player_of(analysis, "a")
    assert p["group"] == "control" and p["survey"]["age"] == 31 and p["survey"]["complete"] is True
    assert p["measures"]["sessions"] == 2 and p["measures"]["hits"] == measures([s1, s2])["hits"] == 3


def test_different_session_with_the_same_number_is_refused(tmp_path, dossier_bin):
    recs = [survey("a"), session("a", 1, 4000, [1000], [1300]), session("a", 1, 4000, [1000], [1301])]
    proc = run(dossier_bin, write_jsonl(tmp_path / "d.jsonl", recs))
    assert proc.returncode == 1 and "d.jsonl:3:" in proc.stderr


def test_players_split_over_files(tmp_path, dossier_bin):
    one = write_jsonl(tmp_path / "one.jsonl", [survey("a"), session("a", 2, 3000, [1000], [1250])])
    two = write_jsonl(tmp_path / "two.jsonl", [session("a", 1, 3000, [1000], [1500])])
    analysis = analyze(dossier_bin, one, two)
    m = player_of(analysis, "a")["measures"]
    assert m["sessions"] == 2 and m["lastScore"] == 0 and m["hitRTMean"] == 375
    assert m["practiceSlope"] == -250     # session 1: 500 ms, session 2: 250 ms, by number not by file order
    bad = write_jsonl(tmp_path / "three.jsonl", [survey("a", diagnosed=True, medicated=True)])
    proc = run(dossier_bin, bad)
    assert proc.returncode == 0
    proc = subprocess.run([dossier_bin, "game", "analyze", "--json", str(one), str(bad)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1 and "three.jsonl:1:" in proc.stderr
