"""docs/securesms-report.md re-implemented from the docs alone (no Sources/): keystores are driven through `dossier
sms` with a fixed clock (DOSSIER_SMS_NOW) into every key state the doc names — pending, active, resyncing, a skipped
backlog, discarded keys, keys of the contact-code era — while a Python model follows the same story; the `sms`
section's contacts.csv, keystores.json and page must be what the model says, with ordinal contacts by default.
Each keystore's payload is decrypted here (docs/securesms-keystore.md) so that every private, chain and skipped key,
salt, verifier, password and message — and their SHA-1/SHA-256 — can be searched for in every output byte."""
import base64
import csv
import hashlib
import io
import json
import pathlib
import re
import shutil
import subprocess
import sys
import unicodedata

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

sys.path.insert(0, str(pathlib.Path(__file__).parent / "test_sms_support"))
import sms_reference as ref  # noqa: E402

HERE = pathlib.Path(__file__).parent
PW = "ember quasar 41 mitten plume"
V1_PW = "demo-only-not-a-secret"
BACKLOG = 2
WARN = {"pending": "waiting for the key exchange: it was started but not finished",
        "resyncing": "a resynchronisation was started but not finished",
        "v1": "keys were agreed with read-aloud contact codes (anyone who heard both can derive them): resynchronise "
              "to agree keys with X25519"}
FIELDS = ["keystore", "account", "contact", "status", "added_at", "resynced_at", "sent", "received",
          "next_send_counter", "next_receive_counter", "skipped_backlog", "discarded_keys", "last_sent_at",
          "last_received_at", "warnings"]


def check(ok, message):   # no pytest introspection: it could print a secret
    if not ok:
        pytest.fail(message, pytrace=False)


def t(day, hh, mm=0):
    return f"2026-04-{day:02d}T{hh:02d}:{mm:02d}:00Z"


class Story:
    """Runs `dossier sms` and keeps the doc's model of every contact: {(keystore, name): fields}."""

    def __init__(self, dossier_bin, folder):
        self.bin, self.folder, self.now, self.model, self.logs = dossier_bin, folder, t(1, 8), {}, []
        self.accounts, self.messages = {}, []

    def sms(self, ks, *args, stdin=None, password=PW, **env):
        p = subprocess.run([self.bin, "sms", *args, "--keystore", str(self.folder / f"{ks}.keystore")],
                           input=stdin, capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "HOME": str(self.folder), "LANG": "C.UTF-8",
                                "DOSSIER_SMS_PASSWORD": password, "DOSSIER_SMS_NOW": self.now, **env})
        self.logs.append(p.stdout + p.stderr)
        check(p.returncode == 0, f"sms {args[:2]} exited {p.returncode}")
        return p.stdout

    def init(self, ks, account):
        self.sms(ks, "init", "--account", account, "--kdf-log2n", "10")
        self.accounts[ks] = dict(account=account, created_at=self.now, password_changed_at=None)

    def contact(self, ks, name):
        return self.model.setdefault((ks, name), dict(
            status="pending", added_at=self.now, resynced_at=None, sent=0, received=0, next_send_counter=0,
            next_receive_counter=0, skipped=set(), discarded_keys=0, last_sent_at=None, last_received_at=None,
            v1=False))

    def open(self, ks, name, command="add"):
        c = self.contact(ks, name)
        if command == "resync":
            c["status"] = "resyncing"
        out = self.sms(ks, "contact", command, name, "--later")
        return [ln for ln in out.splitlines() if ln.startswith("SecureSMS-key:")][0]

    def connect(self, a, name_in_a, b, name_in_b, command="add", later=None):
        ka, kb = self.open(a, name_in_a, command), self.open(b, name_in_b, command)
        if later:
            self.now = later
        number = ref.safety_number(ref.parse_key_message(ka), ref.parse_key_message(kb))
        for ks, name, key in ((b, name_in_b, ka), (a, name_in_a, kb)):
            self.sms(ks, "contact", command, name, "--key", key, "--confirm", number)
            c = self.model[(ks, name)]
            c.update(status="active", next_send_counter=0, next_receive_counter=0, skipped=set())
            if command == "resync":
                c["resynced_at"] = self.now

    def send(self, a, to, b, frm, n=1, deliver=(-1,)):
        """a sends n messages to b; b decrypts those whose index is in `deliver`, in order."""
        out = []
        for k in range(n):
            text = f"msg {len(self.messages)} from {a} to {b}: the gate code is {len(self.messages) * 7919 % 10000}"
            out.append((text, self.sms(a, "encrypt", to, stdin=text).strip()))
            self.messages += out[-1]
            s = self.model[(a, to)]
            s.update(sent=s["sent"] + 1, next_send_counter=s["next_send_counter"] + 1, last_sent_at=self.now)
        r, counters = self.model[(b, frm)], [self.model[(a, to)]["next_send_counter"] - n + k for k in range(n)]
        for k in sorted(d % n for d in deliver):
            self.sms(b, "decrypt", frm, stdin=out[k][1])
            ctr = counters[k]
            r["skipped"] |= set(range(r["next_receive_counter"], ctr))
            r["skipped"].discard(ctr)
            r["next_receive_counter"] = max(r["next_receive_counter"], ctr + 1)
            r.update(received=r["received"] + 1, last_received_at=self.now)
            while len(r["skipped"]) > 100:            # "dropped because more than 100 were waiting"
                r["skipped"].remove(min(r["skipped"]))
                r["discarded_keys"] += 1


