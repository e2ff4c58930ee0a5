"""A study with the game kit starts before any game was ingested (docs/game-kit.md,
"Running a study"): with `kit: true` a `database:` that does not exist yet builds the game
page and a cohort page saying no player has sent a game yet; the first `game ingest`
makes the database and the next build shows its players. Without `kit: true` a missing
database stays an error naming dossier.yml and the line. `dossier check` agrees with
`dossier build` in each case."""
import json
import pathlib
import re
import shutil

import pytest

KIT = "game:\n  database: data/study.sqlite\n  kit: true\n  public_key: keys/study.pub\n"


def make_study(tmp_path, run_dossier, yml):
    root = tmp_path / "study"
    (root / "keys").mkdir(parents=True)
    run_dossier("game", "keygen", "--out", root / "keys" / "study", "--bits", "2048")
    (root / "dossier.yml").write_text(yml, encoding="utf-8")
    return root


def text(path):
    return path.read_text(encoding="utf-8")


def test_kit_builds_before_the_first_game_and_shows_players_after_ingest(tmp_path, run_dossier):
    root = make_study(tmp_path, run_dossier, KIT)
    db = root / "data" / "study.sqlite"
    assert not db.exists()
    run_dossier("check", root)
    run_dossier("build", root)
    site = root / "_site"
    play = text(site / "game" / "play" / "index.html")
    pub = "".join(text(root / "keys" / "study.pub").splitlines()[1:-1])
    assert pub in play                                   # the page seals to this study's key
    cohort = text(site / "game" / "cohort" / "index.html")
    index = text(site / "game" / "index.html")
    for page in (cohort, index):
        assert "No player has sent a game yet." in page
        assert "game/play/index.html" in page
    # No analysis: no counts, comparisons, model card or data files.
    assert "Group sizes" not in cohort and "Model card" not in cohort and "AUC" not in cohort + index
    assert "0 players" not in index                      # nor "0 players' own results are published"
    assert "no player has sent a game yet" in text(site / "index.html")   # the home page's blurb
    assert not list((site / "game").glob("*.csv")) and not (site / "game" / "results").exists()
    assert not db.exists()                               # the build makes no database

    # The first games arrive: simulated players, sealed as the page seals, ingested
    # (`game ingest --db` makes the database file, not its folder).
    db.parent.mkdir()
    run_dossier("game", "simulate", "--players", "12", "--seed", "4", "--out", tmp_path / "c.jsonl")
    run_dossier("game", "seal", "--public", root / "keys" / "study.pub", "--out", tmp_path / "up", tmp_path / "c.jsonl")
    run_dossier("game", "ingest", "--key", root / "keys" / "study.key", tmp_path / "up", "--db", db)
    players = len(json.loads(run_dossier("game", "analyze", "--db", db, "--json").stdout)["players"])
    assert players > 0
    run_dossier("check", root)
    run_dossier("build", root)                           # incremental: the new database is seen
    index = text(site / "game" / "index.html")
    cohort = text(site / "game" / "cohort" / "index.html")
    assert "o player has sent a game yet" not in index + cohort + text(site / "index.html")
    # The public overview's player count is a noisy count (docs/game-privacy.md); the
    # encrypted results are among decoys, a fixed number of files of one size, uncounted.
    assert re.search(r"<strong>\d+</strong> players\.", index), index
    assert "own result is published encrypted" in " ".join(index.split())
    assert f"{players} players' own" not in " ".join(index.split())
    assert "Group sizes by age band" in cohort and (site / "game" / "group-counts.csv").exists()
    results = list((site / "game" / "results").glob("*.rmr"))
    assert len(results) == 256 and {f.stat().st_size for f in results} == {8224}
    assert (site / "game" / "play" / "index.html").exists()


def test_a_private_kit_site_before_the_first_game_builds_and_stays_private(tmp_path, run_dossier):
    root = make_study(tmp_path, run_dossier, KIT + "  private_site: true\n")
    run_dossier("check", root)
    run_dossier("build", root)                           # no link to player files that are not there
    site = root / "_site"
    assert (site / "PRIVATE-SITE.txt").exists() and (site / "game" / "play" / "index.html").exists()
    assert "No player has sent a game yet." in text(site / "game" / "cohort" / "index.html")


@pytest.mark.parametrize("command", ["build", "check"])
def test_missing_database_without_kit_is_an_error_with_file_and_line(tmp_path, run_dossier, command):
    root = make_study(tmp_path, run_dossier, "title: S\ngame:\n  simulated: true\n  database: data/study.sqlite\n")
    res = run_dossier(command, root, check=False)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "dossier.yml:4" in res.stderr and "file not found: data/study.sqlite" in res.stderr, res.stderr
    assert not (root / "_site").exists() and not (root / "data").exists()


def test_kit_with_a_missing_database_still_checks_the_other_keys(tmp_path, run_dossier):
    root = make_study(tmp_path, run_dossier, KIT + "  telemetry: data/c.jsonl\n")
    for command in ("check", "build"):
        res = run_dossier(command, root, check=False)
        assert res.returncode == 1 and "dossier.yml:2" in res.stderr and "either telemetry or database" in res.stderr, res.stderr
    assert not (root / "_site").exists()


def test_the_waiting_pages_are_accessible_in_both_schemes_and_sizes(tmp_path, run_dossier):
    """game/index.html and the waiting cohort page: axe-core clean, no sideways scrolling
    at 1280×900 and 390×844, light and dark (screenshots in $DOSSIER_SHOTS or a temp folder)."""
    pytest.importorskip("selenium")
    if not shutil.which("chromedriver") and not pathlib.Path("/usr/bin/chromedriver").exists():
        pytest.skip("chromedriver is not installed")
    from game_kit_driver import start_browser
    from page_checks import SIZES, axe_source, each_view, look, set_size, shots_folder
    root = make_study(tmp_path, run_dossier, KIT)
    run_dossier("build", root)
    shots = shots_folder(tmp_path / "shots")
    source, problems = axe_source(), []
    d = start_browser(tmp_path, mobile=False)
    d.set_script_timeout(60)
    try:
        for name in ("index", "cohort"):
            page = root / "_site" / "game" / ("index.html" if name == "index" else "cohort/index.html")
            set_size(d, *SIZES[0])
            d.get(page.as_uri())
            assert "No player has sent a game yet." in d.find_element("css selector", "main").text
            d.execute_script(source)
            for scheme, w, h in each_view(d):
                problems += look(d, shots, f"game-waiting-{name}", scheme, w, h)
    finally:
        d.quit()
    assert not problems, "\n".join(problems)
