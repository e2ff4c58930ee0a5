"""docs/json-lines.md: numbers, words, depth, white space, overlong lines, "Lines" (LF, CRLF,
blank lines, the byte-order mark), whole JSON files (`dossier experiences validate`), the
domains' message shapes, and "Writing" (the vault's Bitwarden export, rebuilt here)."""
import json

import pytest

from archive_oracle import dossier, no_duplicates, ok, pretty
from test_doc_json_lines import GOOD, col, header, parse, refused  # noqa: F401 (fixture)

MIB4 = 4 * 1024 * 1024


@pytest.mark.parametrize("num", ["01", "-01", "1.", "1.e5", "1e", "1e+", "-", "00"])
def test_numbers_follow_the_rfc_grammar(tmp_path, header, num):
    """"numbers | RFC grammar exactly: no `+`, no leading zero (`01`), no `.5` or `1.`, an
    exponent needs digits … | `not a valid JSON number ('01')`"; the column is "the start of
    the offending number"."""
    line = '{"é":"x","a":' + num + "}"
    refused(tmp_path, header, line, line.index(":" + num) + 1, f"not a valid JSON number ('{num}')")


@pytest.mark.parametrize("num", ["+1", ".5", "NaN", "Infinity", "-Infinity"])
def test_no_plus_no_leading_dot_no_nan(tmp_path, header, num):
    """No `+`, no `.5`, "no `NaN`/`Infinity`": refused, on line 2, at the value's column."""
    line = '{"a":' + num + "}"
    log, p = parse(tmp_path, header, line.encode())
    assert p.returncode == 1 and f"{log}:2:6: " in p.stderr, p.stderr


def test_a_number_too_large_for_a_double(tmp_path, header):
    """"read as the nearest double, which must be finite | … `the number is too large for a
    double ('1e400')`"."""
    refused(tmp_path, header, '{"a":1e400}', "1e400", "the number is too large for a double ('1e400')")
    refused(tmp_path, header, '{"a":-1.5e309}', "-1.5", "the number is too large for a double ('-1.5e309')")


@pytest.mark.parametrize("digits", [21, 400])
def test_long_numbers(tmp_path, header, digits):
    """"long numbers | at most 20 digits before the fraction | `the number has 400 digits: too
    large (at most 20 before a fraction)`"."""
    num = "9" * digits
    refused(tmp_path, header, '{"a":' + num + "}", num,
            f"the number has {digits} digits: too large (at most 20 before a fraction)")


def test_twenty_digits_and_a_long_fraction_are_read(tmp_path, header):
    """The converse: 20 digits before a fraction, and any number of digits after it."""
    line = GOOD.replace(b"}", b',"z":[12345678901234567890,-0.' + b"1" * 300 + b',1E-400]}')
    _, p = parse(tmp_path, header, line)
    assert p.returncode == 0, p.out


@pytest.mark.parametrize("word,message", [
    ("True", "not JSON: 'T' cannot start a value"),
    ("nul", "not JSON: a bare word ("),
    ("nullx", "not JSON: a bare word ("),
    ("falsey", "not JSON: a bare word ("),
])
def test_words_are_exact(tmp_path, header, word, message):
    """"words | `true`, `false`, `null` exactly (lower case, not followed by a letter) |
    `not JSON: a bare word (…)`, `not JSON: 'T' cannot start a value`"."""
    refused(tmp_path, header, '{"a":' + word + "}", word, message, exact=False)


def test_depth_32_is_read_and_33_refused(tmp_path, header):
    """"depth | at most 32 arrays and objects inside each other, the outermost included |
    `values are nested too deeply (at most 32 arrays and objects inside each other)`"."""
    ok_line = GOOD.replace(b"}", b',"z":' + b"[" * 31 + b"]" * 31 + b"}")  # 1 object + 31 lists
    _, p = parse(tmp_path, header, ok_line)
    assert p.returncode == 0, p.out
    line = '{"z":' + "[" * 32 + "]" * 32 + "}"
    refused(tmp_path, header, line, 5 + 31,
            "values are nested too deeply (at most 32 arrays and objects inside each other)")


