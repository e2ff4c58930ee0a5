"""`-q` on the vault, SecureSMS and game commands (see test_cli_quiet.py for the rules):
each is run with -q in the order a user would, and prints nothing on success but the
output asked for; a failure still says why, with the same exit status."""
import json
import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
import sms_reference as ref  # noqa: E402
from quiet_runner import make_runner  # noqa: E402
from webdav_server import WebDAVServer  # noqa: E402

KEY_RE = re.compile(r"^SecureSMS-key:\S{40}$")


@pytest.fixture
def runner(dossier_bin, tmp_path):
    return make_runner(dossier_bin, tmp_path)


def test_quiet_vault(runner, tmp_path):
    r = runner
    master = {"DOSSIER_VAULT_PASSWORD": "quiet master pass phrase"}
    made = r.data("vault", "generate", "--count", "3", same=False)
    assert len(made.splitlines()) == 3
    r.silent("vault", "init", "v.dvault", "--kdf", "pbkdf2", env=master)
    r.silent("vault", "add", "v.dvault", "--title", "Mail", "--username", "jo", "--website", "https://mail.example",
             "--generate", env=master)
    r.silent("vault", "edit", "v.dvault", "Mail", "--username", "jo2", env=master)
    r.silent("vault", "note", "v.dvault", "--title", "Wifi", input="the wifi words\n", env=master)
    listing = r.data("vault", "list", "v.dvault", env=master)
    assert "\tMail\tjo2\t" in listing and "\tWifi" in listing
    assert "jo2" in r.data("vault", "show", "v.dvault", "Mail", env=master)
    assert "entries 1, notes 1" in r.data("vault", "report", "v.dvault", "--as-of", "2026-01-01", env=master)
    r.silent("vault", "export", "v.dvault", "--format", "bitwarden-json", "--output", "e.json", "--yes", env=master)
    assert len(json.loads((tmp_path / "e.json").read_text())["items"]) == 2
    r.silent("vault", "init", "w.dvault", "--kdf", "pbkdf2", env=master)
    r.silent("vault", "import", "w.dvault", "e.json", env=master)
    assert r.data("vault", "list", "w.dvault", env=master).count("\n") == 2
    # an import that leaves something out still says so with -q (on standard error)
    bw = json.loads((tmp_path / "e.json").read_text())
    bw["items"].append({"type": 3, "name": "Card", "card": {"number": "4111111111111111"}})
    (tmp_path / "card.json").write_text(json.dumps(bw))
    p = r.run("vault", "import", "w.dvault", "card.json", "-q", env=master)
    assert p.returncode == 0 and p.stdout == "" and "skipped 1 card item(s)" in p.stderr, (p.stdout, p.stderr)
    r.silent("vault", "passwd", "w.dvault", "--kdf", "pbkdf2",
             env={**master, "DOSSIER_NEW_VAULT_PASSWORD": "second quiet master phrase"})
    with WebDAVServer(tmp_path / "dav") as dav:
        r.silent("vault", "sync", "v.dvault", "--to", dav.url + "vault/", env=master)
        r.silent("vault", "sync", "v.dvault", env=master)
    r.silent("vault", "rm", "v.dvault", "Wifi", env=master)
    assert "Wifi" not in r.data("vault", "list", "v.dvault", env=master)
    r.data("vault", "score", "--stdin", "--json", input="correct horse battery staple\nabc\n")
    r.data("vault", "bench", "--count", "5", "--json", same=False)
    wrong = r.fails_the_same("vault", "list", "v.dvault", env={"DOSSIER_VAULT_PASSWORD": "not it"})
    assert wrong.returncode == 1 and "wrong master password" in wrong.stderr
    r.done("vault")


