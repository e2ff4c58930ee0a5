"""Offline breach check (issue #17): a local Pwned Passwords list — a generated
10-million-line SHA-1 `HASH:COUNT` file ordered by hash, and a k-anonymity range folder —
finds the planted passwords by binary search, reading a few pages, never the whole file."""
import json
import re
import time

import numpy as np
import pytest
from vault_helpers import range_folder, sha1, skip_without_vault  # noqa: E402

LINES = 10_000_000
STEP = 429          # prefixes i·429 < 2^32 stay sorted as 8 hex digits
SUFFIX = b"A" * 32
PLANTED = {"hunter2": 17043, "correct horse battery staple": 261, "Tr0ub4dor&3": 9, "password1": 2418984}


@pytest.fixture(autouse=True)
def _needs_vault(dossier_bin):
    skip_without_vault(dossier_bin)


def write_list(path):
    """10M generated lines (fixed 45 bytes: 40 hex, ':', 3 digits, LF) plus the planted ones."""
    n = np.arange(LINES, dtype=np.uint64) * np.uint64(STEP)
    hexdigits = np.frombuffer(b"0123456789ABCDEF", dtype=np.uint8)
    rows = np.empty((LINES, 45), dtype=np.uint8)
    for k in range(8):
        rows[:, k] = hexdigits[((n >> np.uint64(4 * (7 - k))) & np.uint64(15)).astype(np.int64)]
    rows[:, 8:40] = np.frombuffer(SUFFIX, dtype=np.uint8)
    rows[:, 40] = ord(":")
    counts = (np.arange(LINES) % 900 + 100).astype(np.int64)
    for k, div in enumerate((100, 10, 1)):
        rows[:, 41 + k] = (counts // div % 10 + 48).astype(np.uint8)
    rows[:, 44] = 10
    planted = sorted((sha1(p), c) for p, c in PLANTED.items())
    with open(path, "wb") as f:
        done = 0
        for h, c in planted:
            prefix = int(h[:8], 16)
            idx = min(LINES, prefix // STEP + 1 if (prefix % STEP or h[8:].encode() > SUFFIX) else prefix // STEP)
            f.write(rows[done:idx].tobytes())
            f.write(f"{h}:{c}\r\n".encode())   # a CRLF line among LF ones
            done = idx
        f.write(rows[done:].tobytes())


def export(tmp_path, passwords):
    rows = ["name,url,username,password,note"] + [f"Site {k},https://s{k}.example.com,u{k},\"{p}\"," for k, p in enumerate(passwords)]
    p = tmp_path / "chrome.csv"
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return p


def test_breached_passwords_found_in_a_10_million_line_file(run_dossier, tmp_path):
    lst = tmp_path / "pwned-passwords-sha1-ordered-by-hash.txt"
    write_list(lst)
    size = lst.stat().st_size
    assert size > 10_000_000 * 45
    passwords = list(PLANTED) + ["not-in-the-list-Q7w!x", "neither-this-one-9#Lk"]
    t0 = time.monotonic()
    r = run_dossier("vault", "report", export(tmp_path, passwords), "--export", "--pwned", lst, "--as-of", "2025-01-01", "--json")
    elapsed = time.monotonic() - t0
    report = json.loads(r.stdout)
    found = {row["title"]: row["reason"] for row in report["breached"]}
    assert report["counts"]["breached"] == len(PLANTED)
    for k, (pw, count) in enumerate(PLANTED.items()):
        assert f"breached (seen {count} times)" in found[f"Site {k}"]
    assert all(row["severity"] == "critical" for row in report["breached"])
    m = re.search(r"(\d+) lookups, (\d+) pages of 4 KiB read in ([\d.]+) ms", r.stderr)
    assert m, r.stderr
    lookups, pages, ms = int(m[1]), int(m[2]), float(m[3])
    assert lookups == len(passwords)
    assert pages <= 40 * lookups          # log2(450 MB / 4 KiB) ≈ 17 probes per lookup
    assert pages * 4096 < size / 1000     # a tiny fraction of the file
    assert ms < 1000
    print(f"\nbreach check: {size / 1e6:.0f} MB file, {lookups} lookups, {pages} pages, {ms:.1f} ms (whole command {elapsed:.2f} s)")
    for pw in passwords:
        assert pw not in r.stdout + r.stderr and sha1(pw) not in r.stdout + r.stderr


def test_breached_passwords_found_in_a_range_folder(run_dossier, tmp_path):
    folder = range_folder(tmp_path / "ranges", PLANTED,
                          lambda h, count: (f"{h[:5]}.txt", f"{'0' * 35}:3\r\n{h[5:]}:{count}\r\n"))
    r = run_dossier("vault", "report", export(tmp_path, ["hunter2", "fresh-unlisted-pw-7&"]), "--export",
                    "--pwned", folder, "--as-of", "2025-01-01", "--json")
    report = json.loads(r.stdout)
    assert [row["title"] for row in report["breached"]] == ["Site 0"]
    assert "seen 17043 times" in report["breached"][0]["reason"]
