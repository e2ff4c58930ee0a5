"""The game page as people use it (docs/game-kit.md): keyboard only; every screen
axe-clean at 1280×900 and 390×844, light and dark, without sideways scrolling (screenshots
in `$DOSSIER_SHOTS` or a temporary folder); sound obeys its toggle and reduced motion; the
page is self-contained; and bad kit keys in dossier.yml are refused with file and line."""
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from game_kit_driver import Player, fill_survey, obstacles, open_upload, screen, start_browser, wait_for  # noqa: E402
from page_checks import SIZES, axe_source, each_view, look, set_size, shots_folder  # noqa: E402


def build(tmp_path, run_dossier, extra=""):
    root = tmp_path / "study"
    (root / "keys").mkdir(parents=True)
    run_dossier("game", "keygen", "--out", root / "keys" / "study", "--bits", "2048")
    (root / "empty").mkdir()
    run_dossier("game", "ingest", "--key", root / "keys" / "study.key", root / "empty", "--db", root / "study.sqlite")
    (root / "dossier.yml").write_text("game:\n  database: study.sqlite\n  kit: true\n  public_key: keys/study.pub\n" + extra, encoding="utf-8")
    run_dossier("build", root)
    return root


def keys(d, *ks):
    a = ActionChains(d)
    for k in ks:
        a.send_keys(k)
    a.perform()


def test_keyboard_only_survey_and_game(tmp_path, run_dossier):
    root = build(tmp_path, run_dossier)
    html = (root / "_site" / "game" / "play" / "index.html").read_text(encoding="utf-8")
    assert "<script src" not in html and "<link" not in html and "http://" not in html.replace("http://www.w3.org", "")
    d = start_browser(tmp_path, mobile=False)
    try:
        d.get((root / "_site" / "game" / "play" / "index.html").as_uri() + "?seed=5")
        wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "the survey")
        # Tab into "diagnosed", arrow to "No", Tab to the age, type it, Tab to gender, Space, Tab to Continue, Enter.
        keys(d, Keys.TAB, Keys.ARROW_DOWN, Keys.TAB, "44", Keys.TAB, Keys.SPACE, Keys.TAB, Keys.ENTER)
        wait_for(d, "document.body.getAttribute('data-current') === 'home'", "home")
        assert d.execute_script("return document.activeElement.id") == "h-home"
        keys(d, Keys.TAB, Keys.ENTER)                      # Play is the first control
        wait_for(d, "document.body.getAttribute('data-current') === 'game'", "the game")
        assert d.execute_script("return document.activeElement.id") == "game-canvas"
        keys(d, Keys.SPACE)
        keys(d, "x")
        wait_for(d, "document.getElementById('score').textContent !== '0'", "the score to count")
        keys(d, Keys.ESCAPE)
        wait_for(d, "document.body.getAttribute('data-current') === 'over'", "game over")
        wait_for(d, "/^2 uploads are waiting/.test(document.getElementById('outbox-text').textContent)", "two uploads waiting")
    finally:
        d.quit()


SCREENS = ["survey", "home", "game", "over", "result", "settings", "players"]


