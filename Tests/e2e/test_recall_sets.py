"""End-to-end: a project with two string sets (seed 4a.3, strings changed between waves).

Each participant's entries must be judged against the strings of the set its log names
(checked here from the set files, not from Dossier's tables); the summary is per set with
a table of which participant used which set; a log naming an unknown set is an error
with file and line, and nothing is written.
"""
import csv
import io
import json
import pathlib

WAVE2 = ["Kp2#vx", "t7&Lm0qZ", "aa9!Bc", "Zr4(wq=1", "h3Hh;pQ8", "N0v%2y", "c8)Jk4Ls@1", "w5^Te", "Y6~ug2Rk", "e1*Db7Xz"]


def set_header(log: pathlib.Path, name, drop_strings=False):
    """Names `name` as the log's set (None: no set) in the header line."""
    lines = log.read_text(encoding="utf-8").split("\n")
    head = json.loads(lines[0])
    if name is not None:
        head["set"] = name
    if drop_strings:
        head.pop("strings", None)
    lines[0] = json.dumps(head, ensure_ascii=False)
    log.write_text("\n".join(lines), encoding="utf-8")


def make_project(root: pathlib.Path, run_dossier):
    data = root / "data"
    run_dossier("recall", "simulate", "--participants", 3, "--seed", 5, "--out", data / "w1")
    (data / "w1" / "strings.txt").rename(data / "wave1.txt")
    (data / "wave2.txt").write_text("\n".join(WAVE2) + "\n", encoding="utf-8")
    run_dossier("recall", "simulate", "--participants", 2, "--seed", 6, "--first", 10,
                "--strings", data / "wave2.txt", "--out", data / "w2")
    set_header(data / "w1" / "S001.jsonl", "wave1")
    set_header(data / "w1" / "S002.jsonl", None)                        # no set: the first (default) set
    set_header(data / "w1" / "S003.jsonl", "wave1")
    set_header(data / "w2" / "S010.jsonl", "wave2")
    set_header(data / "w2" / "S011.jsonl", "wave2", drop_strings=True)  # only its entries tie it to wave2
    (root / "dossier.yml").write_text(
        "title: Two waves\n"
        "recall:\n"
        "  strings:\n"
        "    wave1: data/wave1.txt\n"
        "    wave2: data/wave2.txt\n"
        "  logs: [data/w1, data/w2]\n",
        encoding="utf-8",
    )
    return root


def read_csv(path):
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def test_each_participant_is_compared_with_the_strings_of_its_set(tmp_path, run_dossier):
    root = make_project(tmp_path / "p", run_dossier)
    run_dossier("build", root)
    site = root / "_site" / "recall"
    wave1 = (root / "data" / "wave1.txt").read_text(encoding="utf-8").split("\n")[:10]
    expected = {"S001": ("wave1", wave1), "S002": ("wave1", wave1), "S003": ("wave1", wave1),
                "S010": ("wave2", WAVE2), "S011": ("wave2", WAVE2)}

    correct_seen = {"wave1": 0, "wave2": 0}
    for pid, (name, strings) in expected.items():
        p = json.loads((site / "participants" / pid / "participant.json").read_text(encoding="utf-8"))
        for s in p["strings"]:
            assert s["target"] == strings[s["number"] - 1], (pid, s["number"])
            for e in s["entries"]:
                assert e["correct"] == (e["text"] == strings[s["number"] - 1]), (pid, e)
                correct_seen[name] += e["correct"]
    assert correct_seen["wave1"] > 0 and correct_seen["wave2"] > 0

    # Which participant used which set.
    rows = read_csv(site / "sets.csv")
    assert {(r["participant"], r["string_set"]) for r in rows} == {(k, v[0]) for k, v in expected.items()}
    assert {r["strings_file"] for r in rows} == {"data/wave1.txt", "data/wave2.txt"}
    assert len(json.loads((site / "sets.json").read_text(encoding="utf-8"))) == 5

    # One summary per set, each with only its participants and its own strings.
    for name, strings in (("wave1", wave1), ("wave2", WAVE2)):
        d = site / "sets" / name
        assert [r["target"] for r in read_csv(d / "strings.csv")] == strings
        members = {k for k, v in expected.items() if v[0] == name}
        assert {r["participant"] for r in read_csv(d / "participants.csv")} == members
        assert {r["participant"] for r in read_csv(d / "entries.csv")} <= members
        page = (d / "index.html").read_text(encoding="utf-8")
        assert f"string set <code>{name}</code>" in page
        for pid in members:
            assert f'href="../../participants/{pid}/index.html"' in page
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="sets/wave1/index.html"' in index and 'href="sets/wave2/index.html"' in index
    assert 'href="participants/S011/index.html"' in index
    assert not (site / "entries.csv").exists()     # the study-wide files live in each set's folder


