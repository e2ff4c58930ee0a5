"""The recall kit on phones and tablets (issue 32): a device matrix in headless Chromium.

At 390×844 (a phone) and 820×1180 (a tablet), both with touch, a script plays a whole
participant through the kit; each typing turn uses the next input path of
recall_kit_devices.METHODS — an Android soft keyboard (keyCode 229, then the character
through `Input.insertText`), an IME composition (`Input.imeSetComposition`), a key that
sends its character with the keydown, a hardware keyboard whose Shift is released before
its letter, a paste (Control+V), a swipe word and an autocorrect replacement — on strings
with capitals, a space and emoji (one with a skin-tone modifier). The log exported from the
administrator page is built by Dossier, and every rolled-up cell must equal the one built
from the script's ideal log: the number of keystrokes exactly, every time within 2 ms.
"""
import json
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from recall_kit_devices import METHODS, DevicePlayer  # noqa: E402
from recall_kit_driver import export_log, play_whole_session, start_browser, write_jsonl  # noqa: E402
import test_recall_kit as base  # noqa: E402

STRINGS = ["Ab1", "Qz 2", "k9Wm", "😀🎉x", "m👍🏽Pa", "Mö3d", "c8Nq", "t5 E", "W2r👋", "h6gJ"]


def kit_project(root: pathlib.Path, run_dossier):
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text("title: Kit devices\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n  kit: true\n",
                                      encoding="utf-8")
    run_dossier("build", root)
    return root / "_site" / "recall" / "kit"


@pytest.mark.parametrize("size", [(390, 844), (820, 1180)], ids=["phone", "tablet"])
def test_every_input_path_gives_the_scripted_keys_and_times(tmp_path, run_dossier, monkeypatch, size):
    monkeypatch.setattr(base, "STRINGS", STRINGS)
    kit = kit_project(tmp_path / "kit", run_dossier)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    d = start_browser(downloads, True, size)
    try:
        d.get((kit / "index.html").as_uri())
        p = DevicePlayer(d, True, "D-%d" % size[0], STRINGS)
        play_whole_session(p)
        where = d.execute_script("var s = document.querySelector('section[data-page]:not([hidden])'); return s && s.getAttribute('data-page')")
        assert where == "thankyou", (where, p.used, p.ideal[-6:])
        exported = export_log(d, (kit / "admin.html").as_uri(), downloads)
    finally:
        d.quit()
    assert all(p.used[m] >= 2 for m in METHODS), p.used
    lines = [json.loads(l) for l in exported.read_text(encoding="utf-8").splitlines()]
    keys = [e for e in lines[1:] if e["type"] == "key"]
    assert not [e for e in keys if e["key"] in ("Unidentified", "Process", "v", " ")], "a key not named by its change"
    # The same keystrokes as the script, event for event (times are compared below).
    ideal_keys = [e for e in p.ideal[1:] if e["type"] == "key"]
    strip = lambda e: (e["key"], e["action"], e.get("text"), e["field"])  # noqa: E731
    assert [strip(e) for e in keys] == [strip(e) for e in ideal_keys]
    ideal = tmp_path / "ideal.jsonl"
    p.ideal[0]["participant"] += "-ideal"
    write_jsonl(ideal, p.ideal)
    out = base.build_logs(tmp_path, run_dossier, {"kit.jsonl": exported, "ideal.jsonl": ideal})
    worst = base.compare_rolled_up(out / "kit" / "rolled-up.csv", out / "ideal" / "rolled-up.csv")
    print(f"\nkit devices {size}: largest difference {worst:.1f} ms; methods {p.used}")