def test_every_screen_is_accessible_in_both_schemes_and_sizes(tmp_path, run_dossier):
    root = build(tmp_path, run_dossier)
    shots = shots_folder(tmp_path / "shots")
    source = axe_source()
    d = start_browser(tmp_path, mobile=False)
    d.set_script_timeout(60)
    problems = []
    try:
        d.get((root / "_site" / "game" / "play" / "index.html").as_uri() + "?seed=11")
        wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "the survey")
        d.execute_script(source)
        seen = set()

        def check(name):
            seen.add(name)
            for scheme, w, h in each_view(d):
                d.execute_script("window.dispatchEvent(new Event('resize')); "
                                 "RM.draw.palette(document.getElementById('game-canvas'));")
                problems.extend(look(d, shots, f"game-kit-{name}", scheme, w, h))
            set_size(d, *SIZES[0])

        check("survey")
        d.find_element("id", "survey-done").click()                      # nothing answered: the first problem is shown
        assert "diagnosed" in d.find_element("id", "survey-error").text
        fill_survey(d, diagnosed=True, medicated=False, age=9, gender="male")
        check("home")
        p = Player(d, mobile=False)
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "no-preference"}]})
        p.play([1500.2], lambda i: "mouse", stop=4000.4, lead=1e9, ahead="auto")
        check("over")
        d.find_element("css selector", '[data-screen="over"] [data-action="home"]').click()
        d.find_element("css selector", '[data-screen="home"] [data-action="result"]').click()
        wait_for(d, "/no result/.test(document.getElementById('result-body').textContent)", "no result yet")
        check("result")
        d.find_element("css selector", '[data-screen="result"] [data-action="home"]').click()
        d.find_element("css selector", '[data-screen="home"] [data-action="settings"]').click()
        check("settings")
        d.find_element("css selector", '[data-screen="settings"] [data-action="switch-player"]').click()
        check("players")
        d.find_element("css selector", "#player-list button").click()
        wait_for(d, "document.body.getAttribute('data-current') === 'home'", "home")
        # The game screen, mid-game: jumps sent ahead clear 40 obstacles, so it runs while checked.
        t0 = p.now() + 300.2
        p.press_button('[data-screen="home"] [data-action="play"]', t0)
        wait_for(d, "document.body.getAttribute('data-current') === 'game'", "the game")
        for a in obstacles(12, 40):
            p.key(" ", "Space", 32, t0 + a[0] + 400.3, text=" ")
        d.execute_script("return new Promise(function (r) { setTimeout(r, 1200); })")
        check("game")
        assert screen(d) == "game"
    finally:
        d.quit()
    assert seen == set(SCREENS)
    assert not problems, "\n".join(problems[:40])


@pytest.mark.parametrize("reduced", [False, True])
def test_sound_obeys_the_toggle_and_reduced_motion(tmp_path, run_dossier, reduced):
    root = build(tmp_path, run_dossier)
    d = start_browser(tmp_path, mobile=False)
    try:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce" if reduced else "no-preference"}]})
        d.get((root / "_site" / "game" / "play" / "index.html").as_uri() + "?seed=3")
        wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "the survey")
        fill_survey(d, diagnosed=False, age=30, gender="female")
        toggle = d.find_element("css selector", '[data-screen="home"] [data-action="volume"]')
        assert toggle.get_attribute("aria-pressed") == ("false" if reduced else "true")
        p = Player(d, mobile=False)
        p.play([300.3, 1000.4], lambda i: "key", stop=1500.2, lead=1e9, ahead="auto")
        played = d.execute_script("return RM.sound.played()")
        assert played == (0 if reduced else 2)                 # two jumps, two sounds — or none
        d.find_element("css selector", '[data-screen="over"] [data-action="home"]').click()
        toggle.click()                                          # the player switches it
        assert toggle.get_attribute("aria-pressed") == ("true" if reduced else "false")
        p.play([300.3, 1000.4], lambda i: "key", stop=1500.2, lead=1e9, ahead="auto")
        assert d.execute_script("return RM.sound.played()") == played + (2 if reduced else 0)
    finally:
        d.quit()


