"""The game page open in two tabs of one browser (docs/game-kit.md, "Privacy: what the browser
keeps"), in real headless Chromium from file://, by a schedule, never by luck:

1. Both tabs load before either has a player; tab A's key generation is held (a script
   the test puts into A before the page's own), so B makes the device's first player
   while A waits; then A goes on. One device, one player: A uses B's player.
2. Both tabs now show that player. A plays a game, then B plays one: each game takes the
   next session number from what is stored, not from what its tab read at load.

Every upload is then ingested: all stored, none rejected. Before, A made a second
"Player 1", and B's game reused A's session number, so ingest rejected it as different
data for a stored session: the game was lost.
"""
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from game_kit_driver import Player, fill_survey, open_upload, screen, start_browser, wait_for  # noqa: E402
from test_game_kit import dav, make_study  # noqa: E402,F401  (dav is a fixture)

HOLD_KEYS = """
window.__held = null;
var generate = crypto.subtle.generateKey.bind(crypto.subtle);
crypto.subtle.generateKey = function (alg, ext, uses) {
  if (!(alg && alg.name === "Ed25519") || window.__released) return generate(alg, ext, uses);
  return new Promise(function (go) { window.__held = go; }).then(function () { return generate(alg, ext, uses); });
};
"""
PLAYERS = """
var done = arguments[arguments.length - 1];
var req = indexedDB.open("rocketmouse", 1);
req.onsuccess = function () {
  var g = req.result.transaction("players", "readonly").objectStore("players").getAll();
  g.onsuccess = function () { done(g.result.map(function (p) { return [p.id, p.n, p.nextSession]; })); };
};
"""


def quick_game(d, p):
    """Starts a game from the current screen and stops it with Escape."""
    current = screen(d)
    t0 = p.now() + 300.37
    p.press_button(f'section[data-screen="{current}"] [data-action="play"]', t0)
    wait_for(d, "document.body.getAttribute('data-current') === 'game'", "the game")
    p.wait_clock(t0 + 400)
    p.key("Escape", "Escape", 27, p.now() + 5)
    wait_for(d, "document.body.getAttribute('data-current') === 'over'", "game over")


def test_two_tabs_are_one_player_and_never_reuse_a_session_number(tmp_path, run_dossier, dav):
    folder, drop, _ = dav
    root = make_study(tmp_path, run_dossier, drop)
    page = (root / "_site" / "game" / "play" / "index.html").as_uri() + "?seed=7"
    d = start_browser(tmp_path, mobile=True)
    try:
        script = d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD_KEYS})
        d.get(page)
        a = d.current_window_handle
        wait_for(d, "window.__held !== null", "tab A making its first player")
        d.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        d.switch_to.new_window("tab")
        b = d.current_window_handle
        d.get(page)
        wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "B's survey")
        fill_survey(d, diagnosed=False, age=40, gender="male")
        made = d.execute_async_script(PLAYERS)
        assert len(made) == 1, made
        d.switch_to.window(a)
        d.execute_script("window.__released = true; window.__held();")
        wait_for(d, "document.body.getAttribute('data-current') === 'home'", "A at home with B's player")
        assert d.execute_async_script(PLAYERS) == made                    # one player on this device

        quick_game(d, Player(d, mobile=True))                              # A plays session 1
        wait_for(d, "RM.sent >= 1 && document.getElementById('outbox').hidden", "A's game sent")
        d.switch_to.window(b)
        quick_game(d, Player(d, mobile=True))                              # B read nextSession 1 at load
        wait_for(d, "RM.sent >= 2 && document.getElementById('outbox').hidden", "B's survey and game sent")
        stored = d.execute_async_script(PLAYERS)
    finally:
        d.quit()
    assert stored[0][2] == 3, stored                                       # two sessions taken
    key = (root / "keys" / "study.key").read_bytes()
    files = sorted(folder.glob("*.rmu"))
    records = [r for f in files for r in open_upload(f.read_bytes(), key)[1]]
    sessions = sorted(r["session"] for r in records if r["type"] == "session")
    assert sessions == [1, 2], sessions
    assert {r["player"] for r in records} == {made[0][0]}
    out = run_dossier("game", "ingest", "--key", root / "keys" / "study.key", *files, "--db", tmp_path / "s.sqlite")
    assert f"{len(files)} stored, 0 duplicates, 0 rejected" in out.stdout, out.stdout + out.stderr
