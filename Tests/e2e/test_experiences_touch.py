"""The experience editor with a finger on a phone (390×844, touch through the DevTools
protocol), in real headless Chromium from file:// (issue 32):

- a door placed by a tap at 10 %, 30 %, 50 % and 80 % of the picture's height: exactly one
  trigger more each time, no control of the panel that opens pressed by the same tap, the
  view (direction and zoom) and the page's scroll position unchanged;
- zoom by pinch and by the Closer/Wider buttons, within 40°…100°;
- undo and redo of every edit, step by step, back to the same experience;
- the draft: a reload reopens the same experience (with its pictures) and says so, and
  Discard the draft returns to the start with nothing kept;
- a project with an empty experiences folder builds, and its editor starts from nothing.
"""
import json
import re
import shutil
import subprocess

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402

from test_experiences_editor import MEDIA, build_site, make_driver, new_with_two_panoramas, stage_rect, wait  # noqa: E402

PHONE = (390, 844)


def phone(tmp_path):
    d = make_driver(tmp_path)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": True})
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return d


def touch(drv, kind, points):
    drv.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def tap(drv, x, y):
    touch(drv, "touchStart", [(x, y)])
    touch(drv, "touchEnd", [])


def drag(drv, x0, y0, x1, y1, steps=6):
    touch(drv, "touchStart", [(x0, y0)])
    for i in range(1, steps + 1):
        touch(drv, "touchMove", [(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)])
    touch(drv, "touchEnd", [])


def stage_state(drv):
    s = drv.find_element(By.ID, "xe-stage")
    return (s.get_attribute("data-yaw"), s.get_attribute("data-pitch"), s.get_attribute("data-hfov"),
            drv.execute_script("return Math.round(window.scrollY)"))


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    dentist = json.loads((MEDIA.parent / "dentist.json").read_text())
    return build_site(tmp_path_factory.mktemp("xe-touch"), dossier_bin, {"dentist.json": dentist})


def test_a_placing_tap_presses_nothing_else_and_keeps_the_view(site, tmp_path):
    drv = phone(tmp_path)
    try:
        new_with_two_panoramas(drv, site)
        # Presses that reach a control outside the picture (a swallowed click never gets here).
        drv.execute_script("""window.__pressed = [];
            document.addEventListener('click', function (e) {
              if (!document.getElementById('xe-stage').contains(e.target)) window.__pressed.push(e.target.closest('button,select,input,a,label') ? (e.target.closest('button,select,input,a,label').id || e.target.tagName) : e.target.tagName);
            });""")
        drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'start'})")
        r = stage_rect(drv, "xe-stage")
        # Turn the view away from the start, so a jump back to yaw 0, pitch 0 shows.
        drag(drv, r["x"] + r["w"] * 0.7, r["y"] + r["h"] * 0.5, r["x"] + r["w"] * 0.3, r["y"] + r["h"] * 0.6)
        for n, frac in enumerate([0.1, 0.3, 0.5, 0.8]):
            drv.find_element(By.ID, "xe-tool-door").click()
            drv.execute_script("window.__pressed = [];")
            r = stage_rect(drv, "xe-stage")
            before = stage_state(drv)
            assert before[0] not in (None, "0.00")
            x, y = r["x"] + r["w"] * (0.2 + 0.2 * n), r["y"] + r["h"] * frac
            tap(drv, x, y)
            wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-marker")) == n + 1)
            wait(drv, lambda d: d.find_elements(By.ID, "xe-trigger-target"))
            doc = drv.execute_script("return window.dossierEditor.serialize()")
            assert len(doc["panoramas"][0]["triggers"]) == n + 1, (frac, doc)
            assert drv.execute_script("return window.__pressed") == [], frac
            assert not drv.find_elements(By.CSS_SELECTOR, "dialog[open]"), frac
            assert stage_state(drv) == before, (frac, before, stage_state(drv))
            # The marker sits under the finger (the view did not move).
            m = drv.execute_script("var b = document.querySelector(\".xe-marker[data-index='%d']\").getBoundingClientRect();"
                                   "return [b.left + b.width / 2, b.top + b.height / 2]" % n)
            assert abs(m[0] - x) <= 1.5 and abs(m[1] - y) <= 1.5, (frac, m, x, y)
    finally:
        drv.quit()


