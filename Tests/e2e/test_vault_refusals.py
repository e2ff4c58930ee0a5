"""Issue #35, vault: a breach list in the wrong form is refused (never a silent all-clear)
and the report says which list it used; impossible dates are refused everywhere; the
host shown is the one a browser visits; deleted/archived items are left out on purpose,
not "not supported" (docs/vault-report.md, docs/vault-cli.md, docs/vault-import.md)."""
import hashlib
import json
import os
import re
import subprocess
import urllib.parse

import pytest
from vault_helpers import range_folder, sha1, skip_without_vault  # noqa: E402

MASTER = {"DOSSIER_VAULT_PASSWORD": "e2e master pass phrase"}
PLANTED = {"hunter2": 17043, "Tr0ub4dor&3": 9}


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    skip_without_vault(dossier_bin)


def ntlm_like(pw):
    return hashlib.md5(pw.encode("utf-16-le")).hexdigest().upper()   # 32 hex digits, the NTLM list's shape


def export(tmp_path, passwords, urls=None):
    rows = ["name,url,username,password,note"]
    for k, p in enumerate(passwords):
        url = (urls or {}).get(k, f"https://s{k}.example.com")
        rows.append(f"Site {k},{url},u{k},\"{p}\",")
    p = tmp_path / "chrome.csv"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


def report(run_dossier, tmp_path, pwned, check=True):
    return run_dossier("vault", "report", export(tmp_path, list(PLANTED) + ["fresh-unlisted-pw-7&"]), "--export",
                       "--pwned", pwned, "--as-of", "2025-01-01", "--json", check=check)


def filler(n):
    return [hashlib.sha1(f"filler {i}".encode()).hexdigest().upper() for i in range(n)]


def test_the_list_ordered_by_hash_is_used_and_named_with_its_line_count(run_dossier, tmp_path):
    hashes = sorted(filler(3000) + [sha1(p) for p in PLANTED])
    counts = {sha1(p): c for p, c in PLANTED.items()}
    lst = tmp_path / "by-hash.txt"
    lst.write_text("".join(f"{h}:{counts.get(h, 5)}\r\n" for h in hashes), encoding="ascii")
    r = report(run_dossier, tmp_path, lst)
    rep = json.loads(r.stdout)
    assert rep["counts"]["breached"] == len(PLANTED)
    assert rep["breachList"] == f"SHA-1 ordered by hash, {len(hashes):,} lines"
    text = run_dossier("vault", "report", export(tmp_path, list(PLANTED)), "--export", "--pwned", lst,
                       "--as-of", "2025-01-01").stdout
    assert f"(offline Pwned Passwords list: SHA-1 ordered by hash, {len(hashes):,} lines)" in text


@pytest.mark.parametrize("form", ["ordered-by-count", "ntlm", "plain-text", "empty-file"])
def test_a_list_in_another_form_is_refused_with_a_clear_error(run_dossier, tmp_path, form):
    lst = tmp_path / f"{form}.txt"
    if form == "ordered-by-count":
        # HIBP's other file: the same lines ordered by prevalence, the planted ones first.
        rows = [(sha1(p), c) for p, c in PLANTED.items()] + [(h, 3) for h in filler(3000)]
        rows.sort(key=lambda hc: -hc[1])
        lst.write_text("".join(f"{h}:{c}\n" for h, c in rows), encoding="ascii")
        expect = "not ordered by hash"
    elif form == "ntlm":
        lst.write_text("".join(f"{h}:{c}\n" for h, c in sorted((ntlm_like(p), c) for p, c in PLANTED.items())),
                       encoding="ascii")
        expect = "NTLM"
    elif form == "plain-text":
        lst.write_text("".join(f"{p}\n" for p in sorted(PLANTED)), encoding="utf-8")
        expect = "line 1 is not HASH:COUNT"
    else:
        lst.write_bytes(b"")
        expect = "is empty"
    r = report(run_dossier, tmp_path, lst, check=False)
    assert r.returncode == 1, r.stdout
    assert expect in r.stderr and lst.name in r.stderr, r.stderr
    assert r.stdout == ""
    for pw in PLANTED:
        assert pw not in r.stderr and sha1(pw) not in r.stderr


