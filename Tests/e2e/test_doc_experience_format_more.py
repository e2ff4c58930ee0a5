"""Oracle for docs/experience-format.md, part two: JSON reading, collections, folders, slugs, import.

Expected values come from docs/experience-format.md and docs/json-lines.md only: the
JSON scanner's rules as an experience file meets them (`file:line:column: invalid JSON:`),
the collection rules (unique titles, 10 custom per owner, default titles), how
and how `experiences validate` reads folders. The field rules are in
test_doc_experience_format.py, the build and the import in ..._build.py.
"""
import json
import pathlib
import re

import pytest

from test_doc_experience_format import emit, validate, write_media

GOOD = '"panoramas": [{"title": "Hall", "image": "media/a.jpg"}]'


def exp_text(title=None, kind=None, owner=None):
    head = "".join(f'"{k}": {json.dumps(v)}, ' for k, v in (("title", title), ("kind", kind), ("owner", owner))
                   if v is not None)
    return "{" + head + GOOD + "}"


@pytest.fixture
def folder(tmp_path):
    write_media(tmp_path)
    return tmp_path


# MARK: - JSON reading (docs/json-lines.md, as the format's "Why JSON" cites it)

# (name, file text with § where the error is, words the message holds). The column is
# checked where the doc fixes it (the offending character, the number's start, the second
# key's quote); for errors at the end of the file or inside a string only the line.
SYNTAX = [
    ("dup-nested", '{"title": "Abcd",\n"panoramas": [{"title": "Hall", "image": "media/a.jpg",\n'
                   '  §"title": "Again"}]}', "the field 'title' appears twice"),
    ("dup-escaped", '{"title": "Abcd", §"\\u0074itle": "Abce", ' + GOOD + '}', "the field 'title' appears twice"),
    ("dup-unknown-deep", '{"title": "Abcd",\n "x": {"a": 1, §"a": 2}, ' + GOOD + '}', "the field 'a' appears twice"),
    ("comment", '{"title": "Abcd",\n§// a comment\n' + GOOD + '}', ""),
    ("lone-high", '{"title": "Ab\\ud800cd", ' + GOOD + '}', "a lone surrogate in a \\u escape"),
    ("lone-low", '{"title": "Ab\\udc00cd", ' + GOOD + '}', "a lone surrogate in a \\u escape"),
    ("raw-control", '{"title": "Ab\x01cd", ' + GOOD + '}', "a raw control character U+0001 inside a string"),
    ("huge", '{"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg",\n"startYaw": §1e400}]}',
     "the number is too large for a double ('1e400')"),
    ("nan", '{"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg", "startYaw": §NaN}]}', ""),
    ("leading-zero", '{"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg", "startYaw": §01}]}',
     "not a valid JSON number ('01')"),
    ("plus", '{"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg", "startYaw": §+1}]}', ""),
    ("21-digits", '{"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg", "startYaw": '
                  '§123456789012345678901}]}', "the number has 21 digits: too large (at most 20 before a fraction)"),
    ("bare-word", '{"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg", "startYaw": §True}]}',
     "not JSON"),
    ("text-after", '{"title": "Abcd", ' + GOOD + '} §x', "text after the end of the JSON value: 'x'"),
    ("ends-early", '{"title": "Abcd", ' + GOOD, "the file ends inside an object (a '}' is missing)"),
    ("bad-escape", '{"title": "Ab\\xcd", ' + GOOD + '}', "unknown escape \\x"),
    ("trailing-comma", '{"title": "Abcd",\n' + GOOD + ',\n}', ""),
    ("depth-33", '{"title": "Abcd", "x": ' + "[" * 32 + "]" * 32 + ', ' + GOOD + '}',
     "values are nested too deeply (at most 32 arrays and objects inside each other)"),
]


@pytest.mark.parametrize("name,text,words", SYNTAX, ids=[s[0] for s in SYNTAX])
def test_json_syntax_errors_say_file_line_column(name, text, words, folder):
    if "§" in text:
        before = text[:text.index("§")]
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        want = f"x.json:{line}:{column}: invalid JSON: "
    else:
        want = f"x.json:{text.count(chr(10)) + 1 if name in ('trailing-comma', 'ends-early') else 1}:"
    (folder / "x.json").write_text(text.replace("§", ""), encoding="utf-8")
    proc = validate("x.json", cwd=folder)
    assert proc.returncode == 1, proc.stderr
    rows = [r for r in proc.stderr.splitlines() if r.startswith(want) and ": invalid JSON: " in r]
    assert rows, f"no {want}…: invalid JSON: in\n{proc.stderr}"
    assert words in rows[0], proc.stderr


