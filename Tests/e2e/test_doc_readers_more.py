"""docs/json-lines.md, continued (see test_doc_readers.py for the reference scanner).

The rest of the recall log rules (byte-order marks elsewhere, UTF-8, the 4 MiB line, the
field-type messages, fast path against plain path), a seeded differential fuzz of damaged
lines, game telemetry values and positions (`dossier game analyze`), whole JSON files
(`dossier experiences validate`), the vault's Bitwarden JSON and the `JSONOut` writer
(`dossier vault export --format bitwarden-json`), each against the document alone.
"""
import concurrent.futures
import json
import math
import random
import re
import shutil

import pytest

from test_doc_readers import (CARRIER, HEADER, DocError, Scanner, assert_positioned, check_carrier,
                              column, doc_scan_line, exact, recall_error, run)


@pytest.mark.parametrize("line,col", [(b'\xef\xbb\xbf{"t":0,"type":"close"}', 1),
                                      (b'{"t":0,"type":"close"}\xef\xbb\xbf', 23),
                                      (b'{"t":0,"type":"close","a":\xef\xbb\xbf1}', 27)])
def test_a_bom_anywhere_else_outside_a_string_is_refused(tmp_path, line, col):
    rc, err, path = recall_error(tmp_path, line + b"\n")
    assert rc == 1
    assert_positioned(err, path, 2, None, {col})


def test_a_bom_inside_a_string_is_text(tmp_path):
    rc, err, _ = recall_error(tmp_path, b'{"t":0,"type":"close","a":"\xef\xbb\xbf"}\n')
    assert rc == 0, err


def test_recall_checks_utf8_per_line_first(tmp_path):
    """recall-events.md: `file:line: byte N of the line (0xC3) is not UTF-8; …`."""
    line = b'{"t":0,"type":"close","a":"x\xc3"}'
    rc, err, path = recall_error(tmp_path, line + b"\n")
    assert rc == 1
    assert re.search(re.escape(path) + r":2: byte 29 of the line \(0xC3\) is not UTF-8; ", err), err




