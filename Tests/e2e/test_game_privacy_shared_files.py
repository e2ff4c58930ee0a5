"""A second project on the same game telemetry files (docs/game-privacy.md, "Whose releases
the ledger adds up"): its privacy key and ledger are its own, so its public releases are not
counted with the first project's. A build of the public site from telemetry outside the
project folder says so; one whose telemetry is inside, a private site, and a project on a
study database do not."""
import json
import os
import shutil

WARNING = "telemetry outside the project"


def _project(root, block):
    root.mkdir(parents=True, exist_ok=True)
    (root / "dossier.yml").write_text("title: Game\ngame:\n" + block)
    return root


def _warnings(proc):
    return [line for line in (proc.stdout + proc.stderr).splitlines() if WARNING in line]


def _release(project):
    return json.loads((project / "_site" / "game" / "privacy.json").read_text())["release"]


def test_a_second_project_on_the_same_files_is_warned_and_draws_its_own_noise(run_dossier, tmp_path):
    a = _project(tmp_path / "a", "  telemetry: data/cohort.jsonl\n")
    (a / "data").mkdir()
    run_dossier("game", "simulate", "--players", "40", "--seed", "5", "--out", a / "data" / "cohort.jsonl")
    first = run_dossier("build", a)
    assert _warnings(first) == []

    b = _project(tmp_path / "b", "  telemetry: ../a/data/cohort.jsonl\n")
    second = run_dossier("build", b)
    lines = _warnings(second)
    assert len(lines) == 1, second.stderr
    assert "(../a/data/cohort.jsonl)" in lines[0] or f"({a / 'data' / 'cohort.jsonl'})" in lines[0], lines[0]
    assert "ledger" in lines[0] and "one study database" in lines[0]
    # Why it warns: B made a key of its own, so the same data gives another release and other noise.
    assert (b / ".dossier" / "privacy.key").read_bytes() != (a / ".dossier" / "privacy.key").read_bytes()
    assert _release(a) != _release(b)
    # `-q` keeps warnings, and the warning is printed again while the unit is reused.
    again = run_dossier("build", "-q", b)
    assert len(_warnings(again)) == 1
    # `dossier check` says the same, and writes nothing.
    assert len(_warnings(run_dossier("check", b))) == 1


def test_a_link_inside_the_project_to_outside_files_is_warned(run_dossier, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    run_dossier("game", "simulate", "--players", "30", "--seed", "6", "--out", shared / "cohort.jsonl")
    p = _project(tmp_path / "p", f"  telemetry: data\nallow_outside: [{shared}]\n")
    (p / "data").mkdir()
    os.symlink(shared / "cohort.jsonl", p / "data" / "cohort.jsonl")
    lines = _warnings(run_dossier("build", p))
    assert len(lines) == 1 and "data/cohort.jsonl" in lines[0], lines
    # The same file copied in: nothing to warn about.
    (p / "data" / "cohort.jsonl").unlink()
    shutil.copy(shared / "cohort.jsonl", p / "data" / "cohort.jsonl")
    assert _warnings(run_dossier("build", p)) == []


def test_no_warning_without_a_public_release_from_files(run_dossier, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    run_dossier("game", "simulate", "--players", "30", "--seed", "7", "--out", data / "cohort.jsonl",
                "--db", data / "study.sqlite")
    private = _project(tmp_path / "private", f"  telemetry: {data / 'cohort.jsonl'}\n  private_site: true\n")
    assert _warnings(run_dossier("build", private)) == []
    database = _project(tmp_path / "db", f"  database: {data / 'study.sqlite'}\n")
    assert _warnings(run_dossier("build", database)) == []
