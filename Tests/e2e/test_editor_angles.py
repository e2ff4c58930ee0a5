"""The experience editor shows angles to a person with U+2212 for a negative one
("Sound at −45°, 0°"; docs/experience-editor.md), while the file keeps plain numbers.
Real headless Chromium from file://, on a small tour with a trigger on the left.
"""
import re

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402

from test_experiences_checks import open_site_experience  # noqa: E402
from test_experiences_editor import build_site, make_driver, wait  # noqa: E402
from test_experiences_keyboard import TOUR  # noqa: E402   (a sound at −20°, a note at 0°, a door at 20°)


MINUS = "\u2212"


def select(drv, marker):
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'});"
                       "arguments[0].dispatchEvent(new PointerEvent('pointerdown', {bubbles: true, pointerId: 7, button: 0}));"
                       "arguments[0].dispatchEvent(new PointerEvent('pointerup', {bubbles: true, pointerId: 7, button: 0}));", marker)


@pytest.fixture(scope="module")
def editor_page(tmp_path_factory, dossier_bin):
    return build_site(tmp_path_factory.mktemp("xe-angles"), dossier_bin, {"tour.json": TOUR})


def test_negative_angles_read_with_the_minus_sign(editor_page, tmp_path):
    drv = make_driver(tmp_path)
    try:
        open_site_experience(drv, (editor_page / "experiences/editor/index.html").as_uri())
        headings, yaws = [], []
        for i in range(len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker"))):
            marker = drv.find_elements(By.CSS_SELECTOR, ".xe-marker")[i]
            index = marker.get_attribute("data-index")
            select(drv, marker)
            wait(drv, lambda d: d.find_element(By.ID, "xe-trigger").get_attribute("data-kind") in ("sound", "video", "door", "note"))
            headings.append(drv.find_element(By.CSS_SELECTOR, "#xe-trigger h3").text)
            doc = drv.execute_script("return window.dossierEditor.serialize();")
            yaws.append(doc["panoramas"][0]["triggers"][int(index)]["yaw"])
        assert any(y < 0 for y in yaws), yaws                      # the check saw a negative angle
        assert not [h for h in headings if re.search(r"(?<![\w])-\d", h)], headings
        assert [h.split(" at ")[0] for h in headings] == ["Sound", "Note", "Door"]   # every kind named (a note read "undefined")
        for h, y in zip(headings, yaws):
            sign = MINUS if y < 0 else ""
            assert f" at {sign}{abs(y):g}°" in h, (h, y)
    finally:
        drv.quit()
