"""The phone and tablet pages of issue 32 — the recall kit, the experience editor and the
viewer's play mode — at 390×844 and 820×1180 with touch, in the light and the dark
scheme: axe-core reports no serious or critical violation, the page does not scroll
sideways, and a screenshot of each is saved into a folder the test prints
(`$DOSSIER_SHOTS`, else a temporary folder; docs/screenshots/ holds the committed ones)."""
import os
import pathlib

import pytest

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402

from page_checks import axe_source, run_axe  # noqa: E402
from test_experiences_editor import MEDIA, build_site, make_driver, wait  # noqa: E402
from test_experiences_keyboard import TOUR  # noqa: E402

SIZES = [(390, 844), (820, 1180)]
SCHEMES = ["light", "dark"]


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    root = tmp_path_factory.mktemp("touch-screens")
    (root / "data").mkdir()
    (root / "data" / "strings.txt").write_text("\n".join(["Ab1x9q", "Qz 2", "k9Wm", "😀🎉x", "m👍🏽Pa", "Mö3d", "c8Nq", "t5 E", "W2r👋", "h6gJ"]) + "\n")
    (root / "data" / "logs").mkdir()
    site = build_site(root, dossier_bin, {"tour.json": TOUR})
    (root / "dossier.yml").write_text(
        "title: Touch screens\noutput: _site\nexperiences:\n  input: data/experiences\n"
        "recall:\n  strings: data/strings.txt\n  logs: data/logs\n  kit: true\n")
    import subprocess
    p = subprocess.run([dossier_bin, "build", str(root)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return site


def tap_at(drv, x, y):
    for kind, pts in (("touchStart", [{"x": x, "y": y}]), ("touchEnd", [])):
        drv.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": pts})


def open_kit(drv, site):
    drv.get((site / "recall/kit/index.html").as_uri())
    drv.execute_script("localStorage.clear()")
    drv.refresh()
    drv.find_element(By.ID, "participant").send_keys("P-01")
    drv.find_element(By.ID, "welcome-done").click()
    drv.find_element(By.ID, "begin").click()
    drv.find_element(By.ID, "memorize-next").click()
    drv.find_element(By.ID, "verify-field").send_keys("Ab1x9z")
    drv.find_element(By.ID, "verify").click()
    wait(drv, lambda d: d.find_element(By.ID, "verify-message").text == "Not OK")


def open_editor(drv, site):
    # The drafts are cleared from another page: the editor writes its draft again as it
    # is left, a refresh too, so a draft from an earlier test would come back.
    drv.get((site / "index.html").as_uri())
    drv.execute_script("localStorage.clear()")
    drv.get((site / "experiences/editor/index.html").as_uri())
    wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
    drv.find_element(By.ID, "xe-new").click()
    drv.find_element(By.ID, "xe-add-pano").send_keys(f"{MEDIA / 'hall.jpg'}")
    wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")
    drv.find_element(By.ID, "xe-tool-sound").click()
    drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'start'})")
    r = drv.execute_script("var r = document.getElementById('xe-stage').getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")
    tap_at(drv, r[0] + r[2] * 0.4, r[1] + r[3] * 0.5)
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, ".xe-marker"))


def open_play(drv, site):
    drv.get((site / "experiences/tour/index.html").as_uri() + "?play=1")
    wait(drv, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-ready") == "true")


PAGES = {"recall-kit": open_kit, "experience-editor": open_editor, "experience-play": open_play}


def test_kit_editor_and_play_mode_on_phones_and_tablets(site, tmp_path_factory):
    shots = pathlib.Path(os.environ.get("DOSSIER_SHOTS") or tmp_path_factory.mktemp("shots"))
    shots.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {shots}")
    source = axe_source()
    drv = make_driver(tmp_path_factory.mktemp("dl"))
    drv.set_script_timeout(60)
    problems = []
    try:
        for w, h in SIZES:
            drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": True})
            drv.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
            for name, open_page in PAGES.items():
                open_page(drv, site)
                for scheme in SCHEMES:
                    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                    drv.execute_script(source)
                    for v in run_axe(drv):
                        problems.append((name, w, scheme, v))
                    wide = drv.execute_script("return document.documentElement.scrollWidth - innerWidth")
                    if wide > 1:
                        problems.append((name, w, scheme, f"scrolls sideways by {wide} px"))
                    drv.save_screenshot(str(shots / f"{name}-{w}-{scheme}.png"))
    finally:
        drv.quit()
    assert not problems, problems
