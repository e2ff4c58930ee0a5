"""Ingest 2,000 uploads while `game analyze --db` runs in a loop: every analysis succeeds
(read transactions on a WAL database see one consistent snapshot)."""
import subprocess

from test_game_release_data import sealed_players


def test_analyze_while_ingesting_2000_uploads(run_dossier, dossier_bin, tmp_path):
    sealed_players(dossier_bin, tmp_path, 2000, 31, obstacles=3)
    up = tmp_path / "up"
    db = tmp_path / "s.sqlite"
    run_dossier("game", "simulate", "--players", "5", "--seed", "32", "--obstacles", "3", "--db", db)
    log_out, log_err = open(tmp_path / "ingest.out", "w"), open(tmp_path / "ingest.err", "w")
    ingest = subprocess.Popen([dossier_bin, "game", "ingest", "--key", str(tmp_path / "study.key"), str(up), "--db", str(db)],
                              stdout=log_out, stderr=log_err, text=True)
    runs, failures = 0, []
    while True:
        done = ingest.poll() is not None
        p = subprocess.run([dossier_bin, "game", "analyze", "--json", "--db", str(db)], capture_output=True, text=True)
        runs += 1
        if p.returncode != 0:
            failures.append(p.stderr)
        if done:
            break
    ingest.wait()
    log_out.close(); log_err.close()
    out, err = (tmp_path / "ingest.out").read_text(), (tmp_path / "ingest.err").read_text()
    assert ingest.returncode == 0, err
    assert "2000 stored, 0 duplicates, 0 rejected" in out
    assert runs >= 3
    assert failures == [], failures[:3]
