"""Duplicates, replays, conflicts and device pins of docs/recall-upload.md, from the docs alone.

"Duplicates and replays", "Device pins" and "Storing": the kit's retry is already stored
and removed, a copy under another name is a replay, a different body for a stored log name
is a conflict, another key for a pinned device id is refused (before "already stored"),
a refused upload pins nothing, the folder's own `*.jsonl`/`*.csv` files count by hash, and
temporary files of runs that are gone are removed. Sealer and helpers: test_doc_sealed_uploads.py.
"""
import os
import re

from test_doc_sealed_uploads import (LOG_NAME, Device, assert_refused, dossier, recall_keys,  # noqa: F401
                                     recall_log, study, summary, tree, upload_name)


# MARK: - duplicates, replays, conflicts, pins

def test_the_kits_retry_of_a_stored_upload_is_already_stored_and_removed(study):
    name = study.put_sealed(Device(), recall_log())
    data = (study.drop / name).read_bytes()
    assert study.ingest().returncode == 0
    study.put(name, data)
    before = tree(study.logs)
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert f"{name}: already stored as {LOG_NAME}" in proc.stdout.splitlines()
    assert summary(0, 1, 0) in proc.stdout
    assert not (study.drop / name).exists()
    assert tree(study.logs) == before


def test_the_same_body_resealed_under_a_new_name_is_already_stored(study):
    dev = Device()
    study.put_sealed(dev, recall_log())
    assert study.ingest().returncode == 0
    name = study.put_sealed(dev, recall_log())
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert f"{name}: already stored as {LOG_NAME}" in proc.stdout


def test_a_stored_upload_copied_under_another_name_is_refused_as_a_replay(study):
    name = study.put_sealed(Device(), recall_log())
    data = (study.drop / name).read_bytes()
    assert study.ingest().returncode == 0
    copy = upload_name()
    study.put(copy, data)
    assert_refused(study, copy, re.escape(f"the file is named {copy} but was sealed as {name}: "
                                          "a copied or replayed upload"))


def test_a_different_body_for_a_stored_log_name_is_a_conflict(study):
    dev = Device()
    study.put_sealed(dev, recall_log())
    assert study.ingest().returncode == 0
    name = study.put_sealed(dev, recall_log(close_at=999))
    assert_refused(study, name, re.escape(f"a different log named {LOG_NAME} is already stored: "
                                          "a conflicting or forged upload"))


def test_another_key_for_a_pinned_device_is_refused_before_already_stored(study):
    dev = Device()
    study.put_sealed(dev, recall_log())
    assert study.ingest().returncode == 0
    thief = Device(dev.id)
    name = study.put_sealed(thief, recall_log())  # even the stored body: the pin comes first
    assert_refused(study, name, rf"^device {dev.id} is pinned to another signing key \(trust on first use\)")
    name2 = study.put_sealed(thief, recall_log("P-11"), log="other.jsonl")
    (study.drop / name).unlink()
    assert_refused(study, name2, rf"^device {dev.id} is pinned to another signing key")


def test_a_refused_upload_pins_nothing(study):
    dev = Device()
    study.put_sealed(dev, b"not a log\n")
    assert study.ingest().returncode == 1
    for p in list(study.drop.iterdir()):
        p.unlink()
    other = Device(dev.id)
    study.put_sealed(other, recall_log())
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert (study.logs / ".recall-devices" / dev.id).read_text().strip() == other.public_b64


def test_one_bad_upload_does_not_stop_the_others_and_makes_exit_1(study):
    dev = Device()
    good = study.put_sealed(dev, recall_log(), name="rc-" + "b" * 24 + ".rcu")
    study.put("rc-" + "a" * 24 + ".rcu", b"RMU2" + b"\0" * 400)
    proc = study.ingest()
    assert proc.returncode == 1
    assert f"{good}: stored {LOG_NAME}" in proc.stdout
    assert summary(1, 0, 1) in proc.stdout + proc.stderr
    assert sorted(p.name for p in study.drop.iterdir()) == ["rc-" + "a" * 24 + ".rcu"]


