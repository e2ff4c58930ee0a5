"""docs/securesms-cli.md re-implemented and compared with the program: every command, option, exit status and
error of `dossier sms`."""
import fcntl
import json
import os
import pty
import re
import subprocess

import pytest

def run(binary, *args, **kw):
    return subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=300, **kw)

# ---------------------------------------------------------------- Part 2: dossier sms
PW = "plover quartz minnow 7 lantern"
def septets(text):  # GSM 7-bit: the extension table's characters take 2 septets
    return sum(2 if c in "€[]{}\\^~|" else 1 for c in text)
def fd(text):
    r, w = os.pipe()
    os.write(w, text.encode()), os.close(w)
    return r
class Sms:
    def __init__(self, binary, tmp):
        self.binary, self.tmp, self.log = binary, tmp, []
        (tmp / "home").mkdir(exist_ok=True)
    def __call__(self, *args, code=0, input=None, fds=(), cwd=None, **env):
        e = {k: v for k, v in os.environ.items() if not k.startswith(("DOSSIER_SMS", "XDG_"))}
        e.update({"HOME": str(self.tmp / "home"), "DOSSIER_SMS_PASSWORD": PW, **env})
        p = subprocess.run([self.binary, "sms", *map(str, args)], capture_output=True, text=True, input=input,
                           env={k: v for k, v in e.items() if v is not None}, pass_fds=fds, cwd=cwd, timeout=60)
        self.log.append(p)
        assert code is None or p.returncode == code, (args, p.returncode, p.stdout, p.stderr)
        return p
def connect(sms, a, b, cmd="add"):
    ka = sms("contact", cmd, "Bob", "--keystore", a, "--later", "-q").stdout.splitlines()
    kb = sms("contact", cmd, "Alice", "--keystore", b, "--later", "-q").stdout.splitlines()
    assert len(ka) == len(kb) == 1 and ka[0].startswith("SecureSMS-key:")
    shown = sms("contact", cmd, "Bob", "--keystore", a, "--key", kb[0], "-q").stdout.splitlines()
    assert len(shown) == 2 and re.fullmatch(r"Safety number: [0-9]{5}( [0-9]{5}){7}", shown[1])
    number = shown[1].split(": ")[1]
    for ks, name, own, key in ((a, "Bob", ka[0], kb[0]), (b, "Alice", kb[0], ka[0])):
        out = sms("contact", cmd, name, "--keystore", ks, "--key", key, "--confirm", number, "-q").stdout
        assert out.splitlines() == [own, shown[1]]  # -q: only the own key message and the safety number
    return ka[0], kb[0], number

@pytest.fixture
def pair(tmp_path, dossier_bin):
    sms = Sms(dossier_bin, tmp_path)
    a, b = tmp_path / "a.ks", tmp_path / "b.ks"
    for ks in (a, b):
        assert sms("init", "--keystore", ks, "--kdf-log2n", 10, "-q").stdout == sms.log[-1].stderr == ""
    return (sms, a, b, *connect(sms, a, b))

def test_help_lists_every_documented_option_and_usage_errors_exit_2(tmp_path, dossier_bin):
    doc = {"init": "--account --lock-seconds --kdf-log2n --allow-weak", "passwd": "--kdf-log2n --allow-weak",
           "contact add": "--key --confirm --later", "contact edit": "--name", "contact rm": "",
           "contact resync": "--key --confirm --later", "contact list": "", "encrypt": "--normalize",
           "decrypt": "", "count": "--normalize"}
    for cmd, opts in doc.items():
        usage = run(dossier_bin, "sms", *cmd.split(), "--help").stdout.partition("USAGE:")[2]
        for opt in opts.split() + ["--quiet"] + (["--keystore", "--lock-wait"] if cmd != "count" else []):
            assert opt in usage, (cmd, opt)
    sms = Sms(dossier_bin, tmp_path)
    for args in (("count", "x", "--keystore", "k"), ("init", "--kdf-log2n", 9), ("init", "--kdf-log2n", 21),
                 ("contact", "list", "--bogus"), ("encrypt",)):
        sms(*args, code=2)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]

