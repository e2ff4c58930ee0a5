"""Unlocking a keystore: no test clock in a release build, scrypt cost kept by passwd,
weak passwords refused, hostile KDF parameters refused quickly and with the file named."""
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
from sms_helpers import STRONG, Party  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
RELEASE = REPO / ".build" / "release" / "dossier"


def lock_out(p):
    for _ in range(3):
        p.sms("contact", "list", check=False, DOSSIER_SMS_PASSWORD="wrong")
    assert "locked_until" in json.loads(pathlib.Path(p.path).read_text())["lockout"]


@pytest.mark.skipif(not RELEASE.exists(), reason="no release build: run `swift build -c release --product dossier` "
                    "(minutes on a shared machine) to check that a release binary ignores DOSSIER_SMS_NOW")
def test_release_build_ignores_the_test_clock(tmp_path):
    def run(*args, **env):
        return subprocess.run([str(RELEASE), "sms", *args], capture_output=True, text=True,
                              env={**os.environ, "DOSSIER_SMS_PASSWORD": STRONG, **env})
    ks = str(tmp_path / "k.keystore")
    assert run("init", "--keystore", ks, "--kdf-log2n", "10", "--lock-seconds", "3600").returncode == 0
    for _ in range(3):
        run("contact", "list", "--keystore", ks, DOSSIER_SMS_PASSWORD="wrong")
    r = run("contact", "list", "--keystore", ks, DOSSIER_SMS_NOW="2099-01-01T00:00:00Z")
    assert r.returncode == 1 and "locked" in r.stderr


def test_debug_clock_exists_only_for_tests(run_dossier, tmp_path):
    """The debug binary the suite runs does honour DOSSIER_SMS_NOW (the release test above
    shows the other half); the source keeps it inside #if DEBUG."""
    src = (REPO / "Sources" / "dossier" / "Commands" / "SMSCommand.swift").read_text()
    block = src[src.index("static func now()"):src.index("return Date()")]
    assert "#if DEBUG" in block and "DOSSIER_SMS_NOW" in block
    assert "DOSSIER_SMS_KDF_LOG2N" not in src
    p = Party(run_dossier, tmp_path / "k.keystore", now="2026-01-01T10:00:00Z")
    p.init("me", "--lock-seconds", "60")
    lock_out(p)
    assert p.sms("contact", "list", DOSSIER_SMS_NOW="2026-01-01T10:01:00Z").returncode == 0


def test_weak_password_is_refused_unless_allowed(run_dossier, tmp_path):
    p = Party(run_dossier, tmp_path / "k.keystore", password="password1")
    r = p.run_dossier("sms", "init", "--keystore", p.path, "--kdf-log2n", "10", env=p.env(), check=False)
    assert r.returncode == 1 and "too weak" in r.stderr and "--allow-weak" in r.stderr and "password1" not in r.stderr
    assert not pathlib.Path(p.path).exists()
    p.init("me", "--allow-weak")
    r = p.sms("passwd", check=False, DOSSIER_SMS_NEW_PASSWORD="alice")
    assert r.returncode == 1 and "too weak" in r.stderr


def test_passwd_keeps_the_cost_and_default_cost_is_2_to_the_17(run_dossier, tmp_path):
    p = Party(run_dossier, tmp_path / "k.keystore")
    p.init("me")
    p.sms("passwd", DOSSIER_SMS_NEW_PASSWORD=STRONG + " again")
    p.password = STRONG + " again"
    assert json.loads(pathlib.Path(p.path).read_text())["kdf"]["log2n"] == 10
    p.sms("passwd", "--kdf-log2n", "11", DOSSIER_SMS_NEW_PASSWORD=STRONG)
    assert json.loads(pathlib.Path(p.path).read_text())["kdf"]["log2n"] == 11
    help_text = p.run_dossier("sms", "init", "--help").stdout
    assert "default 17" in help_text


@pytest.mark.parametrize("field,value", [("p", 2 ** 53 + 1), ("p", 10 ** 6), ("log2n", 31), ("r", 10 ** 9)])
def test_hostile_kdf_parameters_fail_fast_naming_the_file(run_dossier, tmp_path, field, value):
    p = Party(run_dossier, tmp_path / "k.keystore")
    p.init("me")
    env = json.loads(pathlib.Path(p.path).read_text())
    env["kdf"][field] = value
    pathlib.Path(p.path).write_text(json.dumps(env))
    t = time.monotonic()
    r = p.sms("contact", "list", check=False)
    assert time.monotonic() - t < 10
    assert r.returncode == 1 and f"kdf.{field}" in r.stderr and p.path in r.stderr
    proj = tmp_path / "proj"
    (proj / "data").mkdir(parents=True)
    (proj / "data" / "k.keystore").write_text(json.dumps(env))
    (proj / "dossier.yml").write_text("title: T\nsms:\n  keystores: data/*.keystore\n  password_env: PW\n")
    r = p.run_dossier("check", proj, check=False, env={"PW": STRONG})
    assert r.returncode == 1 and "k.keystore" in r.stderr and f"kdf.{field}" in r.stderr


def test_a_wrong_password_and_a_lock_out_name_the_keystore(run_dossier, tmp_path):
    """Which keystore refused the password: the message names the file (the fuzzer's
    rule for every error), for a wrong try and for the lock-out after the third."""
    p = Party(run_dossier, tmp_path / "alice.keystore", now="2026-06-01T00:00:00Z")
    p.init("alice")
    for left in (2, 1):
        r = p.sms("contact", "list", check=False, DOSSIER_SMS_PASSWORD="wrong")
        assert r.returncode == 1 and f"{p.path}: wrong password ({left} more tr" in r.stderr, r.stderr
    r = p.sms("contact", "list", check=False, DOSSIER_SMS_PASSWORD="wrong")
    assert r.returncode == 1 and f"{p.path}: wrong password; the keystore is now locked" in r.stderr, r.stderr
    r = p.sms("contact", "list", check=False)
    assert r.returncode == 1 and f"{p.path}: the keystore is locked" in r.stderr, r.stderr