def test_32_levels_are_read_and_then_the_unknown_key_is_the_error(folder):
    text = '{"title": "Abcd", "x": ' + "[" * 31 + "]" * 31 + ', ' + GOOD + '}'
    (folder / "x.json").write_text(text, encoding="utf-8")
    proc = validate("x.json", cwd=folder)
    assert proc.returncode == 1 and "invalid JSON" not in proc.stderr, proc.stderr
    assert "x.json:1: " in proc.stderr and '"x"' in proc.stderr, proc.stderr


def test_a_byte_order_mark_is_skipped_and_not_counted_in_columns(folder):
    (folder / "ok.json").write_bytes(b"\xef\xbb\xbf" + exp_text("Abcd").encode())
    assert validate("ok.json", cwd=folder).returncode == 0
    (folder / "bad.json").write_bytes(b"\xef\xbb\xbf" + b'{"title": 01}')
    proc = validate("bad.json", cwd=folder)
    assert proc.returncode == 1 and "bad.json:1:11: invalid JSON: " in proc.stderr, proc.stderr


def test_a_byte_order_mark_elsewhere_is_refused(folder):
    (folder / "x.json").write_bytes(b'{"title": "Abcd",\n\xef\xbb\xbf' + GOOD.encode() + b"}")
    proc = validate("x.json", cwd=folder)
    assert proc.returncode == 1 and "x.json:2:1: invalid JSON: " in proc.stderr, proc.stderr


def test_crlf_files_read_the_same_and_lines_stay_true(folder):
    text, where = emit({"title": "Abcd", "panoramas": [{"title": "Hall", "image": "media/a.jpg", "startPitch": 91}]})
    (folder / "ok.json").write_bytes(text.replace("\n", "\r\n").replace("91", "9").encode())
    assert validate("ok.json", cwd=folder).returncode == 0
    (folder / "x.json").write_bytes(text.replace("\n", "\r\n").encode())
    proc = validate("x.json", cwd=folder)
    line = where[("panoramas", 0, "startPitch")]
    assert proc.returncode == 1 and f"x.json:{line}: " in proc.stderr, proc.stderr


def test_invalid_utf8_is_refused(folder):
    (folder / "x.json").write_bytes(b'{"title": "Ab\xff\xfecd", ' + GOOD.encode() + b"}")
    proc = validate("x.json", cwd=folder)
    assert proc.returncode == 1 and "the text is not valid UTF-8" in proc.stderr, proc.stderr


def test_escaped_and_astral_text_counts_as_characters(folder):
    # "\u00e9" is one character; four of them make a 4-character title
    (folder / "x.json").write_text('{"title": "\\u00e9\\u00e9\\ud83d\\ude00\\u00e9", ' + GOOD + '}')
    proc = validate("x.json", cwd=folder)
    assert proc.returncode == 0, proc.stderr


# MARK: - Rules over the whole collection


def write(folder, name, text):
    (folder / name).write_text(text, encoding="utf-8")
    return name


def test_unique_titles_ignore_case_and_outer_spaces_and_the_later_file_names_the_earlier(folder):
    write(folder, "a.json", exp_text("Same Title"))
    write(folder, "b.json", exp_text("  sAME title "))
    proc = validate("a.json", "b.json", cwd=folder)
    assert proc.returncode == 1
    bad = [r for r in proc.stderr.splitlines() if r.startswith("b.json:")]
    assert bad and "a.json" in bad[0], proc.stderr
    assert not [r for r in proc.stderr.splitlines() if r.startswith("a.json:")], proc.stderr


def test_the_later_file_is_in_the_order_read_command_line_order_for_validate(folder):
    """format.md Unique titles: the later file in the order read gets the error, naming the
    earlier; for validate the order read is the command line's, a folder's files in name order."""
    write(folder, "a.json", exp_text("Same Title"))
    write(folder, "b.json", exp_text("same title"))
    proc = validate("b.json", "a.json", cwd=folder)
    assert proc.returncode == 1
    assert [r for r in proc.stderr.splitlines() if r.startswith("a.json:") and "b.json" in r], proc.stderr
    assert not [r for r in proc.stderr.splitlines() if r.startswith("b.json:")], proc.stderr
    sub = folder / "sub"
    write_media(sub)
    write(sub, "b.json", exp_text("Other"))
    write(sub, "a.json", exp_text("OTHER"))
    proc = validate("sub", cwd=folder)
    assert proc.returncode == 1
    rows = [r for r in proc.stderr.splitlines() if "b.json:" in r.split(" ")[0]]
    assert rows and "a.json" in rows[0], proc.stderr


def test_custom_titles_only_clash_inside_one_owners_collection(folder):
    write(folder, "a.json", exp_text("Dentist", "custom", "sam"))
    write(folder, "b.json", exp_text("Dentist", "custom", "kim"))
    assert validate("a.json", "b.json", cwd=folder).returncode == 0
    write(folder, "c.json", exp_text("dentist"))  # premade: in every collection
    proc = validate("a.json", "b.json", "c.json", cwd=folder)
    assert proc.returncode == 1 and proc.stderr.startswith("c.json:"), proc.stderr
    write(folder, "0.json", exp_text("DENTIST"))
    proc = validate("0.json", "a.json", cwd=folder)
    assert proc.returncode == 1 and proc.stderr.startswith("a.json:") and "0.json" in proc.stderr, proc.stderr