def test_round_trip_quiet_outputs_tamper_replay_and_resync(pair):
    sms, a, b, *_ = pair
    text = "Meet at the north gate at 6. {x}~"
    m, used = sms("encrypt", "Bob", "--keystore", a, input=text + "\n"), septets(text)
    assert m.stderr == f"{used} of 144 septets used, {144 - used} left; message #0 to Bob.\n"
    msg = m.stdout.rstrip("\n")
    assert len(msg) == 160 and m.stdout == msg + "\n"
    q = sms("encrypt", "Bob", "x", "--keystore", a, "-q")
    assert q.stderr == "" and len(q.stdout) == 161
    before, bad = b.read_bytes(), msg[:70] + ("A" if msg[70] != "A" else "B") + msg[71:]
    p = sms("decrypt", "Alice", bad, "--keystore", b, code=1)
    assert "not from this contact, or damaged (verification failed; nothing was changed)" in p.stderr
    assert b.read_bytes() == before
    d = sms("decrypt", "Alice", "--keystore", b, "-q", input="\n".join(" " + msg[i:i + 40] for i in range(0, 160, 40)))
    assert (d.stdout, d.stderr) == (text + "\n", "")
    assert "replayed" in sms("decrypt", "Alice", msg, "--keystore", b, code=1).stderr
    listing = sms("contact", "list", "--keystore", b, "-q")
    assert (listing.stdout, listing.stderr) == ("Alice\tactive\tsent 0\treceived 1\tskipped 0\n", "")
    assert sms("count", text, "-q").stdout == f"{used} septets used, {144 - used} left (of 144)\n"
    connect(sms, a, b, cmd="resync")  # resync: both chains restart at 0
    assert sms("encrypt", "Bob", "two", "--keystore", a).stderr.endswith("message #0 to Bob.\n")
    for args in (("contact", "edit", "Alice", "--name", "Al"), ("contact", "rm", "Al"), ("passwd", "--kdf-log2n", 11)):
        p = sms(*args, "--keystore", b, "-q", DOSSIER_SMS_NEW_PASSWORD=PW + " 2")
        assert p.stdout == p.stderr == ""

def test_up_to_100_lost_messages_are_tolerated(pair):
    sms, a, b, *_ = pair
    m = [sms("encrypt", "Bob", f"m{i}", "--keystore", a, "-q").stdout.strip() for i in range(102)]
    sms("decrypt", "Alice", m[101], "--keystore", b, code=1)  # 101 lost in a row; then 100 lost, then none
    assert [sms("decrypt", "Alice", m[i], "--keystore", b).stdout for i in (100, 101)] == ["m100\n", "m101\n"]

def help_example(binary):
    text = run(binary, "sms", "count", "--help").stdout
    return re.search(r'sms count "([^"]+)"\s+# (\d+) septets used, (\d+) left', text)

def test_count_limits_and_position_only_errors(tmp_path, dossier_bin):
    sms = Sms(dossier_bin, tmp_path)
    msg = "a" * 140 + "[]"
    assert sms("count", msg, DOSSIER_SMS_KEYSTORE="/nonexistent/k").stdout == "144 septets used, 0 left (of 144)\n"
    sms("count", msg + "x", code=1)
    for bad in ("QvxZ\U0001F642JkWy", "zqpv\u4e2drsxq", "wxyz\tkjqv"):
        p = sms("count", bad, code=1)
        pos = next(i for i, c in enumerate(bad) if c in "\U0001F642\u4e2d\t") + 1
        assert str(pos) in p.stderr and bad[pos - 1] not in p.stderr.replace("\n", "")
        assert not any(bad[i:i + 2] in p.stderr for i in range(len(bad) - 1))
    ex = help_example(dossier_bin)
    assert sms("count", ex[1]).stdout == f"{septets(ex[1])} septets used, {144 - septets(ex[1])} left (of 144)\n"

