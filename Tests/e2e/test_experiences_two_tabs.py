"""The experience editor open in two tabs of one browser, which share one draft
(docs/experience-editor.md, "Two tabs"), in real headless Chromium from file://.

Tab A edits an experience; tab B, opened later, reopens that draft and discards it (as
New, Open or Save would): A's unsaved work becomes the draft again, pictures included, so
a reload of A still finds it. Then B starts an experience of its own and edits it: A says
that the draft is now the other tab's. Before, B's discard deleted A's draft and its
pictures without a word.
"""
import json

import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402

from page_checks import axe_source, each_view, look, shots_folder  # noqa: E402
from test_experiences_editor import MEDIA, build_site, make_driver, new_with_two_panoramas, wait  # noqa: E402

KEY = "dossier.experiences.editor.draft"


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    dentist = json.loads((MEDIA.parent / "dentist.json").read_text())
    return build_site(tmp_path_factory.mktemp("xe-tabs"), dossier_bin, {"dentist.json": dentist})


def draft_title(drv):
    """The title of the experience the draft holds (None: no draft)."""
    text = drv.execute_script(f"return localStorage.getItem('{KEY}')")
    return json.loads(json.loads(text)["state"])["doc"]["title"] if text else None


def retitle(drv, text):
    """Replaces the experience's title by typing `text` over it; returns the title."""
    field = drv.find_element(By.ID, "xe-title")
    drv.execute_script("arguments[0].select()", field)
    field.send_keys(text)
    return field.get_attribute("value")


def hold_media_store(drv):
    """Holds a readwrite transaction on the editor's media store open in this tab (by
    asking for a key again each time the last answer comes) until `releaseMediaStore()`:
    every other write to the store, in any tab, waits behind it. Returns once it is held."""
    drv.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const rq = indexedDB.open("dossier-experiences-editor", 1);
        rq.onsuccess = () => {
          const db = rq.result, store = db.transaction("media", "readwrite").objectStore("media");
          let held = true;
          window.releaseMediaStore = () => { held = false; };
          const again = () => { if (held) store.get("none").onsuccess = again; else db.close(); };
          again();
          done();
        };""")


def test_a_second_tab_never_takes_the_first_tabs_draft_away(site, tmp_path):
    drv = make_driver(tmp_path)
    try:
        new_with_two_panoramas(drv, site)
        a = drv.current_window_handle
        mine = retitle(drv, "Tab A's tour")
        assert draft_title(drv) == mine == "Tab A's tour"
        images = {p["image"] for p in drv.execute_script("return window.dossierEditor.serialize()")["panoramas"]}
        assert not drv.find_element(By.ID, "xe-other-tab").is_displayed()

        drv.switch_to.new_window("tab")
        b = drv.current_window_handle
        drv.get((site / "experiences/editor/index.html").as_uri())
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-draft") == "restored")
        # Reopening the draft already started B afresh: it emptied the media store once and A
        # put its pictures back ("kept"). Wait for that round to end and forget its mark, so
        # the "kept" awaited below is the one after B's discard (the CI run of 3a31535 read
        # the stale one and reloaded A before the discard's clear was done).
        drv.switch_to.window(a)
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-draft-media") == "kept")
        drv.execute_script("document.getElementById('xe').removeAttribute('data-draft-media')")
        drv.switch_to.window(b)
        hold_media_store(drv)   # B's clear of the media store waits until released
        drv.find_element(By.ID, "xe-draft-discard").click()   # B deletes the draft
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-state") == "start")

        drv.switch_to.window(a)   # A's unsaved work is the draft again, at once
        wait(drv, lambda d: draft_title(d) == mine)
        # Its pictures go back only once B's clear of the media store is done: a reload
        # before then would find the draft without them (the CI run of bceb43d did, once).
        assert drv.find_element(By.ID, "xe").get_attribute("data-draft-media") is None
        drv.switch_to.window(b)
        drv.execute_script("window.releaseMediaStore()")
        drv.switch_to.window(a)
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-draft-media") == "kept")
        drv.refresh()
        wait(drv, lambda d: d.find_element(By.ID, "xe").get_attribute("data-draft") == "restored")
        assert drv.find_element(By.ID, "xe-title").get_attribute("value") == mine
        wait(drv, lambda d: d.find_element(By.ID, "xe-stage").get_attribute("data-ready") == "true")
        known = drv.execute_script("return window.dossierEditor.known()")
        assert images <= set(known)   # its pictures came back too

        drv.switch_to.window(b)   # B (at the start) makes its own experience and edits it
        drv.find_element(By.ID, "xe-new").click()
        drv.find_element(By.ID, "xe-add-pano").send_keys(str(MEDIA / "hall.jpg"))
        wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".xe-pano")) == 1)
        theirs = retitle(drv, "Tab B's tour")
        drv.switch_to.window(a)
        wait(drv, lambda d: d.find_element(By.ID, "xe-other-tab").is_displayed())
        assert draft_title(drv) == theirs != mine
        assert "another tab" in drv.find_element(By.ID, "xe-other-tab").text
        # As a person sees the notice: screenshots light and dark, desktop and phone; axe.
        drv.execute_script(axe_source())
        shots, problems = shots_folder(tmp_path / "shots"), []
        for scheme, w, h in each_view(drv):
            drv.execute_script("document.getElementById('xe-other-tab').scrollIntoView({block: 'center'})")
            problems += look(drv, shots, "editor-other-tab", scheme, w, h)
        assert not problems, problems
        assert retitle(drv, "Tab A again") == draft_title(drv)   # A's next edit takes the draft back
    finally:
        drv.quit()
