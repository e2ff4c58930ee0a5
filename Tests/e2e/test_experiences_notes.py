"""A text note made in the editor on a phone (issue 43, item 4), in real headless Chromium
from file:// at 390×844 with touch (the DevTools protocol's touch events):

Place a note by touch, type its text, undo and redo both steps, reload (the draft comes
back), save (the zip made in the page), unzip into a project, build with `dossier build`,
and open the viewer: the note's card shows the text, and the note is not a clip
(docs/experience-format.md, Notes: "Clips played 0 of 0", 0 clips on the overview).
"""
import json
import re
import subprocess
import time
import zipfile

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402

from test_experiences_editor import MEDIA, build_site, stage_rect, wait  # noqa: E402
from test_experiences_touch import phone, tap  # noqa: E402

TEXT = "This is where you wait. Sam waits here too."


def tap_element(drv, element_id):
    """A finger on the middle of the element, scrolled into view first."""
    drv.execute_script("document.getElementById(arguments[0]).scrollIntoView({block: 'center'})", element_id)
    r = stage_rect(drv, element_id)
    tap(drv, r["x"] + r["w"] / 2, r["y"] + r["h"] / 2)


def doc(drv):
    return drv.execute_script("return window.dossierEditor.serialize()")


def problems(drv):
    return [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#xe-problems li")]


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    dentist = json.loads((MEDIA.parent / "dentist.json").read_text())
    return build_site(tmp_path_factory.mktemp("xe-notes"), dossier_bin, {"dentist.json": dentist})


def test_a_note_placed_by_touch_undone_redone_restored_saved_built_and_viewed(site, dossier_bin, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    drv = phone(downloads)
    try:
        drv.get((site / "experiences/editor/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-editor") == "ready")
        tap_element(drv, "xe-new")
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "editing")
        drv.find_element(By.ID, "xe-add-pano").send_keys(str(MEDIA / "waiting.jpg"))
        wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")
        empty = doc(drv)

        # Place a note: the tool, then a tap on the picture.
        tap_element(drv, "xe-tool-note")
        assert drv.find_element(By.ID, "xe-tool-note").get_attribute("aria-pressed") == "true"
        assert drv.find_element(By.ID, "xe-stage").get_attribute("data-tool") == "note"
        drv.execute_script("document.getElementById('xe-stage').scrollIntoView({block: 'start'})")
        r = stage_rect(drv, "xe-stage")
        tap(drv, r["x"] + r["w"] * 0.4, r["y"] + r["h"] * 0.5)
        wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-marker[data-kind='note']")) == 1)
        panel = drv.find_element(By.ID, "xe-trigger")
        assert panel.get_attribute("data-kind") == "note"
        assert panel.find_element(By.TAG_NAME, "h3").text.startswith("Note at ")
        assert drv.execute_script("return document.activeElement.id") == "xe-trigger-text"
        # Validation as for a sound without its file: an error until the text is given.
        assert drv.find_element(By.ID, "xe").get_attribute("data-errors") == "1"
        assert 'note "Note 1" needs a text of 1 to 500 characters' in problems(drv)
        placed = doc(drv)
        assert placed["panoramas"][0]["triggers"] == [
            {"id": "t1", "kind": "note", "yaw": placed["panoramas"][0]["triggers"][0]["yaw"],
             "pitch": placed["panoramas"][0]["triggers"][0]["pitch"], "label": "Note 1"}]

        # The text, as a phone keyboard commits it (one input event).
        drv.execute_script("var t = document.getElementById('xe-trigger-text'); t.value = arguments[0];"
                           "t.dispatchEvent(new Event('input', {bubbles: true}));", TEXT)
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-errors") == "0")
        assert drv.find_element(By.ID, "xe-trigger-text-count").text == f"{len(TEXT)} of 500 characters"
        written = doc(drv)
        assert written["panoramas"][0]["triggers"][0]["text"] == TEXT

        # Undo both steps by touch, then redo them.
        for expected in (placed, empty):
            tap_element(drv, "xe-undo")
            assert doc(drv) == expected
        assert not drv.find_elements(By.CSS_SELECTOR, ".xe-marker")
        for expected in (placed, written):
            tap_element(drv, "xe-redo")
            assert doc(drv) == expected
        assert len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker[data-kind='note']")) == 1

        # A reload brings the draft back, note and all.
        drv.refresh()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-draft") == "restored")
        assert doc(drv) == written
        wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")
        assert len(drv.find_elements(By.CSS_SELECTOR, ".xe-marker[data-kind='note']")) == 1
        assert drv.find_element(By.ID, "xe-trigger-text").get_attribute("value") == TEXT
        assert not [m for m in problems(drv) if "In the file as opened" in m]   # a new experience's draft

        # Save: the zip holds the experience and its picture.
        tap_element(drv, "xe-save")
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-saved") == "experience-1.zip")
        deadline = time.monotonic() + 15
        while not (downloads / "experience-1.zip").exists() and time.monotonic() < deadline:
            time.sleep(0.05)   # polling for the download to appear, not waiting for a time
        project = tmp_path / "project"
        data = project / "data" / "experiences"
        data.mkdir(parents=True)
        with zipfile.ZipFile(downloads / "experience-1.zip") as z:
            assert sorted(z.namelist()) == ["experience-1.json", "media/experience-1/waiting.jpg"]
            z.extractall(data)
        assert json.loads((data / "experience-1.json").read_text())["panoramas"][0]["triggers"][0]["text"] == TEXT
        (project / "dossier.yml").write_text("title: Notes\noutput: _site\nexperiences:\n  input: data/experiences\n")
        proc = subprocess.run([dossier_bin, "build", str(project)], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr

        # The viewer shows the note's card; a note is not a clip.
        drv.get((project / "_site/experiences/experience-1/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xp-viewer").get_attribute("data-ready") == "true")
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 0 of 0"
        spot = drv.find_element(By.CSS_SELECTOR, "#xp-hotspots [data-trigger='t1']")
        drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", spot)
        b = drv.execute_script("var r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]", spot)
        tap(drv, b[0], b[1])
        wait(drv, lambda d: d.find_element(By.ID, "xp-note").get_attribute("open") is not None)
        assert drv.find_element(By.ID, "xp-note-title").text == "Note 1"
        assert drv.find_element(By.ID, "xp-note-text").text == TEXT
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 0 of 0"
    finally:
        drv.quit()
    overview = (project / "_site/experiences/experience-1/overview/index.html").read_text()
    assert re.search(r'<td class="num">0</td>', overview) and "0 clips in all" in overview
