"""Issue #35, SecureSMS report: contacts by ordinal and no last-message times unless the
project opts in; a wrong password fails every build, incremental ones too; three wrong
tries from builds lock the keystore (docs/securesms-report.md)."""
import csv
import io
import json
import pathlib
import shutil

REPO = pathlib.Path(__file__).resolve().parents[2]
NAMES = ["Alice", "Bob", "Carol"]


def project(tmp_path, extra=""):
    proj = tmp_path / "demo"
    shutil.copytree(REPO / "Examples" / "demo" / "data" / "sms", proj / "data" / "sms")
    (proj / "dossier.yml").write_text("title: SMS\nsms:\n  keystores: data/sms/*.keystore\n  password_env: SMS_DEMO_PW\n" + extra)
    return proj


RIGHT = {"SMS_DEMO_PW": "demo-only-not-a-secret"}


def outputs(proj):
    site = proj / "_site" / "sms"
    return (site / "index.html").read_text(), (site / "contacts.csv").read_text(encoding="utf-8-sig"), \
        json.loads((site / "keystores.json").read_text())


def test_contacts_are_ordinals_without_last_message_times_by_default(run_dossier, tmp_path):
    proj = project(tmp_path)
    run_dossier("build", proj, env=RIGHT)
    page, text, data = outputs(proj)
    for name in NAMES:
        assert name not in page.replace("alice", "").replace("bob", "") and f",{name}," not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted(r["contact"] for r in rows if r["keystore"] == "alice") == ["contact 1", "contact 2"]
    assert all(r["last_sent_at"] == "" and r["last_received_at"] == "" for r in rows)
    contacts = [c for k in data["keystores"] for c in k["contacts"]]
    assert all(c["last_sent_at"] is None and c["last_received_at"] is None for c in contacts)
    assert "identify_contacts" in page
    # The counts are still there (what the report is for).
    assert sum(int(r["sent"]) for r in rows) > 0
    # Opting in shows the names and times.
    (proj / "dossier.yml").write_text((proj / "dossier.yml").read_text() + "  identify_contacts: true\n")
    run_dossier("build", proj, env=RIGHT)
    page, text, data = outputs(proj)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["contact"] for r in rows} == {"Bob", "Carol", "Alice"}
    assert any(r["last_sent_at"] for r in rows)


def test_a_wrong_password_fails_an_incremental_build_and_builds_count_tries(run_dossier, tmp_path):
    proj = project(tmp_path)
    run_dossier("build", proj, env=RIGHT)
    for left in (2, 1):
        r = run_dossier("build", proj, env={"SMS_DEMO_PW": "not it"}, check=False)   # nothing else changed
        assert r.returncode == 1, r.stdout
        assert "alice.keystore" in r.stderr and f"wrong password ({left} more tr" in r.stderr, r.stderr
    r = run_dossier("build", proj, env={"SMS_DEMO_PW": "not it"}, check=False)
    assert r.returncode == 1 and "now locked" in r.stderr, r.stderr
    r = run_dossier("check", proj, env=RIGHT, check=False)
    assert r.returncode == 1 and "locked" in r.stderr, r.stderr
    assert json.loads((proj / "data" / "sms" / "alice.keystore").read_text())["lockout"].get("locked_until")
