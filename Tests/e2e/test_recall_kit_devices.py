"""The recall kit on phones and tablets (issue 32): a device matrix in headless Chromium.

At 390×844 (a phone) and 820×1180 (a tablet), both with touch, a script plays a whole
participant through the kit; each typing turn uses the next input path of
recall_kit_devices.METHODS — an Android soft keyboard (keyCode 229, then the character
through `Input.insertText`), an IME composition (`Input.imeSetComposition`), a key that
sends its character with the keydown, a hardware keyboard whose Shift is released before
its letter, a paste (Control+V), a swipe word and an autocorrect replacement — on strings
with capitals, a space and emoji (one with a skin-tone modifier). The log exported from the
administrator page is built by Dossier, and every rolled-up cell must equal the one built
from the script's ideal log: the number of keystrokes exactly, every time within 2 ms;
every touch names its target as the log's button names do.

A second test checks the Welcome and Verify fields count characters, not UTF-16 units,
refuse a lone space as a participant number, and the small Verify fixes (focus after Not
OK, no event written by a reload).
"""
import json
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from recall_kit_devices import METHODS, DevicePlayer  # noqa: E402
from recall_kit_driver import export_log, play_whole_session, write_jsonl  # noqa: E402
import test_recall_kit as base  # noqa: E402
from test_recall_kit import kit_in_browser  # noqa: E402

# String 4: 8 emoji, 16 UTF-16 units — more than a UTF-16 `maxlength` of 14 would let through.
STRINGS = ["Ab1", "Qz 2", "k9Wm", "😀🎉👋🌟🍎🚀🐱🎈", "m👍🏽Pa", "Mö3d", "c8Nq", "t5 E", "W2r👋", "h6gJ"]
TITLE = "Kit devices"
TOUCH_TARGETS = {"next", "verify", "memorize", "start-test", "done", "page"} | {f"field {n}" for n in range(1, 11)}


@pytest.mark.parametrize("size", [(390, 844), (820, 1180)], ids=["phone", "tablet"])
def test_every_input_path_gives_the_scripted_keys_and_times(tmp_path, run_dossier, monkeypatch, size):
    monkeypatch.setattr(base, "STRINGS", STRINGS)
    with kit_in_browser(tmp_path, run_dossier, True, STRINGS, size, TITLE) as (kit, d, downloads):
        p = DevicePlayer(d, True, "D-%d" % size[0], STRINGS)
        play_whole_session(p)
        where = d.execute_script("var s = document.querySelector('section[data-page]:not([hidden])'); return s && s.getAttribute('data-page')")
        assert where == "thankyou", (where, p.used, p.ideal[-6:])
        exported = export_log(d, (kit / "admin.html").as_uri(), downloads)
    assert all(p.used[m] >= 2 for m in METHODS), p.used
    lines = [json.loads(l) for l in exported.read_text(encoding="utf-8").splitlines()]
    keys = [e for e in lines[1:] if e["type"] == "key"]
    assert not [e for e in keys if e["key"] in ("Unidentified", "Process", "v", " ")], "a key not named by its change"
    assert {e["target"] for e in lines[1:] if e["type"] == "touch"} <= TOUCH_TARGETS   # button names, not element ids
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


def test_welcome_and_verify_count_characters_not_utf16_units(tmp_path, run_dossier):
    """12 emoji are a participant number (13 are not, a lone space is not); a reload on
    Verify writes nothing; after Not OK the field has the focus and typing goes on there."""
    emoji = STRINGS[3]
    with kit_in_browser(tmp_path, run_dossier, True, [emoji] + STRINGS[:3] + STRINGS[4:], title=TITLE) as (kit, d, _):
        field = d.find_element("id", "participant")
        done = d.find_element("id", "welcome-done")

        def participant(text):
            d.execute_script("arguments[0].value = ''; arguments[0].focus();", field)
            d.execute_cdp_cmd("Input.insertText", {"text": text})
            return done.get_attribute("disabled") is None
        assert not participant(" ")
        assert not participant("🙂" * 13)
        assert participant("🙂" * 12)
        assert field.get_attribute("value") == "🙂" * 12          # nothing cut
        done.click()
        d.find_element("id", "begin").click()
        d.find_element("id", "memorize-next").click()
        verify = d.find_element("id", "verify-field")
        assert d.switch_to.active_element == verify
        d.execute_cdp_cmd("Input.insertText", {"text": "😀🎉👋🌟🍎🚀🐱"})
        d.find_element("id", "verify").click()
        assert d.find_element("id", "verify-message").text == "Not OK"
        assert d.switch_to.active_element == verify              # type again at once
        d.execute_cdp_cmd("Input.insertText", {"text": "🎈"})
        assert verify.get_attribute("value") == emoji      # 16 UTF-16 units, not cut at 14
        before = d.execute_script("return JSON.stringify(localStorage)")
        d.refresh()
        assert d.execute_script("return JSON.stringify(localStorage)") == before   # the reload's focus is not written
        assert d.find_element("id", "verify-field").get_attribute("value") == emoji
        d.find_element("id", "verify").click()
        assert d.find_element("id", "verify-message").text == "OK"
        meta = d.execute_script("var k = localStorage.getItem('dossier-recall-kit:current');"
                                "return JSON.parse(localStorage.getItem('dossier-recall-kit:s:' + JSON.parse(k) + ':meta'))")
        assert meta["participant"] == "🙂" * 12
