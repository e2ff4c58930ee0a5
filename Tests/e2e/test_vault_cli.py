"""End-to-end tests of `dossier vault` (the built binary)."""
import json
import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
IMPORTS = REPO / "Tests" / "VaultTests" / "Fixtures" / "import"
MASTER = {"DOSSIER_VAULT_PASSWORD": "e2e master pass phrase"}


def _has_commands(dossier_bin, *names):
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    return all(re.search(rf"^\s+{n}\b", out, re.M) for n in names)


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    if not _has_commands(dossier_bin, "vault"):
        pytest.skip("this dossier binary was built without the vault domain")


def test_generate_meets_settings(run_dossier):
    proc = run_dossier("vault", "generate", "--length", "20", "--min-upper", "2", "--min-digits", "3",
                       "--no-special", "--count", "50", "--json")
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    assert len(lines) == 50
    for l in lines:
        pw = l["password"]
        assert len(pw) == 20
        assert sum(c.isupper() for c in pw) >= 2
        assert sum(c.isdigit() for c in pw) >= 3
        assert pw.isalnum()
        assert 0 <= l["score"] <= 4


def test_impossible_settings_exit_1(run_dossier):
    proc = run_dossier("vault", "generate", "--length", "4", "--min-digits", "3", "--min-upper", "3", check=False)
    assert proc.returncode == 1
    assert "more than the length" in proc.stderr


def test_vault_lifecycle_hides_secrets(run_dossier, tmp_path):
    v = tmp_path / "my.dvault"
    run_dossier("vault", "init", v, env=MASTER)
    run_dossier("vault", "add", v, "--title", "Mail", "--username", "jo@example.com", "--website",
                "https://mail.example.com", env={**MASTER, "DOSSIER_ENTRY_PASSWORD": "entry-SECRET-123"})
    run_dossier("vault", "note", v, "--title", "Wifi", env=MASTER, input="note-SECRET-text\n")
    listed = run_dossier("vault", "list", v, env=MASTER).stdout
    assert "Mail" in listed and "Wifi" in listed
    assert "SECRET" not in listed
    shown = run_dossier("vault", "show", v, "Mail", env=MASTER).stdout
    assert "SECRET" not in shown
    revealed = run_dossier("vault", "show", v, "Mail", "--reveal", env=MASTER).stdout
    assert "entry-SECRET-123" in revealed
    assert "SECRET" not in v.read_bytes().decode("latin-1")
    wrong = run_dossier("vault", "list", v, env={"DOSSIER_VAULT_PASSWORD": "nope"}, check=False)
    assert wrong.returncode == 1
    assert "wrong master password" in wrong.stderr
    run_dossier("vault", "rm", v, "Mail", env=MASTER)
    assert "Mail" not in run_dossier("vault", "list", v, env=MASTER).stdout


def test_import_every_format_and_report(run_dossier, tmp_path):
    v = tmp_path / "imp.dvault"
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", env=MASTER)
    for f in sorted(IMPORTS.glob("*.*")):
        out = run_dossier("vault", "import", v, f, env=MASTER).stdout
        assert "imported" in out
    report = json.loads(run_dossier("vault", "report", v, "--json", "--as-of", "2025-06-01", env=MASTER).stdout)
    assert report["counts"]["entries"] >= 14
    text = json.dumps(report, ensure_ascii=False)
    for secret in ["bw-Pass-1", "kp-Pass-1", "kx-Pass-1", "op-Pass-1", "ch-Pass-1", "ff-Pass-1", "bw-note-secret"]:
        assert secret not in text
    assert "j•••@example.com" in text


def test_password_never_from_arguments(run_dossier):
    proc = run_dossier("vault", "score", check=False)
    assert proc.returncode == 2


def test_generator_minimum_on_a_switched_off_class_is_an_error(run_dossier):
    proc = run_dossier("vault", "generate", "--no-digits", "--min-digits", "2", check=False)
    assert proc.returncode == 1
    assert "--min-digits 2" in proc.stderr and "--no-digits" in proc.stderr
    # a switched-off class with no minimum given is fine
    assert run_dossier("vault", "generate", "--no-digits", "--count", "3").returncode == 0


def test_generator_overflowing_minimums_are_a_clear_error(run_dossier):
    for args in (["--min-digits", "9223372036854775807"],
                 ["--min-digits", "9223372036854775807", "--min-upper", "9223372036854775807"]):
        proc = run_dossier("vault", "generate", *args, check=False)
        assert proc.returncode == 1, proc.stderr
        assert "more than the length" in proc.stderr
        assert "Fatal error" not in proc.stderr


def test_list_and_show_hide_url_credentials_without_reveal(run_dossier, tmp_path):
    v = tmp_path / "u.dvault"
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", env=MASTER)
    run_dossier("vault", "add", v, "--title", "Portal", "--website", "https://ann:URLPW-1@portal.example.com/x?token=TOK-2#FRAG-3",
                env={**MASTER, "DOSSIER_ENTRY_PASSWORD": "entry-pw"})
    for args in (["list", v], ["list", v, "--json"], ["show", v, "Portal"]):
        out = run_dossier("vault", *args, env=MASTER).stdout
        assert "portal.example.com/x" in out
        assert not any(s in out for s in ("URLPW-1", "TOK-2", "FRAG-3", "ann:")), out
    shown = run_dossier("vault", "show", v, "Portal", "--reveal", env=MASTER).stdout
    assert "URLPW-1" in shown and "TOK-2" in shown


