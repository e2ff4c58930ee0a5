"""The recall kit opened for the first time in two tabs at once (docs/recall-kit.md, "What
the kit keeps on the device"), in real headless Chromium from file://, by a schedule:

tab A finds no device key and starts making one — its key generation is held by the test;
tab B, opened meanwhile, finds none either, makes its key and stores it; then A's key
generation goes on. Both tabs must then sign as one device, with the key that is stored.
Before, A stored its key over B's: B's uploads came from a "device" whose key the kit no
longer had, and the two tabs of one device counted as two devices.
"""
import pytest

selenium = pytest.importorskip("selenium")

from recall_kit_driver import start_browser  # noqa: E402
from test_recall_kit_key import project  # noqa: E402

HOLD = """
window.__holdKey = null;
var made = Sealer.newSigningKey;
Sealer.newSigningKey = function () {
  return new Promise(function (go) { window.__holdKey = go; }).then(function () { return made(); });
};
window.__device = null;
KitStore.device().then(function (d) { window.__device = d.device; }, function (e) { window.__device = 'error ' + e; });
"""
DEVICE = "KitStore.device().then(function (d) { window.__device = d.device; }, " \
         "function (e) { window.__device = 'error ' + e; });"
STORED = """
var done = arguments[arguments.length - 1];
var req = indexedDB.open("dossier-recall-kit", 1);
req.onsuccess = function () {
  var g = req.result.transaction("device", "readonly").objectStore("device").get("device");
  g.onsuccess = function () { done(g.result ? g.result.device : null); };
};
"""


def wait(drv, cond, timeout=60):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(drv, timeout, poll_frequency=0.02).until(cond)


def test_two_tabs_opening_the_kit_at_once_are_one_device(tmp_path, run_dossier):
    run_dossier("recall", "keygen", "--output", tmp_path / "study", "--bits", "2048")
    root = project(tmp_path / "p", f"  kit: true\n  public_key: {tmp_path / 'study.pub'}\n")
    run_dossier("build", root)
    page = (root / "_site" / "recall" / "kit" / "index.html").as_uri()
    drv = start_browser(tmp_path / "dl", mobile=True)
    try:
        drv.get(page)
        a = drv.current_window_handle
        drv.execute_script(HOLD)
        wait(drv, lambda d: d.execute_script("return window.__holdKey !== null"))   # A found no key
        drv.switch_to.new_window("tab")
        drv.get(page)
        drv.execute_script("window.__device = null;" + DEVICE)
        b_device = wait(drv, lambda d: d.execute_script("return window.__device"))
        assert not b_device.startswith("error"), b_device
        assert drv.execute_async_script(STORED) == b_device
        drv.switch_to.window(a)
        drv.execute_script("window.__holdKey();")                                   # A's key generation goes on
        a_device = wait(drv, lambda d: d.execute_script("return window.__device"))
        assert a_device == b_device, (a_device, b_device)                          # one device
        assert drv.execute_async_script(STORED) == b_device                         # B's key was kept
        # A fresh tab, and A asking again, find the same device.
        drv.switch_to.new_window("tab")
        drv.get(page)
        drv.execute_script("window.__device = null;" + DEVICE)
        assert wait(drv, lambda d: d.execute_script("return window.__device")) == b_device
    finally:
        drv.quit()