def test_range_folders_are_recognised_exactly(run_dossier, tmp_path):
    empty = tmp_path / "empty-ranges"
    empty.mkdir()
    r = report(run_dossier, tmp_path, empty, check=False)
    assert r.returncode == 1 and "no range files" in r.stderr, r.stderr
    ntlm = range_folder(tmp_path / "ntlm-ranges", PLANTED, lambda h, c: (f"{h[:5]}.txt", f"{h[5:]}:{c}\n"),
                        digest=ntlm_like)
    r = report(run_dossier, tmp_path, ntlm, check=False)
    assert r.returncode == 1 and "NTLM" in r.stderr, r.stderr
    good = range_folder(tmp_path / "ranges", PLANTED, lambda h, c: (h[:5], f"{'0' * 35}:3\n{h[5:]}:{c}\n"))
    rep = json.loads(report(run_dossier, tmp_path, good).stdout)
    assert rep["counts"]["breached"] == len(PLANTED)
    assert rep["breachList"] == f"SHA-1 range folder, {len(PLANTED)} range files"


@pytest.mark.parametrize("day", ["2026-02-30", "2025-02-29", "2026-04-31", "2026-02-28T10:00", "2026-13-01"])
def test_impossible_days_are_refused_everywhere(run_dossier, dossier_bin, tmp_path, day):
    v = tmp_path / "v.dvault"
    run_dossier("vault", "init", "--kdf", "pbkdf2", v, env=MASTER)
    run_dossier("vault", "add", v, "--title", "Mail", "--username", "jo", env={**MASTER, "DOSSIER_ENTRY_PASSWORD": "x-Secret-9"})
    before = v.read_bytes()
    r = run_dossier("vault", "edit", v, "Mail", "--expires", day, env=MASTER, check=False)
    assert r.returncode == 1 and day in r.stderr and "YYYY-MM-DD" in r.stderr, r.stderr
    assert v.read_bytes() == before
    r = run_dossier("vault", "report", v, "--as-of", day, env=MASTER, check=False)
    assert r.returncode == 1 and day in r.stderr, r.stderr
    proj = tmp_path / "p"
    subprocess.run([dossier_bin, "new", str(proj)], check=True, capture_output=True)
    (proj / "pw.txt").write_text(MASTER["DOSSIER_VAULT_PASSWORD"] + "\n", encoding="utf-8")
    v.rename(proj / "v.dvault")
    yml = (proj / "dossier.yml").read_text(encoding="utf-8")
    (proj / "dossier.yml").write_text(yml + f"vault:\n  vault: v.dvault\n  password_file: pw.txt\n  as_of: {day}\n", encoding="utf-8")
    r = subprocess.run([dossier_bin, "build", str(proj)], capture_output=True, text=True)
    assert r.returncode == 1 and "as_of" in r.stderr and day in r.stderr, r.stderr
    assert re.search(r"dossier\.yml:\d+", r.stderr), r.stderr
    assert not (proj / "_site" / "vault").exists()


def test_a_real_leap_day_is_accepted(run_dossier, tmp_path):
    v = tmp_path / "v.dvault"
    run_dossier("vault", "init", "--kdf", "pbkdf2", v, env=MASTER)
    run_dossier("vault", "add", v, "--title", "Mail", "--username", "jo", env={**MASTER, "DOSSIER_ENTRY_PASSWORD": "x-Secret-9"})
    run_dossier("vault", "edit", v, "Mail", "--expires", "2028-02-29", env=MASTER)
    assert "2028-02-29" in run_dossier("vault", "show", v, "Mail", env=MASTER).stdout


