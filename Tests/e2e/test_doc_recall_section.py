"""docs/recall-section.md: units and their ids, unit order, string sets, manifest errors; participants whose
numbers differ only in case or Unicode normalisation stay apart."""
import json

import pytest

from recall_oracle import (STRINGS, Log, analyze, build, check_participant, full_session, pjson, read_csv,
                           rows_as_dicts, write_project)


def site(tmp_path):
    return tmp_path / "_site" / "recall"


def test_participant_folder_names_per_grapheme(tmp_path, dossier_bin):
    """"each character — extended grapheme cluster — other than the ASCII letters and digits, `-`, `_`, `.`
    becomes one `-`" (file names with a combining mark, a ZWJ emoji, a space)."""
    names = {"e\u0301x y.jsonl": "-x-y", "\U0001F468\u200d\U0001F469\u200d\U0001F467.jsonl": "-",
             "ok_1.2-3.jsonl": "ok_1.2-3", "\u00fc\U0001F44D\U0001F3FD.jsonl": "--"}
    write_project(tmp_path, {n: Log("P%d" % i).text() for i, n in enumerate(names)})
    build(dossier_bin, tmp_path)
    assert sorted(p.name for p in (site(tmp_path) / "participants").iterdir()) == sorted(names.values())


@pytest.mark.parametrize("pair", [("\u00e9.jsonl", "e\u0301.jsonl"), ("a b.jsonl", "a-b.jsonl"),
                                  ("x.jsonl", "x.csv")])
def test_two_files_with_one_id_are_an_error(tmp_path, dossier_bin, pair):
    """"two files mapping to the same id are an error" (NFC and NFD spellings of one name; a space and a `-`;
    the same name as native log and desktop Raw Data), exit status 1 and no site."""
    write_project(tmp_path, {pair[0]: Log("A").text()})
    desktop = "milliseconds,p,s,code,e,f,g,h,i\n100,B,1,P,D,A,,abc,False\n"
    (tmp_path / "data" / "logs" / pair[1]).write_text(desktop if pair[1].endswith(".csv") else Log("B").text())
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert not (tmp_path / "_site").exists()


def test_participants_differing_in_case_or_normalisation_stay_apart(tmp_path, dossier_bin):
    """"two logs with the same participant number stay distinguishable" (recall-study-data.md) and participants
    are "in unit order (log file names, sorted)": ids `Ä1`/`A\u0308`1/`ä1`/`P` are four participants."""
    pids = {"a.jsonl": "\u00c41", "b.jsonl": "A\u03081", "c.jsonl": "\u00e41", "d.jsonl": "\u00c41"}
    logs = {n: full_session(Log(p), recall=("abc", "k")).text() for n, p in pids.items()}
    write_project(tmp_path, logs)
    build(dossier_bin, tmp_path)
    rows = rows_as_dicts(site(tmp_path) / "participants.csv")
    assert [(r["participant"], r["source_file"]) for r in rows] == \
        [(p, "data/logs/" + n) for n, p in sorted(pids.items())]
    for n, text in logs.items():
        pj = pjson(tmp_path, n[0])
        check_participant(pj, analyze(text))
        assert pj["participant"] == pids[n]
    ent = rows_as_dicts(site(tmp_path) / "entries.csv")
    assert [r["source_file"] for r in ent] == [f"data/logs/{n}" for n in sorted(pids) for _ in range(100)]


def test_unit_order_mixes_native_and_desktop_by_file_name(tmp_path, dossier_bin):
    """"A folder means every such file in it (sorted by name)"; the Appendix A participant beside native logs."""
    import shutil
    strings = (pathlib_demo() / "strings.txt").read_text(encoding="utf-8").split("\n")[:10]
    write_project(tmp_path, {"a.jsonl": full_session(Log("N1"), strings).text(),
                             "z.jsonl": full_session(Log("N2"), strings).text()}, strings)
    shutil.copy("/work/shared/fixtures/recall/desktop-raw-appendix-a.csv", tmp_path / "data/logs/m.csv")
    build(dossier_bin, tmp_path)
    rows = rows_as_dicts(site(tmp_path) / "participants.csv")
    assert [(r["participant"], r["source"]) for r in rows] == [("N1", "native"), ("2", "desktop"), ("N2", "native")]


def pathlib_demo():
    import pathlib
    return pathlib.Path("/work/main/Examples/demo/data/recall")


