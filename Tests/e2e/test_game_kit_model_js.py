"""The page's game model (Site/game/play/model.js) run in headless Chromium, step by step
in the order a busy page handles things (docs/game-kit.md, "The game model"): the model
decides, not the frame loop. Each case is checked against the independent Python model
of game_kit_driver.py (written from the docs)."""
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from game_kit_driver import expected_session, obstacles, start_browser  # noqa: E402

MODEL = pathlib.Path(__file__).resolve().parents[2] / "Site" / "game" / "play" / "model.js"
SEED = 977


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    d = start_browser(tmp_path_factory.mktemp("dl"), mobile=False)
    d.get("about:blank")
    d.execute_script(MODEL.read_text(encoding="utf-8"))
    yield d
    d.quit()


def run(page, steps):
    """Plays `steps` ([op, t] with op tap | frame | stop) on a fresh Game; returns its state."""
    return page.execute_script("""
        var g = new RM.model.Game(arguments[0]);
        arguments[1].forEach(function (s) {
          if (s[0] === "tap") g.tap(s[1]); else if (s[0] === "stop") g.stop(s[1]); else g.advance(s[1]);
        });
        var l = g.end === null ? null : g.lists();
        return {end: g.end, collisions: g.collisions.map(function (c) { return c[0]; }), lists: l,
                cleared: g.end === null ? null : g.cleared(g.end)};
    """, SEED, steps)


def test_a_tap_at_550_handled_after_the_frame_at_640_clears_the_obstacle(page):
    a = [o[0] for o in obstacles(SEED, 8)]
    # The frame at aᵢ + 640 came first: without the tap the obstacle hits there.
    before = run(page, [["frame", a[0] + 640]])
    assert before["collisions"] == [a[0] + 640]
    # Then the tap made at aᵢ + 550 is handled: the collision is taken back.
    late = run(page, [["frame", a[0] + 640], ["tap", a[0] + 550], ["frame", a[0] + 700], ["stop", a[0] + 900]])
    assert late["collisions"] == []
    want = expected_session(SEED, [a[0] + 550], stop=a[0] + 900)
    assert late["lists"]["collisions"] == want["collisions"] == []
    assert late["lists"]["jumps"] == want["jumps"] == [a[0] + 550]
    assert late["lists"]["score"] == want["score"] == 10 + (a[0] + 900) // 1000
    assert late["cleared"] == 1


def test_a_press_stamped_before_the_end_but_handled_after_it_takes_the_end_back(page):
    a = [o[0] for o in obstacles(SEED, 8)]
    # No taps: obstacles 0, 1, 2 hit and the game ends at the third collision.
    ended = run(page, [["frame", a[2] + 700]])
    assert ended["end"] == a[2] + 640
    # A tap at a₂ + 550 handled after that end clears obstacle 2: the game goes on, and ends
    # at obstacle 3; a tap after the new end is not recorded.
    steps = [["frame", a[2] + 700], ["tap", a[2] + 550], ["frame", a[3] + 700], ["tap", a[3] + 650]]
    s = run(page, steps)
    want = expected_session(SEED, [a[2] + 550])
    assert s["end"] == want["end"] == a[3] + 640
    assert s["lists"] == {k: want[k] for k in ("obstacles", "taps", "jumps", "collisions", "score")}
    assert s["cleared"] == 1


def test_a_stop_handled_before_a_late_tap_still_counts_the_tap(page):
    a = [o[0] for o in obstacles(SEED, 8)]
    s = run(page, [["frame", a[0] + 700], ["stop", a[0] + 800], ["tap", a[0] + 500], ["tap", a[0] + 900]])
    want = expected_session(SEED, [a[0] + 500], stop=a[0] + 800)
    assert s["end"] == a[0] + 800
    assert s["lists"] == {k: want[k] for k in ("obstacles", "taps", "jumps", "collisions", "score")}
    assert want["collisions"] == []


def test_a_stop_made_before_a_collision_already_evaluated_removes_it(page):
    a = [o[0] for o in obstacles(SEED, 8)]
    # Frames ran to a₁ + 700 (two collisions), then a Stop stamped a₁ + 600 is handled.
    s = run(page, [["frame", a[1] + 700], ["stop", a[1] + 600]])
    want = expected_session(SEED, [], stop=a[1] + 600)
    assert s["collisions"] == want["collisions"] == [a[0] + 640]
    assert s["lists"]["score"] == want["score"]
