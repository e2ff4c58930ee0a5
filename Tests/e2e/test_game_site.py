"""End-to-end: the game section builds a site from JSON Lines and from SQLite, identically."""
import filecmp
import json


def _project(root, block):
    root.mkdir(parents=True, exist_ok=True)
    (root / "dossier.yml").write_text("title: Game\noutput: _site\ngame:\n" + block)
    return root


def test_site_from_jsonl_and_sqlite_is_identical(run_dossier, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    run_dossier("game", "simulate", "--players", "60", "--seed", "12", "--out", data / "cohort.jsonl",
                "--db", data / "study.sqlite")
    a = _project(tmp_path / "a", f"  telemetry: {data / 'cohort.jsonl'}\n  private_site: true\n")
    b = _project(tmp_path / "b", f"  database: {data / 'study.sqlite'}\n  private_site: true\n")
    out_a = run_dossier("build", a)
    run_dossier("build", b)
    # 60 players are too few for the model (events per predictor < 10): the only warning says so.
    assert "no model: too few players" in out_a.stdout + out_a.stderr
    ga, gb = a / "_site" / "game", b / "_site" / "game"
    files = sorted(p.relative_to(ga) for p in ga.rglob("*") if p.is_file())
    assert len(files) > 60 * 3
    assert files == sorted(p.relative_to(gb) for p in gb.rglob("*") if p.is_file())
    _, mismatch, errors = filecmp.cmpfiles(ga, gb, [str(f) for f in files], shallow=False)
    assert mismatch == [] and errors == []
    # A private site: every player has a page and side outputs; the model card is there.
    players = json.loads((ga / "players.json").read_text())
    assert len(players) == 60
    for p in players:
        assert (ga / "players" / p["id"] / "index.html").exists()
        assert (ga / "players" / p["id"] / "norms.csv").exists()
    cohort = (ga / "cohort" / "index.html").read_text()
    assert "Model card" in cohort and "No model was fitted" in cohort and "not a diagnosis" in cohort
    assert not (ga / "model.json").exists()


def test_bad_telemetry_names_file_and_line(run_dossier, tmp_path):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"type":"survey","player":"p1","complete":true,"diagnosed":false,"age":30,"gender":"female"}\n'
                    '{"type":"session","player":"p1","session":1,"start":0,"end":100,"score":0,"taps":[50,20]}\n')
    proj = _project(tmp_path / "p", f"  telemetry: {data}\n")
    proc = run_dossier("build", proj, check=False)
    assert proc.returncode == 1
    assert "bad.jsonl:2:" in proc.stderr and "goes backwards" in proc.stderr


def test_cohort_unit_is_rebuilt_only_when_inputs_or_options_change(run_dossier, tmp_path):
    data = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "30", "--seed", "4", "--out", data)
    proj = _project(tmp_path / "p", f"  telemetry: {data}\n")
    first = run_dossier("build", proj)
    assert "0 unchanged" in first.stderr + first.stdout
    # The first build made the privacy key (.dossier/privacy.key, an input of the public
    # release: docs/game-privacy.md) and stored the cohort under it: the next build reuses it.
    key = proj / ".dossier" / "privacy.key"
    made = key.read_bytes()
    again = run_dossier("build", "--verbose", proj)
    assert "1 unit, 1 unchanged" in again.stderr + again.stdout, again.stderr
    assert "0 pages rendered" in again.stderr + again.stdout
    # A lost key: the next build draws a new one and renders the cohort with it (never the
    # pages made with the old key under the "no key yet" salt), then reuses that.
    key.unlink()
    lost = run_dossier("build", "--verbose", proj)
    assert "1 unit, 0 unchanged" in lost.stderr + lost.stdout, lost.stderr
    assert key.read_bytes() != made
    again = run_dossier("build", proj)
    assert "0 pages rendered" in again.stderr + again.stdout
    (proj / "dossier.yml").write_text(f"title: Game\noutput: _site\ngame:\n  telemetry: {data}\n  C: 0.5\n")
    changed = run_dossier("build", proj)
    assert "0 pages rendered" not in changed.stderr + changed.stdout
    again = run_dossier("build", proj)
    assert "0 pages rendered" in again.stderr + again.stdout
