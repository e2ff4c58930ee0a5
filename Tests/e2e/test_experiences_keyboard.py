"""The viewer for a child, by keyboard alone and with a screen reader (issue 32), in real
headless Chromium from file://:

- play mode: Tab from the top of the page reaches the triggers first, every stop is
  visible and inside the viewer (nothing hidden under it), and Enter presses every
  trigger: a sound plays to its end, a note opens and closes, a door leads on;
- notes are not clips: an unread note does not hold the child in a panorama, and a final
  panorama with only a note can be finished (I am finished);
- one announcement per trigger: each trigger is one button in the accessibility tree
  (Chrome DevTools Protocol `Accessibility.getFullAXTree`), in the list view and in play mode;
- an imported Pannellum tour whose hot spots are info hot spots (notes) can be finished,
  and the importer warns about the hot spot whose yaw it had to guess.
"""
import json
import subprocess

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from test_experiences_editor import build_site, hall_and_garden, make_driver, wait  # noqa: E402

TOUR = hall_and_garden("Keyboard tour",
                       {"id": "n1", "kind": "note", "yaw": 0, "pitch": 10, "label": "Sign", "text": "Please wait here."})


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    return build_site(tmp_path_factory.mktemp("xp-keys"), dossier_bin, {"tour.json": TOUR})


def key(drv, k):
    drv.switch_to.active_element.send_keys(k)


def active(drv):
    return drv.execute_script("""var e = document.activeElement, r = e.getBoundingClientRect();
        return {trigger: e.getAttribute('data-trigger'), id: e.id, inViewer: !!e.closest('#xp-viewer'),
                shown: r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth
                       && getComputedStyle(e).visibility !== 'hidden',
                hit: (function () { var h = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return !!h && (h === e || e.contains(h)); })()};""")


def tab_to(drv, trigger, limit=20, back=False):
    shift = {"modifiers": 8} if back else {}
    for _ in range(limit):
        drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, **shift})
        drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, **shift})
        a = active(drv)
        assert a["inViewer"] and a["shown"] and a["hit"], a   # every stop visible, on top, inside the viewer
        if a["trigger"] == trigger or a["id"] == trigger:
            return
    raise AssertionError(f"Tab never reached {trigger}")


def enter(drv):
    drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"})
    drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13})


def attr(drv, name):
    return drv.find_element(By.ID, "xp-viewer").get_attribute(name)


@pytest.mark.parametrize("size", [(390, 844), (1280, 900)], ids=["phone", "desktop"])
def test_play_mode_by_keyboard_alone_presses_every_trigger_and_finishes(site, tmp_path, size):
    drv = make_driver(tmp_path)
    try:
        drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 500})
        drv.get((site / "experiences/tour/index.html").as_uri() + "?play=1")
        wait(drv, lambda d: attr(d, "data-ready") == "true")
        # The first Tab stop of the page is a trigger.
        drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9})
        first = active(drv)
        assert first["trigger"] in ("s1", "n1", "d1"), first
        assert first["shown"] and first["hit"], first
        drv.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9})
        # The sound, played to its end.
        if first["trigger"] != "s1":
            tab_to(drv, "s1")
        enter(drv)
        wait(drv, lambda d: attr(d, "data-played") == "1", timeout=20)
        # The note: opens, Enter on Close closes it, focus back on the note.
        tab_to(drv, "n1")
        enter(drv)
        wait(drv, lambda d: d.find_element(By.ID, "xp-note").get_attribute("open") is not None)
        enter(drv)
        wait(drv, lambda d: d.find_element(By.ID, "xp-note").get_attribute("open") is None)
        assert active(drv)["trigger"] == "n1"
        # Every clip here is played: the door leads on at once (an unread note holds nobody).
        tab_to(drv, "d1")
        enter(drv)
        wait(drv, lambda d: attr(d, "data-panorama") == "b" and attr(d, "data-ready") == "true")
        assert not drv.find_elements(By.CSS_SELECTOR, "dialog[open]")
        # The final panorama has only a note: read it, then I am finished.
        tab_to(drv, "n2")
        enter(drv)
        wait(drv, lambda d: d.find_element(By.ID, "xp-note").get_attribute("open") is not None)
        enter(drv)
        wait(drv, lambda d: d.find_element(By.ID, "xp-note").get_attribute("open") is None)
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 1 of 1"
        # Show the list and back by keyboard: the focus stays on the button that was pressed.
        tab_to(drv, "xp-play")
        enter(drv)
        wait(drv, lambda d: attr(d, "data-play") == "false")
        assert active(drv)["id"] == "xp-play"
        enter(drv)
        wait(drv, lambda d: attr(d, "data-play") == "true")
        assert active(drv)["id"] == "xp-play"
        tab_to(drv, "xp-finish", back=True)     # Shift+Tab: the bar comes after the view
        enter(drv)
        wait(drv, lambda d: "congratulations" in d.current_url)
    finally:
        drv.quit()


