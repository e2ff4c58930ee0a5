"""URL secrets (issue #14, "Secrets"): credentials, tokens and fragments inside URLs never
reach any output, log or cache, nor `vault list`/`show` without --reveal; a cached build
with a wrong vault password fails.

Canaries sit in the user-info, query and fragment of URLs in websites (parsable and not),
in titles (an untitled entry takes its title from the URL; a titled one holds a URL) and in
notes. A project with only the vault section keeps the build fast.
"""
import json
import pathlib
import re
import secrets
import subprocess

import pytest

MASTER = "url canary master phrase 4 e2e"
ENV = {"DOSSIER_VAULT_PASSWORD": MASTER}


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+vault\b", out, re.M):
        pytest.skip("this dossier binary was built without the vault domain")


class Canaries(list):
    def __call__(self, kind):
        c = f"CANARY{kind.upper()}{secrets.token_hex(5)}"
        self.append(c)
        return c


def url_exports(c: Canaries, tmp_path: pathlib.Path):
    """A Chrome CSV (untitled rows: the title comes from the URL) and a Bitwarden JSON
    (titles and notes holding URLs)."""
    rows = ["name,url,username,password,note"]
    # unparsable (space in the host), parsable, and scheme-less, each with user-info, query and fragment
    for k, url in enumerate([
        f"https://u:{c('ui')}@exa mple0.com/login?token={c('q')}#{c('frag')}",
        f"https://u:{c('ui')}@site.example.com/p?sid={c('q')}#{c('frag')}",
        f"u:{c('ui')}@bare.example.org/x?{c('q')}#{c('frag')}",
        f"http://{c('ui')}@old.example.net/#{c('frag')}",
    ]):
        rows.append(f',"{url}",jo{k},{c("pw")},{c("note")}')
    (tmp_path / "chrome.csv").write_text("\r\n".join(rows) + "\r\n", encoding="utf-8")
    items = []
    for k in range(3):
        items.append({
            "id": f"00000000-0000-4000-8000-{k:012d}", "type": 1,
            "name": f"Portal https://a:{c('titleui')}@portal{k}.example.com/?k={c('titleq')}#{c('titlefrag')}",
            "notes": f"reset at https://x:{c('noteui')}@h.example.com/?t={c('noteq')}#{c('notefrag')}",
            "login": {"username": "ann", "password": c("pw"),
                      "uris": [{"match": None, "uri": f"https://ann:{c('ui')}@portal{k}.example.com/in?code={c('q')}#{c('frag')}"},
                               # extra URIs (kept since issue #17): parsable and not
                               {"match": None, "uri": f"https://bob:{c('uri2ui')}@alt{k}.example.com/?c={c('uri2q')}#{c('uri2frag')}"},
                               {"match": None, "uri": f"bob:{c('uri3ui')}@alt {k}.example.com/?{c('uri3q')}#{c('uri3frag')}"}],
                      "totp": f"otpauth://totp/p?secret={c('totp')}"},
            "fields": [{"name": "link", "value": f"https://f:{c('fieldui')}@f.example.com/?{c('fieldq')}", "type": 0}],
            "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2021-01-01T00:00:00.000Z",
        })
    (tmp_path / "bitwarden.json").write_text(json.dumps({"encrypted": False, "folders": [], "items": items}), encoding="utf-8")
    return [tmp_path / "chrome.csv", tmp_path / "bitwarden.json"]


def vault_project(run_dossier, tmp_path):
    proj = tmp_path / "proj"
    run_dossier("new", proj)
    (proj / "data").mkdir()
    vault = proj / "data" / "my.dvault"
    run_dossier("vault", "init", vault, "--kdf", "pbkdf2", env=ENV)
    with open(proj / "dossier.yml", "a", encoding="utf-8") as f:
        f.write("vault:\n  vault: data/my.dvault\n  password_env: URL_CANARY_PW\n  as_of: 2025-06-01\n")
    return proj, vault


