"""An 8000 × 4000 panorama: prepared at build time with libvips, then opened in headless
Chromium from file://. Reports the time from navigation to the first frame drawn with the
picture (goal < 2 s; REQ3 allows 4 s) and the weight of what the viewer loads.
The numbers are written to artifacts/experiences-large.json."""
import json
import shutil
import subprocess

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402

from conftest import ARTIFACTS
from test_experiences_editor import MEDIA, build_site, make_driver, wait


def jpeg_size(data):
    i = 2
    while i + 9 < len(data):
        m, n = data[i + 1], data[i + 2] << 8 | data[i + 3]
        if 0xC0 <= m <= 0xC3:
            return (data[i + 7] << 8 | data[i + 8], data[i + 5] << 8 | data[i + 6])
        i += 2 + n
    return None


def test_large_panorama_is_prepared_and_first_frame_time_is_reported(tmp_path, dossier_bin):
    if not shutil.which("convert"):
        pytest.skip("ImageMagick is needed to make the test image")
    root = tmp_path / "big"
    (root / "data" / "experiences" / "media").mkdir(parents=True)
    big = root / "data" / "experiences" / "media" / "big.jpg"
    subprocess.run(["convert", str(MEDIA / "hall.jpg"), "-resize", "8000x4000!", "-quality", "85", str(big)], check=True)
    assert jpeg_size(big.read_bytes()) == (8000, 4000)
    def one(title, image):
        return {"title": title, "panoramas": [{"id": "room", "title": "Room", "image": image, "triggers": [
            {"kind": "sound", "yaw": 0, "pitch": 0, "label": "Hello", "media": "media/hello.wav"}]}]}
    site = build_site(root, dossier_bin, {"large.json": one("Large room", "media/big.jpg"),
                                          "small.json": one("Small room", "media/hall.jpg")})
    base = site / "experiences" / "large"
    prepared = (base / "prepared" / "room.jpg").read_bytes()
    assert jpeg_size(prepared) == (4096, 2048)
    assert jpeg_size((base / "prepared" / "thumb.jpg").read_bytes()) == (512, 256)
    page = (base / "index.html").read_text()
    assert "base64" not in page   # the picture is in the scene script, loaded when shown
    loaded = [base / "index.html", base / "scenes" / "room.js"] + [site / "assets" / "experiences" / n for n in ("pano.js", "viewer-look.js", "viewer-dialogs.js", "viewer.js", "viewer.css")]
    weight = sum(p.stat().st_size for p in loaded)

    drv = make_driver(tmp_path / "dl")
    timings = {}
    try:
        # Alternate the 1024 × 512 baseline and the large one; keep each one's best of two.
        for slug in ("small", "large", "small", "large"):
            drv.get((site / "experiences" / slug / "index.html").as_uri())
            wait(drv, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-first-frame-ms"), timeout=30)
            v = drv.find_element(By.ID, "xp-viewer")
            assert v.get_attribute("data-render-mode") == "webgl"
            t = {k: int(v.get_attribute(f"data-{k}-ms")) for k in ("gl-ready", "scene-loaded", "first-frame")}
            if slug not in timings or t["first-frame"] < timings[slug]["first-frame"]:
                timings[slug] = t
    finally:
        drv.quit()
    first_frame = timings["large"]["first-frame"]
    added = first_frame - timings["small"]["first-frame"]
    report = {"original_bytes": big.stat().st_size, "prepared_bytes": len(prepared), "page_weight_bytes": weight,
              "home_thumb_bytes": (base / "prepared" / "thumb.jpg").stat().st_size,
              "first_frame_ms": first_frame, "timings_ms": timings, "added_by_size_ms": added,
              "goal_ms": 2000, "req3_ms": 4000}
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "experiences-large.json").write_text(json.dumps(report, indent=2) + "\n")
    print(report)
    # Absolute times depend on the machine's load (software WebGL here); what the size of
    # the panorama adds over a 1024 px one must stay under the 2 s goal.
    assert added < 2000, report
    assert weight < 1_000_000, report