def ax_buttons(drv, label):
    tree = drv.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    return [n for n in tree if not n.get("ignored") and n.get("role", {}).get("value") == "button"
            and label in str(n.get("name", {}).get("value", ""))]


def test_each_trigger_is_one_button_for_a_screen_reader(site, tmp_path):
    drv = make_driver(tmp_path)
    try:
        drv.execute_cdp_cmd("Accessibility.enable", {})
        for query in ("", "?play=1"):
            drv.get((site / "experiences/tour/index.html").as_uri() + query)
            wait(drv, lambda d: attr(d, "data-ready") == "true")
            for label in ("Hello", "Sign", "To the garden"):
                assert len(ax_buttons(drv, label)) == 1, (query, label, ax_buttons(drv, label))
    finally:
        drv.quit()


PANNELLUM = {
    "default": {"firstScene": "lobby"},
    "scenes": {
        "lobby": {"title": "Lobby", "panorama": "media/hall.jpg", "hotSpots": [
            {"type": "info", "text": "Welcome desk", "pitch": 2, "yaw": "abc"},
            {"type": "scene", "text": "To the pond", "sceneId": "pond", "pitch": 0, "yaw": 40},
        ]},
        "pond": {"title": "Pond", "panorama": "media/park-pond.jpg", "hotSpots": [
            {"type": "info", "text": "Ducks", "pitch": 0, "yaw": 10},
        ]},
    },
}


def test_an_imported_tour_with_info_hot_spots_can_be_finished(tmp_path, dossier_bin):
    src = tmp_path / "tour-pannellum.json"
    src.write_text(json.dumps(PANNELLUM, indent=1))
    out = tmp_path / "imported.json"
    proc = subprocess.run([dossier_bin, "experiences", "import", "pannellum", str(src), "--output", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(i for i, l in enumerate(src.read_text().splitlines(), 1) if '"abc"' in l)
    assert f'{src}:{line}: ' in proc.stderr and 'yaw is "abc", not a number; 0 was used' in proc.stderr, proc.stderr
    tour = json.loads(out.read_text())
    assert [t["kind"] for t in tour["panoramas"][1]["triggers"]] == ["note"]
    site = build_site(tmp_path / "project", dossier_bin, {"imported.json": tour})
    drv = make_driver(tmp_path)
    try:
        drv.get((site / "experiences/imported/index.html").as_uri() + "?play=1")
        wait(drv, lambda d: attr(d, "data-ready") == "true")
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 0 of 0"
        drv.find_element(By.CSS_SELECTOR, "#xp-hotspots [data-kind='door']").click()
        wait(drv, lambda d: attr(d, "data-panorama") == "pond" and attr(d, "data-ready") == "true")
        assert not drv.find_elements(By.CSS_SELECTOR, "dialog[open]")   # the unread note held nobody
        finish = drv.find_element(By.ID, "xp-finish")
        assert finish.is_displayed()
        finish.click()
        wait(drv, lambda d: "congratulations" in d.current_url)
    finally:
        drv.quit()
