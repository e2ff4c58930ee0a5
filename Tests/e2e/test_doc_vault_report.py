"""docs/vault-report.md re-implemented from the docs alone (no Sources/) and compared with `vault report`, the built
`vault` section and its side outputs, for one rich seeded vault; every output byte (pages, manifest, .dossier, logs)
is searched for every secret and its SHA-1/SHA-256 hex. Failure messages never show a secret."""
import base64, csv, hashlib, html, io, json, random, re, string, subprocess, unicodedata, uuid  # noqa: E401
import datetime as dt

import pytest
import regex
from vault_helpers import skip_without_vault

zx = pytest.importorskip("zxcvbn").zxcvbn
MASTER = "umber falcon 73 lattice quay"
ENV = {"DOSSIER_VAULT_PASSWORD": MASTER}
AS_OF = dt.datetime(2025, 6, 1, tzinfo=dt.timezone.utc)
DAY = dt.timedelta(days=1)
RNG = random.Random(20250601)
LEVEL = {"breached": 0, "reused": 0, "weak": 1, "empty password": 1, "expired": 1, "http": 2, "stale": 2,
         "expiring": 2, "duplicate": 3, "no TOTP": 3}
LEVELS = ("critical", "high", "medium", "low", "ok")
SECRETS = []

def canary(kind):
    SECRETS.append(f"Q{kind}{''.join(RNG.choice(string.ascii_uppercase + string.digits) for _ in range(10))}")
    return SECRETS[-1]

def strong():
    SECRETS.append("".join(RNG.choice(string.ascii_letters + string.digits + "#%&*+=?") for _ in range(22)))
    return SECRETS[-1]

def check(ok, message):  # no pytest introspection (it could print a password); secrets blanked
    if not ok:
        pytest.fail(re.sub("|".join(map(re.escape, SECRETS + [MASTER])), "<secret>", str(message)), pytrace=False)

# MARK: - the data (each entry: what the importer is given and what the doc says it becomes)

def e(title, user, url, pw, changed, *, totp=False, expires=None, excluded=False, src="bw"):
    return dict(id=str(uuid.UUID(int=RNG.getrandbits(128), version=4)).upper(), title=title, user=user, url=url,
                pw=pw, changed=changed, totp=totp, expires=expires, excluded=excluded, src=src)

def d(*ymdhms):
    return dt.datetime(*ymdhms, tzinfo=dt.timezone.utc)

