"""The viewer as a child meets it, in real headless Chromium from file://: play mode, zoom,
starting and arrival directions, screen-reader announcements, one sound at a time, notes,
bidi-override characters, a final panorama without clips, and axe-core on the viewer and
the editor in light and dark."""
import json
import pathlib

import pytest

selenium = pytest.importorskip("selenium")
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from test_experiences_editor import build_site, make_driver, wait

RLO = "\u202e"
CHECKS = {
    "title": "Viewer checks",
    "panoramas": [
        {"id": "a", "title": RLO + "gnp.exe room", "image": "media/hall.jpg", "startYaw": 30, "triggers": [
            {"id": "s1", "kind": "sound", "yaw": 30, "pitch": 0, "label": "Bell", "media": "media/hello.wav"},
            {"id": "s2", "kind": "sound", "yaw": 50, "pitch": 0, "label": "Drill " + RLO + "gnp.exe", "media": "media/drill.wav"},
            {"id": "n1", "kind": "note", "yaw": 10, "pitch": 5, "label": "Sign", "text": "Please wait here."},
            {"id": "d1", "kind": "door", "yaw": 0, "pitch": 0, "label": "To the last room", "target": "b", "targetYaw": 45},
        ]},
        {"id": "b", "title": "Last room", "image": "media/waiting.jpg", "triggers": [
            {"id": "back", "kind": "door", "yaw": 0, "pitch": 0, "label": "Back", "target": "a"},
        ]},
    ],
}
AXE = pathlib.Path(__import__("axe_playwright_python").__file__).parent / "axe.min.js"


@pytest.fixture(scope="module")
def play_site(tmp_path_factory, dossier_bin):
    return build_site(tmp_path_factory.mktemp("xp-play"), dossier_bin, {"checks.json": CHECKS})


@pytest.fixture(scope="module")
def drv(tmp_path_factory):
    d = make_driver(tmp_path_factory.mktemp("dl"))
    yield d
    d.quit()


