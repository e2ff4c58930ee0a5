"""The experience editor (experiences/editor/) in real headless Chromium from file://.

- The invalid-case table (Tests/ExperiencesTests/Fixtures/invalid-cases.json) run through
  the editor's mirrored rules (Site/experiences/rules.js): each case must give exactly the
  message the Swift validator gives (InvalidCaseTableTests runs the same table).
- Acceptance (desktop 1280×900 with a mouse, and 768×1024 with touch emulation): make an
  experience of two panoramas with a sound, a video and a door placed by clicks or taps,
  save it (a zip made in the page), unzip it into a project, build with `dossier build`,
  open the viewer and check each trigger sits where it was clicked (≤ 3 px, starting view).

The expected screen positions are computed here from the documented formulas
(docs/experience-viewer.md: the ray-cast from a pixel to a direction, and the projection
of a direction to a pixel), not from the page's code."""
import json
import math
import shutil
import subprocess
import time
import zipfile

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from conftest import ARTIFACTS, REPO
from page_checks import headless_chromium

MEDIA = REPO / "Examples" / "demo" / "data" / "experiences" / "media"
TABLE = REPO / "Tests" / "ExperiencesTests" / "Fixtures" / "invalid-cases.json"
HFOV = math.radians(100)


def build_site(root, dossier_bin, experiences):
    """A project whose experiences folder holds `experiences` (name → dict) and the demo media."""
    data = root / "data" / "experiences"
    (data / "media").mkdir(parents=True, exist_ok=True)
    for f in MEDIA.iterdir():
        shutil.copy(f, data / "media" / f.name)
    for name, x in experiences.items():
        (data / name).write_text(json.dumps(x, indent=2, ensure_ascii=False))
    (root / "dossier.yml").write_text("title: Editor test\noutput: _site\nexperiences:\n  input: data/experiences\n")
    proc = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root / "_site"


def hall_and_garden(title, second):
    """A two-panorama tour: the Hall holds a sound ("Hello"), the trigger `second` and a door
    to the Garden, whose only trigger is a note (so a child can finish there)."""
    return {
        "title": title,
        "panoramas": [
            {"id": "a", "title": "Hall", "image": "media/hall.jpg", "triggers": [
                {"id": "s1", "kind": "sound", "yaw": -20, "pitch": 0, "label": "Hello", "media": "media/hello.wav"},
                second,
                {"id": "d1", "kind": "door", "yaw": 20, "pitch": 0, "label": "To the garden", "target": "b"},
            ]},
            {"id": "b", "title": "Garden", "image": "media/park-pond.jpg", "triggers": [
                {"id": "n2", "kind": "note", "yaw": 0, "pitch": 0, "label": "Pond", "text": "Ducks live here."},
            ]},
        ],
    }


@pytest.fixture(scope="module")
def editor_site(tmp_path_factory, dossier_bin):
    dentist = json.loads((REPO / "Examples/demo/data/experiences/dentist.json").read_text())
    return build_site(tmp_path_factory.mktemp("xe-site"), dossier_bin, {"dentist.json": dentist})


def make_driver(download_dir, touch=False):
    drv = headless_chromium("--ignore-gpu-blocklist", "--hide-scrollbars", window="768,1024" if touch else "1280,900",
                            prefs={"download.default_directory": str(download_dir),
                                   "download.prompt_for_download": False})
    drv.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(download_dir)})
    if touch:
        drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 768, "height": 1024, "deviceScaleFactor": 1, "mobile": True})
        drv.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return drv


def wait(drv, cond, timeout=15):
    return WebDriverWait(drv, timeout, poll_frequency=0.05).until(lambda d: cond(d))


# MARK: - Independent formulas (docs/experience-viewer.md, Rendering)

def pixel_to_direction(px, py, w, h, yaw=0.0, pitch=0.0, hfov=HFOV):
    """Ray-cast of the stage pixel (px, py) (Pannellum's derivation, as documented)."""
    aspect = w / h
    vfov = 2 * math.atan(math.tan(hfov / 2) / aspect)
    f = 1 / math.tan(vfov / 2)
    x = (2 * px / w - 1) * aspect
    y = 1 - 2 * py / h
    a = f * math.cos(pitch) - y * math.sin(pitch)
    r = math.hypot(x, a)
    lam = math.atan2(x / r, a / r) + yaw
    phi = math.atan((y * math.cos(pitch) + f * math.sin(pitch)) / r)
    return lam, phi


def direction_to_pixel(lam, phi, w, h, yaw=0.0, pitch=0.0, hfov=HFOV):
    z = math.sin(phi) * math.sin(pitch) + math.cos(phi) * math.cos(pitch) * math.cos(yaw - lam)
    assert z > 0
    k = w / (2 * math.tan(hfov / 2))
    X = k * math.cos(phi) * math.sin(lam - yaw) / z
    Y = -k * (math.sin(phi) * math.cos(pitch) - math.cos(phi) * math.cos(yaw - lam) * math.sin(pitch)) / z
    return w / 2 + X, h / 2 + Y


# MARK: - The invalid-case table through the editor's rules

