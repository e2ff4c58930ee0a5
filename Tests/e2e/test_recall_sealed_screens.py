"""The kit screens sealing changed — the administrator page with a sealed session waiting
(Send, Save sealed, the status column) and the Thank You page's status line — in headless
Chromium at 1280×900 and 390×844, light and dark: axe-core reports no serious or
critical violation, nothing scrolls sideways at 390 px, and a screenshot of each is saved
($DOSSIER_SHOTS, else a temporary folder). The drop is unreachable (port 9 on loopback),
so the page shows its real "waiting" states."""
import json
import pathlib
import shutil

import pytest

pytest.importorskip("selenium")
if not (shutil.which("chromedriver") or pathlib.Path("/usr/bin/chromedriver").exists()):
    pytest.skip("chromedriver is not installed", allow_module_level=True)

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from recall_kit_driver import start_browser  # noqa: E402
from page_checks import axe_source, each_view, look, shots_folder  # noqa: E402
from test_recall_kit import STRINGS  # noqa: E402

LOG = ['{"type":"session","format":"dossier-recall/1","participant":"P7","device":"test","strings":%s}',
       '{"t":0,"type":"button","button":"begin"}', '{"t":0,"type":"page","page":"memorize","string":1}',
       '{"t":900,"type":"button","button":"next"}', '{"t":900,"type":"page","page":"thankyou"}']

SEED = """
var P = "dossier-recall-kit:", lines = arguments[0];
var meta = {id: "s1", participant: "P7", created: "2026-11-29T09:00:00.000Z", t0Epoch: 1764406800000, lastT: 900,
            lines: lines.length, page: "thankyou", string: null, verifyOK: false, values: [], finished: true,
            ended: true, set: arguments[1]};
localStorage.setItem(P + "index", JSON.stringify(["s1"]));
localStorage.setItem(P + "current", JSON.stringify("s1"));
localStorage.setItem(P + "s:s1:meta", JSON.stringify(meta));
localStorage.setItem(P + "s:s1:c0", JSON.stringify(lines));
"""


def test_sealed_kit_screens_are_accessible(tmp_path, run_dossier):
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    root = tmp_path / "kit"
    (root / "data" / "logs").mkdir(parents=True)
    (root / "data" / "strings.txt").write_text("\n".join(STRINGS) + "\n", encoding="utf-8")
    (root / "dossier.yml").write_text(
        "title: Sealed kit\nrecall:\n  strings: data/strings.txt\n  logs: data/logs\n  kit: true\n"
        f"  public_key: {tmp_path / 'study.pub'}\n  kit_upload: http://127.0.0.1:9/drop/\n  kit_keep: sealed\n",
        encoding="utf-8")
    run_dossier("build", root)
    kit = root / "_site" / "recall" / "kit"
    shots = shots_folder(tmp_path / "shots")
    d = start_browser(tmp_path, False)
    problems = []
    try:
        d.set_script_timeout(60)
        d.get((kit / "admin.html").as_uri())
        d.execute_script(SEED, [LOG[0] % json.dumps(STRINGS)] + LOG[1:], "strings")
        d.get((kit / "admin.html").as_uri())
        d.find_element("xpath", "//button[starts-with(., 'Save sealed P7')]").click()
        status = d.find_element("id", "status")
        WebDriverWait(d, 60).until(lambda _: status.text.startswith("Saved rc-"))
        d.find_element("xpath", "//button[starts-with(., 'Send P7')]").click()
        WebDriverWait(d, 60).until(lambda _: status.text.startswith("Not sent yet"))
        table = d.find_element("id", "sessions").text
        assert "sealed, waiting to be sent" in table and "Export P7" not in table   # kit_keep: sealed
        keys = d.execute_script("return Object.keys(localStorage).sort()")
        assert "dossier-recall-kit:s:s1:c0" not in keys and "dossier-recall-kit:sealed:s1" in keys
        check(d, "recall-kit-admin-sealed", shots, problems)
        d.get((kit / "index.html").as_uri())
        line = d.find_element("id", "thankyou-status")
        WebDriverWait(d, 60).until(lambda _: line.text)
        assert line.text == "Your answers are saved on this device and will be sent later."
        check(d, "recall-kit-thankyou-sealed", shots, problems)
    finally:
        d.quit()
    assert not problems, "\n".join(problems)


def check(d, name, shots, problems):
    d.execute_script(axe_source())
    for scheme, w, h in each_view(d):
        problems += look(d, shots, name, scheme, w, h)