def test_quiet_sms(runner, tmp_path):
    r = runner
    strong = "plover quartz minnow 7 lantern"
    a = {"DOSSIER_SMS_PASSWORD": strong}
    b = {"DOSSIER_SMS_PASSWORD": strong + " b"}
    ka, kb = ["--keystore", "alice.keystore"], ["--keystore", "bob.keystore"]
    r.silent("sms", "init", *ka, "--account", "alice", "--kdf-log2n", "10", env=a)
    r.silent("sms", "init", *kb, "--account", "bob", "--kdf-log2n", "10", env=b)
    text = "Price: €5 [approx]"
    used = sum(2 if ch in "€[]{}\\^~|" else 1 for ch in text)   # the extension table counts 2
    assert r.data("sms", "count", text) == f"{used} septets used, {144 - used} left (of 144)\n"
    # the exchange prints the key message and the safety number, nothing else
    msg_a = r.data("sms", "contact", "add", "Bob", *ka, "--later", env=a, same=False)
    assert KEY_RE.match(msg_a.strip()) and msg_a.count("\n") == 1, msg_a
    msg_b = r.data("sms", "contact", "add", "Alice", *kb, "--later", env=b, same=False)
    number = ref.safety_number(ref.parse_key_message(msg_a.strip()), ref.parse_key_message(msg_b.strip()))
    for keys, name, theirs, env in [(kb, "Alice", msg_a, b), (ka, "Bob", msg_b, a)]:
        out = r.data("sms", "contact", "add", name, *keys, "--key", theirs.strip(), "--confirm", number, env=env, same=False)
        assert out.splitlines()[1:] == [f"Safety number: {number}"] and KEY_RE.match(out.splitlines()[0]), out
    assert r.data("sms", "contact", "list", *ka, env=a).startswith("Bob\tactive\t")
    sealed = r.data("sms", "encrypt", "Bob", "See you at 6", *ka, env=a, same=False)
    assert len(sealed) == 161
    assert r.data("sms", "decrypt", "Alice", sealed.strip(), *kb, env=b, same=False) == "See you at 6\n"
    r.silent("sms", "contact", "edit", "Bob", "--name", "Robert", *ka, env=a)
    assert KEY_RE.match(r.data("sms", "contact", "resync", "Robert", *ka, "--later", env=a, same=False).strip())
    r.silent("sms", "contact", "rm", "Robert", *ka, env=a)
    r.silent("sms", "passwd", *ka, "--kdf-log2n", "10", env={**a, "DOSSIER_SMS_NEW_PASSWORD": strong + " new"})
    r.data("sms", "alphabet", "--json")
    r.data("sms", "bench", "--count", "5", same=False)
    gone = r.fails_the_same("sms", "encrypt", "Nobody", "x", *kb, env=b)
    assert gone.returncode == 1 and "no contact named" in gone.stderr
    r.done("sms")


def test_quiet_game(runner, tmp_path):
    r = runner
    r.silent("game", "keygen", "--output", "study", "--bits", "2048")
    r.silent("game", "simulate", "--players", "3", "--seed", "2", "--output", "cohort.jsonl")
    assert r.data("game", "simulate", "--players", "3", "--seed", "2") == (tmp_path / "cohort.jsonl").read_text()
    r.silent("game", "seal", "--public", "study.pub", "--output", "uploads", "cohort.jsonl")
    r.silent("game", "ingest", "--key", "study.key", "uploads", "--db", "study.sqlite")
    r.silent("game", "ingest", "--key", "study.key", "uploads", "--db", "study.sqlite")   # duplicates: silent too
    analysis = json.loads(r.data("game", "analyze", "--db", "study.sqlite", "--json"))
    assert analysis == json.loads(r.data("game", "analyze", "cohort.jsonl", "--json"))
    r.data("game", "fit-exgauss", "--json", input="\n".join(str(300 + (i * 37) % 250) for i in range(60)))
    rows = "a,b,y\n" + "".join(f"{i % 7},{(i * 3) % 5},{int(i % 7 > 3)}\n" for i in range(40))
    r.data("game", "fit-logistic", "--json", input=rows)
    missing = r.fails_the_same("game", "ingest", "--key", "study.key", "uploads", "--db", "no/such/study.sqlite")
    assert missing.stderr == ("no/such/study.sqlite: cannot create the database: "
                              "the folder no/such does not exist (create it first)\n"), missing.stderr
    r.done("game")