@pytest.mark.parametrize("yml, line, message", [
    ("game:\n  database: study.sqlite\n  kit: true\n", 3, "kit: true needs public_key"),
    ("game:\n  database: study.sqlite\n  kit: true\n  public_key: keys/study.key\n", 4, "holds a private key"),
    ("game:\n  database: study.sqlite\n  kit: true\n  public_key: keys/none.pub\n", 4, "file not found"),
    ("game:\n  database: study.sqlite\n  kit: true\n  public_key: dossier.yml\n", 4, "not an RSA public key"),
    ("game:\n  database: study.sqlite\n  public_key: keys/study.pub\n", 3, "public_key needs kit: true"),
    ("game:\n  database: study.sqlite\n  kit: true\n  public_key: keys/study.pub\n  kit_upload: ftp://x/drop/\n", 5, "must be an https: URL"),
])
def test_bad_kit_keys_are_refused_with_file_and_line(tmp_path, run_dossier, yml, line, message):
    root = tmp_path / "study"
    (root / "keys").mkdir(parents=True)
    run_dossier("game", "keygen", "--out", root / "keys" / "study", "--bits", "2048")
    (root / "empty").mkdir()
    run_dossier("game", "ingest", "--key", root / "keys" / "study.key", root / "empty", "--db", root / "study.sqlite")
    (root / "dossier.yml").write_text(yml, encoding="utf-8")
    res = run_dossier("build", root, check=False)
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"dossier.yml:{line}" in res.stderr and message in res.stderr, res.stderr
    assert not (root / "_site").exists()
    secret = (root / "keys" / "study.key").read_text().splitlines()[1]
    assert secret not in res.stdout + res.stderr


def saved_files(d, folder, n):
    for _ in range(3000):          # waiting for downloads, not timing anything
        if len(list(folder.glob("*.rmu"))) >= n and not list(folder.glob("*.crdownload")):
            return sorted(folder.glob("*.rmu"), key=lambda f: f.stat().st_mtime_ns)
        d.execute_script("return new Promise(function (r) { setTimeout(r, 20); })")
    raise AssertionError(f"{n} saved uploads expected")


def test_not_now_sends_an_incomplete_survey_and_asks_again(tmp_path, run_dossier):
    """Seed 4.1 with 7.4: an unfinished survey is sent (complete: false, invalid answers
    left out), never stored, and offered again at the next launch; ingest then keeps the
    complete one."""
    root = build(tmp_path, run_dossier)
    saved = tmp_path / "saved"
    saved.mkdir()
    d = start_browser(saved, mobile=True)
    page = (root / "_site" / "game" / "play" / "index.html").as_uri()
    try:
        d.get(page)
        wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "the survey")
        d.find_element("css selector", "input[name=diagnosed][value=no]").click()
        d.find_element("id", "age").send_keys("130")                       # out of range: left out
        d.find_element("css selector", '[data-action="survey-later"]').click()
        wait_for(d, "/^1 upload is waiting/.test(document.getElementById('outbox-text').textContent)", "the upload")
        d.find_element("css selector", '[data-screen="home"] [data-action="save"]').click()
        saved_files(d, saved, 1)
        d.get(page)                                                         # the next launch asks again
        wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "the survey again")
        d.find_element("id", "survey-done").click()
        assert "diagnosed" in d.find_element("id", "survey-error").text    # no answer was kept
        fill_survey(d, diagnosed=True, medicated=False, age=12, gender="female")
        wait_for(d, "/^1 upload is waiting/.test(document.getElementById('outbox-text').textContent)", "the upload")
        d.find_element("css selector", '[data-screen="home"] [data-action="save"]').click()
        files = saved_files(d, saved, 2)
        d.get(page)
        wait_for(d, "document.body.getAttribute('data-current') === 'home'", "home: the survey is complete")
    finally:
        d.quit()
    key = (root / "keys" / "study.key").read_bytes()
    (dev1, first), (dev2, second) = (open_upload(f.read_bytes(), key) for f in files)
    assert dev1["player"] == dev2["player"] and dev1["signing_key"] == dev2["signing_key"]
    assert first == [{"type": "survey", "player": dev1["player"], "complete": False, "diagnosed": False}]
    assert second == [{"type": "survey", "player": dev1["player"], "complete": True, "diagnosed": True, "medicated": False,
                       "age": 12, "gender": "female"}]
    res = run_dossier("game", "ingest", "--key", root / "keys" / "study.key", saved, "--db", root / "study.sqlite")
    assert "2 stored" in res.stdout, res.stdout