def test_invalid_case_table_gives_the_same_messages_in_the_browser(editor_site, tmp_path):
    table = json.loads(TABLE.read_text())
    drv = make_driver(tmp_path)
    try:
        drv.get((editor_site / "experiences/editor/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        got = drv.execute_script("""
            var t = arguments[0];
            function errs(x, others) { return DossierRules.validate(x, others || []).filter(function (m) { return m.severity === 'error'; }).map(function (m) { return m.message; }); }
            return {valid: errs(t.valid), cases: t.cases.map(function (c) { return errs(c.experience, c.others); })};
        """, table)
    finally:
        drv.quit()
    assert got["valid"] == []
    mismatches = [(c["name"], c["error"], g) for c, g in zip(table["cases"], got["cases"]) if g != [c["error"]]]
    assert not mismatches, mismatches
    assert len(table["cases"]) >= 40


# MARK: - Acceptance: make, save, build, view

def stage_rect(drv, element_id):
    return drv.execute_script("var r = document.getElementById(arguments[0]).getBoundingClientRect();"
                              "return {x: r.left, y: r.top, w: r.width, h: r.height};", element_id)


def centre(drv, selector):
    """The centre of the element's box in viewport coordinates."""
    return drv.execute_script("var r = document.querySelector(arguments[0]).getBoundingClientRect();"
                              "return [r.left + r.width / 2, r.top + r.height / 2];", selector)


def press(drv, touch, x, y):
    """A click (mouse) or a tap (touch emulation) at viewport point (x, y)."""
    if touch:
        for kind, pts in (("touchStart", [{"x": x, "y": y}]), ("touchEnd", [])):
            drv.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": pts})
    else:
        for kind in ("mousePressed", "mouseReleased"):
            drv.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})


def place(drv, touch, kind, dx, dy):
    drv.find_element(By.ID, f"xe-tool-{kind}").click()
    drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'center'})")
    r = stage_rect(drv, "xe-stage")
    x, y = r["x"] + r["w"] / 2 + dx, r["y"] + r["h"] / 2 + dy
    before = len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker"))
    press(drv, touch, x, y)
    wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-marker")) == before + 1)
    return {"px": r["w"] / 2 + dx, "py": r["h"] / 2 + dy, "w": r["w"], "h": r["h"]}