def test_no_url_credential_query_or_fragment_in_any_output(run_dossier, tmp_path):
    c = Canaries()
    proj, vault = vault_project(run_dossier, tmp_path)
    logs = [run_dossier("vault", "import", vault, f, env=ENV) for f in url_exports(c, tmp_path)]
    logs.append(run_dossier("build", proj, env={"URL_CANARY_PW": MASTER}))
    logs.append(run_dossier("build", proj, env={"URL_CANARY_PW": MASTER}))   # cached
    for args in (["report", vault], ["report", vault, "--json"], ["list", vault], ["list", vault, "--json"],
                 ["report", tmp_path / "chrome.csv", "--export"]):
        logs.append(run_dossier("vault", *args, env=ENV))
    listed = json.loads(run_dossier("vault", "list", vault, "--json", env=ENV).stdout)
    for item in listed[:: max(1, len(listed) // 3)]:   # a few `show`s: untitled and titled
        logs.append(run_dossier("vault", "show", vault, item["id"], env=ENV))

    health = json.loads((proj / "_site" / "vault" / "health.json").read_text(encoding="utf-8"))
    titles = [r["title"] for r in health["entries"]]
    assert "exa mple0.com" in titles            # untitled + unparsable URL: the host only
    assert any(t.startswith("Portal https://portal0.example.com/") for t in titles)
    assert "https://portal0.example.com/in" in [r["website"] for r in health["entries"]]

    texts = {f"log {k}": p.stdout + p.stderr for k, p in enumerate(logs)}
    for root in [proj / "_site", proj / ".dossier"]:
        for f in root.rglob("*"):
            if f.is_file():
                texts[str(f)] = f.read_bytes().decode("utf-8", errors="replace")
    for f in proj.glob("_site*.json"):
        texts[str(f)] = f.read_text(encoding="utf-8", errors="replace")
    assert any("health.csv" in k for k in texts) and any(".dossier" in k for k in texts)
    leaks = [(x, name) for name, text in texts.items() for x in c if x.lower() in text.lower()]
    assert not leaks, leaks[:5]

    # --reveal is the one way to see them
    revealed = run_dossier("vault", "list", vault, "--reveal", env=ENV).stdout
    assert any(x in revealed for x in c if x.startswith("CANARYUI"))
    revealed_json = run_dossier("vault", "list", vault, "--reveal", "--json", env=ENV).stdout
    assert any(x in revealed_json for x in c if x.startswith("CANARYURI2UI"))   # extra URIs are kept …
    assert any(x in revealed_json for x in c if x.startswith("CANARYTOTP"))     # … and the TOTP secret


def test_cached_build_with_a_wrong_vault_password_fails(run_dossier, tmp_path):
    proj, vault = vault_project(run_dossier, tmp_path)
    run_dossier("vault", "import", vault, url_exports(Canaries(), tmp_path)[0], env=ENV)
    run_dossier("build", proj, env={"URL_CANARY_PW": MASTER})
    before = (proj / "_site" / "vault" / "health.json").read_bytes()
    wrong = run_dossier("build", proj, env={"URL_CANARY_PW": "not the password"}, check=False)
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "wrong master password" in wrong.stderr
    assert (proj / "_site" / "vault" / "health.json").read_bytes() == before
    run_dossier("build", proj, env={"URL_CANARY_PW": MASTER})


def test_clean_builds_give_identical_vault_reports(run_dossier, tmp_path):
    """Reuse/duplicate groups get ordinal ids (R1…, D1…): two clean builds, identical bytes."""
    import shutil
    proj, vault = vault_project(run_dossier, tmp_path)
    shared = "Shared-pw-" + secrets.token_hex(4)
    items = [{"id": f"00000000-0000-4000-8000-{k:012d}", "type": 1, "name": f"Site {k % 4}",
              "login": {"username": "ann", "password": shared if k % 2 else f"own-{k}-pw",
                        "uris": [{"uri": f"https://s{k % 3}.example.com"}]},
              "creationDate": "2021-01-01T00:00:00.000Z", "revisionDate": "2021-01-01T00:00:00.000Z"} for k in range(8)]
    export = tmp_path / "bw.json"
    export.write_text(json.dumps({"encrypted": False, "items": items}), encoding="utf-8")
    run_dossier("vault", "import", vault, export, env=ENV)
    outs = []
    for _ in range(2):
        for d in ("_site", ".dossier"):
            shutil.rmtree(proj / d, ignore_errors=True)
        run_dossier("build", proj, "-q", env={"URL_CANARY_PW": MASTER})
        outs.append({n: (proj / "_site" / "vault" / n).read_bytes() for n in ("index.html", "health.csv", "health.json")})
    assert outs[0] == outs[1]
    groups = {g for r in json.loads(outs[0]["health.json"])["entries"] for g in r["group"].split()}
    assert {"R1", "D1"} <= groups and all(re.fullmatch(r"[RD][1-9][0-9]*", g) for g in groups)
    assert shared not in outs[0]["health.json"].decode()