def test_within_one_run_the_second_copy_is_already_stored_and_the_pin_binds(study):
    dev = Device()
    study.put_sealed(dev, recall_log(), name="rc-" + "1" * 24 + ".rcu")
    study.put_sealed(dev, recall_log(), name="rc-" + "2" * 24 + ".rcu")
    study.put_sealed(Device(dev.id), recall_log("P-12"), log="x.jsonl", name="rc-" + "3" * 24 + ".rcu")
    proc = study.ingest()
    assert proc.returncode == 1
    assert "rc-" + "2" * 24 + f".rcu: already stored as {LOG_NAME}" in proc.stdout
    assert re.search(r"^rc-3{24}\.rcu: refused: device [0-9a-f]{32} is pinned to another signing key",
                     proc.stderr, re.M)
    assert summary(1, 1, 1) in proc.stdout + proc.stderr
    assert not (study.logs / "x.jsonl").exists()
    assert sorted(p.name for p in study.drop.iterdir()) == ["rc-" + "3" * 24 + ".rcu"]


def test_a_log_already_in_the_folder_by_hash_is_not_stored_again(study):
    (study.logs / "by-hand.csv").write_bytes(recall_log())
    (study.logs / ".hidden.jsonl").write_bytes(recall_log("P-13"))
    (study.logs / "notes.txt").write_bytes(recall_log("P-14"))
    dev = Device()
    first = study.put_sealed(dev, recall_log(), name="rc-" + "1" * 24 + ".rcu")
    study.put_sealed(dev, recall_log("P-13"), log="p13.jsonl", name="rc-" + "2" * 24 + ".rcu")
    study.put_sealed(dev, recall_log("P-14"), log="p14.jsonl", name="rc-" + "3" * 24 + ".rcu")
    proc = study.ingest()
    assert proc.returncode == 0, proc.stderr
    assert re.search(rf"^{first}: already stored as ", proc.stdout, re.M)
    assert not (study.logs / LOG_NAME).exists()
    assert (study.logs / "p13.jsonl").read_bytes() == recall_log("P-13")
    assert (study.logs / "p14.jsonl").read_bytes() == recall_log("P-14")
    assert summary(2, 1, 0) in proc.stdout


def test_temporary_files_of_gone_runs_are_removed_and_of_live_runs_kept(study):
    gone = study.logs / f".{LOG_NAME}.999999999.partial"
    live = study.logs / f".other.jsonl.{os.getpid()}.partial"
    gone.write_bytes(b"half")
    live.write_bytes(b"half")
    study.put_sealed(Device(), recall_log())
    assert study.ingest().returncode == 0
    assert not gone.exists()
    assert live.read_bytes() == b"half"
    assert (study.logs / LOG_NAME).read_bytes() == recall_log()


def test_an_empty_drop_and_a_missing_drop(study, tmp_path):
    proc = study.ingest()
    assert proc.returncode == 0 and summary(0, 0, 0) in proc.stdout
    proc = dossier("recall", "ingest", "--key", study.key_path, "--from", tmp_path / "nowhere", "--logs", study.logs)
    assert proc.returncode == 1


def test_a_conflicting_upload_from_a_new_device_pins_nothing(study):
    study.put_sealed(Device(), recall_log())
    assert study.ingest().returncode == 0
    name = study.put_sealed(Device(), recall_log(close_at=555))
    assert_refused(study, name, r"^a different log named ")


def test_an_already_stored_log_from_a_new_device_pins_nothing(study):
    study.put_sealed(Device(), recall_log())
    assert study.ingest().returncode == 0
    before = tree(study.logs)
    newcomer = Device()
    study.put_sealed(newcomer, recall_log())
    proc = study.ingest()
    assert proc.returncode == 0 and summary(0, 1, 0) in proc.stdout
    assert tree(study.logs) == before
    assert not (study.logs / ".recall-devices" / newcomer.id).exists()
