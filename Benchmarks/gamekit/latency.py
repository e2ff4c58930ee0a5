"""Input latency of the game page (docs/game-kit.md, "Timing"; docs/benchmarks.md).

Builds a site with `game: kit: true`, opens game/play/ in headless Chromium with
`?trace=1`, and presses (DevTools mouse and key events stamped by Chromium on arrival, no
scripted time) every 120 ms through whole games, at the normal frame rate and with the CPU
throttled 4×. The page's trace gives per press: the event time, when the handler recorded
it, and the first frame drawn after it. Reports the percentiles of input → record and
input → jump drawn. A benchmark, not a test: the goal (seed 7.1: response under 100 ms)
is printed and the exit status is 1 only when p95 input → drawn misses it.

    python3 Benchmarks/gamekit/latency.py [--presses 300] [--out Benchmarks/work/gamekit-latency.md]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))
from game_kit_driver import Player, fill_survey, screen, start_browser, wait_for  # noqa: E402

GOAL_MS = 100.0


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def run(d, presses, rate):
    d.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": rate})
    p = Player(d, mobile=False)
    d.execute_script("RM.trace.length = 0")
    cx = cy = None
    sent = 0
    while sent < presses:
        cur = screen(d)
        d.find_element("css selector", f'section[data-screen="{cur}"] [data-action="play"]').click()
        wait_for(d, "document.body.getAttribute('data-current') === 'game'", "the game")
        cx, cy = p.center("#game-canvas")
        nxt = p.now() + 120
        while screen(d) == "game" and sent < presses:
            p.wait_clock(nxt)
            if sent % 2:
                d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", "key": " ", "code": "Space", "windowsVirtualKeyCode": 32, "text": " "})
                d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": " ", "code": "Space", "windowsVirtualKeyCode": 32})
            else:
                for typ in ("mousePressed", "mouseReleased"):
                    d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": typ, "x": cx, "y": cy, "button": "left", "clickCount": 1})
            sent += 1
            nxt += 120
        if screen(d) == "game":
            d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27})
        wait_for(d, "document.body.getAttribute('data-current') === 'over'", "game over")
    d.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
    trace = d.execute_script("return RM.trace.slice()")
    return [t[1] - t[0] for t in trace], [t[2] - t[0] for t in trace]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=300)
    ap.add_argument("--out", default=str(REPO / "Benchmarks" / "work" / "gamekit-latency.md"))
    a = ap.parse_args()
    binary = os.environ.get("DOSSIER_BIN") or str(REPO / ".build" / "debug" / "dossier")
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / "study"
        (root / "empty").mkdir(parents=True)
        for args in (["game", "keygen", "--out", root / "study", "--bits", "2048"],
                     ["game", "ingest", "--key", root / "study.key", root / "empty", "--db", root / "study.sqlite"]):
            subprocess.run([binary, *map(str, args)], check=True, capture_output=True)
        (root / "dossier.yml").write_text("game:\n  database: study.sqlite\n  kit: true\n  public_key: study.pub\n", encoding="utf-8")
        subprocess.run([binary, "build", str(root)], check=True, capture_output=True)
        d = start_browser(pathlib.Path(tmp), mobile=False)
        try:
            d.get((root / "_site" / "game" / "play" / "index.html").as_uri() + "?trace=1&seed=1")
            wait_for(d, "document.body.getAttribute('data-current') === 'survey'", "the survey")
            fill_survey(d, diagnosed=False, age=30, gender="other")
            rows = []
            for rate in (1, 4):
                rec, drawn = run(d, a.presses, rate)
                rows.append((rate, len(rec), [pct(rec, q) for q in (50, 95, 99, 100)], [pct(drawn, q) for q in (50, 95, 99, 100)]))
        finally:
            d.quit()
    lines = ["# Game kit input latency", "",
             "ms from a press's event time; `record` = the handler stored it, `drawn` = the first frame after it",
             "(where a jump becomes visible). Goal (seed 7.1): p95 drawn under 100 ms.", "",
             "| CPU | presses | record p50 | p95 | p99 | max | drawn p50 | p95 | p99 | max |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for rate, n, r, dr in rows:
        lines.append(f"| {'normal' if rate == 1 else f'{rate}× throttled'} | {n} | " + " | ".join(f"{x:.1f}" for x in r + dr) + " |")
    text = "\n".join(lines) + "\n"
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(text)
    missed = [rate for rate, _, _, dr in rows if rate == 1 and dr[1] >= GOAL_MS]
    if missed:
        print(f"gamekit latency: p95 input → drawn is over {GOAL_MS:.0f} ms at normal speed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