REUSED, BREACH3, BREACH0, BREACHBIG = strong(), strong(), strong(), strong()
SECRETS.append(FLAG := "Ab9#qR2x\U0001F1E9\U0001F1EAe\u0301Zt7&pLm4Kw")   # 2 graphemes of 2 scalars each
ENTRIES = [
    e("Zeta Bank", "ann.lee@mail.example",
      f"https://ann:{canary('UI')}@bank.example.com/login?token={canary('Q')}#{canary('F')}", REUSED, d(2025, 1, 1),
      totp=True),
    e("alpha shop", "Ann.Lee@mail.example", "http://shop.example.net/cart", REUSED, d(2025, 2, 1)),
    e("\u00c9cluse caf\u00e9", "b\u00f8rge", "HTTPS://Cafe.EXAMPLE.org/Menu", FLAG, d(2025, 3, 1)),
    e("Mail", "carol", "https://mail.example.com/", "password1", d(2025, 3, 1), totp=True),
    e("Quokkazephyr portal", "", "https://portal.example.org/", "quokkazephyr", d(2025, 3, 1)),
    e("Empty one", "dan", "https://empty.example.com/", "", d(2025, 3, 1), totp=True),
    e("Old forum", "", "https://forum.example.org/", strong(), d(2024, 5, 31, 23, 59, 59)),
    e("Edge forum", "", "https://edge.example.org/", strong(), d(2024, 6, 1)),
    e("Wiki A", "Eve", "https://wiki.example.org/a", strong(), d(2025, 1, 1)),
    e("wiki b", "eve", "https://WIKI.example.org/b", strong(), d(2025, 1, 1)),
    e("Breach three", "", "https://b3.example.com/", BREACH3, d(2025, 1, 1)),
    e("Breach zero", "", "https://b0.example.com/", BREACH0, d(2025, 1, 1)),
    e("Breach big", "", "https://bb.example.com/", BREACHBIG, d(2025, 1, 1)),
    e("Backslash", "", "https://bank.example.com\\@evil.example.com/", strong(), d(2025, 1, 1)),
    e(f"Login at https://x:{canary('TUI')}@portal.example.com/?k={canary('TQ')}#{canary('TF')} now", "",
      "", strong(), d(2025, 1, 1)),
    e(f"What? #1 jo@example.com www.Example.com/x?y={canary('TQ')}", "", "", strong(), d(2025, 1, 1)),
    e("Expired VPN", "", "", strong(), d(2025, 1, 1), expires=d(2025, 5, 31), src="kp"),
    e("Expires today", "", "", strong(), d(2025, 1, 1), expires=d(2025, 6, 1), src="kp"),
    e("Expiring cert", "", "", strong(), d(2025, 1, 1), expires=d(2025, 6, 2), src="kp"),
    e("Expiring edge", "", "", strong(), d(2025, 1, 1), expires=d(2025, 7, 1), src="kp"),
    e("Later cert", "", "", strong(), d(2025, 1, 1), expires=d(2025, 7, 1, 0, 0, 1), src="kp"),
    e("Keepass login", f"k{canary('USER')}@kp.example", "https://kp.example.com/", strong(), d(2025, 4, 1),
      totp=True, src="kp"),
    e(f"EXCL{canary('TITLE')}", "ann.lee@mail.example", "https://bank.example.com/", REUSED, d(2020, 1, 1),
      excluded=True, src="kp"),
    e("", "", f"https://u:{canary('UI')}@News.Example.COM/path?sid={canary('Q')}#{canary('F')}", strong(),
      d(2025, 1, 1), src="ff"),
    e("", "ff", f"u:{canary('UI')}@ff.example.org/x?y={canary('Q')}", strong(), d(2025, 1, 1), src="ff"),
]
NOTES = [dict(id=str(uuid.UUID(int=RNG.getrandbits(128), version=4)).upper(), title="Plain note",
              text=f"note {canary('NOTE')} text")]
PWNED = {BREACH3: "0003", BREACH0: "0", BREACHBIG: "1234567"}

# MARK: - the doc's rules
SPECIAL = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": None}
BAD_HOST = set("\x00 #%/:<>?@[\\]^|")

