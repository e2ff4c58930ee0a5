"""Using `dossier sms`: the terminal says how to end a message, the default keystore
follows $HOME / $XDG_DATA_HOME, and --normalize maps phone punctuation to GSM."""
import os
import pathlib
import pty
import select
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
from sms_helpers import STRONG, make_pair  # noqa: E402


def test_reading_from_a_terminal_says_how_to_finish_before_waiting(dossier_bin):
    master, slave = pty.openpty()
    proc = subprocess.Popen([dossier_bin, "sms", "count"], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "no prompt on stderr before any input"
        line = proc.stderr.readline().decode()
        assert "Ctrl-D" in line
        os.write(master, b"hello\n\x04")
        out, _ = proc.communicate(timeout=60)
        assert out.decode() == "5 septets used, 139 left (of 144)\n"
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_piped_input_gets_no_terminal_notice(run_dossier):
    r = run_dossier("sms", "count", input="hello\n")
    assert r.stderr == "" and r.stdout.startswith("5 septets")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DOSSIER_SMS_KEYSTORE", "XDG_DATA_HOME")}
    env.update(DOSSIER_SMS_PASSWORD=STRONG, **extra)
    return env


def test_default_keystore_follows_home_then_xdg(dossier_bin, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = subprocess.run([dossier_bin, "sms", "init", "--kdf-log2n", "10"], capture_output=True, text=True,
                       env=clean_env(HOME=str(home)))
    assert r.returncode == 0, r.stderr
    assert (home / ".dossier" / "sms.keystore").exists()
    home2, xdg = tmp_path / "home2", tmp_path / "xdg"
    home2.mkdir()
    r = subprocess.run([dossier_bin, "sms", "init", "--kdf-log2n", "10"], capture_output=True, text=True,
                       env=clean_env(HOME=str(home2), XDG_DATA_HOME=str(xdg)))
    assert r.returncode == 0, r.stderr
    assert (xdg / "dossier" / "sms.keystore").exists() and not (home2 / ".dossier").exists()
    # an existing ~/.dossier keystore wins over XDG (keystores made before keep working)
    r = subprocess.run([dossier_bin, "sms", "contact", "list"], capture_output=True, text=True,
                       env=clean_env(HOME=str(home), XDG_DATA_HOME=str(xdg / "elsewhere")))
    assert r.returncode == 0, r.stderr


def test_normalize_maps_phone_punctuation_and_lists_it(run_dossier, tmp_path):
    alice, bob, _, _ = make_pair(run_dossier, tmp_path)
    text = "\u201cIt\u2019s fine\u201d \u2013 see you\u2026 it\u2019s late"
    r = alice.sms("encrypt", "Bob", text, check=False)
    assert r.returncode == 1 and "character 1 is not in the GSM" in r.stderr
    assert "run the command again with --normalize" in r.stderr   # the next step (issue 43)
    assert "\u201c" not in r.stderr   # the character is part of the message: never echoed
    r = alice.sms("encrypt", "Bob", "snow \u2603", check=False)   # nothing --normalize maps
    assert r.returncode == 1 and "character 6 is not in the GSM" in r.stderr
    assert "--normalize" not in r.stderr and "replace or remove that character" in r.stderr
    r = alice.sms("encrypt", "Bob", text, "--normalize")
    assert "--normalize changed 6 characters" in r.stderr
    assert "2 \u00d7 \u2019 (U+2019) \u2192 '" in r.stderr and "\u2026 (U+2026) \u2192 ..." in r.stderr
    assert bob.decrypt("Alice", r.stdout.strip()).stdout == "\"It's fine\" - see you... it's late\n"
    r = run_dossier("sms", "count", "--normalize", "a\u2014b")
    assert r.stdout == "3 septets used, 141 left (of 144)\n"