def test_help_example_figure_is_right(dossier_bin):
    ex = help_example(dossier_bin)
    assert (int(ex[2]), int(ex[3])) == (septets(ex[1]), 144 - septets(ex[1]))

def test_normalize_replaces_exactly_the_documented_characters(tmp_path, dossier_bin):
    sms = Sms(dossier_bin, tmp_path)
    for repl, chars in {"'": "\u2018\u2019\u201a\u201b\u2032", '"': "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb",
                        "-": "\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "...": "\u2026",
                        " ": "\u00a0\u2007\u2009\u202f"}.items():
        for c in chars:
            p = sms("count", f"a{c}b", "--normalize")
            assert p.stdout.startswith(f"{2 + len(repl)} septets used"), hex(ord(c))
            assert re.match(rf"--normalize changed 1 characters?: 1 × {c} \(U\+{ord(c):04X}\) → ", p.stderr)
    for c in "\u2002\u00b4\u02bc\u2030\u300c":  # not on the list: still refused
        sms("count", f"a{c}b", "--normalize", code=1)

def test_refusals_password_keystore_contact_key_message(pair):
    sms, a, b, key_a, key_b, number = pair
    p = sms("contact", "list", "--keystore", a, code=1, DOSSIER_SMS_PASSWORD="wrong horse")
    assert "wrong password" in p.stderr and str(a) in p.stderr
    env = json.loads(a.read_text())
    env["payload"] = env["payload"][:8] + ("A" if env["payload"][8] != "A" else "B") + env["payload"][9:]
    for name, data in (("junk.ks", b"{not json"), ("cut.ks", a.read_bytes()[:100]), ("flip.ks", json.dumps(env))):
        (sms.tmp / name).write_bytes(data if isinstance(data, bytes) else data.encode())
        assert str(sms.tmp / name) in sms("contact", "list", "--keystore", sms.tmp / name, code=1).stderr
    assert "damaged" in sms.log[-1].stderr
    for args in (("encrypt", "Carol", "x"), ("decrypt", "Carol", "x"), ("contact", "rm", "Carol"),
                 ("contact", "edit", "Carol", "--name", "D"), ("contact", "resync", "Carol", "--later")):
        assert "Carol" in sms(*args, "--keystore", a, code=1).stderr
    before = a.read_bytes()
    assert "145" in sms("encrypt", "Bob", "y" * 145, "--keystore", a, code=1).stderr and a.read_bytes() == before
    again = [sms("contact", "add", "Eve", "--keystore", a, "--later", "-q").stdout for _ in range(2)]
    assert again[0] == again[1]  # the key message stays the same until the exchange completes
    sms("contact", "add", "Eve", "--keystore", a, "--key", again[0].strip(), code=1)  # own key message
    damaged = key_b[:30] + ("A" if key_b[30] != "A" else "B") + key_b[31:]
    assert "check" in sms("contact", "add", "Eve", "--keystore", a, "--key", damaged, code=1).stderr

def test_secrets_from_fds_and_environment(pair):
    sms, a, b, key_a, key_b, number = pair
    r = fd(PW + "\nnot the password\n")  # only the first line counts
    sms("contact", "list", "--keystore", a, fds=(r,), DOSSIER_SMS_PASSWORD=None, DOSSIER_SMS_PASSWORD_FD=str(r))
    shown = sms("contact", "add", "Eve", "--keystore", a, "-q", DOSSIER_SMS_KEY=key_b).stdout.splitlines()
    assert shown[1].startswith("Safety number: ")  # the key came from DOSSIER_SMS_KEY
    r = fd((wrong := " ".join(str((int(g) + 1) % 100000).zfill(5) for g in shown[1][15:].split())) + "\n")
    for env in ({"DOSSIER_SMS_CONFIRM_FD": str(r)}, {"DOSSIER_SMS_CONFIRM": wrong}):
        p = sms("contact", "add", "Eve", "--keystore", a, fds=(r,), DOSSIER_SMS_KEY=key_b, code=1, **env)
        assert "the safety numbers differ: a key may have been substituted" in p.stderr
    assert "Eve\tpending" in sms("contact", "list", "--keystore", a).stdout
    r = fd((new := "saffron glacier 42 tundra kite") + "\n")
    sms("passwd", "--keystore", a, fds=(r,), DOSSIER_SMS_NEW_PASSWORD_FD=str(r))
    sms("contact", "list", "--keystore", a, code=1)
    sms("contact", "list", "--keystore", a, DOSSIER_SMS_PASSWORD=new)
    weak = sms("init", "--keystore", b.with_name("w.ks"), "--kdf-log2n", 10, code=1, DOSSIER_SMS_PASSWORD="password1")
    assert "too weak" in weak.stderr and "password1" not in weak.stdout + weak.stderr
    sms("init", "--keystore", b.with_name("w.ks"), "--kdf-log2n", 10, "--allow-weak", DOSSIER_SMS_PASSWORD="password1")