def browser_url(text):
    s = re.sub("[\t\n\r]", "", text.strip("".join(map(chr, range(0x21)))))
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", s)
    if not m:
        return None
    scheme, rest = m.group(1).lower(), s[m.end():]
    if scheme in SPECIAL:
        rest = rest.lstrip("/\\")
        end = re.search(r"[/\\?#]", rest)
    else:
        if not rest.startswith("//"):
            return None
        rest = rest[2:]
        end = re.search(r"[/?#]", rest)
    auth, tail = (rest[:end.start()], rest[end.start():]) if end else (rest, "")
    hostport = auth.rsplit("@", 1)[-1]
    port = ""
    k = hostport.rfind(":")
    if k >= 0 and "]" not in hostport[k:]:
        hostport, port = hostport[:k], hostport[k + 1:]
        if port and not port.isdigit():
            return None
        port = str(int(port)) if port else ""
        if port and (int(port) > 65535 or int(port) == SPECIAL.get(scheme)):
            port = "" if int(port) <= 65535 else None
        if port is None:
            return None
    host = re.sub(r"%([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), hostport).lower()
    if not host or (any(c in BAD_HOST or ord(c) < 0x20 for c in host) and not re.fullmatch(r"\[[0-9a-f:.]+\]", host)):
        return None
    path = re.split(r"[?#]", tail, 1)[0]
    if scheme in SPECIAL:
        path = path.replace("\\", "/")
    enc = "".join(f"%{b:02X}" if b < 0x21 or b > 0x7E or chr(b) in '"#<>?`{}' else chr(b)
                  for b in (path or "/").encode())
    return scheme, host, port, enc

def website(url):
    b = browser_url(url)
    if b:
        return f"{b[0]}://{b[1]}{':' + b[2] if b[2] else ''}{b[3]}"
    cut = url.rsplit("@", 1)[-1]
    return cut.split("?", 1)[0].split("#", 1)[0]

def host(url):
    if not url:
        return ""
    b = browser_url(url) or ("://" not in url and browser_url("https://" + url))
    if b:
        return b[1]
    w = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://", "", website(url)).split("/", 1)[0]
    return w.rsplit(":", 1)[0].lower() if ":" in w else w.lower()

def looks_like_url(w):
    return ("://" in w or w.lower().startswith("www.") or re.match(r"[^/]*:[^/]*@", w) is not None
            or re.match(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+[/?#]", w) is not None)

def shown_title(it):
    t = it["title"] or host(it["url"]) or "(untitled)"
    return "".join(website(w) if w.strip() and looks_like_url(w) else w for w in re.split(r"(\s+)", t))

def mask(u):   # the first Character (grapheme), •••, everything from the last @ after it
    first = u and regex.match(r"\X", u).group(0)
    return u and first + "\u2022\u2022\u2022" + (u[u.rfind("@"):] if "@" in u[len(first):] else "")

def score(it):
    if not it["pw"]:
        return 0
    inputs = it["title"].split() + re.split(r"[@.\s]+", it["user"]) + host(it["url"]).split(".")
    return zx(it["pw"], user_inputs=[x for x in inputs if x])["score"]

def title_key(row):
    return unicodedata.normalize("NFC", row["title"].lower()), row["_id"]

def expected(stale_days=365, expiring_days=30, missing_totp=True, pwned=True):
    live = sorted([it for it in ENTRIES if not it["excluded"]], key=lambda it: title_key(
        {"title": shown_title(it), "_id": it["id"]}))
    rows = [dict(title=shown_title(it), website=website(it["url"]) if it["url"] else "", username=mask(it["user"]),
                 score=score(it), changed=it["changed"].strftime("%Y-%m-%d"), _id=it["id"], _groups=[], _it=it,
                 expires=it["expires"].strftime("%Y-%m-%d") if it["expires"] else "") for it in live]
    groups = {}
    for r in rows:
        it = r["_it"]
        if it["pw"]:
            groups.setdefault(("R", it["pw"]), []).append(r)
        h, u = host(it["url"]), it["user"].lower()
        if h or u:
            groups.setdefault(("D", h, u), []).append(r)
    numbers = {"R": 0, "D": 0}
    for key, members in groups.items():   # dicts keep insertion order = title order of first members
        if len(members) > 1:
            numbers[key[0]] += 1
            for r in members:
                r["_groups"].append(f"{key[0]}{numbers[key[0]]}")
    hit = {hashlib.sha1(p.encode()).hexdigest().upper(): max(1, int(n)) for p, n in PWNED.items()}
    for r in rows:
        it, gs, ex = r["_it"], r["_groups"], r["_it"]["expires"]
        n = hit.get(hashlib.sha1(it["pw"].encode()).hexdigest().upper()) if pwned and it["pw"] else None
        lab = r["_labels"] = [(k, t) for ok, k, t in [
            (n, "breached", f"breached (seen {n} times)"), (not it["pw"], "empty password", "empty password"),
            (it["pw"] and r["score"] <= 2, "weak", "weak"), (any(g[0] == "R" for g in gs), "reused", "reused"),
            (r["website"].lower().startswith("http://"), "http", "http"),
            (it["changed"] < AS_OF - stale_days * DAY, "stale", "not changed in over a year" if stale_days == 365
             else f"not changed in over {stale_days} days"), (ex and ex <= AS_OF, "expired", "expired"),
            (ex and AS_OF < ex <= AS_OF + expiring_days * DAY, "expiring",
             f"expires within {expiring_days} day" + "s" * (expiring_days != 1)),
            (any(g[0] == "D" for g in gs), "duplicate", "duplicate"),
            (missing_totp and it["user"] and host(it["url"]) and not it["totp"], "no TOTP", "no TOTP")] if ok]
        r["reason"] = ", ".join(x[1] for x in lab)
        r["group"] = " ".join(r["_groups"])
        r["severity"] = LEVELS[min([LEVEL[x[0]] for x in lab], default=4)]
    has = {k: [r for r in rows if any(x[0] == k for x in r["_labels"])] for k in LEVEL}
    by_group = lambda p: (lambda r: (min(int(g[1:]) for g in r["_groups"] if g[0] == p), title_key(r)))  # noqa: E731
    weak = [r for r in rows if r in has["weak"] + has["empty password"]]
    lists = dict(entries=rows, breached=has["breached"], weak=weak,
                 insecure=has["http"], stale=has["stale"], expired=has["expired"], expiring=has["expiring"],
                 missingTOTP=has["no TOTP"], reused=sorted(has["reused"], key=by_group("R")),
                 duplicates=sorted(has["duplicate"], key=by_group("D")),
                 problems=sorted([r for r in rows if r["_labels"]], key=lambda r: (LEVELS.index(r["severity"]),
                                                                                   title_key(r))))
    lengths = [len(regex.findall(r"\X", r["_it"]["pw"])) for r in rows]
    counts = dict(entries=len(rows), notes=len(NOTES), websites=len({host(r["_it"]["url"]) for r in rows} - {""}),
                  usernames=len({r["_it"]["user"].lower() for r in rows} - {""}), weak=len(lists["weak"]),
                  reusedEntries=len(lists["reused"]), reuseGroups=numbers["R"], insecureWebsites=len(lists["insecure"]),
                  stale=len(lists["stale"]), duplicates=len(lists["duplicates"]), breached=len(lists["breached"]),
                  expired=len(lists["expired"]), expiring=len(lists["expiring"]), missingTOTP=len(lists["missingTOTP"]),
                  excluded=sum(it["excluded"] for it in ENTRIES))
    counts.update({lv: sum(r["severity"] == lv for r in rows) for lv in LEVELS})
    dist = [sum(r["score"] == k for r in rows) for k in range(5)]
    public = {k: [{f: r[f] for f in ("title", "website", "username", "score", "severity", "reason", "group",
                                     "changed", "expires")} for r in v] for k, v in lists.items()}
    return dict(asOf=AS_OF.strftime("%Y-%m-%d"), counts=counts, scoreDistribution=dist,
                averageLength=round(sum(lengths) / len(lengths) + 1e-12, 1), **public)

# MARK: - inputs, made with the binary
iso = lambda t: t.strftime("%Y-%m-%dT%H:%M:%S.000Z")  # noqa: E731
def exports(folder):
    items = [{"id": it["id"].lower(), "type": 1, "name": it["title"], "notes": f"see {canary('DESC')}",
              "creationDate": iso(it["changed"]), "revisionDate": iso(it["changed"]),
              "fields": [{"name": "pin", "value": canary("FIELD"), "type": 1}],
              "passwordHistory": [{"lastUsedDate": "2019-01-01T00:00:00.000Z", "password": canary("HIST")}],
              "login": {"username": it["user"], "password": it["pw"], "passwordRevisionDate": iso(it["changed"]),
                        "uris": [{"uri": u} for u in ([it["url"], f"https://x:{canary('URI2')}@alt.example.com/"]
                                                       if it["url"] else [])],
                        "totp": f"otpauth://totp/x?secret={canary('TOTP')}" if it["totp"] else None}}
             for it in ENTRIES if it["src"] == "bw"]
    items += [{"id": n["id"].lower(), "type": 2, "name": n["title"], "notes": n["text"], "secureNote": {"type": 0},
               "creationDate": "2025-01-01T00:00:00.000Z", "revisionDate": "2025-01-01T00:00:00.000Z"} for n in NOTES]
    (folder / "bw.json").write_text(json.dumps({"encrypted": False, "folders": [], "items": items}), encoding="utf-8")
    x = ['<?xml version="1.0" encoding="utf-8"?>', "<KeePassFile><Meta/><Root><Group>",
         f"<UUID>{base64.b64encode(bytes(16)).decode()}</UUID><Name>Root</Name>"]
    for it in (it for it in ENTRIES if it["src"] == "kp"):
        strings = [("Title", it["title"]), ("UserName", it["user"]), ("Password", it["pw"]), ("URL", it["url"]),
                   ("Notes", canary("KPNOTE"))] + ([("otp", f"otpauth://totp/k?secret={canary('TOTP')}")]
                                                  if it["totp"] else [])
        x.append(f"<Entry><UUID>{base64.b64encode(uuid.UUID(it['id']).bytes).decode()}</UUID>"
                 + ("<QualityCheck>False</QualityCheck>" if it["excluded"] else "")
                 + f"<Times><CreationTime>{iso(it['changed'])}</CreationTime><LastModificationTime>"
                 + f"{iso(it['changed'])}</LastModificationTime><Expires>{bool(it['expires'])}</Expires>"
                 + (f"<ExpiryTime>{iso(it['expires'])}</ExpiryTime>" if it["expires"] else "") + "</Times>"
                 + "".join(f"<String><Key>{k}</Key><Value>{html.escape(v)}</Value></String>" for k, v in strings)
                 + "</Entry>")
    x.append("</Group></Root></KeePassFile>")
    (folder / "kp.xml").write_text("\n".join(x), encoding="utf-8")
    ff = io.StringIO()
    csv.writer(ff, lineterminator="\r\n").writerows([["url", "username", "password", "httpRealm", "formActionOrigin",
                                                     "guid", "timeCreated", "timeLastUsed", "timePasswordChanged"]] + [
        [it["url"], it["user"], it["pw"], "", "", "{" + it["id"].lower() + "}"]
        + [int(it["changed"].timestamp() * 1000)] * 3 for it in ENTRIES if it["src"] == "ff"])
    (folder / "ff.csv").write_text(ff.getvalue(), encoding="utf-8")
    return [folder / "bw.json", folder / "kp.xml", folder / "ff.csv"]

def pwned_list(path):
    """SHA-1 ordered by hash: seeded filler plus the planted passwords; CRLF; one planted hash in lower case."""
    lines = {f"{RNG.getrandbits(160):040X}": str(RNG.randint(1, 999)) for _ in range(1021)}
    for k, (pw, n) in enumerate(PWNED.items()):
        lines[hashlib.sha1(pw.encode()).hexdigest().upper() if k else hashlib.sha1(pw.encode()).hexdigest()] = n
    path.write_bytes("".join(f"{h}:{n}\r\n" for h, n in sorted(lines.items(), key=lambda x: x[0].upper())).encode())
    return len(lines)

class World(dict):   # pytest shows fixtures in tracebacks: never the logs
    __repr__ = lambda self: "<world>"  # noqa: E731

@pytest.fixture(scope="module")
def world(dossier_bin, tmp_path_factory):
    skip_without_vault(dossier_bin)
    root = tmp_path_factory.mktemp("vault")
    logs = []

    def run(*args, env=ENV):
        p = subprocess.run([dossier_bin, *map(str, args)], capture_output=True, text=True, env={
            "PATH": "/usr/bin:/bin", "HOME": str(root), "LANG": "C.UTF-8", **env}, timeout=600)
        logs.append((args[1], p.stdout + p.stderr))
        check(p.returncode == 0, f"dossier {args[:2]} exited {p.returncode}")
        return p

    proj, vault = root / "proj", root / "proj" / "data" / "v.dvault"
    (proj / "data").mkdir(parents=True)
    run("vault", "init", vault, "--kdf", "pbkdf2")
    for f in exports(root):
        run("vault", "import", vault, f)
    lines = pwned_list(proj / "data" / "pwned.txt")
    a = ["--as-of", "2025-06-01"]
    w = World(proj=proj, logs=logs, lines=lines,
             main=json.loads(run("vault", "report", vault, *a, "--pwned", proj / "data" / "pwned.txt",
                                 "--json").stdout),
             opts=json.loads(run("vault", "report", vault, *a, "--stale-days", "100", "--expiring-days", "1",
                                 "--no-missing-totp", "--json").stdout),
             text=run("vault", "report", vault, *a, "--pwned", proj / "data" / "pwned.txt"),
             listed=run("vault", "list", vault))
    (proj / "dossier.yml").write_text("title: Vault doc test\nvault:\n  vault: data/v.dvault\n  password_env: "
                                      "VAULT_DOC_PW\n  as_of: 2025-06-01\n  pwned_passwords: data/pwned.txt\n")
    w["build"] = run("build", proj, env={"VAULT_DOC_PW": MASTER})
    return w

def compare(got, want):
    for k in want:
        if check(k in got, f"health report lacks {k}") or k == "averageLength":
            check(abs(got[k] - want[k]) < 1e-9, f"averageLength {got[k]} != {want[k]}")
        elif isinstance(want[k], list) and want[k] and isinstance(want[k][0], dict):
            titles = [r.get("title") for r in got[k]]
            check(titles == [r["title"] for r in want[k]], f"{k}: rows or order: {titles} != doc's")
            for g, r in zip(got[k], want[k]):
                bad = {f: (g.get(f), v) for f, v in r.items() if g.get(f) != v}
                check(not bad, f"{k} / {r['title']!r}: (program, doc) {bad}")
        elif isinstance(want[k], dict):
            diff = {f: (got[k].get(f), v) for f, v in want[k].items() if got[k].get(f) != v}
            check(not diff, f"{k}: program, doc: {diff}")
        else:
            check(got[k] == want[k], f"{k}: {got[k]!r} != {want[k]!r}")
    check(set(got) <= set(want), f"extra fields {set(got) - set(want)}")

def test_report_json_is_what_the_doc_computes(world):
    check(zx("quokkazephyr")["score"] >= 3, "precondition: the title word is what makes it weak")
    compare({k: v for k, v in world["main"].items() if k != "breachList"}, expected())
    check(world["main"].get("breachList") == f"SHA-1 ordered by hash, {world['lines']:,} lines", "breachList")

def test_report_options_stale_expiring_totp(world):   # the three options, without a breach list
    compare(world["opts"], expected(stale_days=100, expiring_days=1, missing_totp=False, pwned=False))

def test_text_report_summary_and_what_to_fix(world):
    want, p = expected(), world["text"]
    n = sum(1 for it in ENTRIES if it["pw"] and not it["excluded"])   # one lookup per non-empty password (not said)
    check(re.search(rf"^offline breach check: {n} lookups, \d+ pages of 4 KiB read in [\d.]+ ms$", p.stderr, re.M),
          "stderr lacks the lookup line")
    check(f"breached {want['counts']['breached']} (offline Pwned Passwords list: SHA-1 ordered by hash, "
          f"{world['lines']:,} lines)" in p.stdout, "summary: breached N (offline …)")
    fix = [ln.split("\t") for ln in p.stdout.splitlines() if ln.count("\t") >= 5]
    rows = [[r["severity"], r["title"], r["website"], r["username"], f"score {r['score']}", r["reason"]]
            for r in want["problems"]]
    check(fix == rows, "what to fix differs: " + str([(a[:2], b[:2]) for a, b in zip(fix, rows) if a != b][:3]))

def test_site_side_outputs_and_page(world):
    site = world["proj"] / "_site" / "vault"
    want, got = expected(), json.loads((site / "health.json").read_text(encoding="utf-8"))
    compare({k: v for k, v in got.items() if k != "breachList"}, want)
    raw = (site / "health.csv").read_bytes()
    check(raw.startswith(b"\xef\xbb\xbf") and raw.endswith(b"\r\n") and b"\n" not in raw.replace(b"\r\n", b""),
          "health.csv: BOM + CRLF")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    head = "title,website,username,score,severity,reason,group,changed,expires".split(",")
    check(rows[0] == head, f"csv header {rows[0]}")
    exp = [[("'" if str(r[h])[:1] in "=+-@\t\r" and str(r[h]) else "") + str(r[h]) for h in head]
           for r in want["entries"]]
    check(rows[1:] == exp, "csv rows differ: " + str([(a[:1], b[:1]) for a, b in zip(rows[1:], exp) if a != b][:3]))
    page = (site / "index.html").read_text(encoding="utf-8")
    tiles = re.findall(r'class="stat-value">([^<]*)</span>\s*<span class="stat-label">([^<]*)<', page)
    c = want["counts"]
    check([v.replace(",", "") for v, _ in tiles[:6]] == [str(x) for x in [c["entries"]] + [c[lv] for lv in LEVELS]],
          f"stat tiles {tiles[:6]}")
    check(f"list used: SHA-1 ordered by hash, {world['lines']:,} lines" in html.unescape(page), "list used: …")
    badges = re.findall(r'class="badge badge-(\w+)"', page)
    problems = [r["severity"] for r in want["problems"]]
    check(badges[:len(problems)] == problems, f"problem badges {badges[:len(problems)]} != {problems}")

def secret_forms(s):   # compared case-insensitively
    return [s] + [f(s.encode()).hexdigest() for f in (hashlib.sha1, hashlib.sha256)]

def test_no_secret_in_any_output_log_cache_or_manifest(world):
    proj, secrets = world["proj"], SECRETS + [MASTER, "password1"]   # "quokkazephyr" is also a title word
    reports = [str(w) for w in (world["main"], world["opts"])] + [world["text"].stdout + world["text"].stderr]
    files = {str(f): f.read_bytes().decode("utf-8", "replace") for d in ("_site", ".dossier")
             for f in (proj / d).rglob("*") if f.is_file()}
    files.update({str(f): f.read_text("utf-8", "replace") for f in proj.glob("*.json")})
    check(any(k.endswith("manifest.json") for k in files) and any(".dossier" in k for k in files), "no manifest")
    texts = dict(files, **{f"log {k} {cmd}": re.sub(r"\S*Q(USER|TITLE)\S*", "", t) if cmd == "list" else t
                           for k, (cmd, t) in enumerate(world["logs"])})   # `list` shows usernames: not a report
    leaks = [(name, k) for k, s in enumerate(secrets) for form in secret_forms(s) if len(s) >= 6
             for name, t in texts.items() if form.lower() in t.lower()]
    check(not leaks, f"secrets (index into SECRETS, file) {[(k, n) for n, k in leaks][:4]}")
    excl = [it["title"] for it in ENTRIES if it["excluded"]]
    hits = [n for n, t in dict(files, r=" ".join(reports)).items() for x in excl if x in t]
    check(not hits, f"excluded entry's title in {hits[:3]}")

@pytest.mark.parametrize("uris,user,shown", [
    # docs/vault-report.md gives these two: a host with a space that URLComponents takes.
    (["https://u:pw1@exa mple.com/p?q#f"], "jo", "https://exa mple.com/p"),
    (["https://exa mple.com/a?b@c#d"], "jo", "https://exa mple.com/a"),
    (["", "https://alt.example.com/"], "jo", None),   # vault-import.md: the first non-empty URI
    ([], "@lead", None)])   # masking: no `@` after the first character
def test_export_edges(dossier_bin, tmp_path, uris, user, shown):
    item = {"id": "00000000-0000-4000-8000-000000000001", "type": 1, "name": "t", "creationDate": iso(AS_OF),
            "revisionDate": iso(AS_OF), "login": {"username": user, "password": "pw",
                                                  "uris": [{"uri": u} for u in uris]}}
    (tmp_path / "b.json").write_text(json.dumps({"encrypted": False, "items": [item]}), encoding="utf-8")
    p = subprocess.run([dossier_bin, "vault", "report", tmp_path / "b.json", "--export", "--json"],
                       capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    got = json.loads(p.stdout)["entries"][0]
    first = next((u for u in uris if u), "")
    check((got["website"], got["username"]) == (shown or website(first), mask(user)), str(got))
