"""`dossier archive`: bags validated by the `bagit` PyPI package (bagit.py --validate)."""
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

from webdav_server import built_demo, make_site


def bagit_validate(path: pathlib.Path) -> subprocess.CompletedProcess:
    exe = shutil.which("bagit.py")
    cmd = [exe] if exe else [sys.executable, "-m", "bagit"]
    return subprocess.run(cmd + ["--validate", str(path)], capture_output=True, text=True, timeout=300)


def flip_one_byte(path: pathlib.Path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20
    path.write_bytes(bytes(data))


def test_folder_bag_validates_with_bagit_py_and_dossier(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=3)
    bag = tmp_path / "study-bag"
    out = run_dossier("archive", "--site", site, "--output", bag, "--date", "2026-11-22")
    assert "payload files" in out.stdout
    assert bagit_validate(bag).returncode == 0, bagit_validate(bag).stderr
    run_dossier("archive", "--verify", bag)
    info = (bag / "bag-info.txt").read_text()
    payload = [p for p in (bag / "data").rglob("*") if p.is_file()]
    octets = sum(p.stat().st_size for p in payload)
    assert f"Payload-Oxum: {octets}.{len(payload)}" in info
    assert "Bagging-Date: 2026-11-22" in info
    assert "Bag-Software-Agent: Dossier " in info
    assert (bag / "data" / "site" / "café.txt").read_text() == "crème\n"
    assert (bag / "data" / "site.manifest.json").exists()


def test_one_changed_payload_byte_fails_both_validators(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=2)
    bag = tmp_path / "bag"
    run_dossier("archive", "--site", site, "--output", bag)
    flip_one_byte(bag / "data" / "site" / "recall" / "p01" / "index.html")
    assert bagit_validate(bag).returncode != 0
    bad = run_dossier("archive", "--verify", bag, check=False)
    assert bad.returncode == 1
    assert "data/site/recall/p01/index.html: sha256 checksum does not match" in bad.stderr


def test_changed_tag_file_fails_both_validators(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=1)
    bag = tmp_path / "bag"
    run_dossier("archive", "--site", site, "--output", bag)
    info = bag / "bag-info.txt"
    info.write_text(info.read_text().replace("Source: _site", "Source: tampered"))
    assert bagit_validate(bag).returncode != 0
    assert run_dossier("archive", "--verify", bag, check=False).returncode == 1


def test_zip_bag_has_one_top_folder_and_validates(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=2)
    z = tmp_path / "study.zip"
    run_dossier("archive", "--site", site, "--output", z)
    with zipfile.ZipFile(z) as zf:
        tops = {n.split("/")[0] for n in zf.namelist()}
        assert tops == {"study"}
        zf.extractall(tmp_path / "unzipped")
    assert bagit_validate(tmp_path / "unzipped" / "study").returncode == 0
    run_dossier("archive", "--verify", z)
    # --zip adds the extension to the default name.
    run_dossier("archive", "--site", site, "--zip")
    assert (tmp_path / "_site-bag.zip").exists()


def test_existing_bag_is_not_replaced_without_force(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=1)
    bag = tmp_path / "bag"
    run_dossier("archive", "--site", site, "--output", bag)
    again = run_dossier("archive", "--site", site, "--output", bag, check=False)
    assert again.returncode == 1 and "already exists" in again.stderr
    run_dossier("archive", "--site", site, "--output", bag, "--force")
    assert bagit_validate(bag).returncode == 0


def test_files_outside_the_manifest_are_not_archived(run_dossier, tmp_path):
    site = make_site(tmp_path, pages=1)
    (site / "stray-secret.txt").write_text("not part of the build")
    bag = tmp_path / "bag"
    run_dossier("archive", "--site", site, "--output", bag)
    assert not (bag / "data" / "site" / "stray-secret.txt").exists()
    assert bagit_validate(bag).returncode == 0


def test_archive_demo_site(run_dossier, dossier_bin, tmp_path):
    demo_copy, built = built_demo(dossier_bin)
    if built.returncode != 0 or not (demo_copy / "_site.manifest.json").exists():
        pytest.skip("the demo does not build with this binary's domains: " + built.stderr[-300:])
    bag = tmp_path / "demo-bag"
    run_dossier("archive", demo_copy, "--output", bag)
    assert bagit_validate(bag).returncode == 0
    run_dossier("archive", "--verify", bag)


def test_bag_info_fields_from_dossier_yml_and_a_sha512_manifest(run_dossier, tmp_path):
    project = tmp_path / "study"
    site = make_site(project, pages=2)
    (project / "dossier.yml").write_text(
        "title: Memory study\n"
        "archive:\n"
        "  source_organization: University of Somewhere, Memory Lab\n"
        "  contact_name: Jo Doe\n"
        "  contact_email: jo@example.org\n"
        "  external_identifier: memory-2026-wave-1\n"
        "  bag_group_identifier: memory-2026\n"
        "  sha512: true\n")
    bag = tmp_path / "bag"
    run_dossier("archive", project, "--output", bag, "--date", "2026-11-22")
    info = (bag / "bag-info.txt").read_text()
    for line in ("Source-Organization: University of Somewhere, Memory Lab", "Contact-Name: Jo Doe",
                 "Contact-Email: jo@example.org", "External-Identifier: memory-2026-wave-1",
                 "Bag-Group-Identifier: memory-2026", "External-Description: Memory study"):
        assert line + "\n" in info, info
    payload = [p for p in (bag / "data").rglob("*") if p.is_file()]
    octets = sum(p.stat().st_size for p in payload)
    size = f"{octets} bytes" if octets < 1000 else f"{octets / 1000:.1f} kB"
    assert f"Bag-Size: {size}\n" in info
    assert (bag / "manifest-sha512.txt").exists() and (bag / "tagmanifest-sha512.txt").exists()
    import hashlib
    first = (bag / "manifest-sha512.txt").read_text().splitlines()[0].split("  ", 1)
    assert hashlib.sha512((bag / first[1]).read_bytes()).hexdigest() == first[0]
    assert "manifest-sha512.txt" in (bag / "tagmanifest-sha256.txt").read_text()
    assert bagit_validate(bag).returncode == 0, bagit_validate(bag).stderr
    import bagit
    assert set(bagit.Bag(str(bag)).algorithms) == {"sha256", "sha512"}
    # A payload change is caught by the SHA-512 manifest too.
    flip_one_byte(bag / "data" / "site" / "recall" / "p01" / "index.html")
    bad = run_dossier("archive", "--verify", bag, check=False)
    assert "sha512 checksum does not match" in bad.stderr

    # A bad field is an error naming the file and line; nothing is written.
    (project / "dossier.yml").write_text("archive:\n  contact_email: not-an-address\n")
    err = run_dossier("archive", project, "--output", tmp_path / "bag2", check=False)
    assert err.returncode == 1 and "dossier.yml:2: archive.contact_email" in err.stderr
    assert not (tmp_path / "bag2").exists()
    del site