def payload(path, password):
    """The decrypted payload of a keystore (docs/securesms-keystore.md) and its envelope."""
    env = json.loads(path.read_text())
    k = env["kdf"]
    salt = base64.b64decode(k["salt"])
    master = hashlib.scrypt(unicodedata.normalize("NFC", password).encode(), salt=salt, n=2 ** k["log2n"],
                            r=k["r"], p=k["p"], dklen=32, maxmem=2 ** 30)
    hk = lambda info: HKDF(hashes.SHA256(), 32, b"", info).derive(master)  # noqa: E731
    check(hk(b"SecureSMS keystore verifier") == base64.b64decode(env["verifier"]), "verifier (doc formula)")
    blob = base64.b64decode(env["payload"])
    ad = f"securesms-keystore/1 scrypt {k['log2n']} {k['r']} {k['p']} ".encode() + salt
    return json.loads(AESGCM(hk(b"SecureSMS keystore key")).decrypt(blob[:12], blob[12:], ad)), env


def from_payload(c):
    """A contact of a decrypted payload as the report's fields (the v1 keystore has no story here)."""
    return dict(status="pending" if "send" not in c else "resyncing" if "pending_key" in c else "active",
                added_at=c["added_at"], resynced_at=c.get("resynced_at"), sent=c["sent_count"],
                received=c["received_count"], next_send_counter=c.get("send", {}).get("next", 0),
                next_receive_counter=c.get("receive", {}).get("next", 0),
                skipped=set(range(len(c.get("receive", {}).get("skipped", [])))), discarded_keys=c["discarded_keys"],
                last_sent_at=c.get("last_sent_at"), last_received_at=c.get("last_received_at"),
                v1="send" in c and "key_agreement" not in c)


def warnings(c):
    w = [WARN["pending"]] * (c["status"] == "pending") + [WARN["resyncing"]] * (c["status"] == "resyncing")
    w += [WARN["v1"]] * c["v1"]
    if len(c["skipped"]) >= BACKLOG:
        w.append(f"{len(c['skipped'])} skipped messages have not arrived")
    if c["discarded_keys"] > 0:
        w.append(f"{c['discarded_keys']} skipped keys were discarded")
    return w


def expected(story, identify):
    """[(keystore, account, contact label, fields, warnings)] in keystore id order, contacts as the doc orders them."""
    rows = []
    for ks in sorted(story.accounts):
        mine = [(n, c) for (k, n), c in story.model.items() if k == ks]
        mine.sort(key=(lambda nc: nc[0].casefold()) if identify else (lambda nc: (nc[1]["added_at"], nc[0])))
        for i, (name, c) in enumerate(mine):
            f = dict(c, skipped_backlog=len(c["skipped"]))
            if not identify:
                f.update(last_sent_at=None, last_received_at=None)
            rows.append((ks, story.accounts[ks]["account"], name if identify else f"contact {i + 1}", f, warnings(c)))
    return rows


