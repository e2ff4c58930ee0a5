"""What `dossier archive --force` may replace (docs/archive.md, "Replacing a bag"): only a
bag. Before, `--output` naming the project folder (or any folder, or any file ending in
.zip) with `--force` replaced it with the bag: the project's data, or a folder of
someone's files, was gone."""
import hashlib
import subprocess

import pytest

from test_archive_swap import archive, unpacked
from webdav_server import make_site, tree


def digest_tree(folder):
    return {k: hashlib.sha256(v).hexdigest() for k, v in tree(folder).items()}


@pytest.fixture
def project(tmp_path, dossier_bin):
    root = tmp_path / "study"
    assert subprocess.run([dossier_bin, "new", str(root), "-q"], capture_output=True).returncode == 0
    (root / "data").mkdir()
    (root / "data" / "participants.csv").write_text("id,consent\nP1,yes\n")
    assert subprocess.run([dossier_bin, "build", "-q", str(root)], capture_output=True).returncode == 0
    return root


@pytest.mark.parametrize("target", [".", "_site", ".."])
def test_the_project_its_site_or_a_folder_holding_them_is_never_replaced(dossier_bin, project, target):
    dest = (project / target).resolve()
    before = digest_tree(project)
    p = subprocess.run([dossier_bin, "archive", str(project), "--output", str(dest), "--force"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "which the bag is made from; --force replaces only a bag" in p.stderr, p.stderr
    assert digest_tree(project) == before


def test_a_folder_or_zip_that_is_not_a_bag_is_never_replaced(dossier_bin, tmp_path):
    site = make_site(tmp_path / "s", pages=1)
    folder = tmp_path / "precious"
    folder.mkdir()
    (folder / "thesis.txt").write_text("three years of work\n")
    p = archive(dossier_bin, site, folder, "--force")
    assert p.returncode == 1 and "is not a bag (no bagit.txt in it)" in p.stderr, p.stderr
    assert (folder / "thesis.txt").read_text() == "three years of work\n"
    own_zip = tmp_path / "photos.zip"
    own_zip.write_bytes(b"PK\x03\x04 not a bag, someone's own zip")
    p = archive(dossier_bin, site, own_zip, "--force")
    assert p.returncode == 1 and "is not a bag (no zip with a bagit.txt)" in p.stderr, p.stderr
    assert own_zip.read_bytes() == b"PK\x03\x04 not a bag, someone's own zip"


@pytest.mark.parametrize("name", ["bag", "bag.zip"])
def test_a_bag_is_still_replaced(dossier_bin, tmp_path, name):
    old, new = make_site(tmp_path / "old", pages=1), make_site(tmp_path / "new", pages=2)
    dest = tmp_path / name
    assert archive(dossier_bin, old, dest).returncode == 0
    p = archive(dossier_bin, new, dest, "--force")
    assert p.returncode == 0, p.stderr
    assert tree(unpacked(dest, tmp_path / "unz") / "data" / "site") == tree(new)
