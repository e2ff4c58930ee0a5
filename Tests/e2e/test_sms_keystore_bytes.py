"""Issue #43 item 8: `dossier build` and `dossier check` leave a keystore written by
another program byte for byte as it was — they count the try and then put the file's own
bytes back, not Dossier's re-encoding (docs/securesms-report.md, "Read only, but counted")."""
import json
import pathlib
import shutil

REPO = pathlib.Path(__file__).resolve().parents[2]
RIGHT = {"SMS_DEMO_PW": "demo-only-not-a-secret"}


def test_build_and_check_keep_a_foreign_keystores_bytes(run_dossier, tmp_path):
    proj = tmp_path / "p"
    shutil.copytree(REPO / "Examples" / "demo" / "data" / "sms", proj / "data" / "sms")
    (proj / "dossier.yml").write_text("title: SMS\nsms:\n  keystores: data/sms/*.keystore\n  password_env: SMS_DEMO_PW\n")
    files = sorted((proj / "data" / "sms").glob("*.keystore"))
    # Another program's writing: compact JSON, keys in reverse order, a CRLF at the end.
    for f in files:
        env = json.loads(f.read_text())
        f.write_bytes(json.dumps(dict(reversed(list(env.items()))), separators=(",", ":")).encode() + b"\r\n")
    before = {f: f.read_bytes() for f in files}
    run_dossier("build", proj, env=RIGHT)
    run_dossier("check", proj, env=RIGHT)
    assert {f: f.read_bytes() for f in files} == before
    # A wrong try is counted (the file changes), and the right password then resets it.
    r = run_dossier("check", proj, env={"SMS_DEMO_PW": "not it"}, check=False)
    assert r.returncode == 1 and "wrong password" in r.stderr
    failures = lambda: sum(json.loads(f.read_text())["lockout"]["failures"] for f in files)  # noqa: E731
    assert failures() == 1
    run_dossier("check", proj, env=RIGHT)
    assert failures() == 0