@pytest.fixture(scope="module")
def story(dossier_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sms")
    s = Story(dossier_bin, folder)
    for ks, account in (("north", "north-acct"), ("south", "south-acct"), ("east", "east-acct")):
        s.init(ks, account)
    shutil.copy(HERE / "test_sms_support" / "v1-alice.keystore", folder / "v1.keystore")
    s.now = t(1, 8, 30)
    s.sms("v1", "passwd", "--kdf-log2n", "10", password=V1_PW, DOSSIER_SMS_NEW_PASSWORD=PW)
    old, _ = payload(folder / "v1.keystore", PW)
    s.accounts["v1"] = dict(account=old["account"], created_at=old["created_at"], password_changed_at=s.now)
    for c in old["contacts"]:
        s.model[("v1", c["name"])] = from_payload(c)
    s.now = t(1, 9)
    s.connect("north", "Quillon Vey", "south", "North Ann", later=t(1, 9, 10))       # added at 9:00, agreed 9:10
    s.now = t(1, 10)
    s.send("north", "Quillon Vey", "south", "North Ann", n=2, deliver=(0, 1))
    s.now = t(1, 11)
    s.send("south", "North Ann", "north", "Quillon Vey")
    s.now = t(2, 8)
    s.open("north", "Cato Tie")                                                   # two pending, same time
    s.open("north", "brisa Tamm")
    s.now = t(2, 9)
    s.connect("north", "Osric Pell", "east", "North Osric")
    s.now = t(2, 10)
    s.send("north", "Osric Pell", "east", "North Osric")
    s.now = t(2, 11)
    s.open("north", "Osric Pell", "resync")                                       # started, not finished
    s.now = t(3, 9)
    s.connect("north", "Quillon Vey", "south", "North Ann", "resync", later=t(3, 9, 20))   # a finished resync
    s.now = t(3, 10)
    s.send("north", "Quillon Vey", "south", "North Ann")
    s.now = t(4, 9)
    s.connect("north", "dace Wilk", "east", "North Dace")
    s.now = t(4, 10)
    s.send("east", "North Dace", "north", "dace Wilk", n=3)                       # backlog 2
    s.now = t(5, 9)
    s.connect("north", "Eamon East", "east", "North Eamon")
    s.now = t(5, 10)
    s.send("east", "North Eamon", "north", "Eamon East", n=60)                     # 59 skipped
    s.now = t(5, 11)
    s.send("east", "North Eamon", "north", "Eamon East", n=60)                     # 118 > 100: 18 discarded
    return s


class Site(dict):   # pytest shows fixtures in tracebacks: never the outputs
    __repr__ = lambda self: "<site>"  # noqa: E731


def build(story, identify, password=PW):
    """Builds the `sms` section over every keystore of the story; returns every byte written, by name."""
    proj = story.folder / "proj"
    (proj / "data").mkdir(parents=True, exist_ok=True)
    for f in story.folder.glob("*.keystore"):
        shutil.copy(f, proj / "data" / f.name)
    before = {f.name: f.read_bytes() for f in (proj / "data").glob("*.keystore")}
    (proj / "dossier.yml").write_text(f"title: SMS doc test\nsms:\n  keystores: data/*.keystore\n  password_env: "
                                      f"SMS_DOC_PW\n  backlog_warning: {BACKLOG}\n  identify_contacts: "
                                      f"{'true' if identify else 'false'}\n")
    p = subprocess.run([story.bin, "build", str(proj)], capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(story.folder), "SMS_DOC_PW": password})
    out = Site(rc=p.returncode, log=p.stdout + p.stderr, files={}, kept=before == {
        f.name: f.read_bytes() for f in (proj / "data").glob("*.keystore")})
    for f in [*(proj / "_site").rglob("*"), *(proj / ".dossier").rglob("*"), *proj.glob("*.json")]:
        if f.is_file():
            out["files"][str(f.relative_to(proj))] = f.read_bytes()
    return out


@pytest.fixture(scope="module")
def sites(story):
    return {False: build(story, False), True: build(story, True), "wrong": build(story, False, "not " + PW)}


def fmt(v):
    return "" if v is None else str(v)


@pytest.mark.parametrize("identify", [False, True])
def test_contacts_csv_is_the_model(sites, story, identify):
    site = sites[identify]
    check(site["rc"] == 0 and site["kept"], f"build exited {site['rc']} or changed a keystore's bytes")
    raw = site["files"]["_site/sms/contacts.csv"]
    check(raw.endswith(b"\r\n") and b"\n" not in raw.replace(b"\r\n", b""), "contacts.csv: CRLF records")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    check(rows[0] == FIELDS, f"header {rows[0]}")
    want = [[ks, acct, label] + [fmt(f[k]) for k in FIELDS[3:-1]] + [w]
            for ks, acct, label, f, w in expected(story, identify)]
    check([r[:3] for r in rows[1:]] == [r[:3] for r in want], "rows or their order differ"
          + (f": {[r[:3] for r in rows[1:]]} != {[r[:3] for r in want]}" if identify else ""))
    for got, exp in zip(rows[1:], want):
        bad = {FIELDS[i]: (g, e) for i, (g, e) in enumerate(zip(got, exp)) if g != e and i < 14}
        check(not bad, f"{exp[0]} / {exp[2] if identify else exp[2]}: (program, model) {bad}")
        check(re.fullmatch("; ".join(re.escape(w) + ("" if w in WARN.values() else ".*?") for w in exp[14]), got[14],
                           re.S), f"{exp[0]} / {exp[2]} warnings: {got[14]!r} != {exp[14]!r}")


