"""End-to-end tests of `dossier game`: keygen, simulate, seal, ingest, analyze."""
import json
import os
import stat


def test_keygen_seal_ingest_round_trip(run_dossier, tmp_path):
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    key = tmp_path / "study.key"
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    cohort = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "25", "--seed", "3", "--out", cohort)
    uploads = tmp_path / "uploads"
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", uploads, cohort)
    assert len(list(uploads.glob("*.rmu"))) == 25
    db = tmp_path / "study.sqlite"
    out = run_dossier("game", "ingest", "--key", key, uploads, "--db", db).stdout
    assert "25 stored, 0 duplicates, 0 rejected" in out
    assert "PRIVATE KEY" not in out
    # Idempotent: the same uploads again are all duplicates.
    out = run_dossier("game", "ingest", "--key", key, uploads, "--db", db).stdout
    assert "0 stored, 25 duplicates, 0 rejected" in out
    # JSON Lines and the database give identical analyses.
    a = run_dossier("game", "analyze", "--json", cohort).stdout
    b = run_dossier("game", "analyze", "--json", "--db", db).stdout
    assert a == b


def test_tampered_and_wrong_key_uploads_are_rejected(run_dossier, tmp_path):
    run_dossier("game", "keygen", "--out", tmp_path / "study", "--bits", "2048")
    run_dossier("game", "keygen", "--out", tmp_path / "other", "--bits", "2048")
    cohort = tmp_path / "cohort.jsonl"
    run_dossier("game", "simulate", "--players", "3", "--seed", "8", "--out", cohort)
    uploads = tmp_path / "uploads"
    run_dossier("game", "seal", "--public", tmp_path / "study.pub", "--out", uploads, cohort)
    files = sorted(uploads.glob("*.rmu"))
    data = bytearray(files[0].read_bytes())
    data[-30] ^= 1
    files[0].write_bytes(bytes(data))
    wrong = tmp_path / "wrong"
    run_dossier("game", "seal", "--public", tmp_path / "other.pub", "--out", wrong, cohort)
    db = tmp_path / "study.sqlite"
    proc = run_dossier("game", "ingest", "--key", tmp_path / "study.key", uploads, sorted(wrong.glob("*.rmu"))[0],
                       "--db", db, check=False)
    assert proc.returncode == 1
    assert "authentication failed" in proc.stderr
    assert "different study key" in proc.stderr
    assert "2 stored, 0 duplicates, 2 rejected" in proc.stdout
