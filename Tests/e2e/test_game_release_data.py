"""A public game release is a function of the data (docs/game-privacy.md, "The data
digest"): an ingest that a second connection keeps in the `-wal` file still gives a new
release with fresh noise, and publishing both spends twice."""
import csv
import hashlib
import json
import math
import sqlite3

import pytest


def _rows(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def _noisy(game):
    """Every published noisy number, by name (counts, comparisons, τ quartiles)."""
    out = {}
    for r in _rows(game / "group-counts.csv"):
        out[("count", r["group"], r["age_band"], r["gender"])] = r["n_noisy"]
    for r in _rows(game / "tau-quartiles.csv"):
        for q in ("q1", "median", "q3"):
            out[("tau", r["group"], q)] = r[q]
    return out


def _sha256(path):
    """The file's SHA-256, read by another process: closing any descriptor of the database
    in this one would drop the reader's POSIX locks and let the ingest checkpoint."""
    import subprocess
    return subprocess.run(["sha256sum", str(path)], check=True, capture_output=True, text=True).stdout.split()[0]


@pytest.fixture(scope="module")
def study(tmp_path_factory, dossier_bin):
    """A study key, 31 sealed uploads (one player each) and a project on a database that
    holds the first 30."""
    root = tmp_path_factory.mktemp("study")
    uploads = sealed_players(dossier_bin, root, players=31, seed=12)
    assert len(uploads) == 31
    return root, uploads


def sealed_players(dossier_bin, folder, players, seed, obstacles=None):
    """In `folder`: a study key (`study.key`, `study.pub`), a simulated cohort of
    `players` (`cohort.jsonl`, with `obstacles` a session if given) and one sealed upload
    per player (`up/*.rmu`, returned sorted)."""
    import subprocess

    def run(*args):
        subprocess.run([dossier_bin, *map(str, args)], check=True, capture_output=True, text=True)
    run("game", "keygen", "--out", folder / "study", "--bits", "2048")
    per_session = ["--obstacles", obstacles] if obstacles else []
    run("game", "simulate", "--players", players, "--seed", seed, *per_session, "--out", folder / "cohort.jsonl")
    run("game", "seal", "--public", folder / "study.pub", "--out", folder / "up", folder / "cohort.jsonl")
    return sorted((folder / "up").glob("*.rmu"))


def _project(root, study_root, uploads, run_dossier, block=""):
    root.mkdir()
    db = root / "study.sqlite"
    run_dossier("game", "ingest", "--key", study_root / "study.key", *uploads, "--db", db)
    (root / "dossier.yml").write_text(f"title: Game\noutput: _site\ngame:\n  database: study.sqlite\n  results_capacity: 40\n{block}")
    return root, db


def test_an_ingest_held_in_the_wal_gives_a_new_release_and_fresh_noise(study, run_dossier, tmp_path):
    from webdav_server import WebDAVServer, env
    study_root, uploads = study
    proj, db = _project(tmp_path / "p", study_root, uploads[:30], run_dossier)
    game = proj / "_site" / "game"
    with WebDAVServer(tmp_path / "srv") as dav:
        publish = lambda: run_dossier("publish", proj, "--to", dav.url + "site/", env=env())
        run_dossier("build", proj)
        published = json.loads((game / "privacy.json").read_text())
        publish()
        # The build made the key and publish wrote the ledger, both into the database: its
        # file changed, its rows did not — the same release. (The build also finds the
        # baseline that the ingest below leaves untouched.)
        run_dossier("build", proj)
        first = json.loads((game / "privacy.json").read_text())
        assert first == published
        before = _noisy(game)
        # The study server's reader: an open read transaction keeps every later commit in -wal.
        reader = sqlite3.connect(db, isolation_level=None)
        try:
            reader.execute("BEGIN")
            assert reader.execute("SELECT COUNT(*) FROM surveys").fetchone()[0] == 30
            main_before = _sha256(db)
            out = run_dossier("game", "ingest", "--key", study_root / "study.key", uploads[30], "--db", db).stdout
            assert "1 stored" in out
            # The seam is real: the main file did not change, the newcomer is in -wal only.
            assert _sha256(db) == main_before
            assert (db.parent / (db.name + "-wal")).stat().st_size > 0
            run_dossier("build", proj)
            second = json.loads((game / "privacy.json").read_text())
            after = _noisy(game)
            # A clean rebuild of the same data (still in -wal) is the same release, byte for byte.
            again = (game / "group-counts.csv").read_bytes()
            run_dossier("build", proj, "--clean")
            assert (game / "group-counts.csv").read_bytes() == again
            assert json.loads((game / "privacy.json").read_text())["release"] == second["release"]
            publish()
        finally:
            reader.close()
    assert second["release"] != first["release"]
    # Fresh noise: reused noise would leave every count cell but the newcomer's equal. A
    # fresh discrete Laplace draw equals the old one with probability Σ P(x)² ≤ P(0) =
    # tanh(ε/2) per cell; allow that share plus 4 SD.
    eps = float(next(s["epsilon"] for s in first["spends"] if s["part"] == "counts"))
    cells = [k for k in before if k[0] == "count"]
    same = sum(before[k] == after[k] for k in cells)
    p = math.tanh(eps / 2)
    assert same <= len(cells) * p + 4 * math.sqrt(len(cells) * p * (1 - p)), (same, len(cells))
    # τ quartiles of the groups shown in both (none may be, in so small a cohort) moved too.
    taus = [k for k in before if k[0] == "tau" and before[k] != "" and after.get(k, "") != ""]
    assert not taus or sum(before[k] == after[k] for k in taus) < len(taus)
    # Both releases were published: the ledger holds two spends.
    lines = [l for l in (proj / "privacy-ledger.txt").read_text().splitlines() if l and not l.startswith("#")]
    assert [l.split()[0] for l in lines] == [f"release={first['release']}", f"release={second['release']}"]


# MARK: - One key and one ledger per database (docs/game-privacy.md)

def _db_key(db):
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT key, database_id FROM privacy_key").fetchone()
    finally:
        con.close()
    return row


def _set_folds(proj, folds, extra=""):
    (proj / "dossier.yml").write_text("title: Game\noutput: _site\ngame:\n  database: study.sqlite\n  results_capacity: 40\n"
                                      f"  folds: {folds}\n  privacy:\n    lifetime_epsilon: 12\n{extra}")


def test_a_copy_of_the_site_cannot_spend_past_the_databases_budget(study, run_dossier, tmp_path):
    from webdav_server import WebDAVServer, env
    study_root, uploads = study
    proj, db = _project(tmp_path / "p", study_root, uploads[:30], run_dossier)
    with WebDAVServer(tmp_path / "srv") as dav:
        url = dav.url + "site/"
        for folds in (5, 4):           # two releases (other options, other release): ε 6 + 6 = 12
            _set_folds(proj, folds)
            run_dossier("build", proj)
            run_dossier("publish", proj, "--to", url, env=env())
        _set_folds(proj, 3)
        run_dossier("build", proj)
        refused = run_dossier("publish", proj, "--to", url, env=env(), check=False)
        assert refused.returncode == 1 and "lifetime budget" in refused.stderr and "study.sqlite" in refused.stderr
        # A copy of the site (and its manifest) elsewhere: with no project it cannot be checked…
        copy = tmp_path / "copy"
        copy.mkdir()
        import shutil
        shutil.copytree(proj / "_site", copy / "_site")
        shutil.copy(proj / "_site.manifest.json", copy / "_site.manifest.json")
        alone = run_dossier("publish", "--site", copy / "_site", "--to", url, env=env(), check=False, cwd=copy)
        assert alone.returncode == 1 and "study database" in alone.stderr and "PROJECT" in alone.stderr, alone.stderr
        # …a copy's own ledger file is not consulted: the database's budget is spent…
        (copy / "privacy-ledger.txt").write_text("# empty\n")
        again = run_dossier("publish", proj, "--site", copy / "_site", "--to", url, env=env(), check=False)
        assert again.returncode == 1 and "lifetime budget" in again.stderr
        # …and a hand-edited privacy.json (ε 0) does not match its seal.
        rel = json.loads((copy / "_site" / "game" / "privacy.json").read_text())
        rel["epsilon"] = "0"
        (copy / "_site" / "game" / "privacy.json").write_text(json.dumps(rel))
        edited = run_dossier("publish", proj, "--site", copy / "_site", "--to", url, env=env(), check=False)
        assert edited.returncode == 1 and "seal" in edited.stderr
        served = json.loads((tmp_path / "srv" / "site" / "game" / "privacy.json").read_text())
        assert served["release"] != rel["release"]
    lines = [l for l in (proj / "privacy-ledger.txt").read_text().splitlines() if l and not l.startswith("#")]
    assert len(lines) == 2


def test_two_projects_on_one_database_share_one_key_and_budget(study, run_dossier, tmp_path):
    from webdav_server import WebDAVServer, env
    study_root, uploads = study
    a, db = _project(tmp_path / "a", study_root, uploads[:30], run_dossier)
    b = tmp_path / "b"
    b.mkdir()
    block = lambda folds: (f"title: Game\noutput: _site\ngame:\n  database: {db}\n  results_capacity: 40\n  folds: {folds}\n"
                           "  privacy:\n    lifetime_epsilon: 12\n")
    with WebDAVServer(tmp_path / "srv") as dav:
        pub = lambda proj, where: run_dossier("publish", proj, "--to", dav.url + where, env=env(), check=False)
        (a / "dossier.yml").write_text(block(5))
        run_dossier("build", a)
        assert pub(a, "a/").returncode == 0
        # Same data, same options, same key (the database's): the same release, nothing new spent.
        (b / "dossier.yml").write_text(block(5))
        run_dossier("build", b)
        assert (b / "_site" / "game" / "privacy.json").read_bytes() == (a / "_site" / "game" / "privacy.json").read_bytes()
        assert "already in the ledger" in pub(b, "b/").stdout
        (b / "dossier.yml").write_text(block(4))
        run_dossier("build", b)
        assert pub(b, "b/").returncode == 0                     # 12 of 12
        (a / "dossier.yml").write_text(block(3))
        run_dossier("build", a)
        refused = pub(a, "a/")
        assert refused.returncode == 1 and "lifetime budget" in refused.stderr, refused.stderr
    assert not (a / ".dossier" / "privacy.key").exists() and not (b / ".dossier" / "privacy.key").exists()


def test_the_key_lives_in_the_database_and_weak_or_missing_keys_are_refused(study, run_dossier, tmp_path):
    study_root, uploads = study
    proj, db = _project(tmp_path / "p", study_root, uploads[:30], run_dossier)
    # An older project: its key in the build cache is moved into the database, with a message.
    old_key = hashlib.sha256(b"an older project's key").hexdigest()
    (proj / ".dossier").mkdir()
    (proj / ".dossier" / "privacy.key").write_text(old_key + "\n")
    out = run_dossier("build", proj)
    assert "moved the privacy key" in out.stderr and old_key not in out.stdout + out.stderr
    assert not (proj / ".dossier" / "privacy.key").exists() and _db_key(db)[0] == old_key
    counts = (proj / "_site" / "game" / "group-counts.csv").read_bytes()
    # Clearing the cache changes nothing: the same key, the same noise, byte for byte.
    import shutil
    shutil.rmtree(proj / ".dossier")
    run_dossier("build", proj, "--clean")
    assert (proj / "_site" / "game" / "group-counts.csv").read_bytes() == counts
    assert not (proj / ".dossier" / "privacy.key").exists()
    # A released database whose key went missing: an error, not a fresh draw.
    (proj / "privacy-ledger.txt").write_text("release=0123456789abcdef epsilon=6 delta=0 section=game published=2026-11-28T00:00:00Z\n")
    con = sqlite3.connect(db)
    con.execute("DELETE FROM privacy_key")
    con.commit()
    con.close()
    lost = run_dossier("build", proj, check=False)
    assert lost.returncode == 1 and "already released" in lost.stderr and "study.sqlite" in lost.stderr, lost.stderr
    assert (proj / "_site" / "game" / "group-counts.csv").read_bytes() == counts
    # An all-zero key, in the old place or in the database, is refused.
    (proj / ".dossier").mkdir(exist_ok=True)
    (proj / ".dossier" / "privacy.key").write_text("00" * 32 + "\n")
    weak = run_dossier("build", proj, check=False)
    assert weak.returncode == 1 and ".dossier/privacy.key:1:" in weak.stderr and "weak" in weak.stderr, weak.stderr
    con = sqlite3.connect(db)
    con.execute("INSERT INTO privacy_key(id, key, database_id, lifetime_milli) VALUES(1, ?, 'x', 18000)", ("00" * 32,))
    con.commit()
    con.close()
    weak = run_dossier("build", proj, check=False)
    assert weak.returncode == 1 and "study.sqlite" in weak.stderr and "weak" in weak.stderr, weak.stderr
