"""`dossier experiences validate|import` run as a caretaker would run them."""
import json
import pathlib

from conftest import REPO

DEMO = REPO / "Examples" / "demo" / "data" / "experiences"
FIXTURES = REPO / "Tests" / "ExperiencesTests" / "Fixtures"


def test_validate_accepts_the_demo_without_warnings(run_dossier):
    files = sorted(str(p) for p in DEMO.glob("*.json"))
    proc = run_dossier("experiences", "validate", *files)
    assert "warning" not in proc.stderr
    assert proc.stdout.count(": ok: ") == len(files) == 2
    assert "shortest path waiting → hall → chair" in proc.stdout


def test_validate_json_reports_graph_and_levels(run_dossier):
    proc = run_dossier("experiences", "validate", "--json", str(DEMO / "dentist.json"))
    [report] = json.loads(proc.stdout)
    assert report["graph"]["shortestPath"] == ["waiting", "hall", "chair"]
    assert report["graph"]["clipsPerPanorama"] == {"waiting": 1, "hall": 0, "chair": 3}
    levels = {m["path"]: m.get("level") for m in report["media"]["items"]}
    assert levels["media/hello.wav"]["peakDBFS"] < -7.9        # made at -8 dBFS peak
    assert levels["media/dentist.mp4"] is None


def test_validate_reports_file_and_line_and_exits_1(run_dossier, tmp_path):
    src = (DEMO / "dentist.json").read_text().replace('"target": "chair"', '"target": "roof"')
    bad = tmp_path / "bad.json"
    bad.write_text(src)
    (tmp_path / "media").symlink_to(DEMO / "media")
    proc = run_dossier("experiences", "validate", str(bad), check=False)
    assert proc.returncode == 1
    line = src.splitlines().index(next(l for l in src.splitlines() if '"roof"' in l)) + 1
    assert f"{bad}:{line}: door \"Go to the dentist\" leads to panorama \"roof\"" in proc.stderr


def test_import_pannellum_writes_the_golden_file_and_reports_leftovers(run_dossier, tmp_path):
    out = tmp_path / "tour.json"
    proc = run_dossier("experiences", "import", "pannellum", str(FIXTURES / "pannellum-tour.json"), "--output", str(out))
    assert out.read_text() == (FIXTURES / "pannellum-tour.expected.json").read_text()
    assert "hot spot URL has no Prep equivalent and was left out (the link was dropped)" in proc.stderr
    assert '"kind": "note"' in out.read_text()   # the info hot spot became a note
    assert proc.stdout == ""


def test_import_of_a_remote_image_is_a_clear_error_and_writes_nothing(run_dossier, tmp_path):
    src = tmp_path / "remote.json"
    src.write_text('{"scenes": {"a": {"title": "A",\n "panorama": "https://example.org/a.jpg"}}}')
    out = tmp_path / "out.json"
    proc = run_dossier("experiences", "import", "pannellum", str(src), "--output", str(out), check=False)
    assert proc.returncode == 1
    assert f"{src}:2: " in proc.stderr and "is a remote address" in proc.stderr
    assert not out.exists()


def test_import_marzipano_to_stdout(run_dossier):
    proc = run_dossier("experiences", "import", "marzipano", str(FIXTURES / "marzipano-data.js"))
    assert proc.stdout == (FIXTURES / "marzipano-data.expected.json").read_text()


def test_unknown_import_format_is_a_usage_error(run_dossier):
    proc = run_dossier("experiences", "import", "krpano", "x.xml", check=False)
    assert proc.returncode == 2
