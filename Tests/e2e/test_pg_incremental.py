"""A game study on PostgreSQL builds incrementally (docs/store.md, docs/game-measures.md
"Incremental builds"): the cohort unit is keyed by a digest of what it reads from the
database in one snapshot, so a second build with no new data reuses it and writes the
same site, and a build after an ingest rebuilds it — exactly when the data changed."""
import re

from test_game_release_data import sealed_players
from test_store_postgres import game_project, tree


def units(out):
    """(units, unchanged) from `dossier build --verbose`'s planning line."""
    m = re.search(r"(\d+) units?, (\d+) unchanged", out)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def test_the_cohort_unit_is_rebuilt_exactly_when_the_rows_change(pg_database, run_dossier, dossier_bin, tmp_path):
    pg, db = pg_database
    env = pg.client_env()
    uploads = sealed_players(dossier_bin, tmp_path, players=12, seed=7)
    proj = game_project(tmp_path / "p", pg.url(db))
    key = tmp_path / "study.key"
    run_dossier("game", "ingest", "--key", key, *uploads[:8], "--db", pg.url(db), env=env)

    # The first build makes the public release's privacy key (kept in the database); the
    # key's tag is part of the unit's salt, so the build after it is the first that can
    # reuse the unit.
    run_dossier("build", proj, env=env)
    first = run_dossier("build", "--verbose", proj, env=env)
    total, _ = units(first.stdout + first.stderr)
    site = tree(proj / "_site")

    same = run_dossier("build", "--verbose", proj, env=env)
    assert units(same.stdout + same.stderr) == (total, total), "nothing changed, yet a unit was rebuilt"
    assert tree(proj / "_site") == site

    # The same uploads again change no row: still nothing to rebuild.
    run_dossier("game", "ingest", "--key", key, *uploads[:8], "--db", pg.url(db), env=env)
    again = run_dossier("build", "--verbose", proj, env=env)
    assert units(again.stdout + again.stderr) == (total, total)

    run_dossier("game", "ingest", "--key", key, *uploads[8:], "--db", pg.url(db), env=env)
    changed = run_dossier("build", "--verbose", proj, env=env)
    assert units(changed.stdout + changed.stderr) == (total, total - 1), "new rows, yet the cohort unit was reused"
    after = tree(proj / "_site")
    assert after["game/cohort/index.html"] != site["game/cohort/index.html"]

    # And the result equals a clean build of the same rows.
    run_dossier("build", "--clean", proj, env=env)
    assert tree(proj / "_site") == after