@pytest.mark.parametrize("ws", ["\f", "\v", "\u00a0", "\u2028", "\ufeff"])
def test_only_space_tab_cr_lf_are_white_space(tmp_path, header, ws):
    """"whitespace | space, tab, CR and LF between tokens | anything else: `not JSON: …
    cannot start a value`" — and "anywhere else U+FEFF outside a string is refused"."""
    line = '{"a":' + ws + "1}"
    refused(tmp_path, header, line, ws, "not JSON: ", exact=False)
    log, p = parse(tmp_path, header, line.encode())
    assert "cannot start a value" in p.stderr, p.stderr


def test_lines_of_4_mib_are_read_and_longer_ones_refused(tmp_path, header):
    """"overlong lines | a line of more than 4 MiB (4,194,304 bytes, its line break not
    counted) is refused before it is read | `the line is longer than 4 MiB`" — a CR before
    the LF is part of the line break ("A CR just before the LF is not part of the line")."""
    pad = MIB4 - len(GOOD)
    exact = GOOD[:-1] + b" " * pad + b"}"
    assert len(exact) == MIB4
    _, p = parse(tmp_path, header, raw=header + b"\r\n" + exact + b"\r\n")
    assert p.returncode == 0, p.out[:500]
    log, p = parse(tmp_path, header, raw=header + b"\n" + exact[:-1] + b" }\n")
    assert p.returncode == 1
    assert f"{log}:2" in p.stderr and "the line is longer than 4 MiB" in p.stderr, p.stderr[:500]


def test_crlf_blank_lines_and_a_missing_final_break_read_the_same(tmp_path, header):
    """"A CR just before the LF is not part of the line (so `\\r\\n` files read the same). A
    line holding only spaces and tabs is skipped; it still counts for line numbers.\""""
    _, lf = parse(tmp_path, header, raw=header + b"\n" + GOOD + b"\n \t\n\n" + GOOD + b"\n")
    _, crlf = parse(tmp_path, header, raw=header + b"\r\n" + GOOD + b"\r\n\t \r\n\r\n" + GOOD)
    assert lf.returncode == crlf.returncode == 0, lf.out + crlf.out
    assert lf.stdout == crlf.stdout and "2 events" in lf.stdout
    log, p = parse(tmp_path, header, raw=header + b"\r\n \t\r\n\r\n" + b'{"a":[1\r\n')
    assert f"{log}:4:{len(chr(123) + chr(34) + 'a' + chr(34) + ':[1') + 1}: the line ends inside a list" in p.stderr, p.stderr


def test_a_byte_order_mark_at_the_start_is_skipped_and_not_counted(tmp_path, header):
    """"A UTF-8 byte-order mark (EF BB BF) at the very start of a file is skipped"; the
    column: "a byte-order mark at the start of a file is not counted"."""
    _, p = parse(tmp_path, header, raw=b"\xef\xbb\xbf" + header + b"\n" + GOOD + b"\n")
    assert p.returncode == 0, p.out
    log, p = parse(tmp_path, header, raw=b'\xef\xbb\xbf{"a":01}\n')
    assert f"{log}:1:6: not a valid JSON number ('01')" in p.stderr, p.stderr
    log, p = parse(tmp_path, header, raw=header + b"\n\xef\xbb\xbf" + GOOD + b"\n")
    assert p.returncode == 1 and f"{log}:2:1: " in p.stderr, p.stderr


# MARK: - the domains

def test_recall_field_errors_name_the_value_column(tmp_path, header):
    """"the recall log reader's field errors … name the column of the value too
    (`log.jsonl:2:6: "t" must be a whole number`)"."""
    log, p = parse(tmp_path, header, b'{"t":1.5,"type":"page","page":"memorize","string":1}')
    assert f'{log}:2:6: "t" must be a whole number' in p.stderr, p.stderr
    line = '{"t":1,"type":"key","key":5,"action":"down"}'
    log, p = parse(tmp_path, header, line.encode())
    assert f'{log}:2:{col(line, "5,")}: "key" must be a string' in p.stderr, p.stderr


