"""A `password_file:` (the demo's vault and SMS keystores use one) is a secret input: its
SHA-256 would let anyone holding the manifest, the build state or a unit blob test guesses
of the password, and its size tells the password's length (docs/output-manifest.md,
"Secret inputs"). The build must write neither, anywhere, and still rebuild the unit when
the file changes."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import REPO

PASSWORD_FILES = ["data/vault/demo-password.txt", "data/sms/demo.password"]


def built(dossier_bin, root, *extra):
    p = subprocess.run([dossier_bin, "build", "--verbose", *extra, str(root)], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def past_racy_window(*paths):
    """Returns once the clock is more than 1.2 s past each file's last change."""
    changed = max(os.stat(p).st_ctime_ns for p in paths)
    while time.time_ns() < changed + 1_200_000_000:
        time.sleep(0.05)


@pytest.fixture
def demo(tmp_path, dossier_bin):
    root = tmp_path / "demo"
    shutil.copytree(REPO / "Examples" / "demo", root,
                    ignore=shutil.ignore_patterns("_site", "_site.*", ".dossier"))
    p = subprocess.run([dossier_bin, "vault", "--help"], capture_output=True, text=True)
    q = subprocess.run([dossier_bin, "sms", "--help"], capture_output=True, text=True)
    if p.returncode != 0 or q.returncode != 0:
        pytest.skip("this dossier was built without the vault or SMS domain")
    return root


def test_no_digest_or_size_of_a_password_file_is_written(demo, dossier_bin):
    code, out = built(dossier_bin, demo)
    assert code == 0, out
    manifest = json.loads((demo / "_site.manifest.json").read_text())
    listed = [i["path"] for i in manifest["inputs"]]
    assert "data/vault/demo.dvault" in listed and "data/sms/alice.keystore" in listed
    for f in PASSWORD_FILES:
        assert f not in listed
    # Every form a digest of the secret could take, in every file the build left.
    needles = []
    for f in PASSWORD_FILES:
        raw = (demo / f).read_bytes()
        for v in {raw, raw.strip(), raw.splitlines()[0]}:
            d = hashlib.sha256(v)
            needles += [d.hexdigest().encode(), d.hexdigest().upper().encode(), d.digest()]
    files = [demo / "_site.manifest.json"] + [p for d in ("_site", ".dossier") for p in (demo / d).rglob("*")
                                              if p.is_file()]
    assert len(files) > 100
    leaks = [(str(p.relative_to(demo)), n[:8]) for p in files for n in needles if n in p.read_bytes()]
    assert leaks == [], leaks[:5]
    assert not any(n in out.encode() for n in needles)


def test_a_changed_password_file_rebuilds_its_unit_and_an_unchanged_one_does_not(demo, dossier_bin):
    code, out = built(dossier_bin, demo)
    assert code == 0, out
    past_racy_window(*(demo / f for f in PASSWORD_FILES))
    code, out = built(dossier_bin, demo)                # the keys once the files are older than a second
    assert code == 0, out
    code, out = built(dossier_bin, demo)
    assert code == 0, out
    assert "Done: 0 pages rendered" in out, out
    assert re.search(r"(\d+) units, \1 unchanged", out), out
    # A wrong password in the vault's file: the vault is opened again, and the build fails
    # naming the section, not reusing what the old password opened.
    vault_pw = demo / PASSWORD_FILES[0]
    vault_pw.write_text("not the password\n")
    past_racy_window(vault_pw)
    code, out = built(dossier_bin, demo)
    assert code == 1, out
    assert "vault" in out.lower()
    assert "not the password" not in out
