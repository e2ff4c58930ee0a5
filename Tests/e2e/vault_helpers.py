"""Helpers shared by the vault end-to-end tests: skipping when the binary was built
without the vault domain, and the SHA-1 form the breach lists use."""
import hashlib
import re
import subprocess

import pytest


def skip_without_vault(dossier_bin):
    """Skips the test when `dossier --help` lists no `vault` command (a DOSSIER_ONLY build)."""
    out = subprocess.run([dossier_bin, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+vault\b", out, re.M):
        pytest.skip("this dossier binary was built without the vault domain")


def sha1(pw):
    """The upper-case hex SHA-1 of a password, as Pwned Passwords lists write it."""
    return hashlib.sha1(pw.encode()).hexdigest().upper()


def range_folder(folder, planted, entry, digest=sha1):
    """A breach list in HIBP's range form: `folder` made, one file a planted password,
    named and filled as `entry(digest of the password, its count)` -> (file name, text) says."""
    folder.mkdir()
    for pw, count in planted.items():
        name, text = entry(digest(pw), count)
        (folder / name).write_text(text, encoding="ascii")
    return folder