def viewer(drv, site, query=""):
    drv.get((site / "experiences/checks/index.html").as_uri() + query)
    wait(drv, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-ready") == "true")
    return drv.find_element(By.ID, "xp-viewer")


def attr(drv, name):
    return drv.find_element(By.ID, "xp-viewer").get_attribute(name)


def test_play_mode_fills_the_window_with_only_the_view_and_its_exit(drv, play_site):
    viewer(drv, play_site, "?play=1")
    assert attr(drv, "data-play") == "true"
    r = drv.execute_script("var r = document.getElementById('xp-stage').getBoundingClientRect();"
                           "return [r.left, r.top, r.width, r.height, innerWidth, innerHeight];")
    assert r[0] == 0 and r[1] == 0 and abs(r[2] - r[4]) <= 1 and abs(r[3] - r[5]) <= 1
    # Nothing of the site around it: every corner of the window belongs to the viewer.
    inside = drv.execute_script("""
        var v = document.getElementById('xp-viewer'), w = innerWidth, h = innerHeight;
        return [[2, 2], [w - 3, 2], [2, h - 3], [w - 3, h - 3], [w / 2, h / 2]].map(function (p) {
            return v.contains(document.elementFromPoint(p[0], p[1])); });""")
    assert all(inside), inside
    assert not drv.find_element(By.CSS_SELECTOR, ".xp-side").is_displayed()
    assert drv.find_element(By.ID, "xp-exit").is_displayed()
    drv.find_element(By.ID, "xp-play").click()   # back to the caretakers' view with the list
    wait(drv, lambda d: attr(d, "data-play") == "false")
    assert drv.find_element(By.CSS_SELECTOR, ".xp-side").is_displayed()


def test_scene_starts_facing_its_direction_and_a_door_sets_the_arrival_direction(drv, play_site):
    viewer(drv, play_site)
    wait(drv, lambda d: attr(d, "data-yaw") == "30.00")
    drv.find_element(By.CSS_SELECTOR, "#xp-list [data-trigger='d1']").click()
    wait(drv, lambda d: d.find_element(By.ID, "xp-warn").get_attribute("open") is not None)
    drv.find_element(By.ID, "xp-warn-no").click()
    wait(drv, lambda d: attr(d, "data-panorama") == "b")
    wait(drv, lambda d: attr(d, "data-yaw") == "45.00")


def test_zoom_with_keys_buttons_and_wheel_is_limited(drv, play_site):
    viewer(drv, play_site)
    body = drv.find_element(By.TAG_NAME, "body")
    for _ in range(8):
        body.send_keys("+")
    wait(drv, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-hfov") == "40.0")
    drv.find_element(By.ID, "xp-zoom-out").click()
    wait(drv, lambda d: attr(d, "data-hfov") == "50.0")
    for _ in range(3):
        drv.execute_script("document.getElementById('xp-stage').dispatchEvent(new WheelEvent('wheel', {deltaY: 100, bubbles: true, cancelable: true}))")
    wait(drv, lambda d: attr(d, "data-hfov") == "80.0")
    body.send_keys("-")
    body.send_keys("-")
    body.send_keys("-")
    wait(drv, lambda d: attr(d, "data-hfov") == "100.0")   # never wider than the start


def test_arrival_is_announced_once_with_the_things_to_press(drv, play_site):
    viewer(drv, play_site)
    stage = drv.find_element(By.ID, "xp-stage")
    assert stage.get_attribute("role") == "application" and stage.get_attribute("aria-label")
    live = drv.find_element(By.ID, "xp-announce")
    assert live.get_attribute("aria-live") == "polite"
    wait(drv, lambda d: "Now in gnp.exe room" in live.get_attribute("textContent"))
    text = live.get_attribute("textContent")
    assert "Bell" in text and "Sign" in text and "To the last room" in text and text.count("Bell") == 1
    drv.find_element(By.CSS_SELECTOR, "#xp-list [data-trigger='d1']").click()
    drv.find_element(By.ID, "xp-warn-no").click()
    wait(drv, lambda d: d.find_element(By.ID, "xp-announce").get_attribute("textContent").startswith("Now in Last room"))


def test_only_one_sound_plays_at_a_time(drv, play_site):
    viewer(drv, play_site)
    s1 = drv.find_element(By.CSS_SELECTOR, "#xp-list [data-trigger='s1']")
    s2 = drv.find_element(By.CSS_SELECTOR, "#xp-list [data-trigger='s2']")
    s1.click()
    wait(drv, lambda d: s1.get_attribute("aria-pressed") == "true")
    s2.click()
    wait(drv, lambda d: s2.get_attribute("aria-pressed") == "true" and s1.get_attribute("aria-pressed") == "false")
    playing = drv.execute_script("return document.querySelectorAll('#xp-list [aria-pressed=true]').length")
    assert playing == 1


def test_bidi_override_characters_are_not_displayed(drv, play_site):
    viewer(drv, play_site)
    title = drv.find_element(By.ID, "xp-pano-title").get_attribute("textContent")
    label = drv.find_element(By.CSS_SELECTOR, "#xp-list [data-trigger='s2'] .xp-label").get_attribute("textContent")
    assert RLO not in title and title == "gnp.exe room"
    assert RLO not in label and label == "Drill gnp.exe"
    assert RLO not in drv.title


def test_a_note_shows_its_text_and_closes_back_to_its_button(drv, play_site):
    viewer(drv, play_site)
    drv.find_element(By.CSS_SELECTOR, "#xp-list [data-trigger='n1']").click()
    wait(drv, lambda d: d.find_element(By.ID, "xp-note").get_attribute("open") is not None)
    assert drv.find_element(By.ID, "xp-note-text").text == "Please wait here."
    drv.find_element(By.ID, "xp-note-close").click()
    wait(drv, lambda d: d.find_element(By.ID, "xp-note").get_attribute("open") is None)
    assert drv.switch_to.active_element.get_attribute("data-trigger") == "n1"


def test_final_panorama_without_clips_waits_for_the_child(drv, play_site):
    viewer(drv, play_site)
    drv.find_element(By.CSS_SELECTOR, "#xp-list [data-trigger='d1']").click()
    drv.find_element(By.ID, "xp-warn-no").click()
    wait(drv, lambda d: attr(d, "data-panorama") == "b")
    finish = drv.find_element(By.ID, "xp-finish")
    wait(drv, lambda d: finish.is_displayed())
    with pytest.raises(TimeoutException):   # the old viewer left after 400 ms
        wait(drv, lambda d: "congratulations" in d.current_url, timeout=1.5)
    assert attr(drv, "data-finished") is None
    finish.click()
    wait(drv, lambda d: d.current_url.endswith("checks/congratulations/index.html"))


def axe_serious(drv):
    drv.execute_script(AXE.read_text())
    res = drv.execute_async_script("var done = arguments[arguments.length - 1];"
                                   "axe.run(document).then(function (r) { done(r.violations); });")
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in res if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious_on_viewer_and_editor(drv, play_site, scheme):
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    try:
        found = {}
        viewer(drv, play_site)
        found["viewer"] = axe_serious(drv)
        viewer(drv, play_site, "?play=1")
        found["play"] = axe_serious(drv)
        drv.get((play_site / "experiences/editor/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        found["editor-start"] = axe_serious(drv)
        drv.find_element(By.ID, "xe-open-site").click()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "editing")
        found["editor"] = axe_serious(drv)
        drv.get((play_site / "experiences/index.html").as_uri())
        found["home"] = axe_serious(drv)
        for page in ("overview", "congratulations"):
            drv.get((play_site / f"experiences/checks/{page}/index.html").as_uri())
            found[page] = axe_serious(drv)
        assert not any(found.values()), found
    finally:
        drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_pinch_with_two_fingers_zooms_in_touch_emulation(play_site, tmp_path):
    d = make_driver(tmp_path, touch=True)
    try:
        viewer(d, play_site, "?play=1")
        r = d.execute_script("var r = document.getElementById('xp-stage').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];")
        cx, cy = r

        def touch(kind, spread):
            pts = [] if kind == "touchEnd" else [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]
            d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": pts})
        touch("touchStart", 60)
        for s in (80, 100, 120):
            touch("touchMove", s)
        touch("touchEnd", 0)
        # Fingers twice as far apart: the field of view halves, down to the 40° limit at most.
        wait(d, lambda x: x.find_element(By.ID, "xp-viewer").get_attribute("data-hfov") == "50.0")
    finally:
        d.quit()