def test_zoom_undo_redo_and_the_draft_after_a_reload(site, tmp_path):
    drv = phone(tmp_path)
    try:
        new_with_two_panoramas(drv, site)
        # A new experience restored nothing: no draft notice (its flex layout once showed it
        # anyway, saying "last change " with no time).
        assert not drv.find_element(By.ID, "xe-draft").is_displayed()
        stage = drv.find_element(By.ID, "xe-stage")
        drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'start'})")
        r = stage_rect(drv, "xe-stage")
        cx, cy = r["x"] + r["w"] / 2, r["y"] + r["h"] / 2
        # A pinch: fingers 60 → 120 px apart halves the field of view (100° → 50°).
        touch(drv, "touchStart", [(cx - 30, cy), (cx + 30, cy)])
        for k in range(1, 7):
            touch(drv, "touchMove", [(cx - 30 - 5 * k, cy), (cx + 30 + 5 * k, cy)])
        touch(drv, "touchEnd", [])
        assert abs(float(stage.get_attribute("data-hfov")) - 50) < 0.01
        drv.find_element(By.ID, "xe-zoom-in").click()
        assert stage.get_attribute("data-hfov") == "40.00"
        drv.find_element(By.ID, "xe-zoom-in").click()   # never closer than 40°
        assert stage.get_attribute("data-hfov") == "40.00"
        for _ in range(8):
            drv.find_element(By.ID, "xe-zoom-out").click()
        assert stage.get_attribute("data-hfov") == "100.00"
        assert len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker")) == 0   # zooming placed nothing

        states = [drv.execute_script("return window.dossierEditor.serialize()")]
        for n, kind in enumerate(["sound", "door", "video"]):
            drv.find_element(By.ID, f"xe-tool-{kind}").click()
            tap(drv, r["x"] + r["w"] * (0.25 + 0.25 * n), r["y"] + r["h"] * 0.4)
            wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-marker")) == n + 1)
            states.append(drv.execute_script("return window.dossierEditor.serialize()"))
        label = drv.find_element(By.ID, "xe-trigger-label")
        label.send_keys("!")
        states.append(drv.execute_script("return window.dossierEditor.serialize()"))
        assert states[-1]["panoramas"][0]["triggers"][2]["label"] == "Video 1!"
        # Undo every edit, one at a time, back to the start; then redo them all.
        for k in range(len(states) - 1, 0, -1):
            drv.find_element(By.ID, "xe-undo").click()
            assert drv.execute_script("return window.dossierEditor.serialize()") == states[k - 1], k
        for k in range(1, len(states)):
            drv.find_element(By.ID, "xe-redo").click()
            assert drv.execute_script("return window.dossierEditor.serialize()") == states[k], k
        assert drv.find_element(By.ID, "xe-redo").get_attribute("disabled") is not None

        # A reload: the same experience, its pictures, and a notice with a way to discard it.
        drv.refresh()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-draft") == "restored")
        assert drv.find_element(By.ID, "xe-draft").is_displayed()
        assert "restored your draft" in drv.find_element(By.ID, "xe-draft").text
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", drv.find_element(By.ID, "xe-draft-when").text)
        assert drv.execute_script("return window.dossierEditor.serialize()") == states[-1]
        wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")
        assert len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker")) == 3
        known = drv.execute_script("return window.dossierEditor.known()")
        assert set(known) >= {p["image"] for p in states[-1]["panoramas"]}
        drv.find_element(By.ID, "xe-draft-discard").click()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "start")
        drv.refresh()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        assert drv.find_element(By.ID, "xe").get_attribute("data-state") == "start"
        assert drv.execute_script("return localStorage.getItem('dossier.experiences.editor.draft')") is None
    finally:
        drv.quit()


