"""The recall test kit (docs/recall-kit.md) in real headless Chromium.

A script plays a whole participant through `recall/kit/index.html` (opened from file://),
sending input through the DevTools protocol at chosen times — once with a desktop
keyboard and mouse, once in mobile emulation with touch and a soft keyboard (keyCode 229
and text) — exports the log from the administrator page, builds it with Dossier, and
compares every time in rolled-up.csv with the same measures built from the ideal log of
the script. Chromium takes `event.timeStamp` from the protocol's `timestamp`, so the
comparison does not depend on machine load.
"""
import contextlib
import csv
import io
import json
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from recall_kit_driver import Player, export_log, play_whole_session, start_browser, write_jsonl  # noqa: E402

STRINGS = ["ab1", "Qz2", "k9w", "m3p", "x7yv", "p4d", "c8n", "t5e", "w2r", "h6gj"]
TIME_COLUMNS = ["start_ms", "end_ms", "duration_ms", "median_hold_ms", "median_dd_ms", "median_ud_ms", "median_uu_ms"]


def kit_project(root: pathlib.Path, run_dossier, strings=None, title="Kit e2e"):
    """A project of `strings` (STRINGS unless given) with the kit on, built; its kit folder."""
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(strings or STRINGS) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text(f"title: {title}\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n"
                                      "  kit: true\n", encoding="utf-8")
    run_dossier("build", root)
    kit = root / "_site" / "recall" / "kit"
    assert (kit / "index.html").exists() and (kit / "admin.html").exists()
    return kit


@contextlib.contextmanager
def kit_in_browser(tmp_path, run_dossier, mobile, strings=None, size=(390, 844), title="Kit e2e"):
    """The kit of `kit_project` (in tmp_path/kit) open in Chromium, a phone if `mobile`
    (of `size`): yields (kit folder, driver, downloads folder); the browser quits after."""
    kit = kit_project(tmp_path / "kit", run_dossier, strings, title)
    downloads = tmp_path / "downloads"
    downloads.mkdir(exist_ok=True)
    d = start_browser(downloads, mobile, size)
    try:
        d.get((kit / "index.html").as_uri())
        yield kit, d, downloads
    finally:
        d.quit()


def rolled(path: pathlib.Path):
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    return rows[0], rows[1:]


def build_logs(tmp: pathlib.Path, run_dossier, logs: dict):
    root = tmp / "build"
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    for name, src in logs.items():
        shutil.copy(src, root / "data" / "logs" / name)
    (root / "dossier.yml").write_text("title: Kit logs\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n", encoding="utf-8")
    check = run_dossier("check", root)
    assert "warning" not in (check.stdout + check.stderr).lower(), check.stderr
    proc = run_dossier("build", root)
    assert "warning" not in proc.stderr.lower(), proc.stderr
    return root / "_site" / "recall" / "participants"


def compare_rolled_up(kit_csv: pathlib.Path, ideal_csv: pathlib.Path, min_compared=300):
    """Same rows and cells (but the participant column); time cells within 2 ms.
    Returns the largest difference (ms)."""
    h1, kit = rolled(kit_csv)
    h2, ideal = rolled(ideal_csv)
    assert h1 == h2
    assert len(kit) == len(ideal)
    timed = {h1.index(c) for c in TIME_COLUMNS}
    worst, compared = 0.0, 0
    for a, b in zip(kit, ideal):
        for i, (x, y) in enumerate(zip(a, b)):
            if i == 0:
                continue
            if i in timed and (x or y):
                assert x and y, (h1[i], a, b)
                err = abs(float(x) - float(y))
                assert err <= 2.0, (h1[i], a, b)
                worst = max(worst, err)
                compared += 1
            else:
                assert x == y, (h1[i], a, b)
    assert compared > min_compared
    return worst