@pytest.mark.parametrize("touch", [False, True], ids=["desktop", "touch-768x1024"])
def test_made_in_the_editor_built_and_viewed_triggers_sit_where_clicked(editor_site, dossier_bin, tmp_path, touch):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    drv = make_driver(downloads, touch)
    title = "Tablet visit" if touch else "Desk visit"
    clicks = {}
    try:
        drv.get((editor_site / "experiences/editor/index.html").as_uri())
        assert drv.execute_script("return location.protocol") == "file:"
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        drv.find_element(By.ID, "xe-new").click()
        title_input = drv.find_element(By.ID, "xe-title")
        assert title_input.get_attribute("value") == "experience 1"   # F16 default
        title_input.clear()
        title_input.send_keys("abc")
        wait(drv, lambda d: "has 3 characters" in d.find_element(By.ID, "xe-title-help").text)
        title_input.send_keys(retype(title))
        wait(drv, lambda d: d.find_element(By.ID, "xe-title").get_attribute("aria-invalid") == "false")
        drv.find_element(By.ID, "xe-description").send_keys("Made in the editor test.")

        # Two panoramas from image files on the device (F19).
        drv.find_element(By.ID, "xe-add-pano").send_keys(f"{MEDIA / 'waiting.jpg'}\n{MEDIA / 'hall.jpg'}")
        wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-pano")) == 2)
        drv.find_elements(By.CSS_SELECTOR, ".xe-pano .xe-show")[0].click()
        wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")
        assert drv.find_element(By.ID, "xe-stage").get_attribute("data-render-mode") == "webgl"

        # A sound, a video and a door placed by clicks or taps (F24–F26).
        clicks["t1"] = place(drv, touch, "sound", -150, -40)
        drv.find_element(By.ID, "xe-trigger-file").send_keys(str(MEDIA / "hello.wav"))
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "audio.xe-preview"))
        clicks["t2"] = place(drv, touch, "video", 120, 60)
        drv.find_element(By.ID, "xe-trigger-file").send_keys(str(MEDIA / "dentist.mp4"))
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "video.xe-preview"))
        clicks["t3"] = place(drv, touch, "door", 30, -90)
        Select(drv.find_element(By.ID, "xe-trigger-target")).select_by_value("p2")
        # The editor's own markers sit where clicked.
        drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'center'})")
        r = stage_rect(drv, "xe-stage")
        for i, tid in enumerate(["t1", "t2", "t3"]):
            m = centre(drv, f".xe-marker[data-index='{i}']")
            assert abs(m[0] - r["x"] - clicks[tid]["px"]) <= 1.5, (tid, m, r, clicks[tid])
            assert abs(m[1] - r["y"] - clicks[tid]["py"]) <= 1.5, (tid, m, r, clicks[tid])
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-errors") == "0")
        ARTIFACTS.mkdir(exist_ok=True)
        drv.save_screenshot(str(ARTIFACTS / f"experiences-editor-{'touch' if touch else 'desktop'}.png"))

        # Exit asks to save (F22, F28); Yes downloads the zip.
        drv.find_element(By.ID, "xe-exit").click()
        wait(drv, lambda d: d.find_element(By.ID, "xe-confirm").get_attribute("open") is not None)
        drv.find_element(By.ID, "xe-confirm-yes").click()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "start")
        name = drv.find_element(By.ID, "xe").get_attribute("data-saved")
        slug = "tablet-visit" if touch else "desk-visit"
        assert name == f"{slug}.zip"
        deadline = time.monotonic() + 15
        while not (downloads / name).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (downloads / name).exists()

        # Unzip into a fresh project and build it unchanged.
        project = tmp_path / "project"
        data = project / "data" / "experiences"
        data.mkdir(parents=True)
        with zipfile.ZipFile(downloads / name) as z:
            assert z.testzip() is None
            names = sorted(z.namelist())
            z.extractall(data)
        assert names == sorted([f"{slug}.json", f"media/{slug}/waiting.jpg", f"media/{slug}/hall.jpg",
                                f"media/{slug}/hello.wav", f"media/{slug}/dentist.mp4"])
        saved = json.loads((data / f"{slug}.json").read_text())
        assert saved["title"] == title and saved["kind"] == "custom" and len(saved["panoramas"]) == 2
        (project / "dossier.yml").write_text("title: Made\noutput: _site\nexperiences:\n  input: data/experiences\n")
        proc = subprocess.run([dossier_bin, "build", str(project)], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr

        # The viewer, play mode, starting view: every trigger where it was clicked.
        drv.get((project / "_site" / "experiences" / slug / "index.html").as_uri() + "?play=1")
        wait(drv, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-ready") == "true")
        assert drv.find_element(By.ID, "xp-viewer").get_attribute("data-play") == "true"
        v = stage_rect(drv, "xp-stage")
        for tid, c in clicks.items():
            lam, phi = pixel_to_direction(c["px"], c["py"], c["w"], c["h"])
            ex, ey = direction_to_pixel(lam, phi, v["w"], v["h"])
            b = centre(drv, f"#xp-hotspots [data-trigger='{tid}']")
            assert abs(b[0] - v["x"] - ex) <= 3, (tid, b, v, ex)
            assert abs(b[1] - v["y"] - ey) <= 3, (tid, b, v, ey)
        drv.save_screenshot(str(ARTIFACTS / f"experiences-made-viewer-{'touch' if touch else 'desktop'}.png"))
    finally:
        drv.quit()


def new_with_two_panoramas(drv, site):
    """The editor opened on a new experience of two panoramas (waiting room, hall), the first shown."""
    drv.get((site / "experiences/editor/index.html").as_uri())
    wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
    drv.find_element(By.ID, "xe-new").click()
    drv.find_element(By.ID, "xe-add-pano").send_keys(f"{MEDIA / 'waiting.jpg'}\n{MEDIA / 'hall.jpg'}")
    wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-pano")) == 2)
    drv.find_elements(By.CSS_SELECTOR, ".xe-pano .xe-show")[0].click()
    wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")


def retype(text):
    """Select-all-free replacement: backspaces over the 3 characters typed, then `text`."""
    return "\b\b\b" + text


def test_delete_panorama_asks_first_and_removes_doors_to_it(editor_site, tmp_path):
    drv = make_driver(tmp_path)
    try:
        new_with_two_panoramas(drv, editor_site)
        place(drv, False, "door", 0, 0)
        Select(drv.find_element(By.ID, "xe-trigger-target")).select_by_value("p2")
        drv.find_elements(By.CSS_SELECTOR, ".xe-pano .xe-delete")[1].click()
        wait(drv, lambda d: d.find_element(By.ID, "xe-confirm").get_attribute("open") is not None)
        drv.find_element(By.ID, "xe-confirm-no").click()   # F21: No keeps it
        assert len(drv.find_elements(By.CSS_SELECTOR, ".xe-pano")) == 2
        drv.find_elements(By.CSS_SELECTOR, ".xe-pano .xe-delete")[1].click()
        wait(drv, lambda d: d.find_element(By.ID, "xe-confirm").get_attribute("open") is not None)
        drv.find_element(By.ID, "xe-confirm-yes").click()
        wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-pano")) == 1)
        x = drv.execute_script("return window.dossierEditor.serialize()")
        assert x["panoramas"][0]["triggers"] == []
        # Opening a site experience: its title is not a clash with itself, a copy's would be.
        drv.find_element(By.ID, "xe-exit").click()
        wait(drv, lambda d: d.find_element(By.ID, "xe-confirm").get_attribute("open") is not None)
        drv.find_element(By.ID, "xe-confirm-no").click()   # discard
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "start")
        drv.find_element(By.ID, "xe-open-site").click()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "editing")
        assert drv.find_element(By.ID, "xe-title").get_attribute("value") == "At the dentist"
        assert drv.find_element(By.ID, "xe").get_attribute("data-errors") == "0"
    finally:
        drv.quit()
