"""The experience browser in real headless Chromium (Debian chromium + chromium-driver,
driven by selenium), opened from file:// as a caretaker would open a built site.

The site is built once per session by the dossier binary from the demo's experiences plus
one experience whose every text field is an HTML/script injection attempt.
Screenshots go to artifacts/ (gitignored)."""
import json
import pathlib
import shutil
import time

import pytest

selenium = pytest.importorskip("selenium")
from selenium.common.exceptions import NoAlertPresentException, WebDriverException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from conftest import ARTIFACTS, REPO
from page_checks import headless_chromium

XSS = "<img src=x onerror=alert(1)>"
XSS_TITLE = "<b>x</b>&amp;\"'!"  # 16 characters


@pytest.fixture(scope="session")
def site(tmp_path_factory, dossier_bin):
    """Builds a project with the demo experiences and the injection experience."""
    import subprocess
    root = tmp_path_factory.mktemp("xp-site")
    data = root / "data" / "experiences"
    shutil.copytree(REPO / "Examples" / "demo" / "data" / "experiences", data,
                    ignore=shutil.ignore_patterns("sources"))
    media = data / "media"
    xss = {
        "title": XSS_TITLE,
        "description": XSS,
        "panoramas": [
            {"id": "only", "title": XSS, "image": "media/hall.jpg", "triggers": [
                {"kind": "sound", "yaw": 0, "pitch": 0, "label": XSS, "media": "media/hello.wav"},
            ]},
        ],
    }
    assert (media / "hall.jpg").exists()
    (data / "xss.json").write_text(json.dumps(xss, indent=2))
    (root / "dossier.yml").write_text("title: Experience browser test\noutput: _site\n"
                                      "experiences:\n  input: data/experiences\n")
    proc = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in (proc.stdout + proc.stderr).lower(), proc.stdout + proc.stderr
    return root / "_site"


@pytest.fixture(scope="session")
def browser():
    drv = headless_chromium("--ignore-gpu-blocklist", "--autoplay-policy=user-gesture-required")
    # Record any alert() an injected script might call, before any page script runs.
    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "window.__alerts = []; window.alert = function (m) { window.__alerts.push(String(m)); };"})
    yield drv
    drv.quit()


def url(site, path):
    return (site / path).resolve().as_uri()


def wait(drv, cond, timeout=10):
    return WebDriverWait(drv, timeout, poll_frequency=0.05).until(lambda d: cond(d))


def open_viewer(drv, site, slug="dentist", query=""):
    drv.get(url(site, f"experiences/{slug}/index.html") + query)
    drv.execute_script("try { localStorage.clear(); } catch (e) {}")
    wait(drv, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-ready") == "true")
    return drv.find_element(By.ID, "xp-viewer")


def attr(drv, name):
    return drv.find_element(By.ID, "xp-viewer").get_attribute(name)


def drawn_yaw(drv):
    """The yaw of the first frame drawn: `data-ready` is set when the picture has loaded,
    and `data-yaw` by the frame drawn after it (an animation frame later, which a loaded
    machine may delay)."""
    wait(drv, lambda d: attr(d, "data-yaw") is not None)
    return float(attr(drv, "data-yaw"))


CANVAS_STATS = """
    var c = arguments[0];
    var t = document.createElement('canvas'); t.width = 64; t.height = 32;
    var g = t.getContext('2d'); g.drawImage(c, 0, 0, 64, 32);
    var d = g.getImageData(0, 0, 64, 32).data, seen = {}, n = 0, sum = 0;
    for (var i = 0; i < d.length; i += 4) {
      var k = (d[i] >> 3) + ',' + (d[i+1] >> 3) + ',' + (d[i+2] >> 3);
      if (!seen[k]) { seen[k] = 1; n++; }
      sum = (sum * 31 + d[i] + 7 * d[i+1] + 13 * d[i+2]) % 1000000007;
    }
    return {colours: n, fingerprint: sum};
"""


def canvas_stats(drv, canvas=None):
    """Distinct colours and a fingerprint of a WebGL canvas (the viewer's by default), read
    back through a 2D canvas."""
    return drv.execute_script(CANVAS_STATS, canvas or drv.find_element(By.ID, "xp-canvas"))


def list_button(drv, trigger_id):
    return drv.find_element(By.CSS_SELECTOR, f"#xp-list [data-trigger='{trigger_id}']")


def go_through_door(drv, trigger_id, expect):
    list_button(drv, trigger_id).click()
    if drv.find_element(By.ID, "xp-warn").get_attribute("open") is not None:
        drv.find_element(By.ID, "xp-warn-no").click()
    wait(drv, lambda d: attr(d, "data-panorama") == expect)
    wait(drv, lambda d: attr(d, "data-ready") == "true")


def shot(drv, name):
    ARTIFACTS.mkdir(exist_ok=True)
    drv.save_screenshot(str(ARTIFACTS / name))


# MARK: - Home page

def test_home_page_lists_every_experience_as_a_widget(browser, site):
    browser.get(url(site, "experiences/index.html"))
    assert browser.execute_script("return location.protocol") == "file:"
    titles = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".xp-widget-title")]
    assert titles == ["At the dentist", "Walk in the park", XSS_TITLE]
    dentist = browser.find_element(By.CSS_SELECTOR, ".xp-widget[data-experience='dentist']")
    assert "waiting room, the hall" in dentist.find_element(By.CSS_SELECTOR, ".xp-widget-description").text
    img = dentist.find_element(By.TAG_NAME, "img")
    wait(browser, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) == 512)   # the prepared card image
    shot(browser, "experiences-home.png")
    dentist.find_element(By.CSS_SELECTOR, "a.xp-play").click()
    wait(browser, lambda d: d.current_url.endswith("experiences/dentist/index.html?play=1"))


