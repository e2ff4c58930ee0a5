"""Issue #43 items 1–3, the recall kit on a phone (390×844, touch; Memorize at 320 px too),
in headless Chromium: a paste, dictation (a whole string through insertText) and an input
method committing a whole string at once into a masked Entry field are refused with a
calm message and write nothing; typed keys still go in. A drop (DevTools'
`Input.dispatchDragEvent`, which inserts into a plain field) is refused too. Every NIST string and a
14-character string with spaces is one line on Memorize with its spaces marked; the
Verify hint states the set's real lengths; Done is in view below ten fields; the
administrator's Export and Delete are in view at 390 px (docs/recall-kit.md)."""
import json
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from recall_kit_driver import start_browser  # noqa: E402
from test_recall_kit import kit_in_browser  # noqa: E402
from test_recall_kit_devices import TITLE  # noqa: E402

NIST = ["5c2'Qe", "m#o)fp^2aRf207", "m3)61fHw", "d51)u4;X3wrf", "p4d46*3TXY",
        "q80<u?c2mv", "6n04%Ei'Hm3V", "4i_55fQ$2Mnh30", "3.bH1o", "ua7t?C2#"]
SPACED = "a b c d e f g "          # 14 characters, 7 of them spaces, one at the end
SHORT = [SPACED, "Q", "k9Wm", "Zz", "m3P", "c8Nq", "t5E", "W2r", "h6gJ", "Ab1"]


def click(d, element_id):
    d.execute_script("document.getElementById(arguments[0]).click()", element_id)


def to_entry(d, string):
    """Welcome → Ready → Memorize → Verify (typed right) → Entry of string 1."""
    d.find_element("id", "participant").click()
    d.execute_cdp_cmd("Input.insertText", {"text": "R1"})
    click(d, "welcome-done")
    click(d, "begin")
    click(d, "memorize-next")
    d.execute_cdp_cmd("Input.insertText", {"text": string})
    click(d, "verify")
    assert d.find_element("id", "verify-message").text == "OK"
    click(d, "start-test")


def log_lines(d):
    return d.execute_script(
        "var id = JSON.parse(localStorage.getItem('dossier-recall-kit:current')), out = [];"
        "for (var c = 0; ; c++) { var v = localStorage.getItem('dossier-recall-kit:s:' + id + ':c' + c);"
        "  if (v === null) break; out = out.concat(JSON.parse(v)); } return out;")


def drop_text(d, element, text):
    """Drags `text` onto the middle of `element` with DevTools' drag events."""
    box = d.execute_script("arguments[0].scrollIntoView({block: 'center'});"
                           "var b = arguments[0].getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]",
                           element)
    data = {"items": [{"mimeType": "text/plain", "data": text}], "dragOperationsMask": 1}
    for kind in ("dragEnter", "dragOver", "drop"):
        d.execute_cdp_cmd("Input.dispatchDragEvent", {"type": kind, "x": box[0], "y": box[1], "data": data})


def test_drop_inserts_into_a_plain_field(tmp_path):
    """The drop of the kit test is a real one: the same events put the text into a plain
    field, so the kit's empty field is its refusal, not a drop that never happened."""
    page = tmp_path / "plain.html"
    page.write_text("<!doctype html><meta name=viewport content='width=device-width'>"
                    "<input id=f aria-label=f style='margin:40px;width:300px;height:44px'>")
    d = start_browser(tmp_path, True)
    try:
        d.get(page.as_uri())
        drop_text(d, d.find_element("id", "f"), NIST[0])
        assert d.find_element("id", "f").get_attribute("value") == NIST[0]
    finally:
        d.quit()


def field(d, n):
    return d.find_element("css selector", f'section[data-page="entry"] input[data-field="{n}"]')


