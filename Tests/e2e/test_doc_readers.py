"""docs/json-lines.md, re-implemented from the document alone and compared with `dossier`.

The JSON Lines reader is driven through `dossier recall parse` (a recall session log:
unknown keys are skipped by the reader but must still be checked), `dossier game
analyze` (telemetry: values come back in the analysis) and `dossier experiences
validate` (a whole JSON file).  `doc_scan` below is an independent implementation of
the grammar, messages and columns that the document gives; a seeded differential fuzz
compares it with the program on a few hundred damaged lines (test_doc_readers_more.py, with
game telemetry, whole files and the writer).  XML: _more_xml.py; limits: _more_limits.py.
"""
import math
import os
import re
import subprocess

import pytest

from conftest import dossier_path

HEADER = b'{"type":"session","participant":"P1"}\n'
CARRIER = b'{"t":0,"type":"close","zz":%s}'   # an event with an unknown (skipped) key
NUM_RE = re.compile(rb"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
NUM_CHARS = set(b"0123456789+-.eE")
WS = b" \t\r"


VAULT_ENV = {"DOSSIER_VAULT_PASSWORD": "correct horse battery staple 93!"}


def run(*args):
    """Run dossier; the vault commands get a master password from the environment."""
    env = dict(os.environ, **VAULT_ENV)
    return subprocess.run([dossier_path(), *map(str, args)], capture_output=True, timeout=120, env=env)


# MARK: - the reference scanner (docs/json-lines.md, "Strictness" and "Positions")

class DocError(Exception):
    """msg: a regex the message must match in full, or None when the document gives no
    text for this case; offsets: byte offsets (within the line) the column may name."""

    def __init__(self, msg, *offsets):
        super().__init__(msg)
        self.msg, self.offsets = msg, set(offsets)


def exact(text):
    return re.escape(text)


def column(line: bytes, offset: int) -> int:
    """1 + the UTF-8 lead bytes before `offset`."""
    return 1 + sum(1 for c in line[:offset] if c & 0xC0 != 0x80)


class Scanner:
    def __init__(self, b: bytes, whole_file=False):
        self.b, self.i, self.whole = b, 0, whole_file
        self.ws = WS + (b"\n" if whole_file else b"")
        self.unit = "file" if whole_file else "line"

    def skip_ws(self):
        while self.i < len(self.b) and self.b[self.i] in self.ws:
            self.i += 1

    def at_end(self):
        return self.i >= len(self.b)

    def value(self, depth):
        b, i = self.b, self.i
        c = b[i]
        if c in b"{[":
            if depth + 1 > 32:
                raise DocError(exact("values are nested too deeply (at most 32 arrays and objects inside each "
                                     "other)"), i)
            return self.obj(depth + 1) if c == ord("{") else self.arr(depth + 1)
        if c == ord('"'):
            return self.string()
        if c == ord("-") or 48 <= c <= 57:
            return self.number()
        if c in b"+.":
            raise DocError(None, i)   # "no +", "no .5": the document names no message
        if c in b"tfn":
            j = i
            while j < len(b) and (65 <= b[j] <= 90 or 97 <= b[j] <= 122):
                j += 1
            word = b[i:j]
            if word in (b"true", b"false", b"null"):
                self.i = j
                return {b"true": True, b"false": False, b"null": None}[word]
            raise DocError(exact("not JSON: a bare word (") + ".*", i)
        if 0x21 <= c <= 0x7E and not 97 <= c <= 122:
            raise DocError(exact(f"not JSON: '{chr(c)}' cannot start a value"), i)
        raise DocError(r"not JSON: .* cannot start a value" if c < 0x80 and not 97 <= c <= 122 else None, i)

    def ends_inside(self, what):
        if what == "object":
            raise DocError(exact(f"the {self.unit} ends inside an object (a '}}' is missing)"), len(self.b))
        raise DocError(exact(f"the {self.unit} ends inside a list (a ']' is missing)"), len(self.b))

    def obj(self, depth):
        self.i += 1
        out = {}
        self.skip_ws()
        if self.at_end():
            self.ends_inside("object")
        if self.b[self.i] == ord("}"):
            self.i += 1
            return out
        while True:
            self.skip_ws()
            if self.at_end():
                self.ends_inside("object")
            if self.b[self.i] != ord('"'):
                raise DocError(None, self.i)
            kpos = self.i
            key = self.string()
            if key in out:
                raise DocError(exact(f"the field '{key}' appears twice"), kpos)
            self.skip_ws()
            if self.at_end():
                self.ends_inside("object")
            if self.b[self.i] != ord(":"):
                raise DocError(None, self.i)
            self.i += 1
            self.skip_ws()
            if self.at_end():
                self.ends_inside("object")
            out[key] = self.value(depth)
            self.skip_ws()
            if self.at_end():
                self.ends_inside("object")
            c = self.b[self.i]
            self.i += 1
            if c == ord("}"):
                return out
            if c != ord(","):
                raise DocError(None, self.i - 1)

    def arr(self, depth):
        self.i += 1
        out = []
        self.skip_ws()
        if self.at_end():
            self.ends_inside("list")
        if self.b[self.i] == ord("]"):
            self.i += 1
            return out
        while True:
            self.skip_ws()
            if self.at_end():
                self.ends_inside("list")
            out.append(self.value(depth))
            self.skip_ws()
            if self.at_end():
                self.ends_inside("list")
            c = self.b[self.i]
            self.i += 1
            if c == ord("]"):
                return out
            if c != ord(","):
                raise DocError(None, self.i - 1)

    def hex4(self, bs):
        h = self.b[bs + 2:bs + 6]
        if len(h) < 4 and self.i + 2 + len(h) >= len(self.b) and all(chr(x) in "0123456789abcdefABCDEF" for x in h):
            raise DocError(None, bs, bs + 1, len(self.b))   # the line ends inside the escape
        if len(h) < 4 or not all(chr(x) in "0123456789abcdefABCDEF" for x in h):
            bad = bs + 2 + next(k for k, x in enumerate(h + b"!") if chr(x) not in "0123456789abcdefABCDEF")
            raise DocError(exact(r"a \u escape needs four hexadecimal digits"), bs, bs + 1, bad)
        return int(h, 16)

    def string(self):
        b = self.b
        self.i += 1
        out = []
        while True:
            if self.i >= len(b):
                raise DocError(exact(f"a string is not closed before the end of the {self.unit}"), len(b))
            c = b[self.i]
            if c == ord('"'):
                self.i += 1
                return "".join(out)
            if c < 0x20:
                raise DocError(exact(f"a raw control character U+{c:04X} inside a string (JSON needs it escaped, "
                                     f"e.g. ") + f"\\\\u(?i:{c:04X})\\)", self.i)
            if c == ord("\\"):
                bs = self.i
                if bs + 1 >= len(b):
                    raise DocError(None, bs, bs + 1)
                e = chr(b[bs + 1])
                if e in '"\\/bfnrt':
                    out.append({"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}.get(e, e))
                    self.i += 2
                    continue
                if e != "u":
                    if b[bs + 1] >= 0x80 or b[bs + 1] < 0x21:
                        raise DocError(exact("unknown escape \\") + ".*", bs, bs + 1)
                    raise DocError(exact(f"unknown escape \\{e} (") + ".*", bs, bs + 1)
                u = self.hex4(bs)
                self.i += 6
                if 0xDC00 <= u <= 0xDFFF:
                    raise DocError(exact(r"a lone surrogate in a \u escape (") + ".*", bs)
                if 0xD800 <= u <= 0xDBFF:
                    if b[self.i:self.i + 2] != b"\\u":   # Positions: the '\\' of the lone escape
                        raise DocError(exact(r"a lone surrogate in a \u escape (") + ".*", bs)
                    lo = self.hex4(self.i)
                    if not 0xDC00 <= lo <= 0xDFFF:   # two escapes that do not pair: the first one's '\\'
                        raise DocError(exact(r"a lone surrogate in a \u escape (") + ".*", bs)
                    self.i += 6
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                out.append(chr(u))
                continue
            n = 1 if c < 0x80 else 2 if c < 0xE0 else 3 if c < 0xF0 else 4
            out.append(b[self.i:self.i + n].decode("utf-8"))
            self.i += n

    def number(self):
        b, i = self.b, self.i
        j = i
        while j < len(b) and b[j] in NUM_CHARS:
            j += 1
        tok = b[i:j]
        self.i = j
        m = NUM_RE.fullmatch(tok)
        if not m:
            raise DocError(exact(f"not a valid JSON number ('{tok.decode()}')"), i)
        digits = len(m.group(1))
        if digits > 20:
            raise DocError(exact(f"the number has {digits} digits: too large (at most 20 before a fraction)"), i)
        v = float(tok)
        if math.isinf(v):
            raise DocError(exact(f"the number is too large for a double ('{tok.decode()}')"), i)
        return v


def doc_scan_line(line: bytes):
    """The value of one JSON Lines line (None for a blank one), or DocError."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if line.strip(b" \t") == b"":
        return None
    s = Scanner(line)
    s.skip_ws()
    c = line[s.i]
    kinds = {ord("["): "an array", ord('"'): "a string"}
    kind = kinds.get(c) or ("a number" if c == ord("-") or 48 <= c <= 57 else
                            "a bare word" if 97 <= c <= 122 else None)
    if c != ord("{"):
        if kind is None:
            raise DocError(None, s.i)
        raise DocError(exact(f"not a JSON object: the line is {kind}") +
                       r"( \(each line must be one \{…\} record\))?", s.i)
    v = s.value(0)
    s.skip_ws()
    if not s.at_end():
        c = line[s.i]
        raise DocError(exact(f"text after the end of the JSON value: '{chr(c)}'") if 0x21 <= c <= 0x7E else None,
                       s.i)
    return v


def recall_error(tmp_path, lines: bytes, name="log.jsonl"):
    """(exit status, stderr) of `recall parse` on a header and the given lines."""
    p = tmp_path / name
    p.write_bytes(HEADER + lines)
    r = run("recall", "parse", p)
    return r.returncode, r.stderr.decode("utf-8", "replace"), str(p)


def assert_positioned(stderr, path, line, msg_re, cols):
    m = re.search(re.escape(path) + r":(\d+):(\d+): (.*)", stderr)
    assert m, f"no {path}:line:column: message in {stderr!r}"
    assert int(m.group(1)) == line, stderr
    if cols is not None:
        assert int(m.group(2)) in cols, f"column {m.group(2)} not in {sorted(cols)}: {stderr!r}"
    if msg_re is not None:
        assert re.fullmatch(msg_re, m.group(3).rstrip("\r")), f"{m.group(3)!r} !~ {msg_re!r}"


def check_carrier(tmp_path, value: bytes, name="log.jsonl"):
    """Put `value` as a skipped field of a recall event (line 2) and compare with doc_scan_line."""
    line = CARRIER % value
    rc, err, path = recall_error(tmp_path, line + b"\n", name)
    try:
        doc_scan_line(line)
    except DocError as e:
        assert rc == 1, f"{line!r} accepted, the document refuses it ({e.msg})"
        assert_positioned(err, path, 2, e.msg, {column(line, o) for o in e.offsets})
        return e
    assert rc == 0, f"{line!r} refused, the document accepts it: {err}"
    return None


REFUSED_VALUES = [
    b"01", b"-01", b"1.", b"1.e5", b"1e", b"1e+", b"-", b"--1", b"1-2", b"+1", b".5", b"0x10",
    b"1e400", b"-1e400",
    b"1" * 21, b"1" * 400, b"-" + b"9" * 21 + b".5",
    b"tru", b"truex", b"nul", b"falsey", b"True", b"NULL", b"Nan",
    b'"a\x01b"', b'"a\x1fb"', b'"tab\there"', b'"\\x"', b'"\\a"', b'"\\u12"', b'"\\u12G4"', b'"\\U0041"',
    b'"\\uD800"', b'"\\uD800x"',
    b'"\\uDC00"', b'"\\uD800\\u0041"', b'"\\uD800\\uD800"', b'"\\uDBFF\\uE000"', b'"ab\\uDFFFcd"',
    b'"\\uD83D\\uDE00\\uDE00"', b'"\xc3\xa9\\uD800\\n"',
    b'{"a":1,"a":2}', b'{"a":1,"\\u0061":2}', b'{"b":{"c":[{"d":1,"d":1}]}}', b'[1,]', b"[1 2]",
    b"[" * 32 + b"]" * 32, b'{"x":' * 32 + b"1" + b"}" * 32, b"\x0c1", b"\xc2\xa01",
    b'"abc', b"[1,2", b'{"a":1',
]

ACCEPTED_VALUES = [
    b"0", b"-0", b"0.5", b"-0.0e-0", b"1E5", b"1e+5", b"1e-400", b"9" * 20, b"9" * 20 + b".5",
    b"0." + b"1" * 400, b"1.7976931348623157e308", b"true", b"false", b"null", b"[]", b"{}",
    b'"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\uD83D\\uDE00"', b'"\x7f\xc3\xa9\xf0\x9f\x98\x80"',
    b"[" * 31 + b"]" * 31, b'{"x":' * 31 + b"1" + b"}" * 31, b"\t[ 1 ,\r2 ]\t", b'{"a":1,"b":{"a":2}}',
]


@pytest.mark.parametrize("value", REFUSED_VALUES, ids=lambda v: repr(v)[:40])
def test_a_skipped_field_is_still_checked_as_the_document_says(tmp_path, value):
    line = CARRIER % value
    with pytest.raises(DocError):
        doc_scan_line(line)   # the reference itself must refuse it
    check_carrier(tmp_path, value)


@pytest.mark.parametrize("value", ACCEPTED_VALUES, ids=lambda v: repr(v)[:40])
def test_a_skipped_field_the_document_accepts_is_accepted(tmp_path, value):
    assert doc_scan_line(CARRIER % value) is not None
    assert check_carrier(tmp_path, value) is None


@pytest.mark.parametrize("line,msg,col", [
    (b"[1,2]", "not a JSON object: the line is an array (each line must be one {\u2026} record)", 1),
    (b"  42", "not a JSON object: the line is a number", 3),
    (b'"s"', "not a JSON object: the line is a string", 1),
    (b'{"t":0,"type":"close"} x', "text after the end of the JSON value: 'x'", 24),
    (b'{"t":0,"type":"close"}}', "text after the end of the JSON value: '}'", 23),
    (b'{"t":0,"type":"close"', "the line ends inside an object (a '}' is missing)", 22),
    (b'{"t":0,"type":"close","v":[1', "the line ends inside a list (a ']' is missing)", 29),
    (b'{"t":0,"type":"close","v":"ab', "a string is not closed before the end of the line", 30),
    (b'{"t":0,"type":"close","t":1}', "the field 't' appears twice", 23),
    (b'{"t":0,"type":"close","\\u0074":1}', "the field 't' appears twice", 23),
    (b'{"t":0,"type":"close","\xc3\xa9":1,"\xc3\xa9":2}', "the field '\u00e9' appears twice", 29),
    (b'{"t":0,"type":"close","\xf0\x9f\x98\x80":1,"z":01}', "not a valid JSON number ('01')", 33),
    (b'{"t":0,"type":"close","a":1,"a":01}', "the field 'a' appears twice", 29),
])
def test_line_messages_and_columns(tmp_path, line, msg, col):
    """Each documented message with its column, for lines the reference agrees on."""
    with pytest.raises(DocError) as e:
        doc_scan_line(line)
    assert re.fullmatch(e.value.msg, msg) or msg.startswith("not a JSON object")
    rc, err, path = recall_error(tmp_path, line + b"\n")
    assert rc == 1
    msg_re = exact(msg) if not msg.startswith("not a JSON object") else e.value.msg
    assert_positioned(err, path, 2, msg_re, {col})


def test_crlf_blank_lines_and_line_numbers(tmp_path):
    body = b'\r\n  \t\r\n{"t":0,"type":"page","page":"welcome"}\r\n\n{"t":1,"type":"close","a":1,"a":2}\r\n'
    rc, err, path = recall_error(tmp_path, body)
    assert rc == 1
    # header 1, blank 2, spaces 3, event 4, empty 5, the repeated key on line 6, column of the 2nd "a"
    assert_positioned(err, path, 6, exact("the field 'a' appears twice"), {29})


def test_crlf_file_reads_as_lf_file(tmp_path):
    body = b'{"t":0,"type":"page","page":"welcome"}\n{"t":5,"type":"close"}\n'
    (tmp_path / "a.jsonl").write_bytes(HEADER + body)
    (tmp_path / "b.jsonl").write_bytes((HEADER + body).replace(b"\n", b"\r\n"))
    a, b = run("recall", "parse", tmp_path / "a.jsonl"), run("recall", "parse", tmp_path / "b.jsonl")
    assert a.returncode == b.returncode == 0, (a.stderr, b.stderr)
    assert a.stdout == b.stdout


def test_a_bom_at_the_start_is_skipped_and_not_counted_in_columns(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + HEADER)
    assert run("recall", "parse", p).returncode == 0
    p.write_bytes(b'\xef\xbb\xbf{"type":"session","participant":"P1","a":1,"a":2}\n')
    r = run("recall", "parse", p)
    assert r.returncode == 1
    assert_positioned(r.stderr.decode(), str(p), 1, exact("the field 'a' appears twice"), {44})