# MARK: - Viewer

def test_viewer_draws_the_panorama_with_webgl_from_file_url(browser, site):
    open_viewer(browser, site)
    assert browser.execute_script("return location.protocol") == "file:"
    assert attr(browser, "data-render-mode") == "webgl"
    wait(browser, lambda d: canvas_stats(d)["colours"] >= 8)
    assert browser.find_element(By.ID, "xp-pano-title").text == "Waiting room"
    assert browser.find_element(By.ID, "xp-progress").text == "Clips played 0 of 4"
    # The overlay buttons carry an icon and a visible label; the facing one is on screen.
    hello = browser.find_element(By.CSS_SELECTOR, "#xp-hotspots [data-trigger='hello']")
    assert hello.is_displayed() and hello.text.startswith("Hello at the desk")
    assert hello.find_elements(By.CSS_SELECTOR, "svg.xp-icon")
    stage = browser.find_element(By.ID, "xp-stage").rect
    assert abs(hello.rect["x"] + hello.rect["width"] / 2 - (stage["x"] + stage["width"] / 2)) < 3
    assert hello.rect["height"] >= 44 and hello.rect["width"] >= 44
    shot(browser, "experiences-viewer.png")


def test_dragging_and_arrow_keys_change_the_view(browser, site):
    open_viewer(browser, site)
    wait(browser, lambda d: canvas_stats(d)["colours"] >= 8)
    before = canvas_stats(browser)["fingerprint"]
    yaw0 = drawn_yaw(browser)
    stage = browser.find_element(By.ID, "xp-stage")
    ActionChains(browser).move_to_element_with_offset(stage, 100, 40).click_and_hold() \
        .move_by_offset(-120, 0).move_by_offset(-120, 0).release().perform()
    wait(browser, lambda d: float(attr(d, "data-yaw")) > yaw0 + 10)   # dragging left turns right
    wait(browser, lambda d: canvas_stats(d)["fingerprint"] != before)
    shot(browser, "experiences-viewer-dragged.png")
    yaw1 = float(attr(browser, "data-yaw"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait(browser, lambda d: abs(float(attr(d, "data-yaw")) - (yaw1 - 5)) < 0.01)


def pixel_under(drv, selector):
    """The canvas colour at the centre of the element (the picture under a trigger button)."""
    return drv.execute_script("""
        var c = document.getElementById('xp-canvas'), b = document.querySelector(arguments[0]);
        var rc = c.getBoundingClientRect(), rb = b.getBoundingClientRect();
        var x = Math.round((rb.left + rb.width / 2 - rc.left) * c.width / rc.width);
        var y = Math.round((rb.top + rb.height / 2 - rc.top) * c.height / rc.height);
        var t = document.createElement('canvas'); t.width = c.width; t.height = c.height;
        var g = t.getContext('2d'); g.drawImage(c, 0, 0);
        return Array.prototype.slice.call(g.getImageData(x, y, 1, 1).data, 0, 3);
    """, selector)


def test_trigger_buttons_stay_on_their_object_as_the_view_turns(browser, site):
    # "Hello at the desk" is at yaw 0, pitch 2: the middle of the blue-grey desk (#9bb6c9)
    # that spans yaw -21..21 in the picture. Buttons are placed by the projection formula
    # and the picture by the shader: both must agree wherever the view points.
    open_viewer(browser, site)
    desk = (0x9b, 0xb6, 0xc9)
    body = browser.find_element(By.TAG_NAME, "body")
    for keys, yaw, pitch in (((), 0, 0), ((Keys.ARROW_RIGHT,) * 6, 30, 0), ((Keys.ARROW_UP,) * 3, 30, 15),
                             ((Keys.ARROW_LEFT,) * 12, -30, 15)):
        for k in keys:
            body.send_keys(k)
        wait(browser, lambda d: abs(float(attr(d, "data-yaw")) - yaw) < 0.01 and abs(float(attr(d, "data-pitch")) - pitch) < 0.01)
        wait(browser, lambda d: all(abs(a - b) <= 16 for a, b in zip(pixel_under(d, "#xp-hotspots [data-trigger='hello']"), desk)))
    # The door to the hall (yaw 60, pitch 5) is a narrower object (#7d6a55, yaw 48..72).
    door = (0x7d, 0x6a, 0x55)
    for k in (Keys.ARROW_RIGHT,) * 18 + (Keys.ARROW_DOWN,) * 4:
        body.send_keys(k)
    wait(browser, lambda d: abs(float(attr(d, "data-yaw")) - 60) < 0.01 and abs(float(attr(d, "data-pitch")) + 5) < 0.01)
    wait(browser, lambda d: all(abs(a - b) <= 16 for a, b in zip(pixel_under(d, "#xp-hotspots [data-trigger='to-hall']"), door)))


def test_sound_button_toggles_play_and_pause(browser, site):
    open_viewer(browser, site)
    b = list_button(browser, "hello")
    assert b.get_attribute("aria-pressed") == "false"
    b.click()
    wait(browser, lambda d: list_button(d, "hello").get_attribute("aria-pressed") == "true")
    wait(browser, lambda d: attr(d, "data-sound-playing") == "true")
    assert "playing" in list_button(browser, "hello").text
    # The overlay button shows the same state.
    assert browser.find_element(By.CSS_SELECTOR, "#xp-hotspots [data-trigger='hello']").get_attribute("aria-pressed") == "true"
    list_button(browser, "hello").click()
    wait(browser, lambda d: list_button(d, "hello").get_attribute("aria-pressed") == "false")
    assert attr(browser, "data-sound-playing") == "false"
    assert browser.find_element(By.ID, "xp-progress").text == "Clips played 0 of 4"


def test_leaving_with_clips_unplayed_asks_first(browser, site):
    open_viewer(browser, site)
    list_button(browser, "to-hall").click()
    warn = browser.find_element(By.ID, "xp-warn")
    wait(browser, lambda d: warn.get_attribute("open") is not None)
    assert "Finish this panorama first?" in warn.text
    shot(browser, "experiences-warning.png")
    browser.find_element(By.ID, "xp-warn-yes").click()
    wait(browser, lambda d: warn.get_attribute("open") is None)
    assert attr(browser, "data-panorama") == "waiting"
    list_button(browser, "to-hall").click()
    wait(browser, lambda d: warn.get_attribute("open") is not None)
    browser.find_element(By.ID, "xp-warn-no").click()
    wait(browser, lambda d: attr(d, "data-panorama") == "hall")
    assert browser.find_element(By.ID, "xp-pano-title").text == "Hall"
    # The hall has no clips: its doors go on without asking.
    list_button(browser, "back").click()
    wait(browser, lambda d: attr(d, "data-panorama") == "waiting")


def test_video_dialog_controls_hide_after_four_seconds_and_return_on_a_key(browser, site):
    open_viewer(browser, site)
    go_through_door(browser, "to-hall", "hall")
    go_through_door(browser, "to-chair", "chair")
    opener = list_button(browser, "visit")
    clicked = time.monotonic()          # the 4 s timer starts after this moment
    opener.click()
    dlg = browser.find_element(By.ID, "xp-video")
    wait(browser, lambda d: dlg.get_attribute("open") is not None)
    assert dlg.get_attribute("data-controls") == "shown"
    wait(browser, lambda d: d.execute_script("var v = document.getElementById('xp-video-el'); return v.currentTime > 0;"))
    back = browser.find_element(By.ID, "xp-video-back")
    assert back.is_displayed() and back.text == "Back"
    assert back.rect["x"] < 50 and back.rect["y"] < 50           # top left
    shot(browser, "experiences-video.png")
    wait(browser, lambda d: dlg.get_attribute("data-controls") == "hidden", timeout=8)
    assert time.monotonic() - clicked >= 3.95
    wait(browser, lambda d: float(d.execute_script(
        "return getComputedStyle(document.querySelector('.xp-video-bottom')).opacity")) < 0.05)
    assert back.is_enabled()                                       # Back stays reachable
    ActionChains(browser).send_keys(Keys.SHIFT).perform()
    wait(browser, lambda d: dlg.get_attribute("data-controls") == "shown")
    back.click()
    wait(browser, lambda d: dlg.get_attribute("open") is None)
    assert browser.switch_to.active_element == list_button(browser, "visit")


def test_playing_every_clip_of_the_final_panorama_congratulates(browser, site):
    open_viewer(browser, site)
    go_through_door(browser, "to-hall", "hall")
    go_through_door(browser, "to-chair", "chair")
    for sound in ("open-wide", "drill"):
        list_button(browser, sound).click()
        wait(browser, lambda d: "played" in list_button(d, sound).get_attribute("class"), timeout=15)
    assert browser.find_element(By.ID, "xp-progress").text == "Clips played 2 of 4"
    list_button(browser, "visit").click()
    wait(browser, lambda d: d.execute_script("return document.getElementById('xp-video-el').ended"), timeout=15)
    assert browser.find_element(By.ID, "xp-progress").text == "Clips played 3 of 4"
    browser.find_element(By.ID, "xp-video-back").click()
    wait(browser, lambda d: d.current_url.endswith("experiences/dentist/congratulations/index.html"), timeout=10)
    assert "Well done" in browser.find_element(By.TAG_NAME, "h1").text
    shot(browser, "experiences-congratulations.png")
    browser.find_element(By.ID, "xp-home").click()
    wait(browser, lambda d: d.current_url.endswith("experiences/index.html"))


def test_exit_is_always_present_and_goes_home(browser, site):
    open_viewer(browser, site)
    go_through_door(browser, "to-hall", "hall")
    exit_link = browser.find_element(By.ID, "xp-exit")
    assert exit_link.is_displayed() and exit_link.text == "Exit"
    exit_link.click()
    wait(browser, lambda d: d.current_url.endswith("experiences/index.html"))


def test_flat_fallback_explains_itself_and_still_works(browser, site):
    open_viewer(browser, site, query="?flat=1")
    assert attr(browser, "data-render-mode") == "flat"
    msg = browser.find_element(By.ID, "xp-message")
    assert msg.is_displayed() and "flat" in msg.text
    assert browser.find_element(By.ID, "xp-flat").is_displayed()
    yaw0 = drawn_yaw(browser)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait(browser, lambda d: float(attr(d, "data-yaw")) == yaw0 + 5)
    assert browser.find_element(By.CSS_SELECTOR, "#xp-hotspots [data-trigger='hello']").is_displayed()
    shot(browser, "experiences-flat.png")


def test_motion_controls_are_off_until_tapped_and_remembered(browser, site):
    open_viewer(browser, site)
    motion = browser.find_element(By.ID, "xp-motion")
    assert motion.get_attribute("aria-pressed") == "false"
    motion.click()
    wait(browser, lambda d: d.find_element(By.ID, "xp-motion").get_attribute("aria-pressed") == "true")
    assert browser.find_element(By.ID, "xp-setting-motion").is_selected()
    browser.refresh()
    wait(browser, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-viewer") == "ready")
    # Remembered; where the browser asks permission (iOS, recent Chromium) it waits for a tap.
    assert browser.find_element(By.ID, "xp-setting-motion").is_selected()
    assert browser.find_element(By.ID, "xp-motion").text in ("Motion on", "Tap to use motion")
    browser.find_element(By.ID, "xp-setting-motion").click()
    wait(browser, lambda d: d.find_element(By.ID, "xp-motion").text == "Motion off")
    assert browser.find_element(By.ID, "xp-motion").get_attribute("aria-pressed") == "false"
    assert browser.execute_script("return localStorage.getItem('dossier.experiences.motion')") == "off"


# MARK: - Injection

def assert_shown_as_text(drv, text):
    assert text in drv.find_element(By.TAG_NAME, "body").text
    assert drv.execute_script("return document.querySelectorAll('img[src=\"x\"], main b').length") == 0
    assert drv.execute_script("return window.__alerts") == []
    try:
        drv.switch_to.alert
        pytest.fail("an alert is open")
    except NoAlertPresentException:
        pass


def test_typed_text_is_shown_as_text_everywhere_and_runs_no_script(browser, site):
    browser.get(url(site, "experiences/index.html"))
    assert_shown_as_text(browser, XSS)
    assert_shown_as_text(browser, XSS_TITLE)
    open_viewer(browser, site, slug="xss")
    assert browser.find_element(By.ID, "xp-pano-title").text == XSS
    assert list_button(browser, "t1").text.startswith(XSS)
    assert XSS in browser.find_element(By.CSS_SELECTOR, "#xp-hotspots [data-trigger='t1']").text
    assert browser.title.startswith(XSS)
    assert_shown_as_text(browser, XSS)
    shot(browser, "experiences-xss.png")
    for page in ("overview", "congratulations"):
        browser.get(url(site, f"experiences/xss/{page}/index.html"))
        assert_shown_as_text(browser, XSS_TITLE)
        if page == "overview":
            assert_shown_as_text(browser, XSS)
            svg_text = browser.execute_script("return document.querySelector('svg.experience-graph').textContent")
            assert XSS in svg_text
    # The raw markup never appears in any generated page.
    for html in site.joinpath("experiences").rglob("*.html"):
        source = html.read_text()
        assert "<img src=x" not in source and "<b>x</b>" not in source, html