@pytest.mark.parametrize("text,line,column,message", [
    ('{\n  "a": [1,\n', 3, 1, "the file ends inside a list (a ']' is missing)"),
    ('{"a":{"b":1', 1, 12, "the file ends inside an object (a '}' is missing)"),
    ('{"a":"x', 1, 8, "a string is not closed before the end of the file"),
    ('\ufeff{\n "é": 01}', 2, 7, "not a valid JSON number ('01')"),
    ('[1] x', 1, 5, "text after the end of the JSON value: 'x'"),
])
def test_whole_files_positions_and_messages(tmp_path, text, line, column, message):
    """"A whole JSON file (an experience) is one JSON value … a byte-order mark at its start is
    skipped the same way"; the table's messages "(`file` for a whole file)", at the line and
    column of "Positions". (The exact `file:line:column: message` shape is the next test.)"""
    f = tmp_path / "e.json"
    f.write_text(text, encoding="utf-8")
    p = dossier("experiences", "validate", f)
    assert p.returncode == 1, p.out
    assert any(x.startswith(f"{f}:{line}:{column}: ") and x.endswith(f": {message}") or
               x == f"{f}:{line}:{column}: {message}" for x in p.out.splitlines()), p.out


def test_experiences_validate_prints_the_scanners_message_after_invalid_json(tmp_path):
    """"`dossier experiences validate` print `file:line:column: message` (an experience file's
    syntax error alone puts `invalid JSON: ` before the message, `e.json:1:5: invalid JSON:
    text after the end of the JSON value: 'x'`)"."""
    f = tmp_path / "e.json"
    f.write_text('[1] x')
    p = dossier("experiences", "validate", f)
    assert p.returncode == 1, p.out
    assert f"{f}:1:5: invalid JSON: text after the end of the JSON value: 'x'" in p.out.splitlines(), p.out


def test_dossier_build_prints_file_line_column_for_a_recall_log(tmp_path, header):
    """"so `dossier build` … print[s] `file:line:column: message`" for a log's syntax error."""
    root = tmp_path / "p"
    ok("new", root, "-q")
    sim = root / "data" / "recall"
    ok("recall", "simulate", "--participants", "1", "--seed", "3", "--out", sim / "logs")
    (sim / "logs" / "S001.jsonl").write_bytes(header + b'\n{"t":1,"t":2}\n')
    (sim / "logs" / "strings.txt").rename(sim / "strings.txt")
    (root / "dossier.yml").write_text("title: P\nrecall:\n  strings: data/recall/strings.txt\n"
                                      "  logs: data/recall/logs\n")
    p = dossier("build", root)
    assert p.returncode == 1, p.out
    assert "S001.jsonl:2:8: the field 't' appears twice" in p.out, p.out


# MARK: - Writing

def test_the_bitwarden_export_is_the_documented_pretty_json(tmp_path):
    """"`JSONOut` … writes … the vault's Bitwarden export (pretty)": keys in byte order, a line
    break and two spaces per level, `"key" : value`, an empty list `[`, break, break,
    indentation, `]`; strings escape `"` `\\` and \\b \\f \\n \\r \\t, other controls as
    `\\u00xx` lower-case, `/`, U+007F and non-ASCII as UTF-8; no final line break."""
    env = {"DOSSIER_VAULT_PASSWORD": "correct horse battery staple 93!",
           "DOSSIER_ENTRY_PASSWORD": 'p/w\x01\x1b\x7f"\\ü'}
    vault = tmp_path / "v.dvault"
    ok("vault", "init", vault, "--kdf", "pbkdf2", "-q", env=env)
    ok("vault", "add", vault, "--title", 'A/b "q"\ttab é\b\f\r\nZ', "--username", "u\\x",
       "--website", "https://e.org/a?x=1&y=2", "-q", env=env)
    p = ok("vault", "export", vault, "--format", "bitwarden-json", "--output", "-", "--yes", env=env)
    raw = p.stdout.encode()
    value = json.loads(raw, object_pairs_hook=no_duplicates)
    assert value["items"][0]["login"]["password"] == env["DOSSIER_ENTRY_PASSWORD"]
    assert raw.decode() == pretty(value)
    assert '"p/w\\u0001\\u001b\x7f\\"\\\\ü"' in raw.decode()