def test_whole_strings_into_entry_fields_are_refused_calmly(tmp_path, run_dossier):
    with kit_in_browser(tmp_path, run_dossier, True, NIST, title=TITLE) as (kit, d, _):
        to_entry(d, NIST[0])
        message = d.find_element("id", "entry-message")
        assert message.text == ""
        before = len(log_lines(d))
        # 1. A paste (Control+V with the string on the clipboard).
        field(d, 1).click()
        d.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        r = d.execute_cdp_cmd("Runtime.evaluate", {"expression": "navigator.clipboard.writeText(%s).then(() => 'ok')"
                                                   % json.dumps(NIST[0]), "awaitPromise": True, "userGesture": True})
        assert r["result"]["value"] == "ok"
        d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "v", "code": "KeyV", "modifiers": 2,
                                                     "windowsVirtualKeyCode": 86, "commands": ["paste"]})
        d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "v", "code": "KeyV", "modifiers": 2,
                                                     "windowsVirtualKeyCode": 86})
        assert field(d, 1).get_attribute("value") == ""
        assert "type the string key by key" in message.text
        # 2. Dictation: the whole string through one insertText.
        field(d, 3).click()
        d.execute_cdp_cmd("Input.insertText", {"text": NIST[0]})
        assert field(d, 3).get_attribute("value") == ""
        # 3. An input method committing the whole string at once (a composition).
        field(d, 4).click()
        d.execute_cdp_cmd("Input.imeSetComposition", {"text": NIST[0], "selectionStart": 6, "selectionEnd": 6})
        d.execute_cdp_cmd("Input.insertText", {"text": NIST[0]})
        assert field(d, 4).get_attribute("value") == ""
        # 4. A drop: text dragged onto the field (DevTools' drag events, which do insert
        # into a plain field: drop_inserts_into_a_plain_field below shows it).
        d.execute_script("document.getElementById('entry-message').textContent = ''")
        drop_text(d, field(d, 6), NIST[0])
        assert field(d, 6).get_attribute("value") == ""
        assert "type the string key by key" in message.text   # the kit's own refusal of the drop
        # Nothing of them is in the log: no key event carries any text.
        keys = [e for e in map(json.loads, log_lines(d)[before:]) if e["type"] == "key"]
        assert all(not e.get("text") for e in keys), keys
        # Typing key by key still goes in, one character per key.
        field(d, 5).click()
        for ch in NIST[0]:
            d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch})
            d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch})
        assert field(d, 5).get_attribute("value") == NIST[0]
        texts = [e["text"] for e in map(json.loads, log_lines(d)[before:]) if e["type"] == "key" and e.get("text")]
        assert texts == [NIST[0][: k + 1] for k in range(len(NIST[0]))]
        # Done stays in view below ten fields (the page is not scrolled).
        d.execute_script("window.scrollTo(0, 0)")
        done = d.execute_script("var b = document.getElementById('entry-done').getBoundingClientRect();"
                                "return [b.top, b.bottom, window.innerHeight]")
        assert 0 <= done[0] and done[1] <= done[2], done


def one_line(d, width, text=None):
    """Memorize at `width` px, showing `text` (a NIST string: no space, so as the kit shows
    it) or the kit's own rendering; returns (lines, overflow px, spaces marked ␣)."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 844, "deviceScaleFactor": 3,
                                                             "mobile": True})
    return d.execute_script(
        "var box = document.getElementById('target'); if (arguments[0] !== null) box.textContent = arguments[0];"
        "var r = document.createRange(); r.selectNodeContents(box);"
        "var tops = new Set(Array.from(r.getClientRects()).map(function (q) { return Math.round(q.top); }));"
        "var marks = Array.from(box.querySelectorAll('.sp')).filter(function (s) {"
        "  var a = getComputedStyle(s, '::after'); return s.textContent === ' ' && a.content !== 'none'"
        "    && parseFloat(a.borderBottomWidth) > 0 && parseFloat(a.height) > 0; }).length;"
        "return [tops.size, box.scrollWidth - box.clientWidth, marks];", text)


def test_memorize_shows_each_string_on_one_line_with_its_spaces_marked(tmp_path, run_dossier):
    with kit_in_browser(tmp_path, run_dossier, True, SHORT, title=TITLE) as (kit, d, _):
        d.find_element("id", "participant").click()
        d.execute_cdp_cmd("Input.insertText", {"text": "R2"})
        click(d, "welcome-done")
        # The Verify hint says the set's real range (1 to 14 here, not "6 to 14").
        assert d.find_element("id", "verify-range").get_attribute("textContent") == "1 to 14 characters"
        click(d, "begin")
        assert d.find_element("id", "target").get_attribute("textContent") == SPACED
        for width in (390, 320):
            assert one_line(d, width) == [1, 0, SPACED.count(" ")], width       # the kit's own rendering
        for width in (390, 320):
            for s in NIST:
                assert one_line(d, width, s) == [1, 0, 0], (width, s)


def test_the_administrators_buttons_are_in_view_on_a_phone(tmp_path, run_dossier):
    with kit_in_browser(tmp_path, run_dossier, True, NIST, title=TITLE) as (kit, d, _):
        to_entry(d, NIST[0])
        d.get((kit / "admin.html").as_uri())
        buttons = d.execute_script(
            "return Array.from(document.querySelectorAll('#sessions button')).map(function (b) {"
            "  var r = b.getBoundingClientRect(); return [b.textContent, r.left, r.right]; })")
        assert [b[0] for b in buttons] == ["Export R1", "Delete R1"]
        assert all(0 <= left and right <= 390 for _, left, right in buttons), buttons
        assert d.execute_script("return document.documentElement.scrollWidth") <= 390
