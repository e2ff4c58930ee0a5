"""Leak test: no code, key, password or message text reaches the site, its side outputs,
its manifest or the build log — only names, dates and counts."""
import csv
import io
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
from sms_helpers import make_pair  # noqa: E402


def all_output_text(root: pathlib.Path) -> str:
    parts = []
    for f in sorted(root.rglob("*")):
        if f.is_file():
            parts.append(f.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(parts)


def test_site_and_log_hold_no_secrets(run_dossier, tmp_path):
    alice, bob, key_a, key_b = make_pair(run_dossier, tmp_path)
    texts = ["The vault code is 4471", "Meet behind the mill at dawn", "Bring the blue folder"]
    messages = []
    for t in texts:
        m = alice.encrypt("Bob", t)
        messages.append(m)
    bob.decrypt("Alice", messages[2])  # two lost so far → backlog 2
    messages.append(bob.encrypt("Alice", "Understood, see you"))
    alice.decrypt("Bob", messages[-1])
    texts.append("Understood, see you")

    proj = tmp_path / "proj"
    (proj / "data").mkdir(parents=True)
    for name in ("alice", "bob"):
        (proj / "data" / f"{name}.keystore").write_bytes((tmp_path / f"{name}.keystore").read_bytes())
    # both keystores share one password file for this test
    bob.sms("passwd", DOSSIER_SMS_NEW_PASSWORD=alice.password)
    (proj / "data" / "bob.keystore").write_bytes((tmp_path / "bob.keystore").read_bytes())
    (proj / "data" / "pw.txt").write_text(alice.password + "\n")
    (proj / "dossier.yml").write_text(
        "title: Leak test\nsms:\n  keystores: data/*.keystore\n  password_file: data/pw.txt\n  backlog_warning: 2\n"
        "  identify_contacts: true\n")
    build = run_dossier("build", proj)
    site = proj / "_site"
    assert (site / "sms" / "index.html").exists()

    haystack = all_output_text(site) + build.stdout + build.stderr
    manifest = proj / "_site.manifest.json"
    if manifest.exists():
        haystack += manifest.read_text()
    secrets = [alice.password, bob.password] + texts + messages + [m[:20] for m in messages] + [m[40:60] for m in messages]
    for s in secrets:
        assert s not in haystack, "a secret reached the site or the log"

    # the report does say what it should
    page = (site / "sms" / "index.html").read_text()
    assert "Bob" in page and "Alice" in page
    rows = list(csv.DictReader(io.StringIO((site / "sms" / "contacts.csv").read_text(encoding="utf-8-sig"))))
    by = {(r["keystore"], r["contact"]): r for r in rows}
    assert by[("alice", "Bob")]["sent"] == "3" and by[("alice", "Bob")]["received"] == "1"
    assert by[("bob", "Alice")]["received"] == "1" and by[("bob", "Alice")]["skipped_backlog"] == "2"
    assert by[("bob", "Alice")]["warnings"]  # backlog 2 ≥ backlog_warning 2
    data = json.loads((site / "sms" / "keystores.json").read_text())
    assert {k["account"] for k in data["keystores"]} == {"alice", "bob"}


REPO = pathlib.Path(__file__).resolve().parents[2]


def sms_demo_project(tmp_path, block):
    import shutil
    proj = tmp_path / "demo"
    shutil.copytree(REPO / "Examples" / "demo" / "data" / "sms", proj / "data" / "sms")
    (proj / "dossier.yml").write_text("title: SMS demo\n" + block)
    return proj


def test_demo_keystores_report_without_warnings_or_secrets(run_dossier, tmp_path):
    block = "sms:\n  keystores: data/sms/*.keystore\n  password_file: data/sms/demo.password\n  identify_contacts: true\n"
    proj = sms_demo_project(tmp_path, block)
    before = {p.name: p.read_bytes() for p in (proj / "data" / "sms").glob("*.keystore")}
    build = run_dossier("build", proj, env={"DOSSIER_SMS_PASSWORD": ""})
    assert "warning" not in (build.stdout + build.stderr).lower()
    # a build counts its try and undoes it: the keystores' bytes are what they were
    assert {p.name: p.read_bytes() for p in (proj / "data" / "sms").glob("*.keystore")} == before
    rows = list(csv.DictReader(io.StringIO((proj / "_site" / "sms" / "contacts.csv").read_text(encoding="utf-8-sig"))))
    by = {(r["keystore"], r["contact"]): r for r in rows}
    assert set(by) == {("alice", "Bob"), ("alice", "Carol"), ("bob", "Alice")}
    assert by[("alice", "Carol")]["status"] == "pending" and by[("alice", "Carol")]["warnings"]
    assert by[("bob", "Alice")]["skipped_backlog"] == "2" and not by[("bob", "Alice")]["warnings"]
    # the counts of the two sides agree: what Alice sent is what Bob received or still waits for
    assert int(by[("alice", "Bob")]["sent"]) == int(by[("bob", "Alice")]["received"]) + int(by[("bob", "Alice")]["skipped_backlog"])
    password = (proj / "data" / "sms" / "demo.password").read_text().strip()
    assert password not in all_output_text(proj / "_site") + build.stdout + build.stderr
    # The page names the flagged pair under its keystore's table, and the table stays a plain
    # grid (no full-width row), so the design system can align and sort its columns.
    page = (proj / "_site" / "sms" / "index.html").read_text()
    alice = page[page.index("<h2>alice"):page.index("<h2>bob")]
    assert "colspan" not in page
    assert "<strong>Carol</strong>: " + by[("alice", "Carol")]["warnings"] in alice
    assert 'class="num">Sent</th>' in alice
    assert "2\u00a0March\u00a02026, 09:00\u00a0UTC" in page   # a date-time breaks only after its comma


def test_missing_password_is_a_located_error(dossier_bin, tmp_path):
    import os
    import subprocess
    proj = sms_demo_project(tmp_path, "sms:\n  keystores: data/sms/*.keystore\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSSIER_SMS_")}
    r = subprocess.run([dossier_bin, "build", str(proj)], capture_output=True, text=True, env=env)
    assert r.returncode == 1
    # located at the sms block (its first line) in the manifest
    assert re.search(r"dossier\.yml:[23]: sms", r.stderr) and "DOSSIER_SMS_PASSWORD" in r.stderr


def test_wrong_password_fails_build_and_check_and_is_counted(run_dossier, tmp_path):
    """A build or `dossier check` never saves a keystore's payload, but a wrong password is
    counted like any other try (issue #35: unlimited guesses otherwise); the right one
    resets the count and leaves the keystore's bytes as they were."""
    proj = sms_demo_project(tmp_path, "sms:\n  keystores: data/sms/*.keystore\n  password_env: SMS_DEMO_PW\n")
    before = {p.name: p.read_bytes() for p in (proj / "data" / "sms").glob("*.keystore")}
    for k, cmd in enumerate(("check", "build")):
        r = run_dossier(cmd, proj, check=False, env={"SMS_DEMO_PW": "not it"})
        assert r.returncode == 1 and "wrong password" in r.stderr and "not it" not in r.stderr
        assert f"({2 - k} more tr" in r.stderr, r.stderr
        alice = proj / "data" / "sms" / "alice.keystore"     # the first keystore: the build stops there
        assert json.loads(alice.read_text())["lockout"]["failures"] == k + 1
    assert run_dossier("check", proj, env={"SMS_DEMO_PW": "demo-only-not-a-secret"}).returncode == 0
    assert {p.name: p.read_bytes() for p in (proj / "data" / "sms").glob("*.keystore")} == before