def test_an_empty_experiences_folder_builds_and_the_editor_starts_from_nothing(tmp_path, dossier_bin):
    root = tmp_path / "empty"
    (root / "data" / "experiences").mkdir(parents=True)
    (root / "dossier.yml").write_text("title: Nothing yet\noutput: _site\nexperiences:\n  input: data/experiences\n")
    proc = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    home = (root / "_site" / "experiences" / "index.html").read_text()
    assert "No experiences yet" in home and "editor/index.html" in home
    drv = phone(tmp_path)
    try:
        drv.get((root / "_site" / "experiences" / "editor" / "index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        # Nothing to open: the start says so, with no empty list and no dead Open (issue 43).
        none = drv.find_element(By.ID, "xe-site-none")
        assert none.is_displayed() and none.text.startswith("No experiences yet")
        assert not drv.find_element(By.ID, "xe-open-site").is_displayed()
        assert not drv.find_element(By.ID, "xe-site-list").is_displayed()
        drv.find_element(By.ID, "xe-new").click()
        assert drv.find_element(By.ID, "xe").get_attribute("data-state") == "editing"
        assert drv.find_element(By.ID, "xe-title").get_attribute("value") == "experience 1"
    finally:
        drv.quit()


def test_opening_a_file_shows_every_error_that_validate_reports(tmp_path, dossier_bin, site):
    bad = json.loads((MEDIA.parent / "dentist.json").read_text())
    bad["colour"] = "blue"            # an unknown key
    bad["firstPanorama"] = "nowhere"  # not a panorama of the file
    shutil.copytree(MEDIA, tmp_path / "media")
    src = tmp_path / "bad-visit.json"
    src.write_text(json.dumps(bad, indent=2))
    proc = subprocess.run([dossier_bin, "experiences", "validate", str(src)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    # "FILE:LINE: message" for each error validate reports.
    messages = [l[len(str(src)) + 1:].split(": ", 1)[1] for l in proc.stderr.splitlines() if l.startswith(f"{src}:")]
    assert len(messages) == 2, proc.stderr
    drv = phone(tmp_path)
    try:
        drv.get((site / "experiences/editor/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        drv.find_element(By.ID, "xe-open-file").send_keys(str(src))
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "editing")
        shown = [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#xe-problems li")]
        for m in messages:
            assert any(m in s for s in shown), (m, shown)
    finally:
        drv.quit()


def soft_keys(drv, text):
    """Text as a phone's on-screen keyboard sends it: a keydown of keyCode 229 ("Unidentified")
    for each character, the text inserted by the keyboard, no key events with the letters."""
    for ch in text:
        drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Unidentified",
                                                        "windowsVirtualKeyCode": 229, "nativeVirtualKeyCode": 229})
        drv.execute_cdp_cmd("Input.insertText", {"text": ch})
        drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Unidentified",
                                                        "windowsVirtualKeyCode": 229, "nativeVirtualKeyCode": 229})


def test_a_phone_keyboard_and_an_input_method_type_into_the_editor(site, tmp_path):
    """Typed on a phone (keyCode 229 and inserted text, a composition ending in kana, a
    dash and a minus the stage's zoom keys must not take): the title and a trigger's label
    are what was typed, the view is not zoomed, and undo takes the label back a character
    at a time."""
    drv = phone(tmp_path)
    try:
        new_with_two_panoramas(drv, site)
        title = drv.find_element(By.ID, "xe-title")
        title.click()
        drv.execute_script("arguments[0].select()", title)
        soft_keys(drv, "Hall – a+b-c")
        drv.execute_cdp_cmd("Input.imeSetComposition", {"text": "か", "selectionStart": 1, "selectionEnd": 1})
        drv.execute_cdp_cmd("Input.insertText", {"text": "かな"})
        assert drv.execute_script("return window.dossierEditor.serialize()")["title"] == "Hall – a+b-cかな"
        drv.find_element(By.ID, "xe-tool-door").click()
        drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'start'})")
        r = stage_rect(drv, "xe-stage")
        tap(drv, r["x"] + r["w"] / 2, r["y"] + r["h"] * 0.4)
        wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-marker")) == 1)
        hfov = drv.find_element(By.ID, "xe-stage").get_attribute("data-hfov")
        label = drv.find_element(By.ID, "xe-trigger-label")
        before = drv.execute_script("return window.dossierEditor.serialize()")["panoramas"][0]["triggers"][0]["label"]
        label.click()
        soft_keys(drv, " +-=")
        doc = drv.execute_script("return window.dossierEditor.serialize()")
        assert doc["panoramas"][0]["triggers"][0]["label"] == before + " +-="
        assert drv.find_element(By.ID, "xe-stage").get_attribute("data-hfov") == hfov   # no zoom from the text
        for k in range(3, -1, -1):   # a step per change (docs/experience-editor.md): one per character
            drv.find_element(By.ID, "xe-undo").click()
            doc = drv.execute_script("return window.dossierEditor.serialize()")
            assert doc["panoramas"][0]["triggers"][0]["label"] == before + " +-="[:k]
    finally:
        drv.quit()
