"""Issue #43 item 8, vault: range files are read whatever the case of their names; the
breach list's count and line-length limits are errors naming file and line; a KDBX 3.1
file with any byte of its last 64 flipped is refused as damaged; upper-case hosts are
shown lower-cased; a zip without export.data says so (docs/vault-report.md "Breached,
offline", docs/vault-kdbx.md, docs/vault-import.md)."""
import hashlib
import json
import os
import pathlib
import sys
import zipfile

import pytest
from vault_helpers import range_folder, sha1, skip_without_vault  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
MASTER = {"DOSSIER_VAULT_PASSWORD": "e2e limits master phrase"}
PLANTED = {"hunter2": 17043, "Tr0ub4dor&3": 9}
MAX = 2**63 - 1
# `make soak` flips every one of the last 64 bytes; `make test` the last 8 and every 8th before them.
FLIPS = range(1, 65) if int(os.environ.get("DOSSIER_SOAK_RUNS", "0")) >= 50 else sorted({*range(1, 9), *range(12, 65, 8)})


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    skip_without_vault(dossier_bin)


def filler(n):
    return [hashlib.sha1(f"limits filler {i}".encode()).hexdigest().upper() for i in range(n)]


def export(tmp_path, passwords, urls=None):
    rows = ["name,url,username,password,note"]
    for k, p in enumerate(passwords):
        rows.append(f"Site {k},{(urls or {}).get(k, f'https://s{k}.example.com')},u{k},\"{p}\",")
    p = tmp_path / "chrome.csv"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


def report(run_dossier, tmp_path, passwords, pwned=None, urls=None, check=True):
    args = ["vault", "report", export(tmp_path, passwords, urls), "--export", "--as-of", "2025-01-01", "--json"]
    return run_dossier(*args, *(["--pwned", pwned] if pwned else []), check=check)


def breached(rep):
    """Title → the reason's breached label (the first label; weak, no TOTP … follow)."""
    return {e["title"]: e["reason"].split(", ")[0] for e in rep["breached"]}


@pytest.mark.parametrize("name", ["{P}.TXT", "{p}.txt", "{M}.TxT", "{M}", "{P}"])
def test_range_files_are_read_whatever_the_case_of_their_names(run_dossier, tmp_path, name):
    def entry(h, count):
        mixed = "".join(c.lower() if k % 2 else c for k, c in enumerate(h[:5]))
        return name.format(P=h[:5], p=h[:5].lower(), M=mixed), f"{'0' * 35}:3\n{h[5:].lower()}:{count}\n"
    folder = range_folder(tmp_path / "ranges", PLANTED, entry)
    rep = json.loads(report(run_dossier, tmp_path, list(PLANTED) + ["fresh-unlisted-pw-7&"], folder).stdout)
    assert rep["counts"]["breached"] == len(PLANTED)
    assert breached(rep) == {f"Site {k}": f"breached (seen {c} times)" for k, c in enumerate(PLANTED.values())}


def test_two_range_files_for_one_prefix_are_refused(run_dossier, tmp_path):
    folder = tmp_path / "ranges"
    folder.mkdir()
    h = sha1("hunter2")
    (folder / h[:5]).write_text(f"{h[5:]}:1\n", encoding="ascii")
    (folder / f"{h[:5].lower()}.TXT").write_text(f"{h[5:]}:2\n", encoding="ascii")
    r = report(run_dossier, tmp_path, ["hunter2"], folder, check=False)
    assert r.returncode == 1 and "for one prefix" in r.stderr and h[:5] in r.stderr, r.stderr


def sorted_list(path, rows):
    """Writes `rows` (hash → count text) ordered by hash; returns each hash's line number."""
    order = sorted(rows)
    path.write_text("".join(f"{h}:{rows[h]}\n" for h in order), encoding="ascii")
    return {h: k + 1 for k, h in enumerate(order)}


def middle_password():
    """A password whose line lies outside the first and last 64 KiB (checked when opened)."""
    for i in range(10_000):
        pw = f"planted middle {i}"
        if "7" <= sha1(pw)[0] <= "8":
            return pw
    raise AssertionError("no password hashes into the middle")


@pytest.mark.parametrize("count, ok", [(str(MAX), True), ("0" * 200 + "5", True), (str(MAX + 1), False),
                                       ("1" * 30, False)])
def test_counts_up_to_2_63_minus_1_are_read_and_larger_ones_name_their_line(run_dossier, tmp_path, count, ok):
    # Small list: the whole file is checked when it is opened.
    rows = {h: "4" for h in filler(50)}
    rows[sha1("hunter2")] = count
    lines = sorted_list(tmp_path / "small.txt", rows)
    r = report(run_dossier, tmp_path, ["hunter2"], tmp_path / "small.txt", check=False)
    # Large list (6,000 lines, 270 KB): the line lies beyond both checked windows and is
    # met only by the lookup's binary search.
    big = {h: "4" for h in filler(6000)}
    pw = middle_password()
    big[sha1(pw)] = count
    big_lines = sorted_list(tmp_path / "big.txt", big)
    offset = sum(len(f"{h}:{big[h]}\n") for h in sorted(big) if h < sha1(pw))
    assert 65_536 < offset < (tmp_path / "big.txt").stat().st_size - 65_536 - 300
    r2 = report(run_dossier, tmp_path, [pw], tmp_path / "big.txt", check=False)
    if ok:
        want = f"breached (seen {int(count)} times)"
        assert breached(json.loads(r.stdout)) == {"Site 0": want}
        assert breached(json.loads(r2.stdout)) == {"Site 0": want}
        return
    for res, name, line in ((r, "small.txt", lines[sha1("hunter2")]), (r2, "big.txt", big_lines[sha1(pw)])):
        assert res.returncode == 1 and res.stdout == "", res.stdout
        assert f"{name}:{line}:" in res.stderr and "2⁶³ − 1" in res.stderr, res.stderr