@pytest.mark.parametrize("mobile", [False, True], ids=["desktop", "mobile"])
def test_kit_times_match_the_script_within_2ms(tmp_path, run_dossier, mobile):
    with kit_in_browser(tmp_path, run_dossier, mobile) as (kit, d, downloads):
        p = Player(d, mobile, "P-0" + ("2" if mobile else "1"), STRINGS)
        play_whole_session(p)
        assert d.find_element("css selector", 'section[data-page="thankyou"]').is_displayed()
        exported = export_log(d, (kit / "admin.html").as_uri(), downloads)
    lines = [json.loads(l) for l in exported.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["participant"] == p.participant and lines[0]["strings"] == STRINGS
    kinds = {e.get("action") for e in lines[1:] if e["type"] == "key"}
    assert kinds == {"down", "up"}
    assert any(e["type"] == "touch" for e in lines[1:])
    ideal = tmp_path / "ideal.jsonl"
    p.ideal[0]["participant"] += "-ideal"     # two participant numbers: no duplicate warning
    write_jsonl(ideal, p.ideal)
    out = build_logs(tmp_path, run_dossier, {"kit.jsonl": exported, "ideal.jsonl": ideal})
    worst = compare_rolled_up(out / "kit" / "rolled-up.csv", out / "ideal" / "rolled-up.csv")
    print(f"\nkit timing ({'mobile' if mobile else 'desktop'}): largest difference {worst:.1f} ms")
    (tmp_path / "worst.txt").write_text(str(worst))


def test_reload_mid_entry_resumes_with_nothing_lost(tmp_path, run_dossier):
    with kit_in_browser(tmp_path, run_dossier, False) as (kit, d, downloads):
        p = Player(d, False, "R1", STRINGS)
        p.begin()
        t = p.click_button("#memorize-next", 2000)
        p.turn("next", t); p.show("verify", 1, t); p.log(t=t, type="focus", field=1)
        t = p.type(1, STRINGS[0], t + 500) + 200
        t = p.click_button("#verify", t)
        p.log(t=t, type="button", button="verify", result="ok")
        t = p.click_button("#start-test", t + 400)
        p.turn("start-test", t); p.show("entry", 1, t)
        for f in range(1, 5):
            t = p.focus_field(f, t + 300)
            t = p.type(f, STRINGS[0], t + 200) + 50
        t = p.focus_field(5, t + 300)
        t = p.type(5, STRINGS[0][:2], t + 200) + 50       # half of field 5
        before = d.execute_script("return JSON.stringify(localStorage)")
        d.refresh()
        assert d.execute_script("return JSON.stringify(localStorage)") == before   # a reload writes nothing
        assert d.find_element("css selector", 'section[data-page="entry"]').is_displayed()
        values = d.execute_script("return Array.from(document.querySelectorAll('section[data-page=entry] input')).map(i => i.value)")
        assert values == [STRINGS[0]] * 4 + [STRINGS[0][:2]] + [""] * 5
        # Carry on after the reload: finish field 5 and the others, then Done.
        t = p.focus_field(5, t + 5000)
        t = p.type(5, STRINGS[0][2:], t + 200) + 50
        for f in range(6, 11):
            t = p.focus_field(f, t + 300)
            t = p.type(f, STRINGS[0], t + 200) + 50
        # Next (Enter) in the last field wraps to the first (seed 3e.4).
        p.enter(t + 300)
        t += 300
        p.log(t=t, type="focus", field=1)
        assert d.execute_script("return document.activeElement.getAttribute('data-field')") == "1"
        t = p.click_button("#entry-done", t + 500)
        p.turn("done", t); p.show("memorize", 2, t)
        p.ensure_ideal_times_are_ints()
        exported = export_log(d, (kit / "admin.html").as_uri(), downloads)
    ideal = tmp_path / "ideal.jsonl"
    p.ideal[0]["participant"] += "-ideal"     # two participant numbers: no duplicate warning
    write_jsonl(ideal, p.ideal)
    out = build_logs(tmp_path, run_dossier, {"kit.jsonl": exported, "ideal.jsonl": ideal})
    _, rows = rolled(out / "kit" / "rolled-up.csv")
    entries = [r for r in rows if r[4] == "Entry" and r[5] == "entry"]
    assert len(entries) == 10 and all(r[11] == STRINGS[0] and r[12] == "True" for r in entries)
    fields5 = [r for r in entries if r[7] == "5"]
    assert len(fields5) == 1 and fields5[0][14] == "3"      # one entry, all three keys
    compare_rolled_up(out / "kit" / "rolled-up.csv", out / "ideal" / "rolled-up.csv", min_compared=40)