@pytest.mark.parametrize("url, host", [
    ("https://bank.example.com\\@evil.example.com/", "bank.example.com"),
    ("https:\\\\bank.example.com\\login", "bank.example.com"),
    ("https://user:pw@bank.example.com:443/a", "bank.example.com"),
])
def test_the_host_shown_is_the_one_a_browser_visits(run_dossier, tmp_path, url, host):
    rep = json.loads(run_dossier("vault", "report", export(tmp_path, ["pw-one-Q7w!x"], {0: url}), "--export",
                                 "--as-of", "2025-01-01", "--json").stdout)
    shown = rep["entries"][0]["website"]
    # The host a browser visits; what follows the host is its path (`/@evil.example.com/`).
    assert urllib.parse.urlsplit(shown).hostname == host, shown
    assert "pw@" not in shown and "user" not in shown


def test_recycled_and_archived_items_are_left_out_on_purpose(run_dossier, tmp_path):
    v = tmp_path / "v.dvault"
    run_dossier("vault", "init", "--kdf", "pbkdf2", v, env=MASTER)
    onepw = tmp_path / "1password.csv"
    onepw.write_text("title,url,username,password,otpauth,notes,archived\n"
                     "Mail,https://m.example.com,jo,pw-A-1x!,,,false\nOld,https://o.example.com,jo,pw-B-2y!,,,true\n",
                     encoding="utf-8")
    out = run_dossier("vault", "import", v, onepw, env=MASTER).stdout
    assert "skipped 1 archived item(s): left out on purpose" in out, out
    assert "not supported" not in out
    bw = tmp_path / "bitwarden.csv"
    bw.write_text("folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n"
                  ",,card,Visa,,,,,,,\n", encoding="utf-8")
    out = run_dossier("vault", "import", v, bw, env=MASTER).stdout
    assert "skipped 1 card item(s): not supported" in out, out


BROWSER_CASES = [
    "https://bank.example.com\\@evil.example.com/",
    "https:\\\\bank.example.com\\login",
    "https:bank.example.com/x",
    "https:///bank.example.com//x",
    "HTTPS://BANK.Example.COM/Path",
    "https://a.example.com#@b.example.com/",
    "https://a.example.com?@b.example.com/",
    "https://user@a.example.com:8080@b.example.com/",
    "https://jo:p@ss@bank.example.com:443/a",
    "http://shop.example.com:80/cart",
    "https://ba\tnk.example.com/",
    "  https://bank.example.com/  ",
]


def test_hosts_agree_with_a_real_browser(run_dossier, tmp_path):
    """The host shown for each tricky URL is the hostname Chromium's `new URL()` gives."""
    pytest.importorskip("selenium")
    from page_checks import headless_chromium
    drv = headless_chromium()
    try:
        expected = [drv.execute_script("return new URL(arguments[0]).hostname", u) for u in BROWSER_CASES]
    finally:
        drv.quit()
    rows = ["name,url,username,password,note"] + [f"Site {k:02d},\"{u}\",u{k},\"pw-{k}-Q7w!x\"," for k, u in enumerate(BROWSER_CASES)]
    p = tmp_path / "chrome.csv"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    rep = json.loads(run_dossier("vault", "report", p, "--export", "--as-of", "2025-01-01", "--json").stdout)
    shown = {r["title"]: r["website"] for r in rep["entries"]}
    for k, (u, host) in enumerate(zip(BROWSER_CASES, expected)):
        got = urllib.parse.urlsplit(shown[f"Site {k:02d}"]).hostname
        assert got == host, (u, shown[f"Site {k:02d}"], host)


@pytest.mark.parametrize("where", ["folder", "device"])
def test_a_vault_path_that_is_a_folder_or_device_says_so(dossier_bin, tmp_path, where):
    """Before, a folder (or /dev/null) given as the vault read as a vault of
    9223372036854775807 bytes, "more than the maximum of 256 MiB"."""
    path = tmp_path if where == "folder" else "/dev/null"
    p = subprocess.run([dossier_bin, "vault", "list", str(path)], capture_output=True, text=True, timeout=60,
                       env={**os.environ, **MASTER})
    assert p.returncode == 1, p.stdout + p.stderr
    what = "a folder" if where == "folder" else "a special file"
    assert f"{path}: is {what}" in p.stderr and "not a vault file: name the vault file itself" in p.stderr, p.stderr
    assert "9223372036854775807" not in p.stderr