@pytest.mark.parametrize("bad", [b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff"])
def test_overlong_surrogate_and_out_of_range_utf8_are_refused(tmp_path, bad):
    line = b'{"t":0,"type":"close","a":"' + bad + b'"}'
    rc, err, path = recall_error(tmp_path, line + b"\n")
    assert rc == 1
    m = re.search(re.escape(path) + r":2: byte (\d+) of the line \(0x([0-9A-F]{2})\) is not UTF-8", err)
    assert m, err
    assert int(m.group(1)) in (28, 29) and int(m.group(2), 16) == bad[int(m.group(1)) - 28]


@pytest.mark.parametrize("extra,ok", [(0, True), (1, False)])
def test_the_4_mib_line_limit(tmp_path, extra, ok):
    pre, suf = b'{"t":0,"type":"close","zz":"', b'"}'
    line = pre + b"a" * (4 * 1024 * 1024 - len(pre) - len(suf) + extra) + suf
    rc, err, path = recall_error(tmp_path, line + b"\n")
    if ok:
        assert rc == 0, err
    else:
        assert rc == 1
        assert re.search(re.escape(path) + r":2:(\d+:)? the line is longer than 4 MiB", err), err


def test_the_4_mib_limit_does_not_count_the_cr_of_crlf(tmp_path):
    pre, suf = b'{"t":0,"type":"close","zz":"', b'"}'
    line = pre + b"a" * (4 * 1024 * 1024 - len(pre) - len(suf)) + suf
    rc, err, _ = recall_error(tmp_path, line + b"\r\n")
    assert rc == 0, err


@pytest.mark.parametrize("line,field,col", [
    (b'{"t":"5","type":"close"}', '"t" must be a whole number', {6}),
    (b'{ "t" : 1.5,"type":"close"}', '"t" must be a whole number', {9}),
    (b'{"t":0,"type":"key","key":5,"text":"a"}', '"key" must be a string', {27}),
    (b'{"t":0,"type":"fields","values":[1]}', '"values" must be a list of strings', {33, 34}),  # list, element
])
def test_wrong_field_types_name_the_field_and_the_column_of_the_value(tmp_path, line, field, col):
    """json-lines.md Strictness names the field; Positions: the recall log reader's field errors name
    the value's column too (`log.jsonl:2:6: "t" must be a whole number`)."""
    rc, err, path = recall_error(tmp_path, line + b"\n")
    assert rc == 1
    m = re.search("^" + re.escape(f"{path}:2:") + r"(\d+): " + re.escape(field) + "$", err, re.M)
    assert m and int(m.group(1)) in col, err


def test_fast_path_and_plain_path_agree_on_whitespace(tmp_path):
    """A line the fast path takes and the same line with white space read the same."""
    lines = [b'{"t":0,"type":"page","page":"welcome"}', b'{"t":10,"type":"touch","x":-0,"y":1.25}',
             b'{"t":20,"type":"close"}']
    (tmp_path / "a.jsonl").write_bytes(HEADER + b"\n".join(lines) + b"\n")
    spaced = [ln.replace(b",", b" ,\t").replace(b":", b": ") for ln in lines]
    (tmp_path / "b.jsonl").write_bytes(HEADER + b"\n".join(spaced) + b"\n")
    a, b = run("recall", "parse", tmp_path / "a.jsonl"), run("recall", "parse", tmp_path / "b.jsonl")
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout, (a.stderr, b.stderr)
    rc, err, path = recall_error(tmp_path, b'{"t":0,"type":"page","page":"welcome","t":0}\n')
    assert rc == 1
    assert_positioned(err, path, 2, exact("the field 't' appears twice"), {39})


# MARK: - differential fuzz (fixed seed)

PIECES = [b"0", b"-0", b"01", b"1.", b".5", b"1e", b"1e400", b"1" * 21, b"tru", b"True", b"null", b"\\u",
          b"\\uD800", b"\\uDC00", b"\\x", b"\x01", b"\t", b"\x0c", b"[", b"]", b"{", b"}", b",", b":", b'"',
          b" ", b"\r", b"\xc3\xa9", b"\xef\xbb\xbf", b"\\u00e9", b"+", b"-", b"e", b"E", b"\\"]


def random_value(rng, depth=0):
    k = rng.randrange(8 if depth < 4 else 4)
    if k == 0:
        return rng.choice([b"0", b"-12", b"3.25", b"1e5", b"-0.5E-3", b"123456789012"])
    if k == 1:
        return rng.choice([b"true", b"false", b"null"])
    if k in (2, 3):
        return b'"' + rng.choice([b"ab", b"\\n\\t", b"\\u0041", b"\xc3\xa9x", b"\\uD83D\\uDE00", b"", b"\\/"]) + b'"'
    if k in (4, 5):
        return b"[" + b",".join(random_value(rng, depth + 1) for _ in range(rng.randrange(4))) + b"]"
    keys = rng.sample([b"a", b"b", b"c", b"\\u0061", b"\xc3\xa9", b"d"], rng.randrange(4))
    return b"{" + b",".join(b'"' + k + b'":' + random_value(rng, depth + 1) for k in keys) + b"}"


def fuzz_cases(n=320, seed=20261129):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        v = bytearray(random_value(rng))
        for _ in range(rng.randrange(1, 3)):
            op, pos = rng.randrange(3), rng.randrange(len(v) + 1)
            if op == 0:
                v[pos:pos] = rng.choice(PIECES)
            elif op == 1 and v:
                del v[min(pos, len(v) - 1)]
            else:
                v[pos:pos + 1] = rng.choice(PIECES)
        v = bytes(v).replace(b"\n", b" ") or b"0"
        try:
            v.decode("utf-8")
        except UnicodeDecodeError:
            v = v.decode("utf-8", "ignore").encode() or b"0"   # the reader's UTF-8 check runs first
        out.append(v)
    return out


def test_differential_fuzz_against_the_document(tmp_path):
    cases = fuzz_cases()
    refused = sum(1 for c in cases if _refused(CARRIER % c))
    assert 80 < refused < len(cases) - 40, "the fuzz must exercise both sides"

    def one(k):
        try:
            check_carrier(tmp_path, cases[k], name=f"f{k}.jsonl")
            return None
        except AssertionError as e:
            return f"case {k} {cases[k]!r}: {e}"

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        failures = [f for f in pool.map(one, range(len(cases))) if f]
    assert not failures, f"{len(failures)} disagreements, e.g.:\n" + "\n".join(failures[:8])


def _refused(line):
    try:
        doc_scan_line(line)
        return False
    except DocError:
        return True


# MARK: - game telemetry (docs/game-telemetry.md: the scanner's rules, file:line:column)

def session(score=b"5", player=b'"p1"', start=b"0", end=b"1000", extra=b""):
    return (b'{"type":"session","player":' + player + b',"session":1,"start":' + start + b',"end":' + end +
            b',"score":' + score + extra + b"}")


def analyze(tmp_path, body: bytes):
    p = tmp_path / "cohort.jsonl"
    p.write_bytes(body)
    r = run("game", "analyze", "--json", p)
    return r, str(p)


@pytest.mark.parametrize("text,value", [(b"2e3", 2000), (b"1.0", 1), (b"20e-1", 2), (b"1E2", 100), (b"-0", 0),
                                        (b"0.5e1", 5), (b"1000000000", 10 ** 9)])
def test_whole_numbers_in_telemetry_read_as_the_document_says(tmp_path, text, value):
    r, _ = analyze(tmp_path, session(score=text) + b"\n")
    assert r.returncode == 0, r.stderr
    (player,) = json.loads(r.stdout)["players"]
    assert player["measures"]["bestScore"] == value


def test_integers_up_to_2_53_minus_1_are_exact(tmp_path):
    r, _ = analyze(tmp_path, session(start=b"9007199254740000", end=b"9007199254740991") + b"\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["players"][0]["measures"]["perSession"][0]["durationMs"] == 991


@pytest.mark.parametrize("start", [b"9007199254740992", b"1.5", b"99999999999999999999", b'"0"'])
def test_a_non_whole_or_too_large_integer_is_a_format_error_without_column(tmp_path, start):
    r, p = analyze(tmp_path, session(start=start, end=b"9007199254740999") + b"\n")
    assert r.returncode == 1
    err = r.stderr.decode()
    assert re.search(re.escape(p) + r":1: ", err), err


def test_escaped_strings_read_as_their_characters(tmp_path):
    r, _ = analyze(tmp_path, session(player=b'"\\u0070\\u0031"') + b"\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["players"][0]["id"] == "p1"


@pytest.mark.parametrize("line", [
    session(score=b"5", extra=b',"score":5'), session(score=b"01"), session(score=b"1" * 21), session(score=b"1e400"),
    session(player=b'"p\x001"'), session(score=b"[" * 33 + b"]" * 33), session(score=b"5") + b" x",
    session(score=b"tru"), session(player=b'"p1'), session(score=b"5")[:-1], session(score=b"5", extra=b',"v":[1'),
])
def test_telemetry_syntax_errors_have_the_documented_message_and_column(tmp_path, line):
    with pytest.raises(DocError) as e:
        doc_scan_line(line)
    r, p = analyze(tmp_path, session() + b"\n\n  \r\n" + line.replace(b'"p1"', b'"p2"') + b"\r\n")
    assert r.returncode == 1
    line = line.replace(b'"p1"', b'"p2"')
    assert_positioned(r.stderr.decode(), p, 4, e.value.msg, {column(line, o) for o in e.value.offsets})


def test_the_documented_example_of_a_raw_nul(tmp_path):
    body = b"".join(session(player=b'"p%d"' % k) + b"\n" for k in range(3)) + b'{"type":"session","player":"\x00"}\n'
    r, p = analyze(tmp_path, body)
    assert r.returncode == 1
    assert r.stderr.decode().strip().endswith(
        f"{p}:4:29: a raw control character U+0000 inside a string (JSON needs it escaped, e.g. \\u0000)")


def test_telemetry_bom_and_crlf(tmp_path):
    r, _ = analyze(tmp_path, b"\xef\xbb\xbf" + session() + b"\r\n\r\n")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("bad,hexa", [(b"\xff", "0xFF"), (b"\xc0\x80", "0xC0"), (b"\xed\xa0\x80", "0xED")],
                         ids=["ff", "overlong", "surrogate"])
def test_telemetry_invalid_utf8_is_positioned(tmp_path, bad, hexa):
    """json-lines.md, "invalid UTF-8": game telemetry checks each line first, `file:line: byte C of the
    line (0xXX) is not UTF-8; save the file as UTF-8`, C the byte's 1-based column in bytes."""
    line = session(player=b'"p' + bad + b'"')
    r, p = analyze(tmp_path, session() + b"\n" + line + b"\n")
    assert r.returncode == 1
    want = f"{p}:2: byte {line.index(bad) + 1} of the line ({hexa}) is not UTF-8; save the file as UTF-8"
    assert want in r.stderr.decode().splitlines(), r.stderr


# MARK: - a whole JSON file (an experience): any value, LF is white space, "file" in messages

def validate(tmp_path, data: bytes):
    p = tmp_path / "x.json"
    p.write_bytes(data)
    r = run("experiences", "validate", p)
    return r, str(p), r.stderr.decode() + r.stdout.decode()


def doc_scan_file(data: bytes):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    s = Scanner(data, whole_file=True)
    s.skip_ws()
    if s.at_end():
        return None
    s.value(0)
    s.skip_ws()
    if not s.at_end():
        raise DocError(exact(f"text after the end of the JSON value: '{chr(data[s.i])}'"), s.i)
    return True


def file_position(data: bytes, offset):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    before = data[:offset]
    start = before.rfind(b"\n") + 1
    return before.count(b"\n") + 1, column(data[start:], offset - start)


@pytest.mark.parametrize("data", [
    b'{"a": 1,\n "a": 2}', b'{\n  "a": [1,\n  2', b'{"a":\n"x', b'{\n"a":\n  01}', b"{} x",
    b'\xef\xbb\xbf{"a":1,"a":2}',
    b'{"a":' * 33 + b"1" + b"}" * 33, b'[\n"\\uDBFF"]', b'{"a":[1,]}', b'{"a":1}\n\n  }',
])
def test_whole_file_errors(tmp_path, data):
    with pytest.raises(DocError) as e:
        doc_scan_file(data)
    r, p, out = validate(tmp_path, data)
    assert r.returncode == 1
    m = re.search(re.escape(p) + r":(\d+):(\d+): (invalid JSON: )?(.*)", out)
    assert m, out
    cols = {file_position(data, o) for o in e.value.offsets}
    if "surrogate" not in (e.value.msg or ""):
        assert (int(m.group(1)), int(m.group(2))) in cols, out
    assert e.value.msg is None or re.fullmatch(e.value.msg, m.group(4)), out


@pytest.mark.parametrize("data", [b"[1,2]", b'"text"', b"\xef\xbb\xbf[]", b"null", b'{"a":' * 32 + b"1" + b"}" * 32,
                                  b'{\r\n\t"a" : [ ]\r\n}\r\n'])
def test_any_json_value_is_read_as_a_whole_file(tmp_path, data):
    assert doc_scan_file(data)
    r, p, out = validate(tmp_path, data)
    assert "invalid JSON" not in out and not re.search(re.escape(p) + r":\d+:\d+:", out), out


# MARK: - the vault's Bitwarden JSON and the writer (json-lines.md "Writing")

@pytest.fixture(scope="module")
def empty_vault(tmp_path_factory):
    d = tmp_path_factory.mktemp("vault")
    r = run("vault", "init", "--kdf", "pbkdf2", d / "v.dvault")
    assert r.returncode == 0, r.stderr
    return d / "v.dvault"


BITWARDEN_SYNTAX = [(b'{"items":[],\n "items":[]}', 2, "the field 'items' appears twice", 2),
                    (b'{"items":[1,]}', 1, "not JSON: ']' cannot start a value", 13),
                    (b'{"items":[],\n "x": 01}', 2, "not a valid JSON number ('01')", 7)]


def bitwarden_import(tmp_path, vault, data):
    p = tmp_path / "bw.json"
    p.write_bytes(data)
    r = run("vault", "import", vault, p)
    assert r.returncode == 1
    return str(p), r.stderr.decode()


@pytest.mark.parametrize("data,line,msg,col", BITWARDEN_SYNTAX, ids=["dup", "comma", "zero"])
def test_bitwarden_json_syntax_errors_give_line_and_reason(tmp_path, empty_vault, data, line, msg, col):
    p, err = bitwarden_import(tmp_path, empty_vault, data)
    assert re.search("^" + re.escape(f"{p}:{line}:") + r"(\d+:)? " + re.escape(msg) + "$", err, re.M), err


@pytest.mark.parametrize("data,line,msg,col", BITWARDEN_SYNTAX, ids=["dup", "comma", "zero"])
def test_bitwarden_json_syntax_errors_are_positioned(tmp_path, empty_vault, data, line, msg, col):
    p, err = bitwarden_import(tmp_path, empty_vault, data)
    assert_positioned(err, p, line, exact(msg), {col})


def jsonout(v, ind=""):
    """json-lines.md "Writing", pretty."""
    if isinstance(v, bool) or v is None:
        return {True: "true", False: "false", None: "null"}[v]
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return "null"
        return str(int(v)) if v == int(v) and abs(v) < 2 ** 53 else repr(v)
    if isinstance(v, str):
        out = []
        for ch in v:
            o = ord(ch)
            out.append({'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
                        "\t": "\\t"}.get(ch) or (f"\\u{o:04x}" if o < 0x20 else ch))
        return '"' + "".join(out) + '"'
    inner = ind + "  "
    if isinstance(v, list):
        if not v:
            return "[\n\n" + ind + "]"
        return "[\n" + ",\n".join(inner + jsonout(x, inner) for x in v) + "\n" + ind + "]"
    if not v:
        return "{\n\n" + ind + "}"
    keys = sorted(v, key=lambda k: k.encode("utf-8"))
    return "{\n" + ",\n".join(inner + jsonout(k) + " : " + jsonout(v[k], inner) for k in keys) + "\n" + ind + "}"


def test_bitwarden_strings_read_and_written_as_documented(tmp_path, empty_vault):
    vault = tmp_path / "v.dvault"
    shutil.copy(empty_vault, vault)
    title = "\u00e9\U0001F600/\"\\\x7f"
    password = "a\x01b\x1f\tc\b\f\r\n"
    src = (b'{"encrypted":false,"items":[{"type":1,"name":"\\u00e9\\uD83D\\uDE00\\/\\"\\\\\x7f",'
           b'"login":{"username":"Zed","password":"a\\u0001b\\u001F\\tc\\b\\f\\r\\n"}}]}')
    (tmp_path / "bw.json").write_bytes(src)
    r = run("vault", "import", vault, tmp_path / "bw.json")
    assert r.returncode == 0, r.stderr
    r = run("vault", "list", "--json", "--reveal", vault)
    (item,) = json.loads(r.stdout)
    assert (item["title"], item["password"], item["username"]) == (title, password, "Zed")
    r = run("vault", "export", vault, "--format", "bitwarden-json", "--output", "-", "--yes")
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode("utf-8")
    assert text == jsonout(json.loads(text))
    assert jsonout(password) in text and jsonout(title) in text
