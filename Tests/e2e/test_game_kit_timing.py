"""The game page records input times, not frame times (docs/game-kit.md, "Timing"):
every tap and jump of a game played with DevTools mouse and key events equals the
scripted event time within 2 ms — at the normal 60 Hz frame rate and again with the CPU
throttled 4× (`Emulation.setCPUThrottlingRate`), when frames are late and long. Without
`kit_upload` the sealed uploads are saved as `.rmu` files, which an independent reader
(Python `cryptography`) opens."""
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from game_kit_driver import Player, expected_session, fill_survey, obstacles, open_upload, start_browser, wait_for  # noqa: E402

SEED = 977


def downloads(folder: pathlib.Path, n: int, d):
    """Waits for n finished .rmu downloads (waiting for files, not timing anything)."""
    for _ in range(3000):
        done = sorted(folder.glob("*.rmu"))
        if len(done) >= n and not list(folder.glob("*.crdownload")):
            return done
        d.execute_script("return new Promise(function (r) { setTimeout(r, 20); })")
    raise AssertionError(f"expected {n} saved uploads, found {len(list(folder.glob('*.rmu')))}")


def timing_plan(seed):
    """Many presses with fractional times: bursts 23–90 ms apart, presses during jumps,
    presses right at a jump's end, over about 5 s; then Escape."""
    a = [o[0] for o in obstacles(seed, 6)]
    taps = [310.2, 333.6, 402.9, 912.4, 1002.7, a[0] + 380.3, a[0] + 979.7, a[0] + 980.6, a[0] + 1069.1,
            a[1] + 300.4, a[1] + 345.8, a[1] + 901.2, a[1] + 1501.9]
    return sorted(taps), a[1] + 1800.3


def test_recorded_taps_and_jumps_are_the_event_times_at_60hz_and_throttled(tmp_path, run_dossier):
    root = tmp_path / "study"
    (root / "keys").mkdir(parents=True)
    run_dossier("game", "keygen", "--out", root / "keys" / "study", "--bits", "2048")
    (root / "empty").mkdir()
    run_dossier("game", "ingest", "--key", root / "keys" / "study.key", root / "empty", "--db", root / "study.sqlite")
    (root / "dossier.yml").write_text("game:\n  database: study.sqlite\n  kit: true\n  public_key: keys/study.pub\n", encoding="utf-8")
    run_dossier("build", root)
    page = root / "_site" / "game" / "play" / "index.html"
    assert "Send now" not in page.read_text(encoding="utf-8")      # no kit_upload: only "Save as file"
    saved = tmp_path / "saved"
    saved.mkdir()
    d = start_browser(saved, mobile=False)
    plans = []
    try:
        d.get(page.as_uri() + f"?seed={SEED}")
        wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "the survey")
        fill_survey(d, diagnosed=False, age=52, gender="other")
        p = Player(d, mobile=False)
        for k, rate in enumerate((1, 4)):
            d.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": rate})
            taps, stop = timing_plan(SEED + k)
            # Throttled, each DevTools call waits for the slow page: send every press first.
            slow = {"lead": 1e9, "ahead": "auto"} if rate > 1 else {}
            p.play(taps, lambda i: "key" if i % 3 == 1 else "mouse", stop=stop, **slow)
            if rate > 1:
                assert p.sent_by < taps[0], f"the presses were still being sent {p.sent_by:.0f} ms into the game"
            plans.append((SEED + k, taps, stop))
        d.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
        d.find_element("css selector", '[data-screen="over"] [data-action="home"]').click()
        wait_for(d, "/^3 uploads are waiting/.test(document.getElementById('outbox-text').textContent)", "three uploads waiting")
        d.find_element("css selector", '[data-screen="home"] [data-action="save"]').click()
        files = downloads(saved, 3, d)
        assert d.find_element("id", "outbox").get_attribute("hidden") is not None
    finally:
        d.quit()
    key = (root / "keys" / "study.key").read_bytes()
    sessions = sorted((r for f in files for r in open_upload(f.read_bytes(), key)[1] if r["type"] == "session"),
                      key=lambda r: r["session"])
    assert [s["session"] for s in sessions] == [1, 2]
    worst = 0.0
    for s, (seed, taps, stop) in zip(sessions, plans):
        assert s["end"] - s["start"] == round(stop)
        assert len(s["taps"]) == len(taps)
        for got, want in zip(s["taps"], taps):
            worst = max(worst, abs(got - want))
        e = expected_session(seed, s["taps"], stop=round(stop))
        # A jump is a tap, so its time is the same event time; which taps jump follows the model.
        assert s["jumps"] == e["jumps"] and s["collisions"] == e["collisions"] and s["obstacles"] == e["obstacles"]
        assert set(s["jumps"]) < set(s["taps"])
    assert worst <= 2, f"a recorded tap is {worst} ms from its event time"