@pytest.mark.parametrize("identify", [False, True])
def test_keystores_json_is_the_model(sites, story, identify):
    data = json.loads(sites[identify]["files"]["_site/sms/keystores.json"])
    check(data["backlog_warning"] == BACKLOG and data["max_skip"] == 100 and data["generator"].startswith("dossier "),
          "backlog_warning, max_skip, generator")
    check([k["keystore"] for k in data["keystores"]] == sorted(story.accounts), "keystores in id order")
    want = expected(story, identify)
    for k in data["keystores"]:
        a = story.accounts[k["keystore"]]
        check((k["file"], k["account"], k["created_at"], k["password_changed_at"]) ==
              (k["keystore"] + ".keystore", a["account"], a["created_at"], a["password_changed_at"]),
              f"{k['keystore']}: file, account, created_at, password_changed_at")
        mine = [w for w in want if w[0] == k["keystore"]]
        check([c["name"] for c in k["contacts"]] == [w[2] for w in mine], f"{k['keystore']}: contacts or order")
        for c, (_, _, label, f, warn) in zip(k["contacts"], mine):
            bad = {x: (c.get(x), f[x]) for x in FIELDS[4:-1] + ["status"] if c.get(x) != f[x]}
            check(not bad, f"{k['keystore']} / {label}: (program, model) {bad}")
            check(len(c["warnings"]) == len(warn) and all(g.startswith(w) for g, w in zip(c["warnings"], warn)),
                  f"{k['keystore']} / {label}: warnings {c['warnings']} != {warn}")


def test_default_page_has_no_names_or_times_and_opt_in_shows_them(sites, story):
    names = sorted({n for (_, n) in story.model})
    off = {k: v.decode("utf-8", "replace") for k, v in sites[False]["files"].items()}
    off["build log"] = sites[False]["log"]
    hits = [(n, k) for n in names for k, v in off.items() if n in v]
    check(not hits, f"contact names in a default build: {hits[:4]}")
    times = {v for c in story.model.values() for v in (c["last_sent_at"], c["last_received_at"]) if v}
    check(not [x for x in times for v in off.values() if x in v], "a last-message time in a default build")
    page = sites[True]["files"]["_site/sms/index.html"].decode()
    check(all(n in page for n in names), "the opt-in page lacks a contact's name")


def test_no_secret_in_any_output_log_or_error(sites, story):
    secrets = [PW, V1_PW, "not " + PW] + story.messages + [m[k:k + 24] for m in story.messages[1::2] for k in (0, 68)]
    for f in story.folder.glob("*.keystore"):
        pay, env = payload(f, PW)
        raw = [base64.b64decode(env["kdf"]["salt"]), base64.b64decode(env["verifier"])]
        for c in pay["contacts"]:
            for part in (c.get("send", {}), c.get("receive", {})):
                raw += [base64.b64decode(part["chain_key"])] if "chain_key" in part else []
            raw += [base64.b64decode(s["key"]) for s in c.get("receive", {}).get("skipped", [])]
            raw += [base64.b64decode(c[k]) for k in ("pending_key", "pending_code") if k in c]
        secrets += [env["payload"][:24], env["payload"][-24:]]
        secrets += [x for b in raw for x in (base64.b64encode(b).decode(), b.hex(), hashlib.sha1(b).hexdigest(),
                                             hashlib.sha256(b).hexdigest())]
    secrets += [h(s.encode()).hexdigest() for s in list(secrets) for h in (hashlib.sha1, hashlib.sha256)]
    check(len(secrets) > 400, "the keystores hold keys to search for")
    texts = {f"{w} {k}": v.decode("utf-8", "replace").lower() for w, s in sites.items() for k, v in s["files"].items()}
    texts.update({f"{w} log": s["log"].lower() for w, s in sites.items()})
    check(sites["wrong"]["rc"] == 1 and "wrong password" in sites["wrong"]["log"], "a wrong password fails the build")
    leaks = [(i, name) for i, s in enumerate(secrets) for name, v in texts.items() if s.lower() in v]
    check(not leaks, f"secret (index, file) {leaks[:4]}")