def test_keystore_location(tmp_path, dossier_bin):
    sms = Sms(dossier_bin, tmp_path)
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    sms("init", "--kdf-log2n", 10, DOSSIER_SMS_KEYSTORE=str(tmp_path / "env.ks"))
    sms("init", "--kdf-log2n", 10, XDG_DATA_HOME=str(xdg))
    assert (tmp_path / "env.ks").exists() and (xdg / "dossier" / "sms.keystore").exists()
    assert not (home / ".dossier").exists()
    sms("init", "--kdf-log2n", 10)
    sms("contact", "list", XDG_DATA_HOME=str(xdg), DOSSIER_SMS_PASSWORD="wrong, so home is the one read", code=1)
    assert json.loads((home / ".dossier" / "sms.keystore").read_text())["lockout"]["failures"] == 1

def test_relative_xdg_data_home_is_ignored(tmp_path, dossier_bin):
    Sms(dossier_bin, tmp_path)("init", "--kdf-log2n", 10, XDG_DATA_HOME="rel", cwd=tmp_path)
    assert (tmp_path / "home" / ".dossier" / "sms.keystore").exists() and not (tmp_path / "rel").exists()

def test_key_label_precedes_the_key_message_when_piped(tmp_path, dossier_bin):
    sms = Sms(dossier_bin, tmp_path)
    sms("init", "--keystore", tmp_path / "k", "--kdf-log2n", 10, "-q")
    lines = sms("contact", "add", "Bob", "--keystore", tmp_path / "k", "--later").stdout.splitlines()
    assert lines[0] == "Your key message for Bob (send it to them by SMS):" and lines[1].startswith("SecureSMS-key:")

def test_lock_wait_terminal_prompt_and_no_secret_anywhere(pair):
    sms, a, b, *_ = pair
    with open(str(a) + ".lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        assert "in use" in sms("contact", "list", "--keystore", a, "--lock-wait", 0, code=1).stderr
    master, slave = pty.openpty()
    os.write(master, b"hello there\n\x04")
    p = subprocess.run([sms.binary, "sms", "count"], stdin=slave, capture_output=True, text=True, timeout=60)
    os.close(slave), os.close(master)
    assert p.stdout == "11 septets used, 133 left (of 144)\n" and "Ctrl-D" in p.stderr
    msg = sms("encrypt", "Bob", "--keystore", a, input="Zanzibar quokka rendezvous 4711").stdout
    dec = sms("decrypt", "Alice", msg, "--keystore", b)
    assert dec.stdout == "Zanzibar quokka rendezvous 4711\n"
    sms("contact", "list", "--keystore", a, code=1, DOSSIER_SMS_PASSWORD="Wrong " + PW)
    shown = "".join(p.stderr + (p.stdout if p is not dec else "") for p in sms.log)
    assert PW not in shown and "Wrong " not in shown and "quokka" not in shown
    files = [p for p in sms.tmp.rglob("*") if p.is_file()]
    assert files and all(PW.encode() not in p.read_bytes() and b"quokka" not in p.read_bytes() for p in files)
    assert all(p.stat().st_mode & 0o077 == 0 for p in files if p.name.endswith(".ks"))
    assert not [p for p in files if p.name.endswith(".tmp")]