def test_a_line_over_256_bytes_is_an_error_naming_its_line(run_dossier, tmp_path):
    long_count = "0" * (301 - 41 - 1) + "7"                      # 40 + ':' + 260 digits = 301 bytes
    exact = "0" * (256 - 41 - 1) + "7"                           # 256 bytes: accepted
    rows = {h: "4" for h in filler(50)}
    rows[sha1("hunter2")] = exact
    sorted_list(tmp_path / "exact.txt", rows)
    rep = json.loads(report(run_dossier, tmp_path, ["hunter2"], tmp_path / "exact.txt").stdout)
    assert breached(rep) == {"Site 0": "breached (seen 7 times)"}
    rows[sha1("hunter2")] = long_count
    lines = sorted_list(tmp_path / "long.txt", rows)
    r = report(run_dossier, tmp_path, ["hunter2"], tmp_path / "long.txt", check=False)
    assert r.returncode == 1 and f"long.txt:{lines[sha1('hunter2')]}:" in r.stderr and "over 256 bytes" in r.stderr
    big = {h: "4" for h in filler(6000)}
    pw = middle_password()
    big[sha1(pw)] = long_count
    big_lines = sorted_list(tmp_path / "big.txt", big)
    r = report(run_dossier, tmp_path, [pw], tmp_path / "big.txt", check=False)
    assert r.returncode == 1 and f"big.txt:{big_lines[sha1(pw)]}:" in r.stderr and "over 256 bytes" in r.stderr
    folder = tmp_path / "ranges"
    folder.mkdir()
    h = sha1("hunter2")
    (folder / h[:5]).write_text(f"{'0' * 35}:1\n{h[5:]}:{long_count}\n", encoding="ascii")
    r = report(run_dossier, tmp_path, ["hunter2"], folder, check=False)
    assert r.returncode == 1 and f"{h[:5]}:2:" in r.stderr and "over 256 bytes" in r.stderr, r.stderr


@pytest.mark.parametrize("cipher", ["aes256", "chacha20"])
def test_kdbx3_with_any_of_its_last_64_bytes_flipped_is_damaged(run_dossier, tmp_path, cipher):
    pytest.importorskip("pykeepass")
    sys.path.insert(0, str(REPO / "scripts" / "vault"))
    import make_kdbx
    db = tmp_path / "v3.kdbx"
    make_kdbx.make(db, 3, "aes", cipher)
    vault = tmp_path / "v.dvault"
    run_dossier("vault", "init", vault, "--kdf", "pbkdf2", env=MASTER)
    env = {**MASTER, "DOSSIER_IMPORT_PASSWORD": "kdbx pass wörd"}
    assert "imported 4 new" in run_dossier("vault", "import", vault, db, env=env).stdout
    before = vault.read_bytes()
    data = db.read_bytes()
    bad = tmp_path / "flipped.kdbx"
    for back in FLIPS:
        k = len(data) - back
        bad.write_bytes(data[:k] + bytes([data[k] ^ 0x01]) + data[k + 1:])
        r = run_dossier("vault", "import", vault, bad, env=env, check=False)
        assert r.returncode == 1 and "damaged" in r.stderr and "wrong password" not in r.stderr, (back, r.stderr)
    assert vault.read_bytes() == before


def test_upper_case_hosts_are_shown_lower_cased(run_dossier, tmp_path):
    csv = tmp_path / "chrome.csv"
    csv.write_text("name,url,username,password,note\n"
                   "Bank,HTTPS://Bank.EXAMPLE.com/Login,u0,pw-one-Q7w!x,\n"
                   "Shop,https://WWW.Shop.Example.NET:8443/,u1,pw-two-Z8e@y,\n"
                   ",HTTPS://Mail.Example.ORG/inbox,u2,pw-3-X9r#z,\n"
                   ",News.Example.COM,u3,pw-4-W2q$v,\n", encoding="utf-8")
    rep = json.loads(run_dossier("vault", "report", csv, "--export", "--as-of", "2025-01-01", "--json").stdout)
    shown = {e["title"]: e["website"] for e in rep["entries"]}
    assert shown == {"Bank": "https://bank.example.com/Login", "Shop": "https://www.shop.example.net:8443/",
                     "mail.example.org": "https://mail.example.org/inbox", "news.example.com": "News.Example.COM"}


def test_a_zip_without_export_data_says_what_it_is(run_dossier, tmp_path):
    z = tmp_path / "export.1pux"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("export.attributes", "{}")
        f.writestr("files/readme.txt", "hello")
    r = run_dossier("vault", "report", z, "--export", "--as-of", "2025-01-01", check=False)
    assert r.returncode == 1 and "without export.data" in r.stderr and "1PUX" in r.stderr, r.stderr
    assert "UTF-8" not in r.stderr and str(z) in r.stderr
    cut = tmp_path / "cut.1pux"
    cut.write_bytes(z.read_bytes()[:40])
    r = run_dossier("vault", "report", cut, "--export", "--as-of", "2025-01-01", check=False)
    assert r.returncode == 1 and "zip" in r.stderr and "UTF-8" not in r.stderr, r.stderr
