"""Commands that write data files where the user points never replace a file already
there without --force (docs/recall-section.md, "Tools"). Before, `recall simulate
--output data/recall/logs` overwrote real participants' logs of the same numbers (and the
study's strings.txt), and `game simulate --output`, `recall import-desktop --output`
and `experiences import --output` replaced any file, without a word."""
import hashlib
import subprocess

REPO_DEMO_RAW = "Examples/demo/data/recall/logs/desktop-p2.csv"


def run(dossier_bin, *args):
    return subprocess.run([dossier_bin, *map(str, args)], capture_output=True, text=True, timeout=300)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_recall_simulate_keeps_every_log_already_in_the_folder(dossier_bin, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    real = logs / "S002.jsonl"
    real.write_text('{"type":"session","note":"a real participant"}\n')
    p = run(dossier_bin, "recall", "simulate", "--participants", 3, "--output", logs)
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"{real}: already exists" in p.stderr
    assert "recall simulate never replaces a file unless --force is given. Nothing was written" in p.stderr
    assert real.read_text() == '{"type":"session","note":"a real participant"}\n'
    assert sorted(f.name for f in logs.iterdir()) == ["S002.jsonl"]
    # A range that misses every log there (and its own strings file) adds to the folder.
    strings = tmp_path / "strings.txt"
    assert run(dossier_bin, "recall", "simulate", "--participants", 1, "--output", tmp_path / "s").returncode == 0
    (tmp_path / "s" / "strings.txt").rename(strings)
    p = run(dossier_bin, "recall", "simulate", "--participants", 2, "--first", 3, "--strings", strings,
            "--output", logs)
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(f.name for f in logs.iterdir()) == ["S002.jsonl", "S003.jsonl", "S004.jsonl"]
    # --force replaces, and says nothing of refusing.
    p = run(dossier_bin, "recall", "simulate", "--participants", 3, "--output", logs, "--force")
    assert p.returncode == 0, p.stdout + p.stderr
    assert real.read_text() != '{"type":"session","note":"a real participant"}\n'


def test_a_folder_with_only_strings_txt_is_counted_too(dossier_bin, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "strings.txt").write_text("the study's own strings\n")
    p = run(dossier_bin, "recall", "simulate", "--participants", 2, "--output", logs)
    assert p.returncode == 1 and "strings.txt: already exists" in p.stderr, p.stderr
    assert (logs / "strings.txt").read_text() == "the study's own strings\n"


def test_game_simulate_and_import_desktop_keep_an_existing_output(dossier_bin, tmp_path):
    from conftest import REPO
    cohort = tmp_path / "cohort.jsonl"
    cohort.write_text("real telemetry\n")
    p = run(dossier_bin, "game", "simulate", "--players", 3, "--output", cohort)
    assert p.returncode == 1 and f"{cohort}: already exists" in p.stderr, p.stderr
    assert cohort.read_text() == "real telemetry\n"
    assert run(dossier_bin, "game", "simulate", "--players", 3, "--output", cohort, "--force").returncode == 0
    assert cohort.read_text() != "real telemetry\n"
    out = tmp_path / "p2.jsonl"
    out.write_text("a converted log\n")
    before = digest(out)
    p = run(dossier_bin, "recall", "import-desktop", REPO / REPO_DEMO_RAW, "--output", out)
    assert p.returncode == 1 and f"{out}: already exists" in p.stderr, p.stderr
    assert digest(out) == before
    p = run(dossier_bin, "recall", "import-desktop", REPO / REPO_DEMO_RAW, "--output", out, "--force")
    assert p.returncode == 0, p.stdout + p.stderr
    assert digest(out) != before


def test_experiences_import_keeps_an_existing_experience(dossier_bin, tmp_path):
    from conftest import REPO
    tour = REPO / "Tests/ExperiencesTests/Fixtures/marzipano-data.js"
    mine = tmp_path / "visit.json"
    mine.write_text('{"title": "my own visit"}\n')
    p = run(dossier_bin, "experiences", "import", "marzipano", tour, "--output", mine)
    assert p.returncode == 1 and f"{mine}: already exists" in p.stderr, p.stderr
    assert "experiences import never replaces a file unless --force is given" in p.stderr
    assert mine.read_text() == '{"title": "my own visit"}\n'
    assert run(dossier_bin, "experiences", "import", "marzipano", tour, "--output", mine, "--force").returncode == 0
    assert '"title"' in mine.read_text() and "my own visit" not in mine.read_text()