def test_a_log_naming_an_unknown_set_is_an_error_at_its_header(tmp_path, run_dossier):
    root = make_project(tmp_path / "p", run_dossier)
    set_header(root / "data" / "w2" / "S010.jsonl", "wave3")
    proc = run_dossier("build", root, check=False)
    assert proc.returncode == 1
    err = proc.stdout + proc.stderr
    assert "data/w2/S010.jsonl:1:" in err and '"wave3"' in err, err
    assert not (root / "_site").exists()


def test_a_bad_set_name_in_the_manifest_is_an_error_at_its_line(tmp_path, run_dossier):
    root = make_project(tmp_path / "p", run_dossier)
    yml = root / "dossier.yml"
    yml.write_text(yml.read_text(encoding="utf-8").replace("    wave2:", "    wave 2:"), encoding="utf-8")
    proc = run_dossier("build", root, check=False)
    assert proc.returncode == 1
    assert "dossier.yml:5:" in proc.stdout + proc.stderr


def test_a_log_that_names_no_set_takes_the_set_its_strings_agree_with(tmp_path, run_dossier):
    """Desktop Raw Data (no header, but a target column) and native logs without `set`
    are compared with the first set, default first, whose strings agree with every string
    they declare: a desktop file of the NIST wave lands in that wave, not in the default."""
    demo = pathlib.Path(__file__).resolve().parents[2] / "Examples" / "demo" / "data" / "recall"
    root = tmp_path / "waves"
    data = root / "data"
    run_dossier("recall", "simulate", "--participants", 2, "--seed", 7, "--strings", _write(data / "new.txt", WAVE2),
                "--out", data / "logs")
    (data / "logs" / "strings.txt").unlink(missing_ok=True)
    (data / "nist.txt").write_bytes((demo / "strings.txt").read_bytes())
    (data / "logs" / "desktop-p2.csv").write_bytes((demo / "logs" / "desktop-p2.csv").read_bytes())
    (root / "dossier.yml").write_text(
        "title: Waves\nrecall:\n  strings:\n    new: data/new.txt\n    nist: data/nist.txt\n  logs: data/logs\n",
        encoding="utf-8")
    build = run_dossier("build", root)
    assert "warning" not in build.stderr.lower(), build.stderr
    placed = {(r["string_set"], r["source_file"].rsplit("/", 1)[-1]) for r in read_csv(root / "_site" / "recall" / "sets.csv")}
    assert placed == {("new", "S001.jsonl"), ("new", "S002.jsonl"), ("nist", "desktop-p2.csv")}, placed
    # A log whose strings agree with no set is still compared with the default and refused there.
    bad = data / "logs" / "desktop-p2.csv"
    bad.write_text(bad.read_text(encoding="utf-8").replace("5c2'Qe", "5c2'Qx"), encoding="utf-8")
    before = sorted(p.relative_to(root) for p in (root / "_site").rglob("*"))
    proc = run_dossier("build", root, check=False)
    assert proc.returncode == 1, proc.stderr
    assert "desktop-p2.csv:" in proc.stderr and "strings file has" in proc.stderr, proc.stderr
    assert sorted(p.relative_to(root) for p in (root / "_site").rglob("*")) == before


def _write(path: pathlib.Path, strings):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(strings) + "\n", encoding="utf-8")
    return path