def test_at_most_ten_custom_experiences_per_owner(folder):
    names = [write(folder, f"c{i:02}.json", exp_text(f"Visit {i:02}", "custom", "sam")) for i in range(1, 12)]
    names.append(write(folder, "k.json", exp_text("Visit kim", "custom", "kim")))
    names.append(write(folder, "p.json", exp_text("Visit premade")))
    assert validate(*names[:10], *names[11:], cwd=folder).returncode == 0
    proc = validate(*names, cwd=folder)
    assert proc.returncode == 1
    errs = {r.split(":")[0] for r in proc.stderr.splitlines() if re.match(r"[^:]+\.json:\d+: (?!warning)", r)}
    assert errs == {"c11.json"}, proc.stderr


def ok_title(stdout, name):
    rows = [r for r in stdout.splitlines() if pathlib.PurePath(r.split(":")[0]).name == name]
    return rows[0] if rows else ""


def test_default_titles_count_every_title_of_the_collection(folder):
    write(folder, "a.json", exp_text())
    write(folder, "b.json", exp_text("Experience 1"))
    write(folder, "c.json", exp_text(" "))
    proc = validate("a.json", "b.json", "c.json", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert '"experience 2"' in ok_title(proc.stdout, "a.json"), proc.stdout
    assert '"experience 3"' in ok_title(proc.stdout, "c.json"), proc.stdout


def test_default_titles_per_owner_collection(folder):
    write(folder, "a.json", exp_text(None, "custom", "sam"))
    write(folder, "b.json", exp_text(None, "custom", "kim"))
    write(folder, "c.json", exp_text())
    proc = validate(folder, cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert '"experience 1"' in ok_title(proc.stdout, "a.json"), proc.stdout
    assert '"experience 1"' in ok_title(proc.stdout, "b.json"), proc.stdout
    assert '"experience 2"' in ok_title(proc.stdout, "c.json"), proc.stdout


def test_file_name_order_is_byte_order(folder):
    """'B' (0x42) and '_' (0x5F) sort before 'a' (0x61): defaults go B, _, a."""
    for name in ("a.json", "B.json", "_.json"):
        write(folder, name, exp_text())
    proc = validate(".", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    for name, n in (("B.json", 1), ("_.json", 2), ("a.json", 3)):
        assert f'"experience {n}"' in ok_title(proc.stdout, name), proc.stdout


def test_titles_ignore_case_beyond_ascii(folder):
    write(folder, "a.json", exp_text("ZAHNÄRZTIN"))
    write(folder, "b.json", exp_text("zahnärztin"))
    proc = validate(".", cwd=folder)
    assert proc.returncode == 1 and "b.json:" in proc.stderr and "a.json" in proc.stderr, proc.stderr


def test_an_invalid_title_is_an_error_not_the_default(folder):
    write(folder, "a.json", exp_text("abc"))
    proc = validate("a.json", cwd=folder)
    assert proc.returncode == 1 and proc.stderr.startswith("a.json:1: "), proc.stderr


# MARK: - What validate reads


def test_a_missing_path_and_an_empty_folder_are_errors(folder):
    proc = validate("nope.json", cwd=folder)
    assert proc.returncode == 1
    assert "nope.json: no such file: check the path (an experience is a .json file)" in proc.stderr
    (folder / "empty").mkdir()
    proc = validate("empty", cwd=folder)
    assert proc.returncode == 1 and "empty" in proc.stderr and "json" in proc.stderr, proc.stderr


def test_a_folder_is_its_visible_json_files_directly_inside(folder):
    write(folder, "b.json", exp_text("Bbbb"))
    write(folder, "a.json", exp_text("Aaaa"))
    write(folder, ".hidden.json", "not json")
    write(folder, "notes.txt", "not json")
    (folder / "sub").mkdir()
    write(folder / "sub", "deep.json", "not json")
    proc = validate(".", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    rows = [r.split(":")[0] for r in proc.stdout.splitlines() if ".json:" in r]
    assert [pathlib.Path(r).name for r in rows] == ["a.json", "b.json"], proc.stdout


def test_validate_of_a_folder_refuses_two_files_with_one_slug(folder):
    write(folder, "a b.json", exp_text("First"))
    write(folder, "a-b.json", exp_text("Second"))
    for args in (["."], ["a-b.json", "a b.json"]):
        proc = validate(*args, cwd=folder)
        assert proc.returncode == 1, proc.stderr
        assert [r for r in proc.stderr.splitlines() if "a b.json" in r and "a-b.json" in r], proc.stderr