def test_weak_master_password_is_refused_unless_allowed(run_dossier, tmp_path):
    v = tmp_path / "weak.dvault"
    r = run_dossier("vault", "init", v, "--kdf", "pbkdf2", env={"DOSSIER_VAULT_PASSWORD": "password1"}, check=False)
    assert r.returncode == 1 and "too guessable" in r.stderr and "--allow-weak" in r.stderr
    assert "password1" not in r.stderr and not v.exists()
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", "--allow-weak", env={"DOSSIER_VAULT_PASSWORD": "password1"})
    assert v.exists()


def test_nfc_and_nfd_master_passwords_open_the_same_vault(run_dossier, tmp_path):
    import unicodedata
    phrase = "Crème brûlée à la façon de Zoë 42"
    nfc, nfd = unicodedata.normalize("NFC", phrase), unicodedata.normalize("NFD", phrase)
    assert nfc.encode() != nfd.encode()
    v = tmp_path / "nfc.dvault"
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", env={"DOSSIER_VAULT_PASSWORD": nfd})
    run_dossier("vault", "note", v, "--title", "N", env={"DOSSIER_VAULT_PASSWORD": nfc}, input="x")
    assert "\tN" in run_dossier("vault", "list", v, env={"DOSSIER_VAULT_PASSWORD": nfd}).stdout


def test_passwd_changes_the_master_password_and_kdf(run_dossier, tmp_path):
    v = tmp_path / "p.dvault"
    old, new = {"DOSSIER_VAULT_PASSWORD": "first master phrase for passwd"}, "second master phrase, now argon2id"
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", env=old)
    run_dossier("vault", "add", v, "--title", "Mail", env={**old, "DOSSIER_ENTRY_PASSWORD": "entry-pw-kept"})
    weak = run_dossier("vault", "passwd", v, env={**old, "DOSSIER_NEW_VAULT_PASSWORD": "password1"}, check=False)
    assert weak.returncode == 1 and "too guessable" in weak.stderr
    out = run_dossier("vault", "passwd", v, "--kdf", "argon2id", env={**old, "DOSSIER_NEW_VAULT_PASSWORD": new}).stdout
    assert "argon2id" in out
    header = v.read_bytes()[12:400].decode("latin-1")
    assert '"algorithm":"argon2id"' in header and '"memoryKiB":65536' in header
    assert run_dossier("vault", "list", v, env=old, check=False).returncode == 1
    shown = run_dossier("vault", "show", v, "Mail", "--reveal", env={"DOSSIER_VAULT_PASSWORD": new}).stdout
    assert "entry-pw-kept" in shown
    assert not list(tmp_path.glob("*.tmp*"))


def test_export_round_trips_through_the_importers_and_needs_confirmation(run_dossier, dossier_bin, tmp_path):
    v = tmp_path / "e.dvault"
    run_dossier("vault", "init", v, "--kdf", "pbkdf2", env=MASTER)
    run_dossier("vault", "import", v, IMPORTS / "bitwarden.json", env=MASTER)
    before = json.loads(run_dossier("vault", "list", v, "--reveal", "--json", env=MASTER).stdout)
    out = tmp_path / "out.json"
    # no terminal and no --yes: refused, nothing written
    import os
    refused = subprocess.run([str(dossier_bin), "vault", "export", str(v), "--format", "bitwarden-json",
                              "--output", str(out)], env={**os.environ, **MASTER}, capture_output=True, text=True,
                             start_new_session=True, stdin=subprocess.DEVNULL)   # no controlling terminal
    assert refused.returncode == 1 and "--yes" in refused.stderr and not out.exists()
    run_dossier("vault", "export", v, "--format", "bitwarden-json", "--output", out, "--yes", env=MASTER)
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    assert run_dossier("vault", "export", v, "--format", "bitwarden-json", "--output", out, "--yes", env=MASTER, check=False).returncode == 1
    for fmt, name in (("bitwarden-json", out), ("keepass-xml", tmp_path / "out.xml")):
        if fmt == "keepass-xml":
            run_dossier("vault", "export", v, "--format", fmt, "--output", name, "--yes", env=MASTER)
        w = tmp_path / f"{fmt}.dvault"
        run_dossier("vault", "init", w, "--kdf", "pbkdf2", env=MASTER)
        run_dossier("vault", "import", w, name, env=MASTER)
        after = json.loads(run_dossier("vault", "list", w, "--reveal", "--json", env=MASTER).stdout)
        keep = ("id", "title", "username", "website", "folder", "password", "details", "created", "modified")
        if fmt == "keepass-xml":   # KeePass has no notes: compare the logins
            before_cmp = [{k: i[k] for k in keep} for i in before if i["kind"] == "entry"]
            after_cmp = [{k: i[k] for k in keep} for i in after if i["kind"] == "entry" and i["id"] in {b["id"] for b in before_cmp}]
        else:
            before_cmp = [{k: i.get(k) for k in keep + ("kind", "text")} for i in before]
            after_cmp = [{k: i.get(k) for k in keep + ("kind", "text")} for i in after]
        assert after_cmp == before_cmp, fmt
    stdout = run_dossier("vault", "export", v, "--format", "keepass-xml", "--output", "-", "--yes", env=MASTER).stdout
    assert stdout.startswith("<?xml") and "bw-Pass-1" in stdout
