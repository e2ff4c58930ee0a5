"""The viewer's "Clips played x of y" line (docs/experience-viewer.md, Progress), in real
headless Chromium from file://, light and dark: it reads in the ink colour while nothing
has been played ("0 of 0" included) and turns the success green only when every clip
has been played.
"""
import pytest

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402

from test_experiences_editor import build_site, hall_and_garden, make_driver, wait  # noqa: E402

# The clips are in the first panorama; the final one has only a note, so playing them all
# does not leave for the congratulations page (it waits for "I am finished").
TOUR = hall_and_garden("Two sounds",
                       {"id": "s2", "kind": "sound", "yaw": 0, "pitch": 0, "label": "Again", "media": "media/hello.wav"})
QUIET = {
    "title": "Nothing to play",
    "panoramas": [
        {"id": "a", "title": "Hall", "image": "media/hall.jpg", "triggers": [
            {"id": "n1", "kind": "note", "yaw": 0, "pitch": 0, "label": "Sign", "text": "Please wait here."},
        ]},
    ],
}


@pytest.fixture(scope="module")
def site(tmp_path_factory, dossier_bin):
    return build_site(tmp_path_factory.mktemp("xp-progress"), dossier_bin, {"tour.json": TOUR, "quiet.json": QUIET})


def viewer(drv, name):
    return drv.find_element(By.ID, "xp-viewer").get_attribute(name)


def press(drv, trigger):
    """A real click (a user gesture, so the sound may play) on the trigger's list button."""
    drv.find_element(By.CSS_SELECTOR, f"#xp-list [data-trigger='{trigger}']").click()


def colours(drv):
    """The progress line's colour, the viewer's ink and the scheme's success green, all
    as the browser resolves them."""
    return drv.execute_script("""
        var probe = document.createElement('span');
        probe.style.color = 'var(--xp-good)';
        document.getElementById('xp-viewer').appendChild(probe);
        var good = getComputedStyle(probe).color;
        probe.remove();
        return {progress: getComputedStyle(document.getElementById('xp-progress')).color,
                ink: getComputedStyle(document.getElementById('xp-viewer')).color, good: good};""")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_progress_is_green_only_when_every_clip_was_played(site, tmp_path, scheme):
    drv = make_driver(tmp_path)
    try:
        drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        drv.get((site / "experiences/quiet/index.html").as_uri())
        wait(drv, lambda d: viewer(d, "data-ready") == "true")
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 0 of 0"
        c = colours(drv)
        assert c["good"] != c["ink"], c          # the two colours can be told apart at all
        assert c["progress"] == c["ink"], c      # 0 of 0 is not a success

        drv.get((site / "experiences/tour/index.html").as_uri())
        wait(drv, lambda d: viewer(d, "data-ready") == "true")
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 0 of 2"
        c = colours(drv)
        assert c["progress"] == c["ink"], c
        press(drv, "s1")
        wait(drv, lambda d: viewer(d, "data-played") == "1", timeout=20)
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 1 of 2"
        c = colours(drv)
        assert c["progress"] == c["ink"], c      # on the way: not yet a success
        press(drv, "s2")
        wait(drv, lambda d: viewer(d, "data-played") == "2", timeout=20)
        assert drv.find_element(By.ID, "xp-progress").text == "Clips played 2 of 2"
        c = colours(drv)
        assert c["progress"] == c["good"], c
    finally:
        drv.quit()
