"""`data-ready` means drawn (docs/experience-viewer.md, docs/experience-editor.md).

The viewer and the editor say `data-ready="true"` once a panorama's picture has loaded.
Before, they then asked for an animation frame to draw it, so for one frame (or longer on a
loaded machine) the page said ready while `data-yaw`/`data-pitch` were missing or the
canvas still blank — a CI run read `data-yaw` as None there. Here every animation frame is
held (requestAnimationFrame queues and never runs) before any page script starts, so that
gap lasts for ever: a page that draws only in a frame fails, one that draws before it says
ready passes."""
import json
import shutil
import subprocess

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from conftest import REPO
from page_checks import headless_chromium
from test_experiences_browser import canvas_stats

DEMO = REPO / "Examples" / "demo" / "data" / "experiences"
HOLD_FRAMES = """
window.__frames = [];
window.requestAnimationFrame = function (f) { window.__frames.push(f); return window.__frames.length; };
window.__runFrames = function () {
  var fs = window.__frames; window.__frames = [];
  fs.forEach(function (f) { f(performance.now()); });
  return fs.length;
};
// Pictures made with `new Image()` load only when released while __holdImages is set.
window.__holdImages = false; window.__heldImages = [];
(function () {
  var Real = window.Image, src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  window.Image = function () {
    var img = new Real();
    Object.defineProperty(img, "src", {
      get: function () { return src.get.call(img); },
      set: function (v) {
        if (window.__holdImages) window.__heldImages.push(function () { src.set.call(img, v); });
        else src.set.call(img, v);
      }
    });
    return img;
  };
})();
window.__releaseImages = function () {
  window.__holdImages = false;
  var held = window.__heldImages; window.__heldImages = [];
  held.forEach(function (f) { f(); });
  return held.length;
};
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("xp-ready")
    shutil.copytree(DEMO, root / "data" / "experiences", ignore=shutil.ignore_patterns("sources"))
    (root / "dossier.yml").write_text("title: Ready test\noutput: _site\nexperiences:\n  input: data/experiences\n")
    proc = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root / "_site"


@pytest.fixture()
def held():
    """Headless Chromium whose animation frames never come."""
    drv = headless_chromium("--ignore-gpu-blocklist")
    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD_FRAMES})
    yield drv
    drv.quit()


def wait(drv, cond, timeout=15):
    return WebDriverWait(drv, timeout, poll_frequency=0.05).until(lambda d: cond(d))


def start_yaw(slug):
    first = json.loads((DEMO / f"{slug}.json").read_text())["panoramas"][0]
    return float(first.get("startYaw", 0)), float(first.get("startPitch", 0))


def canvas(drv, element):
    """(distinct colours, fingerprint) of a WebGL canvas, read back through a 2D canvas."""
    stats = canvas_stats(drv, element)
    return stats["colours"], stats["fingerprint"]


def assert_drawn(drv, element):
    """The canvas already shows what the next frame would draw (a picture, not the blank
    clear colour), so nothing was left for a frame."""
    before = canvas(drv, element)
    drv.execute_script("return window.__runFrames()")
    assert before[0] > 2, f"ready, but the canvas shows {before[0]} colour(s): no picture drawn"
    assert canvas(drv, element) == before, "ready, but the picture changed in the next frame: it was not drawn"


def test_the_viewer_is_drawn_when_it_says_ready(site, held):
    held.get((site / "experiences/dentist/index.html").resolve().as_uri())
    viewer = held.find_element(By.ID, "xp-viewer")
    wait(held, lambda d: viewer.get_attribute("data-ready") == "true")
    assert held.execute_script("return window.__frames.length") >= 1, "the page asked for no frame: nothing was held"
    yaw, pitch = start_yaw("dentist")
    assert viewer.get_attribute("data-yaw") is not None, "ready, but no frame drawn"
    assert abs(float(viewer.get_attribute("data-yaw")) - yaw) < 0.01
    assert abs(float(viewer.get_attribute("data-pitch")) - pitch) < 0.01
    assert viewer.get_attribute("data-render-mode") == "webgl", "this test needs the WebGL viewer"
    assert viewer.get_attribute("data-first-frame-ms") is not None
    assert_drawn(held, held.find_element(By.ID, "xp-canvas"))


def test_the_editor_stage_is_ready_only_once_its_picture_is_drawn(site, held):
    page = (site / "experiences/editor/index.html").resolve().as_uri()
    held.get(page)
    held.execute_script("localStorage.clear()")   # no draft from another test
    held.get(page)
    wait(held, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
    held.find_element(By.ID, "xe-new").click()
    media = DEMO / "media"
    held.find_element(By.ID, "xe-add-pano").send_keys(f"{media / 'waiting.jpg'}\n{media / 'hall.jpg'}")
    wait(held, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-pano")) == 2)
    stage = held.find_element(By.ID, "xe-stage")

    def show(i):
        held.find_elements(By.CSS_SELECTOR, ".xe-pano .xe-show")[i].click()

    show(0)
    wait(held, lambda d: stage.get_attribute("data-ready") == "true")
    # The second picture is held back while it loads; showing it again meanwhile (any
    # structural edit redraws the panorama) must not say ready for a picture not there.
    held.execute_script("window.__holdImages = true")
    show(1)
    assert stage.get_attribute("data-ready") is None
    show(1)
    assert stage.get_attribute("data-ready") is None, "ready while its picture was still loading"
    assert held.execute_script("return window.__releaseImages()") >= 1
    wait(held, lambda d: stage.get_attribute("data-ready") == "true")
    assert stage.get_attribute("data-yaw") is not None
    assert stage.get_attribute("data-render-mode") == "webgl", "this test needs the WebGL stage"
    assert_drawn(held, held.find_element(By.CSS_SELECTOR, "#xe-stage canvas"))
