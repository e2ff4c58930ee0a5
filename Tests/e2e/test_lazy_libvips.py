"""libvips is loaded at run time, on the first panorama to prepare (docs/experience-viewer.md):
without it a build still succeeds, each panorama is used as it is, and the warning names
the experience file, its line and what to install."""
import json
import os
import shutil
import subprocess

from conftest import REPO

MEDIA = REPO / "Examples" / "demo" / "data" / "experiences" / "media"


def test_build_without_libvips_warns_and_keeps_the_original_panorama(tmp_path, dossier_bin):
    root = tmp_path / "p"
    data = root / "data" / "experiences"
    (data / "media").mkdir(parents=True)
    shutil.copy(MEDIA / "hall.jpg", data / "media" / "hall.jpg")
    (data / "room.json").write_text(json.dumps({"title": "Room", "panoramas": [
        {"id": "room", "title": "Room", "image": "media/hall.jpg", "triggers": []}]}, indent=2))
    (root / "dossier.yml").write_text("title: Lazy vips\noutput: _site\nexperiences:\n  input: data/experiences\n")
    env = dict(os.environ, DOSSIER_LIBVIPS=str(tmp_path / "no-libvips.so.42"))
    proc = subprocess.run([dossier_bin, "build", str(root)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "room.json" in out and "could not be prepared" in out and "libvips not found" in out, out
    prepared = root / "_site" / "experiences" / "room" / "prepared" / "room.jpg"
    assert prepared.read_bytes() == (MEDIA / "hall.jpg").read_bytes()