SET_B = ["b%d" % n for n in range(1, 11)]


def two_sets(tmp_path, logs):
    write_project(tmp_path, logs)
    (tmp_path / "data" / "b.txt").write_text("\n".join(SET_B) + "\n")
    (tmp_path / "dossier.yml").write_text("title: t\nrecall:\n  strings:\n    first: data/strings.txt\n"
                                          "    second: data/b.txt\n  logs: data/logs\n")


def test_set_chosen_by_header_or_by_agreeing_strings(tmp_path, dossier_bin):
    """"a native log with no `set` ... uses the first set in manifest order ... whose strings agree with every
    string the log declares"; `set` names the set; sets.csv: "columns `string_set`, `strings_file`
    (project-relative), `participant`, `source_file`, `complete` ...; sets in manifest order, participants in unit
    order"."""
    logs = {"a.jsonl": full_session(Log("A", strings=SET_B), SET_B).text(),
            "b.jsonl": full_session(Log("B"), STRINGS, thankyou=False).text(),
            "c.jsonl": full_session(Log("C", set="second"), SET_B).text()}
    two_sets(tmp_path, logs)
    build(dossier_bin, tmp_path)
    assert read_csv(site(tmp_path) / "sets.csv") == [
        ["string_set", "strings_file", "participant", "source_file", "complete"],
        ["first", "data/strings.txt", "B", "data/logs/b.jsonl", "False"],
        ["second", "data/b.txt", "A", "data/logs/a.jsonl", "True"],
        ["second", "data/b.txt", "C", "data/logs/c.jsonl", "True"]]
    check_participant(pjson(tmp_path, "c"), analyze(logs["c.jsonl"], SET_B))
    tab = read_csv(site(tmp_path) / "sets" / "second" / "study-table-appendix-b.csv")
    assert [r[0] for r in tab[5:]] == ["A", "C", "section"]


@pytest.mark.parametrize("setname,what", [("third", "third"), ("", "")])
def test_log_naming_an_undefined_set(tmp_path, dossier_bin, setname, what):
    """"a name the project does not define is an error `LOG:LINE` (the header's line) naming the set and the
    defined sets; an empty name is an error at the same line"."""
    two_sets(tmp_path, {"a.jsonl": "\n" + Log("A", set=setname).text()})
    proc = build(dossier_bin, tmp_path, ok=False)
    out = proc.stdout + proc.stderr
    (msg,) = [ln for ln in out.splitlines() if ln.startswith("data/logs/a.jsonl:2:")]
    assert proc.returncode == 1 and what in msg and (not what or ("first" in msg and "second" in msg)), out


def test_one_set_project_refuses_another_set_name(tmp_path, dossier_bin):
    """"With one set, the output is exactly as described under 'Output' (a log naming another set is an error)"."""
    write_project(tmp_path, {"a.jsonl": Log("A", set="other").text()})
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1 and "data/logs/a.jsonl:1:" in proc.stdout + proc.stderr


@pytest.mark.parametrize("block,line", [("  strings:\n    bad name: data/strings.txt\n  logs: data/logs\n", 4),
                                        ("  strings:\n    .x: data/strings.txt\n  logs: data/logs\n", 4),
                                        ("  strings:\n    a: data/missing.txt\n  logs: data/logs\n", 4),
                                        ("  strings: data/strings.txt\n  logs: data/logs\n  colour: red\n", 5)])
def test_manifest_errors_name_the_line(tmp_path, dossier_bin, block, line):
    """"any other name, a value that is not a path, a file that does not exist ... is an error at that line of
    `dossier.yml`"; "Unknown keys are errors"."""
    write_project(tmp_path, {"a.jsonl": Log("A").text()})
    (tmp_path / "dossier.yml").write_text("title: t\nrecall:\n" + block)
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1 and f"dossier.yml:{line}" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_participant_over_twelve_characters_in_desktop_raw(tmp_path, dossier_bin):
    """Desktop Raw Data errors: "a participant over 12 characters or only white space (as in a native header)",
    named with the line."""
    write_project(tmp_path, {})
    (tmp_path / "data/logs/p.csv").write_text("milliseconds,p,s,code,e,f,g,h,i\n100,1234567890123,1,P,D,A,,abc,False\n")
    proc = build(dossier_bin, tmp_path, ok=False)
    assert proc.returncode == 1 and "data/logs/p.csv:2" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
