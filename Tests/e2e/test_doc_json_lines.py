"""docs/json-lines.md, "Strictness" and "Positions", checked line by line through the recall
log reader (`dossier recall parse`, named by the doc's "Speed" section), which reads every
line with the one scanner. Each expected column is computed here from the doc's rule:
1 + the Unicode characters before the offending place on that line."""
import pytest

from archive_oracle import dossier, ok


@pytest.fixture(scope="module")
def header(tmp_path_factory):
    """A real session header line (line 1), as `dossier recall simulate` writes it."""
    out = tmp_path_factory.mktemp("sim")
    ok("recall", "simulate", "--participants", "1", "--seed", "3", "--out", out)
    return (out / "S001.jsonl").read_bytes().split(b"\n")[0]


GOOD = b'{"t":1,"type":"page","page":"memorize","string":1}'


def parse(tmp_path, header, *lines: bytes, raw: bytes = None):
    log = tmp_path / "p1.jsonl"
    log.write_bytes(raw if raw is not None else b"\n".join([header, *lines]) + b"\n")
    return log, dossier("recall", "parse", log)


def col(line: str, at) -> int:
    """The doc's column: 1 + characters before index `at` (a substring: its first place)."""
    index = len(line) if at is None else line.index(at) if isinstance(at, str) else at
    return 1 + len(line[:index])


def refused(tmp_path, header, line: str, at, message: str, exact=True):
    log, p = parse(tmp_path, header, line.encode())
    assert p.returncode == 1, p.out
    prefix = f"{log}:2:{col(line, at)}: "
    if exact:
        assert f"{prefix}{message}\n" in p.stderr, p.stderr
    else:
        assert f"{prefix}{message}" in p.stderr, p.stderr
    return p


def test_good_lines_are_read(tmp_path, header):
    """Control: a header and one event parse (exit 0), so the refusals below are the scanner's."""
    _, p = parse(tmp_path, header, GOOD, GOOD.replace(b"}", b',"extra":{"n":[1,2.5e3,null,true]}}'))
    assert p.returncode == 0 and "1 logs, 2 events" in p.out, p.out


@pytest.mark.parametrize("line,message", [
    ("[1,2]", "not a JSON object: the line is an array (each line must be one {…} record)"),
    ("42", "not a JSON object: the line is a number"),
    ('"s"', "not a JSON object: the line is a string"),
    ("true", "not a JSON object: the line is a bare word"),
])
def test_a_line_that_is_not_an_object(tmp_path, header, line, message):
    """| a line that is not an object | refused | `not a JSON object: the line is an array
    (each line must be one {…} record)`, `… is a number`, `… is a string`, `… is a bare word` |"""
    refused(tmp_path, header, line, 0, message, exact=False)


@pytest.mark.parametrize("line,at,message", [
    ('{"a":1} x', "x", "text after the end of the JSON value: 'x'"),
    ('{"a":{"b":1}', None, "the line ends inside an object (a '}' is missing)"),
    ('{"a":[1,2', None, "the line ends inside a list (a ']' is missing)"),
    ('{"a":"abc', None, "a string is not closed before the end of the line"),
    ('{"é":"ü","b":"ß', None, "a string is not closed before the end of the line"),
])
def test_text_after_the_value_and_lines_that_end_early(tmp_path, header, line, at, message):
    """"text after the value … `text after the end of the JSON value: 'x'`"; "a line … that
    ends early … the end of the line for a line that ends early" (column in characters)."""
    refused(tmp_path, header, line, at, message)


@pytest.mark.parametrize("line,second", [
    ('{"t":1,"t":2}', 7),
    ('{"a":1,"\\u0061":2}', 7),
    ('{"t":1,"type":"page","page":"memorize","string":1,"z":{"q":[{"k":1,"k":2}]}}', 67),
    ('{"ключ":"значение", "ключ":1}', 20),
])
def test_duplicate_keys_at_any_depth_with_escapes_and_in_skipped_fields(tmp_path, header, line, second):
    """"duplicate keys | refused in every object at any depth, also when spelt with escapes
    (`"a"` and `"\\u0061"`) and in fields a reader skips | `the field 'a' appears twice`
    (the column is the second key's quote)"."""
    assert line[second] == '"'
    name = "a" if "u0061" in line else line[second + 1:line.index('"', second + 1)]
    refused(tmp_path, header, line, second, f"the field '{name}' appears twice")


@pytest.mark.parametrize("char", ["\x01", "\x00", "\x1f", "\t"])
def test_raw_control_characters_in_strings(tmp_path, header, char):
    """"raw control characters U+0000–U+001F in a string | refused | `a raw control character
    U+0001 inside a string (JSON needs it escaped, e.g. \\u0001)`" — NUL included."""
    line = '{"a":"x' + char + 'y"}'
    code = "%04X" % ord(char)
    refused(tmp_path, header, line, char,
            f"a raw control character U+{code} inside a string (JSON needs it escaped, e.g. \\u{code})")


def test_unknown_escape_and_short_unicode_escape(tmp_path, header):
    """"escapes | `\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX` only | `unknown escape \\x (…)`,
    `a \\u escape needs four hexadecimal digits`"."""
    p = refused(tmp_path, header, '{"a":"\\x"}', "x", "unknown escape \\x (", exact=False)
    p = parse(tmp_path, header, b'{"a":"\\u12"}')[1]
    assert p.returncode == 1 and ":2:" in p.stderr and "a \\u escape needs four hexadecimal digits" in p.stderr


@pytest.mark.parametrize("line,at", [
    ('{"a":"é\\ud800"}', "\\"),
    ('{"a":"\\ud800\\u0041"}', "\\"),
    ('{"a":"ok\\udc00"}', "\\"),
])
def test_lone_surrogates(tmp_path, header, line, at):
    """"lone surrogates | refused … `a lone surrogate in a \\u escape (…)`"; the column is
    "the `\\` of a `\\u` escape that is a lone surrogate (of the first of two escapes that do
    not make a pair)"."""
    refused(tmp_path, header, line, at, "a lone surrogate in a \\u escape (", exact=False)


def test_a_surrogate_pair_is_fine(tmp_path, header):
    """The converse: `\\uD83D\\uDE00` makes a pair and is read."""
    _, p = parse(tmp_path, header, GOOD.replace(b"}", b',"z":"\\ud83d\\ude00"}'))
    assert p.returncode == 0, p.out


@pytest.mark.parametrize("bad", [b'{"a":"\xff"}', b'{"a":"\xc3\xa9\xc0\x80"}', b'{"a":"\xed\xa0\x80"}',
                                 b'{"a":"\xe2\x82"}'])
def test_invalid_utf8_names_the_byte(tmp_path, header, bad):
    """"recall logs … check each line first … with `file:line: byte C of the line (0xXX) is not
    UTF-8; save the file as UTF-8`, C the byte's 1-based column in bytes" — an overlong NUL,
    an encoded surrogate and a cut sequence included."""
    first = _first_bad_byte(bad)
    log, p = parse(tmp_path, header, bad)
    assert p.returncode == 1, p.out
    assert (f"{log}:2: byte {first + 1} of the line (0x{bad[first]:02X}) is not UTF-8; "
            "save the file as UTF-8") in p.stderr, p.stderr


def _first_bad_byte(b: bytes) -> int:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start
    raise AssertionError("valid")
